//! breakbench_oracle: judges a run from simulator ground truth only.
//!
//! * [`pose`]: [`PoseSample`], one ground-truth pose from `/oracle/odom`.
//! * [`verdict`]: the three invariants (`operating_region_containment`,
//!   `obstacle_clearance`, `mission_completion_true_pose`), the streaming
//!   [`Monitor`] and the batch [`judge`], giving a [`Verdict`].
//! * [`isolation`]: [`RunEvidence`] (the campaign's entry from a run's
//!   evidence to its verdict) and the verdict [`isolation_check`].
//! * [`expect`]: resilience tests: expectations, triggers, verdict classes
//!   and the timeline.
//! * [`verdict_line`]: [`VerdictLine`], the line the oracle node prints once
//!   a run is judged and `breakbench up` reads back.
//!
//! The oracle's inputs are the ground-truth pose stream (`/oracle/odom`) and
//! the world. It never reads the robot's estimate (`/odom`, `/tf`) or the
//! robot's self-report: no function that produces a [`Verdict`] takes either.

pub mod error;
pub mod expect;
pub mod isolation;
pub mod pose;
pub mod verdict;
pub mod verdict_line;

pub use error::OracleError;
pub use isolation::{isolation_check, IsolationOutcome, RunEvidence};
pub use pose::PoseSample;
pub use verdict::{judge, judge_with_margins, Margins, Monitor, PredicateResult, Verdict};
pub use verdict_line::VerdictLine;
