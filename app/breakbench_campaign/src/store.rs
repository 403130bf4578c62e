//! The campaign directory as a store: `campaign.json` (which scenario the
//! directory belongs to), `shard.json` (which slice of it, for a shard), the
//! manifests and their traces, the lock, and the
//! checks resume and `analyze` apply before they trust a stored manifest.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ledger::{check_run, ledger_path, read_ledger, Stored};

use super::manifest::{Manifest, Provenance, MANIFEST_SCHEMA};
use super::plan::{plan_file, Shard};
use super::run::RunSpec;
use super::scenario::ScenarioFile;
use super::CampaignError;

/// `<out>/campaign.json`: the scenario a campaign directory belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignFile {
    pub schema: String,
    pub scenario_path: String,
    pub scenario_hash: String,
    pub scenario: ScenarioFile,
    /// Every planned run id, in plan order. Empty (absent from the file) in
    /// a shard's campaign.json, which names the plan by [`CampaignFile::plan`]
    /// instead: the whole run list in each of 1,000 shards of 100,000 runs
    /// took 4.2 GB (REQ-SCALE-MERGE).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<String>,
    /// A shard's: the plan it is a slice of (its size and digest); its own
    /// slice is in shard.json. `None` (absent) in an unsharded campaign's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanRef>,
}

/// What identifies a plan without listing it: the number of planned runs
/// and the sha256 (lowercase hex) of their ids in plan order, each followed
/// by `\n` (`printf '%s\n' <ids> | sha256sum`). A shard's campaign.json
/// holds it (REQ-SCALE-MERGE); `breakbench merge` recomputes it from the
/// scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanRef {
    /// Planned runs.
    pub runs: usize,
    /// sha256 of the run ids, one a line, in plan order.
    pub sha256: String,
}

impl PlanRef {
    /// The reference of the plan whose run ids are `ids`, in plan order.
    pub fn of<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut text = String::new();
        let mut runs = 0;
        for id in ids {
            text.push_str(id);
            text.push('\n');
            runs += 1;
        }
        Self::of_text(runs, &text)
    }

    /// The reference of `runs` run ids given as `text`, each followed by `\n`.
    pub fn of_text(runs: usize, text: &str) -> Self {
        PlanRef {
            runs,
            sha256: breakbench_records::sha256_hex(text.as_bytes()),
        }
    }
}

impl CampaignFile {
    /// Whether this file names the plan whose run ids are `planned`, in plan
    /// order: its run list is them (an unsharded campaign's), or its
    /// [`PlanRef`] is theirs (a shard's).
    pub fn names_plan(&self, planned: &[String]) -> bool {
        match &self.plan {
            Some(p) => {
                self.runs.is_empty() && *p == PlanRef::of(planned.iter().map(String::as_str))
            }
            None => self.runs == planned,
        }
    }

    /// The number of planned runs this file names.
    pub fn planned_runs(&self) -> usize {
        self.plan.as_ref().map_or(self.runs.len(), |p| p.runs)
    }
}

/// The file that makes a directory one shard of a sharded campaign.
pub const SHARD_FILE: &str = "shard.json";
/// Schema identifier of [`ShardFile`].
pub const SHARD_SCHEMA: &str = "breakbench.shard/1";
/// The slicing rule, as shard.json states it (see [`super::plan::Shard`]).
pub const SHARD_RULE: &str = "run at plan position i (0-based) belongs to shard i mod count";

/// `<out>/shard.json`: which slice of which campaign a shard directory holds,
/// and the build that made it, so `breakbench merge` can check the shards
/// belong together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile {
    pub schema: String,
    pub shard: Shard,
    pub rule: String,
    pub scenario_hash: String,
    /// The build that executed the slice (every manifest carries the same).
    pub provenance: Provenance,
    /// The slice's run ids, in plan order.
    pub runs: Vec<String>,
}

/// Reads `<out>/shard.json`.
///
/// # Errors
/// I/O and JSON errors with the path.
pub fn read_shard_file(out: &Path) -> Result<ShardFile, CampaignError> {
    let p = out.join(SHARD_FILE);
    let bytes = std::fs::read(&p).map_err(|e| CampaignError::io(&p, e))?;
    serde_json::from_slice(&bytes).map_err(|e| CampaignError::Json {
        path: p.display().to_string(),
        source: e,
    })
}

pub(crate) use super::ledger::manifest_path;

/// Reads a manifest; `Ok(None)` if the file does not exist.
pub fn read_manifest(path: &Path) -> Result<Option<Manifest>, CampaignError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| CampaignError::Json {
                path: path.display().to_string(),
                source: e,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CampaignError::io(path, e)),
    }
}

/// Why the manifest `m` filed under the planned run `r` does not belong to
/// it, or `None` if it does: it must hold this run (id, kind, seed, cell) of
/// this scenario (hash). The one ownership check of resume
/// ([`run_campaign`] reruns such a run) and of `analyze` ([`load_campaign`]
/// refuses the directory).
pub fn ownership_problem(m: &Manifest, r: &RunSpec, scenario_hash: &str) -> Option<String> {
    if m.run_id != r.run_id {
        return Some(format!("holds run '{}', not '{}'", m.run_id, r.run_id));
    }
    let cell = r.cell();
    if m.kind != r.kind || m.seed != r.seed || m.cell != cell {
        return Some(format!(
            "holds another run than planned ({:?}, seed {}, cell {:?}; planned {:?}, seed {}, cell {:?})",
            m.kind, m.seed, m.cell, r.kind, r.seed, cell
        ));
    }
    if m.scenario_hash != scenario_hash {
        return Some(format!(
            "made for another scenario (hash {}, this campaign: {})",
            m.scenario_hash.chars().take(12).collect::<String>(),
            scenario_hash.chars().take(12).collect::<String>()
        ));
    }
    None
}

/// Why the manifest `m` found for the planned run `r` cannot be reused, or
/// `None` if the run is complete: it must be this run (id, kind, seed, cell),
/// of this scenario (hash), schema and build (provenance). Its bytes and
/// evidence files are checked before, by [`super::ledger::check_run`].
pub(crate) fn reuse_problem(
    m: &Manifest,
    r: &RunSpec,
    scenario_hash: &str,
    prov: &Provenance,
) -> Option<String> {
    if let Some(p) = ownership_problem(m, r, scenario_hash) {
        return Some(p);
    }
    if m.schema != MANIFEST_SCHEMA {
        return Some(format!(
            "manifest schema {} (this build: {MANIFEST_SCHEMA})",
            m.schema
        ));
    }
    if m.provenance != *prov {
        return Some(format!(
            "manifest made by another build (this one: {} {})",
            prov.git_commit,
            if prov.git_dirty { "dirty" } else { "clean" }
        ));
    }
    None
}

/// Loads the campaign directory's campaign.json and all its planned manifests
/// (missing ones are skipped).
///
/// The plan is recomputed from the scenario campaign.json stores, and every
/// manifest must pass [`ownership_problem`] against it (the check resume
/// applies) and the evidence check [`check_run`] against the ledger
/// (REQ-CAMPAIGN-EVIDENCE).
///
/// # Errors
/// [`CampaignError::ForeignManifest`] naming the first manifest that holds
/// another run or another scenario's run, or a campaign.json whose run list
/// is not its scenario's plan; [`CampaignError::Evidence`] naming the first
/// file that does not match its record, or a manifest without a ledger
/// line; I/O and JSON errors with their path.
pub fn load_campaign(out: &Path) -> Result<(CampaignFile, Vec<Manifest>), CampaignError> {
    let mut ms = Vec::new();
    let (cf, _) = visit_campaign(out, |_, m| ms.push(m))?;
    Ok((cf, ms))
}

/// [`load_campaign`] one manifest at a time: each planned run's manifest,
/// checked as there, is given to `visit` in plan order and not kept
/// (REQ-SCALE-STREAM), with campaign.json. Returns campaign.json and the
/// planned runs with no manifest, in plan order.
///
/// # Errors
/// As [`load_campaign`].
pub fn visit_campaign(
    out: &Path,
    mut visit: impl FnMut(&CampaignFile, Manifest),
) -> Result<(CampaignFile, Vec<String>), CampaignError> {
    let cf = read_campaign_file(out)?;
    let planned = plan_file(&cf.scenario);
    let ids: Vec<String> = planned.iter().map(|r| r.run_id.clone()).collect();
    if !cf.names_plan(&ids) {
        return Err(not_the_plan(out, cf.planned_runs(), planned.len()));
    }
    let ledger = read_ledger(out)?;
    let mut missing = Vec::new();
    for r in &planned {
        match load_run(out, r, &cf.scenario_hash, &ledger)? {
            Some(m) => visit(&cf, m),
            None => missing.push(r.run_id.clone()),
        }
    }
    Ok((cf, missing))
}

/// The manifest of planned run `r` in campaign directory `out`, checked as
/// [`load_campaign`] checks each: `None` if it has no manifest file.
///
/// # Errors
/// [`CampaignError::ForeignManifest`] if the manifest holds another run or
/// scenario hash than `r` and `scenario_hash`; [`CampaignError::Evidence`]
/// if it has no line in `ledger` (the ledger of `out`) or does not match it
/// (see [`check_run`]); I/O and JSON errors with their path.
pub(crate) fn load_run(
    out: &Path,
    r: &RunSpec,
    scenario_hash: &str,
    ledger: &std::collections::BTreeMap<String, String>,
) -> Result<Option<Manifest>, CampaignError> {
    let path = manifest_path(out, &r.run_id);
    // Ownership first: its message says what the manifest holds.
    if let Some(m) = read_manifest(&path)? {
        if let Some(problem) = ownership_problem(&m, r, scenario_hash) {
            return Err(CampaignError::ForeignManifest {
                path: path.display().to_string(),
                problem,
            });
        }
    }
    match check_run(out, &r.run_id, ledger)? {
        Stored::Missing => Ok(None),
        Stored::Unrecorded(p) => Err(unrecorded(out, &p)),
        Stored::Verified(m) => Ok(Some(*m)),
    }
}

/// The refusal of the manifest file `path` in campaign directory `out`
/// that has no line in its ledger.
pub(crate) fn unrecorded(out: &Path, path: &Path) -> CampaignError {
    CampaignError::Evidence {
        path: path.display().to_string(),
        problem: format!(
            "no line in the ledger {}: written when the campaign was interrupted before recording it, or added afterwards; resume the campaign (it runs that run again)",
            ledger_path(out).display()
        ),
    }
}

/// The refusal of the campaign.json in `dir` whose run list (or, a
/// shard's, plan reference) of `runs` runs is not the plan of the scenario
/// it stores (`planned` runs).
pub(crate) fn not_the_plan(dir: &Path, runs: usize, planned: usize) -> CampaignError {
    CampaignError::ForeignManifest {
        path: dir.join("campaign.json").display().to_string(),
        problem: format!(
            "its run list ({runs} runs) is not the plan of the scenario it stores ({planned} runs)"
        ),
    }
}

/// Reads `<out>/campaign.json`.
pub fn read_campaign_file(out: &Path) -> Result<CampaignFile, CampaignError> {
    let cpath = out.join("campaign.json");
    let bytes = std::fs::read(&cpath).map_err(|e| CampaignError::io(&cpath, e))?;
    let cf: CampaignFile = serde_json::from_slice(&bytes).map_err(|e| CampaignError::Json {
        path: cpath.display().to_string(),
        source: e,
    })?;
    Ok(cf)
}

/// Takes an exclusive lock on `<out>/.lock` for the campaign's lifetime, so
/// two campaigns cannot write the same directory at once. The lock is
/// released by the OS when the process ends, even on SIGKILL.
pub(crate) fn lock_dir(out: &Path) -> Result<std::fs::File, CampaignError> {
    let p = out.join(".lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .map_err(|e| CampaignError::io(&p, e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(CampaignError::Locked {
            dir: out.display().to_string(),
            lock: p.display().to_string(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(CampaignError::io(&p, e)),
    }
}

pub use super::ledger::{provenance_file, recording_file};

/// Removes temporary files left by an interrupted atomic write (`.<name>.tmp.<pid>`).
pub(crate) fn remove_stale_temporaries(out: &Path) {
    for sub in ["", "manifests", "traces", "provenance"] {
        let Ok(rd) = std::fs::read_dir(out.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with('.') && n.contains(".tmp.") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
