//! The package.xml files (colcon, rosdep) must say what Cargo and the launch
//! file really use:
//!
//! - format 3; name, version and license equal to the Cargo package's;
//!   build type `ament_cargo` for the Rust packages, `ament_cmake` for
//!   kraken_interfaces (rosidl);
//! - an ament_cargo package's `build_depend`/`depend` on workspace packages is
//!   exactly its Cargo path dependencies (`cargo metadata`), so colcon builds
//!   them in the right order and no stale entry survives a Cargo change;
//! - the root package `exec_depend`s on every package whose executable
//!   launch/corridor.launch.py starts.

use crate::common;
use common::root;
use std::collections::BTreeSet;
use std::path::Path;

struct PackageXml {
    format: String,
    name: String,
    version: String,
    license: String,
    build_type: String,
    /// `depend` + `build_depend`
    build: BTreeSet<String>,
    /// `depend` + `exec_depend`
    exec: BTreeSet<String>,
}

fn parse_package_xml(path: &Path) -> Result<PackageXml, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = roxmltree::Document::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let p = doc.root_element();
    let t = |tag: &str| {
        p.children()
            .find(|c| c.has_tag_name(tag))
            .and_then(|c| c.text())
            .map(|s| s.trim().to_string())
            .ok_or_else(|| format!("{}: no <{tag}>", path.display()))
    };
    let names = |tags: &[&str]| -> BTreeSet<String> {
        p.children()
            .filter(|c| tags.iter().any(|t| c.has_tag_name(*t)))
            .filter_map(|c| c.text().map(|s| s.trim().to_string()))
            .collect()
    };
    let build_type = p
        .descendants()
        .find(|c| c.has_tag_name("build_type"))
        .and_then(|c| c.text())
        .unwrap_or("")
        .to_string();
    Ok(PackageXml {
        format: p.attribute("format").unwrap_or("").to_string(),
        name: t("name")?,
        version: t("version")?,
        license: t("license")?,
        build_type,
        build: names(&["depend", "build_depend"]),
        exec: names(&["depend", "exec_depend"]),
    })
}

fn metadata() -> serde_json::Value {
    serde_json::from_slice(crate::cargo_metadata(true)).expect("cargo metadata JSON")
}

#[test]
fn package_xml_matches_cargo_for_every_workspace_package() {
    let meta = metadata();
    let pkgs = meta["packages"].as_array().unwrap();
    // breakbench_hack is Cargo-only (the workspace-hack crate of
    // scripts/workspace_hack.py): no package.xml, COLCON_IGNORE'd, and no
    // ROS package depends on it by name.
    let hack = "breakbench_hack";
    let hack_dir = root().join("foundation").join(hack);
    assert!(hack_dir.join("COLCON_IGNORE").is_file());
    assert!(!hack_dir.join("package.xml").exists());
    let members: BTreeSet<String> = pkgs
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .filter(|n| n != hack)
        .collect();
    assert_eq!(members.len(), 13, "{members:?}");
    for p in pkgs.iter().filter(|p| p["name"] != hack) {
        let name = p["name"].as_str().unwrap();
        let dir = Path::new(p["manifest_path"].as_str().unwrap())
            .parent()
            .unwrap()
            .to_path_buf();
        let x = parse_package_xml(&dir.join("package.xml")).unwrap();
        assert_eq!(x.format, "3", "{name}");
        assert_eq!(x.name, name);
        assert_eq!(x.version, p["version"].as_str().unwrap(), "{name} version");
        assert_eq!(x.license, p["license"].as_str().unwrap(), "{name} license");
        if name == "kraken_interfaces" {
            // rosidl package: built by CMake, no Rust dependencies to mirror.
            assert_eq!(x.build_type, "ament_cmake");
            assert!(dir.join("CMakeLists.txt").is_file());
            continue;
        }
        assert_eq!(x.build_type, "ament_cargo", "{name}");
        let cargo_ws_deps: BTreeSet<String> = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null() && d.get("path").is_some())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .filter(|n| members.contains(n))
            .collect();
        let xml_ws_deps: BTreeSet<String> = x.build.intersection(&members).cloned().collect();
        assert_eq!(
            xml_ws_deps, cargo_ws_deps,
            "{name}: package.xml build deps vs Cargo path deps"
        );
    }
}

#[test]
fn root_package_exec_depends_on_what_the_launch_file_starts() {
    // Every `package="..."` of a launch_ros Node (FindPackageShare names
    // packages too, but of files, not of executables).
    let text = std::fs::read_to_string(root().join("launch/corridor.launch.py")).unwrap();
    let x = parse_package_xml(&root().join("package.xml")).unwrap();
    let started: BTreeSet<String> = text
        .split("package=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(String::from)
        .filter(|p| p != "breakbench")
        .collect();
    // Golden: read by hand from launch/corridor.launch.py.
    let want: BTreeSet<String> = [
        "breakbench_estimator",
        "breakbench_oracle",
        "breakbench_sim_bridge",
        "kraken_faults",
        "ros_gz_bridge",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(started, want);
    for p in &started {
        assert!(
            x.exec.contains(p),
            "package.xml lacks <exec_depend>{p}</exec_depend>"
        );
    }
    for p in ["launch", "launch_ros", "ros2launch", "ros_gz_sim"] {
        assert!(
            x.exec.contains(p),
            "package.xml lacks <exec_depend>{p}</exec_depend>"
        );
    }
}
