//! `scale`: the measured value times a factor (sign flips included). One
//! value model for both engines ([`Scale::value`]): the typed stage applies
//! it to the fields of its message type, the field faults
//! ([`crate::field`]) to each selected leaf.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::field::FieldMode;
use crate::params::{magnitude, Target};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// `scale` (REQ-FAULT-SCALE): the measured value × `factor`; a
/// negative factor also flips the sign.
///
/// * Odometry: `pose.pose.position.{x,y,z}` scaled about the odom frame's
///   origin (the start pose), as a wheel-radius calibration error would;
///   twist, orientation, stamps and covariances unchanged. Factor −1 mirrors
///   the position through the origin.
/// * Imu: `angular_velocity.{x,y,z}` × factor (−1: a gyro mounted upside
///   down / reversed axis); covariances unchanged.
/// * LaserScan: every finite range × factor (factor must be ≥ 0: a negative
///   range has no meaning).
/// * NavSatFix: unsupported (a geographic position has no origin to scale
///   about).
#[derive(Debug, Clone)]
pub struct Scale {
    pub factor: f64,
}

impl Scale {
    /// `scale_factor` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]] (>= 0 on
    /// LaserScan); NavSatFix unsupported.
    ///
    /// # Errors
    /// [`FaultError::Unsupported`] on NavSatFix and for a negative factor on
    /// LaserScan, else [`FaultError::InvalidParameter`].
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        let f = magnitude(spec.mode, "scale_factor", spec.scale_factor)?;
        match t.kind {
            MsgKind::NavSatFix => Err(t.unsupported(
                spec.mode,
                "a geographic fix has no origin to scale about; use bias or bias_ramp",
            )),
            MsgKind::LaserScan if f < 0.0 => {
                Err(t.unsupported(spec.mode, "a negative factor would give negative ranges"))
            }
            _ => Ok(Self { factor: f }),
        }
    }

    /// The value model: `x` × `factor` (the writer saturates: [`map64`]).
    #[inline]
    pub fn value(&self, x: f64) -> f64 {
        x * self.factor
    }
}

impl FaultStage for Scale {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        match &mut msg {
            SensorMsg::Odometry(o) => {
                let p = &mut o.pose.pose.position;
                for v in [&mut p.x, &mut p.y, &mut p.z] {
                    map64(v, |x| self.value(x));
                }
            }
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    map64(v, |x| self.value(x));
                }
            }
            SensorMsg::LaserScan(l) => {
                for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                    map32(r, |x| self.value(x));
                }
            }
            SensorMsg::NavSatFix(_) => {}
        }
        now_only(msg)
    }
    /// Factor 1: `v * 1 = v` exactly for every finite and infinite value
    /// (and `sat` keeps them), so every field is unchanged.
    fn is_identity(&self) -> bool {
        self.factor == 1.0
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::SCALE,
    build: |spec, t| Ok(Box::new(Scale::from_spec(spec, t)?)),
    probe: Some(|| Box::new(crate::RatioXProbe::default())),
    any_type: AnyType::Field(|spec, path| FieldFaultSpec {
        scale_factor: Some(spec.scale_factor),
        ..FieldFaultSpec::new(path, FieldMode::Scale)
    }),
    changes: |kind| match kind {
            MsgKind::Odometry => &["pose.pose.position"],
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

    /// The value model both engines run: x × k (0.25 × −2 = −0.5), written
    /// saturating: f64::MAX × −2 is −f64::MAX, not −inf.
    #[test]
    fn scale_value_model_multiplies_and_saturates() {
        let s = super::Scale { factor: -2.0 };
        assert_eq!(s.value(0.25), -0.5);
        let mut v = f64::MAX;
        crate::faults::map64(&mut v, |x| s.value(x));
        assert_eq!(v, -f64::MAX);
    }

    /// scale: odometry position about the origin (x 2 -> 2.4 for 1.2, -> -2 for
    /// -1: sign flip), imu angular velocity x -1; scan ranges x 0.5 (inf stays inf).
    #[test]
    fn scale_and_sign_flip() {
        let mut r = rng(1);
        for (f, want) in [(1.2, (2.4, -1.2)), (-1.0, (-2.0, 1.0))] {
            let mut c = Channel::new("odom", MsgKind::Odometry)
                .with_probe(Box::new(kraken_faults::RatioXProbe::default()));
            c.set_fault(
                &FaultSpec {
                    scale_factor: f,
                    ..FaultSpec::new("odom", FaultSpec::SCALE)
                },
                ms(0),
            )
            .unwrap();
            let SensorMsg::Odometry(o) =
                step(&mut c, SensorMsg::Odometry(odom(ms(0))), ms(0), &mut r).remove(0)
            else {
                panic!()
            };
            assert_eq!((o.pose.pose.position.x, o.pose.pose.position.y), want);
            assert_eq!(o.twist, odom(ms(0)).twist);
            assert!((c.probes()[0].value().unwrap() - f).abs() < 1e-15);
        }
        let mut c = imu_channel(FaultSpec {
            scale_factor: -1.0,
            ..FaultSpec::new("imu", FaultSpec::SCALE)
        });
        let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!(i.angular_velocity.z, -0.25);
        let mut c = Channel::new("scan", MsgKind::LaserScan);
        c.set_fault(
            &FaultSpec {
                scale_factor: 0.5,
                ..FaultSpec::new("scan", FaultSpec::SCALE)
            },
            ms(0),
        )
        .unwrap();
        let SensorMsg::LaserScan(s) =
            step(&mut c, SensorMsg::LaserScan(scan(ms(0))), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!(&s.ranges[..4], &[0.5, 0.75, 1.0, f32::INFINITY]);
    }
}
