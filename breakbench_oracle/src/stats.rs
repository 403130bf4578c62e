//! Statistics over verdicts: the Wilson score interval for a violation
//! probability, and the self-report × oracle confusion matrix.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use crate::isolation::SelfReport;

/// Two-sided standard-normal critical value for `confidence`:
/// `z = Φ⁻¹(1 - α/2)`, `α = 1 - confidence`, from statrs
/// `Normal::standard().inverse_cdf` (equal to scipy's `norm.isf(α/2)`, which
/// statsmodels uses, to ~1e-15; for 0.95, z = 1.959963984540054).
///
/// # Panics
/// If `confidence` is not strictly between 0 and 1.
pub fn z_critical(confidence: f64) -> f64 {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence must be in (0, 1), got {confidence}"
    );
    let alpha = 1.0 - confidence;
    Normal::standard().inverse_cdf(1.0 - alpha / 2.0)
}

/// Wilson score interval `(low, high)` for a binomial proportion with `k`
/// successes in `n` trials, at two-sided `confidence` (0.95 for 95 %).
///
/// Source: E. B. Wilson, "Probable inference, the law of succession, and
/// statistical inference", JASA 22 (1927) 209-212. The arithmetic follows
/// `statsmodels.stats.proportion.proportion_confint(method="wilson")`
/// operation for operation, so the two agree to a few ulps:
///
/// ```text
/// p = k/n, c2 = z², denom = 1 + c2/n
/// center = (p + c2/(2n)) / denom
/// dist   = z·sqrt(p(1-p)/n + c2/(4n²)) / denom
/// (low, high) = (center - dist, center + dist), clamped to [0, 1]
/// ```
///
/// The clamp only removes rounding residue (for k = 0, center - dist is
/// 2.8e-17 rather than 0; statsmodels does not clamp, the difference is
/// below 1e-16).
///
/// `n = 0` (no run in the cell) returns `(0.0, 1.0)`: nothing is known, and
/// the interval is the whole unit range (statsmodels would return NaN).
///
/// # Panics
/// If `k > n` or `confidence` is not strictly between 0 and 1.
pub fn wilson(k: u64, n: u64, confidence: f64) -> (f64, f64) {
    assert!(k <= n, "wilson: k = {k} successes exceed n = {n} trials");
    let z = z_critical(confidence);
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = k as f64 / n;
    let c2 = z * z;
    let denom = 1.0 + c2 / n;
    let center = (p + c2 / (2.0 * n)) / denom;
    let dist = z * (p * (1.0 - p) / n + c2 / (4.0 * n * n)).sqrt() / denom;
    (
        (center - dist).clamp(0.0, 1.0),
        (center + dist).clamp(0.0, 1.0),
    )
}

/// 2×2 confusion matrix: the robot's self-report (success / failure) against
/// the oracle (ok / violated) for one predicate family (safety or mission).
/// Runs without a self-report are counted in `no_report`, outside the matrix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confusion {
    /// Self-report success, oracle ok.
    pub success_ok: u64,
    /// Self-report success, oracle violated (the robot's report was wrong).
    pub success_violated: u64,
    /// Self-report failure, oracle ok.
    pub failure_ok: u64,
    /// Self-report failure, oracle violated.
    pub failure_violated: u64,
    /// Runs in the matrix: the sum of the four cells above.
    pub n: u64,
    /// Runs with [`SelfReport::None`], not in the matrix.
    pub no_report: u64,
}

impl Confusion {
    /// Counts one run: its self-report and whether the oracle found the
    /// predicate family violated (`Verdict::safety_violation()` or
    /// `Verdict::mission_failure()`).
    pub fn add(&mut self, self_report: SelfReport, violated: bool) {
        match (self_report, violated) {
            (SelfReport::Success, false) => self.success_ok += 1,
            (SelfReport::Success, true) => self.success_violated += 1,
            (SelfReport::Failure, false) => self.failure_ok += 1,
            (SelfReport::Failure, true) => self.failure_violated += 1,
            (SelfReport::None, _) => {
                self.no_report += 1;
                return;
            }
        }
        self.n += 1;
    }

    /// Builds the matrix from `(self_report, violated)` pairs.
    pub fn from_pairs<I>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (SelfReport, bool)>,
    {
        let mut c = Self::default();
        for (r, v) in pairs {
            c.add(r, v);
        }
        c
    }
}
