//! End to end over DDS (REQ-GRAPH-UP, REQ-GRAPH-MATCHES-IN-PROCESS): the corridor graph of
//! `launch/corridor.graph.yaml` run by `breakbench up`, compared with the
//! in-process campaign on the same cells and seeds.
//!
//! * nominal cell (latency 0, odom bias 0): the oracle reports mission
//!   complete and no safety violation;
//! * odom bias 0.2 set through `/fault_injector/set_fault` (kraken_scenario
//!   `tests/e2e/odom_bias_0.2.yaml`: `{channel: odom, mode: SCALE,
//!   scale_factor: 1.2}`) before the sim starts: mission failure while the
//!   navigator self-reports success;
//! * for both, the verdict's booleans and the self-report equal the
//!   in-process campaign's run of the same cell with the same plant seed
//!   (`corridor_study.yaml`: `nominal_000`, and the bias cell's repeat 0).
//!   The sim bridge runs in lock-step (`real_time_factor: 0`); whether every
//!   value of the verdict is identical is printed, not asserted.
//!
//! Every DDS packet stays in a loopback-only network namespace
//! (`scripts/netns.sh`, needs root or user namespaces), each run on a
//! `ROS_DOMAIN_ID` of its own. Hard limits: `breakbench up --timeout-s 150`
//! and a 240 s kill of the whole process group from here.
//!
//! The test builds the node binaries it needs (`cargo build --offline
//! --bins` of the node packages, same profile and target directory: `tests/common`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use breakbench::campaign::manifest::{Manifest, RunKind};
use breakbench::campaign::plan::plan;
use breakbench::campaign::run::execute;
use breakbench::campaign::runner::provenance;
use breakbench::campaign::Scenario;

mod common;
use common::{bin_dir, build_nodes, root};

/// Runs `breakbench up` in a private loopback-only network namespace and
/// returns (exit code, combined output).
fn up(domain: u16, out: &Path, seed: u64, run_id: &str, scenario: Option<&str>) -> (i32, String) {
    build_nodes();
    let mut args: Vec<String> = vec![
        root().join("scripts/netns.sh").display().to_string(),
        env!("CARGO_BIN_EXE_breakbench").into(),
        "up".into(),
        root()
            .join("launch/corridor.graph.yaml")
            .display()
            .to_string(),
        "--domain-id".into(),
        domain.to_string(),
        "--timeout-s".into(),
        "150".into(),
        "--set".into(),
        "sim_bridge.real_time_factor=0".into(),
        "--set".into(),
        // ROS integer parameters are int64: the u64 seed's bits.
        format!("sim_bridge.seed={}", seed as i64),
        "--set".into(),
        format!("oracle.seed={}", seed as i64),
        "--set".into(),
        format!("oracle.run_id={run_id}"),
        "--set".into(),
        format!("oracle.manifest_dir={}", out.display()),
    ];
    if let Some(s) = scenario {
        args.push("--scenario".into());
        args.push(root().join(s).display().to_string());
    }
    let log = out.join(format!("{run_id}.log"));
    std::fs::create_dir_all(out).unwrap();
    let f = std::fs::File::create(&log).unwrap();
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .env("BREAKBENCH_BIN_DIR", bin_dir())
        .env_remove("ROS_DOMAIN_ID")
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .expect("scripts/netns.sh breakbench up");
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        if t0.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "breakbench up did not finish in 240 s; log: {}",
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    eprintln!(
        "breakbench up ({run_id}): exit {code} after {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    (code, text)
}

/// The in-process run of the corridor study with id `run_id`
/// (`nominal_000`: fault-free, no fault stage at all, like the graph without
/// a scenario; `grid_latency_s0_odom_bias0.2_r0`: the bias cell, repeat 0).
fn in_process(run_id: &str) -> Manifest {
    let s = Scenario::load(&root().join("scenarios/corridor_study.yaml")).unwrap();
    let spec = plan(&s)
        .into_iter()
        .find(|r| r.run_id == run_id)
        .unwrap_or_else(|| panic!("{run_id} in the plan"));
    execute(&s, &spec, &provenance()).unwrap().manifest
}

fn graph_manifest(out: &Path, run_id: &str) -> Manifest {
    let p = out.join("manifests").join(format!("{run_id}.json"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

fn compare(graph: &Manifest, campaign: &Manifest) {
    let (g, c) = (&graph.verdict, &campaign.verdict);
    eprintln!(
        "graph:      safety_violation={} mission_failure={} self_report={:?} at {:?} s, mission decided at {} s, min clearance {:.6} m",
        g.safety_violation(), g.mission_failure(), graph.self_report, graph.self_report_at_s,
        g.mission_completion_true_pose.decided_at_s, g.obstacle_clearance.value
    );
    eprintln!(
        "in-process: safety_violation={} mission_failure={} self_report={:?} at {:?} s, mission decided at {} s, min clearance {:.6} m",
        c.safety_violation(), c.mission_failure(), campaign.self_report, campaign.self_report_at_s,
        c.mission_completion_true_pose.decided_at_s, c.obstacle_clearance.value
    );
    assert_eq!(
        g.safety_violation(),
        c.safety_violation(),
        "safety verdicts differ"
    );
    assert_eq!(
        g.mission_failure(),
        c.mission_failure(),
        "mission verdicts differ"
    );
    assert_eq!(
        graph.self_report, campaign.self_report,
        "self-reports differ"
    );
    assert_eq!(graph.seed, campaign.seed);
    // Lock-step with the input barrier normally reproduces the in-process
    // trajectory exactly; only the verdict's booleans are required to agree
    // (a > input_wait_max_s stall of a loaded machine may shift a tick).
    eprintln!("verdict identical to in-process, every value: {}", g == c);
    if g != c {
        eprintln!("graph:      {g:?}\nin-process: {c:?}");
    }
    // The oracle saw every ground-truth sample at 50 Hz for 60 s: 3000.
    assert_eq!(graph.sim_time_s, 60.0);
    assert_eq!(graph.isolation.map(|i| i.passed), Some(true));
}

#[test]
fn e2e_nominal_cell_over_dds_matches_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = in_process("nominal_000");
    assert_eq!(campaign.kind, RunKind::Nominal);
    let (code, log) = up(171, dir.path(), campaign.seed, "graph_nominal", None);
    assert_eq!(code, 0, "expected exit 0 (pass); log:\n{log}");
    assert!(
        log.contains("samples=3000"),
        "oracle saw every sample; log:\n{log}"
    );
    let g = graph_manifest(dir.path(), "graph_nominal");
    assert!(!g.verdict.safety_violation() && !g.verdict.mission_failure());
    assert_eq!(g.self_report, kraken_interfaces::SelfReport::Success);
    assert_eq!(g.kind, RunKind::Nominal);
    assert!(g.faults.is_empty());
    compare(&g, &campaign);
}

#[test]
fn e2e_odom_bias_0_2_over_dds_matches_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = in_process("grid_latency_s0_odom_bias0.2_r0");
    let (code, log) = up(
        172,
        dir.path(),
        campaign.seed,
        "graph_bias_0.2",
        Some("tests/e2e/odom_bias_0.2.yaml"),
    );
    assert_eq!(code, 1, "expected exit 1 (verdict failure); log:\n{log}");
    assert!(
        log.contains("set_fault scale on odom: success=true"),
        "log:\n{log}"
    );
    let g = graph_manifest(dir.path(), "graph_bias_0.2");
    assert!(g.verdict.mission_failure(), "mission failure expected");
    assert!(!g.verdict.safety_violation());
    assert_eq!(
        g.self_report,
        kraken_interfaces::SelfReport::Success,
        "the navigator believes it arrived"
    );
    // The fault as the injector reported it on /fault_injector/status.
    assert_eq!(g.kind, RunKind::Grid);
    // The oracle names it as requested (it knows no study); a campaign maps
    // it to its own axis (odom_bias 0.2 = scale_factor 1.2 - offset 1).
    assert_eq!(g.cell.get("odom_scale"), Some(&1.2));
    assert_eq!(g.faults.len(), 1);
    assert_eq!(
        (
            g.faults[0].channel.as_str(),
            g.faults[0].mode.as_str(),
            g.faults[0].requested
        ),
        ("odom", "scale", 1.2)
    );
    compare(&g, &campaign);
}

/// Runs `c` with stdout+stderr to a temporary log, killing it after
/// `limit` (a hang fails the test instead of blocking it). Returns the exit
/// code and the log.
fn output_with_deadline(mut c: Command, limit: Duration) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("out.log");
    let f = std::fs::File::create(&log).unwrap();
    let mut child = c
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "no exit within {limit:?}:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (code, std::fs::read_to_string(&log).unwrap_or_default())
}

/// The pids `breakbench up` reported for its children.
fn child_pids(log: &str) -> Vec<i32> {
    log.lines()
        .filter_map(|l| l.split_once("[up] started ")?.1.split(" pid ").nth(1))
        .filter_map(|r| r.split_whitespace().next()?.parse().ok())
        .collect()
}

fn alive(pid: i32) -> bool {
    // A reaped child has no /proc entry; a zombie would show state Z.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

#[test]
fn e2e_up_bad_parameter_fails_fast_and_leaves_no_process() {
    let dir = tempfile::tempdir().unwrap();
    build_nodes();
    let mut c = Command::new(root().join("scripts/netns.sh"));
    c.args([
        env!("CARGO_BIN_EXE_breakbench"),
        "up",
        root().join("launch/corridor.graph.yaml").to_str().unwrap(),
        "--domain-id",
        "173",
        "--timeout-s",
        "60",
        "--set",
        "sim_bridge.real_time_factor=-1",
        "--set",
        &format!("oracle.manifest_dir={}", dir.path().display()),
    ])
    .env("BREAKBENCH_BIN_DIR", bin_dir());
    let (code, log) = output_with_deadline(c, Duration::from_secs(120));
    assert_eq!(code, Some(2), "log:\n{log}");
    assert!(
        log.contains("parameter 'real_time_factor' must be >= 0, got -1"),
        "log:\n{log}"
    );
    assert!(log.contains("sim_bridge exited early"), "log:\n{log}");
    let pids = child_pids(&log);
    assert_eq!(pids.len(), 4, "four nodes started; log:\n{log}");
    for p in pids {
        assert!(!alive(p), "pid {p} still running");
    }
}

#[test]
fn e2e_up_sigint_stops_every_node() {
    let dir = tempfile::tempdir().unwrap();
    build_nodes();
    let log_path = dir.path().join("up.log");
    let f = std::fs::File::create(&log_path).unwrap();
    // Real time: the 60 s mission cannot end before the signal.
    let mut child = Command::new(root().join("scripts/netns.sh"))
        .args([
            env!("CARGO_BIN_EXE_breakbench"),
            "up",
            root().join("launch/corridor.graph.yaml").to_str().unwrap(),
            "--domain-id",
            "174",
            "--timeout-s",
            "120",
            "--set",
            &format!("oracle.manifest_dir={}", dir.path().display()),
        ])
        .env("BREAKBENCH_BIN_DIR", bin_dir())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .contains("stepping")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "graph did not start: {}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        );
        assert!(child.try_wait().unwrap().is_none(), "up exited early");
        std::thread::sleep(Duration::from_millis(100));
    }
    // netns.sh execs unshare, bash and breakbench in turn: same pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if t0.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("up did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert_eq!(code, Some(130), "log:\n{log}");
    let pids = child_pids(&log);
    assert_eq!(pids.len(), 4, "log:\n{log}");
    for p in pids {
        assert!(!alive(p), "pid {p} still running after SIGINT");
    }
}

#[test]
fn e2e_stamped_cmd_vel_graph_matches_in_process() {
    // Nav2 Kilted publishes geometry_msgs/TwistStamped on /cmd_vel.
    let dir = tempfile::tempdir().unwrap();
    let campaign = in_process("nominal_000");
    build_nodes();
    let mut c = Command::new(root().join("scripts/netns.sh"));
    c.args([
        env!("CARGO_BIN_EXE_breakbench"),
        "up",
        root().join("launch/corridor.graph.yaml").to_str().unwrap(),
        "--quiet",
        "--domain-id",
        "175",
        "--timeout-s",
        "150",
        "--set",
        "sim_bridge.real_time_factor=0",
        "--set",
        "sim_bridge.cmd_vel_stamped=true",
        "--set",
        "simple_navigator.cmd_vel_stamped=true",
        "--set",
        &format!(
            "fault_injector.channels_file={}",
            root()
                .join("faults/kraken_faults/config/channels_stamped.yaml")
                .display()
        ),
        "--set",
        &format!("sim_bridge.seed={}", campaign.seed as i64),
        "--set",
        "oracle.run_id=stamped",
        "--set",
        &format!("oracle.manifest_dir={}", dir.path().display()),
    ])
    .env("BREAKBENCH_BIN_DIR", bin_dir());
    let (code, log) = output_with_deadline(c, Duration::from_secs(240));
    assert_eq!(code, Some(0), "log:\n{log}");
    let g = graph_manifest(dir.path(), "stamped");
    assert_eq!(
        g.verdict.mission_failure(),
        campaign.verdict.mission_failure()
    );
    assert_eq!(
        g.verdict.safety_violation(),
        campaign.verdict.safety_violation()
    );
    assert_eq!(g.self_report, campaign.self_report);
}

/// Runs a node binary with `args` (no DDS traffic: parameters are checked
/// before the node joins the graph) and returns (exit code, output).
fn node_error(exe: &str, args: &[&str]) -> (Option<i32>, String) {
    build_nodes();
    let mut c = Command::new(bin_dir().join(exe));
    c.args(args).env("ROS_DOMAIN_ID", "176");
    output_with_deadline(c, Duration::from_secs(30))
}

#[test]
fn nodes_reject_bad_parameters_with_a_clear_message() {
    let world = root().join("config/corridor.yaml");
    let robot = root().join("config/robot.yaml");
    let nav = root().join("config/navigator.yaml");
    let w = format!("world_file:={}", world.display());
    let r = format!("robot_file:={}", robot.display());
    let n = format!("navigator_file:={}", nav.display());
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("sim_bridge", vec!["--ros-args", "-p", &w, "-p", &r, "-p", "wheel_rate_hz:=33.0"],
         "parameter 'wheel_rate_hz' = 33 Hz: the period 30303030 ns must be a whole multiple of the plant step (10000000 ns)"),
        ("sim_bridge", vec!["--ros-args", "-p", "world_file:=/nonexistent/world.yaml"], "/nonexistent/world.yaml"),
        ("sim_bridge", vec!["--ros-args", "-p", &w, "-p", &r, "-p", "seed:=1.5"], "parameter 'seed': expected integer"),
        ("oracle", vec!["--ros-args", "-p", &w, "-p", "run_id:=../x"], "parameter 'run_id'"),
        ("oracle", vec!["--ros-args", "-p", &w, "-p", "run_kind:=canary"], "parameter 'run_kind' = \"canary\""),
        ("simple_navigator", vec!["--ros-args", "-p", &n, "-p", &w, "-p", "goal_x_m:=3.0"], "'goal_x_m' and 'goal_y_m' go together"),
        ("simple_navigator", vec!["--ros-args", "-p", &n, "-p", &w, "-p", "input_wait_max_s:=-1.0"], "parameter 'input_wait_max_s' must be >= 0"),
        ("simple_navigator", vec!["stray"], "unexpected arguments [\"stray\"]"),
    ];
    for (exe, args, want) in cases {
        let (code, err) = node_error(exe, &args);
        assert_eq!(code, Some(1), "{exe} {args:?}: {err}");
        assert!(
            err.contains(want),
            "{exe} {args:?}: want {want:?} in:\n{err}"
        );
    }
}
