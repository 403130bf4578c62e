//! The verdict class of a run and the one rule that assigns it.
//!
//! `invalid` is the harness's problem, not the robot's; `unsupported` a mode
//! the injector does not implement for the target; `precondition_failed` a
//! trigger that never fired. Only `pass` is a pass; p̂ is computed over
//! `pass` + `fail` only.

use serde::{Deserialize, Serialize};

use super::eval::{ExpectationResult, Undecidable};
use super::timeline::FaultEvent;
use super::trigger::TriggerState;

/// The class of a run's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictClass {
    Pass,
    Fail,
    Invalid,
    Unsupported,
    PreconditionFailed,
    Error,
}

impl VerdictClass {
    /// Every class, in report order.
    pub const ALL: [VerdictClass; 6] = [
        VerdictClass::Pass,
        VerdictClass::Fail,
        VerdictClass::Invalid,
        VerdictClass::Unsupported,
        VerdictClass::PreconditionFailed,
        VerdictClass::Error,
    ];

    /// The name as written in manifests and summary.json.
    pub fn name(self) -> &'static str {
        match self {
            VerdictClass::Pass => "pass",
            VerdictClass::Fail => "fail",
            VerdictClass::Invalid => "invalid",
            VerdictClass::Unsupported => "unsupported",
            VerdictClass::PreconditionFailed => "precondition_failed",
            VerdictClass::Error => "error",
        }
    }

    /// Counted in p̂ (pass or fail).
    pub fn counts_in_p_hat(self) -> bool {
        matches!(self, VerdictClass::Pass | VerdictClass::Fail)
    }
}

/// A verdict class with the reason for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifiedVerdict {
    pub class: VerdictClass,
    pub reason: String,
}

/// What the run knows about one of its faults.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultFacts {
    pub name: String,
    /// Its trigger at the end of the run.
    pub trigger: TriggerState,
    /// The injector accepted the fault (set_fault returned success / the
    /// schedule took it). `false` with a fired trigger is an `error`.
    pub accepted: bool,
    /// The injector's status showed it changed or withheld a message.
    pub applied: bool,
    /// The injector does not implement the fault's mode for its target.
    pub unsupported: Option<String>,
}

/// Everything [`classify`] looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts<'a> {
    /// A harness error (a crash, a refused file), if any.
    pub error: Option<String>,
    /// The class of the paired baseline run (same seed, no fault), if the
    /// run has one.
    pub baseline: Option<&'a ClassifiedVerdict>,
    /// The injector was enabled (a disabled injector changes nothing, so a
    /// run with faults is not a test of them).
    pub injector_enabled: bool,
    /// Measured real-time factor and its declared floor, if declared.
    pub real_time_factor: Option<(f64, f64)>,
    /// The longest gap in the injector's input of a channel beyond the
    /// declared limit ([`super::starvation::InputMonitor`]), if any.
    pub input_starvation: Option<super::starvation::InputGap>,
    pub faults: &'a [FaultFacts],
    pub expectations: &'a [ExpectationResult],
}

/// The verdict class of a run. The first rule that matches wins:
///
/// 1. a harness error → `error`;
/// 2. a fault whose mode the injector does not implement → `unsupported`;
/// 3. a baseline that is not `pass` → `invalid`;
/// 4. a trigger that never fired (timed out), or an expectation anchored on
///    a trigger that never happened → `precondition_failed`;
/// 5. faults with the injector disabled (which refuses every fault) →
///    `invalid`;
/// 6. a fault refused by an enabled injector → `error`;
/// 7. the real-time factor below its floor, sensor starvation the fault
///    did not cause (a gap in the injector's input over the declared limit,
///    REQ-TEST-STARVATION), a fault accepted but never applied (an
///    acknowledgement without effect), or an expectation that could not be
///    judged (anchor missing, no data, run too short) → `invalid`;
/// 8. no expectation at all → `invalid` (nothing was judged);
/// 9. an unsatisfied expectation → `fail`;
/// 10. otherwise → `pass`.
pub fn classify(f: &RunFacts<'_>) -> ClassifiedVerdict {
    let v = |class, reason: String| ClassifiedVerdict { class, reason };
    use VerdictClass::*;
    if let Some(e) = &f.error {
        return v(Error, e.clone());
    }
    if let Some((name, why)) = f
        .faults
        .iter()
        .find_map(|x| x.unsupported.as_ref().map(|u| (&x.name, u)))
    {
        return v(Unsupported, format!("fault '{name}': {why}"));
    }
    if let Some(b) = f.baseline.filter(|b| b.class != Pass) {
        return v(
            Invalid,
            format!("the baseline run was {}: {}", b.class.name(), b.reason),
        );
    }
    for x in f.faults {
        if let TriggerState::TimedOut { reason, .. } = &x.trigger {
            return v(
                PreconditionFailed,
                format!("the trigger of fault '{}' never fired: {reason}", x.name),
            );
        }
    }
    for r in f.expectations {
        if let Some(Undecidable::AnchorMissing {
            fault,
            event: FaultEvent::Trigger,
        }) = &r.undecidable
        {
            return v(
                PreconditionFailed,
                format!(
                    "expectation '{}': the trigger of fault '{fault}' never happened",
                    r.name
                ),
            );
        }
    }
    if !f.faults.is_empty() && !f.injector_enabled {
        return v(Invalid, "the injector was disabled".into());
    }
    if let Some(x) = f
        .faults
        .iter()
        .find(|x| matches!(x.trigger, TriggerState::Fired { .. }) && !x.accepted)
    {
        return v(
            Error,
            format!("fault '{}' was refused by the injector", x.name),
        );
    }
    if let Some((rtf, floor)) = f.real_time_factor.filter(|(r, fl)| r < fl) {
        return v(
            Invalid,
            format!("real-time factor {rtf} below the declared floor {floor}"),
        );
    }
    if let Some(g) = &f.input_starvation {
        return v(Invalid, g.to_string());
    }
    if let Some(x) = f
        .faults
        .iter()
        .find(|x| matches!(x.trigger, TriggerState::Fired { .. }) && x.accepted && !x.applied)
    {
        return v(
            Invalid,
            format!(
                "fault '{}' was accepted but never changed or withheld a message",
                x.name
            ),
        );
    }
    if let Some(r) = f.expectations.iter().find(|r| r.undecidable.is_some()) {
        return v(
            Invalid,
            format!("expectation '{}' could not be judged: {}", r.name, r.reason),
        );
    }
    if f.expectations.is_empty() {
        return v(Invalid, "no expectation was judged".into());
    }
    let failed: Vec<&ExpectationResult> = f.expectations.iter().filter(|r| !r.satisfied).collect();
    if let Some(first) = failed.first() {
        let names: Vec<&str> = failed.iter().map(|r| r.name.as_str()).collect();
        return v(
            Fail,
            format!(
                "unsatisfied: {} (first: '{}': {})",
                names.join(", "),
                first.name,
                first.reason
            ),
        );
    }
    v(
        Pass,
        format!("all {} expectations satisfied", f.expectations.len()),
    )
}
