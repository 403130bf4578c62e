//! A static 2-D lidar by ray casting against the world geometry, producing
//! `sensor_msgs/LaserScan` with REP-117 range semantics.

use std::time::Duration;

use breakbench_world::world::Pose2;
use breakbench_world::World;
use kraken_interfaces::ros::{Header, LaserScan, Time};
use rand::Rng;
use rand_distr::Normal;

use crate::config::LidarConfig;
use crate::geometry::{FanDirs, FanScratch, WorldGeometry};
use crate::normal::FastNormal;
use crate::SimError;

/// The lidar's frame (REP-105 / TurtleBot3 naming). Mounted at the robot
/// centre with the orientation of `base_link`.
pub const SCAN_FRAME: &str = "base_scan";

/// The working buffers of one scan ([`Lidar::scan_with`]): the noise-free
/// ranges and the ray cast's per-scan directions and bearings. Holds no
/// state between scans, only allocations.
#[derive(Debug, Clone, Default)]
pub struct ScanScratch {
    ranges: Vec<f64>,
    fan: FanScratch,
}

/// A ray-casting 2-D lidar over a fixed world.
///
/// Beam `i` (0-based, `i < beams`) points at `angle_min + i * angle_increment`
/// in `base_scan`, with `angle_increment = 2 pi / beams`. Each scan is taken
/// at one instant (the robot does not move during a scan), so
/// `time_increment = 0`; `scan_time = 1 / rate_hz`.
///
/// Range of beam `i`: `r = t + n_i`, `t` the exact `f64` distance from the
/// robot centre to the first wall or box edge along the beam (`inf` if none),
/// `n_i ~ N(0, range_noise_stddev_m^2)`. REP-117: `r > range_max` or no
/// return gives `+inf`, `r < range_min` gives `-inf`. One noise value is drawn
/// per beam whatever the geometry, so a scan always consumes `beams` normal
/// draws from its stream. `intensities` is empty.
#[derive(Debug, Clone)]
pub struct Lidar {
    geom: WorldGeometry,
    cfg: LidarConfig,
    /// `cos` and `sin` of every beam angle in `base_scan`.
    dirs: FanDirs,
    /// `N(0, range_noise_stddev_m^2)`, drawn as `rand_distr::Normal` would.
    noise: FastNormal,
    angle_increment: f64,
}

impl Lidar {
    /// Precomputes the world geometry and the beam directions.
    ///
    /// # Errors
    /// [`SimError::Config`] if `cfg` fails validation (beams, ranges, noise).
    pub fn new(world: &World, cfg: &LidarConfig) -> Result<Self, SimError> {
        cfg.validate("<LidarConfig>", "")?;
        Ok(Self::new_unchecked(WorldGeometry::new(world), cfg))
    }

    pub(crate) fn new_unchecked(geom: WorldGeometry, cfg: &LidarConfig) -> Self {
        let inc = std::f64::consts::TAU / f64::from(cfg.beams);
        let angles = (0..cfg.beams).map(|i| cfg.angle_min_rad + f64::from(i) * inc);
        let dirs = FanDirs {
            cos: angles.clone().map(f64::cos).collect(),
            sin: angles.map(f64::sin).collect(),
        };
        let noise = Normal::new(0.0, cfg.range_noise_stddev_m)
            .expect("validated: stddev >= 0, finite")
            .into();
        Self {
            geom,
            cfg: cfg.clone(),
            dirs,
            noise,
            angle_increment: inc,
        }
    }

    /// The geometry the lidar sees.
    pub fn geometry(&self) -> &WorldGeometry {
        &self.geom
    }

    /// Angle of beam `i` in `base_scan`, radians.
    pub fn beam_angle(&self, i: usize) -> f64 {
        self.cfg.angle_min_rad + i as f64 * self.angle_increment
    }

    /// Noise-free distance (metres, `inf` if no return at any range) from
    /// the robot centre at `pose` to the first surface along beam `i`.
    pub fn true_range(&self, pose: &Pose2, i: usize) -> f64 {
        let (c, s) = (pose.yaw_rad.cos(), pose.yaw_rad.sin());
        let (bc, bs) = (self.dirs.cos[i], self.dirs.sin[i]);
        self.geom
            .cast(pose.x_m, pose.y_m, c * bc - s * bs, s * bc + c * bs)
    }

    /// Fills `ranges` (length `beams`) with one noisy scan from `pose`.
    ///
    /// # Panics
    /// If `ranges.len() != beams`.
    pub fn scan_into<R: Rng + ?Sized>(&self, pose: &Pose2, rng: &mut R, ranges: &mut [f32]) {
        assert_eq!(
            ranges.len(),
            self.dirs.cos.len(),
            "ranges must hold one value per beam"
        );
        let (noise, lo, hi) = (self.noise, self.cfg.range_min_m, self.cfg.range_max_m);
        for (r, &t) in ranges.iter_mut().zip(&self.true_ranges(pose)) {
            *r = reading(t + noise.sample(rng), lo, hi);
        }
    }

    /// The noise-free range of every beam from `pose` (the fan cast).
    fn true_ranges(&self, pose: &Pose2) -> Vec<f64> {
        let mut scratch = ScanScratch::default();
        self.true_ranges_into(pose, &mut scratch);
        scratch.ranges
    }

    /// As `true_ranges`, into `scratch.ranges` (cleared and resized to
    /// `beams`; every buffer's capacity is reused).
    fn true_ranges_into(&self, pose: &Pose2, scratch: &mut ScanScratch) {
        let (c, s) = (pose.yaw_rad.cos(), pose.yaw_rad.sin());
        let t = &mut scratch.ranges;
        t.clear();
        t.resize(self.dirs.cos.len(), f64::INFINITY);
        let beam0 = pose.yaw_rad + self.cfg.angle_min_rad;
        self.geom.cast_fan(
            pose.x_m,
            pose.y_m,
            (c, s),
            beam0,
            self.angle_increment,
            &self.dirs,
            &mut scratch.fan,
            t,
        );
    }

    /// One `LaserScan` from `pose`, stamped `stamp` (sim time), frame
    /// [`SCAN_FRAME`].
    pub fn scan<R: Rng + ?Sized>(&self, pose: &Pose2, stamp: Duration, rng: &mut R) -> LaserScan {
        self.scan_with(pose, stamp, rng, &mut ScanScratch::default())
    }

    /// As [`Lidar::scan`], with `scratch` as the buffers of the ray cast
    /// (their contents are overwritten; keep it between scans to reuse its
    /// allocations).
    pub fn scan_with<R: Rng + ?Sized>(
        &self,
        pose: &Pose2,
        stamp: Duration,
        rng: &mut R,
        scratch: &mut ScanScratch,
    ) -> LaserScan {
        // As `scan_into`, collected without zero-filling a buffer first. The
        // noise and the range limits are copied into the closure (`move`)
        // so that the loop keeps them in registers (the generator's writes
        // could otherwise alias them for the optimiser, reloading them
        // every beam).
        self.true_ranges_into(pose, scratch);
        let (noise, lo, hi) = (self.noise, self.cfg.range_min_m, self.cfg.range_max_m);
        let ranges: Vec<f32> = scratch
            .ranges
            .iter()
            .map(move |&t| reading(t + noise.sample(rng), lo, hi))
            .collect();
        let n = self.dirs.cos.len();
        LaserScan {
            header: Header {
                stamp: Time::from_nanos(stamp.as_nanos() as i64),
                frame_id: SCAN_FRAME.into(),
            },
            angle_min: self.cfg.angle_min_rad as f32,
            angle_max: self.beam_angle(n - 1) as f32,
            angle_increment: self.angle_increment as f32,
            time_increment: 0.0,
            scan_time: (1.0 / self.cfg.rate_hz) as f32,
            range_min: self.cfg.range_min_m as f32,
            range_max: self.cfg.range_max_m as f32,
            ranges,
            intensities: Vec::new(),
        }
    }
}

/// The reported range of a noisy distance `m` (REP-117) for a lidar with
/// limits `[range_min, range_max]`.
#[inline]
fn reading(m: f64, range_min: f64, range_max: f64) -> f32 {
    if m > range_max || m.is_nan() {
        f32::INFINITY
    } else if m < range_min {
        f32::NEG_INFINITY
    } else {
        m as f32
    }
}
