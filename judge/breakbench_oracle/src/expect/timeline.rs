//! The timeline of a run: when each fault was triggered, requested,
//! applied, cleared and recovered, on sim time and (where the run has it)
//! the host's monotonic clock, each expectation's decision, and the
//! latencies derived from them.
//!
//! Latencies (s, sim time): injection = `t_applied - t_trigger`; an
//! expectation with a `role` (detection, reaction, recovery) that is
//! satisfied contributes `decided_at_s - anchor_s`, its own anchor (so
//! "stops within 0.5 s of applied" measures from `t_applied`, "resumes
//! within 2 s of the clear" from `t_cleared`). `t_recovered` of a fault is
//! the latest decision of the satisfied recovery expectations anchored on
//! that fault.

use serde::{Deserialize, Serialize};

use super::eval::ExpectationResult;
use super::spec::Role;

/// An instant on two clocks: sim time since the run start, s, and the host's
/// monotonic clock since the run start, s (`None` when the run has none,
/// e.g. a replay).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stamp {
    pub sim_s: f64,
    pub host_s: Option<f64>,
}

/// A fault event the run records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultEvent {
    /// The trigger fired.
    Trigger,
    /// The fault was handed to the injector (set in the schedule / service
    /// called).
    Requested,
    /// The first message changed or withheld by the fault (from the
    /// injector's status, never from an acknowledgement).
    Applied,
    /// The fault was cleared.
    Cleared,
}

/// The events of one fault; the first occurrence of each is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultTimeline {
    pub fault: String,
    pub t_trigger: Option<Stamp>,
    pub t_requested: Option<Stamp>,
    pub t_applied: Option<Stamp>,
    pub t_cleared: Option<Stamp>,
    pub t_recovered: Option<Stamp>,
    /// `t_applied - t_trigger` (sim), s.
    pub injection_latency_s: Option<f64>,
}

/// One expectation's decision on the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationTime {
    pub expectation: String,
    pub role: Option<Role>,
    pub satisfied: bool,
    pub anchor_s: Option<f64>,
    pub decided_at_s: f64,
    /// `decided_at_s - anchor_s` when satisfied and the expectation has a
    /// role, s.
    pub latency_s: Option<f64>,
}

/// The timeline of one run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    /// One entry per fault of the test, in file order.
    pub faults: Vec<FaultTimeline>,
    /// One entry per expectation, in file order (filled by
    /// [`Timeline::record_expectations`]).
    pub expectations: Vec<ExpectationTime>,
}

impl Timeline {
    /// An empty timeline of the named faults.
    pub fn new<S: AsRef<str>>(faults: &[S]) -> Self {
        Self {
            faults: faults
                .iter()
                .map(|f| FaultTimeline {
                    fault: f.as_ref().to_string(),
                    t_trigger: None,
                    t_requested: None,
                    t_applied: None,
                    t_cleared: None,
                    t_recovered: None,
                    injection_latency_s: None,
                })
                .collect(),
            expectations: Vec::new(),
        }
    }

    fn fault_mut(&mut self, fault: &str) -> Option<&mut FaultTimeline> {
        self.faults.iter_mut().find(|f| f.fault == fault)
    }

    /// The entry of `fault`, if it is one of this timeline's.
    pub fn fault(&self, fault: &str) -> Option<&FaultTimeline> {
        self.faults.iter().find(|f| f.fault == fault)
    }

    /// Records `event` of `fault` at `at` (the first occurrence wins; later
    /// ones are ignored). Returns false if `fault` is not on this timeline.
    pub fn note(&mut self, fault: &str, event: FaultEvent, at: Stamp) -> bool {
        let Some(f) = self.fault_mut(fault) else {
            return false;
        };
        let slot = match event {
            FaultEvent::Trigger => &mut f.t_trigger,
            FaultEvent::Requested => &mut f.t_requested,
            FaultEvent::Applied => &mut f.t_applied,
            FaultEvent::Cleared => &mut f.t_cleared,
        };
        if slot.is_none() {
            *slot = Some(at);
        }
        if let (Some(t), Some(a)) = (f.t_trigger, f.t_applied) {
            f.injection_latency_s = Some(a.sim_s - t.sim_s);
        }
        true
    }

    /// Sim time of `event` of `fault`, if it happened.
    pub fn event_s(&self, fault: &str, event: FaultEvent) -> Option<f64> {
        let f = self.fault(fault)?;
        match event {
            FaultEvent::Trigger => f.t_trigger,
            FaultEvent::Requested => f.t_requested,
            FaultEvent::Applied => f.t_applied,
            FaultEvent::Cleared => f.t_cleared,
        }
        .map(|s| s.sim_s)
    }

    /// Records the expectations' decisions and latencies, and each fault's
    /// `t_recovered` (see the module docs). `results` in file order.
    pub fn record_expectations(&mut self, results: &[ExpectationResult]) {
        self.expectations = results
            .iter()
            .map(|r| ExpectationTime {
                expectation: r.name.clone(),
                role: r.role,
                satisfied: r.satisfied,
                anchor_s: r.anchor_s,
                decided_at_s: r.decided_at_s,
                latency_s: r.latency_s(),
            })
            .collect();
        for f in &mut self.faults {
            f.t_recovered = results
                .iter()
                .filter(|r| {
                    r.satisfied
                        && r.role == Some(Role::Recovery)
                        && r.anchor_fault.as_deref() == Some(f.fault.as_str())
                })
                .map(|r| r.decided_at_s)
                .reduce(f64::max)
                .map(|t| Stamp {
                    sim_s: t,
                    host_s: None,
                });
        }
    }
}
