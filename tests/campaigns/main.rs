//! Campaigns on the embedded plant, end to end and in-process: determinism
//! across job counts and resume (campaign), tamper-evident evidence, the
//! GNSS spoof on the estimator, resilience tests, the severity search, the
//! injection self-tests, shards and merge, the studies' report, and the
//! runs' MCAP recordings.
//!
//! One test binary: every integration-test file is a target of its own in
//! `cargo metadata`, which colcon reads under a 64 KiB line limit
//! (`tests/repository/colcon_layout.rs`), and a binary of its own to link.
//! One group: `cargo test --test campaigns shard`.

#[path = "../common/mod.rs"]
mod common;

mod campaign;
mod evidence;
mod gnss_spoof;
mod recording;
mod resilience;
mod sampled;
mod search;
mod selftest;
mod shard;
mod study_report;
