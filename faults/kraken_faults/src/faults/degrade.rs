//! `degrade`: white noise and a scaled covariance.

use std::time::Duration;

use kraken_interfaces::ros::NavSatStatus;
use kraken_interfaces::FaultSpec;
use rand_distr::{Distribution, Normal};

use super::*;
use crate::params::{bounded_non_negative, bounded_positive, invalid, sat, sat32, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// `degrade` (REQ-FAULT-DEGRADE): white Gaussian noise N(0, `noise_stddev`²) in the
/// channel's native unit, drawn independently per component, and the reported
/// covariance of the noised quantity × `covariance_scale`.
///
/// * NavSatFix: east and north offsets in metres, converted to
///   latitude/longitude by a WGS 84 geodesic (azimuth atan2(e, n), distance
///   hypot(e, n)); altitude + noise (m); `position_covariance` × scale;
///   `STATUS_GBAS_FIX` → `STATUS_FIX` (other statuses unchanged).
/// * Imu: `angular_velocity.{x,y,z}` + noise (rad/s);
///   `angular_velocity_covariance` × scale (unless marked absent with -1).
/// * Odometry: `twist.twist.linear.{x,y,z}` (m/s) and `angular.{x,y,z}`
///   (rad/s) + noise; `twist.covariance` × scale. Pose unchanged.
/// * LaserScan: every finite range + noise (m); `inf`/NaN ranges unchanged.
///   LaserScan carries no covariance: `covariance_scale` is not used.
#[derive(Debug, Clone)]
pub struct Degrade {
    pub noise: Normal<f64>,
    pub covariance_scale: f64,
}

impl Degrade {
    /// `noise_stddev` in [0, [`crate::params::MAX_MAGNITUDE`]], `covariance_scale` in
    /// (0, [`crate::params::MAX_MAGNITUDE`]] (not read on LaserScan).
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let sd = bounded_non_negative(m, "noise_stddev", spec.noise_stddev)?;
        let cs = if t.kind == MsgKind::LaserScan {
            0.0
        } else {
            bounded_positive(m, "covariance_scale", spec.covariance_scale)?
        };
        let noise =
            Normal::new(0.0, sd).map_err(|e| invalid(m, "noise_stddev", sd, &e.to_string()))?;
        Ok(Self {
            noise,
            covariance_scale: cs,
        })
    }
}

impl FaultStage for Degrade {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let n = self.noise;
        let s = self.covariance_scale;
        match &mut msg {
            SensorMsg::NavSatFix(f) => {
                let e: f64 = n.sample(rng);
                let no: f64 = n.sample(rng);
                let up: f64 = n.sample(rng);
                gnss_move(f, e.atan2(no).to_degrees(), e.hypot(no));
                f.altitude = sat(f.altitude, f.altitude + up);
                scale_cov(&mut f.position_covariance, s);
                if f.status.status == NavSatStatus::STATUS_GBAS_FIX {
                    f.status.status = NavSatStatus::STATUS_FIX;
                }
            }
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    *v = sat(*v, *v + n.sample(rng));
                }
                scale_imu_cov(&mut m.angular_velocity_covariance, s);
            }
            SensorMsg::Odometry(o) => {
                let t = &mut o.twist.twist;
                for v in [
                    &mut t.linear.x,
                    &mut t.linear.y,
                    &mut t.linear.z,
                    &mut t.angular.x,
                    &mut t.angular.y,
                    &mut t.angular.z,
                ] {
                    *v = sat(*v, *v + n.sample(rng));
                }
                scale_cov(&mut o.twist.covariance, s);
            }
            SensorMsg::LaserScan(l) => {
                for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                    *r = sat32(*r, f64::from(*r) + n.sample(rng));
                }
            }
        }
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::DEGRADE,
    build: |spec, t| Ok(Box::new(Degrade::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Unsupported,
    changes: |kind| match kind {
            MsgKind::Odometry => &[TWIST_LINEAR, TWIST_ANGULAR, "twist.covariance"],
            MsgKind::LaserScan => &["ranges"],
            MsgKind::NavSatFix => &["status", "latitude", "longitude", "altitude", "position_covariance"],
            MsgKind::Imu => &["angular_velocity", "angular_velocity_covariance"],
        },
}];

#[cfg(test)]
mod tests {
    use geographiclib_rs::{Geodesic, InverseGeodesic};

    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::ros::NavSatStatus;
    use kraken_interfaces::FaultSpec;

    // Golden values: exact delivered values, derived by hand in the comments.
    /// degrade with noise 0 isolates the covariance rule: 0.25 * 4 = 1.0 and
    /// 1.0 * 4 = 4.0 exactly; GBAS_FIX -> FIX; position unchanged.
    #[test]
    fn degrade_multiplies_covariance_exactly_and_downgrades_gbas() {
        let mut c = Channel::new("gnss", MsgKind::NavSatFix);
        let mut r = rng(1);
        let spec = FaultSpec {
            noise_stddev: 0.0,
            covariance_scale: 4.0,
            ..FaultSpec::new("gnss", FaultSpec::DEGRADE)
        };
        c.set_fault(&spec, ms(0)).unwrap();
        let f = as_fix(only(step(
            &mut c,
            SensorMsg::NavSatFix(fix(ms(0))),
            ms(0),
            &mut r,
        )));
        assert_eq!(
            f.position_covariance,
            [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 4.0]
        );
        assert_eq!(f.status.status, NavSatStatus::STATUS_FIX);
        assert_eq!((f.latitude, f.longitude, f.altitude), (LAT0, LON0, 520.0));
        // A plain FIX stays FIX; SBAS stays SBAS (only GBAS is downgraded).
        let mut sbas = fix(ms(100));
        sbas.status.status = NavSatStatus::STATUS_SBAS_FIX;
        let f = as_fix(only(step(
            &mut c,
            SensorMsg::NavSatFix(sbas),
            ms(100),
            &mut r,
        )));
        assert_eq!(f.status.status, NavSatStatus::STATUS_SBAS_FIX);
    }

    /// degrade noise statistics (seed 7, n = 4000): altitude error variance
    /// ~ sigma^2 = 4 m^2 (sampling s.e. of a variance = sigma^2 sqrt(2/n) = 0.09,
    /// tolerance 0.4 = 4.5 s.e.); horizontal distance^2 mean ~ 2 sigma^2 = 8 m^2
    /// (s.e. 8/sqrt(n) = 0.13, tolerance 0.6). Covariance 0.25 * 2.5 = 0.625.
    #[test]
    fn degrade_noise_has_the_requested_stddev_in_metres() {
        let mut c = Channel::new("gnss", MsgKind::NavSatFix);
        let mut r = rng(7);
        let spec = FaultSpec {
            noise_stddev: 2.0,
            covariance_scale: 2.5,
            ..FaultSpec::new("gnss", FaultSpec::DEGRADE)
        };
        c.set_fault(&spec, ms(0)).unwrap();
        let g = Geodesic::wgs84();
        let n = 4000;
        let (mut alt2, mut hor2) = (0.0, 0.0);
        for k in 0..n {
            let f = as_fix(only(step(
                &mut c,
                SensorMsg::NavSatFix(fix(ms(100 * k))),
                ms(100 * k),
                &mut r,
            )));
            alt2 += (f.altitude - 520.0).powi(2);
            let s: f64 = g.inverse(LAT0, LON0, f.latitude, f.longitude);
            hor2 += s * s;
            assert_eq!(f.position_covariance[0], 0.625);
        }
        let (alt_var, hor_ms) = (alt2 / n as f64, hor2 / n as f64);
        assert!((alt_var - 4.0).abs() < 0.4, "altitude variance {alt_var}");
        assert!(
            (hor_ms - 8.0).abs() < 0.6,
            "horizontal mean square {hor_ms}"
        );
    }
}
