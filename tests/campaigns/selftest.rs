//! The shipped self-test set of the injection mechanism
//! (scenarios/selftest/, seed 004 "Testy negatywne mechanizmu injection"):
//! every test gets the verdict class it declares under `self_test`, the
//! campaign's self-test check fails the command when one does not, and the
//! unknown target is refused at load with its file, line and field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::Scenario;
use breakbench_oracle::expect::VerdictClass;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/selftest");

fn campaign(file: &Path, out: &Path) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["campaign", "--quiet", "--jobs", "2", "--out"])
        .arg(out)
        .arg(file)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The shipped injection self-test with `edit` applied, written next to it
/// (so its relative paths hold) under a name of its own.
fn variant(tag: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(format!("{DIR}/injection.yaml")).unwrap();
    let p = Path::new(DIR).join(format!(".{tag}.tmp.yaml"));
    std::fs::write(&p, edit(text)).unwrap();
    p
}

/// Per test of summary.json: (verdict class → count of fault runs, the
/// self-test's `passed`).
fn classes(out: &Path) -> BTreeMap<String, (BTreeMap<String, u64>, bool)> {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    s["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let vc: BTreeMap<String, u64> =
                serde_json::from_value(t["verdict_classes"].clone()).unwrap();
            let nonzero = vc.into_iter().filter(|(_, n)| *n > 0).collect();
            (
                t["test"].as_str().unwrap().to_string(),
                (nonzero, t["self_test"]["passed"].as_bool().unwrap()),
            )
        })
        .collect()
}

#[test]
fn every_negative_test_gets_its_declared_class() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, stdout, stderr) = campaign(&Path::new(DIR).join("injection.yaml"), &out);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let want = [
        ("unsupported_mode", "unsupported"),
        ("ack_without_effect", "invalid"),
        ("clear_clears", "pass"),
        ("two_channels", "pass"),
        ("disabled_injector", "invalid"),
        ("trigger_never_fires", "precondition_failed"),
    ];
    let got = classes(&out);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (test, class) in want {
        let (vc, passed) = &got[test];
        assert_eq!(
            vc,
            &BTreeMap::from([(class.to_string(), 2)]),
            "{test}: {vc:?}"
        );
        assert!(passed, "{test}");
        assert!(
            stdout.contains(&format!("test {test} (SELFTEST-"))
                && stdout.contains(&format!("self-test (every fault run {class}): 2/2 ok")),
            "{stdout}"
        );
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("disabled_injector<br/>self-test: every fault run invalid, for the reason &apos;the injector was disabled&apos;, with scan_never_stale, mission_completes satisfied, the injector disabled: 2/2 met</td>"),
        "report.html"
    );
    // JUnit: a self-test's fault run that gets its declared class passes
    // (the invalid and unsupported runs it expects are not errors); only
    // baselines that are not pass would count, and every one passed; one
    // check case per self-test
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(junit.contains("failures=\"0\" errors=\"0\""), "{junit}");
    assert_eq!(
        junit
            .matches("classname=\"breakbench.checks\" name=\"self_test_")
            .count(),
        6
    );
    assert!(junit.contains("name=\"self_test_disabled_injector\" time=\"0.000000\"><system-out>every fault run invalid, for the reason &apos;the injector was disabled&apos;, with scan_never_stale, mission_completes satisfied, the injector disabled: 2/2 met</system-out>"), "{junit}");
    // the disabled injector changed nothing: its runs' trajectories are
    // their baselines' (same seed), bit for bit
    let m = |id: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("manifests/{id}.json"))).unwrap(),
        )
        .unwrap()
    };
    for r in 0..2 {
        let (t, b) = (
            m(&format!("test_disabled_injector_r{r}")),
            m(&format!("baseline_disabled_injector_r{r}")),
        );
        assert_eq!(t["trace_sha256"], b["trace_sha256"], "run {r}");
        assert_eq!(t["final_goal_distance_m"], b["final_goal_distance_m"]);
        assert_eq!(
            t["timeline"]["faults"][0]["t_applied"],
            serde_json::Value::Null
        );
    }
    // the manifest records what each fault withheld: the 4 s scan dropout
    // (10 Hz) 40 scans, the 1 s odometry dropout (50 Hz) 50 messages, and
    // nothing after either clear; the disabled injector set no fault
    let faults = &m("test_two_channels_r0")["faults"];
    let withheld: Vec<(String, u64, f64, f64)> = faults
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["axis"].as_str().unwrap().to_string(),
                f["messages_in"].as_u64().unwrap() - f["messages_out"].as_u64().unwrap(),
                f["first_applied_s"].as_f64().unwrap(),
                f["cleared_s"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        withheld,
        [
            ("two_channels.scan_loss".to_string(), 40, 5.0, 9.0),
            ("two_channels.odom_loss".to_string(), 50, 6.0, 7.0)
        ]
    );
    assert_eq!(
        m("test_disabled_injector_r0")["faults"],
        serde_json::json!([])
    );
    // ... while the same dropout with the injector enabled changes the run
    let c = m("test_clear_clears_r0");
    assert_ne!(
        c["trace_sha256"],
        m("baseline_clear_clears_r0")["trace_sha256"]
    );
}

#[test]
fn a_self_test_that_gets_another_class_fails_the_campaign() {
    // The disabled-injector test run with the injector enabled: the scan
    // goes stale, so its fault runs are `fail`, not the declared `invalid`.
    let p = variant("enabled", |t| {
        assert!(t.contains("      injector_enabled: false\n"));
        t.replace(
            "      injector_enabled: false\n",
            "      injector_enabled: true\n",
        )
    });
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, stdout, stderr) = campaign(&p, &out);
    std::fs::remove_file(&p).unwrap();
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("error: harness check failed: self-test 'disabled_injector': 2 of 2 fault run(s) do not meet its declaration (every fault run invalid, for the reason 'the injector was disabled', with scan_never_stale, mission_completes satisfied): test_disabled_injector_r0: expected invalid, got fail"),
        "{stderr}"
    );
    assert!(
        stdout.contains("self-test (every fault run invalid): 0/2 FAILED"),
        "{stdout}"
    );
    assert!(!classes(&out)["disabled_injector"].1);
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("with scan_never_stale, mission_completes satisfied: 0/2 met — FAILED"),
        "report.html"
    );
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<failure message=\"self-test: every fault run invalid, for the reason &apos;the injector was disabled&apos;, with scan_never_stale, mission_completes satisfied: 0/2 met\"/>")
            && junit.contains("<failure message=\"self-test: expected invalid, got fail"),
        "{junit}"
    );
    assert!(junit.contains("failures=\"3\""), "{junit}");
    assert_eq!(
        stderr.matches("harness check failed").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_self_test_invalid_for_another_reason_fails() {
    // `invalid` as declared, but the reason must be the declared one.
    let p = variant("reason", |t| {
        t.replace(
            "reason_contains: \"the injector was disabled\"",
            "reason_contains: \"real-time factor\"",
        )
    });
    let d = tempfile::tempdir().unwrap();
    let (code, _, stderr) = campaign(&p, &d.path().join("out"));
    std::fs::remove_file(&p).unwrap();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("invalid as declared, but for another reason: 'the injector was disabled' (declared: containing 'real-time factor')"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_target_is_refused_at_load() {
    let f = Path::new(DIR).join("unknown_channel.yaml");
    let e = Scenario::load(&f).unwrap_err().to_string();
    assert!(
        e.contains("unknown_channel.yaml:27:9: field 'tests[0].faults[0].channel': unknown channel 'lidar_front' (the in-process harness has odom, imu, gnss, scan, cmd_vel)"),
        "{e}"
    );
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, _, stderr) = campaign(&f, &out);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unknown channel 'lidar_front'"), "{stderr}");
    assert!(!out.exists(), "nothing runs on a refused file");
}

#[test]
fn self_test_fields_are_checked_at_load() {
    let p = variant("unknown_expectation", |t| {
        t.replace(
            "expect_satisfied: [scan_never_stale, mission_completes]",
            "expect_satisfied: [scan_never_stale, mission_complete]",
        )
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    let p2 = variant("unknown_class", |t| {
        t.replace("expect_class: pass }", "expect_class: passed }")
    });
    let e2 = Scenario::load(&p2).unwrap_err().to_string();
    std::fs::remove_file(&p).unwrap();
    std::fs::remove_file(&p2).unwrap();
    assert!(
        e.contains("field 'tests[4].self_test.expect_satisfied[1]': unknown expectation 'mission_complete' (the test has scan_never_stale, mission_completes)"),
        "{e}"
    );
    assert!(e2.contains("unknown variant `passed`"), "{e2}");
    // the class names are the manifests'
    assert_eq!(
        VerdictClass::PreconditionFailed.name(),
        "precondition_failed"
    );
}
