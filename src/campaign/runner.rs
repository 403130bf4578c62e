//! Runs a whole campaign: the plan ([`super::plan`]), resume from the store
//! ([`super::store`]), execute in parallel, write results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use breakbench_records::sha256_hex;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::atomic::{write_atomic, write_json_atomic};
use super::manifest::{Manifest, Provenance, RunKind};
use super::plan::plan;
use super::run::execute;
use super::scenario::{Scenario, ScenarioFile};
use super::store::{
    load_campaign, lock_dir, manifest_path, read_campaign_file, read_manifest,
    remove_stale_temporaries, reuse_problem, CampaignFile,
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
