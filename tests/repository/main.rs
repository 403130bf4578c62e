//! Checks of the repository itself: its layout, package manifests,
//! dependency directions, module layers, documentation links, the
//! scale-out examples and the Gazebo world's consistency with the plant's.
//!
//! One test binary for all of them: every integration-test file of a
//! package is a target of its own in `cargo metadata`, which colcon reads
//! under a 64 KiB line limit (`colcon_layout.rs`), and a binary of its own
//! to link. Run one group with `cargo test --test repository docs_links`.

#[path = "../common/mod.rs"]
mod common;

mod campaign_layers;
mod colcon_layout;
mod dependency_direction;
mod docs_links;
mod gazebo_consistency;
mod package_xml;
mod scale_out_docs;
