//! The simple_navigator node's sensor health over DDS: a peer (this test,
//! on breakbench_ros) feeds it `/odom` at 50 Hz and `/scan` at 10 Hz, stops
//! the scans for 2 s, then resumes them, and reads what the node says on
//! `/diagnostics` (diagnostic_msgs/DiagnosticArray) and `/rosout`
//! (rcl_interfaces/Log): the scan status goes ERROR with a WARN record
//! `scan stale: ...` after the scans stop, and OK with an INFO record
//! `scan fresh again ...` after they resume; odometry stays OK.
//!
//! The node runs on wall time here (no `/clock`); the bounds on when a
//! status arrives are functional (scan timeout 0.3 s plus transport and a
//! control period), not a timing benchmark. Every DDS packet stays in a
//! loopback-only network namespace: the test re-runs itself under
//! `scripts/netns.sh` (`BREAKBENCH_NETNS_CHILD=1` marks the inner run), on
//! `ROS_DOMAIN_ID` 203. It builds the node binaries it needs (`common::build_nodes`).
#![cfg(feature = "node")]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod common;
use common::{bin_dir, build_nodes, rerun_in_netns, root};

use breakbench_ros::{qos, Rmw, RosArgs, RosEnv, RosNode};
use kraken_interfaces::ros::{DiagnosticArray, DiagnosticStatus, LaserScan, Log, Odometry, Time};

const DOMAIN: u16 = 203;

fn wall_stamp() -> Time {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    Time::from_nanos(d.as_nanos() as i64)
}

/// 360 beams, nothing in range.
fn open_scan() -> LaserScan {
    let inc = std::f32::consts::TAU / 360.0;
    let mut s = LaserScan {
        angle_min: -std::f32::consts::PI,
        angle_max: -std::f32::consts::PI + 359.0 * inc,
        angle_increment: inc,
        range_min: 0.12,
        range_max: 12.0,
        ranges: vec![f32::INFINITY; 360],
        ..LaserScan::default()
    };
    s.header.frame_id = "base_scan".into();
    s.header.stamp = wall_stamp();
    s
}

fn scan_level(a: &DiagnosticArray, name: &str) -> u8 {
    a.status
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no status {name} in {a:?}"))
        .level
}

#[test]
fn simple_navigator_reports_a_scan_dropout_on_diagnostics_and_rosout() {
    if rerun_in_netns("simple_navigator_reports_a_scan_dropout_on_diagnostics_and_rosout") {
        return;
    }
    build_nodes();

    let log = tempfile::NamedTempFile::new().unwrap();
    let mut node = Command::new(bin_dir().join("simple_navigator"))
        .current_dir(root())
        .args(["--ros-args", "-p", "goal_x_m:=10.0", "-p", "goal_y_m:=0.0"])
        .env("ROS_DOMAIN_ID", DOMAIN.to_string())
        .env_remove("RMW_IMPLEMENTATION")
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .expect("simple_navigator");

    let env = RosEnv {
        domain_id: DOMAIN,
        rmw: Rmw::FastRtps,
    };
    let (args, _) = RosArgs::parse(std::iter::empty::<String>(), "health_peer").unwrap();
    let mut peer = RosNode::new(env, args).unwrap();
    let odom_pub = peer.publisher::<Odometry>("/odom", qos::publish()).unwrap();
    let scan_pub = peer
        .publisher::<LaserScan>("/scan", qos::publish())
        .unwrap();
    let diag_sub = peer
        .subscription::<DiagnosticArray>("/diagnostics", qos::subscribe(100))
        .unwrap();
    let rosout_sub = peer
        .subscription::<Log>("/rosout", qos::publish().transient_local().depth(1000))
        .unwrap();
    let _spinner = peer.spawn_spinner().unwrap();

    // Phases (wall, from t0): both streams 0..4 s, odometry only 4..6 s, both 6..9 s.
    let t0 = Instant::now();
    let (stop, resume, end) = (4.0, 6.0, 9.0);
    let mut last_scan_sent = t0;
    let mut next_odom = t0;
    let mut next_scan = t0;
    let mut diags: Vec<(f64, u8, u8)> = Vec::new();
    let mut logs: Vec<(f64, Log)> = Vec::new();
    loop {
        let now = Instant::now();
        let t = now.duration_since(t0).as_secs_f64();
        if t >= end {
            break;
        }
        if now >= next_odom {
            let mut o = Odometry::default();
            o.header.stamp = wall_stamp();
            o.header.frame_id = "odom".into();
            o.child_frame_id = "base_link".into();
            odom_pub.publish(o).unwrap();
            next_odom += Duration::from_millis(20);
        }
        if now >= next_scan {
            if !(stop..resume).contains(&t) {
                scan_pub.publish(open_scan()).unwrap();
                last_scan_sent = now;
            }
            next_scan += Duration::from_millis(100);
        }
        while let Ok(Some(a)) = diag_sub.take() {
            diags.push((
                t,
                scan_level(&a, "simple_navigator: scan"),
                scan_level(&a, "simple_navigator: odom"),
            ));
        }
        while let Ok(Some(l)) = rosout_sub.take() {
            if l.name == "simple_navigator" {
                logs.push((t, l));
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = last_scan_sent;
    // Stop the node (SIGINT, as ros2 launch does) and read its log.
    Command::new("kill")
        .args(["-INT", &node.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(s) = node.try_wait().unwrap() {
            break s.code();
        }
        assert!(Instant::now() < deadline, "simple_navigator did not exit");
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(log.path()).unwrap();
    assert_eq!(code, Some(0), "exit code; log:\n{text}");
    println!("diagnostics: {diags:?}");
    println!(
        "rosout: {:?}",
        logs.iter()
            .map(|(t, l)| (*t, l.level, &l.msg))
            .collect::<Vec<_>>()
    );

    let (ok, err) = (DiagnosticStatus::OK, DiagnosticStatus::ERROR);
    // Before the dropout, with both streams flowing: the last array before it is OK.
    let before = diags
        .iter()
        .rfind(|d| d.0 < stop && d.0 > 2.0)
        .expect("diagnostics before the dropout");
    assert_eq!((before.1, before.2), (ok, ok), "{diags:?}");
    // The dropout: scan ERROR (odometry OK) within 0.3 s + 1 s of the last scan.
    let first_err = diags
        .iter()
        .find(|d| d.0 >= stop && d.1 == err)
        .expect("scan ERROR");
    assert!(first_err.0 < stop + 1.3, "scan ERROR at {} s", first_err.0);
    assert_eq!(first_err.2, ok);
    // Resumed: OK again within 1 s of the first scan.
    let back = diags
        .iter()
        .find(|d| d.0 >= resume && d.1 == ok)
        .expect("scan OK again");
    assert!(back.0 < resume + 1.0, "scan OK at {} s", back.0);
    assert!(diags
        .iter()
        .filter(|d| d.0 >= stop && d.0 < back.0 && d.0 > first_err.0)
        .all(|d| d.1 == err));
    // /rosout: one WARN for the stale scan and one INFO for its return, in the window.
    let warn: Vec<&(f64, Log)> = logs
        .iter()
        .filter(|(t, l)| *t >= stop && l.level == Log::WARN)
        .collect();
    assert_eq!(warn.len(), 1, "{logs:?}");
    assert!(
        warn[0].1.msg.starts_with("scan stale: no message for"),
        "{}",
        warn[0].1.msg
    );
    let info: Vec<&(f64, Log)> = logs
        .iter()
        .filter(|(t, l)| *t >= resume && l.level == Log::INFO)
        .collect();
    assert_eq!(info.len(), 1, "{logs:?}");
    assert!(
        info[0].1.msg.starts_with("scan fresh again"),
        "{}",
        info[0].1.msg
    );
    // The same lines on the node's stderr through tracing, at their levels.
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") && l.contains("scan stale: no message for")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("INFO") && l.contains("scan fresh again")),
        "{text}"
    );
}
