//! The typed modes of `~/set_fault` (a [`FaultSpec`]) on a channel of any
//! message type, as stages of its [`crate::field::FaultStack`]
//! (REQ-FAULT-ACTUATOR, REQ-FAULT-STACK: one mechanism).
//!
//! A raw channel declares in channels.yaml the numeric field paths the
//! typed modes act on (`fault_fields`: `[linear.x, angular.z]` for
//! `/cmd_vel`); [`stages_for_spec`] turns one fault into the equivalent
//! stages, one field stage per path for a data mode, one delivery stage
//! for a timing or loss mode, every stage with the fault's activation
//! window. What each mode becomes is its registration's [`AnyType`] (in
//! the mode's file under `src/faults/`, from the registry alone): a value
//! mode is a field stage of the field mode that runs the same value model,
//! so the two engines run the same code. So
//! `{channel: cmd_vel, mode: SCALE, scale_factor: 0.5}` is a weak drive, `scale_factor: -1` a reversed motor, `SATURATION` a torque limit,
//! `STUCK` a stuck command, `DELAY` a late one and `DROPOUT` none at all.
//!
//! | FaultSpec mode | stages (the registrations' `any_type`) |
//! |---|---|
//! | dropout | `drop {probability: 1}` |
//! | bias_ramp, bias, scale, stuck, garbage, saturation | `field {path, mode}` per path (saturation: `[-limit, limit]`; bias from `step_at_s`) |
//! | packet_loss, delay, jitter, duplicate, reorder | `loss`, `delay`, `jitter`, `duplicate {copies: 1}`, `reorder` |
//! | degrade, slip, timestamp_jump, corrupt_status | unsupported (use `~/set_fault_stack`) |

use kraken_interfaces::FaultSpec;

use crate::faults::AnyType;
use crate::field::{StageFault, StageSpec, StageWindow};
use crate::FaultError;

/// The stages that do what `spec` does on a channel named `channel` of type
/// `type_name` whose typed modes act on `fields` (field paths). `healthy`
/// gives no stage (the channel passes through).
///
/// # Errors
/// [`FaultError::UnknownMode`]; [`FaultError::Unsupported`] for a mode with
/// no field-path equivalent (degrade, slip, timestamp_jump,
/// corrupt_status), for a data mode on a channel with no `fault_fields`,
/// for `random_phase`, for `freeze_stamp`, and for a `bias` whose
/// `step_at_s` is not before `duration_s` or that is intermittent;
/// [`FaultError::InvalidParameter`] from [`crate::params::check_spec`]
/// (the typed channels' parameter checks: unread fields 0, read ones in
/// their bounds).
/// Parameter ranges are checked when the stages are built
/// ([`crate::field::FaultStack::build`]).
pub fn stages_for_spec(
    spec: &FaultSpec,
    channel: &str,
    type_name: &str,
    fields: &[String],
) -> Result<Vec<StageSpec>, FaultError> {
    let mode = kraken_interfaces::mode_name(spec.mode).ok_or(FaultError::UnknownMode(spec.mode))?;
    let unsupported = |reason: String| FaultError::Unsupported {
        channel: channel.to_string(),
        kind: "a raw channel",
        mode,
        reason: format!("{type_name}: {reason}"),
    };
    let any_type = crate::faults::any_type(spec.mode).ok_or(FaultError::UnknownMode(spec.mode))?;
    if let AnyType::NoStage = any_type {
        return Ok(Vec::new());
    }
    // The typed channels' checks, the same bounds (saturation_limit 1e308
    // is refused here as on a typed channel).
    crate::params::check_spec(spec)?;
    if spec.random_phase {
        return Err(unsupported(
            "random_phase has no stage equivalent; give the phase with ~/set_fault_stack windows"
                .into(),
        ));
    }
    let mut window = StageWindow {
        at_s: 0.0,
        duration_s: spec.duration_s,
        period_s: spec.period_s,
        duty_cycle: if spec.period_s > 0.0 {
            spec.duty_cycle
        } else {
            1.0
        },
        message_skip: spec.message_skip,
        message_count: spec.message_count,
        message_every: spec.message_every,
    };
    let field_spec = match any_type {
        AnyType::Delivery(stage) => {
            return Ok(vec![StageSpec {
                fault: stage(spec)?,
                window,
                select: None,
            }])
        }
        AnyType::Field(f) => f,
        AnyType::NoStage | AnyType::Unsupported => {
            return Err(unsupported(
                "no field-path equivalent on a raw channel; build it with ~/set_fault_stack".into(),
            ))
        }
    };
    if fields.is_empty() {
        return Err(unsupported(
            "the channel declares no fault_fields in channels.yaml (the field paths the typed \
             data modes act on); declare them, or use ~/set_fault_stack with a path"
                .into(),
        ));
    }
    if spec.mode == FaultSpec::STUCK && spec.freeze_stamp {
        return Err(unsupported(
            "freeze_stamp: stamps are not among the fault_fields; add a stuck stage on the stamp with ~/set_fault_stack".into(),
        ));
    }
    if spec.mode == FaultSpec::BIAS && spec.step_at_s != 0.0 {
        bias_step_window(spec, mode, &mut window).map_err(|e| match e {
            Refusal::Error(e) => e,
            Refusal::Unsupported(reason) => unsupported(reason),
        })?;
    }
    Ok(fields
        .iter()
        .map(|path| StageSpec {
            fault: StageFault::Field(Box::new(field_spec(spec, path))),
            window: window.clone(),
            select: None,
        })
        .collect())
}

/// Why [`bias_step_window`] refused.
enum Refusal {
    Error(FaultError),
    /// Unsupported on a raw channel, for this reason.
    Unsupported(String),
}

/// A `bias` with `step_at_s` > 0: the window starts at the step and keeps
/// its end. Refused: a `step_at_s` not finite in [0, MAX_TIME_S] s, an
/// intermittent bias, a step not before `duration_s`.
fn bias_step_window(
    spec: &FaultSpec,
    mode: &'static str,
    window: &mut StageWindow,
) -> Result<(), Refusal> {
    if !(spec.step_at_s.is_finite() && (0.0..=crate::params::MAX_TIME_S).contains(&spec.step_at_s))
    {
        return Err(Refusal::Error(FaultError::InvalidParameter {
            mode,
            field: "step_at_s",
            value: spec.step_at_s,
            reason: format!("must be finite and in [0, {}] s", crate::params::MAX_TIME_S),
        }));
    }
    if spec.period_s > 0.0 {
        return Err(Refusal::Unsupported(
            "an intermittent bias with step_at_s; give the windows with ~/set_fault_stack".into(),
        ));
    }
    if spec.duration_s > 0.0 && spec.step_at_s >= spec.duration_s {
        return Err(Refusal::Unsupported(format!(
            "step_at_s {} s is not before duration_s {} s: the bias would never act",
            spec.step_at_s, spec.duration_s
        )));
    }
    window.at_s = spec.step_at_s;
    if spec.duration_s > 0.0 {
        window.duration_s = spec.duration_s - spec.step_at_s;
    }
    Ok(())
}
