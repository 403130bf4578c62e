//! The README is the front door and the guides in `docs/` hold the rest
//! (issue 25): the README stays short and keeps the test command CI runs
//! (`.ci/run` runs `./scripts/test.sh`, "the exact test command from
//! README.md"); every relative link of the README, of `docs/*.md` and of the
//! two how-tos resolves to a file of the repository, and a `#fragment` to a
//! heading of the linked Markdown file; every guide of `docs/` is listed in
//! `docs/README.md`.

use crate::common;
use common::root;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The Markdown files whose links are checked.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![
        root().join("README.md"),
        root().join("faults/kraken_faults/CREATING_FAULTS.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// Text outside fenced code blocks (a link inside a code block is not one).
fn prose(md: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Targets of the inline links `[text](target)` of `md`.
fn links(md: &str) -> Vec<String> {
    let md = prose(md);
    let mut out = Vec::new();
    let mut rest = md.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(j) = rest.find(')') {
            out.push(rest[..j].to_string());
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, every other
/// character but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(md: &str) -> BTreeSet<String> {
    prose(md)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn the_readme_is_a_front_door_with_the_ci_test_command() {
    let readme = text(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: the front door holds what Breakbench is, the two commands, a 5-minute tour and links; move reference to docs/"
    );
    for must in [
        "\n./scripts/test.sh\n",
        "cargo run --release -- campaign scenarios/corridor_study.yaml --out out/corridor",
        "ros2 launch breakbench corridor.launch.py",
        "ros2 service call /fault_injector/set_fault",
        "docs/README.md",
    ] {
        assert!(readme.contains(must), "README.md lacks {must:?}");
    }
    let ci = text(&root().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim() == "./scripts/test.sh"),
        ".ci/run no longer runs README.md's test command ./scripts/test.sh"
    );
}

#[test]
fn every_relative_link_resolves() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let dir = page.parent().expect("a page's folder");
        for target in links(&text(&page)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                page.clone()
            } else {
                dir.join(path)
            };
            checked += 1;
            if !file.exists() {
                bad.push(format!("{}: {target}: no such file", page.display()));
                continue;
            }
            if let Some(f) = fragment {
                if file.extension().is_some_and(|x| x == "md") && !anchors(&text(&file)).contains(f)
                {
                    bad.push(format!(
                        "{}: {target}: no heading #{f} in {}",
                        page.display(),
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the parser broken?"
    );
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn docs_readme_lists_every_guide() {
    let index = text(&root().join("docs/README.md"));
    let listed: BTreeSet<String> = links(&index).into_iter().collect();
    for page in pages() {
        let Ok(rel) = page.strip_prefix(root().join("docs")) else {
            continue;
        };
        let rel = rel.to_string_lossy().into_owned();
        if rel == "README.md" {
            continue;
        }
        assert!(
            listed.contains(&rel),
            "docs/README.md does not list docs/{rel}"
        );
    }
}

#[test]
fn slugs_are_github_s() {
    assert_eq!(slug(" 5. Building it: colcon"), "5-building-it-colcon");
    assert_eq!(slug(" Node: `fault_injector`"), "node-fault_injector");
    assert_eq!(
        slug(" The corridor study: results"),
        "the-corridor-study-results"
    );
}
