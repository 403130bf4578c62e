//! Parameter checks shared by the fault modes, the saturating arithmetic
//! that keeps a finite input finite.
//!
//! Every mode validates its own parameters in its constructor
//! (`from_spec`, in the mode's file under [`crate::faults`]) against what the stage
//! does with them; this module holds the bounds and the helpers they share.

use std::time::Duration;

use kraken_interfaces::mode_name;

use crate::{FaultError, MsgKind};

/// Largest `delay_s` and `jitter_s` a request may ask for, seconds. A longer
/// hold is a dropout (use `dropout`); the channel's hold queue is capped in
/// messages and bytes as well (channels.yaml `hold_limits`).
pub const MAX_HOLD_S: f64 = 60.0;

/// Largest `duration_s`, `period_s` and `step_at_s` a request may ask for,
/// seconds (1e6 s ≈ 11.6 days, far beyond any test run). Bounding them keeps
/// every `set time + parameter` representable as a [`Duration`].
pub const MAX_TIME_S: f64 = 1e6;

/// Largest magnitude of an additive or multiplicative mode parameter
/// (`noise_stddev`, `covariance_scale`, `bias_rate`, `bias`, `slip_ratio`,
/// `scale_factor`, `saturation_limit`), in the field's native unit. 1e9 m,
/// m/s or rad/s is far beyond any sensor; the bound keeps `noise_stddev` × a
/// normal draw and `bias_rate` × [`MAX_TIME_S`] finite.
pub const MAX_MAGNITUDE: f64 = 1e9;

/// Largest |`timestamp_offset_s`|, seconds: a shifted stamp stays inside
/// `builtin_interfaces/Time` (i32 seconds, about ±2.1e9 s).
pub const MAX_TIMESTAMP_OFFSET_S: f64 = 1e9;

/// The channel a fault is built for: its name (for error messages) and its
/// message type.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub channel: &'a str,
    pub kind: MsgKind,
}

impl Target<'_> {
    /// [`FaultError::Unsupported`] for `mode` on this channel.
    pub fn unsupported(&self, mode: u8, reason: &str) -> FaultError {
        FaultError::Unsupported {
            channel: self.channel.to_string(),
            kind: self.kind.ros_type(),
            mode: mode_str(mode),
            reason: reason.to_string(),
        }
    }
}

pub(crate) fn mode_str(mode: u8) -> &'static str {
    mode_name(mode).unwrap_or("unknown")
}

/// [`FaultError::InvalidParameter`] naming `field` and why.
pub fn invalid(mode: u8, field: &'static str, value: f64, reason: &str) -> FaultError {
    FaultError::InvalidParameter {
        mode: mode_str(mode),
        field,
        value,
        reason: reason.into(),
    }
}

/// `value` if finite and >= 0.
pub fn non_negative(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(invalid(mode, field, value, "must be finite and >= 0"))
    }
}

/// `value` if finite and |value| <= [`MAX_MAGNITUDE`].
pub fn magnitude(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() && value.abs() <= MAX_MAGNITUDE {
        Ok(value)
    } else {
        Err(invalid(
            mode,
            field,
            value,
            &format!("must be finite and in [-{MAX_MAGNITUDE:e}, {MAX_MAGNITUDE:e}]"),
        ))
    }
}

/// `value` if in [0, [`MAX_MAGNITUDE`]].
pub fn bounded_non_negative(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() && (0.0..=MAX_MAGNITUDE).contains(&value) {
        Ok(value)
    } else {
        Err(invalid(
            mode,
            field,
            value,
            &format!("must be finite and in [0, {MAX_MAGNITUDE:e}]"),
        ))
    }
}

/// `value` if in (0, [`MAX_MAGNITUDE`]].
pub fn bounded_positive(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() && value > 0.0 && value <= MAX_MAGNITUDE {
        Ok(value)
    } else {
        Err(invalid(
            mode,
            field,
            value,
            &format!("must be finite and in (0, {MAX_MAGNITUDE:e}]"),
        ))
    }
}

/// `value` if finite.
pub fn finite(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(invalid(mode, field, value, "must be finite"))
    }
}

/// `value` if in [0, 1] (NaN is refused).
pub fn probability(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(invalid(
            mode,
            field,
            value,
            "must be a probability in [0, 1]",
        ))
    }
}

/// `value` in seconds as a [`Duration`], checked to be finite and in
/// [0, `max_s`].
///
/// # Errors
/// [`FaultError::InvalidParameter`] naming `field` and the maximum.
pub fn bounded_secs(
    mode: u8,
    field: &'static str,
    value: f64,
    max_s: f64,
) -> Result<Duration, FaultError> {
    if value.is_finite() && (0.0..=max_s).contains(&value) {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(invalid(
            mode,
            field,
            value,
            &format!("must be finite and in [0, {max_s}] s"),
        ))
    }
}

/// The result `new` of arithmetic on the input value `old`, kept finite when
/// `old` was: an overflow to ±inf saturates at ±`f64::MAX`, a NaN (never
/// produced from finite operands by the modes' sums and products, but
/// possible in principle) keeps `old`. A non-finite `old` passes through as
/// the stage computed it: the fault does not launder a NaN the sensor sent.
pub fn sat(old: f64, new: f64) -> f64 {
    if new.is_finite() || !old.is_finite() {
        new
    } else if new.is_nan() {
        old
    } else {
        new.clamp(-f64::MAX, f64::MAX)
    }
}

/// As [`sat`] for an f32 field (LaserScan ranges) computed in f64: the
/// result rounded to f32, saturating at ±`f32::MAX` when `old` was finite.
pub fn sat32(old: f32, new: f64) -> f32 {
    let r = new as f32;
    if r.is_finite() || !old.is_finite() {
        r
    } else if r.is_nan() {
        old
    } else {
        r.clamp(-f32::MAX, f32::MAX)
    }
}
