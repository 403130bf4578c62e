//! The severity search (REQ-STUDY-ESCAPE-SEARCH): where along a fault axis
//! the probability of an event (by default an *escape*: a mission failure
//! or safety violation the robot did not detect) crosses a target, found by
//! bisection, each probed severity with its Wilson interval.
//!
//! Issue 9 asks for "the largest fault that escapes the gate": a grid study
//! at five severities says only that the answer lies between two of them;
//! the search narrows it to a bracket `[from, to]` whose ends fall on the
//! two sides of the target probability, and says whether their intervals
//! exclude the target (the bracket is *resolved*) or more repeats are needed.
//!
//! A scenario declares its searches under `escape_search:`; `breakbench
//! search <scenario> --out <dir>` runs them in-process, every probed severity
//! on the grid's common random numbers (repeat `r` seeded
//! `derive_seed(seed, "repeat-r")`, as every grid cell), and writes
//! `<dir>/search_<name>.json` atomically after each probe (and, when it
//! finishes, `search_<name>.html`: the probes in the order chosen, with the
//! adaptive design's fitted curve); a rerun reuses the
//! probes already there (same scenario hash and search), so an interrupted
//! search resumes with nothing lost or run twice.
//!
//! ```yaml
//! escape_search:
//!   - name: mahalanobis_ramp
//!     axis: ramp_rate_m_s        # a fault axis of the scenario
//!     lo: 0.5                    # bracket, the axis' unit
//!     hi: 50.0
//!     fixed: { gating: mahalanobis }   # every other axis (fault: a number; navigator: a label)
//!     event: escaped             # escaped | detected | mission_failure | safety_violation
//!     p: 0.5                     # the target probability
//!     repeats: 20                # runs per probed severity
//!     steps: 6                   # bisection steps after the two ends
//!     spacing: log               # log (geometric midpoint; lo > 0) | linear
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::manifest::{Manifest, Provenance, RunKind};
use super::plan::derive_seed;
use super::run::RunSpec;
use super::stats::wilson;
use super::{CampaignError, Scenario};

use super::design::adaptive::{run_adaptive, AdaptiveRule, Stop};
use super::dose::{Interval as SStarInterval, SStar};
pub use super::scenario::search::{EscapeSearch, Fixed, Method, SearchEvent, Spacing};

impl SearchEvent {
    /// Whether the event happened in the judged run `m`.
    pub fn happened(self, m: &Manifest) -> bool {
        match self {
            SearchEvent::Escaped => super::summary::escaped(m),
            SearchEvent::Detected => m
                .detection
                .as_ref()
                .is_some_and(|d| d.after_fault_s.is_some()),
            SearchEvent::MissionFailure => m.verdict.mission_failure(),
            SearchEvent::SafetyViolation => m.verdict.safety_violation(),
        }
    }
}

/// One run of a probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeRun {
    pub repeat: usize,
    pub seed: u64,
    pub mission_failure: bool,
    pub safety_violation: bool,
    /// Detected after the fault was applied (`false` without `detection:`).
    pub detected: bool,
    /// The searched event happened.
    pub event: bool,
}

/// A probed severity: the event's count over its runs and its Wilson
/// interval at the scenario's confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The searched axis' value.
    pub value: f64,
    pub n: u64,
    /// Runs with the event.
    pub k: u64,
    pub p_hat: f64,
    pub wilson_low: f64,
    pub wilson_high: f64,
    /// `p_hat >= p`: the side of the target it falls on.
    pub at_or_above_target: bool,
    /// `adaptive` only: why the design chose it (`start`, `bisect`,
    /// `firth`, `fieller`: [`crate::design::adaptive::Step::why`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
    pub runs: Vec<ProbeRun>,
}

impl Probe {
    fn from_runs(value: f64, runs: Vec<ProbeRun>, p: f64, confidence: f64) -> Self {
        let n = runs.len() as u64;
        let k = runs.iter().filter(|r| r.event).count() as u64;
        let (lo, hi) = wilson(k, n, confidence);
        let p_hat = k as f64 / n as f64;
        Probe {
            value,
            n,
            k,
            p_hat,
            wilson_low: lo,
            wilson_high: hi,
            at_or_above_target: p_hat >= p,
            chosen: None,
            runs,
        }
    }

    /// The interval excludes `p` (on the probe's side of it).
    fn decided(&self, p: f64) -> bool {
        if self.at_or_above_target {
            self.wilson_low > p
        } else {
            self.wilson_high < p
        }
    }

    fn line(&self) -> String {
        format!(
            "{}/{} ({:.2}, [{:.2}, {:.2}])",
            self.k, self.n, self.p_hat, self.wilson_low, self.wilson_high
        )
    }
}

/// The search's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchOutcome {
    /// The ends of the last bracket: `from` on the side of `lo`, `to` on
    /// the side of `hi`, with their counts (no crossing: `lo` and `hi`).
    pub from: f64,
    pub to: f64,
    /// The ends fall on the two sides of the target (a crossing lies in
    /// `[from, to]` if the probability is monotone between them).
    pub crossing: bool,
    /// Both ends' Wilson intervals exclude the target.
    pub resolved: bool,
    /// The answer in a sentence.
    pub statement: String,
    /// `adaptive` only: the design's fit and why it stopped. `from`/`to`
    /// are then the ends of Fieller's interval on s* (`lo`/`hi` where it is
    /// unbounded), `crossing` says s* lies in `[lo, hi]` and `resolved` that
    /// the interval reached `target_width`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveResult>,
}

/// The adaptive design's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveResult {
    /// Runs spent.
    pub runs: u64,
    /// `width`, `budget` or `out_of_range`.
    pub stop: String,
    /// s* with its delta and Fieller intervals; `None` when the GLM never
    /// had a finite fit with a rising slope.
    pub s_star: Option<SStar>,
}

/// `search_<name>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    pub schema: String,
    pub scenario_name: String,
    pub scenario_hash: String,
    pub confidence: f64,
    pub search: EscapeSearch,
    pub provenance: Provenance,
    /// Every probe, in the order run: `lo`, `hi`, then each midpoint.
    pub probes: Vec<Probe>,
    /// `None` until the search has finished.
    pub outcome: Option<SearchOutcome>,
}

/// The schema tag of [`SearchRecord`].
pub const SEARCH_SCHEMA: &str = "breakbench.search.v1";

/// How to run a search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub out: PathBuf,
    /// Runs executed at once (≥ 1).
    pub jobs: usize,
    /// No progress lines on stderr.
    pub quiet: bool,
}

/// The output file of search `name` in `out`.
pub fn record_path(out: &Path, name: &str) -> PathBuf {
    out.join(format!("search_{name}.json"))
}

/// The page of search `name` in `out` (`search_<name>.html`: its probes in
/// the order chosen, the figure; `breakbench search` writes it with
/// [`crate::report::search_html`] when the search finishes).
pub fn html_path(out: &Path, name: &str) -> PathBuf {
    out.join(format!("search_{name}.html"))
}

/// Runs `search` of `scenario` (see the module docs), resuming from the
/// record in `opts.out` if it is of the same scenario hash and search.
///
/// # Errors
/// [`CampaignError`] from a run, or from reading or writing the record.
pub fn run_search(
    scenario: &Scenario,
    search: &EscapeSearch,
    provenance: &Provenance,
    opts: &SearchOptions,
) -> Result<SearchRecord, CampaignError> {
    let path = record_path(&opts.out, &search.name);
    super::claim::check_out_claim(
        &opts.out,
        &scenario.hash,
        &scenario.path,
        super::claim::Claimant::Search,
    )?;
    if opts.out.exists() && !opts.out.is_dir() {
        return Err(CampaignError::io(
            &opts.out,
            std::io::Error::other("--out is not a directory"),
        ));
    }
    let stored: Vec<Probe> = match std::fs::read(&path) {
        Ok(b) => match serde_json::from_slice::<SearchRecord>(&b) {
            Ok(r) if r.scenario_hash == scenario.hash && r.search == *search => {
                eprintln!(
                    "search {}: resuming from {} ({} probe(s) stored)",
                    search.name,
                    path.display(),
                    r.probes.len()
                );
                r.probes
            }
            Ok(_) => {
                eprintln!(
                    "search {}: {} is of another scenario hash or search: starting over (it will be replaced)",
                    search.name,
                    path.display()
                );
                Vec::new()
            }
            Err(e) => {
                eprintln!(
                    "search {}: {} is not a search record ({e}): starting over (it will be replaced)",
                    search.name,
                    path.display()
                );
                Vec::new()
            }
        },
        Err(_) => Vec::new(),
    };
    std::fs::create_dir_all(&opts.out).map_err(|e| CampaignError::io(&opts.out, e))?;
    let mut rec = SearchRecord {
        schema: SEARCH_SCHEMA.into(),
        scenario_name: scenario.file.name.clone(),
        scenario_hash: scenario.hash.clone(),
        confidence: scenario.file.confidence,
        search: search.clone(),
        provenance: provenance.clone(),
        probes: Vec::new(),
        outcome: None,
    };
    let pr = Prober {
        scenario,
        search,
        provenance,
        opts,
        stored,
        path,
        total: 2 + search.steps,
    };
    rec.outcome = Some(match search.method {
        Method::Bisect => bisect(&pr, &mut rec)?,
        Method::Adaptive => adaptive(&pr, &mut rec)?,
    });
    write(&pr.path, &rec)?;
    Ok(rec)
}

/// Runs a search's probes: the stored probe at the same position and
/// severity is reused (a resumed search is deterministic, so it asks for
/// the same severities in the same order), and the record is written after
/// each probe.
struct Prober<'a> {
    scenario: &'a Scenario,
    search: &'a EscapeSearch,
    provenance: &'a Provenance,
    opts: &'a SearchOptions,
    stored: Vec<Probe>,
    path: PathBuf,
    total: usize,
}

impl Prober<'_> {
    /// The probe at `value`, its runs numbered from `first_repeat`.
    fn probe(
        &self,
        value: f64,
        first_repeat: usize,
        chosen: Option<&str>,
        rec: &mut SearchRecord,
    ) -> Result<Probe, CampaignError> {
        let (search, scenario) = (self.search, self.scenario);
        let p = match self.stored.get(rec.probes.len()) {
            // recomputed from its runs: the figures are exactly those of the
            // first pass (a JSON float read back can differ in the last bit)
            Some(p) if p.value == value => {
                let mut q =
                    Probe::from_runs(value, p.runs.clone(), search.p, scenario.file.confidence);
                q.chosen = p.chosen.clone();
                q
            }
            _ => {
                let runs = probe_runs(
                    scenario,
                    search,
                    value,
                    first_repeat,
                    self.provenance,
                    self.opts.jobs,
                )?;
                let mut p = Probe::from_runs(value, runs, search.p, scenario.file.confidence);
                p.chosen = chosen.map(str::to_string);
                p
            }
        };
        rec.probes.push(p.clone());
        write(&self.path, rec)?;
        if !self.opts.quiet {
            eprintln!(
                "search {}: probe {}/{}: {} = {}: {} {}{}",
                search.name,
                rec.probes.len(),
                self.total,
                search.axis,
                value,
                search.event.name(),
                p.line(),
                chosen.map_or(String::new(), |c| format!(" ({c})")),
            );
        }
        Ok(p)
    }
}

/// Bisection (REQ-STUDY-ESCAPE-SEARCH): `lo`, `hi`, then midpoints.
fn bisect(pr: &Prober, rec: &mut SearchRecord) -> Result<SearchOutcome, CampaignError> {
    let search = pr.search;
    let lo = pr.probe(search.lo, 0, None, rec)?;
    let hi = pr.probe(search.hi, 0, None, rec)?;
    let (mut a, mut b) = (lo.clone(), hi.clone());
    let crossing = lo.at_or_above_target != hi.at_or_above_target;
    if crossing {
        for _ in 0..search.steps {
            let mid = search.midpoint(a.value, b.value);
            if mid == a.value || mid == b.value {
                break; // the bracket is as narrow as the values can name
            }
            let m = pr.probe(mid, 0, None, rec)?;
            if m.at_or_above_target == a.at_or_above_target {
                a = m;
            } else {
                b = m;
            }
        }
    }
    let resolved = a.decided(search.p) && b.decided(search.p);
    let what = search.event.name();
    let statement = if crossing {
        format!(
            "P({what}) crosses {} between {} = {} ({}) and {} ({}){}",
            search.p,
            search.axis,
            a.value,
            a.line(),
            b.value,
            b.line(),
            if resolved {
                ": resolved"
            } else {
                ": not resolved, an end's Wilson interval includes the target (more repeats needed)"
            }
        )
    } else {
        format!(
            "no crossing of {} in [{}, {}]: P({what}) is {} at {} = {} and {} at {}{}",
            search.p,
            search.lo,
            search.hi,
            lo.line(),
            search.axis,
            search.lo,
            hi.line(),
            search.hi,
            if resolved {
                ": resolved"
            } else {
                ": not resolved, an end's Wilson interval includes the target"
            }
        )
    };
    Ok(SearchOutcome {
        from: a.value,
        to: b.value,
        crossing,
        resolved,
        statement,
        adaptive: None,
    })
}

/// The adaptive design (REQ-STAT-ADAPTIVE): `lo` and `hi`, then each batch
/// of `repeats` runs where [`crate::design::adaptive`] puts it, every batch
/// on new repeat numbers (batch `j` runs repeats `j·repeats ..`).
fn adaptive(pr: &Prober, rec: &mut SearchRecord) -> Result<SearchOutcome, CampaignError> {
    let search = pr.search;
    let rule = AdaptiveRule {
        lo: search.lo,
        hi: search.hi,
        p_star: search.p,
        confidence: pr.scenario.file.confidence,
        link: pr.scenario.file.statistics.unwrap_or_default().link,
        initial_levels: 2,
        batch_runs: search.repeats as u64,
        candidates: 201,
        target_width: search.target_width.unwrap_or(search.hi - search.lo),
        max_runs: ((2 + search.steps) * search.repeats) as u64,
    };
    let mut batches = 0usize;
    let out = run_adaptive(&rule, &mut |s, why| {
        let p = pr.probe(s, batches * search.repeats, Some(why), rec)?;
        batches += 1;
        Ok::<u64, CampaignError>(p.k)
    })?;
    let mut out = out;
    if let Some(ss) = out.s_star.as_mut() {
        ss.axis = search.axis.clone();
        ss.at = search.cell(&pr.scenario.file, search.lo);
        ss.at.remove(&search.axis);
    }
    let (what, axis) = (search.event.name(), &search.axis);
    let f = out.s_star.as_ref().map(|s| &s.fieller);
    let (from, to) = match f {
        Some(SStarInterval {
            low: Some(l),
            high: Some(h),
        }) => (*l, *h),
        _ => (search.lo, search.hi),
    };
    let value = out.s_star.as_ref().and_then(|s| s.value);
    let crossing = value.is_some_and(|v| (search.lo..=search.hi).contains(&v));
    let stop = match out.stop {
        Stop::Width => "width",
        Stop::Budget => "budget",
        Stop::OutOfRange => "out_of_range",
    };
    let fit = match (value, out.s_star.as_ref()) {
        (Some(v), Some(s)) => format!(
            "P({what}) = {} at {axis} = {v:.4} (Fieller {}, delta {})",
            search.p,
            interval_text(&s.fieller),
            interval_text(&s.delta)
        ),
        _ => format!("P({what}) has no finite fit (separated or falling)"),
    };
    let statement = match out.stop {
        Stop::Width => format!(
            "{fit}: adaptive, {} runs in {} probes, Fieller's interval within the target width {}",
            out.runs,
            out.steps.len(),
            rule.target_width
        ),
        Stop::Budget => format!(
            "{fit}: adaptive, the budget of {} runs spent before Fieller's interval reached {} (not resolved)",
            rule.max_runs, rule.target_width
        ),
        Stop::OutOfRange => format!(
            "no crossing of {} in [{}, {}]: every probe's p̂ is on one side (adaptive, {} runs)",
            search.p, search.lo, search.hi, out.runs
        ),
    };
    Ok(SearchOutcome {
        from,
        to,
        crossing,
        resolved: out.stop == Stop::Width,
        statement,
        adaptive: Some(AdaptiveResult {
            runs: out.runs,
            stop: stop.into(),
            s_star: out.s_star,
        }),
    })
}

/// `[low, high]` to 4 decimals; `unbounded` for a missing end.
fn interval_text(i: &SStarInterval) -> String {
    match (i.low, i.high) {
        (Some(l), Some(h)) => format!("[{l:.4}, {h:.4}]"),
        _ => "unbounded".into(),
    }
}

fn write(path: &Path, rec: &SearchRecord) -> Result<(), CampaignError> {
    let mut b = serde_json::to_vec_pretty(rec)
        .map_err(|e| CampaignError::io(path, std::io::Error::other(e)))?;
    b.push(b'\n');
    super::atomic::write_atomic(path, &b)
}

/// The `repeats` runs of severity `value`, repeats `first_repeat ..`, `jobs`
/// at a time, in repeat order.
fn probe_runs(
    scenario: &Scenario,
    search: &EscapeSearch,
    value: f64,
    first_repeat: usize,
    provenance: &Provenance,
    jobs: usize,
) -> Result<Vec<ProbeRun>, CampaignError> {
    let cell = search.cell(&scenario.file, value);
    let repeats: Vec<usize> = (first_repeat..first_repeat + search.repeats).collect();
    super::parallel::par_map(&repeats, jobs, |&r| {
        let seed = derive_seed(scenario.file.seed, &format!("repeat-{r}"));
        let spec = RunSpec::new(
            format!("search_{}_r{r}", search.name),
            RunKind::Grid,
            seed,
            r,
        )
        .with_cell(&scenario.file, &cell);
        super::run::execute(scenario, &spec, provenance).map(|o| {
            let m = &o.manifest;
            ProbeRun {
                repeat: r,
                seed,
                mission_failure: m.verdict.mission_failure(),
                safety_violation: m.verdict.safety_violation(),
                detected: SearchEvent::Detected.happened(m),
                event: search.event.happened(m),
            }
        })
    })
    .into_iter()
    .collect()
}
