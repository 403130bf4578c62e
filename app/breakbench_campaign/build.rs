//! Embeds the git commit and dirty flag of the source tree into the binary,
//! for run manifests. Outside a git checkout both read "unknown"/true.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The `version` of the package manifest at `path` (first `version = "..."` line).
fn crate_version(path: &str) -> String {
    println!("cargo:rerun-if-changed={path}");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("version = \"")
                    .and_then(|v| v.strip_suffix('"'))
                    .map(str::to_string)
            })
        })
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    // Paths from this crate's folder: the packages are its siblings, the
    // root package (`breakbench`, the command) its parent.
    for (var, path) in [
        ("BREAKBENCH", "../../Cargo.toml"),
        (
            "KRAKEN_INTERFACES",
            "../../foundation/kraken_interfaces/Cargo.toml",
        ),
        ("KRAKEN_FAULTS", "../../faults/kraken_faults/Cargo.toml"),
        (
            "BREAKBENCH_ORACLE",
            "../../judge/breakbench_oracle/Cargo.toml",
        ),
        (
            "BREAKBENCH_SIM_BRIDGE",
            "../../robot/breakbench_sim_bridge/Cargo.toml",
        ),
    ] {
        println!(
            "cargo:rustc-env=BREAKBENCH_VERSION_{var}={}",
            crate_version(path)
        );
    }
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(true);
    println!("cargo:rustc-env=BREAKBENCH_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=BREAKBENCH_GIT_DIRTY={dirty}");
    // The dirty flag must follow source edits, not only commits.
    for src in [
        "src",
        "Cargo.toml",
        "../../src",
        "../../Cargo.toml",
        "../../config",
        "../../foundation/kraken_interfaces/src",
        "../../faults/kraken_faults/src",
        "../../judge/breakbench_oracle/src",
        "../../robot/breakbench_sim_bridge/src",
        "../../robot/breakbench_navigator/src",
        "../../app/breakbench_supervisor/src",
    ] {
        println!("cargo:rerun-if-changed={src}");
    }
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
}
