//! `stuck`: the first faulted sample repeated.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::Target;
use crate::{FaultRng, SensorMsg};

/// `stuck` (REQ-FAULT-STUCK): every message is replaced by the first
/// message the fault saw (all data fields frozen). The header stamp is the
/// incoming one (fresh: the harder case to detect) unless `freeze_stamp`,
/// then it stays the frozen sample's.
#[derive(Debug, Clone)]
pub struct Stuck {
    pub freeze_stamp: bool,
    pub frozen: Option<SensorMsg>,
}

impl Stuck {
    /// Reads `freeze_stamp`; no parameter to refuse.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Self {
        Self {
            freeze_stamp: spec.freeze_stamp,
            frozen: None,
        }
    }
}

impl FaultStage for Stuck {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let stamp = msg.header().stamp;
        let frozen = self.frozen.get_or_insert(msg);
        let mut out = frozen.clone();
        if !self.freeze_stamp {
            out.header_mut().stamp = stamp;
        }
        now_only(out)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::STUCK,
    build: |spec, t| Ok(Box::new(Stuck::from_spec(spec, t))),
    probe: None,
    changes: |kind| match kind {
            MsgKind::Odometry => &ODOM_FIELDS,
            MsgKind::LaserScan => &SCAN_FIELDS,
            MsgKind::NavSatFix => &NAVSAT_FIELDS,
            MsgKind::Imu => &IMU_FIELDS,
        },
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::SensorMsg;
    use kraken_interfaces::FaultSpec;

    /// stuck: data frozen at the first faulted sample, stamps fresh (or frozen
    /// with freeze_stamp).
    #[test]
    fn stuck_freezes_value_with_fresh_or_frozen_stamps() {
        for freeze in [false, true] {
            let mut c = imu_channel(FaultSpec {
                freeze_stamp: freeze,
                ..FaultSpec::new("imu", FaultSpec::STUCK)
            });
            let mut r = rng(1);
            for k in 0..5u64 {
                let t = ms(100 * k);
                let mut m = imu(t);
                m.angular_velocity.z = k as f64;
                let SensorMsg::Imu(o) = step(&mut c, SensorMsg::Imu(m), t, &mut r).remove(0) else {
                    panic!()
                };
                assert_eq!(o.angular_velocity.z, 0.0, "frozen at the first sample");
                let want = if freeze { stamp(ms(0)) } else { stamp(t) };
                assert_eq!(o.header.stamp, want);
            }
        }
    }
}
