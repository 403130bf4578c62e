//! The `rare_event:` section (REQ-STAT-RARE): a scenario whose one fault
//! axis varies from run to run as `N(mean, sd)` in operation, with a
//! failure probability P expected far below 1e-2, estimated by importance
//! sampling ([`crate::design::rare`]'s estimator) on real runs.
//!
//! ```yaml
//! rare_event:
//!   method: importance_sampling
//!   predicate: safety        # or mission
//!   samples: 40              # draws of θ: cells of `repeats` runs each
//!   seed: 5
//!   mean: 0.3                # θ's operating distribution N(mean, sd), axis unit
//!   sd: 0.1
//!   proposal_mean: 0.62      # drawn from N(proposal_mean, sd) instead
//! axes:
//!   - {name: latency_s, channel: scan, mode: delay, parameter: delay_s}   # no values
//! ```
//!
//! Draw `i` is `proposal_mean + sd·Φ⁻¹(u)`, `u` from the seeded stream
//! `derive_seed(seed, "rare-<i>")`/`theta` (REQ-SEED-TREE), rounded to 4
//! decimals of `sd` (more if two draws would coincide): each draw is a cell,
//! so resume, shards, merge and `analyze` see the same cells, and the
//! likelihood ratio is taken at the value run. The rounding moves θ by at
//! most `5e-5·sd`; the bias it brings to P̂ is of that order relative to
//! the weights' scale and is not corrected.

use kraken_interfaces::seed::{derive_seed, named_stream};
use rand::RngExt as _;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// The estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RareMethod {
    /// Draws from a proposal shifted towards failure, each run weighed by
    /// the likelihood ratio.
    ImportanceSampling,
}

/// Which violation's probability is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RarePredicate {
    /// A safety violation (region or obstacle clearance).
    Safety,
    /// A mission failure (goal not reached by the true pose).
    Mission,
}

/// `rare_event:`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RareEvent {
    pub method: RareMethod,
    pub predicate: RarePredicate,
    /// Draws (cells), in [2, 10000]; `repeats` runs each.
    pub samples: usize,
    /// The draws' own seed, any u64.
    pub seed: u64,
    /// θ's operating mean, in the axis' unit, in [-2^32, 2^32].
    pub mean: f64,
    /// θ's operating standard deviation, axis unit, in [1e-9, 2^32].
    pub sd: f64,
    /// The proposal's mean (its sd is `sd`), axis unit; equal to `mean`,
    /// plain Monte Carlo.
    pub proposal_mean: f64,
}

impl RareEvent {
    /// θ of draw `index` from the proposal, unrounded (see the module).
    pub fn draw(&self, index: u64) -> f64 {
        let mut rng = named_stream(derive_seed(self.seed, &format!("rare-{index}")), "theta");
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        self.proposal_mean + self.sd * Normal::standard().inverse_cdf(u)
    }

    /// Every draw, unrounded, in order.
    pub fn draws(&self) -> Vec<f64> {
        (0..self.samples as u64).map(|i| self.draw(i)).collect()
    }

    /// The likelihood ratio `φ((θ-mean)/sd) / φ((θ-proposal_mean)/sd)`.
    pub fn weight(&self, theta: f64) -> f64 {
        let (a, b) = (
            (theta - self.mean) / self.sd,
            (theta - self.proposal_mean) / self.sd,
        );
        (0.5 * (b * b - a * a)).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_proposal_and_weigh_back_to_the_operating_spread() {
        let r = RareEvent {
            method: RareMethod::ImportanceSampling,
            predicate: RarePredicate::Safety,
            samples: 4000,
            seed: 9,
            mean: 0.3,
            sd: 0.1,
            proposal_mean: 0.4,
        };
        let d = r.draws();
        let m = d.iter().sum::<f64>() / d.len() as f64;
        assert!((m - 0.4).abs() < 4.0 * 0.1 / 4000f64.sqrt(), "{m}");
        // E_proposal[w] = 1; Var w = e^((0.4-0.3)²/0.1²) - 1 = 1.72: 4 sd 0.083
        let w = d.iter().map(|t| r.weight(*t)).sum::<f64>() / d.len() as f64;
        assert!((w - 1.0).abs() < 0.083, "{w}");
        assert!(
            (r.weight(0.35) - 1.0).abs() < 1e-12,
            "equal densities half way"
        );
        assert!((r.weight(0.6) - (-2.5f64).exp()).abs() < 1e-12);
        assert_eq!(r.draw(17), r.draw(17));
    }
}
