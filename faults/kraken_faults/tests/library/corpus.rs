//! Regression corpus: inputs that once broke the injector (a panic, a
//! non-finite output where `allow_non_finite` is false), kept as explicit
//! cases. Property tests (`tests/library/fuzz.rs`) search for new ones; a failure
//! found there is added here.

use crate::common;
use common::*;

use std::time::Duration;

use kraken_faults::{Channel, FaultError, FaultRng, FaultStage, MsgKind, SensorMsg};
use kraken_interfaces::FaultSpec;

fn garbage(channel: &str, lo: f64, hi: f64) -> FaultSpec {
    FaultSpec {
        garbage_min: lo,
        garbage_max: hi,
        ..FaultSpec::new(channel, FaultSpec::GARBAGE)
    }
}

/// The reported service call: garbage -1e308..1e308 on imu and gnss was
/// accepted and the next message panicked the node (`random_range` on a
/// non-finite span). Now refused, naming the field and the bound; the
/// channel keeps relaying.
#[test]
fn garbage_span_that_overflows_is_refused_on_imu_and_gnss() {
    for ch in ["imu", "gnss", "wheel", "odom"] {
        let mut inj = shipped();
        let e = inj
            .set_fault(&garbage(ch, -1e308, 1e308), ms(0))
            .unwrap_err();
        match &e {
            FaultError::InvalidParameter { field, reason, .. } => {
                assert_eq!(*field, "garbage_max", "{ch}");
                assert!(
                    reason.contains("garbage_max - garbage_min must be finite"),
                    "{e}"
                );
            }
            other => panic!("{ch}: {other}"),
        }
        let kind = inj.channel(ch).unwrap().kind();
        let mut r = rng(1);
        inj.push(ch, msg_for(kind, ms(1)), ms(1), &mut r).unwrap();
        assert_eq!(inj.poll(ch, ms(1)).unwrap().len(), 1, "{ch} still relays");
        assert!(inj.channel(ch).unwrap().fault().is_none());
    }
    // The widest span that is finite is accepted and draws finite values.
    let mut inj = shipped();
    inj.set_fault(&garbage("imu", -8e307, 8e307), ms(0))
        .unwrap();
    let mut r = rng(2);
    for t in 1..50 {
        inj.push("imu", msg_for(MsgKind::Imu, ms(t)), ms(t), &mut r)
            .unwrap();
        for m in inj.poll("imu", ms(t)).unwrap() {
            assert!(floats(&m).iter().all(|v| v.is_finite()));
        }
    }
}

/// Parameters whose products overflow for any input are refused at set
/// time with the bound in the message.
#[test]
fn absurd_magnitudes_are_refused_naming_field_and_bound() {
    let cases: Vec<(FaultSpec, &str)> = vec![
        (
            FaultSpec {
                noise_stddev: 1e300,
                covariance_scale: 1.0,
                ..FaultSpec::new("imu", FaultSpec::DEGRADE)
            },
            "noise_stddev",
        ),
        (
            FaultSpec {
                noise_stddev: 0.1,
                covariance_scale: f64::MAX,
                ..FaultSpec::new("gnss", FaultSpec::DEGRADE)
            },
            "covariance_scale",
        ),
        (
            FaultSpec {
                bias_rate: 1e308,
                ..FaultSpec::new("imu", FaultSpec::BIAS_RAMP)
            },
            "bias_rate",
        ),
        (
            FaultSpec {
                bias: -f64::MAX,
                ..FaultSpec::new("wheel", FaultSpec::BIAS)
            },
            "bias",
        ),
        (
            FaultSpec {
                scale_factor: 1e300,
                ..FaultSpec::new("scan", FaultSpec::SCALE)
            },
            "scale_factor",
        ),
        (
            FaultSpec {
                slip_ratio: f64::MAX,
                ..FaultSpec::new("odom", FaultSpec::SLIP)
            },
            "slip_ratio",
        ),
        (
            FaultSpec {
                saturation_limit: f64::INFINITY,
                ..FaultSpec::new("imu", FaultSpec::SATURATION)
            },
            "saturation_limit",
        ),
        (
            FaultSpec {
                // Beyond 2^32 s, the span of builtin_interfaces/Time.
                timestamp_offset_s: 4.3e9,
                ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
            },
            "timestamp_offset_s",
        ),
    ];
    for (spec, want) in cases {
        let mut inj = shipped();
        let e = inj.set_fault(&spec, ms(0)).unwrap_err();
        match &e {
            FaultError::InvalidParameter { field, reason, .. } => {
                assert_eq!(*field, want, "{e}");
                assert!(
                    reason.contains('[') || reason.contains('(') || reason.contains("+/-"),
                    "bound named: {e}"
                );
            }
            other => panic!("{want}: {other}"),
        }
    }
}

/// Finite inputs at ±DBL_MAX under the largest accepted parameters stay
/// finite (sums and products saturate), for every channel type.
#[test]
fn extreme_finite_inputs_stay_finite_under_largest_parameters() {
    let big = 1e9;
    let specs = [
        FaultSpec {
            noise_stddev: big,
            covariance_scale: big,
            ..FaultSpec::new("", FaultSpec::DEGRADE)
        },
        FaultSpec {
            bias_rate: big,
            ..FaultSpec::new("", FaultSpec::BIAS_RAMP)
        },
        FaultSpec {
            bias: -big,
            ..FaultSpec::new("", FaultSpec::BIAS)
        },
        FaultSpec {
            scale_factor: big,
            ..FaultSpec::new("", FaultSpec::SCALE)
        },
        FaultSpec {
            slip_ratio: -big,
            ..FaultSpec::new("", FaultSpec::SLIP)
        },
        FaultSpec {
            covariance_scale: big,
            ..FaultSpec::new("", FaultSpec::CORRUPT_STATUS)
        },
        FaultSpec {
            timestamp_offset_s: 1e9,
            ..FaultSpec::new("", FaultSpec::TIMESTAMP_JUMP)
        },
    ];
    for kind in [
        MsgKind::NavSatFix,
        MsgKind::Imu,
        MsgKind::Odometry,
        MsgKind::LaserScan,
    ] {
        for spec in &specs {
            let mut c = Channel::new("c", kind);
            if c.set_fault(spec, ms(0)).is_err() {
                continue; // unsupported on this kind
            }
            let mut r = rng(3);
            let mut input = extreme(kind, f64::MAX);
            input.header_mut().stamp.sec = i32::MAX;
            for t in [1, 2, 5_000] {
                for out in step(&mut c, input.clone(), ms(t), &mut r) {
                    assert_no_new_non_finite(&input, &out, &format!("{kind:?} mode {}", spec.mode));
                }
            }
            input = extreme(kind, -f64::MAX);
            for out in step(&mut c, input.clone(), ms(6_000), &mut r) {
                assert_no_new_non_finite(&input, &out, &format!("{kind:?} mode {}", spec.mode));
            }
        }
    }
}

/// A message whose every float is `v` (f32 fields: ±f32::MAX).
fn extreme(kind: MsgKind, v: f64) -> SensorMsg {
    let mut m = msg_for(kind, ms(0));
    let v32 = if v > 0.0 { f32::MAX } else { f32::MIN };
    match &mut m {
        SensorMsg::NavSatFix(f) => {
            // A fix at the pole with extreme altitude and covariance.
            f.latitude = 90.0;
            f.altitude = v;
            f.position_covariance = [v; 9];
        }
        SensorMsg::Imu(i) => {
            i.angular_velocity.x = v;
            i.angular_velocity.y = v;
            i.angular_velocity.z = v;
            i.linear_acceleration.x = v;
            i.angular_velocity_covariance = [v; 9];
            i.orientation_covariance = [v; 9];
        }
        SensorMsg::Odometry(o) => {
            o.pose.pose.position.x = v;
            o.pose.pose.position.y = v;
            o.twist.twist.linear.x = v;
            o.twist.twist.angular.z = v;
            o.pose.covariance = [v; 36];
            o.twist.covariance = [v; 36];
        }
        SensorMsg::LaserScan(l) => {
            l.ranges = vec![v32, 0.0, f32::MAX, 1.0];
        }
    }
    m
}

/// A stage that panics on its third message.
struct Boom(u32);
impl FaultStage for Boom {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        self.0 += 1;
        if self.0 == 3 {
            panic!("boom on message {}", self.0);
        }
        vec![(Duration::ZERO, msg)]
    }
}

/// Belt and braces: a panic inside a stage is contained. The fault is
/// cleared, the message passes unchanged, the status counts it and names
/// it, and other channels keep their faults.
#[test]
fn a_panicking_stage_is_contained_and_reported() {
    let mut inj = shipped();
    inj.set_fault(
        &FaultSpec {
            delay_s: 0.5,
            ..FaultSpec::new("gnss", FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    inj.channel_mut("imu")
        .unwrap()
        .set_stage(
            &FaultSpec::new("imu", FaultSpec::STUCK),
            Box::new(Boom(0)),
            ms(0),
        )
        .unwrap();
    let mut r = rng(4);
    let mut delivered = 0;
    for t in 1..=5 {
        let m = msg_for(MsgKind::Imu, ms(t));
        inj.push("imu", m.clone(), ms(t), &mut r).unwrap();
        let out = inj.poll("imu", ms(t)).unwrap();
        assert_eq!(out.len(), 1, "message {t} delivered");
        assert_eq!(bits(&out[0]), bits(&m));
        delivered += out.len();
    }
    assert_eq!(delivered, 5);
    let st = inj.status(ms(5));
    let imu = st.channels.iter().find(|c| c.channel == "imu").unwrap();
    assert_eq!(imu.stage_panics, 1);
    assert!(
        imu.stage_error.contains("boom on message 3"),
        "{}",
        imu.stage_error
    );
    assert!(!imu.active);
    assert_eq!(imu.cleared.as_nanos(), ms(3).as_nanos() as i64);
    let gnss = st.channels.iter().find(|c| c.channel == "gnss").unwrap();
    assert!(gnss.active, "the other channel keeps its fault");
    assert_eq!(gnss.stage_panics, 0);
}

/// A stamp shifted past the largest builtin_interfaces/Time saturates
/// instead of wrapping to a negative second.
#[test]
fn timestamp_jump_saturates_at_the_largest_stamp() {
    let mut c = Channel::new("imu", MsgKind::Imu);
    c.set_fault(
        &FaultSpec {
            timestamp_offset_s: 1e9,
            ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
        },
        ms(0),
    )
    .unwrap();
    let mut m = msg_for(MsgKind::Imu, ms(0));
    m.header_mut().stamp.sec = 2_000_000_000;
    let out = step(&mut c, m, ms(1), &mut rng(1));
    assert_eq!(out[0].header().stamp.sec, i32::MAX);
    assert_eq!(out[0].header().stamp.nanosec, 999_999_999);
}

/// The kraken_scenario runner path: a scenario step with the same garbage
/// span is refused at load with the file, line and field.
#[test]
fn scenario_step_with_overflowing_garbage_is_refused_at_load() {
    let text = "name: g\nsteps:\n  - label: g\n    action: set_fault\n    channel: imu\n    mode: garbage\n    garbage_min: -1.0e308\n    garbage_max: 1.0e308\n    at_s: 1.0\n";
    let e = kraken_faults::StepList::parse(text, "s.yaml").unwrap_err();
    match &e {
        FaultError::Config {
            path,
            line,
            field,
            message,
            ..
        } => {
            assert_eq!(
                (path.as_str(), *line, field.as_str()),
                ("s.yaml", 8, "steps[0].garbage_max"),
                "{e}"
            );
            assert!(
                message.contains("garbage_max - garbage_min must be finite"),
                "{e}"
            );
        }
        other => panic!("{other}"),
    }
    let ok = text.replace("-1.0e308", "-1.0").replace("1.0e308", "1.0");
    kraken_faults::StepList::parse(&ok, "s.yaml").unwrap();
}

/// Bounded requests: a channel name longer than every declared one is
/// refused with its length only (the 70 kB string is not echoed), and
/// channels.yaml refuses names above FaultSpec::MAX_CHANNEL_NAME_LEN.
#[test]
fn oversized_channel_names_are_refused_without_echo() {
    let mut inj = shipped();
    // "cmd_vel", the shipped file's raw channel, counts (issue 24: a 7-byte
    // unknown name was refused as longer than the longest, "5 bytes").
    assert_eq!(inj.max_channel_name_len(), 7);
    for n in [8, 64, 70_000, 1 << 20] {
        let name = "x".repeat(n);
        let e = inj
            .set_fault(&FaultSpec::new(name, FaultSpec::DROPOUT), ms(0))
            .unwrap_err();
        assert!(
            matches!(e, FaultError::ChannelNameTooLong { len, max: 7 } if len == n),
            "{e}"
        );
        let text = e.to_string();
        assert!(text.len() < 200 && !text.contains("xxxxxx"), "{text}");
        assert!(text.contains(&format!("{n} bytes")), "{text}");
    }
    // A long name that matches no channel but is short enough is an unknown channel.
    assert!(matches!(
        inj.set_fault(&FaultSpec::new("lidar", FaultSpec::DROPOUT), ms(0)),
        Err(FaultError::UnknownChannel(_))
    ));
    // An unknown name as long as cmd_vel is an unknown channel, named.
    let e = inj
        .set_fault(&FaultSpec::new("cmd_vex", FaultSpec::DROPOUT), ms(0))
        .unwrap_err();
    assert!(
        matches!(&e, FaultError::UnknownChannel(n) if n == "cmd_vex"),
        "{e}"
    );
    let long = "c".repeat(65);
    let yaml = format!(
        "channels:\n  - name: {long}\n    type: sensor_msgs/msg/Imu\n    input_topic: /a\n    output_topic: /b\n    qos: {{reliability: best_effort, depth: 10}}\n"
    );
    let e = kraken_faults::ChannelsConfig::parse(&yaml, "ch.yaml").unwrap_err();
    assert!(
        matches!(&e, FaultError::Config { line: 2, field, message, .. }
            if field == "channels[0].name" && message.contains("at most 64 bytes")),
        "{e}"
    );
    let ok = yaml.replace(&long, &"c".repeat(64));
    kraken_faults::ChannelsConfig::parse(&ok, "ch.yaml").unwrap();
}

/// Parameter values in messages are compact: 1e308 is not 309 digits.
#[test]
fn huge_parameter_values_print_compactly() {
    let mut inj = shipped();
    let e = inj
        .set_fault(&garbage("imu", -1e308, 1e308), ms(0))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("invalid parameter garbage_max = 1e308 for mode 'garbage'"),
        "{e}"
    );
    assert!(e.len() < 200, "{e}");
}
