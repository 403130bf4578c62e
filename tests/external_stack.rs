//! External stacks: `breakbench campaign <scenario> --graph-cmd '<command
//! template>'` runs each run on a graph the campaign does not know, started
//! from a command with placeholders, with readiness conditions.
//!
//! * parity: our own corridor graph started as an "external stack" (the
//!   command template is `breakbench up launch/corridor.graph.yaml
//!   --domain-id {domain_id} --set oracle.run_id={run_id} ...`, what a
//!   user's `ros2 launch` would be; sim_bridge holds its clock until the
//!   start gate `/sim_bridge/start` is called after arming) gives the
//!   in-process verdict per run and the same k per cell on
//!   `tests/graph/one_cell.yaml` (1 grid run, 3 nominal runs);
//! * a stack whose readiness topic never gets a publisher gives `invalid`
//!   runs in state `start`, stopped with SIGINT, and leaves no process;
//! * a stack that leaves a process outside its process group (setsid) gives
//!   `invalid` runs in state `reset`, and that process is killed;
//! * an unknown placeholder is refused before anything runs.
//! * readiness by message: an advertised but silent topic is not ready.
//! * a kept-running stack (`--keep-running`, REQ-GRAPH-RESET): `ros2 launch
//!   breakbench corridor.launch.py ... keep_running:=true`, the real launch
//!   system from `.venv-ros` on an ament prefix of this build's binaries,
//!   starts once, is reset per run through the nodes' `~/reset` services,
//!   and gives the in-process verdicts, final distances and k; the grid
//!   run's fault is not active in the nominal runs after it; nothing is left;
//! * the same with the robot's EKF (`estimator:=true`, reset through
//!   `/ekf_filter_node/reset` too): the runs of the same launch restarted
//!   per run, each reaching the goal within 0.2 s of its twin;
//! * a kept-running stack that breaks (never ready) is stopped and started
//!   fresh for the next run, its reset command gets each run's values.
//!
//! Every DDS packet stays in a loopback-only network namespace
//! (`scripts/netns.sh`); this file's graphs use `ROS_DOMAIN_ID` 180..=189.
//! The per-run `ros2 launch breakbench corridor.launch.py` variant runs in
//! `scripts/ros2cli_test.sh` (from the colcon install).

mod common;
#[path = "external_stack/step.rs"]
mod step;

use std::process::Command;
use std::time::Duration;

use breakbench::campaign::manifest::RunKind;
use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::{Budget, Scenario};
use common::{
    alive, ament_prefix, bin_dir, campaign, cells, manifests, marked_on_domain, root, ros_venv,
    started_pids, tmp,
};

/// The campaign's arguments for `--graph-cmd` with `extra` after them.
fn args(scenario: &str, out: &std::path::Path, cmd: &str, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        root().join(scenario).display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--graph-cmd".into(),
        cmd.into(),
        "--quiet".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

#[test]
fn our_graph_as_an_external_stack_gives_the_in_process_verdicts_and_k() {
    external_parity("ext", &["--start-service", "/sim_bridge/start"], "180");
}

/// The same stack, its simulator driven only through the ROS 2 standard
/// simulation_interfaces (issue 29, REQ-SIMIF-DRIVE): `--simulator` with
/// sim_bridge's services (`/sim_bridge/...`), no `/sim_bridge/start`: the
/// entity checked before arming, the start by SetSimulationState PLAYING
/// after it, lock-step: the in-process verdicts and k.
#[test]
fn the_simulator_through_simulation_interfaces_gives_the_in_process_verdicts() {
    let dir = tmp("simif_cfg");
    let f = dir.join("simulator.yaml");
    std::fs::write(
        &f,
        "simulator: simulation_interfaces\nservice_prefix: /sim_bridge\nentity: robot\n",
    )
    .unwrap();
    let f = f.display().to_string();
    external_parity("simif", &["--simulator", &f], "182");
}

/// How [`external_parity_with`] runs the stack.
struct Stack<'a> {
    /// `--set` arguments for `breakbench up` after the lock-step defaults.
    sets: &'a str,
    /// `/oracle/odom` is a readiness topic (the bridge publishes it).
    truth_topic_ready: bool,
    /// Each invariant's `decided_at_s` within this of the in-process one.
    decided_within_s: Option<f64>,
}

/// `tests/graph/one_cell.yaml` on our graph as an external stack started
/// with `start` (its start gate), on domain `domain`: the in-process
/// verdict per run, k per cell, no process left.
fn external_parity(tag: &str, start: &[&str], domain: &str) {
    let stack = Stack {
        sets: "",
        truth_topic_ready: true,
        decided_within_s: None,
    };
    external_parity_with(tag, start, domain, &stack);
}

/// As [`external_parity`], the stack as `stack` says.
fn external_parity_with(tag: &str, start: &[&str], domain: &str, stack: &Stack) {
    let scen = "tests/graph/one_cell.yaml";
    let s = Scenario::load(&root().join(scen)).unwrap();
    let inproc = tmp(&format!("{tag}_inproc"));
    run_campaign(
        &s,
        &CampaignOptions {
            out: inproc.clone(),
            jobs: 2,
            progress: false,
            budget: Budget::default(),
        },
    )
    .unwrap();

    let out = tmp(&format!("{tag}_graph"));
    let log = tmp(&format!("{tag}_graph_log")).join("campaign.log");
    let cmd = format!(
        "{} up {} --domain-id {{domain_id}} --timeout-s 600 \
         --set sim_bridge.real_time_factor=0 --set sim_bridge.start_service=true \
         --set sim_bridge.start_timeout_s=120 --set sim_bridge.seed={{seed}} \
         --set oracle.seed={{seed}} --set oracle.run_id={{run_id}} --set oracle.manifest_dir={{out}} {}",
        env!("CARGO_BIN_EXE_breakbench"),
        root().join("launch/corridor.graph.yaml").display(),
        stack.sets
    );
    let mut extra = vec!["--ready-topic", "/fault_injector/status"];
    if stack.truth_topic_ready {
        extra.extend(["--ready-topic", "/oracle/odom"]);
    }
    extra.extend([
        // The injector publishes its status on a wall timer from
        // start-up: it must deliver one before the run is armed.
        "--ready-message",
        "/fault_injector/status",
        "--graph-domain-base",
        domain,
    ]);
    extra.extend_from_slice(start);
    let (code, text) = campaign(
        &args(scen, &out, &cmd, &extra),
        &bin_dir(),
        &log,
        Duration::from_secs(900),
    );
    assert_eq!(code, 0, "external-stack campaign failed; log:\n{text}");
    let g = manifests(&out);
    let p = manifests(&inproc);
    assert_eq!(
        g.iter().map(|m| &m.run_id).collect::<Vec<_>>(),
        p.iter().map(|m| &m.run_id).collect::<Vec<_>>()
    );
    let mut diffs = Vec::new();
    for (gm, pm) in g.iter().zip(&p) {
        let rec = gm.graph.as_ref().expect("graph record");
        assert_eq!(
            rec.invalid_reason, None,
            "{}: invalid (state {})",
            gm.run_id, rec.state_reached
        );
        assert_eq!(rec.state_reached, "done");
        assert_eq!(rec.domain_id.to_string(), domain);
        assert_eq!((gm.seed, &gm.cell), (pm.seed, &pm.cell));
        if gm.kind == RunKind::Grid {
            assert_eq!(gm.faults.len(), 1, "{}", gm.run_id);
            assert!(gm.faults[0].first_applied_s.is_some());
            assert_eq!(gm.faults[0].requested, pm.faults[0].requested);
        } else {
            assert!(gm.faults.is_empty(), "{}", gm.run_id);
        }
        let line = format!(
            "{:32} external: safety_violation={} mission_failure={} | in-process: safety_violation={} mission_failure={} | wall {:.1} s rtf {:.2}",
            gm.run_id,
            gm.verdict.safety_violation(),
            gm.verdict.mission_failure(),
            pm.verdict.safety_violation(),
            pm.verdict.mission_failure(),
            rec.wall_time_s,
            rec.rtf_achieved
        );
        eprintln!("{line}");
        if gm.verdict.safety_violation() != pm.verdict.safety_violation()
            || gm.verdict.mission_failure() != pm.verdict.mission_failure()
        {
            diffs.push(line);
        }
        if let Some(tol) = stack.decided_within_s {
            step::decided_within(&gm.run_id, &gm.verdict, &pm.verdict, tol, &mut diffs);
        }
    }
    let (gs, ps) = (cells(&out), cells(&inproc));
    eprintln!("cells external {gs:?} / in-process {ps:?}");
    assert_eq!(gs, ps, "k per cell differs");
    assert!(diffs.is_empty(), "verdicts differ:\n{}", diffs.join("\n"));
    // Every process the campaign started is gone.
    let started = started_pids(&text);
    assert!(started.iter().any(|(n, _)| n == "stack"), "{started:?}");
    for (name, pid) in started {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
}

/// Writes an executable `sh` script into `dir`.
fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

fn pids(file: &std::path::Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

#[test]
fn a_never_ready_stack_is_invalid_in_start_is_interrupted_and_leaves_nothing() {
    let t = tmp("ext_never_ready");
    let (pid_file, int_file) = (t.join("pids"), t.join("sigint"));
    // Records its pid, and SIGINT when it gets one; never publishes anything.
    let stack = script(
        &t,
        "stack.sh",
        &format!(
            "echo $$ >> {}\ntrap 'echo \"$1\" >> {}; exit 0' INT\nwhile true; do sleep 0.1; done\n",
            pid_file.display(),
            int_file.display()
        ),
    );
    let out = t.join("out");
    let log = t.join("campaign.log");
    let (code, text) = campaign(
        &args(
            "tests/graph/one_cell.yaml",
            &out,
            &format!("{stack} {{run_id}}"),
            &[
                "--ready-topic",
                "/never/published",
                "--ready-timeout-s",
                "2",
                "--graph-domain-base",
                "185",
            ],
        ),
        &bin_dir(),
        &log,
        Duration::from_secs(300),
    );
    assert_eq!(code, 1, "log:\n{text}");
    assert!(text.contains("graph: 4 run(s) invalid"), "log:\n{text}");
    let ms = manifests(&out);
    assert_eq!(ms.len(), 4);
    for m in &ms {
        let g = m.graph.as_ref().expect("graph record");
        assert_eq!(g.state_reached, "start", "{}", m.run_id);
        let why = g.invalid_reason.as_deref().unwrap_or("");
        assert!(
            why.contains("not ready: no publisher on /never/published within 2.0 s"),
            "{}: {why}",
            m.run_id
        );
        assert!(g.wall_time_s < 20.0, "{}: {} s", m.run_id, g.wall_time_s);
    }
    assert!(cells(&out).iter().all(|c| c.1 == 0), "invalid runs counted");
    // Stopped with SIGINT (run id passed through the template), one stack per run.
    let mut ints: Vec<String> = std::fs::read_to_string(&int_file)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    ints.sort();
    let mut ids: Vec<String> = ms.iter().map(|m| m.run_id.clone()).collect();
    ids.sort();
    assert_eq!(ints, ids, "each run's stack got SIGINT");
    let script_pids = pids(&pid_file);
    assert_eq!(script_pids.len(), 4);
    let started = started_pids(&text);
    assert_eq!(started.len(), 4 * 2, "stack and probe per run: {started:?}");
    for (name, pid) in started
        .into_iter()
        .chain(script_pids.into_iter().map(|p| ("script".into(), p)))
    {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
}

#[test]
fn a_process_left_outside_the_group_is_killed_and_makes_the_run_invalid_in_reset() {
    let t = tmp("ext_escapee");
    let pid_file = t.join("escaped");
    // Starts a process in a session of its own (not in the stack's group).
    let stack = script(
        &t,
        "stack.sh",
        &format!(
            "setsid sleep 600 &\necho $! >> {}\nexec sleep 600\n",
            pid_file.display()
        ),
    );
    let out = t.join("out");
    let (code, text) = campaign(
        &args(
            "tests/graph/one_cell.yaml",
            &out,
            &stack,
            &[
                "--ready-topic",
                "/never/published",
                "--ready-timeout-s",
                "1",
                "--graph-domain-base",
                "186",
            ],
        ),
        &bin_dir(),
        &t.join("campaign.log"),
        Duration::from_secs(300),
    );
    assert_eq!(code, 1, "log:\n{text}");
    for m in manifests(&out) {
        let g = m.graph.as_ref().expect("graph record");
        assert_eq!(g.state_reached, "reset", "{}", m.run_id);
        let why = g.invalid_reason.as_deref().unwrap_or("");
        assert!(
            why.contains("processes left after the shutdown: sleep")
                && why.contains("(outside the stack's process group)"),
            "{}: {why}",
            m.run_id
        );
    }
    let escaped = pids(&pid_file);
    assert_eq!(escaped.len(), 4);
    for pid in escaped {
        assert!(!alive(pid), "escaped sleep {pid} left running");
    }
}

/// An unknown placeholder is an error naming it (exit 2) before anything
/// runs or is written.
#[test]
fn an_unknown_placeholder_is_refused_before_anything_runs() {
    let out = tmp("ext_bad_template");
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .current_dir(root())
        .args(["campaign", "tests/graph/one_cell.yaml", "--graph-cmd"])
        .arg("ros2 launch breakbench corridor.launch.py seed:={sed}")
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("breakbench runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown placeholder {sed}"), "{err}");
    assert!(err.contains("--graph-cmd"), "{err}");
    assert!(!out.join("manifests").exists());
}

/// Readiness by message (`--ready-message`, the probe's `--message`): a
/// topic that is advertised but silent is not ready. sim_bridge with its
/// start gate (`start_service: true`, lock-step) advertises `/clock` and
/// publishes nothing until `/sim_bridge/start` is called; a topic nobody
/// advertises is reported as such.
#[test]
fn an_advertised_but_silent_topic_is_not_ready() {
    common::build_nodes();
    let bin = bin_dir();
    let script = format!(
        "export ROS_DOMAIN_ID=188\n\
         {bin}/sim_bridge --ros-args -p start_service:=true -p real_time_factor:=0.0 >/dev/null 2>&1 &\n\
         sb=$!\n\
         {bin}/breakbench_ready --topic /clock --message /clock --timeout-s 4; echo \"rc=$?\"\n\
         {bin}/breakbench_ready --message /never/advertised --timeout-s 1; echo \"rc=$?\"\n\
         kill -INT $sb; wait $sb; echo \"bridge=$?\"\n",
        bin = bin.display()
    );
    let out = Command::new(root().join("scripts/netns.sh"))
        .args(["bash", "-c", &script])
        .current_dir(root())
        .output()
        .expect("scripts/netns.sh bash");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("ready: /clock has a publisher"),
        "the publisher check passes:\n{text}"
    );
    assert!(
        text.contains(
            "not ready: /clock (rosgraph_msgs/msg/Clock) has a publisher but delivered no message within 4.0 s"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "not ready: no publisher of a ROS 2 message type on /never/advertised within 1.0 s"
        ),
        "{text}"
    );
    let rcs: Vec<&str> = text.lines().filter(|l| l.starts_with("rc=")).collect();
    assert_eq!(rcs, ["rc=1", "rc=1"], "{text}");
    assert!(
        text.contains("bridge=0"),
        "sim_bridge exits 0 on SIGINT:\n{text}"
    );
}

/// REQ-GRAPH-RESET: our corridor launch file as a kept-running external
/// stack. `tests/graph/one_cell.yaml` runs its grid run (odometry scale
/// 1.2) first, then 3 nominal runs, all on one stack started once; each run
/// is reset through `/sim_bridge/reset`, `/fault_injector/reset`,
/// `/simple_navigator/reset` and `/oracle/reset`. Compared with the same
/// launch restarted per run (byte-identical traces) and with the
/// in-process campaign (verdicts, final distances, k).
#[test]
fn a_kept_running_launch_stack_starts_once_and_gives_the_in_process_results() {
    let scen = "tests/graph/one_cell.yaml";
    let s = Scenario::load(&root().join(scen)).unwrap();
    let order: Vec<RunKind> = breakbench::campaign::plan::plan(&s)
        .iter()
        .map(|r| r.kind)
        .collect();
    assert_eq!(
        order,
        [
            RunKind::Grid,
            RunKind::Nominal,
            RunKind::Nominal,
            RunKind::Nominal
        ],
        "the faulted run comes first, so the nominal runs after it show its fault is gone"
    );
    let inproc = tmp("kept_inproc");
    run_campaign(
        &s,
        &CampaignOptions {
            out: inproc.clone(),
            jobs: 2,
            progress: false,
            budget: Budget::default(),
        },
    )
    .unwrap();

    common::build_nodes();
    let venv = ros_venv();
    let t = tmp("kept_launch");
    let prefix = ament_prefix(&t, &bin_dir());
    let launch = format!(
        "env AMENT_PREFIX_PATH={}:{v} LD_LIBRARY_PATH={v}/lib RMW_IMPLEMENTATION=rmw_fastrtps_cpp \
         {v}/bin/ros2 launch breakbench corridor.launch.py real_time_factor:=0 start_service:=true",
        prefix.display(),
        v = venv.display()
    );
    let run = |name: &str, cmd: &str, extra: &[&str]| {
        let out = t.join(name);
        let mut a = vec![
            "--ready-topic",
            "/oracle/odom",
            "--ready-message",
            "/fault_injector/status",
            "--start-service",
            "/sim_bridge/start",
            "--graph-domain-base",
            "187",
        ];
        a.extend(extra);
        let (code, text) = campaign(
            &args(scen, &out, cmd, &a),
            &bin_dir(),
            &t.join(format!("{name}.log")),
            Duration::from_secs(600),
        );
        assert_eq!(code, 0, "{name} campaign failed; log:\n{text}");
        (out, text)
    };
    let (out, text) = run(
        "kept",
        &format!("{launch} keep_running:=true"),
        &[
            "--keep-running",
            "--reset-service",
            "/sim_bridge/reset",
            "--reset-service",
            "/fault_injector/reset",
            "--reset-service",
            "/simple_navigator/reset",
            "--reset-service",
            "/oracle/reset",
        ],
    );
    // The same stack restarted per run (the run's values as launch arguments).
    let (per_run, per_run_text) = run(
        "per_run",
        &format!("{launch} seed:={{seed}} run_id:={{run_id}} out_dir:={{out}}"),
        &[],
    );
    let stack_starts = |log: &str| {
        started_pids(log)
            .iter()
            .filter(|(n, _)| n == "stack")
            .count()
    };
    assert_eq!(stack_starts(&per_run_text), 4);
    // (a) One stack for the whole campaign (one job slot).
    assert_eq!(stack_starts(&text), 1, "{:?}", started_pids(&text));
    // The restart-per-run campaign's runs, byte for byte: the same verdicts
    // and the same trace (its hash) run by run. (Until the navigator's input
    // barrier stopped deciding the first ticks by 2 ms of wall quiet, one
    // nominal trace in several differed under load.)
    let r = manifests(&per_run);
    let key = |m: &breakbench::campaign::manifest::Manifest| {
        (
            m.run_id.clone(),
            m.verdict.safety_violation(),
            m.verdict.mission_failure(),
            m.trace_sha256.clone(),
        )
    };
    let kept = manifests(&out);
    for (a, b) in kept.iter().zip(&r) {
        eprintln!(
            "{}: trace {} kept, {} per run",
            a.run_id, a.trace_sha256, b.trace_sha256
        );
    }
    assert_eq!(
        kept.iter().map(key).collect::<Vec<_>>(),
        r.iter().map(key).collect::<Vec<_>>(),
        "kept-running vs restart-per-run"
    );
    assert_eq!(cells(&out), cells(&per_run));
    // (b) The in-process verdicts, final distances and k, run by run.
    let (g, p) = (manifests(&out), manifests(&inproc));
    assert_eq!(
        g.iter().map(|m| &m.run_id).collect::<Vec<_>>(),
        p.iter().map(|m| &m.run_id).collect::<Vec<_>>()
    );
    for (gm, pm) in g.iter().zip(&p) {
        let rec = gm.graph.as_ref().expect("graph record");
        assert_eq!(
            (rec.state_reached.as_str(), rec.invalid_reason.as_deref()),
            ("done", None),
            "{}",
            gm.run_id
        );
        assert_eq!((gm.seed, &gm.cell), (pm.seed, &pm.cell));
        assert_eq!(
            (gm.verdict.safety_violation(), gm.verdict.mission_failure()),
            (pm.verdict.safety_violation(), pm.verdict.mission_failure()),
            "{}: kept-running vs in-process",
            gm.run_id
        );
        assert!(
            (gm.final_goal_distance_m - pm.final_goal_distance_m).abs() <= 0.02,
            "{}: final goal distance {} kept-running vs {} in-process",
            gm.run_id,
            gm.final_goal_distance_m,
            pm.final_goal_distance_m
        );
        // (d) The grid run's fault applied; none active in the nominal
        // runs after it (the executor's applied-count check passed: done).
        match gm.kind {
            RunKind::Grid => {
                assert_eq!(gm.faults.len(), 1, "{}", gm.run_id);
                assert!(gm.faults[0].first_applied_s.is_some());
            }
            _ => assert!(gm.faults.is_empty(), "{}: {:?}", gm.run_id, gm.faults),
        }
    }
    assert_eq!(cells(&out), cells(&inproc), "k per cell differs");
    // (c) Nothing left running.
    for (name, pid) in started_pids(&text)
        .into_iter()
        .chain(started_pids(&per_run_text))
    {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
    assert_eq!(marked_on_domain(187), Vec::<String>::new());
}

/// REQ-GRAPH-RESET with the robot's EKF: `corridor.launch.py
/// estimator:=true` (ekf_node in the graph, simple_navigator on its
/// `/odometry/filtered`) kept running, reset through `/ekf_filter_node/reset`
/// too, gives every run's trace byte-identical to the same launch restarted
/// per run: nothing of a run's estimate reaches the next (the navigator
/// drives from it, so a leftover would move the robot differently).
#[test]
fn a_kept_running_stack_with_the_ekf_gives_the_restart_per_run_results() {
    let scen = "tests/graph/one_cell.yaml";
    common::build_nodes();
    let venv = ros_venv();
    let t = tmp("kept_ekf");
    let prefix = ament_prefix(&t, &bin_dir());
    let launch = format!(
        "env AMENT_PREFIX_PATH={}:{v} LD_LIBRARY_PATH={v}/lib RMW_IMPLEMENTATION=rmw_fastrtps_cpp \
         {v}/bin/ros2 launch breakbench corridor.launch.py real_time_factor:=0 start_service:=true estimator:=true",
        prefix.display(),
        v = venv.display()
    );
    let run = |name: &str, cmd: &str, extra: &[&str]| {
        let out = t.join(name);
        let mut a = vec![
            "--ready-topic",
            "/oracle/odom",
            "--ready-message",
            "/fault_injector/status",
            "--start-service",
            "/sim_bridge/start",
            "--graph-domain-base",
            "183",
        ];
        a.extend(extra);
        let (code, text) = campaign(
            &args(scen, &out, cmd, &a),
            &bin_dir(),
            &t.join(format!("{name}.log")),
            Duration::from_secs(600),
        );
        assert_eq!(code, 0, "{name} campaign failed; log:\n{text}");
        (out, text)
    };
    let (out, text) = run(
        "kept",
        &format!("{launch} keep_running:=true"),
        &[
            "--keep-running",
            "--reset-service",
            "/sim_bridge/reset",
            "--reset-service",
            "/fault_injector/reset",
            "--reset-service",
            "/ekf_filter_node/reset",
            "--reset-service",
            "/simple_navigator/reset",
            "--reset-service",
            "/oracle/reset",
        ],
    );
    let (per_run, per_run_text) = run(
        "per_run",
        &format!("{launch} seed:={{seed}} run_id:={{run_id}} out_dir:={{out}}"),
        &[],
    );
    let stack_starts = |log: &str| {
        started_pids(log)
            .iter()
            .filter(|(n, _)| n == "stack")
            .count()
    };
    assert_eq!((stack_starts(&text), stack_starts(&per_run_text)), (1, 4));
    // (run id, state, safety violation, mission failure, completion time s)
    let summary = |d: &std::path::Path| {
        manifests(d)
            .iter()
            .map(|m| {
                let rec = m.graph.as_ref().expect("graph record");
                let v = serde_json::to_value(m.verdict).unwrap();
                (
                    m.run_id.clone(),
                    rec.state_reached.clone(),
                    m.verdict.safety_violation(),
                    m.verdict.mission_failure(),
                    v["mission_completion_true_pose"]["value"].as_f64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (k, p) = (summary(&out), summary(&per_run));
    eprintln!("kept: {k:?}\nper run: {p:?}");
    assert_eq!(k.len(), 4);
    assert!(k.iter().chain(&p).all(|r| r.1 == "done"), "{k:?} {p:?}");
    // Not trivial: every run on the EKF reaches the goal (a run that
    // started from the previous run's estimate, at the goal, would not).
    assert!(k.iter().chain(&p).all(|r| !r.2 && !r.3), "{k:?} {p:?}");
    // The same runs: ekf_node is not lock-stepped with the navigator (its
    // output can reach a tick one input later), so traces are not
    // byte-identical even between two restart-per-run campaigns; each run
    // completes within 0.2 s of its restart-per-run twin.
    for (a, b) in k.iter().zip(&p) {
        assert_eq!(a.0, b.0);
        assert!(
            (a.4 - b.4).abs() <= 0.2,
            "{}: {} s kept, {} s per run",
            a.0,
            a.4,
            b.4
        );
    }
    for (name, pid) in started_pids(&text)
        .into_iter()
        .chain(started_pids(&per_run_text))
    {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
    assert_eq!(marked_on_domain(183), Vec::<String>::new());
}

/// A kept-running stack that breaks (here: never ready) makes the run
/// invalid, is stopped (SIGINT) and started fresh for the next run; the
/// reset command gets each run's `{run_id}` and `{seed}` before the run.
#[test]
fn a_broken_kept_running_stack_is_restarted_for_the_next_run() {
    let t = tmp("kept_broken");
    let (pid_file, int_file, reset_file) = (t.join("pids"), t.join("sigint"), t.join("resets"));
    let stack = script(
        &t,
        "stack.sh",
        &format!(
            "echo $$ >> {}\ntrap 'echo int >> {}; exit 0' INT\nwhile true; do sleep 0.1; done\n",
            pid_file.display(),
            int_file.display()
        ),
    );
    let reset = script(
        &t,
        "reset.sh",
        &format!("echo \"$1 $2\" >> {}\n", reset_file.display()),
    );
    let out = t.join("out");
    let (code, text) = campaign(
        &args(
            "tests/graph/one_cell.yaml",
            &out,
            &stack,
            &[
                "--keep-running",
                "--reset-cmd",
                &format!("{reset} {{run_id}} {{seed}}"),
                "--ready-topic",
                "/never/published",
                "--ready-timeout-s",
                "1",
                "--graph-domain-base",
                "189",
            ],
        ),
        &bin_dir(),
        &t.join("campaign.log"),
        Duration::from_secs(300),
    );
    assert_eq!(code, 1, "log:\n{text}");
    let ms = manifests(&out);
    for m in &ms {
        let g = m.graph.as_ref().expect("graph record");
        assert_eq!(g.state_reached, "start", "{}", m.run_id);
        assert!(
            g.invalid_reason
                .as_deref()
                .unwrap_or("")
                .contains("not ready: no publisher on /never/published"),
            "{}: {:?}",
            m.run_id,
            g.invalid_reason
        );
    }
    let mut resets: Vec<String> = std::fs::read_to_string(&reset_file)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    resets.sort();
    let mut want: Vec<String> = ms
        .iter()
        .map(|m| format!("{} {}", m.run_id, m.seed as i64))
        .collect();
    want.sort();
    assert_eq!(resets, want, "one reset per run, with its values");
    // A fresh stack per (failed) run, each stopped with SIGINT.
    let script_pids = pids(&t.join("pids"));
    assert_eq!(script_pids.len(), 4, "{script_pids:?}");
    let ints = std::fs::read_to_string(&int_file).unwrap();
    assert_eq!(ints.lines().count(), 4, "{ints}");
    let started = started_pids(&text);
    assert_eq!(
        started.iter().filter(|(n, _)| n == "stack").count(),
        4,
        "{started:?}"
    );
    for (name, pid) in started
        .into_iter()
        .chain(script_pids.into_iter().map(|p| ("script".into(), p)))
    {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
}
