//! Fault stages: one synchronous transformation per fault mode.

use std::time::Duration;

use kraken_interfaces::{mode_name, FaultSpec};

use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// A fault between a sensor and its consumer.
///
/// `apply` is called once per input message, in arrival order, with the
/// host's clock `now` (time since the clock's epoch) and the host's seeded
/// generator. It returns the messages to deliver, each with the delay after
/// `now` at which to deliver it: an empty vector withholds the message, two
/// entries duplicate it. Stages keep whatever state they need (a frozen
/// sample, a burst counter), so the same stage instance must see the whole
/// stream of its channel.
pub trait FaultStage: Send {
    /// Applies the fault to one message received at `now`.
    fn apply(&mut self, msg: SensorMsg, now: Duration, rng: &mut FaultRng) -> Vec<(Duration, SensorMsg)>;
}

/// `delay`: every message held `delay` through the channel's queue of past
/// messages (the message itself is not recomputed or restamped).
#[derive(Debug, Clone)]
pub struct Delay {
    pub delay: Duration,
}

impl FaultStage for Delay {
    fn apply(&mut self, msg: SensorMsg, _now: Duration, _rng: &mut FaultRng) -> Vec<(Duration, SensorMsg)> {
        vec![(self.delay, msg)]
    }
}

/// `scale`: the measured value multiplied by `factor`. For odometry the
/// position is scaled about the odom frame's origin (the start pose), as a
/// wheel-radius calibration error would; twist, orientation, stamps and
/// covariances pass unchanged.
#[derive(Debug, Clone)]
pub struct Scale {
    pub factor: f64,
}

impl FaultStage for Scale {
    fn apply(&mut self, mut msg: SensorMsg, _now: Duration, _rng: &mut FaultRng) -> Vec<(Duration, SensorMsg)> {
        if let SensorMsg::Odometry(o) = &mut msg {
            let p = &mut o.pose.pose.position;
            p.x *= self.factor;
            p.y *= self.factor;
            p.z *= self.factor;
        }
        vec![(Duration::ZERO, msg)]
    }
}

fn mode_str(mode: u8) -> &'static str {
    mode_name(mode).unwrap_or("unknown")
}

fn non_negative(mode: u8, field: &'static str, value: f64) -> Result<f64, FaultError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(FaultError::InvalidParameter {
            mode: mode_str(mode),
            field,
            value,
            reason: "must be finite and >= 0".into(),
        })
    }
}

/// Builds the stage for `spec` on a channel named `channel` carrying `kind`.
///
/// # Errors
/// [`FaultError::UnknownMode`] for a mode constant FaultSpec does not define,
/// [`FaultError::Unsupported`] for a mode that makes no sense for `kind`,
/// [`FaultError::InvalidParameter`] for an out-of-range parameter.
pub fn build_stage(spec: &FaultSpec, channel: &str, kind: MsgKind) -> Result<Box<dyn FaultStage>, FaultError> {
    let unsupported = |reason: &str| FaultError::Unsupported {
        channel: channel.to_string(),
        kind: kind.ros_type(),
        mode: mode_str(spec.mode),
        reason: reason.to_string(),
    };
    match spec.mode {
        FaultSpec::DELAY => {
            let d = non_negative(spec.mode, "delay_s", spec.delay_s)?;
            Ok(Box::new(Delay { delay: Duration::from_secs_f64(d) }))
        }
        FaultSpec::SCALE => {
            if !spec.scale_factor.is_finite() {
                return Err(FaultError::InvalidParameter {
                    mode: mode_str(spec.mode),
                    field: "scale_factor",
                    value: spec.scale_factor,
                    reason: "must be finite".into(),
                });
            }
            match kind {
                MsgKind::Odometry => Ok(Box::new(Scale { factor: spec.scale_factor })),
                _ => Err(unsupported("scale is implemented for odometry only")),
            }
        }
        m if mode_name(m).is_some() => Err(unsupported("not implemented yet")),
        m => Err(FaultError::UnknownMode(m)),
    }
}
