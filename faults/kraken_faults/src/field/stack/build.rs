//! [`FaultStack::build`]: each stage's window, parameters, field fault and
//! selection checked, in declared order.

use std::time::Duration;

use breakbench_msgs::TypeRegistry;
use kraken_interfaces::FaultSpec;

use super::{
    FaultStack, LossModelName, Op, Stage, StageFault, StageSpec, StageStats, StageWindow,
    MAX_COPIES, MAX_THROTTLE_HZ,
};
use crate::faults::packet_loss::PacketLoss;
use crate::faults::timing::{Duplicate, Jitter, Reorder};
use crate::faults::Target;
use crate::field::{ElementSelector, FieldFault};
use crate::params::{MAX_HOLD_S, MAX_TIME_S};
use crate::{FaultError, MsgKind};

/// The typed modes' `from_spec` ignore the channel: any target will do.
const TARGET: Target<'static> = Target {
    channel: "",
    kind: MsgKind::Imu,
};

/// A typed mode's refusal, named after the stack stage `kind` instead.
fn retag(e: FaultError, kind: &'static str) -> FaultError {
    match e {
        FaultError::InvalidParameter {
            field,
            value,
            reason,
            ..
        } => FaultError::InvalidParameter {
            mode: kind,
            field,
            value,
            reason,
        },
        other => other,
    }
}

fn check_window(w: &StageWindow, kind: &'static str) -> Result<(), FaultError> {
    let bad = |field: &'static str, value: f64, reason: String| FaultError::InvalidParameter {
        mode: kind,
        field,
        value,
        reason,
    };
    for (field, v) in [
        ("at_s", w.at_s),
        ("duration_s", w.duration_s),
        ("period_s", w.period_s),
    ] {
        if !(v.is_finite() && (0.0..=MAX_TIME_S).contains(&v)) {
            return Err(bad(
                field,
                v,
                format!("must be finite and in [0, {MAX_TIME_S}] s"),
            ));
        }
    }
    if w.period_s > 0.0 && !(w.duty_cycle > 0.0 && w.duty_cycle <= 1.0) {
        return Err(bad(
            "duty_cycle",
            w.duty_cycle,
            "must be in (0, 1] when period_s > 0".into(),
        ));
    }
    if w.period_s == 0.0 && w.duty_cycle != 1.0 {
        return Err(bad(
            "duty_cycle",
            w.duty_cycle,
            "is read only with period_s > 0 (an intermittent window); without a period the \
             stage would act on every message: give period_s, or leave duty_cycle out"
                .into(),
        ));
    }
    Ok(())
}

impl FaultStack {
    /// Builds the stages of `specs`, in order, for messages of type
    /// `type_name` (field stages resolve their paths against it).
    ///
    /// # Errors
    /// [`FaultError::Stage`] with the stage's index around the cause: a
    /// window out of range (at_s, duration_s, period_s finite in
    /// [0, 1e6] s; duty_cycle in (0, 1] when intermittent), a drop
    /// probability outside [0, 1], a delay outside [0, 60] s, copies outside
    /// [1, 16], a throttle `rate_hz` not finite in (0, 1e6] Hz, a `loss`,
    /// `jitter`, `reorder` or `duplicate` parameter the typed mode refuses
    /// (the same checks, named after the stage kind: `loss_probability`,
    /// `recovery_probability` in [0, 1] and > 0 for gilbert_elliott,
    /// `burst_length` >= 1 for burst, `jitter_s` in [0, 60] s,
    /// `probability` in [0, 1]), a `stall_s` not finite in (0, 60] s, the field
    /// fault's refusal ([`FieldFault::build`]), a `select` on a stage other
    /// than drop and delay, or the selection's refusal
    /// ([`ElementSelector::build`]: [`FaultError::Select`] naming the path
    /// and the type).
    pub fn build(
        specs: &[StageSpec],
        reg: &TypeRegistry,
        type_name: &str,
    ) -> Result<FaultStack, FaultError> {
        let mut stages = Vec::with_capacity(specs.len());
        for (index, spec) in specs.iter().enumerate() {
            let stage = build_stage(spec, reg, type_name).map_err(|e| FaultError::Stage {
                index,
                source: Box::new(e),
            })?;
            stages.push(stage);
        }
        Ok(FaultStack { stages })
    }
}

/// One stage: its window, its operation, its selection. Errors: as
/// [`FaultStack::build`], without the stage's index.
fn build_stage(spec: &StageSpec, reg: &TypeRegistry, type_name: &str) -> Result<Stage, FaultError> {
    let kind = spec.fault.kind();
    check_window(&spec.window, kind)?;
    let op = op_of(&spec.fault, reg, type_name)?;
    let select = match &spec.select {
        None => None,
        Some(sel) => {
            if !matches!(
                spec.fault,
                StageFault::Drop { .. } | StageFault::Delay { .. }
            ) {
                return Err(FaultError::Select {
                    path: sel.sequence.clone(),
                    ty: type_name.to_string(),
                    reason: format!("'select' works on drop and delay stages, not on {kind}"),
                });
            }
            let ty = reg.resolve(type_name).map_err(|e| FaultError::Select {
                path: sel.sequence.clone(),
                ty: type_name.to_string(),
                reason: e.to_string(),
            })?;
            Some(ElementSelector::build(sel, &ty)?)
        }
    };
    Ok(Stage {
        spec: spec.clone(),
        op,
        select,
        activation: None,
        stats: StageStats::default(),
    })
}

/// A stage's parameter `field` = `value` refused for `reason`.
fn bad(kind: &'static str, field: &'static str, value: f64, reason: &str) -> FaultError {
    FaultError::InvalidParameter {
        mode: kind,
        field,
        value,
        reason: reason.into(),
    }
}

/// The operation of `fault`, its parameters checked.
fn op_of(fault: &StageFault, reg: &TypeRegistry, type_name: &str) -> Result<Op, FaultError> {
    let kind = fault.kind();
    Ok(match fault {
        StageFault::Drop { probability: p } => {
            if !(0.0..=1.0).contains(p) {
                return Err(bad(
                    kind,
                    "probability",
                    *p,
                    "must be a probability in [0, 1]",
                ));
            }
            Op::Drop(*p)
        }
        StageFault::Delay { delay_s } => {
            if !(delay_s.is_finite() && (0.0..=MAX_HOLD_S).contains(delay_s)) {
                return Err(bad(
                    kind,
                    "delay_s",
                    *delay_s,
                    &format!("must be finite and in [0, {MAX_HOLD_S}] s"),
                ));
            }
            Op::Delay(Duration::from_secs_f64(*delay_s))
        }
        StageFault::Stall { stall_s } => {
            if !(stall_s.is_finite() && *stall_s > 0.0 && *stall_s <= MAX_HOLD_S) {
                return Err(bad(
                    kind,
                    "stall_s",
                    *stall_s,
                    &format!("must be finite and in (0, {MAX_HOLD_S}] s"),
                ));
            }
            Op::Stall {
                length: Duration::from_secs_f64(*stall_s),
                until: None,
            }
        }
        StageFault::Throttle { rate_hz } => {
            if !(rate_hz.is_finite() && *rate_hz > 0.0 && *rate_hz <= MAX_THROTTLE_HZ) {
                return Err(bad(
                    kind,
                    "rate_hz",
                    *rate_hz,
                    &format!("must be finite and in (0, {MAX_THROTTLE_HZ:e}] Hz"),
                ));
            }
            Op::Throttle {
                period: Duration::from_secs_f64(1.0 / rate_hz),
                next: None,
            }
        }
        StageFault::Field(f) => Op::Field(Box::new(FieldFault::build(f, reg, type_name)?)),
        StageFault::Duplicate {
            copies,
            probability,
        } => duplicate_op(*copies, *probability)?,
        StageFault::Loss {
            model,
            loss_probability,
            burst_length,
            recovery_probability,
        } => {
            let loss = PacketLoss::from_spec(
                &FaultSpec {
                    loss_model: match model {
                        LossModelName::Bernoulli => FaultSpec::LOSS_BERNOULLI,
                        LossModelName::Burst => FaultSpec::LOSS_BURST,
                        LossModelName::GilbertElliott => FaultSpec::LOSS_GILBERT_ELLIOTT,
                    },
                    loss_probability: *loss_probability,
                    burst_length: *burst_length,
                    recovery_probability: *recovery_probability,
                    ..FaultSpec::new("", FaultSpec::PACKET_LOSS)
                },
                TARGET,
            );
            Op::Loss(loss.map_err(|e| retag(e, kind))?)
        }
        StageFault::Jitter { jitter_s } => {
            let j = Jitter::from_spec(
                &FaultSpec {
                    jitter_s: *jitter_s,
                    ..FaultSpec::new("", FaultSpec::JITTER)
                },
                TARGET,
            );
            Op::Jitter(j.map_err(|e| retag(e, kind))?)
        }
        StageFault::Reorder { probability } => {
            let r = Reorder::from_spec(
                &FaultSpec {
                    probability: *probability,
                    ..FaultSpec::new("", FaultSpec::REORDER)
                },
                TARGET,
            );
            Op::Reorder(r.map_err(|e| retag(e, kind))?)
        }
    })
}

/// A `duplicate` stage: `copies` in [1, [`MAX_COPIES`]], `probability` as
/// the typed mode checks it (its refusal named after the stage).
fn duplicate_op(copies: u32, probability: f64) -> Result<Op, FaultError> {
    let kind = "duplicate";
    if !(1..=MAX_COPIES).contains(&copies) {
        return Err(bad(
            kind,
            "copies",
            f64::from(copies),
            &format!("must be in [1, {MAX_COPIES}]"),
        ));
    }
    let gate = Duplicate::from_spec(
        &FaultSpec {
            probability,
            ..FaultSpec::new("", FaultSpec::DUPLICATE)
        },
        TARGET,
    );
    Ok(Op::Duplicate {
        copies,
        gate: gate.map_err(|e| retag(e, kind))?,
    })
}
