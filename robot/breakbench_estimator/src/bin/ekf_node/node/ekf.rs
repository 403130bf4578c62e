//! The node's ROS entities ([`Io`], [`Event`]) and state ([`EkfNode`]),
//! with one handler per event: `/clock`, a sensor input, `~/reset`, and the
//! tick after each event or 50 ms without one (the start under sim time,
//! the held inputs' release, fusion, the outputs and `/diagnostics`).

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use breakbench_estimator::{EkfConfig, Estimator, HeldInputs, InitialState, Input};
use breakbench_ros::{qos, NodeClock, ResetRunSrv, RosNode, RosServer, Shutdown, SimClock};
use breakbench_ros::{Publisher, RequestId, Subscription};
use breakbench_world::geodesy::LocalEnu;
use futures::future::Either;
use futures::stream::{LocalBoxStream, Stream, StreamExt};
use kraken_interfaces::ros::{
    Clock, DiagnosticArray, Header, Imu, Log, NavSatFix, Odometry, TFMessage, Time,
};
use kraken_interfaces::{ResetRunRequest, ResetRunResponse};

use super::{trace_log, DEPTH};

/// One input of the event loop.
// Odometry and Imu are large and arrive at 20-50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Event {
    Input(Input),
    Clock(Clock),
    /// `~/reset` (REQ-GRAPH-RESET).
    Reset(RequestId, ResetRunRequest),
}

/// What woke the event loop.
// An event is moved once per wake-up, as before: not boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Wake {
    Event(Event),
    /// 50 ms without an event.
    Tick,
    /// The streams ended at shutdown.
    Stopped,
}

/// The next event, or [`Wake::Tick`] after 50 ms without one.
///
/// # Errors
/// "input streams ended" when the streams end without a shutdown.
pub(super) async fn next_wake<S>(events: &mut S, shutdown: &Shutdown) -> Result<Wake>
where
    S: Stream<Item = Event> + Unpin,
{
    let next = events.next();
    futures::pin_mut!(next);
    let timer = smol::Timer::after(Duration::from_millis(50));
    match futures::future::select(next, Box::pin(timer)).await {
        Either::Left((Some(ev), _)) => Ok(Wake::Event(ev)),
        Either::Left((None, _)) if shutdown.is_requested() => Ok(Wake::Stopped),
        Either::Left((None, _)) => bail!("input streams ended"),
        Either::Right(_) => Ok(Wake::Tick),
    }
}

/// The node's ROS entities.
pub(super) struct Io {
    odom_sub: Subscription<Odometry>,
    imu_sub: Subscription<Imu>,
    fix_sub: Subscription<NavSatFix>,
    /// `/clock` (under `use_sim_time` only).
    clock_sub: Option<Subscription<Clock>>,
    filtered_pub: Publisher<Odometry>,
    tf_pub: Publisher<TFMessage>,
    diag_pub: Publisher<DiagnosticArray>,
    rosout_pub: Publisher<Log>,
    reset_srv: RosServer<ResetRunSrv>,
}

impl Io {
    /// Creates the subscriptions (`/clock` when `sim`), the publishers and
    /// `~/reset` on `node`, in this order.
    ///
    /// # Errors
    /// An entity cannot be created (a bad remapping, a DDS error).
    pub fn new(node: &mut RosNode, sim: bool) -> Result<Self> {
        let odom_sub = node.subscription::<Odometry>("odom", qos::subscribe(DEPTH))?;
        let imu_sub = node.subscription::<Imu>("imu/data", qos::subscribe(DEPTH))?;
        let fix_sub = node.subscription::<NavSatFix>("gnss/fix", qos::subscribe(DEPTH))?;
        let clock_sub = if sim {
            Some(node.subscription::<Clock>("/clock", qos::subscribe(DEPTH))?)
        } else {
            None
        };
        let deep = || qos::publish().depth(DEPTH);
        let filtered_pub = node.publisher::<Odometry>("odometry/filtered", deep())?;
        let tf_pub = node.publisher::<TFMessage>("/tf", deep())?;
        let diag_pub = node.publisher::<DiagnosticArray>("/diagnostics", qos::publish())?;
        let rosout_pub = node.publisher::<Log>("/rosout", qos::rosout())?;
        let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
        Ok(Self {
            odom_sub,
            imu_sub,
            fix_sub,
            clock_sub,
            filtered_pub,
            tf_pub,
            diag_pub,
            rosout_pub,
            reset_srv,
        })
    }

    /// The input streams: the three sensors, `/clock` (sim time), `~/reset`
    /// (a message that fails to deserialize is skipped).
    pub fn events(&self) -> Vec<LocalBoxStream<'_, Event>> {
        let mut streams: Vec<LocalBoxStream<'_, Event>> = vec![
            self.odom_sub
                .async_stream()
                .filter_map(|r| {
                    std::future::ready(r.ok().map(|m| Event::Input(Input::WheelOdom(m))))
                })
                .boxed_local(),
            self.imu_sub
                .async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|m| Event::Input(Input::Imu(m)))))
                .boxed_local(),
            self.fix_sub
                .async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|m| Event::Input(Input::Gnss(m)))))
                .boxed_local(),
        ];
        if let Some(c) = &self.clock_sub {
            streams.push(
                c.async_stream()
                    .filter_map(|r| std::future::ready(r.ok().map(Event::Clock)))
                    .boxed_local(),
            );
        }
        streams.push(
            self.reset_srv
                .receive_request_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(id, req)| Event::Reset(id, req))))
                .boxed_local(),
        );
        streams
    }

    /// An estimator log record on stderr and `/rosout`.
    fn publish_log(&self, l: Log) {
        trace_log(&l);
        if let Err(e) = self.rosout_pub.publish(l) {
            tracing::warn!("/rosout: publish failed: {e}");
        }
    }

    /// `odometry/filtered` and (`publish_tf`) `map → odom` on `/tf`.
    fn publish_filtered(&self, e: &Estimator, publish_tf: bool) {
        if let Err(err) = self.filtered_pub.publish(e.filtered_odometry()) {
            tracing::warn!("odometry/filtered: publish failed: {err}");
        }
        if publish_tf {
            let tf = TFMessage {
                transforms: vec![e.map_to_odom_tf()],
            };
            if let Err(err) = self.tf_pub.publish(tf) {
                tracing::warn!("/tf: publish failed: {err}");
            }
        }
    }

    /// `/diagnostics` at `now`: one status per sensor.
    fn publish_diagnostics(&self, e: &Estimator, now: Time) {
        let arr = DiagnosticArray {
            header: Header {
                stamp: now,
                frame_id: String::new(),
            },
            status: e.diagnostics(now).into_iter().map(|s| s.to_ros()).collect(),
        };
        if let Err(err) = self.diag_pub.publish(arr) {
            tracing::warn!("/diagnostics: publish failed: {err}");
        }
    }
}

/// The node's settings, read from its parameters at start-up.
pub(super) struct Settings {
    pub cfg: EkfConfig,
    /// The initial state; its stamp is set when the estimator starts.
    pub init: InitialState,
    /// The `map` frame's ENU origin (the datum), if any.
    pub enu: Option<LocalEnu>,
    /// Period of `/diagnostics`, ns of the node's clock.
    pub diag_period_ns: i64,
    pub publish_tf: bool,
    /// Wall time a held input waits for an unmoving clock at most.
    pub hold_max: Duration,
    /// `time.future_tolerance_s` in ns: how far ahead of the clock an input
    /// is held rather than fused.
    pub tolerance_ns: i64,
}

/// The ekf node: settings, entities, clock and the estimator of this run.
pub(super) struct EkfNode<'a> {
    io: &'a Io,
    s: Settings,
    clock: NodeClock,
    /// The sim clock (under `use_sim_time`).
    sim: Option<SimClock>,
    /// The estimator; `None` under sim time until the first `/clock`.
    est: Option<Estimator>,
    held: HeldInputs,
    /// Wall time at which the clock last moved (sim time: ends a hold).
    clock_moved: Instant,
    /// Node-clock ns of the next periodic `/diagnostics`.
    next_diag_ns: Option<i64>,
}

impl<'a> EkfNode<'a> {
    /// On wall time the estimator starts now; on sim time at the first
    /// `/clock`.
    ///
    /// # Errors
    /// The estimator refuses the configuration (checked before, so not).
    pub fn new(io: &'a Io, s: Settings, clock: NodeClock) -> Result<Self> {
        let sim = match &clock {
            NodeClock::Sim(c) => Some(c.clone()),
            NodeClock::Wall => None,
        };
        let mut n = Self {
            io,
            s,
            clock,
            sim,
            est: None,
            held: HeldInputs::default(),
            clock_moved: Instant::now(),
            next_diag_ns: None,
        };
        n.est = n.wall_start()?;
        Ok(n)
    }

    /// A fresh estimator stamped now on wall time; `None` on sim time.
    fn wall_start(&self) -> Result<Option<Estimator>> {
        if self.sim.is_some() {
            return Ok(None);
        }
        let init = InitialState {
            stamp: self.clock.stamp(),
            ..self.s.init
        };
        Ok(Some(Estimator::new(self.s.cfg.clone(), init)?))
    }

    /// The node clock's stamp now.
    pub fn stamp(&self) -> Time {
        self.clock.stamp()
    }

    /// `/clock`: the sim clock moves on (never back).
    pub fn on_clock(&mut self, c: &Clock) {
        if let Some(s) = &self.sim {
            let before = s.now();
            SimClock::update(s, c);
            if s.now() != before || self.est.is_none() {
                self.clock_moved = Instant::now();
            }
        }
    }

    /// A sensor input: held under sim time (until the clock reaches its
    /// stamp), else pushed on `due`, fused at this tick.
    pub fn on_input(&mut self, i: Input, due: &mut Vec<Input>) {
        if self.sim.is_some() {
            self.held.push(i);
        } else {
            due.push(i);
        }
    }

    /// `~/reset`: the next run of a kept-running graph (REQ-GRAPH-RESET):
    /// the estimator as at start-up (at the start pose, at the next /clock
    /// reading under sim time); the inputs queued or held are the previous
    /// run's.
    ///
    /// # Errors
    /// The estimator cannot be rebuilt (wall time).
    pub fn on_reset(&mut self, id: RequestId, req: &ResetRunRequest) -> Result<()> {
        let io = self.io;
        while let Ok(Some(_)) = io.odom_sub.take() {}
        while let Ok(Some(_)) = io.imu_sub.take() {}
        while let Ok(Some(_)) = io.fix_sub.take() {}
        if let Some(c) = &io.clock_sub {
            while let Ok(Some(_)) = c.take() {}
        }
        self.held = HeldInputs::default();
        self.next_diag_ns = None;
        self.clock_moved = Instant::now();
        if let Some(s) = &self.sim {
            s.reset();
        }
        self.est = self.wall_start()?;
        tracing::info!(run_id = %req.run_id, "reset: a fresh estimator");
        let resp = ResetRunResponse {
            success: true,
            message: format!("a fresh estimator for run {}", req.run_id),
        };
        if let Err(e) = io.reset_srv.send_response(id, resp) {
            tracing::warn!("~/reset: response not sent: {e}");
        }
        Ok(())
    }

    /// After each event and every 50 ms: starts the estimator at the first
    /// sim time, fuses what is due (under sim time: the held inputs whose
    /// stamp the clock reached, or all after `hold_max_s` of an unmoving
    /// clock), publishes the outputs, the logs and the diagnostics.
    /// `wall_now`: the clock read when the event arrived (used on wall time).
    ///
    /// # Errors
    /// The estimator cannot be built at the first sim time.
    pub fn on_tick(&mut self, wall_now: Time, mut due: Vec<Input>) -> Result<()> {
        let now = if self.sim.is_some() {
            self.clock.stamp()
        } else {
            wall_now
        };
        if self.est.is_none() && self.sim.as_ref().is_some_and(|s| s.has_time()) {
            let init = InitialState {
                stamp: now,
                ..self.s.init
            };
            self.est = Some(Estimator::new(self.s.cfg.clone(), init)?);
        }
        let Some(e) = self.est.as_mut() else {
            return Ok(());
        };
        if self.sim.is_some() {
            due = self.held.take_due(now.as_nanos(), self.s.tolerance_ns);
            if !self.held.is_empty() && self.clock_moved.elapsed() >= self.s.hold_max {
                due.extend(self.held.take_all());
            }
        }
        let enu = &self.s.enu;
        for i in &due {
            let conv =
                |lat: f64, lon: f64, alt: f64| enu.as_ref().map(|c| c.from_geodetic(lat, lon, alt));
            // Refusals are counted, logged and on /diagnostics.
            let _ = e.fuse(i, now, &conv);
        }
        if !due.is_empty() {
            self.io.publish_filtered(e, self.s.publish_tf);
        }
        let logs = e.drain_logs();
        let logged = !logs.is_empty();
        for r in logs {
            self.io.publish_log(r.to_ros());
        }
        let now_ns = now.as_nanos();
        let periodic = self.next_diag_ns.is_none_or(|n| now_ns >= n);
        if logged || periodic {
            self.io.publish_diagnostics(e, now);
            if periodic {
                let mut n = self.next_diag_ns.unwrap_or(now_ns);
                while n <= now_ns {
                    n += self.s.diag_period_ns;
                }
                self.next_diag_ns = Some(n);
            }
        }
        Ok(())
    }
}
