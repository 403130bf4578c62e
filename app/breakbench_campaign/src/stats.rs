//! Statistics over verdicts: the Wilson score interval for a violation
//! probability, and the self-report × oracle confusion matrix.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use breakbench_oracle::expect::VerdictClass;
use kraken_interfaces::SelfReport;

use super::manifest::Manifest;

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
/// (low, high) = (center - dist, center + dist)
/// ```
///
/// For `k = 0` the lower bound is exactly 0 and for `k = n` the upper bound
/// is exactly 1 (algebraically `center = dist` there); they are returned as
/// such rather than as the rounding residue (statsmodels gives 2.8e-17 for
/// k = 0, n = 5; the difference is below 1e-16). Other bounds are clamped to
/// [0, 1], which only ever removes rounding residue.
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
    let low = if k == 0 {
        0.0
    } else {
        (center - dist).clamp(0.0, 1.0)
    };
    let high = if k as f64 == n {
        1.0
    } else {
        (center + dist).clamp(0.0, 1.0)
    };
    (low, high)
}

/// Clopper-Pearson ("exact") interval `(low, high)` for `k` events in `n`
/// trials at two-sided `confidence` (REQ-STAT-CP): `low` solves
/// `I_x(k, n-k+1) = α/2` (0 at k = 0), `high` solves `I_x(k+1, n-k) = 1-α/2`
/// (1 at k = n), `I` the regularised incomplete beta function (statrs
/// `beta_reg`), each by 200 bisections of [0, 1] (statsmodels'
/// `proportion_confint(method="beta")`, scipy's `beta.ppf`, to ~1e-14).
///
/// Source: C. J. Clopper and E. S. Pearson, "The use of confidence or
/// fiducial limits illustrated in the case of the binomial", Biometrika 26
/// (1934) 404-413. `n = 0` returns `(0.0, 1.0)` as [`wilson`].
///
/// # Panics
/// If `k > n` or `confidence` is not strictly between 0 and 1.
pub fn clopper_pearson(k: u64, n: u64, confidence: f64) -> (f64, f64) {
    assert!(
        k <= n,
        "clopper_pearson: k = {k} successes exceed n = {n} trials"
    );
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence must be in (0, 1), got {confidence}"
    );
    if n == 0 {
        return (0.0, 1.0);
    }
    let alpha = 1.0 - confidence;
    // the x in [0, 1] where I_x(a, b) = target (I increases with x)
    let solve = |a: f64, b: f64, target: f64| {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if statrs::function::beta::beta_reg(a, b, mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let (kf, nf) = (k as f64, n as f64);
    let low = if k == 0 {
        0.0
    } else {
        solve(kf, nf - kf + 1.0, alpha / 2.0)
    };
    let high = if k == n {
        1.0
    } else {
        solve(kf + 1.0, nf - kf, 1.0 - alpha / 2.0)
    };
    (low, high)
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

/// k failures out of n, p̂ = k/n and its Wilson score interval; with the
/// scenario's `statistics.interval: clopper_pearson` also the
/// Clopper-Pearson interval (absent otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proportion {
    pub k: u64,
    pub p_hat: f64,
    pub wilson_low: f64,
    pub wilson_high: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clopper_pearson_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clopper_pearson_high: Option<f64>,
}

impl Proportion {
    /// From counts at `confidence` (e.g. 0.95). n = 0 gives p̂ = NaN → null.
    pub fn new(k: u64, n: u64, confidence: f64) -> Self {
        let (lo, hi) = wilson(k, n, confidence);
        Self {
            k,
            p_hat: if n > 0 { k as f64 / n as f64 } else { f64::NAN },
            wilson_low: lo,
            wilson_high: hi,
            clopper_pearson_low: None,
            clopper_pearson_high: None,
        }
    }

    /// Adds the Clopper-Pearson interval of `k` out of `n` at `confidence`.
    pub fn with_exact(mut self, n: u64, confidence: f64) -> Self {
        let (lo, hi) = clopper_pearson(self.k, n, confidence);
        self.clopper_pearson_low = Some(lo);
        self.clopper_pearson_high = Some(hi);
        self
    }
}

/// Runs per verdict class. Only `pass` and `fail` enter a p̂; the other
/// four are reported beside it, never counted as passes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCounts {
    pub pass: u64,
    pub fail: u64,
    pub invalid: u64,
    pub unsupported: u64,
    pub precondition_failed: u64,
    pub error: u64,
}

impl ClassCounts {
    /// The counts of `ms`' verdict classes.
    pub fn of<'a>(ms: impl IntoIterator<Item = &'a Manifest>) -> Self {
        let mut c = Self::default();
        for m in ms {
            c.add(m.judgement.verdict_class.class);
        }
        c
    }
    /// Counts one run of class `class`.
    pub fn add(&mut self, class: VerdictClass) {
        *match class {
            VerdictClass::Pass => &mut self.pass,
            VerdictClass::Fail => &mut self.fail,
            VerdictClass::Invalid => &mut self.invalid,
            VerdictClass::Unsupported => &mut self.unsupported,
            VerdictClass::PreconditionFailed => &mut self.precondition_failed,
            VerdictClass::Error => &mut self.error,
        } += 1;
    }
    /// pass + fail: the runs a p̂ is computed over.
    pub fn judged(&self) -> u64 {
        self.pass + self.fail
    }
    /// Every other class.
    pub fn excluded(&self) -> u64 {
        self.invalid + self.unsupported + self.precondition_failed + self.error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Golden values, computed with Python's math only (z from
    // statistics.NormalDist().inv_cdf(0.975) = 1.9599639845400536, c2 = z²):
    //   k = 0, n = 5: center = (c2/10)/(1 + c2/5) = dist  → low 0 (2.8e-17
    //     before the clamp), high = 2·center = c2/(5 + c2) = 0.43448246478317465
    //   k = 5, n = 5: p = 1 → dist = (c2/10)/(1 + c2/5), low = 5/(5 + c2)
    //     = 0.5655175352168254, high = 1.0
    //   k = 3, n = 10: p = 0.3, denom = 1.3841458820694124,
    //     center = (0.3 + c2/20)/denom, dist = z·sqrt(0.021 + c2/400)/denom
    //     → (0.10779126740630102, 0.6032218525388546)
    //   k = 12, n = 25 → (0.30031285954112974, 0.6650148304964322)
    // (The brief quoted 0.43448246985 for the first upper bound; the formula
    // gives 0.434482464783..., see c2/(5 + c2) above.)
    const TOL: f64 = 1e-12;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < TOL && (a.1 - b.1).abs() < TOL
    }

    #[test]
    fn z_critical_matches_the_normal_quantile() {
        // scipy.stats.norm.isf(0.025) = 1.959963984540054; 0.99 → 2.5758293035489
        assert!((z_critical(0.95) - 1.959_963_984_540_054).abs() < 1e-14);
        assert!((z_critical(0.99) - 2.575_829_303_548_900_4).abs() < 1e-12);
    }

    #[test]
    fn wilson_known_values() {
        assert!(
            close(wilson(0, 5, 0.95), (0.0, 0.434_482_464_783_174_65)),
            "{:?}",
            wilson(0, 5, 0.95)
        );
        assert!(
            close(wilson(5, 5, 0.95), (0.565_517_535_216_825_4, 1.0)),
            "{:?}",
            wilson(5, 5, 0.95)
        );
        assert!(close(
            wilson(3, 10, 0.95),
            (0.107_791_267_406_301_02, 0.603_221_852_538_854_6)
        ));
        assert!(close(
            wilson(12, 25, 0.95),
            (0.300_312_859_541_129_74, 0.665_014_830_496_432_2)
        ));
    }

    #[test]
    fn wilson_bounds_stay_in_the_unit_interval() {
        let (lo, hi) = wilson(0, 5, 0.95);
        assert_eq!(lo, 0.0, "exact, not the 2.8e-17 residue");
        assert!(hi < 1.0);
        let (lo, hi) = wilson(5, 5, 0.95);
        assert!(lo > 0.0);
        assert_eq!(hi, 1.0);
    }

    #[test]
    fn wilson_symmetry_and_width() {
        // (k, n) and (n - k, n) are mirror images; a higher confidence widens.
        let (a_lo, a_hi) = wilson(3, 10, 0.95);
        let (b_lo, b_hi) = wilson(7, 10, 0.95);
        assert!((a_lo - (1.0 - b_hi)).abs() < 1e-15 && (a_hi - (1.0 - b_lo)).abs() < 1e-15);
        let (w_lo, w_hi) = wilson(3, 10, 0.99);
        assert!(w_lo < a_lo && w_hi > a_hi);
    }

    #[test]
    fn wilson_with_no_trials_is_the_unit_interval() {
        assert_eq!(wilson(0, 0, 0.95), (0.0, 1.0));
    }

    #[test]
    #[should_panic(expected = "exceed")]
    fn wilson_rejects_more_successes_than_trials() {
        let _ = wilson(6, 5, 0.95);
    }

    #[test]
    #[should_panic(expected = "confidence")]
    fn wilson_rejects_a_confidence_outside_zero_one() {
        let _ = wilson(1, 5, 1.0);
    }

    // statsmodels 0.15.0 proportion_confint(k, n, alpha=0.05, method="beta"):
    //   (0, 5) → (0.0, 0.5218237501049815) (exactly 1 - 0.025^(1/5))
    //   (3, 10) → (0.06673951117773447, 0.6524528500599973)
    //   (5, 5) → (0.4781762498950185, 1.0)
    #[test]
    fn clopper_pearson_known_values() {
        let close =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12;
        assert!(
            close(clopper_pearson(0, 5, 0.95), (0.0, 0.521_823_750_104_981_5)),
            "{:?}",
            clopper_pearson(0, 5, 0.95)
        );
        assert!(
            close(
                clopper_pearson(3, 10, 0.95),
                (0.066_739_511_177_734_47, 0.652_452_850_059_997_3)
            ),
            "{:?}",
            clopper_pearson(3, 10, 0.95)
        );
        assert!(close(
            clopper_pearson(5, 5, 0.95),
            (0.478_176_249_895_018_5, 1.0)
        ));
        assert_eq!(clopper_pearson(0, 0, 0.95), (0.0, 1.0));
        // exact is wider than Wilson
        let (w, c) = (wilson(3, 10, 0.95), clopper_pearson(3, 10, 0.95));
        assert!(c.0 < w.0 && c.1 > w.1);
    }

    #[test]
    fn confusion_counts_each_cell_and_no_report_apart() {
        use SelfReport::*;
        let pairs = [
            (Success, false),
            (Success, false),
            (Success, true),
            (Failure, false),
            (Failure, true),
            (Failure, true),
            (Failure, true),
            (None, true),
            (None, false),
        ];
        let c = Confusion::from_pairs(pairs);
        assert_eq!(
            c,
            Confusion {
                success_ok: 2,
                success_violated: 1,
                failure_ok: 1,
                failure_violated: 3,
                n: 7,
                no_report: 2
            }
        );
        let j = serde_json::to_value(c).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"success_ok": 2, "success_violated": 1, "failure_ok": 1,
                               "failure_violated": 3, "n": 7, "no_report": 2})
        );
        assert_eq!(Confusion::from_pairs([]), Confusion::default());
    }
}
