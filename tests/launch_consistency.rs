//! `ros2 launch breakbench corridor.launch.py` and `breakbench up
//! launch/corridor.graph.yaml` must start the same graph. `ros2 launch`
//! cannot run on the development machines, so this test reads the launch
//! file statically (tests/launch_extract.py: Python's `ast`, no ROS import;
//! it also compiles the file, as `python3 -m py_compile` does) and compares
//! it with the `breakbench up` config and config/params/corridor.yaml:
//!
//! - the same nodes (package, executable, node name) on the embedded plant;
//! - the same remaps, in the same order, on the plant (and on the Gazebo
//!   bridge that replaces it with `plant:=gazebo`);
//! - the same parameters file (default `config/params/corridor.yaml`), given
//!   first to every node of ours so that per-node overrides win;
//! - every `*_file` parameter of the parameters file (relative to the share
//!   directory) overridden by the launch file with a resolved path;
//! - the launch arguments the issue asks for, with their defaults;
//! - every node is in the returned LaunchDescription.
//!
//! Needs `python3` (3.9+) on PATH; a missing python3 fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const LAUNCH: &str = "launch/corridor.launch.py";
const GRAPH: &str = "launch/corridor.graph.yaml";

fn extract(launch_file: &Path) -> Result<Json, String> {
    let out = Command::new("python3")
        .arg(root().join("tests/launch_extract.py"))
        .arg(launch_file)
        .output()
        .map_err(|e| format!("python3 tests/launch_extract.py: {e} (python3 is required)"))?;
    if !out.status.success() {
        return Err(format!(
            "launch_extract failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("launch_extract output: {e}"))
}

fn read_yaml(rel: &str) -> Yaml {
    let s = std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_yaml_ng::from_str(&s).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn s(v: &Json) -> &str {
    v.as_str().unwrap_or("")
}

/// `[("/a", "/b"), ...]` from the launch file's remappings.
fn launch_remaps(n: &Json) -> Vec<String> {
    n["remappings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| format!("{}:={}", s(&r[0]), s(&r[1])))
                .collect()
        })
        .unwrap_or_default()
}

fn check(launch: &Json, graph: &Yaml, params: &Yaml) -> Result<(), String> {
    let nodes = launch["nodes"]
        .as_array()
        .ok_or("no nodes in the launch file")?;
    let by_name: BTreeMap<&str, &Json> = nodes.iter().map(|n| (s(&n["name"]), n)).collect();

    // -- nodes: same set on the embedded plant
    let gnodes = graph["nodes"]
        .as_sequence()
        .ok_or("graph config has no nodes")?;
    let mut want = BTreeSet::new();
    for g in gnodes {
        let name = g["name"].as_str().ok_or("graph node without name")?;
        let pkg = g["package"].as_str().ok_or("graph node without package")?;
        let exe = g["executable"]
            .as_str()
            .ok_or("graph node without executable")?;
        want.insert((pkg.to_string(), exe.to_string(), name.to_string()));
        let n = by_name
            .get(name)
            .ok_or_else(|| format!("node {name} of {GRAPH} is not in {LAUNCH}"))?;
        if s(&n["package"]) != pkg || s(&n["executable"]) != exe {
            return Err(format!(
                "node {name}: launch file runs {}/{}, graph config {pkg}/{exe}",
                s(&n["package"]),
                s(&n["executable"])
            ));
        }
        if let Some(c) = n["condition"].as_str() {
            if c != "$embedded" {
                return Err(format!(
                    "node {name} runs under condition {c}, the graph config always runs it"
                ));
            }
        }
        // -- remaps
        let g_remaps: Vec<String> = g
            .get("remaps")
            .and_then(|r| r.as_sequence())
            .map(|r| {
                r.iter()
                    .map(|x| x.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default();
        if launch_remaps(n) != g_remaps {
            return Err(format!(
                "node {name}: remaps {:?} in the launch file, {g_remaps:?} in the graph config",
                launch_remaps(n)
            ));
        }
        // -- parameters file first
        let ps = n["parameters"]
            .as_array()
            .ok_or_else(|| format!("node {name} has no parameters"))?;
        if ps.first().and_then(|p| p.as_str()) != Some("$params_file") {
            return Err(format!(
                "node {name}: the params_file must be its first parameters entry, got {:?}",
                ps.first()
            ));
        }
        // -- every *_file parameter of this node is resolved by the launch file
        let overrides: BTreeSet<&str> = ps
            .iter()
            .filter_map(|p| p.as_object())
            .flat_map(|o| o.keys().map(|k| k.as_str()))
            .collect();
        if let Some(rp) = params[name]["ros__parameters"].as_mapping() {
            for k in rp.keys().filter_map(|k| k.as_str()) {
                if k.ends_with("_file") && !overrides.contains(k) {
                    return Err(format!("node {name}: {k} (relative to the share dir) is not resolved by the launch file"));
                }
            }
        }
    }
    let ours: BTreeSet<_> = nodes
        .iter()
        .filter(|n| n["condition"].as_str() != Some("$gazebo"))
        .map(|n| {
            (
                s(&n["package"]).to_string(),
                s(&n["executable"]).to_string(),
                s(&n["name"]).to_string(),
            )
        })
        .collect();
    if ours != want {
        return Err(format!(
            "embedded-plant nodes {ours:?} in the launch file, {want:?} in the graph config"
        ));
    }

    // -- the Gazebo bridge takes the plant's place with the same remaps
    let plant = gnodes
        .iter()
        .find(|g| g.get("remaps").is_some())
        .and_then(|g| g["name"].as_str())
        .ok_or("graph config: no node with remaps (the plant)")?;
    let gz = nodes
        .iter()
        .find(|n| s(&n["package"]) == "ros_gz_bridge")
        .ok_or("launch file: no ros_gz_bridge node for plant:=gazebo")?;
    if gz["condition"].as_str() != Some("$gazebo") {
        return Err("the ros_gz_bridge node must run only with plant:=gazebo".into());
    }
    if launch_remaps(gz) != launch_remaps(by_name[plant]) {
        return Err(format!(
            "ros_gz_bridge remaps {:?} differ from {plant}'s {:?}",
            launch_remaps(gz),
            launch_remaps(by_name[plant])
        ));
    }

    // -- same parameters file
    let gpf = graph["params_file"]
        .as_str()
        .ok_or("graph config has no params_file")?;
    let lpf = s(&launch["constants"]["PARAMS_FILE"]);
    let arg = s(&launch["arguments"]["params_file"]);
    if lpf != gpf || !arg.contains("PARAMS_FILE") {
        return Err(format!(
            "params_file: launch default {lpf:?} ({arg}), graph config {gpf:?}"
        ));
    }

    // -- launch arguments
    let args = &launch["arguments"];
    for (a, default) in [
        ("use_sim_time", Some("true")),
        ("cmd_vel_stamped", Some("false")),
        ("plant", Some("embedded")),
        ("world", None),
        ("channels", None),
    ] {
        let v = args
            .get(a)
            .ok_or_else(|| format!("launch argument {a} is not declared"))?;
        if let Some(d) = default {
            if v.as_str() != Some(d) {
                return Err(format!("launch argument {a} defaults to {v}, want {d}"));
            }
        }
    }
    if !s(&args["world"]).contains("corridor.yaml")
        || !s(&args["channels"]).contains("channels.yaml")
        || !s(&args["gz_world"]).contains("corridor.sdf")
    {
        return Err(format!(
            "world/channels/gz_world defaults: {} / {} / {}",
            args["world"], args["channels"], args["gz_world"]
        ));
    }

    // -- every node is launched
    let returned: BTreeSet<&str> = launch["returned"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    for n in nodes {
        let var = s(&n["var"]);
        if !returned.contains(var) {
            return Err(format!(
                "node variable {var} is not in the returned LaunchDescription"
            ));
        }
    }
    Ok(())
}

fn real() -> (Json, Yaml, Yaml) {
    (
        extract(&root().join(LAUNCH)).unwrap(),
        read_yaml(GRAPH),
        read_yaml("config/params/corridor.yaml"),
    )
}

#[test]
fn launch_file_and_graph_config_start_the_same_graph() {
    let (l, g, p) = real();
    check(&l, &g, &p).unwrap();
}

#[test]
fn launch_file_reads_out_as_expected() {
    // Golden facts read by hand from launch/corridor.launch.py.
    let (l, _, _) = real();
    let names: Vec<&str> = l["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| s(&n["name"]))
        .collect();
    assert_eq!(
        names,
        [
            "sim_bridge",
            "gz_bridge",
            "fault_injector",
            "simple_navigator",
            "oracle"
        ]
    );
    assert_eq!(
        s(&l["constants"]["PARAMS_FILE"]),
        "config/params/corridor.yaml"
    );
    assert_eq!(
        l["constants"]["SENSOR_REMAPS"][0],
        serde_json::json!(["/scan", "/scan_raw"])
    );
    assert_eq!(l["constants"]["SENSOR_REMAPS"].as_array().unwrap().len(), 5);
}

// ---- the check can fail: broken copies of the launch file

fn mutated(from: &str, to: &str) -> Json {
    let src = std::fs::read_to_string(root().join(LAUNCH)).unwrap();
    assert_eq!(src.matches(from).count(), 1, "anchor {from:?}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("corridor.launch.py");
    std::fs::write(&f, src.replacen(from, to, 1)).unwrap();
    extract(&f).unwrap()
}

#[test]
fn detects_a_missing_remap() {
    let (_, g, p) = real();
    let l = mutated("    (\"/imu/data\", \"/imu/data_raw\"),\n", "");
    assert!(check(&l, &g, &p).unwrap_err().contains("remaps"));
}

#[test]
fn detects_a_different_executable() {
    let (_, g, p) = real();
    let l = mutated("executable=\"oracle\"", "executable=\"oracle_node\"");
    assert!(check(&l, &g, &p).unwrap_err().contains("oracle"));
}

#[test]
fn detects_an_unresolved_file_parameter() {
    let (_, g, p) = real();
    let l = mutated("\"robot_file\": robot_file,", "");
    assert!(check(&l, &g, &p).unwrap_err().contains("robot_file"));
}

#[test]
fn detects_a_different_params_file() {
    let (_, g, p) = real();
    let l = mutated(
        "PARAMS_FILE = \"config/params/corridor.yaml\"",
        "PARAMS_FILE = \"config/params/other.yaml\"",
    );
    assert!(check(&l, &g, &p).unwrap_err().contains("params_file"));
}

#[test]
fn detects_a_node_left_out_of_the_launch_description() {
    let (_, g, p) = real();
    let l = mutated(
        "[fault_injector, simple_navigator, oracle,",
        "[fault_injector, simple_navigator,",
    );
    assert!(check(&l, &g, &p).unwrap_err().contains("oracle"));
}

#[test]
fn extractor_rejects_a_launch_file_that_does_not_compile() {
    let src = std::fs::read_to_string(root().join(LAUNCH)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("broken.launch.py");
    std::fs::write(
        &f,
        src.replacen(
            "def generate_launch_description():",
            "def generate_launch_description(:",
            1,
        ),
    )
    .unwrap();
    let e = extract(&f).unwrap_err();
    assert!(e.contains("broken.launch.py"), "{e}");
}
