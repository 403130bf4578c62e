//! A binomial generalised linear model fitted by iteratively reweighted
//! least squares (IRLS), with the covariance of the coefficients from the
//! inverse Fisher information (REQ-STAT-GLM).
//!
//! No maintained Rust crate fits a binomial GLM with standard errors
//! without a system BLAS/LAPACK (ndarray-glm needs ndarray-linalg and
//! OpenBLAS; glmm pulls faer): the models here have at most a handful of
//! coefficients, so the normal equations are solved by a Cholesky
//! factorisation of our own. The normal and chi-square distributions come
//! from statrs.
//!
//! Source: P. McCullagh and J. A. Nelder, *Generalized Linear Models*, 2nd
//! ed., Chapman & Hall 1989, §2.5 (IRLS) and §4.4 (binomial deviance). The
//! arithmetic is the one of statsmodels' `GLM(endog=[k, n-k], exog,
//! family=Binomial(link))`, whose coefficients and `cov_params()` the CI
//! reference (`tests/reference/check_summary.py`) compares to 1e-6.

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

pub use crate::scenario::statistics::Link;

/// The link's arithmetic (the enum is the scenario schema's).
impl Link {
    /// `g(p)`, for `p` in (0, 1).
    pub fn eta(self, p: f64) -> f64 {
        match self {
            Link::Logit => (p / (1.0 - p)).ln(),
            Link::Probit => Normal::standard().inverse_cdf(p),
        }
    }

    /// `g⁻¹(η)`: the probability.
    pub fn mu(self, eta: f64) -> f64 {
        match self {
            Link::Logit => 1.0 / (1.0 + (-eta).exp()),
            Link::Probit => Normal::standard().cdf(eta),
        }
    }

    /// `dμ/dη` at `η`.
    pub fn dmu(self, eta: f64) -> f64 {
        match self {
            Link::Logit => {
                let m = self.mu(eta);
                m * (1.0 - m)
            }
            Link::Probit => Normal::standard().pdf(eta),
        }
    }

    /// The name summary.json records (`logit`, `probit`).
    pub fn name(self) -> &'static str {
        match self {
            Link::Logit => "logit",
            Link::Probit => "probit",
        }
    }
}

/// One binomial observation: a cell's design row `x` (intercept first),
/// `k` events out of `n` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Obs {
    pub x: Vec<f64>,
    pub k: f64,
    pub n: f64,
}

/// A converged fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Coefficients, in the order of the design rows' columns.
    pub coef: Vec<f64>,
    /// Their covariance `(XᵀWX)⁻¹` (row-major, p × p) at the estimate.
    pub cov: Vec<Vec<f64>>,
    /// Residual deviance `2 Σ [k log(k/nμ) + (n-k) log((n-k)/(n(1-μ)))]`.
    pub deviance: f64,
    /// Pearson's `Σ (k - nμ)² / (nμ(1-μ))`.
    pub pearson_chi2: f64,
    /// Observations minus coefficients.
    pub df_resid: usize,
    /// IRLS iterations to convergence.
    pub iterations: u32,
}

/// Why a model has no finite fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFit {
    /// The design has fewer observations than coefficients, or its columns
    /// are linearly dependent: the coefficients are not identifiable.
    NotIdentifiable,
    /// IRLS diverged: some fitted probability went to 0 or 1 (complete or
    /// quasi-complete separation, e.g. a cell at 0/n next to one at n/n),
    /// so the maximum-likelihood estimate does not exist.
    Separated,
}

/// IRLS iterations before a fit is declared diverged. A finite maximum
/// converges quadratically in a few iterations; under separation the
/// separated cells' linear predictor grows by about 1 per iteration, so
/// the coefficients never settle.
pub const MAX_ITER: u32 = 100;

/// Fits the binomial GLM of `obs` with `link` by IRLS: start at
/// `μ = (k + 0.5)/(n + 1)`, iterate the weighted least-squares step
/// `β = (XᵀWX)⁻¹XᵀWz`, `w = n (dμ/dη)² / (μ(1-μ))`, `z = η + (k/n - μ)/(dμ/dη)`,
/// until no coefficient moves by more than `1e-11 (1 + |β|∞)`.
///
/// # Errors
/// [`NoFit::NotIdentifiable`] if `XᵀX` is singular or there are fewer
/// observations than coefficients; [`NoFit::Separated`] if `XᵀWX` becomes
/// singular or IRLS has not converged after [`MAX_ITER`] iterations: the
/// likelihood has no finite maximum (complete or quasi-complete
/// separation: a hyperplane of the axes with no event on one side and only
/// events on the other, cells on it mixed). The CI reference checks each
/// verdict with a linear program (Konis 2007).
pub fn fit(obs: &[Obs], link: Link) -> Result<Fit, NoFit> {
    let p = obs.first().map_or(0, |o| o.x.len());
    if p == 0 || obs.len() < p {
        return Err(NoFit::NotIdentifiable);
    }
    // Identifiability with unit weights, before any iteration.
    let unit: Vec<f64> = vec![1.0; obs.len()];
    if cholesky(&normal_matrix(obs, &unit)).is_none() {
        return Err(NoFit::NotIdentifiable);
    }
    let mut eta: Vec<f64> = obs
        .iter()
        .map(|o| link.eta((o.k + 0.5) / (o.n + 1.0)))
        .collect();
    let mut beta = vec![0.0; p];
    for iter in 1..=MAX_ITER {
        let (w, z) = working(obs, &eta, link).ok_or(NoFit::Separated)?;
        let xtwx = normal_matrix(obs, &w);
        let l = cholesky(&xtwx).ok_or(NoFit::Separated)?;
        let mut xtwz = vec![0.0; p];
        for ((o, wi), zi) in obs.iter().zip(&w).zip(&z) {
            for (j, xj) in o.x.iter().enumerate() {
                xtwz[j] += xj * wi * zi;
            }
        }
        let next = solve(&l, &xtwz);
        let scale = 1.0 + next.iter().fold(0.0f64, |m, b| m.max(b.abs()));
        let moved = next
            .iter()
            .zip(&beta)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        beta = next;
        eta = obs.iter().map(|o| dot(&o.x, &beta)).collect();
        if iter > 1 && moved <= 1e-11 * scale {
            return Ok(finish(obs, beta, link, iter));
        }
    }
    Err(NoFit::Separated)
}

/// The deviance, Pearson χ² and covariance at the converged `beta`.
fn finish(obs: &[Obs], beta: Vec<f64>, link: Link, iterations: u32) -> Fit {
    let eta: Vec<f64> = obs.iter().map(|o| dot(&o.x, &beta)).collect();
    let (w, _) = working(obs, &eta, link).expect("checked by fit");
    let l = cholesky(&normal_matrix(obs, &w)).expect("checked by fit");
    let cov = inverse(&l);
    let mut deviance = 0.0;
    let mut pearson_chi2 = 0.0;
    for (o, e) in obs.iter().zip(&eta) {
        let mu = link.mu(*e);
        deviance += 2.0
            * (xlogy(o.k, o.k / (o.n * mu)) + xlogy(o.n - o.k, (o.n - o.k) / (o.n * (1.0 - mu))));
        let var = o.n * mu * (1.0 - mu);
        let r2 = (o.k - o.n * mu).powi(2);
        // a cell fitted at exactly 0 or 1 (underflow) that matches it adds nothing
        pearson_chi2 += if r2 == 0.0 { 0.0 } else { r2 / var };
    }
    Fit {
        coef: beta,
        cov,
        deviance,
        pearson_chi2,
        df_resid: obs.len() - obs[0].x.len(),
        iterations,
    }
}

/// `x log y`, 0 at `x = 0`.
fn xlogy(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * y.ln()
    }
}

/// IRLS weights and working response at `eta`. A cell whose fitted
/// probability has underflowed to exactly 0 or 1 gets weight 0 (it no
/// longer informs the step); `None` where a weight is not finite.
fn working(obs: &[Obs], eta: &[f64], link: Link) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut w = Vec::with_capacity(obs.len());
    let mut z = Vec::with_capacity(obs.len());
    for (o, e) in obs.iter().zip(eta) {
        let mu = link.mu(*e);
        let d = link.dmu(*e);
        let var = mu * (1.0 - mu);
        if var == 0.0 || d == 0.0 {
            w.push(0.0);
            z.push(*e);
            continue;
        }
        let wi = o.n * d * d / var;
        if !wi.is_finite() {
            return None;
        }
        w.push(wi);
        z.push(e + (o.k / o.n - mu) / d);
    }
    Some((w, z))
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `XᵀWX`.
fn normal_matrix(obs: &[Obs], w: &[f64]) -> Vec<Vec<f64>> {
    let p = obs[0].x.len();
    let mut m = vec![vec![0.0; p]; p];
    for (o, wi) in obs.iter().zip(w) {
        for (row, xi) in m.iter_mut().zip(&o.x) {
            for (mij, xj) in row.iter_mut().zip(&o.x) {
                *mij += xi * wi * xj;
            }
        }
    }
    m
}

/// Lower Cholesky factor of a symmetric matrix; `None` if it is not
/// (numerically) positive definite: a pivot below `1e-12` of its diagonal.
pub fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let p = a.len();
    let mut l = vec![vec![0.0; p]; p];
    for i in 0..p {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - s;
                // not `d <= ...`: a NaN pivot must fail too
                if d.partial_cmp(&(1e-12 * a[i][i].abs())) != Some(std::cmp::Ordering::Greater)
                    || !d.is_finite()
                {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - s) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b`.
fn solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let p = b.len();
    let mut y = vec![0.0; p];
    for i in 0..p {
        y[i] = (b[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; p];
    for i in (0..p).rev() {
        x[i] = (y[i] - (i + 1..p).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x
}

/// `(L Lᵀ)⁻¹`, column by column.
fn inverse(l: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let p = l.len();
    let cols: Vec<Vec<f64>> = (0..p)
        .map(|j| {
            let e: Vec<f64> = (0..p).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
            solve(l, &e)
        })
        .collect();
    // symmetric by construction, not only up to rounding
    (0..p)
        .map(|i| (0..p).map(|j| 0.5 * (cols[j][i] + cols[i][j])).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(rows: &[(f64, f64, f64)]) -> Vec<Obs> {
        rows.iter()
            .map(|&(x, k, n)| Obs {
                x: vec![1.0, x],
                k,
                n,
            })
            .collect()
    }

    // Reference values from statsmodels 0.15.0:
    //   GLM(np.c_[k, n-k], sm.add_constant(x), family=Binomial(link)).fit(tol=1e-13)
    // x = [0, 1, 2, 3], k = [1, 3, 6, 9], n = 10 each.
    #[test]
    fn logit_and_probit_fits_match_statsmodels() {
        let o = obs(&[
            (0.0, 1.0, 10.0),
            (1.0, 3.0, 10.0),
            (2.0, 6.0, 10.0),
            (3.0, 9.0, 10.0),
        ]);
        for (link, coef, se, dev, chi2) in [
            (
                Link::Logit,
                [-2.294_220_390_906_568_6, 1.423_730_344_599_878],
                [0.789_525_265_590_610_1, 0.432_729_337_171_699_6],
                0.107_535_756_274_930_59,
                0.105_946_470_560_998_4,
            ),
            (
                Link::Probit,
                [-1.350_917_358_809_602_6, 0.842_931_546_672_655_7],
                [0.428_009_660_330_983_53, 0.231_942_317_514_875_07],
                0.096_728_159_259_337_46,
                0.095_964_676_788_534_46,
            ),
        ] {
            let f = fit(&o, link).unwrap();
            for i in 0..2 {
                assert!(
                    (f.coef[i] - coef[i]).abs() < 1e-9,
                    "{link:?} coef {:?}",
                    f.coef
                );
                // statsmodels' bse comes from the weights of its last IRLS
                // step (its criterion is on the deviance, so that step is
                // ~1e-7 from the estimate); ours from the estimate itself:
                // they differ by ~1e-8.
                assert!(
                    (f.cov[i][i].sqrt() - se[i]).abs() < 1e-7,
                    "{link:?} se {} vs {}",
                    f.cov[i][i].sqrt(),
                    se[i]
                );
            }
            assert!(
                (f.deviance - dev).abs() < 1e-10,
                "{link:?} deviance {}",
                f.deviance
            );
            assert!(
                (f.pearson_chi2 - chi2).abs() < 1e-10,
                "{link:?} chi2 {}",
                f.pearson_chi2
            );
            assert_eq!(f.df_resid, 2);
            assert_eq!(f.cov[0][1], f.cov[1][0]);
        }
    }

    #[test]
    fn separation_is_reported_not_a_diverged_fit() {
        // 0/5 next to 5/5: quasi-complete separation
        let r = fit(
            &obs(&[
                (0.0, 0.0, 5.0),
                (1.0, 0.0, 5.0),
                (2.0, 5.0, 5.0),
                (3.0, 5.0, 5.0),
            ]),
            Link::Logit,
        );
        assert_eq!(r, Err(NoFit::Separated));
        let r = fit(
            &obs(&[(0.0, 0.0, 5.0), (1.0, 0.0, 5.0), (2.0, 5.0, 5.0)]),
            Link::Probit,
        );
        assert_eq!(r, Err(NoFit::Separated));
        // no event anywhere: the intercept goes to -inf
        let r = fit(&obs(&[(0.0, 0.0, 5.0), (1.0, 0.0, 5.0)]), Link::Logit);
        assert_eq!(r, Err(NoFit::Separated));
    }

    #[test]
    fn a_constant_axis_is_not_identifiable() {
        let r = fit(&obs(&[(1.0, 1.0, 5.0), (1.0, 3.0, 5.0)]), Link::Logit);
        assert_eq!(r, Err(NoFit::NotIdentifiable));
        let r = fit(&obs(&[(1.0, 1.0, 5.0)]), Link::Logit);
        assert_eq!(r, Err(NoFit::NotIdentifiable));
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // a matrix product reads best indexed
    fn cholesky_inverse_is_the_inverse() {
        let a = vec![
            vec![4.0, 2.0, 0.6],
            vec![2.0, 5.0, 1.0],
            vec![0.6, 1.0, 3.0],
        ];
        let inv = inverse(&cholesky(&a).unwrap());
        for i in 0..3 {
            for j in 0..3 {
                let s: f64 = (0..3).map(|k| a[i][k] * inv[k][j]).sum();
                assert!((s - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
        assert!(cholesky(&[vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }

    #[test]
    fn links_invert() {
        for l in [Link::Logit, Link::Probit] {
            for p in [0.01, 0.05, 0.5, 0.9] {
                // statrs' normal cdf and quantile agree to ~2e-12 (p = 0.05);
                // the CI reference allows 1e-6
                let e = l.mu(l.eta(p)) - p;
                assert!(e.abs() < 1e-11, "{l:?} {p}: {e:e}");
            }
        }
        assert!((Link::Logit.eta(0.05) - (0.05f64 / 0.95).ln()).abs() < 1e-15);
        // scipy.stats.norm.ppf(0.05)
        let e = Link::Probit.eta(0.05) - -1.644_853_626_951_472_9;
        assert!(e.abs() < 1e-10, "{e:e}");
    }
}
