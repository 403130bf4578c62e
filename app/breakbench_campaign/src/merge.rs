//! `breakbench merge`: one campaign directory from the shard directories of
//! a sharded campaign (`breakbench campaign --shard K/N`, see
//! [`super::plan::Shard`]).
//!
//! The merge checks, before it writes anything, that every directory is a
//! shard (has shard.json), that all come from the same scenario hash, the same
//! build (provenance) and the same shard count, and that every planned run
//! has a manifest file in exactly one shard. It then stages the merged
//! directory beside `out`, one manifest at a time: each is checked as resume
//! checks it (the run it is filed under, with its trace as hashed) and
//! linked (or copied across file systems) with its trace, nothing of it
//! kept; a refused manifest removes the staging directory. The staged
//! manifests are then read again in run-id order and folded into
//! summary.json and junit.xml a cell at a time
//! ([`super::merge_out::summarize_staged`], REQ-SCALE-FLAT: no record per
//! run). campaign.json, summary.json, report.html, junit.xml,
//! timing.json and merge.json are written and the directory renamed to
//! `out` in one step, so `out` is either absent or complete. The merged
//! directory is an ordinary campaign directory: `breakbench analyze` reads
//! it, and its summary.json is the one the unsharded campaign writes, byte
//! for byte (the summary is computed from the manifests alone, and a
//! shard's manifests are the unsharded campaign's runs: same ids, seeds and
//! cells).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::write_json_atomic;
use super::compact_plan::CompactPlan;
use super::ledger::{check_run, read_ledger, Stored};
use super::manifest::{Manifest, Provenance};
use super::merge_out::{summarize_staged, write_json_streamed, write_ledger, WholeCampaignFile};
use super::parallel::{io_threads, par_map};
use super::plan::Shard;
use super::run_digest::RunSet;
use super::runner::{harness_failures, Timing};
use super::scenario::Scenario;
use super::store::{
    lock_dir, manifest_path, read_campaign_file, read_shard_file, reuse_problem, unrecorded,
    CampaignFile, PlanRef, ShardFile, SHARD_FILE,
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

/// One shard directory, read and locked. Its campaign.json names the plan
/// (size and digest: [`super::store::PlanRef`]) and is compared with the
/// first shard's, then dropped; its shard.json's run list (its slice) is
/// reduced to its count and digest as it is read, and the digest checked
/// against the plan's slice (REQ-SCALE-MERGE, REQ-SCALE-FLAT: the shards'
/// run lists are never all in memory).
struct ShardDir {
    dir: PathBuf,
    /// shard.json, its run list emptied as read.
    sf: ShardFile,
    /// The runs of its slice as shard.json lists them: how many, and the
    /// sha256 of their ids ([`PlanRef`]).
    slice: PlanRef,
    timing: Timing,
    /// Its campaign.json's bytes, until compared with the first shard's.
    campaign: Vec<u8>,
    /// Its campaign.json is byte for byte the first shard's.
    same_campaign_file: bool,
    /// The plan positions of the planned runs with a manifest file in its
    /// `manifests/`, ascending (4 bytes a run: the manifests themselves are
    /// read a few hundred at a time by [`stage_runs`]).
    held: Vec<u32>,
    _lock: std::fs::File,
}

/// The campaign.json of the first shard given, parsed, and its plan,
/// compact, computed once for all shards from its scenario.
struct FirstCampaign {
    cf: CampaignFile,
    bytes: Vec<u8>,
    plan: CompactPlan,
}

/// Manifests checked by one thread at a time ([`stage_runs`]): the merge
/// holds at most this many per thread, four batches per thread at once.
const STAGE_CHUNK: usize = 256;

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
    let mut sf = read_shard_file(dir)?;
    let slice = PlanRef::of(sf.runs.iter().map(String::as_str));
    sf.runs = Vec::new();
    let tpath = dir.join("timing.json");
    let tbytes = std::fs::read(&tpath).map_err(|e| CampaignError::io(&tpath, e))?;
    let timing: Timing = serde_json::from_slice(&tbytes).map_err(|e| CampaignError::Json {
        path: tpath.display().to_string(),
        source: e,
    })?;
    let cpath = dir.join("campaign.json");
    let campaign = std::fs::read(&cpath).map_err(|e| CampaignError::io(&cpath, e))?;
    Ok(ShardDir {
        dir: dir.to_path_buf(),
        sf,
        slice,
        timing,
        campaign,
        same_campaign_file: false,
        held: Vec::new(),
        _lock: lock,
    })
}

/// Parses the campaign.json of shard `s` (its bytes as read).
///
/// # Errors
/// JSON errors with the path.
fn parse_campaign(s: &ShardDir) -> Result<CampaignFile, CampaignError> {
    serde_json::from_slice(&s.campaign).map_err(|e| CampaignError::Json {
        path: s.dir.join("campaign.json").display().to_string(),
        source: e,
    })
}

/// Refuses shard `s` if its shard.json and its campaign.json (`hash`) name
/// different scenario hashes.
fn check_campaign_hash(s: &ShardDir, hash: &str) -> Result<(), CampaignError> {
    if s.sf.scenario_hash == hash {
        return Ok(());
    }
    Err(refuse(format!(
        "{}: {SHARD_FILE} names scenario hash {} but campaign.json {hash}",
        s.dir.display(),
        s.sf.scenario_hash,
    )))
}

/// Refuses the campaign.json `cf` of shard directory `dir` unless it
/// names `plan`: by its [`super::store::PlanRef`] (a shard's), or by its
/// whole run list (a shard of an earlier build).
///
/// # Errors
/// [`CampaignError::ForeignManifest`] naming the file and both sizes.
fn check_names_plan(
    dir: &Path,
    cf: &CampaignFile,
    plan: &CompactPlan,
) -> Result<(), CampaignError> {
    let named = match &cf.plan {
        Some(p) => cf.runs.is_empty() && *p == plan.plan_ref(),
        None => cf.runs.len() == plan.len() && cf.runs.iter().map(String::as_str).eq(plan.ids()),
    };
    if named {
        return Ok(());
    }
    let what = match &cf.plan {
        Some(p) => format!(
            "the plan it names ({} runs, sha256 {})",
            p.runs,
            p.sha256.chars().take(12).collect::<String>()
        ),
        None => format!("its run list ({} runs)", cf.runs.len()),
    };
    Err(CampaignError::ForeignManifest {
        path: dir.join("campaign.json").display().to_string(),
        problem: format!(
            "{what} is not the plan of the scenario it stores ({} runs)",
            plan.len()
        ),
    })
}

/// Reads the campaign.json of the first shard given, `s`, and plans its
/// scenario (once for the whole merge).
///
/// # Errors
/// [`CampaignError::Merge`] if it names another scenario hash than the
/// shard's shard.json; [`CampaignError::ForeignManifest`] if it does not
/// name its scenario's plan; JSON errors with the path.
fn read_first_campaign(s: &ShardDir) -> Result<FirstCampaign, CampaignError> {
    let cf = parse_campaign(s)?;
    check_campaign_hash(s, &cf.scenario_hash)?;
    let plan = CompactPlan::new(&cf.scenario);
    check_names_plan(&s.dir, &cf, &plan)?;
    Ok(FirstCampaign {
        cf,
        bytes: s.campaign.clone(),
        plan,
    })
}

/// Checks the campaign.json of shard `s` against the first shard's: byte
/// for byte the same (one scenario file, one working directory: a compare,
/// no parse), or else naming the scenario hash of its shard.json and, for
/// the first shard's hash, the same plan (another hash is refused by
/// [`check_same_campaign`]). Its bytes are dropped.
///
/// # Errors
/// As [`read_first_campaign`].
fn check_campaign_file(s: &mut ShardDir, first: &FirstCampaign) -> Result<(), CampaignError> {
    let bytes = std::mem::take(&mut s.campaign);
    if bytes == first.bytes {
        s.same_campaign_file = true;
        return check_campaign_hash(s, &first.cf.scenario_hash);
    }
    s.campaign = bytes;
    let cf = parse_campaign(s)?;
    s.campaign = Vec::new();
    check_campaign_hash(s, &cf.scenario_hash)?;
    if cf.scenario_hash == first.cf.scenario_hash {
        check_names_plan(&s.dir, &cf, &first.plan)?;
    }
    Ok(())
}

/// The scenario name in `<dir>/campaign.json`, for a refusal (`?` if it
/// cannot be read).
fn scenario_name(dir: &Path) -> String {
    read_campaign_file(dir).map_or_else(|_| "?".into(), |cf| cf.scenario.name)
}

/// The plan positions (of `first`) with a manifest file in
/// `<dir>/manifests/` of shard `s`, ascending, found by listing that
/// directory (not by trying every planned run in every shard: 10^8 lookups
/// for 1,000 shards of 100,000 runs). Also checks that its shard.json lists
/// its slice of the plan. The manifests are read and checked by
/// [`stage_runs`].
///
/// # Errors
/// [`CampaignError::Merge`] if shard.json's run list is not slice K/N of
/// the plan; [`CampaignError::Evidence`] for a manifest file with no line
/// in the shard's ledger (as resume refuses it, before the run set is
/// checked); I/O errors with the path.
fn list_manifests(s: &ShardDir, first: &FirstCampaign) -> Result<Vec<u32>, CampaignError> {
    let plan = &first.plan;
    let sh = s.sf.shard;
    let slice = (sh.index..plan.len()).step_by(sh.count.max(1));
    if sh.index >= sh.count || s.slice != PlanRef::of(slice.map(|i| plan.id(i))) {
        return Err(refuse(format!(
            "{}: its run list ({} runs) is not slice {sh} of the plan ({} runs)",
            s.dir.join(SHARD_FILE).display(),
            s.slice.runs,
            plan.len()
        )));
    }
    let mdir = s.dir.join("manifests");
    let ledger = read_ledger(&s.dir)?;
    let mut found: Vec<u32> = Vec::new();
    match std::fs::read_dir(&mdir) {
        Ok(rd) => {
            for e in rd {
                let e = e.map_err(|e| CampaignError::io(&mdir, e))?;
                let name = e.file_name();
                let id = name.to_str().and_then(|n| n.strip_suffix(".json"));
                if let Some(i) = id.and_then(|id| plan.position(id)) {
                    if !ledger.contains_key(plan.id(i)) {
                        return Err(unrecorded(&s.dir, &e.path()));
                    }
                    found.push(i as u32);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(CampaignError::io(&mdir, e)),
    }
    found.sort_unstable();
    Ok(found)
}

/// Reads the manifests of the runs at plan positions `held` of shard `s`,
/// checks each as resume does (its bytes against the shard's ledger, its
/// trace and other evidence files against their sha256 in it; the run it
/// is filed under, of the shard's scenario hash, schema and build) and
/// links its files into the staging directory `tmp` ([`copy_run`]), one
/// at a time (the summary reads them again from `tmp`: REQ-SCALE-FLAT).
/// Runs on a merge thread.
///
/// # Errors
/// [`CampaignError::Merge`] naming the manifest that is not the shard's
/// run; the errors of [`check_run`]; I/O errors with their path.
fn stage_runs(
    s: &ShardDir,
    first: &FirstCampaign,
    tmp: &Path,
    held: &[u32],
) -> Result<(), CampaignError> {
    let dir = &s.dir;
    let ledger = read_ledger(dir)?;
    for &i in held {
        let r = &first.plan.spec(i as usize);
        let m = match check_run(dir, &r.run_id, &ledger)? {
            Stored::Verified(m) => *m,
            Stored::Unrecorded(p) => return Err(unrecorded(dir, &p)),
            Stored::Missing => {
                return Err(refuse(format!(
                    "{}: removed while the merge read the shard",
                    manifest_path(dir, &r.run_id).display()
                )))
            }
        };
        if let Some(p) = reuse_problem(&m, r, &s.sf.scenario_hash, &s.sf.provenance) {
            return Err(refuse(format!(
                "{}: {p}",
                manifest_path(dir, &m.run_id).display()
            )));
        }
        copy_run(tmp, dir, &m)?;
    }
    Ok(())
}

/// Stages every held run of `shards` (in shard order, plan order within a
/// shard) into `tmp`: [`stage_runs`] on pieces of at most [`STAGE_CHUNK`]
/// runs, `threads` at a time (the first refusal does not depend on the
/// threads).
///
/// # Errors
/// The first error, in that order, of [`stage_runs`].
fn stage_all(
    shards: &[ShardDir],
    first: &FirstCampaign,
    tmp: &Path,
    threads: usize,
) -> Result<(), CampaignError> {
    let pieces: Vec<(&ShardDir, &[u32])> = shards
        .iter()
        .flat_map(|s| s.held.chunks(STAGE_CHUNK).map(move |c| (s, c)))
        .collect();
    for batch in pieces.chunks(threads * 4) {
        let staged = par_map(batch, threads, |(s, held)| stage_runs(s, first, tmp, held));
        for piece in staged {
            piece?;
        }
    }
    Ok(())
}

/// Checks that the shards come from one scenario hash, one build and one
/// shard count.
/// `first` is the campaign.json of `shards[0]`.
fn check_same_campaign(shards: &[ShardDir], first: &FirstCampaign) -> Result<(), CampaignError> {
    let a = &shards[0];
    for b in &shards[1..] {
        if b.sf.scenario_hash != a.sf.scenario_hash {
            return Err(refuse(format!(
                "the shards come from different scenarios: {} holds scenario '{}' hash {}, {} holds scenario '{}' hash {}",
                a.dir.display(),
                first.cf.scenario.name,
                a.sf.scenario_hash,
                b.dir.display(),
                scenario_name(&b.dir),
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

/// Checks that every planned run (of `plan`) has a manifest in
/// exactly one shard (`held` of each).
fn check_runs(shards: &[ShardDir], plan: &CompactPlan) -> Result<(), CampaignError> {
    let count = shards[0].sf.shard.count;
    // (plan position, shard) of every manifest found: 8 bytes a run.
    let mut holders: Vec<(u32, u32)> = shards
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.held.iter().map(move |&i| (i, k as u32)))
        .collect();
    holders.sort_unstable();
    let mut problems = Vec::new();
    let mut dup: Vec<String> = Vec::new();
    let mut missing: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut next = 0usize;
    for group in holders.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0 as usize;
        for j in next..i {
            missing
                .entry(j % count)
                .or_default()
                .push(plan.id(j).to_string());
        }
        next = i + 1;
        if group.len() > 1 {
            let dirs: Vec<String> = group
                .iter()
                .map(|&(_, k)| shards[k as usize].dir.display().to_string())
                .collect();
            dup.push(format!("{} (in {})", plan.id(i), dirs.join(" and ")));
        }
    }
    for j in next..plan.len() {
        missing
            .entry(j % count)
            .or_default()
            .push(plan.id(j).to_string());
    }
    if !dup.is_empty() {
        problems.push(format!("{} run(s) duplicated: {}", dup.len(), show(&dup)));
    }
    // Missing runs, grouped by the shard that should hold them.
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
    // The shards are read side by side (REQ-SCALE-MERGE); every result is
    // taken in the order of `dirs`, so the first refusal is the one a
    // reading one at a time would give.
    let threads = io_threads();
    let mut shards = par_map(dirs, threads, |d| read_shard(d))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let first = read_first_campaign(&shards[0])?;
    shards[0].same_campaign_file = true;
    shards[0].campaign = Vec::new();
    for s in &mut shards[1..] {
        check_campaign_file(s, &first)?;
    }
    check_same_campaign(&shards, &first)?;
    let held = par_map(&shards, threads, |s| list_manifests(s, &first));
    for (s, h) in shards.iter_mut().zip(held) {
        s.held = h?;
    }
    check_runs(&shards, &first.plan)?;
    shards.sort_by_key(|s| s.sf.shard.index);

    // The campaign.json of the lowest shard index (the first given's bytes,
    // unless the shards were run from other working directories).
    let other;
    let cf = if shards[0].same_campaign_file {
        &first.cf
    } else {
        other = read_campaign_file(&shards[0].dir)?;
        &other
    };
    let sc = load_scenario(cf, scenario)?;

    let (parent, tmp) = staging_dir(out)?;
    let built = (|| -> Result<(Summary, Timing, MergeFile, RunSet), CampaignError> {
        stage_all(&shards, &first, &tmp, threads)?;
        let whole = WholeCampaignFile {
            cf,
            plan: &first.plan,
        };
        let (summary, timing, mf, runs) = write_merged(&tmp, &whole, &sc, &shards, threads)?;
        for sub in ["manifests", "traces", ""] {
            let d = tmp.join(sub);
            std::fs::File::open(&d)
                .and_then(|f| f.sync_all())
                .map_err(|e| CampaignError::io(&d, e))?;
        }
        // rename(2) replaces an empty directory and refuses a non-empty one.
        std::fs::rename(&tmp, out).map_err(|e| CampaignError::io(out, e))?;
        let _ = std::fs::File::open(&parent).and_then(|f| f.sync_all());
        Ok((summary, timing, mf, runs))
    })();
    let (summary, timing, merge, runs) = match built {
        Ok(b) => b,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // The kept manifests give the harness checks' result on all of them.
    let harness_failures = harness_failures(&cf.scenario, out, runs.kept());
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

/// Links (or copies) run `m` of the shard directory `src` into `tmp`: its
/// manifest, its trace, its provenance record if the shard has one and its
/// recording if its manifest names one.
///
/// # Errors
/// I/O errors with their path.
fn copy_run(tmp: &Path, src: &Path, m: &Manifest) -> Result<(), CampaignError> {
    let id = &m.run_id;
    link_or_copy(&manifest_path(src, id), &manifest_path(tmp, id))?;
    if !m.trace_file.is_empty() {
        link_or_copy(&src.join(&m.trace_file), &tmp.join(&m.trace_file))?;
    }
    // A shard run with --record-provenance: its record goes along; a run
    // with a recording: its MCAP file.
    let prov = super::store::provenance_file(id);
    let rec = super::store::recording_file(id);
    let has_prov = src.join(&prov).is_file();
    for (file, dir, here) in [
        (prov, "provenance", has_prov),
        (rec, "recordings", m.recording_sha256.is_some()),
    ] {
        if here {
            let d = tmp.join(dir);
            std::fs::create_dir_all(&d).map_err(|e| CampaignError::io(&d, e))?;
            link_or_copy(&src.join(&file), &tmp.join(&file))?;
        }
    }
    Ok(())
}

/// Writes the merged campaign's files into `tmp`: the ledger, campaign.json,
/// summary.json, timing.json, merge.json, report.html and junit.xml.
/// Returns the summary, the timing (see [`MergeResult::timing`]), the
/// merge file and the manifests kept whole ([`summarize_staged`]).
///
/// # Errors
/// I/O and JSON errors with their path; the errors of the report.
fn write_merged(
    tmp: &Path,
    whole: &WholeCampaignFile,
    sc: &Scenario,
    shards: &[ShardDir],
    threads: usize,
) -> Result<(Summary, Timing, MergeFile, RunSet), CampaignError> {
    let cf = whole.cf;
    // The merged ledger, from the manifests as copied (each matched its
    // shard's ledger in stage_runs).
    write_ledger(tmp, whole.plan, threads)?;
    write_json_streamed(&tmp.join("campaign.json"), whole)?;
    // The summary and junit.xml, from the staged manifests (REQ-SCALE-FLAT).
    let (summary, runs) = summarize_staged(tmp, cf, whole.plan, threads)?;
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
                runs: s.slice.runs,
                timing: s.timing.clone(),
            })
            .collect(),
    };
    write_json_atomic(&tmp.join("merge.json"), &mf)?;
    // The report reads the kept manifests only (run_digest: the same report).
    let html = super::report::render_html(sc, &summary, runs.kept(), tmp)?;
    super::atomic::write_atomic(&tmp.join("report.html"), html.as_bytes())?;
    Ok((summary, timing, mf, runs))
}
