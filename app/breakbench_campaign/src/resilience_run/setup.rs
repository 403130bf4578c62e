//! Building a [`TestDriver`](super::TestDriver): the expectations a run is
//! judged by, a baseline's false-alarm probes, and the fault slots of a
//! fault run with why a fault is `unsupported`.

use std::time::Duration;

use breakbench_navigator::controller::Controller;
use breakbench_oracle::expect::spec::Windowed;
use breakbench_oracle::expect::{refers_to_fault, ExpectationSpec, InvariantName, Role, Trigger};
use kraken_interfaces::FaultSpec;

use super::FaultSlot;
use crate::resilience::{ResilienceTest, TestFault};
use crate::CampaignError;

/// The expectations a run of `test` is judged by: all of them
/// ([`ResilienceTest::expectations`]) in a fault run; in a `baseline` run
/// those that do not refer to a fault, or, if every one does, the three
/// ground-truth invariants (`baseline.<invariant>`) instead of nothing,
/// which would make the baseline and every paired fault run `invalid`.
pub(super) fn judged_expectations(test: &ResilienceTest, baseline: bool) -> Vec<ExpectationSpec> {
    let all = test.expectations();
    if !baseline {
        return all;
    }
    let own: Vec<ExpectationSpec> = all
        .iter()
        .filter(|s| !refers_to_fault(&all, &s.name))
        .cloned()
        .collect();
    if !own.is_empty() {
        return own;
    }
    [
        InvariantName::OperatingRegionContainment,
        InvariantName::ObstacleClearance,
        InvariantName::MissionCompletionTruePose,
    ]
    .into_iter()
    .map(|inv| ExpectationSpec {
        name: format!(
            "baseline.{}",
            serde_json::to_value(inv)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ),
        role: None,
        within: None,
        never: None,
        always: None,
        at: None,
        persists: None,
        invariant: Some(inv),
    })
    .collect()
}

/// A baseline's false-alarm probes: each detection expectation of `test`
/// whose predicate refers to no fault, as that predicate under `never` over
/// the whole run, named `<expectation>` + `FALSE_ALARM_SUFFIX`.
pub(super) fn false_alarm_probes(test: &ResilienceTest) -> Vec<ExpectationSpec> {
    test.expectations()
        .into_iter()
        .filter(|e| e.role == Some(Role::Detection))
        .filter_map(|e| {
            let p = e.kind()?.predicate()?.clone();
            let mut f = Vec::new();
            p.faults(&mut f);
            f.is_empty().then(|| ExpectationSpec {
                name: format!(
                    "{}{}",
                    e.name,
                    crate::resilience_summary::FALSE_ALARM_SUFFIX
                ),
                role: None,
                within: None,
                never: Some(Windowed {
                    predicate: p,
                    window: Default::default(),
                }),
                always: None,
                at: None,
                persists: None,
                invariant: None,
            })
        })
        .collect()
}

/// Why fault `f` (its `spec`) cannot be injected into `controller`'s run,
/// `None` if it can: the controller does not read its channel, the injector
/// does not implement its mode for the channel's message type, or the mode
/// changes nothing the controller reads. An actuator channel (read by the
/// plant, not the controller) only needs the injector to implement it.
fn unsupported_reason(
    f: &TestFault,
    spec: &FaultSpec,
    controller: &dyn Controller,
) -> Option<String> {
    match controller.inputs().iter().find(|(n, _)| *n == f.channel) {
        // The plant reads exactly an actuator's fault_fields.
        None if matches!(
            crate::scenario::harness_channel(&f.channel),
            Some(crate::scenario::HarnessChannel::Actuator(_))
        ) =>
        {
            crate::scenario::harness_channel(&f.channel)
                .and_then(|hc| crate::scenario::check_harness_fault(hc, &f.channel, spec).err())
                .map(|e| format!("the injector does not implement it: {e}"))
        }
        None => Some(format!(
            "the controller does not read channel '{}'",
            f.channel
        )),
        Some(&(_, kind)) => match kraken_faults::build_stage(spec, &f.channel, kind) {
            Err(e @ kraken_faults::FaultError::Unsupported { .. }) => {
                Some(format!("the injector does not implement it: {e}"))
            }
            _ => crate::reachability::unreachable_axis(
                spec.mode,
                &f.mode,
                &f.channel,
                kind,
                controller.reads(kind),
            ),
        },
    }
}

impl FaultSlot {
    /// The slot of fault `f` of a fault run, not yet set: its spec, its
    /// trigger and clear built with the test's fault `names` and the run's
    /// `seed`, why it is `unsupported` by `controller` if it is, and its
    /// `phase_s` (s, 0 unless it is the phase-swept fault).
    ///
    /// # Errors
    /// [`CampaignError::Axis`] if its spec does not build,
    /// [`CampaignError::Oracle`] if a trigger does not (the file was
    /// validated on load, so either is a bug).
    pub(super) fn new(
        f: &TestFault,
        names: &[&str],
        seed: u64,
        phase_s: f64,
        controller: &dyn Controller,
    ) -> Result<Self, CampaignError> {
        let spec = f.spec().map_err(|(field, message)| CampaignError::Axis {
            axis: format!("{}.{field}", f.name),
            message,
        })?;
        let unsupported = unsupported_reason(f, &spec, controller);
        Ok(FaultSlot {
            name: f.name.clone(),
            channel: f.channel.clone(),
            spec,
            duration: f.duration_s.map(Duration::from_secs_f64),
            trigger: Trigger::new(&f.trigger, &f.name, names, seed)?,
            clear: f
                .clear
                .as_ref()
                .map(|c| Trigger::new(c, &format!("{}/clear", f.name), names, seed))
                .transpose()?,
            set: false,
            clear_at: None,
            unsupported,
            accepted: false,
            faulted_at_set: 0,
            phase_s,
            pending_s: None,
        })
    }
}
