//! `timestamp_jump`: the header stamp shifted.

use std::time::Duration;

use kraken_interfaces::ros::Time;
use kraken_interfaces::FaultSpec;

use super::*;
use crate::params::{finite, invalid, Target, MAX_TIMESTAMP_OFFSET_S};
use crate::{FaultError, FaultRng, SensorMsg};

/// `timestamp_jump` (REQ-FAULT-TIMING):
/// `header.stamp` + `timestamp_offset_s` (negative: backwards, clamped at
/// 0); data and arrival time unchanged ("arrival dobry, timestamp zły"). All
/// channel types.
#[derive(Debug, Clone)]
pub struct TimestampJump {
    pub offset_ns: i64,
}

impl TimestampJump {
    /// |`timestamp_offset_s`| <= [`MAX_TIMESTAMP_OFFSET_S`]; the shifted
    /// stamp saturates at 0 and at the largest `builtin_interfaces/Time`.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let o = finite(m, "timestamp_offset_s", spec.timestamp_offset_s)?;
        if o.abs() > MAX_TIMESTAMP_OFFSET_S {
            return Err(invalid(
                m,
                "timestamp_offset_s",
                o,
                &format!("must be within +/- {MAX_TIMESTAMP_OFFSET_S:e} s"),
            ));
        }
        Ok(Self {
            offset_ns: (o * 1e9).round() as i64,
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
        h.stamp = Time::from_nanos(h.stamp.as_nanos().saturating_add(self.offset_ns));
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::TIMESTAMP_JUMP,
    build: |spec, t| Ok(Box::new(TimestampJump::from_spec(spec, t)?)),
    probe: None,
    changes: |_| &["header.stamp"],
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::SensorMsg;
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
}
