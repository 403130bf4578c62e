//! Breakbench: degraded-state testing of ROS 2 robots.
//!
//! The root package holds the controller under test ([`navigator`]) and the
//! campaign engine ([`campaign`]): scenario files, the in-process run loop
//! (plant → fault stages → navigator, oracle on ground truth), manifests,
//! the summary with Wilson intervals and confusion matrices, the HTML report
//! and JUnit output; and the process supervisor behind `breakbench up`
//! ([`supervisor`]).

pub mod campaign;
pub mod controller;
pub mod navigator;
pub mod supervisor;
