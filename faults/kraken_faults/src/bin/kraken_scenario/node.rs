//! `kraken_scenario <scenario.yaml> [--ros-args ...]`: runs a kraken scenario
//! file against a running `fault_injector`, calling its services at each
//! step's `at_s` like a user would, and prints each step's response. The
//! file's faults go through the same [`kraken_faults::FaultSchedule`] as an
//! in-process run (set at `at_s`, cleared by the next clear_faults step,
//! `duration_s` in the spec); the runner calls the services at the
//! schedule's events ([`kraken_faults::FaultSchedule::events`]).
//! `set_fault_stack` and `clear_fault_stage` steps call those services at
//! their `at_s` (stack steps are not part of the in-process schedule).
//!
//! Time: `at_s` counts from the moment both services were found, on the
//! wall clock, or on `/clock` when the parameter `use_sim_time` is true.
//! When the injector faults `/clock` itself (a `rosgraph_msgs/msg/Clock`
//! channel, REQ-FAULT-TF-CLOCK), remap this node's clock to the channel's
//! input, `--ros-args -r /clock:=/clock_raw`, so the steps keep the true
//! time as the injector does, not the faulted one.
//! Parameters: `injector` (string, `/fault_injector`: the node whose
//! `set_fault`/`clear_faults` services are called), `timeout_s` (double, 10:
//! per call and for service discovery), `use_sim_time` (bool, false).
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`.
//!
//! Exit code: 0 when every call answered `success: true`; 2 for a bad
//! scenario file or parameter value (`timeout_s` outside (0, 3600], an
//! `at_s` outside [0, 1e6]), before any call; 1 otherwise (a rejected
//! request, a timeout).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use breakbench_ros::{
    ClearFaultStageSrv, NodeClock, RosArgs, RosClient, RosEnv, RosNode, RosService, SetFaultSrv,
    SetFaultStackSrv, SimClock, Subscription, TriggerSrv,
};
use kraken_faults::{FaultSchedule, ScheduleEvent, Step, StepAction, StepList};
use kraken_interfaces::ros::{Clock, TriggerRequest};
use kraken_interfaces::{mode_name, ClearFaultStageRequest, SetFaultRequest, SetFaultStackRequest};

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "kraken_scenario <scenario.yaml>",
        "runs a kraken scenario file (set_fault / clear_faults / set_fault_stack / clear_fault_stage / wait steps) against a running fault_injector, calling its services as a user would; exit 0 when every step succeeded",
        "faults/kraken_faults/README.md (scenario files; parameters injector, timeout_s, use_sim_time)",
    );
    breakbench_ros::init_logging(breakbench_ros::TOOL_LOG_FILTER);
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!(
                "kraken_scenario: error: {}",
                breakbench_ros::error_chain(&*e)
            );
            if e.downcast_ref::<BadParam>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// An invalid parameter value: exit code 2, before any DDS traffic.
#[derive(Debug)]
struct BadParam(String);

impl std::fmt::Display for BadParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadParam {}

/// Largest accepted `timeout_s`, seconds.
const MAX_TIMEOUT_S: f64 = 3600.0;

async fn with_timeout<T>(d: Duration, f: impl std::future::Future<Output = T>) -> Option<T> {
    futures::pin_mut!(f);
    match futures::future::select(f, Box::pin(smol::Timer::after(d))).await {
        futures::future::Either::Left((v, _)) => Some(v),
        futures::future::Either::Right(_) => None,
    }
}

/// What the runner does at a time of its timeline.
enum Act<'a> {
    /// Call `set_fault` with schedule entry `.0`.
    Set(usize),
    /// Call `clear_faults`.
    Clear,
    /// Nothing (a wait step: the end of observation).
    Wait,
    /// Call `set_fault_stack` or `clear_fault_stage` with this step.
    Stack(&'a Step),
}

/// The runner's timeline: every event of `schedule` (set_fault calls for its
/// sets; one clear_faults call per clear time) with the label of the step it
/// came from, a clear_faults step with nothing to clear (still called, as a
/// user would), and the wait steps; in time order, at one time the
/// schedule's order first.
fn timeline<'a>(
    scenario: &'a StepList,
    schedule: &FaultSchedule,
) -> Vec<(Duration, &'a str, Act<'a>)> {
    let steps = |a: StepAction| scenario.steps.iter().filter(move |s| s.action() == a);
    let set_labels: Vec<&str> = steps(StepAction::SetFault)
        .map(|s| s.label.as_str())
        .collect();
    let clear_label = |at: Duration| {
        steps(StepAction::ClearFaults)
            .find(|s| Duration::from_secs_f64(s.at_s) == at)
            .map_or("clear_faults", |s| s.label.as_str())
    };
    let mut out: Vec<(Duration, &str, Act<'a>)> = schedule
        .events()
        .into_iter()
        .map(|ev| match ev {
            ScheduleEvent::Set { at, index } => (at, set_labels[index], Act::Set(index)),
            ScheduleEvent::Clear { at, .. } => (at, clear_label(at), Act::Clear),
        })
        .collect();
    for s in steps(StepAction::ClearFaults) {
        let at = Duration::from_secs_f64(s.at_s);
        if !out
            .iter()
            .any(|(t, _, a)| matches!(a, Act::Clear) && *t == at)
        {
            out.push((at, s.label.as_str(), Act::Clear));
        }
    }
    for s in steps(StepAction::Wait) {
        out.push((Duration::from_secs_f64(s.at_s), s.label.as_str(), Act::Wait));
    }
    for s in scenario.steps.iter().filter(|s| {
        matches!(
            s.action(),
            StepAction::SetFaultStack | StepAction::ClearFaultStage
        )
    }) {
        out.push((
            Duration::from_secs_f64(s.at_s),
            s.label.as_str(),
            Act::Stack(s),
        ));
    }
    out.sort_by_key(|(t, _, _)| *t);
    out
}

/// The scenario and the runner's parameters, checked before any DDS
/// traffic. Errors: a usage error; [`BadParam`] for a bad scenario file or
/// parameter value.
struct Plan {
    scenario: StepList,
    schedule: FaultSchedule,
    /// `<injector>`: the node whose services are called.
    injector: String,
    /// Per call and for discovery.
    timeout: Duration,
}

impl Plan {
    fn read(args: &RosArgs, rest: &[String]) -> Result<Self> {
        let [file] = rest else {
            bail!(
                "usage: kraken_scenario <scenario.yaml> [--ros-args -p injector:=/fault_injector ...]"
            );
        };
        let path = PathBuf::from(file);
        let scenario = StepList::load(&path).map_err(|e| BadParam(e.to_string()))?;
        // The faults as the one schedule type (sets, clears, durations), then
        // the runner's timeline: the schedule's events with the steps' labels,
        // and the wait steps.
        let schedule = scenario
            .schedule()
            .map_err(|e| BadParam(format!("{}: {e}", path.display())))?;
        let injector = args.param_string("injector", "/fault_injector")?;
        kraken_faults::step_list::check_injector_name(&injector)
            .map_err(|m| BadParam(format!("parameter 'injector' {m}")))?;
        let timeout_s = args.param_f64("timeout_s", 10.0)?;
        if !(timeout_s > 0.0 && timeout_s <= MAX_TIMEOUT_S) {
            return Err(BadParam(format!(
                "parameter 'timeout_s' must be in (0, {MAX_TIMEOUT_S}] s, got {timeout_s}"
            ))
            .into());
        }
        Ok(Self {
            scenario,
            schedule,
            injector,
            timeout: Duration::from_secs_f64(timeout_s),
        })
    }

    fn uses(&self, a: StepAction) -> bool {
        self.scenario.steps.iter().any(|s| s.action() == a)
    }
}

/// The injector's four services.
struct Clients {
    set: RosClient<SetFaultSrv>,
    clear: RosClient<TriggerSrv>,
    stack: RosClient<SetFaultStackSrv>,
    stage: RosClient<ClearFaultStageSrv>,
}

/// One call's outcome: the response's (success, message), the call's
/// error, or `None` when no response came within the timeout.
type Answer = Option<std::result::Result<(bool, String), String>>;

/// Calls `client` with `req`, waiting at most `timeout`.
async fn call<S: RosService>(
    client: &RosClient<S>,
    req: S::Request,
    timeout: Duration,
) -> Option<std::result::Result<S::Response, String>> {
    with_timeout(timeout, client.call(req))
        .await
        .map(|r| r.map_err(|e| e.to_string()))
}

/// Runs the timeline against the injector: sleeps to each entry's time on
/// the node's clock, calls the service and prints the answer.
struct Runner<'a> {
    plan: &'a Plan,
    node: &'a RosNode,
    clients: Clients,
    clock: NodeClock,
    /// Under `use_sim_time`: `/clock` and the clock it moves.
    clock_sub: Option<(Subscription<Clock>, SimClock)>,
    /// Every call so far answered `success: true`.
    all_ok: bool,
}

impl Runner<'_> {
    /// Under sim time, waits for the first `/clock` message. Errors: none
    /// within the timeout.
    async fn wait_for_clock(&self) -> Result<()> {
        let timeout = self.plan.timeout;
        if let Some((sub, sim)) = &self.clock_sub {
            // Wait for the first /clock message before starting the timeline.
            let first = with_timeout(timeout, async {
                while !sim.has_time() {
                    if let Ok(c) = sub.async_take().await {
                        sim.update(&c);
                    }
                }
            })
            .await;
            if first.is_none() {
                bail!("no /clock message within {timeout:?} (use_sim_time is true)");
            }
        }
        Ok(())
    }

    /// Waits until the services the scenario uses are matched. Errors: not
    /// within the timeout.
    async fn wait_for_services(&self) -> Result<()> {
        let (node, c, timeout) = (self.node, &self.clients, self.plan.timeout);
        let (uses_stack, uses_stage) = (
            self.plan.uses(StepAction::SetFaultStack),
            self.plan.uses(StepAction::ClearFaultStage),
        );
        // Poll the match tables (see RosNode::service_ready for why not
        // ros2-client's wait_for_service).
        let found = with_timeout(timeout, async {
            while !(node.service_ready(&c.set)
                && node.service_ready(&c.clear)
                && (!uses_stack || node.service_ready(&c.stack))
                && (!uses_stage || node.service_ready(&c.stage)))
            {
                smol::Timer::after(Duration::from_millis(20)).await;
            }
        })
        .await;
        if found.is_none() {
            let injector = &self.plan.injector;
            bail!("services {injector}/set_fault and {injector}/clear_faults not found within {timeout:?}");
        }
        Ok(())
    }

    /// Sleeps until `at` after `t0` on the node's clock (polling `/clock`
    /// under sim time).
    async fn sleep_until(&self, t0: Duration, at: Duration) {
        loop {
            if let Some((sub, sim)) = &self.clock_sub {
                while let Ok(Some(c)) = sub.take() {
                    sim.update(&c);
                }
            }
            let elapsed = self.clock.now().saturating_sub(t0);
            if elapsed >= at {
                break;
            }
            let left = at - elapsed;
            let nap = if matches!(self.clock, NodeClock::Wall) {
                left
            } else {
                left.min(Duration::from_millis(5))
            };
            smol::Timer::after(nap).await;
        }
    }

    /// Prints one call's answer at `t` s and folds it into `all_ok`;
    /// `timeout_desc` names the call when it timed out.
    fn report(&mut self, t: f64, label: &str, desc: &str, timeout_desc: &str, answer: Answer) {
        match answer {
            Some(Ok((ok, message))) => {
                self.all_ok &= ok;
                println!("[{t:8.3} s] {label}: {desc}: success={ok} message={message:?}");
            }
            Some(Err(e)) => {
                self.all_ok = false;
                println!("[{t:8.3} s] {label}: {desc}: call failed: {e}");
            }
            None => {
                self.all_ok = false;
                let timeout = self.plan.timeout;
                println!("[{t:8.3} s] {label}: {timeout_desc}: no response within {timeout:?}");
            }
        }
    }

    /// `set_fault` with the schedule's entry `entry`.
    async fn set_fault(&mut self, t: f64, label: &str, entry: usize) {
        let spec = self.plan.schedule.entries()[entry].spec.clone();
        let desc = format!(
            "set_fault {} on {}",
            mode_name(spec.mode).unwrap_or("?"),
            spec.channel
        );
        let req = SetFaultRequest { fault: spec };
        let answer = call(&self.clients.set, req, self.plan.timeout).await;
        let answer = answer.map(|r| r.map(|r| (r.success, r.message)));
        self.report(t, label, &desc, &desc, answer);
    }

    /// `clear_faults`.
    async fn clear_faults(&mut self, t: f64, label: &str) {
        let req = TriggerRequest::default();
        let answer = call(&self.clients.clear, req, self.plan.timeout).await;
        let answer = answer.map(|r| r.map(|r| (r.success, r.message)));
        self.report(t, label, "clear_faults", "clear_faults", answer);
    }

    /// `set_fault_stack` or `clear_fault_stage` as `step` says. Errors: the
    /// step's stack does not serialise.
    async fn stack_call(&mut self, t: f64, label: &str, step: &Step) -> Result<()> {
        let channel = step.channel.clone().unwrap_or_default();
        let timeout = self.plan.timeout;
        if step.action() == StepAction::SetFaultStack {
            let req = SetFaultStackRequest {
                channel: channel.clone(),
                stack_yaml: step.stack_yaml()?,
                append: step.append.unwrap_or(false),
            };
            let desc = format!(
                "set_fault_stack on {channel} ({} stage(s), append={})",
                step.stack.as_ref().map_or(0, Vec::len),
                req.append
            );
            let answer = call(&self.clients.stack, req, timeout).await;
            let answer =
                answer.map(|r| r.map(|r| (r.success, format!("{} ids={:?}", r.message, r.ids))));
            self.report(
                t,
                label,
                &desc,
                &format!("set_fault_stack on {channel}"),
                answer,
            );
        } else {
            let id = step.id.unwrap_or_default();
            let desc = format!("clear_fault_stage {id} on {channel}");
            let req = ClearFaultStageRequest {
                channel: channel.clone(),
                id,
            };
            let answer = call(&self.clients.stage, req, timeout).await;
            let answer = answer.map(|r| r.map(|r| (r.success, r.message)));
            self.report(t, label, &desc, &desc, answer);
        }
        Ok(())
    }

    /// The whole timeline; Ok(true) when every call succeeded. Errors: no
    /// clock or services in time, a stack step that does not serialise.
    async fn run(&mut self, timeline: &[(Duration, &str, Act<'_>)]) -> Result<bool> {
        self.wait_for_clock().await?;
        self.wait_for_services().await?;
        let t0 = self.clock.now();
        let wall0 = Instant::now();
        for (at, label, act) in timeline {
            self.sleep_until(t0, *at).await;
            let t = self.clock.now().saturating_sub(t0).as_secs_f64();
            match act {
                Act::Set(entry) => self.set_fault(t, label, *entry).await,
                Act::Clear => self.clear_faults(t, label).await,
                Act::Wait => println!("[{t:8.3} s] {label}: wait"),
                Act::Stack(step) => self.stack_call(t, label, step).await?,
            }
        }
        println!(
            "scenario '{}' done in {:.3} s wall: {}",
            self.plan.scenario.name,
            wall0.elapsed().as_secs_f64(),
            if self.all_ok {
                "all steps succeeded"
            } else {
                "SOME STEPS FAILED"
            }
        );
        Ok(self.all_ok)
    }
}

fn run() -> Result<bool> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), "kraken_scenario")?;
    let plan = Plan::read(&args, &rest)?;
    let timeline = timeline(&plan.scenario, &plan.schedule);
    let env = RosEnv::from_env()?;
    let mut node = RosNode::new(env, args)?;
    let injector = &plan.injector;
    let clients = Clients {
        set: node.client::<SetFaultSrv>(&format!("{injector}/set_fault"))?,
        clear: node.client::<TriggerSrv>(&format!("{injector}/clear_faults"))?,
        stack: node.client::<SetFaultStackSrv>(&format!("{injector}/set_fault_stack"))?,
        stage: node.client::<ClearFaultStageSrv>(&format!("{injector}/clear_fault_stage"))?,
    };
    let clock_sub = node.clock_subscription()?;
    let _spinner = node.spawn_spinner()?;
    println!(
        "scenario '{}' ({} steps) against {injector} on domain {} ({})",
        plan.scenario.name,
        plan.scenario.steps.len(),
        env.domain_id,
        env.rmw.name()
    );
    let mut runner = Runner {
        plan: &plan,
        node: &node,
        clients,
        clock: node.clock.clone(),
        clock_sub,
        all_ok: true,
    };
    smol::block_on(runner.run(&timeline))
}
