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

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// What `cargo metadata --format-version 1 --offline` prints for the
/// workspace: with `no_deps`, the workspace's own packages (what colcon
/// reads); without, the graph resolved with `--all-features`. Each is run
/// once per test binary and shared by the groups.
///
/// # Panics
/// When cargo fails (its stderr in the message).
pub fn cargo_metadata(no_deps: bool) -> &'static [u8] {
    static NO_DEPS: OnceLock<Vec<u8>> = OnceLock::new();
    static RESOLVED: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = if no_deps { &NO_DEPS } else { &RESOLVED };
    cell.get_or_init(|| {
        let extra = if no_deps {
            "--no-deps"
        } else {
            "--all-features"
        };
        let out = Command::new(env!("CARGO"))
            .args(["metadata", extra, "--format-version", "1", "--offline"])
            .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
            .output()
            .expect("running cargo metadata");
        assert!(
            out.status.success(),
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    })
}

mod campaign_layers;
mod colcon_layout;
mod dependency_direction;
mod docs_links;
mod gazebo_consistency;
mod package_xml;
mod scale_out_docs;
