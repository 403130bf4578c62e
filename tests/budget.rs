//! The resource budget: every plan is estimated from its files before
//! anything runs, and a plan above the budget is refused with the estimate
//! and the flag that raises the limit.

use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::plan::plan;
use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::{Budget, Estimate, Scenario};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The small study with `edit` applied and absolute config paths, in `dir`.
fn small_edited(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("tests/data/small_study.yaml"))
        .unwrap()
        .replace("../../config", &format!("{}/config", root().display()));
    let p = dir.join("s.yaml");
    std::fs::write(&p, edit(text)).unwrap();
    p
}

#[test]
fn the_corridor_study_is_well_inside_the_default_budget() {
    let s = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    let e = Estimate::of(&s);
    assert_eq!(e.runs, plan(&s).len() as u64);
    assert_eq!(e.runs, 106);
    // 60 s at 10 ms; 600 scans of 360 beams per run
    assert_eq!(e.sim_steps, 106 * 6000);
    assert_eq!(e.rays, 106 * 600 * 360);
    // 3001 trace rows of <= 64 B, a manifest and its share of the report
    assert_eq!(e.output_bytes, 106 * (3001 * 64 + 4096 + 4096) + (1 << 20));
    let b = Budget::default();
    assert!(e.runs * 100 < b.max_runs, "{e:?}");
    assert!(e.sim_steps * 1000 < b.max_sim_steps, "{e:?}");
    assert!(e.rays * 100 < b.max_rays, "{e:?}");
    assert!(e.output_bytes * 100 < b.max_output_bytes, "{e:?}");
    b.check(&e).unwrap();
}

#[test]
fn the_estimate_matches_what_a_campaign_does_and_writes() {
    let d = tempfile::tempdir().unwrap();
    let s = Scenario::load(&small_edited(d.path(), |t| {
        t.replace("repeats: 2", "repeats: 1")
    }))
    .unwrap();
    let e = Estimate::of(&s);
    let out = d.path().join("out");
    let r = run_campaign(
        &s,
        &CampaignOptions {
            out: out.clone(),
            jobs: 2,
            progress: false,
            budget: Budget::default(),
        },
    )
    .unwrap();
    assert_eq!(e.runs, r.summary.corpus.manifests);
    let steps = r.timing.sim_time_s / s.plant.step_s;
    assert!((steps - e.sim_steps as f64).abs() < 0.5, "{steps} vs {e:?}");
    let mut written = 0u64;
    for sub in ["manifests", "traces"] {
        for f in std::fs::read_dir(out.join(sub)).unwrap() {
            written += f.unwrap().metadata().unwrap().len();
        }
    }
    for f in [
        "report.html",
        "junit.xml",
        "summary.json",
        "campaign.json",
        "timing.json",
    ] {
        written += std::fs::metadata(out.join(f)).unwrap().len();
    }
    // An upper estimate, but not a wild one (the corridor rows are ~48 of the 64 B).
    assert!(written <= e.output_bytes, "{written} > {e:?}");
    assert!(written * 3 > e.output_bytes, "{written} vs {e:?}");
}

#[test]
fn a_plan_over_budget_is_refused_before_anything_runs_with_the_flag_to_raise() {
    let d = tempfile::tempdir().unwrap();
    // 4 cells x 10 000 repeats + 3 nominal + 1 canary = 40 004 runs.
    let s = small_edited(d.path(), |t| t.replace("repeats: 2", "repeats: 10000"));
    let out = d.path().join("out");
    let bb = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_breakbench"))
            .args(["campaign", "--quiet", "--out"])
            .arg(&out)
            .arg(&s)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = bb(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the plan is over its resource budget, nothing was run: runs: estimated 40004, limit 20000 (raise with --max-runs N)"),
        "{err}"
    );
    assert!(err.contains("bytes written: estimated 8012089600, limit 4294967296 (raise with --max-output-bytes N)"), "{err}");
    assert!(!out.exists(), "nothing is created for a refused plan");
    // Raising one limit leaves the other.
    let o = bb(&["--max-runs", "50000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("--max-runs N"), "{err}");
    assert!(err.contains("(raise with --max-output-bytes N)"), "{err}");
    assert!(
        err.contains(
            "Whole estimate: 40004 runs, 240024000 simulated steps, 8640864000 lidar rays"
        ),
        "{err}"
    );
    assert!(!out.exists());
}
