//! The resource budget: every plan is estimated from its files before
//! anything runs, and a plan above the budget is refused with the estimate
//! and the flag that raises the limit.

use crate::common;
use common::root;
use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::plan::plan;
use breakbench::campaign::run::RecordMode;
use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::{default_record_mode, Budget, Estimate, Scenario};

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

/// The recordings count in the bytes written (REQ-REC-POLICY): the
/// corridor study's full recordings, 60 s of 151 928 CDR bytes a second
/// (ground truth 50 Hz x 740 B; scan 10 Hz x (80 + 4 x 360) B and wheel
/// odometry 50 Hz x 740 B, each twice; /tf 50 Hz x 128 B; cmd_vel 20 Hz x
/// 52 B twice; /diagnostics 1 Hz x 2048 B) over
/// the ratio bound 4, plus 32 KiB a file, stay under the 256 MiB of the
/// `full` default; its `events` recordings, 12 events x 1 s of that.
#[test]
fn the_budget_counts_the_recordings_and_the_default_policy_follows_it() {
    let s = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    let e = Estimate::of(&s);
    assert_eq!(e.recording_bytes, 0);
    let full = e.with_recording(&s, RecordMode::Full);
    assert_eq!(full.recording_bytes, 106 * (60 * 151_928 / 4 + 32_768));
    assert_eq!(full.output_bytes, e.output_bytes + full.recording_bytes);
    let events = e.with_recording(&s, RecordMode::Events);
    assert_eq!(events.recording_bytes, 106 * (12 * 151_928 / 4 + 32_768));
    assert_eq!(e.with_recording(&s, RecordMode::None), e);
    assert_eq!(default_record_mode(&s), RecordMode::Full);
    // Four times the repeats: over 256 MiB of full recordings, so events.
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("scenarios/corridor_study.yaml"))
        .unwrap()
        .replace("../config", &format!("{}/config", root().display()))
        .replace("repeats: 5 ", "repeats: 20 ");
    let p = d.path().join("c.yaml");
    std::fs::write(&p, text).unwrap();
    assert_eq!(
        default_record_mode(&Scenario::load(&p).unwrap()),
        RecordMode::Events
    );
    // An over-budget refusal names the recordings' share.
    let tight = Budget {
        max_output_bytes: full.output_bytes - 1,
        ..Budget::default()
    };
    assert!(tight.check(&e).is_ok());
    let err = tight.check(&full).unwrap_err().to_string();
    assert!(
        err.contains(&format!("bytes written: estimated {}", full.output_bytes)),
        "{err}"
    );
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
    // 8 012 089 600 bytes of manifests, traces and report, and the default
    // `events` recordings (40 004 x 488 552 bytes, the budget test above).
    assert!(err.contains("bytes written: estimated 27556123808, limit 4294967296 (raise with --max-output-bytes N)"), "{err}");
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

/// `breakbench ARGS` under a 1 GiB address-space limit (prlimit), so a
/// refusal that materialised the plan first would die of it instead.
fn bb_limited(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let o = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_breakbench"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The small study with its `axes:` block replaced by `axes`.
fn with_axes(dir: &Path, axes: &str) -> PathBuf {
    small_edited(dir, |t| {
        let (a, b) = (t.find("axes:").unwrap(), t.find("nominal:").unwrap());
        format!("{}{axes}{}", &t[..a], &t[b..])
    })
}

/// `n` distinct values `step * i` as a YAML list.
fn values(n: usize, step: f64) -> String {
    let v: Vec<String> = (0..n).map(|i| format!("{}", step * i as f64)).collect();
    format!("[{}]", v.join(", "))
}

/// Plans of absurd declared size are refused from their list lengths, in
/// bounded memory, with the file, line and field (REQ-PLAN-SIZE): 8 axes x
/// 20 values on one channel get the per-channel error (once 6.5 GB and an
/// allocation failure), 5 navigator axes x 20 values the variant limit (once
/// 7.1 GB), a 5000-value list the list limit, axes whose product overflows
/// u64 the overflow, a 1e6-cell grid the budget, a 50 MB file the size cap.
#[test]
fn plan_sizes_are_checked_before_the_plan_is_built_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let run = |p: &Path| {
        bb_limited(&[
            "campaign".as_ref(),
            "--quiet".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
            p.as_os_str(),
        ])
    };
    let v20 = values(20, 0.01);
    let eight: String = (0..8)
        .map(|i| format!("  - {{name: a{i}, channel: scan, mode: delay, parameter: delay_s, values: {v20}}}\n"))
        .collect();
    let (code, err) = run(&with_axes(d.path(), &format!("axes:\n{eight}")));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.yaml:11:16: field 'axes[1].channel': channel 'scan' already carries axis 0 ('a0'); one fault axis per channel"),
        "{err}"
    );
    let nav: String = (0..5)
        .map(|i| {
            let v: Vec<String> = (0..20)
                .map(|j| format!("{}", 0.1 + 0.001 * j as f64))
                .collect();
            format!(
                "  - {{name: n{i}, parameter: goal_tolerance_m, values: [{}]}}\n",
                v.join(", ")
            )
        })
        .collect();
    let one = "axes:\n  - {name: a0, channel: scan, mode: delay, parameter: delay_s, values: [0.0, 0.1]}\n";
    let (code, err) = run(&with_axes(
        d.path(),
        &format!("{one}navigator_axes:\n{nav}"),
    ));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("field 'navigator_axes': 3200000 navigator variants (20 x 20 x 20 x 20 x 20), at most 1024"),
        "{err}"
    );
    let long = format!(
        "axes:\n  - {{name: a0, channel: scan, mode: delay, parameter: delay_s, values: {}}}\n",
        values(5000, 1e-5)
    );
    let (code, err) = run(&with_axes(d.path(), &long));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.yaml:10:64: field 'axes[0].values': 5000 values, at most 1000 per axis"),
        "{err}"
    );
    let v1000 = values(1000, 1e-4);
    let huge: String = (0..7)
        .map(|i| format!("  - {{name: a{i}, channel: c{i}, mode: delay, parameter: delay_s, values: {v1000}}}\n"))
        .collect();
    let (code, err) = run(&with_axes(d.path(), &format!("axes:\n{huge}")));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("field 'axes[6].values': the plan's cells overflow 2^64"),
        "{err}"
    );
    // 1000 x 1000 cells x 2 repeats: loads (nothing walks the grid), then
    // the budget refuses it before anything is created.
    let million = format!(
        "axes:\n  - {{name: a0, channel: scan, mode: delay, parameter: delay_s, values: {v1000}}}\n  - {{name: a1, channel: odom, mode: scale, parameter: scale_factor, offset: 1.0, values: {v1000}}}\n"
    );
    let (code, err) = run(&with_axes(d.path(), &million));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("runs: estimated 2000004, limit 20000 (raise with --max-runs N)"),
        "{err}"
    );
    assert!(!out.exists());
    // A 50 MB file is refused before it is read.
    let p = small_edited(d.path(), |t| t + &format!("# {}\n", "x".repeat(50 << 20)));
    let (code, err) = run(&p);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.yaml: ")
            && err.contains(" bytes, above the 1048576-byte limit of a scenario file: not read"),
        "{err}"
    );
}

/// The geometry cost is in the budget: the small study in a corridor with
/// 10 000 box obstacles (all in range, away from the path) is refused on
/// its ray-segment tests, 4 walls + 4 x 10 001 box edges per ray (REQ-PLAN-SIZE).
#[test]
fn obstacles_times_rays_are_in_the_budget() {
    let d = tempfile::tempdir().unwrap();
    let world = std::fs::read_to_string(root().join("config/corridor.yaml")).unwrap();
    let boxes: String = (0..10_000)
        .map(|i| {
            let (x, y) = (20.0 + (i % 100) as f64, 20.0 + (i / 100) as f64);
            format!(
                "  - {{name: b{i}, min_m: [{x}, {y}], max_m: [{}, {}]}}\n",
                x + 0.5,
                y + 0.5
            )
        })
        .collect();
    let world = world.replacen("obstacles:", &format!("obstacles:\n{boxes}"), 1);
    std::fs::write(d.path().join("w.yaml"), world).unwrap();
    let p = small_edited(d.path(), |t| {
        t.replace(
            &format!("{}/config/corridor.yaml", root().display()),
            &d.path().join("w.yaml").display().to_string(),
        )
    });
    let s = Scenario::load(&p).unwrap();
    let e = Estimate::of(&s);
    assert_eq!(e.runs, 12);
    assert_eq!(e.rays, 12 * 600 * 360);
    assert_eq!(e.ray_tests, e.rays * 40_008);
    let err = Budget::default().check(&e).unwrap_err().to_string();
    assert!(
        err.contains("ray-segment tests: estimated 103700736000, limit 100000000000 (raise with --max-ray-tests N)"),
        "{err}"
    );
    // The corridor itself: 8 segments per ray.
    let s = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    assert_eq!(Estimate::of(&s).ray_tests, 106 * 600 * 360 * 8);
}

/// The estimate counts every planned run, the resilience tests' baseline
/// and (phase-swept) fault runs included: equal to the plan's length for
/// every shipped campaign scenario.
#[test]
fn the_declared_size_is_the_plans_length_for_every_shipped_scenario() {
    let mut n = 0;
    for dir in [
        "scenarios",
        "scenarios/tests",
        "scenarios/studies",
        "scenarios/selftest",
        "scenarios/scale",
        "tests/graph",
        "tests/data",
    ] {
        for f in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = f.unwrap().path();
            // (kraken step files sit beside the scenarios)
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            // (unknown_channel.yaml is the shipped refusal case of scripts/test.sh)
            if p.extension().is_some_and(|e| e == "yaml")
                && text.contains("\nnominal:")
                && !p.ends_with("selftest/unknown_channel.yaml")
            {
                let s = Scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    Estimate::of(&s).runs,
                    plan(&s).len() as u64,
                    "{}",
                    p.display()
                );
                n += 1;
            }
        }
    }
    assert_eq!(
        n, 27,
        "campaign scenarios found (tests/data/sampled_study.yaml and rare_study.yaml are the 26th and 27th)"
    );
}

/// `bench --runs` runs each planned run at most once: more than the plan
/// has is refused (it once cycled the plan without a word).
#[test]
fn bench_refuses_more_runs_than_the_plan_has() {
    let (code, err) = bb_limited(&[
        "bench".as_ref(),
        "--runs".as_ref(),
        "1000000".as_ref(),
        root().join("tests/data/small_study.yaml").as_os_str(),
    ]);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("--runs 1000000: the plan of")
            && err
                .contains("has 12 runs and bench runs each at most once; give --runs 12 or fewer"),
        "{err}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["bench", "--runs", "2"])
        .arg(root().join("tests/data/small_study.yaml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && text.starts_with("bench: 2 runs, 120 s sim"),
        "{text}"
    );
}

/// A severity search is held to the budget before it probes anything:
/// (2 + steps) x repeats runs, 32 x 10 000 here (it once had no limit).
#[test]
fn a_search_over_the_budget_is_refused_before_it_runs() {
    let d = tempfile::tempdir().unwrap();
    let study = root().join("scenarios/studies/gnss_spoof_study.yaml");
    let text = std::fs::read_to_string(&study)
        .unwrap()
        .replace("../../config", &format!("{}/config", root().display()))
        .replace(
            "../tests/",
            &format!("{}/scenarios/tests/", root().display()),
        )
        .replacen(
            "repeats: 20\n    steps: 8",
            "repeats: 10000\n    steps: 30",
            1,
        );
    let p = d.path().join("s.yaml");
    std::fs::write(&p, text).unwrap();
    let out = d.path().join("out");
    let (code, err) = bb_limited(&[
        "search".as_ref(),
        "--quiet".as_ref(),
        "--name".as_ref(),
        "mahalanobis_ramp".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        p.as_os_str(),
    ]);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("320000 probe runs over the default budget")
            && err.contains("runs: estimated 320000, limit 20000"),
        "{err}"
    );
    assert!(!out.exists());
}
