//! Designs beyond the grid (issue 28): where to spend runs.
//!
//! - [`adaptive`]: a sequential design along one fault axis that places each
//!   batch of runs where it shrinks the interval on s* (the severity at which
//!   P(violation) reaches p*) most, and stops at a declared interval width or
//!   run budget (REQ-STAT-ADAPTIVE).
//! - [`rare`]: importance sampling of a continuous fault parameter for cells
//!   whose failure probability is far below 1e-2 (REQ-STAT-RARE).
//!
//! Both are checked against [`KnownResponse`]: a stand-in for a run whose
//! failure probability is a declared function of the severity, with no
//! plant, so each estimate can be compared with the true answer.

pub mod adaptive;
pub mod rare;

use crate::glm::Link;
use kraken_interfaces::seed::{derive_seed, named_stream};
use rand::RngExt as _;

/// A synthetic system under test: a run at severity `s` fails with
/// probability `link⁻¹(intercept + slope·s)`, drawn from a seeded stream of
/// its own per run (REQ-SEED-TREE: `derive_seed(seed, "synthetic-<i>")`),
/// so the same run index gives the same outcome whatever design asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownResponse {
    pub link: Link,
    pub intercept: f64,
    pub slope: f64,
    pub seed: u64,
}

impl KnownResponse {
    /// The response whose P reaches `p_star` at severity `s_star`, with
    /// `slope` per unit of severity.
    pub fn through(link: Link, p_star: f64, s_star: f64, slope: f64, seed: u64) -> Self {
        KnownResponse {
            link,
            intercept: link.eta(p_star) - slope * s_star,
            slope,
            seed,
        }
    }

    /// The true failure probability at `s`.
    pub fn p(&self, s: f64) -> f64 {
        self.link.mu(self.intercept + self.slope * s)
    }

    /// The true severity at which P reaches `p`.
    pub fn s_at(&self, p: f64) -> f64 {
        (self.link.eta(p) - self.intercept) / self.slope
    }

    /// Run number `index` at severity `s`: `true` if it fails.
    pub fn run(&self, s: f64, index: u64) -> bool {
        let mut rng = named_stream(
            derive_seed(self.seed, &format!("synthetic-{index}")),
            "outcome",
        );
        rng.random::<f64>() < self.p(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_response_passes_through_its_point_and_fails_at_its_rate() {
        let r = KnownResponse::through(Link::Logit, 0.05, 0.6, 20.0, 7);
        assert!((r.p(0.6) - 0.05).abs() < 1e-12);
        assert!((r.s_at(0.05) - 0.6).abs() < 1e-12);
        // 4,000 runs at p = 0.05: the count is within 4 sd of 200
        let k = (0..4000).filter(|&i| r.run(0.6, i)).count() as f64;
        assert!(
            (k - 200.0).abs() < 4.0 * (4000.0f64 * 0.05 * 0.95).sqrt(),
            "{k}"
        );
        // the same index gives the same outcome
        assert_eq!(r.run(0.7, 3), r.run(0.7, 3));
    }
}
