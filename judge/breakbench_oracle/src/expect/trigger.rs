//! Fault triggers, evaluated online by the run at every step.
//!
//! ```yaml
//! trigger: { at_time: { t_s: 5.0 } }
//! trigger: { rising_edge: { predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }, timeout_s: 60 } }
//! trigger: { after_fault: { fault: scan_loss, event: cleared, delay_s: 1.0, timeout_s: 60 } }
//! trigger: { stable_baseline: { predicate: { stopped: { source: truth, tolerance_m_s: 0.01 } }, for_s: 3.0, timeout_s: 60 } }
//! trigger: { random_in_window: { from_s: 5.0, to_s: 5.1 } }
//! ```
//!
//! A trigger fires at the first step that meets its condition (the step's
//! time is the fire time, `t_trigger`). `timeout_s` is sim time since the
//! run start: a semantic trigger (rising edge, after another fault, stable
//! baseline) that has not fired at a step after `timeout_s` times out; a
//! time trigger times out only if the run ends first. A timed-out trigger
//! makes the run `precondition_failed` (seed 004 of the requirements, "a
//! semantic trigger must have a timeout"), never pass.
//!
//! * `rising_edge` fires on a false → true change between two steps with a
//!   known value (a predicate already true at its first known step fires only
//!   after it has been false once);
//! * `stable_baseline` fires at the first step where the predicate has been
//!   true at every known step for at least `for_s`;
//! * `random_in_window` draws its time uniformly from `[from_s, to_s)`
//!   (`from_s` if equal) with ChaCha8 seeded with the run seed on the stream
//!   of `trigger/<fault name>` ([`kraken_interfaces::seed::named_stream`]), so each
//!   fault draws independently of every other stream of the run.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::eval::{check_step, TIME_EPS_S};
use super::observe::Observations;
use super::predicate::Predicate;
use super::timeline::{FaultEvent, Timeline};
use crate::error::OracleError;

/// `at_time: { t_s }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtTime {
    pub t_s: f64,
}

/// `rising_edge: { predicate, timeout_s }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RisingEdge {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
    pub timeout_s: f64,
}

/// `after_fault: { fault, event, delay_s, timeout_s }`: `delay_s` after
/// another fault's `event` (trigger, applied or cleared).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AfterFault {
    pub fault: String,
    pub event: FaultEvent,
    pub delay_s: f64,
    pub timeout_s: f64,
}

/// `stable_baseline: { predicate, for_s, timeout_s }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StableBaseline {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
    pub for_s: f64,
    pub timeout_s: f64,
}

/// `random_in_window: { from_s, to_s }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomInWindow {
    pub from_s: f64,
    pub to_s: f64,
}

/// A fault's trigger as written in the test file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerSpec {
    AtTime(AtTime),
    RisingEdge(RisingEdge),
    AfterFault(AfterFault),
    StableBaseline(StableBaseline),
    RandomInWindow(RandomInWindow),
}

impl TriggerSpec {
    /// Its times, s, with their keys (`at_time.t_s`, `rising_edge.timeout_s`,
    /// ...): each must fall within the run (checked against the mission
    /// length by the scenario loader).
    pub fn times(&self) -> Vec<(&'static str, f64)> {
        match self {
            TriggerSpec::AtTime(a) => vec![("at_time.t_s", a.t_s)],
            TriggerSpec::RisingEdge(r) => vec![("rising_edge.timeout_s", r.timeout_s)],
            TriggerSpec::AfterFault(a) => vec![
                ("after_fault.delay_s", a.delay_s),
                ("after_fault.timeout_s", a.timeout_s),
            ],
            TriggerSpec::StableBaseline(b) => vec![
                ("stable_baseline.for_s", b.for_s),
                ("stable_baseline.timeout_s", b.timeout_s),
            ],
            TriggerSpec::RandomInWindow(r) => vec![
                ("random_in_window.from_s", r.from_s),
                ("random_in_window.to_s", r.to_s),
            ],
        }
    }
    /// The predicate of a `rising_edge` or `stable_baseline` trigger, with
    /// its key (`rising_edge.predicate`).
    pub fn predicate(&self) -> Option<(&'static str, &Predicate)> {
        match self {
            TriggerSpec::RisingEdge(r) => Some(("rising_edge.predicate", &r.predicate)),
            TriggerSpec::StableBaseline(b) => Some(("stable_baseline.predicate", &b.predicate)),
            _ => None,
        }
    }

    /// Semantic checks; `field` is the trigger's path, `fault` the fault it
    /// belongs to, `faults` every fault of the test. `(field, message)` of
    /// the first problem.
    pub fn check(&self, field: &str, fault: &str, faults: &[&str]) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((format!("{field}.{f}"), m.to_string()));
        let time = |v: f64| v.is_finite() && v >= 0.0;
        match self {
            TriggerSpec::AtTime(a) if !time(a.t_s) => {
                bad("at_time.t_s", "must be finite and >= 0 (s)")
            }
            TriggerSpec::RisingEdge(r) => {
                // A rising edge needs two steps (false, then true), so it
                // cannot fire at 0 s: a 0 s timeout would make every run
                // precondition_failed.
                if !(r.timeout_s.is_finite() && r.timeout_s > 0.0) {
                    return bad(
                        "rising_edge.timeout_s",
                        "must be finite and > 0 (s): a rising edge needs a false step before a true one, so it cannot fire at 0 s",
                    );
                }
                r.predicate
                    .check(&format!("{field}.rising_edge.predicate"), faults)
            }
            TriggerSpec::AfterFault(a) => {
                if !time(a.delay_s) {
                    bad("after_fault.delay_s", "must be finite and >= 0 (s)")
                } else if !time(a.timeout_s) {
                    bad("after_fault.timeout_s", "must be finite and >= 0 (s)")
                } else if a.delay_s > a.timeout_s {
                    bad(
                        "after_fault.delay_s",
                        &format!(
                            "{} s is beyond timeout_s {} s: the trigger fires delay_s after the event (at >= 0 s), so it would always time out",
                            a.delay_s, a.timeout_s
                        ),
                    )
                } else if a.fault == fault {
                    bad(
                        "after_fault.fault",
                        "a fault cannot be triggered by its own event",
                    )
                } else if !faults.contains(&a.fault.as_str()) {
                    bad(
                        "after_fault.fault",
                        &format!(
                            "unknown fault '{}' (faults of this test: {faults:?})",
                            a.fault
                        ),
                    )
                } else {
                    Ok(())
                }
            }
            TriggerSpec::StableBaseline(s) => {
                if !(s.for_s.is_finite() && s.for_s > 0.0) {
                    return bad("stable_baseline.for_s", "must be finite and > 0 (s)");
                }
                if !time(s.timeout_s) {
                    return bad("stable_baseline.timeout_s", "must be finite and >= 0 (s)");
                }
                if s.for_s > s.timeout_s {
                    return bad(
                        "stable_baseline.for_s",
                        &format!(
                            "{} s is beyond timeout_s {} s: the predicate cannot have held for_s before the timeout, so the trigger would always time out",
                            s.for_s, s.timeout_s
                        ),
                    );
                }
                s.predicate
                    .check(&format!("{field}.stable_baseline.predicate"), faults)
            }
            TriggerSpec::RandomInWindow(r)
                if !(time(r.from_s) && time(r.to_s) && r.from_s <= r.to_s) =>
            {
                bad("random_in_window", "needs finite 0 <= from_s <= to_s (s)")
            }
            _ => Ok(()),
        }
    }
}

/// Where a trigger stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerState {
    Pending,
    Fired { t_s: f64 },
    TimedOut { t_s: f64, reason: String },
}

/// The online evaluator of one fault's trigger.
pub struct Trigger {
    spec: TriggerSpec,
    fault: String,
    /// `random_in_window`: the drawn time, s.
    drawn_s: Option<f64>,
    state: TriggerState,
    prev_t_s: f64,
    steps: u64,
    last: Option<bool>,
    true_since_s: Option<f64>,
}

impl Trigger {
    /// The trigger of fault `fault` in a run seeded `seed`; `faults` are all
    /// faults of the test (for `after_fault`).
    ///
    /// # Errors
    /// [`OracleError::Config`] if [`TriggerSpec::check`] fails.
    pub fn new(
        spec: &TriggerSpec,
        fault: &str,
        faults: &[&str],
        seed: u64,
    ) -> Result<Self, OracleError> {
        spec.check("trigger", fault, faults)
            .map_err(|(f, m)| kraken_interfaces::ConfigError::semantic("<test>", &f, m))?;
        let drawn_s = match spec {
            TriggerSpec::RandomInWindow(r) if r.to_s > r.from_s => {
                let mut rng =
                    kraken_interfaces::seed::named_stream(seed, &format!("trigger/{fault}"));
                Some(rng.random_range(r.from_s..r.to_s))
            }
            TriggerSpec::RandomInWindow(r) => Some(r.from_s),
            _ => None,
        };
        Ok(Self {
            spec: spec.clone(),
            fault: fault.to_string(),
            drawn_s,
            state: TriggerState::Pending,
            prev_t_s: f64::NEG_INFINITY,
            steps: 0,
            last: None,
            true_since_s: None,
        })
    }

    /// The fault this trigger belongs to.
    pub fn fault(&self) -> &str {
        &self.fault
    }

    /// `random_in_window`: the drawn fire time, s.
    pub fn drawn_s(&self) -> Option<f64> {
        self.drawn_s
    }

    /// Where the trigger stands.
    pub fn state(&self) -> &TriggerState {
        &self.state
    }

    /// Evaluates the trigger at step `t_s`; `Some(t_s)` when it fires at this
    /// step (once).
    ///
    /// # Errors
    /// [`OracleError::NonFiniteSample`] / [`OracleError::TimeWentBackwards`]
    /// for a bad `t_s`.
    pub fn step(
        &mut self,
        t_s: f64,
        obs: &Observations,
        tl: &Timeline,
    ) -> Result<Option<f64>, OracleError> {
        check_step(self.steps, self.prev_t_s, t_s)?;
        let prev = self.prev_t_s;
        self.steps += 1;
        self.prev_t_s = t_s;
        if self.state != TriggerState::Pending {
            return Ok(None);
        }
        let timeout = |limit: f64, what: &str| {
            (t_s > limit + TIME_EPS_S).then(|| TriggerState::TimedOut {
                t_s: limit,
                reason: format!("{what} by the timeout {limit} s"),
            })
        };
        let (fire, timed_out) = match &self.spec {
            TriggerSpec::AtTime(a) => (t_s >= a.t_s - TIME_EPS_S, None),
            TriggerSpec::RandomInWindow(_) => {
                (t_s >= self.drawn_s.expect("drawn") - TIME_EPS_S, None)
            }
            TriggerSpec::AfterFault(a) => {
                let due = tl.event_s(&a.fault, a.event).map(|e| e + a.delay_s);
                let fire =
                    due.is_some_and(|d| t_s >= d - TIME_EPS_S && d <= a.timeout_s + TIME_EPS_S);
                let what = format!(
                    "fault '{}' had no {:?} event {} s before",
                    a.fault, a.event, a.delay_s
                );
                (fire, timeout(a.timeout_s, &what))
            }
            TriggerSpec::RisingEdge(r) => {
                let e = r.predicate.eval(obs, prev, t_s).map(|e| e.truth);
                let fire = e == Some(true) && self.last == Some(false);
                if e.is_some() {
                    self.last = e;
                }
                (
                    fire && t_s <= r.timeout_s + TIME_EPS_S,
                    timeout(r.timeout_s, "no rising edge"),
                )
            }
            TriggerSpec::StableBaseline(s) => {
                match s.predicate.eval(obs, prev, t_s).map(|e| e.truth) {
                    Some(true) => {
                        self.true_since_s.get_or_insert(t_s);
                    }
                    Some(false) => self.true_since_s = None,
                    None => {}
                }
                let fire = self
                    .true_since_s
                    .is_some_and(|since| t_s - since >= s.for_s - TIME_EPS_S);
                let what = format!("the predicate was not true for {} s", s.for_s);
                (
                    fire && t_s <= s.timeout_s + TIME_EPS_S,
                    timeout(s.timeout_s, &what),
                )
            }
        };
        if fire {
            self.state = TriggerState::Fired { t_s };
            Ok(Some(t_s))
        } else {
            if let Some(st) = timed_out {
                self.state = st;
            }
            Ok(None)
        }
    }

    /// Ends the run at `end_s`: a trigger still pending times out.
    pub fn finish(&mut self, end_s: f64) -> &TriggerState {
        if self.state == TriggerState::Pending {
            self.state = TriggerState::TimedOut {
                t_s: end_s,
                reason: format!("never fired; the run ended at {end_s} s"),
            };
        }
        &self.state
    }
}
