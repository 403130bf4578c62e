//! `corrupt_status`: data unchanged, status and covariance lie.

use std::time::Duration;

use kraken_interfaces::ros::NavSatStatus;
use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::{bounded_positive, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// `corrupt_status` (REQ-FAULT-CORRUPT-STATUS): data unchanged, the
/// quality fields lie.
///
/// * NavSatFix: `status.status = STATUS_GBAS_FIX`, `position_covariance` ×
///   `covariance_scale` (choose < 1 for an overstated accuracy),
///   `position_covariance_type` unchanged.
/// * Imu: all three covariance matrices × scale (unless marked absent with -1).
/// * Odometry: `pose.covariance` and `twist.covariance` × scale.
/// * LaserScan: unsupported (it has no status or quality field).
#[derive(Debug, Clone)]
pub struct CorruptStatus {
    pub covariance_scale: f64,
}

impl CorruptStatus {
    /// `covariance_scale` in (0, [`crate::params::MAX_MAGNITUDE`]]; LaserScan unsupported.
    ///
    /// # Errors
    /// [`FaultError::Unsupported`] on LaserScan, else
    /// [`FaultError::InvalidParameter`].
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        if t.kind == MsgKind::LaserScan {
            return Err(t.unsupported(
                spec.mode,
                "LaserScan has no status or covariance field to corrupt",
            ));
        }
        Ok(Self {
            covariance_scale: bounded_positive(
                spec.mode,
                "covariance_scale",
                spec.covariance_scale,
            )?,
        })
    }
}

impl FaultStage for CorruptStatus {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let s = self.covariance_scale;
        match &mut msg {
            SensorMsg::NavSatFix(f) => {
                f.status.status = NavSatStatus::STATUS_GBAS_FIX;
                scale_cov(&mut f.position_covariance, s);
            }
            SensorMsg::Imu(m) => {
                scale_imu_cov(&mut m.orientation_covariance, s);
                scale_imu_cov(&mut m.angular_velocity_covariance, s);
                scale_imu_cov(&mut m.linear_acceleration_covariance, s);
            }
            SensorMsg::Odometry(o) => {
                scale_cov(&mut o.pose.covariance, s);
                scale_cov(&mut o.twist.covariance, s);
            }
            SensorMsg::LaserScan(_) => {}
        }
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::CORRUPT_STATUS,
    build: |spec, t| Ok(Box::new(CorruptStatus::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Unsupported,
    changes: |kind| match kind {
            MsgKind::Odometry => &["pose.covariance", "twist.covariance"],
            MsgKind::LaserScan => &[],
            MsgKind::NavSatFix => &["status", "position_covariance"],
            MsgKind::Imu => &["orientation_covariance", "angular_velocity_covariance", "linear_acceleration_covariance"],
        },
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::ros::NavSatStatus;
    use kraken_interfaces::FaultSpec;

    /// corrupt_status on gnss: data unchanged, status GBAS_FIX, covariance x 0.01.
    #[test]
    fn corrupt_status_lies_about_quality() {
        let mut r = rng(1);
        let mut c = Channel::new("gnss", MsgKind::NavSatFix);
        let spec = FaultSpec {
            covariance_scale: 0.01,
            ..FaultSpec::new("gnss", FaultSpec::CORRUPT_STATUS)
        };
        c.set_fault(&spec, ms(0)).unwrap();
        let mut m = fix(ms(0));
        m.status.status = NavSatStatus::STATUS_FIX;
        let SensorMsg::NavSatFix(f) = step(&mut c, SensorMsg::NavSatFix(m), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!(f.status.status, NavSatStatus::STATUS_GBAS_FIX);
        assert_eq!(f.position_covariance[0], 0.0025);
        assert_eq!(f.position_covariance[8], 0.01);
        assert_eq!((f.latitude, f.longitude, f.altitude), (LAT0, LON0, 520.0));
    }
}
