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
    ClearFaultStageSrv, Msg, NodeClock, RosArgs, RosEnv, RosNode, SetFaultSrv, SetFaultStackSrv,
    TriggerSrv,
};
use kraken_faults::{FaultSchedule, ScenarioAction, ScenarioFile, ScenarioStep, ScheduleEvent};
use kraken_interfaces::ros::TriggerRequest;
use kraken_interfaces::{mode_name, ClearFaultStageRequest, SetFaultRequest, SetFaultStackRequest};

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "kraken_scenario <scenario.yaml>",
        "runs a kraken scenario file (set_fault / clear_faults / set_fault_stack / clear_fault_stage / wait steps) against a running fault_injector, calling its services as a user would; exit 0 when every step succeeded",
        "kraken_faults/README.md (scenario files; parameters injector, timeout_s, use_sim_time)",
    );
    breakbench_ros::init_logging("warn,rustdds=error,ros2_client=error");
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
    Stack(&'a ScenarioStep),
}

/// The runner's timeline: every event of `schedule` (set_fault calls for its
/// sets; one clear_faults call per clear time) with the label of the step it
/// came from, a clear_faults step with nothing to clear (still called, as a
/// user would), and the wait steps; in time order, at one time the
/// schedule's order first.
fn timeline<'a>(
    scenario: &'a ScenarioFile,
    schedule: &FaultSchedule,
) -> Vec<(Duration, &'a str, Act<'a>)> {
    let steps = |a: ScenarioAction| scenario.steps.iter().filter(move |s| s.action() == a);
    let set_labels: Vec<&str> = steps(ScenarioAction::SetFault)
        .map(|s| s.label.as_str())
        .collect();
    let clear_label = |at: Duration| {
        steps(ScenarioAction::ClearFaults)
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
    for s in steps(ScenarioAction::ClearFaults) {
        let at = Duration::from_secs_f64(s.at_s);
        if !out
            .iter()
            .any(|(t, _, a)| matches!(a, Act::Clear) && *t == at)
        {
            out.push((at, s.label.as_str(), Act::Clear));
        }
    }
    for s in steps(ScenarioAction::Wait) {
        out.push((Duration::from_secs_f64(s.at_s), s.label.as_str(), Act::Wait));
    }
    for s in scenario.steps.iter().filter(|s| {
        matches!(
            s.action(),
            ScenarioAction::SetFaultStack | ScenarioAction::ClearFaultStage
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

fn run() -> Result<bool> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), "kraken_scenario")?;
    let [file] = rest.as_slice() else {
        bail!(
            "usage: kraken_scenario <scenario.yaml> [--ros-args -p injector:=/fault_injector ...]"
        );
    };
    let path = PathBuf::from(file);
    let scenario = ScenarioFile::load(&path).map_err(|e| BadParam(e.to_string()))?;
    // The faults as the one schedule type (sets, clears, durations), then
    // the runner's timeline: the schedule's events with the steps' labels,
    // and the wait steps.
    let schedule = scenario
        .schedule()
        .map_err(|e| BadParam(format!("{}: {e}", path.display())))?;
    let timeline = timeline(&scenario, &schedule);
    let injector = args.param_string("injector", "/fault_injector")?;
    kraken_faults::scenario::check_injector_name(&injector)
        .map_err(|m| BadParam(format!("parameter 'injector' {m}")))?;
    let timeout_s = args.param_f64("timeout_s", 10.0)?;
    if !(timeout_s > 0.0 && timeout_s <= MAX_TIMEOUT_S) {
        return Err(BadParam(format!(
            "parameter 'timeout_s' must be in (0, {MAX_TIMEOUT_S}] s, got {timeout_s}"
        ))
        .into());
    }
    let timeout = Duration::from_secs_f64(timeout_s);
    let env = RosEnv::from_env()?;
    let mut node = RosNode::new(env, args)?;
    let set = node.client::<SetFaultSrv>(&format!("{injector}/set_fault"))?;
    let clear = node.client::<TriggerSrv>(&format!("{injector}/clear_faults"))?;
    let uses = |a: ScenarioAction| scenario.steps.iter().any(|s| s.action() == a);
    let (uses_stack, uses_stage) = (
        uses(ScenarioAction::SetFaultStack),
        uses(ScenarioAction::ClearFaultStage),
    );
    let stack = node.client::<SetFaultStackSrv>(&format!("{injector}/set_fault_stack"))?;
    let stage = node.client::<ClearFaultStageSrv>(&format!("{injector}/clear_fault_stage"))?;
    let clock_sub = node.clock_subscription()?;
    let _spinner = node.spawn_spinner()?;
    let clock = node.clock.clone();
    println!(
        "scenario '{}' ({} steps) against {injector} on domain {} ({})",
        scenario.name,
        scenario.steps.len(),
        env.domain_id,
        env.rmw.name()
    );

    smol::block_on(async {
        if let Some((sub, sim)) = &clock_sub {
            // Wait for the first /clock message before starting the timeline.
            let first = with_timeout(timeout, async {
                while !sim.has_time() {
                    if let Ok((c, _)) = sub.async_take().await {
                        sim.update(&c);
                    }
                }
            })
            .await;
            if first.is_none() {
                bail!("no /clock message within {timeout:?} (use_sim_time is true)");
            }
        }
        // Poll the match tables (see RosNode::service_ready for why not
        // ros2-client's wait_for_service).
        let found = with_timeout(timeout, async {
            while !(node.service_ready(&set)
                && node.service_ready(&clear)
                && (!uses_stack || node.service_ready(&stack))
                && (!uses_stage || node.service_ready(&stage)))
            {
                smol::Timer::after(Duration::from_millis(20)).await;
            }
        })
        .await;
        if found.is_none() {
            bail!("services {injector}/set_fault and {injector}/clear_faults not found within {timeout:?}");
        }
        let t0 = clock.now();
        let wall0 = Instant::now();
        let mut all_ok = true;
        for (at, label, act) in &timeline {
            let (at, label) = (*at, *label);
            // Sleep until at_s on the node's clock (poll /clock under sim time).
            loop {
                if let Some((sub, sim)) = &clock_sub {
                    while let Ok(Some((c, _))) = sub.take() {
                        sim.update(&c);
                    }
                }
                let elapsed = clock.now().saturating_sub(t0);
                if elapsed >= at {
                    break;
                }
                let left = at - elapsed;
                let nap = if matches!(clock, NodeClock::Wall) {
                    left
                } else {
                    left.min(Duration::from_millis(5))
                };
                smol::Timer::after(nap).await;
            }
            let t = clock.now().saturating_sub(t0).as_secs_f64();
            match act {
                Act::Set(entry) => {
                    let spec = schedule.entries()[*entry].spec.clone();
                    let desc = format!(
                        "set_fault {} on {}",
                        mode_name(spec.mode).unwrap_or("?"),
                        spec.channel
                    );
                    match with_timeout(
                        timeout,
                        set.async_call_service(Msg(SetFaultRequest { fault: spec })),
                    )
                    .await
                    {
                        Some(Ok(Msg(r))) => {
                            all_ok &= r.success;
                            println!(
                                "[{t:8.3} s] {}: {desc}: success={} message={:?}",
                                label, r.success, r.message
                            );
                        }
                        Some(Err(e)) => {
                            all_ok = false;
                            println!("[{t:8.3} s] {label}: {desc}: call failed: {e}");
                        }
                        None => {
                            all_ok = false;
                            println!("[{t:8.3} s] {label}: {desc}: no response within {timeout:?}");
                        }
                    }
                }
                Act::Clear => {
                    let req = Msg(TriggerRequest::default());
                    match with_timeout(timeout, clear.async_call_service(req)).await {
                        Some(Ok(Msg(r))) => {
                            all_ok &= r.success;
                            println!(
                                "[{t:8.3} s] {}: clear_faults: success={} message={:?}",
                                label, r.success, r.message
                            );
                        }
                        Some(Err(e)) => {
                            all_ok = false;
                            println!("[{t:8.3} s] {label}: clear_faults: call failed: {e}");
                        }
                        None => {
                            all_ok = false;
                            println!(
                                "[{t:8.3} s] {label}: clear_faults: no response within {timeout:?}"
                            );
                        }
                    }
                }
                Act::Wait => println!("[{t:8.3} s] {label}: wait"),
                Act::Stack(step) => {
                    let channel = step.channel.clone().unwrap_or_default();
                    let answer = if step.action() == ScenarioAction::SetFaultStack {
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
                        with_timeout(timeout, stack.async_call_service(Msg(req)))
                            .await
                            .map(|r| {
                                r.map(|Msg(r)| {
                                    (
                                        desc.clone(),
                                        r.success,
                                        format!("{} ids={:?}", r.message, r.ids),
                                    )
                                })
                                .map_err(|e| (desc.clone(), e.to_string()))
                            })
                            .ok_or_else(|| format!("set_fault_stack on {channel}"))
                    } else {
                        let id = step.id.unwrap_or_default();
                        let desc = format!("clear_fault_stage {id} on {channel}");
                        let req = ClearFaultStageRequest {
                            channel: channel.clone(),
                            id,
                        };
                        with_timeout(timeout, stage.async_call_service(Msg(req)))
                            .await
                            .map(|r| {
                                r.map(|Msg(r)| (desc.clone(), r.success, r.message))
                                    .map_err(|e| (desc.clone(), e.to_string()))
                            })
                            .ok_or(desc)
                    };
                    match answer {
                        Ok(Ok((desc, ok, message))) => {
                            all_ok &= ok;
                            println!(
                                "[{t:8.3} s] {label}: {desc}: success={ok} message={message:?}"
                            );
                        }
                        Ok(Err((desc, e))) => {
                            all_ok = false;
                            println!("[{t:8.3} s] {label}: {desc}: call failed: {e}");
                        }
                        Err(desc) => {
                            all_ok = false;
                            println!("[{t:8.3} s] {label}: {desc}: no response within {timeout:?}");
                        }
                    }
                }
            }
        }
        println!(
            "scenario '{}' done in {:.3} s wall: {}",
            scenario.name,
            wall0.elapsed().as_secs_f64(),
            if all_ok {
                "all steps succeeded"
            } else {
                "SOME STEPS FAILED"
            }
        );
        Ok(all_ok)
    })
}
