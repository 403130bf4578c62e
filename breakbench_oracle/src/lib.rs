//! breakbench_oracle: judges a run from simulator ground truth only.
//!
//! * [`world`]: the world description shared with the plant (geometry,
//!   operating region, goal region, clearance threshold, mission timeout).
//!
//! The oracle's inputs are the ground-truth pose stream (`/oracle/odom`) and
//! the world. It never reads the robot's estimate (`/odom`, `/tf`) or the
//! robot's self-report.

pub mod error;
pub mod world;

pub use error::OracleError;
pub use world::World;
