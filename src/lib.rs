//! Breakbench: degraded-state testing of ROS 2 robots.
//!
//! The root package is the `breakbench` command (`src/main.rs`, one module
//! per subcommand in `src/cmd/`) and three ROS 2 binaries (`src/bin/`: the
//! `simple_navigator` node running the controller under test, the
//! resilience-test orchestrator and the readiness check). Its library only
//! re-exports the two crates the command drives, under the paths the tests
//! and the binaries use: the campaign engine ([`campaign`],
//! `breakbench_campaign`) and the process supervisor behind `breakbench up`
//! ([`supervisor`], `breakbench_supervisor`).

/// The campaign engine (its own crate, `breakbench_campaign`).
pub use breakbench_campaign as campaign;
/// The process supervisor (its own crate, `breakbench_supervisor`).
pub use breakbench_supervisor as supervisor;
