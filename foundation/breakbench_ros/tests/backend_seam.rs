//! The backend seam inside breakbench_ros (issue 25): only `src/backend/`
//! names the middleware (`ros2_client`, `rustdds`, `rclrs`,
//! `rosidl_runtime_rs`) in code, so the second backend (rclrs, issue 27)
//! is a sibling of `src/backend/ros2_client/` and the rest
//! of the crate (arguments, environment, QoS, clock, shutdown, logging,
//! the entity types) is shared. Comments, string literals (the log filter
//! names the crates' log targets) and `#[cfg(test)]` modules do not count.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `line` without its `//` comment and without its string literals.
fn code_of(line: &str) -> String {
    let code = line.split("//").next().unwrap_or("");
    code.split('"').step_by(2).collect()
}

#[test]
fn only_the_backend_names_the_middleware() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    let mut backend_mentions = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code.lines().enumerate() {
            let c = code_of(line);
            if ["ros2_client", "rustdds", "rclrs", "rosidl_runtime_rs"]
                .iter()
                .any(|m| c.contains(m))
            {
                if f.starts_with(src.join("backend")) {
                    backend_mentions += 1;
                } else {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "ros2-client named outside src/backend/:\n{}",
        found.join("\n")
    );
    assert!(backend_mentions > 0, "the scan sees the backend's own use");
}
