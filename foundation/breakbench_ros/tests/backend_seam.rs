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

/// The code of `text`, line by line: `//` comments and string literals
/// removed, a string continued over lines (`\` at a line's end) included.
/// A `'"'` char literal does not open a string; the crate's non-test code
/// has no raw strings.
fn code_lines(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut in_str = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            out.push(String::new());
        } else if in_str {
            if c == '\\' {
                if chars.next() == Some('\n') {
                    out.push(String::new());
                }
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '/' && chars.peek() == Some(&'/') {
            while chars.peek().is_some_and(|&n| n != '\n') {
                chars.next();
            }
        } else if c == '\'' && chars.peek() == Some(&'"') {
            chars.next();
        } else if c == '"' {
            in_str = true;
        } else {
            out.last_mut().expect("one line at least").push(c);
        }
    }
    out
}

#[test]
fn the_scan_strips_comments_and_strings_over_lines() {
    let text = "let a = rclrs::X; // rustdds\nlet s = \"one \\\n rclrs two\";\nlet q = '\"'; let b = rustdds::Y;\n";
    let lines = code_lines(text);
    assert_eq!(lines[0].trim(), "let a = rclrs::X;");
    assert_eq!(lines[1].trim(), "let s =");
    assert_eq!(lines[2].trim(), ";");
    assert_eq!(lines[3].trim(), "let q = '; let b = rustdds::Y;");
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
        let lines: Vec<&str> = code.lines().collect();
        for (i, c) in code_lines(code).iter().enumerate() {
            let line = lines.get(i).copied().unwrap_or("");
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
