//! End-to-end campaign tests on the embedded plant: determinism across job
//! counts, resume after interruption, analyze, the canary and the study's
//! bias effect.

use std::path::{Path, PathBuf};

use breakbench::campaign::manifest::RunKind;
use breakbench::campaign::plan::plan;
use breakbench::campaign::runner::{analyze, run_campaign, CampaignOptions, CampaignResult};
use breakbench::campaign::store::load_campaign;
use breakbench::campaign::{Scenario, Summary};

fn small() -> Scenario {
    Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/small_study.yaml"))
        .unwrap()
}

/// Runs (or resumes) the campaign of `s` into `out`, without a progress bar.
fn campaign(s: &Scenario, out: &Path, jobs: usize) -> CampaignResult {
    run_campaign(
        s,
        &CampaignOptions {
            out: out.to_path_buf(),
            jobs,
            progress: false,
            budget: Default::default(),
        },
    )
    .unwrap()
}

/// [`campaign`] with its error.
fn try_campaign(
    s: &Scenario,
    out: &Path,
) -> Result<CampaignResult, breakbench::campaign::CampaignError> {
    run_campaign(
        s,
        &CampaignOptions {
            out: out.to_path_buf(),
            jobs: 1,
            progress: false,
            budget: Default::default(),
        },
    )
}

fn run(s: &Scenario, out: &Path, jobs: usize) -> Summary {
    campaign(s, out, jobs).summary
}

fn summary_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("summary.json")).unwrap()
}

#[test]
fn summary_is_byte_identical_whatever_the_job_count_and_analyze_reproduces_it() {
    let s = small();
    let d1 = tempfile::tempdir().unwrap();
    let d3 = tempfile::tempdir().unwrap();
    let sum = run(&s, d1.path(), 1);
    run(&s, d3.path(), 3);
    assert_eq!(summary_bytes(d1.path()), summary_bytes(d3.path()));
    // 4 cells x 2 repeats + 3 nominal + 1 canary
    assert_eq!(sum.corpus.manifests, 12);
    assert_eq!(sum.corpus.grid_runs, 8);
    assert_eq!(sum.corpus.corpus_runs, 11);
    let mut again = serde_json::to_vec_pretty(&analyze(d1.path()).unwrap()).unwrap();
    again.push(b'\n');
    assert_eq!(again, summary_bytes(d1.path()));
    for f in ["timing.json", "junit.xml", "report.html", "campaign.json"] {
        assert!(d1.path().join(f).is_file(), "{f} missing");
    }
}

#[test]
fn interrupted_campaign_resumes_without_duplicates_or_losses() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    run(&s, d.path(), 2);
    let before = summary_bytes(d.path());
    let ids: Vec<String> = plan(&s).into_iter().map(|r| r.run_id).collect();
    let mdir = d.path().join("manifests");
    let keep: PathBuf = mdir.join(format!("{}.json", ids[0]));
    let keep_bytes = std::fs::read(&keep).unwrap();
    // Simulate an interruption: two manifests never written, no summary yet.
    std::fs::remove_file(mdir.join(format!("{}.json", ids[3]))).unwrap();
    std::fs::remove_file(mdir.join(format!("{}.json", ids[ids.len() - 1]))).unwrap();
    std::fs::remove_file(d.path().join("summary.json")).unwrap();
    // analyze does not pass an interrupted campaign off as the whole one
    let e = analyze(d.path()).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            "2 of {} planned runs have no manifest (first: {}): resume the campaign",
            ids.len(),
            ids[3]
        )),
        "{e}"
    );
    let r = campaign(&s, d.path(), 2);
    assert_eq!(r.timing.runs_executed, 2);
    assert_eq!(r.timing.runs_resumed, ids.len() - 2);
    assert_eq!(summary_bytes(d.path()), before);
    // A completed run was not rerun (its manifest, wall time included, is untouched).
    assert_eq!(std::fs::read(&keep).unwrap(), keep_bytes);
    assert_eq!(std::fs::read_dir(&mdir).unwrap().count(), ids.len());

    // A run is complete only with its trace as its manifest hashed it: a
    // missing and a corrupted trace are both refused by resume and analyze,
    // naming the file, with nothing rewritten (REQ-CAMPAIGN-EVIDENCE).
    let tdir = d.path().join("traces");
    let (t1, t2) = (
        tdir.join(format!("{}.csv", ids[1])),
        tdir.join(format!("{}.csv", ids[2])),
    );
    let (b1, b2) = (std::fs::read(&t1).unwrap(), std::fs::read(&t2).unwrap());
    let ledger_before = std::fs::read(d.path().join("manifests.sha256")).unwrap();
    std::fs::remove_file(&t1).unwrap();
    let e = try_campaign(&s, d.path()).err().unwrap().to_string();
    assert_eq!(
        e,
        format!("{}: trace of run {} is missing", t1.display(), ids[1])
    );
    std::fs::write(&t1, &b1).unwrap();
    std::fs::write(&t2, b"garbage\n").unwrap();
    for e in [
        try_campaign(&s, d.path()).err().unwrap().to_string(),
        analyze(d.path()).unwrap_err().to_string(),
    ] {
        assert!(
            e.starts_with(&format!(
                "{}: trace of run {} has sha256 ",
                t2.display(),
                ids[2]
            )),
            "{e}"
        );
    }
    assert_eq!(summary_bytes(d.path()), before);
    assert_eq!(
        std::fs::read(d.path().join("manifests.sha256")).unwrap(),
        ledger_before
    );
    std::fs::write(&t2, &b2).unwrap();
    let r = campaign(&s, d.path(), 1);
    assert_eq!(r.timing.runs_executed, 0);
    assert_eq!(summary_bytes(d.path()), before);

    // A manifest copied over another run's: analyze refuses the directory
    // naming what it holds, resume refuses it (its bytes are not the
    // ledger's); removed, the run is run again and is the original run.
    let victim = mdir.join(format!("{}.json", ids[4]));
    let original = std::fs::read(&victim).unwrap();
    std::fs::copy(&keep, &victim).unwrap();
    let e = analyze(d.path()).unwrap_err().to_string();
    assert!(
        e.contains(&format!("holds run '{}', not '{}'", ids[0], ids[4])),
        "{e}"
    );
    let e = try_campaign(&s, d.path()).err().unwrap().to_string();
    assert!(
        e.starts_with(&format!("{}: sha256 ", victim.display())),
        "{e}"
    );
    std::fs::remove_file(&victim).unwrap();
    let r = campaign(&s, d.path(), 1);
    assert_eq!(r.timing.runs_executed, 1);
    let rewritten: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&victim).unwrap()).unwrap();
    assert_eq!(rewritten["run_id"], ids[4].as_str());
    let orig: serde_json::Value = serde_json::from_slice(&original).unwrap();
    assert_eq!(rewritten["verdict"], orig["verdict"]);
    assert_eq!(summary_bytes(d.path()), before);
    // The ledger again holds one line per planned run, in plan order.
    let ledger = std::fs::read_to_string(d.path().join("manifests.sha256")).unwrap();
    let files: Vec<&str> = ledger.lines().map(|l| &l[66..]).collect();
    let want: Vec<String> = ids.iter().map(|i| format!("manifests/{i}.json")).collect();
    assert_eq!(files, want);
}

#[test]
fn a_directory_of_another_scenario_is_refused() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    run(&s, d.path(), 2);
    let mut other = s.clone();
    other.hash = "0".repeat(64);
    let e = run_campaign(
        &other,
        &CampaignOptions {
            out: d.path().to_path_buf(),
            jobs: 1,
            progress: false,
            budget: Default::default(),
        },
    )
    .err()
    .expect("must refuse");
    assert!(e.to_string().contains("use another --out directory"), "{e}");
}

#[test]
fn canary_is_detected_and_excluded_and_bias_fails_the_mission() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    let sum = run(&s, d.path(), 2);
    assert!(sum.canary.violation_detected);
    assert_eq!(sum.canary.runs, 1);
    assert!(sum.isolation.passed);
    assert_eq!(sum.isolation.runs_checked, 12);
    let (_, ms) = load_campaign(d.path()).unwrap();
    let canary = ms.iter().find(|m| m.kind == RunKind::Canary).unwrap();
    assert!(canary.harness_only);
    assert!(!canary.verdict.obstacle_clearance.holds);
    assert!(
        canary.verdict.obstacle_clearance.value <= 1e-9,
        "canary min clearance {}",
        canary.verdict.obstacle_clearance.value
    );
    // Nominal cell: the navigator reaches the goal; 20 % odometry bias: it stops short.
    let cell = |lat: f64, bias: f64| {
        sum.cells
            .iter()
            .find(|c| c.axes["latency_s"] == lat && c.axes["odom_bias"] == bias)
            .unwrap()
            .clone()
    };
    assert_eq!(cell(0.0, 0.0).mission.k, 0);
    assert_eq!(cell(0.0, 0.2).mission.k, 2);
    // Delivered fault values are measured at the apply site.
    let c = cell(0.4, 0.2);
    assert!((c.delivered["latency_s"].unwrap() - 0.4).abs() < 1e-9);
    assert!((c.delivered["odom_bias"].unwrap() - 0.2).abs() < 1e-9);
    // REQ-STAT-MARGIN: every judged run records the oracle's margins, the
    // region's equal to its verdict's value, the clearance's its value less
    // the world's 0.10 m threshold; the canary's clearance margin is negative
    let world = &s.world;
    for m in ms.iter() {
        assert_eq!(
            m.margins["operating_region_containment"],
            m.verdict.operating_region_containment.value
        );
        // (to 1e-12: both are read back from the manifest's JSON text)
        let want = m.verdict.obstacle_clearance.value - world.clearance_threshold_m;
        assert!((m.margins["obstacle_clearance"] - want).abs() < 1e-12);
        // the goal margin is >= 0 exactly when the goal disc was entered
        assert_eq!(
            m.margins["mission_completion_true_pose"] >= 0.0,
            m.verdict.mission_completion_true_pose.value >= 0.0,
            "{}",
            m.run_id
        );
    }
    assert!(canary.margins["obstacle_clearance"] < 0.0);
    // per cell: each margin's statistics over its 2 runs, m(q) their minimum
    // (q = 0.05 by default); 2 runs bound nothing: 59 are needed for 95/95
    let mc = &c.margins["obstacle_clearance"];
    assert_eq!(mc.n, 2);
    assert_eq!(mc.quantile_m, mc.min_m);
    assert_eq!((mc.tolerance_bound_m, mc.runs_needed), (None, 59));
    assert!(c.sub_margin_joint.is_some_and(|j| j <= 2));
    // one dose-response model per predicate; the statistics' defaults recorded
    assert_eq!(sum.dose_response.len(), 2);
    assert_eq!(sum.statistics.p_star, 0.05);
    assert!(sum
        .cells
        .iter()
        .all(|c| c.safety.clopper_pearson_low.is_none()));
}

/// `campaign --record-provenance` (REQ-FAULT-PROVENANCE): every run gets
/// `provenance/<run_id>.csv`, the results are those of a campaign without
/// it, a scan delay cell lists each delayed scan released `delay_s` after
/// it was received, an odometry-scale cell lists each changed odometry
/// message, a nominal run lists nothing, and a run whose record is missing
/// is refused on resume naming the file (run again once its manifest is removed).
#[test]
fn record_provenance_lists_the_touched_messages_and_changes_no_result() {
    use breakbench::campaign::executor::InProcess;
    use breakbench::campaign::runner::run_campaign_on;
    let s = Scenario::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/graph/corridor_subset.yaml"),
    )
    .unwrap();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (plain, rec) = (d1.path().to_path_buf(), d2.path().to_path_buf());
    let opts = |out: &Path| CampaignOptions {
        out: out.to_path_buf(),
        jobs: 2,
        progress: false,
        budget: Default::default(),
    };
    run_campaign(&s, &opts(&plain)).unwrap();
    let recording = InProcess {
        record_provenance: true,
        record_mcap: breakbench::campaign::run::RecordMode::None,
    };
    run_campaign_on(&s, &opts(&rec), &recording).unwrap();
    assert_eq!(summary_bytes(&plain), summary_bytes(&rec));
    assert!(!plain.join("provenance").exists());
    for r in plan(&s) {
        let m = |d: &Path| std::fs::read(d.join(format!("traces/{}.csv", r.run_id))).unwrap();
        assert_eq!(m(&plain), m(&rec), "{}: trace differs", r.run_id);
    }
    let rows = |id: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(rec.join(format!("provenance/{id}.csv"))).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("channel,seq,received_s,output,released_s,changed,faults")
        );
        lines
            .map(|l| {
                l.split(',')
                    .map(|f| f.trim_matches('"').to_string())
                    .collect()
            })
            .collect()
    };
    assert!(rows("nominal_000").is_empty());
    // latency_s 0.4: every scan delayed by exactly 0.4 s, unchanged.
    let delayed = rows("grid_latency_s0.4_odom_bias0_r0");
    assert!(delayed.len() > 100, "{}", delayed.len());
    for r in &delayed {
        assert_eq!(
            (r[0].as_str(), r[3].as_str(), r[5].as_str()),
            ("scan", "0", "0")
        );
        assert_eq!(r[6], "delay");
        let (rx, rel): (f64, f64) = (r[2].parse().unwrap(), r[4].parse().unwrap());
        assert!((rel - rx - 0.4).abs() < 1e-9, "{r:?}");
    }
    // consecutive scans: input indices 0, 1, 2, ...
    let seqs: Vec<u64> = delayed.iter().map(|r| r[1].parse().unwrap()).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    // odom_bias 0.2: odometry scaled, released at once, changed.
    let scaled = rows("grid_latency_s0_odom_bias0.2_r0");
    assert!(scaled.len() > 100, "{}", scaled.len());
    assert!(scaled
        .iter()
        .all(|r| r[0] == "odom" && r[2] == r[4] && r[5] == "1" && r[6] == "scale"));

    // Resume: a run whose record is missing is refused naming it; with its
    // manifest removed too, that one run runs again.
    let victim = rec.join("provenance/grid_latency_s0.4_odom_bias0_r0.csv");
    let before = std::fs::read(&victim).unwrap();
    std::fs::remove_file(&victim).unwrap();
    let e = run_campaign_on(&s, &opts(&rec), &recording)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}: provenance record of run grid_latency_s0.4_odom_bias0_r0 is missing",
            victim.display()
        )
    );
    std::fs::remove_file(rec.join("manifests/grid_latency_s0.4_odom_bias0_r0.json")).unwrap();
    let other = rec.join("manifests/nominal_000.json");
    let other_mtime = std::fs::metadata(&other).unwrap().modified().unwrap();
    run_campaign_on(&s, &opts(&rec), &recording).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&other).unwrap().modified().unwrap(),
        other_mtime,
        "a run with its record was reused"
    );
    assert_eq!(summary_bytes(&plain), summary_bytes(&rec));
}

/// `design: pairwise` (REQ-STAT-PAIRWISE): the campaign runs the covering
/// array's cells only, every pair of values of every two axes among them,
/// and summary.json says so; with two axes it is refused at load.
#[test]
fn a_pairwise_design_runs_a_covering_array_of_cells() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pairwise_study.yaml");
    let s = Scenario::load(&path).unwrap();
    assert_eq!(s.cells().len(), 10, "10 cells, not the grid's 27");
    let d = tempfile::tempdir().unwrap();
    let sum = run(&s, d.path(), 2);
    assert_eq!(sum.cells.len(), 10);
    assert_eq!(sum.corpus.grid_runs, 10);
    assert_eq!(sum.corpus.grid_expected, 10);
    let axes = ["latency_s", "odom_bias", "drive_scale"];
    for (i, a) in axes.iter().enumerate() {
        for b in &axes[i + 1..] {
            let va = &s.file.axes.iter().find(|x| x.name == *a).unwrap().values;
            let vb = &s.file.axes.iter().find(|x| x.name == *b).unwrap().values;
            for x in va {
                for y in vb {
                    assert!(
                        sum.cells
                            .iter()
                            .any(|c| c.axes[*a] == *x && c.axes[*b] == *y),
                        "pair {a}={x}, {b}={y} not covered"
                    );
                }
            }
        }
    }
    let json = String::from_utf8(summary_bytes(d.path())).unwrap();
    assert!(json.contains("\"design\": \"pairwise\""));
    // two axes: the pairs are the grid
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("  - name: drive_scale\n    channel: cmd_vel\n    mode: scale\n    parameter: scale_factor\n    offset: 0.0\n    values: [1.0, 0.8, -1.0]\n", "");
    let two = path.with_file_name(".pairwise_two.tmp.yaml");
    std::fs::write(&two, text).unwrap();
    let e = Scenario::load(&two).unwrap_err().to_string();
    std::fs::remove_file(&two).unwrap();
    assert!(
        e.contains("field 'design': pairwise needs three or more axes (fault and navigator axes together); with 2 it is the full grid"),
        "{e}"
    );
}
