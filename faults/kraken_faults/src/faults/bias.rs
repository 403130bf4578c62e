//! The bias family: `bias_ramp` (an offset growing with time) and `bias` (a
//! constant offset from a step time). One value model for both engines: the
//! offset at a time ([`BiasRamp::offset`], [`Bias::offset`]) added with
//! [`biased`], by [`add_bias`] to the typed messages and by the field faults
//! ([`crate::field`]) to each selected leaf.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::field::FieldMode;
use crate::params::{bounded_secs, magnitude, Target, MAX_TIME_S};
use crate::{FaultError, FaultRng, SensorMsg};

/// Adds an offset of `b` native units to the channel's biased quantity
/// (shared by `bias` and `bias_ramp`):
/// NavSatFix: moved `b` metres on the fixed 45° geodesic bearing
/// ([`GNSS_BIAS_AZIMUTH_DEG`]); Imu: `angular_velocity.z` + b (rad/s, yaw
/// rate); Odometry: `twist.twist.linear.x` + b (m/s); LaserScan: every
/// finite range + b (m). Covariances and status unchanged.
/// Sums ([`biased`]) saturate ([`map64`], [`map32`]): a finite value stays
/// finite.
pub fn add_bias(msg: &mut SensorMsg, b: f64) {
    match msg {
        SensorMsg::NavSatFix(f) => gnss_move(f, GNSS_BIAS_AZIMUTH_DEG, b),
        SensorMsg::Imu(m) => map64(&mut m.angular_velocity.z, |x| biased(x, b)),
        SensorMsg::Odometry(o) => map64(&mut o.twist.twist.linear.x, |x| biased(x, b)),
        SensorMsg::LaserScan(l) => {
            for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                map32(r, |x| biased(x, b));
            }
        }
    }
}

/// The bias family's value model: `x` + offset `b` (native units of the
/// value). The writer saturates ([`map64`]).
#[inline]
pub fn biased(x: f64, b: f64) -> f64 {
    x + b
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

    /// The offset at `now`: `bias_rate` × (now − the set time) (units; the
    /// set time is the first `now` seen when [`FaultStage::on_set`] was not
    /// called).
    pub fn offset(&mut self, now: Duration) -> f64 {
        // |rate| <= 1e9 and elapsed <= Duration::MAX (1.8e19 s): finite.
        self.bias_rate * elapsed(&mut self.set_at, now)
    }
}

impl FaultStage for BiasRamp {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let b = self.offset(now);
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

    /// The offset at `now`: `bias` (units) from `step_at` after the set time
    /// (the first `now` seen when [`FaultStage::on_set`] was not called),
    /// `None` before.
    pub fn offset(&mut self, now: Duration) -> Option<f64> {
        (elapsed(&mut self.set_at, now) >= self.step_at.as_secs_f64()).then_some(self.bias)
    }
}

impl FaultStage for Bias {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if let Some(b) = self.offset(now) {
            add_bias(&mut msg, b);
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
        any_type: AnyType::Field(|spec, path| FieldFaultSpec {
            bias_rate_per_s: Some(spec.bias_rate),
            ..FieldFaultSpec::new(path, FieldMode::BiasRamp)
        }),
        changes: |kind| match kind {
                MsgKind::Odometry => &[TWIST_LINEAR],
                MsgKind::LaserScan => &["ranges"],
                MsgKind::NavSatFix => &["latitude", "longitude"],
                MsgKind::Imu => &["angular_velocity"],
            },
    },
    Registration {
        mode: FaultSpec::BIAS,
        build: |spec, t| Ok(Box::new(Bias::from_spec(spec, t)?)),
        probe: None,
        any_type: AnyType::Field(|spec, path| FieldFaultSpec {
            bias: Some(spec.bias),
            ..FieldFaultSpec::new(path, FieldMode::Bias)
        }),
        changes: |kind| match kind {
                MsgKind::Odometry => &[TWIST_LINEAR],
                MsgKind::LaserScan => &["ranges"],
                MsgKind::NavSatFix => &["latitude", "longitude"],
                MsgKind::Imu => &["angular_velocity"],
            },
    },
];

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use geographiclib_rs::{Geodesic, InverseGeodesic};
    use kraken_interfaces::ros::NavSatStatus;
    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::FaultSpec;

    /// The value models both engines run: bias 0.5 from 1 s after the set
    /// time (set at 0.5 s: none at 1.4 s, 0.5 at 1.5 s); a ramp of 0.5/s
    /// from its first message (1 s) is 1.5 at 4 s; added: 0.25 + 1.5.
    #[test]
    fn bias_value_models_offset_from_the_set_time() {
        use super::{biased, Bias, BiasRamp};
        use crate::faults::FaultStage;
        let mut b = Bias {
            bias: 0.5,
            step_at: ms(1000),
            set_at: None,
        };
        b.on_set(ms(500));
        assert_eq!((b.offset(ms(1400)), b.offset(ms(1500))), (None, Some(0.5)));
        let mut r = BiasRamp {
            bias_rate: 0.5,
            set_at: None,
        };
        assert_eq!(r.offset(ms(1000)), 0.0);
        assert_eq!(r.offset(ms(4000)), 1.5);
        assert_eq!(biased(0.25, 1.5), 1.75);
    }

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

    // Golden values: exact delivered values, derived by hand in the comments.
    /// bias_ramp 0.2 m/s for 40 s at 10 Hz: at t = 40 s the offset is
    /// 0.2 * 40 = 8.0 m on a 45° geodesic bearing; at 20 s it is 4.0 m; after the
    /// transient window (t > 40 s) the fix is the true one, bit for bit.
    #[test]
    fn gnss_bias_ramp_walks_8_m_on_45_degrees_in_40_s() {
        let mut c = Channel::new("gnss", MsgKind::NavSatFix);
        let mut r = rng(1);
        let spec = FaultSpec {
            bias_rate: 0.2,
            duration_s: 40.0,
            ..FaultSpec::new("gnss", FaultSpec::BIAS_RAMP)
        };
        c.set_fault(&spec, Duration::ZERO).unwrap();
        let g = Geodesic::wgs84();
        let mut seen = Vec::new();
        for k in 0..=401u64 {
            let t = ms(100 * k);
            let out = as_fix(only(step(&mut c, SensorMsg::NavSatFix(fix(t)), t, &mut r)));
            let (s12, azi1, _azi2, _a12): (f64, f64, f64, f64) =
                g.inverse(LAT0, LON0, out.latitude, out.longitude);
            seen.push((k, s12, azi1, out));
        }
        let (_, s0, _, _) = &seen[0];
        assert_eq!(*s0, 0.0, "no offset at the moment the fault is set");
        let (_, s20, az20, _) = &seen[200];
        assert!((s20 - 4.0).abs() < 0.01, "t=20 s: {s20} m");
        assert!((az20 - 45.0).abs() < 1e-6, "t=20 s azimuth {az20}");
        let (_, s40, az40, f40) = &seen[400];
        assert!(
            (s40 - 8.0).abs() < 0.01,
            "t=40 s: {s40} m, expected 8.0 +/- 0.01"
        );
        assert!(
            (s40 - 8.0).abs() < 1e-6,
            "geodesic direct/inverse agree to the micrometre: {s40}"
        );
        assert!((az40 - 45.0).abs() < 1e-6, "azimuth {az40}");
        // Covariance and status stay as they were (the sensor lies confidently).
        assert_eq!(f40.position_covariance, fix(ms(0)).position_covariance);
        assert_eq!(f40.status.status, NavSatStatus::STATUS_GBAS_FIX);
        assert_eq!(f40.altitude, 520.0);
        // t = 40.1 s: expired, true fix again, and the expiry is recorded at 40 s.
        let (_, s401, _, f401) = &seen[401];
        assert_eq!(*s401, 0.0);
        assert_eq!(
            bits(&SensorMsg::NavSatFix(f401.clone())),
            bits(&SensorMsg::NavSatFix(fix(ms(40_100))))
        );
        assert_eq!(c.cleared(), Some(ms(40_000)));
        assert!(c.fault().is_none());
    }

    /// IMU bias_ramp: yaw rate 0.25 rad/s + 0.01 rad/s² * 3 s = 0.28 rad/s at t = 3 s.
    #[test]
    fn imu_bias_ramp_grows_yaw_rate_only() {
        let mut c = Channel::new("imu", MsgKind::Imu);
        let mut r = rng(1);
        c.set_fault(
            &FaultSpec {
                bias_rate: 0.01,
                ..FaultSpec::new("imu", FaultSpec::BIAS_RAMP)
            },
            ms(1000),
        )
        .unwrap();
        let out = only(step(
            &mut c,
            SensorMsg::Imu(imu(ms(4000))),
            ms(4000),
            &mut r,
        ));
        let SensorMsg::Imu(i) = out else { panic!() };
        assert!(
            (i.angular_velocity.z - 0.28).abs() < 1e-12,
            "{}",
            i.angular_velocity.z
        );
        assert_eq!(i.angular_velocity.x, 0.01);
        assert_eq!(
            i.angular_velocity_covariance,
            imu(ms(0)).angular_velocity_covariance
        );
    }
}
