//! Faults on field paths of messages of any type, and stacks of faults
//! (issue #10; REQ-FAULT-FIELD-PATH, REQ-FAULT-STACK, REQ-FAULT-TF-CLOCK).
//! The `fault_injector` node runs them on its dynamic channels
//! ([`crate::DynChannel`], `~/set_fault_stack`); `FaultSpec.msg` (the typed
//! channels' `~/set_fault`) has no field path.
//!
//! * [`FieldFaultSpec`] (serde): a `path` ([`breakbench_msgs::FieldPath`]
//!   syntax: `angular_velocity.z`, `header.stamp`, `ranges[*]`,
//!   `ranges[0:90]`, `orientation`), a [`FieldMode`] and the parameters that
//!   mode reads (units in the names).
//! * [`FieldFault`] ([`modes`]): a spec checked against a message type
//!   ([`FieldFault::build`]) and applied to dynamic [`breakbench_msgs::Value`]s
//!   ([`FieldFault::apply`]).
//! * [`FaultStack`] ([`stack`]): an ordered list of stages (field faults and
//!   delivery faults: Bernoulli drop, delay, duplicate, throttle), each with
//!   its own activation window, applied in the declared order like netem's
//!   stacked qdiscs, with per-stage counters and per-message provenance.
//! * [`SelectSpec`] / [`ElementSelector`] ([`select`]): a drop or delay stage
//!   limited to the matching elements of a sequence of sub-messages (the
//!   `odom → base_link` transform of a `/tf` message).
//!
//! Randomness comes only from the [`crate::FaultRng`] the host passes;
//! iteration is in message order (leaves in wire order, stages in declared
//! order), so a run is a function of its seed.

pub mod modes;
pub mod select;
pub mod stack;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use modes::FieldFault;
pub use select::{ElementSelector, SelectSpec};
pub use stack::{
    CdrPayload, Delivered, FaultStack, Payload, StageFault, StageSpec, StageStats, StageWindow,
};

/// What a field fault does to the selected leaves. Which leaf types each
/// mode accepts: [`FieldFault::build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldMode {
    /// Replace with `value`.
    Set,
    /// Add `bias`.
    Bias,
    /// Add `bias_rate_per_s` × (time since set).
    BiasRamp,
    /// Multiply by `scale_factor` (−1: sign flip).
    Scale,
    /// Freeze at the first faulted message's value.
    Stuck,
    /// Clamp to [`min`, `max`].
    Saturation,
    /// Replace with seeded uniform draws in [`garbage_min`, `garbage_max`].
    Garbage,
    /// Cut a sequence to at most `length` elements.
    Truncate,
    /// Grow a sequence to at least `length` elements with `fill`.
    Extend,
    /// Give a sequence exactly `lengths[0]`, then `lengths[1]` elements,
    /// alternating per faulted message (cut, or grown with `fill`).
    AlternateLength,
}

impl FieldMode {
    /// The YAML spelling.
    pub fn name(self) -> &'static str {
        match self {
            FieldMode::Set => "set",
            FieldMode::Bias => "bias",
            FieldMode::BiasRamp => "bias_ramp",
            FieldMode::Scale => "scale",
            FieldMode::Stuck => "stuck",
            FieldMode::Saturation => "saturation",
            FieldMode::Garbage => "garbage",
            FieldMode::Truncate => "truncate",
            FieldMode::Extend => "extend",
            FieldMode::AlternateLength => "alternate_length",
        }
    }

    /// The parameters of [`FieldFaultSpec`] this mode reads (all required
    /// but `fill`, default the element's zero, and `allow_non_finite`,
    /// default false).
    pub fn parameters(self) -> &'static [&'static str] {
        match self {
            FieldMode::Set => &["value"],
            FieldMode::Bias => &["bias"],
            FieldMode::BiasRamp => &["bias_rate_per_s"],
            FieldMode::Scale => &["scale_factor"],
            FieldMode::Stuck => &[],
            FieldMode::Saturation => &["min", "max"],
            FieldMode::Garbage => &["garbage_min", "garbage_max", "allow_non_finite"],
            FieldMode::Truncate => &["length"],
            FieldMode::Extend => &["length", "fill"],
            FieldMode::AlternateLength => &["lengths", "fill"],
        }
    }
}

/// A value for `set` (and `fill`), as written in YAML/JSON: a number, a
/// bool, a string (`"nan"`, `"inf"`, `"+inf"`, `"-inf"`, any case, for a
/// float field; the text itself for a string field), a list (a whole array,
/// or a sub-message's fields in order) or a map (some fields of a
/// sub-message, by name). Integers are kept exact (`Int`/`UInt`), so a
/// uint64 is not rounded through f64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SetValue {
    /// `true` / `false`
    Bool(bool),
    /// An integer that fits i64.
    Int(i64),
    /// An integer above i64::MAX.
    UInt(u64),
    /// A number with a fraction or exponent (YAML `.nan`, `.inf` too).
    Float(f64),
    /// A string.
    Text(String),
    /// A list.
    List(Vec<SetValue>),
    /// A map (key order does not matter: applied in the type's field order).
    Map(BTreeMap<String, SetValue>),
}

/// A fault on a field path, as written in a YAML/JSON fault file. Only the
/// parameters the mode reads ([`FieldMode::parameters`]) may be given;
/// [`FieldFault::build`] refuses a missing or superfluous one.
///
/// ```yaml
/// path: ranges[0:90]       # a lidar sector
/// mode: set
/// value: inf               # or "nan", "-inf", 0, -1, 1e256 (refused on f32)
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldFaultSpec {
    /// The field path ([`breakbench_msgs::FieldPath`] syntax).
    pub path: String,
    /// The mode.
    pub mode: FieldMode,
    /// `set`: the value (see [`SetValue`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<SetValue>,
    /// `bias`: the offset, in the field's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bias: Option<f64>,
    /// `bias_ramp`: the offset's growth, field unit per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bias_rate_per_s: Option<f64>,
    /// `scale`: the factor (−1 flips the sign).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_factor: Option<f64>,
    /// `saturation`: lower bound, field unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// `saturation`: upper bound, field unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// `garbage`: lower bound of the uniform draw, field unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub garbage_min: Option<f64>,
    /// `garbage`: upper bound of the uniform draw, field unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub garbage_max: Option<f64>,
    /// `garbage`: a draw is NaN/±inf with probability
    /// [`crate::faults::garbage::GARBAGE_NON_FINITE_P`] (float fields only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_non_finite: Option<bool>,
    /// `truncate`: at most this many elements; `extend`: at least this many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// `alternate_length`: the two lengths, alternating per faulted message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lengths: Option<[usize; 2]>,
    /// `extend`, `alternate_length`: the value of added elements (default:
    /// the element type's zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<SetValue>,
}

impl FieldFaultSpec {
    /// A spec of `mode` on `path` with no parameter set (fill them in with
    /// struct update syntax).
    pub fn new(path: &str, mode: FieldMode) -> Self {
        Self {
            path: path.to_string(),
            mode,
            value: None,
            bias: None,
            bias_rate_per_s: None,
            scale_factor: None,
            min: None,
            max: None,
            garbage_min: None,
            garbage_max: None,
            allow_non_finite: None,
            length: None,
            lengths: None,
            fill: None,
        }
    }

    /// The names of the parameters that are set.
    pub fn given_parameters(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut add = |name, set: bool| {
            if set {
                out.push(name)
            }
        };
        add("value", self.value.is_some());
        add("bias", self.bias.is_some());
        add("bias_rate_per_s", self.bias_rate_per_s.is_some());
        add("scale_factor", self.scale_factor.is_some());
        add("min", self.min.is_some());
        add("max", self.max.is_some());
        add("garbage_min", self.garbage_min.is_some());
        add("garbage_max", self.garbage_max.is_some());
        add("allow_non_finite", self.allow_non_finite.is_some());
        add("length", self.length.is_some());
        add("lengths", self.lengths.is_some());
        add("fill", self.fill.is_some());
        out
    }
}
