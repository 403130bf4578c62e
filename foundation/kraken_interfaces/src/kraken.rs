//! Rust types for this package's `msg/` and `srv/` files, field for field and
//! in file order (the `.msg` files are the source of truth; see
//! `tests/contract/msg_files.rs`).

use crate::ros::Time;
use serde::{Deserialize, Serialize};

/// Declares [`FaultSpec`] from one list of fields, and from the same list
/// [`FaultSpec::FIELDS`], [`FaultSpec::set_param`] and [`FaultSpec::param`],
/// so that no other code keeps a list of FaultSpec's fields.
macro_rules! fault_spec {
    ($( $(#[$doc:meta])* $field:ident : $ty:ty ),* $(,)?) => {
        /// `kraken_interfaces/msg/FaultSpec`: one fault on one channel.
        ///
        /// Parameters are in the channel's native units (metres, seconds,
        /// radians, m/s, rad/s). Unused parameters are 0.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        pub struct FaultSpec {
            $( $(#[$doc])* pub $field: $ty, )*
        }

        impl FaultSpec {
            /// Every field as `(name, ROS type)`, in `FaultSpec.msg` order.
            pub const FIELDS: &'static [(&'static str, &'static str)] =
                &[$( (stringify!($field), <$ty as Param>::ROS_TYPE) ),*];

            /// Sets the field `name` to `value`. An integer is accepted for a
            /// float64 field (YAML `5` for `5.0`); every other mismatch is an
            /// error (a float for an integer field, a number for a bool).
            ///
            /// # Errors
            /// [`ParamError::UnknownField`] if FaultSpec has no field `name`,
            /// [`ParamError::WrongType`] if `value` does not fit its type
            /// (an integer out of the field's range included).
            pub fn set_param(&mut self, name: &str, value: ParamValue) -> Result<(), ParamError> {
                match name {
                    $( stringify!($field) => {
                        self.$field = Param::from_value(&value).ok_or(ParamError::WrongType {
                            field: stringify!($field),
                            expected: <$ty as Param>::ROS_TYPE,
                            got: value,
                        })?;
                    } )*
                    _ => return Err(ParamError::UnknownField(name.to_string())),
                }
                Ok(())
            }

            /// The value of the field `name`, or `None` if FaultSpec has none.
            pub fn param(&self, name: &str) -> Option<ParamValue> {
                match name {
                    $( stringify!($field) => Some(Param::to_value(&self.$field)), )*
                    _ => None,
                }
            }
        }
    };
}

fault_spec! {
    channel: String,
    mode: u8,
    duration_s: f64,
    period_s: f64,
    duty_cycle: f64,
    random_phase: bool,
    message_skip: u32,
    message_count: u32,
    message_every: u32,
    noise_stddev: f64,
    covariance_scale: f64,
    bias_rate: f64,
    bias: f64,
    step_at_s: f64,
    slip_ratio: f64,
    scale_factor: f64,
    freeze_stamp: bool,
    garbage_min: f64,
    garbage_max: f64,
    allow_non_finite: bool,
    saturation_limit: f64,
    loss_model: u8,
    loss_probability: f64,
    recovery_probability: f64,
    burst_length: u32,
    delay_s: f64,
    jitter_s: f64,
    probability: f64,
    timestamp_offset_s: f64,
}

/// A value for a FaultSpec field given by name ([`FaultSpec::set_param`]):
/// what a scenario file or a campaign axis can hold. Deserializes from any
/// YAML/JSON scalar (a string too, so that a wrong type is refused by
/// `set_param` naming the field rather than by the parser).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl ParamValue {
    /// The ROS type the value is written as (`bool`, `int64`, `float64`,
    /// `string`).
    pub fn ros_type(&self) -> &'static str {
        match self {
            ParamValue::Bool(_) => "bool",
            ParamValue::Int(_) => "int64",
            ParamValue::Float(_) => "float64",
            ParamValue::Str(_) => "string",
        }
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ParamValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, a boolean or a string")
            }
            fn visit_bool<E>(self, v: bool) -> Result<ParamValue, E> {
                Ok(ParamValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ParamValue, E> {
                Ok(ParamValue::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ParamValue, E> {
                i64::try_from(v)
                    .map(ParamValue::Int)
                    .map_err(|_| E::custom(format!("integer {v} is out of range")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ParamValue, E> {
                Ok(ParamValue::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<ParamValue, E> {
                Ok(ParamValue::Str(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Why [`FaultSpec::set_param`] refused a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// FaultSpec has no field of this name.
    #[error("FaultSpec has no parameter '{0}'")]
    UnknownField(String),
    /// The value does not fit the field's type.
    #[error("FaultSpec parameter '{field}' is not a {} (it is a {expected}), got {got}", got.ros_type())]
    WrongType {
        field: &'static str,
        expected: &'static str,
        got: ParamValue,
    },
}

/// The field types of FaultSpec, converted from and to [`ParamValue`].
trait Param: Sized {
    const ROS_TYPE: &'static str;
    fn from_value(v: &ParamValue) -> Option<Self>;
    fn to_value(&self) -> ParamValue;
}

impl Param for f64 {
    const ROS_TYPE: &'static str = "float64";
    fn from_value(v: &ParamValue) -> Option<Self> {
        match *v {
            ParamValue::Float(x) => Some(x),
            // Exact for |i| <= 2^53, the nearest double beyond.
            ParamValue::Int(i) => Some(i as f64),
            _ => None,
        }
    }
    fn to_value(&self) -> ParamValue {
        ParamValue::Float(*self)
    }
}

impl Param for bool {
    const ROS_TYPE: &'static str = "bool";
    fn from_value(v: &ParamValue) -> Option<Self> {
        match *v {
            ParamValue::Bool(b) => Some(b),
            _ => None,
        }
    }
    fn to_value(&self) -> ParamValue {
        ParamValue::Bool(*self)
    }
}

impl Param for String {
    const ROS_TYPE: &'static str = "string";
    fn from_value(v: &ParamValue) -> Option<Self> {
        match v {
            ParamValue::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
    fn to_value(&self) -> ParamValue {
        ParamValue::Str(self.clone())
    }
}

macro_rules! int_param {
    ($($t:ty => $ros:literal),*) => {$(
        impl Param for $t {
            const ROS_TYPE: &'static str = $ros;
            fn from_value(v: &ParamValue) -> Option<Self> {
                match *v {
                    ParamValue::Int(i) => <$t>::try_from(i).ok(),
                    _ => None,
                }
            }
            fn to_value(&self) -> ParamValue {
                ParamValue::Int(i64::from(*self))
            }
        }
    )*};
}
int_param!(u8 => "uint8", u32 => "uint32");

/// How a mode's severity (the parameter a study sweeps) is found in a spec.
#[derive(Debug, Clone, Copy)]
pub enum Severity {
    /// The mode has no severity parameter (healthy, dropout, stuck, garbage).
    None,
    /// Always this field.
    Field(&'static str),
    /// A field chosen by the spec's other parameters (packet_loss: by
    /// `loss_model`).
    Select(fn(&FaultSpec) -> &'static str),
}

/// One row of the table of fault modes ([`MODES`]).
#[derive(Debug, Clone, Copy)]
pub struct ModeInfo {
    /// The `FaultSpec.msg` constant's value.
    pub mode: u8,
    /// The constant's name (`BIAS_RAMP`).
    pub constant: &'static str,
    /// The name scenario files and status text use (`bias_ramp`).
    pub name: &'static str,
    /// The mode-specific FaultSpec fields the mode reads (the timing
    /// parameters, read by every mode, are [`FaultSpec::TIMING_PARAMETERS`]).
    pub parameters: &'static [&'static str],
    /// The parameter that sets the mode's severity.
    pub severity: Severity,
}

/// Declares the mode constants of [`FaultSpec`] and the table [`MODES`] from
/// one list (held against `FaultSpec.msg` by `tests/contract/msg_files.rs` and
/// `tests/contract/main_parameter.rs`).
macro_rules! fault_modes {
    ($( $(#[$doc:meta])* $konst:ident = $value:literal, $name:literal, [$($param:literal),*], $sev:expr; )*) => {
        impl FaultSpec {
            $( $(#[$doc])* pub const $konst: u8 = $value; )*
        }

        /// The table of fault modes, index = mode constant: every other list
        /// of modes ([`MODE_NAMES`], [`mode_name`], [`mode_from_name`],
        /// [`FaultSpec::mode_parameters`], [`FaultSpec::main_parameter`], the
        /// scenario parsers, the kraken_faults registry and README table
        /// checks) is derived from it.
        pub const MODES: &[ModeInfo] = &[$(
            ModeInfo {
                mode: $value,
                constant: stringify!($konst),
                name: $name,
                parameters: &[$($param),*],
                severity: $sev,
            },
        )*];
    };
}

fault_modes! {
    HEALTHY = 0, "healthy", [], Severity::None;
    DROPOUT = 1, "dropout", [], Severity::None;
    DEGRADE = 2, "degrade", ["noise_stddev", "covariance_scale"], Severity::Field("noise_stddev");
    BIAS_RAMP = 3, "bias_ramp", ["bias_rate"], Severity::Field("bias_rate");
    SLIP = 4, "slip", ["slip_ratio"], Severity::Field("slip_ratio");
    STUCK = 5, "stuck", ["freeze_stamp"], Severity::None;
    BIAS = 6, "bias", ["bias", "step_at_s"], Severity::Field("bias");
    SCALE = 7, "scale", ["scale_factor"], Severity::Field("scale_factor");
    GARBAGE = 8, "garbage", ["garbage_min", "garbage_max", "allow_non_finite"], Severity::None;
    SATURATION = 9, "saturation", ["saturation_limit"], Severity::Field("saturation_limit");
    PACKET_LOSS = 10, "packet_loss",
        ["loss_model", "loss_probability", "recovery_probability", "burst_length"],
        Severity::Select(|s| if s.loss_model == FaultSpec::LOSS_BURST { "burst_length" } else { "loss_probability" });
    DELAY = 11, "delay", ["delay_s"], Severity::Field("delay_s");
    JITTER = 12, "jitter", ["jitter_s"], Severity::Field("jitter_s");
    DUPLICATE = 13, "duplicate", ["probability"], Severity::Field("probability");
    REORDER = 14, "reorder", ["probability"], Severity::Field("probability");
    TIMESTAMP_JUMP = 15, "timestamp_jump", ["timestamp_offset_s"], Severity::Field("timestamp_offset_s");
    CORRUPT_STATUS = 16, "corrupt_status", ["covariance_scale"], Severity::Field("covariance_scale");
}

// MODES is indexed by mode constant.
const _: () = {
    let mut i = 0;
    while i < MODES.len() {
        assert!(
            MODES[i].mode as usize == i,
            "MODES must be in constant order from 0"
        );
        i += 1;
    }
};

impl FaultSpec {
    /// Longest `channel` any request may name, bytes (`FaultSpec.msg`):
    /// channels.yaml refuses longer channel names, and the injector refuses a
    /// request whose channel is longer than its longest declared name without
    /// echoing it.
    pub const MAX_CHANNEL_NAME_LEN: usize = 64;

    pub const LOSS_BERNOULLI: u8 = 0;
    pub const LOSS_BURST: u8 = 1;
    pub const LOSS_GILBERT_ELLIOTT: u8 = 2;

    /// The parameter that sets this mode's severity, as `(field name, value)`
    /// in the field's own unit, from the mode's [`ModeInfo::severity`] in
    /// [`MODES`] (e.g. DEGRADE `noise_stddev`, PACKET_LOSS `burst_length`
    /// under the burst model, else `loss_probability`). `None` for modes
    /// without one (HEALTHY, DROPOUT, STUCK, GARBAGE) and unknown modes.
    pub fn main_parameter(&self) -> Option<(&'static str, f64)> {
        let name = match MODES.get(self.mode as usize)?.severity {
            Severity::None => return None,
            Severity::Field(f) => f,
            Severity::Select(f) => f(self),
        };
        match self.param(name)? {
            ParamValue::Float(x) => Some((name, x)),
            ParamValue::Int(i) => Some((name, i as f64)),
            _ => None,
        }
    }

    /// Timing parameters every mode reads (transient and intermittent faults).
    pub const TIMING_PARAMETERS: [&'static str; 7] = [
        "duration_s",
        "period_s",
        "duty_cycle",
        "random_phase",
        "message_skip",
        "message_count",
        "message_every",
    ];

    /// The mode-specific parameters `mode` reads ([`ModeInfo::parameters`]
    /// in [`MODES`]; the test `tests/contract/main_parameter.rs` checks the table
    /// against the field comments of `FaultSpec.msg`). Every mode also reads
    /// [`Self::TIMING_PARAMETERS`]. Empty for modes without parameters and
    /// for unknown modes.
    pub fn mode_parameters(mode: u8) -> &'static [&'static str] {
        MODES.get(mode as usize).map_or(&[], |m| m.parameters)
    }

    /// Whether `mode` reads the field `parameter` (a mode-specific one or a
    /// timing one).
    pub fn mode_reads(mode: u8, parameter: &str) -> bool {
        Self::TIMING_PARAMETERS.contains(&parameter)
            || Self::mode_parameters(mode).contains(&parameter)
    }

    /// A spec with the given channel and mode and every parameter 0.
    pub fn new(channel: impl Into<String>, mode: u8) -> Self {
        Self {
            channel: channel.into(),
            mode,
            ..Self::default()
        }
    }
}

/// Mode names, index = mode constant ([`MODES`]' names). Used by scenario
/// files and status text.
pub const MODE_NAMES: [&str; MODES.len()] = {
    let mut names = [""; MODES.len()];
    let mut i = 0;
    while i < MODES.len() {
        names[i] = MODES[i].name;
        i += 1;
    }
    names
};

/// The name of a mode constant (`"dropout"` for 1), or `None` if unknown.
pub fn mode_name(mode: u8) -> Option<&'static str> {
    MODES.get(mode as usize).map(|m| m.name)
}

/// The mode constant for a name (`1` for `"dropout"`), or `None` if unknown.
pub fn mode_from_name(name: &str) -> Option<u8> {
    MODES.iter().find(|m| m.name == name).map(|m| m.mode)
}

/// `kraken_interfaces/srv/SetFault` request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetFaultRequest {
    pub fault: FaultSpec,
}

/// `kraken_interfaces/srv/SetFault` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetFaultResponse {
    pub success: bool,
    pub message: String,
}

/// `kraken_interfaces/srv/SetFaultStack` request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetFaultStackRequest {
    /// A dynamic channel of channels.yaml.
    pub channel: String,
    /// A YAML list of stage specs (`kraken_faults::field::StageSpec`).
    pub stack_yaml: String,
    /// false: replace the channel's stack; true: add after its stages.
    pub append: bool,
}

/// `kraken_interfaces/srv/SetFaultStack` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetFaultStackResponse {
    pub success: bool,
    pub message: String,
    /// The ids of the channel's stages after the call, in declared order.
    pub ids: Vec<u32>,
}

/// `kraken_interfaces/srv/ClearFaultStage` request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClearFaultStageRequest {
    pub channel: String,
    pub id: u32,
}

/// `kraken_interfaces/srv/ClearFaultStage` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClearFaultStageResponse {
    pub success: bool,
    pub message: String,
}

/// `kraken_interfaces/srv/ResetRun` request: the next run of a kept-running
/// graph (REQ-GRAPH-RESET).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetRunRequest {
    /// The run's seed (the u64 of the campaign, not its int64 bits).
    pub seed: u64,
    /// The run id (the oracle's manifest name).
    pub run_id: String,
    /// The run's output directory, absolute (the oracle's manifest_dir).
    pub out_dir: String,
}

/// `kraken_interfaces/srv/ResetRun` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetRunResponse {
    pub success: bool,
    pub message: String,
}

/// `kraken_interfaces/msg/ChannelFaultStatus`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChannelFaultStatus {
    pub channel: String,
    pub fault: FaultSpec,
    pub active: bool,
    pub requested: Time,
    pub first_applied: Time,
    pub cleared: Time,
    pub messages_in: u64,
    pub messages_out: u64,
    pub messages_faulted: u64,
    pub messages_dropped_overflow: u64,
    pub messages_held: u32,
    pub bytes_held: u64,
    pub stage_panics: u32,
    pub stage_error: String,
}

/// `kraken_interfaces/msg/FaultStatus`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultStatus {
    pub stamp: Time,
    pub enabled: bool,
    pub channels: Vec<ChannelFaultStatus>,
}

/// `kraken_interfaces/msg/RunEvent`: one event of a run on its recording's
/// events topic (REQ-REC-EVENTS); `kind` one of the constants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEvent {
    /// Sim time of the event.
    pub stamp: Time,
    pub kind: u8,
    pub channel: String,
    pub name: String,
    pub outcome: String,
    pub detail: String,
}

impl RunEvent {
    pub const TRIGGER: u8 = 0;
    pub const REQUESTED: u8 = 1;
    pub const APPLIED: u8 = 2;
    pub const CLEARED: u8 = 3;
    pub const EXPECTATION: u8 = 4;
    pub const VERDICT: u8 = 5;
}

/// The `.msg` files of this package (the source of truth, compiled in):
/// `(type name, file text)`, in name order. The message registry of a run
/// without a ROS 2 install adds them to its built-in types
/// (`kraken_faults::dynamic::builtin_registry`), so a recording carries
/// their `ros2msg` schemas (REQ-REC-EVENTS).
pub const MSG_FILES: [(&str, &str); 4] = [
    (
        "ChannelFaultStatus",
        include_str!("../msg/ChannelFaultStatus.msg"),
    ),
    ("FaultSpec", include_str!("../msg/FaultSpec.msg")),
    ("FaultStatus", include_str!("../msg/FaultStatus.msg")),
    ("RunEvent", include_str!("../msg/RunEvent.msg")),
];
