//! The node's state and one handler per event: each input topic, `/clock`,
//! `~/reset`, the control tick and the self-report repeat.

use std::time::{Duration, Instant};

use breakbench_navigator::controller::{Controller, OpenLoop};
use breakbench_navigator::health::Sensor;
use breakbench_navigator::Navigator;
use breakbench_ros::{to_stamp, NodeClock, ResetRunSrv, RosServer, SimClock};
use breakbench_ros::{Publisher, RequestId, Subscription};
use kraken_interfaces::ros::{
    Clock, DiagnosticArray, Header, LaserScan, Log, Odometry, StringMsg, Twist, TwistStamped,
    Vector3,
};
use kraken_interfaces::{ResetRunRequest, ResetRunResponse, SelfReport};

use super::params::Params;
use super::{on_nav_clock, on_node_clock, trace_log, StampStream};

/// The log target of every line the node prints (its module's, as before
/// the handlers moved here), so `RUST_LOG=simple_navigator::node=...`
/// keeps selecting them.
const LOG_TARGET: &str = "simple_navigator::node";

// Odometry arrives at 50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Event {
    /// `/odom` (wheel odometry).
    Odom(Odometry),
    /// `/odometry/filtered` (with `pose_source: estimator`).
    Pose(Odometry),
    Scan(LaserScan),
    Clock(Clock),
    Reset(RequestId, ResetRunRequest),
}

pub(super) enum CmdPub {
    Twist(Publisher<Twist>),
    Stamped(Publisher<TwistStamped>),
}

/// The node's ROS entities.
pub(super) struct Io {
    pub odom_sub: Subscription<Odometry>,
    pub filtered_sub: Option<Subscription<Odometry>>,
    pub scan_sub: Subscription<LaserScan>,
    pub clock_sub: Option<Subscription<Clock>>,
    pub cmd_pub: CmdPub,
    pub report_pub: Publisher<StringMsg>,
    pub diag_pub: Publisher<DiagnosticArray>,
    pub rosout_pub: Publisher<Log>,
    pub reset_srv: RosServer<ResetRunSrv>,
}

/// The controller and its schedule: what `~/reset` starts afresh.
pub(super) struct NavNode<'a> {
    p: &'a Params,
    io: &'a Io,
    clock: NodeClock,
    sim: Option<SimClock>,
    nav: Navigator,
    open_loop: Option<OpenLoop>,
    /// The node clock's reading at the navigator's 0 (0 in sim time).
    epoch: Duration,
    next_control: Duration,
    /// A tick due at this time, waiting for the input barrier.
    pending: Option<Duration>,
    pending_since: Instant,
    scans: Vec<LaserScan>,
    next_report: Option<Instant>,
    ticks: u64,
    /// The pose stream of the input barrier: /odom, or /odometry/filtered.
    odom_stream: StampStream,
    scan_stream: StampStream,
}

impl<'a> NavNode<'a> {
    /// A fresh controller on `clock`; sim time runs from 0, on wall time the
    /// navigator's clock starts now.
    pub fn new(p: &'a Params, io: &'a Io, clock: NodeClock) -> Self {
        let sim = match &clock {
            NodeClock::Sim(c) => Some(c.clone()),
            NodeClock::Wall => None,
        };
        let epoch = if sim.is_some() {
            Duration::ZERO
        } else {
            clock.now()
        };
        NavNode {
            p,
            io,
            nav: Navigator::new(p.cfg.clone(), p.goal),
            open_loop: p.open_loop(),
            clock,
            sim,
            epoch,
            next_control: Duration::ZERO,
            pending: None,
            pending_since: Instant::now(),
            scans: Vec::new(),
            next_report: None,
            ticks: 0,
            odom_stream: StampStream::default(),
            scan_stream: StampStream::default(),
        }
    }

    /// When the loop must wake without an event (wall): within 100 ms, at
    /// the next self-report, at the barrier's longest wait, or (wall clock)
    /// at the next control tick.
    pub fn deadline(&self) -> Instant {
        let wall = Instant::now();
        let mut deadline = wall + Duration::from_millis(100);
        if let Some(r) = self.next_report {
            deadline = deadline.min(r);
        }
        if self.pending.is_some() {
            deadline = deadline.min(self.pending_since + self.p.wait_max);
        } else if self.sim.is_none() {
            let now = self.clock.now() - self.epoch;
            deadline = deadline.min(wall + self.next_control.saturating_sub(now));
        }
        deadline
    }

    /// One event: inputs update the navigator (poses on arrival, scans
    /// queued for the tick), `/clock` the sim clock, `~/reset` starts over.
    pub fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Odom(o) => {
                let rx = self.clock.now().saturating_sub(self.epoch);
                let stamp = on_nav_clock(o.header.stamp, self.epoch);
                self.nav.health_mut().on_message(Sensor::Odom, rx, stamp);
                if !self.p.estimator {
                    self.odom_stream.saw(o.header.stamp.as_nanos());
                    self.nav.on_odom(&o);
                }
            }
            Event::Pose(o) => {
                self.odom_stream.saw(o.header.stamp.as_nanos());
                self.nav.on_odom(&o);
            }
            Event::Scan(s) => {
                self.scan_stream.saw(s.header.stamp.as_nanos());
                let rx = self.clock.now().saturating_sub(self.epoch);
                let stamp = on_nav_clock(s.header.stamp, self.epoch);
                self.nav.health_mut().on_message(Sensor::Scan, rx, stamp);
                self.scans.push(s);
            }
            Event::Clock(c) => {
                if let Some(s) = &self.sim {
                    SimClock::update(s, &c);
                }
            }
            Event::Reset(id, req) => self.on_reset(id, req),
        }
    }

    /// The next run of a kept-running graph (REQ-GRAPH-RESET): a fresh
    /// controller and schedule, as at start-up; the inputs already queued
    /// are the previous run's.
    fn on_reset(&mut self, id: RequestId, req: ResetRunRequest) {
        let io = self.io;
        while let Ok(Some(_)) = io.odom_sub.take() {}
        while let Ok(Some(_)) = io.scan_sub.take() {}
        if let Some(f) = &io.filtered_sub {
            while let Ok(Some(_)) = f.take() {}
        }
        if let Some(c) = &io.clock_sub {
            while let Ok(Some(_)) = c.take() {}
        }
        if let Some(s) = &self.sim {
            s.reset();
        }
        *self = NavNode::new(self.p, io, self.clock.clone());
        tracing::info!(target: LOG_TARGET, run_id = %req.run_id, "reset: a fresh controller");
        let resp = ResetRunResponse {
            success: true,
            message: format!("a fresh controller for run {}", req.run_id),
        };
        if let Err(e) = io.reset_srv.send_response(id, resp) {
            tracing::warn!(target: LOG_TARGET, "~/reset: response not sent: {e}");
        }
    }

    /// After every wake-up: schedules the tick that is due, runs it once the
    /// input barrier holds (or its wait is over), and repeats the
    /// self-report when due.
    pub fn after_event(&mut self) {
        let now = self.clock.now().saturating_sub(self.epoch);
        if self.pending.is_none()
            && now >= self.next_control
            && (self.sim.is_none() || self.sim.as_ref().is_some_and(|s| s.has_time()))
        {
            self.pending = Some(now);
            self.pending_since = Instant::now();
            while self.next_control <= now {
                self.next_control += self.p.cfg.control_period();
            }
        }
        if let Some(t) = self.pending {
            let t_ns = (t + self.epoch).as_nanos() as i64;
            let ready = (self.odom_stream.fresh(t_ns) && self.scan_stream.fresh(t_ns))
                || Instant::now() >= self.pending_since + self.p.wait_max;
            if ready {
                self.tick(t);
            }
        }
        self.repeat_self_report();
    }

    /// The control tick at `t` (navigator clock): the queued scans planned,
    /// the command published, then what the navigator said.
    fn tick(&mut self, t: Duration) {
        let c = match &mut self.open_loop {
            Some(canary) => {
                self.scans.clear();
                canary.tick(t)
            }
            None => {
                for s in self.scans.drain(..) {
                    self.nav.on_scan(&s);
                }
                self.nav.tick(t)
            }
        };
        self.publish_cmd(t, c.linear_m_s, c.angular_rad_s);
        self.publish_said();
        self.ticks += 1;
        self.pending = None;
        if self.next_report.is_none() {
            if let Some((r, at)) = self.nav.self_report() {
                let ticks = self.ticks;
                tracing::info!(target: LOG_TARGET, report = ?r, at_s = at.as_secs_f64(), ticks, "self-report");
                self.next_report = Some(Instant::now());
            }
        }
    }

    /// `/cmd_vel` (Twist, or TwistStamped at `t` in `base_link`).
    fn publish_cmd(&self, t: Duration, linear_m_s: f64, angular_rad_s: f64) {
        let twist = Twist {
            linear: Vector3 {
                x: linear_m_s,
                y: 0.0,
                z: 0.0,
            },
            angular: Vector3 {
                x: 0.0,
                y: 0.0,
                z: angular_rad_s,
            },
        };
        let r = match &self.io.cmd_pub {
            CmdPub::Twist(p) => p.publish(twist).map_err(|e| e.to_string()),
            CmdPub::Stamped(p) => p
                .publish(TwistStamped {
                    header: Header {
                        stamp: to_stamp(t + self.epoch),
                        frame_id: "base_link".into(),
                    },
                    twist,
                })
                .map_err(|e| e.to_string()),
        };
        if let Err(e) = r {
            tracing::warn!(target: LOG_TARGET, "/cmd_vel: publish failed: {e}");
        }
    }

    /// The navigator's log records on `/rosout` (and stderr) and its
    /// `/diagnostics`, stamped on the node's clock. The canary says nothing
    /// (its navigator never ticks).
    fn publish_said(&mut self) {
        let (logs, diagnostics) = match self.open_loop {
            Some(_) => (Vec::new(), Vec::new()),
            None => (
                self.nav.health_mut().take_logs(),
                self.nav.health_mut().take_diagnostics(),
            ),
        };
        for mut l in logs {
            trace_log(&l);
            l.stamp = on_node_clock(l.stamp, self.epoch);
            if let Err(e) = self.io.rosout_pub.publish(l) {
                tracing::warn!(target: LOG_TARGET, "/rosout: publish failed: {e}");
            }
        }
        for mut a in diagnostics {
            a.header.stamp = on_node_clock(a.header.stamp, self.epoch);
            if let Err(e) = self.io.diag_pub.publish(a) {
                tracing::warn!(target: LOG_TARGET, "/diagnostics: publish failed: {e}");
            }
        }
    }

    /// The decided self-report on `/navigator/self_report`, repeated every
    /// `report_period` (wall) so that a late subscriber gets it.
    fn repeat_self_report(&mut self) {
        let (Some(r), Some((rep, _))) = (self.next_report, self.nav.self_report()) else {
            return;
        };
        if Instant::now() < r {
            return;
        }
        let data = match rep {
            SelfReport::Success => "success",
            SelfReport::Failure => "failure",
            SelfReport::None => "none",
        };
        if let Err(e) = self.io.report_pub.publish(StringMsg { data: data.into() }) {
            tracing::warn!(target: LOG_TARGET, "/navigator/self_report: publish failed: {e}");
        }
        self.next_report = Some(r + self.p.report_period);
    }
}
