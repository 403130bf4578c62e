//! Runs a whole campaign, or one shard of it: the plan ([`super::plan`]),
//! resume from the store ([`super::store`]), execute in parallel, write
//! results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use breakbench_records::sha256_hex;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::atomic::{write_atomic, write_json_atomic};
use super::executor::{Executor, InProcess};
use super::ledger::{check_run, compact, read_ledger, LedgerWriter, Stored, LEDGER_FILE};
use super::manifest::{Manifest, Provenance, RunKind};
use super::plan::{plan, Shard};
use super::run::RunSpec;
use super::scenario::{Scenario, ScenarioFile};
use super::store::{
    load_campaign, load_run, lock_dir, manifest_path, provenance_file, read_campaign_file,
    read_shard_file, recording_file, remove_stale_temporaries, reuse_problem, CampaignFile,
    PlanRef, ShardFile, SHARD_FILE, SHARD_RULE, SHARD_SCHEMA,
};
use super::summary::Summary;
use super::CampaignError;

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
/// success and to failure; most fault-free runs of each group (nominal set
/// per navigator variant, baselines per test) must keep their invariants
/// ([`super::sanity::nominal_gate`], REQ-NOMINAL-GATE). A failed check means the oracle or the harness
/// cannot be trusted on this campaign: `breakbench campaign` exits non-zero,
/// though every result is written.
pub fn harness_failures(file: &ScenarioFile, out: &Path, manifests: &[Manifest]) -> Vec<String> {
    checks(file, out, manifests, file.canary.is_some())
}

/// True for a graph run that is `invalid` (see [`super::graph`]).
fn invalid(m: &Manifest) -> bool {
    m.graph.as_ref().is_some_and(|g| g.invalid())
}

/// [`harness_failures`] of `manifests`, the canary's manifest expected among
/// them if `canary_planned`.
fn checks(
    file: &ScenarioFile,
    out: &Path,
    manifests: &[Manifest],
    canary_planned: bool,
) -> Vec<String> {
    let mut failures = Vec::new();
    let bad: Vec<&Manifest> = manifests.iter().filter(|m| invalid(m)).collect();
    if !bad.is_empty() {
        let shown: Vec<String> = bad
            .iter()
            .take(5)
            .map(|m| {
                let g = m.graph.as_ref().expect("invalid means a graph record");
                format!(
                    "{} (state {}: {})",
                    m.run_id,
                    g.state_reached,
                    g.invalid_reason.as_deref().unwrap_or("")
                )
            })
            .collect();
        failures.push(format!(
            "graph: {} run(s) invalid, not judged and not counted ({}{}): run the campaign again to rerun them; see their manifests in {} (field 'graph')",
            bad.len(),
            shown.join("; "),
            if bad.len() > 5 { "; ..." } else { "" },
            out.join("manifests").display()
        ));
    }
    let manifests: Vec<Manifest> = manifests.iter().filter(|m| !invalid(m)).cloned().collect();
    let manifests = &manifests[..];
    if canary_planned {
        let missed: Vec<&Manifest> = manifests
            .iter()
            .filter(|m| m.kind == RunKind::Canary && !m.verdict.safety_violation())
            .collect();
        let ran = manifests.iter().any(|m| m.kind == RunKind::Canary);
        if !ran && !bad.iter().any(|m| m.kind == RunKind::Canary) {
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
    failures.extend(self_test_failures(file, out, manifests));
    failures.extend(super::sanity::nominal_gate(file, out, manifests));
    failures
}

/// The self-test check: every fault run of a test with `self_test` must get
/// its expected verdict class (and reason, and satisfied expectations); one
/// message per test with a mismatch, naming its runs.
fn self_test_failures(file: &ScenarioFile, out: &Path, manifests: &[Manifest]) -> Vec<String> {
    let mut failures = Vec::new();
    for t in &file.tests {
        let Some(st) = &t.self_test else { continue };
        let runs: Vec<&Manifest> = manifests
            .iter()
            .filter(|m| {
                m.kind == RunKind::Test
                    && m.judgement
                        .test
                        .as_ref()
                        .is_some_and(|i| i.test == t.name && !i.baseline)
            })
            .collect();
        let bad: Vec<String> = runs
            .iter()
            .filter_map(|m| {
                st.mismatch(&m.judgement)
                    .map(|why| format!("{}: {why}", m.run_id))
            })
            .collect();
        if !bad.is_empty() {
            failures.push(format!(
                "self-test '{}': {} of {} fault run(s) do not meet its declaration ({}): {}{}; the harness or the test does not do what it claims; see their manifests in {}",
                t.name,
                bad.len(),
                runs.len(),
                st.describe(),
                bad.iter().take(3).cloned().collect::<Vec<_>>().join("; "),
                if bad.len() > 3 { "; ..." } else { "" },
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
        env!("BREAKBENCH_VERSION_BREAKBENCH").to_string(),
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

/// Runs (or resumes) the campaign of `scenario` into `opts.out`.
///
/// Runs whose manifest already exists with the same scenario hash are
/// skipped; everything is written atomically, so an interrupted campaign is
/// resumed by running the same command again.
///
/// # Errors
/// [`CampaignError::OtherScenario`] if `opts.out` holds another scenario's
/// results, [`CampaignError::Shard`] if it holds one shard of a sharded
/// campaign, [`CampaignError::Locked`] if another campaign writes it,
/// [`CampaignError::OverBudget`] (before anything is created or run) if the
/// plan exceeds `opts.budget`; I/O errors with their path.
pub fn run_campaign(
    scenario: &Scenario,
    opts: &CampaignOptions,
) -> Result<CampaignResult, CampaignError> {
    run_campaign_on(scenario, opts, &InProcess::default())
}

/// [`run_campaign`] with each run executed by `executor` (in-process, or on
/// a ROS 2 graph: [`super::graph::GraphExecutor`]).
///
/// # Errors
/// As [`run_campaign`], and the executor's configuration errors.
pub fn run_campaign_on(
    scenario: &Scenario,
    opts: &CampaignOptions,
    executor: &dyn Executor,
) -> Result<CampaignResult, CampaignError> {
    let done = execute_plan(scenario, opts, None, executor)?;
    let out = &opts.out;
    let (_, manifests) = load_campaign(out)?;
    let summary = Summary::compute(&scenario.file, &scenario.hash, &manifests);
    write_json_atomic(&out.join("summary.json"), &summary)?;
    super::outputs::write_outputs(out, scenario, &summary, &manifests)?;
    let harness_failures = harness_failures(&scenario.file, out, &manifests);
    Ok(CampaignResult {
        summary,
        timing: done.timing,
        harness_failures,
    })
}

/// The outcome of [`run_shard`].
pub struct ShardResult {
    pub shard: Shard,
    /// Runs in the slice.
    pub runs: usize,
    pub timing: Timing,
    /// The harness checks of the slice's runs that failed (the canary's only
    /// if the canary is in this slice); see [`harness_failures`].
    pub harness_failures: Vec<String>,
}

/// Runs (or resumes) slice `shard` of the campaign of `scenario` into
/// `opts.out` (see [`Shard`] for the rule): the slice's manifests and traces,
/// campaign.json (the whole plan, as an unsharded campaign writes it),
/// shard.json ([`ShardFile`]: the shard, the scenario hash and this build)
/// and timing.json. No summary, report or junit.xml: those describe a whole
/// campaign, and `breakbench merge` writes them from every shard.
///
/// The nominal set's spread-convergence criterion is a check computed from
/// the complete nominal set, not a stopping rule: every slice runs all its
/// planned runs, so the merged manifests are those of the unsharded campaign.
///
/// # Errors
/// As [`run_campaign`]; [`CampaignError::Shard`] if `opts.out` holds an
/// unsharded campaign or another shard. The budget is checked for the slice.
pub fn run_shard(
    scenario: &Scenario,
    opts: &CampaignOptions,
    shard: Shard,
) -> Result<ShardResult, CampaignError> {
    run_shard_on(scenario, opts, shard, &InProcess::default())
}

/// [`run_shard`] with each run executed by `executor`.
///
/// # Errors
/// As [`run_shard`], and the executor's configuration errors.
pub fn run_shard_on(
    scenario: &Scenario,
    opts: &CampaignOptions,
    shard: Shard,
    executor: &dyn Executor,
) -> Result<ShardResult, CampaignError> {
    let done = execute_plan(scenario, opts, Some(shard), executor)?;
    let out = &opts.out;
    // The slice's manifests only, checked as analyze checks them (not a
    // lookup of every planned run: 100,000 in each of 1,000 shards).
    let all = plan(scenario);
    let slice = shard.slice(&all);
    let ledger = read_ledger(out)?;
    let mut mine: Vec<Manifest> = Vec::with_capacity(slice.len());
    for r in &slice {
        mine.extend(load_run(out, r, &scenario.hash, &ledger)?);
    }
    let canary_here = slice.iter().any(|r| r.kind == RunKind::Canary);
    Ok(ShardResult {
        shard,
        runs: done.runs.len(),
        timing: done.timing,
        harness_failures: checks(&scenario.file, out, &mine, canary_here),
    })
}

/// What [`execute_plan`] did; holds the directory's lock.
struct Executed {
    _lock: std::fs::File,
    /// The run ids of the executed slice (the whole plan without a shard).
    runs: Vec<String>,
    timing: Timing,
}

/// Checks the budget, claims `opts.out`, and executes the runs of `shard`
/// (the whole plan if `None`) that have no reusable manifest there, with
/// `executor`. An invalid graph run, and a manifest of the other kind of
/// executor, is not reused.
fn execute_plan(
    scenario: &Scenario,
    opts: &CampaignOptions,
    shard: Option<Shard>,
    executor: &dyn Executor,
) -> Result<Executed, CampaignError> {
    let wall = Instant::now();
    executor.supports(scenario)?;
    let estimate = match &shard {
        Some(sh) => super::Estimate::of_shard(scenario, sh),
        None => super::Estimate::of(scenario),
    }
    .with_recording(scenario, executor.record_mode());
    opts.budget.check(&estimate)?;
    let out = &opts.out;
    let all = plan(scenario);
    let runs: Vec<&RunSpec> = match &shard {
        Some(sh) => sh.slice(&all),
        None => all.iter().collect(),
    };
    let lock = claim_out_dir(scenario, out)?;
    let cpath = out.join("campaign.json");
    let prov = provenance();
    check_shard_identity(out, shard.as_ref(), cpath.exists())?;
    // Every stored run's evidence is checked before anything is written:
    // a file that does not match refuses the directory (REQ-CAMPAIGN-EVIDENCE).
    let (pending, rerun) = stored_runs(out, &runs, scenario, executor, &prov)?;
    if let Some(sh) = shard {
        // Written before campaign.json, so a directory with a campaign.json
        // and no shard.json is always an unsharded campaign.
        let sf = ShardFile {
            schema: SHARD_SCHEMA.into(),
            shard: sh,
            rule: SHARD_RULE.into(),
            scenario_hash: scenario.hash.clone(),
            provenance: prov.clone(),
            runs: runs.iter().map(|r| r.run_id.clone()).collect(),
        };
        write_json_atomic(&out.join(SHARD_FILE), &sf)?;
    }
    // A shard's names the plan by its size and digest, not run by run
    // (REQ-SCALE-MERGE): its own slice is in shard.json.
    let (ids, plan_ref) = match shard {
        Some(_) => (
            Vec::new(),
            Some(PlanRef::of(all.iter().map(|r| r.run_id.as_str()))),
        ),
        None => (all.iter().map(|r| r.run_id.clone()).collect(), None),
    };
    let cf = CampaignFile {
        schema: "breakbench.campaign/1".into(),
        scenario_path: scenario.path.display().to_string(),
        scenario_hash: scenario.hash.clone(),
        scenario: scenario.file.clone(),
        runs: ids,
        plan: plan_ref,
    };
    write_json_atomic(&cpath, &cf)?;

    remove_stale_temporaries(out);
    let ledger = LedgerWriter::open(out)?;
    let resumed = runs.len() - pending.len();
    let bar = progress_bar(opts.progress, runs.len(), resumed);
    announce_resume(&bar, out, runs.len(), resumed, prov.git_dirty, &rerun);
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
                let res = executor
                    .execute(scenario, spec, &prov)
                    .and_then(|o| store_run(out, spec, o, &ledger));
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

    // One line per run of the slice, in plan order.
    let ids: Vec<String> = runs.iter().map(|r| r.run_id.clone()).collect();
    drop(ledger);
    compact(out, &ids)?;

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
    Ok(Executed {
        _lock: lock,
        runs: ids,
        timing,
    })
}

/// Stores the output `o` of run `spec` in `out`: the evidence files first
/// (trace, provenance record), then the manifest holding their sha256, then
/// its ledger line (REQ-CAMPAIGN-EVIDENCE, REQ-CAMPAIGN-ATOMIC); returns the
/// manifest.
///
/// # Errors
/// [`CampaignError::Io`] or [`CampaignError::Json`] naming the file.
fn store_run(
    out: &Path,
    spec: &RunSpec,
    mut o: super::run::RunOutput,
    ledger: &LedgerWriter,
) -> Result<Manifest, CampaignError> {
    let tpath = out.join(&o.manifest.trace_file);
    o.manifest.trace_sha256 = sha256_hex(o.trace_csv.as_bytes());
    write_atomic(&tpath, o.trace_csv.as_bytes())?;
    if let Some(csv) = &o.provenance_csv {
        o.manifest.provenance_sha256 = Some(sha256_hex(csv.as_bytes()));
        write_atomic(&out.join(provenance_file(&spec.run_id)), csv.as_bytes())?;
    }
    if let Some(mcap) = &o.recording {
        o.manifest.recording_sha256 = Some(sha256_hex(mcap));
        write_atomic(&out.join(recording_file(&spec.run_id)), mcap)?;
    }
    let mpath = manifest_path(out, &spec.run_id);
    let mut bytes = serde_json::to_vec_pretty(&o.manifest).map_err(|e| CampaignError::Json {
        path: mpath.display().to_string(),
        source: e,
    })?;
    bytes.push(b'\n');
    write_atomic(&mpath, &bytes)?;
    ledger.record(&spec.run_id, &bytes)?;
    Ok(o.manifest)
}

/// The campaign's progress bar over `total` runs, at `resumed` (hidden
/// without `progress`).
fn progress_bar(progress: bool, total: usize, resumed: usize) -> ProgressBar {
    let bar = if progress {
        ProgressBar::new(total as u64)
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
    bar
}

/// Says on stderr (above the bar when it is drawn, whether or not it is:
/// --quiet, no terminal) how many of `total` runs in `out` are resumed, that
/// a dirty build reuses them, and which stored runs are rerun and why.
fn announce_resume(
    bar: &ProgressBar,
    out: &Path,
    total: usize,
    resumed: usize,
    git_dirty: bool,
    rerun: &Reruns,
) {
    let note = |msg: String| {
        // A note may quote a stored file: no control sequence reaches the terminal.
        let msg = kraken_interfaces::text::terminal_safe(&msg).into_owned();
        if bar.is_hidden() {
            eprintln!("{msg}");
        } else {
            bar.println(msg);
        }
    };
    if resumed > 0 {
        note(format!(
            "resuming: {resumed} of {total} runs already complete in {}",
            out.display()
        ));
        if git_dirty {
            note("note: this binary was built from a dirty tree; complete runs made by the same commit are reused even if the uncommitted code changed".into());
        }
    }
    for (why, ids) in rerun {
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
}

/// Claims `out` for the campaign of `scenario`: a directory name the system
/// takes, no unrelated files, not another scenario's campaign; created if
/// missing, and locked (the lock is held while the returned file lives).
///
/// # Errors
/// [`CampaignError::OutPath`], [`CampaignError::OtherScenario`], a claim
/// or I/O error naming the directory.
fn claim_out_dir(scenario: &Scenario, out: &Path) -> Result<std::fs::File, CampaignError> {
    // Never a directory of unrelated files, nor paths the system refuses.
    // (The length first: the system refuses to look at a path too long.)
    super::names::check_out_dir(out, &scenario.file).map_err(CampaignError::OutPath)?;
    super::claim::check_out_claim(
        out,
        &scenario.hash,
        &scenario.path,
        super::claim::Claimant::Campaign,
    )?;
    std::fs::create_dir_all(out).map_err(|e| CampaignError::io(out, e))?;
    let lock = lock_dir(out)?;
    if out.join("campaign.json").exists() {
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
    Ok(lock)
}

/// Run ids of the stored manifests that cannot be reused, by reason.
type Reruns = BTreeMap<String, Vec<String>>;

/// The runs of `runs` to execute: those without a manifest, and those whose
/// manifest cannot be reused, with the reasons (reason → run ids). Every
/// stored manifest is first checked against the ledger, with its evidence
/// files ([`check_run`]); a manifest without a ledger line (the campaign was
/// interrupted between the two writes) is run again.
///
/// # Errors
/// [`CampaignError::Evidence`] naming the first file that does not match
/// its record; I/O errors.
fn stored_runs<'a>(
    out: &Path,
    runs: &[&'a RunSpec],
    scenario: &Scenario,
    executor: &dyn Executor,
    prov: &Provenance,
) -> Result<(Vec<&'a RunSpec>, Reruns), CampaignError> {
    let ledger = read_ledger(out)?;
    let mut pending = Vec::new();
    // (reason, run ids) of the manifests that cannot be reused.
    let mut rerun: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in runs.iter().copied() {
        let why = match check_run(out, &r.run_id, &ledger)? {
            Stored::Verified(m) if invalid(&m) => Some("an invalid graph run".to_string()),
            Stored::Verified(m) if m.graph.is_some() != executor.on_graph() => Some(format!(
                "executed {}, this campaign runs {}",
                if m.graph.is_some() {
                    "on a graph"
                } else {
                    "in-process"
                },
                if executor.on_graph() {
                    "on a graph"
                } else {
                    "in-process"
                }
            )),
            Stored::Verified(m)
                if executor.records_provenance() && m.provenance_sha256.is_none() =>
            {
                Some("no provenance record (--record-provenance)".to_string())
            }
            Stored::Verified(m) if recorded_otherwise(&m, executor.record_mode()) => Some(format!(
                "recorded {} (this campaign records {})",
                stored_record_mode(&m),
                executor.record_mode().name()
            )),
            Stored::Verified(m) => reuse_problem(&m, r, &scenario.hash, prov),
            Stored::Unrecorded(_) => Some(format!(
                "no line in {LEDGER_FILE} (written when the campaign was interrupted)"
            )),
            Stored::Missing => {
                pending.push(r);
                continue;
            }
        };
        if let Some(why) = why {
            rerun.entry(why).or_default().push(r.run_id.clone());
            pending.push(r);
        }
    }
    Ok((pending, rerun))
}

/// Refuses to run `shard` (`None`: the whole plan) into `out` if `out` holds
/// another one: its shard.json names another shard, or it has one and the
/// whole plan is asked for, or it has a campaign.json (`has_campaign`) and no
/// shard.json (an unsharded campaign) and a shard is asked for.
fn check_shard_identity(
    out: &Path,
    shard: Option<&Shard>,
    has_campaign: bool,
) -> Result<(), CampaignError> {
    let held = if out.join(SHARD_FILE).exists() {
        Some(read_shard_file(out)?.shard)
    } else {
        None
    };
    let dir = out.display();
    match (held, shard) {
        (Some(h), Some(s)) if h != *s => Err(CampaignError::Shard(format!(
            "{dir} holds shard {h} of this campaign, not shard {s}: use another --out directory per shard"
        ))),
        (Some(h), None) => Err(CampaignError::Shard(format!(
            "{dir} holds shard {h} of a sharded campaign: resume it with --shard {h}, or merge the shards with breakbench merge"
        ))),
        (None, Some(s)) if has_campaign => Err(CampaignError::Shard(format!(
            "{dir} holds an unsharded campaign (campaign.json, no {SHARD_FILE}), not shard {s}: use another --out directory per shard"
        ))),
        _ => Ok(()),
    }
}

/// `breakbench analyze`: recomputes summary.json from the manifests alone.
///
/// # Errors
/// [`CampaignError::Shard`] for the directory of one shard (it has
/// `shard.json`): its manifests are a slice of the plan, so their summary
/// would read as the campaign's; merge the shards and analyze the merge.
/// [`CampaignError::Incomplete`] when a planned run has no manifest (an
/// interrupted campaign: resume it first). Those of loading the campaign
/// directory.
pub fn analyze(out: &Path) -> Result<Summary, CampaignError> {
    if let Ok(text) = std::fs::read_to_string(out.join(SHARD_FILE)) {
        let shard = serde_json::from_str::<ShardFile>(&text)
            .map(|sf| format!("shard {} ({} runs of the plan)", sf.shard, sf.runs.len()))
            .unwrap_or_else(|_| "a shard".into());
        return Err(CampaignError::Shard(format!(
            "{} holds {shard} of a sharded campaign ({SHARD_FILE}), not a whole campaign: merge the shards with `breakbench merge <shard dirs...> --out <dir>` and analyze the merged directory",
            out.display()
        )));
    }
    // One manifest at a time, in run-id order, folded by a SummaryStream
    // (REQ-SCALE-FLAT): the summary of every manifest without holding them
    // or their digests; the plan held compact.
    let cf = super::store::read_campaign_file(out)?;
    let plan = super::compact_plan::CompactPlan::new(&cf.scenario);
    let names = match &cf.plan {
        Some(p) => cf.runs.is_empty() && *p == plan.plan_ref(),
        None => cf.runs.len() == plan.len() && cf.runs.iter().map(String::as_str).eq(plan.ids()),
    };
    if !names {
        return Err(super::store::not_the_plan(
            out,
            cf.planned_runs(),
            plan.len(),
        ));
    }
    let ledger = super::ledger::read_ledger(out)?;
    let mut stream = super::summary_stream::SummaryStream::new(&cf.scenario, None)?;
    // How many planned runs have no manifest, and the first in plan order;
    // the refusal of the first run in plan order that is refused (read in
    // run-id order, refused as a walk in plan order refuses).
    let (mut missing, mut first_missing) = (0usize, usize::MAX);
    let mut refused: Option<(usize, CampaignError)> = None;
    for &i in plan.by_id() {
        let i = i as usize;
        match super::store::load_run(out, &plan.spec(i), &cf.scenario_hash, &ledger) {
            Ok(Some(m)) if refused.is_none() => stream.add(&m)?,
            Ok(Some(_)) => {}
            Ok(None) => {
                missing += 1;
                first_missing = first_missing.min(i);
            }
            Err(e) => {
                if refused.as_ref().is_none_or(|(j, _)| i < *j) {
                    refused = Some((i, e));
                }
            }
        }
    }
    if let Some((_, e)) = refused {
        return Err(e);
    }
    if missing > 0 {
        return Err(CampaignError::Incomplete {
            dir: out.display().to_string(),
            missing,
            planned: cf.runs.len(),
            first: plan.id(first_missing).to_string(),
        });
    }
    Ok(stream.finish(&cf.scenario_hash, out)?.0)
}

/// The recording policy a stored run was written with: its manifest's
/// `recording_mode`; `full` for a recording from before that field, `none`
/// without a recording.
fn stored_record_mode(m: &Manifest) -> &str {
    match (&m.recording_mode, &m.recording_sha256) {
        (Some(mode), _) => mode,
        (None, Some(_)) => "full",
        (None, None) => "none",
    }
}

/// Whether a stored run must run again to be recorded with `mode`: a
/// campaign that records (`full`, `events`) reuses only runs recorded with
/// the same policy; one that records nothing reuses every run.
fn recorded_otherwise(m: &Manifest, mode: super::run::RecordMode) -> bool {
    mode != super::run::RecordMode::None && stored_record_mode(m) != mode.name()
}
