//! Every in-process run leaves an MCAP recording (REQ-REC-MCAP; issue 26),
//! through the command line: the ros2 profile, the channels and what they
//! carry (a scan delayed 0.4 s arrives 0.4 s after it left the plant), the
//! manifest's sha256 of it checked by `analyze`, the same summary with and
//! without recordings, and a resume that records what an earlier
//! `--record none` campaign did not. The run's events and the injector's
//! status in the recording, equal to the manifest (REQ-REC-EVENTS); the
//! `events` policy's windows and counts, and the same summary.json with
//! `--record full`, `events` and `none` and across `--jobs`
//! (REQ-REC-POLICY).

use crate::common;
use common::root;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use breakbench::campaign::run::recorder::{decode, decode_event, decode_status};
use breakbench_records::{read_recording, sha256_hex, RecordedMessage, RecordingContents};
use kraken_interfaces::ros::{DiagnosticArray, Log};
use serde_json::Value;

fn bb(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(args)
        .output()
        .expect("running breakbench");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

fn campaign(out: &Path, extra: &[&str]) {
    let s = root().join("tests/data/small_study.yaml");
    let mut args = vec![
        "campaign",
        s.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ];
    args.extend_from_slice(extra);
    let (code, text) = bb(&args);
    assert_eq!(code, 0, "{text}");
}

fn manifest(out: &Path, id: &str) -> Value {
    serde_json::from_slice(&std::fs::read(out.join(format!("manifests/{id}.json"))).unwrap())
        .unwrap()
}

/// The frame id of a serialized message whose first field is a
/// std_msgs/Header (CDR: 4-byte header, sec, nanosec, string length, text).
fn frame_id(cdr: &[u8]) -> String {
    let n = u32::from_le_bytes(cdr[12..16].try_into().unwrap()) as usize;
    String::from_utf8(cdr[16..16 + n - 1].to_vec()).unwrap()
}

fn times(msgs: &[RecordedMessage], topic: &str) -> Vec<f64> {
    msgs.iter()
        .filter(|m| m.topic == topic)
        .map(|m| m.log_time_ns as f64 * 1e-9)
        .collect()
}

#[test]
fn each_run_leaves_a_recording_of_what_the_robot_was_given_and_did() {
    let dir = tempfile::tempdir().unwrap();
    let on = dir.path().join("on");
    let off = dir.path().join("off");
    campaign(&on, &["--record", "full"]);
    campaign(&off, &["--record", "none"]);
    assert_eq!(
        std::fs::read(on.join("summary.json")).unwrap(),
        std::fs::read(off.join("summary.json")).unwrap(),
        "a recording changes no result"
    );
    assert!(!off.join("recordings").exists());
    let id = "grid_latency_s0.4_odom_bias0_r0";
    let m = manifest(&on, id);
    let bytes = std::fs::read(on.join(format!("recordings/{id}.mcap"))).unwrap();
    assert_eq!(m["recording_sha256"], sha256_hex(&bytes));
    let rec = read_recording(&bytes).unwrap();
    assert_eq!(rec.profile, "ros2");
    assert_eq!(rec.metadata["breakbench_run"]["run_id"], id);
    assert_eq!(
        rec.metadata["breakbench_run"]["seed"],
        m["seed"].to_string()
    );
    let count = |t: &str| rec.messages.iter().filter(|m| m.topic == t).count();
    let topics: BTreeMap<&str, usize> = [
        "/oracle/odom",
        "/scan_raw",
        "/scan",
        "/odom_raw",
        "/odom",
        "/cmd_vel_nav",
        "/cmd_vel",
    ]
    .into_iter()
    .map(|t| (t, count(t)))
    .collect();
    // Ground truth: one message per trace row (50 Hz).
    let trace = std::fs::read_to_string(on.join(m["trace_file"].as_str().unwrap())).unwrap();
    assert_eq!(
        topics["/oracle/odom"],
        trace.lines().count() - 1,
        "{topics:?}"
    );
    assert!(topics.values().all(|&n| n > 0), "{topics:?}");
    // The scan delayed by 0.4 s: each delivered scan 0.4 s after it left the plant.
    let (raw, out) = (
        times(&rec.messages, "/scan_raw"),
        times(&rec.messages, "/scan"),
    );
    assert!(out.len() + 4 >= raw.len(), "{} of {}", out.len(), raw.len());
    for (a, b) in raw.iter().zip(&out) {
        assert!(
            (b - a - 0.4).abs() < 1e-6,
            "scan left at {a} s, delivered at {b} s"
        );
    }
    let odom = rec
        .messages
        .iter()
        .find(|m| m.topic == "/odom_raw")
        .unwrap();
    assert_eq!(odom.type_name, "nav_msgs/msg/Odometry");
    assert_eq!(frame_id(&odom.cdr), "odom");
    let truth = rec
        .messages
        .iter()
        .find(|m| m.topic == "/oracle/odom")
        .unwrap();
    assert_eq!(frame_id(&truth.cdr), "world");
    // The plant's transforms, as the bridge publishes them: odom -> base_link
    // with each wheel-odometry message, the sensor frames once at 0.
    assert_eq!(
        times(&rec.messages, "/tf"),
        times(&rec.messages, "/odom_raw")
    );
    let tf = rec.messages.iter().find(|m| m.topic == "/tf").unwrap();
    assert_eq!(tf.type_name, "tf2_msgs/msg/TFMessage");
    let statics: Vec<_> = rec
        .messages
        .iter()
        .filter(|m| m.topic == "/tf_static")
        .collect();
    assert_eq!(statics.len(), 1);
    assert_eq!(statics[0].log_time_ns, 0);
    // What the navigator said: its self-report at its declared 1 Hz (and
    // at each transition) and its log records, as its node publishes them.
    let diags: Vec<DiagnosticArray> = stream(&rec, "/diagnostics")
        .iter()
        .map(|(_, b)| decode("diagnostic_msgs/msg/DiagnosticArray", b).unwrap())
        .collect();
    let logs: Vec<Log> = stream(&rec, "/rosout")
        .iter()
        .map(|(_, b)| decode("rcl_interfaces/msg/Log", b).unwrap())
        .collect();
    let end_s = *times(&rec.messages, "/oracle/odom").last().unwrap();
    assert!(
        diags.len() as f64 >= end_s.floor() && diags.len() as f64 <= end_s + 5.0,
        "{} arrays in {end_s} s",
        diags.len()
    );
    let names = |d: &DiagnosticArray| d.status.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert!(diags
        .iter()
        .all(|d| names(d) == ["simple_navigator: scan", "simple_navigator: odom"]));
    // It noticed the 0.4 s scan latency (stamp tolerance 0.2 s): scan WARN at the end.
    let last = diags.last().unwrap();
    assert_eq!((last.status[0].level, last.status[1].level), (1, 0));
    assert!(
        logs.iter().all(|l| l.name == "simple_navigator"),
        "{logs:?}"
    );
    assert!(
        logs.iter().any(|l| l.level == Log::WARN
            && l.msg
                .starts_with("scan header.stamp off its receive time by +0.400 s")),
        "{logs:?}"
    );
    // The shipped Foxglove layout shows topics this recording has (or the
    // graph's own), and lays out exactly the panels it configures.
    let (panels, shown) = layout_topics();
    let have: std::collections::BTreeSet<&str> =
        rec.messages.iter().map(|m| m.topic.as_str()).collect();
    for t in &shown {
        assert!(
            have.contains(t.as_str()),
            "docs/foxglove/corridor.json shows {t}, which no recording has"
        );
    }
    assert!(shown.len() >= 8, "{shown:?}");
    assert_eq!(panels.0, panels.1, "panels laid out against configured");
}

/// The shipped Foxglove layout's panel ids (in the layout tree, configured)
/// and every topic a panel names (message paths, topic settings).
fn layout_topics() -> (
    (
        std::collections::BTreeSet<String>,
        std::collections::BTreeSet<String>,
    ),
    std::collections::BTreeSet<String>,
) {
    let text = std::fs::read_to_string(common::root().join("docs/foxglove/corridor.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    fn leaves(n: &Value, out: &mut std::collections::BTreeSet<String>) {
        match n {
            Value::String(s) => {
                out.insert(s.clone());
            }
            Value::Object(o) => {
                for k in ["first", "second"] {
                    leaves(&o[k], out);
                }
            }
            _ => panic!("layout node {n}"),
        }
    }
    let mut laid = std::collections::BTreeSet::new();
    leaves(&v["layout"], &mut laid);
    let configured = v["configById"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut topics = std::collections::BTreeSet::new();
    let topic_of = |path: &str| path.split('.').next().unwrap().to_string();
    for cfg in v["configById"].as_object().unwrap().values() {
        for p in cfg["paths"].as_array().into_iter().flatten() {
            topics.insert(topic_of(p["value"].as_str().unwrap()));
        }
        for k in ["topicPath", "topicToRender"] {
            if let Some(t) = cfg[k].as_str() {
                topics.insert(topic_of(t));
            }
        }
        for t in cfg["topics"].as_object().into_iter().flatten().map(|x| x.0) {
            topics.insert(t.clone());
        }
    }
    ((laid, configured), topics)
}

#[test]
fn a_changed_recording_is_refused_and_a_resume_records_what_was_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    campaign(&out, &["--record", "none"]);
    assert!(!out.join("recordings").exists());
    // Resumed with recordings: every run is run again, now recorded.
    campaign(&out, &["--record", "full"]);
    let n = std::fs::read_dir(out.join("manifests")).unwrap().count();
    assert_eq!(
        std::fs::read_dir(out.join("recordings")).unwrap().count(),
        n
    );
    let (code, text) = bb(&["analyze", out.to_str().unwrap(), "--check"]);
    assert_eq!(code, 0, "{text}");
    let p = out.join("recordings/canary_000.mcap");
    let mut b = std::fs::read(&p).unwrap();
    b[200] ^= 1;
    std::fs::write(&p, b).unwrap();
    let (code, text) = bb(&["analyze", out.to_str().unwrap(), "--check"]);
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("recording of run canary_000 has sha256"),
        "{text}"
    );
}

/// `(ns, kind, name, outcome)` of each event of a recording.
fn events(rec: &RecordingContents) -> Vec<(u64, u8, String, String)> {
    rec.messages
        .iter()
        .filter(|m| m.topic == "/breakbench/events")
        .map(|m| {
            let e = decode_event(&m.cdr).unwrap();
            let stamp = e.stamp.sec as u64 * 1_000_000_000 + u64::from(e.stamp.nanosec);
            assert_eq!(stamp, m.log_time_ns, "{e:?} logged at its stamp");
            (stamp, e.kind, e.name, e.outcome)
        })
        .collect()
}

fn ns(v: &Value) -> u64 {
    (v.as_f64().unwrap() * 1e9).round() as u64
}

/// The recorded events are the manifest's timeline, decisions and verdict;
/// the injector's status is recorded when its fault state changes.
#[test]
fn the_recording_carries_the_runs_events_at_the_manifests_times() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    campaign(&out, &["--record", "full"]);
    let id = "grid_latency_s0.4_odom_bias0.2_r1";
    let m = manifest(&out, id);
    let rec =
        read_recording(&std::fs::read(out.join(format!("recordings/{id}.mcap"))).unwrap()).unwrap();
    let got = events(&rec);
    let mut want = Vec::new();
    for f in m["timeline"]["faults"].as_array().unwrap() {
        for (k, key) in ["t_trigger", "t_requested", "t_applied", "t_cleared"]
            .iter()
            .enumerate()
        {
            if !f[key].is_null() {
                want.push((
                    ns(&f[key]["sim_s"]),
                    k as u8,
                    f["fault"].as_str().unwrap().to_string(),
                    String::new(),
                ));
            }
        }
    }
    for inv in [
        "operating_region_containment",
        "obstacle_clearance",
        "mission_completion_true_pose",
    ] {
        let p = &m["verdict"][inv];
        let outcome = if p["holds"].as_bool().unwrap() {
            "holds"
        } else {
            "violated"
        };
        want.push((
            ns(&p["decided_at_s"]),
            5,
            inv.to_string(),
            outcome.to_string(),
        ));
    }
    want.push((
        ns(&m["sim_time_s"]),
        5,
        "verdict_class".into(),
        m["verdict_class"]["class"].as_str().unwrap().into(),
    ));
    want.sort();
    assert_eq!(got, want);
    // Two faults: trigger, requested, applied each (never cleared).
    assert_eq!(got.iter().filter(|e| e.1 <= 3).count(), 6, "{got:?}");
    // The status: at t = 0 (both faults set), then when each first applied.
    let status: Vec<(u64, Vec<bool>)> = rec
        .messages
        .iter()
        .filter(|m| m.topic == "/fault_injector/status")
        .map(|m| {
            let s = decode_status(&m.cdr).unwrap();
            let applied = s
                .channels
                .iter()
                .map(|c| c.first_applied.sec != 0 || c.first_applied.nanosec != 0)
                .collect();
            (m.log_time_ns, applied)
        })
        .collect();
    assert!(status.len() >= 3 && status.len() < 10, "{status:?}");
    assert!(status[0].1.iter().all(|a| !a), "{status:?}");
    let last = &status.last().unwrap().1;
    assert_eq!(last.iter().filter(|a| **a).count(), 2, "{status:?}");
    let applied = got.iter().filter(|e| e.1 == 2).map(|e| e.0).max().unwrap();
    assert!(
        status.iter().any(|s| s.0 == applied),
        "a status when a fault first applied: {status:?}"
    );
    let meta = &rec.metadata["breakbench_recording"];
    assert_eq!(meta["mode"], "full");
    assert_eq!(meta["messages_not_kept"], "0");
    assert_eq!(meta["messages_written"], rec.messages.len().to_string());
    assert_eq!(m["recording_mode"], "full");
}

/// `--record events` keeps the messages within pre_s / post_s of an event
/// and counts the others; the summary is the same with every policy and
/// --jobs.
#[test]
fn the_events_policy_keeps_the_windows_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (full, ev, none) = (
        dir.path().join("f"),
        dir.path().join("e"),
        dir.path().join("n"),
    );
    campaign(&full, &["--record", "full"]);
    // The small study with a declared window: 0.5 s before, 0.25 s after.
    let s = std::fs::read_to_string(root().join("tests/data/small_study.yaml"))
        .unwrap()
        .replace("../../config", &format!("{}/config", root().display()))
        + "recording: {pre_s: 0.5, post_s: 0.25}\n";
    let sp = dir.path().join("s.yaml");
    std::fs::write(&sp, s).unwrap();
    let run = |out: &Path, extra: &[&str]| {
        let mut a = vec![
            "campaign",
            sp.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        a.extend_from_slice(extra);
        let (code, text) = bb(&a);
        assert_eq!(code, 0, "{text}");
    };
    run(&ev, &["--record", "events", "--jobs", "1"]);
    run(&none, &["--record", "none", "--jobs", "2"]);
    let summary = |d: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(d.join("summary.json")).unwrap()).unwrap()
    };
    // The declared window changes the scenario hash only.
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("scenario_hash");
        v
    };
    assert_eq!(strip(summary(&ev)), strip(summary(&full)));
    assert_eq!(
        std::fs::read(ev.join("summary.json")).unwrap(),
        std::fs::read(none.join("summary.json")).unwrap()
    );
    let (code, text) = bb(&["analyze", ev.to_str().unwrap(), "--check"]);
    assert_eq!(code, 0, "{text}");
    let id = "grid_latency_s0.4_odom_bias0.2_r1";
    let m = manifest(&ev, id);
    assert_eq!(m["recording_mode"], "events");
    let rec =
        read_recording(&std::fs::read(ev.join(format!("recordings/{id}.mcap"))).unwrap()).unwrap();
    let all = read_recording(&std::fs::read(full.join(format!("recordings/{id}.mcap"))).unwrap())
        .unwrap();
    let evs = events(&rec);
    assert_eq!(evs, events(&all), "the same events with either policy");
    let times: Vec<u64> = evs.iter().map(|e| e.0).collect();
    let end = ns(&m["sim_time_s"]);
    let inside = |t: u64| {
        times
            .iter()
            .any(|e| t + 500_000_000 >= *e && t <= e + 250_000_000)
            || t > end
    };
    let topic_kept = |m: &RecordedMessage| {
        !matches!(
            m.topic.as_str(),
            "/breakbench/events" | "/fault_injector/status" | "/tf_static"
        )
    };
    // Every message of the full recording inside a window is kept, none outside.
    let kept: Vec<(&str, u64)> = rec
        .messages
        .iter()
        .filter(|m| topic_kept(m))
        .map(|m| (m.topic.as_str(), m.log_time_ns))
        .collect();
    let want: Vec<(&str, u64)> = all
        .messages
        .iter()
        .filter(|m| topic_kept(m) && inside(m.log_time_ns))
        .map(|m| (m.topic.as_str(), m.log_time_ns))
        .collect();
    let (mut k, mut w) = (kept.clone(), want);
    k.sort();
    w.sort();
    assert_eq!(k, w);
    assert!(
        !kept.is_empty() && kept.len() * 10 < all.messages.len(),
        "{} of {}",
        kept.len(),
        all.messages.len()
    );
    // The last ground-truth pose (the verdict's window) is kept, bit for bit.
    let last = |r: &RecordingContents| {
        r.messages
            .iter()
            .rfind(|m| m.topic == "/oracle/odom")
            .unwrap()
            .clone()
    };
    assert_eq!(last(&rec), last(&all));
    // What was left out is counted, per topic, never dropped silently.
    let meta = &rec.metadata["breakbench_recording"];
    assert_eq!(meta["mode"], "events");
    assert_eq!(
        (meta["pre_s"].as_str(), meta["post_s"].as_str()),
        ("0.5", "0.25")
    );
    let not_kept: u64 = meta["messages_not_kept"].parse().unwrap();
    assert_eq!(not_kept as usize + rec.messages.len(), all.messages.len());
    assert_eq!(meta["messages_offered"], all.messages.len().to_string());
    let scan_cut = all.messages.iter().filter(|m| m.topic == "/scan").count()
        - rec.messages.iter().filter(|m| m.topic == "/scan").count();
    assert_eq!(meta["not_kept:/scan"], scan_cut.to_string());
    // A resume asking for the other policy runs every run again.
    run(&ev, &["--record", "full", "--jobs", "2"]);
    assert_eq!(manifest(&ev, id)["recording_mode"], "full");
}

/// The messages of `topic`, `(log time ns, CDR)`.
fn stream(rec: &RecordingContents, topic: &str) -> Vec<(u64, Vec<u8>)> {
    rec.messages
        .iter()
        .filter(|m| m.topic == topic)
        .map(|m| (m.log_time_ns, m.cdr.clone()))
        .collect()
}

/// `breakbench replay` (REQ-REC-REPLAY): a `full` recording of a faulted run
/// (scan 0.4 s late, odometry scaled 1.2) replayed through its own run's
/// faults and seed gives back what the injector delivered and its status,
/// byte for byte; the same replay twice gives the same file; another run's
/// faults give other streams.
#[test]
fn a_replay_with_the_runs_own_faults_reproduces_its_delivered_streams() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("c");
    campaign(&out, &["--record", "full"]);
    let id = "grid_latency_s0.4_odom_bias0.2_r0";
    let input = out.join(format!("recordings/{id}.mcap"));
    let scenario = root().join("tests/data/small_study.yaml");
    let replay = |to: &Path, extra: &[&str]| {
        let mut args = vec![
            "replay",
            input.to_str().unwrap(),
            "--scenario",
            scenario.to_str().unwrap(),
            "--out",
            to.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, text) = bb(&args);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("through the faults of run grid_"), "{text}");
        read_recording(&std::fs::read(to).unwrap()).unwrap()
    };
    let original = read_recording(&std::fs::read(&input).unwrap()).unwrap();
    let a = replay(&d.path().join("a.mcap"), &[]);
    for topic in [
        "/scan_raw",
        "/scan",
        "/odom_raw",
        "/odom",
        "/cmd_vel_nav",
        "/cmd_vel",
        "/fault_injector/status",
        "/oracle/odom",
    ] {
        let (want, got) = (stream(&original, topic), stream(&a, topic));
        assert!(!want.is_empty(), "{topic}");
        assert!(
            want == got,
            "{topic}: {} recorded, {} replayed",
            want.len(),
            got.len()
        );
    }
    // the scan is late: the faults were applied
    assert_ne!(stream(&a, "/scan_raw"), stream(&a, "/scan"));
    assert_eq!(a.metadata["breakbench_replay"]["replay_of"], id);
    let b = replay(&d.path().join("b.mcap"), &[]);
    assert_eq!(
        std::fs::read(d.path().join("a.mcap")).unwrap(),
        std::fs::read(d.path().join("b.mcap")).unwrap()
    );
    assert_eq!(a, b);
    // the faults of the unbiased cell: the same scan, another odometry
    let c = replay(
        &d.path().join("c.mcap"),
        &["--run-id", "grid_latency_s0.4_odom_bias0_r0"],
    );
    assert_eq!(stream(&c, "/scan"), stream(&a, "/scan"));
    assert_ne!(stream(&c, "/odom"), stream(&a, "/odom"));
    // refused (exit 2, nothing written), naming why
    let refused = |scenario: &Path, run_id: &str| {
        let out = d.path().join("refused.mcap");
        let (code, text) = bb(&[
            "replay",
            input.to_str().unwrap(),
            "--scenario",
            scenario.to_str().unwrap(),
            "--run-id",
            run_id,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{text}");
        assert!(!out.exists());
        text
    };
    // a run not in the plan
    let text = refused(&scenario, "grid_nope");
    assert!(text.contains("no run 'grid_nope' in the plan of"), "{text}");
    // a resilience test's fault run needs its triggers' closed loop: unsupported
    let t = root().join("scenarios/tests/scan_loss_at_obstacle.yaml");
    let text = refused(&t, "test_scan_loss_at_obstacle_r0");
    assert!(text.contains("is a resilience test's fault run"), "{text}");
}
