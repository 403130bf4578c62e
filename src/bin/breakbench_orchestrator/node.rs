//! `breakbench_orchestrator`: runs one resilience test (`tests:` of a
//! campaign scenario) on the ROS 2 graph, separate from the robot
//! (REQ-TEST-GRAPH).
//!
//! Subscribes ground truth `/oracle/odom` (nav_msgs/Odometry) for the
//! triggers, and the observables of the expectations: `/cmd_vel`
//! (geometry_msgs/Twist), the robot's odometry as delivered `/odom`,
//! `/diagnostics` (diagnostic_msgs/DiagnosticArray), `/rosout`
//! (rcl_interfaces/Log) and the injector's `<injector>/status`
//! (kraken_interfaces/FaultStatus). A fired trigger calls the injector's
//! real `<injector>/set_fault` service (a clear: `set_fault` with mode
//! `healthy` on the fault's channel); `applied` is read only from the
//! status' `messages_faulted` counter, `cleared` from its `cleared` stamp.
//! The test itself is the in-process code ([`breakbench::campaign::resilience_run`]
//! through [`breakbench::campaign::orchestrate::GraphTest`]).
//!
//! Lock-step: after it has processed the ground-truth sample of sim time `t`
//! (and, if a trigger fired, after `set_fault` replied) it publishes
//! `gate_topic` (rosgraph_msgs/Clock stamped `t`); a sim_bridge with the same
//! `gate_topic` waits for it before publishing that step's sensors.
//!
//! At the end of the mission (the world's `mission_timeout_s` of sim time)
//! it writes the run's judgement (verdict class, timeline, expectations) and
//! fault records as JSON to `judgement_file`, prints `judgement: <class>`,
//! and waits for SIGINT/SIGTERM (exit 0).
//!
//! Parameters: `scenario_file` (string, required: the campaign scenario),
//! `test` (string, required: `tests[].name`), `run_kind` (`test` |
//! `baseline`), `seed` (integer, the run's seed, int64 bits), `phase_s`
//! (double, 0: the phase of a phase-swept fault), `judgement_file` (string,
//! required), `baseline_class` / `baseline_reason` (strings, empty: the
//! paired baseline's verdict class, e.g. `pass`), `gate_topic` (string,
//! `/breakbench/gate`), `injector` (string, `/fault_injector`),
//! `status_wait_s` (double, 1.0: longest wall wait for an injector status as
//! recent as the steps to complete while a fault's `applied` / `cleared` is
//! awaited), `service_timeout_s` (double, 10.0).
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use breakbench::campaign::manifest::FaultRecord;
use breakbench::campaign::orchestrate::GraphTest;
use breakbench::campaign::resilience_run::{ChannelCounts, FaultPort, TestDriver};
use breakbench::campaign::run::controller_under_test;
use breakbench::campaign::Scenario;
use breakbench_oracle::expect::{ClassifiedVerdict, RunJudgement, VerdictClass};
use breakbench_ros::{qos, to_stamp, RosArgs, RosClient, RosEnv, RosNode, SetFaultSrv, Shutdown};
use breakbench_ros::{Publisher, Subscription};
use futures::stream::{select_all, LocalBoxStream, StreamExt};
use kraken_interfaces::ros::{Clock, DiagnosticArray, Log, Odometry, Twist};
use kraken_interfaces::{ChannelFaultStatus, FaultSpec, FaultStatus, SetFaultRequest};

const NODE_NAME: &str = "breakbench_orchestrator";
/// Reader depth of every input: a whole lock-step burst is queued.
const DEPTH: usize = 5000;

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        NODE_NAME,
        "runs one resilience test of a campaign scenario on the graph: triggers from /oracle/odom, faults through /fault_injector/set_fault, applied from /fault_injector/status, expectations over /cmd_vel, /odom, /diagnostics, /rosout; gates a lock-step sim_bridge",
        "docs/resilience-tests.md (Resilience tests on the graph)",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{NODE_NAME}: error: {}", breakbench_ros::error_chain(&*e));
            ExitCode::FAILURE
        }
    }
}

#[derive(serde::Serialize)]
struct Output<'a> {
    judgement: &'a RunJudgement,
    faults: &'a [FaultRecord],
}

/// The injector on the graph: its `set_fault` service and the latest
/// `~/status` it published.
struct GraphPort {
    set: RosClient<SetFaultSrv>,
    timeout: Duration,
    enabled: bool,
    status: BTreeMap<String, ChannelFaultStatus>,
    /// Stamp of the latest status, sim s.
    status_s: f64,
}

fn time_opt(t: &kraken_interfaces::ros::Time) -> Option<Duration> {
    let s = t.as_secs_f64();
    (s > 0.0).then(|| Duration::from_secs_f64(s))
}

impl GraphPort {
    fn on_status(&mut self, s: FaultStatus) {
        self.enabled = s.enabled;
        self.status_s = s.stamp.as_secs_f64();
        for c in s.channels {
            self.status.insert(c.channel.clone(), c);
        }
    }
    fn call(&mut self, spec: FaultSpec) -> Result<(), String> {
        let call = self.set.call(SetFaultRequest { fault: spec });
        let timeout = self.timeout;
        let r = smol::block_on(async {
            futures::future::select(Box::pin(call), Box::pin(smol::Timer::after(timeout))).await
        });
        match r {
            futures::future::Either::Left((Ok(resp), _)) if resp.success => Ok(()),
            futures::future::Either::Left((Ok(resp), _)) => Err(resp.message),
            futures::future::Either::Left((Err(e), _)) => {
                Err(format!("set_fault call failed: {e}"))
            }
            futures::future::Either::Right(_) => {
                Err(format!("set_fault: no response within {timeout:?}"))
            }
        }
    }
}

impl FaultPort for GraphPort {
    fn enabled(&self) -> bool {
        self.enabled
    }
    fn set_enabled(&mut self, on: bool, _now: Duration) -> Result<(), String> {
        Err(format!(
            "the graph's injector is {} by its `enable` parameter; the test asks for it {}",
            if self.enabled { "enabled" } else { "disabled" },
            if on { "enabled" } else { "disabled" }
        ))
    }
    fn set_fault(&mut self, spec: &FaultSpec, _now: Duration) -> Result<(), String> {
        self.call(spec.clone())
    }
    fn clear_fault(&mut self, channel: &str, _now: Duration) -> Result<(), String> {
        self.call(FaultSpec::new(channel.to_string(), FaultSpec::HEALTHY))
    }
    fn counts(&self, channel: &str) -> Option<ChannelCounts> {
        self.status.get(channel).map(|c| ChannelCounts {
            messages_in: c.messages_in,
            messages_out: c.messages_out,
            messages_faulted: c.messages_faulted,
        })
    }
    fn cleared(&self, channel: &str) -> Option<Duration> {
        self.status.get(channel).and_then(|c| time_opt(&c.cleared))
    }
    fn is_active(&self, channel: &str, now: Duration) -> bool {
        self.status.get(channel).is_some_and(|c| {
            c.fault.mode != FaultSpec::HEALTHY
                && time_opt(&c.requested).is_some_and(|r| r <= now)
                && time_opt(&c.cleared).is_none_or(|x| x > now)
        })
    }
}

#[allow(clippy::large_enum_variant)]
enum Event {
    Truth(Odometry),
    Cmd(Twist),
    Odom(Odometry),
    Log(Log),
    Diag(DiagnosticArray),
    Status(FaultStatus),
}

/// The node's parameters (see the module docs), read and checked once.
struct Params {
    scenario_file: PathBuf,
    test_name: String,
    judgement_file: PathBuf,
    /// `run_kind: baseline`.
    baseline: bool,
    seed: u64,
    /// `phase_s`, s.
    phase_s: f64,
    /// `baseline_class` / `baseline_reason`; `None` when the class is empty.
    baseline_class: Option<ClassifiedVerdict>,
    gate_topic: String,
    injector: String,
    /// `status_wait_s`.
    status_wait: Duration,
    /// `service_timeout_s`.
    service_timeout: Duration,
}

impl Params {
    /// Reads every parameter of `args`.
    ///
    /// # Errors
    /// A required parameter missing or empty, a parameter of the wrong
    /// type, a `run_kind` or `baseline_class` that is not one.
    fn read(args: &RosArgs) -> Result<Self> {
        let required = |name: &str| -> Result<String> {
            let v = args.param_string(name, "")?;
            ensure!(!v.is_empty(), "parameter '{name}' is required");
            Ok(v)
        };
        let scenario_file = PathBuf::from(required("scenario_file")?);
        let test_name = required("test")?;
        let judgement_file = PathBuf::from(required("judgement_file")?);
        let baseline = match args.param_string("run_kind", "test")?.as_str() {
            "test" => false,
            "baseline" => true,
            other => bail!("parameter 'run_kind' must be test or baseline, got {other:?}"),
        };
        let seed = args.param_i64("seed", 0)? as u64;
        let phase_s = args.param_f64("phase_s", 0.0)?;
        let baseline_class = match args.param_string("baseline_class", "")?.as_str() {
            "" => None,
            c => Some(ClassifiedVerdict {
                class: serde_json::from_value::<VerdictClass>(serde_json::Value::String(c.into()))
                    .with_context(|| format!("parameter 'baseline_class' = {c:?}"))?,
                reason: args.param_string("baseline_reason", "")?,
            }),
        };
        Ok(Self {
            scenario_file,
            test_name,
            judgement_file,
            baseline,
            seed,
            phase_s,
            baseline_class,
            gate_topic: args.param_string("gate_topic", "/breakbench/gate")?,
            injector: args.param_string("injector", "/fault_injector")?,
            status_wait: Duration::from_secs_f64(args.param_f64("status_wait_s", 1.0)?),
            service_timeout: Duration::from_secs_f64(args.param_f64("service_timeout_s", 10.0)?),
        })
    }
}

/// The test of `p`, ready to run: its [`GraphTest`] (the in-process driver),
/// the plant's step and the mission's end (the world's
/// `mission_timeout_s`), sim time.
///
/// # Errors
/// The scenario does not load or has no such test, the controller or the
/// driver does not build, the plant's timing is invalid.
fn load_test(p: &Params) -> Result<(GraphTest, Duration, Duration)> {
    let scenario = Scenario::load(&p.scenario_file)
        .with_context(|| format!("parameter 'scenario_file' = {}", p.scenario_file.display()))?;
    let test = scenario
        .file
        .tests
        .iter()
        .find(|t| t.name == p.test_name)
        .with_context(|| {
            format!(
                "parameter 'test' = {:?}: no such test in {}",
                p.test_name,
                p.scenario_file.display()
            )
        })?;
    let world = &scenario.world;
    let controller = controller_under_test(&scenario.navigator, world)?;
    let driver = TestDriver::new(
        test,
        world,
        p.seed,
        p.baseline,
        p.phase_s,
        controller.as_ref(),
    )?;
    let step = Duration::from_nanos(
        scenario
            .plant
            .timing(&p.scenario_file.display().to_string())?
            .step_ns,
    );
    let end = Duration::from_secs_f64(world.mission_timeout_s);
    let resilience_run = GraphTest::new(driver, step, scenario.navigator.control_period());
    Ok((resilience_run, step, end))
}

/// The node's subscriptions and its gate publisher (the `set_fault`
/// client goes into [`GraphPort`]).
struct Io {
    truth_sub: Subscription<Odometry>,
    cmd_sub: Subscription<Twist>,
    odom_sub: Subscription<Odometry>,
    log_sub: Subscription<Log>,
    diag_sub: Subscription<DiagnosticArray>,
    status_sub: Subscription<FaultStatus>,
    gate_pub: Publisher<Clock>,
}

/// The node's subscriptions and gate publisher, in the order they were
/// always created, each `DEPTH` deep.
fn open(node: &mut RosNode, p: &Params) -> Result<Io> {
    let deep = || qos::publish().depth(DEPTH);
    Ok(Io {
        truth_sub: node.subscription::<Odometry>("/oracle/odom", deep())?,
        cmd_sub: node.subscription::<Twist>("/cmd_vel", deep())?,
        odom_sub: node.subscription::<Odometry>("/odom", deep())?,
        log_sub: node.subscription::<Log>("/rosout", deep())?,
        diag_sub: node.subscription::<DiagnosticArray>("/diagnostics", deep())?,
        status_sub: node.subscription::<FaultStatus>(&format!("{}/status", p.injector), deep())?,
        gate_pub: node.publisher::<Clock>(&p.gate_topic, deep())?,
    })
}

/// Every subscription of `io` as one stream of [`Event`]s.
fn streams(io: &Io) -> Vec<LocalBoxStream<'_, Event>> {
    vec![
        io.truth_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Truth)))
            .boxed_local(),
        io.cmd_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Cmd)))
            .boxed_local(),
        io.odom_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Odom)))
            .boxed_local(),
        io.log_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Log)))
            .boxed_local(),
        io.diag_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Diag)))
            .boxed_local(),
        io.status_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(Event::Status)))
            .boxed_local(),
    ]
}

/// Waits for the injector's `set_fault` service. Returns `false` if a
/// shutdown was requested first.
///
/// # Errors
/// The service is not found within `service_timeout_s` (wall time).
fn wait_for_injector(
    node: &RosNode,
    set: &RosClient<SetFaultSrv>,
    p: &Params,
    shutdown: &Shutdown,
) -> Result<bool> {
    let (injector, service_timeout) = (&p.injector, p.service_timeout);
    let t0 = Instant::now();
    tracing::info!("waiting for {injector}/set_fault");
    while !node.service_ready(set) {
        if shutdown.is_requested() {
            return Ok(false);
        }
        if t0.elapsed() > service_timeout {
            bail!("{injector}/set_fault not found within service_timeout_s = {service_timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(true)
}

/// The next event of `events` within `wait` (wall time); `None` at the
/// timeout, on a shutdown request or when the streams have ended.
fn next_event(
    events: &mut futures::stream::SelectAll<LocalBoxStream<'_, Event>>,
    wait: Duration,
    shutdown: &Shutdown,
) -> Option<Event> {
    smol::block_on(async {
        let n = events.next();
        futures::pin_mut!(n);
        let stop = futures::future::select(Box::pin(smol::Timer::after(wait)), shutdown.wait());
        match futures::future::select(n, stop).await {
            futures::future::Either::Left((e, _)) => e,
            futures::future::Either::Right(_) => None,
        }
    })
}

fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    ensure!(
        rest.is_empty(),
        "unexpected arguments {rest:?} (node arguments go after --ros-args)"
    );
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let p = Params::read(&args)?;
    let (resilience_run, step, end) = load_test(&p)?;

    let mut node = RosNode::new(env, args)?;
    // The entities after the node: dropped before it.
    let io = open(&mut node, &p)?;
    let set = node.client::<SetFaultSrv>(&format!("{}/set_fault", p.injector))?;
    let _spinner = node.spawn_spinner()?;
    if !wait_for_injector(&node, &set, &p, &shutdown)? {
        return Ok(());
    }
    let mut port = GraphPort {
        set,
        timeout: p.service_timeout,
        enabled: true,
        status: BTreeMap::new(),
        status_s: -1.0,
    };
    tracing::info!(
        test = %p.test_name,
        baseline = p.baseline,
        seed = p.seed,
        scenario = %p.scenario_file.display(),
        gate = %p.gate_topic,
        "ready"
    );

    let mut events = select_all(streams(&io));
    let mut judge = Judge {
        p: &p,
        step,
        end,
        gate_pub: &io.gate_pub,
        resilience_run: Some(resilience_run),
        truths: Default::default(),
        waiting_since: None,
        last_gate: None,
        judged: false,
        end_wait: None,
    };
    while !shutdown.is_requested() {
        let ev = next_event(&mut events, Duration::from_millis(5), &shutdown);
        judge.on_wake(ev, &mut port)?;
    }
    if !judge.judged {
        tracing::info!(
            "stopped before the end of the mission (last gate {:?}); no judgement written",
            judge.last_gate
        );
    }
    Ok(())
}

/// The run's state between wake-ups of the node's loop: the test until it
/// is judged, the ground-truth samples not yet released through the gate,
/// and the waits for the injector's status and for the end.
struct Judge<'a> {
    p: &'a Params,
    /// The plant's step, sim time.
    step: Duration,
    /// The end of the mission, sim time.
    end: Duration,
    gate_pub: &'a Publisher<Clock>,
    /// `None` once judged.
    resilience_run: Option<GraphTest>,
    /// Ground truth received, not yet processed, in order.
    truths: std::collections::VecDeque<Odometry>,
    /// Wall time since the oldest queued truth sample waited for the status.
    waiting_since: Option<Instant>,
    /// The stamp of the last gate published, sim time.
    last_gate: Option<Duration>,
    /// The judgement was written.
    judged: bool,
    /// Wall time since the end of the mission was reached.
    end_wait: Option<Instant>,
}

impl Judge<'_> {
    /// One wake-up of the loop with event `ev` (`None`: a timeout): hands
    /// the event to the test (or the status to `port`), processes the
    /// ground truth that may go, and judges at the end. Does nothing once
    /// judged.
    ///
    /// # Errors
    /// The test's errors; writing the judgement.
    fn on_wake(&mut self, ev: Option<Event>, port: &mut GraphPort) -> Result<()> {
        let Some(gt) = self.resilience_run.as_mut() else {
            return Ok(());
        };
        match ev {
            Some(Event::Truth(m)) => self.truths.push_back(m),
            Some(Event::Cmd(t)) => gt.on_cmd_vel(t.linear.x, t.angular.z),
            Some(Event::Odom(o)) => gt.on_odom(o),
            Some(Event::Log(l)) => gt.on_log(l),
            Some(Event::Diag(a)) => gt.on_diagnostics(a),
            Some(Event::Status(s)) => port.on_status(s),
            None => {}
        }
        self.release_truths(port)?;
        self.judge_at_end(port)
    }

    /// Ground truth in order; each waits, while a fault's applied or
    /// cleared is awaited, for a status as recent as the steps before it
    /// (at most `status_wait_s`, then a warning). Each sample processed
    /// opens the gate at its stamp.
    ///
    /// # Errors
    /// The test's errors.
    fn release_truths(&mut self, port: &mut GraphPort) -> Result<()> {
        let Some(gt) = self.resilience_run.as_mut() else {
            return Ok(());
        };
        let (injector, gate_topic) = (&self.p.injector, &self.p.gate_topic);
        while let Some(m) = self.truths.front() {
            let t = Duration::from_secs_f64(m.header.stamp.as_secs_f64().max(0.0));
            let upto = t.saturating_sub(self.step).as_secs_f64() - 1e-9;
            if gt.watching_injector() && port.status_s < upto {
                let since = *self.waiting_since.get_or_insert_with(Instant::now);
                if since.elapsed() < self.p.status_wait {
                    break;
                }
                tracing::warn!(
                    "no {injector}/status at or after sim time {upto:.3} s within status_wait_s; judging from the latest ({:.3} s)",
                    port.status_s
                );
            }
            self.waiting_since = None;
            let m = self.truths.pop_front().expect("checked");
            let g = gt.on_truth(&m, port)?;
            if let Err(e) = self.gate_pub.publish(Clock { clock: to_stamp(g) }) {
                tracing::warn!("{gate_topic}: publish failed: {e}");
            }
            self.last_gate = Some(g);
        }
        Ok(())
    }

    /// The end: once the gate reached the end of the mission and the last
    /// control instant's command and a status at the end are in (or were
    /// waited for longer than `status_wait_s`), judges the run, writes the
    /// judgement and prints `judgement: <class> (<reason>)`.
    ///
    /// # Errors
    /// The test's errors; writing the judgement.
    fn judge_at_end(&mut self, port: &GraphPort) -> Result<()> {
        let Some(gt) = self.resilience_run.as_ref() else {
            return Ok(());
        };
        let (end, step) = (self.end, self.step);
        if self.last_gate.is_none_or(|g| g < end) {
            return Ok(());
        }
        let since = *self.end_wait.get_or_insert_with(Instant::now);
        let have_cmd = gt
            .last_command_s()
            .is_some_and(|c| c >= end.as_secs_f64() - step.as_secs_f64() - 1e-9);
        let have_status = !gt.watching_injector() || port.status_s >= end.as_secs_f64() - 1e-9;
        if (have_cmd && have_status) || since.elapsed() > self.p.status_wait {
            let r = self.resilience_run.take().expect("judged once").finish(
                end,
                port,
                self.p.baseline_class.as_ref(),
            )?;
            write_judgement(&self.p.judgement_file, &r.0, &r.1)?;
            println!(
                "judgement: {} ({})",
                serde_json::to_value(r.0.verdict_class.class)?
                    .as_str()
                    .unwrap_or("?"),
                r.0.verdict_class.reason
            );
            self.judged = true;
        }
        Ok(())
    }
}

fn write_judgement(path: &std::path::Path, j: &RunJudgement, faults: &[FaultRecord]) -> Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).with_context(|| d.display().to_string())?;
    }
    let text = serde_json::to_string_pretty(&Output {
        judgement: j,
        faults,
    })?;
    // The one atomic writer: a failed write (a full disk) leaves no
    // temporary file behind (REQ-CAMPAIGN-ATOMIC).
    breakbench_records::write_atomic(path, text.as_bytes())?;
    Ok(())
}
