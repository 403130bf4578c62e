//! breakbench_world: the world a run takes place in, shared by the plant
//! (breakbench_sim_bridge), the controller (simple_navigator) and the oracle
//! (breakbench_oracle), none of which depends on another for it.
//!
//! * [`world`]: [`World`] (walls, box obstacles, operating region, goal
//!   region, clearance threshold, mission timeout, footprint, start pose),
//!   loaded and validated from a world file.
//! * [`geodesy`]: the world's WGS84 datum and the exact geodetic / ECEF /
//!   local east-north-up conversions (NIMA TR8350.2 constants).
//! * [`geometry`]: point-to-shape distances on parry2d (f64) that the world's
//!   checks and the oracle's invariants share.
//! * [`range`]: the declared physical ranges of numeric config fields and
//!   [`range::check_ranges`], used by every config file's loader.
//!
//! Errors are [`kraken_interfaces::ConfigError`]s naming file, line, column
//! and field.

pub mod geodesy;
pub mod geometry;
pub mod range;
pub mod world;

pub use world::{BoxObstacle, GoalRegion, Point2, Pose2, World};
