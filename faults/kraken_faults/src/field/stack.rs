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

use breakbench_msgs::Value;
use serde::{Deserialize, Serialize};

use super::{ElementSelector, FieldFault, FieldFaultSpec, SelectSpec};
use crate::activation::Activation;
use crate::faults::packet_loss::{LossModel, PacketLoss};
use crate::faults::timing::{Duplicate, Jitter, Reorder};

mod apply;
mod build;

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
        /// In [0, [`MAX_HOLD_S`](crate::params::MAX_HOLD_S)] s.
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
        /// In [0, [`MAX_HOLD_S`](crate::params::MAX_HOLD_S)] s.
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
        /// In (0, [`MAX_HOLD_S`](crate::params::MAX_HOLD_S)] s.
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
