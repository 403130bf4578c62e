//! The severity searches a scenario declares (`escape_search:`): the
//! schema of [`crate::search`], which runs them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{fault_spec, ScenarioFile};

/// The event whose probability the search follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchEvent {
    /// A mission failure or safety violation without a detection after the
    /// fault was applied ([`crate::summary::escaped`]; needs `detection:`).
    Escaped,
    /// A detection after the fault was applied (needs `detection:`).
    Detected,
    /// The mission was not completed (true pose).
    MissionFailure,
    /// A safety invariant was violated (true pose).
    SafetyViolation,
}

impl SearchEvent {
    /// The name as written in the scenario file (`escaped`).
    pub fn name(self) -> &'static str {
        match self {
            SearchEvent::Escaped => "escaped",
            SearchEvent::Detected => "detected",
            SearchEvent::MissionFailure => "mission_failure",
            SearchEvent::SafetyViolation => "safety_violation",
        }
    }
}

/// Where the bisection puts the midpoint of `[a, b]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spacing {
    /// Geometric midpoint `sqrt(a b)` (severities spanning decades; lo > 0).
    #[default]
    Log,
    /// Arithmetic midpoint.
    Linear,
}

/// How the search chooses its severities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Bisection of the bracket on the probes' p̂ (REQ-STUDY-ESCAPE-SEARCH).
    #[default]
    Bisect,
    /// The adaptive design (REQ-STAT-ADAPTIVE,
    /// [`crate::design::adaptive`]): each batch where the interval on s*
    /// shrinks most, until Fieller's interval is `target_width` wide.
    Adaptive,
}

impl Method {
    fn is_bisect(&self) -> bool {
        *self == Method::Bisect
    }
}

/// A value held fixed during a search: a fault axis' number or a navigator
/// axis' label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fixed {
    Number(f64),
    Label(String),
}

/// One `escape_search:` entry (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EscapeSearch {
    /// Names the output file `search_<name>.json` (A-Z, a-z, 0-9, `_`).
    pub name: String,
    /// The fault axis searched.
    pub axis: String,
    /// The bracket's low end, the axis' unit.
    pub lo: f64,
    /// The bracket's high end, the axis' unit (> lo).
    pub hi: f64,
    /// Every other axis' value: fault axes a number, navigator axes one of
    /// their labels.
    #[serde(default)]
    pub fixed: BTreeMap<String, Fixed>,
    /// The event followed; default `escaped`.
    #[serde(default = "default_event")]
    pub event: SearchEvent,
    /// The target probability, in [0.01, 0.99]; default 0.5.
    #[serde(default = "default_p")]
    pub p: f64,
    /// Runs per probed severity, in [1, 10000].
    pub repeats: usize,
    /// Steps after the two ends: bisection steps in [0, 30]; for
    /// `adaptive`, batches of `repeats` runs in [0, 1000] (the run budget is
    /// `(2 + steps) · repeats`).
    pub steps: usize,
    /// Midpoint rule; default `log`. `adaptive` needs `linear` (its
    /// candidate severities are evenly spaced).
    #[serde(default)]
    pub spacing: Spacing,
    /// `bisect` (default) or `adaptive`.
    #[serde(default, skip_serializing_if = "Method::is_bisect")]
    pub method: Method,
    /// `adaptive` only, and needed there: stop when Fieller's interval on
    /// s* (where P = `p`) is at most this wide, the axis' unit, in (0, hi - lo].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_width: Option<f64>,
}

fn default_event() -> SearchEvent {
    SearchEvent::Escaped
}
fn default_p() -> f64 {
    0.5
}

impl EscapeSearch {
    /// Checks the search against its scenario file: the axis exists, every
    /// other axis is fixed to a valid value, the bracket and the target are
    /// sane, a detection event has a `detection:`.
    ///
    /// # Errors
    /// `(field, message)`, the field relative to `field` (e.g.
    /// `escape_search[0].fixed.gating`).
    pub fn validate(&self, field: &str, file: &ScenarioFile) -> Result<(), (String, String)> {
        let e = |f: &str, m: String| Err((format!("{field}.{f}"), m));
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return e(
                "name",
                format!(
                    "'{}' must be non-empty and use only A-Z, a-z, 0-9 and _ (it names the output file)",
                    self.name
                ),
            );
        }
        let Some(axis) = file.axes.iter().find(|a| a.name == self.axis) else {
            let known: Vec<&str> = file.axes.iter().map(|a| a.name.as_str()).collect();
            return e(
                "axis",
                format!(
                    "unknown fault axis '{}' (the scenario has {})",
                    self.axis,
                    known.join(", ")
                ),
            );
        };
        for (k, v, lo, hi) in [
            ("lo", self.lo, -1e6, 1e6),
            ("hi", self.hi, -1e6, 1e6),
            ("p", self.p, 0.01, 0.99),
            ("repeats", self.repeats as f64, 1.0, 10_000.0),
            (
                "steps",
                self.steps as f64,
                0.0,
                if self.method == Method::Adaptive {
                    1000.0
                } else {
                    30.0
                },
            ),
        ] {
            if !(lo..=hi).contains(&v) {
                return e(k, format!("{v:?} is outside [{lo:?}, {hi:?}]"));
            }
        }
        if !(self.lo.is_finite() && self.hi.is_finite() && self.lo < self.hi) {
            return e(
                "hi",
                format!(
                    "the bracket [{}, {}] must be finite with lo < hi",
                    self.lo, self.hi
                ),
            );
        }
        self.validate_method(field)?;
        if self.spacing == Spacing::Log && self.lo <= 0.0 {
            return e(
                "lo",
                format!(
                    "{} must be > 0 for spacing: log (or use spacing: linear)",
                    self.lo
                ),
            );
        }
        for (k, v) in [("lo", self.lo), ("hi", self.hi)] {
            let spec = fault_spec(axis, v).map_err(|m| (format!("{field}.{k}"), m))?;
            if let Some(kind) = breakbench_sim_bridge::plant::sensor_kind(&axis.channel) {
                kraken_faults::build_stage(&spec, &axis.channel, kind)
                    .map_err(|x| (format!("{field}.{k}"), x.to_string()))?;
            }
        }
        if matches!(self.event, SearchEvent::Escaped | SearchEvent::Detected)
            && file.detection.is_none()
        {
            return e(
                "event",
                "needs the scenario's detection: (what counts as the robot detecting the fault)"
                    .into(),
            );
        }
        if let Some(k) = self.fixed.keys().find(|k| {
            **k == self.axis
                || (!file.axes.iter().any(|a| a.name == **k)
                    && !file.navigator_axes.iter().any(|a| a.name == **k))
        }) {
            return e(
                &format!("fixed.{k}"),
                if *k == self.axis {
                    "is the searched axis".into()
                } else {
                    "not an axis of the scenario".into()
                },
            );
        }
        for a in file.axes.iter().filter(|a| a.name != self.axis) {
            match self.fixed.get(&a.name) {
                Some(Fixed::Number(v)) if !(-1e6..=1e6).contains(v) => {
                    return e(
                        &format!("fixed.{}", a.name),
                        format!("{v:?} is outside [-1e6, 1e6]"),
                    )
                }
                Some(Fixed::Number(v)) => {
                    let spec =
                        fault_spec(a, *v).map_err(|m| (format!("{field}.fixed.{}", a.name), m))?;
                    if let Some(kind) = breakbench_sim_bridge::plant::sensor_kind(&a.channel) {
                        kraken_faults::build_stage(&spec, &a.channel, kind)
                            .map_err(|x| (format!("{field}.fixed.{}", a.name), x.to_string()))?;
                    }
                }
                _ => {
                    return e(
                        &format!("fixed.{}", a.name),
                        format!("fault axis '{}' needs a number", a.name),
                    )
                }
            }
        }
        for a in &file.navigator_axes {
            match self.fixed.get(&a.name) {
                Some(Fixed::Label(l)) if a.values.contains(l) => {}
                _ => {
                    return e(
                        &format!("fixed.{}", a.name),
                        format!(
                            "navigator axis '{}' needs one of its values: {}",
                            a.name,
                            a.values.join(", ")
                        ),
                    )
                }
            }
        }
        Ok(())
    }

    /// The rules of `method` and `target_width` (after the bracket's).
    fn validate_method(&self, field: &str) -> Result<(), (String, String)> {
        let e = |f: &str, m: String| Err((format!("{field}.{f}"), m));
        match (self.method, self.target_width) {
            (Method::Bisect, Some(_)) => e(
                "target_width",
                "is for method: adaptive (bisection stops after its steps)".into(),
            ),
            (Method::Adaptive, None) => e(
                "target_width",
                "method: adaptive needs the width of the interval on s* to stop at".into(),
            ),
            (Method::Adaptive, Some(w)) if !(w > 0.0 && w <= self.hi - self.lo) => e(
                "target_width",
                format!("{w:?} is outside (0, hi - lo = {}]", self.hi - self.lo),
            ),
            (Method::Adaptive, _) if self.spacing != Spacing::Linear => e(
                "spacing",
                "method: adaptive needs spacing: linear (its candidate severities are evenly spaced)"
                    .into(),
            ),
            _ => Ok(()),
        }
    }

    /// The cell of severity `value`: the searched axis at `value`, every
    /// other axis at its fixed value (navigator axes by index).
    pub fn cell(&self, file: &ScenarioFile, value: f64) -> BTreeMap<String, f64> {
        let mut cell = BTreeMap::new();
        for a in &file.axes {
            let v = if a.name == self.axis {
                value
            } else {
                match self.fixed.get(&a.name) {
                    Some(Fixed::Number(v)) => *v,
                    _ => 0.0,
                }
            };
            cell.insert(a.name.clone(), v);
        }
        for a in &file.navigator_axes {
            let i = match self.fixed.get(&a.name) {
                Some(Fixed::Label(l)) => a.values.iter().position(|x| x == l).unwrap_or(0),
                _ => 0,
            };
            cell.insert(a.name.clone(), i as f64);
        }
        cell
    }

    /// The midpoint of `[a, b]` by [`Spacing`], rounded to 6 significant
    /// digits (so probes have readable values that survive the JSON round
    /// trip; the bracket is never that narrow).
    pub fn midpoint(&self, a: f64, b: f64) -> f64 {
        let m = match self.spacing {
            Spacing::Log => (a * b).sqrt(),
            Spacing::Linear => 0.5 * (a + b),
        };
        if m == 0.0 || !m.is_finite() {
            return m;
        }
        let scale = 10f64.powi(5 - m.abs().log10().floor() as i32);
        (m * scale).round() / scale
    }
}
