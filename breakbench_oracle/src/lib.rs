//! breakbench_oracle: judges a run from simulator ground truth only.
//!
//! * [`world`]: the world description shared with the plant (geometry,
//!   operating region, goal region, clearance threshold, mission timeout).
//! * [`pose`]: [`PoseSample`], one ground-truth pose from `/oracle/odom`.
//! * [`verdict`]: the three invariants (`operating_region_containment`,
//!   `obstacle_clearance`, `mission_completion_true_pose`), the streaming
//!   [`Monitor`] and the batch [`judge`], giving a [`Verdict`].
//! * [`isolation`]: [`SelfReport`], [`RunEvidence`] (the campaign's entry from
//!   a run's evidence to its verdict) and the verdict [`isolation_check`].
//! * [`range`]: the declared physical ranges of numeric config fields and
//!   [`range::check_ranges`].
//! * [`stats`]: the Wilson score interval and the self-report × oracle
//!   [`Confusion`] matrix.
//! * [`verdict_line`]: [`VerdictLine`], the line the oracle node prints once
//!   a run is judged and `breakbench up` reads back.
//!
//! The oracle's inputs are the ground-truth pose stream (`/oracle/odom`) and
//! the world. It never reads the robot's estimate (`/odom`, `/tf`) or the
//! robot's self-report: no function that produces a [`Verdict`] takes either.

pub mod error;
mod geometry;
pub mod isolation;
pub mod manifest;
pub mod pose;
pub mod range;
pub mod stats;
pub mod verdict;
pub mod verdict_line;
pub mod world;

pub use error::OracleError;
pub use isolation::{isolation_check, IsolationOutcome, RunEvidence, SelfReport};
pub use pose::PoseSample;
pub use stats::{wilson, Confusion};
pub use verdict::{judge, Monitor, PredicateResult, Verdict};
pub use verdict_line::VerdictLine;
pub use world::World;
