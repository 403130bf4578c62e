//! Dependencies point the right way, as `cargo metadata` resolves them (all
//! features on, so the ROS node features count too; normal and build
//! dependencies, not dev-dependencies):
//!
//! - the plant (breakbench_sim_bridge) and the controller
//!   (breakbench_navigator) do not depend on the judge (breakbench_oracle),
//!   directly or through another crate;
//! - nor do the crates they share with it or are built on: the world
//!   (breakbench_world), the message and self-report types
//!   (kraken_interfaces), the robot's estimator (breakbench_estimator, part
//!   of the stack under test), the fault library (kraken_faults) and the
//!   run-time message types it is to act through (breakbench_msgs);
//! - the plant, the controller and the oracle all take the world from
//!   breakbench_world;
//! - the plant, the controller, the estimator and the oracle do not depend on
//!   the fault library (kraken_faults): their sensor message types
//!   (`SensorMsg`, `MsgKind`) and random streams (the seed tree) come from
//!   kraken_interfaces;
//! - the process supervisor (breakbench_supervisor) speaks no DDS and
//!   depends on neither the campaign, the fault library nor the robot;
//! - the campaign engine (breakbench_campaign) speaks no DDS of its own;
//! - only breakbench_ros speaks to the middleware (ros2-client, rustdds, and
//!   behind its `rclrs` feature rclrs and its rosidl_runtime_rs / ros-env):
//!   no other package depends on it directly, and no non-test source file
//!   outside `foundation/breakbench_ros/src` names it (issue 25: the nodes reach ROS 2
//!   through breakbench_ros' interface alone, so a second backend is an
//!   implementation of that interface).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The resolved dependency graph by package name: name → names of its normal
/// and build dependencies.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let meta: serde_json::Value = serde_json::from_slice(crate::cargo_metadata(false)).unwrap();
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let from = name_of[node["id"].as_str().unwrap()].to_string();
        let deps = g.entry(from).or_default();
        for d in node["deps"].as_array().unwrap() {
            let runtime = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if runtime {
                deps.insert(name_of[d["pkg"].as_str().unwrap()].to_string());
            }
        }
    }
    g
}

/// Every package `root` depends on, directly or transitively.
fn closure(g: &BTreeMap<String, BTreeSet<String>>, root: &str) -> BTreeSet<String> {
    assert!(
        g.contains_key(root),
        "{root} is not in cargo metadata's graph"
    );
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(p) = todo.pop() {
        for d in g.get(&p).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn neither_the_plant_nor_the_controller_depends_on_the_oracle() {
    let g = graph();
    for p in [
        "breakbench_sim_bridge",
        "breakbench_navigator",
        "breakbench_world",
        "kraken_interfaces",
        "breakbench_estimator",
        "kraken_faults",
        "breakbench_msgs",
    ] {
        assert_not_depends_on(&g, p, "breakbench_oracle");
    }
}

/// Panics naming `p` and its whole dependency closure when `forbidden` is in it.
fn assert_not_depends_on(g: &BTreeMap<String, BTreeSet<String>>, p: &str, forbidden: &str) {
    let c = closure(g, p);
    assert!(
        !c.contains(forbidden),
        "{p} depends on {forbidden} (its dependencies: {c:?})"
    );
}

#[test]
fn the_plant_the_controller_and_the_oracle_share_the_world_crate() {
    let g = graph();
    for p in [
        "breakbench_sim_bridge",
        "breakbench_navigator",
        "breakbench_oracle",
    ] {
        assert!(
            g[p].contains("breakbench_world"),
            "{p} does not depend on breakbench_world directly: {:?}",
            g[p]
        );
    }
    // The campaign judges runs: the root package does use the oracle, so the
    // walk above does see an edge to it where one exists.
    assert!(closure(&g, "breakbench").contains("breakbench_oracle"));
}

/// The robot under test (plant, controller, estimator) and the judge are
/// built on the message types and the seed tree of kraken_interfaces, not on
/// the fault library: a fault reaches them only as the messages it changed.
#[test]
fn neither_the_robot_nor_the_oracle_depends_on_a_fault_crate() {
    let g = graph();
    for p in [
        "breakbench_sim_bridge",
        "breakbench_navigator",
        "breakbench_estimator",
        "breakbench_oracle",
    ] {
        assert_not_depends_on(&g, p, "kraken_faults");
        let c = closure(&g, p);
        assert!(
            c.contains("kraken_interfaces"),
            "{p} no longer takes its message types from kraken_interfaces: {c:?}"
        );
    }
    // The walk does see the edge where one exists.
    assert!(closure(&g, "breakbench").contains("kraken_faults"));
}

/// The process supervisor only starts, watches and stops processes: it
/// speaks no DDS (no ROS plumbing, no ros2-client) and knows neither the
/// campaign above it (the root package) nor the fault library or the robot.
#[test]
fn the_supervisor_manages_processes_only() {
    let g = graph();
    for forbidden in [
        "breakbench",
        "kraken_faults",
        "breakbench_sim_bridge",
        "breakbench_navigator",
    ] {
        assert_not_depends_on(&g, "breakbench_supervisor", forbidden);
    }
    // No DDS of its own. (Its closure has breakbench_ros here only because
    // `--all-features` turns on the oracle's `node` feature; the supervisor
    // takes the oracle's library, `default-features = false`.)
    for dds in ["breakbench_ros", "ros2-client", "rustdds"] {
        assert!(
            !g["breakbench_supervisor"].contains(dds),
            "breakbench_supervisor depends on {dds}: {:?}",
            g["breakbench_supervisor"]
        );
    }
    // The walk sees the supervisor's real edges: it reads the oracle's
    // verdict line.
    assert!(g["breakbench_supervisor"].contains("breakbench_oracle"));
}

/// The campaign engine runs graphs through the supervisor and speaks no DDS
/// of its own: `cargo build -p breakbench_campaign` needs no ROS plumbing.
#[test]
fn the_campaign_engine_speaks_no_dds() {
    let g = graph();
    for dds in ["breakbench_ros", "ros2-client", "rustdds"] {
        assert!(
            !g["breakbench_campaign"].contains(dds),
            "breakbench_campaign depends on {dds}: {:?}",
            g["breakbench_campaign"]
        );
    }
    assert!(g["breakbench_campaign"].contains("breakbench_supervisor"));
}

/// The folders that group the packages by role, from the bottom up
/// (`docs/packages.md`); the root package (the `breakbench` command) is
/// above them all.
const LAYERS: [&str; 5] = ["foundation", "faults", "robot", "judge", "app"];

/// Package name → its layer's index in [`LAYERS`] (the root package:
/// `LAYERS.len()`), from the folder its manifest sits in.
fn layers() -> BTreeMap<String, usize> {
    let meta: serde_json::Value = serde_json::from_slice(crate::cargo_metadata(true)).unwrap();
    let root = PathBuf::from(meta["workspace_root"].as_str().unwrap());
    let mut layer = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let dir = PathBuf::from(p["manifest_path"].as_str().unwrap());
        let rel = dir
            .parent()
            .unwrap()
            .strip_prefix(&root)
            .unwrap()
            .to_owned();
        let parts: Vec<_> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let idx = match parts.as_slice() {
            [] => LAYERS.len(),
            [group, pkg] if pkg == &name => LAYERS
                .iter()
                .position(|l| l == group)
                .unwrap_or_else(|| panic!("{name}: {group}/ is not a layer of {LAYERS:?}")),
            _ => panic!("{name} sits in {}, not in <layer>/{name}", rel.display()),
        };
        layer.insert(name, idx);
    }
    layer
}

#[test]
fn every_package_sits_in_its_layer_and_depends_only_on_its_own_or_lower_ones() {
    let layer = layers();
    assert_eq!(layer.len(), 13, "{layer:?}");
    let g = graph();
    let mut upward = Vec::new();
    for (p, &l) in &layer {
        for d in g.get(p).into_iter().flatten() {
            if let Some(&dl) = layer.get(d) {
                if dl > l {
                    upward.push(format!("{p} ({}) -> {d} ({})", name(l), name(dl)));
                }
            }
        }
    }
    assert!(upward.is_empty(), "dependencies pointing up: {upward:?}");
}

fn name(l: usize) -> &'static str {
    LAYERS.get(l).copied().unwrap_or("root")
}

/// The middleware crates only breakbench_ros may use directly (rclrs and its
/// two companions: the `rclrs` backend, issue 27).
const MIDDLEWARE: [&str; 5] = [
    "ros2-client",
    "rustdds",
    "rclrs",
    "rosidl_runtime_rs",
    "ros-env",
];

/// The middleware crates' names as Rust code writes them.
const MIDDLEWARE_IN_CODE: [&str; 4] = ["ros2_client", "rustdds", "rclrs", "rosidl_runtime_rs"];

/// No workspace package but breakbench_ros depends on the middleware
/// directly (every workspace package is named `breakbench*` or `kraken*`).
#[test]
fn only_breakbench_ros_depends_on_the_middleware() {
    let g = graph();
    let ours = g
        .keys()
        .filter(|p| p.starts_with("breakbench") || p.starts_with("kraken"));
    for p in ours.filter(|p| *p != "breakbench_ros") {
        for m in MIDDLEWARE {
            assert!(
                !g[p].contains(m),
                "{p} depends on {m} directly: use breakbench_ros"
            );
        }
    }
    assert!(g["breakbench_ros"].contains("ros2-client"));
    // (all features on: the rclrs backend's dependency counts)
    assert!(g["breakbench_ros"].contains("rclrs"));
}

/// Every `.rs` file under `dir`, skipping `target`, hidden folders and test
/// folders (`tests/`: test code may name the middleware).
fn non_test_sources(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "tests") {
                non_test_sources(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// No source file outside `foundation/breakbench_ros/src` names `ros2_client`,
/// `rustdds`, `rclrs` or `rosidl_runtime_rs` in code (comments may explain middleware behaviour); test
/// modules after a file's `#[cfg(test)]` are test code too.
#[test]
fn only_breakbench_ros_names_the_middleware() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    non_test_sources(&root, &mut files);
    assert!(files.len() > 50, "the walk found {} files", files.len());
    let mut found = Vec::new();
    for f in files
        .iter()
        .filter(|f| !f.starts_with(root.join("foundation/breakbench_ros/src")))
    {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if MIDDLEWARE_IN_CODE.iter().any(|m| code.contains(m)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the middleware is named outside breakbench_ros (use its interface):\n{}",
        found.join("\n")
    );
}
