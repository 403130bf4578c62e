//! The resilience-test part of summary.json: per test the verdict-class
//! counts, the failure probability over pass + fail only (Wilson) with the
//! excluded counts beside it, per expectation the latency distribution,
//! and the false-positive rate of each detection expectation on the
//! baselines.

use breakbench_oracle::expect::{Role, VerdictClass};
use serde::{Deserialize, Serialize};

use super::manifest::Manifest;
use super::resilience::{ResilienceTest, PHASE_KEY};
use super::scenario::ScenarioFile;
use super::stats::{ClassCounts, Proportion};

/// Suffix of the false-alarm probe a baseline run records for each
/// detection expectation (its predicate under `never`, whole run).
pub const FALSE_ALARM_SUFFIX: &str = ".false_alarm";

/// n, median, 95th percentile and maximum of latencies, s. Percentiles
/// interpolate linearly between order statistics (Hyndman and Fan type 7,
/// numpy's default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub n: u64,
    pub median_s: f64,
    pub p95_s: f64,
    pub max_s: f64,
}

/// Type-7 quantile `q` in [0, 1] of sorted `xs` (non-empty).
pub fn quantile_sorted(xs: &[f64], q: f64) -> f64 {
    let h = (xs.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

impl LatencyStats {
    /// Of `xs` (any order); `None` if empty.
    pub fn of(mut xs: Vec<f64>) -> Option<Self> {
        if xs.is_empty() {
            return None;
        }
        xs.sort_by(f64::total_cmp);
        Some(Self {
            n: xs.len() as u64,
            median_s: quantile_sorted(&xs, 0.5),
            p95_s: quantile_sorted(&xs, 0.95),
            max_s: *xs.last().expect("non-empty"),
        })
    }
}

/// One expectation of a test over its fault runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectationSummary {
    pub name: String,
    pub role: Option<Role>,
    /// Fault runs counted in p̂ (pass or fail) that evaluated it.
    pub n: u64,
    /// Unsatisfied out of n, with its Wilson interval.
    pub unsatisfied: Proportion,
    /// Latencies of the satisfied runs (expectations with a role).
    pub latency: Option<LatencyStats>,
    /// Detection expectations: baselines where its predicate fired, out of
    /// the baselines that evaluated it (Wilson).
    pub false_positive: Option<Proportion>,
}

/// One resilience test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestSummary {
    pub test: String,
    pub requirement: String,
    pub hazard: String,
    /// Fault runs by verdict class.
    pub verdict_classes: ClassCounts,
    /// `fail` out of `pass + fail` (the other classes excluded).
    pub failure: Proportion,
    pub judged: u64,
    pub excluded: u64,
    /// Baseline runs by verdict class.
    pub baselines: ClassCounts,
    pub expectations: Vec<ExpectationSummary>,
    /// Tests with `self_test`: the declared class and how many fault runs
    /// met the declaration (absent for the other tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_test: Option<SelfTestSummary>,
    /// Tests with `phase_sweep`: the same counts per phase, in phase order
    /// (absent for the other tests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseSummary>,
}

/// One phase of a phase-swept test: its fault runs' verdict classes,
/// failure probability and, per expectation, p̂ of "unsatisfied" with its
/// Wilson interval and the latency distribution. No false-positive rate:
/// the baselines are shared by every phase (see the test's own entry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSummary {
    /// The trigger's phase, s.
    pub phase_s: f64,
    pub verdict_classes: ClassCounts,
    pub failure: Proportion,
    pub judged: u64,
    pub excluded: u64,
    /// Injection latency (applied − trigger) of the swept fault over the
    /// phase's fault runs, s: where in the sensor period the trigger landed.
    pub injection_latency: Option<LatencyStats>,
    pub expectations: Vec<ExpectationSummary>,
}

/// The outcome of a test's `self_test` declaration over its fault runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfTestSummary {
    /// The verdict class every fault run must get.
    pub expect_class: VerdictClass,
    /// The whole declaration in words (class, reason, satisfied
    /// expectations, disabled injector).
    pub declaration: String,
    /// Fault runs of the test.
    pub runs: u64,
    /// Of them, those that met the declaration (class, reason, satisfied
    /// expectations).
    pub met: u64,
    /// `runs > 0 && met == runs`.
    pub passed: bool,
}

/// The summary of every test of `file` over the manifests `ms` (sorted by
/// run id, so the result does not depend on the order runs finished in).
pub fn summarize(file: &ScenarioFile, ms: &[&Manifest]) -> Vec<TestSummary> {
    let conf = file.confidence;
    file.tests
        .iter()
        .map(|t| {
            let of = |baseline: bool| -> Vec<&Manifest> {
                ms.iter()
                    .copied()
                    .filter(|m| {
                        m.judgement
                            .test
                            .as_ref()
                            .is_some_and(|i| i.test == t.name && i.baseline == baseline)
                    })
                    .collect()
            };
            let runs = of(false);
            let bases = of(true);
            let classes = ClassCounts::of(runs.iter().copied());
            let expectations = expectation_summaries(t, &runs, Some(&bases), conf);
            let phases = t.phase_sweep.as_ref().map_or(Vec::new(), |ps| {
                ps.phases()
                    .into_iter()
                    .map(|p| {
                        let of_phase: Vec<&Manifest> = runs
                            .iter()
                            .copied()
                            .filter(|m| m.cell.get(PHASE_KEY) == Some(&p))
                            .collect();
                        let c = ClassCounts::of(of_phase.iter().copied());
                        PhaseSummary {
                            phase_s: p,
                            failure: Proportion::new(c.fail, c.judged(), conf),
                            judged: c.judged(),
                            excluded: c.excluded(),
                            verdict_classes: c,
                            injection_latency: LatencyStats::of(
                                of_phase
                                    .iter()
                                    .filter_map(|m| {
                                        m.judgement
                                            .timeline
                                            .as_ref()?
                                            .fault(&ps.fault)?
                                            .injection_latency_s
                                    })
                                    .collect(),
                            ),
                            expectations: expectation_summaries(t, &of_phase, None, conf),
                        }
                    })
                    .collect()
            });
            TestSummary {
                test: t.name.clone(),
                requirement: t.requirement.clone(),
                hazard: t.hazard.clone(),
                failure: Proportion::new(classes.fail, classes.judged(), conf),
                judged: classes.judged(),
                excluded: classes.excluded(),
                verdict_classes: classes,
                baselines: ClassCounts::of(bases.iter().copied()),
                expectations,
                phases,
                self_test: t.self_test.as_ref().map(|st| {
                    let met = runs
                        .iter()
                        .filter(|m| st.mismatch(&m.judgement).is_none())
                        .count() as u64;
                    let n = runs.len() as u64;
                    SelfTestSummary {
                        expect_class: st.expect_class,
                        declaration: st.describe(),
                        runs: n,
                        met,
                        passed: n > 0 && met == n,
                    }
                }),
            }
        })
        .collect()
}

/// Per expectation of `t` (surfacing included) over the fault runs `runs`:
/// unsatisfied out of the runs counted in p̂, the latency distribution, and,
/// given the baselines `bases`, the false-positive rate of a detection
/// expectation.
fn expectation_summaries(
    t: &ResilienceTest,
    runs: &[&Manifest],
    bases: Option<&[&Manifest]>,
    conf: f64,
) -> Vec<ExpectationSummary> {
    let judged: Vec<&Manifest> = runs
        .iter()
        .copied()
        .filter(|m| m.judgement.verdict_class.class.counts_in_p_hat())
        .collect();
    t.expectations()
        .iter()
        .map(|e| {
            let results: Vec<_> = judged
                .iter()
                .filter_map(|m| m.judgement.expectations.iter().find(|r| r.name == e.name))
                .collect();
            let n = results.len() as u64;
            let k = results.iter().filter(|r| !r.satisfied).count() as u64;
            let latency = LatencyStats::of(results.iter().filter_map(|r| r.latency_s()).collect());
            let probe = format!("{}{FALSE_ALARM_SUFFIX}", e.name);
            let fp = bases
                .filter(|_| e.role == Some(Role::Detection))
                .map(|bases| {
                    let probes: Vec<_> = bases
                        .iter()
                        .filter_map(|m| m.judgement.expectations.iter().find(|r| r.name == probe))
                        .filter(|r| r.undecidable.is_none())
                        .collect();
                    let fired = probes.iter().filter(|r| !r.satisfied).count() as u64;
                    Proportion::new(fired, probes.len() as u64, conf)
                });
            ExpectationSummary {
                name: e.name.clone(),
                role: e.role,
                n,
                unsatisfied: Proportion::new(k, n, conf),
                latency,
                false_positive: fp,
            }
        })
        .collect()
}

/// True for the classes JUnit reports as skipped.
pub fn junit_skipped(c: VerdictClass) -> bool {
    matches!(
        c,
        VerdictClass::Unsupported | VerdictClass::PreconditionFailed
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_7_quantiles() {
        // numpy.percentile([1, 2, 3, 4], [50, 95]) = [2.5, 3.85]
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&xs, 0.5), 2.5);
        assert!((quantile_sorted(&xs, 0.95) - 3.85).abs() < 1e-12);
        let s = LatencyStats::of(vec![4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.n, s.median_s, s.max_s), (4, 2.5, 4.0));
        assert_eq!(LatencyStats::of(vec![]), None);
    }
}
