//! The bridge's ROS entities ([`Io`]) and state ([`Bridge`]), with one
//! handler per event: the wait for the graph (peers, `~/start`), `~/reset`,
//! and each plant step (the gate, the step's publications, `/cmd_vel`, the
//! pacing and the progress line).

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use breakbench_ros::{
    qos, to_stamp, RequestId, ResetRunSrv, RosEnv, RosNode, RosServer, Shutdown, Subscription,
    TriggerSrv,
};
use breakbench_sim_bridge::{Plant, PlantConfig, SimControl, SimState};
use breakbench_world::world::Pose2;
use breakbench_world::World;
use kraken_interfaces::ros::{Clock, TriggerResponse, Twist, TwistStamped};
use kraken_interfaces::{ResetRunRequest, SensorMsg};

use super::simif::{SimEvent, SimifIo};
use super::{
    odom_tf, publish, reset_plant, take_reset, wait_gate, wheel_odometry, CmdSub, Params, Pubs,
    PUB_DEPTH, TRUTH_DEPTH,
};

/// The node's ROS entities.
pub(super) struct Io {
    pub pubs: Pubs,
    cmd: CmdSub,
    /// The gate subscription (`gate_topic` set).
    gate: Option<Subscription<Clock>>,
    /// `~/start` (`start_service: true`).
    start_srv: Option<RosServer<TriggerSrv>>,
    reset_srv: RosServer<ResetRunSrv>,
    /// The `simulation_interfaces` services (`service_prefix`).
    pub simif: SimifIo,
}

impl Io {
    /// Creates the publishers, `/cmd_vel`, the gate and the services on
    /// `node`, in this order. `lockstep`: `real_time_factor` is 0.
    ///
    /// # Errors
    /// An entity cannot be created (a bad remapping, a DDS error).
    pub fn new(node: &mut RosNode, p: &Params, lockstep: bool) -> Result<Self> {
        let pq = || qos::publish().depth(PUB_DEPTH);
        let pubs = Pubs {
            clock: node.publisher("/clock", pq())?,
            scan: node.publisher("/scan", pq())?,
            odom: node.publisher("/odom", pq())?,
            tf: node.publisher("/tf", pq())?,
            // tf2's StaticTransformBroadcaster QoS: reliable, transient local,
            // keep last 1 (late joiners get the latched message).
            tf_static: node.publisher("/tf_static", qos::publish().transient_local().depth(1))?,
            truth: match p.publish_truth {
                true => Some(node.publisher("/oracle/odom", qos::publish().depth(TRUTH_DEPTH))?),
                false => None,
            },
            gnss: node.publisher("/gnss/fix", pq())?,
            imu: node.publisher("/imu/data", pq())?,
            wheel: node.publisher("/wheel/odom", pq())?,
        };
        // Lock-step needs every command: reliable. Free running takes the latest:
        // best effort matches every writer.
        let cmd_qos = if lockstep {
            qos::publish().depth(PUB_DEPTH)
        } else {
            qos::subscribe(10)
        };
        let cmd = if p.cmd_vel_stamped {
            CmdSub::Stamped(node.subscription::<TwistStamped>("/cmd_vel", cmd_qos)?)
        } else {
            CmdSub::Twist(node.subscription::<Twist>("/cmd_vel", cmd_qos)?)
        };
        let gate = match &p.gate_topic {
            Some(t) => Some(node.subscription::<Clock>(t, qos::publish().depth(PUB_DEPTH))?),
            None => None,
        };
        let start_srv = if p.start_service {
            Some(node.server::<TriggerSrv>("~/start")?)
        } else {
            None
        };
        let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
        let simif = SimifIo::new(node, &p.service_prefix)?;
        Ok(Self {
            pubs,
            cmd,
            gate,
            start_srv,
            reset_srv,
            simif,
        })
    }
}

/// What a handler decided about the run.
enum Flow {
    /// Go on stepping (or waiting).
    Go,
    /// Stop the node (shutdown, `stop_at_s`): exit 0.
    Stop,
    /// `~/reset` was called: wait for the graph again, then step from 0.
    Reset,
}

/// One run's stepping state.
struct Stepping {
    /// Sim time of the next lock-step control instant.
    next_control: Duration,
    /// Wall time at sim time 0 (free-running pacing, progress).
    wall0: Instant,
    /// `/cmd_vel` commands applied so far.
    commands: u64,
    /// Paused since the last paced step: re-anchor `wall0` when playing.
    repace: bool,
    /// Turns of the run loop so far (the services' polling).
    turns: u64,
}

/// While playing, the `simulation_interfaces` services are polled every
/// this many plant steps (0.1 s of sim time at the 10 ms step).
const SIMIF_POLL_STEPS: u64 = 10;

/// The sim bridge: its parameters, files, entities, and the plant of the
/// current run.
pub(super) struct Bridge<'a> {
    /// The node, for the peers' matching (its spinner runs).
    pub node: &'a RosNode,
    pub env: RosEnv,
    pub io: Io,
    pub p: Params,
    pub world: World,
    pub robot: PlantConfig,
    /// `real_time_factor` is 0.
    pub lockstep: bool,
    pub shutdown: Shutdown,
    pub plant: Plant,
    /// The run was started: `~/start` or SetSimulationState PLAYING/PAUSED
    /// was called (or there is no `~/start` and nothing stopped it).
    pub start_called: bool,
    /// The simulation state machine (`simulation_interfaces`).
    pub ctl: SimControl,
    /// The run's plant seed: the `seed` parameter, then each `~/reset`'s;
    /// ResetSimulation and a stop rebuild the plant from it.
    pub run_seed: u64,
    /// The StepSimulation call being served: its id and the steps left.
    pub pending_step: Option<(RequestId, u64)>,
}

impl Bridge<'_> {
    /// Runs until shutdown or `stop_at_s`: for each run, waits for the
    /// graph, then steps the plant until a `~/reset` starts the next.
    ///
    /// # Errors
    /// No peer within `start_timeout_s`, no command or gate message within
    /// `lockstep_timeout_s`, a plant that cannot be rebuilt at `~/reset`.
    pub fn run(&mut self) -> Result<()> {
        loop {
            let Some(t0) = self.wait_for_graph()? else {
                break;
            };
            let mut st = self.start_stepping(t0);
            match self.step_run(&mut st)? {
                Flow::Reset => continue,
                Flow::Stop | Flow::Go => break,
            }
        }
        tracing::info!(
            "stopped at sim time {:.3} s",
            self.plant.now().as_secs_f64()
        );
        Ok(())
    }

    /// The peers still missing: a subscriber of `/oracle/odom` (when
    /// published), `/scan`,
    /// `/odom`, the `~/start` call, a `/cmd_vel` publisher (lock-step) and
    /// a gate publisher (gated).
    fn missing_peers(&self) -> Vec<&'static str> {
        let (node, io) = (self.node, &self.io);
        [
            (
                "/oracle/odom",
                io.pubs
                    .truth
                    .as_ref()
                    .is_none_or(|t| node.has_subscriber(t)),
            ),
            ("/scan", node.has_subscriber(&io.pubs.scan)),
            ("/odom", node.has_subscriber(&io.pubs.odom)),
        ]
        .into_iter()
        .filter(|(_, matched)| !matched)
        .map(|(t, _)| t)
        .chain(
            (!self.start_called)
                .then_some("a start (a call of ~/start, or SetSimulationState PLAYING or PAUSED)"),
        )
        .chain(
            (self.lockstep
                && !match &io.cmd {
                    CmdSub::Twist(s) => node.has_publisher(s),
                    CmdSub::Stamped(s) => node.has_publisher(s),
                })
            .then_some("/cmd_vel (publisher)"),
        )
        .chain(
            io.gate
                .as_ref()
                .is_some_and(|g| !node.has_publisher(g))
                .then_some("gate_topic (publisher)"),
        )
        .collect()
    }

    /// Waits (polling every 50 ms) until no peer is missing, serving
    /// `~/reset` and `~/start` meanwhile. Returns the wall time the wait
    /// began, `None` at shutdown.
    ///
    /// # Errors
    /// A peer still missing after `start_timeout_s`; a failed reset.
    fn wait_for_graph(&mut self) -> Result<Option<Instant>> {
        // Wait for the graph: the first messages must not be lost.
        let t0 = Instant::now();
        loop {
            let missing = self.missing_peers();
            if missing.is_empty() {
                return Ok(Some(t0));
            }
            if let Some((id, req)) = take_reset(&self.io.reset_srv) {
                // Reset while waiting (a run that ended before its start).
                self.on_reset(id, &req)?;
            }
            self.on_start_calls();
            // A reset or stop while waiting rebuilt the plant: wait on.
            self.serve_simif()?;
            if self.shutdown.is_requested() {
                tracing::info!("stopped while waiting for peers on {missing:?}");
                return Ok(None);
            }
            if t0.elapsed() > self.p.start_timeout {
                bail!(
                    "no peer on {missing:?} after start_timeout_s = {:.1} s (is the rest of the graph running on ROS_DOMAIN_ID {}?)",
                    self.p.start_timeout.as_secs_f64(),
                    self.env.domain_id
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `~/reset`: a fresh plant for the request's seed (answered), and a
    /// new `~/start` call to wait for.
    ///
    /// # Errors
    /// The plant cannot be rebuilt.
    fn on_reset(&mut self, id: RequestId, req: &ResetRunRequest) -> Result<()> {
        self.fail_pending_step("~/reset");
        self.plant = reset_plant(&self.world, &self.robot, &self.io.reset_srv, id, req)?;
        self.run_seed = req.seed;
        self.ctl.on_run_reset();
        self.start_called = self.io.start_srv.is_none();
        Ok(())
    }

    /// `~/start`: answers every call received, and notes the start.
    fn on_start_calls(&mut self) {
        let Some(srv) = &self.io.start_srv else {
            return;
        };
        while let Ok(Some((id, _))) = srv.receive_request() {
            self.start_called = true;
            self.ctl.on_start_call();
            let resp = TriggerResponse {
                success: true,
                message: "stepping from sim time 0 once the graph has matched".into(),
            };
            if let Err(e) = srv.send_response(id, resp) {
                tracing::warn!("~/start: response not sent: {e}");
            }
        }
    }

    /// The graph matched at `t0`'s wait: settles, drops the previous run's
    /// commands and gate messages, publishes `/clock` = 0.
    fn start_stepping(&mut self, t0: Instant) -> Stepping {
        std::thread::sleep(self.p.start_settle);
        // The previous run's last commands (kept-running graph): not this run's.
        while self.io.cmd.try_take().is_some() {}
        if let Some(g) = &self.io.gate {
            while let Ok(Some(_)) = g.take() {}
        }
        tracing::info!(
            "graph matched after {:.2} s; stepping",
            t0.elapsed().as_secs_f64()
        );
        let st = Stepping {
            next_control: Duration::ZERO,
            wall0: Instant::now(),
            commands: 0,
            repace: false,
            turns: 0,
        };
        publish(
            &self.io.pubs.clock,
            "/clock",
            Clock {
                clock: to_stamp(Duration::ZERO),
            },
        );
        st
    }

    /// Steps the plant until shutdown, `stop_at_s` ([`Flow::Stop`]),
    /// `~/reset`, ResetSimulation or a stop ([`Flow::Reset`]). Playing, it
    /// steps on its own; paused, only the steps of a StepSimulation call
    /// (unpaced), polling the services every millisecond meanwhile.
    ///
    /// # Errors
    /// As [`Self::step`]; a failed reset.
    fn step_run(&mut self, st: &mut Stepping) -> Result<Flow> {
        loop {
            let stop_at = self.p.stop_at.is_some_and(|s| self.plant.now() >= s);
            if self.shutdown.is_requested() || stop_at {
                self.fail_pending_step("the node is stopping");
                return Ok(Flow::Stop);
            }
            if let Some((id, req)) = take_reset(&self.io.reset_srv) {
                self.on_reset(id, &req)?;
                return Ok(Flow::Reset);
            }
            // Playing, the seven services are polled every SIMIF_POLL_STEPS
            // steps (their takes would cost more than a plant step);
            // paused, at every turn.
            let poll =
                self.ctl.state() != SimState::Playing || st.turns.is_multiple_of(SIMIF_POLL_STEPS);
            st.turns += 1;
            if poll {
                if let SimEvent::Rebuilt = self.serve_simif()? {
                    return Ok(Flow::Reset);
                }
            }
            let paced = match self.ctl.state() {
                SimState::Playing => true,
                SimState::Paused if self.pending_step.is_some() => false,
                _ => {
                    st.repace = true;
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
            };
            if paced && std::mem::take(&mut st.repace) && !self.lockstep {
                // Playing again after a pause: pace from here, no catching up.
                st.wall0 = Instant::now() - self.plant.now().div_f64(self.p.real_time_factor);
            }
            let flow = self.step(st, paced)?;
            if !paced {
                self.stepped_for_call();
            }
            if let Flow::Stop = flow {
                self.fail_pending_step("the node is stopping");
                return Ok(Flow::Stop);
            }
        }
    }

    /// One plant step: the latest commands (free running), the step, its
    /// ground truth through the gate, its publications, the lock-step
    /// command or (`paced`: playing) the pacing, the progress line every
    /// 10 s of sim time.
    ///
    /// # Errors
    /// No gate message or no command within `lockstep_timeout_s`.
    fn step(&mut self, st: &mut Stepping, paced: bool) -> Result<Flow> {
        if !self.lockstep {
            while let Some(t) = self.io.cmd.try_take() {
                self.plant.set_cmd_vel(t.linear.x, t.angular.z);
                st.commands += 1;
            }
        }
        let mut out = self.plant.step();
        let now = self.plant.now();
        let ns = now.as_nanos() as u64;
        // Take the truth out only when gated.
        if self.io.gate.is_some() {
            if let Some(t) = out.truth.take() {
                // Ground truth first, then the gate, then the step's sensors.
                if let Some(p) = &self.io.pubs.truth {
                    publish(p, "/oracle/odom", t);
                }
                if let Flow::Stop = self.on_gate(now)? {
                    return Ok(Flow::Stop);
                }
            }
        }
        self.publish_sensors(out.sensors);
        if let (Some(t), Some(p)) = (out.truth, &self.io.pubs.truth) {
            publish(p, "/oracle/odom", t);
        }
        let pose: Pose2 = self.plant.true_pose();
        if ns.is_multiple_of(self.p.wheel_period_ns) {
            publish(
                &self.io.pubs.wheel,
                "/wheel/odom",
                wheel_odometry(&self.plant),
            );
        }
        let control = self.lockstep && now >= st.next_control;
        if ns.is_multiple_of(self.p.clock_period_ns) || control {
            publish(
                &self.io.pubs.clock,
                "/clock",
                Clock {
                    clock: to_stamp(now),
                },
            );
        }
        if self.lockstep {
            if control {
                st.next_control += self.p.lockstep_period;
                if let Flow::Stop = self.on_control_instant(st, now)? {
                    return Ok(Flow::Stop);
                }
            }
        } else if paced {
            let due = st.wall0 + now.div_f64(self.p.real_time_factor);
            let wall = Instant::now();
            if due > wall {
                std::thread::sleep(due - wall);
            }
        }
        if ns.is_multiple_of(10 * 1_000_000_000) {
            progress(st, now, &pose);
        }
        Ok(Flow::Go)
    }

    /// The gate at the ground-truth step of sim time `now`: waits for a
    /// gate message stamped at or after it ([`Flow::Stop`] at shutdown).
    ///
    /// # Errors
    /// None within `lockstep_timeout_s`.
    fn on_gate(&self, now: Duration) -> Result<Flow> {
        let Some(g) = &self.io.gate else {
            return Ok(Flow::Go);
        };
        if !wait_gate(g, now, self.p.lockstep_timeout, &self.shutdown) {
            if self.shutdown.is_requested() {
                return Ok(Flow::Stop);
            }
            bail!(
                "gate: nothing on {} stamped at or after sim time {:.3} s within lockstep_timeout_s = {:.1} s (is the orchestrator running?)",
                self.p.gate_topic.as_deref().unwrap_or_default(),
                now.as_secs_f64(),
                self.p.lockstep_timeout.as_secs_f64()
            );
        }
        Ok(Flow::Go)
    }

    /// A lock-step control instant at sim time `now`: waits for exactly one
    /// `/cmd_vel` and applies it ([`Flow::Stop`] at shutdown).
    ///
    /// # Errors
    /// No command within `lockstep_timeout_s`.
    fn on_control_instant(&mut self, st: &mut Stepping, now: Duration) -> Result<Flow> {
        let Some(t) = self
            .io
            .cmd
            .take_blocking(self.p.lockstep_timeout, &self.shutdown)
        else {
            if self.shutdown.is_requested() {
                return Ok(Flow::Stop);
            }
            bail!(
                "lock-step: no /cmd_vel within lockstep_timeout_s = {:.1} s at sim time {:.3} s (is the navigator running? a fault on the injector's cmd_vel channel that withholds commands stalls a lock-step graph)",
                self.p.lockstep_timeout.as_secs_f64(),
                now.as_secs_f64()
            );
        };
        self.plant.set_cmd_vel(t.linear.x, t.angular.z);
        st.commands += 1;
        Ok(Flow::Go)
    }

    /// The plant's sensor pairs in its fixed order; each message type has
    /// one topic (the plant emits one channel per type).
    fn publish_sensors(&self, sensors: Vec<(&'static str, SensorMsg)>) {
        let pubs = &self.io.pubs;
        for (_, m) in sensors {
            match m {
                SensorMsg::Odometry(o) => {
                    publish(&pubs.tf, "/tf", odom_tf(&o));
                    publish(&pubs.odom, "/odom", o);
                }
                SensorMsg::LaserScan(s) => publish(&pubs.scan, "/scan", s),
                SensorMsg::NavSatFix(f) => publish(&pubs.gnss, "/gnss/fix", f),
                SensorMsg::Imu(i) => publish(&pubs.imu, "/imu/data", i),
            }
        }
    }
}

/// The progress line at sim time `now`, the robot at `pose`.
fn progress(st: &Stepping, now: Duration, pose: &Pose2) {
    let w = st.wall0.elapsed().as_secs_f64();
    tracing::info!(
        sim_s = now.as_secs_f64(),
        wall_s = w,
        rtf = now.as_secs_f64() / w.max(1e-9),
        commands = st.commands,
        x_m = pose.x_m,
        y_m = pose.y_m,
        "progress"
    );
}
