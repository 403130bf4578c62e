//! `simple_navigator`: the campaign's controller under test
//! ([`breakbench_navigator::Navigator`], unchanged) as a ROS 2 node.
//!
//! Subscribes `/odom` (nav_msgs/Odometry) and `/scan` (sensor_msgs/LaserScan),
//! and with `pose_source: estimator` in its navigator file also
//! `/odometry/filtered` (nav_msgs/Odometry, pose in `map`: the EKF's output,
//! `ekf_node` of breakbench_estimator), publishes `/cmd_vel` (geometry_msgs/Twist, or TwistStamped with
//! `cmd_vel_stamped: true`) once per control tick, and its self-report on
//! `/navigator/self_report` (std_msgs/String `success` / `failure`), repeated
//! at `self_report_rate_hz` (wall) once decided so a late subscriber gets it.
//! It never sees ground truth.
//!
//! Sensor health ([`breakbench_navigator::health`], the in-process code):
//! every `/odom` and `/scan` is recorded with its receive time on the
//! navigator's clock; a stale input stops the robot.
//!
//! Pose source (the navigator file's `pose_source`, REQ-EKF-NODE):
//! `wheel_odometry` drives from `/odom`; `estimator` drives from
//! `/odometry/filtered` (as the in-process stack drives from the
//! estimator's `map`-frame pose), heading for the world goal centre in `map`
//! (not the goal seen from the start pose in `odom`); `/odom` still feeds the
//! sensor health, as in-process. What the navigator says
//! is published after each tick: its log records on `/rosout`
//! (rcl_interfaces/Log, RELIABLE + TRANSIENT_LOCAL + KEEP_LAST 1000, rcl's
//! rosout QoS; the same lines go to stderr through tracing at their level)
//! and its `/diagnostics` (diagnostic_msgs/DiagnosticArray, RELIABLE,
//! KEEP_LAST 10). Stamps are on the node's clock (sim time under
//! `use_sim_time`).
//!
//! Control ticks: at the first clock reading `t >= next` (`next` from 0 in
//! sim time, growing by `1 / control_rate_hz` per tick: the in-process
//! campaign's schedule). Input order, as in-process: every pose message
//! updates the pose on arrival; scans are queued and planned at the tick,
//! against the latest pose. Input barrier: `/odom` and `/scan` travel through the fault
//! injector, one hop more than `/clock`, so before ticking at `t` the node
//! waits until it holds the newest message of each stream that is due by
//! `t` (the pose stream and `/scan`): a message stamped later than `t - P`, where `P` is the stream's
//! period (the smallest stamp step seen so far); while a period is not yet
//! known (fewer than two stamps), a message stamped at `t` or later. It never
//! waits longer than `input_wait_max_s` (a delayed or dropped stream, or a
//! stream with nothing due yet at the first ticks). No wall-time guess is
//! involved (a wall quiet time of 2 ms before the periods were known let
//! the ticks at 0.1 s and 0.2 s go without the scan due then, the run's
//! first two at 10 Hz, when the injector relayed it later than that, so one
//! graph run in several differed), so against a lock-step
//! sim_bridge this reproduces the in-process order of events exactly for
//! undelayed inputs, whatever the machine's load.
//!
//! Parameters: `navigator_file` (string, `config/navigator.yaml`),
//! `world_file` (string, `config/corridor.yaml`: the goal in `odom` is the
//! world's goal centre seen from the start pose, as in the campaign),
//! `goal_x_m`/`goal_y_m` (double, override the goal in `odom`),
//! `pose_source` (string, `""`: the navigator file's; `wheel_odometry` or
//! `estimator` override it),
//! `input_wait_max_s` (double, 0.05),
//! `self_report_rate_hz` (double, 1.0),
//! `cmd_vel_stamped` (bool, false), `use_sim_time` (bool, false),
//! `open_loop_linear_m_s` (double, 0.0: off) and `open_loop_duration_s`
//! (double, 0.0): the campaign's positive canary, a harness check (see
//! below).
//!
//! Reset (`~/reset`, kraken_interfaces/srv/ResetRun, REQ-GRAPH-RESET): the
//! next run of a kept-running graph: a fresh navigator and control schedule,
//! the sim clock back to "no time yet" (the plant restarts `/clock` at 0),
//! queued inputs dropped (docs/simple_navigator.md, "Services").
//!
//! Positive canary: with `open_loop_linear_m_s` ≠ 0 the node drives the
//! in-process canary's controller ([`OpenLoop`]: straight ahead at that
//! speed for `open_loop_duration_s` of its clock, then stop) instead of the
//! navigator, and says nothing (no self-report, `/rosout` or
//! `/diagnostics`), as in-process. The graph executor sets it for the
//! canary run of a study; the oracle must judge that run a safety violation.
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use breakbench_navigator::controller::{Controller, OpenLoop};
use breakbench_navigator::health::Sensor;
use breakbench_navigator::{Navigator, NavigatorConfig, PoseSource};
use breakbench_ros::ros2_client::qos::{Durability, History};
use breakbench_ros::ros2_client::{Publisher, RmwRequestId};
use breakbench_ros::{
    qos, to_stamp, Msg, NodeClock, ResetRunSrv, RosArgs, RosEnv, RosNode, Shutdown, SimClock,
};
use breakbench_world::World;
use futures::stream::{select_all, LocalBoxStream, StreamExt};
use kraken_interfaces::ros::{
    Clock, DiagnosticArray, Header, LaserScan, Log, Odometry, StringMsg, Time, Twist, TwistStamped,
    Vector3,
};
use kraken_interfaces::{ResetRunRequest, ResetRunResponse, SelfReport};

const NODE_NAME: &str = "simple_navigator";

/// Stamps of one input stream: the newest stamp and the smallest step
/// between consecutive stamps (the stream's period), in ns.
#[derive(Default)]
struct StampStream {
    last_ns: Option<i64>,
    period_ns: Option<i64>,
}

impl StampStream {
    fn saw(&mut self, ns: i64) {
        if let Some(l) = self.last_ns {
            let d = ns - l;
            if d > 0 {
                self.period_ns = Some(self.period_ns.map_or(d, |p| p.min(d)));
            }
        }
        self.last_ns = Some(self.last_ns.map_or(ns, |l| l.max(ns)));
    }
    /// Whether the newest message due by `t_ns` is in: one stamped later
    /// than `t_ns - period`; while the period is unknown (fewer than two
    /// stamps), only one stamped at `t_ns` or later proves it.
    fn fresh(&self, t_ns: i64) -> bool {
        match (self.last_ns, self.period_ns) {
            (Some(l), Some(p)) => l > t_ns - p,
            (Some(l), None) => l >= t_ns,
            (None, _) => false,
        }
    }
}
const DEPTH: usize = 100;
/// rcl's `/rosout` history depth (`rcl_qos_profile_rosout_default`).
const ROSOUT_DEPTH: usize = 1000;

/// `t` (the navigator's clock) on the node's clock.
fn on_node_clock(t: Time, epoch: Duration) -> Time {
    Time::from_nanos(t.as_nanos().saturating_add(epoch.as_nanos() as i64))
}

/// A `header.stamp` (node clock) on the navigator's clock (saturating at its start).
fn on_nav_clock(t: Time, epoch: Duration) -> Duration {
    Duration::from_nanos(t.as_nanos().max(0) as u64).saturating_sub(epoch)
}

/// Writes one of the navigator's log records to stderr at its level
/// (`/rosout` gets the record itself).
fn trace_log(l: &Log) {
    match l.level {
        Log::FATAL | Log::ERROR => tracing::error!(logger = %l.name, "{}", l.msg),
        Log::WARN => tracing::warn!(logger = %l.name, "{}", l.msg),
        Log::INFO => tracing::info!(logger = %l.name, "{}", l.msg),
        _ => tracing::debug!(logger = %l.name, "{}", l.msg),
    }
}

// Odometry arrives at 50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
enum Event {
    /// `/odom` (wheel odometry).
    Odom(Odometry),
    /// `/odometry/filtered` (with `pose_source: estimator`).
    Pose(Odometry),
    Scan(LaserScan),
    Clock(Clock),
    Reset(RmwRequestId, ResetRunRequest),
}

enum CmdPub {
    Twist(Publisher<Twist>),
    Stamped(Publisher<TwistStamped>),
}

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "simple_navigator",
        "the controller under test: drives to the goal from /odom, avoids obstacles from /scan, publishes /cmd_vel and its self-report",
        "docs/simple_navigator.md",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "simple_navigator: error: {}",
                breakbench_ros::error_chain(&*e)
            );
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let nav_file = PathBuf::from(args.param_string("navigator_file", "config/navigator.yaml")?);
    let mut cfg = NavigatorConfig::load(&nav_file)
        .with_context(|| format!("parameter 'navigator_file' = {}", nav_file.display()))?;
    match args.param_string("pose_source", "")?.as_str() {
        "" => {}
        "wheel_odometry" => cfg.pose_source = PoseSource::WheelOdometry,
        "estimator" => cfg.pose_source = PoseSource::Estimator,
        other => bail!(
            "parameter 'pose_source' = {other:?}: expected \"\" (the navigator file's), \"wheel_odometry\" or \"estimator\""
        ),
    }
    // With the estimator, the pose comes from ekf_node's odometry/filtered
    // (map frame) and the goal is the world goal centre in map, as in the
    // in-process stack (breakbench_navigator::stack).
    let estimator = cfg.pose_source == PoseSource::Estimator;
    let goal = match (args.params.get("goal_x_m"), args.params.get("goal_y_m")) {
        (Some(_), Some(_)) => [
            args.param_f64("goal_x_m", 0.0)?,
            args.param_f64("goal_y_m", 0.0)?,
        ],
        (None, None) => {
            let wf = PathBuf::from(args.param_string("world_file", "config/corridor.yaml")?);
            let world = World::load(&wf)
                .with_context(|| format!("parameter 'world_file' = {}", wf.display()))?;
            if estimator {
                world.goal.center_m
            } else {
                world.goal_in_odom()
            }
        }
        _ => bail!("parameters 'goal_x_m' and 'goal_y_m' go together"),
    };
    ensure!(
        goal.iter().all(|v| v.is_finite()),
        "goal {goal:?} is not finite"
    );
    let wait_max = args.param_f64("input_wait_max_s", 0.05)?;
    ensure!(
        wait_max.is_finite() && wait_max >= 0.0,
        "parameter 'input_wait_max_s' must be >= 0, got {wait_max}"
    );
    let wait_max = Duration::from_secs_f64(wait_max);
    let report_hz = args.param_f64("self_report_rate_hz", 1.0)?;
    ensure!(
        report_hz.is_finite() && report_hz > 0.0,
        "parameter 'self_report_rate_hz' must be > 0, got {report_hz}"
    );
    let stamped = args.param_bool("cmd_vel_stamped", false)?;
    let open_loop_m_s = args.param_f64("open_loop_linear_m_s", 0.0)?;
    let open_loop_s = args.param_f64("open_loop_duration_s", 0.0)?;
    ensure!(
        open_loop_m_s.is_finite() && open_loop_s.is_finite() && open_loop_s >= 0.0,
        "parameters 'open_loop_linear_m_s' = {open_loop_m_s} and 'open_loop_duration_s' = {open_loop_s}: finite, duration >= 0"
    );
    let fresh_open_loop =
        || (open_loop_m_s != 0.0).then(|| OpenLoop::new(open_loop_m_s, open_loop_s));
    let mut open_loop = fresh_open_loop();
    let report_period = Duration::from_secs_f64(1.0 / report_hz);
    let period = cfg.control_period();

    let mut node = RosNode::new(env, args)?;
    let deep = || qos::publish().history(History::KeepLast { depth: DEPTH });
    let odom_sub = node.subscription::<Odometry>("/odom", deep())?;
    let filtered_sub = match estimator {
        true => Some(node.subscription::<Odometry>("/odometry/filtered", deep())?),
        false => None,
    };
    let scan_sub = node.subscription::<LaserScan>("/scan", qos::subscribe(10))?;
    // Our own /clock subscription: BEST_EFFORT (so it matches best-effort
    // /clock publishers too: rclcpp's ClockQoS, `ros2 bag play --clock`,
    // Gazebo's bridge; a reliable reader never matches those) and deep, so
    // that a burst of lock-step instants is queued, not overwritten.
    let sim = match &node.clock {
        NodeClock::Sim(c) => Some(c.clone()),
        NodeClock::Wall => None,
    };
    let clock_sub = match sim {
        Some(_) => Some(node.subscription::<Clock>("/clock", qos::subscribe(DEPTH))?),
        None => None,
    };
    let cmd_pub = if stamped {
        CmdPub::Stamped(node.publisher("/cmd_vel", deep())?)
    } else {
        CmdPub::Twist(node.publisher("/cmd_vel", deep())?)
    };
    let report_pub = node.publisher::<StringMsg>("/navigator/self_report", qos::publish())?;
    let diag_pub = node.publisher::<DiagnosticArray>("/diagnostics", qos::publish())?;
    let rosout_pub = node.publisher::<Log>(
        "/rosout",
        qos::publish()
            .durability(Durability::TransientLocal)
            .history(History::KeepLast {
                depth: ROSOUT_DEPTH,
            }),
    )?;
    let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
    let _spinner = node.spawn_spinner()?;
    let clock = node.clock.clone();
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        navigator = %nav_file.display(),
        goal_odom_m = ?goal,
        sim_time = sim.is_some(),
        odom = %node.args.resolve("/odom"),
        pose = %node.args.resolve(if estimator { "/odometry/filtered" } else { "/odom" }),
        scan = %node.args.resolve("/scan"),
        cmd_vel = %node.args.resolve("/cmd_vel"),
        "ready"
    );

    let mut streams: Vec<LocalBoxStream<'_, Event>> = vec![
        odom_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Odom(m))))
            .boxed_local(),
        scan_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Scan(m))))
            .boxed_local(),
    ];
    if let Some(f) = &filtered_sub {
        streams.push(
            f.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Pose(m))))
                .boxed_local(),
        );
    }
    if let Some(c) = &clock_sub {
        streams.push(
            c.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Clock(m))))
                .boxed_local(),
        );
    }
    streams.push(
        reset_srv
            .receive_request_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(id, Msg(req))| Event::Reset(id, req))))
            .boxed_local(),
    );
    let mut events = shutdown.until(select_all(streams));

    let mut nav = Navigator::new(cfg.clone(), goal);
    // Sim time runs from 0; on wall time the navigator's clock starts now.
    let mut epoch = if sim.is_some() {
        Duration::ZERO
    } else {
        clock.now()
    };
    let mut next_control = Duration::ZERO;
    let mut pending: Option<Duration> = None;
    let mut scans: Vec<LaserScan> = Vec::new();
    let mut next_report: Option<Instant> = None;
    let mut ticks = 0u64;
    // The pose stream of the input barrier: /odom, or /odometry/filtered.
    let mut odom_stream = StampStream::default();
    let mut scan_stream = StampStream::default();
    let mut pending_since = Instant::now();

    smol::block_on(async {
        loop {
            let wall = Instant::now();
            let mut deadline = wall + Duration::from_millis(100);
            if let Some(r) = next_report {
                deadline = deadline.min(r);
            }
            if pending.is_some() {
                deadline = deadline.min(pending_since + wait_max);
            } else if sim.is_none() {
                let now = clock.now() - epoch;
                deadline = deadline.min(wall + next_control.saturating_sub(now));
            }
            let ev = {
                let next = events.next();
                futures::pin_mut!(next);
                let timer = smol::Timer::at(deadline);
                match futures::future::select(next, Box::pin(timer)).await {
                    futures::future::Either::Left((Some(ev), _)) => Some(ev),
                    futures::future::Either::Left((None, _)) if shutdown.is_requested() => {
                        return Ok(())
                    }
                    futures::future::Either::Left((None, _)) => bail!("input streams ended"),
                    futures::future::Either::Right(_) => None,
                }
            };
            match ev {
                Some(Event::Odom(o)) => {
                    let rx = clock.now().saturating_sub(epoch);
                    let stamp = on_nav_clock(o.header.stamp, epoch);
                    nav.health_mut().on_message(Sensor::Odom, rx, stamp);
                    if !estimator {
                        odom_stream.saw(o.header.stamp.as_nanos());
                        nav.on_odom(&o);
                    }
                }
                Some(Event::Pose(o)) => {
                    odom_stream.saw(o.header.stamp.as_nanos());
                    nav.on_odom(&o);
                }
                Some(Event::Scan(s)) => {
                    scan_stream.saw(s.header.stamp.as_nanos());
                    let rx = clock.now().saturating_sub(epoch);
                    let stamp = on_nav_clock(s.header.stamp, epoch);
                    nav.health_mut().on_message(Sensor::Scan, rx, stamp);
                    scans.push(s);
                }
                Some(Event::Clock(c)) => {
                    if let Some(s) = &sim {
                        SimClock::update(s, &c);
                    }
                }
                Some(Event::Reset(id, req)) => {
                    // The next run of a kept-running graph (REQ-GRAPH-RESET):
                    // a fresh controller and schedule, as at start-up; the
                    // inputs already queued are the previous run's.
                    while let Ok(Some(_)) = odom_sub.take() {}
                    while let Ok(Some(_)) = scan_sub.take() {}
                    if let Some(f) = &filtered_sub {
                        while let Ok(Some(_)) = f.take() {}
                    }
                    if let Some(c) = &clock_sub {
                        while let Ok(Some(_)) = c.take() {}
                    }
                    if let Some(s) = &sim {
                        s.reset();
                    }
                    nav = Navigator::new(cfg.clone(), goal);
                    open_loop = fresh_open_loop();
                    epoch = if sim.is_some() {
                        Duration::ZERO
                    } else {
                        clock.now()
                    };
                    next_control = Duration::ZERO;
                    pending = None;
                    scans.clear();
                    next_report = None;
                    ticks = 0;
                    odom_stream = StampStream::default();
                    scan_stream = StampStream::default();
                    tracing::info!(run_id = %req.run_id, "reset: a fresh controller");
                    let resp = ResetRunResponse {
                        success: true,
                        message: format!("a fresh controller for run {}", req.run_id),
                    };
                    if let Err(e) = reset_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("~/reset: response not sent: {e:?}");
                    }
                    continue;
                }
                None => {}
            }
            let now = clock.now().saturating_sub(epoch);
            if pending.is_none()
                && now >= next_control
                && (sim.is_none() || sim.as_ref().is_some_and(|s| s.has_time()))
            {
                pending = Some(now);
                pending_since = Instant::now();
                while next_control <= now {
                    next_control += period;
                }
            }
            if let Some(t) = pending {
                let t_ns = (t + epoch).as_nanos() as i64;
                let w = Instant::now();
                let ready = (odom_stream.fresh(t_ns) && scan_stream.fresh(t_ns))
                    || w >= pending_since + wait_max;
                if ready {
                    let c = match &mut open_loop {
                        Some(canary) => {
                            scans.clear();
                            canary.tick(t)
                        }
                        None => {
                            for s in scans.drain(..) {
                                nav.on_scan(&s);
                            }
                            nav.tick(t)
                        }
                    };
                    let twist = Twist {
                        linear: Vector3 {
                            x: c.linear_m_s,
                            y: 0.0,
                            z: 0.0,
                        },
                        angular: Vector3 {
                            x: 0.0,
                            y: 0.0,
                            z: c.angular_rad_s,
                        },
                    };
                    let r = match &cmd_pub {
                        CmdPub::Twist(p) => p.publish(twist).map_err(|e| format!("{e:?}")),
                        CmdPub::Stamped(p) => p
                            .publish(TwistStamped {
                                header: Header {
                                    stamp: to_stamp(t + epoch),
                                    frame_id: "base_link".into(),
                                },
                                twist,
                            })
                            .map_err(|e| format!("{e:?}")),
                    };
                    if let Err(e) = r {
                        tracing::warn!("/cmd_vel: publish failed: {e}");
                    }
                    // The canary says nothing (its navigator never ticks).
                    let (logs, diagnostics) = match open_loop {
                        Some(_) => (Vec::new(), Vec::new()),
                        None => (
                            nav.health_mut().take_logs(),
                            nav.health_mut().take_diagnostics(),
                        ),
                    };
                    for mut l in logs {
                        trace_log(&l);
                        l.stamp = on_node_clock(l.stamp, epoch);
                        if let Err(e) = rosout_pub.publish(l) {
                            tracing::warn!("/rosout: publish failed: {e:?}");
                        }
                    }
                    for mut a in diagnostics {
                        a.header.stamp = on_node_clock(a.header.stamp, epoch);
                        if let Err(e) = diag_pub.publish(a) {
                            tracing::warn!("/diagnostics: publish failed: {e:?}");
                        }
                    }
                    ticks += 1;
                    pending = None;
                    if next_report.is_none() {
                        if let Some((r, at)) = nav.self_report() {
                            tracing::info!(report = ?r, at_s = at.as_secs_f64(), ticks, "self-report");
                            next_report = Some(Instant::now());
                        }
                    }
                }
            }
            if let (Some(r), Some((rep, _))) = (next_report, nav.self_report()) {
                if Instant::now() >= r {
                    let data = match rep {
                        SelfReport::Success => "success",
                        SelfReport::Failure => "failure",
                        SelfReport::None => "none",
                    };
                    if let Err(e) = report_pub.publish(StringMsg { data: data.into() }) {
                        tracing::warn!("/navigator/self_report: publish failed: {e:?}");
                    }
                    next_report = Some(r + report_period);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::StampStream;

    const MS: i64 = 1_000_000;

    #[test]
    fn barrier_waits_for_the_newest_message_due() {
        // Odometry at 50 Hz (20 ms): ticks at 50 ms and 100 ms of the campaign's schedule.
        let mut odom = StampStream::default();
        assert!(!odom.fresh(0), "nothing received: not in");
        // Period unknown (one stamp): only a message stamped at the tick or
        // later proves the newest due is in (no wall-time guess).
        odom.saw(0);
        assert!(odom.fresh(0));
        assert!(!odom.fresh(MS), "one stamp before the tick proves nothing");
        odom.saw(20 * MS);
        odom.saw(40 * MS);
        // Due by 50 ms: the 40 ms message (40 > 50 - 20).
        assert!(odom.fresh(50 * MS));
        // Due by 100 ms: the 100 ms message; 80 ms is not enough (80 > 100 - 20 is false).
        odom.saw(60 * MS);
        odom.saw(80 * MS);
        assert!(!odom.fresh(100 * MS));
        odom.saw(100 * MS);
        assert!(odom.fresh(100 * MS));
        // A lost message does not widen the period: the smallest step is kept.
        odom.saw(140 * MS);
        assert_eq!(odom.period_ns, Some(20 * MS));
        // An out-of-order (older) stamp does not move the newest one back.
        odom.saw(120 * MS);
        assert_eq!(odom.last_ns, Some(140 * MS));
    }
}
