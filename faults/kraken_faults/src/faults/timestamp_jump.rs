//! `timestamp_jump`: the header stamp shifted.

use std::time::Duration;

use kraken_interfaces::ros::Time;
use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::{timestamp_offset, Target};
use crate::{FaultError, FaultRng, SensorMsg};

/// `timestamp_jump` (REQ-FAULT-TIMING):
/// `header.stamp` + `timestamp_offset_s` (negative: backwards, saturating
/// at the smallest and the largest `builtin_interfaces/Time`, sec int32); data and arrival time unchanged ("arrival dobry, timestamp zły"). All
/// channel types.
#[derive(Debug, Clone)]
pub struct TimestampJump {
    pub offset_ns: i64,
}

impl TimestampJump {
    /// |`timestamp_offset_s`| <= [`MAX_TIMESTAMP_OFFSET_S`] (2^32 s); the
    /// shifted stamp saturates at the smallest and the largest
    /// `builtin_interfaces/Time`.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            offset_ns: timestamp_offset(spec.mode, spec.timestamp_offset_s)?,
        })
    }
}

impl FaultStage for TimestampJump {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let h = msg.header_mut();
        h.stamp = Time::from_nanos_signed(h.stamp.as_nanos().saturating_add(self.offset_ns));
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::TIMESTAMP_JUMP,
    build: |spec, t| Ok(Box::new(TimestampJump::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Unsupported,
    changes: |_| &["header.stamp"],
}];

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::params::MAX_TIMESTAMP_OFFSET_S;
    use crate::test_common::*;
    use crate::SensorMsg;
    use kraken_interfaces::ros::Time;
    use kraken_interfaces::FaultSpec;

    /// timestamp_jump shifts the stamp by the offset (-0.25 s back, 2.5 s ahead).
    #[test]
    fn timestamp_jump_shifts_the_stamp() {
        let mut r = rng(1);
        let mut c = imu_channel(FaultSpec {
            timestamp_offset_s: -0.25,
            ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
        });
        let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
        assert_eq!(out.header().stamp, stamp(ms(750)));
        let mut c = imu_channel(FaultSpec {
            timestamp_offset_s: 2.5,
            ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
        });
        let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
        assert_eq!(out.header().stamp, stamp(ms(3500)));
    }

    /// hdl_localization #48: one stage moves a wall-clock stamp (1.66e9 s)
    /// back to 850 s (-1,659,999,150 s, beyond the old +/-1e9 s bound);
    /// the whole range of builtin_interfaces/Time is reachable and the
    /// result saturates at its ends; beyond 2^32 s is refused.
    #[test]
    fn timestamp_jump_spans_the_whole_time_type() {
        let mut r = rng(1);
        let jump = |o: f64| {
            imu_channel(FaultSpec {
                timestamp_offset_s: o,
                ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
            })
        };
        let wall = Duration::from_secs(1_660_000_000);
        let mut c = jump(-1_659_999_150.0);
        let out = step(&mut c, SensorMsg::Imu(imu(wall)), ms(1000), &mut r).remove(0);
        assert_eq!(out.header().stamp, Time { sec: 850, nanosec: 0 });
        // Below the epoch: -0.5 s is sec -1, nanosec 0.5e9.
        let mut c = jump(-1.5);
        let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
        assert_eq!(out.header().stamp, Time { sec: -1, nanosec: 500_000_000 });
        // Saturation at both ends of the type.
        let mut c = jump(-MAX_TIMESTAMP_OFFSET_S);
        let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
        assert_eq!(out.header().stamp, Time { sec: i32::MIN, nanosec: 0 });
        let mut c = jump(MAX_TIMESTAMP_OFFSET_S);
        let out = step(&mut c, SensorMsg::Imu(imu(wall)), ms(1000), &mut r).remove(0);
        assert_eq!(
            out.header().stamp,
            Time { sec: i32::MAX, nanosec: 999_999_999 }
        );
        // Refused beyond the span, and non-finite.
        for o in [MAX_TIMESTAMP_OFFSET_S * 1.001, f64::NAN, f64::NEG_INFINITY] {
            let spec = FaultSpec {
                timestamp_offset_s: o,
                ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
            };
            let e = crate::build_stage(&spec, "imu", crate::MsgKind::Imu)
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains("timestamp_offset_s") && e.contains("4294967296"), "{e}");
        }
    }
}
