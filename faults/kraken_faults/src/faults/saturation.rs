//! `saturation`: values clipped to a full scale. One value model for both
//! engines ([`Saturation::value`]): the typed stage applies it to the
//! fields of its message type, the field faults ([`crate::field`]) to each
//! selected leaf.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::field::FieldMode;
use crate::params::{bounded_non_negative, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// `saturation` (REQ-FAULT-SATURATION): values clipped to
/// [−`saturation_limit`, `saturation_limit`], no overrange flag.
///
/// * Imu: `angular_velocity.{x,y,z}` (gyro full scale, rad/s).
/// * Odometry: `twist.twist.linear.{x,y,z}` (m/s) and `angular.{x,y,z}` (rad/s).
/// * LaserScan: finite ranges above the limit become the limit (m); `inf`
///   (no return) stays `inf`.
/// * NavSatFix: unsupported (latitude/longitude have no full scale).
///
/// NaN passes unchanged (`f64::clamp` keeps NaN).
#[derive(Debug, Clone)]
pub struct Saturation {
    /// The lower clip (native units): −`saturation_limit`; −∞ on LaserScan
    /// (ranges are clipped from above only); the field mode's `min`.
    pub min: f64,
    /// The upper clip (native units): `saturation_limit`; the field mode's
    /// `max`.
    pub max: f64,
}

impl Saturation {
    /// `saturation_limit` in [0, [`crate::params::MAX_MAGNITUDE`]]; NavSatFix unsupported.
    ///
    /// # Errors
    /// [`FaultError::Unsupported`] on NavSatFix, else
    /// [`FaultError::InvalidParameter`].
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        if t.kind == MsgKind::NavSatFix {
            return Err(t.unsupported(
                spec.mode,
                "latitude/longitude have no full-scale range to clip at",
            ));
        }
        let l = bounded_non_negative(spec.mode, "saturation_limit", spec.saturation_limit)?;
        let min = if t.kind == MsgKind::LaserScan {
            f64::NEG_INFINITY
        } else {
            -l
        };
        Ok(Self { min, max: l })
    }

    /// The value model: `x` clamped to [`min`, `max`]; NaN passes
    /// (`f64::clamp` keeps NaN). Needs `min <= max`, neither NaN (checked
    /// where built).
    #[inline]
    pub fn value(&self, x: f64) -> f64 {
        x.clamp(self.min, self.max)
    }
}

impl FaultStage for Saturation {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        match &mut msg {
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    map64(v, |x| self.value(x));
                }
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
                    map64(v, |x| self.value(x));
                }
            }
            SensorMsg::LaserScan(s) => {
                // Clamped in f64 and rounded: the same as clipping at the
                // limit rounded to f32 (rounding is monotone, a range is
                // an f32).
                for r in s.ranges.iter_mut().filter(|r| r.is_finite()) {
                    map32(r, |x| self.value(x));
                }
            }
            SensorMsg::NavSatFix(_) => {}
        }
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::SATURATION,
    build: |spec, t| Ok(Box::new(Saturation::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Field(|spec, path| FieldFaultSpec {
        min: Some(-spec.saturation_limit),
        max: Some(spec.saturation_limit),
        ..FieldFaultSpec::new(path, FieldMode::Saturation)
    }),
    changes: |kind| match kind {
            MsgKind::Odometry => &[TWIST_LINEAR, TWIST_ANGULAR],
            MsgKind::LaserScan => &["ranges"],
            MsgKind::NavSatFix => &[],
            MsgKind::Imu => &["angular_velocity"],
        },
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::{Channel, MsgKind, SensorMsg};
    use kraken_interfaces::FaultSpec;

    /// The value model both engines run: clamped to [min, max], NaN passes;
    /// on LaserScan the typed stage clips from above only (min −∞): a range
    /// of −3 m stays, 2.5 m becomes 2 m.
    #[test]
    fn saturation_value_model_clamps_and_passes_nan() {
        use super::Saturation;
        let s = Saturation {
            min: -0.2,
            max: 0.2,
        };
        assert_eq!((s.value(0.25), s.value(-1.0), s.value(0.1)), (0.2, -0.2, 0.1));
        assert!(s.value(f64::NAN).is_nan());
        let spec = FaultSpec {
            saturation_limit: 2.0,
            ..FaultSpec::new("scan", FaultSpec::SATURATION)
        };
        let t = crate::params::Target {
            channel: "scan",
            kind: MsgKind::LaserScan,
        };
        let scan = Saturation::from_spec(&spec, t).unwrap();
        assert_eq!((scan.min, scan.max), (f64::NEG_INFINITY, 2.0));
        let mut r = [-3.0f32, 2.5];
        for v in &mut r {
            crate::faults::map32(v, |x| scan.value(x));
        }
        assert_eq!(r, [-3.0, 2.0]);
    }

    /// saturation 0.2: imu yaw rate 0.25 -> 0.2, scan ranges > 2 m -> 2 m
    /// (inf stays inf), wheel 0.4 m/s -> 0.2.
    #[test]
    fn saturation_clips() {
        let mut r = rng(1);
        let mut c = imu_channel(FaultSpec {
            saturation_limit: 0.2,
            ..FaultSpec::new("imu", FaultSpec::SATURATION)
        });
        let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!(
            (
                i.angular_velocity.x,
                i.angular_velocity.y,
                i.angular_velocity.z
            ),
            (0.01, -0.02, 0.2)
        );
        let mut c = Channel::new("scan", MsgKind::LaserScan);
        c.set_fault(
            &FaultSpec {
                saturation_limit: 2.0,
                ..FaultSpec::new("scan", FaultSpec::SATURATION)
            },
            ms(0),
        )
        .unwrap();
        let SensorMsg::LaserScan(s) =
            step(&mut c, SensorMsg::LaserScan(scan(ms(0))), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!(s.ranges[..4], [1.0, 1.5, 2.0, f32::INFINITY]);
        assert_eq!(s.ranges[5..], [2.0, 0.5, 2.0]);
    }
}
