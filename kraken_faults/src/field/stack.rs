//! [`FaultStack`]: several faults on one channel, applied in the declared
//! order, each with its own activation window (REQ-FAULT-STACK).
//!
//! Like netem's stacked qdiscs, a message goes through the stages in order;
//! what a stage outputs is the next stage's input: a drop stage removes the
//! message (later stages never see it), a duplicate stage hands the next
//! stages the original and its copies (a later data fault changes each, a
//! later drop draws for each), a delay stage adds its delay to every message
//! it sees (a jitter stage a seeded uniform one), a loss stage withholds
//! by its model, a reorder stage swaps a message with the next, a stall
//! stage holds what arrives in the first `stall_s` of each active phase and
//! releases it at once (the typed modes' decisions and draws, for any
//! payload: issue 10), a throttle stage passes at most one message per slot of
//! `1/rate_hz`. A drop or delay stage with a `select` acts only on the
//! matching elements of a sequence of sub-messages ([`super::select`]): they
//! are removed (drop) or split off into a message of their own, released
//! `delay_s` later (delay); the rest of the message goes on at once. The
//! order is part of the spec ([`FaultStack::describe`] lists it, numbered,
//! for the report) and changes the result: a bias then a scale is
//! `(x + b)·k`, a scale then a bias `x·k + b`.
//!
//! Each stage counts ([`StageStats`]) the messages it `changed` (a data
//! fault that changed a value, a delay it held), `withheld` (dropped) and
//! `added` (duplicates); every delivered message carries the indices of the
//! stages that touched it ([`Delivered::touched_by`], a copy includes the
//! duplicate stage that made it).
//!
//! Stages draw from the host's [`FaultRng`] only while active, in stage
//! order then message order: the same seed and inputs give the same output.

use std::time::Duration;

use breakbench_msgs::{TypeRegistry, Value};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::{ElementSelector, FieldFault, FieldFaultSpec, SelectSpec};
use crate::activation::Activation;
use crate::faults::packet_loss::{LossModel, PacketLoss};
use crate::faults::timing::{Duplicate, Jitter, Reorder};
use crate::faults::Target;
use crate::params::{MAX_HOLD_S, MAX_TIME_S};
use crate::MsgKind;
use crate::{FaultError, FaultRng};
use kraken_interfaces::FaultSpec;

/// Largest `copies` of a duplicate stage.
pub const MAX_COPIES: u32 = 16;

/// Largest `rate_hz` of a throttle stage (a slot of 1 µs).
pub const MAX_THROTTLE_HZ: f64 = 1e6;

/// A message as a stack sees it. Delivery stages (drop, delay, duplicate)
/// only clone and move it, so any payload works (raw CDR bytes: `Vec<u8>`);
/// data stages need the decoded [`Value`] and pass a payload without one
/// unchanged (uncounted).
pub trait Payload: Clone + Send + 'static {
    /// The decoded message, if the payload has one, to change.
    fn value_mut(&mut self) -> Option<&mut Value> {
        None
    }

    /// The decoded message, if the payload has one, to read (a serialized
    /// payload read this way keeps its bytes).
    fn value_ref(&mut self) -> Option<&Value> {
        None
    }
}

impl Payload for Value {
    fn value_mut(&mut self) -> Option<&mut Value> {
        Some(self)
    }

    fn value_ref(&mut self) -> Option<&Value> {
        Some(self)
    }
}

/// Raw bytes: delivery stages only.
impl Payload for Vec<u8> {}

/// A serialized message (4-byte encapsulation header + CDR body, as
/// [`breakbench_msgs::decode`] reads it) of a type known at run time.
/// Delivery stages move the bytes untouched; the first active field stage
/// decodes them with the type ([`Payload::value_mut`]) and
/// [`CdrPayload::into_bytes`] re-encodes the changed message. A stack with
/// no active field or selecting stage never decodes; a selecting stage that
/// matched nothing only reads it, and the received bytes go out. Bytes that
/// do not decode as the type pass field stages unchanged (uncounted);
/// [`CdrPayload::decode_error`] says why.
#[derive(Debug, Clone)]
pub struct CdrPayload {
    ty: std::sync::Arc<breakbench_msgs::ResolvedType>,
    bytes: Vec<u8>,
    value: Option<Value>,
    /// The value was handed out to change ([`Payload::value_mut`]).
    dirty: bool,
    decode_error: Option<String>,
}

impl CdrPayload {
    /// `bytes` (header + body) of a message of type `ty`.
    pub fn new(ty: std::sync::Arc<breakbench_msgs::ResolvedType>, bytes: Vec<u8>) -> Self {
        Self {
            ty,
            bytes,
            value: None,
            dirty: false,
            decode_error: None,
        }
    }

    /// Whether a field stage decoded it.
    pub fn was_decoded(&self) -> bool {
        self.value.is_some()
    }

    /// Why the bytes did not decode as the type, if a field stage tried.
    pub fn decode_error(&self) -> Option<&str> {
        self.decode_error.as_deref()
    }

    /// The bytes to publish (header + body): the received bytes when no
    /// stage changed the decoded message, else its re-encoding.
    ///
    /// # Errors
    /// The encoder's refusal (a field stage made a value the type cannot
    /// carry, e.g. a string over its bound).
    pub fn into_bytes(self) -> Result<Vec<u8>, breakbench_msgs::MsgError> {
        match &self.value {
            Some(v) if self.dirty => breakbench_msgs::encode(&self.ty, v),
            _ => Ok(self.bytes),
        }
    }
}

impl CdrPayload {
    fn decoded(&mut self) {
        if self.value.is_none() && self.decode_error.is_none() {
            match breakbench_msgs::decode(&self.ty, &self.bytes) {
                Ok(v) => self.value = Some(v),
                Err(e) => self.decode_error = Some(e.to_string()),
            }
        }
    }
}

impl Payload for CdrPayload {
    fn value_mut(&mut self) -> Option<&mut Value> {
        self.decoded();
        self.dirty |= self.value.is_some();
        self.value.as_mut()
    }

    fn value_ref(&mut self) -> Option<&Value> {
        self.decoded();
        self.value.as_ref()
    }
}

fn default_duty() -> f64 {
    1.0
}

fn default_one() -> f64 {
    1.0
}

/// The loss pattern of a `loss` stage: the typed `packet_loss` mode's
/// `loss_model` ([`crate::faults::packet_loss::LossModel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModelName {
    /// Each message lost with `loss_probability`.
    Bernoulli,
    /// With `loss_probability` a message starts a burst of `burst_length`.
    Burst,
    /// Two-state Markov chain: good→bad `loss_probability`, bad→good
    /// `recovery_probability`.
    GilbertElliott,
}

/// When a stage acts, measured from the time the stack is set
/// ([`FaultStack::set`]): from `at_s` on, for `duration_s` (0 = until the
/// stack is cleared), intermittently when `period_s > 0` (active while
/// `(t − set − at_s) mod period_s < duty_cycle · period_s`). The same rules
/// as [`Activation`] (REQ-FAULT-ACTIVATION), shifted by `at_s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageWindow {
    /// Start after the stack is set, s.
    #[serde(default)]
    pub at_s: f64,
    /// Length, s; 0 = until cleared.
    #[serde(default)]
    pub duration_s: f64,
    /// Period of an intermittent stage, s; 0 = not intermittent.
    #[serde(default)]
    pub period_s: f64,
    /// Active fraction of each period, in (0, 1]; only with `period_s > 0`
    /// (else 1, its default).
    #[serde(default = "default_duty")]
    pub duty_cycle: f64,
    /// Message window (REQ-FAULT-MESSAGE-WINDOW, [`crate::activation::MessageWindow`]):
    /// of the messages arriving while the time window is active, the first
    /// `message_skip` pass.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_skip: u32,
    /// Then at most `message_count` messages are faulted (0 = no limit).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_count: u32,
    /// Only every `message_every`-th of them (0 or 1 = each).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_every: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl StageWindow {
    /// The window's message pattern.
    pub fn messages(&self) -> crate::activation::MessageWindow {
        crate::activation::MessageWindow {
            skip: self.message_skip,
            count: self.message_count,
            every: self.message_every,
        }
    }
}

impl Default for StageWindow {
    fn default() -> Self {
        Self {
            at_s: 0.0,
            duration_s: 0.0,
            period_s: 0.0,
            duty_cycle: 1.0,
            message_skip: 0,
            message_count: 0,
            message_every: 0,
        }
    }
}

/// What a stage does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StageFault {
    /// Bernoulli loss: each message withheld with `probability`.
    Drop {
        /// In [0, 1].
        probability: f64,
    },
    /// Each message delivered `delay_s` later.
    Delay {
        /// In [0, [`MAX_HOLD_S`]] s.
        delay_s: f64,
    },
    /// Each message followed, with `probability` (one draw per message, none
    /// at 1), by `copies` copies (same delay). `copies: 1` is the typed
    /// `duplicate` mode.
    Duplicate {
        /// In [1, [`MAX_COPIES`]].
        copies: u32,
        /// In [0, 1]; default 1 (always).
        #[serde(default = "default_one")]
        probability: f64,
    },
    /// Whole messages withheld by a loss model, the typed `packet_loss`
    /// mode's decisions ([`crate::faults::packet_loss::PacketLoss::lose`]).
    Loss {
        /// `bernoulli`, `burst` or `gilbert_elliott`.
        model: LossModelName,
        /// In [0, 1].
        loss_probability: f64,
        /// Burst: messages lost per burst, >= 1.
        #[serde(default)]
        burst_length: u32,
        /// Gilbert-Elliott: bad→good probability, in (0, 1].
        #[serde(default)]
        recovery_probability: f64,
    },
    /// Each message held a seeded uniform time in [0, `jitter_s`] (the typed
    /// `jitter` mode's draw, [`crate::faults::timing::Jitter::draw`]).
    Jitter {
        /// In [0, [`MAX_HOLD_S`]] s.
        jitter_s: f64,
    },
    /// With `probability` a message is held back and delivered right after
    /// the next one (the typed `reorder` mode, [`crate::faults::timing::Reorder::step`]).
    Reorder {
        /// In [0, 1].
        probability: f64,
    },
    /// Queue stall then burst release (004 "burst po zatorze kolejki"):
    /// from the first message of each active phase of the stage's window,
    /// for `stall_s`, every message is held; at the end of the stall all of
    /// them are released at once, in arrival order. Later messages pass.
    Stall {
        /// In (0, [`MAX_HOLD_S`]] s.
        stall_s: f64,
    },
    /// Rate reduction: a message passes when its arrival is at or after
    /// the next slot of a grid of `1/rate_hz` anchored at the first passed
    /// message; the others are withheld. From a faster input the output
    /// averages exactly `rate_hz` (50 Hz in, 20 Hz out: every 2 of 5);
    /// after a gap longer than a slot the grid restarts at the next message.
    Throttle {
        /// In (0, [`MAX_THROTTLE_HZ`]] Hz.
        rate_hz: f64,
    },
    /// A data fault on a field path.
    Field(Box<FieldFaultSpec>),
}

/// One stage of a stack, as written in a fault file.
///
/// ```yaml
/// - fault: {delay: {delay_s: 0.1}}
/// - fault: {drop: {probability: 0.05}}
/// - fault: {field: {path: angular_velocity.z, mode: bias, bias: 0.02}}
///   window: {at_s: 5.0, duration_s: 10.0}
/// - fault: {delay: {delay_s: 0.2}}     # tf2_msgs/msg/TFMessage: only odom -> base_link
///   select: {sequence: transforms, where: {header.frame_id: odom, child_frame_id: base_link}}
/// - fault: {throttle: {rate_hz: 20.0}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    /// What it does: a one-key map (`{drop: {probability: 0.05}}`; YAML
    /// `!drop` tags work too).
    #[serde(with = "serde_yaml_ng::with::singleton_map")]
    pub fault: StageFault,
    /// When it acts (default: from the set time until cleared).
    #[serde(default)]
    pub window: StageWindow,
    /// Drop and delay only: act on the matching elements of a sequence of
    /// sub-messages instead of the whole message ([`SelectSpec`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<SelectSpec>,
}

/// Per-stage counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StageStats {
    /// Messages it changed (data: a value changed; delay: held; a
    /// selecting drop: some elements removed; a selecting delay: the
    /// matching elements split off and held).
    pub changed: u64,
    /// Messages it withheld (drop, throttle; a selecting drop: every
    /// element matched).
    pub withheld: u64,
    /// Messages it added (duplicate copies).
    pub added: u64,
}

/// A message out of the stack: deliver `payload` `delay` after the input's
/// arrival.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered<P> {
    /// Delay after `now`.
    pub delay: Duration,
    /// The (possibly changed) message.
    pub payload: P,
    /// Indices (declared order) of the stages that changed, delayed or
    /// created it, ascending.
    pub touched_by: Vec<usize>,
}

/// A held message of any payload type, for a reorder stage (the stack
/// is not generic over the payload; [`FaultStack::apply`] is).
trait HeldItem: std::any::Any + Send {
    fn clone_box(&self) -> Box<dyn HeldItem>;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

impl<T: std::any::Any + Send + Clone> HeldItem for T {
    fn clone_box(&self) -> Box<dyn HeldItem> {
        Box::new(self.clone())
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

struct Held(Box<dyn HeldItem>);

impl Clone for Held {
    fn clone(&self) -> Self {
        Held(self.0.clone_box())
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held(..)")
    }
}

#[derive(Debug, Clone)]
enum Op {
    Drop(f64),
    Delay(Duration),
    Duplicate {
        copies: u32,
        gate: Duplicate,
    },
    Loss(PacketLoss),
    Jitter(Jitter),
    Reorder(Reorder<Held>),
    Stall {
        length: Duration,
        /// End of the running stall; `None` until the first message of an
        /// active phase.
        until: Option<Duration>,
    },
    Throttle {
        period: Duration,
        /// The next slot's start; `None` until a message passed.
        next: Option<Duration>,
    },
    Field(Box<FieldFault>),
}

#[derive(Debug, Clone)]
struct Stage {
    spec: StageSpec,
    op: Op,
    select: Option<ElementSelector>,
    activation: Option<Activation>,
    stats: StageStats,
}

/// An ordered list of fault stages over the messages of one channel.
#[derive(Debug, Clone)]
pub struct FaultStack {
    stages: Vec<Stage>,
}

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

impl StageFault {
    /// `drop`, `delay`, `duplicate`, `throttle` or `field`.
    pub fn kind(&self) -> &'static str {
        match self {
            StageFault::Drop { .. } => "drop",
            StageFault::Delay { .. } => "delay",
            StageFault::Duplicate { .. } => "duplicate",
            StageFault::Loss { .. } => "loss",
            StageFault::Jitter { .. } => "jitter",
            StageFault::Reorder { .. } => "reorder",
            StageFault::Stall { .. } => "stall",
            StageFault::Throttle { .. } => "throttle",
            StageFault::Field(_) => "field",
        }
    }
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
            let wrap = |e: FaultError| FaultError::Stage {
                index,
                source: Box::new(e),
            };
            let kind = spec.fault.kind();
            check_window(&spec.window, kind).map_err(wrap)?;
            let bad = |field: &'static str, value: f64, reason: &str| {
                wrap(FaultError::InvalidParameter {
                    mode: kind,
                    field,
                    value,
                    reason: reason.into(),
                })
            };
            let op = match &spec.fault {
                StageFault::Drop { probability: p } => {
                    if !(0.0..=1.0).contains(p) {
                        return Err(bad("probability", *p, "must be a probability in [0, 1]"));
                    }
                    Op::Drop(*p)
                }
                StageFault::Delay { delay_s } => {
                    if !(delay_s.is_finite() && (0.0..=MAX_HOLD_S).contains(delay_s)) {
                        return Err(bad(
                            "delay_s",
                            *delay_s,
                            &format!("must be finite and in [0, {MAX_HOLD_S}] s"),
                        ));
                    }
                    Op::Delay(Duration::from_secs_f64(*delay_s))
                }
                StageFault::Duplicate {
                    copies,
                    probability,
                } => {
                    if !(1..=MAX_COPIES).contains(copies) {
                        return Err(bad(
                            "copies",
                            f64::from(*copies),
                            &format!("must be in [1, {MAX_COPIES}]"),
                        ));
                    }
                    let gate = Duplicate::from_spec(
                        &FaultSpec {
                            probability: *probability,
                            ..FaultSpec::new("", FaultSpec::DUPLICATE)
                        },
                        TARGET,
                    );
                    Op::Duplicate {
                        copies: *copies,
                        gate: gate.map_err(|e| wrap(retag(e, kind)))?,
                    }
                }
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
                    Op::Loss(loss.map_err(|e| wrap(retag(e, kind)))?)
                }
                StageFault::Jitter { jitter_s } => {
                    let j = Jitter::from_spec(
                        &FaultSpec {
                            jitter_s: *jitter_s,
                            ..FaultSpec::new("", FaultSpec::JITTER)
                        },
                        TARGET,
                    );
                    Op::Jitter(j.map_err(|e| wrap(retag(e, kind)))?)
                }
                StageFault::Reorder { probability } => {
                    let r = Reorder::from_spec(
                        &FaultSpec {
                            probability: *probability,
                            ..FaultSpec::new("", FaultSpec::REORDER)
                        },
                        TARGET,
                    );
                    Op::Reorder(r.map_err(|e| wrap(retag(e, kind)))?)
                }
                StageFault::Stall { stall_s } => {
                    if !(stall_s.is_finite() && *stall_s > 0.0 && *stall_s <= MAX_HOLD_S) {
                        return Err(bad(
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
                StageFault::Field(f) => Op::Field(Box::new(
                    FieldFault::build(f, reg, type_name).map_err(wrap)?,
                )),
            };
            let select = match &spec.select {
                None => None,
                Some(sel) => {
                    if !matches!(
                        spec.fault,
                        StageFault::Drop { .. } | StageFault::Delay { .. }
                    ) {
                        return Err(wrap(FaultError::Select {
                            path: sel.sequence.clone(),
                            ty: type_name.to_string(),
                            reason: format!(
                                "'select' works on drop and delay stages, not on {kind}"
                            ),
                        }));
                    }
                    let ty = reg.resolve(type_name).map_err(|e| {
                        wrap(FaultError::Select {
                            path: sel.sequence.clone(),
                            ty: type_name.to_string(),
                            reason: e.to_string(),
                        })
                    })?;
                    Some(ElementSelector::build(sel, &ty).map_err(wrap)?)
                }
            };
            stages.push(Stage {
                spec: spec.clone(),
                op,
                select,
                activation: None,
                stats: StageStats::default(),
            });
        }
        Ok(FaultStack { stages })
    }

    /// Sets the stack at `now`: each stage's window starts `at_s` later (and
    /// a field stage's [`FieldFault::on_set`] is that start). Without a
    /// call, the first [`FaultStack::apply`] sets it. Setting again restarts
    /// the windows (counters and stuck values are kept).
    pub fn set(&mut self, now: Duration) {
        for s in &mut self.stages {
            Self::set_stage(s, now);
        }
    }

    fn set_stage(s: &mut Stage, now: Duration) {
        let w = &s.spec.window;
        // Checked at build: at_s, duration_s <= 1e6 s.
        let start = now.saturating_add(Duration::from_secs_f64(w.at_s));
        s.activation = Some(Activation {
            set_at: start,
            duration: (w.duration_s > 0.0).then(|| Duration::from_secs_f64(w.duration_s)),
            period_s: w.period_s,
            duty_cycle: w.duty_cycle,
            random_phase: false,
            phase_s: Some(0.0),
            messages: w.messages(),
            window_messages: 0,
        });
        if let Op::Field(f) = &mut s.op {
            f.on_set(start);
        }
    }

    /// Appends the stages of `other` after this stack's, their windows
    /// starting at `now` (this stack's stages keep theirs, and their
    /// counters).
    pub fn append(&mut self, other: FaultStack, now: Duration) {
        for mut s in other.stages {
            Self::set_stage(&mut s, now);
            self.stages.push(s);
        }
    }

    /// Removes the stage at `index` (declared order), returning its spec
    /// and counters; the later stages move up one place and keep their
    /// windows and counters. `None` when out of range.
    pub fn remove(&mut self, index: usize) -> Option<(StageSpec, StageStats)> {
        (index < self.stages.len()).then(|| {
            let s = self.stages.remove(index);
            (s.spec, s.stats)
        })
    }

    /// [`FaultStack::remove`], also handing back the message a reorder
    /// stage still holds (held back behind a next one that never came), so
    /// the host can release it instead of losing it; `None` for other
    /// stages, an empty reorder, or a held message of another payload type.
    pub fn remove_releasing<P: Payload>(
        &mut self,
        index: usize,
    ) -> Option<(StageSpec, StageStats, Option<Delivered<P>>)> {
        (index < self.stages.len()).then(|| {
            let s = self.stages.remove(index);
            let held = match s.op {
                Op::Reorder(r) => r
                    .held
                    .and_then(|h| h.0.into_any().downcast::<Delivered<P>>().ok())
                    .map(|d| *d),
                _ => None,
            };
            (s.spec, s.stats, held)
        })
    }

    /// Whether each stage is active at `now`, in declared order (a stage
    /// not yet set is inactive).
    pub fn active(&self, now: Duration) -> Vec<bool> {
        self.stages
            .iter()
            .map(|s| s.activation.as_ref().is_some_and(|a| a.is_active(now)))
            .collect()
    }

    /// Whether any stage is active at `now` (no allocation: the host's
    /// check before paying for a message's CDR round trip).
    pub fn any_active(&self, now: Duration) -> bool {
        self.stages
            .iter()
            .any(|s| s.activation.as_ref().is_some_and(|a| a.is_active(now)))
    }

    /// Whether a `reorder` stage holds a message to release with a later
    /// one (the host must keep passing messages through [`Self::apply`]).
    pub fn holds(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(&s.op, Op::Reorder(r) if r.held.is_some()))
    }

    /// A used-up message window admits nothing again: what stage `i`'s
    /// reorder holds goes out right after `items` (not before the latest
    /// of them).
    fn release_held<P: Payload>(s: &mut Stage, i: usize, items: &mut Vec<Delivered<P>>) {
        let Op::Reorder(r) = &mut s.op else {
            return;
        };
        if !s
            .activation
            .as_ref()
            .is_some_and(|a| a.messages_exhausted())
        {
            return;
        }
        let after = items.iter().map(|d| d.delay).max().unwrap_or_default();
        let held = r
            .held
            .take()
            .map(|h| h.0.into_any().downcast::<Delivered<P>>());
        if let Some(Ok(mut d)) = held {
            d.delay = d.delay.max(after);
            d.touched_by.push(i);
            items.push(*d);
        }
    }

    /// Runs one message received at `now` through the active stages in
    /// declared order. An empty result withholds it; several entries are
    /// the message and its copies, in order.
    pub fn apply<P: Payload>(
        &mut self,
        payload: P,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<Delivered<P>> {
        if self.stages.first().is_some_and(|s| s.activation.is_none()) {
            self.set(now);
        }
        // Stages appended without a set time start now.
        for s in self.stages.iter_mut().filter(|s| s.activation.is_none()) {
            Self::set_stage(s, now);
        }
        let mut items = vec![Delivered {
            delay: Duration::ZERO,
            payload,
            touched_by: Vec::new(),
        }];
        for (i, s) in self.stages.iter_mut().enumerate() {
            if items.is_empty() {
                break;
            }
            if !s.activation.as_mut().is_some_and(|a| a.admit(now)) {
                // The next active phase stalls anew.
                if let Op::Stall { until, .. } = &mut s.op {
                    *until = None;
                }
                Self::release_held(s, i, &mut items);
                continue;
            }
            if let Some(sel) = &s.select {
                items = Self::apply_selected(sel, &s.op, i, &mut s.stats, items, rng);
                continue;
            }
            match &mut s.op {
                Op::Drop(p) => {
                    let before = items.len();
                    let p = *p;
                    items.retain(|_| !rng.random_bool(p));
                    s.stats.withheld += (before - items.len()) as u64;
                }
                // A delay of 0 touches nothing.
                Op::Delay(d) if !d.is_zero() => {
                    for it in &mut items {
                        it.delay = it.delay.saturating_add(*d);
                        it.touched_by.push(i);
                    }
                    s.stats.changed += items.len() as u64;
                }
                Op::Delay(_) => {}
                Op::Duplicate { copies: n, gate } => {
                    let mut out = Vec::with_capacity(items.len() * (*n as usize + 1));
                    for it in items {
                        if !gate.fires(rng) {
                            out.push(it);
                            continue;
                        }
                        for _ in 0..*n {
                            let mut c = it.clone();
                            c.touched_by.push(i);
                            out.push(c);
                        }
                        out.insert(out.len() - *n as usize, it);
                        s.stats.added += u64::from(*n);
                    }
                    items = out;
                }
                Op::Loss(loss) => {
                    let before = items.len();
                    items.retain(|_| !loss.lose(rng));
                    s.stats.withheld += (before - items.len()) as u64;
                }
                Op::Jitter(j) => {
                    for it in &mut items {
                        it.delay = it.delay.saturating_add(j.draw(rng));
                        it.touched_by.push(i);
                    }
                    s.stats.changed += items.len() as u64;
                }
                Op::Reorder(r) => {
                    let mut out = Vec::with_capacity(items.len() + 1);
                    for it in items {
                        let after = it.delay;
                        let was_empty = r.held.is_none();
                        let step = r.step(Held(Box::new(it)), rng);
                        if was_empty && step.is_empty() {
                            s.stats.changed += 1;
                        }
                        for (k, h) in step.into_iter().enumerate() {
                            // Only this stack's payload type is ever held.
                            if let Ok(mut d) = h.0.into_any().downcast::<Delivered<P>>() {
                                if k == 1 {
                                    // The released one goes right after the new one.
                                    d.delay = d.delay.max(after);
                                    d.touched_by.push(i);
                                }
                                out.push(*d);
                            }
                        }
                    }
                    items = out;
                }
                Op::Stall { length, until } => {
                    let end = *until.get_or_insert(now.saturating_add(*length));
                    if now < end {
                        for it in &mut items {
                            it.delay = it.delay.max(end - now);
                            it.touched_by.push(i);
                        }
                        s.stats.changed += items.len() as u64;
                    }
                }
                Op::Throttle { period, next } => {
                    let before = items.len();
                    items.retain(|_| {
                        let pass = next.is_none_or(|n| now >= n);
                        if pass {
                            *next = Some(match *next {
                                Some(n) if now < n.saturating_add(*period) => n + *period,
                                _ => now.saturating_add(*period),
                            });
                        }
                        pass
                    });
                    s.stats.withheld += (before - items.len()) as u64;
                }
                Op::Field(f) => {
                    for it in &mut items {
                        if let Some(v) = it.payload.value_mut() {
                            if f.apply(v, now, rng) {
                                s.stats.changed += 1;
                                it.touched_by.push(i);
                            }
                        }
                    }
                }
            }
        }
        items
    }

    /// A drop or delay stage (index `i`, op `op`) limited to the elements
    /// `sel` matches. Per message: no matching element (or a payload that
    /// does not decode): untouched; every element matching: the whole
    /// message dropped / delayed as without a selection (bytes kept);
    /// some: drop (one draw per message) removes them (`changed`), delay
    /// removes them and adds a copy of the message holding only them,
    /// `delay_s` later (`changed`).
    fn apply_selected<P: Payload>(
        sel: &ElementSelector,
        op: &Op,
        i: usize,
        stats: &mut StageStats,
        items: Vec<Delivered<P>>,
        rng: &mut FaultRng,
    ) -> Vec<Delivered<P>> {
        let mut out = Vec::with_capacity(items.len() + 1);
        for mut it in items {
            let Some(mask) = it.payload.value_ref().and_then(|v| sel.matches(v)) else {
                out.push(it);
                continue;
            };
            if !mask.iter().any(|m| *m) {
                out.push(it);
                continue;
            }
            let all = mask.iter().all(|m| *m);
            match *op {
                Op::Drop(p) => {
                    if !rng.random_bool(p) {
                        out.push(it);
                    } else if all {
                        stats.withheld += 1;
                    } else {
                        if let Some(v) = it.payload.value_mut() {
                            sel.retain(v, &mask, false);
                        }
                        it.touched_by.push(i);
                        stats.changed += 1;
                        out.push(it);
                    }
                }
                Op::Delay(d) if !d.is_zero() => {
                    stats.changed += 1;
                    if all {
                        it.delay = it.delay.saturating_add(d);
                        it.touched_by.push(i);
                        out.push(it);
                        continue;
                    }
                    let mut held = it.clone();
                    if let Some(v) = held.payload.value_mut() {
                        sel.retain(v, &mask, true);
                    }
                    held.delay = held.delay.saturating_add(d);
                    held.touched_by.push(i);
                    if let Some(v) = it.payload.value_mut() {
                        sel.retain(v, &mask, false);
                    }
                    out.push(it);
                    out.push(held);
                }
                _ => out.push(it),
            }
        }
        out
    }

    /// The counters of each stage, in declared order.
    pub fn stats(&self) -> Vec<StageStats> {
        self.stages.iter().map(|s| s.stats).collect()
    }

    /// One line per stage, in declared order: `"<index>: <what>"` with its
    /// window, e.g. `"1: drop p=0.05"`, `"2: bias angular_velocity.z
    /// [from 5 s for 10 s]"`.
    pub fn describe(&self) -> Vec<String> {
        self.stages
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let what = match &s.op {
                    Op::Drop(p) => format!("drop p={p}"),
                    Op::Delay(d) => format!("delay {} s", d.as_secs_f64()),
                    Op::Duplicate { copies, gate } if gate.probability == 1.0 => {
                        format!("duplicate x{copies}")
                    }
                    Op::Duplicate { copies, gate } => {
                        format!("duplicate x{copies} p={}", gate.probability)
                    }
                    Op::Loss(l) => match l.model {
                        LossModel::Bernoulli { p } => format!("loss bernoulli p={p}"),
                        LossModel::Burst { p, burst_length } => {
                            format!("loss burst p={p} length {burst_length}")
                        }
                        LossModel::GilbertElliott { p, r } => {
                            format!("loss gilbert_elliott p={p} r={r}")
                        }
                    },
                    Op::Jitter(j) => format!("jitter 0..{} s", j.max.as_secs_f64()),
                    Op::Reorder(r) => format!("reorder p={}", r.probability),
                    Op::Stall { length, .. } => {
                        format!("stall {} s, then burst release", length.as_secs_f64())
                    }
                    Op::Throttle { .. } => match &s.spec.fault {
                        StageFault::Throttle { rate_hz } => format!("throttle {rate_hz} Hz"),
                        _ => unreachable!("a throttle op comes from a throttle spec"),
                    },
                    Op::Field(f) => f.describe(),
                };
                let what = match &s.select {
                    Some(sel) => format!("{what} of {}", sel.describe()),
                    None => what,
                };
                let w = &s.spec.window;
                let mut when = Vec::new();
                if w.at_s > 0.0 {
                    when.push(format!("from {} s", w.at_s));
                }
                if w.duration_s > 0.0 {
                    when.push(format!("for {} s", w.duration_s));
                }
                if w.period_s > 0.0 {
                    when.push(format!("{} of every {} s", w.duty_cycle, w.period_s));
                }
                if !w.messages().is_all() {
                    when.push(format!(
                        "messages: skip {}, count {}, every {}",
                        w.message_skip, w.message_count, w.message_every
                    ));
                }
                if when.is_empty() {
                    format!("{i}: {what}")
                } else {
                    format!("{i}: {what} [{}]", when.join(" "))
                }
            })
            .collect()
    }

    /// The stage specs, in declared order.
    pub fn specs(&self) -> Vec<&StageSpec> {
        self.stages.iter().map(|s| &s.spec).collect()
    }

    /// Number of stages.
    pub fn len(&self) -> usize {
        self.stages.len()
    }

    /// True for a stack without stages (a passthrough).
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }
}
