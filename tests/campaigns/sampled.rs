//! Sampled designs (REQ-STAT-SAMPLED): a Latin hypercube (and a Sobol'
//! design) of continuous fault ranges runs one cell per point, recorded in
//! campaign.json's plan and summary.json's `design.points`, with the same
//! summary bytes whatever the job count, across shards + merge, after a
//! resume and from `analyze`; the dose-response fit takes the points as
//! continuous covariates and takes s* at the other axis' reference.

use crate::common::root;
use std::path::Path;

use breakbench::campaign::merge::merge;
use breakbench::campaign::plan::{plan, Shard};
use breakbench::campaign::runner::{analyze, run_campaign, run_shard, CampaignOptions};
use breakbench::campaign::Scenario;

fn opts(out: &Path, jobs: usize) -> CampaignOptions {
    CampaignOptions {
        out: out.to_path_buf(),
        jobs,
        progress: false,
        budget: Default::default(),
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `tests/data/sampled_study.yaml` with `edit` applied (written beside it).
fn load(edit: impl Fn(String) -> String, name: &str) -> Scenario {
    let path = root().join("tests/data/sampled_study.yaml");
    let text = edit(std::fs::read_to_string(&path).unwrap());
    let p = path.with_file_name(format!(".{name}.tmp.yaml"));
    std::fs::write(&p, text).unwrap();
    let s = Scenario::load(&p);
    std::fs::remove_file(&p).unwrap();
    s.unwrap()
}

/// The strata (of `n`) of each axis' values over its range: each once.
fn one_point_per_stratum(s: &Scenario, n: usize) {
    let cells = s.cells();
    assert_eq!(cells.len(), n);
    for a in &s.file.axes {
        let r = a.range.unwrap();
        let mut strata: Vec<usize> = cells
            .iter()
            .map(|c| {
                let v = c[&a.name];
                assert!((r.min..=r.max).contains(&v), "{} = {v}", a.name);
                (((v - r.min) / (r.max - r.min) * n as f64) as usize).min(n - 1)
            })
            .collect();
        strata.sort_unstable();
        assert_eq!(strata, (0..n).collect::<Vec<_>>(), "{}", a.name);
    }
}

#[test]
fn a_sampled_design_runs_its_points_with_the_same_bytes_on_every_path() {
    let s = Scenario::load(&root().join("tests/data/sampled_study.yaml")).unwrap();
    one_point_per_stratum(&s, 20);
    let cells = s.cells();
    // the plan's grid runs carry the points, 2 repeats each, in the order drawn
    let p = plan(&s);
    let grid: Vec<_> = p.iter().filter(|r| r.run_id.starts_with("grid_")).collect();
    assert_eq!(grid.len(), 40);
    assert_eq!(
        grid[0].run_id,
        format!(
            "grid_latency_s{}_odom_bias{}_r0",
            cells[0]["latency_s"], cells[0]["odom_bias"]
        )
    );

    let d = tempfile::tempdir().unwrap();
    let single = d.path().join("single");
    let whole = run_campaign(&s, &opts(&single, 2)).unwrap();
    let sum = &whole.summary;
    assert_eq!(sum.cells.len(), 20);
    assert_eq!(sum.corpus.grid_runs, 40);
    assert_eq!(sum.corpus.grid_expected, 40);
    let json: serde_json::Value =
        serde_json::from_slice(&read(&single.join("summary.json"))).unwrap();
    let design = &json["design"];
    assert_eq!(design["kind"], "latin_hypercube");
    assert_eq!(
        (design["samples"].as_u64(), design["seed"].as_u64()),
        (Some(20), Some(3))
    );
    let points: Vec<std::collections::BTreeMap<String, f64>> =
        serde_json::from_value(design["points"].clone()).unwrap();
    assert_eq!(points, cells);
    for (c, pt) in sum.cells.iter().zip(&points) {
        assert_eq!(&c.axes, pt, "summary cells in the order drawn");
    }
    // campaign.json records the design as declared
    let cj = String::from_utf8(read(&single.join("campaign.json"))).unwrap();
    assert!(cj.contains("\"kind\": \"latin_hypercube\""), "{cj}");
    // the fit takes the points as continuous covariates; s* is taken at
    // the other axis' reference (its min: 0.55 s, bias 0)
    for m in &sum.dose_response {
        assert_eq!(m.cells, 20, "{}", m.predicate);
        assert_eq!(
            m.terms,
            ["intercept", "latency_s", "odom_bias", "latency_s:odom_bias"]
        );
        for st in &m.s_star {
            let (other, at) = if st.axis == "latency_s" {
                ("odom_bias", 0.0)
            } else {
                ("latency_s", 0.55)
            };
            let at = std::collections::BTreeMap::from([(other.to_string(), at)]);
            assert_eq!(st.at, at, "{}", m.predicate);
        }
        assert!(m.s_star.len() <= 2, "one s* per axis, not one per point");
        assert!(m.separated.len() <= 2);
    }
    let mut again = serde_json::to_vec_pretty(&analyze(&single).unwrap()).unwrap();
    again.push(b'\n');
    assert_eq!(again, read(&single.join("summary.json")), "analyze");

    // shards (jobs 1 each) and merge: the same bytes
    let dirs: Vec<_> = (0..3)
        .map(|index| {
            let dir = d.path().join(format!("shard{index}"));
            run_shard(&s, &opts(&dir, 1), Shard { index, count: 3 }).unwrap();
            dir
        })
        .collect();
    let merged = d.path().join("merged");
    merge(&dirs, &merged, None).unwrap();
    assert_eq!(
        read(&merged.join("summary.json")),
        read(&single.join("summary.json"))
    );

    // resume: two lost runs are rerun, the bytes are the same
    let before = read(&single.join("summary.json"));
    for r in [&grid[3], &grid[39]] {
        std::fs::remove_file(single.join(format!("manifests/{}.json", r.run_id))).unwrap();
    }
    std::fs::remove_file(single.join("summary.json")).unwrap();
    let r = run_campaign(&s, &opts(&single, 2)).unwrap();
    assert_eq!(r.timing.runs_executed, 2);
    assert_eq!(read(&single.join("summary.json")), before, "resume");
}

/// A Sobol' design of the same ranges: 16 points (a power of two), one per
/// stratum of each axis, another seed another (shifted) design; the plan
/// depends on the file alone.
#[test]
fn a_sobol_design_stratifies_each_axis_and_its_seed_shifts_it() {
    let sobol = |seed: u64| {
        load(
            |t| {
                t.replace(
                    "{kind: latin_hypercube, samples: 20, seed: 3}",
                    &format!("{{kind: sobol, samples: 16, seed: {seed}}}"),
                )
            },
            &format!("sobol{seed}"),
        )
    };
    let (a, b) = (sobol(1), sobol(2));
    one_point_per_stratum(&a, 16);
    one_point_per_stratum(&b, 16);
    assert_ne!(a.cells(), b.cells());
    assert_eq!(a.cells(), sobol(1).cells());
    assert_eq!(plan(&a), breakbench::campaign::plan::plan_file(&a.file));
}

/// A `rare_event:` scenario (REQ-STAT-RARE) on real corridor runs: 40
/// latencies drawn from the proposal N(0.62, 0.1) are its cells; summary.json's
/// `rare_event` weighs each run back to N(0.3, 0.1); the bytes are the same
/// with another job count and from `analyze`.
#[test]
fn a_rare_event_scenario_estimates_p_on_real_runs() {
    let s = Scenario::load(&root().join("tests/data/rare_study.yaml")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let sum = run_campaign(&s, &opts(&a, 2)).unwrap().summary;
    run_campaign(&s, &opts(&b, 1)).unwrap();
    assert_eq!(read(&a.join("summary.json")), read(&b.join("summary.json")));
    let mut again = serde_json::to_vec_pretty(&analyze(&a).unwrap()).unwrap();
    again.push(b'\n');
    assert_eq!(again, read(&a.join("summary.json")), "analyze");
    let r = sum.rare_event.expect("rare_event in summary.json");
    assert_eq!((r.runs, r.axis.as_str()), (40, "latency_s"));
    let k: u64 = sum.cells.iter().map(|c| c.safety.k).sum();
    assert_eq!(r.failures, k);
    // the proposal sits at the onset: failures are seen, and weighed back
    // to the operating spread P is rare
    assert!(r.failures >= 5, "{r:?}");
    assert!(
        r.p > 0.0 && r.p < 1e-2 && r.low <= r.p && r.p <= r.high,
        "{r:?}"
    );
    assert!(r.effective_runs >= 1.0 && r.effective_runs <= 40.0, "{r:?}");
    eprintln!(
        "rare_study: P = {:.3e}, 95 % [{:.3e}, {:.3e}], {} failures of 40 runs, ESS {:.1}, plain Monte Carlo needs {:.0} runs for this se",
        r.p,
        r.low,
        r.high,
        r.failures,
        r.effective_runs,
        r.monte_carlo_runs.unwrap_or(f64::NAN)
    );
}
