//! `dropout`: a receiver that lost lock (GNSS) or a silent topic (everything else).

use std::time::Duration;

use kraken_interfaces::ros::{NavSatFix, NavSatStatus};
use kraken_interfaces::FaultSpec;

use super::*;
use crate::{FaultRng, SensorMsg};

/// `dropout` (REQ-FAULT-DROPOUT-GNSS, REQ-FAULT-DROPOUT-IMU, REQ-FAULT-DROPOUT-WHEEL).
///
/// * NavSatFix: still published; `status.status = STATUS_NO_FIX`,
///   `position_covariance = 0`, `position_covariance_type =
///   COVARIANCE_TYPE_UNKNOWN`; latitude/longitude/altitude and the stamp pass
///   unchanged (a receiver that lost lock).
/// * Imu, Odometry, LaserScan: nothing is published. For odometry channels
///   with `tf_keepalive` the host keeps broadcasting the last odom→base_link
///   transform ([`crate::Channel::keepalive_transform`]).
#[derive(Debug, Clone, Default)]
pub struct Dropout;

impl FaultStage for Dropout {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        match msg {
            SensorMsg::NavSatFix(mut f) => {
                f.status.status = NavSatStatus::STATUS_NO_FIX;
                f.position_covariance = [0.0; 9];
                f.position_covariance_type = NavSatFix::COVARIANCE_TYPE_UNKNOWN;
                now_only(SensorMsg::NavSatFix(f))
            }
            _ => Vec::new(),
        }
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::DROPOUT,
    build: |spec, t| {
        Ok(Box::new({
            let _ = (spec, t);
            Dropout
        }))
    },
    probe: None,
    changes: |_| &[DELIVERY],
}];
