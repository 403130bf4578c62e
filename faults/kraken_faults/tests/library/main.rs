//! The fault library's tests, in one test binary: every integration-test
//! file is a target of its own in `cargo metadata`, which colcon reads under
//! a 64 KiB line limit (the root package's `tests/repository/colcon_layout.rs`),
//! and a binary of its own to link. One group: `cargo test -p kraken_faults
//! --test library fuzz`. The tests that start the node binaries
//! (`ros_node_cli.rs`) and read the sources (`loader_discipline.rs`) stay
//! their own binaries.

#[path = "../common/mod.rs"]
mod common;

mod actuator;
mod bug_scenarios;
mod channel_rng;
mod corpus;
mod files;
mod fuzz;
mod hold_limits;
mod modes;
mod negative;
mod provenance;
mod readme;
mod relay;
