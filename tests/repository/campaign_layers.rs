//! The campaign engine's modules are layered (issue 25): the scenario
//! schema (`campaign::scenario` and its submodules: the file's types, the
//! resilience tests and severity searches it declares) imports no other
//! campaign module, and the modules of the campaign crate
//! (`app/breakbench_campaign/src/`) import each other
//! without a cycle, so each can be read and changed from the bottom up.
//!
//! A module's imports are read from its source (non-test code, comments
//! removed): every `crate::<m>` and every `super::<m>` that leaves the
//! file's own module and names a campaign module `<m>`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn campaign_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("app/breakbench_campaign/src")
}

/// The top-level modules of the campaign crate (from `lib.rs`'s `pub mod m;`).
fn modules() -> BTreeSet<String> {
    let text = std::fs::read_to_string(campaign_dir().join("lib.rs"))
        .expect("app/breakbench_campaign/src/lib.rs");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// `src` without `//` comments and without its `#[cfg(test)]` tail.
fn code(src: &str) -> String {
    let src = src.split("#[cfg(test)]").next().unwrap_or("");
    src.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers following each occurrence of `prefix` in `code` that is
/// not itself part of a longer path (`a::super::` does not count).
fn after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        let tail = &rest[i + prefix.len()..];
        let id: String = tail
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !matches!(before, Some(c) if c.is_alphanumeric() || c == '_' || c == ':')
            && !id.is_empty()
        {
            out.push(id);
        }
        rest = tail;
    }
    out
}

/// Campaign module → the campaign modules it imports, over every non-test
/// source file of the campaign crate (a file in `m/` or named `m.rs` belongs
/// to `m`).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let mut g: BTreeMap<String, BTreeSet<String>> =
        mods.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    let mut stack = vec![campaign_dir()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read app/breakbench_campaign/src") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(campaign_dir())
                .expect("below app/breakbench_campaign/src");
            let parts: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            let name = parts.last().expect("a file name");
            if parts.len() == 1 && name == "lib.rs" || name == "tests.rs" || !name.ends_with(".rs")
            {
                continue;
            }
            let owner = parts[0].trim_end_matches(".rs").to_string();
            // How many `super::` reach the crate root from this file's module:
            // `m.rs` and `m/mod.rs` 1, `m/x.rs` 2, `m/x/y.rs` 3.
            let depth = if name == "mod.rs" {
                parts.len() - 1
            } else {
                parts.len()
            };
            let up = "super::".repeat(depth);
            let src = code(&std::fs::read_to_string(&p).expect("source file"));
            let mut refs = after(&src, "crate::");
            refs.extend(after(&src, &up));
            let deps = g
                .get_mut(&owner)
                .unwrap_or_else(|| panic!("{} is in no module of lib.rs", rel.display()));
            deps.extend(refs.into_iter().filter(|r| mods.contains(r) && *r != owner));
        }
    }
    g
}

#[test]
fn the_scenario_schema_imports_no_other_campaign_module() {
    let g = graph();
    let deps = &g["scenario"];
    assert!(
        deps.is_empty(),
        "campaign::scenario imports {deps:?}: the schema must sit below them"
    );
}

#[test]
fn the_campaign_modules_import_each_other_without_a_cycle() {
    let g = graph();
    // Depth-first search; a grey node met again closes a cycle.
    fn visit<'a>(
        n: &'a str,
        g: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(true) => return None,
            Some(false) => {
                let from = path.iter().position(|p| *p == n).unwrap_or(0);
                let mut cycle: Vec<String> = path[from..].iter().map(|s| s.to_string()).collect();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(n, false);
        path.push(n);
        for d in &g[n] {
            if let Some(c) = visit(d, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n, true);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if let Some(cycle) = visit(n, &g, &mut state, &mut Vec::new()) {
            panic!(
                "import cycle between campaign modules: {}",
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn the_reader_sees_imports_through_super_and_crate_paths() {
    // The parser itself: a file's `super::` that leaves its module counts,
    // a longer path ending in `super::` does not, comments do not.
    let src = "use super::plan::x;\nuse a::super::run;\n// use super::graph;\nfn f() { crate::store::g(); }";
    assert_eq!(after(&code(src), "super::"), vec!["plan"]);
    assert_eq!(after(&code(src), "crate::"), vec!["store"]);
    let g = graph();
    assert!(
        g["runner"].contains("plan"),
        "runner imports plan: {:?}",
        g["runner"]
    );
    assert!(
        g["load"].contains("run"),
        "load (load/mod.rs) imports run: {:?}",
        g["load"]
    );
}
