//! Every node binary stops cleanly on SIGINT and SIGTERM (as rclcpp nodes do
//! under `ros2 launch`, which sends SIGINT): it logs the signal, leaves its
//! loop and exits with code 0, printing no ERROR or WARN line on the way.
//!
//! Each node is started alone (its loop waits for peers or input), on a
//! `ROS_DOMAIN_ID` of its own, and signalled once it logged that it is
//! ready. The DDS traffic stays in a loopback-only network namespace: the
//! test re-runs itself under `scripts/netns.sh` (`BREAKBENCH_NETNS_CHILD=1`
//! marks the inner run). It builds the node binaries it needs (`cargo build
//! --offline --bins` of the node packages, same profile and target directory:
//! `tests/common`).

use std::io::Read;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{bin_dir, build_nodes, rerun_in_netns, root};

/// Starts `exe` with `args`, waits for `ready` in its log, sends `signal`,
/// and returns (exit code, log). Panics if it is not ready within 20 s or
/// still runs 10 s after the signal. Its stderr is a file, not a terminal;
/// `RCUTILS_COLORIZED_OUTPUT` is unset (and `NO_COLOR` too).
fn run_and_signal(
    exe: &str,
    args: &[&str],
    ready: &str,
    signal: i32,
    domain: u16,
) -> (Option<i32>, String) {
    run_and_signal_with(exe, args, ready, signal, domain, None)
}

/// [`run_and_signal`] with `RCUTILS_COLORIZED_OUTPUT` set to `colour`.
fn run_and_signal_with(
    exe: &str,
    args: &[&str],
    ready: &str,
    signal: i32,
    domain: u16,
    colour: Option<&str>,
) -> (Option<i32>, String) {
    let log = tempfile::NamedTempFile::new().expect("log file");
    let mut cmd = Command::new(bin_dir().join(exe));
    cmd.args(args)
        .current_dir(root())
        .env("ROS_DOMAIN_ID", domain.to_string())
        .env("ROS_DISTRO", "jazzy")
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .env_remove("NO_COLOR")
        .env_remove("RCUTILS_COLORIZED_OUTPUT")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(log.reopen().expect("log"));
    if let Some(c) = colour {
        cmd.env("RCUTILS_COLORIZED_OUTPUT", c);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{exe}: {e}"));
    let read = || {
        let mut s = String::new();
        std::fs::File::open(log.path())
            .and_then(|mut f| f.read_to_string(&mut s))
            .expect("read log");
        s
    };
    let t0 = Instant::now();
    while !read().contains(ready) {
        if t0.elapsed() > Duration::from_secs(20) || child.try_wait().expect("wait").is_some() {
            let _ = child.kill();
            panic!("{exe} did not log {ready:?} within 20 s:\n{}", read());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let it settle into its loop.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t1.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!(
                "{exe} still running 10 s after signal {signal}:\n{}",
                read()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), read())
}

#[test]
fn nodes_exit_0_on_sigint_and_sigterm() {
    if rerun_in_netns("nodes_exit_0_on_sigint_and_sigterm") {
        return;
    }
    build_nodes();
    let manifests = tempfile::tempdir().expect("tempdir");
    let manifest_dir = format!("manifest_dir:={}", manifests.path().display());
    let mut cases: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "fault_injector",
            vec!["--ros-args", "-p", "use_sim_time:=true"],
            "ready:",
        ),
        ("sim_bridge", vec![], "ready"),
        (
            "oracle",
            vec![
                "--ros-args",
                "-p",
                "use_sim_time:=true",
                "-p",
                &manifest_dir,
            ],
            "ready",
        ),
        (
            "simple_navigator",
            vec!["--ros-args", "-p", "use_sim_time:=true"],
            "ready",
        ),
        (
            "ekf_node",
            vec![
                "--ros-args",
                "-p",
                "use_sim_time:=true",
                "-p",
                "world_file:=config/corridor.yaml",
            ],
            "ready",
        ),
    ];
    // Signalled while it waits for the injector's service (no injector
    // runs here): it must still exit 0 and quietly.
    let judgement = format!(
        "judgement_file:={}",
        manifests.path().join("judgement.json").display()
    );
    cases.push((
        "breakbench_orchestrator",
        vec![
            "--ros-args",
            "-p",
            "use_sim_time:=true",
            "-p",
            "scenario_file:=scenarios/tests/scan_loss_at_obstacle.yaml",
            "-p",
            "test:=scan_loss_at_obstacle",
            "-p",
            &judgement,
        ],
        "waiting for /fault_injector/set_fault",
    ));
    let mut domain = 118;
    for (exe, args, ready) in &cases {
        for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
            domain += 1;
            let (code, log) = run_and_signal(exe, args, ready, signal, domain);
            println!("{exe} {name}: exit code {code:?}");
            // Its stderr is not a terminal: no ANSI colour (REQ-LOG-COLOUR).
            assert!(
                !log.contains('\u{1b}'),
                "{exe}: ESC in a log that is not a terminal:\n{log:?}"
            );
            assert_eq!(code, Some(0), "{exe}: exit code after {name}; log:\n{log}");
            assert!(
                log.contains(&format!("{name}: shutting down")),
                "{exe}: the signal was not handled; log:\n{log}"
            );
            let bad: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("ERROR") || l.contains("WARN"))
                .collect();
            assert!(
                bad.is_empty(),
                "{exe} after {name}: ERROR/WARN lines:\n{}",
                bad.join("\n")
            );
        }
    }
    assert!(
        std::fs::read_dir(manifests.path())
            .expect("dir")
            .next()
            .is_none(),
        "an oracle stopped before the mission timeout writes no manifest"
    );
}

/// ROS 2's switch decides the colour of every node's log
/// (REQ-LOG-COLOUR): `RCUTILS_COLORIZED_OUTPUT=1` forces ANSI colour into
/// a log file, `0` and unset (stderr not a terminal) give none. One node
/// per crate that builds a node binary, and kraken_scenario's crate's
/// fault_injector; all set up logging in `breakbench_ros::init_logging`.
#[test]
fn log_colour_follows_rcutils_colorized_output() {
    if rerun_in_netns("log_colour_follows_rcutils_colorized_output") {
        return;
    }
    build_nodes();
    let mut domain = 150;
    for (exe, args, ready) in [
        (
            "fault_injector",
            vec!["--ros-args", "-p", "use_sim_time:=true"],
            "ready:",
        ),
        ("sim_bridge", vec![], "ready"),
    ] {
        for (colour, esc) in [(Some("1"), true), (Some("0"), false), (None, false)] {
            domain += 1;
            let (code, log) = run_and_signal_with(exe, &args, ready, libc::SIGINT, domain, colour);
            assert_eq!(code, Some(0), "{exe}: {log}");
            assert_eq!(
                log.contains("\u{1b}["),
                esc,
                "{exe} with RCUTILS_COLORIZED_OUTPUT={colour:?}:\n{log:?}"
            );
        }
    }
}
