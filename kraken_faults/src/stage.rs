//! Fault stages: one synchronous transformation per fault mode.
//!
//! Every mode of `kraken_interfaces/msg/FaultSpec.msg` is a [`FaultStage`]
//! built by [`build_stage`]. Which message fields each mode touches, per
//! channel type, is written in the stage's docstring and tabulated in
//! `kraken_faults/README.md`. Modes follow `shared/seeds/001` (dropout,
//! degrade, bias_ramp, slip, healthy) and the data and timing fault classes of
//! `shared/seeds/004` ("Typy usterek danych", "Usterki czasu").

use std::time::Duration;

use geographiclib_rs::{DirectGeodesic, Geodesic};
use kraken_interfaces::ros::{NavSatFix, NavSatStatus, Time};
use kraken_interfaces::FaultSpec;
use rand::RngExt;
use rand_distr::{Distribution, Normal};

use crate::params::{
    bounded_non_negative, bounded_positive, finite, invalid, magnitude, probability, sat, sat32,
    Target, MAX_TIMESTAMP_OFFSET_S,
};
pub use crate::params::{bounded_secs, build_stage, MAX_HOLD_S, MAX_TIME_S};
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// A fault between a sensor and its consumer.
///
/// `apply` is called once per input message, in arrival order, with the
/// host's clock `now` (time since the clock's epoch) and the host's seeded
/// generator. It returns the messages to deliver, each with the delay after
/// `now` at which to deliver it: an empty vector withholds the message, two
/// entries duplicate it. Stages keep whatever state they need (a frozen
/// sample, a burst counter), so the same stage instance must see the whole
/// stream of its channel.
pub trait FaultStage: Send {
    /// Applies the fault to one message received at `now`.
    fn apply(
        &mut self,
        msg: SensorMsg,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)>;
    /// Called once by [`crate::Channel::set_fault`] with the time the fault
    /// was set. Time-dependent stages (bias_ramp, step bias) measure from it;
    /// when never called they measure from the first message they see.
    fn on_set(&mut self, _now: Duration) {}
}

fn now_only(msg: SensorMsg) -> Vec<(Duration, SensorMsg)> {
    vec![(Duration::ZERO, msg)]
}

/// Direction of the GNSS bias walk (bias, bias_ramp): a fixed geodesic
/// azimuth of 45° (north-east), as `shared/seeds/001` specifies.
pub const GNSS_BIAS_AZIMUTH_DEG: f64 = 45.0;

/// Moves a fix `distance_m` metres along the WGS 84 geodesic starting at
/// azimuth `azimuth_deg` (clockwise from north), with geographiclib's direct
/// problem (Karney 2013, "Algorithms for geodesics"). A fix that is not a
/// position (latitude outside [-90, 90], non-finite longitude) or a
/// non-finite distance leaves the fix unchanged: the move never turns a
/// finite coordinate into NaN.
pub fn gnss_move(fix: &mut NavSatFix, azimuth_deg: f64, distance_m: f64) {
    if distance_m == 0.0
        || !distance_m.is_finite()
        || !azimuth_deg.is_finite()
        || !(-90.0..=90.0).contains(&fix.latitude)
        || !fix.longitude.is_finite()
    {
        return;
    }
    let (lat, lon) = Geodesic::wgs84().direct(fix.latitude, fix.longitude, azimuth_deg, distance_m);
    if lat.is_finite() && lon.is_finite() {
        fix.latitude = lat;
        fix.longitude = lon;
    }
}

fn scale_cov(cov: &mut [f64], s: f64) {
    for c in cov.iter_mut() {
        *c = sat(*c, *c * s);
    }
}

/// sensor_msgs/Imu marks an absent covariance with element 0 = -1; such a
/// matrix is left as it is.
fn scale_imu_cov(cov: &mut [f64; 9], s: f64) {
    if cov[0] != -1.0 {
        scale_cov(cov, s);
    }
}

/// Time since `set_at` (initialised to the first `now` seen).
fn elapsed(set_at: &mut Option<Duration>, now: Duration) -> f64 {
    let t0 = *set_at.get_or_insert(now);
    now.saturating_sub(t0).as_secs_f64()
}

/// `healthy`: every message delivered at once, bit for bit.
#[derive(Debug, Clone, Default)]
pub struct Passthrough;

impl FaultStage for Passthrough {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        now_only(msg)
    }
}

/// `dropout` (seed 001).
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

/// `degrade` (seed 001): white Gaussian noise N(0, `noise_stddev`²) in the
/// channel's native unit, drawn independently per component, and the reported
/// covariance of the noised quantity × `covariance_scale`.
///
/// * NavSatFix: east and north offsets in metres, converted to
///   latitude/longitude by a WGS 84 geodesic (azimuth atan2(e, n), distance
///   hypot(e, n)); altitude + noise (m); `position_covariance` × scale;
///   `STATUS_GBAS_FIX` → `STATUS_FIX` (other statuses unchanged).
/// * Imu: `angular_velocity.{x,y,z}` + noise (rad/s);
///   `angular_velocity_covariance` × scale (unless marked absent with -1).
/// * Odometry: `twist.twist.linear.{x,y,z}` (m/s) and `angular.{x,y,z}`
///   (rad/s) + noise; `twist.covariance` × scale. Pose unchanged.
/// * LaserScan: every finite range + noise (m); `inf`/NaN ranges unchanged.
///   LaserScan carries no covariance: `covariance_scale` is not used.
#[derive(Debug, Clone)]
pub struct Degrade {
    pub noise: Normal<f64>,
    pub covariance_scale: f64,
}

impl Degrade {
    /// `noise_stddev` in [0, [`crate::params::MAX_MAGNITUDE`]], `covariance_scale` in
    /// (0, [`crate::params::MAX_MAGNITUDE`]] (not read on LaserScan).
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let sd = bounded_non_negative(m, "noise_stddev", spec.noise_stddev)?;
        let cs = if t.kind == MsgKind::LaserScan {
            0.0
        } else {
            bounded_positive(m, "covariance_scale", spec.covariance_scale)?
        };
        let noise =
            Normal::new(0.0, sd).map_err(|e| invalid(m, "noise_stddev", sd, &e.to_string()))?;
        Ok(Self {
            noise,
            covariance_scale: cs,
        })
    }
}

impl FaultStage for Degrade {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let n = self.noise;
        let s = self.covariance_scale;
        match &mut msg {
            SensorMsg::NavSatFix(f) => {
                let e: f64 = n.sample(rng);
                let no: f64 = n.sample(rng);
                let up: f64 = n.sample(rng);
                gnss_move(f, e.atan2(no).to_degrees(), e.hypot(no));
                f.altitude = sat(f.altitude, f.altitude + up);
                scale_cov(&mut f.position_covariance, s);
                if f.status.status == NavSatStatus::STATUS_GBAS_FIX {
                    f.status.status = NavSatStatus::STATUS_FIX;
                }
            }
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    *v = sat(*v, *v + n.sample(rng));
                }
                scale_imu_cov(&mut m.angular_velocity_covariance, s);
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
                    *v = sat(*v, *v + n.sample(rng));
                }
                scale_cov(&mut o.twist.covariance, s);
            }
            SensorMsg::LaserScan(l) => {
                for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                    *r = sat32(*r, f64::from(*r) + n.sample(rng));
                }
            }
        }
        now_only(msg)
    }
}

/// Adds an offset of `b` native units to the channel's biased quantity
/// (shared by `bias` and `bias_ramp`):
/// NavSatFix: moved `b` metres on the fixed 45° geodesic bearing
/// ([`GNSS_BIAS_AZIMUTH_DEG`]); Imu: `angular_velocity.z` + b (rad/s, yaw
/// rate); Odometry: `twist.twist.linear.x` + b (m/s); LaserScan: every
/// finite range + b (m). Covariances and status unchanged.
/// Sums saturate ([`sat`]): a finite value stays finite.
pub fn add_bias(msg: &mut SensorMsg, b: f64) {
    match msg {
        SensorMsg::NavSatFix(f) => gnss_move(f, GNSS_BIAS_AZIMUTH_DEG, b),
        SensorMsg::Imu(m) => {
            let z = &mut m.angular_velocity.z;
            *z = sat(*z, *z + b);
        }
        SensorMsg::Odometry(o) => {
            let x = &mut o.twist.twist.linear.x;
            *x = sat(*x, *x + b);
        }
        SensorMsg::LaserScan(l) => {
            for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                *r = sat32(*r, f64::from(*r) + b);
            }
        }
    }
}

/// `bias_ramp` (seed 001): an offset of `bias_rate` × (now − set time),
/// applied with [`add_bias`]. GNSS walks off on a 45° bearing, the IMU gets a
/// growing yaw-rate bias; the reported covariance stays as it was (the sensor
/// lies confidently).
#[derive(Debug, Clone)]
pub struct BiasRamp {
    pub bias_rate: f64,
    pub set_at: Option<Duration>,
}

impl BiasRamp {
    /// `bias_rate` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]] units/s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            bias_rate: magnitude(spec.mode, "bias_rate", spec.bias_rate)?,
            set_at: None,
        })
    }
}

impl FaultStage for BiasRamp {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        // |rate| <= 1e9 and elapsed <= Duration::MAX (1.8e19 s): finite.
        let b = self.bias_rate * elapsed(&mut self.set_at, now);
        add_bias(&mut msg, b);
        now_only(msg)
    }
    fn on_set(&mut self, now: Duration) {
        self.set_at = Some(now);
    }
}

/// `bias` (seed 004, "Bias/offset"): constant offset `bias` (native units,
/// applied with [`add_bias`]) from `step_at_s` after the fault is set; before
/// the step the message passes unchanged.
#[derive(Debug, Clone)]
pub struct Bias {
    pub bias: f64,
    pub step_at: Duration,
    pub set_at: Option<Duration>,
}

impl Bias {
    /// `bias` in [-[`crate::params::MAX_MAGNITUDE`], [`crate::params::MAX_MAGNITUDE`]] units, `step_at_s`
    /// in [0, [`MAX_TIME_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        Ok(Self {
            bias: magnitude(m, "bias", spec.bias)?,
            step_at: bounded_secs(m, "step_at_s", spec.step_at_s, MAX_TIME_S)?,
            set_at: None,
        })
    }
}

impl FaultStage for Bias {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if elapsed(&mut self.set_at, now) >= self.step_at.as_secs_f64() {
            add_bias(&mut msg, self.bias);
        }
        now_only(msg)
    }
    fn on_set(&mut self, now: Duration) {
        self.set_at = Some(now);
    }
}

/// `slip` (seed 001, odometry only): `twist.twist.linear.{x,y,z}` and
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

/// `stuck` (seed 004, "Stuck"): every message is replaced by the first
/// message the fault saw (all data fields frozen). The header stamp is the
/// incoming one (fresh: the harder case to detect) unless `freeze_stamp`,
/// then it stays the frozen sample's.
#[derive(Debug, Clone)]
pub struct Stuck {
    pub freeze_stamp: bool,
    pub frozen: Option<SensorMsg>,
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

/// `delay`: every message held `delay` through the channel's queue of past
/// messages (the message itself is not recomputed or restamped), as seed 004
/// ("Usterki czasu") requires.
#[derive(Debug, Clone)]
pub struct Delay {
    pub delay: Duration,
}

impl Delay {
    /// `delay_s` in [0, [`MAX_HOLD_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            delay: bounded_secs(spec.mode, "delay_s", spec.delay_s, MAX_HOLD_S)?,
        })
    }
}

impl FaultStage for Delay {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        vec![(self.delay, msg)]
    }
}

/// `scale` (seed 004, "Scale i sign"): the measured value × `factor`; a
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
}

impl FaultStage for Scale {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let k = self.factor;
        match &mut msg {
            SensorMsg::Odometry(o) => {
                let p = &mut o.pose.pose.position;
                for v in [&mut p.x, &mut p.y, &mut p.z] {
                    *v = sat(*v, *v * k);
                }
            }
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    *v = sat(*v, *v * k);
                }
            }
            SensorMsg::LaserScan(l) => {
                for r in l.ranges.iter_mut().filter(|r| r.is_finite()) {
                    *r = sat32(*r, f64::from(*r) * k);
                }
            }
            SensorMsg::NavSatFix(_) => {}
        }
        now_only(msg)
    }
}

/// Probability that a garbage value is non-finite when `allow_non_finite`.
pub const GARBAGE_NON_FINITE_P: f64 = 0.1;

/// `garbage` (seed 004, "Garbage"): values replaced by seeded uniform draws
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
    fn draw(&self, rng: &mut FaultRng) -> f64 {
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

/// `saturation` (seed 004, "Saturation/clipping"): values clipped to
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
    pub limit: f64,
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
        Ok(Self {
            limit: bounded_non_negative(spec.mode, "saturation_limit", spec.saturation_limit)?,
        })
    }
}

impl FaultStage for Saturation {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let l = self.limit;
        match &mut msg {
            SensorMsg::Imu(m) => {
                let w = &mut m.angular_velocity;
                for v in [&mut w.x, &mut w.y, &mut w.z] {
                    *v = v.clamp(-l, l);
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
                    *v = v.clamp(-l, l);
                }
            }
            SensorMsg::LaserScan(s) => {
                let lf = l as f32;
                for r in s.ranges.iter_mut().filter(|r| r.is_finite()) {
                    *r = r.min(lf);
                }
            }
            SensorMsg::NavSatFix(_) => {}
        }
        now_only(msg)
    }
}

/// The loss pattern of [`PacketLoss`].
#[derive(Debug, Clone, PartialEq)]
pub enum LossModel {
    /// Each message lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// With probability `p` a message starts a burst: it and the next
    /// `burst_length - 1` messages are lost.
    Burst { p: f64, burst_length: u32 },
    /// Gilbert-Elliott two-state Markov chain (Gilbert 1960, Elliott 1963),
    /// in its simple form: every message is lost in the bad state and none in
    /// the good one. Per message the state moves good→bad with probability
    /// `p` and bad→good with probability `r`, then the message is judged by
    /// the new state. Stationary loss rate p / (p + r); mean burst 1 / r.
    GilbertElliott { p: f64, r: f64 },
}

/// `packet_loss` (seed 004, "Dropout" patterns): whole messages withheld per
/// [`LossModel`]; delivered messages pass unchanged. All channel types.
#[derive(Debug, Clone)]
pub struct PacketLoss {
    pub model: LossModel,
    /// Messages still to lose in the current burst.
    pub burst_left: u32,
    /// Gilbert-Elliott: currently in the bad state.
    pub bad: bool,
}

impl PacketLoss {
    /// `loss_probability` (and Gilbert-Elliott `recovery_probability`, > 0)
    /// in [0, 1]; burst: `burst_length` >= 1; `loss_model` a LOSS_* constant.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let p = probability(m, "loss_probability", spec.loss_probability)?;
        let model = match spec.loss_model {
            FaultSpec::LOSS_BERNOULLI => LossModel::Bernoulli { p },
            FaultSpec::LOSS_BURST => {
                if spec.burst_length == 0 {
                    return Err(invalid(m, "burst_length", 0.0, "must be >= 1"));
                }
                LossModel::Burst {
                    p,
                    burst_length: spec.burst_length,
                }
            }
            FaultSpec::LOSS_GILBERT_ELLIOTT => {
                let r = probability(m, "recovery_probability", spec.recovery_probability)?;
                if r == 0.0 {
                    return Err(invalid(
                        m,
                        "recovery_probability",
                        r,
                        "must be > 0 (0 never recovers: use dropout)",
                    ));
                }
                LossModel::GilbertElliott { p, r }
            }
            other => {
                return Err(invalid(
                    m,
                    "loss_model",
                    other as f64,
                    "must be a LOSS_* constant (0, 1, 2)",
                ))
            }
        };
        Ok(Self::new(model))
    }
    /// A stage in the good state with no burst running.
    pub fn new(model: LossModel) -> Self {
        Self {
            model,
            burst_left: 0,
            bad: false,
        }
    }
    fn lose(&mut self, rng: &mut FaultRng) -> bool {
        match self.model {
            LossModel::Bernoulli { p } => rng.random_bool(p),
            LossModel::Burst { p, burst_length } => {
                if self.burst_left == 0 && rng.random_bool(p) {
                    self.burst_left = burst_length;
                }
                if self.burst_left > 0 {
                    self.burst_left -= 1;
                    true
                } else {
                    false
                }
            }
            LossModel::GilbertElliott { p, r } => {
                self.bad = if self.bad {
                    !rng.random_bool(r)
                } else {
                    rng.random_bool(p)
                };
                self.bad
            }
        }
    }
}

impl FaultStage for PacketLoss {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if self.lose(rng) {
            Vec::new()
        } else {
            now_only(msg)
        }
    }
}

/// `jitter` (seed 004, "Usterki czasu"): each message held a seeded uniform
/// time in [0, `jitter_s`] through the channel's queue; content and stamp
/// unchanged. Messages whose delays cross are delivered out of order, as on a
/// jittery link. All channel types.
#[derive(Debug, Clone)]
pub struct Jitter {
    pub max: Duration,
}

impl Jitter {
    /// `jitter_s` in [0, [`MAX_HOLD_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            max: bounded_secs(spec.mode, "jitter_s", spec.jitter_s, MAX_HOLD_S)?,
        })
    }
}

impl FaultStage for Jitter {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let d = rng.random_range(0.0..=self.max.as_secs_f64());
        vec![(Duration::from_secs_f64(d), msg)]
    }
}

/// `duplicate`: with probability `probability` the message is delivered
/// twice, back to back, identical (same stamp). All channel types.
#[derive(Debug, Clone)]
pub struct Duplicate {
    pub probability: f64,
}

impl FaultStage for Duplicate {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if rng.random_bool(self.probability) {
            vec![(Duration::ZERO, msg.clone()), (Duration::ZERO, msg)]
        } else {
            now_only(msg)
        }
    }
}

/// `reorder`: with probability `probability` a message is held back and
/// delivered right after the next message (a swapped pair); content and
/// stamps unchanged. A held message waits for the next arrival. All channel
/// types.
#[derive(Debug, Clone)]
pub struct Reorder {
    pub probability: f64,
    pub held: Option<SensorMsg>,
}

impl FaultStage for Reorder {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if let Some(h) = self.held.take() {
            return vec![(Duration::ZERO, msg), (Duration::ZERO, h)];
        }
        if rng.random_bool(self.probability) {
            self.held = Some(msg);
            Vec::new()
        } else {
            now_only(msg)
        }
    }
}

/// `timestamp_jump` (seed 004, "timestamp jump w przód/tył"):
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

/// `corrupt_status` (seed 004, "Corrupted status"): data unchanged, the
/// quality fields lie.
///
/// * NavSatFix: `status.status = STATUS_GBAS_FIX`, `position_covariance` ×
///   `covariance_scale` (choose < 1 for an overstated accuracy),
///   `position_covariance_type` unchanged.
/// * Imu: all three covariance matrices × scale (unless marked absent with -1).
/// * Odometry: `pose.covariance` and `twist.covariance` × scale.
/// * LaserScan: unsupported (it has no status or quality field).
#[derive(Debug, Clone)]
pub struct CorruptStatus {
    pub covariance_scale: f64,
}

impl CorruptStatus {
    /// `covariance_scale` in (0, [`crate::params::MAX_MAGNITUDE`]]; LaserScan unsupported.
    ///
    /// # Errors
    /// [`FaultError::Unsupported`] on LaserScan, else
    /// [`FaultError::InvalidParameter`].
    pub fn from_spec(spec: &FaultSpec, t: Target) -> Result<Self, FaultError> {
        if t.kind == MsgKind::LaserScan {
            return Err(t.unsupported(
                spec.mode,
                "LaserScan has no status or covariance field to corrupt",
            ));
        }
        Ok(Self {
            covariance_scale: bounded_positive(
                spec.mode,
                "covariance_scale",
                spec.covariance_scale,
            )?,
        })
    }
}

impl FaultStage for CorruptStatus {
    fn apply(
        &mut self,
        mut msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        let s = self.covariance_scale;
        match &mut msg {
            SensorMsg::NavSatFix(f) => {
                f.status.status = NavSatStatus::STATUS_GBAS_FIX;
                scale_cov(&mut f.position_covariance, s);
            }
            SensorMsg::Imu(m) => {
                scale_imu_cov(&mut m.orientation_covariance, s);
                scale_imu_cov(&mut m.angular_velocity_covariance, s);
                scale_imu_cov(&mut m.linear_acceleration_covariance, s);
            }
            SensorMsg::Odometry(o) => {
                scale_cov(&mut o.pose.covariance, s);
                scale_cov(&mut o.twist.covariance, s);
            }
            SensorMsg::LaserScan(_) => {}
        }
        now_only(msg)
    }
}
