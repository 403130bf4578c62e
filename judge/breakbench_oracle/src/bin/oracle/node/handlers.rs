//! The oracle node's inputs ([`Io`], [`Event`]) and its state ([`Oracle`]),
//! with one handler per input: `/oracle/odom`, `/navigator/self_report`,
//! `/fault_injector/status` and `~/reset`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use breakbench_oracle::{Monitor, PoseSample};
use breakbench_ros::{qos, ResetRunSrv, RosNode, RosServer, Shutdown};
use breakbench_ros::{Publisher, RequestId, Subscription};
use futures::stream::{LocalBoxStream, StreamExt};
use kraken_interfaces::ros::{Odometry, StringMsg};
use kraken_interfaces::{FaultStatus, ResetRunRequest, ResetRunResponse, SelfReport};

use super::params::Params;
use super::{
    check_frames, finish, ns_to_secs, stamp_ns, status_json, valid_run_id, Finish, Refused,
    TimeOrigin,
};

/// One input of the event loop.
// Ground truth arrives at 50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Event {
    /// A `/oracle/odom` sample.
    Truth(Odometry),
    /// The text of a `/navigator/self_report` message.
    SelfReport(String),
    /// A `/fault_injector/status` message.
    Status(FaultStatus),
    /// A `~/reset` call.
    Reset(RequestId, ResetRunRequest),
}

/// What the handlers decided about the event loop.
#[derive(Debug, PartialEq)]
pub(super) enum Flow {
    /// Go on with the next event.
    Continue,
    /// The run is judged and the node does not keep running: exit 0 (after
    /// letting the last status reach its readers).
    Done,
}

/// The node's ROS entities.
pub(super) struct Io {
    truth_sub: Subscription<Odometry>,
    report_sub: Subscription<StringMsg>,
    fault_sub: Subscription<FaultStatus>,
    status_pub: Publisher<StringMsg>,
    reset_srv: RosServer<ResetRunSrv>,
}

impl Io {
    /// Creates the subscriptions, the status publisher and `~/reset` on
    /// `node`, in this order.
    ///
    /// # Errors
    /// An entity cannot be created (a bad remapping, a DDS error).
    pub fn new(node: &mut RosNode) -> Result<Self> {
        // Every ground-truth sample counts: reliable and deep.
        let truth_sub =
            node.subscription::<Odometry>("/oracle/odom", qos::publish().depth(10_000))?;
        let report_sub =
            node.subscription::<StringMsg>("/navigator/self_report", qos::publish())?;
        let fault_sub =
            node.subscription::<FaultStatus>("/fault_injector/status", qos::publish())?;
        let status_pub = node.publisher::<StringMsg>("/oracle/status", qos::publish())?;
        let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
        Ok(Self {
            truth_sub,
            report_sub,
            fault_sub,
            status_pub,
            reset_srv,
        })
    }

    /// The input streams, one per subscription and service (a message that
    /// fails to deserialize is skipped).
    pub fn events(&self) -> Vec<LocalBoxStream<'_, Event>> {
        vec![
            self.truth_sub
                .async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(Event::Truth)))
                .boxed_local(),
            self.report_sub
                .async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|m| Event::SelfReport(m.data))))
                .boxed_local(),
            self.fault_sub
                .async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(Event::Status)))
                .boxed_local(),
            self.reset_srv
                .receive_request_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(id, req)| Event::Reset(id, req))))
                .boxed_local(),
        ]
    }
}

/// What the oracle holds of one run; dropped whole at `~/reset`.
struct RunState {
    monitor: Monitor,
    poses: Vec<PoseSample>,
    self_report: SelfReport,
    /// Mission time of the last sample when the self-report came, s.
    self_report_at_s: Option<f64>,
    /// The injector's last status.
    faults: Option<FaultStatus>,
    /// Wall time of the first sample.
    wall0: Option<Instant>,
    /// Mission time of the next periodic status, s.
    next_status_s: f64,
    /// Largest and smallest positive gap between samples, s.
    max_gap_s: f64,
    min_gap_s: f64,
    /// Mission time origin, ns of the stamp (set at the first sample).
    origin_ns: Option<i128>,
}

impl RunState {
    fn new(p: &Params) -> Self {
        Self {
            monitor: Monitor::new(&p.world),
            poses: Vec::new(),
            self_report: SelfReport::None,
            self_report_at_s: None,
            faults: None,
            wall0: None,
            next_status_s: 0.0,
            max_gap_s: 0.0,
            min_gap_s: f64::INFINITY,
            origin_ns: None,
        }
    }

    /// Notes the gap from the last pose to `s` (before `s` is pushed);
    /// warns when samples are missing.
    fn note_gap(&mut self, s: &PoseSample) {
        let Some(p) = self.poses.last() else { return };
        let gap = s.t_s - p.t_s;
        if gap > 0.0 {
            self.min_gap_s = self.min_gap_s.min(gap);
        }
        // A step over 1.5 sample periods: ground truth was lost.
        if gap > 1.5 * self.min_gap_s && gap > self.max_gap_s {
            tracing::warn!(
                t_s = s.t_s,
                gap_s = gap,
                period_s = self.min_gap_s,
                "/oracle/odom: samples missing (the verdict sees fewer poses than the plant made)"
            );
        }
        self.max_gap_s = self.max_gap_s.max(gap);
    }
}

/// The oracle node: its parameters (the run's id, output directory and
/// seed change at `~/reset`), its ROS entities and the current run.
pub(super) struct Oracle<'a> {
    io: &'a Io,
    p: Params,
    run: RunState,
}

impl<'a> Oracle<'a> {
    pub fn new(io: &'a Io, p: Params) -> Self {
        let run = RunState::new(&p);
        Self { io, p, run }
    }

    /// `/navigator/self_report`: the first `success` / `failure` is stored
    /// for the manifest (not a verdict input); anything else is warned.
    pub fn on_self_report(&mut self, d: &str) {
        let r = match d.trim() {
            "success" => SelfReport::Success,
            "failure" => SelfReport::Failure,
            other => {
                tracing::warn!("/navigator/self_report: ignoring {other:?}");
                return;
            }
        };
        let run = &mut self.run;
        if run.self_report == SelfReport::None {
            let t = run.poses.last().map(|p| p.t_s);
            tracing::info!(self_report = ?r, at_s = ?t, "self-report stored (not a verdict input)");
            run.self_report = r;
            run.self_report_at_s = t;
        }
    }

    /// `/fault_injector/status`: the last one is kept for the manifest.
    pub fn on_fault_status(&mut self, s: FaultStatus) {
        self.run.faults = Some(s);
    }

    /// `~/reset`: the next run of a kept-running graph (REQ-GRAPH-RESET):
    /// a fresh monitor for the request's run id, writing under its out_dir;
    /// what is queued is the previous run's. A bad run id or an empty
    /// out_dir is refused (answered, nothing changed).
    pub fn on_reset(&mut self, id: RequestId, req: &ResetRunRequest) {
        let resp = if valid_run_id(&req.run_id) && !req.out_dir.is_empty() {
            while let Ok(Some(_)) = self.io.truth_sub.take() {}
            while let Ok(Some(_)) = self.io.report_sub.take() {}
            while let Ok(Some(_)) = self.io.fault_sub.take() {}
            self.run = RunState::new(&self.p);
            self.p.run_id = req.run_id.clone();
            self.p.manifest_dir = PathBuf::from(&req.out_dir);
            // The u64 seed's int64 bits, as the parameter.
            self.p.seed = req.seed as i64;
            tracing::info!(run_id = %self.p.run_id, manifest_dir = %self.p.manifest_dir.display(), "reset: a fresh monitor");
            ResetRunResponse {
                success: true,
                message: format!("a fresh monitor for run {}", self.p.run_id),
            }
        } else {
            ResetRunResponse {
                success: false,
                message: format!(
                    "run_id {:?} (letters, digits, '-', '_', '.') and out_dir {:?} (not empty) refused",
                    req.run_id, req.out_dir
                ),
            }
        };
        if let Err(e) = self.io.reset_srv.send_response(id, resp) {
            tracing::warn!("~/reset: response not sent: {e}");
        }
    }

    /// `/oracle/odom`: one ground-truth sample into the monitor; the status
    /// every second of mission time; at the mission timeout the manifest,
    /// the trace and the verdict line.
    ///
    /// # Errors
    /// [`Refused`] for wrong frames or a first sample already past the
    /// mission timeout; an error writing the run's files.
    pub fn on_truth(&mut self, o: &Odometry) -> Result<Flow> {
        let timeout_s = self.p.world.mission_timeout_s;
        if self.run.poses.last().is_some_and(|p| p.t_s >= timeout_s) {
            return Ok(Flow::Continue); // already decided; keep_running only republishes status
        }
        check_frames(o, &self.p.world_frame, &self.p.child_frame)?;
        let s = self.mission_sample(o)?;
        let run = &mut self.run;
        run.wall0.get_or_insert_with(Instant::now);
        if let Err(e) = run.monitor.feed(&s) {
            tracing::warn!("/oracle/odom: sample refused: {e}");
            return Ok(Flow::Continue);
        }
        run.note_gap(&s);
        run.poses.push(s);
        if s.t_s >= run.next_status_s {
            run.next_status_s = s.t_s.floor() + 1.0;
            self.publish_status(s.t_s, false);
        }
        if s.t_s >= timeout_s {
            self.finish_run()?;
            self.publish_status(s.t_s, true);
            if !self.p.keep_running {
                return Ok(Flow::Done);
            }
        }
        Ok(Flow::Continue)
    }

    /// The input streams ended: at shutdown (no verdict), else an error.
    ///
    /// # Errors
    /// "input streams ended" when no shutdown was requested.
    pub fn on_end(&self, shutdown: &Shutdown) -> Result<()> {
        if shutdown.is_requested() {
            tracing::info!(
                samples = self.run.poses.len(),
                "stopped before the mission timeout: no verdict, no manifest"
            );
            return Ok(());
        }
        bail!("input streams ended")
    }

    /// The pose sample of `o` at its mission time (stamp minus the time
    /// origin, which the first sample sets).
    ///
    /// # Errors
    /// [`Refused`] if the first sample is already past the mission timeout.
    fn mission_sample(&mut self, o: &Odometry) -> Result<PoseSample> {
        let time_origin = self.p.time_origin;
        let first = self.run.origin_ns.is_none();
        let origin = *self.run.origin_ns.get_or_insert(match time_origin {
            TimeOrigin::SimZero => 0,
            TimeOrigin::FirstSample => stamp_ns(&o.header.stamp),
        });
        let mut s = PoseSample::from_odometry(o);
        // Mission time: stamp minus the origin, in integer ns (an
        // epoch stamp of 1.8e9 s would lose ~0.2 us as f64 first).
        s.t_s = ns_to_secs(stamp_ns(&o.header.stamp) - origin);
        let timeout_s = self.p.world.mission_timeout_s;
        if first && s.t_s >= timeout_s {
            return Err(Refused(format!(
                "/oracle/odom: the first sample is at mission time {:.3} s (stamp {}.{:09} s, \
                 time_origin {:?}), already past mission_timeout_s = {} s: no verdict. \
                 Start the oracle before the simulator, or set time_origin:=first_sample \
                 (wall-stamped truth, a simulator that ran before the oracle)",
                s.t_s, o.header.stamp.sec, o.header.stamp.nanosec, time_origin, timeout_s
            ))
            .into());
        }
        Ok(s)
    }

    /// The final `/oracle/status` (`done: true`) again, as published at the
    /// verdict: the node repeats it while it lingers before exiting
    /// (`VERDICT_LINGER` in the node module).
    pub fn republish_verdict(&self) {
        if let Some(last) = self.run.poses.last() {
            self.publish_status(last.t_s, true);
        }
    }

    /// `/oracle/status` at mission time `t_s` (`done` after the verdict).
    fn publish_status(&self, t_s: f64, done: bool) {
        let _ = self.io.status_pub.publish(StringMsg {
            data: status_json(&self.run.monitor, t_s, done),
        });
    }

    /// Judges the run: manifest, trace and verdict line ([`finish`]).
    fn finish_run(&self) -> Result<()> {
        let (p, run) = (&self.p, &self.run);
        finish(
            &p.world,
            &run.poses,
            run.self_report,
            run.self_report_at_s,
            run.faults.as_ref(),
            &Finish {
                manifest_dir: &p.manifest_dir,
                run_id: &p.run_id,
                run_kind: p.run_kind,
                scenario_name: &p.scenario_name,
                scenario_hash: &p.scenario_hash,
                seed: p.seed as u64,
                git_commit: &p.git_commit,
                wall_s: run.wall0.map(|w| w.elapsed().as_secs_f64()).unwrap_or(0.0),
                max_gap_s: run.max_gap_s,
                origin_ns: run.origin_ns.unwrap_or(0),
            },
        )
    }
}
