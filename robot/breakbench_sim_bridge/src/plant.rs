//! The kinematic plant: a differential-drive (unicycle) robot with velocity
//! and acceleration limits, a disc footprint and rigid contact, stepped on a
//! fixed sim clock.

use std::time::Duration;

use breakbench_world::world::Pose2;
use breakbench_world::World;
use kraken_interfaces::ros::{
    Header, Imu, LaserScan, NavSatFix, Odometry, Point, Pose, PoseWithCovariance, Quaternion, Time,
    Twist, TwistWithCovariance, Vector3,
};
use kraken_interfaces::seed;
use kraken_interfaces::{MsgKind, SensorMsg};
use rand_chacha::ChaCha8Rng;
use rand_distr::Normal;

use crate::config::{PlantConfig, Timing};
use crate::geometry::WorldGeometry;
use crate::lidar::{Lidar, ScanScratch};
use crate::normal::FastNormal;
use crate::sensors::{GnssModel, ImuModel};
use crate::SimError;

/// Frame of the wheel odometry pose (REP-105); its origin is the start pose.
pub const ODOM_FRAME: &str = "odom";
/// Frame of the ground-truth pose (the world file's frame).
pub const WORLD_FRAME: &str = "world";
/// The robot body frame (REP-105).
pub const BASE_FRAME: &str = "base_link";

/// ChaCha8 stream of the lidar range noise (the seed tree's [`seed::PLANT_LIDAR`]).
pub const LIDAR_STREAM: u64 = seed::PLANT_LIDAR;
/// ChaCha8 stream of the wheel-speed noise.
pub const ODOM_STREAM: u64 = seed::PLANT_ODOM;
/// ChaCha8 stream of the GNSS noise.
pub const GNSS_STREAM: u64 = seed::PLANT_GNSS;
/// ChaCha8 stream of the IMU noise.
pub const IMU_STREAM: u64 = seed::PLANT_IMU;

/// Channel of the lidar scans (`sensor_msgs/LaserScan`).
pub const SCAN_CHANNEL: &str = "scan";
/// Channel of the wheel odometry (`nav_msgs/Odometry`, `odom` -> `base_link`).
pub const ODOM_CHANNEL: &str = "odom";
/// Channel of the GNSS fixes (`sensor_msgs/NavSatFix`).
pub const GNSS_CHANNEL: &str = "gnss";
/// Channel of the IMU samples (`sensor_msgs/Imu`).
pub const IMU_CHANNEL: &str = "imu";
/// Every sensor channel the plant can simulate with its message type, in
/// the order a step emits their messages.
pub const SENSOR_CHANNELS: [(&str, MsgKind); 4] = [
    (SCAN_CHANNEL, MsgKind::LaserScan),
    (ODOM_CHANNEL, MsgKind::Odometry),
    (GNSS_CHANNEL, MsgKind::NavSatFix),
    (IMU_CHANNEL, MsgKind::Imu),
];

/// The message type the plant emits on `channel` (`None`: not a sensor
/// channel of the plant).
pub fn sensor_kind(channel: &str) -> Option<MsgKind> {
    SENSOR_CHANNELS
        .iter()
        .find(|(c, _)| *c == channel)
        .map(|(_, k)| *k)
}

/// Bisection iterations on the step fraction at a contact: the contact
/// fraction is resolved to `2^-32` of a step (about 1e-12 m at 5 mm per step).
const CONTACT_BISECTIONS: u32 = 32;

/// The start of a contact: the first step in which the footprint was stopped
/// by `with` (consecutive blocked steps against the same owner are one event).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactEvent {
    /// Sim time of the contact (start of the step plus the fraction of the
    /// step travelled before touching, rounded to ns).
    pub t: Duration,
    /// Footprint centre at contact, world frame, metres.
    pub x_m: f64,
    /// Footprint centre at contact, world frame, metres.
    pub y_m: f64,
    /// `walls_m[i]` for a wall, the obstacle's `name` for a box.
    pub with: String,
}

/// The messages due at the end of one step, stamped with the new sim time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlantOutputs {
    /// `(channel, message)` of every wired sensor due at this step, in the
    /// order of [`SENSOR_CHANNELS`] (the message of the channel's type): `scan` every `1 / lidar.rate_hz`,
    /// `odom` every `1 / odometry.rate_hz`, `gnss` every `1 / gnss.rate_hz`,
    /// `imu` every `1 / imu.rate_hz`.
    pub sensors: Vec<(&'static str, SensorMsg)>,
    /// Ground truth, `world` -> `base_link` (every `1 / truth_rate_hz`): what
    /// `/oracle/odom` publishes. Always computed (it draws no noise).
    pub truth: Option<Odometry>,
}

impl PlantOutputs {
    /// The message of `channel` at this step, if one is due.
    pub fn get(&self, channel: &str) -> Option<&SensorMsg> {
        self.sensors
            .iter()
            .find(|(c, _)| *c == channel)
            .map(|(_, m)| m)
    }

    /// The scan due at this step.
    pub fn scan(&self) -> Option<&LaserScan> {
        match self.get(SCAN_CHANNEL) {
            Some(SensorMsg::LaserScan(m)) => Some(m),
            _ => None,
        }
    }

    /// The wheel odometry due at this step.
    pub fn odom(&self) -> Option<&Odometry> {
        match self.get(ODOM_CHANNEL) {
            Some(SensorMsg::Odometry(m)) => Some(m),
            _ => None,
        }
    }

    /// The GNSS fix due at this step.
    pub fn gnss(&self) -> Option<&NavSatFix> {
        match self.get(GNSS_CHANNEL) {
            Some(SensorMsg::NavSatFix(m)) => Some(m),
            _ => None,
        }
    }

    /// The IMU sample due at this step.
    pub fn imu(&self) -> Option<&Imu> {
        match self.get(IMU_CHANNEL) {
            Some(SensorMsg::Imu(m)) => Some(m),
            _ => None,
        }
    }
}

/// The differential-drive plant.
///
/// Model (per fixed step `dt`, see the crate README):
/// * Command `(v_c, w_c)` clamped to `±max_linear_m_s`, `±max_angular_rad_s`.
/// * Wheel motion `(v, w)` moves toward the command by at most
///   `max_*_accel * dt` per step; the step integrates the mean of the old and
///   new values (exact for a linear velocity ramp, so the straight-line
///   distance from rest is `v T - v^2 / (2 a)` to rounding).
/// * Pose: exact unicycle arc for constant `(v, w)` over the step.
/// * Rigid contact, *stop* (no sliding): the footprint disc's centre must
///   keep clearance `>= footprint_radius_m` from every wall and box edge
///   along the straight chord of every step (so also between samples, up to
///   the arc's sagitta when turning). If the full step would violate it, the largest safe
///   fraction `s` of the step's arc is found by bisection, the centre is
///   put there, and the heading still completes the step's rotation (a disc
///   turning in place cannot penetrate), so a blocked robot can turn away.
///   The wheels keep turning: odometry integrates the commanded motion.
/// * Odometry: wheel speeds `v -+ w L / 2` each multiplied by
///   `1 + N(0, ratio^2)` (fresh draws every step), recombined and integrated
///   with the same arc formula from the origin of `odom` (the start pose).
/// * GNSS and IMU (if the robot file declares them): [`GnssModel`] and
///   [`ImuModel`] sampled from the true state at their rates.
///
/// Only the wired sensors are computed: a sensor nobody consumes casts no
/// ray, integrates nothing and draws no random number. Each sensor has its
/// own ChaCha8 stream, so wiring one changes no other sensor's values.
#[derive(Debug, Clone)]
pub struct Plant {
    cfg: PlantConfig,
    timing: Timing,
    geom: WorldGeometry,
    lidar: Lidar,
    radius_m: f64,
    now_ns: u64,
    pose: Pose2,
    odom_pose: Pose2,
    cmd: (f64, f64),
    vel: (f64, f64),
    true_twist: (f64, f64),
    odom_twist: (f64, f64),
    /// `N(0, wheel_speed_noise_ratio^2)`, drawn as `rand_distr::Normal` would.
    wheel_noise: FastNormal,
    lidar_rng: ChaCha8Rng,
    odom_rng: ChaCha8Rng,
    scan_wired: bool,
    odom_wired: bool,
    gnss: Option<(GnssModel, ChaCha8Rng)>,
    imu: Option<(ImuModel, ChaCha8Rng)>,
    blocked_by: Option<u32>,
    contacts: Vec<ContactEvent>,
    /// Lower bound of the true centre's clearance, metres.
    clear_lb: f64,
    /// The lidar's buffers, reused between scans.
    scan_scratch: ScanScratch,
}

/// Wraps an angle to `(-pi, pi]`.
fn wrap(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    if a > PI {
        a - TAU
    } else if a <= -PI {
        a + TAU
    } else {
        a
    }
}

/// Pose after moving for `dt` seconds at constant `(v, w)` from `p`: the
/// exact unicycle arc, chord `v dt sinc(w dt / 2)` along heading
/// `yaw + w dt / 2`.
fn arc(p: &Pose2, v: f64, w: f64, dt: f64) -> Pose2 {
    let half = 0.5 * w * dt;
    // sinc by its Taylor series below 1e-4 (next term half^4/120 < 1e-18).
    let k = if half.abs() < 1e-4 {
        1.0 - half * half / 6.0
    } else {
        half.sin() / half
    };
    let h = p.yaw_rad + half;
    let chord = v * dt * k;
    Pose2 {
        x_m: p.x_m + chord * h.cos(),
        y_m: p.y_m + chord * h.sin(),
        yaw_rad: wrap(p.yaw_rad + 2.0 * half),
    }
}

/// A `nav_msgs/Odometry` of pose `p` in `frame` (child `base_link`) with
/// body-frame twist `(v m/s, ω rad/s)`, covariances zero (REP-103 units,
/// REP-105 frames). Used for the plant's `/odom` and `/oracle/odom` samples
/// and the bridge's wheel odometry.
pub fn odometry_msg(stamp: Time, frame: &str, p: &Pose2, twist: (f64, f64)) -> Odometry {
    // The strings built as `into()` builds them: their capacity is part of a
    // message's `estimated_bytes` (the hold queues' byte cap).
    let mut o = Odometry {
        header: Header {
            stamp,
            frame_id: frame.into(),
        },
        child_frame_id: BASE_FRAME.into(),
        ..Odometry::default()
    };
    fill_odometry(&mut o, stamp, frame, p, twist);
    o
}

/// Overwrites every field of `o` with [`odometry_msg`]'s message, reusing
/// the allocations of its frame strings (why: the run loop rewrites one
/// ground-truth message 50 times a simulated second).
pub fn fill_odometry(o: &mut Odometry, stamp: Time, frame: &str, p: &Pose2, twist: (f64, f64)) {
    let set = |s: &mut String, v: &str| {
        if s != v {
            s.clear();
            s.push_str(v);
        }
    };
    o.header.stamp = stamp;
    set(&mut o.header.frame_id, frame);
    set(&mut o.child_frame_id, BASE_FRAME);
    o.pose = PoseWithCovariance {
        pose: Pose {
            position: Point {
                x: p.x_m,
                y: p.y_m,
                z: 0.0,
            },
            orientation: Quaternion::from_yaw(p.yaw_rad),
        },
        covariance: [0.0; 36],
    };
    o.twist = TwistWithCovariance {
        twist: Twist {
            linear: Vector3 {
                x: twist.0,
                y: 0.0,
                z: 0.0,
            },
            angular: Vector3 {
                x: 0.0,
                y: 0.0,
                z: twist.1,
            },
        },
        covariance: [0.0; 36],
    };
}

impl Plant {
    /// A plant at rest at `world.start`, sim time 0, computing the sensors of
    /// the `wired` channels (names from [`SENSOR_CHANNELS`]; see
    /// [`PlantConfig::sensor_channels`] for all the robot declares), with
    /// its noise streams derived from `seed` by the seed tree
    /// ([`seed::numbered_stream`]`(seed, k)`) with stream [`LIDAR_STREAM`] for the lidar, [`ODOM_STREAM`] for the
    /// wheels, [`GNSS_STREAM`] and [`IMU_STREAM`], so no sequence depends on
    /// how many draws another made or on which others are wired).
    ///
    /// # Errors
    /// [`SimError::Config`] if `cfg` fails validation,
    /// [`SimError::UnknownSensor`] if a wired channel is not a sensor the
    /// robot declares, [`SimError::NoDatum`] if `gnss` is wired and the world
    /// has no datum, [`SimError::StepTooCoarse`] if
    /// `max_linear_m_s * step_s >= footprint_radius_m`,
    /// [`SimError::StartInCollision`] if the start footprint overlaps the
    /// geometry.
    pub fn new(
        world: &World,
        cfg: &PlantConfig,
        seed: u64,
        wired: &[&str],
    ) -> Result<Self, SimError> {
        let timing = cfg.validate("<PlantConfig>")?;
        let declared = cfg.sensor_channels();
        if let Some(c) = wired.iter().find(|c| !declared.contains(c)) {
            let why = if sensor_kind(c).is_some() {
                format!(
                    "the robot file declares no '{c}' section (declared sensors: {})",
                    declared.join(", ")
                )
            } else {
                format!(
                    "the plant simulates no such sensor (declared sensors: {})",
                    declared.join(", ")
                )
            };
            return Err(SimError::UnknownSensor {
                channel: c.to_string(),
                why,
            });
        }
        let is_wired = |c: &str| wired.contains(&c);
        let radius_m = world.footprint_radius_m;
        let step_m = cfg.drive.max_linear_m_s * cfg.step_s;
        if step_m >= radius_m {
            return Err(SimError::StepTooCoarse { step_m, radius_m });
        }
        let geom = WorldGeometry::new(world);
        let (clearance_m, owner) = geom.clearance(world.start.x_m, world.start.y_m);
        if clearance_m < radius_m {
            return Err(SimError::StartInCollision {
                x_m: world.start.x_m,
                y_m: world.start.y_m,
                with: owner
                    .map(|o| geom.labels()[o as usize].clone())
                    .unwrap_or_default(),
                clearance_m,
                radius_m,
            });
        }
        let lidar = Lidar::new_unchecked(geom.clone(), &cfg.lidar);
        let stream = |k| seed::numbered_stream(seed, k);
        let wheel_noise = Normal::new(0.0, cfg.odometry.wheel_speed_noise_ratio)
            .expect("validated: ratio >= 0, finite")
            .into();
        let gnss = match (&cfg.gnss, is_wired(GNSS_CHANNEL)) {
            (Some(g), true) => {
                let datum = world.datum.ok_or_else(|| SimError::NoDatum {
                    world: world.name.clone(),
                })?;
                Some((GnssModel::new(datum, g), stream(GNSS_STREAM)))
            }
            _ => None,
        };
        let imu = match (&cfg.imu, is_wired(IMU_CHANNEL)) {
            (Some(i), true) => Some((ImuModel::new(i), stream(IMU_STREAM))),
            _ => None,
        };
        Ok(Self {
            cfg: cfg.clone(),
            timing,
            geom,
            lidar,
            radius_m,
            now_ns: 0,
            pose: Pose2 {
                yaw_rad: wrap(world.start.yaw_rad),
                ..world.start
            },
            odom_pose: Pose2 {
                x_m: 0.0,
                y_m: 0.0,
                yaw_rad: 0.0,
            },
            cmd: (0.0, 0.0),
            vel: (0.0, 0.0),
            true_twist: (0.0, 0.0),
            odom_twist: (0.0, 0.0),
            wheel_noise,
            lidar_rng: stream(LIDAR_STREAM),
            odom_rng: stream(ODOM_STREAM),
            scan_wired: is_wired(SCAN_CHANNEL),
            odom_wired: is_wired(ODOM_CHANNEL),
            gnss,
            imu,
            blocked_by: None,
            contacts: Vec::new(),
            clear_lb: clearance_m,
            scan_scratch: ScanScratch::default(),
        })
    }

    /// Sets the commanded body velocity (m/s, rad/s, `base_link`), clamped to
    /// the drive's velocity limits; a non-finite component is taken as 0.
    /// Holds until the next call.
    pub fn set_cmd_vel(&mut self, linear_m_s: f64, angular_rad_s: f64) {
        let clamp = |x: f64, m: f64| if x.is_finite() { x.clamp(-m, m) } else { 0.0 };
        self.cmd = (
            clamp(linear_m_s, self.cfg.drive.max_linear_m_s),
            clamp(angular_rad_s, self.cfg.drive.max_angular_rad_s),
        );
    }

    /// Sim time since the plant started.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(self.now_ns)
    }

    /// The true pose, world frame.
    pub fn true_pose(&self) -> Pose2 {
        self.pose
    }

    /// The odometry pose, `odom` frame (origin at the start pose); stays at
    /// the origin if `odom` is not wired.
    pub fn odom_pose(&self) -> Pose2 {
        self.odom_pose
    }

    /// The wheel motion `(linear m/s, angular rad/s)` after limits.
    pub fn wheel_velocity(&self) -> (f64, f64) {
        self.vel
    }

    /// The true body velocity over the last step `(linear m/s, angular rad/s)`
    /// (the linear part is cut by the travelled fraction at a contact).
    pub fn true_twist(&self) -> (f64, f64) {
        self.true_twist
    }

    /// Every contact onset so far, in time order.
    pub fn contacts(&self) -> &[ContactEvent] {
        &self.contacts
    }

    /// Whether the last step was stopped by contact.
    pub fn in_contact(&self) -> bool {
        self.blocked_by.is_some()
    }

    /// The lidar (for ray casts outside the scan schedule).
    pub fn lidar(&self) -> &Lidar {
        &self.lidar
    }

    /// The configuration and its integer-ns timing.
    pub fn config(&self) -> (&PlantConfig, Timing) {
        (&self.cfg, self.timing)
    }

    /// Advances one fixed step and returns the messages due at the new time.
    pub fn step(&mut self) -> PlantOutputs {
        let mut sensors = Vec::new();
        let mut truth = Odometry::default();
        let due = self.step_into(&mut sensors, &mut truth);
        PlantOutputs {
            sensors,
            truth: due.then_some(truth),
        }
    }

    /// As [`Plant::step`], into buffers the caller keeps between steps (why:
    /// a run steps 100 times a simulated second, and building fresh outputs
    /// allocates and moves every message): `sensors` is cleared and gets
    /// [`PlantOutputs::sensors`]; `truth` is overwritten with the ground
    /// truth if one is due (its strings keep their allocations), and the
    /// return value says whether it was (`PlantOutputs::truth.is_some()`).
    pub fn step_into(
        &mut self,
        sensors: &mut Vec<(&'static str, SensorMsg)>,
        truth: &mut Odometry,
    ) -> bool {
        let dt = self.cfg.step_s;
        let d = &self.cfg.drive;
        // Acceleration limits, then the mean over the step (trapezoid).
        let (v0, w0) = self.vel;
        let dv = d.max_linear_accel_m_s2 * dt;
        let dw = d.max_angular_accel_rad_s2 * dt;
        let v1 = v0 + (self.cmd.0 - v0).clamp(-dv, dv);
        let w1 = w0 + (self.cmd.1 - w0).clamp(-dw, dw);
        self.vel = (v1, w1);
        let (v, w) = (0.5 * (v0 + v1), 0.5 * (w0 + w1));

        // Wheel odometry: the wheels turn whatever the contact does.
        if self.odom_wired {
            let half_l = 0.5 * d.wheel_separation_m;
            let nl = self.wheel_noise.sample(&mut self.odom_rng);
            let nr = self.wheel_noise.sample(&mut self.odom_rng);
            let vl = (v - w * half_l) * (1.0 + nl);
            let vr = (v + w * half_l) * (1.0 + nr);
            let (vo, wo) = (0.5 * (vl + vr), (vr - vl) / d.wheel_separation_m);
            self.odom_pose = arc(&self.odom_pose, vo, wo, dt);
            self.odom_twist = (vo, wo);
        }

        // Ground truth with rigid contact. `clear_lb` is a lower bound of the
        // centre's clearance; every point of this step's arc is within its
        // length |v| dt of the start, so far from everything no geometry query
        // is needed at all.
        let start = self.pose;
        let full = arc(&start, v, w, dt);
        let r = self.radius_m;
        let len = v.abs() * dt;
        let mut owner = None;
        let free = if self.clear_lb - len >= r {
            true
        } else {
            self.clear_lb = self.geom.clearance(start.x_m, start.y_m).0;
            if self.clear_lb - len >= r {
                true
            } else {
                let (c, o) = self
                    .geom
                    .swept_clearance(start.x_m, start.y_m, full.x_m, full.y_m);
                owner = o;
                c >= r
            }
        };
        if free {
            self.pose = full;
            self.clear_lb -= len;
            self.true_twist = (v, w);
            self.blocked_by = None;
        } else {
            let safe = |s: f64| {
                let p = arc(&start, v, w, s * dt);
                let (c, o) = self
                    .geom
                    .swept_clearance(start.x_m, start.y_m, p.x_m, p.y_m);
                (c >= r, o)
            };
            let (mut lo, mut hi, mut hit) = (0.0f64, 1.0f64, owner);
            // Pushing on against a contact: the smallest resolved fraction is
            // already unsafe, so the answer is 0 without bisecting.
            let eps = (0.5f64).powi(CONTACT_BISECTIONS as i32);
            let (ok, o) = safe(eps);
            let iterations = if ok {
                lo = eps;
                CONTACT_BISECTIONS
            } else {
                hi = eps;
                hit = o;
                0
            };
            for _ in 0..iterations {
                let mid = 0.5 * (lo + hi);
                let (ok, o) = safe(mid);
                if ok {
                    lo = mid;
                } else {
                    hi = mid;
                    hit = o;
                }
            }
            let at = arc(&start, v, w, lo * dt);
            self.pose = Pose2 {
                yaw_rad: full.yaw_rad,
                ..at
            };
            self.clear_lb = self.geom.clearance(at.x_m, at.y_m).0;
            self.true_twist = (v * lo, w);
            let hit = hit.expect("a clearance below the radius has an owner");
            if self.blocked_by != Some(hit) {
                self.contacts.push(ContactEvent {
                    t: Duration::from_nanos(self.now_ns + (lo * self.timing.step_ns as f64) as u64),
                    x_m: at.x_m,
                    y_m: at.y_m,
                    with: self.geom.labels()[hit as usize].clone(),
                });
            }
            self.blocked_by = Some(hit);
        }

        self.now_ns += self.timing.step_ns;
        let now = self.now_ns;
        let stamp = Time::from_nanos(now as i64);
        let t = self.timing;
        let due = |period: Option<u64>| period.is_some_and(|p| now.is_multiple_of(p));
        sensors.clear();
        if self.scan_wired && due(Some(t.scan_period_ns)) {
            let scan = self.lidar.scan_with(
                &self.pose,
                Duration::from_nanos(now),
                &mut self.lidar_rng,
                &mut self.scan_scratch,
            );
            sensors.push((SCAN_CHANNEL, SensorMsg::LaserScan(scan)));
        }
        if self.odom_wired && due(Some(t.odom_period_ns)) {
            let o = odometry_msg(stamp, ODOM_FRAME, &self.odom_pose, self.odom_twist);
            sensors.push((ODOM_CHANNEL, SensorMsg::Odometry(o)));
        }
        if let Some((g, rng)) = self.gnss.as_mut().filter(|_| due(t.gnss_period_ns)) {
            let f = g.fix(&self.pose, Duration::from_nanos(now), rng);
            sensors.push((GNSS_CHANNEL, SensorMsg::NavSatFix(f)));
        }
        if let Some((m, rng)) = self.imu.as_mut().filter(|_| due(t.imu_period_ns)) {
            let s = m.sample(&self.pose, self.true_twist, Duration::from_nanos(now), rng);
            sensors.push((IMU_CHANNEL, SensorMsg::Imu(s)));
        }
        let truth_due = due(Some(t.truth_period_ns));
        if truth_due {
            fill_odometry(truth, stamp, WORLD_FRAME, &self.pose, self.true_twist);
        }
        truth_due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_matches_closed_form() {
        // Quarter circle of radius 1: v = 1, w = 1, t = pi/2 from the origin facing +x
        // ends at (1, 1) facing +y.
        let p = arc(
            &Pose2 {
                x_m: 0.0,
                y_m: 0.0,
                yaw_rad: 0.0,
            },
            1.0,
            1.0,
            std::f64::consts::FRAC_PI_2,
        );
        assert!(
            (p.x_m - 1.0).abs() < 1e-15 && (p.y_m - 1.0).abs() < 1e-15,
            "{p:?}"
        );
        assert!((p.yaw_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        // Tiny w uses the series: w = 1e-9, v = 1, dt = 1 -> x = 1 - O(1e-19), y = 5e-10.
        let p = arc(
            &Pose2 {
                x_m: 0.0,
                y_m: 0.0,
                yaw_rad: 0.0,
            },
            1.0,
            1e-9,
            1.0,
        );
        assert!(
            (p.x_m - 1.0).abs() < 1e-15 && (p.y_m - 5e-10).abs() < 1e-20,
            "{p:?}"
        );
    }

    #[test]
    fn wrap_stays_in_range() {
        use std::f64::consts::PI;
        assert_eq!(wrap(PI), PI);
        assert_eq!(wrap(-PI), PI);
        assert!((wrap(3.5) - (3.5 - 2.0 * PI)).abs() < 1e-15);
    }
}
