//! Embeds the git commit and dirty flag of the source tree into the `oracle`
//! node for its manifests' provenance (same rule as the workspace root's
//! build.rs, which the in-process campaign uses). Outside a git checkout
//! (e.g. a colcon build from a source tarball) they read "unknown" / true.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(true);
    println!("cargo:rustc-env=BREAKBENCH_ORACLE_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=BREAKBENCH_ORACLE_GIT_DIRTY={dirty}");
    // The dirty flag must follow source edits, not only commits.
    for src in [
        "src",
        "Cargo.toml",
        "../../Cargo.toml",
        "../../src",
        "../../config",
    ] {
        println!("cargo:rerun-if-changed={src}");
    }
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
    }
}
