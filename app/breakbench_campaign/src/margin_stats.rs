//! Distribution-free statistics of the invariants' margins over a cell's
//! runs (REQ-STAT-MARGIN): the q-quantile with an order-statistic
//! confidence interval, the Wilks one-sided tolerance bound and the run
//! count it needs, and the joint sub-margin count.
//!
//! Nothing here assumes a distribution of the margins (only that they are
//! independent draws of a continuous variable; ties from a discrete margin
//! make the intervals conservative). Sources: H. A. David and H. N.
//! Nagaraja, *Order Statistics*, 3rd ed., Wiley 2003, §7.1 (confidence
//! intervals for quantiles); S. S. Wilks, "Determination of sample sizes
//! for setting tolerance limits", Ann. Math. Statist. 12 (1941) 91-96.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

/// One margin's statistics over a cell's runs, metres.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarginStats {
    /// Runs with this margin recorded.
    pub n: u64,
    /// The least margin, m.
    pub min_m: f64,
    /// `m(q)`: the empirical q-quantile, the order statistic `X(⌈nq⌉)`
    /// (numpy's `quantile(method="inverted_cdf")`), m.
    pub quantile_m: f64,
    /// Order-statistic confidence interval of the q-quantile at the
    /// scenario's confidence, `[X(l), X(u)]` with `P(Bin(n,q) <= l-1) <= α/2`
    /// and `P(Bin(n,q) <= u-1) >= 1-α/2`; `null` where no order statistic
    /// qualifies (too few runs for that end: the interval is open there).
    pub quantile_low_m: Option<f64>,
    pub quantile_high_m: Option<f64>,
    /// The ranks `l` and `u` (1-based) of the interval's ends.
    pub quantile_low_rank: Option<u64>,
    pub quantile_high_rank: Option<u64>,
    /// The interval's exact coverage `P(l <= Bin(n,q) <= u-1)` (an open end
    /// counts as ∓∞), >= the scenario's confidence when both ends exist.
    pub quantile_coverage: f64,
    /// Wilks' one-sided lower tolerance bound `X(r)`: with the declared
    /// confidence, at least the declared coverage of the runs' margins lie
    /// above it (`r` the largest with `P(Bin(n, 1-coverage) >= r) >=
    /// confidence`); `null` when the cell has fewer runs than `runs_needed`.
    pub tolerance_bound_m: Option<f64>,
    pub tolerance_rank: Option<u64>,
    /// The least n for which `X(1)` is such a bound: the smallest n with
    /// `1 - coverage^n >= confidence` (59 for 95 %/95 %).
    pub runs_needed: u64,
}

/// `P(Bin(n, p) <= k)`; 0 for k < 0.
fn binom_cdf(k: i64, n: u64, p: f64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    Binomial::new(p, n).map_or(f64::NAN, |b| b.cdf(k as u64))
}

/// The smallest n with `1 - coverage^n >= confidence` (Wilks, one-sided,
/// the sample minimum as the bound).
///
/// # Panics
/// If `coverage` or `confidence` is not strictly between 0 and 1.
pub fn wilks_runs_needed(coverage: f64, confidence: f64) -> u64 {
    assert!(
        coverage > 0.0 && coverage < 1.0 && confidence > 0.0 && confidence < 1.0,
        "coverage {coverage} and confidence {confidence} must be in (0, 1)"
    );
    let mut n = 1u64;
    let mut c = coverage;
    while 1.0 - c < confidence {
        n += 1;
        c *= coverage;
    }
    n
}

/// The statistics of `values` (any order, finite) at quantile `q`, interval
/// `confidence`, and tolerance `coverage` / `tol_confidence`; `None` for no
/// value.
///
/// # Panics
/// If a probability is not strictly between 0 and 1.
pub fn margin_stats(
    values: &[f64],
    q: f64,
    confidence: f64,
    coverage: f64,
    tol_confidence: f64,
) -> Option<MarginStats> {
    if values.is_empty() {
        return None;
    }
    let mut x = values.to_vec();
    x.sort_by(f64::total_cmp);
    let n = x.len() as u64;
    let at = |rank: u64| x[(rank - 1) as usize];
    let alpha = 1.0 - confidence;
    let rank_q = ((n as f64 * q).ceil() as u64).clamp(1, n);
    // l: the largest rank with P(Bin <= l-1) <= α/2
    let low_rank = (1..=n)
        .take_while(|l| binom_cdf(*l as i64 - 1, n, q) <= alpha / 2.0)
        .last();
    // u: the smallest rank with P(Bin <= u-1) >= 1 - α/2
    let high_rank = (1..=n).find(|u| binom_cdf(*u as i64 - 1, n, q) >= 1.0 - alpha / 2.0);
    let upper = high_rank.map_or(1.0, |u| binom_cdf(u as i64 - 1, n, q));
    let lower = low_rank.map_or(0.0, |l| binom_cdf(l as i64 - 1, n, q));
    // r: the largest rank with P(Bin(n, 1-coverage) >= r) >= tol_confidence
    let tol_rank = (1..=n)
        .take_while(|r| 1.0 - binom_cdf(*r as i64 - 1, n, 1.0 - coverage) >= tol_confidence)
        .last();
    Some(MarginStats {
        n,
        min_m: x[0],
        quantile_m: at(rank_q),
        quantile_low_m: low_rank.map(at),
        quantile_high_m: high_rank.map(at),
        quantile_low_rank: low_rank,
        quantile_high_rank: high_rank,
        quantile_coverage: upper - lower,
        tolerance_bound_m: tol_rank.map(at),
        tolerance_rank: tol_rank,
        runs_needed: wilks_runs_needed(coverage, tol_confidence),
    })
}

/// The joint sub-margin count: of `runs` (each a margin name → value map),
/// those with two or more margins at or below their `quantile_m` in
/// `stats` (REQ-STAT-MARGIN).
pub fn joint_sub_margin(
    runs: &[&BTreeMap<String, f64>],
    stats: &BTreeMap<String, MarginStats>,
) -> u64 {
    runs.iter()
        .filter(|m| {
            m.iter()
                .filter(|(k, v)| stats.get(*k).is_some_and(|s| **v <= s.quantile_m))
                .count()
                >= 2
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilks_59_runs_give_a_95_95_bound() {
        assert_eq!(wilks_runs_needed(0.95, 0.95), 59);
        assert_eq!(wilks_runs_needed(0.99, 0.95), 299);
        assert_eq!(wilks_runs_needed(0.9, 0.9), 22);
        let xs: Vec<f64> = (0..59).map(|i| i as f64 * 0.1).collect();
        let s = margin_stats(&xs, 0.05, 0.95, 0.95, 0.95).unwrap();
        assert_eq!(
            (s.tolerance_rank, s.tolerance_bound_m),
            (Some(1), Some(0.0))
        );
        let s = margin_stats(&xs[..58], 0.05, 0.95, 0.95, 0.95).unwrap();
        assert_eq!(s.tolerance_bound_m, None, "58 runs are one too few");
        // 93 runs: P(Bin(93, 0.05) >= 2) = 0.9514 >= 0.95 → the 2nd smallest
        let xs: Vec<f64> = (0..93).map(|i| i as f64).collect();
        let s = margin_stats(&xs, 0.05, 0.95, 0.95, 0.95).unwrap();
        assert_eq!(s.tolerance_rank, Some(2));
    }

    // scipy: n = 20, q = 0.5, α = 0.05 → binom.cdf(5, 20, .5) = 0.0207 <= 0.025,
    // binom.cdf(6) = 0.0577 → l = 6; binom.cdf(13) = 0.9423, binom.cdf(14)
    // = 0.9793 >= 0.975 → u = 15; coverage 0.9793 - 0.0207 = 0.9586.
    #[test]
    fn median_interval_of_20_runs() {
        let xs: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let s = margin_stats(&xs, 0.5, 0.95, 0.95, 0.95).unwrap();
        assert_eq!(
            (s.quantile_low_rank, s.quantile_high_rank),
            (Some(6), Some(15))
        );
        assert_eq!(
            (s.quantile_low_m, s.quantile_high_m),
            (Some(6.0), Some(15.0))
        );
        assert_eq!(s.quantile_m, 10.0);
        assert!(
            (s.quantile_coverage - 0.958_610_534_667_968_8).abs() < 1e-12,
            "{}",
            s.quantile_coverage
        );
        assert_eq!(s.min_m, 1.0);
    }

    #[test]
    fn five_runs_cannot_bound_the_5_percent_quantile_from_below() {
        let s = margin_stats(&[0.3, 0.1, 0.2, 0.5, 0.4], 0.05, 0.95, 0.95, 0.95).unwrap();
        // (0.95)^5 = 0.774 > 0.025: no order statistic is below ξ_q with 97.5 %
        assert_eq!(s.quantile_low_m, None);
        // binom.cdf(0, 5, .05) = 0.774, cdf(1) = 0.977 >= 0.975 → u = 2
        assert_eq!(s.quantile_high_m, Some(0.2));
        assert_eq!(s.quantile_m, 0.1);
        assert_eq!(s.tolerance_bound_m, None);
        assert!(margin_stats(&[], 0.05, 0.95, 0.95, 0.95).is_none());
    }

    #[test]
    fn joint_count_needs_two_margins_in_the_tail() {
        let mk = |a: f64, b: f64| -> BTreeMap<String, f64> {
            [("a".to_string(), a), ("b".to_string(), b)]
                .into_iter()
                .collect()
        };
        let runs = [mk(0.1, 0.1), mk(0.1, 0.9), mk(0.9, 0.1), mk(0.9, 0.9)];
        let refs: Vec<&BTreeMap<String, f64>> = runs.iter().collect();
        let mut st = BTreeMap::new();
        for k in ["a", "b"] {
            let v: Vec<f64> = runs.iter().map(|r| r[k]).collect();
            st.insert(
                k.to_string(),
                margin_stats(&v, 0.5, 0.95, 0.95, 0.95).unwrap(),
            );
        }
        // m(0.5) = X(2) = 0.1 for both: only the first run is in both tails
        assert_eq!(joint_sub_margin(&refs, &st), 1);
    }
}
