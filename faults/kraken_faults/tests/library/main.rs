//! The fault library's tests, in one test binary: every integration-test
//! file is a target of its own in `cargo metadata`, which colcon reads under
//! a 64 KiB line limit (the root package's `tests/repository/colcon_layout.rs`),
//! and a binary of its own to link. One group: `cargo test -p kraken_faults
//! --test library fuzz`. Among them, the tests that start the node binaries
//! (`ros_node_cli.rs`, with the `node` feature) and read the sources
//! (`loader_discipline.rs`).

#[path = "../common/mod.rs"]
mod common;

mod actuator;
mod bug_scenarios;
mod channel_rng;
mod corpus;
mod files;
mod fuzz;
mod hold_limits;
mod loader_discipline;
mod modes;
mod negative;
mod provenance;
mod readme;
mod recording_types;
mod relay;
mod ros_node_cli;
