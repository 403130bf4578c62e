//! Timing and loss stages of the fault stack on raw bytes (issue 10,
//! REQ-FAULT-STACK): the same decisions and draws as the typed modes
//! (one mechanism), never a decode, exact values, parameter refusals.

use kraken_interfaces::FaultSpec;

use super::*;
use crate::{FaultError, MsgKind, SensorMsg};

/// Per input message, in order: the (delay, input index) pairs delivered.
type Trace = Vec<Vec<(Duration, u64)>>;

/// Input k arrives at k·10 ms.
fn at(k: u64) -> Duration {
    ms(10 * k)
}

/// `n` Imu messages through the typed mode `spec` (its `FaultStage`,
/// seed `seed`); the input index rides in `frame_id`.
fn typed(spec: FaultSpec, n: u64, seed: u64) -> Trace {
    let mut stage = crate::build_stage(&spec, "imu", MsgKind::Imu).unwrap();
    let mut r = rng(seed);
    (0..n)
        .map(|k| {
            let mut m = crate::test_common::imu(at(k));
            m.header.frame_id = k.to_string();
            stage
                .apply(SensorMsg::Imu(m), at(k), &mut r)
                .into_iter()
                .map(|(d, m)| (d, m.header().frame_id.parse().unwrap()))
                .collect()
        })
        .collect()
}

/// Bytes that are not CDR (a bad encapsulation header) carrying `k`: any
/// decode attempt would fail and be recorded.
fn not_cdr(k: u64) -> Vec<u8> {
    let mut b = vec![0xEE, 0xEE, 0, 0];
    b.extend_from_slice(&k.to_le_bytes());
    b
}

/// `n` raw payloads of type Imu through a stack of `yaml` (seed `seed`);
/// asserts no payload was decoded (or tried).
fn raw(yaml: &str, n: u64, seed: u64) -> Trace {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
    let mut s = FaultStack::build(&specs, &reg(), IMU).unwrap();
    let mut r = rng(seed);
    let t = ty(IMU);
    (0..n)
        .map(|k| {
            s.apply(CdrPayload::new(t.clone(), not_cdr(k)), at(k), &mut r)
                .into_iter()
                .map(|d| {
                    assert!(!d.payload.was_decoded(), "decoded");
                    assert_eq!(d.payload.decode_error(), None, "decode tried");
                    let b = d.payload.into_bytes().unwrap();
                    (d.delay, u64::from_le_bytes(b[4..12].try_into().unwrap()))
                })
                .collect()
        })
        .collect()
}

fn withheld(t: &Trace) -> Vec<usize> {
    (0..t.len()).filter(|&k| t[k].is_empty()).collect()
}

fn spec(mode: u8, f: impl FnOnce(&mut FaultSpec)) -> FaultSpec {
    let mut s = FaultSpec::new("imu", mode);
    f(&mut s);
    s
}

/// The three loss models: for seed 7 over 2000 messages the raw stage and
/// the typed `packet_loss` mode withhold exactly the same indices.
#[test]
fn loss_models_on_raw_bytes_withhold_what_the_typed_mode_withholds() {
    let cases = [
        (
            "- fault: {loss: {model: bernoulli, loss_probability: 0.3}}",
            spec(FaultSpec::PACKET_LOSS, |s| s.loss_probability = 0.3),
        ),
        (
            "- fault: {loss: {model: burst, loss_probability: 0.05, burst_length: 4}}",
            spec(FaultSpec::PACKET_LOSS, |s| {
                s.loss_model = FaultSpec::LOSS_BURST;
                s.loss_probability = 0.05;
                s.burst_length = 4;
            }),
        ),
        (
            "- fault: {loss: {model: gilbert_elliott, loss_probability: 0.1, \
             recovery_probability: 0.3}}",
            spec(FaultSpec::PACKET_LOSS, |s| {
                s.loss_model = FaultSpec::LOSS_GILBERT_ELLIOTT;
                s.loss_probability = 0.1;
                s.recovery_probability = 0.3;
            }),
        ),
    ];
    for (yaml, spec) in cases {
        let r = raw(yaml, 2000, 7);
        assert_eq!(r, typed(spec, 2000, 7), "{yaml}");
        // Delivered ones go out at once, unchanged, one each.
        for (k, out) in r.iter().enumerate() {
            assert!(out.is_empty() || *out == [(Duration::ZERO, k as u64)]);
        }
        let lost = withheld(&r).len();
        assert!(lost > 100 && lost < 1000, "{yaml}: {lost} lost");
    }
}

/// Jitter, reorder and duplicate: the same delays, orders and copies as
/// the typed modes (seed 3, 1000 messages).
#[test]
fn jitter_reorder_duplicate_on_raw_bytes_match_the_typed_modes() {
    let j = raw("- fault: {jitter: {jitter_s: 0.05}}", 1000, 3);
    assert_eq!(
        j,
        typed(spec(FaultSpec::JITTER, |s| s.jitter_s = 0.05), 1000, 3)
    );
    assert!(j.iter().all(|o| o.len() == 1 && o[0].0 <= ms(50)));
    assert!(j.iter().any(|o| o[0].0 > ms(40)));

    let r = raw("- fault: {reorder: {probability: 0.3}}", 1000, 3);
    assert_eq!(
        r,
        typed(spec(FaultSpec::REORDER, |s| s.probability = 0.3), 1000, 3)
    );
    let swapped = r.iter().filter(|o| o.len() == 2).count();
    assert_eq!(swapped, withheld(&r).len());
    assert!(swapped > 100, "{swapped}");

    let d = raw(
        "- fault: {duplicate: {copies: 1, probability: 0.4}}",
        1000,
        3,
    );
    assert_eq!(
        d,
        typed(spec(FaultSpec::DUPLICATE, |s| s.probability = 0.4), 1000, 3)
    );
    let doubled = d.iter().filter(|o| o.len() == 2).count();
    assert!(doubled > 300 && doubled < 500, "{doubled}");
}

/// Hand-derived values. Gilbert-Elliott p = 1, r = 1 alternates bad (lost)
/// and good; reorder p = 1 swaps every pair; burst p = 1 loses everything;
/// duplicate x2 p = 1 makes three of each, counted.
#[test]
fn loss_and_reorder_exact_patterns() {
    let ge = raw(
        "- fault: {loss: {model: gilbert_elliott, loss_probability: 1.0, \
         recovery_probability: 1.0}}",
        6,
        1,
    );
    assert_eq!(withheld(&ge), [0, 2, 4]);
    let burst = raw(
        "- fault: {loss: {model: burst, loss_probability: 1.0, burst_length: 3}}",
        7,
        1,
    );
    assert_eq!(withheld(&burst), [0, 1, 2, 3, 4, 5, 6]);
    let z = Duration::ZERO;
    let swap = raw("- fault: {reorder: {probability: 1.0}}", 4, 1);
    assert_eq!(
        swap,
        [vec![], vec![(z, 1), (z, 0)], vec![], vec![(z, 3), (z, 2)]]
    );
    // A delay before the reorder: the released one keeps its delay.
    let swap = raw(
        "- fault: {delay: {delay_s: 0.1}}\n- fault: {reorder: {probability: 1.0}}",
        2,
        1,
    );
    assert_eq!(swap[1], [(ms(100), 1), (ms(100), 0)]);

    let specs: Vec<StageSpec> =
        serde_yaml_ng::from_str("- fault: {duplicate: {copies: 2}}").unwrap();
    let mut s = FaultStack::build(&specs, &reg(), IMU).unwrap();
    let out = s.apply(vec![1u8, 2], ms(0), &mut rng(1));
    assert_eq!(out.len(), 3);
    assert_eq!(
        out.iter().map(|d| d.touched_by.clone()).collect::<Vec<_>>(),
        [vec![], vec![0], vec![0]]
    );
    assert_eq!(s.stats()[0].added, 2);
}

/// Stall 0.25 s at 10 Hz, window half of every 1 s: messages at 0, 0.1,
/// 0.2 s are all released at 0.25 s (delays 250, 150, 50 ms), 0.3 and 0.4 s
/// pass; 0.5-0.9 s the stage is off; the phase from 1.0 s stalls anew.
#[test]
fn stall_holds_then_releases_everything_at_once_each_active_phase() {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {stall: {stall_s: 0.25}}\n  window: {period_s: 1.0, duty_cycle: 0.5}",
    )
    .unwrap();
    let mut s = FaultStack::build(&specs, &reg(), IMU).unwrap();
    let t = ty(IMU);
    let mut r = rng(1);
    let release: Vec<Duration> = (0..15u64)
        .map(|k| {
            let now = ms(100 * k);
            let out = s.apply(CdrPayload::new(t.clone(), not_cdr(k)), now, &mut r);
            assert_eq!(out.len(), 1);
            assert!(!out[0].payload.was_decoded());
            now + out[0].delay
        })
        .collect();
    let expect: Vec<Duration> = [
        250, 250, 250, 300, 400, 500, 600, 700, 800, 900, 1250, 1250, 1250, 1300, 1400,
    ]
    .into_iter()
    .map(ms)
    .collect();
    assert_eq!(release, expect);
    assert_eq!(s.stats()[0].changed, 6);
    assert_eq!(
        s.describe(),
        ["0: stall 0.25 s, then burst release [0.5 of every 1 s]"]
    );
}

#[test]
fn describe_names_each_new_stage_with_its_parameters() {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "\
- fault: {loss: {model: bernoulli, loss_probability: 0.1}}
- fault: {loss: {model: burst, loss_probability: 0.02, burst_length: 5}}
- fault: {loss: {model: gilbert_elliott, loss_probability: 0.05, recovery_probability: 0.2}}
- fault: {jitter: {jitter_s: 0.05}}
- fault: {reorder: {probability: 0.1}}
- fault: {duplicate: {copies: 1, probability: 0.3}}
- fault: {duplicate: {copies: 2}}
",
    )
    .unwrap();
    let s = FaultStack::build(&specs, &reg(), IMU).unwrap();
    assert_eq!(
        s.describe(),
        [
            "0: loss bernoulli p=0.1",
            "1: loss burst p=0.02 length 5",
            "2: loss gilbert_elliott p=0.05 r=0.2",
            "3: jitter 0..0.05 s",
            "4: reorder p=0.1",
            "5: duplicate x1 p=0.3",
            "6: duplicate x2",
        ]
    );
}

/// Each refusal names the stage index, the stage kind and the parameter,
/// with the typed modes' ranges.
#[test]
fn new_stages_refuse_out_of_range_parameters() {
    let cases = [
        (
            "loss: {model: bernoulli, loss_probability: 1.5}",
            "loss",
            "loss_probability",
            1.5,
        ),
        (
            "loss: {model: burst, loss_probability: 0.1}",
            "loss",
            "burst_length",
            0.0,
        ),
        (
            "loss: {model: gilbert_elliott, loss_probability: 0.1}",
            "loss",
            "recovery_probability",
            0.0,
        ),
        (
            "loss: {model: gilbert_elliott, loss_probability: 0.1, recovery_probability: 2.0}",
            "loss",
            "recovery_probability",
            2.0,
        ),
        ("jitter: {jitter_s: 61.0}", "jitter", "jitter_s", 61.0),
        ("jitter: {jitter_s: -0.1}", "jitter", "jitter_s", -0.1),
        (
            "reorder: {probability: -0.1}",
            "reorder",
            "probability",
            -0.1,
        ),
        (
            "duplicate: {copies: 1, probability: 2.0}",
            "duplicate",
            "probability",
            2.0,
        ),
        ("stall: {stall_s: 0.0}", "stall", "stall_s", 0.0),
        ("stall: {stall_s: 60.5}", "stall", "stall_s", 60.5),
    ];
    for (fault, kind, param, v) in cases {
        let yaml = format!("- fault: {{delay: {{delay_s: 0.1}}}}\n- fault: {{{fault}}}");
        let specs: Vec<StageSpec> = serde_yaml_ng::from_str(&yaml).unwrap();
        match FaultStack::build(&specs, &reg(), IMU) {
            Err(FaultError::Stage { index: 1, source }) => match *source {
                FaultError::InvalidParameter {
                    mode, field, value, ..
                } => assert_eq!((mode, field, value), (kind, param, v), "{fault}"),
                e => panic!("{fault}: {e}"),
            },
            other => panic!("{fault}: {other:?}"),
        }
    }
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {drop: {probability: 0.1}}\n- fault: {loss: {model: burst, loss_probability: 0.1}}",
    )
    .unwrap();
    assert_eq!(
        FaultStack::build(&specs, &reg(), IMU)
            .unwrap_err()
            .to_string(),
        "fault stack stage 1: invalid parameter burst_length = 0 for mode 'loss': must be >= 1"
    );
    // A parameter of another model or a misspelling is refused by the parser.
    for bad in [
        "- fault: {loss: {model: bernoulli, p: 0.1}}",
        "- fault: {loss: {model: markov, loss_probability: 0.1}}",
        "- fault: {stall: {stall_s: 1.0, release_s: 1.0}}",
    ] {
        assert!(
            serde_yaml_ng::from_str::<Vec<StageSpec>>(bad).is_err(),
            "{bad}"
        );
    }
}
