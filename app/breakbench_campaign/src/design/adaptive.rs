//! A sequential design along one fault axis that spends runs where the
//! interval on s* shrinks most (REQ-STAT-ADAPTIVE).
//!
//! s* is the severity at which P(violation) reaches p*, from the binomial
//! GLM `g(P) = β₀ + β₁ s` ([`crate::glm`]), with the delta-method and
//! Fieller intervals of [`crate::dose::s_star`]. The design:
//!
//! 1. **Start**: `initial_levels` severities evenly spaced over `[lo, hi]`,
//!    `batch_runs` runs each.
//! 2. **Step**, until a stopping rule holds:
//!    - if the GLM has a finite fit with a rising slope, the next batch goes
//!      to the candidate severity (`candidates` evenly spaced over `[lo,
//!      hi]`) that leaves the narrowest Fieller interval on s* after the
//!      batch, at the current estimate (`fieller`; the stopping statistic
//!      itself, where the sequential locally c-optimal design of C. F. J.
//!      Wu, "Efficient sequential designs with binary data", JASA 80 (1985)
//!      974–984, minimises the delta method's variance; [`next_level`]);
//!    - otherwise (separation: a level at 0/n next to one at n/n, or no
//!      event yet) it goes to the midpoint of the first adjacent pair of
//!      tested levels whose p̂ straddle p* (`bisect`, as `breakbench
//!      search`) while that pair is at least two candidate steps apart;
//!      closer, it steers by Firth's penalised fit, which is finite under
//!      separation, with the same criterion (`firth`, [`firth_logit`]).
//!      Bisection alone would probe one severity over and over once a
//!      quasi-separated boundary is found (seen with batches of 1–4).
//! 3. **Stop** when Fieller's interval's width is at most `target_width`
//!    ([`Stop::Width`]), when `max_runs` is spent ([`Stop::Budget`]), or when
//!    every tested level is on one side of p* with the range's end tested
//!    ([`Stop::OutOfRange`]; with batches of 1 a single lucky run at an end
//!    can stop it, so batches of at least 2 are the sane choice).
//!
//! Every step is recorded in the order chosen ([`Step`]), and the design is
//! a function of the outcomes only, so the same outcomes give the same steps.
//!
//! Why Fieller's: the delta interval's width shrinks when the slope is
//! overestimated (common with few failures), so stopping on it stops early
//! on exactly the runs it covers worst (measured: 72–77 % coverage at 95 %
//! nominal); Fieller's widens with the slope's uncertainty.
//!
//! Measured against a known response (the tests below, 200 seeds, batches
//! of 2): 65.7 % fewer runs than an 11 × 20 grid for the same Fieller
//! width; the 95 % interval covered the true s* in 185/200 seeds (the
//! grid's in 191/200). What the interval does not claim: it is the final
//! fit's nominal interval. Stopping on its width (not on a test of s*) costs
//! some coverage, as measured; it is not an anytime-valid confidence
//! sequence: peeking at s* to stop early is not covered by it.

use crate::dose::{s_star, SStar};
use crate::glm::{self, Link, Obs};
use statrs::distribution::{ContinuousCDF, Normal};

/// The declared rule of an adaptive design along one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveRule {
    /// The axis range, in the axis's unit; `lo < hi`.
    pub lo: f64,
    pub hi: f64,
    /// The probability whose severity s* is sought, in (0, 1).
    pub p_star: f64,
    /// The interval's confidence, in (0, 1).
    pub confidence: f64,
    pub link: Link,
    /// Evenly spaced starting levels, at least 2.
    pub initial_levels: usize,
    /// Runs per level at the start and per step, at least 1.
    pub batch_runs: u64,
    /// Evenly spaced candidate severities of a step, at least 2.
    pub candidates: usize,
    /// Stop when Fieller's interval on s* is at most this wide (axis unit).
    pub target_width: f64,
    /// Stop when this many runs are spent.
    pub max_runs: u64,
}

/// One batch, in the order the design chose it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The severity, in the axis's unit.
    pub s: f64,
    pub runs: u64,
    pub failures: u64,
    /// `start`, `bisect`, `firth` (steered by Firth's fit while the plain one
    /// has none) or `fieller` (the narrowest expected Fieller interval).
    pub why: &'static str,
}

/// Why the design stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Width,
    Budget,
    OutOfRange,
}

/// The design's record and result.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub steps: Vec<Step>,
    pub runs: u64,
    /// s* from the last fit; `None` while the GLM has no finite fit.
    pub s_star: Option<SStar>,
    pub stop: Stop,
}

impl Outcome {
    /// Fieller's interval's width (the stopping statistic), if it is bounded.
    pub fn width(&self) -> Option<f64> {
        let d = &self.s_star.as_ref()?.fieller;
        Some(d.high? - d.low?)
    }
}

/// Pooled counts per tested severity, ascending: `(s, n, k)`.
fn levels(steps: &[Step]) -> Vec<(f64, u64, u64)> {
    pool(steps.iter().map(|st| (st.s, st.runs, st.failures)))
}

/// `(severity, runs, failures)` batches pooled per severity, ascending by
/// severity (the design's levels; the search page's fit).
pub fn pool(batches: impl IntoIterator<Item = (f64, u64, u64)>) -> Vec<(f64, u64, u64)> {
    let mut out: Vec<(f64, u64, u64)> = Vec::new();
    for (s, n, k) in batches {
        match out.iter_mut().find(|l| l.0 == s) {
            Some(l) => {
                l.1 += n;
                l.2 += k;
            }
            None => out.push((s, n, k)),
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The GLM of the levels and its s*, if it has a finite fit with a rising
/// slope.
pub fn fit_s_star(levels: &[(f64, u64, u64)], rule: &AdaptiveRule) -> Option<(glm::Fit, SStar)> {
    let obs: Vec<Obs> = levels
        .iter()
        .map(|&(s, n, k)| Obs {
            x: vec![1.0, s],
            k: k as f64,
            n: n as f64,
        })
        .collect();
    let fit = glm::fit(&obs, rule.link).ok()?;
    if fit.coef[1] <= 0.0 {
        return None;
    }
    let z = Normal::standard().inverse_cdf(0.5 + rule.confidence / 2.0);
    let ss = s_star(
        &fit.coef,
        &fit.cov,
        &[1.0, 0.0],
        &[0.0, 1.0],
        rule.link.eta(rule.p_star),
        z,
    );
    Some((fit, ss))
}

/// The Fisher information `Σ nᵢ w(sᵢ) xᵢ xᵢᵀ` (`x = (1, s)`) of the levels
/// `(s, n, k)` for a per-run weight `w`, as `[m₀₀, m₀₁, m₁₁]`.
fn information(levels: &[(f64, u64, u64)], w: impl Fn(f64) -> f64) -> [f64; 3] {
    let mut m = [0.0f64; 3];
    for &(x, n, _) in levels {
        let wn = n as f64 * w(x);
        m[0] += wn;
        m[1] += wn * x;
        m[2] += wn * x * x;
    }
    m
}

/// The candidate whose batch leaves the narrowest Fieller interval on s*,
/// all at the current estimate `beta` (the sequential locally optimal
/// design for the stopping statistic itself; C. F. J. Wu, "Efficient
/// sequential designs with binary data", JASA 80 (1985) 974–984, for the
/// c-optimal criterion it generalises).
///
/// After `batch_runs` more runs at `c` the information is
/// `M + n w(c) x xᵀ` (`x = (1, c)`, `w = (dμ/dη)² / (μ(1-μ))`), its inverse
/// the covariance `V`, and Fieller's interval the roots of
/// `A s² + 2B s + C = 0` with `A = β₁² - z² V₁₁`, `B = t β₁ - z² V₀₁`,
/// `C = t² - z² V₀₀`, `t = β₀ - g(p*)` ([`crate::dose::s_star`]): width
/// `2 √(B² - AC) / A`. Unlike the delta method's `∇ᵀ V ∇` it grows without
/// bound as the slope's own uncertainty nears `A = 0`, so a design that only
/// piles runs at ŝ* (which leaves the slope unknown) is not chosen. Where
/// no candidate bounds the interval yet, the one that makes `A` largest
/// (the slope's z-score) is taken.
fn next_level(levels: &[(f64, u64, u64)], beta: &[f64], link: Link, rule: &AdaptiveRule) -> f64 {
    let w = |x: f64| {
        let eta = beta[0] + beta[1] * x;
        let mu = link.mu(eta).clamp(1e-12, 1.0 - 1e-12);
        link.dmu(eta).powi(2) / (mu * (1.0 - mu))
    };
    let m = information(levels, w);
    let z = Normal::standard().inverse_cdf(0.5 + rule.confidence / 2.0);
    let eta_star = link.eta(rule.p_star);
    // (bounded, width or -A): bounded intervals first, narrowest first
    let mut best: Option<((bool, f64), f64)> = None;
    for i in 0..rule.candidates {
        let c = rule.lo + (rule.hi - rule.lo) * i as f64 / (rule.candidates - 1) as f64;
        let wn = rule.batch_runs as f64 * w(c);
        let (a, b, d) = (m[0] + wn, m[1] + wn * c, m[2] + wn * c * c);
        let det = a * d - b * b;
        if det <= 0.0 {
            continue;
        }
        // V = M⁻¹ = [d -b; -b a] / det
        let (v00, v01, v11) = (d / det, -b / det, a / det);
        let cov = [vec![v00, v01], vec![v01, v11]];
        let f = s_star(beta, &cov, &[1.0, 0.0], &[0.0, 1.0], eta_star, z).fieller;
        let key = match (f.low, f.high) {
            (Some(l), Some(h)) => (true, h - l),
            _ => (false, z * z * v11 - beta[1] * beta[1]), // -A
        };
        let better = match &best {
            None => true,
            Some((k, _)) => (key.0 && !k.0) || (key.0 == k.0 && key.1 < k.1),
        };
        if better {
            best = Some((key, c));
        }
    }
    best.map_or(rule.lo, |b| b.1)
}

/// Whether every tested level's p̂ is on one side of p* (at most p*, or
/// above it): the start tests both ends of the range, so s* is outside it.
fn one_sided(levels: &[(f64, u64, u64)], p_star: f64) -> bool {
    let above = |l: &(f64, u64, u64)| l.2 as f64 / l.1 as f64 > p_star;
    levels.iter().all(above) || !levels.iter().any(above)
}

/// The midpoint of the first adjacent pair of levels whose p̂ straddle p*
/// (at most p*, then above it), while that pair is at least two candidate
/// steps apart; `None` once it is narrower (bisection would then probe one
/// severity over and over: [`firth_logit`] steers instead) or no pair
/// straddles p*.
fn bisect(levels: &[(f64, u64, u64)], rule: &AdaptiveRule) -> Option<f64> {
    let p = |l: &(f64, u64, u64)| l.2 as f64 / l.1 as f64;
    let resolution = 2.0 * (rule.hi - rule.lo) / (rule.candidates - 1) as f64;
    levels
        .windows(2)
        .find(|w| p(&w[0]) <= rule.p_star && p(&w[1]) > rule.p_star)
        .filter(|w| w[1].0 - w[0].0 >= resolution)
        .map(|w| (w[0].0 + w[1].0) / 2.0)
}

/// Firth's penalised maximum-likelihood fit of the logit `β₀ + β₁ s` to the
/// levels `(s, n, k)`: `[β₀, β₁]`, finite even under separation (a level at
/// 0/n next to one at n/n), where the plain fit has none. D. Firth, "Bias
/// reduction of maximum likelihood estimates", Biometrika 80 (1993) 27–38;
/// for the logit the modified score is
/// `U* = Σ xᵢ (kᵢ - nᵢμᵢ + hᵢ (½ - μᵢ))`, `hᵢ` the leverages of
/// `W^½ X`, `W = diag(nᵢ μᵢ (1-μᵢ))`, solved by Fisher scoring.
/// `None` if it does not converge in 100 steps or the levels are fewer than
/// two distinct severities.
///
/// The design only steers by it while the plain fit has no finite estimate;
/// every reported s* and interval is the plain fit's.
pub fn firth_logit(levels: &[(f64, u64, u64)]) -> Option<[f64; 2]> {
    let mut beta = [0.0f64; 2];
    for _ in 0..100 {
        let mut u = [0.0f64; 2];
        let mu = |x: f64, b: &[f64; 2]| Link::Logit.mu(b[0] + b[1] * x).clamp(1e-12, 1.0 - 1e-12);
        let i = information(levels, |x| {
            let m = mu(x, &beta);
            m * (1.0 - m)
        });
        let det = i[0] * i[2] - i[1] * i[1];
        if det <= 0.0 || !det.is_finite() {
            return None;
        }
        for &(x, n, k) in levels {
            let m = mu(x, &beta);
            let w = n as f64 * m * (1.0 - m);
            // h = w xᵀ I⁻¹ x with I⁻¹ = [i2 -i1; -i1 i0] / det
            let h = w * (i[2] - 2.0 * x * i[1] + x * x * i[0]) / det;
            let r = k as f64 - n as f64 * m + h * (0.5 - m);
            u[0] += r;
            u[1] += r * x;
        }
        let step = [
            (i[2] * u[0] - i[1] * u[1]) / det,
            (-i[1] * u[0] + i[0] * u[1]) / det,
        ];
        // at most 5 units of the linear predictor's scale per step
        let scale = (5.0 / step[0].abs().max(step[1].abs())).min(1.0);
        beta = [beta[0] + scale * step[0], beta[1] + scale * step[1]];
        if step[0].abs().max(step[1].abs()) < 1e-10 {
            return Some(beta);
        }
    }
    None
}

/// Runs the adaptive design. `batch(s, why)` executes `rule.batch_runs`
/// new runs at severity `s` (chosen for reason `why`) and returns how many
/// violated the predicate; the caller numbers the runs (each batch's are
/// new draws, even at a severity tested before).
///
/// # Errors
/// The first error `batch` returns; the design stops there.
///
/// # Panics
/// If the rule is malformed (`lo >= hi`, fewer than 2 levels or
/// candidates, `batch_runs` 0): the scenario loader refuses such rules.
pub fn run_adaptive<E>(
    rule: &AdaptiveRule,
    batch: &mut dyn FnMut(f64, &'static str) -> Result<u64, E>,
) -> Result<Outcome, E> {
    assert!(
        rule.lo < rule.hi
            && rule.initial_levels >= 2
            && rule.candidates >= 2
            && rule.batch_runs >= 1
    );
    let mut steps = Vec::new();
    let mut spend = |s: f64, why: &'static str, steps: &mut Vec<Step>| -> Result<(), E> {
        let failures = batch(s, why)?;
        steps.push(Step {
            s,
            runs: rule.batch_runs,
            failures,
            why,
        });
        Ok(())
    };
    for i in 0..rule.initial_levels {
        let s = rule.lo + (rule.hi - rule.lo) * i as f64 / (rule.initial_levels - 1) as f64;
        spend(s, "start", &mut steps)?;
    }
    loop {
        let lv = levels(&steps);
        let runs: u64 = lv.iter().map(|l| l.1).sum();
        let fitted = fit_s_star(&lv, rule);
        let s_star = fitted.as_ref().map(|f| f.1.clone());
        let done = |stop| Outcome {
            steps: steps.clone(),
            runs,
            s_star: s_star.clone(),
            stop,
        };
        if let Some((_, ss)) = &fitted {
            if let (Some(l), Some(h)) = (ss.fieller.low, ss.fieller.high) {
                if h - l <= rule.target_width {
                    return Ok(done(Stop::Width));
                }
            }
        }
        if runs + rule.batch_runs > rule.max_runs {
            return Ok(done(Stop::Budget));
        }
        let next = match &fitted {
            Some((fit, ss)) if ss.value.is_some() => {
                Some((next_level(&lv, &fit.coef, rule.link, rule), "fieller"))
            }
            _ if one_sided(&lv, rule.p_star) => None,
            _ => Some(match bisect(&lv, rule) {
                Some(s) => (s, "bisect"),
                None => match firth_logit(&lv).filter(|b| b[1] > 0.0) {
                    Some(b) => (next_level(&lv, &b, Link::Logit, rule), "firth"),
                    None => ((rule.lo + rule.hi) / 2.0, "bisect"),
                },
            }),
        };
        match next {
            Some((s, why)) => spend(s, why, &mut steps)?,
            None => return Ok(done(Stop::OutOfRange)),
        }
    }
}

/// [`run_adaptive`] with `run(s, index)` executing run number `index` (0,
/// 1, 2, ... in the order spent) and saying whether it violated.
pub fn run_adaptive_each(rule: &AdaptiveRule, run: &mut dyn FnMut(f64, u64) -> bool) -> Outcome {
    let mut index = 0u64;
    let out: Result<Outcome, std::convert::Infallible> = run_adaptive(rule, &mut |s, _| {
        let k = (index..index + rule.batch_runs)
            .filter(|&i| run(s, i))
            .count() as u64;
        index += rule.batch_runs;
        Ok(k)
    });
    match out {
        Ok(o) => o,
        Err(e) => match e {},
    }
}

/// The full-grid baseline: `levels` evenly spaced severities over `[lo,
/// hi]`, `runs_per_level` each, run indices in grid order; its s* as the
/// adaptive design computes it.
pub fn run_grid(
    rule: &AdaptiveRule,
    levels: usize,
    runs_per_level: u64,
    run: &mut dyn FnMut(f64, u64) -> bool,
) -> (u64, Option<SStar>) {
    let mut lv = Vec::new();
    let mut index = 0;
    for i in 0..levels {
        let s = rule.lo + (rule.hi - rule.lo) * i as f64 / (levels - 1) as f64;
        let k = (0..runs_per_level)
            .filter(|_| {
                index += 1;
                run(s, index - 1)
            })
            .count() as u64;
        lv.push((s, runs_per_level, k));
    }
    (index, fit_s_star(&lv, rule).map(|f| f.1))
}

#[cfg(test)]
mod tests;
