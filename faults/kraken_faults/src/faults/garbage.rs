//! `garbage`: values replaced by seeded uniform draws. One value model for
//! both engines ([`Garbage::draw`]): the typed stage draws for the fields of
//! its message type, the field faults ([`crate::field`]) for each selected
//! leaf, in the same order of draws.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;

use super::*;
use crate::field::FieldMode;
use crate::params::{finite, invalid, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// Probability that a garbage value is non-finite when `allow_non_finite`.
pub const GARBAGE_NON_FINITE_P: f64 = 0.1;

/// `garbage` (REQ-FAULT-GARBAGE): values replaced by seeded uniform draws
/// in [`garbage_min`, `garbage_max`]. With `allow_non_finite`, each value is
/// instead NaN, +inf or −inf (equally likely) with probability
/// [`GARBAGE_NON_FINITE_P`]. Status, covariances, stamps unchanged.
///
/// * NavSatFix: `latitude`, `longitude` (degrees) and `altitude` (m).
/// * Imu: `angular_velocity.{x,y,z}` and `linear_acceleration.{x,y,z}`.
/// * Odometry: `pose.pose.position.{x,y,z}`, `twist.twist.linear.{x,y,z}`,
///   `twist.twist.angular.{x,y,z}`.
/// * LaserScan: every range (f32).
#[derive(Debug, Clone)]
pub struct Garbage {
    pub min: f64,
    pub max: f64,
    pub allow_non_finite: bool,
}

impl Garbage {
    /// `garbage_min` < `garbage_max`, both finite, with a finite span
    /// `garbage_max - garbage_min` (the uniform draw needs it: -1e308..1e308
    /// overflows); on LaserScan both within the f32 range.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let lo = finite(m, "garbage_min", spec.garbage_min)?;
        let hi = finite(m, "garbage_max", spec.garbage_max)?;
        if lo >= hi {
            return Err(invalid(m, "garbage_max", hi, "must be > garbage_min"));
        }
        if !(hi - lo).is_finite() {
            return Err(invalid(
                m,
                "garbage_max",
                hi,
                &format!(
                    "garbage_max - garbage_min must be finite (at most {:e}); got {lo:e}..{hi:e}",
                    f64::MAX
                ),
            ));
        }
        if t.kind == MsgKind::LaserScan && (lo < f32::MIN as f64 || hi > f32::MAX as f64) {
            return Err(invalid(
                m,
                "garbage_max",
                hi,
                "bounds must fit an f32 range",
            ));
        }
        Ok(Self {
            min: lo,
            max: hi,
            allow_non_finite: spec.allow_non_finite,
        })
    }
    /// One draw: uniform in [`min`, `max`], or (with `allow_non_finite`)
    /// NaN/±inf with probability [`GARBAGE_NON_FINITE_P`]. Also used by the
    /// field-path garbage mode ([`crate::field`]).
    pub(crate) fn draw(&self, rng: &mut FaultRng) -> f64 {
        if self.allow_non_finite && rng.random_bool(GARBAGE_NON_FINITE_P) {
            return [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.random_range(0..3usize)];
        }
        rng.random_range(self.min..=self.max)
    }
}

impl FaultStage for Garbage {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        match &mut msg {
            SensorMsg::NavSatFix(f) => {
                for v in [&mut f.latitude, &mut f.longitude, &mut f.altitude] {
                    *v = self.draw(rng);
                }
            }
            SensorMsg::Imu(m) => {
                let (w, a) = (&mut m.angular_velocity, &mut m.linear_acceleration);
                for v in [&mut w.x, &mut w.y, &mut w.z, &mut a.x, &mut a.y, &mut a.z] {
                    *v = self.draw(rng);
                }
            }
            SensorMsg::Odometry(o) => {
                let p = &mut o.pose.pose.position;
                let t = &mut o.twist.twist;
                for v in [
                    &mut p.x,
                    &mut p.y,
                    &mut p.z,
                    &mut t.linear.x,
                    &mut t.linear.y,
                    &mut t.linear.z,
                    &mut t.angular.x,
                    &mut t.angular.y,
                    &mut t.angular.z,
                ] {
                    *v = self.draw(rng);
                }
            }
            SensorMsg::LaserScan(l) => {
                for r in l.ranges.iter_mut() {
                    // Bounds are checked against f32 in build_stage.
                    *r = self.draw(rng) as f32;
                }
            }
        }
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::GARBAGE,
    build: |spec, t| Ok(Box::new(Garbage::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Field(|spec, path| FieldFaultSpec {
        garbage_min: Some(spec.garbage_min),
        garbage_max: Some(spec.garbage_max),
        allow_non_finite: Some(spec.allow_non_finite),
        ..FieldFaultSpec::new(path, FieldMode::Garbage)
    }),
    changes: |kind| match kind {
            MsgKind::Odometry => &["pose.pose.position", TWIST_LINEAR, TWIST_ANGULAR],
            MsgKind::LaserScan => &["ranges"],
            MsgKind::NavSatFix => &["latitude", "longitude", "altitude"],
            MsgKind::Imu => &["angular_velocity", "linear_acceleration"],
        },
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::SensorMsg;
    use kraken_interfaces::FaultSpec;

    /// garbage in [-5, 5]: every drawn value in bounds and finite; with
    /// allow_non_finite about 10 % non-finite (of 6000 values, s.e. 0.4 %),
    /// the finite ones still in bounds; covariance untouched.
    #[test]
    fn garbage_is_bounded_and_finite_unless_asked() {
        for allow in [false, true] {
            let mut c = imu_channel(FaultSpec {
                garbage_min: -5.0,
                garbage_max: 5.0,
                allow_non_finite: allow,
                ..FaultSpec::new("imu", FaultSpec::GARBAGE)
            });
            let mut r = rng(9);
            let mut non_finite = 0;
            let mut distinct = std::collections::BTreeSet::new();
            for k in 0..1000 {
                let SensorMsg::Imu(i) =
                    step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).remove(0)
                else {
                    panic!()
                };
                let (w, a) = (i.angular_velocity, i.linear_acceleration);
                for v in [w.x, w.y, w.z, a.x, a.y, a.z] {
                    if v.is_finite() {
                        assert!((-5.0..=5.0).contains(&v), "{v}");
                        distinct.insert(v.to_bits());
                    } else {
                        non_finite += 1;
                    }
                }
                assert_eq!(
                    i.angular_velocity_covariance,
                    imu(ms(0)).angular_velocity_covariance
                );
            }
            assert!(distinct.len() > 5000, "values are random, not constant");
            if allow {
                let frac = non_finite as f64 / 6000.0;
                assert!((frac - 0.1).abs() < 0.02, "non-finite fraction {frac}");
            } else {
                assert_eq!(non_finite, 0);
            }
        }
    }
}
