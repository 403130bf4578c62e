//! Tamper-evident results (REQ-CAMPAIGN-EVIDENCE), through the command line:
//! a verdict edited in one manifest is refused by resume and `analyze`
//! naming the manifest, with nothing rewritten; a manifest with an unknown
//! field and a campaign without its traces are refused; `analyze --verify`
//! catches a forged verdict even when the forger regenerated the ledger; a
//! resume after an interruption between a manifest and its ledger line runs
//! that run again; grid runs' manifests carry their faults' timeline.

use crate::common;
use common::root;
use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench_records::sha256_hex;
use serde_json::Value;

fn scenario() -> PathBuf {
    root().join("tests/data/small_study.yaml")
}

/// Runs `breakbench <args>`: (exit code, stdout, stderr).
fn bb(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(args)
        .output()
        .expect("running breakbench");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A finished small_study campaign in `out`.
fn campaign(out: &Path) -> (i32, String, String) {
    bb(&[
        "campaign",
        scenario().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ])
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn manifest(out: &Path, id: &str) -> PathBuf {
    out.join(format!("manifests/{id}.json"))
}

/// Flips `verdict.mission_completion_true_pose.holds` of run `id`, written
/// back as the campaign writes manifests (pretty JSON, final newline).
fn flip_mission(out: &Path, id: &str) -> bool {
    let p = manifest(out, id);
    let mut m: Value = serde_json::from_slice(&read(&p)).unwrap();
    let h = &mut m["verdict"]["mission_completion_true_pose"]["holds"];
    let was = h.as_bool().unwrap();
    *h = Value::Bool(!was);
    let mut b = serde_json::to_vec_pretty(&m).unwrap();
    b.push(b'\n');
    std::fs::write(&p, b).unwrap();
    was
}

/// What a forger who recomputes hashes does: a fresh ledger of every
/// manifest as it now is.
fn regenerate_ledger(out: &Path) {
    let mut ids: Vec<String> = std::fs::read_dir(out.join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    let text: String = ids
        .iter()
        .map(|f| {
            format!(
                "{}  manifests/{f}\n",
                sha256_hex(&read(&out.join("manifests").join(f)))
            )
        })
        .collect();
    std::fs::write(out.join("manifests.sha256"), text).unwrap();
}

#[test]
fn a_forged_verdict_is_refused_by_resume_and_analyze_naming_the_manifest() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c");
    let (code, _, err) = campaign(&out);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = bb(&["analyze", out.to_str().unwrap(), "--check"]);
    assert_eq!(code, 0, "{err}");
    // The ledger is sha256sum's format, one line per planned run.
    let ledger = String::from_utf8(read(&out.join("manifests.sha256"))).unwrap();
    assert_eq!(ledger.lines().count(), 12);
    let line = ledger
        .lines()
        .find(|l| l.ends_with("  manifests/nominal_000.json"))
        .unwrap();
    assert_eq!(
        &line[..64],
        sha256_hex(&read(&manifest(&out, "nominal_000")))
    );

    let summary = read(&out.join("summary.json"));
    assert!(
        flip_mission(&out, "nominal_000"),
        "the nominal run reached the goal"
    );
    let forged = read(&manifest(&out, "nominal_000"));
    let victim = manifest(&out, "nominal_000").display().to_string();
    // Resume refuses: exit 2, the manifest named, nothing rewritten.
    let (code, stdout, err) = campaign(&out);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(
        err.contains(&format!("{victim}: sha256 ")) && err.contains("the ledger"),
        "{err}"
    );
    assert!(!stdout.contains("manifests ("), "{stdout}");
    assert_eq!(read(&out.join("summary.json")), summary);
    assert_eq!(read(&manifest(&out, "nominal_000")), forged);
    assert_eq!(read(&out.join("manifests.sha256")), ledger.as_bytes());
    // analyze, --check and --write refuse alike.
    for extra in [None, Some("--check"), Some("--write")] {
        let mut args = vec!["analyze", out.to_str().unwrap()];
        args.extend(extra);
        let (code, stdout, err) = bb(&args);
        assert_eq!(code, 2, "{extra:?}: {stdout}{err}");
        assert!(err.contains(&format!("{victim}: sha256 ")), "{err}");
        assert!(stdout.is_empty(), "{stdout}");
    }
    assert_eq!(read(&out.join("summary.json")), summary);
}

#[test]
fn analyze_refuses_an_unknown_field_and_missing_traces() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c");
    assert_eq!(campaign(&out).0, 0);
    let dir = out.to_str().unwrap();
    let id = "grid_latency_s0.4_odom_bias0_r1";
    let p = manifest(&out, id);
    let original = read(&p);
    // An extra top-level field, with the ledger regenerated (so only the
    // field check can catch it): named with its line.
    let text = String::from_utf8(original.clone()).unwrap();
    std::fs::write(&p, text.replacen("{\n", "{\n  \"audited\": true,\n", 1)).unwrap();
    regenerate_ledger(&out);
    let (code, _, err) = bb(&["analyze", dir, "--check"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{}:2: field 'audited': unknown field of a manifest",
            p.display()
        )),
        "{err}"
    );
    // One deeper down, in a verdict predicate.
    let nested = text.replacen("\"holds\":", "\"note\": 1,\n      \"holds\":", 1);
    assert_ne!(nested, text);
    std::fs::write(&p, nested).unwrap();
    regenerate_ledger(&out);
    let (code, _, err) = bb(&["analyze", dir]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&p.display().to_string()) && err.contains("unknown field `note`"),
        "{err}"
    );
    std::fs::write(&p, &original).unwrap();
    regenerate_ledger(&out);
    assert_eq!(bb(&["analyze", dir, "--check"]).0, 0);

    // The traces deleted: the first planned run's trace is named missing.
    std::fs::remove_dir_all(out.join("traces")).unwrap();
    let (code, _, err) = bb(&["analyze", dir, "--check"]);
    assert_eq!(code, 2, "{err}");
    let first = out.join("traces/grid_latency_s0_odom_bias0_r0.csv");
    assert!(
        err.contains(&format!(
            "{}: trace of run grid_latency_s0_odom_bias0_r0 is missing",
            first.display()
        )),
        "{err}"
    );
}

#[test]
fn verify_catches_a_forged_verdict_whose_ledger_was_regenerated() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c");
    assert_eq!(campaign(&out).0, 0);
    let dir = out.to_str().unwrap();
    let sc = scenario();
    let verify = || {
        bb(&[
            "analyze",
            dir,
            "--verify",
            "--scenario",
            sc.to_str().unwrap(),
        ])
    };
    let (code, stdout, err) = verify();
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(
        stdout.contains("12 runs re-judged from their traces, 0 differ from their manifests"),
        "{stdout}"
    );
    // What the trace cannot re-judge is said per run.
    assert!(
        stdout.contains(
            "grid_latency_s0.4_odom_bias0.2_r1: re-judged from its trace: same verdict; not re-judged: faults (delivered values and message counts: the injector's)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("nominal_001: re-judged from its trace: same verdict\n"),
        "{stdout}"
    );

    // The forger edits a verdict, recomputes every hash and the summary:
    // the ledger, analyze --check and resume are all satisfied ...
    let id = "grid_latency_s0_odom_bias0.2_r0";
    let was = flip_mission(&out, id);
    regenerate_ledger(&out);
    assert_eq!(bb(&["analyze", dir, "--write"]).0, 0);
    assert_eq!(bb(&["analyze", dir, "--check"]).0, 0);
    assert_eq!(campaign(&out).0, 0);
    // ... but the verdict re-judged from the trace differs, named.
    let (code, stdout, err) = verify();
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(
        stdout.contains("12 runs re-judged from their traces, 1 differ from their manifests"),
        "{stdout}"
    );
    assert!(
        err.contains(&format!(
            "error: {}: the recorded verdict differs from the one re-judged from {}: verdict.mission_completion_true_pose.holds: manifest {}, re-judged {was}",
            manifest(&out, id).display(),
            out.join(format!("traces/{id}.csv")).display(),
            !was
        )),
        "{err}"
    );
    // Another scenario than the campaign's is refused, named.
    let other = d.path().join("other.yaml");
    let text = std::fs::read_to_string(&sc)
        .unwrap()
        .replace("name: small_study", "name: other")
        .replace("../../config/", &format!("{}/config/", root().display()));
    std::fs::write(&other, text).unwrap();
    let (code, _, err) = bb(&[
        "analyze",
        dir,
        "--verify",
        "--scenario",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{}: scenario hash ", other.display())),
        "{err}"
    );
}

#[test]
fn an_interrupted_ledger_append_reruns_that_run_and_grid_runs_have_timelines() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c");
    assert_eq!(campaign(&out).0, 0);
    let summary = read(&out.join("summary.json"));
    let ledger = String::from_utf8(read(&out.join("manifests.sha256"))).unwrap();
    // Killed after writing nominal_002's manifest and before its ledger line
    // was complete: the line cut short.
    let cut: String = ledger
        .lines()
        .filter(|l| !l.ends_with("manifests/nominal_002.json"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + "4be1";
    std::fs::write(out.join("manifests.sha256"), cut).unwrap();
    let (code, _, err) = bb(&["analyze", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "{}: no line in the ledger",
            manifest(&out, "nominal_002").display()
        )),
        "{err}"
    );
    let (code, _, err) = campaign(&out);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("rerunning 1 run(s), no line in manifests.sha256 (written when the campaign was interrupted): nominal_002"),
        "{err}"
    );
    let timing: Value = serde_json::from_slice(&read(&out.join("timing.json"))).unwrap();
    assert_eq!(timing["runs_executed"], 1);
    assert_eq!(timing["runs_resumed"], 11);
    assert_eq!(read(&out.join("summary.json")), summary);
    let again = String::from_utf8(read(&out.join("manifests.sha256"))).unwrap();
    assert_eq!(again.lines().count(), 12);
    assert_eq!(bb(&["analyze", out.to_str().unwrap(), "--check"]).0, 0);

    // A grid run's timeline: per axis, trigger and request at 0 s, applied
    // when its fault first touched a message, never cleared.
    let m: Value =
        serde_json::from_slice(&read(&manifest(&out, "grid_latency_s0.4_odom_bias0.2_r0")))
            .unwrap();
    let faults = m["timeline"]["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 2);
    for (tl, rec) in faults.iter().zip(m["faults"].as_array().unwrap()) {
        assert_eq!(tl["fault"], rec["axis"]);
        assert_eq!(tl["t_trigger"]["sim_s"], 0.0);
        assert_eq!(tl["t_requested"]["sim_s"], 0.0);
        assert_eq!(tl["t_applied"]["sim_s"], rec["first_applied_s"]);
        assert!(rec["first_applied_s"].as_f64().unwrap() > 0.0);
        assert_eq!(tl["injection_latency_s"], rec["first_applied_s"]);
        assert!(tl["t_cleared"].is_null());
    }
    let nominal: Value = serde_json::from_slice(&read(&manifest(&out, "nominal_000"))).unwrap();
    assert!(nominal.get("timeline").is_none());
}

#[test]
fn verify_says_what_a_resilience_test_run_cannot_re_judge() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("t");
    let sc = root().join("scenarios/tests/scan_loss_at_obstacle.yaml");
    let (code, _, err) = bb(&[
        "campaign",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, stdout, err) = bb(&[
        "analyze",
        out.to_str().unwrap(),
        "--verify",
        "--scenario",
        sc.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    let fault_run = stdout
        .lines()
        .find(|l| l.starts_with("test_scan_loss_at_obstacle_r0: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        fault_run,
        "test_scan_loss_at_obstacle_r0: re-judged from its trace: same verdict; not re-judged: verdict_class and expectations (they read cmd_vel, odometry, /diagnostics, /rosout and the injector's status, which the trace does not hold); faults (delivered values and message counts: the injector's)"
    );
    assert!(
        stdout.contains(" 0 differ from their manifests"),
        "{stdout}"
    );
}
