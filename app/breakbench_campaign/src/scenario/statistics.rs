//! The scenario's declared statistics (`statistics:`, REQ-STAT-MARGIN,
//! REQ-STAT-DOSE, REQ-STAT-CP): every field has a default, so a scenario
//! without the section gets the defaults below, recorded in summary.json.
//!
//! ```yaml
//! statistics:
//!   interval: clopper_pearson    # or wilson (the default)
//!   margin_q: 0.05               # the margins' quantile q
//!   tolerance_coverage: 0.95     # Wilks: fraction of runs above the bound
//!   tolerance_confidence: 0.95   # Wilks: confidence of that
//!   p_star: 0.05                 # s*: the severity at which P = p*
//!   link: logit                  # or probit
//! ```

use serde::{Deserialize, Serialize};

/// The link of the dose-response GLM: `η = g(p)` (its arithmetic is in
/// [`crate::glm`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// `η = log(p / (1 - p))` (the canonical link).
    #[default]
    Logit,
    /// `η = Φ⁻¹(p)`.
    Probit,
}

/// The interval method of every p̂ of summary.json's cells and nominal
/// set. Wilson's is always written (`wilson_low`, `wilson_high`); with
/// `clopper_pearson` the exact interval is written beside it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    #[default]
    Wilson,
    ClopperPearson,
}

impl IntervalMethod {
    /// The name summary.json records.
    pub fn name(self) -> &'static str {
        match self {
            IntervalMethod::Wilson => "wilson",
            IntervalMethod::ClopperPearson => "clopper_pearson",
        }
    }
}

/// `statistics:` of a scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Statistics {
    /// Interval method of the p̂ (default `wilson`).
    #[serde(default)]
    pub interval: IntervalMethod,
    /// The probability q of each margin's q-quantile m(q), in [0.001, 0.5]
    /// (default 0.05: the margin 5 % of runs come below).
    #[serde(default = "default_q")]
    pub margin_q: f64,
    /// Wilks' tolerance bound: the fraction of runs whose margin lies above
    /// it, in [0.5, 0.9999] (default 0.95).
    #[serde(default = "default_95")]
    pub tolerance_coverage: f64,
    /// Wilks' tolerance bound: its confidence, in [0.5, 0.9999] (default 0.95).
    #[serde(default = "default_95")]
    pub tolerance_confidence: f64,
    /// The probability p* whose severity s* the dose-response model
    /// estimates, in [0.001, 0.999] (default 0.05).
    #[serde(default = "default_q")]
    pub p_star: f64,
    /// The dose-response model's link (default `logit`).
    #[serde(default)]
    pub link: Link,
}

fn default_q() -> f64 {
    0.05
}

fn default_95() -> f64 {
    0.95
}

impl Default for Statistics {
    fn default() -> Self {
        Self {
            interval: IntervalMethod::Wilson,
            margin_q: default_q(),
            tolerance_coverage: default_95(),
            tolerance_confidence: default_95(),
            p_star: default_q(),
            link: Link::Logit,
        }
    }
}
