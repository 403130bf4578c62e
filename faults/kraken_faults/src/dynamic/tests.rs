//! Unit tests of [`super`] (the dynamic channel): stacks on raw bytes,
//! set / append / clear by id, provenance, hold caps, the status.

use super::*;
use crate::config::{ChannelsConfig, QosConfig};
use breakbench_msgs::{decode, encode, Value};
use rand::SeedableRng;

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

fn chan() -> DynChannel {
    let cfg = DynamicChannelConfig {
        name: "sonar".into(),
        type_name: "sensor_msgs/msg/Range".into(),
        input_topic: "/a".into(),
        output_topic: "/b".into(),
        qos: QosConfig {
            reliability: crate::Reliability::BestEffort,
            depth: 10,
            output: None,
        },
        hold_limits: None,
        index: 0,
        fault_fields: Vec::new(),
    };
    DynChannel::new(&cfg, Arc::new(TypeRegistry::builtin()), HoldLimits::DEFAULT).unwrap()
}

fn msg(c: &DynChannel, range: f32) -> Vec<u8> {
    let mut v = Value::zero(c.ty());
    *v.field_mut("range").unwrap() = Value::F32(range);
    *v.field_mut("max_range").unwrap() = Value::F32(4.0);
    encode(c.ty(), &v).unwrap()
}

fn kv<'a>(s: &'a DiagnosticStatus, key: &str) -> &'a str {
    &s.values.iter().find(|k| k.key == key).unwrap().value
}

/// Issue 10 on the node's raw path: a stall of 0.25 s holds the bytes
/// of 0, 100 and 200 ms and releases all three at 250 ms, in arrival
/// order, byte for byte; 300 ms passes at once. Then reorder p = 1
/// swaps the next pair.
#[test]
fn stall_burst_release_and_reorder_on_raw_bytes() {
    let mut c = chan();
    let mut rng = FaultRng::seed_from_u64(1);
    c.set_stack("[{fault: {stall: {stall_s: 0.25}}}]", false, ms(0))
        .unwrap();
    let m: Vec<Vec<u8>> = (0..4).map(|k| msg(&c, k as f32)).collect();
    for (k, b) in m[..3].iter().enumerate() {
        c.push(b.clone(), ms(100 * k as u64), &mut rng);
        assert!(c.poll(ms(100 * k as u64)).is_empty());
    }
    assert_eq!(c.held(), 3);
    assert!(c.poll(ms(249)).is_empty());
    assert_eq!(c.poll(ms(250)), m[..3].to_vec());
    c.push(m[3].clone(), ms(300), &mut rng);
    assert_eq!(c.poll(ms(300)), vec![m[3].clone()]);
    let s = c.status(ms(300), "fault_injector");
    assert_eq!(
        kv(&s, "stage0.fault"),
        "0: stall 0.25 s, then burst release"
    );
    assert_eq!(kv(&s, "stage0.changed"), "3");

    c.set_stack("[{fault: {reorder: {probability: 1.0}}}]", false, ms(400))
        .unwrap();
    c.push(m[0].clone(), ms(400), &mut rng);
    assert!(c.poll(ms(400)).is_empty());
    c.push(m[1].clone(), ms(410), &mut rng);
    assert_eq!(c.poll(ms(410)), vec![m[1].clone(), m[0].clone()]);
    // A message held back when the stage is cleared is released then,
    // not lost (no next message will ever come behind it).
    c.push(m[2].clone(), ms(420), &mut rng);
    assert!(c.poll(ms(420)).is_empty());
    c.clear_all(ms(430));
    assert_eq!(c.poll(ms(430)), vec![m[2].clone()]);
}

#[test]
fn set_append_clear_by_id_and_provenance() {
    let mut c = chan();
    let mut rng = FaultRng::seed_from_u64(1);
    // Passthrough: bytes unchanged.
    let m = msg(&c, 1.0);
    c.push(m.clone(), ms(0), &mut rng);
    assert_eq!(c.poll(ms(0)), vec![m.clone()]);

    let ids = c
        .set_stack(
            "[{fault: {field: {path: range, mode: set, value: nan}}}]",
            false,
            ms(10),
        )
        .unwrap();
    assert_eq!(ids, vec![1]);
    c.push(m.clone(), ms(20), &mut rng);
    let out = c.poll(ms(20));
    let v = decode(c.ty(), &out[0]).unwrap();
    assert!(matches!(v.field("range"), Some(Value::F32(x)) if x.is_nan()));
    assert_eq!(v.field("max_range"), Some(&Value::F32(4.0)));

    let ids = c
        .set_stack("- fault: {drop: {probability: 1.0}}\n", true, ms(30))
        .unwrap();
    assert_eq!(ids, vec![1, 2]);
    c.push(m.clone(), ms(40), &mut rng);
    assert!(c.poll(ms(40)).is_empty());

    // Refusals change nothing.
    for bad in [
        "[{fault: {field: {path: nope, mode: set, value: 1}}}]",
        "[{fault: {field: {path: range, mode: truncate, length: 1}}}]",
        "[{fault: {drop: {probability: 2}}}]",
        "{not: a list",
    ] {
        let e = c.set_stack(bad, false, ms(45)).unwrap_err();
        assert!(!e.is_empty());
        assert_eq!(c.ids(), vec![1, 2], "{bad}: {e}");
    }
    assert!(c.clear_stage(7, ms(45)).is_err());

    let s = c.status(ms(45), "fault_injector");
    assert_eq!(s.level, DiagnosticStatus::WARN);
    assert_eq!(kv(&s, "stage0.id"), "1");
    // Changed at 20 ms and at 40 ms (before the drop stage withheld it).
    assert_eq!(kv(&s, "stage0.changed"), "2");
    assert_eq!(kv(&s, "stage0.requested"), "0.010000000");
    assert_eq!(kv(&s, "stage0.first_applied"), "0.020000000");
    assert_eq!(kv(&s, "stage1.withheld"), "1");
    assert_eq!(kv(&s, "stage1.fault"), "1: drop p=1");
    assert_eq!(kv(&s, "stage1.first_applied"), "0.040000000");

    c.clear_stage(2, ms(50)).unwrap();
    assert_eq!(c.ids(), vec![1]);
    c.push(m.clone(), ms(60), &mut rng);
    assert_eq!(c.poll(ms(60)).len(), 1);
    let s = c.status(ms(60), "fault_injector");
    assert_eq!(kv(&s, "cleared0.id"), "2");
    assert_eq!(kv(&s, "cleared0.cleared"), "0.050000000");
    assert_eq!(kv(&s, "cleared0.withheld"), "1");

    // Replace with a delay: held, released when due, in order.
    assert_eq!(
        c.set_stack("[{fault: {delay: {delay_s: 0.5}}}]", false, ms(100))
            .unwrap(),
        vec![3]
    );
    c.push(m.clone(), ms(100), &mut rng);
    assert!(c.poll(ms(599)).is_empty());
    assert_eq!(c.next_release(), Some(ms(600)));
    assert_eq!(c.poll(ms(600)), vec![m.clone()]);
    c.clear_all(ms(700));
    assert!(c.ids().is_empty());
    assert_eq!(c.status(ms(700), "n").level, DiagnosticStatus::OK);
    // An empty stack_yaml replaces with nothing.
    assert!(c.set_stack("", false, ms(800)).unwrap().is_empty());
}

#[test]
fn full_hold_queue_drops_the_message_due_first() {
    let mut c = chan();
    c.limits = HoldLimits {
        max_held_messages: 2,
        ..HoldLimits::DEFAULT
    };
    let mut rng = FaultRng::seed_from_u64(1);
    c.set_stack("[{fault: {delay: {delay_s: 1.0}}}]", false, ms(0))
        .unwrap();
    let m: Vec<Vec<u8>> = (0..3).map(|i| msg(&c, i as f32)).collect();
    for (i, b) in m.iter().enumerate() {
        c.push(b.clone(), ms(i as u64), &mut rng);
    }
    assert_eq!((c.held(), c.dropped_overflow), (2, 1));
    assert_eq!(c.poll(ms(5000)), vec![m[1].clone(), m[2].clone()]);
    assert_eq!((c.messages_in, c.messages_out), (3, 2));
}

const CLOCK_TF_YAML: &str = "\
channels:
  - {name: gnss, type: sensor_msgs/msg/NavSatFix, input_topic: /gnss/fix_raw, output_topic: /gnss/fix, qos: {reliability: best_effort, depth: 10}}
  - {name: clock, type: rosgraph_msgs/msg/Clock, input_topic: /clock_raw, output_topic: /clock, qos: {reliability: best_effort, depth: 10}}
  - {name: tf, type: tf2_msgs/msg/TFMessage, input_topic: /tf_raw, output_topic: /tf, qos: {reliability: reliable, depth: 100}}
";

#[test]
fn the_injector_clock_follows_the_clock_channel_input_never_its_output() {
    let cfg = ChannelsConfig::parse(CLOCK_TF_YAML, "t.yaml").unwrap();
    let plain = |n: &str| n.to_string();
    // A Clock channel publishing /clock: the node's clock is its input,
    // read from that channel's messages.
    assert_eq!(
        clock_source(&cfg, None, plain).unwrap(),
        ClockSource {
            topic: "/clock_raw".into(),
            resolved: "/clock_raw".into(),
            channel: Some(0),
        }
    );
    // Under a namespace the comparison is on resolved names.
    let ns = |n: &str| {
        if n.starts_with('/') {
            n.to_string()
        } else {
            format!("/robot/{n}")
        }
    };
    assert_eq!(clock_source(&cfg, None, ns).unwrap().channel, Some(0));
    // A remapped /clock moves the channel's output with it: still the
    // channel's input.
    let remap = |n: &str| {
        if n == "/clock" {
            "/sim/clock".into()
        } else {
            n.to_string()
        }
    };
    let s = clock_source(&cfg, None, remap).unwrap();
    assert_eq!(
        (s.topic.as_str(), s.resolved.as_str(), s.channel),
        ("/clock_raw", "/clock_raw", Some(0))
    );
    // The parameter wins; naming an output is refused.
    let s = clock_source(&cfg, Some("/other_clock"), plain).unwrap();
    assert_eq!((s.resolved.as_str(), s.channel), ("/other_clock", None));
    assert_eq!(
        clock_source(&cfg, Some("/clock"), plain).unwrap_err(),
        "parameter 'clock_topic' = '/clock' is the output of channel 'clock': the injector's \
         clock would follow its own faulted output (use the channel's input '/clock_raw')"
    );
    // No Clock channel: /clock as before.
    let only_gnss = ChannelsConfig::parse(
        CLOCK_TF_YAML
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
        "t.yaml",
    )
    .unwrap();
    assert_eq!(
        clock_source(&only_gnss, None, plain).unwrap(),
        ClockSource {
            topic: "/clock".into(),
            resolved: "/clock".into(),
            channel: None,
        }
    );
    // The raw clock's time, read from its bytes.
    let t = TypeRegistry::builtin().resolve(CLOCK_TYPE).unwrap();
    let mut v = Value::zero(&t);
    *v.field_mut("clock").unwrap().field_mut("sec").unwrap() = Value::I32(104);
    *v.field_mut("clock").unwrap().field_mut("nanosec").unwrap() = Value::U32(20_000_000);
    assert_eq!(clock_of(&encode(&t, &v).unwrap()), Some((104, 20_000_000)));
    assert_eq!(clock_of(&[0, 1, 0, 0, 1]), None);
}

/// The frame filter through the node's channel: at 100 ms a /tf message
/// with map→odom and odom→base_link; map→odom leaves at once,
/// odom→base_link alone at exactly 300 ms.
#[test]
fn tf_channel_delays_only_the_selected_transform_in_the_hold_queue() {
    let cfg = ChannelsConfig::parse(CLOCK_TF_YAML, "t.yaml").unwrap();
    let reg = Arc::new(TypeRegistry::builtin());
    let mut c =
        DynChannel::new(&cfg.dynamic_channels[1], reg.clone(), HoldLimits::DEFAULT).unwrap();
    let mut rng = FaultRng::seed_from_u64(1);
    let ts = reg.resolve("geometry_msgs/msg/TransformStamped").unwrap();
    let tf = |parent: &str, child: &str| {
        let mut v = Value::zero(&ts);
        *v.field_mut("header")
            .unwrap()
            .field_mut("frame_id")
            .unwrap() = Value::String(parent.into());
        *v.field_mut("child_frame_id").unwrap() = Value::String(child.into());
        v
    };
    let tf_ty = c.ty().clone();
    let msg = |ts: Vec<Value>| {
        let mut v = Value::zero(&tf_ty);
        *v.field_mut("transforms").unwrap() = Value::Seq(ts);
        encode(&tf_ty, &v).unwrap()
    };
    let ids = c
        .set_stack(
            "- fault: {delay: {delay_s: 0.2}}\n  select: {sequence: transforms, where: {header.frame_id: odom, child_frame_id: base_link}}\n",
            false,
            ms(0),
        )
        .unwrap();
    assert_eq!(ids, vec![1]);
    c.push(
        msg(vec![tf("map", "odom"), tf("odom", "base_link")]),
        ms(100),
        &mut rng,
    );
    assert_eq!(c.poll(ms(100)), vec![msg(vec![tf("map", "odom")])]);
    assert!(c.poll(ms(299)).is_empty());
    assert_eq!(c.next_release(), Some(ms(300)));
    assert_eq!(c.poll(ms(300)), vec![msg(vec![tf("odom", "base_link")])]);
    assert_eq!((c.messages_in, c.messages_out), (1, 2));
    let s = c.status(ms(300), "fault_injector");
    assert_eq!(kv(&s, "stage0.changed"), "1");
    assert_eq!(kv(&s, "stage0.first_applied"), "0.100000000");
}
