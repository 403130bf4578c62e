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
    changes: |kind| match kind {
            MsgKind::Odometry => &[TWIST_LINEAR, TWIST_ANGULAR],
            MsgKind::LaserScan => &[],
            _ => &[],
        },
}];
