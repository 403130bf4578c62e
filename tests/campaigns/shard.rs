//! Sharded campaigns: the plan's slices (`--shard K/N`), the shard index from
//! a cluster's environment, and `merge`: byte-identical summary.json to the
//! unsharded campaign, resume per shard, and the refusals (missing run,
//! duplicated run, another scenario hash, another build, a shard's
//! campaign.json unlike the first shard's).

use crate::common;
use common::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use breakbench::campaign::compact_plan::CompactPlan;
use breakbench::campaign::manifest::{Manifest, RunKind};
use breakbench::campaign::merge::merge;
use breakbench::campaign::outputs::{junit, junit_of_runs};
use breakbench::campaign::plan::{plan, Shard};
use breakbench::campaign::report::render_html;
use breakbench::campaign::run_digest::RunSet;
use breakbench::campaign::runner::{
    analyze, harness_failures, run_campaign, run_shard, CampaignOptions,
};
use breakbench::campaign::store::{load_campaign, PlanRef};
use breakbench::campaign::summary::Summary;
use breakbench::campaign::summary_stream::SummaryStream;
use breakbench::campaign::{Estimate, Scenario};

fn small() -> Scenario {
    Scenario::load(&root().join("tests/data/small_study.yaml")).unwrap()
}

fn opts(out: &Path, jobs: usize) -> CampaignOptions {
    CampaignOptions {
        out: out.to_path_buf(),
        jobs,
        progress: false,
        budget: Default::default(),
    }
}

/// Runs every shard of `count` of `s` into `<base>/shard<k>`.
fn shards(s: &Scenario, base: &Path, count: usize) -> Vec<PathBuf> {
    (0..count)
        .map(|index| {
            let d = base.join(format!("shard{index}"));
            let r = run_shard(s, &opts(&d, 1), Shard { index, count }).unwrap();
            assert!(r.harness_failures.is_empty(), "{:?}", r.harness_failures);
            d
        })
        .collect()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Copies the shard directory `src` to `dst` (its files, not its lock).
fn copy_shard(src: &Path, dst: &Path) {
    for sub in ["manifests", "traces"] {
        std::fs::create_dir_all(dst.join(sub)).unwrap();
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(sub).join(e.file_name())).unwrap();
        }
    }
    for f in [
        "campaign.json",
        "timing.json",
        "shard.json",
        "manifests.sha256",
    ] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn plan_slices_are_disjoint_cover_the_plan_and_mix_the_cells() {
    let corridor = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    for s in [small(), corridor] {
        let p = plan(&s);
        let total = p.len();
        for count in [1, 2, 3, 4, 7, total, total + 5] {
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            let mut sizes = Vec::new();
            for index in 0..count {
                let sh = Shard { index, count };
                let slice = sh.slice(&p);
                assert_eq!(slice.len() as u64, sh.len_of(total as u64), "{sh}");
                sizes.push(slice.len());
                // In plan order.
                let pos: Vec<usize> = slice
                    .iter()
                    .map(|r| p.iter().position(|q| q.run_id == r.run_id).unwrap())
                    .collect();
                assert!(pos.windows(2).all(|w| w[0] < w[1]), "{sh}: {pos:?}");
                for r in slice {
                    *seen.entry(r.run_id.clone()).or_default() += 1;
                }
            }
            // Disjoint and covering: every planned run exactly once, nothing else.
            assert_eq!(seen.len(), total, "{count} shards");
            assert!(seen.values().all(|&n| n == 1), "{count} shards: {seen:?}");
            assert!(p.iter().all(|r| seen.contains_key(&r.run_id)));
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{count} shards: sizes {sizes:?}");
        }
    }
    // The merge's compact plan (REQ-SCALE-STREAM) gives back every planned
    // run, its id and its position, for a grid, navigator axes, a phase
    // sweep; and its plan reference is the digest of the ids, one a line
    // (REQ-SCALE-MERGE: what a shard's campaign.json names).
    for (f, shapes) in [
        ("scenarios/corridor_study.yaml", 18),
        ("scenarios/studies/corridor_estimator_study.yaml", 0),
        ("scenarios/tests/scan_loss_phase_sweep.yaml", 0),
    ] {
        let s = Scenario::load(&root().join(f)).unwrap();
        let p = plan(&s);
        let ids: Vec<String> = p.iter().map(|r| r.run_id.clone()).collect();
        let cp = CompactPlan::new(&s.file);
        assert_eq!(cp.len(), p.len(), "{f}");
        for (i, r) in p.iter().enumerate() {
            assert_eq!(cp.spec(i), *r, "{f}");
            assert_eq!(cp.id(i), r.run_id, "{f}");
            assert_eq!(cp.position(&r.run_id), Some(i), "{f}");
        }
        assert!(cp.ids().eq(ids.iter().map(String::as_str)), "{f}");
        assert_eq!(cp.position("grid_nonesuch_r0"), None);
        if shapes > 0 {
            assert_eq!(cp.shapes(), shapes, "{f}");
        }
        let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let want = PlanRef {
            runs: ids.len(),
            sha256: breakbench_records::sha256_hex(text.as_bytes()),
        };
        assert_eq!(cp.plan_ref(), want, "{f}");
        assert_eq!(PlanRef::of(ids.iter().map(String::as_str)), want, "{f}");
        let mut wrong = ids.clone();
        wrong.swap(0, 1);
        assert_ne!(PlanRef::of(wrong.iter().map(String::as_str)), want, "{f}");
    }
    // The corridor study (16 cells x 5 repeats, 25 nominal, 1 canary = 106
    // runs) in 4 shards: 27, 27, 26, 26 runs, each with grid runs of all 16
    // cells (5 consecutive plan positions per cell), so of every latency, and
    // nominal runs.
    let corridor = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    let p = plan(&corridor);
    assert_eq!(p.len(), 106);
    for index in 0..4 {
        let sl = Shard { index, count: 4 }.slice(&p);
        assert_eq!(sl.len(), [27, 27, 26, 26][index]);
        let cells: BTreeSet<String> = sl
            .iter()
            .filter(|r| r.kind == RunKind::Grid)
            .map(|r| format!("{:?}", r.cell()))
            .collect();
        assert_eq!(cells.len(), 16, "shard {index}");
        let latencies: BTreeSet<String> = sl
            .iter()
            .filter(|r| r.kind == RunKind::Grid)
            .map(|r| r.faults["latency_s"].to_string())
            .collect();
        assert_eq!(latencies.len(), 4, "shard {index}: {latencies:?}");
        assert!(sl.iter().any(|r| r.kind == RunKind::Nominal));
    }
    // The budget of a shard is its slice's share.
    let whole = Estimate::of(&corridor);
    let part = Estimate::of_shard(&corridor, &Shard { index: 3, count: 4 });
    assert_eq!(part.runs, 26);
    assert_eq!(part.sim_steps, whole.sim_steps / 106 * 26);
}

#[test]
fn shard_spec_from_the_command_line_and_the_cluster_environment() {
    assert_eq!(
        Shard::parse("2/4", no_env).unwrap(),
        Shard { index: 2, count: 4 }
    );
    assert_eq!(
        Shard::parse("0/1", no_env).unwrap(),
        Shard { index: 0, count: 1 }
    );
    let k8s = |v: &str| (v == "JOB_COMPLETION_INDEX").then(|| "3".to_string());
    assert_eq!(
        Shard::parse("auto/4", k8s).unwrap(),
        Shard { index: 3, count: 4 }
    );
    let slurm = |v: &str| (v == "SLURM_ARRAY_TASK_ID").then(|| "1".to_string());
    assert_eq!(
        Shard::parse("auto/4", slurm).unwrap(),
        Shard { index: 1, count: 4 }
    );
    let both_agree = |_: &str| Some("2".to_string());
    assert_eq!(
        Shard::parse("auto/3", both_agree).unwrap(),
        Shard { index: 2, count: 3 }
    );

    let err = |spec: &str, env: &dyn Fn(&str) -> Option<String>| {
        Shard::parse(spec, env).unwrap_err().to_string()
    };
    let e = err("4/4", &no_env);
    assert!(e.contains("K = \"4\"") && e.contains("0..=3"), "{e}");
    let e = err("x/4", &no_env);
    assert!(e.contains("K = \"x\""), "{e}");
    let e = err("1/0", &no_env);
    assert!(e.contains("N = \"0\"") && e.contains("at least 1"), "{e}");
    let e = err("3", &no_env);
    assert!(e.contains("expected K/N"), "{e}");
    let e = err("auto/4", &no_env);
    assert!(
        e.contains("neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set"),
        "{e}"
    );
    let k8s_big = |v: &str| (v == "JOB_COMPLETION_INDEX").then(|| "7".to_string());
    let e = err("auto/4", &k8s_big);
    assert!(
        e.contains("--shard \"auto/4\": JOB_COMPLETION_INDEX = \"7\"") && e.contains("0..=3"),
        "{e}"
    );
    let slurm_bad = |v: &str| (v == "SLURM_ARRAY_TASK_ID").then(|| "one".to_string());
    let e = err("auto/4", &slurm_bad);
    assert!(e.contains("SLURM_ARRAY_TASK_ID = \"one\""), "{e}");
    let disagree = |v: &str| {
        Some(
            if v == "JOB_COMPLETION_INDEX" {
                "0"
            } else {
                "1"
            }
            .to_string(),
        )
    };
    let e = err("auto/4", &disagree);
    assert!(
        e.contains("JOB_COMPLETION_INDEX = \"0\"")
            && e.contains("SLURM_ARRAY_TASK_ID = \"1\"")
            && e.contains("disagree"),
        "{e}"
    );
}

#[test]
fn merged_shards_equal_the_single_campaign_byte_for_byte_and_resume_per_shard() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    let single = d.path().join("single");
    let whole = run_campaign(&s, &opts(&single, 2)).unwrap();
    assert!(whole.harness_failures.is_empty());
    let dirs = shards(&s, d.path(), 3);
    // A shard holds its slice only, and no summary.
    let ids: Vec<String> = plan(&s).into_iter().map(|r| r.run_id).collect();
    for (k, dir) in dirs.iter().enumerate() {
        let held: Vec<String> = std::fs::read_dir(dir.join("manifests"))
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .replace(".json", "")
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let want: BTreeSet<String> = ids.iter().skip(k).step_by(3).cloned().collect();
        assert_eq!(held, want.into_iter().collect::<Vec<_>>(), "shard {k}");
        assert!(!dir.join("summary.json").exists());
        let sf: serde_json::Value = serde_json::from_slice(&read(&dir.join("shard.json"))).unwrap();
        assert_eq!(sf["shard"]["index"], k);
        assert_eq!(sf["shard"]["count"], 3);
        assert_eq!(sf["scenario_hash"], s.hash.as_str());
        assert!(sf["provenance"]["git_commit"].is_string());
        // a shard alone is not a campaign: analyze refuses it
        let e = analyze(dir).unwrap_err().to_string();
        assert!(
            e.contains(&format!("holds shard {k}/3 ("))
                && e.contains("merge the shards with `breakbench merge"),
            "{e}"
        );
    }

    let merged = d.path().join("merged");
    let r = merge(&dirs, &merged, None).unwrap();
    assert!(r.harness_failures.is_empty(), "{:?}", r.harness_failures);
    assert_eq!(
        read(&merged.join("summary.json")),
        read(&single.join("summary.json"))
    );
    assert_eq!(
        read(&merged.join("campaign.json")),
        read(&single.join("campaign.json"))
    );
    assert_eq!(r.summary, whole.summary);
    assert_eq!(r.summary.corpus.manifests, 12);
    assert_eq!(r.timing.runs_executed, 12);
    // The merged directory is an ordinary campaign directory.
    let mut again = serde_json::to_vec_pretty(&analyze(&merged).unwrap()).unwrap();
    again.push(b'\n');
    assert_eq!(again, read(&merged.join("summary.json")));
    for f in ["report.html", "junit.xml", "timing.json", "merge.json"] {
        assert!(merged.join(f).is_file(), "{f}");
    }
    assert!(!merged.join("shard.json").exists());
    for id in &ids {
        let m = format!("manifests/{id}.json");
        let t = format!("traces/{id}.csv");
        let k = ids.iter().position(|x| x == id).unwrap() % 3;
        assert_eq!(read(&merged.join(&m)), read(&dirs[k].join(&m)), "{m}");
        assert_eq!(read(&merged.join(&t)), read(&single.join(&t)), "{t}");
    }
    streamed_equals_whole(&s, &merged);
    let mf: serde_json::Value = serde_json::from_slice(&read(&merged.join("merge.json"))).unwrap();
    assert_eq!(mf["shards"].as_array().unwrap().len(), 3);
    assert_eq!(mf["shards"][2]["shard"]["index"], 2);

    // Resume per shard: an interrupted shard reruns only its missing run.
    let lost = &ids[4]; // position 4: shard 1
    std::fs::remove_file(dirs[1].join(format!("manifests/{lost}.json"))).unwrap();
    let e = merge(&dirs, &d.path().join("m2"), None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains(&format!(
            "1 run(s) missing (shard 1/3 in {} is incomplete",
            dirs[1].display()
        )) && e.contains(lost.as_str()),
        "{e}"
    );
    let r1 = run_shard(&s, &opts(&dirs[1], 1), Shard { index: 1, count: 3 }).unwrap();
    assert_eq!(r1.timing.runs_executed, 1);
    assert_eq!(r1.timing.runs_resumed, 3);
    let m2 = d.path().join("m2");
    merge(&dirs, &m2, None).unwrap();
    assert_eq!(
        read(&m2.join("summary.json")),
        read(&single.join("summary.json"))
    );

    // A shard directory is not resumed as another shard or as a whole campaign,
    // and a whole campaign's directory is not a shard.
    let e = run_shard(&s, &opts(&dirs[0], 1), Shard { index: 1, count: 3 })
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("holds shard 0/3 of this campaign, not shard 1/3"),
        "{e}"
    );
    let e = run_campaign(&s, &opts(&dirs[0], 1))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("resume it with --shard 0/3"), "{e}");
    let e = run_shard(&s, &opts(&single, 1), Shard { index: 0, count: 3 })
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("holds an unsharded campaign"), "{e}");
    let e = merge(std::slice::from_ref(&single), &d.path().join("m3"), None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("is not a shard directory (no shard.json)"),
        "{e}"
    );
    // An existing non-empty --out is refused.
    let e = merge(&dirs, &m2, None).err().unwrap().to_string();
    assert!(e.contains("exists and is not an empty directory"), "{e}");
}

/// The merge's streamed computation (REQ-SCALE-STREAM) against the whole
/// one, on the merged campaign `merged` of `s`: its manifests fed to a
/// [`RunSet`] shard by shard (plan positions k, k + 3, ...: the order a
/// 3-shard merge reads them) give summary.json, junit.xml, report.html and
/// the harness checks byte for byte as computed from every manifest at
/// once, though the set keeps fewer manifests than there are runs; and one
/// run less changes the summary (the comparison can fail).
fn streamed_equals_whole(s: &Scenario, merged: &Path) {
    let (cf, all) = load_campaign(merged).unwrap();
    let file = &cf.scenario;
    let whole = Summary::compute(file, &s.hash, &all);
    let by_id: BTreeMap<&str, &Manifest> = all.iter().map(|m| (m.run_id.as_str(), m)).collect();
    let mut runs = RunSet::new(file);
    for k in 0..3 {
        for id in cf.runs.iter().skip(k).step_by(3) {
            runs.add(file, by_id[id.as_str()]);
        }
    }
    let streamed = Summary::of_runs(file, &s.hash, &mut runs);
    let json = |x: &Summary| serde_json::to_vec_pretty(x).unwrap();
    assert_eq!(json(&streamed), json(&whole));
    let mut on_disk = json(&whole);
    on_disk.push(b'\n');
    assert_eq!(on_disk, read(&merged.join("summary.json")));
    assert_eq!(
        junit_of_runs(&streamed, &mut runs),
        junit(file, &whole, &all)
    );
    assert_eq!(
        String::from_utf8(read(&merged.join("junit.xml"))).unwrap(),
        junit(file, &whole, &all)
    );
    assert_eq!(runs.digests().len(), all.len());
    // Kept whole: the 3 nominal runs, the canary and one grid run per cell
    // (4): 8 of 12.
    assert_eq!(
        runs.kept().len(),
        8,
        "{:?}",
        runs.kept().iter().map(|m| &m.run_id).collect::<Vec<_>>()
    );
    assert_eq!(
        render_html(s, &whole, runs.kept(), merged).unwrap(),
        render_html(s, &whole, &all, merged).unwrap()
    );
    assert_eq!(
        String::from_utf8(read(&merged.join("report.html"))).unwrap(),
        render_html(s, &whole, &all, merged).unwrap()
    );
    assert_eq!(
        harness_failures(file, merged, runs.kept()),
        harness_failures(file, merged, &all)
    );
    folded_equals_whole(s, &all, &whole, merged);
    // One grid run less: another summary.
    let fewer = RunSet::of(file, &all[1..]);
    let mut fewer = fewer;
    assert_ne!(
        json(&Summary::of_runs(file, &s.hash, &mut fewer)),
        json(&whole)
    );
}

/// The flat fold (REQ-SCALE-FLAT): `all`, the manifests of the merged
/// campaign `merged` of `s`, added to a [`SummaryStream`] in run-id order
/// give `whole`'s summary and junit.xml byte for byte while holding at most
/// one cell's digests (2 repeats) at a time, not the 12 runs; out of
/// run-id order it refuses.
fn folded_equals_whole(s: &Scenario, all: &[Manifest], whole: &Summary, merged: &Path) {
    let file = &s.file;
    let mut sorted: Vec<&Manifest> = all.iter().collect();
    sorted.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    let d = tempfile::tempdir().unwrap();
    let cases = d.path().join("cases");
    let mut stream = SummaryStream::new(file, Some(&cases)).unwrap();
    for m in &sorted {
        stream.add(m).unwrap();
    }
    assert_eq!(stream.peak_held(), 2);
    let (folded, runs) = stream.finish(&s.hash, &d.path().join("junit.xml")).unwrap();
    assert_eq!(
        serde_json::to_vec_pretty(&folded).unwrap(),
        serde_json::to_vec_pretty(whole).unwrap()
    );
    assert_eq!(
        read(&d.path().join("junit.xml")),
        read(&merged.join("junit.xml"))
    );
    assert!(!cases.exists());
    assert_eq!(runs.kept().len(), 8);
    let mut stream = SummaryStream::new(file, None).unwrap();
    stream.add(sorted[1]).unwrap();
    let e = stream.add(sorted[0]).err().unwrap().to_string();
    assert!(e.contains("the summary is folded in run-id order"), "{e}");
}

#[test]
fn merges_with_a_missing_or_duplicated_run_or_another_scenario_or_build_are_refused() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    let dirs = shards(&s, d.path(), 3);
    let ids: Vec<String> = plan(&s).into_iter().map(|r| r.run_id).collect();
    let out = d.path().join("merged");
    let refused = |dirs: &[PathBuf]| {
        let e = merge(dirs, &out, None).err().expect("refused").to_string();
        assert!(!out.exists(), "a refused merge wrote {}", out.display());
        let leftovers: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".merge.tmp."))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        e
    };

    // A shard not given: its runs are missing, named.
    let e = refused(&[dirs[0].clone(), dirs[2].clone()]);
    let of1: Vec<&str> = ids.iter().skip(1).step_by(3).map(String::as_str).collect();
    assert!(
        e.contains("merge refused: 4 run(s) missing (shard 1/3 was not given): ")
            && e.contains(&of1.join(", ")),
        "{e}"
    );

    // A run in two shards (its manifest and trace copied into another shard):
    // without its ledger line, refused as not recorded; with it, as duplicated.
    let dup = &ids[0]; // shard 0
    for f in [format!("manifests/{dup}.json"), format!("traces/{dup}.csv")] {
        std::fs::copy(dirs[0].join(&f), dirs[2].join(&f)).unwrap();
    }
    let e = refused(&dirs);
    assert!(
        e.contains(&format!(
            "{}: no line in the ledger",
            dirs[2].join(format!("manifests/{dup}.json")).display()
        )),
        "{e}"
    );
    let ledger2 = std::fs::read(dirs[2].join("manifests.sha256")).unwrap();
    let line = std::fs::read_to_string(dirs[0].join("manifests.sha256"))
        .unwrap()
        .lines()
        .find(|l| l.ends_with(&format!("manifests/{dup}.json")))
        .unwrap()
        .to_string();
    let mut with = ledger2.clone();
    with.extend_from_slice(format!("{line}\n").as_bytes());
    std::fs::write(dirs[2].join("manifests.sha256"), with).unwrap();
    let e = refused(&dirs);
    assert!(
        e.contains(&format!(
            "1 run(s) duplicated: {dup} (in {} and {})",
            dirs[0].display(),
            dirs[2].display()
        )),
        "{e}"
    );
    std::fs::remove_file(dirs[2].join(format!("manifests/{dup}.json"))).unwrap();
    std::fs::write(dirs[2].join("manifests.sha256"), ledger2).unwrap();
    // The same shard executed twice (a copy of its directory): all of its runs duplicated.
    let again = d.path().join("shard1_again");
    copy_shard(&dirs[1], &again);
    let e = refused(&[
        dirs[0].clone(),
        dirs[1].clone(),
        dirs[2].clone(),
        again.clone(),
    ]);
    assert!(e.contains("merge refused: 4 run(s) duplicated: "), "{e}");
    assert!(
        e.contains(&format!(
            "{} (in {} and {})",
            ids[1],
            dirs[1].display(),
            again.display()
        )),
        "{e}"
    );
    // The same directory given twice.
    let e = refused(&[
        dirs[0].clone(),
        dirs[1].clone(),
        dirs[2].clone(),
        dirs[1].clone(),
    ]);
    assert!(
        e.contains(&format!("{} is given twice", dirs[1].display())),
        "{e}"
    );

    // A shard of another scenario (same study, another master seed).
    let text = std::fs::read_to_string(root().join("tests/data/small_study.yaml"))
        .unwrap()
        .replace("seed: 7", "seed: 8")
        .replace("../../config/", &format!("{}/config/", root().display()));
    let other_path = d.path().join("other_study.yaml");
    std::fs::write(&other_path, text).unwrap();
    let other = Scenario::load(&other_path).unwrap();
    assert_ne!(other.hash, s.hash);
    let od = d.path().join("other0");
    run_shard(&other, &opts(&od, 1), Shard { index: 0, count: 3 }).unwrap();
    let e = refused(&[od.clone(), dirs[1].clone(), dirs[2].clone()]);
    assert!(
        e.contains(&format!(
            "the shards come from different scenarios: {} holds scenario 'small_study' hash {}, {} holds scenario 'small_study' hash {}",
            od.display(),
            other.hash,
            dirs[1].display(),
            s.hash
        )),
        "{e}"
    );

    // A shard of another build (its shard.json and manifests name another commit).
    let b = d.path().join("otherbuild");
    copy_shard(&dirs[2], &b);
    let mut sf: serde_json::Value =
        serde_json::from_slice(&read(&dirs[2].join("shard.json"))).unwrap();
    sf["provenance"]["git_commit"] = "0123456789abcdef".into();
    std::fs::write(
        b.join("shard.json"),
        serde_json::to_vec_pretty(&sf).unwrap(),
    )
    .unwrap();
    let e = refused(&[dirs[0].clone(), dirs[1].clone(), b.clone()]);
    assert!(
        e.contains("the shards come from different builds: ")
            && e.contains(&format!("{} by commit 0123456789abcdef", b.display())),
        "{e}"
    );

    // The refusals left the shards intact: the merge goes through.
    merge(&dirs, &out, None).unwrap();
    assert!(out.join("summary.json").is_file());
}

/// A shard's campaign.json names the plan (size and digest), not its
/// runs, and the merge keeps one (REQ-SCALE-MERGE): another shard's is
/// compared with the first's byte for byte or, when the bytes differ,
/// parsed and checked. Rewritten compactly (same content) it is accepted;
/// naming another plan, or another scenario hash than its shard.json, it
/// is refused, naming the file; so is a shard.json whose run list is not
/// its slice.
#[test]
fn another_shards_campaign_json_is_checked_against_the_first_shards() {
    let s = small();
    let d = tempfile::tempdir().unwrap();
    let dirs = shards(&s, d.path(), 3);
    let out = d.path().join("merged");
    let cpath = dirs[2].join("campaign.json");
    let orig = read(&cpath);
    let mut cf: serde_json::Value = serde_json::from_slice(&orig).unwrap();
    let ids: Vec<String> = plan(&s).into_iter().map(|r| r.run_id).collect();
    let n = ids.len();
    assert!(cf.get("runs").is_none(), "{cf}");
    assert_eq!(
        cf["plan"],
        serde_json::to_value(PlanRef::of(ids.iter().map(String::as_str))).unwrap()
    );
    assert_eq!(cf["plan"]["runs"], n);

    std::fs::write(&cpath, serde_json::to_vec(&cf).unwrap()).unwrap();
    assert_ne!(read(&cpath), orig);
    merge(&dirs, &out, None).unwrap();
    // The merged campaign.json lists the whole plan, as an unsharded one.
    let merged: serde_json::Value =
        serde_json::from_slice(&read(&out.join("campaign.json"))).unwrap();
    assert_eq!(merged["runs"], serde_json::to_value(&ids).unwrap());
    assert!(merged.get("plan").is_none());
    std::fs::remove_dir_all(&out).unwrap();

    cf["plan"]["runs"] = (n - 1).into();
    std::fs::write(&cpath, serde_json::to_vec_pretty(&cf).unwrap()).unwrap();
    let e = merge(&dirs, &out, None).err().expect("refused").to_string();
    assert!(
        e.contains(&format!(
            "{}: the plan it names ({} runs, sha256 ",
            cpath.display(),
            n - 1
        )) && e.contains(&format!(
            "is not the plan of the scenario it stores ({n} runs)"
        )),
        "{e}"
    );
    assert!(!out.exists());

    let mut other: serde_json::Value = serde_json::from_slice(&orig).unwrap();
    let zeros = "0".repeat(64);
    other["scenario_hash"] = zeros.as_str().into();
    std::fs::write(&cpath, serde_json::to_vec_pretty(&other).unwrap()).unwrap();
    let e = merge(&dirs, &out, None).err().expect("refused").to_string();
    assert!(
        e.contains(&format!(
            "merge refused: {}: shard.json names scenario hash {} but campaign.json {zeros}",
            dirs[2].display(),
            s.hash
        )),
        "{e}"
    );
    assert!(!out.exists());
    std::fs::write(&cpath, &orig).unwrap();

    let spath = dirs[1].join("shard.json");
    let mut sf: serde_json::Value = serde_json::from_slice(&read(&spath)).unwrap();
    sf["runs"].as_array_mut().unwrap().pop();
    std::fs::write(&spath, serde_json::to_vec_pretty(&sf).unwrap()).unwrap();
    let e = merge(&dirs, &out, None).err().expect("refused").to_string();
    assert!(
        e.contains(&format!(
            "merge refused: {}: its run list (3 runs) is not slice 1/3 of the plan ({n} runs)",
            spath.display()
        )),
        "{e}"
    );
    assert!(!out.exists());
}
