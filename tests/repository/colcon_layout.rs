//! A plain `colcon build` of this repository works (REQ-COLCON-PLAIN).
//!
//! Two properties of the Cargo workspace that colcon depends on and that an
//! innocent change breaks without any cargo command noticing:
//!
//! * `cargo metadata --no-deps --format-version 1` stays under 64 KiB.
//!   colcon-cargo reads that one-line JSON through colcon-core's `run`, which
//!   reads a child's output line by line with asyncio's default `StreamReader`
//!   limit of 2^16 bytes; a longer line is silently dropped and the build
//!   aborts with "Expecting value: line 1 column 1" (measured with
//!   colcon-core 0.21.3 and colcon-cargo 0.2.0 at 71.7 KB, when the
//!   workspace-hack crate was a member).
//! * no `[[bin]]` has `required-features`: cargo-ament-build 0.1.11 builds
//!   but does not install such a binary, so `ros2 launch` would not find it.

use serde_json::Value;

/// asyncio's default `StreamReader` limit (`asyncio.streams._DEFAULT_LIMIT`).
const ASYNCIO_LINE_LIMIT: usize = 1 << 16;

/// The longest absolute path of the clone (the folder holding the root
/// `Cargo.toml`, e.g. `/home/<user>/ros2_ws/src/breakbench`) for which
/// plain `colcon build` must work. `cargo metadata` repeats that path in
/// every manifest, target and path-dependency entry, so the same tree gives
/// a longer line in a deeper workspace; the check below holds the line for
/// this path length, not only for where the test happens to run.
/// `docs/nav2.md` ("Building with colcon") tells users the same number.
const MAX_CLONE_PATH: usize = 60;

/// The longest line cargo prints (bytes), the JSON, and how often the
/// workspace root appears in that line (as cargo escapes it).
fn metadata() -> (usize, Value, usize) {
    let stdout = crate::cargo_metadata(true);
    let longest = stdout
        .split(|b| *b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let meta: Value = serde_json::from_slice(stdout).expect("cargo metadata JSON");
    let escaped = serde_json::to_string(meta["workspace_root"].as_str().unwrap()).unwrap();
    let needle = escaped.trim_matches('"').as_bytes();
    let repeats = stdout
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count();
    (longest, meta, repeats)
}

#[test]
fn cargo_metadata_fits_colcons_line_limit() {
    let (longest, meta, repeats) = metadata();
    let root = meta["workspace_root"].as_str().unwrap();
    assert!(repeats > 0, "{root} not found in cargo metadata");
    let fixed = longest - repeats * root.len();
    let at_max = fixed + repeats * MAX_CLONE_PATH;
    let fits = (ASYNCIO_LINE_LIMIT - 1 - fixed) / repeats;
    assert!(
        at_max < ASYNCIO_LINE_LIMIT,
        "`cargo metadata --no-deps` prints a {longest}-byte line here ({root}, {} chars); \
         cloned at a {MAX_CLONE_PATH}-char path it would print {at_max} bytes and colcon \
         reads at most {ASYNCIO_LINE_LIMIT} (the path is repeated {repeats} times; \
         today it fits up to {fits} chars)",
        root.len()
    );
    let names: Vec<&str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"kraken_faults") && names.contains(&"breakbench"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"breakbench_hack"),
        "the workspace-hack crate is a member again: {names:?}"
    );
    // Headroom worth knowing about when it shrinks.
    println!(
        "cargo metadata --no-deps: {longest} bytes of {ASYNCIO_LINE_LIMIT} here; \
         {at_max} at a {MAX_CLONE_PATH}-char clone path; fits up to {fits} chars"
    );
}

#[test]
fn no_binary_needs_features_cargo_ament_build_would_skip() {
    let (_, meta, _) = metadata();
    let mut gated = Vec::new();
    let mut bins = 0;
    for p in meta["packages"].as_array().unwrap() {
        for t in p["targets"].as_array().unwrap() {
            let is_bin = t["kind"].as_array().unwrap().iter().any(|k| k == "bin");
            if !is_bin {
                continue;
            }
            bins += 1;
            if t.get("required-features").is_some_and(|r| !r.is_null()) {
                gated.push(format!(
                    "{}/{}",
                    p["name"].as_str().unwrap(),
                    t["name"].as_str().unwrap()
                ));
            }
        }
    }
    assert!(bins >= 10, "only {bins} binaries found");
    assert!(
        gated.is_empty(),
        "binaries colcon would not install (required-features): {gated:?}"
    );
}
