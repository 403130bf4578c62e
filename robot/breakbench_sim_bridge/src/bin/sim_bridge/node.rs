//! `sim_bridge`: the kinematic plant as a ROS 2 node, publishing what Gazebo
//! Harmonic + ros_gz_bridge would publish for the corridor robot.
//!
//! Publishes `/clock` (rosgraph_msgs/Clock), `/scan` (LaserScan, `base_scan`),
//! `/odom` (Odometry `odom`→`base_link`) and the same transform on `/tf`,
//! ground truth on `/oracle/odom` (Odometry, frame `world`, never on `/tf`),
//! `/gnss/fix` (NavSatFix, `gnss_link`) and `/imu/data` (Imu, `imu_link`)
//! when the robot file declares them (the same `Plant` sensors as an
//! in-process run: rates, noise, bias and the world's datum come from the
//! robot and world files), `/wheel/odom` (Odometry), and once at start the
//! REP-105 sensor frames on
//! `/tf_static` (`base_link` → `base_scan`, `gnss_link`, `imu_link`).
//! Subscribes `/cmd_vel` (geometry_msgs/Twist, or TwistStamped with
//! `cmd_vel_stamped: true`). Every topic can be remapped.
//!
//! Pacing (`real_time_factor`):
//! * `> 0`: free running, the plant is stepped so that sim time advances
//!   `real_time_factor` times as fast as wall time; the latest `/cmd_vel`
//!   received before a step is applied to that step.
//! * `0`: **lock-step**. The control instants are the plant steps whose end
//!   time `t` satisfies `t >= next`, with `next` starting at 0 and growing by
//!   `lockstep_period_s` at each instant (the in-process campaign's schedule).
//!   At a control instant the bridge publishes everything due at `t`
//!   (sensors, ground truth, then `/clock` = `t`), then blocks until it has
//!   received exactly one `/cmd_vel`, applies it, and steps on. The
//!   navigator publishes exactly one `/cmd_vel` per control tick, so each
//!   command answers the sensor data up to `t`, as in-process. No command
//!   within `lockstep_timeout_s` of wall time is an error (exit 1).
//!
//! Gate (`gate_topic`, empty by default: off): a process outside the
//! control loop that must act at the sim time of a ground-truth sample
//! (the resilience-test orchestrator, which sets a fault when a trigger over
//! ground truth fires) joins the loop: at every step that publishes ground
//! truth the bridge publishes `/oracle/odom` first, then waits (up to
//! `lockstep_timeout_s` wall) for a rosgraph_msgs/Clock on `gate_topic`
//! stamped at or after that step's time, and only then publishes the step's
//! sensors, `/tf` and `/clock`. So a fault set in answer to the sample of
//! `t` acts on the sensor messages of `t`, as in-process, whatever the wall
//! time jitter.
//!
//! Start: the bridge prints `ready` once its entities exist, then waits (up
//! to `start_timeout_s` wall) until `/oracle/odom`, `/scan` and `/odom` each
//! have a subscriber (and, in lock-step, `/cmd_vel` a publisher), pauses
//! `start_settle_s`, and starts stepping at sim time 0. With `start_service:
//! true` it also waits (same deadline) for a call of its `~/start` service
//! (std_srvs/Trigger, `/sim_bridge/start` by default): the campaign's
//! external-stack executor arms the run's faults first, then calls it, so
//! the first message of the run already goes through the faults.
//!
//! Reset (`~/reset`, kraken_interfaces/srv/ResetRun, `/sim_bridge/reset` by
//! default; REQ-GRAPH-RESET): the next run of a kept-running graph
//! (`breakbench campaign --keep-running`). At any time, stepping or
//! waiting, the bridge stops stepping, builds a fresh plant seeded with the
//! request's `seed` (the robot at its start pose, every sensor's noise
//! stream from the seed, as at start-up), puts sim time back to 0 and
//! answers; then it waits again as at start (peers, and the `~/start` call
//! with `start_service: true`), drops every `/cmd_vel` received before that
//! (the previous run's last answers) and steps from sim time 0, publishing
//! `/clock` = 0 first. `/clock` going back to 0 is what every node of ours
//! takes as the new run once its own `~/reset` was called (their sim clocks
//! never run backwards otherwise: `breakbench_ros::SimClock::reset`); so the
//! bridge must be reset first, and nothing of ours publishes `/clock`
//! between its reset and its next start.
//!
//! simulation_interfaces (issue 29, REQ-SIMIF-SERVE): the ROS 2 simulator
//! standard's ResetSimulation, StepSimulation, Get/SetSimulationState,
//! GetEntityState, GetEntities and GetSimulatorFeatures under
//! `service_prefix` (default `~`: `/sim_bridge/reset_simulation`, ...);
//! the state machine and every answer are the library's
//! ([`breakbench_sim_bridge::simif`]), `node/simif.rs` converts. Stopped
//! (launch state with `start_service: true`) → playing or paused is a start
//! as `~/start`; paused, the plant steps only on StepSimulation.
//!
//! Parameters: see the crate README ("Node"). Environment: `ROS_DOMAIN_ID`,
//! `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use breakbench_ros::{to_stamp, ResetRunSrv, RosArgs, RosEnv, RosNode, RosServer, Shutdown};
use breakbench_ros::{Publisher, RequestId, Subscription};
use breakbench_sim_bridge::plant::{odometry_msg, ODOM_FRAME};
use breakbench_sim_bridge::simif::ROBOT_ENTITY;
use breakbench_sim_bridge::tf::{odom_tf, static_sensor_tf};
use breakbench_sim_bridge::{Plant, PlantConfig, SimControl};
use breakbench_world::World;
use kraken_interfaces::ros::{
    Clock, Imu, LaserScan, NavSatFix, Odometry, TFMessage, Twist, TwistStamped,
};
use kraken_interfaces::{ResetRunRequest, ResetRunResponse};

mod bridge;
mod simif;

use bridge::{Bridge, Io};

const NODE_NAME: &str = "sim_bridge";
/// History depth of every publisher: a lock-step period or a burst of
/// free-running steps never holds more samples of one topic than this.
const PUB_DEPTH: usize = 100;
/// History depth of `/oracle/odom`: the oracle is not in the lock-step loop
/// and may fall behind a fast bridge; a reliable writer only keeps this many
/// unacknowledged samples, so it holds a whole 60 s mission at 50 Hz (3000)
/// with room to spare. Every ground-truth sample must reach the oracle.
const TRUTH_DEPTH: usize = 5000;

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "sim_bridge",
        "the embedded kinematic plant on ROS 2: /clock, /scan, /odom, /tf, /oracle/odom (ground truth) and the raw gnss/imu/wheel channels; subscribes /cmd_vel",
        "robot/breakbench_sim_bridge/README.md",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sim_bridge: error: {}", breakbench_ros::error_chain(&*e));
            ExitCode::FAILURE
        }
    }
}

/// The node's parameters, validated.
struct Params {
    world_file: PathBuf,
    robot_file: PathBuf,
    seed: u64,
    real_time_factor: f64,
    lockstep_period: Duration,
    lockstep_timeout: Duration,
    cmd_vel_stamped: bool,
    clock_period_ns: u64,
    wheel_period_ns: u64,
    start_timeout: Duration,
    start_settle: Duration,
    /// Serve `~/start` and wait for its call before stepping.
    start_service: bool,
    stop_at: Option<Duration>,
    /// Wait at each ground-truth step for a gate message on this topic.
    gate_topic: Option<String>,
    /// Namespace of the `simulation_interfaces` services (`~`: the node's).
    service_prefix: String,
    /// The robot's entity name (GetEntityState, GetEntities).
    entity_name: String,
    /// Publish ground truth on `/oracle/odom` (false: the campaign reads it
    /// through GetEntityState instead, REQ-SIMIF-TRUTH).
    publish_truth: bool,
}

fn positive(args: &RosArgs, name: &str, default: f64) -> Result<f64> {
    let v = args.param_f64(name, default)?;
    ensure!(
        v.is_finite() && v > 0.0,
        "parameter '{name}' must be > 0, got {v}"
    );
    Ok(v)
}

fn non_negative(args: &RosArgs, name: &str, default: f64) -> Result<f64> {
    let v = args.param_f64(name, default)?;
    ensure!(
        v.is_finite() && v >= 0.0,
        "parameter '{name}' must be >= 0, got {v}"
    );
    Ok(v)
}

/// A rate parameter as a period in whole steps of `step_ns`.
fn period_ns(args: &RosArgs, name: &str, default_hz: f64, step_ns: u64) -> Result<u64> {
    let hz = positive(args, name, default_hz)?;
    let ns = (1e9 / hz).round() as u64;
    ensure!(
        ns >= step_ns && ns.is_multiple_of(step_ns),
        "parameter '{name}' = {hz} Hz: the period {ns} ns must be a whole multiple of the plant step ({step_ns} ns)"
    );
    Ok(ns)
}

/// The `service_prefix` parameter as a namespace: empty is `~` (the
/// node's name); `/` is the root; otherwise it must start with `/` or `~`
/// and not end with `/`.
fn service_prefix(v: &str) -> Result<String> {
    if v.is_empty() {
        return Ok("~".into());
    }
    ensure!(
        v == "/" || ((v.starts_with('/') || v.starts_with('~')) && !v.ends_with('/')),
        "parameter 'service_prefix' = '{v}': give a namespace such as '/sim' or '~' (no trailing '/'), or leave it empty for the node's name"
    );
    Ok(v.into())
}

impl Params {
    fn from_args(args: &RosArgs, step_ns: u64) -> Result<Self> {
        // ROS integer parameters are int64: a u64 seed above i64::MAX (the
        // campaign's derived seeds) is passed as its two's-complement value.
        let seed = args.param_i64("seed", 0)?;
        let stop = non_negative(args, "stop_at_s", 0.0)?;
        let publish_truth = args.param_bool("publish_truth", true)?;
        let gate_topic = Some(args.param_string("gate_topic", "")?).filter(|t| !t.is_empty());
        ensure!(
            publish_truth || gate_topic.is_none(),
            "parameter 'gate_topic' needs 'publish_truth' = true (the gate waits at each ground-truth sample it publishes)"
        );
        Ok(Self {
            world_file: PathBuf::from(args.param_string("world_file", "config/corridor.yaml")?),
            robot_file: PathBuf::from(args.param_string("robot_file", "config/robot.yaml")?),
            seed: seed as u64,
            real_time_factor: non_negative(args, "real_time_factor", 1.0)?,
            lockstep_period: Duration::from_secs_f64(positive(args, "lockstep_period_s", 0.05)?),
            lockstep_timeout: Duration::from_secs_f64(positive(args, "lockstep_timeout_s", 5.0)?),
            cmd_vel_stamped: args.param_bool("cmd_vel_stamped", false)?,
            clock_period_ns: period_ns(args, "clock_rate_hz", 100.0, step_ns)?,
            wheel_period_ns: period_ns(args, "wheel_rate_hz", 50.0, step_ns)?,
            start_timeout: Duration::from_secs_f64(positive(args, "start_timeout_s", 20.0)?),
            start_settle: Duration::from_secs_f64(non_negative(args, "start_settle_s", 0.5)?),
            start_service: args.param_bool("start_service", false)?,
            stop_at: (stop > 0.0).then(|| Duration::from_secs_f64(stop)),
            gate_topic,
            service_prefix: service_prefix(&args.param_string("service_prefix", "")?)?,
            entity_name: args.param_string("entity_name", ROBOT_ENTITY)?,
            publish_truth,
        })
    }
}

enum CmdSub {
    Twist(Subscription<Twist>),
    Stamped(Subscription<TwistStamped>),
}

impl CmdSub {
    /// The next command already received, if any.
    fn try_take(&self) -> Option<Twist> {
        match self {
            CmdSub::Twist(s) => s.take().ok().flatten(),
            CmdSub::Stamped(s) => s.take().ok().flatten().map(|t| t.twist),
        }
    }
    /// Waits up to `timeout` for the next command (`None` also at shutdown).
    fn take_blocking(&self, timeout: Duration, shutdown: &Shutdown) -> Option<Twist> {
        if let Some(t) = self.try_take() {
            return Some(t);
        }
        smol::block_on(async {
            let next = async {
                match self {
                    CmdSub::Twist(s) => s.async_take().await.ok(),
                    CmdSub::Stamped(s) => s.async_take().await.ok().map(|t| t.twist),
                }
            };
            futures::pin_mut!(next);
            let stop =
                futures::future::select(Box::pin(smol::Timer::after(timeout)), shutdown.wait());
            match futures::future::select(next, stop).await {
                futures::future::Either::Left((t, _)) => t,
                futures::future::Either::Right(_) => None,
            }
        })
    }
}

/// Waits up to `timeout` for a gate message stamped at or after `t`
/// (`false` on timeout or at shutdown).
fn wait_gate(
    gate: &Subscription<Clock>,
    t: Duration,
    timeout: Duration,
    shutdown: &Shutdown,
) -> bool {
    let reached = |c: &Clock| {
        let s = c.clock.as_secs_f64();
        s + 1e-9 >= t.as_secs_f64()
    };
    while let Ok(Some(c)) = gate.take() {
        if reached(&c) {
            return true;
        }
    }
    smol::block_on(async {
        let next = async {
            loop {
                match gate.async_take().await {
                    Ok(c) if reached(&c) => return true,
                    Ok(_) => {}
                    Err(_) => return false,
                }
            }
        };
        futures::pin_mut!(next);
        let stop = futures::future::select(Box::pin(smol::Timer::after(timeout)), shutdown.wait());
        match futures::future::select(next, stop).await {
            futures::future::Either::Left((r, _)) => r,
            futures::future::Either::Right(_) => false,
        }
    })
}

/// A wheel-odometry message (`odom` → `base_link`) from the plant's state.
fn wheel_odometry(plant: &Plant) -> Odometry {
    odometry_msg(
        to_stamp(plant.now()),
        ODOM_FRAME,
        &plant.odom_pose(),
        plant.wheel_velocity(),
    )
}

struct Pubs {
    clock: Publisher<Clock>,
    scan: Publisher<LaserScan>,
    odom: Publisher<Odometry>,
    tf: Publisher<TFMessage>,
    tf_static: Publisher<TFMessage>,
    /// `/oracle/odom` (`publish_truth`).
    truth: Option<Publisher<Odometry>>,
    gnss: Publisher<NavSatFix>,
    imu: Publisher<Imu>,
    wheel: Publisher<Odometry>,
}

fn publish<M>(p: &Publisher<M>, what: &str, m: M)
where
    M: serde::Serialize + std::fmt::Debug,
{
    if let Err(e) = p.publish(m) {
        tracing::warn!("{what}: publish failed: {e}");
    }
}

/// A `~/reset` request received, if any.
fn take_reset(srv: &RosServer<ResetRunSrv>) -> Option<(RequestId, ResetRunRequest)> {
    match srv.receive_request() {
        Ok(Some((id, req))) => Some((id, req)),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!("~/reset: bad request {e}");
            None
        }
    }
}

/// The plant of the next run (`~/reset`): fresh, seeded with the request's
/// seed, the robot at its start pose, sim time 0; the request is answered.
///
/// # Errors
/// The plant cannot be built (it was built from the same files at start-up,
/// so only a changed file fails).
fn reset_plant(
    world: &World,
    robot: &PlantConfig,
    srv: &RosServer<ResetRunSrv>,
    id: RequestId,
    req: &ResetRunRequest,
) -> Result<Plant> {
    let plant = Plant::new(world, robot, req.seed, &robot.sensor_channels());
    let resp = match &plant {
        Ok(_) => ResetRunResponse {
            success: true,
            message: format!(
                "plant reset for run {} (seed {}); sim time 0, waiting for the start",
                req.run_id, req.seed
            ),
        },
        Err(e) => ResetRunResponse {
            success: false,
            message: format!("plant not rebuilt: {e}"),
        },
    };
    tracing::info!(run_id = %req.run_id, seed = req.seed, "reset: {}", resp.message);
    if let Err(e) = srv.send_response(id, resp) {
        tracing::warn!("~/reset: response not sent: {e}");
    }
    Ok(plant?)
}

/// Reads the parameters and files, builds the plant and the node's
/// entities, publishes `/tf_static`, then runs the [`Bridge`].
fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let world_file = PathBuf::from(args.param_string("world_file", "config/corridor.yaml")?);
    let robot_file = PathBuf::from(args.param_string("robot_file", "config/robot.yaml")?);
    let world = World::load(&world_file)
        .with_context(|| format!("parameter 'world_file' = {}", world_file.display()))?;
    let robot = PlantConfig::load(&robot_file)
        .with_context(|| format!("parameter 'robot_file' = {}", robot_file.display()))?;
    let timing = robot.timing(&robot_file.display().to_string())?;
    let p = Params::from_args(&args, timing.step_ns)?;
    // The node publishes every sensor the robot file declares.
    let plant =
        Plant::new(&world, &robot, p.seed, &robot.sensor_channels()).with_context(|| {
            format!(
                "plant from {} and {}",
                p.world_file.display(),
                p.robot_file.display()
            )
        })?;
    let lockstep = p.real_time_factor == 0.0;
    let (entity_name, run_seed) = (p.entity_name.clone(), p.seed);

    let mut node = RosNode::new(env, args)?;
    let io = Io::new(&mut node, &p, lockstep)?;
    let start_called = !p.start_service;
    let _spinner = node.spawn_spinner()?;
    // Once: transient local keeps it for every later subscriber.
    publish(&io.pubs.tf_static, "/tf_static", static_sensor_tf());
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        world = %p.world_file.display(),
        robot = %p.robot_file.display(),
        seed = p.seed,
        real_time_factor = p.real_time_factor,
        lockstep,
        oracle_odom = %node.args.resolve("/oracle/odom"),
        scan = %node.args.resolve("/scan"),
        odom = %node.args.resolve("/odom"),
        "ready"
    );
    // A local, not a temporary of the tail expression: the entities (in
    // `io`) must be dropped before `node` (RosNode's Drop deletes the
    // participant).
    let mut bridge = Bridge {
        node: &node,
        env,
        io,
        p,
        world,
        robot,
        lockstep,
        shutdown,
        plant,
        start_called,
        ctl: SimControl::new(&entity_name, !start_called),
        run_seed,
        pending_step: None,
    };
    bridge.run()
}
