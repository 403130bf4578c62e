//! Declares every file of `src/faults/` (but `mod.rs`) as a module of
//! `kraken_faults::faults` and lists their `MODES` registrations in
//! `REGISTRY`, so a new fault mode is one new file there (see
//! CREATING_FAULTS.md). Output: `$OUT_DIR/faults.rs`, included by
//! `src/faults/mod.rs`; file-name order, so the build is deterministic.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let dir =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("src/faults");
    // A directory: cargo reruns this when any file in it changes or is added.
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable src/faults entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs") && p.file_stem().is_some_and(|s| s != "mod")
        })
        .collect();
    files.sort();
    let mut out = String::new();
    let mut names = Vec::new();
    for p in &files {
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 file name");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{}: a fault file's name must be a snake_case module name",
            p.display()
        );
        writeln!(
            out,
            "#[path = {:?}]\npub mod {name};",
            p.display().to_string()
        )
        .unwrap();
        names.push(name.to_string());
    }
    out.push_str("\n/// Every fault file's `MODES`, in file-name order.\nconst REGISTRY: &[&[Registration]] = &[\n");
    for n in &names {
        writeln!(out, "    {n}::MODES,").unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("set by cargo")).join("faults.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
