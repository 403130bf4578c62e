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
//! `t` (the pose stream and `/scan`): one of the last messages received
//! stamped in `(t - P, t]`, where `P` is the stream's period (the smallest
//! stamp step seen so far); while a period is not yet known (fewer than two
//! stamps), a message stamped at `t` or later. A stamp later than `t`
//! proves nothing (a `timestamp_jump` fault's lie: before this rule the
//! barrier let every tick of such a fault, and the tick of its clear, go
//! without waiting, and the graph then differed from in-process by more
//! than a control period in about one CI run in ten). It never
//! waits longer than `input_wait_max_s` (a delayed or dropped stream, a
//! stream whose stamps lie, or a stream with nothing due yet at the first
//! ticks). No wall-time guess is
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

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use breakbench_ros::{qos, NodeClock, ResetRunSrv, RosArgs, RosEnv, RosNode, Shutdown};
use futures::stream::{select_all, LocalBoxStream, StreamExt};
use kraken_interfaces::ros::{Clock, DiagnosticArray, LaserScan, Log, Odometry, StringMsg, Time};

mod handlers;
mod params;

use handlers::{CmdPub, Event, Io, NavNode};
use params::Params;

const NODE_NAME: &str = "simple_navigator";

/// Stamps of one input stream: the newest stamp, the smallest step
/// between consecutive stamps (the stream's period) and the stamps of the
/// last [`RECENT`] messages received, in ns.
#[derive(Default)]
struct StampStream {
    last_ns: Option<i64>,
    period_ns: Option<i64>,
    recent: std::collections::VecDeque<i64>,
}

/// Stamps kept per stream for the barrier: enough for a reordered or
/// duplicated message next to the one due.
const RECENT: usize = 8;

impl StampStream {
    fn saw(&mut self, ns: i64) {
        if let Some(l) = self.last_ns {
            let d = ns - l;
            if d > 0 {
                self.period_ns = Some(self.period_ns.map_or(d, |p| p.min(d)));
            }
        }
        self.last_ns = Some(self.last_ns.map_or(ns, |l| l.max(ns)));
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(ns);
    }
    /// Whether the newest message due by `t_ns` is in: one stamped in
    /// `(t_ns - period, t_ns]`; while the period is unknown (fewer than two
    /// stamps), only one stamped at `t_ns` or later proves it. A stamp later
    /// than the tick proves nothing: in lock-step no message of the tick's
    /// step is stamped in the future, so it is a stamp that lies (a
    /// `timestamp_jump` fault), and the barrier waits for the message due,
    /// as it does for a stale stamp.
    fn fresh(&self, t_ns: i64) -> bool {
        match (self.last_ns, self.period_ns) {
            (Some(_), Some(p)) => self.recent.iter().any(|&s| s > t_ns - p && s <= t_ns),
            (Some(l), None) => l >= t_ns,
            (None, _) => false,
        }
    }
}
const DEPTH: usize = 100;

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
    let p = Params::read(&args)?;
    let mut node = RosNode::new(env, args)?;
    // The entities after the node: dropped before it.
    let io = open(&mut node, &p)?;
    let _spinner = node.spawn_spinner()?;
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        navigator = %p.nav_file.display(),
        goal_odom_m = ?p.goal,
        sim_time = matches!(node.clock, NodeClock::Sim(_)),
        odom = %node.args.resolve("/odom"),
        pose = %node.args.resolve(if p.estimator { "/odometry/filtered" } else { "/odom" }),
        scan = %node.args.resolve("/scan"),
        cmd_vel = %node.args.resolve("/cmd_vel"),
        "ready"
    );
    let mut events = shutdown.until(select_all(streams(&io)));
    let mut nav = NavNode::new(&p, &io, node.clock.clone());
    smol::block_on(async {
        loop {
            let ev = {
                let next = events.next();
                futures::pin_mut!(next);
                let timer = smol::Timer::at(nav.deadline());
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
                // A reset starts the schedule afresh: nothing more this wake-up.
                Some(Event::Reset(id, req)) => {
                    nav.on_event(Event::Reset(id, req));
                    continue;
                }
                Some(ev) => nav.on_event(ev),
                None => {}
            }
            nav.after_event();
        }
    })
}

/// The node's subscriptions, publishers and `~/reset` server, in the order
/// they were always created.
fn open(node: &mut RosNode, p: &Params) -> Result<Io> {
    let deep = || qos::publish().depth(DEPTH);
    let odom_sub = node.subscription::<Odometry>("/odom", deep())?;
    let filtered_sub = match p.estimator {
        true => Some(node.subscription::<Odometry>("/odometry/filtered", deep())?),
        false => None,
    };
    let scan_sub = node.subscription::<LaserScan>("/scan", qos::subscribe(10))?;
    // Our own /clock subscription: BEST_EFFORT (so it matches best-effort
    // /clock publishers too: rclcpp's ClockQoS, `ros2 bag play --clock`,
    // Gazebo's bridge; a reliable reader never matches those) and deep, so
    // that a burst of lock-step instants is queued, not overwritten.
    let clock_sub = match &node.clock {
        NodeClock::Sim(_) => Some(node.subscription::<Clock>("/clock", qos::subscribe(DEPTH))?),
        NodeClock::Wall => None,
    };
    let cmd_pub = if p.stamped {
        CmdPub::Stamped(node.publisher("/cmd_vel", deep())?)
    } else {
        CmdPub::Twist(node.publisher("/cmd_vel", deep())?)
    };
    let report_pub = node.publisher::<StringMsg>("/navigator/self_report", qos::publish())?;
    let diag_pub = node.publisher::<DiagnosticArray>("/diagnostics", qos::publish())?;
    let rosout_pub = node.publisher::<Log>("/rosout", qos::rosout())?;
    let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
    Ok(Io {
        odom_sub,
        filtered_sub,
        scan_sub,
        clock_sub,
        cmd_pub,
        report_pub,
        diag_pub,
        rosout_pub,
        reset_srv,
    })
}

/// Every input of `io` as one stream of [`Event`]s, in the old order:
/// /odom, /scan, /odometry/filtered, /clock, ~/reset.
fn streams(io: &Io) -> Vec<LocalBoxStream<'_, Event>> {
    let mut streams: Vec<LocalBoxStream<'_, Event>> = vec![
        io.odom_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Odom)))
            .boxed_local(),
        io.scan_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Scan)))
            .boxed_local(),
    ];
    if let Some(f) = &io.filtered_sub {
        streams.push(
            f.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(Event::Pose)))
                .boxed_local(),
        );
    }
    if let Some(c) = &io.clock_sub {
        streams.push(
            c.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(Event::Clock)))
                .boxed_local(),
        );
    }
    streams.push(
        io.reset_srv
            .receive_request_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(id, req)| Event::Reset(id, req))))
            .boxed_local(),
    );
    streams
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
        // ... and still proves the message due by 130 ms is in.
        assert!(odom.fresh(130 * MS));
    }

    #[test]
    fn a_stamp_in_the_future_proves_nothing() {
        // Scans at 10 Hz; from 0.3 s every stamp 0.25 s late (a
        // timestamp_jump fault): a scan stamped 0.55 s at the tick of
        // 0.3 s does not prove that the scan of 0.3 s is in.
        let mut scan = StampStream::default();
        for t in [0, 100, 200] {
            scan.saw(t * MS);
        }
        assert!(scan.fresh(250 * MS));
        scan.saw(550 * MS);
        assert!(!scan.fresh(300 * MS), "the jumped stamp proves nothing");
        assert!(!scan.fresh(350 * MS));
        // The fault cleared: the scan of 0.4 s, stamped 0.4 s, is in.
        scan.saw(400 * MS);
        assert!(scan.fresh(400 * MS));
        assert!(scan.fresh(450 * MS));
    }
}
