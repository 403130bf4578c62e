//! `~/set_fault` on a raw channel: the typed modes as stages on its
//! `fault_fields` (REQ-FAULT-ACTUATOR), on `/cmd_vel` as the harness and the
//! node carry it: exact values out, the unsupported modes refused.

use std::time::Duration;

use kraken_faults::{dynamic::builtin_registry, DynChannel, FaultError, FaultRng, HoldLimits};
use kraken_interfaces::ros::{Twist, Vector3};
use kraken_interfaces::FaultSpec;
use rand::SeedableRng;

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

fn cmd_vel() -> DynChannel {
    DynChannel::with_type(
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        builtin_registry(),
        HoldLimits::DEFAULT,
    )
    .unwrap()
    .with_fault_fields(vec!["linear.x".into(), "angular.z".into()])
}

fn twist(v: f64, w: f64) -> Twist {
    Twist {
        linear: Vector3 {
            x: v,
            y: 0.25,
            z: 0.0,
        },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: w,
        },
    }
}

fn spec(mode: u8) -> FaultSpec {
    FaultSpec {
        channel: "cmd_vel".into(),
        mode,
        ..FaultSpec::default()
    }
}

/// Pushes `(t_ms, v, w)` and returns what comes out by `until_ms`, with the
/// time each came out (polled every 10 ms).
fn run(c: &mut DynChannel, inputs: &[(u64, f64, f64)], until_ms: u64) -> Vec<(u64, Twist)> {
    let mut rng = FaultRng::seed_from_u64(7);
    let mut out = Vec::new();
    let mut next = inputs.iter().peekable();
    for t in (0..=until_ms).step_by(10) {
        while let Some(&&(at, v, w)) = next.peek() {
            if at > t {
                break;
            }
            c.push_msg(&twist(v, w), ms(t), &mut rng).unwrap();
            next.next();
        }
        for m in c.poll_msgs::<Twist>(ms(t)).unwrap() {
            out.push((t, m));
        }
    }
    out
}

#[test]
fn scale_is_a_weak_drive_and_minus_one_a_reversed_motor() {
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            scale_factor: 0.5,
            ..spec(FaultSpec::SCALE)
        },
        ms(0),
    )
    .unwrap();
    let out = run(&mut c, &[(0, 0.4, -0.2)], 0);
    assert_eq!(out, [(0, twist(0.2, -0.1))]);
    // Only the fault_fields change: linear.y passes as it came.
    assert_eq!(out[0].1.linear.y, 0.25);
    assert_eq!(c.messages_faulted, 1);
    assert_eq!(c.first_applied(), Some(ms(0)));
    c.set_fault(
        &FaultSpec {
            scale_factor: -1.0,
            ..spec(FaultSpec::SCALE)
        },
        ms(0),
    )
    .unwrap();
    // The replaced stages are cleared at the new fault's time.
    assert_eq!(c.last_cleared, Some(ms(0)));
    assert_eq!(run(&mut c, &[(0, 0.4, 0.3)], 0), [(0, twist(-0.4, -0.3))]);
}

#[test]
fn saturation_stuck_delay_dropout_and_a_window() {
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            saturation_limit: 0.3,
            ..spec(FaultSpec::SATURATION)
        },
        ms(0),
    )
    .unwrap();
    assert_eq!(run(&mut c, &[(0, 0.5, -0.9)], 0), [(0, twist(0.3, -0.3))]);

    // Stuck: the first faulted command, whatever comes later.
    let mut c = cmd_vel();
    c.set_fault(&spec(FaultSpec::STUCK), ms(0)).unwrap();
    let out = run(
        &mut c,
        &[(0, 0.4, 0.1), (50, 0.0, 0.0), (100, -0.2, 1.0)],
        100,
    );
    assert_eq!(
        out,
        [
            (0, twist(0.4, 0.1)),
            (50, twist(0.4, 0.1)),
            (100, twist(0.4, 0.1))
        ]
    );

    // Delay: every command 0.2 s late, in order.
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            delay_s: 0.2,
            ..spec(FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    let out = run(&mut c, &[(0, 0.1, 0.0), (50, 0.2, 0.0)], 300);
    assert_eq!(out, [(200, twist(0.1, 0.0)), (250, twist(0.2, 0.0))]);

    // Dropout for 0.1 s (duration_s): withheld inside the window only.
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            duration_s: 0.1,
            ..spec(FaultSpec::DROPOUT)
        },
        ms(0),
    )
    .unwrap();
    let out = run(
        &mut c,
        &[(0, 0.1, 0.0), (50, 0.2, 0.0), (150, 0.3, 0.0)],
        200,
    );
    assert_eq!(out, [(150, twist(0.3, 0.0))]);
    assert_eq!(c.messages_faulted, 2);
    assert!(!c.is_active(ms(150)));

    // Healthy clears.
    c.set_fault(&spec(FaultSpec::HEALTHY), ms(200)).unwrap();
    assert!(c.stack().is_empty());
}

#[test]
fn a_bias_steps_in_at_step_at_s_and_ends_with_duration_s() {
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            bias: 0.1,
            step_at_s: 0.05,
            duration_s: 0.15,
            ..spec(FaultSpec::BIAS)
        },
        ms(0),
    )
    .unwrap();
    let out = run(
        &mut c,
        &[
            (0, 0.2, 0.0),
            (50, 0.2, 0.0),
            (150, 0.2, 0.0),
            (160, 0.2, 0.0),
        ],
        160,
    );
    let v: Vec<(u64, f64, f64)> = out
        .iter()
        .map(|(t, m)| (*t, m.linear.x, m.angular.z))
        .collect();
    assert_eq!(
        v,
        [
            (0, 0.2, 0.0),
            (50, 0.2 + 0.1, 0.1),
            // The window's end is inclusive, as a typed fault's
            // [set, set + duration_s].
            (150, 0.2 + 0.1, 0.1),
            (160, 0.2, 0.0)
        ]
    );
}

#[test]
fn modes_without_a_field_path_equivalent_are_refused_and_nothing_changes() {
    let mut c = cmd_vel();
    c.set_fault(
        &FaultSpec {
            delay_s: 0.2,
            ..spec(FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    for (mode, want) in [
        (FaultSpec::DEGRADE, "no field-path equivalent"),
        (FaultSpec::SLIP, "no field-path equivalent"),
        (FaultSpec::TIMESTAMP_JUMP, "no field-path equivalent"),
        (FaultSpec::CORRUPT_STATUS, "no field-path equivalent"),
    ] {
        let e = c.set_fault(&spec(mode), ms(10)).unwrap_err();
        assert!(matches!(e, FaultError::Unsupported { .. }), "{e}");
        assert!(e.to_string().contains(want), "{e}");
        assert!(e.to_string().contains("geometry_msgs/msg/Twist"), "{e}");
    }
    // A parameter out of range: the stage's check, nothing changes.
    let e = c
        .set_fault(
            &FaultSpec {
                delay_s: 61.0,
                ..spec(FaultSpec::DELAY)
            },
            ms(10),
        )
        .unwrap_err();
    assert!(e.to_string().contains("delay_s"), "{e}");
    assert_eq!(c.stack().describe().len(), 1);
    assert!(
        c.stack().describe()[0].contains("delay"),
        "{:?}",
        c.stack().describe()
    );
    // A data mode on a raw channel that declares no fault_fields.
    let mut bare = DynChannel::with_type(
        "cmd_vel",
        "geometry_msgs/msg/Twist",
        builtin_registry(),
        HoldLimits::DEFAULT,
    )
    .unwrap();
    let e = bare
        .set_fault(
            &FaultSpec {
                scale_factor: 0.5,
                ..spec(FaultSpec::SCALE)
            },
            ms(0),
        )
        .unwrap_err();
    assert!(e.to_string().contains("fault_fields"), "{e}");
    // ... while a timing mode needs none.
    bare.set_fault(&spec(FaultSpec::DROPOUT), ms(0)).unwrap();
}
