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

/// Largest |`timestamp_offset_s`|, seconds: 2^32 s, the span of
/// `builtin_interfaces/Time` (sec is int32: [-2^31, 2^31 - 1] s), so any
/// stamp can be moved to any other (hdl_localization #48: -1.66e9 s in one
/// stage); the shifted stamp saturates at the type's smallest and largest
/// value ([`kraken_interfaces::ros::Time::from_nanos`]).
pub const MAX_TIMESTAMP_OFFSET_S: f64 = 4_294_967_296.0;

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

/// The checks every [`FaultSpec`](kraken_interfaces::FaultSpec) passes
/// wherever it is set, whatever the channel's type (typed channels through
/// [`crate::build_stage`], raw channels through
/// [`crate::spec_stages::stages_for_spec`], the campaign's axes and the
/// scenario steps through the same two): one check, one set of bounds.
///
/// * a field the mode does not read ([`FaultSpec::mode_reads`]) is 0 /
///   false, as `FaultSpec.msg` says (so NaN, Inf or a stray value in an
///   unread field is refused, not ignored);
/// * a field the mode reads is in its bound whatever the channel's type
///   (`covariance_scale` of a scan degrade, which the scan does not use,
///   and `saturation_limit` of a raw channel included): magnitudes
///   [`MAX_MAGNITUDE`], holds [`MAX_HOLD_S`], times [`MAX_TIME_S`],
///   probabilities [0, 1], `timestamp_offset_s` [`MAX_TIMESTAMP_OFFSET_S`],
///   garbage bounds finite, `loss_model` one of the three.
///
/// The mode's own constructor adds what depends on the mode and the type
/// (`covariance_scale > 0` where read, `garbage_min < garbage_max`, ...);
/// the activation fields are [`crate::Activation::from_spec`]'s, run here
/// too (so a `duty_cycle` without `period_s` is refused wherever a spec is
/// checked).
///
/// # Errors
/// [`FaultError::InvalidParameter`] naming the first offending field (in
/// `FaultSpec.msg` order) and its bound.
pub fn check_spec(spec: &kraken_interfaces::FaultSpec) -> Result<(), FaultError> {
    use kraken_interfaces::{FaultSpec, ParamValue};
    let m = spec.mode;
    crate::Activation::from_spec(spec, Duration::ZERO)?;
    for &(name, _) in FaultSpec::FIELDS {
        if name == "channel" || name == "mode" {
            continue;
        }
        let value = match spec.param(name) {
            Some(ParamValue::Float(x)) => x,
            Some(ParamValue::Int(i)) => i as f64,
            Some(ParamValue::Bool(b)) => f64::from(u8::from(b)),
            _ => continue,
        };
        if !FaultSpec::mode_reads(m, name) {
            // NaN != 0 is refused too.
            if value != 0.0 {
                return Err(invalid(
                    m,
                    name,
                    value,
                    &format!(
                        "mode '{}' does not read it (its parameters: {}); FaultSpec.msg: a \
                         parameter the mode does not use must be left at 0",
                        mode_str(m),
                        match FaultSpec::mode_parameters(m) {
                            [] => "none".to_string(),
                            p => p.join(", "),
                        }
                    ),
                ));
            }
            continue;
        }
        match name {
            "noise_stddev" | "saturation_limit" => {
                bounded_non_negative(m, name, value)?;
            }
            // 0 where the type does not use it (a scan's degrade); > 0 where
            // it does, checked by the mode.
            "covariance_scale" => {
                bounded_non_negative(m, name, value)?;
            }
            "bias_rate" | "bias" | "slip_ratio" | "scale_factor" => {
                magnitude(m, name, value)?;
            }
            "garbage_min" | "garbage_max" => {
                finite(m, name, value)?;
            }
            "delay_s" | "jitter_s" => {
                bounded_secs(m, name, value, MAX_HOLD_S)?;
            }
            "step_at_s" | "duration_s" | "period_s" => {
                bounded_secs(m, name, value, MAX_TIME_S)?;
            }
            "loss_probability" | "recovery_probability" | "probability" => {
                probability(m, name, value)?;
            }
            "timestamp_offset_s" => {
                timestamp_offset(m, value)?;
            }
            "loss_model" if spec.loss_model > FaultSpec::LOSS_GILBERT_ELLIOTT => {
                return Err(invalid(
                    m,
                    name,
                    value,
                    "must be LOSS_BERNOULLI (0), LOSS_BURST (1) or LOSS_GILBERT_ELLIOTT (2)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `timestamp_offset_s` as integer nanoseconds, if finite and
/// |offset| <= [`MAX_TIMESTAMP_OFFSET_S`].
///
/// # Errors
/// [`FaultError::InvalidParameter`] naming the field and the bound.
pub fn timestamp_offset(mode: u8, value: f64) -> Result<i64, FaultError> {
    if value.is_finite() && value.abs() <= MAX_TIMESTAMP_OFFSET_S {
        Ok((value * 1e9).round() as i64)
    } else {
        Err(invalid(
            mode,
            "timestamp_offset_s",
            value,
            &format!(
                "must be finite and within +/- {MAX_TIMESTAMP_OFFSET_S} s (2^32 s, the span of \
                 builtin_interfaces/Time)"
            ),
        ))
    }
}
