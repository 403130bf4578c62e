//! Unit tests of the scenario file, its checks and its cells.
use std::path::Path;

use super::*;
use crate::CampaignError;

fn axis(parameter: &str, mode: &str) -> Axis {
    Axis {
        name: "a".into(),
        channel: "odom".into(),
        mode: mode.into(),
        parameter: parameter.into(),
        offset: 1.0,
        values: vec![0.2],
        range: None,
        at_s: 0.0,
        duration_s: None,
        message_skip: 0,
        message_count: 0,
        message_every: 0,
    }
}

#[test]
fn fault_spec_sets_offset_plus_value() {
    let s = fault_spec(&axis("scale_factor", "scale"), 0.2).unwrap();
    assert_eq!(s.mode, FaultSpec::SCALE);
    assert_eq!(s.channel, "odom");
    assert_eq!(s.scale_factor, 1.2);
    assert_eq!(s.delay_s, 0.0);
}

#[test]
fn fault_spec_rejects_unknown_names() {
    assert!(fault_spec(&axis("scale_factr", "scale"), 0.2)
        .unwrap_err()
        .contains("no parameter 'scale_factr'"));
    assert!(fault_spec(&axis("scale_factor", "scal"), 0.2)
        .unwrap_err()
        .contains("unknown fault mode 'scal'"));
    assert!(fault_spec(&axis("channel", "scale"), 0.2)
        .unwrap_err()
        .contains("not a float64"));
}

#[test]
fn shipped_study_expands_to_16_cells() {
    let s = Scenario::load(Path::new(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/scenarios/corridor_study.yaml"
    )))
    .unwrap();
    let cells = s.cells();
    assert_eq!(cells.len(), 16);
    assert_eq!(cells[1].get("latency_s"), Some(&0.0));
    assert_eq!(cells[1].get("odom_bias"), Some(&0.08));
    assert_eq!(s.hash.len(), 64);
}

/// The small study with `edit` applied, written with absolute config paths.
fn load_edited(edit: impl Fn(String) -> String) -> Result<Scenario, CampaignError> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = std::fs::read_to_string(format!("{root}/tests/data/small_study.yaml"))
        .unwrap()
        .replace("../../config", &format!("{root}/config"));
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.yaml");
    std::fs::write(&p, edit(text)).unwrap();
    Scenario::load(&p)
}

#[test]
fn edited_fixture_loads() {
    assert_eq!(load_edited(|t| t).unwrap().cells().len(), 4);
}

/// A fault on a channel the declared controller does not read is
/// refused across files (scenario line, navigator file, its inputs); the
/// same axis loads once the navigator drives from the estimator, which
/// reads GNSS.
#[test]
fn an_axis_on_a_channel_the_controller_does_not_read_is_refused() {
    let gnss = |t: String| t.replace("channel: scan", "channel: gnss");
    let e = load_edited(gnss).unwrap_err().to_string();
    assert!(
        e.contains("s.yaml:11:5: field 'axes[0].channel'")
            && e.contains("channel 'gnss' has no consumer")
            && e.contains("pose_source: wheel_odometry")
            && e.contains("reads odom, scan"),
        "{e}"
    );
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let d = tempfile::tempdir().unwrap();
    let nav = d.path().join("nav.yaml");
    let text = std::fs::read_to_string(format!("{root}/config/navigator.yaml")).unwrap();
    assert!(text.contains("pose_source: wheel_odometry"));
    std::fs::write(
        &nav,
        text.replace("pose_source: wheel_odometry", "pose_source: estimator"),
    )
    .unwrap();
    let nav_line = format!("navigator: {}", nav.display());
    let on_stack = |t: String| {
        gnss(t).replace(
            &format!("navigator: {root}/config/navigator.yaml"),
            &nav_line,
        )
    };
    // The estimator fuses the wheel odometry's twist, not its pose: the
    // fixture's odometry scale (a pose fault) cannot reach it ...
    let e = load_edited(on_stack).unwrap_err().to_string();
    assert!(
        e.contains("s.yaml:18:5: field 'axes[1].mode': mode 'scale' on channel 'odom' (Odometry) changes only pose.pose.position, and the navigator reads delivery, header.stamp, twist.twist.linear, twist.twist.angular, twist.covariance of it"),
        "{e}"
    );
    // ... a twist bias does
    let s = load_edited(|t| {
        on_stack(t).replace("mode: scale", "mode: bias").replace(
            "parameter: scale_factor\n    offset: 1.0",
            "parameter: bias\n    offset: 0.0",
        )
    })
    .unwrap();
    assert_eq!(s.file.axes[0].channel, "gnss");
    assert_eq!(s.file.axes[1].mode, "bias");
}

#[test]
fn two_axes_on_one_channel_are_refused() {
    let e = load_edited(|t| t.replace("channel: scan", "channel: odom"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field 'axes[1].channel'") && e.contains("one fault axis per channel"),
        "{e}"
    );
}

#[test]
fn duplicate_values_and_bad_names_are_refused() {
    let e = load_edited(|t| t.replace("values: [0.0, 0.4]", "values: [0.0, 0.4, 0.4]"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field 'axes[0].values[2]'") && e.contains("duplicate value 0.4"),
        "{e}"
    );
    let e = load_edited(|t| t.replace("name: latency_s", "name: ../x"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("field 'axes[0].name'"), "{e}");
}

#[test]
fn unknown_mode_parameter_and_missing_file_name_the_field() {
    let e = load_edited(|t| t.replace("mode: delay", "mode: dealy"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("s.yaml:12:5: field 'axes[0].mode'") && e.contains("unknown fault mode 'dealy'"),
        "{e}"
    );
    let e = load_edited(|t| t.replace("parameter: delay_s", "parameter: delay_sec"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("s.yaml:13:5: field 'axes[0].parameter'")
            && e.contains("does not read 'delay_sec'"),
        "{e}"
    );
    let e = load_edited(|t| t.replace("corridor.yaml", "coridor.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field 'world'") && e.contains("coridor.yaml"),
        "{e}"
    );
    let e = load_edited(|t| t.replace("repeats: 2", "repeats: 2\nrepeets: 3"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("s.yaml:9:1: field 'repeets'"), "{e}");
}
/// Every check after parsing names file, line and field, and what is wrong.
#[test]
fn semantic_errors_name_file_line_and_field() {
    let cases: [(&str, &str, &str, &str); 16] = [
        // a fault the navigator cannot see: odom bias changes only the twist
        (
            "mode: scale\n    parameter: scale_factor",
            "mode: bias\n    parameter: bias",
            "s.yaml:18:5: field 'axes[1].mode'",
            "mode 'bias' on channel 'odom' (Odometry) changes only twist.twist.linear, and the navigator reads delivery, header.stamp, pose.pose.position, pose.pose.orientation of it",
        ),
        (
            "mode: scale\n    parameter: scale_factor",
            "mode: slip\n    parameter: slip_ratio",
            "s.yaml:18:5: field 'axes[1].mode'",
            "mode 'slip' on channel 'odom' (Odometry) changes only twist.twist.linear, twist.twist.angular",
        ),
        // the absurd plan of the issue: refused before anything runs
        (
            "repeats: 2",
            "repeats: 1000000000",
            "s.yaml:8:1: field 'repeats'",
            "1e9 is outside its declared range [1, 10000] runs per cell",
        ),
        (
            "values: [0.0, 0.2]",
            "values: [0.0, 1.0e300]",
            "s.yaml:21:19: field 'axes[1].values[1]'",
            "1e300 is outside its declared range [-4.294967296e9, 4.294967296e9] axis unit",
        ),
        (
            "confidence: 0.95",
            "confidence: 1.0",
            "s.yaml:7:1: field 'confidence'",
            "1 is outside its declared range [0.5, 0.9999]",
        ),
        // a parameter the mode does not read would mislabel every cell
        (
            "parameter: delay_s",
            "parameter: jitter_s",
            "s.yaml:13:5: field 'axes[0].parameter'",
            "mode 'delay' does not read 'jitter_s' (its parameters: delay_s;",
        ),
        (
            "rel_tol: 0.5",
            "rel_tol: .nan",
            "s.yaml:24:59: field 'nominal.convergence.rel_tol'",
            "is not a finite number (declared range [0, 10])",
        ),
        (
            "abs_tol_m: 0.05",
            "abs_tol_m: -0.05",
            "s.yaml:24:73: field 'nominal.convergence.abs_tol_m'",
            "-0.05 is outside its declared range [0, 100] m",
        ),
        (
            "duration_s: 20.0",
            "duration_s: .inf",
            "s.yaml:25:27: field 'canary.duration_s'",
            "is not a finite number (declared range [0.01, 3600] s)",
        ),
        (
            "name: odom_bias",
            "name: n",
            "s.yaml:16:5: field 'axes[1].name'",
            "'n' is a key of every summary.json cell",
        ),
        (
            "name: odom_bias",
            "name: delivered",
            "s.yaml:16:5: field 'axes[1].name'",
            "key of every summary.json cell",
        ),
        (
            "offset: 1.0",
            "offset: .inf",
            "s.yaml:20:5: field 'axes[1].offset'",
            "is not a finite number (declared range [-4.294967296e9, 4.294967296e9] parameter unit)",
        ),
        (
            "values: [0.0, 0.2]",
            "values: [0.0, 1.0e-30]",
            "s.yaml:21:19: field 'axes[1].values[1]'",
            "1e-30 takes 32 characters in run ids (decimal notation, at most 24); rescale the axis",
        ),
        (
            "values: [0.0, 0.4]",
            "values: [0.0, -0.4]",
            "s.yaml:15:19: field 'axes[0].values[1]'",
            "delay_s",
        ),
        (
            "window: 1",
            "window: 2",
            "s.yaml:24:48: field 'nominal.convergence.window'",
            "<= runs - 2 = 1",
        ),
        (
            "repeats: 2",
            "repeats: 2\nrepeats: 3",
            "s.yaml:9:1: field 'repeats'",
            "duplicate field `repeats`",
        ),
    ];
    for (from, to, at, msg) in cases {
        let e = load_edited(|t| {
            assert!(t.contains(from), "{from}");
            t.replacen(from, to, 1)
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains(at) && e.contains(msg), "{to}: {e}");
    }
}

/// The spoof study: 5 ramp rates × 4 gating options, the gating a
/// navigator axis whose cell value indexes its values, each variant's
/// navigator carrying its gating; a wrong navigator axis is refused at
/// load naming file, line and field.
#[test]
fn spoof_study_crosses_ramp_rate_with_gating_and_bad_navigator_axes_are_refused() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let path = format!("{root}/scenarios/studies/gnss_spoof_study.yaml");
    let s = Scenario::load(Path::new(&path)).unwrap();
    let cells = s.cells();
    assert_eq!(cells.len(), 20);
    assert_eq!(cells[1].get("ramp_rate_m_s"), Some(&0.02));
    assert_eq!(cells[1].get("gating"), Some(&1.0));
    assert_eq!(s.variants.len(), 4);
    let gating = |i: f64| {
        let c = BTreeMap::from([("ramp_rate_m_s".to_string(), 0.1), ("gating".into(), i)]);
        s.navigator_for(&c).estimator_gating
    };
    use breakbench_navigator::stack::Gating;
    assert_eq!(gating(0.0), Gating::None);
    assert_eq!(gating(1.0), Gating::Mahalanobis);
    assert_eq!(gating(2.0), Gating::Consistency);
    assert_eq!(gating(3.0), Gating::Both);
    let plan = super::super::plan::plan(&s);
    assert_eq!(plan.len(), 20 * 20 + 4 * 20);
    assert!(plan
        .iter()
        .any(|r| r.run_id == "grid_ramp_rate_m_s0.5_gating_consistency_r19"));
    assert!(plan.iter().any(|r| r.run_id == "nominal_gating_none_019"));
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("../../config", &format!("{root}/config"))
        .replace("../tests/", &format!("{root}/scenarios/tests/"));
    let load = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.yaml");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
        Scenario::load(&p).unwrap_err().to_string()
    };
    let e = load("consistency, both]", "consistency, bot]");
    assert!(
        e.contains("s.yaml:28:46: field 'navigator_axes[0].values[3]'")
            && e.contains("unknown variant `bot`"),
        "{e}"
    );
    let e = load("parameter: estimator_gating", "parameter: estimator_gatin");
    assert!(
        e.contains("field 'navigator_axes[0].parameter'")
            && e.contains("no parameter 'estimator_gatin'"),
        "{e}"
    );
    let e = load("parameter: estimator_gating", "parameter: pose_source");
    assert!(e.contains("field 'navigator_axes[0].parameter'"), "{e}");
    let e = load("name: gating ", "name: ramp_rate_m_s ");
    assert!(e.contains("duplicate axis 'ramp_rate_m_s'"), "{e}");
    let e = load("diagnostic: \"ekf: gnss\"", "diagnostic: \"ekf: gps\"");
    assert!(
        e.contains("field 'detection.diagnostic'")
            && e.contains("no /diagnostics status 'ekf: gps'"),
        "{e}"
    );
    let e = load("duration_s: 40.0", "duration_s: 60.0");
    assert!(
        e.contains("field 'axes[0].duration_s'") && e.contains("beyond the end of the run"),
        "{e}"
    );
}

#[test]
fn reserved_cell_keys_are_the_keys_of_a_cell() {
    let cell = super::super::summary::Cell {
        axes: BTreeMap::new(),
        n: 0,
        verdict_classes: Default::default(),
        safety: super::super::summary::Proportion::new(0, 1, 0.95),
        mission: super::super::summary::Proportion::new(0, 1, 0.95),
        delivered: BTreeMap::new(),
        detection: Some(super::super::summary::CellDetection {
            detected: super::super::summary::Proportion::new(0, 1, 0.95),
            escaped: super::super::summary::Proportion::new(0, 1, 0.95),
            latency: None,
        }),
        margins: [(
            "obstacle_clearance".to_string(),
            crate::margin_stats::margin_stats(&[0.1], 0.05, 0.95, 0.95, 0.95).unwrap(),
        )]
        .into_iter()
        .collect(),
        sub_margin_joint: Some(0),
    };
    let v = serde_json::to_value(&cell).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let mut want = RESERVED_CELL_KEYS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
}

/// The in-process actuator channel is the one the shipped channels.yaml
/// (and channels_any_type.yaml) declare: same name, type and fault_fields
/// (REQ-FAULT-ACTUATOR).
#[test]
fn actuator_channels_equal_the_shipped_channels_files() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for file in ["channels.yaml", "channels_any_type.yaml"] {
        let p = root.join("faults/kraken_faults/config").join(file);
        let doc: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let channels = doc["channels"].as_sequence().unwrap();
        for (i, (name, ty, fields)) in ACTUATOR_CHANNELS.iter().enumerate() {
            let c = channels
                .iter()
                .find(|c| c["name"].as_str() == Some(name))
                .unwrap();
            assert_eq!(c["type"].as_str(), Some(*ty), "{file}");
            let declared: Vec<&str> = c["fault_fields"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            assert_eq!(declared, *fields, "{file}");
            assert_eq!(actuator_channel(i).fault_fields(), *fields);
        }
    }
}

/// A grid axis on cmd_vel loads; a mode the actuator channel cannot carry
/// is refused at the axis value, naming it; an unknown channel's error lists
/// cmd_vel among the harness channels.
#[test]
fn axes_on_the_actuator_channel() {
    let on_cmd_vel = |t: String, mode: &str, parameter: &str| {
        t.replacen("channel: scan", "channel: cmd_vel", 1)
            .replacen("mode: delay", &format!("mode: {mode}"), 1)
            .replacen("parameter: delay_s", &format!("parameter: {parameter}"), 1)
    };
    load_edited(|t| on_cmd_vel(t, "delay", "delay_s")).unwrap();
    let e = load_edited(|t| on_cmd_vel(t, "degrade", "noise_stddev"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("axes[0].values[0]") && e.contains("no field-path equivalent"),
        "{e}"
    );
    let e = load_edited(|t| t.replacen("channel: scan", "channel: cmd_vol", 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("scan, cmd_vel"), "{e}");
}

/// Issue 24: an axis on duty_cycle without period_s faulted every message
/// while the manifest recorded `requested: 0.5`; it is refused at load, as
/// the kraken step files and channels refuse it (one check,
/// `kraken_faults::params::check_spec`).
#[test]
fn duty_cycle_axis_without_period_is_refused() {
    let e = load_edited(|t| {
        t.replace(
            "mode: delay\n    parameter: delay_s\n    offset: 0.0\n    values: [0.0, 0.4]",
            "mode: dropout\n    parameter: duty_cycle\n    offset: 0.0\n    values: [0.5, 1.0]",
        )
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("s.yaml:15:14: field 'axes[0].values[0]'")
            && e.contains("duty_cycle")
            && e.contains("period_s"),
        "{e}"
    );
}

/// A message window on an axis: the k-th message of the channel, in the
/// FaultSpec of every cell.
#[test]
fn axes_carry_message_windows() {
    let s = load_edited(|t| {
        t.replace(
            "    values: [0.0, 0.2]\n",
            "    values: [0.0, 0.2]\n    message_skip: 4\n    message_count: 1\n",
        )
    })
    .unwrap();
    let a = &s.file.axes[1];
    let spec = fault_spec(a, 0.2).unwrap();
    assert_eq!(
        (spec.message_skip, spec.message_count, spec.message_every),
        (4, 1, 0)
    );
    assert_eq!(spec.scale_factor, 1.2);
    // Without them nothing changes in the file's serialized form.
    let plain = load_edited(|t| t).unwrap();
    let json = serde_json::to_string(&plain.file.axes[1]).unwrap();
    assert!(!json.contains("message_"), "{json}");
}

/// hdl_localization #48 as an axis: a stamp offset of -1.66e9 s (was
/// refused by the axis range [-1e6, 1e6]); beyond 2^32 s refused by the
/// parameter's own bound.
#[test]
fn a_timestamp_offset_axis_spans_the_time_type() {
    let edit = |v: &str| {
        let v = v.to_string();
        move |t: String| {
            t.replace(
                "mode: delay\n    parameter: delay_s\n    offset: 0.0\n    values: [0.0, 0.4]",
                &format!(
                    "mode: timestamp_jump\n    parameter: timestamp_offset_s\n    offset: 0.0\n    values: [{v}]"
                ),
            )
        }
    };
    let s = load_edited(edit("-1.66e9")).unwrap();
    let spec = fault_spec(&s.file.axes[0], -1.66e9).unwrap();
    assert_eq!(spec.timestamp_offset_s, -1.66e9);
    let e = load_edited(edit("-5.0e9")).unwrap_err().to_string();
    assert!(
        e.contains("axes[0].values[0]") && e.contains("4.294967296e9"),
        "{e}"
    );
}

/// The sampled study with `edit` applied, written with absolute config paths.
fn load_sampled(edit: impl Fn(String) -> String) -> Result<Scenario, CampaignError> {
    load_data("sampled_study", edit)
}

/// `tests/data/<name>.yaml` with `edit` applied, with absolute config paths.
fn load_data(name: &str, edit: impl Fn(String) -> String) -> Result<Scenario, CampaignError> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = std::fs::read_to_string(format!("{root}/tests/data/{name}.yaml"))
        .unwrap()
        .replace("../../config", &format!("{root}/config"));
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.yaml");
    std::fs::write(&p, edit(text)).unwrap();
    Scenario::load(&p)
}

/// A sampled design's bad declarations are refused at load, naming file,
/// line and field (REQ-STAT-SAMPLED); the file as shipped loads.
#[test]
fn a_sampled_design_refuses_what_it_cannot_sample() {
    let s = load_sampled(|t| t).unwrap();
    assert_eq!(s.cells().len(), 20);
    let lat = "    range: {min: 0.55, max: 0.7}\n";
    for (from, to, at, why) in [
        (
            lat,
            "",
            "s.yaml:16:5: field 'axes[0].name'",
            "axis 'latency_s' has no range: design kind latin_hypercube samples every axis from range: {min, max}",
        ),
        (
            "{min: 0.55, max: 0.7}",
            "{min: 0.7, max: 0.7}",
            "s.yaml:21:",
            "field 'axes[0].range.max': max 0.7 must be above min 0.7",
        ),
        (
            "samples: 20",
            "samples: 1",
            "s.yaml:14:",
            "field 'design.samples': 1 is outside its declared range [2, 10000] cells",
        ),
        (
            lat,
            "    values: [0.0, 0.4]\n",
            "s.yaml:21:",
            "field 'axes[0].values': design kind latin_hypercube draws the axis' values from range",
        ),
        (
            "reference: 0.0",
            "reference: 0.5",
            "s.yaml:27:",
            "field 'axes[1].range.reference': 0.5 is outside [0, 0.01]",
        ),
        (
            "design: {kind: latin_hypercube, samples: 20, seed: 3}\n",
            "",
            "s.yaml:20:",
            "field 'axes[0].range': only a sampled design",
        ),
        (
            "{kind: latin_hypercube, samples: 20, seed: 3}",
            "{kind: latin_hypercube, samples: 20, sed: 3}",
            "s.yaml:14:",
            "unknown field `sed`",
        ),
    ] {
        let e = load_sampled(|t| t.replace(from, to)).unwrap_err().to_string();
        assert!(e.contains(at) && e.contains(why), "{to}: {e}");
    }
}

/// A `rare_event:` section draws its one axis (REQ-STAT-RARE): the shipped
/// study loads with 40 draws as cells; two axes, an axis with values, an sd
/// of 0 and a proposal the fault stage refuses are refused at load.
#[test]
fn a_rare_event_section_refuses_what_it_cannot_draw() {
    let s = load_data("rare_study", |t| t).unwrap();
    let cells = s.cells();
    assert_eq!(cells.len(), 40);
    let mean = cells.iter().map(|c| c["latency_s"]).sum::<f64>() / 40.0;
    assert!((mean - 0.62).abs() < 4.0 * 0.1 / 40f64.sqrt(), "{mean}");
    let axis = "    offset: 0.0\n";
    for (from, to, at, why) in [
        (
            axis,
            "    offset: 0.0\n  - {name: odom_bias, channel: odom, mode: scale, parameter: scale_factor, offset: 1.0}\n",
            "s.yaml:16:",
            "field 'rare_event': importance sampling draws one fault axis: the scenario needs exactly one axis (it has 2 fault and 0 navigator axes)",
        ),
        (
            axis,
            "    offset: 0.0\n    values: [0.1]\n",
            "s.yaml:25:",
            "field 'axes[0].name': axis 'latency_s' takes its values from rare_event's draws",
        ),
        (
            "sd: 0.1",
            "sd: 0.0",
            "s.yaml:22:",
            "field 'rare_event.sd': 0 is outside its declared range [1e-9, 4.294967296e9] axis unit",
        ),
        (
            "proposal_mean: 0.62",
            "proposal_mean: -5.0",
            "s.yaml:23:",
            "field 'rare_event.proposal_mean': a draw of latency_s = -5.",
        ),
    ] {
        let e = load_data("rare_study", |t| t.replace(from, to))
            .unwrap_err()
            .to_string();
        assert!(e.contains(at) && e.contains(why), "{to}: {e}");
    }
}
