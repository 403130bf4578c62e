//! What a scenario must refuse at load because no run could test anything
//! (triggers that can never fire, windows that reach before their anchor or
//! hold no step, configurations under which no fault-free run can succeed),
//! and the nominal sanity gate of a finished campaign (REQ-TRIGGER-FIRABLE,
//! REQ-NOMINAL-GATE). Every refusal names file, line and field.

use crate::common;
use common::root;
use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::Scenario;

/// `scenarios/tests/<name>.yaml` with `edit` applied and absolute config
/// paths, loaded from `dir`: the error text, or "" if it loads.
fn load_test(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> String {
    let text = std::fs::read_to_string(root().join(format!("scenarios/tests/{name}.yaml")))
        .unwrap()
        .replace("../../config", &format!("{}/config", root().display()));
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changed nothing");
    let p = dir.join("t.yaml");
    std::fs::write(&p, edited).unwrap();
    Scenario::load(&p)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

const EDGE: &str = "          rising_edge:\n            predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }\n            timeout_s: 40.0";

#[test]
fn triggers_that_can_never_fire_are_refused_at_load() {
    let d = tempfile::tempdir().unwrap();
    let scan = "scan_loss_at_obstacle";
    // A rising edge needs a false step then a true one: never at 0 s.
    let e = load_test(d.path(), scan, |t| {
        t.replace("timeout_s: 40.0", "timeout_s: 0")
    });
    assert!(
        e.contains("t.yaml:30:13:") && e.contains("field 'tests[0].faults[0].trigger.rising_edge.timeout_s': must be finite and > 0 (s): a rising edge needs a false step"),
        "{e}"
    );
    // Above 0 but below the plant's 0.01 s step: still no second step.
    let e = load_test(d.path(), scan, |t| {
        t.replace("timeout_s: 40.0", "timeout_s: 0.005")
    });
    assert!(
        e.contains("t.yaml:30:13:") && e.contains("field 'tests[0].faults[0].trigger.rising_edge.timeout_s': 0.005 s is below the plant's step_s 0.01 s"),
        "{e}"
    );
    // A stable baseline held longer than its timeout.
    let e = load_test(d.path(), scan, |t| {
        t.replace(EDGE, "          stable_baseline:\n            predicate: { stopped: { source: truth, tolerance_m_s: 0.01 } }\n            for_s: 30.0\n            timeout_s: 20.0")
    });
    assert!(
        e.contains("t.yaml:30:13:") && e.contains("field 'tests[0].faults[0].trigger.stable_baseline.for_s': 30 s is beyond timeout_s 20 s"),
        "{e}"
    );
    // A second fault waiting on the first, the first on the second: a
    // 2-cycle (only the 1-cycle was refused), and a 3-cycle.
    let two = |t: String| {
        t.replace(EDGE, "          after_fault: { fault: odom_glitch, event: applied, delay_s: 0.0, timeout_s: 40.0 }")
            .replace(
                "    expectations:\n",
                "      - name: odom_glitch\n        channel: odom\n        mode: dropout\n        trigger:\n          after_fault: { fault: scan_loss, event: trigger, delay_s: 1.0, timeout_s: 40.0 }\n        duration_s: 1.0\n    expectations:\n",
            )
    };
    let e = load_test(d.path(), scan, two);
    assert!(
        e.contains("field 'tests[0].faults[0].trigger.after_fault.fault': a trigger cycle (scan_loss's trigger waits for odom_glitch's trigger waits for scan_loss's trigger) can never fire"),
        "{e}"
    );
    let three = |t: String| {
        t.replace(EDGE, "          after_fault: { fault: imu_glitch, event: cleared, delay_s: 0.0, timeout_s: 40.0 }")
            .replace(
                "    expectations:\n",
                "      - name: odom_glitch\n        channel: odom\n        mode: dropout\n        trigger:\n          after_fault: { fault: scan_loss, event: trigger, delay_s: 1.0, timeout_s: 40.0 }\n        duration_s: 1.0\n      - name: imu_glitch\n        channel: cmd_vel\n        mode: dropout\n        trigger:\n          after_fault: { fault: odom_glitch, event: applied, delay_s: 1.0, timeout_s: 40.0 }\n        duration_s: 1.0\n    expectations:\n",
            )
    };
    let e = load_test(d.path(), scan, three);
    assert!(
        e.contains("field 'tests[0].faults[0].trigger.after_fault.fault': a trigger cycle (scan_loss's trigger waits for imu_glitch's clear waits for imu_glitch's trigger waits for odom_glitch's trigger waits for scan_loss's trigger)"),
        "{e}"
    );
    // Waiting on the clear of a fault that lasts to the end of the run.
    let e = load_test(d.path(), "odom_lost_safe_stop", |t| {
        t.replace(
            "    expectations:\n",
            "      - name: scan_after\n        channel: scan\n        mode: dropout\n        trigger:\n          after_fault: { fault: odom_loss, event: cleared, delay_s: 0.0, timeout_s: 40.0 }\n        duration_s: 1.0\n    expectations:\n",
        )
    });
    assert!(
        e.contains("field 'tests[0].faults[1].trigger.after_fault.fault': waits for fault 'odom_loss' to be cleared, but it has no clear and no duration_s"),
        "{e}"
    );
    // A delay beyond the timeout.
    let e = load_test(d.path(), scan, |t| {
        t.replace(EDGE, "          after_fault: { fault: odom_glitch, event: applied, delay_s: 5.0, timeout_s: 4.0 }")
            .replace(
                "    expectations:\n",
                "      - name: odom_glitch\n        channel: odom\n        mode: dropout\n        trigger: { at_time: { t_s: 1.0 } }\n        duration_s: 1.0\n    expectations:\n",
            )
    });
    assert!(
        e.contains(
            "field 'tests[0].faults[0].trigger.after_fault.delay_s': 5 s is beyond timeout_s 4 s"
        ),
        "{e}"
    );
    // The same two faults in a chain (no cycle) load.
    let chain = load_test(d.path(), scan, |t| {
        t.replace(EDGE, "          after_fault: { fault: odom_glitch, event: cleared, delay_s: 0.5, timeout_s: 40.0 }")
            .replace(
                "    expectations:\n",
                "      - name: odom_glitch\n        channel: odom\n        mode: dropout\n        trigger: { at_time: { t_s: 1.0 } }\n        duration_s: 1.0\n    expectations:\n",
            )
    });
    assert_eq!(chain, "");
}

#[test]
fn windows_before_their_anchor_or_reversed_are_refused_at_load() {
    let d = tempfile::tempdir().unwrap();
    let e = load_test(d.path(), "odom_lost_safe_stop", |t| {
        t.replace("tol_s: 0.05 ", "tol_s: 0.6 ")
    });
    assert!(
        e.contains("t.yaml:40:11:") && e.contains("field 'tests[0].expectations[0].at.tol_s': 0.6 s is above at_s 0.5 s: the window [at_s - tol_s, at_s + tol_s] would reach before its anchor"),
        "{e}"
    );
    let span = |w: &'static str| {
        move |t: String| t.replace("window: { while_fault_active: scan_loss }", w)
    };
    for (w, what) in [
        (
            "window: { span: { from: { cleared: scan_loss }, until: { trigger: scan_loss } } }",
            r#"until {"trigger":"scan_loss"} cannot come after from {"cleared":"scan_loss"}"#,
        ),
        (
            "window: { span: { from: { applied: scan_loss }, until: { applied: scan_loss } } }",
            r#"until {"applied":"scan_loss"} cannot come after from {"applied":"scan_loss"}"#,
        ),
        (
            "window: { span: { from: { trigger: scan_loss }, until: run_start } }",
            r#"until "run_start" cannot come after from {"trigger":"scan_loss"}"#,
        ),
    ] {
        let e = load_test(d.path(), "scan_loss_at_obstacle", span(w));
        assert!(
            e.contains("field 'tests[0].expectations[6].never.window.span': ")
                && e.contains(what)
                && e.contains("trivially satisfied"),
            "{w}: {e}"
        );
    }
    // A forward span loads.
    let ok = load_test(
        d.path(),
        "scan_loss_at_obstacle",
        span("window: { span: { from: { trigger: scan_loss }, until: { cleared: scan_loss } } }"),
    );
    assert_eq!(ok, "");
}

/// The small study with `edit` applied to the file named `which` (0
/// scenario, 1 world, 2 robot, 3 navigator), all written to `dir`.
fn small_with(dir: &Path, which: usize, edit: impl Fn(String) -> String) -> PathBuf {
    let files = [
        "tests/data/small_study.yaml",
        "config/corridor.yaml",
        "config/robot.yaml",
        "config/navigator.yaml",
    ];
    let names = ["s.yaml", "world.yaml", "robot.yaml", "nav.yaml"];
    for (i, (f, n)) in files.iter().zip(names).enumerate() {
        let mut t = std::fs::read_to_string(root().join(f)).unwrap();
        if i == 0 {
            t = t
                .replace("../../config/corridor.yaml", "world.yaml")
                .replace("../../config/robot.yaml", "robot.yaml")
                .replace("../../config/navigator.yaml", "nav.yaml");
        }
        if i == which {
            let e = edit(t.clone());
            assert_ne!(e, t, "the edit changed nothing");
            t = e;
        }
        std::fs::write(dir.join(n), t).unwrap();
    }
    dir.join("s.yaml")
}

#[test]
fn configurations_under_which_no_nominal_run_can_succeed_are_refused_at_load() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(usize, &str, &str, &str)] = &[
        (
            1,
            "footprint_radius_m: 0.2",
            "footprint_radius_m: 0.25",
            "nav.yaml:8:1: field 'footprint_radius_m': 0.2 m is smaller than the world's robot (footprint_radius_m 0.25 m)",
        ),
        (
            3,
            "odom_timeout_s: 0.5 ",
            "odom_timeout_s: 0.02 ",
            "field 'odom_timeout_s': 0.02 s is not longer than the period 0.02 s of the robot's odometry.rate_hz 50",
        ),
        (
            3,
            "scan_timeout_s: 0.3 ",
            "scan_timeout_s: 0.05 ",
            "field 'scan_timeout_s': 0.05 s is not longer than the period 0.1 s of the robot's lidar.rate_hz 10",
        ),
        (
            3,
            "min_free_m: 0.3 ",
            "min_free_m: 1.5 ",
            "field 'min_free_m': 1.5 m is beyond lookahead_m 1 m",
        ),
        (
            0,
            "canary:",
            "navigator_axes:\n  - { name: gating, parameter: estimator_gating, values: [none, both] }\ncanary:",
            "s.yaml:26:21: field 'navigator_axes[0].parameter': 'estimator_gating' is read only with pose_source: estimator, and the navigator drives from wheel_odometry",
        ),
        (
            0,
            "canary:",
            "navigator_axes:\n  - { name: fp, parameter: footprint_radius_m, values: [\"0.2\", \"0.1\"] }\ncanary:",
            "field 'navigator_axes': with fp=0.1, the navigator's footprint_radius_m: 0.1 m is smaller than the world's robot",
        ),
    ];
    for (which, from, to, want) in cases {
        let p = small_with(d.path(), *which, |t| t.replacen(from, to, 1));
        let e = Scenario::load(&p).expect_err(to).to_string();
        assert!(e.contains(want), "{to}: {e}");
    }
}

/// A clearance threshold as wide as the corridor's gap (0.9 m beside the
/// box) loads, but every nominal run violates obstacle_clearance: the
/// campaign writes its results, reports a failed harness check naming the
/// invariant, and exits 1. With the shipped threshold the gate passes.
#[test]
fn a_campaign_whose_nominal_runs_fail_their_invariants_fails_its_harness_check() {
    let d = tempfile::tempdir().unwrap();
    let p = small_with(d.path(), 1, |t| {
        t.replace("clearance_threshold_m: 0.10", "clearance_threshold_m: 1.0")
    });
    let out = d.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["campaign", "--quiet", "--jobs", "2", "--out"])
        .arg(&out)
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: harness check failed: nominal gate: 3 of 3 fault-free runs of the nominal set fail their own invariants (obstacle_clearance failed in 3 (minimum clearance "),
        "{err}"
    );
    assert!(
        err.contains("the fault runs are no test of resilience"),
        "{err}"
    );
    assert!(out.join("summary.json").is_file() && out.join("junit.xml").is_file());
}
