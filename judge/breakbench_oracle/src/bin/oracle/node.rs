//! `oracle`: the ground-truth oracle as a ROS 2 node.
//!
//! Robot state input: `/oracle/odom` (nav_msgs/Odometry, frame `world`) and
//! nothing else. Each sample goes to a live [`Monitor`]; the invariants'
//! status is published on `/oracle/status` (std_msgs/String, the JSON of the
//! [`Verdict`] so far plus `samples`, `t_s`, `done`) every second of sim time
//! and at the end. The navigator's self-report (`/navigator/self_report`,
//! std_msgs/String) and the injector's fault status
//! (`/fault_injector/status`, kraken_interfaces/FaultStatus) are stored for
//! the manifest only; neither is an input to the verdict, which is computed
//! at the end through [`RunEvidence::verdict`] (the campaign's entry), and
//! the verdict isolation check is run on the recorded poses.
//!
//! End of the run: the first sample with `t_s >= mission_timeout_s`. Then it
//! writes `<manifest_dir>/manifests/<run_id>.json` (the campaign's
//! [`Manifest`] format) and `<manifest_dir>/traces/<run_id>.csv`
//! atomically, prints its [`VerdictLine`] (`oracle: verdict ...`) on stdout, and exits 0
//! (or keeps publishing status with `keep_running: true`).
//!
//! Reset (`~/reset`, kraken_interfaces/srv/ResetRun, `/oracle/reset` by
//! default; REQ-GRAPH-RESET), for a kept-running graph (`keep_running:
//! true`, `breakbench campaign --keep-running`): drops what it holds (the
//! queued inputs, poses, self-report and fault status of the previous run)
//! and starts a fresh monitor for the request's `run_id`, writing its
//! manifest and trace under `out_dir`, with its `seed` in the manifest; the
//! next verdict line names `<out_dir>/manifests/<run_id>.json`. The plant
//! restarts sim time at 0 (`time_origin: sim_zero` is then the new run's).
//!
//! Parameters: see the crate README ("Node").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use breakbench_oracle::{isolation_check, Monitor, PoseSample, RunEvidence, VerdictLine};
use breakbench_records::trace::{trace_file, TraceRow, TraceWriter};
use breakbench_records::{
    scenario_hash, sha256_hex, write_atomic, write_json_atomic, FaultRecord, IsolationRecord,
    Manifest, Provenance, RunKind, MANIFEST_SCHEMA,
};
use breakbench_ros::{RosArgs, RosEnv, RosNode, Shutdown};
use breakbench_world::World;
use futures::stream::{select_all, StreamExt};
use kraken_interfaces::ros::{Odometry, Time};
use kraken_interfaces::{mode_name, FaultSpec, FaultStatus, SelfReport};

mod handlers;
mod params;

use handlers::{Event, Flow, Io, Oracle};
use params::Params;

const NODE_NAME: &str = "oracle";

/// Whether `id` may name a run (it names the manifest and trace files).
fn valid_run_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "oracle",
        "judges the run from /oracle/odom only (three invariants), stores the self-report apart, writes the manifest",
        "judge/breakbench_oracle/README.md",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<Refused>().is_some() => {
            tracing::error!("{}", breakbench_ros::error_chain(&*e));
            eprintln!("oracle: refused: {}", breakbench_ros::error_chain(&*e));
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("oracle: error: {}", breakbench_ros::error_chain(&*e));
            ExitCode::FAILURE
        }
    }
}

/// The run cannot be judged from this input (wrong frame, mission already
/// over at the first sample): no verdict, exit code 2.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Where mission time starts (parameter `time_origin`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum TimeOrigin {
    /// Stamp 0 of the sim clock (the plant's clock starts at 0 with the run).
    SimZero,
    /// The stamp of the first `/oracle/odom` sample (wall-stamped truth,
    /// motion capture, a simulator that ran before the oracle started).
    FirstSample,
}

/// Nanoseconds of a header stamp (i128: no overflow for any `Time`).
fn stamp_ns(t: &kraken_interfaces::ros::Time) -> i128 {
    i128::from(t.sec) * 1_000_000_000 + i128::from(t.nanosec)
}

/// Seconds of a nanosecond count, with `Time::as_secs_f64`'s formula
/// (`sec + nanosec * 1e-9`), so origin 0 gives bit-identical sample times.
fn ns_to_secs(ns: i128) -> f64 {
    let sec = ns.div_euclid(1_000_000_000);
    let nsec = ns.rem_euclid(1_000_000_000);
    sec as f64 + nsec as f64 * 1e-9
}

/// Checks one `/oracle/odom` message's frames against the parameters
/// `world_frame` / `child_frame` (REP-105: truth is the pose of the base in
/// the world frame).
fn check_frames(o: &Odometry, world_frame: &str, child_frame: &str) -> Result<(), Refused> {
    if o.header.frame_id != world_frame {
        return Err(Refused(format!(
            "/oracle/odom: header.frame_id = {:?}, expected {world_frame:?} (parameter 'world_frame'): \
             the oracle judges poses in the world frame of the world file only",
            o.header.frame_id
        )));
    }
    if o.child_frame_id != child_frame {
        return Err(Refused(format!(
            "/oracle/odom: child_frame_id = {:?}, expected {child_frame:?} (parameter 'child_frame'): \
             the pose must be the robot base's (footprint centre)",
            o.child_frame_id
        )));
    }
    Ok(())
}

/// The `--params-file` arguments of the command line, in order.
fn params_files(args: impl IntoIterator<Item = String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--params-file" {
            if let Some(f) = it.next() {
                out.push(PathBuf::from(f));
            }
        }
    }
    out
}

/// The graph run's scenario hash ([`scenario_hash`], the campaign's
/// definition) over the world file, then every `--params-file` in
/// command-line order (the files that define what the oracle judged and how
/// the graph ran). `-p` overrides on the command line are not included.
fn graph_scenario_hash(world_file: &Path, params: &[PathBuf]) -> Result<String> {
    let files: Vec<&Path> = std::iter::once(world_file)
        .chain(params.iter().map(PathBuf::as_path))
        .collect();
    scenario_hash(&files).context("computing scenario_hash")
}

/// The manifest's fault records from the injector's last status: one per
/// channel whose last fault (other than HEALTHY) was applied during the run,
/// i.e. has a non-zero `first_applied` stamp. A fault that was requested but
/// never touched a message is not a fault of the run (warned, not recorded,
/// not in the cell). A fault applied and later cleared or expired is
/// recorded (it shaped the run) with its `cleared_s`. The oracle knows no
/// study: each fault is named `<channel>_<mode>` with its severity parameter
/// ([`FaultSpec::main_parameter`]) as the axis value, or `mode` and the
/// mode number for a mode without one (DROPOUT, STUCK, GARBAGE), exactly as
/// requested. A campaign, which owns the axes, maps these records to its
/// cell (`breakbench campaign --graph`: channel, mode and requested value
/// against each axis' offset + value). The
/// delivered value is measured inside the injector in-process; the node
/// reports none (`delivered_metric: "not_measured"`).
///
/// `first_applied_s` and `cleared_s` are mission times like the samples'
/// (stamp minus the time origin `origin_ns`, integer ns), so negative when
/// the fault touched a message before the first sample under
/// `time_origin: first_sample`.
fn fault_records(status: Option<&FaultStatus>, origin_ns: i128) -> Vec<FaultRecord> {
    let Some(st) = status else { return Vec::new() };
    st.channels
        .iter()
        .filter(|c| c.fault.mode != FaultSpec::HEALTHY)
        .filter(|c| {
            let applied = c.first_applied != Time::default();
            if !applied {
                tracing::warn!(
                    channel = %c.channel,
                    mode = mode_name(c.fault.mode).unwrap_or("unknown"),
                    "fault requested but never applied to a message: not recorded as a fault of the run"
                );
            } else if c.cleared != Time::default() {
                tracing::info!(
                    channel = %c.channel,
                    first_applied_s = c.first_applied.as_secs_f64(),
                    cleared_s = c.cleared.as_secs_f64(),
                    "fault applied then cleared during the run (recorded with cleared_s)"
                );
            }
            applied
        })
        .map(|c| {
            let f = &c.fault;
            let mode = mode_name(f.mode).unwrap_or("unknown").to_string();
            let (parameter, requested) = f.main_parameter().unwrap_or(("mode", f64::from(f.mode)));
            let axis = format!("{}_{mode}", c.channel);
            let axis_value = requested;
            let mission_s = |t: &Time| ns_to_secs(stamp_ns(t) - origin_ns);
            FaultRecord {
                axis,
                channel: c.channel.clone(),
                mode,
                parameter: parameter.into(),
                requested,
                axis_value,
                delivered_metric: "not_measured".into(),
                delivered: None,
                messages_in: c.messages_in,
                messages_out: c.messages_out,
                first_applied_s: Some(mission_s(&c.first_applied)),
                cleared_s: (c.cleared != Time::default()).then(|| mission_s(&c.cleared)),
            }
        })
        .collect()
}

fn status_json(m: &Monitor, t_s: f64, done: bool) -> String {
    let v = m.verdict().ok();
    serde_json::json!({
        "samples": m.samples(),
        "t_s": t_s,
        "done": done,
        "safety_violation": v.map(|v| v.safety_violation()),
        "mission_failure": v.map(|v| v.mission_failure()),
        "verdict": v,
    })
    .to_string()
}

/// Reads the parameters, creates the node's entities and runs the event
/// loop: each input goes to its [`Oracle`] handler until the verdict (exit
/// 0), a shutdown, or an error ([`Refused`]: exit 2).
fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let p = Params::from_args(&args)?;

    let mut node = RosNode::new(env, args)?;
    let io = Io::new(&mut node)?;
    let _spinner = node.spawn_spinner()?;
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        world = %p.world_file.display(),
        truth = %node.args.resolve("/oracle/odom"),
        manifest_dir = %p.manifest_dir.display(),
        run_id = %p.run_id,
        "ready"
    );

    let mut events = shutdown.until(select_all(io.events()));
    let mut oracle = Oracle::new(&io, p);
    smol::block_on(async {
        while let Some(ev) = events.next().await {
            match ev {
                Event::SelfReport(d) => oracle.on_self_report(&d),
                Event::Status(s) => oracle.on_fault_status(s),
                Event::Reset(id, req) => oracle.on_reset(id, &req),
                Event::Truth(o) => {
                    if oracle.on_truth(&o)? == Flow::Done {
                        linger(&oracle).await;
                        return Ok(());
                    }
                }
            }
        }
        oracle.on_end(&shutdown)
    })
}

/// How long the node stays up after its verdict, repeating the final
/// status every [`VERDICT_REPEAT`], before it exits (without `keep_running`).
/// One publication just before exiting can be lost: ros2-client exposes no
/// wait for the readers' acknowledgements, and a reliable sample whose first
/// transmission is dropped is resent only after a heartbeat, which a process
/// that exits 200 ms later never sends (seen once in 7 launch tests on a
/// loaded machine: the rclpy peer never got `done`). Readers take the last
/// status with `done: true`; the copies are identical.
pub const VERDICT_LINGER: Duration = Duration::from_millis(1000);
/// See [`VERDICT_LINGER`].
pub const VERDICT_REPEAT: Duration = Duration::from_millis(100);

async fn linger(oracle: &Oracle<'_>) {
    let mut left = VERDICT_LINGER;
    while !left.is_zero() {
        smol::Timer::after(VERDICT_REPEAT).await;
        oracle.republish_verdict();
        left = left.saturating_sub(VERDICT_REPEAT);
    }
}

/// What [`finish`] writes into the manifest besides the run's evidence.
struct Finish<'a> {
    manifest_dir: &'a Path,
    run_id: &'a str,
    run_kind: Option<RunKind>,
    scenario_name: &'a str,
    scenario_hash: &'a str,
    seed: u64,
    git_commit: &'a str,
    wall_s: f64,
    max_gap_s: f64,
    /// The mission time origin, ns of the stamp.
    origin_ns: i128,
}

fn finish(
    world: &World,
    poses: &[PoseSample],
    self_report: SelfReport,
    self_report_at_s: Option<f64>,
    faults: Option<&FaultStatus>,
    f: &Finish<'_>,
) -> Result<()> {
    let evidence = RunEvidence {
        poses: poses.to_vec(),
        self_report,
    };
    let (verdict, margins) = evidence.verdict_with_margins(world)?;
    let isolation = isolation_check(world, poses, self_report)?;
    let records = fault_records(faults, f.origin_ns);
    let kind = f.run_kind.unwrap_or(if records.is_empty() {
        RunKind::Nominal
    } else {
        RunKind::Grid
    });
    let cell: BTreeMap<String, f64> = records
        .iter()
        .map(|r| (r.axis.clone(), r.axis_value))
        .collect();
    let last = poses.last().copied().context("no sample")?;
    let mut trace = TraceWriter::new();
    for s in poses {
        // The oracle never reads the robot's odometry, estimate or GNSS:
        // those columns are NaN.
        trace.push(&TraceRow::truth(s.t_s, s.x_m, s.y_m, s.yaw_rad));
    }
    let trace = trace.finish();
    let trace_file = trace_file(f.run_id);
    let mut crate_versions = BTreeMap::new();
    crate_versions.insert(
        "breakbench_oracle".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
    );
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA.into(),
        run_id: f.run_id.into(),
        kind,
        harness_only: false,
        scenario_name: f.scenario_name.into(),
        scenario_hash: f.scenario_hash.into(),
        seed: f.seed,
        provenance: Provenance {
            git_commit: f.git_commit.into(),
            // The build's tree (build.rs), whatever `git_commit` says.
            git_dirty: env!("BREAKBENCH_ORACLE_GIT_DIRTY") == "true",
            crate_versions,
        },
        cell,
        faults: records,
        self_report,
        self_report_at_s,
        judgement: breakbench_oracle::expect::RunJudgement::from_invariants(&verdict),
        verdict,
        contacts: Vec::new(),
        final_goal_distance_m: (last.x_m - world.goal.center_m[0])
            .hypot(last.y_m - world.goal.center_m[1]),
        margins: margins.to_map(),
        isolation: Some(IsolationRecord {
            passed: isolation.passed,
        }),
        trace_file: trace_file.clone(),
        trace_sha256: sha256_hex(trace.as_bytes()),
        provenance_sha256: None,
        recording_sha256: None,
        recording_mode: None,
        sim_time_s: last.t_s,
        wall_time_s: f.wall_s,
        graph: None,
        detection: None,
    };
    write_atomic(&f.manifest_dir.join(&trace_file), trace.as_bytes())?;
    let mpath = f
        .manifest_dir
        .join("manifests")
        .join(format!("{}.json", f.run_id));
    write_json_atomic(&mpath, &manifest)?;
    tracing::info!(
        samples = poses.len(),
        max_gap_s = f.max_gap_s,
        wall_s = f.wall_s,
        rtf = last.t_s / f.wall_s.max(1e-9),
        "run judged"
    );
    let line = VerdictLine {
        safety_violation: verdict.safety_violation(),
        mission_failure: verdict.mission_failure(),
        self_report: serde_json::to_value(self_report)?
            .as_str()
            .unwrap_or("?")
            .to_string(),
        samples: poses.len() as u64,
        manifest: mpath,
    };
    println!("{line}");
    use std::io::Write;
    std::io::stdout().flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_interfaces::ChannelFaultStatus;

    fn channel(name: &str, mode: u8, first_applied: Time, cleared: Time) -> ChannelFaultStatus {
        ChannelFaultStatus {
            channel: name.into(),
            fault: FaultSpec {
                mode,
                scale_factor: 1.2,
                delay_s: 0.1,
                ..FaultSpec::default()
            },
            active: false,
            first_applied,
            cleared,
            messages_in: 10,
            messages_out: 10,
            ..ChannelFaultStatus::default()
        }
    }

    #[test]
    fn scenario_hash_covers_world_then_params_files() {
        let d = tempfile_dir();
        let (w, p) = (d.join("w.yaml"), d.join("p.yaml"));
        std::fs::write(&w, "ab").unwrap();
        std::fs::write(&p, "c").unwrap();
        // The campaign's definition over [w, p]; Python: hashlib.sha256(
        // (2).to_bytes(8, 'little') + b'ab' + (1).to_bytes(8, 'little') + b'c').hexdigest()
        let wp = "43ee655579de01ca739b3f95c1c2d3f46d353b2c0df818064ea594506cdb2617";
        assert_eq!(
            graph_scenario_hash(&w, std::slice::from_ref(&p)).unwrap(),
            wp
        );
        assert_eq!(scenario_hash(&[&w, &p]).unwrap(), wp);
        let args = [
            "--ros-args",
            "--params-file",
            "a.yaml",
            "-p",
            "x:=1",
            "--params-file",
            "b.yaml",
        ];
        assert_eq!(
            params_files(args.iter().map(|s| s.to_string())),
            vec![PathBuf::from("a.yaml"), PathBuf::from("b.yaml")]
        );
        let e = graph_scenario_hash(&d.join("missing.yaml"), &[]).unwrap_err();
        assert!(format!("{e:#}").contains("missing.yaml"), "{e:#}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("oracle-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn only_applied_faults_are_faults_of_the_run() {
        let t = |sec| Time { sec, nanosec: 0 };
        let st = FaultStatus {
            channels: vec![
                // Applied at 1 s, still set: recorded as requested (scale_factor 1.2).
                channel("odom", FaultSpec::SCALE, t(1), Time::default()),
                // Requested, never applied: not a fault of the run.
                channel("scan", FaultSpec::DELAY, Time::default(), Time::default()),
                // Applied at 2 s, cleared at 5 s: recorded (it shaped the run).
                channel("imu", FaultSpec::DELAY, t(2), t(5)),
                // Healthy channel: nothing.
                channel("gnss", FaultSpec::HEALTHY, Time::default(), Time::default()),
            ],
            ..FaultStatus::default()
        };
        let r = fault_records(Some(&st), 0);
        // (axis, parameter, axis value, first applied s, cleared s)
        type Row<'a> = (&'a str, &'a str, f64, Option<f64>, Option<f64>);
        let axes: Vec<Row> = r
            .iter()
            .map(|r| {
                (
                    r.axis.as_str(),
                    r.parameter.as_str(),
                    r.axis_value,
                    r.first_applied_s,
                    r.cleared_s,
                )
            })
            .collect();
        assert_eq!(
            axes,
            vec![
                ("odom_scale", "scale_factor", 1.2, Some(1.0), None),
                ("imu_delay", "delay_s", 0.1, Some(2.0), Some(5.0))
            ]
        );
        // Under time_origin: first_sample at 1.5 s the times are mission times.
        let r = fault_records(Some(&st), 1_500_000_000);
        assert_eq!(r[0].first_applied_s, Some(-0.5));
        assert_eq!(r[1].first_applied_s, Some(0.5));
        assert_eq!(r[1].cleared_s, Some(3.5));
        assert!(fault_records(None, 0).is_empty());
    }

    #[test]
    fn stamp_ns_is_exact_for_epoch_stamps() {
        // 1.8e9 s + 0.25 s: 1_800_000_000_250_000_000 ns, exact in i128.
        let t = Time {
            sec: 1_800_000_000,
            nanosec: 250_000_000,
        };
        assert_eq!(stamp_ns(&t), 1_800_000_000_250_000_000);
        // 0.02 s after it, relative: (20_000_000 ns) * 1e-9 = 0.02 s.
        let u = Time {
            sec: 1_800_000_000,
            nanosec: 270_000_000,
        };
        assert_eq!(ns_to_secs(stamp_ns(&u) - stamp_ns(&t)), 0.02);
        // Origin 0 reproduces Time::as_secs_f64 bit for bit: 60 s, not 60.00000000000001.
        let m = Time {
            sec: 60,
            nanosec: 0,
        };
        assert_eq!(ns_to_secs(stamp_ns(&m)), m.as_secs_f64());
        let m = Time {
            sec: 25,
            nanosec: 620_000_000,
        };
        assert_eq!(ns_to_secs(stamp_ns(&m)), m.as_secs_f64());
    }

    #[test]
    fn frames_other_than_world_and_base_link_are_refused() {
        let mut o = Odometry::default();
        o.header.frame_id = "world".into();
        o.child_frame_id = "base_link".into();
        assert!(check_frames(&o, "world", "base_link").is_ok());
        o.header.frame_id = "odom".into();
        let e = check_frames(&o, "world", "base_link")
            .unwrap_err()
            .to_string();
        assert!(e.contains("header.frame_id = \"odom\""), "{e}");
        assert!(e.contains("'world_frame'"), "{e}");
        o.header.frame_id = "world".into();
        o.child_frame_id = "base_footprint".into();
        let e = check_frames(&o, "world", "base_link")
            .unwrap_err()
            .to_string();
        assert!(e.contains("child_frame_id = \"base_footprint\""), "{e}");
        assert!(e.contains("'child_frame'"), "{e}");
    }
}
