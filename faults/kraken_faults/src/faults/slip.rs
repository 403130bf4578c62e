//! `slip`: odometry velocities scaled (wheel slip).

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::{magnitude, sat, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// `slip` (REQ-FAULT-SLIP, odometry only): `twist.twist.linear.{x,y,z}` and
/// `twist.twist.angular.{x,y,z}` × `slip_ratio`. Pose, covariances and stamp
/// unchanged.
#[derive(Debug, Clone)]
pub struct Slip {
    pub slip_ratio: f64,
}

impl Slip {
    /// Odometry only; `slip_ratio` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]].
    ///
    /// # Errors
    /// [`FaultError::Unsupported`] off odometry, else
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        if t.kind != MsgKind::Odometry {
            return Err(t.unsupported(
                spec.mode,
                "slip scales odometry velocities; this channel carries no odometry",
            ));
        }
        Ok(Self {
            slip_ratio: magnitude(spec.mode, "slip_ratio", spec.slip_ratio)?,
        })
    }
}

impl FaultStage for Slip {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if let SensorMsg::Odometry(o) = &mut msg {
            let t = &mut o.twist.twist;
            let k = self.slip_ratio;
            for v in [
                &mut t.linear.x,
                &mut t.linear.y,
                &mut t.linear.z,
                &mut t.angular.x,
                &mut t.angular.y,
                &mut t.angular.z,
            ] {
                *v = sat(*v, *v * k);
            }
        }
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::SLIP,
    build: |spec, t| Ok(Box::new(Slip::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Unsupported,
    changes: |kind| match kind {
            MsgKind::Odometry => &[TWIST_LINEAR, TWIST_ANGULAR],
            MsgKind::LaserScan => &[],
            MsgKind::NavSatFix => &[],
            MsgKind::Imu => &[],
        },
}];

#[cfg(test)]
mod tests {

    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::FaultSpec;

    // Golden values: exact delivered values, derived by hand in the comments.
    /// slip 0.5: linear.x 0.4 -> 0.2 m/s, angular.z 0.3 -> 0.15 rad/s; pose unchanged.
    #[test]
    fn slip_half_halves_both_velocities() {
        let mut c = Channel::new("wheel", MsgKind::Odometry);
        let mut r = rng(1);
        c.set_fault(
            &FaultSpec {
                slip_ratio: 0.5,
                ..FaultSpec::new("wheel", FaultSpec::SLIP)
            },
            ms(0),
        )
        .unwrap();
        let SensorMsg::Odometry(o) = only(step(
            &mut c,
            SensorMsg::Odometry(odom(ms(100))),
            ms(100),
            &mut r,
        )) else {
            panic!()
        };
        assert_eq!(o.twist.twist.linear.x, 0.2);
        assert_eq!(o.twist.twist.angular.z, 0.15);
        assert_eq!(o.pose, odom(ms(0)).pose);
        assert_eq!(o.twist.covariance, odom(ms(0)).twist.covariance);
    }
}
