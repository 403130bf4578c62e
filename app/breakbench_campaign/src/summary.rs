//! summary.json: per-cell violation probabilities with Wilson intervals,
//! the self-report-vs-oracle confusion matrices, the canary, the isolation
//! check and the nominal spread, computed from the manifests alone.

use std::collections::BTreeMap;

use crate::stats::Confusion;
use serde::{Deserialize, Serialize};

use breakbench_oracle::expect::VerdictClass;

use super::design::rare::{rare_summary, RareSummary};
use super::dose::{dose_model_at, CellCounts, DoseModel};
use super::manifest::{Manifest, RunKind};
use super::margin_stats::{joint_sub_margin, margin_stats, MarginStats};
use super::resilience_summary::LatencyStats;
use super::run_digest::{RunDigest, RunSet};
use super::scenario::statistics::{IntervalMethod, Statistics};
use super::scenario::{Convergence, Design, SampleKind, ScenarioFile};

/// Summary schema identifier.
pub const SUMMARY_SCHEMA: &str = "breakbench.summary/1";

pub use super::stats::{ClassCounts, Proportion};

/// One grid cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Axis name → value (e.g. `latency_s`, `odom_bias`).
    #[serde(flatten)]
    pub axes: BTreeMap<String, f64>,
    pub n: u64,
    /// The cell's runs by verdict class.
    pub verdict_classes: ClassCounts,
    /// Safety-invariant violation (region left or clearance below threshold).
    pub safety: Proportion,
    /// Mission failure (true pose did not enter the goal region before the timeout).
    pub mission: Proportion,
    /// Mean delivered fault value per axis, in the axis' unit (delivered
    /// parameter minus the axis offset); null where nothing was delivered.
    pub delivered: BTreeMap<String, Option<f64>>,
    /// With the scenario's `detection:`: what the robot detected in the
    /// cell's runs (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection: Option<CellDetection>,
    /// Each invariant margin's statistics over the cell's judged runs
    /// (REQ-STAT-MARGIN: m(q), its order-statistic interval, the Wilks
    /// bound), by invariant name; absent when no manifest records margins.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub margins: BTreeMap<String, MarginStats>,
    /// Runs with two or more margins at or below their m(q) (the joint
    /// sub-margin count); absent without margins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_margin_joint: Option<u64>,
}

/// A cell's detections (REQ-STUDY-DETECTION): over its n runs, those that
/// detected the fault after it was applied, and those that failed (mission
/// failure or safety violation) without such a detection, each with its
/// Wilson interval; the detection latencies (detection − first application).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellDetection {
    pub detected: Proportion,
    /// Failed without detecting: the fault escaped the robot's monitoring.
    pub escaped: Proportion,
    pub latency: Option<LatencyStats>,
}

/// The nominal (fault-free) runs of one navigator variant with the
/// scenario's `detection:`: a detection there is a false positive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantNominal {
    /// Navigator axis name → value index (empty without navigator axes).
    pub variant: BTreeMap<String, f64>,
    /// `gating=both` (empty without navigator axes).
    pub label: String,
    pub n: u64,
    /// Runs with a detection anywhere in the run, out of n (Wilson).
    pub false_positive: Proportion,
    pub safety: Proportion,
    pub mission: Proportion,
}

pub use super::run_digest::escaped;

/// The two confusion matrices over the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfusionPair {
    pub safety: Confusion,
    pub mission: Confusion,
}

/// The positive canary's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanarySummary {
    pub runs: u64,
    /// Every canary run was judged a safety violation.
    pub violation_detected: bool,
    pub harness_only: bool,
}

/// The verdict isolation check over all runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsolationSummary {
    pub passed: bool,
    pub runs_checked: u64,
}

/// The nominal set and its declared spread-convergence criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NominalSummary {
    pub n: u64,
    pub criterion: Convergence,
    /// Sample standard deviation of the metric over all n runs and over the
    /// first n - window (with navigator axes: pooled over the variants, for
    /// the record; the convergence is judged per variant).
    pub sd_all: f64,
    pub sd_first: f64,
    /// Every navigator variant's nominal runs (all `nominal.runs` of them)
    /// meet the convergence criterion on their own.
    pub spread_converged: bool,
    pub safety: Proportion,
    pub mission: Proportion,
    /// The nominal runs by verdict class.
    pub verdict_classes: ClassCounts,
}

/// Corpus counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusSummary {
    pub manifests: u64,
    pub grid_runs: u64,
    pub grid_expected: u64,
    pub nominal_runs: u64,
    /// Runs counted in the confusion matrices (grid + nominal; the canary is excluded).
    pub corpus_runs: u64,
}

/// summary.json's `design`: the scenario's design, and for a sampled one
/// the points it drew (axis name → value, in the order drawn: the cells').
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DesignRecord {
    Sampled {
        kind: SampleKind,
        samples: usize,
        seed: u64,
        points: Vec<BTreeMap<String, f64>>,
    },
    Named(Design),
}

impl Default for DesignRecord {
    fn default() -> Self {
        DesignRecord::Named(Design::Grid)
    }
}

impl DesignRecord {
    /// The full grid: not serialised.
    pub fn is_grid(&self) -> bool {
        *self == DesignRecord::Named(Design::Grid)
    }

    /// The record of `file`'s design.
    pub fn of(file: &ScenarioFile) -> Self {
        match file.design {
            Design::Sampled(s) => DesignRecord::Sampled {
                kind: s.kind,
                samples: s.samples,
                seed: s.seed,
                points: file.cells(),
            },
            d => DesignRecord::Named(d),
        }
    }
}

/// summary.json. Holds no wall-clock figure, so it is byte-identical for the
/// same scenario and seed whatever the number of jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub schema: String,
    pub scenario_name: String,
    pub scenario_hash: String,
    pub confidence: f64,
    pub axes: Vec<String>,
    /// `pairwise` when the cells are a covering array (REQ-STAT-PAIRWISE);
    /// a sampled design with its points (REQ-STAT-SAMPLED); absent for the
    /// full grid.
    #[serde(default, skip_serializing_if = "DesignRecord::is_grid")]
    pub design: DesignRecord,
    pub cells: Vec<Cell>,
    pub corpus: CorpusSummary,
    pub confusion: ConfusionPair,
    pub canary: CanarySummary,
    pub isolation: IsolationSummary,
    pub nominal: NominalSummary,
    /// Simulated time of all runs, canary included, seconds.
    pub sim_time_s: f64,
    /// Navigator axis name → its values; a cell's value of that axis is an
    /// index into them (absent without navigator axes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, Vec<String>>,
    /// With `detection:`: the nominal runs per navigator variant, with the
    /// detection's false-positive rate (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nominal_detection: Vec<VariantNominal>,
    /// One entry per resilience test of the scenario (absent without tests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<super::resilience_summary::TestSummary>,
    /// The statistics applied (the scenario's `statistics:` or the
    /// defaults): the interval method, q, the tolerance coverage and
    /// confidence, p* and the link.
    #[serde(default)]
    pub statistics: Statistics,
    /// Per navigator variant and predicate (safety, mission), the
    /// dose-response model over the cells (REQ-STAT-DOSE); absent without
    /// a fault axis.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dose_response: Vec<DoseModel>,
    /// The importance-sampling estimate of a `rare_event:` scenario
    /// (REQ-STAT-RARE); absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rare_event: Option<RareSummary>,
}

/// Sample standard deviation (n - 1 denominator); 0 for fewer than 2 values.
pub fn sample_sd(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

impl Summary {
    /// Computes the summary of `manifests` (any order) for the scenario `file`
    /// whose hash is `hash`.
    pub fn compute(file: &ScenarioFile, hash: &str, manifests: &[Manifest]) -> Self {
        Self::of_runs(file, hash, &mut RunSet::of(file, manifests))
    }

    /// Computes the summary of the runs in `runs` (sorted here) for the
    /// scenario `file` whose hash is `hash`: the same bytes as
    /// [`Summary::compute`] of their manifests (REQ-SCALE-STREAM). One
    /// [`SummaryFold`] batch of every digest: the computation a streamed
    /// summary does a few cells at a time (REQ-SCALE-FLAT).
    pub fn of_runs(file: &ScenarioFile, hash: &str, runs: &mut RunSet) -> Self {
        runs.sort();
        let mut fold = SummaryFold::new(file);
        fold.add(file, runs.digests(), runs.margin_names());
        fold.finish(file, hash, runs.kept())
    }
}

/// [`Summary`] folded over the runs' digests in run-id order, a batch at a
/// time, each batch holding every run of the grid cells it touches
/// (REQ-SCALE-FLAT): a cell's statistics (order-statistic margins, means)
/// are computed from its batch, the corpus-wide counts and the simulated
/// time (summed in run-id order, as one batch of every run sums it) are
/// carried. Holds O(cells), never a digest.
pub struct SummaryFold {
    /// Per scenario cell (scenario order), its axis values.
    keys: Vec<BTreeMap<String, f64>>,
    /// Per scenario cell, its summary once its batch was added.
    cells: Vec<Option<Cell>>,
    safety: Confusion,
    mission: Confusion,
    canaries: u64,
    canaries_violated: u64,
    canaries_harness_only: u64,
    isolation_checked: u64,
    isolation_passed: u64,
    nominal_classes: ClassCounts,
    grid_runs: u64,
    judged: u64,
    corpus_runs: u64,
    sim_time_s: f64,
}

impl SummaryFold {
    /// An empty fold for the scenario `file`.
    pub fn new(file: &ScenarioFile) -> Self {
        let keys = file.cells();
        SummaryFold {
            cells: keys.iter().map(|_| None).collect(),
            keys,
            safety: Confusion::default(),
            mission: Confusion::default(),
            canaries: 0,
            canaries_violated: 0,
            canaries_harness_only: 0,
            isolation_checked: 0,
            isolation_passed: 0,
            nominal_classes: ClassCounts::default(),
            grid_runs: 0,
            judged: 0,
            corpus_runs: 0,
            // What `Iterator::sum` starts from (the sum of no run).
            sim_time_s: std::iter::empty::<f64>().sum(),
        }
    }

    /// Adds `batch`, digests in run-id order following those added before,
    /// holding every run of each grid cell it has a run of; `names` are the
    /// margin names the digests index. A study run (grid, nominal, canary)
    /// that was not judged (an invalid graph run, verdict class invalid)
    /// counts only in its cell's verdict-class counts, never in p-hat, the
    /// confusion matrices or the harness checks.
    pub fn add(&mut self, file: &ScenarioFile, batch: &[RunDigest], names: &[String]) {
        let all: Vec<&RunDigest> = batch.iter().collect();
        let ms: Vec<&RunDigest> = all.iter().copied().filter(|d| d.judged()).collect();
        let touched: std::collections::BTreeSet<u32> = all
            .iter()
            .filter(|d| d.kind == RunKind::Grid)
            .filter_map(|d| d.cell)
            .collect();
        for i in touched {
            let key = self.keys[i as usize].clone();
            self.cells[i as usize] = Some(cell(file, (i as usize, key), &ms, &all, names));
        }
        for d in &ms {
            // Resilience-test runs are summarised per test, not in the study's corpus.
            if !d.harness_only && matches!(d.kind, RunKind::Grid | RunKind::Nominal) {
                self.safety.add(d.self_report, d.safety_violation);
                self.mission.add(d.self_report, d.mission_failure);
                self.corpus_runs += 1;
            }
            if d.kind == RunKind::Canary {
                self.canaries += 1;
                self.canaries_violated += u64::from(d.safety_violation);
                self.canaries_harness_only += u64::from(d.harness_only);
            }
            if let Some(p) = d.isolation {
                self.isolation_checked += 1;
                self.isolation_passed += u64::from(p);
            }
            self.grid_runs += u64::from(d.kind == RunKind::Grid);
            self.sim_time_s += d.sim_time_s;
        }
        self.judged += ms.len() as u64;
        all.iter()
            .filter(|d| d.kind == RunKind::Nominal)
            .for_each(|d| self.nominal_classes.add(d.class));
    }

    /// The summary of the runs added, for the scenario `file` whose hash is
    /// `hash`; `kept` are the manifests a [`RunSet`] kept whole of them (the
    /// nominal set and the resilience tests are summarised from those).
    pub fn finish(self, file: &ScenarioFile, hash: &str, kept: &[Manifest]) -> Summary {
        let kept: Vec<&Manifest> = kept
            .iter()
            .filter(|m| {
                matches!(m.kind, RunKind::Test | RunKind::Baseline)
                    || matches!(
                        m.judgement.verdict_class.class,
                        VerdictClass::Pass | VerdictClass::Fail
                    )
            })
            .collect();
        let conf = file.confidence;
        let stats = file.statistics.unwrap_or_default();
        let axes: Vec<String> = file
            .axes
            .iter()
            .map(|a| a.name.clone())
            .chain(file.navigator_axes.iter().map(|a| a.name.clone()))
            .collect();
        // Cells in scenario order (first axis slowest); a cell no run was
        // added for, from no run.
        let mut cells: Vec<Cell> = self
            .cells
            .into_iter()
            .zip(self.keys)
            .enumerate()
            .map(|(i, (c, key))| c.unwrap_or_else(|| cell(file, (i, key), &[], &[], &[])))
            .collect();
        let dose_response = dose_models(file, &cells);
        let canary = CanarySummary {
            runs: self.canaries,
            violation_detected: self.canaries > 0 && self.canaries_violated == self.canaries,
            harness_only: self.canaries_harness_only == self.canaries,
        };
        let isolation = IsolationSummary {
            passed: self.isolation_checked > 0 && self.isolation_passed == self.isolation_checked,
            runs_checked: self.isolation_checked,
        };
        let nominal_runs: Vec<&Manifest> = kept
            .iter()
            .copied()
            .filter(|m| m.kind == RunKind::Nominal)
            .collect();
        let mut nominal = nominal_summary(file, &nominal_runs, self.nominal_classes);
        let mut nominal_detection = nominal_detection(file, &nominal_runs);
        if stats.interval == IntervalMethod::ClopperPearson {
            exact_intervals(&mut cells, &mut nominal, &mut nominal_detection, conf);
        }
        let nn = nominal.n;
        let labels = file
            .navigator_axes
            .iter()
            .map(|a| (a.name.clone(), a.values.clone()))
            .collect();
        // No axes (a scenario of tests only): no grid.
        let grid_expected = if file.axes.is_empty() {
            0
        } else {
            (file.cells().len() * file.repeats) as u64
        };
        let rare_event = rare_event(file, &cells);
        Summary {
            schema: SUMMARY_SCHEMA.into(),
            scenario_name: file.name.clone(),
            scenario_hash: hash.into(),
            confidence: conf,
            axes,
            design: DesignRecord::of(file),
            cells,
            corpus: CorpusSummary {
                manifests: self.judged,
                grid_runs: self.grid_runs,
                grid_expected,
                nominal_runs: nn,
                corpus_runs: self.corpus_runs,
            },
            confusion: ConfusionPair {
                safety: self.safety,
                mission: self.mission,
            },
            canary,
            isolation,
            nominal,
            sim_time_s: self.sim_time_s,
            labels,
            nominal_detection,
            tests: super::resilience_summary::summarize(file, &kept),
            statistics: stats,
            dose_response,
            rare_event,
        }
    }
}

/// A `rare_event:` scenario's estimate over its cells (REQ-STAT-RARE):
/// each cell one draw θ of its one axis, its runs and the predicate's
/// violations.
fn rare_event(file: &ScenarioFile, cells: &[Cell]) -> Option<RareSummary> {
    use super::scenario::rare_event::RarePredicate;
    let r = file.rare_event.as_ref()?;
    let axis = &file.axes.first()?.name;
    let counts: Vec<(f64, u64, u64)> = cells
        .iter()
        .map(|c| {
            let k = match r.predicate {
                RarePredicate::Safety => c.safety.k,
                RarePredicate::Mission => c.mission.k,
            };
            (c.axes[axis], k, c.n)
        })
        .collect();
    Some(rare_summary(r, axis, &counts, file.confidence))
}

/// The Clopper-Pearson interval beside Wilson's on every p̂ of the cells
/// and the nominal set (REQ-STAT-CP).
fn exact_intervals(
    cells: &mut [Cell],
    nominal: &mut NominalSummary,
    variants: &mut [VariantNominal],
    conf: f64,
) {
    let ex = |p: &mut Proportion, n: u64| *p = p.clone().with_exact(n, conf);
    for c in cells {
        ex(&mut c.safety, c.n);
        ex(&mut c.mission, c.n);
        if let Some(d) = &mut c.detection {
            ex(&mut d.detected, c.n);
            ex(&mut d.escaped, c.n);
        }
    }
    ex(&mut nominal.safety, nominal.n);
    ex(&mut nominal.mission, nominal.n);
    for v in variants {
        ex(&mut v.false_positive, v.n);
        ex(&mut v.safety, v.n);
        ex(&mut v.mission, v.n);
    }
}

/// Per navigator variant, the safety and mission dose-response models
/// over the fault axes of `cells` (REQ-STAT-DOSE).
fn dose_models(file: &ScenarioFile, cells: &[Cell]) -> Vec<DoseModel> {
    if file.axes.is_empty() {
        return Vec::new();
    }
    let st = file.statistics.unwrap_or_default();
    let mut out = Vec::new();
    for key in file.variant_keys() {
        let variant = file.variant_axes(&key);
        let own: Vec<&Cell> = cells
            .iter()
            .filter(|c| variant.iter().all(|(a, v)| c.axes.get(a) == Some(v)))
            .collect();
        for (pred, of) in [
            ("safety", (|c: &Cell| c.safety.k) as fn(&Cell) -> u64),
            ("mission", |c: &Cell| c.mission.k),
        ] {
            let counts: Vec<CellCounts> = own
                .iter()
                .map(|c| CellCounts {
                    axes: file
                        .axes
                        .iter()
                        .map(|a| (a.name.clone(), c.axes[&a.name]))
                        .collect(),
                    n: c.n,
                    k: of(c),
                })
                .collect();
            out.push(dose_model_at(
                pred,
                variant.clone(),
                &counts,
                (st.link, st.p_star, file.confidence),
                file.references().as_ref(),
            ));
        }
    }
    out
}

/// The summary of grid cell number `i`, `key` (axis values, scenario
/// order): its judged grid runs among `ms` (p-hat of safety violation and
/// mission failure with Wilson intervals at the scenario's confidence, the
/// mean delivered value per axis, the detection) and the verdict classes of
/// all its runs among `all` (REQ-CAMPAIGN-WILSON); `names` are the margin
/// names the digests index.
fn cell(
    file: &ScenarioFile,
    (i, key): (usize, BTreeMap<String, f64>),
    ms: &[&RunDigest],
    all: &[&RunDigest],
    names: &[String],
) -> Cell {
    let conf = file.confidence;
    let of_cell = |d: &&&RunDigest| d.kind == RunKind::Grid && d.cell == Some(i as u32);
    let runs: Vec<&RunDigest> = ms.iter().filter(of_cell).copied().collect();
    let n = runs.len() as u64;
    let ks = runs.iter().filter(|d| d.safety_violation).count() as u64;
    let km = runs.iter().filter(|d| d.mission_failure).count() as u64;
    let delivered = file
        .axes
        .iter()
        .enumerate()
        .map(|(j, a)| {
            let vals: Vec<f64> = runs.iter().filter_map(|d| d.delivered[j]).collect();
            let mean =
                (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64 - a.offset);
            (a.name.clone(), mean)
        })
        .collect();
    let mut verdict_classes = ClassCounts::default();
    all.iter()
        .filter(of_cell)
        .for_each(|d| verdict_classes.add(d.class));
    let detection = file.detection.as_ref().map(|_| {
        let det = runs.iter().filter(|d| d.detected).count() as u64;
        let esc = runs.iter().filter(|d| d.escaped).count() as u64;
        CellDetection {
            detected: Proportion::new(det, n, conf),
            escaped: Proportion::new(esc, n, conf),
            latency: LatencyStats::of(runs.iter().filter_map(|d| d.latency_s).collect()),
        }
    });
    let (margins, sub_margin_joint) = cell_margins(file, &runs, names);
    Cell {
        axes: key,
        n,
        verdict_classes,
        safety: Proportion::new(ks, n, conf),
        mission: Proportion::new(km, n, conf),
        delivered,
        detection,
        margins,
        sub_margin_joint,
    }
}

/// The statistics of each margin recorded in `runs` (margin names in
/// `names`) and the joint sub-margin count (REQ-STAT-MARGIN); empty and
/// `None` when no run records a margin.
fn cell_margins(
    file: &ScenarioFile,
    runs: &[&RunDigest],
    names: &[String],
) -> (BTreeMap<String, MarginStats>, Option<u64>) {
    let st = file.statistics.unwrap_or_default();
    let mut by_name: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for d in runs {
        for (k, v) in d.margins.iter() {
            by_name
                .entry(names[*k as usize].as_str())
                .or_default()
                .push(*v);
        }
    }
    let stats: BTreeMap<String, MarginStats> = by_name
        .into_iter()
        .filter_map(|(k, vs)| {
            margin_stats(
                &vs,
                st.margin_q,
                file.confidence,
                st.tolerance_coverage,
                st.tolerance_confidence,
            )
            .map(|s| (k.to_string(), s))
        })
        .collect();
    if stats.is_empty() {
        return (stats, None);
    }
    // The cell's margin maps, rebuilt one cell at a time.
    let maps: Vec<BTreeMap<String, f64>> = runs
        .iter()
        .map(|d| {
            d.margins
                .iter()
                .map(|(k, v)| (names[*k as usize].clone(), *v))
                .collect()
        })
        .collect();
    let refs: Vec<&BTreeMap<String, f64>> = maps.iter().collect();
    let joint = joint_sub_margin(&refs, &stats);
    (stats, Some(joint))
}

/// The nominal set's summary: the spread of the final goal distance, m, of
/// all `nominal_runs` and without the last `window` runs, its convergence
/// judged per navigator variant (REQ-CAMPAIGN-BASELINE), p-hat of safety
/// and mission failure, and `verdict_classes`, those of all nominal runs.
fn nominal_summary(
    file: &ScenarioFile,
    nominal_runs: &[&Manifest],
    verdict_classes: ClassCounts,
) -> NominalSummary {
    let conf = file.confidence;
    let metric: Vec<f64> = nominal_runs
        .iter()
        .map(|m| m.final_goal_distance_m)
        .collect();
    let c = &file.nominal.convergence;
    let sd_all = sample_sd(&metric);
    let sd_first = sample_sd(&metric[..metric.len().saturating_sub(c.window)]);
    // Judged per navigator variant (each has its own `nominal.runs`
    // runs; one variant without navigator axes): the spread of one
    // configuration, never of several pooled.
    let converged = |metric: &[f64]| {
        let sd_all = sample_sd(metric);
        let sd_first = sample_sd(&metric[..metric.len().saturating_sub(c.window)]);
        metric.len() == file.nominal.runs
            && ((sd_all - sd_first).abs() <= c.rel_tol * sd_all
                || (sd_all < c.abs_tol_m && sd_first < c.abs_tol_m))
    };
    let spread_converged = file.variant_keys().iter().all(|key| {
        let own: Vec<f64> = nominal_runs
            .iter()
            .filter(|m| file.variant_of(&m.cell) == *key)
            .map(|m| m.final_goal_distance_m)
            .collect();
        converged(&own)
    });
    let nn = nominal_runs.len() as u64;
    NominalSummary {
        n: nn,
        criterion: c.clone(),
        sd_all,
        sd_first,
        spread_converged,
        safety: Proportion::new(
            nominal_runs
                .iter()
                .filter(|m| m.verdict.safety_violation())
                .count() as u64,
            nn,
            conf,
        ),
        mission: Proportion::new(
            nominal_runs
                .iter()
                .filter(|m| m.verdict.mission_failure())
                .count() as u64,
            nn,
            conf,
        ),
        verdict_classes,
    }
}

/// Per navigator variant, its nominal runs' false positives (a detection
/// with no fault), safety and mission p-hat; empty without a detection.
fn nominal_detection(file: &ScenarioFile, nominal_runs: &[&Manifest]) -> Vec<VariantNominal> {
    if file.detection.is_none() {
        return Vec::new();
    }
    let conf = file.confidence;
    file.variant_keys()
        .into_iter()
        .map(|key| {
            let variant = file.variant_axes(&key);
            let runs: Vec<&Manifest> = nominal_runs
                .iter()
                .filter(|m| file.variant_of(&m.cell) == key)
                .copied()
                .collect();
            let n = runs.len() as u64;
            let count = |f: &dyn Fn(&Manifest) -> bool| runs.iter().filter(|m| f(m)).count() as u64;
            VariantNominal {
                label: file.variant_label(&key),
                variant,
                n,
                false_positive: Proportion::new(
                    count(&|m| m.detection.as_ref().is_some_and(|d| d.first_s.is_some())),
                    n,
                    conf,
                ),
                safety: Proportion::new(count(&|m| m.verdict.safety_violation()), n, conf),
                mission: Proportion::new(count(&|m| m.verdict.mission_failure()), n, conf),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_sd_known_values() {
        // mean 5, squared deviations 9+1+1+9 = 20, / (4-1) → sqrt(20/3)
        assert!((sample_sd(&[2.0, 4.0, 6.0, 8.0]) - (20.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert_eq!(sample_sd(&[3.0]), 0.0);
    }

    #[test]
    fn proportion_p_hat() {
        let p = Proportion::new(2, 5, 0.95);
        assert_eq!(p.p_hat, 0.4);
        assert!(p.wilson_low < 0.4 && p.wilson_high > 0.4);
    }
}
