//! Runs a whole campaign: plan, resume, execute in parallel, write results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::atomic::{write_atomic, write_json_atomic};
use super::manifest::{Manifest, Provenance, RunKind, MANIFEST_SCHEMA};
use super::run::{execute, RunSpec};
use super::scenario::{Scenario, ScenarioFile};
use super::summary::Summary;
use super::CampaignError;

/// `<out>/campaign.json`: the scenario a campaign directory belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignFile {
    pub schema: String,
    pub scenario_path: String,
    pub scenario_hash: String,
    pub scenario: ScenarioFile,
    /// Every planned run id, in plan order.
    pub runs: Vec<String>,
}

/// `<out>/timing.json`: wall-clock figures, kept out of summary.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub wall_time_s: f64,
    /// Sim time of the runs executed by this invocation.
    pub sim_time_s: f64,
    pub jobs: usize,
    /// sim_time_s / wall_time_s.
    pub real_time_factor: f64,
    pub runs_executed: usize,
    pub runs_resumed: usize,
}

/// Options of `breakbench campaign`.
#[derive(Debug, Clone)]
pub struct CampaignOptions {
    pub out: PathBuf,
    pub jobs: usize,
    pub progress: bool,
    /// The plan's resource budget, checked before anything runs.
    pub budget: super::Budget,
}

/// The outcome of [`run_campaign`].
pub struct CampaignResult {
    pub summary: Summary,
    pub timing: Timing,
    /// The harness checks that failed (empty if all passed); see [`harness_failures`].
    pub harness_failures: Vec<String>,
}

/// The harness checks of a finished campaign that failed, one message each
/// naming the check and where to look: the positive canary (declared in the
/// scenario) must be judged a safety violation, and with `isolation_check`
/// every run's verdict must be unchanged when its self-report is forced to
/// success and to failure. A failed check means the oracle or the harness
/// cannot be trusted on this campaign: `breakbench campaign` exits non-zero,
/// though every result is written.
pub fn harness_failures(file: &ScenarioFile, out: &Path, manifests: &[Manifest]) -> Vec<String> {
    let mut failures = Vec::new();
    if file.canary.is_some() {
        let missed: Vec<&Manifest> = manifests
            .iter()
            .filter(|m| m.kind == RunKind::Canary && !m.verdict.safety_violation())
            .collect();
        let ran = manifests.iter().any(|m| m.kind == RunKind::Canary);
        if !ran {
            failures.push(format!(
                "canary: the positive canary declared in the scenario has no manifest in {}",
                out.join("manifests").display()
            ));
        }
        for m in missed {
            failures.push(format!(
                "canary: the positive canary {} was not judged a safety violation (minimum clearance {:.3} m, region margin {:.3} m): the oracle or the harness misses the violation it is meant to catch; see {} and the 'canary' test case in {}",
                m.run_id,
                m.verdict.obstacle_clearance.value,
                m.verdict.operating_region_containment.value,
                manifest_path(out, &m.run_id).display(),
                out.join("junit.xml").display()
            ));
        }
    }
    if file.isolation_check {
        let failed: Vec<&str> = manifests
            .iter()
            .filter(|m| m.isolation.is_some_and(|i| !i.passed))
            .map(|m| m.run_id.as_str())
            .collect();
        if !failed.is_empty() {
            let shown = failed
                .iter()
                .take(5)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            failures.push(format!(
                "isolation: {} run(s) changed verdict when the self-report was forced ({shown}{}): the verdict depends on the robot's self-report; see their manifests in {} (field 'isolation') and junit.xml",
                failed.len(),
                if failed.len() > 5 { ", ..." } else { "" },
                out.join("manifests").display()
            ));
        }
        if manifests.iter().any(|m| m.isolation.is_none()) {
            failures.push(format!(
                "isolation: isolation_check is on but some manifests in {} carry no isolation record",
                out.join("manifests").display()
            ));
        }
    }
    failures
}

/// Provenance of this binary (git commit and dirty flag at build time, crate versions).
pub fn provenance() -> Provenance {
    let mut crate_versions = BTreeMap::new();
    crate_versions.insert(
        "breakbench".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
    );
    crate_versions.insert(
        "breakbench_oracle".to_string(),
        env!("BREAKBENCH_VERSION_BREAKBENCH_ORACLE").to_string(),
    );
    crate_versions.insert(
        "breakbench_sim_bridge".to_string(),
        env!("BREAKBENCH_VERSION_BREAKBENCH_SIM_BRIDGE").to_string(),
    );
    crate_versions.insert(
        "kraken_faults".to_string(),
        env!("BREAKBENCH_VERSION_KRAKEN_FAULTS").to_string(),
    );
    crate_versions.insert(
        "kraken_interfaces".to_string(),
        env!("BREAKBENCH_VERSION_KRAKEN_INTERFACES").to_string(),
    );
    Provenance {
        git_commit: env!("BREAKBENCH_GIT_COMMIT").to_string(),
        git_dirty: env!("BREAKBENCH_GIT_DIRTY") == "true",
        crate_versions,
    }
}

/// Derives a run seed from the master seed and a label (first 8 bytes of
/// sha256(master ‖ label), little-endian).
pub fn derive_seed(master: u64, label: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(master.to_le_bytes());
    h.update(label.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

pub(crate) fn fmt_value(v: f64) -> String {
    format!("{v}")
}

/// The run id of nominal run `i` of `runs`: `nominal_` and the index padded
/// to at least 3 digits and to the width of `runs - 1`, so that the ids sort
/// in index order (the spread-convergence criterion reads the nominal runs in
/// run-id order: its "first n - window" are the lowest indices).
pub fn nominal_run_id(i: usize, runs: usize) -> String {
    let width = runs.saturating_sub(1).to_string().len().max(3);
    format!("nominal_{i:0width$}")
}

/// Every run of the scenario, in plan order: the grid (repeat r of every cell
/// shares seed `derive_seed(seed, "repeat-r")`, so cells are compared on common
/// random numbers), the nominal set, then the canary.
pub fn plan(s: &Scenario) -> Vec<RunSpec> {
    plan_file(&s.file)
}

/// [`plan`] from the scenario file alone (as campaign.json stores it): the
/// plan depends on nothing else.
pub fn plan_file(s: &ScenarioFile) -> Vec<RunSpec> {
    let mut runs = Vec::new();
    for cell in s.cells() {
        let key: Vec<String> = s
            .axes
            .iter()
            .map(|a| format!("{}{}", a.name, fmt_value(cell[&a.name])))
            .collect();
        for r in 0..s.repeats {
            runs.push(RunSpec {
                run_id: format!("grid_{}_r{r}", key.join("_")),
                kind: RunKind::Grid,
                seed: derive_seed(s.seed, &format!("repeat-{r}")),
                cell: cell.clone(),
            });
        }
    }
    let zero: BTreeMap<String, f64> = s.axes.iter().map(|a| (a.name.clone(), 0.0)).collect();
    for i in 0..s.nominal.runs {
        runs.push(RunSpec {
            run_id: nominal_run_id(i, s.nominal.runs),
            kind: RunKind::Nominal,
            seed: derive_seed(s.seed, &format!("nominal-{i}")),
            cell: zero.clone(),
        });
    }
    if s.canary.is_some() {
        runs.push(RunSpec {
            run_id: "canary_000".into(),
            kind: RunKind::Canary,
            seed: derive_seed(s.seed, "canary-0"),
            cell: BTreeMap::new(),
        });
    }
    runs
}

fn manifest_path(out: &Path, run_id: &str) -> PathBuf {
    out.join("manifests").join(format!("{run_id}.json"))
}

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
    if m.kind != r.kind || m.seed != r.seed || m.cell != r.cell {
        return Some(format!(
            "holds another run than planned ({:?}, seed {}, cell {:?}; planned {:?}, seed {}, cell {:?})",
            m.kind, m.seed, m.cell, r.kind, r.seed, r.cell
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
/// of this scenario (hash), schema and build (provenance), with its trace as
/// the manifest hashed it.
fn reuse_problem(
    out: &Path,
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
    check_trace(out, m)
        .err()
        .map(|e| format!("trace does not match its manifest ({e})"))
}

/// Checks that the run's trace file exists and has the sha256 its manifest
/// recorded (`trace_sha256`; runs without a trace have an empty one).
fn check_trace(out: &Path, m: &Manifest) -> Result<(), String> {
    if m.trace_file.is_empty() && m.trace_sha256.is_empty() {
        return Ok(());
    }
    let path = out.join(&m.trace_file);
    match std::fs::read(&path) {
        Ok(bytes) if sha256_hex(&bytes) == m.trace_sha256 => Ok(()),
        Ok(_) => Err(format!("{} has another sha256", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Loads the campaign directory's campaign.json and all its planned manifests
/// (missing ones are skipped).
///
/// The plan is recomputed from the scenario campaign.json stores, and every
/// manifest must pass [`ownership_problem`] against it (the check resume
/// applies).
///
/// # Errors
/// [`CampaignError::ForeignManifest`] naming the first manifest that holds
/// another run or another scenario's run, or a campaign.json whose run list
/// is not its scenario's plan; I/O and JSON errors with their path.
pub fn load_campaign(out: &Path) -> Result<(CampaignFile, Vec<Manifest>), CampaignError> {
    let cf = read_campaign_file(out)?;
    let planned = plan_file(&cf.scenario);
    if planned.len() != cf.runs.len() || planned.iter().zip(&cf.runs).any(|(r, id)| r.run_id != *id)
    {
        return Err(CampaignError::ForeignManifest {
            path: out.join("campaign.json").display().to_string(),
            problem: format!(
                "its run list ({} runs) is not the plan of the scenario it stores ({} runs)",
                cf.runs.len(),
                planned.len()
            ),
        });
    }
    let mut ms = Vec::new();
    for r in &planned {
        let path = manifest_path(out, &r.run_id);
        if let Some(m) = read_manifest(&path)? {
            if let Some(problem) = ownership_problem(&m, r, &cf.scenario_hash) {
                return Err(CampaignError::ForeignManifest {
                    path: path.display().to_string(),
                    problem,
                });
            }
            ms.push(m);
        }
    }
    Ok((cf, ms))
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
fn lock_dir(out: &Path) -> Result<std::fs::File, CampaignError> {
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

/// Removes temporary files left by an interrupted atomic write (`.<name>.tmp.<pid>`).
fn remove_stale_temporaries(out: &Path) {
    for sub in ["", "manifests", "traces"] {
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

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Runs (or resumes) the campaign of `scenario` into `opts.out`.
///
/// Runs whose manifest already exists with the same scenario hash are
/// skipped; everything is written atomically, so an interrupted campaign is
/// resumed by running the same command again.
///
/// # Errors
/// [`CampaignError::OtherScenario`] if `opts.out` holds another scenario's
/// results, [`CampaignError::Locked`] if another campaign writes it,
/// [`CampaignError::OverBudget`] (before anything is created or run) if the
/// plan exceeds `opts.budget`; I/O errors with their path.
pub fn run_campaign(
    scenario: &Scenario,
    opts: &CampaignOptions,
) -> Result<CampaignResult, CampaignError> {
    let wall = Instant::now();
    opts.budget.check(&super::Estimate::of(scenario))?;
    let out = &opts.out;
    let runs = plan(scenario);
    std::fs::create_dir_all(out).map_err(|e| CampaignError::io(out, e))?;
    let _lock = lock_dir(out)?;
    let cpath = out.join("campaign.json");
    if cpath.exists() {
        let cf = read_campaign_file(out)?;
        if cf.scenario_hash != scenario.hash {
            return Err(CampaignError::OtherScenario {
                dir: out.display().to_string(),
                held_name: cf.scenario.name.clone(),
                held_hash: cf.scenario_hash.chars().take(12).collect(),
                scenario: scenario.path.display().to_string(),
                hash: scenario.hash.chars().take(12).collect(),
            });
        }
    }
    let cf = CampaignFile {
        schema: "breakbench.campaign/1".into(),
        scenario_path: scenario.path.display().to_string(),
        scenario_hash: scenario.hash.clone(),
        scenario: scenario.file.clone(),
        runs: runs.iter().map(|r| r.run_id.clone()).collect(),
    };
    write_json_atomic(&cpath, &cf)?;

    let prov = provenance();
    remove_stale_temporaries(out);
    let mut pending = Vec::new();
    // (reason, run ids) of the manifests that cannot be reused.
    let mut rerun: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &runs {
        let why = match read_manifest(&manifest_path(out, &r.run_id)) {
            Ok(Some(m)) => reuse_problem(out, &m, r, &scenario.hash, &prov),
            Ok(None) => {
                pending.push(r);
                continue;
            }
            Err(e) => Some(format!("unreadable manifest ({e})")),
        };
        if let Some(why) = why {
            rerun.entry(why).or_default().push(r.run_id.clone());
            pending.push(r);
        }
    }
    let resumed = runs.len() - pending.len();
    let bar = if opts.progress {
        ProgressBar::new(runs.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs {msg}",
        )
        .expect("valid template"),
    );
    bar.set_position(resumed as u64);
    // Resume notes go to stderr whether or not the bar is drawn (--quiet, no terminal).
    let note = |msg: String| {
        if bar.is_hidden() {
            eprintln!("{msg}");
        } else {
            bar.println(msg);
        }
    };
    if resumed > 0 {
        note(format!(
            "resuming: {resumed} of {} runs already complete in {}",
            runs.len(),
            out.display()
        ));
        if prov.git_dirty {
            note("note: this binary was built from a dirty tree; complete runs made by the same commit are reused even if the uncommitted code changed".into());
        }
    }
    for (why, ids) in &rerun {
        let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
        let more = if ids.len() > 5 {
            format!(" and {} more", ids.len() - 5)
        } else {
            String::new()
        };
        note(format!(
            "rerunning {} run(s), {why}: {}{more}",
            ids.len(),
            shown.join(", ")
        ));
    }
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<CampaignError>> = Mutex::new(None);
    let executed_sim = Mutex::new(Vec::<(String, f64)>::new());
    let jobs = opts.jobs.max(1);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= pending.len() || first_error.lock().expect("lock").is_some() {
                    break;
                }
                let spec = pending[i];
                let res = execute(scenario, spec, &prov).and_then(|mut o| {
                    let tpath = out.join(&o.manifest.trace_file);
                    o.manifest.trace_sha256 = sha256_hex(o.trace_csv.as_bytes());
                    write_atomic(&tpath, o.trace_csv.as_bytes())?;
                    write_json_atomic(&manifest_path(out, &spec.run_id), &o.manifest)?;
                    Ok(o.manifest)
                });
                match res {
                    Ok(m) => {
                        executed_sim
                            .lock()
                            .expect("lock")
                            .push((m.run_id.clone(), m.sim_time_s));
                        bar.inc(1);
                        bar.set_message(m.run_id);
                    }
                    Err(e) => {
                        first_error.lock().expect("lock").get_or_insert(e);
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = first_error.into_inner().expect("lock") {
        return Err(e);
    }

    let (_, manifests) = load_campaign(out)?;
    let summary = Summary::compute(&scenario.file, &scenario.hash, &manifests);
    write_json_atomic(&out.join("summary.json"), &summary)?;
    let mut exec = executed_sim.into_inner().expect("lock");
    exec.sort_by(|a, b| a.0.cmp(&b.0));
    let sim: f64 = exec.iter().fold(0.0, |acc, (_, s)| acc + s);
    let wall_s = wall.elapsed().as_secs_f64();
    let timing = Timing {
        wall_time_s: wall_s,
        sim_time_s: sim,
        jobs,
        real_time_factor: if wall_s > 0.0 { sim / wall_s } else { 0.0 },
        runs_executed: exec.len(),
        runs_resumed: resumed,
    };
    // A rerun that executed nothing keeps the timing of the run that did the work.
    if timing.runs_executed > 0 || !out.join("timing.json").exists() {
        write_json_atomic(&out.join("timing.json"), &timing)?;
    }
    super::outputs::write_outputs(out, scenario, &summary, &manifests)?;
    let harness_failures = harness_failures(&scenario.file, out, &manifests);
    Ok(CampaignResult {
        summary,
        timing,
        harness_failures,
    })
}

/// `breakbench analyze`: recomputes summary.json from the manifests alone.
pub fn analyze(out: &Path) -> Result<Summary, CampaignError> {
    let (cf, manifests) = load_campaign(out)?;
    Ok(Summary::compute(
        &cf.scenario,
        &cf.scenario_hash,
        &manifests,
    ))
}

#[cfg(test)]
mod tests {
    use super::nominal_run_id;

    #[test]
    fn nominal_run_ids_sort_in_index_order() {
        assert_eq!(nominal_run_id(7, 25), "nominal_007");
        assert_eq!(nominal_run_id(999, 1000), "nominal_999");
        assert_eq!(nominal_run_id(999, 1001), "nominal_0999");
        assert_eq!(nominal_run_id(1000, 1001), "nominal_1000");
        let ids: Vec<String> = (0..1001).map(|i| nominal_run_id(i, 1001)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
