//! The bias family: `bias_ramp` (an offset growing with time) and `bias` (a constant offset from a step time), both applied with [`add_bias`].

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::{bounded_secs, magnitude, sat, sat32, Target, MAX_TIME_S};
use crate::{FaultError, FaultRng, SensorMsg};

/// Adds an offset of `b` native units to the channel's biased quantity
/// (shared by `bias` and `bias_ramp`):
/// NavSatFix: moved `b` metres on the fixed 45° geodesic bearing
/// ([`GNSS_BIAS_AZIMUTH_DEG`]); Imu: `angular_velocity.z` + b (rad/s, yaw
/// rate); Odometry: `twist.twist.linear.x` + b (m/s); LaserScan: every
/// finite range + b (m). Covariances and status unchanged.
/// Sums saturate ([`sat`]): a finite value stays finite.
pub fn add_bias(msg: &mut SensorMsg, b: f64) {
    match msg {
        SensorMsg::NavSatFix(f) => gnss_move(f, GNSS_BIAS_AZIMUTH_DEG, b),
        SensorMsg::Imu(m) => {
            let z = &mut m.angular_velocity.z;
            *z = sat(*z, *z + b);
        }
        SensorMsg::Odometry(o) => {
            let x = &mut o.twist.twist.linear.x;
            *x = sat(*x, *x + b);
        }
        SensorMsg::LaserScan(l) => {
            for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                *r = sat32(*r, f64::from(*r) + b);
            }
        }
    }
}

/// `bias_ramp` (REQ-FAULT-BIAS-RAMP): an offset of `bias_rate` × (now − set time),
/// applied with [`add_bias`]. GNSS walks off on a 45° bearing, the IMU gets a
/// growing yaw-rate bias; the reported covariance stays as it was (the sensor
/// lies confidently).
#[derive(Debug, Clone)]
pub struct BiasRamp {
    pub bias_rate: f64,
    pub set_at: Option<Duration>,
}

impl BiasRamp {
    /// `bias_rate` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]] units/s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            bias_rate: magnitude(spec.mode, "bias_rate", spec.bias_rate)?,
            set_at: None,
        })
    }
}

impl FaultStage for BiasRamp {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        // |rate| <= 1e9 and elapsed <= Duration::MAX (1.8e19 s): finite.
        let b = self.bias_rate * elapsed(&mut self.set_at, now);
        add_bias(&mut msg, b);
        now_only(msg)
    }
    fn on_set(&mut self, now: Duration) {
        self.set_at = Some(now);
    }
}

/// `bias` (REQ-FAULT-BIAS): constant offset `bias` (native units,
/// applied with [`add_bias`]) from `step_at_s` after the fault is set; before
/// the step the message passes unchanged.
#[derive(Debug, Clone)]
pub struct Bias {
    pub bias: f64,
    pub step_at: Duration,
    pub set_at: Option<Duration>,
}

impl Bias {
    /// `bias` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]] units, `step_at_s`
    /// in [0, [`MAX_TIME_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        Ok(Self {
            bias: magnitude(m, "bias", spec.bias)?,
            step_at: bounded_secs(m, "step_at_s", spec.step_at_s, MAX_TIME_S)?,
            set_at: None,
        })
    }
}

impl FaultStage for Bias {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if elapsed(&mut self.set_at, now) >= self.step_at.as_secs_f64() {
            add_bias(&mut msg, self.bias);
        }
        now_only(msg)
    }
    fn on_set(&mut self, now: Duration) {
        self.set_at = Some(now);
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[
    Registration {
        mode: FaultSpec::BIAS_RAMP,
        build: |spec, t| Ok(Box::new(BiasRamp::from_spec(spec, t)?)),
        probe: None,
        changes: |kind| match kind {
                MsgKind::Odometry => &[TWIST_LINEAR],
                MsgKind::LaserScan => &["ranges"],
                _ => &[],
            },
    },
    Registration {
        mode: FaultSpec::BIAS,
        build: |spec, t| Ok(Box::new(Bias::from_spec(spec, t)?)),
        probe: None,
        changes: |kind| match kind {
                MsgKind::Odometry => &[TWIST_LINEAR],
                MsgKind::LaserScan => &["ranges"],
                _ => &[],
            },
    },
];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::FaultSpec;

    /// bias with a step: 0.5 m/s on wheel linear.x from 1 s after set.
    #[test]
    fn bias_steps_in_at_step_at_s() {
        let mut c = Channel::new("wheel", MsgKind::Odometry);
        let mut r = rng(1);
        c.set_fault(
            &FaultSpec {
                bias: 0.5,
                step_at_s: 1.0,
                ..FaultSpec::new("wheel", FaultSpec::BIAS)
            },
            ms(500),
        )
        .unwrap();
        let x = |c: &mut Channel, r: &mut _, t| {
            let SensorMsg::Odometry(o) = step(c, SensorMsg::Odometry(odom(t)), t, r).remove(0) else {
                panic!()
            };
            o.twist.twist.linear.x
        };
        assert_eq!(x(&mut c, &mut r, ms(1400)), 0.4);
        assert_eq!(x(&mut c, &mut r, ms(1500)), 0.9);
    }
}
