//! The runs of a campaign as summary.json, junit.xml, report.html and the
//! harness checks read them, held in memory flat in the number of runs
//! (REQ-SCALE-STREAM).
//!
//! A [`RunSet`] takes manifests one at a time, in any order, and keeps of
//! each study run (grid, nominal, canary) only a [`RunDigest`]: the few
//! numbers the summary's per-cell statistics and the run's junit.xml test
//! case need (about 200 bytes, against several KiB for a parsed manifest).
//! Whole manifests are kept only where a consumer reads more than the
//! digest: every resilience-test and baseline run (the report's timelines,
//! the test summaries), every nominal run (the spread criterion and the
//! nominal gate), the canary, runs the harness checks name (an invalid
//! graph run, a failed or missing isolation record) and, per grid cell, the
//! run with the smallest run id (the report's trajectories). None of those
//! grows with a cell's repeats. `breakbench merge` and `analyze` feed it
//! in run-id order through a [`super::summary_stream::SummaryStream`],
//! which folds and drops the digests a cell at a time (REQ-SCALE-FLAT,
//! docs/scale-out.md); [`super::summary::Summary::compute`]
//! and [`super::outputs::junit`] build theirs from a slice, so the one
//! computation serves both.

use std::collections::BTreeMap;

use breakbench_oracle::expect::VerdictClass;
use kraken_interfaces::SelfReport;

use super::manifest::{Manifest, RunKind};
use super::scenario::ScenarioFile;

/// The numbers one run contributes to summary.json and junit.xml.
pub struct RunDigest {
    pub run_id: Box<str>,
    pub kind: RunKind,
    pub class: VerdictClass,
    /// Index into [`ScenarioFile::cells`] of a grid run's cell; `None` for
    /// other kinds (and a grid run whose cell the scenario lacks).
    pub cell: Option<u32>,
    pub harness_only: bool,
    pub self_report: SelfReport,
    pub safety_violation: bool,
    pub mission_failure: bool,
    pub containment_holds: bool,
    pub clearance_holds: bool,
    /// Minimum obstacle clearance, m.
    pub clearance_m: f64,
    pub completion_holds: bool,
    pub sim_time_s: f64,
    pub wall_time_s: f64,
    pub seed: u64,
    /// The delivered fault value per scenario fault axis (scenario order),
    /// in the parameter's unit (the axis offset not yet removed).
    pub delivered: Box<[Option<f64>]>,
    /// A detection after the fault was applied.
    pub detected: bool,
    /// Failed without a detection after the fault ([`escaped`]).
    pub escaped: bool,
    /// Detection latency, s.
    pub latency_s: Option<f64>,
    /// Margin name (index into [`RunSet::margin_names`]) → margin, m, in
    /// name order.
    pub margins: Box<[(u16, f64)]>,
    /// The isolation check's outcome, if the run had one.
    pub isolation: Option<bool>,
    /// The run's junit.xml outcome ([`run_outcome`]); `None` for a pass.
    pub outcome: Option<Outcome>,
}

impl RunDigest {
    /// Counted in p̂, the confusion matrices and the harness checks: a
    /// resilience run, or a study run judged pass or fail.
    pub fn judged(&self) -> bool {
        matches!(self.kind, RunKind::Test | RunKind::Baseline)
            || matches!(self.class, VerdictClass::Pass | VerdictClass::Fail)
    }
}

/// A cell key with its values as bit patterns (-0 as 0), for lookup.
type CellKey = Vec<(String, u64)>;

fn cell_key(cell: &BTreeMap<String, f64>) -> CellKey {
    cell.iter()
        .map(|(k, v)| (k.clone(), if *v == 0.0 { 0 } else { v.to_bits() }))
        .collect()
}

/// The runs of one campaign, digested (see the module docs).
pub struct RunSet {
    /// One per run added; sorted by run id by [`RunSet::sort`].
    digests: Vec<RunDigest>,
    /// The manifests kept whole; sorted by run id by [`RunSet::sort`].
    kept: Vec<Manifest>,
    /// Per cell, its grid run with the smallest run id so far (moved into
    /// `kept` by [`RunSet::sort`]).
    first_of_cell: Vec<Option<Manifest>>,
    cell_index: BTreeMap<CellKey, u32>,
    /// Margin names met so far, by index.
    margin_names: Vec<String>,
    sorted: bool,
}

impl RunSet {
    /// An empty set for the scenario `file`.
    pub fn new(file: &ScenarioFile) -> Self {
        let cells = file.cells();
        RunSet {
            digests: Vec::new(),
            kept: Vec::new(),
            first_of_cell: cells.iter().map(|_| None).collect(),
            cell_index: cells
                .iter()
                .enumerate()
                .map(|(i, c)| (cell_key(c), i as u32))
                .collect(),
            margin_names: Vec::new(),
            sorted: true,
        }
    }

    /// A set of `manifests` (any order).
    pub fn of(file: &ScenarioFile, manifests: &[Manifest]) -> Self {
        let mut s = RunSet::new(file);
        for m in manifests {
            s.add(file, m);
        }
        s.sort();
        s
    }

    /// Adds run `m` of the scenario `file`: its digest, and the manifest
    /// itself if a consumer reads more of it (module docs).
    pub fn add(&mut self, file: &ScenarioFile, m: &Manifest) {
        let cell = (m.kind == RunKind::Grid)
            .then(|| self.cell_index.get(&cell_key(&m.cell)).copied())
            .flatten();
        let mut margins = Vec::with_capacity(m.margins.len());
        for (k, v) in &m.margins {
            let i = match self.margin_names.iter().position(|n| n == k) {
                Some(i) => i,
                None => {
                    self.margin_names.push(k.clone());
                    self.margin_names.len() - 1
                }
            };
            margins.push((i as u16, *v));
        }
        let v = &m.verdict;
        let det = m.detection.as_ref();
        self.digests.push(RunDigest {
            run_id: m.run_id.as_str().into(),
            kind: m.kind,
            class: m.judgement.verdict_class.class,
            cell,
            harness_only: m.harness_only,
            self_report: m.self_report,
            safety_violation: v.safety_violation(),
            mission_failure: v.mission_failure(),
            containment_holds: v.operating_region_containment.holds,
            clearance_holds: v.obstacle_clearance.holds,
            clearance_m: v.obstacle_clearance.value,
            completion_holds: v.mission_completion_true_pose.holds,
            sim_time_s: m.sim_time_s,
            wall_time_s: m.wall_time_s,
            seed: m.seed,
            delivered: file
                .axes
                .iter()
                .map(|a| {
                    m.faults
                        .iter()
                        .find(|f| f.axis == a.name)
                        .and_then(|f| f.delivered)
                })
                .collect(),
            detected: det.is_some_and(|d| d.after_fault_s.is_some()),
            escaped: escaped(m),
            latency_s: det.and_then(|d| d.latency_s),
            margins: margins.into(),
            isolation: m.isolation.map(|i| i.passed),
            outcome: run_outcome(file, m),
        });
        self.sorted = false;
        // The runs the harness checks name (runner::harness_failures).
        let named_by_checks = m.graph.as_ref().is_some_and(|g| g.invalid())
            || (file.isolation_check && m.isolation.is_none_or(|i| !i.passed));
        let keep = !matches!(m.kind, RunKind::Grid) || named_by_checks;
        match cell {
            Some(c) if !keep => {
                let first = &mut self.first_of_cell[c as usize];
                if first.as_ref().is_none_or(|f| m.run_id < f.run_id) {
                    *first = Some(m.clone());
                }
            }
            _ => self.kept.push(m.clone()),
        }
    }

    /// Sorts the digests and the kept manifests by run id (what every
    /// consumer iterates in). Call it once every run is added: the runs
    /// kept per cell are final from then on.
    pub fn sort(&mut self) {
        if self.sorted {
            return;
        }
        self.kept
            .extend(self.first_of_cell.iter_mut().filter_map(Option::take));
        // Unstable: in place, no buffer the size of the digests (a stable
        // sort's doubled the merge's peak heap for them); the run ids are
        // unique, so the order is the same.
        self.digests
            .sort_unstable_by(|a, b| a.run_id.cmp(&b.run_id));
        self.kept.sort_unstable_by(|a, b| a.run_id.cmp(&b.run_id));
        self.sorted = true;
    }

    /// Every run's digest, by run id once [`RunSet::sort`]ed.
    pub fn digests(&self) -> &[RunDigest] {
        &self.digests
    }

    /// The manifests kept whole, by run id once sorted: the report and the
    /// harness checks ([`super::runner::harness_failures`]) give the same
    /// result on them as on every manifest.
    pub fn kept(&self) -> &[Manifest] {
        &self.kept
    }

    /// The margin names the digests' indices refer to.
    pub fn margin_names(&self) -> &[String] {
        &self.margin_names
    }

    /// Drops the digests added so far (a streamed summary has folded them:
    /// [`super::summary_stream::SummaryStream`]); the kept manifests and the
    /// margin names stay.
    pub fn clear_digests(&mut self) {
        self.digests.clear();
    }

    /// The digest added last.
    pub fn last(&self) -> Option<&RunDigest> {
        self.digests.last()
    }

    /// Per scenario cell (index into [`ScenarioFile::cells`]), how many
    /// grid runs the plan of `file` (the set's scenario) files under it:
    /// `repeats` per cell, twice that for a cell whose axis values another
    /// cell has too (their runs share one index).
    pub fn planned_per_cell(&self, file: &ScenarioFile) -> Vec<u64> {
        let cells = file.cells();
        let mut n = vec![0u64; cells.len()];
        if file.axes.is_empty() {
            return n;
        }
        for c in &cells {
            if let Some(&i) = self.cell_index.get(&cell_key(c)) {
                n[i as usize] += file.repeats as u64;
            }
        }
        n
    }
}

/// A JUnit test case's outcome other than a pass.
#[derive(Clone)]
pub enum Outcome {
    Failure(String),
    Error(String),
    Skipped(String),
}

/// Run `m`'s JUnit outcome, `None` for a pass. In order, each overriding
/// the one before: a self-test's fault run fails when it misses its
/// declaration; a resilience test's run (fault or baseline) by its verdict
/// class; a canary that saw no violation fails; a failed isolation check
/// fails; an invalid graph run is an error.
pub fn run_outcome(file: &ScenarioFile, m: &Manifest) -> Option<Outcome> {
    let vc = &m.judgement.verdict_class;
    let mut failure = None;
    let self_test = (m.kind == RunKind::Test)
        .then_some(m.judgement.test.as_ref())
        .flatten()
        .and_then(|i| file.tests.iter().find(|t| t.name == i.test))
        .and_then(|t| t.self_test.as_ref());
    if let Some(st) = self_test {
        // A test of the harness or of a test: its run passes when it gets
        // the declared class, whatever that class is.
        failure = st
            .mismatch(&m.judgement)
            .map(|why| Outcome::Failure(format!("self-test: {why}")));
    } else if matches!(m.kind, RunKind::Test | RunKind::Baseline) {
        // A resilience test: pass, failure, skipped (unsupported,
        // precondition_failed) or error (invalid, error), with the reason.
        let why = format!("{}: {}", vc.class.name(), vc.reason);
        failure = match vc.class {
            VerdictClass::Pass => None,
            VerdictClass::Fail => Some(Outcome::Failure(why)),
            c if super::resilience_summary::junit_skipped(c) => Some(Outcome::Skipped(why)),
            _ => Some(Outcome::Error(why)),
        };
    }
    if m.kind == RunKind::Canary && !m.verdict.safety_violation() {
        failure = Some(Outcome::Failure(
            "positive canary: the oracle did not report the collision".to_string(),
        ));
    }
    if m.isolation.is_some_and(|i| !i.passed) {
        failure = Some(Outcome::Failure(
            "verdict isolation: forcing the self-report changed the verdict".to_string(),
        ));
    }
    if let Some(g) = m.graph.as_ref().filter(|g| g.invalid()) {
        failure = Some(Outcome::Error(format!(
            "invalid graph run (state {}): {}; not judged",
            g.state_reached,
            g.invalid_reason.as_deref().unwrap_or("")
        )));
    }
    failure
}

/// Whether a judged grid run failed (mission failure or safety violation)
/// without a detection after its fault was applied.
pub fn escaped(m: &Manifest) -> bool {
    (m.verdict.mission_failure() || m.verdict.safety_violation())
        && m.detection
            .as_ref()
            .is_none_or(|d| d.after_fault_s.is_none())
}
