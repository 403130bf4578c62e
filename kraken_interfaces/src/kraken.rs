//! Rust types for this package's `msg/` and `srv/` files, field for field and
//! in file order (the `.msg` files are the source of truth; see
//! `tests/msg_files.rs`).

use crate::ros::Time;
use serde::{Deserialize, Serialize};

/// `kraken_interfaces/msg/FaultSpec`: one fault on one channel.
///
/// Parameters are in the channel's native units (metres, seconds, radians,
/// m/s, rad/s). Unused parameters are 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultSpec {
    pub channel: String,
    pub mode: u8,
    pub duration_s: f64,
    pub period_s: f64,
    pub duty_cycle: f64,
    pub random_phase: bool,
    pub noise_stddev: f64,
    pub covariance_scale: f64,
    pub bias_rate: f64,
    pub bias: f64,
    pub step_at_s: f64,
    pub slip_ratio: f64,
    pub scale_factor: f64,
    pub freeze_stamp: bool,
    pub garbage_min: f64,
    pub garbage_max: f64,
    pub allow_non_finite: bool,
    pub saturation_limit: f64,
    pub loss_model: u8,
    pub loss_probability: f64,
    pub recovery_probability: f64,
    pub burst_length: u32,
    pub delay_s: f64,
    pub jitter_s: f64,
    pub probability: f64,
    pub timestamp_offset_s: f64,
}

impl FaultSpec {
    pub const HEALTHY: u8 = 0;
    pub const DROPOUT: u8 = 1;
    pub const DEGRADE: u8 = 2;
    pub const BIAS_RAMP: u8 = 3;
    pub const SLIP: u8 = 4;
    pub const STUCK: u8 = 5;
    pub const BIAS: u8 = 6;
    pub const SCALE: u8 = 7;
    pub const GARBAGE: u8 = 8;
    pub const SATURATION: u8 = 9;
    pub const PACKET_LOSS: u8 = 10;
    pub const DELAY: u8 = 11;
    pub const JITTER: u8 = 12;
    pub const DUPLICATE: u8 = 13;
    pub const REORDER: u8 = 14;
    pub const TIMESTAMP_JUMP: u8 = 15;
    pub const CORRUPT_STATUS: u8 = 16;

    /// Longest `channel` any request may name, bytes (`FaultSpec.msg`):
    /// channels.yaml refuses longer channel names, and the injector refuses a
    /// request whose channel is longer than its longest declared name without
    /// echoing it.
    pub const MAX_CHANNEL_NAME_LEN: usize = 64;

    pub const LOSS_BERNOULLI: u8 = 0;
    pub const LOSS_BURST: u8 = 1;
    pub const LOSS_GILBERT_ELLIOTT: u8 = 2;

    /// The parameter that sets this mode's severity, as `(field name, value)`
    /// in the field's own unit (`FaultSpec.msg`): DEGRADE `noise_stddev`,
    /// BIAS_RAMP `bias_rate`, SLIP `slip_ratio`, BIAS `bias`, SCALE
    /// `scale_factor`, SATURATION `saturation_limit`, PACKET_LOSS
    /// `burst_length` (burst model) or `loss_probability`, DELAY `delay_s`,
    /// JITTER `jitter_s`, DUPLICATE/REORDER `probability`, TIMESTAMP_JUMP
    /// `timestamp_offset_s`, CORRUPT_STATUS `covariance_scale`. `None` for
    /// modes without one (HEALTHY, DROPOUT, STUCK, GARBAGE) and unknown modes.
    pub fn main_parameter(&self) -> Option<(&'static str, f64)> {
        Some(match self.mode {
            Self::DEGRADE => ("noise_stddev", self.noise_stddev),
            Self::BIAS_RAMP => ("bias_rate", self.bias_rate),
            Self::SLIP => ("slip_ratio", self.slip_ratio),
            Self::BIAS => ("bias", self.bias),
            Self::SCALE => ("scale_factor", self.scale_factor),
            Self::SATURATION => ("saturation_limit", self.saturation_limit),
            Self::PACKET_LOSS if self.loss_model == Self::LOSS_BURST => {
                ("burst_length", f64::from(self.burst_length))
            }
            Self::PACKET_LOSS => ("loss_probability", self.loss_probability),
            Self::DELAY => ("delay_s", self.delay_s),
            Self::JITTER => ("jitter_s", self.jitter_s),
            Self::DUPLICATE | Self::REORDER => ("probability", self.probability),
            Self::TIMESTAMP_JUMP => ("timestamp_offset_s", self.timestamp_offset_s),
            Self::CORRUPT_STATUS => ("covariance_scale", self.covariance_scale),
            _ => return None,
        })
    }

    /// Timing parameters every mode reads (transient and intermittent faults).
    pub const TIMING_PARAMETERS: [&'static str; 4] =
        ["duration_s", "period_s", "duty_cycle", "random_phase"];

    /// The mode-specific parameters `mode` reads, as documented per field in
    /// `FaultSpec.msg` (a field's comment names the modes that read it; the
    /// test `tests/main_parameter.rs` checks this table against the file).
    /// Every mode also reads [`Self::TIMING_PARAMETERS`]. Empty for modes
    /// without parameters and for unknown modes.
    pub fn mode_parameters(mode: u8) -> &'static [&'static str] {
        match mode {
            Self::DEGRADE => &["noise_stddev", "covariance_scale"],
            Self::BIAS_RAMP => &["bias_rate"],
            Self::SLIP => &["slip_ratio"],
            Self::STUCK => &["freeze_stamp"],
            Self::BIAS => &["bias", "step_at_s"],
            Self::SCALE => &["scale_factor"],
            Self::GARBAGE => &["garbage_min", "garbage_max", "allow_non_finite"],
            Self::SATURATION => &["saturation_limit"],
            Self::PACKET_LOSS => &[
                "loss_model",
                "loss_probability",
                "recovery_probability",
                "burst_length",
            ],
            Self::DELAY => &["delay_s"],
            Self::JITTER => &["jitter_s"],
            Self::DUPLICATE | Self::REORDER => &["probability"],
            Self::TIMESTAMP_JUMP => &["timestamp_offset_s"],
            Self::CORRUPT_STATUS => &["covariance_scale"],
            _ => &[],
        }
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

/// Mode names, index = mode constant. Used by scenario files and status text.
pub const MODE_NAMES: [&str; 17] = [
    "healthy",
    "dropout",
    "degrade",
    "bias_ramp",
    "slip",
    "stuck",
    "bias",
    "scale",
    "garbage",
    "saturation",
    "packet_loss",
    "delay",
    "jitter",
    "duplicate",
    "reorder",
    "timestamp_jump",
    "corrupt_status",
];

/// The name of a mode constant (`"dropout"` for 1), or `None` if unknown.
pub fn mode_name(mode: u8) -> Option<&'static str> {
    MODE_NAMES.get(mode as usize).copied()
}

/// The mode constant for a name (`1` for `"dropout"`), or `None` if unknown.
pub fn mode_from_name(name: &str) -> Option<u8> {
    MODE_NAMES.iter().position(|n| *n == name).map(|i| i as u8)
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
