//! Per-message provenance (REQ-FAULT-PROVENANCE): a channel that records it
//! lists, for each message a fault changed, delayed, withheld or added, the
//! input's index, times, output index and the faults, with exact values;
//! untouched messages and a channel not recording list nothing.

use crate::common;

use common::{ms, odom, rng, step};
use kraken_faults::{
    dynamic::builtin_registry, provenance::to_csv, Channel, DynChannel, HoldLimits, MsgKind,
    SensorMsg, Touch,
};
use kraken_interfaces::ros::{Twist, Vector3};
use kraken_interfaces::FaultSpec;

fn spec(mode: u8) -> FaultSpec {
    FaultSpec {
        channel: "odom".into(),
        mode,
        ..FaultSpec::default()
    }
}

/// Pushes odometry at 0, 100, ... (n messages) and polls every 10 ms up to
/// `until_ms`; returns the recorded touches.
fn drive(c: &mut Channel, n: u64, until_ms: u64) -> Vec<Touch> {
    let mut r = rng(3);
    for t in (0..=until_ms).step_by(10) {
        let msg = (t % 100 == 0 && t / 100 < n).then(|| SensorMsg::Odometry(odom(ms(t))));
        match msg {
            Some(m) => {
                step(c, m, ms(t), &mut r);
            }
            None => {
                c.poll(ms(t));
            }
        }
    }
    c.take_touches()
}

fn row(
    seq: u64,
    at: u64,
    output: Option<usize>,
    rel: Option<u64>,
    changed: bool,
    f: &str,
) -> Touch {
    Touch {
        channel: "odom".into(),
        seq,
        received: ms(at),
        output,
        released: rel.map(ms),
        changed,
        faults: vec![f.into()],
    }
}

#[test]
fn typed_scale_delay_and_dropout_are_recorded_per_message() {
    // scale from 150 ms for 200 ms: messages 2 and 3 (at 200, 300 ms) changed.
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.record_provenance(true);
    let mut r = rng(3);
    step(&mut c, SensorMsg::Odometry(odom(ms(0))), ms(0), &mut r);
    step(&mut c, SensorMsg::Odometry(odom(ms(100))), ms(100), &mut r);
    c.set_fault(
        &FaultSpec {
            scale_factor: 2.0,
            duration_s: 0.2,
            ..spec(FaultSpec::SCALE)
        },
        ms(150),
    )
    .unwrap();
    for t in [200, 300, 400] {
        step(&mut c, SensorMsg::Odometry(odom(ms(t))), ms(t), &mut r);
    }
    assert_eq!(
        c.take_touches(),
        vec![
            row(2, 200, Some(0), Some(200), true, "scale"),
            row(3, 300, Some(0), Some(300), true, "scale"),
        ]
    );
    assert!(c.take_touches().is_empty(), "taken once");

    // delay 0.25 s: every message released 250 ms later, unchanged.
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.record_provenance(true);
    c.set_fault(
        &FaultSpec {
            delay_s: 0.25,
            ..spec(FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    assert_eq!(
        drive(&mut c, 3, 600),
        vec![
            row(0, 0, Some(0), Some(250), false, "delay"),
            row(1, 100, Some(0), Some(350), false, "delay"),
            row(2, 200, Some(0), Some(450), false, "delay"),
        ]
    );

    // dropout: withheld, no output, no release.
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.record_provenance(true);
    c.set_fault(&spec(FaultSpec::DROPOUT), ms(0)).unwrap();
    assert_eq!(
        drive(&mut c, 2, 200),
        vec![
            row(0, 0, None, None, false, "dropout"),
            row(1, 100, None, None, false, "dropout")
        ]
    );
    assert_eq!(c.stats().messages_faulted, 2);

    // duplicate p=1: the copy is output 1; the original (output 0) is untouched.
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.record_provenance(true);
    c.set_fault(
        &FaultSpec {
            probability: 1.0,
            ..spec(FaultSpec::DUPLICATE)
        },
        ms(0),
    )
    .unwrap();
    assert_eq!(
        drive(&mut c, 1, 100),
        vec![row(0, 0, Some(1), Some(0), false, "duplicate")]
    );
}

#[test]
fn a_channel_not_recording_lists_nothing() {
    let mut c = Channel::new("odom", MsgKind::Odometry);
    c.set_fault(&spec(FaultSpec::DROPOUT), ms(0)).unwrap();
    assert!(drive(&mut c, 3, 300).is_empty());
    assert_eq!(c.stats().messages_faulted, 3);
}

fn twist(v: f64) -> Twist {
    Twist {
        linear: Vector3 {
            x: v,
            y: 0.0,
            z: 0.0,
        },
        angular: Vector3::default(),
    }
}

#[test]
fn stack_stages_are_named_by_id_on_a_raw_channel() {
    let mut c = DynChannel::with_type(
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        builtin_registry(),
        HoldLimits::DEFAULT,
    )
    .unwrap();
    c.record_provenance(true);
    let mut r = rng(5);
    // untouched before any stage
    c.push_msg(&twist(1.0), ms(0), &mut r).unwrap();
    let ids = c
        .set_stack(
            "- fault: {delay: {delay_s: 0.1}}\n- fault: {field: {path: linear.x, mode: scale, scale_factor: 0.5}}\n",
            false,
            ms(50),
        )
        .unwrap();
    assert_eq!(ids, vec![1, 2]);
    c.push_msg(&twist(1.0), ms(100), &mut r).unwrap();
    c.set_stack("- fault: {drop: {probability: 1.0}}\n", true, ms(150))
        .unwrap();
    c.push_msg(&twist(1.0), ms(200), &mut r).unwrap();
    let t = c.take_touches();
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(
        (t[0].seq, t[0].output, t[0].released, t[0].changed),
        (1, Some(0), Some(ms(200)), true)
    );
    assert_eq!(t[0].faults.len(), 2, "{:?}", t[0].faults);
    assert!(
        t[0].faults[0].starts_with("#1 delay 0.1 s"),
        "{:?}",
        t[0].faults
    );
    assert!(t[0].faults[1].starts_with("#2 "), "{:?}", t[0].faults);
    assert_eq!((t[1].seq, t[1].output, t[1].released), (2, None, None));
    assert_eq!(t[1].faults, vec!["#3 drop p=1".to_string()]);
    assert!(to_csv(&t).starts_with(
        "channel,seq,received_s,output,released_s,changed,faults\n\"cmd_vel\",1,0.100000000,0,0.200000000,1,\"#1 delay 0.1 s"
    ));
}
