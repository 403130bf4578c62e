//! The interface contract, in one test binary: the `.msg`/`.srv` files
//! against the Rust types (`msg_files`) and each mode's main parameter
//! (`main_parameter`). One binary because every integration-test file is a
//! target of its own in `cargo metadata`, which colcon reads under a 64 KiB
//! line limit (the root package's `tests/repository/colcon_layout.rs`).

mod main_parameter;
mod msg_files;
