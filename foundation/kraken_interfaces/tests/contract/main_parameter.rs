//! `FaultSpec::main_parameter`: each mode's severity field, read back with
//! the value set in it, and every name it returns is a float/uint field of
//! `msg/FaultSpec.msg`.

use kraken_interfaces::{FaultSpec, MODES};

fn spec(mode: u8, f: impl FnOnce(&mut FaultSpec)) -> FaultSpec {
    let mut s = FaultSpec::new("gnss", mode);
    f(&mut s);
    s
}

#[test]
fn each_mode_reports_its_severity_field_and_value() {
    let cases: Vec<(FaultSpec, Option<(&str, f64)>)> = vec![
        (spec(FaultSpec::HEALTHY, |_| {}), None),
        (spec(FaultSpec::DROPOUT, |_| {}), None),
        (spec(FaultSpec::STUCK, |s| s.freeze_stamp = true), None),
        (spec(FaultSpec::GARBAGE, |s| s.garbage_max = 3.0), None),
        (
            spec(FaultSpec::DEGRADE, |s| s.noise_stddev = 0.7),
            Some(("noise_stddev", 0.7)),
        ),
        (
            spec(FaultSpec::BIAS_RAMP, |s| s.bias_rate = 0.2),
            Some(("bias_rate", 0.2)),
        ),
        (
            spec(FaultSpec::SLIP, |s| s.slip_ratio = 0.5),
            Some(("slip_ratio", 0.5)),
        ),
        (
            spec(FaultSpec::BIAS, |s| s.bias = -1.5),
            Some(("bias", -1.5)),
        ),
        (
            spec(FaultSpec::SCALE, |s| s.scale_factor = 1.2),
            Some(("scale_factor", 1.2)),
        ),
        (
            spec(FaultSpec::SATURATION, |s| s.saturation_limit = 4.0),
            Some(("saturation_limit", 4.0)),
        ),
        (
            spec(FaultSpec::PACKET_LOSS, |s| {
                s.loss_model = FaultSpec::LOSS_BERNOULLI;
                s.loss_probability = 0.3;
                s.burst_length = 9;
            }),
            Some(("loss_probability", 0.3)),
        ),
        (
            spec(FaultSpec::PACKET_LOSS, |s| {
                s.loss_model = FaultSpec::LOSS_BURST;
                s.loss_probability = 0.3;
                s.burst_length = 9;
            }),
            Some(("burst_length", 9.0)),
        ),
        (
            spec(FaultSpec::PACKET_LOSS, |s| {
                s.loss_model = FaultSpec::LOSS_GILBERT_ELLIOTT;
                s.loss_probability = 0.05;
            }),
            Some(("loss_probability", 0.05)),
        ),
        (
            spec(FaultSpec::DELAY, |s| s.delay_s = 0.4),
            Some(("delay_s", 0.4)),
        ),
        (
            spec(FaultSpec::JITTER, |s| s.jitter_s = 0.05),
            Some(("jitter_s", 0.05)),
        ),
        (
            spec(FaultSpec::DUPLICATE, |s| s.probability = 0.25),
            Some(("probability", 0.25)),
        ),
        (
            spec(FaultSpec::REORDER, |s| s.probability = 0.125),
            Some(("probability", 0.125)),
        ),
        (
            spec(FaultSpec::TIMESTAMP_JUMP, |s| s.timestamp_offset_s = -2.0),
            Some(("timestamp_offset_s", -2.0)),
        ),
        (
            spec(FaultSpec::CORRUPT_STATUS, |s| s.covariance_scale = 0.01),
            Some(("covariance_scale", 0.01)),
        ),
        (spec(MODES.len() as u8, |s| s.delay_s = 1.0), None),
    ];
    for (s, want) in cases {
        assert_eq!(s.main_parameter(), want, "mode {}", s.mode);
    }
}

#[test]
fn every_main_parameter_is_a_numeric_field_of_the_msg_file() {
    let msg = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/msg/FaultSpec.msg"))
        .expect("msg/FaultSpec.msg");
    let numeric: Vec<&str> = msg
        .lines()
        .filter_map(|l| {
            let mut it = l.split('#').next()?.split_whitespace();
            let (ty, name) = (it.next()?, it.next()?);
            (matches!(ty, "float64" | "uint32") && !name.contains('=')).then_some(name)
        })
        .collect();
    assert!(numeric.contains(&"delay_s"), "{numeric:?}");
    for mode in 0..MODES.len() as u8 {
        let mut s = FaultSpec::new("scan", mode);
        for m in [FaultSpec::LOSS_BURST, FaultSpec::LOSS_BERNOULLI] {
            s.loss_model = m;
            if let Some((name, _)) = s.main_parameter() {
                assert!(
                    numeric.contains(&name),
                    "mode {mode}: {name} not in {numeric:?}"
                );
            }
        }
    }
}

/// `FaultSpec::mode_parameters` is the table the field comments of
/// `FaultSpec.msg` give: a parameter belongs to a mode exactly when its
/// comment names the mode (as a whole upper-case word); the fields whose
/// comments name no mode are the timing parameters.
#[test]
fn mode_parameters_match_the_field_comments_of_the_msg_file() {
    let msg = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/msg/FaultSpec.msg"))
        .expect("msg/FaultSpec.msg");
    let upper: Vec<String> = kraken_interfaces::MODE_NAMES
        .iter()
        .map(|n| n.to_uppercase())
        .collect();
    // (field, modes named in its comment), fields only (no constants), after `mode`.
    let mut fields: Vec<(String, Vec<u8>)> = Vec::new();
    for l in msg.lines() {
        let (decl, comment) = l.split_once('#').unwrap_or((l, ""));
        let mut it = decl.split_whitespace();
        let (Some(_ty), Some(name)) = (it.next(), it.next()) else {
            continue;
        };
        if name.contains('=') || name == "channel" || name == "mode" {
            continue;
        }
        let modes = comment
            .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .filter_map(|w| upper.iter().position(|u| u == w).map(|i| i as u8))
            .collect();
        fields.push((name.to_string(), modes));
    }
    assert_eq!(fields.len(), 27, "{fields:?}");
    let timing: Vec<&str> = fields
        .iter()
        .filter(|(_, m)| m.is_empty())
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(timing, FaultSpec::TIMING_PARAMETERS);
    for mode in 0..MODES.len() as u8 {
        let want: Vec<&str> = fields
            .iter()
            .filter(|(_, m)| m.contains(&mode))
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(FaultSpec::mode_parameters(mode), want, "mode {mode}");
        for p in FaultSpec::TIMING_PARAMETERS {
            assert!(FaultSpec::mode_reads(mode, p));
        }
    }
    assert!(FaultSpec::mode_reads(FaultSpec::DELAY, "delay_s"));
    assert!(!FaultSpec::mode_reads(FaultSpec::DELAY, "jitter_s"));
    assert!(!FaultSpec::mode_reads(FaultSpec::SCALE, "bias"));
    assert!(FaultSpec::mode_parameters(MODES.len() as u8).is_empty());
}
