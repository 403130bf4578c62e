//! Graph campaigns: `breakbench campaign <scenario> --graph <launch config>`
//! executes the same plan as the in-process campaign, each run on a ROS 2
//! graph (the corridor graph of `launch/corridor.graph.yaml`, lock-step).
//!
//! * parity: a declared subset of the corridor study
//!   (`tests/graph/corridor_subset.yaml`: 2 × 2 cells × 1 repeat, 3 nominal
//!   runs) on the graph gives the same verdict per run and the same k per
//!   cell as the in-process executor on the same specs; the per-cell
//!   differences are printed;
//! * actuator parity: two cells of the actuator study
//!   (`tests/graph/actuator_cells.yaml`: a weak drive and a reversed motor
//!   pair on the injector's `cmd_vel` channel, set by the real service) give
//!   the same verdict per run as in-process, with `--jobs 2` (two graphs side
//!   by side on domains 193 and 194);
//! * the navigator on the robot's EKF (`tests/graph/estimator_cells.yaml`:
//!   a GNSS spoof cell and 3 nominal runs, `pose_source: estimator`): the
//!   executor adds `ekf_node` to the graph, `simple_navigator` drives from
//!   its `/odometry/filtered`; the same verdict per run as in-process;
//! * a graph whose node never prints its ready marker gives `invalid` runs
//!   (state `start`), not `fail`, and leaves no process behind.
//!
//! Every DDS packet stays in a loopback-only network namespace
//! (`scripts/netns.sh`); this file's graphs use `ROS_DOMAIN_ID` 190..=199.
//! The test builds the node binaries it needs (same profile and target
//! directory).

mod common;

use std::process::Command;
use std::time::Duration;

use breakbench::campaign::manifest::RunKind;
use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::{Budget, Scenario};
use common::{alive, bin_dir, campaign, cells, manifests, root, started_pids, tmp};

#[test]
fn graph_campaign_gives_the_in_process_verdicts_and_k_per_cell() {
    let scen = root().join("tests/graph/corridor_subset.yaml");
    let s = Scenario::load(&scen).unwrap();

    // In-process, the same plan.
    let inproc = tmp("inproc");
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

    let out = tmp("graph");
    let log = tmp("graph_log").join("campaign.log");
    let (code, text) = campaign(
        &[
            scen.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--graph".into(),
            root()
                .join("launch/corridor.graph.yaml")
                .display()
                .to_string(),
            "--graph-domain-base".into(),
            "190".into(),
            "--jobs".into(),
            "1".into(),
            "--quiet".into(),
        ],
        &bin_dir(),
        &log,
        Duration::from_secs(1500),
    );
    assert_eq!(code, 0, "graph campaign failed; log:\n{text}");

    let g = manifests(&out);
    let p = manifests(&inproc);
    assert_eq!(
        g.iter().map(|m| &m.run_id).collect::<Vec<_>>(),
        p.iter().map(|m| &m.run_id).collect::<Vec<_>>(),
        "the two executors ran different plans"
    );
    let mut diffs = Vec::new();
    for (gm, pm) in g.iter().zip(&p) {
        let rec = gm
            .graph
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no graph record", gm.run_id));
        assert_eq!(
            rec.invalid_reason, None,
            "{}: invalid graph run (state {})",
            gm.run_id, rec.state_reached
        );
        assert_eq!(rec.state_reached, "done");
        assert_eq!(
            rec.domain_id, 190,
            "{}: --jobs 1 uses the base id",
            gm.run_id
        );
        assert!(
            rec.rtf_achieved > 0.0 && rec.wall_time_s > 0.0,
            "{}: rtf {} wall {}",
            gm.run_id,
            rec.rtf_achieved,
            rec.wall_time_s
        );
        assert_eq!(gm.seed, pm.seed);
        assert_eq!(gm.cell, pm.cell);
        if gm.kind == RunKind::Grid {
            // Confirmed applied from the injector's status, one per axis.
            assert_eq!(gm.faults.len(), 2, "{}", gm.run_id);
            for (gf, pf) in gm.faults.iter().zip(&pm.faults) {
                assert_eq!(
                    (&gf.axis, &gf.channel, &gf.mode),
                    (&pf.axis, &pf.channel, &pf.mode)
                );
                assert_eq!(gf.requested, pf.requested);
                assert!(gf.first_applied_s.is_some());
            }
        } else {
            assert!(
                gm.faults.is_empty(),
                "{}: faults in a nominal run",
                gm.run_id
            );
        }
        let line = format!(
            "{:40} graph: safety_violation={} mission_failure={} self_report={:?} | in-process: safety_violation={} mission_failure={} self_report={:?} | rtf {:.2} wall {:.1} s cpu {:?}",
            gm.run_id,
            gm.verdict.safety_violation(),
            gm.verdict.mission_failure(),
            gm.self_report,
            pm.verdict.safety_violation(),
            pm.verdict.mission_failure(),
            pm.self_report,
            rec.rtf_achieved,
            rec.wall_time_s,
            rec.host_cpu_busy
        );
        eprintln!("{line}");
        if gm.verdict.safety_violation() != pm.verdict.safety_violation()
            || gm.verdict.mission_failure() != pm.verdict.mission_failure()
            || gm.self_report != pm.self_report
        {
            diffs.push(line);
        }
    }

    let (gs, ps) = (cells(&out), cells(&inproc));
    let mut cell_diffs = Vec::new();
    assert_eq!(gs.len(), 4);
    for (gc, pc) in gs.iter().zip(&ps) {
        assert_eq!(gc.0, pc.0);
        assert_eq!(gc.1, 1, "{}: one run per cell", gc.0);
        let l = format!(
            "cell {}: n {} / {}, k_safety {} / {} (diff {}), k_mission {} / {} (diff {})  [graph / in-process]",
            gc.0,
            gc.1,
            pc.1,
            gc.2,
            pc.2,
            gc.2 as i64 - pc.2 as i64,
            gc.3,
            pc.3,
            gc.3 as i64 - pc.3 as i64
        );
        eprintln!("{l}");
        if (gc.1, gc.2, gc.3) != (pc.1, pc.2, pc.3) {
            cell_diffs.push(l);
        }
    }
    assert!(
        diffs.is_empty() && cell_diffs.is_empty(),
        "graph and in-process disagree:\n{}\n{}",
        diffs.join("\n"),
        cell_diffs.join("\n")
    );
    // The subset is not trivial: some cell fails its mission, some does not.
    assert!(ps.iter().any(|c| c.3 > 0));
    assert!(ps.iter().any(|c| c.3 == 0));
    for f in ["summary.json", "junit.xml", "report.html", "timing.json"] {
        assert!(out.join(f).is_file(), "{f} not written");
    }
    assert!(
        !out.join("graph").exists()
            || std::fs::read_dir(out.join("graph"))
                .unwrap()
                .next()
                .is_none(),
        "per-run work directories of valid runs are removed"
    );
}

#[test]
fn a_node_that_never_becomes_ready_gives_invalid_runs_and_no_leftover_process() {
    let t = tmp("never_ready");
    // Share directory: the repo's config, a launch config with a node that
    // never prints its ready marker.
    std::os::unix::fs::symlink(root().join("config"), t.join("config")).unwrap();
    std::fs::create_dir_all(t.join("launch")).unwrap();
    std::fs::create_dir_all(t.join("bin")).unwrap();
    let pids = t.join("pids");
    let script = t.join("bin/never_ready");
    std::fs::write(
        &script,
        "#!/bin/sh\n# Never prints its ready marker.\necho $$ >> \"$NEVER_READY_PIDS\"\nexec sleep 600\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cfg = t.join("launch/never_ready.graph.yaml");
    std::fs::write(
        &cfg,
        format!(
            "name: never_ready\nparams_file: config/params/corridor.yaml\nnodes:\n  - name: fault_injector\n    package: kraken_faults\n    executable: fault_injector\n    ready: \"ready:\"\n  - name: never_ready\n    package: breakbench\n    executable: never_ready\n    ready: \"ready\"\n    env:\n      NEVER_READY_PIDS: {}\n  - name: oracle\n    package: breakbench_oracle\n    executable: oracle\n    ready: \"ready\"\n    role: oracle\n  - name: sim_bridge\n    package: breakbench_sim_bridge\n    executable: sim_bridge\n    ready: \"ready\"\n    after_scenario: true\n",
            pids.display()
        ),
    )
    .unwrap();
    // BREAKBENCH_BIN_DIR holds only the script: the nodes are found next to breakbench.
    let out = t.join("out");
    let log = t.join("campaign.log");
    let (code, text) = campaign(
        &[
            root()
                .join("tests/graph/one_cell.yaml")
                .display()
                .to_string(),
            "--out".into(),
            out.display().to_string(),
            "--graph".into(),
            cfg.display().to_string(),
            "--graph-domain-base".into(),
            "195".into(),
            "--ready-timeout-s".into(),
            "3".into(),
            "--quiet".into(),
        ],
        &t.join("bin"),
        &log,
        Duration::from_secs(300),
    );
    // Harness check failed (invalid runs), not an error and not a verdict.
    assert_eq!(code, 1, "log:\n{text}");
    assert!(text.contains("graph: 4 run(s) invalid"), "log:\n{text}");
    let ms = manifests(&out);
    assert_eq!(ms.len(), 4);
    for m in &ms {
        let g = m.graph.as_ref().expect("graph record");
        assert_eq!(g.state_reached, "start", "{}", m.run_id);
        let why = g.invalid_reason.as_deref().unwrap_or("");
        assert!(
            why.contains("never_ready printed no \"ready\" within 3.0 s"),
            "{}: {why}",
            m.run_id
        );
        assert_eq!(g.domain_id, 195);
        // Stopped within the deadline plus the shutdown, not at the run timeout.
        assert!(g.wall_time_s < 20.0, "{}: {} s", m.run_id, g.wall_time_s);
    }
    // Not counted as judged runs.
    let s = cells(&out);
    assert_eq!(s.len(), 1);
    assert!(s.iter().all(|c| c.1 == 0), "invalid runs counted: {s:?}");
    // No process left: the script's own pids (one per run) and every
    // process the supervisor reported starting.
    let script_pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(script_pids.len(), 4, "one never_ready per run");
    let started = started_pids(&text);
    assert_eq!(
        started.len(),
        4 * 2,
        "fault_injector and never_ready per run: {started:?}"
    );
    for (name, pid) in started.iter().cloned().chain(
        script_pids
            .iter()
            .map(|p| ("never_ready script".to_string(), *p)),
    ) {
        assert!(!alive(pid), "{name} pid {pid} left running");
    }
    // A resumed campaign runs the invalid runs again (they are not reused).
    let (code2, text2) = campaign(
        &[
            root()
                .join("tests/graph/one_cell.yaml")
                .display()
                .to_string(),
            "--out".into(),
            out.display().to_string(),
            "--graph".into(),
            cfg.display().to_string(),
            "--graph-domain-base".into(),
            "195".into(),
            "--ready-timeout-s".into(),
            "1".into(),
            "--quiet".into(),
        ],
        &t.join("bin"),
        &t.join("campaign2.log"),
        Duration::from_secs(300),
    );
    assert_eq!(code2, 1);
    assert!(
        text2.contains("rerunning 4 run(s), an invalid graph run"),
        "log:\n{text2}"
    );
    assert!(manifests(&out).iter().all(|m| m
        .graph
        .as_ref()
        .and_then(|g| g.invalid_reason.as_deref())
        .is_some_and(|w| w.contains("within 1.0 s"))));
}

/// A scenario the graph executor cannot run as written (a resilience test
/// that reads the navigator's pose estimate, `estimate.*`, which no topic of
/// the graph carries) is refused before anything starts or is written: exit 2 (an error,
/// as for any bad input; 1 is a failed harness check), the scenario field
/// named, no results written.
#[test]
fn a_scenario_the_graph_cannot_run_is_refused_before_anything_runs() {
    let out = tmp("graph_refuses_tests");
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .current_dir(root())
        .args([
            "campaign",
            "scenarios/tests/gnss_spoof_gated.yaml",
            "--graph",
        ])
        .arg(root().join("launch/corridor.graph.yaml"))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("breakbench runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("gnss_spoof_gated.yaml: field 'tests': unsupported by the graph executor")
            && err.contains("reads the navigator's pose estimate"),
        "{err}"
    );
    assert!(
        !out.join("manifests").exists() && !out.join("summary.json").exists(),
        "nothing may be written for a refused scenario"
    );
}

/// The actuator channel on the graph: the navigator's command through the
/// injector's `cmd_vel` channel, the fault set through `~/set_fault` and
/// confirmed applied from `/fault_injector/status`; the same verdict per
/// run (a weak drive passes, a reversed motor hits the start wall) as
/// in-process (REQ-FAULT-ACTUATOR).
/// Two cells of the actuator study and 3 nominal runs on the lock-step
/// graph with `--jobs 2` (two graphs at once, domains 193 and 194): the
/// verdicts of the in-process runs, the reversed motor the only violation.
#[test]
fn actuator_faults_on_the_graph_give_the_in_process_verdicts() {
    let scen = root().join("tests/graph/actuator_cells.yaml");
    let s = Scenario::load(&scen).unwrap();
    let inproc = tmp("actuator_inproc");
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
    // The same graph runs recorded (REQ-REC-GRAPH) and not: recording
    // changes no verdict.
    let graph = |record: &str| {
        let out = tmp(&format!("actuator_graph_{record}"));
        let log = tmp(&format!("actuator_graph_log_{record}")).join("campaign.log");
        let (code, text) = campaign(
            &[
                scen.display().to_string(),
                "--out".into(),
                out.display().to_string(),
                "--graph".into(),
                root()
                    .join("launch/corridor.graph.yaml")
                    .display()
                    .to_string(),
                "--graph-domain-base".into(),
                "193".into(),
                "--jobs".into(),
                "2".into(),
                "--quiet".into(),
                "--record".into(),
                record.into(),
            ],
            &bin_dir(),
            &log,
            Duration::from_secs(900),
        );
        assert_eq!(code, 0, "graph campaign failed; log:\n{text}");
        out
    };
    let (out, none) = (graph("full"), graph("none"));
    // Two graphs and two recorders on 2 cores: log times lag (measured up to
    // 7.2 s of sim time), not checked here.
    check_recordings(&out, &s, "/cmd_vel", None, None);
    assert!(!none.join("recordings").exists(), "--record none records");
    assert!(manifests(&none)
        .iter()
        .all(|m| m.recording_sha256.is_none()));
    let (g, p) = (manifests(&out), manifests(&inproc));
    assert_eq!(g.len(), 5, "2 grid runs, 3 nominal");
    let verdicts = |ms: &[breakbench::campaign::manifest::Manifest]| {
        ms.iter()
            .map(|m| {
                (
                    m.run_id.clone(),
                    m.verdict.safety_violation(),
                    m.verdict.mission_failure(),
                    m.self_report,
                )
            })
            .collect::<Vec<_>>()
    };
    for (gm, v) in g.iter().zip(verdicts(&g)) {
        eprintln!(
            "{v:?} (graph; state {:?})",
            gm.graph.as_ref().map(|r| &r.state_reached)
        );
        if gm.kind == RunKind::Grid {
            assert_eq!(gm.faults.len(), 1, "{}", gm.run_id);
            assert_eq!(gm.faults[0].channel, "cmd_vel");
            assert!(gm.faults[0].first_applied_s.is_some(), "{}", gm.run_id);
        }
    }
    assert_eq!(verdicts(&g), verdicts(&p), "graph and in-process disagree");
    assert_eq!(
        verdicts(&manifests(&none)),
        verdicts(&g),
        "the graph runs' verdicts with --record full and none differ"
    );
    // --jobs 2: two graphs side by side, each on its own domain id.
    let domains: std::collections::BTreeSet<u16> = g
        .iter()
        .map(|m| m.graph.as_ref().expect("graph record").domain_id)
        .collect();
    assert_eq!(
        domains,
        [193, 194].into(),
        "--jobs 2 uses BASE and BASE + 1"
    );
    // Not trivial: the reversed motor violates safety, the weak drive does not.
    assert_eq!(
        verdicts(&p).iter().filter(|v| v.1).count(),
        1,
        "{:?}",
        verdicts(&p)
    );
}

/// The navigator on the robot's EKF on the graph (issue 9, REQ-EKF-NODE):
/// for a scenario whose navigator has `pose_source: estimator`, the graph
/// executor starts `ekf_node` (node `ekf_filter_node`, gating from the
/// navigator's `estimator_gating`) before `simple_navigator`, which drives
/// from its `/odometry/filtered`. A GNSS spoof the ungated EKF follows (0.5
/// m/s from the start) fails the mission, the nominal runs reach the goal,
/// each with the in-process run's verdict and self-report, and the nominal
/// runs' completion times within 0.2 s of in-process.
#[test]
fn the_navigator_on_the_ekf_on_the_graph_gives_the_in_process_verdicts() {
    let scen = root().join("tests/graph/estimator_cells.yaml");
    let s = Scenario::load(&scen).unwrap();
    let inproc = tmp("estimator_inproc");
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
    let out = tmp("estimator_graph");
    let log = tmp("estimator_graph_log").join("campaign.log");
    let (code, text) = campaign(
        &[
            scen.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--graph".into(),
            root()
                .join("launch/corridor.graph.yaml")
                .display()
                .to_string(),
            "--graph-domain-base".into(),
            "195".into(),
            "--quiet".into(),
            "--record".into(),
            "full".into(),
            "--record-topic".into(),
            "/odometry/filtered".into(),
            "--record-topic".into(),
            "/no_such/topic".into(),
        ],
        &bin_dir(),
        &log,
        Duration::from_secs(900),
    );
    assert_eq!(code, 0, "graph campaign failed; log:\n{text}");
    check_recordings(
        &out,
        &s,
        "/odometry/filtered",
        Some("/no_such/topic"),
        Some(2.0),
    );
    assert_eq!(
        text.matches("started ekf_filter_node").count(),
        4,
        "one EKF node per run; log:\n{text}"
    );
    let (g, p) = (manifests(&out), manifests(&inproc));
    assert_eq!(g.len(), 4, "1 grid run, 3 nominal");
    let verdicts = |ms: &[breakbench::campaign::manifest::Manifest]| {
        ms.iter()
            .map(|m| {
                (
                    m.run_id.clone(),
                    m.verdict.safety_violation(),
                    m.verdict.mission_failure(),
                    m.self_report,
                )
            })
            .collect::<Vec<_>>()
    };
    for m in &g {
        let r = m.graph.as_ref().expect("graph record");
        assert_eq!(
            r.state_reached, "done",
            "{}: {:?}",
            m.run_id, r.invalid_reason
        );
    }
    assert_eq!(verdicts(&g), verdicts(&p), "graph and in-process disagree");
    // Not trivial: the spoofed run fails its mission, the nominal ones pass.
    let failed: Vec<_> = verdicts(&p)
        .into_iter()
        .filter(|v| v.2)
        .map(|v| v.0)
        .collect();
    assert_eq!(failed, ["grid_ramp_rate_m_s0.5_r0"], "{:?}", verdicts(&p));
    // The same robot: each nominal run reaches the goal at the in-process time.
    let completion = |m: &breakbench::campaign::manifest::Manifest| {
        serde_json::to_value(m.verdict).unwrap()["mission_completion_true_pose"]["value"]
            .as_f64()
            .unwrap()
    };
    for (a, b) in g.iter().zip(&p).filter(|(a, _)| a.kind == RunKind::Nominal) {
        let (tg, tp) = (completion(a), completion(b));
        eprintln!(
            "{}: completion {tg:.2} s graph, {tp:.2} s in-process",
            a.run_id
        );
        assert!((tg - tp).abs() <= 0.2, "{}: {tg} vs {tp}", a.run_id);
    }
}

/// An actuator fault that withholds commands (a delay, a dropout) is
/// refused on the lock-step graph before anything runs: the plant would
/// wait for a /cmd_vel that never comes.
#[test]
fn a_withholding_actuator_fault_on_the_graph_is_refused() {
    let out = tmp("graph_refuses_cmd_vel_delay");
    let scen = out.with_extension("yaml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(root().join("tests/graph/actuator_cells.yaml"))
        .unwrap()
        .replace("../../config", &root().join("config").display().to_string())
        .replace("mode: scale", "mode: delay")
        .replace("parameter: scale_factor", "parameter: delay_s")
        .replace("values: [0.8, -1.0]", "values: [0.2]");
    std::fs::write(&scen, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .current_dir(root())
        .args(["campaign"])
        .arg(&scen)
        .arg("--graph")
        .arg(root().join("launch/corridor.graph.yaml"))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("breakbench runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("field 'axes[0].mode': unsupported by the graph executor")
            && err.contains("'delay' on the actuator channel 'cmd_vel'"),
        "{err}"
    );
    assert!(!out.join("summary.json").exists());
}

/// Every run of the graph campaign in `out` (scenario `s`) left its MCAP
/// recording (REQ-REC-GRAPH): the file the manifest's sha256 names,
/// profile `ros2`; every message decodes with the message registry; our
/// graph's topics are there (not `/rosout`: the ros2-client nodes log to
/// stderr, their `/rosout` writers publish nothing), and `named` (a topic the test named) has
/// messages; `missing` (named, published by no one) has none and is listed
/// as `not_published`; the ground truth at the oracle's last sample gives
/// the manifest's final goal distance; with `max_lag_s`, every ground-truth
/// message logged within that many sim seconds of its stamp. Prints the
/// bytes and the messages per topic.
fn check_recordings(
    out: &std::path::Path,
    s: &Scenario,
    named: &str,
    missing: Option<&str>,
    max_lag_s: Option<f64>,
) {
    use breakbench_records::{read_recording, sha256_hex};
    use kraken_interfaces::ros::Odometry;
    let registry = kraken_faults::dynamic::builtin_registry();
    for m in manifests(out) {
        let id = &m.run_id;
        let path = out.join(format!("recordings/{id}.mcap"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            m.recording_sha256.as_deref(),
            Some(&*sha256_hex(&bytes)),
            "{id}"
        );
        assert_eq!(m.recording_mode.as_deref(), Some("full"), "{id}");
        let rec = read_recording(&bytes).unwrap();
        assert_eq!(rec.profile, "ros2");
        let mut count: std::collections::BTreeMap<&str, usize> = Default::default();
        for msg in &rec.messages {
            *count.entry(&msg.topic).or_default() += 1;
            let ty = registry.resolve(&msg.type_name).unwrap();
            kraken_faults::dynamic::decode(&ty, &msg.cdr)
                .unwrap_or_else(|e| panic!("{id}: {} ({}): {e}", msg.topic, msg.type_name));
        }
        eprintln!(
            "{id}: recording {} bytes, messages per topic {count:?}",
            bytes.len()
        );
        let stats = &rec.metadata["breakbench_recording"];
        for t in [
            "/oracle/odom",
            "/scan_raw",
            "/scan",
            "/odom_raw",
            "/odom",
            "/cmd_vel_nav",
            "/cmd_vel",
            "/fault_injector/status",
            "/tf",
            "/tf_static",
            named,
        ] {
            assert!(count.get(t).is_some_and(|n| *n > 0), "{id}: nothing on {t}");
            assert_eq!(stats[&format!("messages:{t}")], count[t].to_string());
        }
        if let Some(missing) = missing {
            assert!(!count.contains_key(missing));
            assert!(
                stats["not_published"].split(' ').any(|t| t == missing),
                "{id}: {stats:?}"
            );
        }
        assert_eq!(rec.metadata["breakbench_run"]["run_id"], *id);
        assert_eq!(rec.metadata["breakbench_run"]["executor"], "graph");
        // The truth at the oracle's last sample: the manifest's final goal distance.
        let truth: Vec<(u64, Odometry)> = rec
            .messages
            .iter()
            .filter(|x| x.topic == "/oracle/odom")
            .map(|x| {
                let o: Odometry =
                    kraken_faults::dynamic::decode_serde(&x.type_name, &x.cdr).unwrap();
                (x.log_time_ns, o)
            })
            .collect();
        let stamp = |o: &Odometry| o.header.stamp.sec as f64 + o.header.stamp.nanosec as f64 * 1e-9;
        let end = m.sim_time_s;
        let last = truth
            .iter()
            .rfind(|(_, o)| stamp(o) <= end + 1e-9)
            .expect("truth up to the end");
        let p = &last.1.pose.pose.position;
        let goal = s.world.goal.center_m;
        let d = (p.x - goal[0]).hypot(p.y - goal[1]);
        assert!(
            (d - m.final_goal_distance_m).abs() <= 1e-9,
            "{id}: recorded truth at {} s gives {d} m to the goal, the manifest {} m (end {end} s)",
            stamp(&last.1),
            m.final_goal_distance_m
        );
        // Log time: the graph's sim time when it arrived (its /clock); a
        // recorder behind a loaded host logs late (measured: up to 0.78 s
        // of sim time at about 12x real time on 2 busy cores).
        let lag = truth
            .iter()
            .map(|(ns, o)| *ns as f64 * 1e-9 - stamp(o))
            .fold(0.0f64, |a, b| a.max(b.abs()));
        eprintln!("{id}: /oracle/odom log time - stamp: at most {lag:.3} s");
        if let Some(max) = max_lag_s {
            assert!(
                lag <= max,
                "{id}: log times {lag} s off the messages' stamps"
            );
        }
    }
}
