//! Harness checks fail the command: a positive canary that does not detect
//! its violation makes `breakbench campaign` exit 1 (results still written),
//! and `analyze` refuses a manifest of another scenario with the check resume
//! applies.

use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::manifest::IsolationRecord;
use breakbench::campaign::plan::plan;
use breakbench::campaign::runner::{analyze, harness_failures, run_campaign, CampaignOptions};
use breakbench::campaign::store::load_campaign;
use breakbench::campaign::Scenario;

/// The small study with `edit` applied, absolute config paths, written to `dir/name`.
fn write_edited(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/tests/data/small_study.yaml"))
        .unwrap()
        .replace("../../config", &format!("{root}/config"));
    let edited = edit(text.clone());
    let p = dir.join(name);
    std::fs::write(&p, edited).unwrap();
    p
}

/// One repeat per cell: 4 grid + 3 nominal + 1 canary runs.
fn one_repeat(t: String) -> String {
    assert!(t.contains("repeats: 2"));
    t.replace("repeats: 2", "repeats: 1")
}

#[test]
fn a_canary_that_detects_nothing_fails_the_campaign_command() {
    let d = tempfile::tempdir().unwrap();
    // 0.01 m/s for 1 s: the canary creeps 1 cm and never reaches the box.
    let s = write_edited(d.path(), "s.yaml", |t| {
        let t = one_repeat(t);
        assert!(t.contains("canary: {linear_m_s: 0.3, duration_s: 20.0}"));
        t.replace(
            "canary: {linear_m_s: 0.3, duration_s: 20.0}",
            "canary: {linear_m_s: 0.01, duration_s: 1.0}",
        )
    });
    let out = d.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["campaign", "--quiet", "--jobs", "2", "--out"])
        .arg(&out)
        .arg(&s)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains(
            "error: harness check failed: canary: the positive canary canary_000 was not judged a safety violation"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(&out.join("manifests/canary_000.json").display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("1 harness check(s) failed"), "{stderr}");
    // The results are still written, and they say the same.
    for f in ["summary.json", "junit.xml", "report.html", "campaign.json"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let sum: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sum["canary"]["violation_detected"], false);
    assert_eq!(sum["corpus"]["manifests"], 8);
    // The shipped canary on the same plan passes: exit 0.
    let s_ok = write_edited(d.path(), "ok.yaml", one_repeat);
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["campaign", "--quiet", "--jobs", "2", "--out"])
        .arg(d.path().join("out_ok"))
        .arg(&s_ok)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn analyze_refuses_a_manifest_of_another_scenario_and_names_it() {
    let d = tempfile::tempdir().unwrap();
    let a = Scenario::load(&write_edited(d.path(), "a.yaml", one_repeat)).unwrap();
    // Same plan (ids, seeds, cells), another scenario: only the name differs.
    let b = Scenario::load(&write_edited(d.path(), "b.yaml", |t| {
        one_repeat(t).replace("name: small_study", "name: other_study")
    }))
    .unwrap();
    assert_ne!(a.hash, b.hash);
    assert_eq!(plan(&a), plan(&b));
    let opts = |dir: &str| CampaignOptions {
        out: d.path().join(dir),
        jobs: 2,
        progress: false,
        budget: Default::default(),
    };
    run_campaign(&a, &opts("a")).unwrap();
    run_campaign(&b, &opts("b")).unwrap();
    let id = &plan(&a)[2].run_id;
    let victim = d.path().join(format!("a/manifests/{id}.json"));
    std::fs::copy(d.path().join(format!("b/manifests/{id}.json")), &victim).unwrap();
    let e = analyze(&d.path().join("a")).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: made for another scenario (hash ",
            victim.display()
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!("this campaign: {})", &a.hash[..12])),
        "{e}"
    );
    // Resume refuses it too (its bytes are not the ledger's), naming it;
    // removed, the run is run again and analyze agrees again.
    let e = run_campaign(&a, &opts("a")).err().unwrap().to_string();
    assert!(
        e.starts_with(&format!("{}: sha256 ", victim.display())),
        "{e}"
    );
    std::fs::remove_file(&victim).unwrap();
    let r = run_campaign(&a, &opts("a")).unwrap();
    assert_eq!(r.timing.runs_executed, 1);
    assert!(r.harness_failures.is_empty(), "{:?}", r.harness_failures);
    analyze(&d.path().join("a")).unwrap();

    // A failed isolation record is a failed harness check naming the run.
    let (_, mut ms) = load_campaign(&d.path().join("a")).unwrap();
    assert!(harness_failures(&a.file, &d.path().join("a"), &ms).is_empty());
    ms[1].isolation = Some(IsolationRecord { passed: false });
    let f = harness_failures(&a.file, &d.path().join("a"), &ms);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with(&format!(
            "isolation: 1 run(s) changed verdict when the self-report was forced ({})",
            ms[1].run_id
        )),
        "{f:?}"
    );

    // A manifest of the same scenario filed under a run of another kind/seed.
    let ids: Vec<String> = plan(&a).into_iter().map(|r| r.run_id).collect();
    let nominal = ids.iter().find(|i| i.starts_with("nominal_")).unwrap();
    let mut m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(d.path().join(format!("a/manifests/{nominal}.json"))).unwrap(),
    )
    .unwrap();
    m["run_id"] = serde_json::json!(ids[0]);
    let victim = d.path().join(format!("a/manifests/{}.json", ids[0]));
    std::fs::write(&victim, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let e = analyze(&d.path().join("a")).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: holds another run than planned (Nominal, seed ",
            victim.display()
        )),
        "{e}"
    );
}
