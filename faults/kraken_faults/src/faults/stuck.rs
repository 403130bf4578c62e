//! `stuck`: the first faulted sample repeated. One recorder for both
//! engines ([`Freeze`]): the typed stage freezes the whole message, the
//! field faults ([`crate::field`]) the selected leaves.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::field::FieldMode;
use crate::params::Target;
use crate::{FaultRng, SensorMsg};

/// `stuck` (REQ-FAULT-STUCK): every message is replaced by the first
/// message the fault saw (all data fields frozen). The header stamp is the
/// incoming one (fresh: the harder case to detect) unless `freeze_stamp`,
/// then it stays the frozen sample's.
#[derive(Debug, Clone)]
pub struct Stuck {
    pub freeze_stamp: bool,
    pub frozen: Freeze<SensorMsg>,
}

/// stuck's model: the first sample it is given is recorded, and every later
/// one is replaced by it (typed: the whole message; dynamic: the selected
/// leaves).
#[derive(Debug, Clone)]
pub struct Freeze<T>(Option<T>);

impl<T> Default for Freeze<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T> Freeze<T> {
    /// The recorded sample, recording `first()` if there is none yet; with
    /// `true` when it was recorded by this call (the first sample passes as
    /// it is).
    pub fn replay(&mut self, first: impl FnOnce() -> T) -> (&T, bool) {
        let fresh = self.0.is_none();
        (self.0.get_or_insert_with(first), fresh)
    }
}

impl Stuck {
    /// Reads `freeze_stamp`; no parameter to refuse.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Self {
        Self {
            freeze_stamp: spec.freeze_stamp,
            frozen: Freeze::default(),
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
        let (frozen, _) = self.frozen.replay(|| msg);
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
    any_type: AnyType::Field(|_, path| FieldFaultSpec::new(path, FieldMode::Stuck)),
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

    /// stuck's recorder, both engines': the first sample is recorded (and
    /// passes), every later one is replaced by it.
    #[test]
    fn freeze_records_the_first_sample_and_replays_it() {
        let mut f = super::Freeze::default();
        assert_eq!(f.replay(|| 3), (&3, true));
        assert_eq!(f.replay(|| 7), (&3, false));
    }

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
