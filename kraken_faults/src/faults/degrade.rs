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
    changes: |kind| match kind {
            MsgKind::Odometry => &[TWIST_LINEAR, TWIST_ANGULAR, "twist.covariance"],
            MsgKind::LaserScan => &["ranges"],
            _ => &[],
        },
}];
