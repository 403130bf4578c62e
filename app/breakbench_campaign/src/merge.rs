//! `breakbench merge`: one campaign directory from the shard directories of
//! a sharded campaign (`breakbench campaign --shard K/N`, see
//! [`super::plan::Shard`]).
//!
//! The merge checks, before it writes anything, that every directory is a
//! shard (has shard.json), that all come from the same scenario hash, the same
//! build (provenance) and the same shard count, that every manifest is the
//! run it is filed under with its trace as hashed (the checks resume applies),
//! and that every planned run is in exactly one shard. It then builds the
//! merged directory beside `out` (manifests and traces hard-linked, or copied
//! across file systems; campaign.json, summary.json, report.html, junit.xml,
//! timing.json and merge.json written) and renames it to `out` in one step,
//! so `out` is either absent or complete. The merged directory is an ordinary
//! campaign directory: `breakbench analyze` reads it, and its summary.json is
//! the one the unsharded campaign writes, byte for byte (the summary is
//! computed from the manifests alone, and a shard's manifests are the
//! unsharded campaign's runs: same ids, seeds and cells).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::write_json_atomic;
use super::manifest::{Manifest, Provenance};
use super::plan::{plan_file, Shard};
use super::runner::{harness_failures, Timing};
use super::scenario::Scenario;
use super::store::{
    load_campaign, lock_dir, manifest_path, read_campaign_file, read_shard_file, reuse_problem,
    CampaignFile, ShardFile, SHARD_FILE,
};
use super::summary::Summary;
use super::CampaignError;

/// Schema identifier of [`MergeFile`].
pub const MERGE_SCHEMA: &str = "breakbench.merge/1";

/// Run ids shown in a refusal before "and N more".
const SHOWN_RUNS: usize = 8;

/// One shard of a merge, as merge.json records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedShard {
    /// The shard directory as given to `breakbench merge`.
    pub dir: String,
    pub shard: Shard,
    /// Runs in the slice.
    pub runs: usize,
    /// The shard's timing.json.
    pub timing: Timing,
}

/// `<out>/merge.json`: which shards a merged directory was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeFile {
    pub schema: String,
    pub scenario_hash: String,
    /// The build every shard was executed by.
    pub provenance: Provenance,
    /// In shard index order.
    pub shards: Vec<MergedShard>,
}

/// The outcome of [`merge`].
pub struct MergeResult {
    pub summary: Summary,
    /// The merged timing.json: wall and sim time, runs executed and resumed
    /// summed over the shards (the compute spent, not the elapsed time of
    /// shards run side by side), the largest `jobs`, and sim / wall.
    pub timing: Timing,
    pub merge: MergeFile,
    /// The harness checks of the whole campaign that failed, as
    /// [`super::runner::run_campaign`] reports them.
    pub harness_failures: Vec<String>,
}

/// One shard directory, read and locked.
struct ShardDir {
    dir: PathBuf,
    sf: ShardFile,
    cf: CampaignFile,
    timing: Timing,
    manifests: Vec<Manifest>,
    _lock: std::fs::File,
}

fn refuse(m: String) -> CampaignError {
    CampaignError::Merge(m)
}

/// `ids` as `a, b, c and N more`.
fn show(ids: &[String]) -> String {
    let mut s = ids
        .iter()
        .take(SHOWN_RUNS)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN_RUNS {
        s.push_str(&format!(" and {} more", ids.len() - SHOWN_RUNS));
    }
    s
}

fn build_name(p: &Provenance) -> String {
    let versions: Vec<String> = p
        .crate_versions
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    format!(
        "commit {} ({}; {})",
        p.git_commit,
        if p.git_dirty { "dirty" } else { "clean" },
        versions.join(", ")
    )
}

/// Reads and locks the shard directory `dir` (its manifests are read by
/// [`load_manifests`], once the shards are known to belong together).
fn read_shard(dir: &Path) -> Result<ShardDir, CampaignError> {
    if !dir.join(SHARD_FILE).is_file() {
        return Err(refuse(format!(
            "{} is not a shard directory (no {SHARD_FILE}): give the --out directories of `breakbench campaign --shard K/N`",
            dir.display()
        )));
    }
    let lock = lock_dir(dir)?;
    let sf = read_shard_file(dir)?;
    let cf = read_campaign_file(dir)?;
    if sf.scenario_hash != cf.scenario_hash {
        return Err(refuse(format!(
            "{}: {SHARD_FILE} names scenario hash {} but campaign.json {}",
            dir.display(),
            sf.scenario_hash,
            cf.scenario_hash
        )));
    }
    let tpath = dir.join("timing.json");
    let tbytes = std::fs::read(&tpath).map_err(|e| CampaignError::io(&tpath, e))?;
    let timing: Timing = serde_json::from_slice(&tbytes).map_err(|e| CampaignError::Json {
        path: tpath.display().to_string(),
        source: e,
    })?;
    Ok(ShardDir {
        dir: dir.to_path_buf(),
        sf,
        cf,
        timing,
        manifests: Vec::new(),
        _lock: lock,
    })
}

/// Loads the manifests of `s` and checks each as resume does: the run it is
/// filed under, of the shard's scenario hash, schema and build, with its trace.
fn load_manifests(s: &mut ShardDir) -> Result<(), CampaignError> {
    let dir = &s.dir;
    let (_, manifests) = load_campaign(dir)?;
    let planned: BTreeMap<String, _> = plan_file(&s.cf.scenario)
        .into_iter()
        .map(|r| (r.run_id.clone(), r))
        .collect();
    for m in &manifests {
        // load_campaign keeps planned runs only.
        let r = &planned[&m.run_id];
        if let Some(p) = reuse_problem(m, r, &s.sf.scenario_hash, &s.sf.provenance) {
            return Err(refuse(format!(
                "{}: {p}",
                manifest_path(dir, &m.run_id).display()
            )));
        }
    }
    s.manifests = manifests;
    Ok(())
}

/// Checks that the shards come from one scenario hash, one build and one
/// shard count.
fn check_same_campaign(shards: &[ShardDir]) -> Result<(), CampaignError> {
    let a = &shards[0];
    for b in &shards[1..] {
        if b.sf.scenario_hash != a.sf.scenario_hash {
            return Err(refuse(format!(
                "the shards come from different scenarios: {} holds scenario '{}' hash {}, {} holds scenario '{}' hash {}",
                a.dir.display(),
                a.cf.scenario.name,
                a.sf.scenario_hash,
                b.dir.display(),
                b.cf.scenario.name,
                b.sf.scenario_hash
            )));
        }
        if b.sf.provenance != a.sf.provenance {
            return Err(refuse(format!(
                "the shards come from different builds: {} was executed by {}, {} by {}",
                a.dir.display(),
                build_name(&a.sf.provenance),
                b.dir.display(),
                build_name(&b.sf.provenance)
            )));
        }
        if b.sf.shard.count != a.sf.shard.count {
            return Err(refuse(format!(
                "the shards slice the plan differently: {} is shard {}, {} is shard {}",
                a.dir.display(),
                a.sf.shard,
                b.dir.display(),
                b.sf.shard
            )));
        }
    }
    Ok(())
}

/// Checks that every planned run has a manifest in exactly one shard.
fn check_runs(shards: &[ShardDir]) -> Result<(), CampaignError> {
    let count = shards[0].sf.shard.count;
    let mut holders: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, s) in shards.iter().enumerate() {
        for m in &s.manifests {
            holders.entry(m.run_id.as_str()).or_default().push(i);
        }
    }
    let mut problems = Vec::new();
    let dup: Vec<String> = shards[0]
        .cf
        .runs
        .iter()
        .filter(|id| holders.get(id.as_str()).is_some_and(|h| h.len() > 1))
        .map(|id| {
            let dirs: Vec<String> = holders[id.as_str()]
                .iter()
                .map(|&i| shards[i].dir.display().to_string())
                .collect();
            format!("{id} (in {})", dirs.join(" and "))
        })
        .collect();
    if !dup.is_empty() {
        problems.push(format!("{} run(s) duplicated: {}", dup.len(), show(&dup)));
    }
    // Missing runs, grouped by the shard that should hold them.
    let mut missing: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (i, id) in shards[0].cf.runs.iter().enumerate() {
        if !holders.contains_key(id.as_str()) {
            missing.entry(i % count).or_default().push(id.clone());
        }
    }
    for (k, ids) in &missing {
        let shard = Shard { index: *k, count };
        let where_ = match shards.iter().find(|s| s.sf.shard == shard) {
            Some(s) => format!(
                "shard {shard} in {} is incomplete: resume it with `breakbench campaign ... --out {} --shard {shard}`",
                s.dir.display(),
                s.dir.display()
            ),
            None => format!("shard {shard} was not given"),
        };
        problems.push(format!(
            "{} run(s) missing ({where_}): {}",
            ids.len(),
            show(ids)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(refuse(problems.join("; ")))
    }
}

/// Hard-links `src` to `dst`, or copies it (and syncs the copy) where a link
/// cannot be made (another file system).
fn link_or_copy(src: &Path, dst: &Path) -> Result<(), CampaignError> {
    if std::fs::hard_link(src, dst).is_ok() {
        return Ok(());
    }
    std::fs::copy(src, dst).map_err(|e| CampaignError::io(src, e))?;
    std::fs::File::open(dst)
        .and_then(|f| f.sync_all())
        .map_err(|e| CampaignError::io(dst, e))
}

/// Merges the shard directories `dirs` into the new campaign directory `out`.
///
/// `scenario` is the scenario file the report is drawn with (it needs the
/// world); `None` takes the `scenario_path` of the shards' campaign.json,
/// relative to the working directory as `breakbench campaign` was given it.
///
/// # Errors
/// [`CampaignError::Merge`], with nothing written, if a directory is not a
/// shard, the shards differ in scenario hash (naming both hashes and both
/// directories), build or shard count, a manifest is not the run it is filed
/// under or its trace differs from its hash, a planned run is missing
/// (naming the run ids and the shard that should hold them) or is in two
/// shards (naming the run ids and the directories), the scenario file's hash
/// is not the shards', or `out` exists and is not an empty directory;
/// [`CampaignError::Locked`] if a shard is still being written; I/O and JSON
/// errors with their path.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    scenario: Option<&Path>,
) -> Result<MergeResult, CampaignError> {
    check_arguments(dirs, out)?;
    let mut shards = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_same_campaign(&shards)?;
    for s in &mut shards {
        load_manifests(s)?;
    }
    check_runs(&shards)?;
    shards.sort_by_key(|s| s.sf.shard.index);

    let cf = shards[0].cf.clone();
    let sc = load_scenario(&cf, scenario)?;

    // Manifests by run id, with the index of the shard holding them.
    let mut by_id: BTreeMap<String, (usize, Manifest)> = BTreeMap::new();
    for (i, s) in shards.iter_mut().enumerate() {
        for m in std::mem::take(&mut s.manifests) {
            by_id.insert(m.run_id.clone(), (i, m));
        }
    }
    let (parent, tmp) = staging_dir(out)?;
    let built = (|| -> Result<(Summary, Timing, MergeFile, Vec<Manifest>), CampaignError> {
        let manifests = copy_runs(&tmp, &cf, &shards, by_id)?;
        let (summary, timing, mf) = write_merged(&tmp, &cf, &sc, &shards, &manifests)?;
        for sub in ["manifests", "traces", ""] {
            let d = tmp.join(sub);
            std::fs::File::open(&d)
                .and_then(|f| f.sync_all())
                .map_err(|e| CampaignError::io(&d, e))?;
        }
        // rename(2) replaces an empty directory and refuses a non-empty one.
        std::fs::rename(&tmp, out).map_err(|e| CampaignError::io(out, e))?;
        let _ = std::fs::File::open(&parent).and_then(|f| f.sync_all());
        Ok((summary, timing, mf, manifests))
    })();
    let (summary, timing, merge, manifests) = match built {
        Ok(b) => b,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let harness_failures = harness_failures(&cf.scenario, out, &manifests);
    Ok(MergeResult {
        summary,
        timing,
        merge,
        harness_failures,
    })
}

/// Checks the arguments of [`merge`] before anything is read.
///
/// # Errors
/// [`CampaignError::Merge`] if `dirs` is empty, `out` exists and is not an
/// empty directory, or a directory is given twice (by any spelling);
/// [`CampaignError::Io`] if a directory cannot be resolved.
fn check_arguments(dirs: &[PathBuf], out: &Path) -> Result<(), CampaignError> {
    if dirs.is_empty() {
        return Err(refuse("no shard directory given".into()));
    }
    if out.exists()
        && std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(refuse(format!(
            "--out {} exists and is not an empty directory: merge writes a new campaign directory",
            out.display()
        )));
    }
    let mut seen = BTreeMap::new();
    for d in dirs {
        let c = d.canonicalize().map_err(|e| CampaignError::io(d, e))?;
        if let Some(first) = seen.insert(c, d) {
            return Err(refuse(format!(
                "{} is given twice ({} and {})",
                d.display(),
                first.display(),
                d.display()
            )));
        }
    }
    Ok(())
}

/// The scenario the report is drawn with: `scenario`, or else the shards'
/// `scenario_path` from campaign.json `cf`.
///
/// # Errors
/// The errors of [`Scenario::load`]; [`CampaignError::Merge`] if its hash is
/// not the shards'.
fn load_scenario(cf: &CampaignFile, scenario: Option<&Path>) -> Result<Scenario, CampaignError> {
    let spath = scenario.map_or_else(|| PathBuf::from(&cf.scenario_path), Path::to_path_buf);
    let sc = Scenario::load(&spath)?;
    if sc.hash != cf.scenario_hash {
        return Err(refuse(format!(
            "the scenario file {} has hash {}, the shards {}: give the scenario they were run with (--scenario)",
            spath.display(),
            sc.hash,
            cf.scenario_hash
        )));
    }
    Ok(sc)
}

/// Creates the staging directory of the merge beside `out`
/// (`.<name>.merge.tmp.<pid>`, emptied first, with its `manifests` and
/// `traces` subdirectories). Returns `out`'s parent (`.` if none) and the
/// staging directory.
///
/// # Errors
/// [`CampaignError::Merge`] if `out` has no file name; I/O errors with
/// their path.
fn staging_dir(out: &Path) -> Result<(PathBuf, PathBuf), CampaignError> {
    let name = out
        .file_name()
        .ok_or_else(|| refuse(format!("--out {}: not a directory name", out.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| CampaignError::io(&parent, e))?;
    let tmp = parent.join(format!(".{name}.merge.tmp.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    for sub in ["manifests", "traces"] {
        let d = tmp.join(sub);
        std::fs::create_dir_all(&d).map_err(|e| CampaignError::io(&d, e))?;
    }
    Ok((parent, tmp))
}

/// Links (or copies) every planned run of `cf` into `tmp` from the shard
/// that holds it (`by_id`: run id → index into `shards` and manifest): its
/// manifest, its trace, its provenance record if the shard has one and its
/// recording if its manifest names one.
/// Returns the manifests in plan order.
///
/// # Errors
/// I/O errors with their path.
fn copy_runs(
    tmp: &Path,
    cf: &CampaignFile,
    shards: &[ShardDir],
    mut by_id: BTreeMap<String, (usize, Manifest)>,
) -> Result<Vec<Manifest>, CampaignError> {
    let mut manifests = Vec::with_capacity(cf.runs.len());
    for id in &cf.runs {
        let (i, m) = by_id.remove(id).expect("check_runs: every run is held");
        let src = &shards[i].dir;
        link_or_copy(&manifest_path(src, id), &manifest_path(tmp, id))?;
        if !m.trace_file.is_empty() {
            link_or_copy(&src.join(&m.trace_file), &tmp.join(&m.trace_file))?;
        }
        // A shard run with --record-provenance: its record goes along; a
        // run with a recording: its MCAP file.
        let prov = super::store::provenance_file(id);
        let rec = super::store::recording_file(id);
        for (file, dir, here) in [
            (
                prov,
                "provenance",
                src.join(super::store::provenance_file(id)).is_file(),
            ),
            (rec, "recordings", m.recording_sha256.is_some()),
        ] {
            if here {
                let d = tmp.join(dir);
                std::fs::create_dir_all(&d).map_err(|e| CampaignError::io(&d, e))?;
                link_or_copy(&src.join(&file), &tmp.join(&file))?;
            }
        }
        manifests.push(m);
    }
    Ok(manifests)
}

/// Writes the merged campaign's files into `tmp`: the ledger, campaign.json,
/// summary.json, timing.json, merge.json, report.html and junit.xml.
/// Returns the summary, the timing (see [`MergeResult::timing`]) and the
/// merge file.
///
/// # Errors
/// I/O and JSON errors with their path; the errors of the report.
fn write_merged(
    tmp: &Path,
    cf: &CampaignFile,
    sc: &Scenario,
    shards: &[ShardDir],
    manifests: &[Manifest],
) -> Result<(Summary, Timing, MergeFile), CampaignError> {
    // The merged ledger, from the manifests as copied (each matched its
    // shard's ledger in load_manifests).
    super::ledger::write_from_manifests(tmp, &cf.runs)?;
    write_json_atomic(&tmp.join("campaign.json"), cf)?;
    let summary = Summary::compute(&cf.scenario, &cf.scenario_hash, manifests);
    write_json_atomic(&tmp.join("summary.json"), &summary)?;
    let ts: Vec<&Timing> = shards.iter().map(|s| &s.timing).collect();
    let wall: f64 = ts.iter().map(|t| t.wall_time_s).sum();
    let sim: f64 = ts.iter().map(|t| t.sim_time_s).sum();
    let timing = Timing {
        wall_time_s: wall,
        sim_time_s: sim,
        jobs: ts.iter().map(|t| t.jobs).max().unwrap_or(1),
        real_time_factor: if wall > 0.0 { sim / wall } else { 0.0 },
        runs_executed: ts.iter().map(|t| t.runs_executed).sum(),
        runs_resumed: ts.iter().map(|t| t.runs_resumed).sum(),
    };
    write_json_atomic(&tmp.join("timing.json"), &timing)?;
    let mf = MergeFile {
        schema: MERGE_SCHEMA.into(),
        scenario_hash: cf.scenario_hash.clone(),
        provenance: shards[0].sf.provenance.clone(),
        shards: shards
            .iter()
            .map(|s| MergedShard {
                dir: s.dir.display().to_string(),
                shard: s.sf.shard,
                runs: s.sf.runs.len(),
                timing: s.timing.clone(),
            })
            .collect(),
    };
    write_json_atomic(&tmp.join("merge.json"), &mf)?;
    super::outputs::write_outputs(tmp, sc, &summary, manifests)?;
    Ok((summary, timing, mf))
}
