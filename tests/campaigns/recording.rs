//! Every in-process run leaves an MCAP recording (REQ-REC-MCAP; issue 26),
//! through the command line: the ros2 profile, the channels and what they
//! carry (a scan delayed 0.4 s arrives 0.4 s after it left the plant), the
//! manifest's sha256 of it checked by `analyze`, the same summary with and
//! without recordings, and a resume that records what an earlier
//! `--no-recording` campaign did not.

use crate::common;
use common::root;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use breakbench_records::{read_recording, sha256_hex, RecordedMessage};
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
    campaign(&on, &[]);
    campaign(&off, &["--no-recording"]);
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
}

#[test]
fn a_changed_recording_is_refused_and_a_resume_records_what_was_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    campaign(&out, &["--no-recording"]);
    assert!(!out.join("recordings").exists());
    // Resumed with recordings: every run is run again, now recorded.
    campaign(&out, &[]);
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
