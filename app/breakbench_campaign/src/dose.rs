//! Dose-response over the grid (REQ-STAT-DOSE): per predicate a binomial
//! GLM ([`crate::glm`]) of the violation count on the fault axes and their
//! pairwise interactions, its lack-of-fit test over the cells, and for a
//! declared p* the severity s* at which P reaches p* along each axis (at
//! each grid value of the others) with delta-method and Fieller intervals.
//! A separated grid is reported as such, with the bracket of s* read from
//! the cells, never as a diverged fit.
//!
//! Sources: D. J. Finney, *Probit Analysis*, 3rd ed., Cambridge 1971, §4.5
//! (Fieller's theorem for the dose at a response); W. N. Venables and B. D.
//! Ripley, *MASS* (R), `dose.p` (delta method); E. C. Fieller, "Some
//! problems in interval estimation", JRSS B 16 (1954) 175-185.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

use crate::glm::{fit, Link, NoFit, Obs};

/// One cell's counts for one predicate: the model's input.
#[derive(Debug, Clone, PartialEq)]
pub struct CellCounts {
    /// Fault axis name → value.
    pub axes: BTreeMap<String, f64>,
    pub n: u64,
    pub k: u64,
}

/// An interval `[low, high]`; `null` ends when it is unbounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// s* along one axis at given values of the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SStar {
    /// The axis s* is a value of, in its unit.
    pub axis: String,
    /// The other model axes' values it is taken at.
    pub at: BTreeMap<String, f64>,
    /// `(g(p*) - aᵀβ) / bᵀβ`, where `η = aᵀβ + s·bᵀβ` along the axis;
    /// `null` when the slope is 0.
    pub value: Option<f64>,
    /// s* lies outside the tested values of the axis (an extrapolation).
    pub extrapolated: bool,
    /// Delta-method standard error and `s* ± z·se` interval.
    pub delta_se: Option<f64>,
    pub delta: Interval,
    /// Fieller's interval: `{s : (θ₁ + sθ₂)² <= z² Var(θ₁ + sθ₂)}`; both
    /// ends `null` when it is unbounded (the slope is not significantly
    /// different from 0 at the confidence: no finite interval exists).
    pub fieller: Interval,
}

/// Separation: s* read from the cells. `between` is the first pair of
/// adjacent tested values (in ascending order) whose p̂ lie on either side
/// of p*; `null` when every p̂ is on one side (`side`: `below` or `above`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bracket {
    pub axis: String,
    pub at: BTreeMap<String, f64>,
    pub between: Option<[f64; 2]>,
    pub side: Option<String>,
    /// "separated: s* between a and b" (or "P below p* over the tested range").
    pub text: String,
}

/// A model term's Wald test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wald {
    pub term: String,
    pub z: f64,
    /// Two-sided `2·Φ(-|z|)`.
    pub p_value: f64,
}

/// One predicate's dose-response model over one navigator variant's cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoseModel {
    /// `safety` or `mission`.
    pub predicate: String,
    /// Navigator axis name → value index (empty without navigator axes).
    pub variant: BTreeMap<String, f64>,
    pub link: Link,
    /// `intercept`, each axis with two or more tested values, then each
    /// pair `a:b`.
    pub terms: Vec<String>,
    /// Cells in the fit (those with judged runs).
    pub cells: u64,
    /// `fitted`, `separated` or `not_identifiable`.
    pub status: String,
    /// Fitted: coefficients, standard errors and covariance, in `terms` order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coefficients: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standard_errors: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covariance: Vec<Vec<f64>>,
    /// Fitted: residual deviance, Pearson χ², residual degrees of freedom,
    /// and the lack-of-fit p-value `P(χ²(df) >= deviance)` (`null` at df 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pearson_chi2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub df_resid: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lack_of_fit_p: Option<f64>,
    /// Fitted: the Wald test of each interaction term.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interaction: Vec<Wald>,
    /// Fitted: s* per axis.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub s_star: Vec<SStar>,
    /// Separated: the bracket of s* per axis, from the cells.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub separated: Vec<Bracket>,
}

/// `{a=1, b=2}` as `a=1, b=2`.
fn at_text(at: &BTreeMap<String, f64>) -> String {
    at.iter()
        .map(|(a, v)| format!("{a}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn num(v: Option<f64>) -> String {
    v.map_or("unbounded".into(), |x| format!("{x:.4}"))
}

impl DoseModel {
    /// The model's axes (the main-effect terms), in term order.
    pub fn axes(&self) -> Vec<String> {
        self.terms[1..]
            .iter()
            .filter(|t| !t.contains(':'))
            .cloned()
            .collect()
    }

    /// The linear predictor η and its variance at `point` (every model
    /// axis → value); `None` unless fitted or if `point` lacks an axis.
    pub fn eta(&self, point: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
        let axes = self.axes();
        if self.status != "fitted" || axes.iter().any(|a| !point.contains_key(a)) {
            return None;
        }
        let r = row(&axes, point);
        let eta = r.iter().zip(&self.coefficients).map(|(x, b)| x * b).sum();
        Some((eta, quad(&self.covariance, &r, &r)))
    }

    /// The model's lines for the terminal: the fit (or its separation) and
    /// each s* with both intervals, each ending with `noise`, the nominal
    /// spread the figure should be read against.
    pub fn lines(&self, p_star: f64, noise: &str) -> Vec<String> {
        let who = if self.variant.is_empty() {
            self.predicate.clone()
        } else {
            format!("{} [{}]", self.predicate, at_text(&self.variant))
        };
        let mut out = Vec::new();
        match self.status.as_str() {
            "fitted" => {
                let inter: Vec<String> = self
                    .interaction
                    .iter()
                    .map(|w| format!("; interaction {} z {:.2}, p {:.3}", w.term, w.z, w.p_value))
                    .collect();
                out.push(format!(
                    "{who}: {} fit over {} cells, deviance {:.3} on {} df (lack of fit p {}){}; {noise}",
                    self.link.name(),
                    self.cells,
                    self.deviance.unwrap_or(f64::NAN),
                    self.df_resid.unwrap_or(0),
                    self.lack_of_fit_p.map_or("n/a".into(), |p| format!("{p:.3}")),
                    inter.concat()
                ));
                for s in &self.s_star {
                    let at = if s.at.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", at_text(&s.at))
                    };
                    out.push(format!(
                        "{who}: s*(P = {p_star}) along {}{at}: {}{} (delta [{}, {}], Fieller [{}, {}]); {noise}",
                        s.axis,
                        num(s.value),
                        if s.extrapolated { ", extrapolated" } else { "" },
                        num(s.delta.low),
                        num(s.delta.high),
                        num(s.fieller.low),
                        num(s.fieller.high),
                    ));
                }
            }
            "separated" => {
                for b in &self.separated {
                    let at = if b.at.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", at_text(&b.at))
                    };
                    out.push(format!("{who}: along {}{at}: {}; {noise}", b.axis, b.text));
                }
            }
            other => out.push(format!("{who}: no model ({other}); {noise}")),
        }
        out
    }
}

/// Every combination of `values` (one list per axis name), in name order.
fn combinations(values: &BTreeMap<String, Vec<f64>>) -> Vec<BTreeMap<String, f64>> {
    let mut out = vec![BTreeMap::new()];
    for (name, vs) in values {
        out = out
            .into_iter()
            .flat_map(|m| {
                vs.iter().map(move |v| {
                    let mut m = m.clone();
                    m.insert(name.clone(), *v);
                    m
                })
            })
            .collect();
    }
    out
}

/// The points of the other axes s* is taken at: `reference`'s value of
/// each (0 if it lacks one), or every combination of their values.
fn at_points(
    others: &BTreeMap<String, Vec<f64>>,
    reference: Option<&BTreeMap<String, f64>>,
) -> Vec<BTreeMap<String, f64>> {
    match reference {
        Some(r) => vec![others
            .keys()
            .map(|a| (a.clone(), r.get(a).copied().unwrap_or(0.0)))
            .collect()],
        None => combinations(others),
    }
}

/// The design row of `axes` for the model `axes_in` (intercept, mains, pairs).
fn row(axes_in: &[String], at: &BTreeMap<String, f64>) -> Vec<f64> {
    let v: Vec<f64> = axes_in.iter().map(|a| at[a]).collect();
    let mut r = vec![1.0];
    r.extend(&v);
    for i in 0..v.len() {
        for j in i + 1..v.len() {
            r.push(v[i] * v[j]);
        }
    }
    r
}

/// The model of `cells` (one predicate, one variant) with `link`, and s*
/// for `p_star` at two-sided `confidence` (REQ-STAT-DOSE), along each axis
/// at every combination of the others' tested values.
///
/// # Panics
/// If `p_star` or `confidence` is not strictly between 0 and 1.
pub fn dose_model(
    predicate: &str,
    variant: BTreeMap<String, f64>,
    cells: &[CellCounts],
    link: Link,
    p_star: f64,
    confidence: f64,
) -> DoseModel {
    dose_model_at(predicate, variant, cells, (link, p_star, confidence), None)
}

/// [`dose_model`], s* along each axis taken at `reference`'s values of the
/// others when given (a sampled design's points share no value of another
/// axis, REQ-STAT-SAMPLED: s* is taken at each other axis' declared
/// `range.reference`), else at every combination of their tested values.
/// `(link, p_star, confidence)` as for [`dose_model`].
///
/// # Panics
/// If `p_star` or `confidence` is not strictly between 0 and 1.
pub fn dose_model_at(
    predicate: &str,
    variant: BTreeMap<String, f64>,
    cells: &[CellCounts],
    (link, p_star, confidence): (Link, f64, f64),
    reference: Option<&BTreeMap<String, f64>>,
) -> DoseModel {
    let cells: Vec<&CellCounts> = cells.iter().filter(|c| c.n > 0).collect();
    // axes with two or more tested values, and their values
    let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for c in &cells {
        for (a, v) in &c.axes {
            let vs = values.entry(a.clone()).or_default();
            if !vs.contains(v) {
                vs.push(*v);
            }
        }
    }
    values.retain(|_, vs| vs.len() >= 2);
    for vs in values.values_mut() {
        vs.sort_by(f64::total_cmp);
    }
    let axes_in: Vec<String> = values.keys().cloned().collect();
    let mut terms = vec!["intercept".to_string()];
    terms.extend(axes_in.iter().cloned());
    for i in 0..axes_in.len() {
        for j in i + 1..axes_in.len() {
            terms.push(format!("{}:{}", axes_in[i], axes_in[j]));
        }
    }
    let obs: Vec<Obs> = cells
        .iter()
        .map(|c| Obs {
            x: row(&axes_in, &c.axes),
            k: c.k as f64,
            n: c.n as f64,
        })
        .collect();
    let mut m = DoseModel {
        predicate: predicate.into(),
        variant,
        link,
        terms,
        cells: cells.len() as u64,
        status: String::new(),
        coefficients: Vec::new(),
        standard_errors: Vec::new(),
        covariance: Vec::new(),
        deviance: None,
        pearson_chi2: None,
        df_resid: None,
        lack_of_fit_p: None,
        interaction: Vec::new(),
        s_star: Vec::new(),
        separated: Vec::new(),
    };
    let z = crate::stats::z_critical(confidence);
    match fit(&obs, link) {
        Err(NoFit::NotIdentifiable) => m.status = "not_identifiable".into(),
        Err(NoFit::Separated) => {
            m.status = "separated".into();
            m.separated = brackets(&cells, &values, p_star, reference);
        }
        Ok(f) => {
            m.status = "fitted".into();
            m.standard_errors = (0..f.coef.len()).map(|i| f.cov[i][i].sqrt()).collect();
            m.lack_of_fit_p = (f.df_resid > 0)
                .then(|| ChiSquared::new(f.df_resid as f64).map_or(f64::NAN, |c| c.sf(f.deviance)));
            m.deviance = Some(f.deviance);
            m.pearson_chi2 = Some(f.pearson_chi2);
            m.df_resid = Some(f.df_resid as u64);
            let main = 1 + axes_in.len();
            m.interaction = (main..f.coef.len())
                .map(|i| {
                    let zs = f.coef[i] / m.standard_errors[i];
                    Wald {
                        term: m.terms[i].clone(),
                        z: zs,
                        p_value: 2.0 * Normal::standard().cdf(-zs.abs()),
                    }
                })
                .collect();
            let target = link.eta(p_star);
            for (axis, vs) in &values {
                let others: BTreeMap<String, Vec<f64>> = values
                    .iter()
                    .filter(|(a, _)| *a != axis)
                    .map(|(a, v)| (a.clone(), v.clone()))
                    .collect();
                for at in at_points(&others, reference) {
                    let mut at0 = at.clone();
                    at0.insert(axis.clone(), 0.0);
                    let a = row(&axes_in, &at0);
                    at0.insert(axis.clone(), 1.0);
                    let b: Vec<f64> = row(&axes_in, &at0)
                        .iter()
                        .zip(&a)
                        .map(|(x, y)| x - y)
                        .collect();
                    let mut s = s_star(&f.coef, &f.cov, &a, &b, target, z);
                    s.axis = axis.clone();
                    s.at = at;
                    s.extrapolated = s.value.is_some_and(|v| v < vs[0] || v > vs[vs.len() - 1]);
                    m.s_star.push(s);
                }
            }
            m.coefficients = f.coef;
            m.covariance = f.cov;
        }
    }
    m
}

fn quad(v: &[Vec<f64>], a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, ai) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            s += ai * v[i][j] * bj;
        }
    }
    s
}

/// s* where `aᵀβ + s·bᵀβ = target`, with its delta-method and Fieller
/// intervals at critical value `z` (axis and `at` left empty).
pub fn s_star(beta: &[f64], cov: &[Vec<f64>], a: &[f64], b: &[f64], target: f64, z: f64) -> SStar {
    let dot = |x: &[f64]| x.iter().zip(beta).map(|(p, q)| p * q).sum::<f64>();
    let t1 = dot(a) - target;
    let t2 = dot(b);
    let (v11, v12, v22) = (quad(cov, a, a), quad(cov, a, b), quad(cov, b, b));
    let value = (t2 != 0.0).then(|| -t1 / t2);
    // delta: ∇s = -(a + s b)/θ₂, Var = ∇ᵀ Σ ∇ = (v11 + 2 s v12 + s² v22)/θ₂²
    let delta_se = value.map(|s| ((v11 + 2.0 * s * v12 + s * s * v22) / (t2 * t2)).sqrt());
    let delta = match (value, delta_se) {
        (Some(s), Some(se)) => Interval {
            low: Some(s - z * se),
            high: Some(s + z * se),
        },
        _ => Interval {
            low: None,
            high: None,
        },
    };
    // Fieller: A s² + 2B s + C <= 0
    let z2 = z * z;
    let qa = t2 * t2 - z2 * v22;
    let qb = t1 * t2 - z2 * v12;
    let qc = t1 * t1 - z2 * v11;
    let disc = qb * qb - qa * qc;
    let fieller = if qa > 0.0 && disc >= 0.0 {
        let r = disc.sqrt();
        Interval {
            low: Some((-qb - r) / qa),
            high: Some((-qb + r) / qa),
        }
    } else {
        Interval {
            low: None,
            high: None,
        }
    };
    SStar {
        axis: String::new(),
        at: BTreeMap::new(),
        value,
        extrapolated: false,
        delta_se,
        delta,
        fieller,
    }
}

/// The bracket of s* along each axis at each combination of the others'
/// values, read from the cells' p̂ (a separated model).
fn brackets(
    cells: &[&CellCounts],
    values: &BTreeMap<String, Vec<f64>>,
    p_star: f64,
    reference: Option<&BTreeMap<String, f64>>,
) -> Vec<Bracket> {
    let mut out = Vec::new();
    for (axis, vs) in values {
        let others: BTreeMap<String, Vec<f64>> = values
            .iter()
            .filter(|(a, _)| *a != axis)
            .map(|(a, v)| (a.clone(), v.clone()))
            .collect();
        for at in at_points(&others, reference) {
            // p̂ along the axis (cells pooled if a value repeats)
            let line: Vec<(f64, bool)> = vs
                .iter()
                .filter_map(|v| {
                    let (k, n) = cells
                        .iter()
                        .filter(|c| c.axes[axis] == *v && at.iter().all(|(a, x)| c.axes[a] == *x))
                        .fold((0, 0), |(k, n), c| (k + c.k, n + c.n));
                    (n > 0).then(|| (*v, k as f64 / n as f64 > p_star))
                })
                .collect();
            if line.len() < 2 {
                // fewer than two tested values along the axis here (a
                // pairwise design's slice): it brackets nothing
                continue;
            }
            let cross = line.windows(2).find(|w| w[0].1 != w[1].1);
            let (between, side, text) = match cross {
                Some(w) => (
                    Some([w[0].0, w[1].0]),
                    None,
                    format!("separated: s* between {} and {}", w[0].0, w[1].0),
                ),
                None => {
                    let above = line.first().is_some_and(|x| x.1);
                    let side = if above { "above" } else { "below" };
                    (
                        None,
                        Some(side.to_string()),
                        format!(
                            "separated: P {side} p* = {p_star} over the tested range of {axis}"
                        ),
                    )
                }
            };
            out.push(Bracket {
                axis: axis.clone(),
                at,
                between,
                side,
                text,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[(f64, f64, u64, u64)]) -> Vec<CellCounts> {
        rows.iter()
            .map(|&(x, y, k, n)| CellCounts {
                axes: [("lat".to_string(), x), ("bias".to_string(), y)]
                    .into_iter()
                    .collect(),
                n,
                k,
            })
            .collect()
    }

    #[test]
    fn a_separated_grid_gives_the_bracket_from_the_cells() {
        // the corridor's shape: 0/5 up to latency 0.4, 5/5 from 0.8
        let mut rows = Vec::new();
        for y in [0.0, 0.2] {
            for (x, k) in [(0.0, 0), (0.15, 0), (0.4, 0), (0.8, 5)] {
                rows.push((x, y, k, 5));
            }
        }
        let m = dose_model(
            "safety",
            BTreeMap::new(),
            &grid(&rows),
            Link::Logit,
            0.05,
            0.95,
        );
        assert_eq!(m.status, "separated");
        assert!(m.coefficients.is_empty() && m.s_star.is_empty());
        let lat: Vec<&Bracket> = m.separated.iter().filter(|b| b.axis == "lat").collect();
        assert_eq!(lat.len(), 2);
        assert_eq!(lat[0].between, Some([0.4, 0.8]));
        assert_eq!(lat[0].text, "separated: s* between 0.4 and 0.8");
        let bias: Vec<&Bracket> = m.separated.iter().filter(|b| b.axis == "bias").collect();
        assert_eq!(bias.len(), 4);
        assert_eq!(bias[0].side.as_deref(), Some("below"));
        assert_eq!(bias[3].side.as_deref(), Some("above"));
        let lines = m.lines(0.05, "n");
        assert_eq!(lines[0], "safety: along bias at lat=0: separated: P below p* = 0.05 over the tested range of bias; n");
    }

    #[test]
    fn s_star_of_a_one_axis_logit_and_its_intervals() {
        // η = -3 + 2x, Var(β) = diag(0.25, 0.04): s*(p=0.5) = 1.5
        let cov = vec![vec![0.25, 0.0], vec![0.0, 0.04]];
        let s = s_star(
            &[-3.0, 2.0],
            &cov,
            &[1.0, 0.0],
            &[0.0, 1.0],
            0.0,
            1.959_963_984_540_054,
        );
        assert_eq!(s.value, Some(1.5));
        // se = sqrt(0.25 + 1.5²·0.04)/2 = sqrt(0.34)/2
        assert!((s.delta_se.unwrap() - 0.34f64.sqrt() / 2.0).abs() < 1e-15);
        let (lo, hi) = (s.fieller.low.unwrap(), s.fieller.high.unwrap());
        // Fieller's ends solve (θ₁ + sθ₂)² = z²(v11 + s² v22) exactly
        for e in [lo, hi] {
            let lhs = (-3.0 + 2.0 * e) * (-3.0 + 2.0f64 * e);
            let rhs = 1.959_963_984_540_054f64.powi(2) * (0.25 + e * e * 0.04);
            assert!((lhs - rhs).abs() < 1e-12, "{e}");
        }
        assert!(lo < 1.5 && hi > 1.5);
        // a slope not different from 0: Fieller unbounded
        let wide = vec![vec![0.25, 0.0], vec![0.0, 4.0]];
        let s = s_star(&[-3.0, 2.0], &wide, &[1.0, 0.0], &[0.0, 1.0], 0.0, 1.96);
        assert_eq!(
            s.fieller,
            Interval {
                low: None,
                high: None
            }
        );
        assert!(
            s.delta.low.is_some(),
            "the delta method always gives an interval"
        );
    }

    #[test]
    fn a_fitted_grid_has_interaction_and_s_star_per_axis() {
        let rows = [
            (0.0, 0.0, 0, 20),
            (0.5, 0.0, 3, 20),
            (1.0, 0.0, 9, 20),
            (1.5, 0.0, 15, 20),
            (0.0, 1.0, 1, 20),
            (0.5, 1.0, 6, 20),
            (1.0, 1.0, 14, 20),
            (1.5, 1.0, 18, 20),
        ];
        let m = dose_model(
            "safety",
            BTreeMap::new(),
            &grid(&rows),
            Link::Logit,
            0.05,
            0.95,
        );
        assert_eq!(m.status, "fitted", "{m:?}");
        assert_eq!(m.terms, ["intercept", "bias", "lat", "bias:lat"]);
        assert_eq!(m.interaction.len(), 1);
        assert_eq!(m.df_resid, Some(4));
        // lat at bias 0 and 1, bias at each of the 4 latencies
        assert_eq!(m.s_star.len(), 6);
        let s = &m.s_star.iter().find(|s| s.axis == "lat").unwrap();
        let v = s.value.unwrap();
        let eta = m.coefficients[0] + m.coefficients[2] * v;
        assert!((Link::Logit.mu(eta) - 0.05).abs() < 1e-12);
        assert!(s.delta.low.unwrap() < v && v < s.delta.high.unwrap());
        let lines = m.lines(0.05, "nominal spread sd 0.01 m");
        assert_eq!(lines.len(), 7);
        assert!(
            lines[0].starts_with("safety: logit fit over 8 cells"),
            "{}",
            lines[0]
        );
        assert!(lines
            .iter()
            .all(|l| l.ends_with("; nominal spread sd 0.01 m")));
        assert!(
            lines[1].contains("s*(P = 0.05) along bias at lat=0: "),
            "{}",
            lines[1]
        );
        let p = m.lack_of_fit_p.unwrap();
        assert!(p > 0.0 && p <= 1.0);
    }
}
