//! Rare failures: importance sampling of a continuous fault parameter
//! (REQ-STAT-RARE).
//!
//! A cell whose fault parameter θ varies from run to run as `N(mean,
//! sd)` (an operating spread, e.g. an odometry bias) has failure probability
//! `P = E_θ[p(θ)]`. When P is far below 1e-2, plain Monte Carlo sees a
//! handful of failures in thousands of runs. Importance sampling draws θ
//! from a proposal `N(proposal_mean, sd)` shifted towards the failure region
//! instead, and weighs each run by the likelihood ratio
//! `w(θ) = φ((θ-mean)/sd) / φ((θ-proposal_mean)/sd)`:
//!
//! `P̂ = (1/N) Σ wᵢ·1{run i failed}`, `se = sd(wᵢ·1{failed}) / √N`,
//!
//! unbiased for any proposal with the same support (R. Y. Rubinstein and
//! D. P. Kroese, *Simulation and the Monte Carlo Method*, 3rd ed., Wiley
//! 2017, §5.7). The interval is the normal one, `P̂ ± z·se` (low end at 0),
//! and the effective sample size `(Σw)²/Σw²` is reported beside it: an ESS
//! far below N says the proposal is poor and the interval is not to be
//! trusted. What it does not claim: the variance reduction depends on the
//! proposal; a proposal that misses part of the failure region gives a
//! small, wrong interval (the ESS does not detect that).

use crate::scenario::rare_event::{RareEvent, RareMethod, RarePredicate};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// The fault parameter's spread and the proposal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// θ's distribution in operation: `N(mean, sd)`, in θ's unit.
    pub mean: f64,
    pub sd: f64,
    /// The proposal's mean; equal to `mean`, this is plain Monte Carlo.
    pub proposal_mean: f64,
}

/// An estimate of P with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub runs: u64,
    pub failures: u64,
    pub p: f64,
    pub se: f64,
    pub low: f64,
    pub high: f64,
    /// `(Σw)²/Σw²` over all runs (N for plain Monte Carlo).
    pub effective_runs: f64,
}

/// θ of run `index` drawn from the proposal (REQ-SEED-TREE:
/// `derive_seed(seed, "rare-<index>")`, stream `theta`, by inversion): a
/// scenario's `rare_event:` draws ([`RareEvent::draw`]).
pub fn draw(s: &Sampling, seed: u64, index: u64) -> f64 {
    s.declared(seed, 0).draw(index)
}

impl Sampling {
    /// The `rare_event:` section of this spread and proposal.
    pub fn declared(&self, seed: u64, samples: usize) -> RareEvent {
        RareEvent {
            method: RareMethod::ImportanceSampling,
            predicate: RarePredicate::Safety,
            samples,
            seed,
            mean: self.mean,
            sd: self.sd,
            proposal_mean: self.proposal_mean,
        }
    }
}

/// The likelihood ratio of θ ([`RareEvent::weight`]).
pub fn weight(s: &Sampling, theta: f64) -> f64 {
    s.declared(0, 0).weight(theta)
}

/// Runs `runs` runs, `run(θ, index)` saying whether run `index` at θ
/// failed, and estimates P at `confidence` ([`estimate_counts`]).
pub fn estimate(
    s: &Sampling,
    seed: u64,
    runs: u64,
    confidence: f64,
    run: &mut dyn FnMut(f64, u64) -> bool,
) -> Estimate {
    let counts: Vec<(f64, u64, u64)> = (0..runs)
        .map(|i| {
            let theta = draw(s, seed, i);
            (theta, u64::from(run(theta, i)), 1)
        })
        .collect();
    estimate_counts(s, &counts, confidence)
}

/// P̂ from `counts`: per θ drawn from the proposal, `(θ, failed runs k,
/// runs n)` (a scenario's cells, REQ-STAT-RARE). Each of the n runs is one
/// value `w(θ)·1{failed}`: `P̂ = Σ w·k / N`, `se = sd / √N` over the
/// `N = Σ n` run values, ESS `(Σ w·n)² / Σ w²·n`. With no run every
/// figure is `NaN`.
pub fn estimate_counts(s: &Sampling, counts: &[(f64, u64, u64)], confidence: f64) -> Estimate {
    let (mut sum, mut sum2, mut wsum, mut wsum2, mut failures, mut runs) =
        (0.0, 0.0, 0.0, 0.0, 0u64, 0u64);
    for &(theta, k, n) in counts {
        let w = weight(s, theta);
        let (kf, nf) = (k as f64, n as f64);
        wsum += w * nf;
        wsum2 += w * w * nf;
        sum += w * kf;
        sum2 += w * w * kf;
        failures += k;
        runs += n;
    }
    let n = runs as f64;
    let p = sum / n;
    let var = (sum2 / n - p * p).max(0.0) * n / (n - 1.0);
    let se = (var / n).sqrt();
    let z = Normal::standard().inverse_cdf(0.5 + confidence / 2.0);
    Estimate {
        runs,
        failures,
        p,
        se,
        low: (p - z * se).max(0.0),
        high: p + z * se,
        effective_runs: if wsum2 > 0.0 {
            wsum * wsum / wsum2
        } else {
            0.0
        },
    }
}

/// summary.json's `rare_event` (REQ-STAT-RARE): the declaration and the
/// estimate of P over the scenario's cells ([`estimate_counts`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RareSummary {
    pub method: RareMethod,
    pub predicate: RarePredicate,
    /// The fault axis θ is a value of.
    pub axis: String,
    /// θ's operating N(mean, sd) and the proposal's mean, axis unit.
    pub mean: f64,
    pub sd: f64,
    pub proposal_mean: f64,
    /// The level of `[low, high]` (the scenario's).
    pub confidence: f64,
    pub runs: u64,
    /// Runs with the predicate's violation.
    pub failures: u64,
    /// P̂, its standard error and normal interval (low end at 0).
    pub p: f64,
    pub se: f64,
    pub low: f64,
    pub high: f64,
    /// `(Σw)²/Σw²` over the runs: far below `runs`, a poor proposal.
    pub effective_runs: f64,
    /// `P̂(1-P̂)/se²`: the runs plain Monte Carlo would need for the same
    /// standard error at P̂; `null` when se is 0.
    pub monte_carlo_runs: Option<f64>,
}

/// [`RareSummary`] of `r` on `axis` from `counts` (`(θ, k, n)` per cell).
pub fn rare_summary(
    r: &RareEvent,
    axis: &str,
    counts: &[(f64, u64, u64)],
    confidence: f64,
) -> RareSummary {
    let s = Sampling {
        mean: r.mean,
        sd: r.sd,
        proposal_mean: r.proposal_mean,
    };
    let e = estimate_counts(&s, counts, confidence);
    RareSummary {
        method: r.method,
        predicate: r.predicate,
        axis: axis.to_string(),
        mean: r.mean,
        sd: r.sd,
        proposal_mean: r.proposal_mean,
        confidence,
        runs: e.runs,
        failures: e.failures,
        p: e.p,
        se: e.se,
        low: e.low,
        high: e.high,
        effective_runs: e.effective_runs,
        monte_carlo_runs: (e.se > 0.0).then(|| e.p * (1.0 - e.p) / (e.se * e.se)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::KnownResponse;
    use crate::glm::Link;
    use statrs::distribution::Continuous;

    /// `E_θ[p(θ)]` for θ ~ N(mean, sd) by Simpson's rule over ±12 sd.
    fn truth(s: &Sampling, r: &KnownResponse) -> f64 {
        let (m, h) = (40_000, 24.0 * s.sd / 40_000.0);
        let f = |i: usize| {
            let t = s.mean - 12.0 * s.sd + h * i as f64;
            r.p(t) * Normal::new(s.mean, s.sd).unwrap().pdf(t)
        };
        let odd: f64 = (1..m).step_by(2).map(f).sum();
        let even: f64 = (2..m).step_by(2).map(f).sum();
        h / 3.0 * (f(0) + f(m) + 4.0 * odd + 2.0 * even)
    }

    #[test]
    fn importance_sampling_has_10x_lower_variance_than_monte_carlo_at_equal_runs() {
        // θ ~ N(0, 0.1); a run fails with P = 0.5 at θ = 0.3 (3 sd), steeply.
        let resp = KnownResponse::through(Link::Logit, 0.5, 0.3, 60.0, 11);
        let mc = Sampling {
            mean: 0.0,
            sd: 0.1,
            proposal_mean: 0.0,
        };
        let is = Sampling {
            proposal_mean: 0.3,
            ..mc
        };
        let p = truth(&mc, &resp);
        assert!((1e-3..3e-3).contains(&p), "{p}");
        let (reps, runs) = (60u64, 2000u64);
        let stats = |s: &Sampling| {
            let est: Vec<Estimate> = (0..reps)
                .map(|rep| {
                    estimate(s, 100 + rep, runs, 0.95, &mut |t, i| {
                        resp.run(t, rep * runs + i)
                    })
                })
                .collect();
            let mean = est.iter().map(|e| e.p).sum::<f64>() / reps as f64;
            let var = est.iter().map(|e| (e.p - mean).powi(2)).sum::<f64>() / (reps - 1) as f64;
            let covered = est.iter().filter(|e| e.low <= p && p <= e.high).count();
            (mean, var, covered)
        };
        let (mc_mean, mc_var, _) = stats(&mc);
        let (is_mean, is_var, is_covered) = stats(&is);
        eprintln!(
            "P = {p:.3e}: Monte Carlo mean {mc_mean:.3e} var {mc_var:.3e}; importance sampling \
             mean {is_mean:.3e} var {is_var:.3e} ({:.1}x lower), its 95 % interval covered P in \
             {is_covered}/{reps}",
            mc_var / is_var
        );
        assert!(mc_var / is_var >= 10.0, "only {:.1}x", mc_var / is_var);
        // unbiased: within 4 standard errors of the mean of 60 estimates
        assert!((is_mean - p).abs() < 4.0 * (is_var / reps as f64).sqrt());
        assert!(is_covered >= 52, "coverage {is_covered}/{reps}");
    }

    /// The scenario path (REQ-STAT-RARE) on a stand-in with a known
    /// answer: a `rare_event:` section's draws rounded as the cells are
    /// (`round_distinct`), 2 runs of the known response per cell, the
    /// estimate from the cells' counts ([`rare_summary`], as summary.json
    /// computes it): unbiased, 10x lower variance than plain Monte Carlo at
    /// equal runs, and its intervals cover P.
    #[test]
    fn the_cells_of_a_rare_event_scenario_estimate_p_with_10x_lower_variance() {
        use crate::scenario::sampled::round_distinct;
        let resp = KnownResponse::through(Link::Logit, 0.5, 0.3, 60.0, 13);
        let mc = Sampling {
            mean: 0.0,
            sd: 0.1,
            proposal_mean: 0.0,
        };
        let is = Sampling {
            proposal_mean: 0.3,
            ..mc
        };
        let p = truth(&mc, &resp);
        let (reps, samples, repeats) = (60u64, 1000usize, 2u64);
        let stats = |s: &Sampling| {
            let est: Vec<RareSummary> = (0..reps)
                .map(|rep| {
                    let r = s.declared(300 + rep, samples);
                    let (values, index) = round_distinct(&r.draws(), r.sd, (f64::MIN, f64::MAX));
                    let counts: Vec<(f64, u64, u64)> = index
                        .iter()
                        .enumerate()
                        .map(|(i, &v)| {
                            let t = values[v];
                            let base = (rep * samples as u64 + i as u64) * repeats;
                            let k = (0..repeats).filter(|j| resp.run(t, base + j)).count();
                            (t, k as u64, repeats)
                        })
                        .collect();
                    rare_summary(&r, "theta", &counts, 0.95)
                })
                .collect();
            let mean = est.iter().map(|e| e.p).sum::<f64>() / reps as f64;
            let var = est.iter().map(|e| (e.p - mean).powi(2)).sum::<f64>() / (reps - 1) as f64;
            let covered = est.iter().filter(|e| e.low <= p && p <= e.high).count();
            assert!(est.iter().all(|e| e.runs == 2000));
            (mean, var, covered)
        };
        let (_, mc_var, _) = stats(&mc);
        let (is_mean, is_var, is_covered) = stats(&is);
        eprintln!(
            "cells: P = {p:.3e}; importance sampling mean {is_mean:.3e}, variance {:.1}x lower \
             than Monte Carlo at 2,000 runs (1,000 cells x 2), 95 % interval covered P in \
             {is_covered}/{reps}",
            mc_var / is_var
        );
        assert!(mc_var / is_var >= 10.0, "only {:.1}x", mc_var / is_var);
        assert!((is_mean - p).abs() < 4.0 * (is_var / reps as f64).sqrt());
        assert!(is_covered >= 52, "coverage {is_covered}/{reps}");
    }

    #[test]
    fn the_proposal_at_the_mean_is_plain_monte_carlo() {
        let s = Sampling {
            mean: 0.2,
            sd: 0.1,
            proposal_mean: 0.2,
        };
        assert_eq!(weight(&s, 0.37), 1.0);
        let e = estimate(&s, 5, 100, 0.95, &mut |t, _| t > 0.3);
        assert_eq!(e.p, e.failures as f64 / 100.0);
        assert_eq!(e.effective_runs, 100.0);
        // the same seed gives the same draws
        assert_eq!(draw(&s, 5, 17), draw(&s, 5, 17));
    }
}
