//! What the command does with bad, hostile or oversized input: the load
//! checks (every refusal names file, line and field), the resource budget,
//! fuzzed input files, output that never breaks, and harness checks that
//! fail the command.
//!
//! One test binary: every integration-test file is a target of its own in
//! `cargo metadata`, which colcon reads under a 64 KiB line limit
//! (`tests/repository/colcon_layout.rs`), and a binary of its own to link.
//! One group: `cargo test --test inputs budget`.

#[path = "../common/mod.rs"]
mod common;

mod budget;
mod config_fuzz;
mod harness_checks;
mod load_checks;
mod output_safety;
