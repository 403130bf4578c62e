//! Breakbench: degraded-state testing of ROS 2 robots.
//!
//! The root package holds the campaign engine ([`campaign`]): scenario files, the in-process run loop
//! (plant → fault stages → navigator, oracle on ground truth), manifests,
//! the summary with Wilson intervals and confusion matrices, the HTML report
//! and JUnit output; and the process supervisor behind `breakbench up`
//! ([`supervisor`]). Its `simple_navigator` binary runs the controller under
//! test, the `breakbench_navigator` crate, as a ROS 2 node.

pub mod campaign;
/// The process supervisor (its own crate, `breakbench_supervisor`).
pub use breakbench_supervisor as supervisor;
