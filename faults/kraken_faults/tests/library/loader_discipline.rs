//! Issue 24 (part E): one loader discipline for every file, one parameter
//! check for typed and raw channels, message-count windows on every host of
//! a fault (typed channel, raw channel, stack stage, step file). No DDS.

use std::time::Duration;

use kraken_faults::field::{FaultStack, StageSpec};
use kraken_faults::step_list::check_injector_name;
use kraken_faults::{
    channel_rng, Channel, ChannelsConfig, DynChannel, FaultError, HoldLimits, MsgKind, SensorMsg,
    StepList,
};
use kraken_interfaces::ros::{Odometry, Time};
use kraken_interfaces::FaultSpec;

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

/// `(line, field, message)` of a located config error.
fn located(e: FaultError) -> (usize, String, String) {
    match e {
        FaultError::Config {
            path,
            line,
            field,
            message,
            ..
        } => {
            assert_eq!(path, "s.yaml");
            (line, field, message)
        }
        other => panic!("not a located config error: {other}"),
    }
}

fn step_err(text: &str) -> (usize, String, String) {
    let reg = breakbench_msgs::TypeRegistry::builtin();
    located(StepList::parse_with(text, "s.yaml", &reg).unwrap_err())
}

const HEAD: &str = "name: t\nsteps:\n";

/// Each lax case of the issue, refused at its line and field; the fixed
/// file loads.
#[test]
fn step_files_refuse_what_the_campaign_refuses() {
    // delay_s on a dropout step: dropout does not read it.
    let (line, field, m) = step_err(&format!(
        "{HEAD}  - label: a\n    action: set_fault\n    channel: scan\n    mode: dropout\n    delay_s: 0.2\n    at_s: 0\n"
    ));
    assert_eq!((line, field.as_str()), (7, "steps[0].delay_s"), "{m}");
    assert!(
        m.contains("does not read") && m.contains("left at 0"),
        "{m}"
    );
    // duty_cycle without period_s on a set_fault step.
    let (line, field, m) = step_err(&format!(
        "{HEAD}  - label: a\n    action: set_fault\n    channel: scan\n    mode: dropout\n    duty_cycle: 0.5\n    at_s: 0\n"
    ));
    assert_eq!((line, field.as_str()), (7, "steps[0].duty_cycle"), "{m}");
    assert!(m.contains("period_s"), "{m}");
    // An empty label.
    let (line, field, _) = step_err(&format!("{HEAD}  - {{label: '', action: wait, at_s: 1}}\n"));
    assert_eq!((line, field.as_str()), (3, "steps[0].label"));
    // No step at all.
    let (_, field, m) = step_err("name: t\nsteps: []\n");
    assert_eq!(field, "steps");
    assert!(m.contains("at least one step"), "{m}");
    // A stage window with duty_cycle and no period.
    let (line, field, m) = step_err(&format!(
        "{HEAD}  - label: a\n    action: set_fault_stack\n    channel: scan\n    at_s: 0\n    stack:\n      - fault: {{drop: {{probability: 1.0}}}}\n        window: {{duty_cycle: 0.5}}\n"
    ));
    assert_eq!(
        (line, field.as_str()),
        (9, "steps[0].stack[0].window.duty_cycle"),
        "{m}"
    );
    // 65 stages (a channel holds 64).
    let stages = "      - fault: {drop: {probability: 0.5}}\n".repeat(65);
    let (line, field, m) = step_err(&format!(
        "{HEAD}  - label: a\n    action: set_fault_stack\n    channel: scan\n    at_s: 0\n    stack:\n{stages}"
    ));
    assert_eq!((line, field.as_str()), (7, "steps[0].stack"), "{m}");
    assert!(m.contains("65 stages") && m.contains("64"), "{m}");
    let stages64 = "      - fault: {drop: {probability: 0.5}}\n".repeat(64);
    let reg = breakbench_msgs::TypeRegistry::builtin();
    StepList::parse_with(
        &format!("{HEAD}  - label: a\n    action: set_fault_stack\n    channel: scan\n    at_s: 0\n    stack:\n{stages64}"),
        "s.yaml",
        &reg,
    )
    .unwrap();
    // A 5000-byte channel name: the channels file's rule, not echoed.
    let long = "c".repeat(5000);
    let (line, field, m) = step_err(&format!(
        "{HEAD}  - label: a\n    action: set_fault\n    channel: {long}\n    mode: dropout\n    at_s: 0\n"
    ));
    assert_eq!((line, field.as_str()), (5, "steps[0].channel"));
    assert!(
        m.contains("5000 bytes") && m.contains("at most 64 bytes"),
        "{m}"
    );
    assert!(!m.contains("cccc"), "{m}");
    // The same rule and message as channels.yaml's.
    let ch = format!(
        "channels:\n  - name: {long}\n    type: sensor_msgs/msg/Imu\n    input_topic: /a\n    output_topic: /b\n    qos: {{reliability: best_effort, depth: 10}}\n"
    );
    let (_, _, cm) = located_ch(ChannelsConfig::parse(&ch, "ch.yaml").unwrap_err());
    assert_eq!(cm, m);
}

fn located_ch(e: FaultError) -> (usize, String, String) {
    match e {
        FaultError::Config {
            line,
            field,
            message,
            ..
        } => (line, field, message),
        other => panic!("not a located config error: {other}"),
    }
}

/// kraken_scenario's `injector` parameter: an empty name would call
/// `/set_fault` of the root namespace.
#[test]
fn injector_name_must_be_a_fully_qualified_node_name() {
    let e = check_injector_name("").unwrap_err();
    assert!(
        e.contains("must not be empty") && e.contains("/set_fault"),
        "{e}"
    );
    for bad in ["fault_injector", "~/x", "/a//b", "/a/", "/{ns}/x", "/a b"] {
        assert!(check_injector_name(bad).is_err(), "{bad}");
    }
    for good in ["/fault_injector", "/robot1/fault_injector"] {
        check_injector_name(good).unwrap();
    }
}

const CH: &str = "channels:\n  - name: a\n    type: sensor_msgs/msg/Imu\n    input_topic: /in\n    output_topic: /out_a\n    qos: {reliability: best_effort, depth: 10}\n  - name: b\n    type: sensor_msgs/msg/LaserScan\n    input_topic: /in_b\n    output_topic: /out_b\n    qos: {reliability: best_effort, depth: 10}\n";

/// Two channels of different types on one input topic (rustdds reported
/// it only as an ERROR at run time); a QoS depth of 4e9.
#[test]
fn channels_file_refuses_two_types_on_one_topic_and_absurd_depths() {
    ChannelsConfig::parse(CH, "ch.yaml").unwrap();
    let (line, field, m) =
        located_ch(ChannelsConfig::parse(&CH.replace("/in_b", "/in"), "ch.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (9, "channels[1].input_topic"),
        "{m}"
    );
    assert!(
        m.contains("sensor_msgs/msg/Imu") && m.contains("sensor_msgs/msg/LaserScan"),
        "{m}"
    );
    // The same type twice on one input is a fan-out, allowed.
    let same = CH
        .replace("/in_b", "/in")
        .replace("sensor_msgs/msg/LaserScan", "sensor_msgs/msg/Imu");
    ChannelsConfig::parse(&same, "ch.yaml").unwrap();
    let (line, field, m) = located_ch(
        ChannelsConfig::parse(&CH.replacen("depth: 10", "depth: 4000000000", 1), "ch.yaml")
            .unwrap_err(),
    );
    assert_eq!((line, field.as_str()), (6, "channels[0].qos.depth"), "{m}");
    assert!(m.contains("[1, 100000]"), "{m}");
    ChannelsConfig::parse(&CH.replacen("depth: 10", "depth: 100000", 1), "ch.yaml").unwrap();
}

/// The node's resolution in the root namespace (`RosArgs::expand`
/// without remapping): a relative name is `/name`.
fn root_ns(n: &str) -> String {
    if n.starts_with('/') {
        n.to_string()
    } else {
        format!("/{n}")
    }
}

fn resolved_err(text: &str, resolve: impl Fn(&str) -> String) -> (usize, String, String) {
    let cfg = ChannelsConfig::parse(text, "ch.yaml").unwrap();
    located_ch(
        kraken_faults::topics::check_resolved_topics(&cfg, "ch.yaml", text, resolve).unwrap_err(),
    )
}

/// `/in` and `in` are one topic in the root namespace: the file check
/// (string comparison) passes them, the node's check on resolved names
/// refuses two types on it, and an output that resolves to an input (a
/// relay loop), at file:line:field, before DDS.
#[test]
fn channels_file_topics_are_checked_as_the_node_resolves_them() {
    let check = |text: &str| {
        let cfg = ChannelsConfig::parse(text, "ch.yaml").unwrap();
        kraken_faults::topics::check_resolved_topics(&cfg, "ch.yaml", text, root_ns)
    };
    check(CH).unwrap();
    // Two types on one input, spelled two ways.
    let rel = CH.replace("/in_b", "in");
    let (line, field, m) = resolved_err(&rel, root_ns);
    assert_eq!(
        (line, field.as_str()),
        (9, "channels[1].input_topic"),
        "{m}"
    );
    assert!(
        m.contains("'in' resolves to '/in'")
            && m.contains("sensor_msgs/msg/Imu")
            && m.contains("one message type"),
        "{m}"
    );
    // The same file in a namespace: `in` is `/robot1/in`, another topic.
    let ns = |n: &str| {
        if n.starts_with('/') {
            n.to_string()
        } else {
            format!("/robot1/{n}")
        }
    };
    let cfg = ChannelsConfig::parse(&rel, "ch.yaml").unwrap();
    kraken_faults::topics::check_resolved_topics(&cfg, "ch.yaml", &rel, ns).unwrap();
    // An output that resolves to the channel's own input: a loop.
    let (line, field, m) = resolved_err(&CH.replacen("/out_a", "in", 1), root_ns);
    assert_eq!(
        (line, field.as_str()),
        (5, "channels[0].output_topic"),
        "{m}"
    );
    assert!(m.contains("feed itself"), "{m}");
    // An output that resolves to another channel's input.
    let (line, field, m) = resolved_err(&CH.replacen("/out_b", "in", 1), root_ns);
    assert_eq!(
        (line, field.as_str()),
        (10, "channels[1].output_topic"),
        "{m}"
    );
    assert!(m.contains("channels[0] ('a').input_topic '/in'"), "{m}");
    // A remapping that merges two outputs.
    let remap = |n: &str| {
        if n == "/out_b" {
            "/out_a".to_string()
        } else {
            root_ns(n)
        }
    };
    let (_, field, m) = resolved_err(CH, remap);
    assert_eq!(field, "channels[1].output_topic", "{m}");
    // The shipped channels files pass in the root namespace
    // (channels_any_type.yaml needs AMENT_PREFIX_PATH's types).
    for f in [
        "channels.yaml",
        "channels_stamped.yaml",
        "bench_any_type.yaml",
    ] {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("config")
            .join(f);
        ChannelsConfig::load_resolved(&p, root_ns).unwrap();
    }
}

fn cmd_vel() -> DynChannel {
    DynChannel::with_type(
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        kraken_faults::dynamic::builtin_registry(),
        HoldLimits::DEFAULT,
    )
    .unwrap()
    .with_fault_fields(vec!["linear.x".into(), "angular.z".into()])
}

fn typed_err(spec: &FaultSpec, kind: MsgKind) -> String {
    let mut c = Channel::new("c", kind);
    c.set_fault(spec, ms(0)).unwrap_err().to_string()
}

/// One check for typed and raw channels: the same refusal, word for word.
#[test]
fn parameter_checks_are_equal_across_typed_and_raw_channels() {
    let sat = FaultSpec {
        saturation_limit: 1e308,
        ..FaultSpec::new("cmd_vel", FaultSpec::SATURATION)
    };
    let raw = cmd_vel().set_fault(&sat, ms(0)).unwrap_err().to_string();
    assert!(
        raw.contains("saturation_limit") && raw.contains("1e9"),
        "{raw}"
    );
    assert_eq!(raw, typed_err(&sat, MsgKind::Imu));
    // Unread fields must stay 0, NaN and Inf included, on both.
    for (mode, field, v) in [
        (FaultSpec::SCALE, "bias", f64::NAN),
        (FaultSpec::DELAY, "jitter_s", f64::INFINITY),
        (FaultSpec::DROPOUT, "delay_s", 0.2),
        (FaultSpec::BIAS, "garbage_max", 1.0),
    ] {
        let mut s = FaultSpec::new("cmd_vel", mode);
        s.scale_factor = if mode == FaultSpec::SCALE { 0.5 } else { 0.0 };
        s.delay_s = if mode == FaultSpec::DELAY { 0.1 } else { 0.0 };
        s.set_param(field, kraken_interfaces::ParamValue::Float(v))
            .unwrap();
        let raw = cmd_vel().set_fault(&s, ms(0)).unwrap_err().to_string();
        assert!(
            raw.contains(field) && raw.contains("does not read"),
            "{raw}"
        );
        assert_eq!(raw, typed_err(&s, MsgKind::Odometry));
        // Without the stray field both accept it.
        s.set_param(field, kraken_interfaces::ParamValue::Float(0.0))
            .unwrap();
        cmd_vel().set_fault(&s, ms(0)).unwrap();
        Channel::new("c", MsgKind::Odometry)
            .set_fault(&s, ms(0))
            .unwrap();
    }
    // covariance_scale on a scan degrade: unused by the scan, still bounded.
    for v in [f64::NAN, 1e308, -1e308, -1.0] {
        let s = FaultSpec {
            noise_stddev: 0.1,
            covariance_scale: v,
            ..FaultSpec::new("scan", FaultSpec::DEGRADE)
        };
        let e = typed_err(&s, MsgKind::LaserScan);
        assert!(e.contains("covariance_scale"), "{e}");
    }
    for v in [0.0, 2.0] {
        let s = FaultSpec {
            noise_stddev: 0.1,
            covariance_scale: v,
            ..FaultSpec::new("scan", FaultSpec::DEGRADE)
        };
        Channel::new("scan", MsgKind::LaserScan)
            .set_fault(&s, ms(0))
            .unwrap();
    }
    // duty_cycle without period_s: it would fault every message.
    let s = FaultSpec {
        duty_cycle: 0.5,
        ..FaultSpec::new("c", FaultSpec::DROPOUT)
    };
    let e = typed_err(&s, MsgKind::Imu);
    assert!(e.contains("duty_cycle") && e.contains("period_s"), "{e}");
    assert_eq!(
        kraken_faults::build_stage(&s, "c", MsgKind::Imu)
            .err()
            .unwrap()
            .to_string(),
        e
    );
}

fn odom(t: Duration, i: u64) -> SensorMsg {
    let mut o = Odometry::default();
    o.header.stamp = Time::from_nanos(t.as_nanos() as i64);
    o.pose.pose.position.x = i as f64;
    SensorMsg::Odometry(o)
}

/// Indices of the messages (one per `period`, `n` of them) a typed channel
/// changed under `spec` set at 0.
fn typed_hits(spec: &FaultSpec, period: Duration, n: u64) -> Vec<u64> {
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.set_fault(spec, Duration::ZERO).unwrap();
    let mut r = channel_rng(1, "odom");
    let mut hits = Vec::new();
    for i in 0..n {
        let t = period * i as u32;
        c.push(odom(t, i), t, &mut r);
        let out = c.poll(t);
        match out.as_slice() {
            [SensorMsg::Odometry(o)] if o.pose.pose.position.x == i as f64 => {}
            _ => hits.push(i),
        }
    }
    hits
}

fn bias(skip: u32, count: u32, every: u32) -> FaultSpec {
    FaultSpec {
        message_skip: skip,
        message_count: count,
        message_every: every,
        scale_factor: 2.0,
        ..FaultSpec::new("odom", FaultSpec::SCALE)
    }
}

/// The k-th message, the next N, every N-th: exact at any rate.
#[test]
fn message_windows_on_a_typed_channel_are_exact() {
    for period in [ms(33), ms(1), ms(500)] {
        // The 5th message (x = 0 is unchanged by a scale: start at 1).
        let hits = typed_hits(&bias(4, 1, 0), period, 28);
        assert_eq!(hits, [4], "{period:?}");
        assert_eq!(typed_hits(&bias(3, 3, 0), period, 28), [3, 4, 5]);
        assert_eq!(typed_hits(&bias(0, 0, 7), period, 28), [6, 13, 20, 27]);
        assert_eq!(typed_hits(&bias(2, 2, 5), period, 28), [6, 11]);
    }
    // Inside a time window: counted from the window's messages.
    let s = FaultSpec {
        duration_s: 0.35,
        ..bias(1, 0, 2)
    };
    // 100 ms period: the window [0, 0.35 s] holds messages 0..=3.
    assert_eq!(typed_hits(&s, ms(100), 10), [2]);
    // Status: active until the count is used up.
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.set_fault(&bias(1, 1, 0), ms(0)).unwrap();
    let mut r = channel_rng(1, "odom");
    assert!(c.is_active(ms(0)));
    for i in 0..2 {
        c.push(odom(ms(i), i + 1), ms(i), &mut r);
    }
    assert!(!c.is_active(ms(2)));
}

/// A reorder with a message window: the held message goes out right after
/// the next one even though the window is used up by then (it was never
/// delivered, and counted nowhere: 7 of 8 out, none queued).
#[test]
fn a_reorder_held_message_is_released_when_the_message_window_is_used_up() {
    let spec = FaultSpec {
        probability: 1.0,
        message_skip: 2,
        message_count: 1,
        ..FaultSpec::new("odom", FaultSpec::REORDER)
    };
    for direct in [false, true] {
        let mut c = Channel::new("odom", MsgKind::Odometry);
        c.set_fault(&spec, Duration::ZERO).unwrap();
        let mut r = channel_rng(1, "odom");
        let mut order = Vec::new();
        let mut note = |m: &SensorMsg| match m {
            SensorMsg::Odometry(o) => order.push(o.pose.pose.position.x as u64),
            _ => unreachable!(),
        };
        for i in 0..6u64 {
            let t = ms(100 * i);
            if direct {
                c.relay(Some(&odom(t, i)), t, &mut r, &mut note);
            } else {
                c.push(odom(t, i), t, &mut r);
                c.poll(t).iter().for_each(&mut note);
            }
        }
        assert_eq!(order, [0, 1, 3, 2, 4, 5], "direct {direct}");
        assert_eq!((c.stats().messages_in, c.stats().messages_out), (6, 6));
        assert_eq!(c.stats().messages_faulted, 1);
    }
}

/// The same on a stack's reorder stage (raw channels, set_fault_stack):
/// all 8 delivered, the 3rd right after the 4th (was 7 of 8).
#[test]
fn a_stack_reorder_releases_its_message_when_the_window_is_used_up() {
    use breakbench_msgs::Value;
    let reg = kraken_faults::dynamic::builtin_registry();
    let twist = reg.resolve("geometry_msgs/msg/Twist").unwrap();
    let stages: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {reorder: {probability: 1.0}}\n  window: {message_skip: 2, message_count: 1}\n",
    )
    .unwrap();
    let mut st = FaultStack::build(&stages, &reg, "geometry_msgs/msg/Twist").unwrap();
    st.set(Duration::ZERO);
    let mut rng = channel_rng(3, "cmd_vel");
    let mut order = Vec::new();
    for i in 0..8u64 {
        let mut v = Value::zero(&twist);
        *v.field_mut("linear").unwrap().field_mut("x").unwrap() = Value::F64(i as f64);
        for d in st.apply(v, ms(i * 20), &mut rng) {
            match d.payload.field("linear").and_then(|l| l.field("x")) {
                Some(Value::F64(x)) => order.push(*x as u64),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(st.holds(), i == 2, "{i}");
    }
    assert_eq!(order, [0, 1, 3, 2, 4, 5, 6, 7]);
}

/// The same window through a raw channel's `~/set_fault` and a stack stage.
#[test]
fn message_windows_on_raw_channels_and_stack_stages() {
    use breakbench_msgs::Value;
    let reg = kraken_faults::dynamic::builtin_registry();
    let twist = reg.resolve("geometry_msgs/msg/Twist").unwrap();
    let run = |stages: Vec<StageSpec>| -> Vec<u64> {
        let mut st = FaultStack::build(&stages, &reg, "geometry_msgs/msg/Twist").unwrap();
        st.set(Duration::ZERO);
        let mut rng = channel_rng(3, "cmd_vel");
        (0..20u64)
            .filter(|&i| {
                let mut v = Value::zero(&twist);
                *v.field_mut("linear").unwrap().field_mut("x").unwrap() =
                    Value::F64(1.0 + i as f64);
                let out = st.apply(v.clone(), ms(i * 20), &mut rng);
                out.len() != 1 || out[0].payload != v
            })
            .collect()
    };
    let spec = FaultSpec {
        message_skip: 9,
        message_count: 1,
        scale_factor: -1.0,
        ..FaultSpec::new("cmd_vel", FaultSpec::SCALE)
    };
    let stages = kraken_faults::spec_stages::stages_for_spec(
        &spec,
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        &["linear.x".into()],
    )
    .unwrap();
    assert_eq!(run(stages), [9]);
    cmd_vel().set_fault(&spec, ms(0)).unwrap();
    let yaml: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {drop: {probability: 1.0}}\n  window: {message_every: 4, message_count: 2}\n",
    )
    .unwrap();
    assert_eq!(run(yaml), [3, 7]);
}

/// A step file sets the window by name on set_fault and on stack windows.
#[test]
fn step_files_carry_message_windows() {
    let text = format!(
        "{HEAD}  - {{label: a, action: set_fault, channel: odom, mode: scale, scale_factor: 2.0, message_skip: 4, message_count: 1, at_s: 0}}\n"
    );
    let f = StepList::parse(&text, "s.yaml").unwrap();
    let spec = f.steps[0].to_fault_spec().unwrap();
    assert_eq!((spec.message_skip, spec.message_count), (4, 1));
    assert_eq!(typed_hits(&spec, ms(33), 28), [4]);
    let sched = f.schedule().unwrap();
    assert_eq!(sched.entries()[0].spec.message_skip, 4);
}

/// hdl_localization #48 in one field stage: a bias of -1,659,999,150 s on
/// `header.stamp.sec` (int32) moves a wall-clock stamp of 1.66e9 s to 850 s
/// (it took two stacked stages under the old +/-1e9 bound); the bound of an
/// integer leaf is its type's span (int32: 2^32), the result saturates at
/// the type's range; a float leaf keeps +/-1e9.
#[test]
fn one_bias_stage_spans_the_stamp_type() {
    use breakbench_msgs::Value;
    let reg = kraken_faults::dynamic::builtin_registry();
    let ty = "nav_msgs/msg/Odometry";
    let t = reg.resolve(ty).unwrap();
    let stage = |path: &str, bias: f64| -> Result<FaultStack, FaultError> {
        let yaml = format!("- fault: {{field: {{path: {path}, mode: bias, bias: {bias:?}}}}}\n");
        let specs: Vec<StageSpec> = serde_yaml_ng::from_str(&yaml).unwrap();
        FaultStack::build(&specs, &reg, ty)
    };
    let sec_after = |st: &mut FaultStack, sec: i32| -> Value {
        let mut v = Value::zero(&t);
        *v.field_mut("header")
            .unwrap()
            .field_mut("stamp")
            .unwrap()
            .field_mut("sec")
            .unwrap() = Value::I32(sec);
        st.set(Duration::ZERO);
        let mut rng = channel_rng(1, "odom");
        let out = st.apply(v, ms(0), &mut rng);
        out[0]
            .payload
            .field("header")
            .unwrap()
            .field("stamp")
            .unwrap()
            .field("sec")
            .unwrap()
            .clone()
    };
    let mut st = stage("header.stamp.sec", -1_659_999_150.0).unwrap();
    assert_eq!(sec_after(&mut st, 1_660_000_000), Value::I32(850));
    // Saturation at the int32 ends.
    let mut st = stage("header.stamp.sec", -4_294_967_295.0).unwrap();
    assert_eq!(sec_after(&mut st, 5), Value::I32(i32::MIN));
    let mut st = stage("header.stamp.sec", 4_294_967_295.0).unwrap();
    assert_eq!(sec_after(&mut st, 5), Value::I32(i32::MAX));
    // Beyond the span, and on a float leaf beyond 1e9: refused.
    let e = stage("header.stamp.sec", 4.3e9).err().unwrap().to_string();
    assert!(e.contains("bias") && e.contains("4.294967295e9"), "{e}");
    let e = stage("pose.pose.position.x", -1.66e9)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("bias") && e.contains("1e9"), "{e}");
}
