//! breakbench_sim_bridge: the in-process kinematic plant.
//!
//! * [`config`]: [`PlantConfig`] (`config/robot.yaml`): fixed step, drive
//!   limits, lidar, odometry and ground-truth rates, with integer-nanosecond
//!   [`Timing`].
//! * [`plant`]: [`Plant`], a differential-drive robot with velocity and
//!   acceleration limits, a disc footprint and rigid contact (stop, no
//!   sliding), emitting [`PlantOutputs`]: `(channel, message)` pairs of the
//!   wired sensors (scan, wheel odometry, GNSS, IMU) and the ground truth.
//! * [`lidar`]: [`Lidar`], a ray-casting 2-D lidar (`sensor_msgs/LaserScan`,
//!   REP-117 ranges).
//! * [`geometry`]: [`WorldGeometry`], the world's walls and boxes in `f64`.
//! * [`sensors`]: [`GnssModel`] (exact WGS84 fix of the world's ENU point,
//!   [`breakbench_world::geodesy`]) and [`ImuModel`] (yaw rate,
//!   accelerations) from the true state, for the raw gnss/imu channels.
//! * [`simif`]: [`SimControl`], the simulator side of `simulation_interfaces`
//!   (reset, step, play/pause/stop, the robot's entity state; issue 29).
//! * [`tf`]: the `odom` → `base_link` and static sensor transforms (REP-105).
//!
//! Transport-free: no ROS dependency, sim time is a `Duration` since the
//! plant started, every random draw comes from a seeded `ChaCha8Rng`.

pub mod config;
pub mod error;
pub mod geometry;
pub mod lidar;
mod normal;
pub mod plant;
pub mod sensors;
pub mod simif;
pub mod tf;

pub use config::{
    DriveConfig, FixStatus, GnssConfig, ImuConfig, LidarConfig, OdometryConfig, PlantConfig, Timing,
};
pub use error::SimError;
pub use geometry::WorldGeometry;
pub use lidar::{Lidar, ScanScratch};
pub use plant::{ContactEvent, Plant, PlantOutputs, SENSOR_CHANNELS};
pub use sensors::{GnssModel, ImuModel};
pub use simif::{SimControl, SimState};

/// This crate's version (`CARGO_PKG_VERSION`), for run manifests.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
