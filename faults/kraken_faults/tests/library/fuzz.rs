//! Property tests (proptest): arbitrary FaultSpecs of every mode and every
//! field (NaN, ±inf, ±DBL_MAX, 0, negative, huge) on every channel, fed
//! arbitrary messages of every type (non-finite and extreme values, empty
//! and huge sequences, stamps 0 and negative, clock jumps). Asserts: no
//! panic (not even a contained one), no non-finite output value where the
//! input was finite unless the fault is GARBAGE with allow_non_finite, the
//! hold queue stays within its caps, and the status still answers. Mutated
//! channels.yaml files give a located error or a working injector.
//!
//! A failure found here goes into `tests/library/corpus.rs` as an explicit case.

use crate::common;
use common::*;

use std::time::Duration;

use kraken_faults::{ChannelsConfig, FaultError, Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::*;
use kraken_interfaces::FaultSpec;
use proptest::prelude::*;

fn special_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(0.0),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
        Just(1e9),
        Just(-1e9),
        Just(1.0),
        Just(0.5),
    ]
}

/// Parameters: specials, ordinary values and any bit pattern.
fn param() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => special_f64(),
        4 => -100.0..100.0f64,
        1 => any::<f64>(),
    ]
}

/// Message values: mostly ordinary, often extreme.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -1e3..1e3f64,
        3 => special_f64(),
        1 => any::<f64>(),
    ]
}

fn value32() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => 0.0..30.0f32,
        1 => Just(f32::INFINITY),
        1 => Just(f32::NAN),
        1 => Just(f32::MAX),
        1 => Just(-f32::MAX),
        1 => any::<f32>(),
    ]
}

const CHANNELS: [&str; 5] = ["gnss", "imu", "wheel", "scan", "odom"];

fn spec() -> impl Strategy<Value = FaultSpec> {
    let timing = (
        prop_oneof![3 => Just(0.0), 1 => param()],
        prop_oneof![3 => Just(0.0), 1 => param()],
        param(),
        any::<bool>(),
    );
    let a = (
        param(),
        param(),
        param(),
        param(),
        param(),
        param(),
        param(),
    );
    let b = (
        any::<bool>(),
        param(),
        param(),
        any::<bool>(),
        param(),
        0u8..4,
        param(),
        param(),
        prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()],
    );
    let c = (param(), param(), param(), param());
    // The message window: mostly none, else small or extreme counts.
    let w = prop_oneof![
        3 => Just((0u32, 0u32, 0u32)),
        1 => (0u32..4, 0u32..4, 0u32..4),
        1 => (any::<u32>(), any::<u32>(), any::<u32>()),
    ];
    // Unread fields must be 0 (FaultSpec.msg): in 3 of 4 specs they are
    // zeroed, so that most specs reach the stages (the 4th checks that a
    // stray value is refused without harm).
    let zero_unread = prop_oneof![3 => Just(true), 1 => Just(false)];
    (0usize..5, 0u8..19, timing, a, b, c, w, zero_unread).prop_map(
        |(ch, mode, t, a, b, c, w, zero_unread)| {
            let mut s = spec_of(ch, mode, t, a, b, c, w);
            if zero_unread {
                for &(name, _) in FaultSpec::FIELDS {
                    if !FaultSpec::mode_reads(mode, name) && name != "channel" && name != "mode" {
                        let zero = match s.param(name) {
                            Some(kraken_interfaces::ParamValue::Bool(_)) => {
                                kraken_interfaces::ParamValue::Bool(false)
                            }
                            Some(kraken_interfaces::ParamValue::Int(_)) => {
                                kraken_interfaces::ParamValue::Int(0)
                            }
                            _ => kraken_interfaces::ParamValue::Float(0.0),
                        };
                        s.set_param(name, zero).unwrap();
                    }
                }
                if s.period_s == 0.0 {
                    s.duty_cycle = 0.0;
                    s.random_phase = false;
                }
            }
            s
        },
    )
}

type Timing = (f64, f64, f64, bool);
type ParamsA = (f64, f64, f64, f64, f64, f64, f64);
type ParamsB = (bool, f64, f64, bool, f64, u8, f64, f64, u32);
type ParamsC = (f64, f64, f64, f64);

fn spec_of(
    ch: usize,
    mode: u8,
    t: Timing,
    a: ParamsA,
    b: ParamsB,
    c: ParamsC,
    w: (u32, u32, u32),
) -> FaultSpec {
    FaultSpec {
        channel: CHANNELS[ch].into(),
        mode,
        duration_s: t.0,
        period_s: t.1,
        duty_cycle: t.2,
        random_phase: t.3,
        message_skip: w.0,
        message_count: w.1,
        message_every: w.2,
        noise_stddev: a.0,
        covariance_scale: a.1,
        bias_rate: a.2,
        bias: a.3,
        step_at_s: a.4,
        slip_ratio: a.5,
        scale_factor: a.6,
        freeze_stamp: b.0,
        garbage_min: b.1,
        garbage_max: b.2,
        allow_non_finite: b.3,
        saturation_limit: b.4,
        loss_model: b.5,
        loss_probability: b.6,
        recovery_probability: b.7,
        burst_length: b.8,
        delay_s: c.0,
        jitter_s: c.1,
        probability: c.2,
        timestamp_offset_s: c.3,
    }
}

fn stamp_strategy() -> impl Strategy<Value = Time> {
    (
        prop_oneof![
            Just(0),
            Just(-1),
            Just(i32::MIN),
            Just(i32::MAX),
            any::<i32>()
        ],
        prop_oneof![Just(0u32), Just(999_999_999), any::<u32>()],
    )
        .prop_map(|(sec, nanosec)| Time { sec, nanosec })
}

fn v3() -> impl Strategy<Value = Vector3> {
    (value(), value(), value()).prop_map(|(x, y, z)| Vector3 { x, y, z })
}

fn message(kind: MsgKind) -> BoxedStrategy<SensorMsg> {
    let header = (
        stamp_strategy(),
        prop_oneof![Just(String::new()), "[a-z_]{0,12}"],
    )
        .prop_map(|(stamp, frame_id)| Header { stamp, frame_id });
    match kind {
        MsgKind::NavSatFix => (
            header,
            value(),
            value(),
            value(),
            prop::array::uniform9(value()),
            any::<i8>(),
        )
            .prop_map(|(header, lat, lon, alt, cov, st)| {
                SensorMsg::NavSatFix(NavSatFix {
                    header,
                    status: NavSatStatus {
                        status: st,
                        service: 1,
                    },
                    latitude: lat,
                    longitude: lon,
                    altitude: alt,
                    position_covariance: cov,
                    position_covariance_type: 2,
                })
            })
            .boxed(),
        MsgKind::Imu => (
            header,
            v3(),
            v3(),
            prop::array::uniform9(value()),
            prop::array::uniform9(value()),
        )
            .prop_map(|(header, w, a, c1, c2)| {
                SensorMsg::Imu(Imu {
                    header,
                    orientation: Quaternion {
                        w: 1.0,
                        ..Default::default()
                    },
                    orientation_covariance: c1,
                    angular_velocity: w,
                    angular_velocity_covariance: c2,
                    linear_acceleration: a,
                    linear_acceleration_covariance: c1,
                })
            })
            .boxed(),
        MsgKind::Odometry => (header, v3(), v3(), v3(), value())
            .prop_map(|(header, p, l, a, c)| {
                let mut o = Odometry {
                    header,
                    child_frame_id: "base_link".into(),
                    ..Default::default()
                };
                o.pose.pose.position = Point {
                    x: p.x,
                    y: p.y,
                    z: p.z,
                };
                o.pose.pose.orientation.w = 1.0;
                o.twist.twist.linear = l;
                o.twist.twist.angular = a;
                o.pose.covariance = [c; 36];
                o.twist.covariance = [c; 36];
                SensorMsg::Odometry(o)
            })
            .boxed(),
        MsgKind::LaserScan => (
            header,
            prop_oneof![
                8 => prop::collection::vec(value32(), 0..64),
                1 => Just(Vec::new()),
                1 => (value32(), 100_000usize..300_000).prop_map(|(v, n)| vec![v; n]),
            ],
            prop::collection::vec(value32(), 0..8),
        )
            .prop_map(|(header, ranges, intensities)| {
                SensorMsg::LaserScan(LaserScan {
                    header,
                    angle_min: -1.0,
                    angle_max: 1.0,
                    angle_increment: 0.01,
                    range_min: 0.1,
                    range_max: 30.0,
                    ranges,
                    intensities,
                    ..Default::default()
                })
            })
            .boxed(),
    }
}

fn kind_of(channel: &str) -> MsgKind {
    match channel {
        "gnss" => MsgKind::NavSatFix,
        "imu" => MsgKind::Imu,
        "scan" => MsgKind::LaserScan,
        _ => MsgKind::Odometry,
    }
}

/// A spec plus messages for its channel and clock steps (ms; some huge).
fn case() -> impl Strategy<Value = (FaultSpec, Vec<SensorMsg>, Vec<u64>, u64)> {
    spec().prop_flat_map(|s| {
        let k = kind_of(&s.channel);
        (
            Just(s),
            prop::collection::vec(message(k), 1..12),
            prop::collection::vec(
                prop_oneof![8 => 0u64..200, 1 => Just(60_001u64), 1 => Just(1u64 << 40)],
                12,
            ),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn any_spec_and_any_message_never_panic_or_invent_non_finite(
        (spec, msgs, steps, seed) in case()
    ) {
        let mut inj = shipped();
        let mut r = rng(seed);
        let set_at = Duration::from_millis(1);
        let accepted = inj.set_fault_seeded(&spec, set_at, &mut r).is_ok();
        let may_emit_non_finite =
            accepted && spec.mode == FaultSpec::GARBAGE && spec.allow_non_finite;
        let mut now = set_at;
        let ch = spec.channel.as_str();
        let mut outputs = Vec::new();
        for (m, dt) in msgs.iter().zip(&steps) {
            now = now.saturating_add(Duration::from_millis(*dt));
            inj.push(ch, m.clone(), now, &mut r).unwrap();
            outputs.extend(inj.poll(ch, now).unwrap());
            let c = inj.channel(ch).unwrap();
            prop_assert!(c.queued() <= c.hold_limits().max_held_messages as usize);
            prop_assert!(c.queued() <= 1 || c.held_bytes() <= c.hold_limits().max_held_bytes);
        }
        outputs.extend(inj.poll(ch, now.saturating_add(Duration::from_secs(120))).unwrap());
        if !may_emit_non_finite {
            // Each output descends from one input; a value may be non-finite
            // only if some input had a non-finite value at that position
            // (stuck, reorder and delay move whole messages).
            for out in &outputs {
                let o = floats(out);
                let ok = msgs.iter().any(|m| {
                    let i = floats(m);
                    i.len() == o.len()
                        && i.iter().zip(&o).all(|(x, y)| y.is_finite() || !x.is_finite())
                });
                prop_assert!(ok, "mode {} made a non-finite value: {:?}", spec.mode, spec);
            }
        }
        let st = inj.status(now);
        prop_assert_eq!(st.channels.len(), 5);
        for c in &st.channels {
            prop_assert_eq!(c.stage_panics, 0, "{}: {}", c.channel, c.stage_error);
        }
    }
}

const SHIPPED: &str = include_str!("../../config/channels.yaml");

/// One mutation of a text: delete, insert or replace a byte range, replace
/// a number with an extreme one, duplicate or drop a line.
fn mutate(text: &str, op: u8, at: usize, len: usize, with: &str) -> String {
    let b = text.as_bytes();
    let at = at % (b.len() + 1);
    let end = (at + len).min(b.len());
    let mut out = match op % 5 {
        0 => [&b[..at], &b[end..]].concat(),
        1 => [&b[..at], with.as_bytes(), &b[at..]].concat(),
        2 => [&b[..at], with.as_bytes(), &b[end..]].concat(),
        3 => {
            let lines: Vec<&str> = text.lines().collect();
            let i = at % lines.len();
            let mut v = lines.clone();
            v.insert(i, lines[i]);
            v.join("\n").into_bytes()
        }
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            let i = at % lines.len();
            let mut v = lines.clone();
            v.remove(i);
            v.join("\n").into_bytes()
        }
    };
    out.retain(|_| true);
    String::from_utf8_lossy(&out).into_owned()
}

fn insertion() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just(".nan".to_string()),
        Just("99999999999999999999".to_string()),
        Just(": ".to_string()),
        Just("\n  - ".to_string()),
        Just("{".to_string()),
        Just("\t".to_string()),
        Just("name: imu\n".to_string()),
        Just("max_held_bytes: 0".to_string()),
        Just("hold_limits: {max_held_messages: 0}\n".to_string()),
        "[ -~]{1,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn mutated_channels_yaml_is_a_located_error_or_a_working_injector(
        muts in prop::collection::vec((0u8..5, any::<usize>(), 0usize..12, insertion()), 1..4)
    ) {
        let mut text = SHIPPED.to_string();
        for (op, at, len, with) in &muts {
            text = mutate(&text, *op, *at, *len, with);
        }
        match ChannelsConfig::parse(&text, "ch.yaml") {
            Ok(cfg) => {
                let mut inj = Injector::from_config(&cfg);
                let c = &cfg.channels[0];
                let mut r = rng(1);
                inj.push(&c.name, msg_for(c.kind, ms(1)), ms(1), &mut r).unwrap();
                prop_assert_eq!(inj.poll(&c.name, ms(1)).unwrap().len(), 1);
            }
            Err(e) => {
                let shown = e.to_string();
                match &e {
                    FaultError::Config { path, line, column, .. } => {
                        prop_assert_eq!(path.as_str(), "ch.yaml");
                        prop_assert!(*line >= 1 && *column >= 1, "unlocated: {}", shown);
                        prop_assert!(shown.starts_with(&format!("ch.yaml:{line}:{column}: ")), "{}", shown);
                    }
                    other => prop_assert!(false, "not a located config error: {}", other),
                }
            }
        }
    }
}
