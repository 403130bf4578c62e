//! The result of one expectation ([`ExpectationResult`]) and the helpers
//! that build it.

use serde::{Deserialize, Serialize};

use super::predicate::Eval;
use super::spec::Role;
use super::timeline::FaultEvent;
use crate::error::OracleError;

/// The unit of an expectation's `margin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarginUnit {
    /// Seconds of slack (positive) or of lateness / earliness (negative).
    Seconds,
    /// The deciding observable's unit (robustness, positive on the
    /// satisfied side).
    Observable,
    /// Value changes left before `max_transitions` is exceeded.
    Transitions,
}

/// Why an expectation could not be judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undecidable {
    /// Its anchor (or window start) is a fault event that never happened.
    AnchorMissing { fault: String, event: FaultEvent },
    /// No step with a known predicate value in its window.
    NoData,
    /// The run ended before its deadline.
    RunEnded,
}

/// A step that violated an expectation: its time, s, and the deciding
/// observable's value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViolationSample {
    pub t_s: f64,
    pub value: f64,
}

/// The result of one expectation over one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationResult {
    pub name: String,
    /// `within`, `never`, `always`, `at`, `persists` or `invariant`.
    pub kind: String,
    pub role: Option<Role>,
    pub satisfied: bool,
    /// Sim time of the decision, s.
    pub decided_at_s: f64,
    /// How close it came (see the module docs), in `margin_unit`.
    pub margin: f64,
    pub margin_unit: MarginUnit,
    /// The first violating step, if one decided it.
    pub first_violation: Option<ViolationSample>,
    pub reason: String,
    /// Sim time of its anchor, s, if anchored and the anchor occurred.
    pub anchor_s: Option<f64>,
    /// The fault its anchor chain ends at, if any.
    pub anchor_fault: Option<String>,
    /// Set when the expectation could not be judged (then `satisfied` is
    /// false).
    pub undecidable: Option<Undecidable>,
}

impl ExpectationResult {
    /// `decided_at_s - anchor_s` of a satisfied expectation with a role.
    pub fn latency_s(&self) -> Option<f64> {
        match (self.satisfied, self.role, self.anchor_s) {
            (true, Some(_), Some(a)) => Some(self.decided_at_s - a),
            _ => None,
        }
    }
}

#[derive(Default)]
pub(crate) struct Track {
    pub saw: bool,
    /// Best (within) or least (never/always/persists) robustness so far.
    pub rho: Option<f64>,
    /// Persists: last value, number of changes, became true, start of the
    /// current false stretch.
    pub last: Option<bool>,
    pub transitions: u32,
    pub became_true: bool,
    pub false_since: Option<ViolationSample>,
}

pub(crate) fn check_step(steps: u64, prev: f64, t: f64) -> Result<(), OracleError> {
    if !t.is_finite() {
        return Err(OracleError::NonFiniteSample {
            index: steps,
            t_s: t,
            field: "t_s",
        });
    }
    if t < prev {
        return Err(OracleError::TimeWentBackwards {
            index: steps,
            t_s: t,
            previous_t_s: prev,
        });
    }
    Ok(())
}

pub(crate) struct Base {
    pub name: String,
    pub kind: &'static str,
    pub role: Option<Role>,
    pub anchor_fault: Option<String>,
}

impl Base {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn done(
        &self,
        satisfied: bool,
        decided_at_s: f64,
        margin: f64,
        margin_unit: MarginUnit,
        first_violation: Option<ViolationSample>,
        reason: String,
        anchor_s: Option<f64>,
    ) -> ExpectationResult {
        ExpectationResult {
            name: self.name.clone(),
            kind: self.kind.to_string(),
            role: self.role,
            satisfied,
            decided_at_s,
            margin,
            margin_unit,
            first_violation,
            reason,
            anchor_s,
            anchor_fault: self.anchor_fault.clone(),
            undecidable: None,
        }
    }

    pub(crate) fn no_data(&self, end: f64, anchor_s: Option<f64>) -> ExpectationResult {
        let mut r = self.done(
            false,
            end,
            0.0,
            MarginUnit::Observable,
            None,
            "no step with a known value of its predicate".into(),
            anchor_s,
        );
        r.undecidable = Some(Undecidable::NoData);
        r
    }

    /// `within` past its deadline (`t` = the deciding step, `e` its value).
    pub(crate) fn late_within(
        &self,
        tr: &Track,
        deadline: f64,
        t: f64,
        e: Option<Eval>,
        anchor_s: Option<f64>,
    ) -> ExpectationResult {
        if !tr.saw {
            let mut r = self.no_data(deadline, anchor_s);
            r.reason = format!("no step with a known value by the deadline {deadline} s");
            return r;
        }
        self.done(
            false,
            deadline,
            tr.rho.unwrap_or(-1.0),
            MarginUnit::Observable,
            e.map(|e| ViolationSample {
                t_s: t,
                value: e.value,
            }),
            format!("not true by the deadline {deadline} s"),
            anchor_s,
        )
    }

    pub(crate) fn window_closed(
        &self,
        tr: &Track,
        end: f64,
        anchor_s: Option<f64>,
    ) -> ExpectationResult {
        if !tr.saw {
            return self.no_data(end, anchor_s);
        }
        self.done(
            true,
            end,
            tr.rho.unwrap_or(0.0),
            MarginUnit::Observable,
            None,
            format!("held over the window, to {end} s"),
            anchor_s,
        )
    }
}
