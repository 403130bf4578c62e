//! Command-line behaviour of the node binaries that needs no DDS traffic
//! (every case exits before a DDS participant is created). The DDS checks
//! against real peers are in scripts/interop.sh.
#![cfg(feature = "node")]

use std::path::PathBuf;
use std::process::Command;

/// A fresh scratch directory for one test (no tempfile dev-dependency).
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kraken_ros_cli_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn injector() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fault_injector"));
    c.env_remove("KRAKEN_FAULTS_ENABLE")
        .env("ROS_DOMAIN_ID", "231");
    c
}

#[test]
fn ros_guard_refuses_without_enable() {
    let out = injector().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to start"), "{err}");
    assert!(
        err.contains("KRAKEN_FAULTS_ENABLE=1") && err.contains("enable"),
        "{err}"
    );
}

#[test]
fn ros_guard_refuses_with_disabled_values() {
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "only the exact value 1 enables");
    let out = injector()
        .args(["--ros-args", "-p", "enable:=false"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ros_guard_param_file_enables_then_bad_channels_file_is_named() {
    // Enabled by a params file (the ros2 launch layout); the channels file is
    // missing, so the node stops with an error naming it, before any DDS.
    let dir = scratch("params");
    let params = dir.join("params.yaml");
    let missing = dir.join("nope.yaml");
    std::fs::write(
        &params,
        format!(
            "fault_injector:\n  ros__parameters:\n    enable: true\n    channels_file: {}\n",
            missing.display()
        ),
    )
    .unwrap();
    let out = injector()
        .args(["--ros-args", "--params-file", params.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.yaml"), "{err}");
    assert!(!err.contains("refusing"), "{err}");
}

#[test]
fn ros_bad_channels_file_names_file_line_and_field() {
    let f = scratch("channels").join("channels.yaml");
    std::fs::write(
        &f,
        "channels:\n  - name: gnss\n    type: sensor_msgs/msg/NavSatFix\n    input_topic: /a\n    output_topic: /b\n    qos: {reliability: best_effort, depth: 10}\n    colour: red\n",
    )
    .unwrap();
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .args([
            "--ros-args",
            "-p",
            &format!("channels_file:={}", f.display()),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("channels.yaml") && err.contains("colour"),
        "{err}"
    );
}

#[test]
fn ros_bad_domain_and_rmw_are_errors() {
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .env("ROS_DOMAIN_ID", "300")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ROS_DOMAIN_ID=\"300\""));
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .env("RMW_IMPLEMENTATION", "rmw_connextdds")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rmw_connextdds"));
}

#[test]
fn ros_scenario_runner_rejects_bad_file_before_dds() {
    let f = scratch("scenario").join("s.yaml");
    std::fs::write(&f, "name: x\nsteps:\n  - {label: a, action: set_fault, channel: gnss, mode: explode, at_s: 1}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kraken_scenario"))
        .arg(&f)
        .env("ROS_DOMAIN_ID", "231")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("s.yaml") && err.contains("explode"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_kraken_scenario"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

/// Issue 24: an empty `injector` made the steps call `/set_fault` of the
/// root namespace; it is refused (exit 2) before any DDS participant.
#[test]
fn ros_scenario_runner_rejects_an_empty_injector_name() {
    let f = scratch("scenario_injector").join("s.yaml");
    std::fs::write(
        &f,
        "name: x\nsteps:\n  - {label: a, action: wait, at_s: 1}\n",
    )
    .unwrap();
    for bad in ["injector:=", "injector:=fault_injector"] {
        let out = Command::new(env!("CARGO_BIN_EXE_kraken_scenario"))
            .arg(&f)
            .args(["--ros-args", "-p", bad])
            .env("ROS_DOMAIN_ID", "231")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("parameter 'injector'"), "{bad}: {err}");
    }
}

#[test]
fn ros_scenario_runner_rejects_huge_at_s_and_bad_timeout_with_exit_2() {
    let f = scratch("scenario_big").join("s.yaml");
    std::fs::write(
        &f,
        "name: x\nsteps:\n  - {label: a, action: wait, at_s: 1e300}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kraken_scenario"))
        .arg(&f)
        .env("ROS_DOMAIN_ID", "231")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at_s") && err.contains("1000000"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let ok = scratch("scenario_ok").join("s.yaml");
    std::fs::write(
        &ok,
        "name: x\nsteps:\n  - {label: a, action: wait, at_s: 1}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kraken_scenario"))
        .arg(&ok)
        .args(["--ros-args", "-p", "timeout_s:=-1.0"])
        .env("ROS_DOMAIN_ID", "231")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("timeout_s") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn ros_tiny_status_rate_is_exit_2_not_a_panic() {
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .env("ROS_DOMAIN_ID", "231")
        .args(["--ros-args", "-p", "status_rate_hz:=1e-300"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("status_rate_hz") && !err.contains("panicked"),
        "{err}"
    );
}

/// REQ-FAULT-TF-CLOCK: `clock_topic` naming a channel's output (the
/// faulted clock) is refused with exit code 2, naming the channel and its
/// input, before any DDS.
#[test]
fn ros_clock_topic_on_a_faulted_output_is_exit_2() {
    let dir = scratch("clock_topic");
    let channels = dir.join("channels.yaml");
    std::fs::write(
        &channels,
        "channels:\n  - {name: clock, type: rosgraph_msgs/msg/Clock, input_topic: /clock_raw, \
         output_topic: /clock, qos: {reliability: best_effort, depth: 10}}\n",
    )
    .unwrap();
    let out = injector()
        .env("KRAKEN_FAULTS_ENABLE", "1")
        .args([
            "--ros-args",
            "-p",
            "use_sim_time:=true",
            "-p",
            "clock_topic:=/clock",
            "-p",
        ])
        .arg(format!("channels_file:={}", channels.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "fault_injector: error: parameter 'clock_topic' = '/clock' is the output of channel \
         'clock': the injector's clock would follow its own faulted output (use the channel's \
         input '/clock_raw')"
    );
}
