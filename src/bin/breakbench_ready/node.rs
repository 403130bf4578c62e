//! `breakbench_ready`: the readiness check of an external stack
//! (`breakbench campaign --graph-cmd`), a one-shot ROS 2 helper the
//! campaign runs on the stack's `ROS_DOMAIN_ID`.
//!
//! ```text
//! breakbench_ready [--simif-reset /prefix] [--call-reset /srv --seed N --run-id ID --out DIR]...
//!                  [--topic /x]... [--message /y]... [--simif-entity /prefix ENTITY]
//!                  [--call-trigger /srv] [--simif-play /prefix] [--clock-advancing] [--timeout-s S]
//!                  [--simif-step /prefix --step-ns N --control-ns N [--command-topic /cmd_vel]
//!                   [--truth-entity ENTITY --truth-ns N]]
//! ```
//!
//! Checks, in this order, each within `--timeout-s` (wall seconds, default
//! 30, counted from the probe's start):
//! 0. `--simif-reset`: the simulator's `<prefix>/reset_simulation`
//!    (simulation_interfaces/ResetSimulation, SCOPE_DEFAULT) answers
//!    RESULT_OK (issue 29); then every `--call-reset` kraken_interfaces/ResetRun service, in the order
//!    given, is found, called once with `--seed` (u64), `--run-id` and
//!    `--out` (all three required with it) and answers `success: true`
//!    (the reset of a kept-running graph, REQ-GRAPH-RESET: `breakbench
//!    campaign --keep-running --reset-service`). One after the other: a
//!    node is reset only once the one before it answered;
//! 1. every `--topic` has at least one publisher (a discovered DDS writer on
//!    the topic, any type; names are absolute ROS names);
//! 2. every `--message` topic delivers a message: its type is read from its
//!    discovered publisher (any ROS 2 message type, the sample is not
//!    decoded), the probe subscribes best-effort/volatile (which matches
//!    every writer) and one sample must arrive. This is "the topic is
//!    publishing", not just "someone advertised it";
//! 3. `--simif-entity`: `<prefix>/get_entity_state` knows the entity
//!    (RESULT_OK); `--call-trigger`: the std_srvs/Trigger service is found,
//!    called once and answers `success: true` (a lock-step plant's start
//!    gate, e.g. `/sim_bridge/start`); `--simif-play`: `<prefix>/
//!    set_simulation_state` PLAYING answers RESULT_OK (the start through
//!    simulation_interfaces);
//! 4. `--clock-advancing`: two `/clock` (rosgraph_msgs/Clock) messages with
//!    increasing times are received;
//! 5. `--simif-step`: not a check but the campaign's stepper of a `stepping:
//!    step_simulation` simulator, which runs until killed ([`stepper`],
//!    REQ-SIMIF-STEP, REQ-SIMIF-TRUTH).
//!
//! Prints `ready: <check> after <s> s` per check on stdout. Exit code: 0
//! when every check passed; 1 when one missed its deadline or the service
//! answered `success: false` (`not ready: ...` on stderr); 2 for bad
//! arguments. Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use breakbench_ros::Subscription;
use breakbench_ros::{
    qos, ResetRunSrv, RosArgs, RosClient, RosEnv, RosNode, RosService, TriggerSrv, Undecoded,
};
use futures::StreamExt;
use kraken_interfaces::ros::{Clock, TriggerRequest};
use kraken_interfaces::ResetRunRequest;

/// The probe's arguments.
struct Probe {
    resets: Vec<String>,
    /// The request of every `--call-reset`.
    reset: ResetRunRequest,
    topics: Vec<String>,
    messages: Vec<String>,
    trigger: Option<String>,
    clock: bool,
    timeout: Duration,
    /// The `--simif-*` checks.
    simif: SimifArgs,
    /// `--simif-step`: the stepper.
    step: Option<StepArgs>,
}

mod simif;
mod stepper;

use stepper::StepArgs;

use simif::{SimifArgs, SimifClients};

const USAGE: &str = "usage: breakbench_ready [--simif-reset /prefix] [--call-reset /srv --seed N --run-id ID --out DIR]... [--topic /x]... [--message /y]... [--simif-entity /prefix ENTITY] [--call-trigger /srv] [--simif-play /prefix] [--clock-advancing] [--timeout-s S] [--simif-step /prefix --step-ns N --control-ns N [--command-topic /cmd_vel] [--truth-entity ENTITY --truth-ns N]]";

/// The `--simif-step` group from its flags' values (`None` when not given).
///
/// # Errors
/// A flag of the group without `--simif-step`, or `--simif-step` without
/// `--step-ns` and `--control-ns`, or one of `--truth-entity` /
/// `--truth-ns` without the other.
fn step_args(
    prefix: Option<String>,
    ns: [Option<u64>; 3],
    command_topic: Option<String>,
    truth_entity: Option<String>,
) -> Result<Option<StepArgs>, String> {
    let [step, control, truth] = ns;
    let Some(prefix) = prefix else {
        if step.is_some()
            || control.is_some()
            || truth.is_some()
            || command_topic.is_some()
            || truth_entity.is_some()
        {
            return Err(format!("--step-ns, --control-ns, --command-topic, --truth-entity and --truth-ns go with --simif-step; {USAGE}"));
        }
        return Ok(None);
    };
    let (Some(step_ns), Some(control_ns)) = (step, control) else {
        return Err(format!(
            "--simif-step needs --step-ns and --control-ns; {USAGE}"
        ));
    };
    let truth = match (truth_entity, truth) {
        (Some(e), Some(ns)) => Some((e, ns)),
        (None, None) => None,
        _ => {
            return Err(format!(
                "--truth-entity and --truth-ns go together; {USAGE}"
            ))
        }
    };
    Ok(Some(StepArgs {
        prefix,
        step_ns,
        control_ns,
        command_topic: command_topic.unwrap_or_else(|| "/cmd_vel".into()),
        truth,
    }))
}

fn parse(rest: &[String]) -> Result<Probe, String> {
    let mut p = Probe {
        resets: Vec::new(),
        reset: ResetRunRequest::default(),
        topics: Vec::new(),
        messages: Vec::new(),
        trigger: None,
        clock: false,
        timeout: Duration::from_secs(30),
        simif: SimifArgs::default(),
        step: None,
    };
    let (mut seed, mut run_id, mut out) = (None, None, None);
    let (mut step_prefix, mut ns, mut command_topic, mut truth_entity) =
        (None, [None; 3], None, None);
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value; {USAGE}"))
        };
        let absolute = |flag: &str, v: String| {
            if v.starts_with('/') {
                Ok(v)
            } else {
                Err(format!(
                    "{flag} {v:?}: expected an absolute ROS name (/...)"
                ))
            }
        };
        match a.as_str() {
            "--topic" => {
                let v = value("--topic")?;
                p.topics.push(absolute("--topic", v)?);
            }
            "--message" => {
                let v = value("--message")?;
                p.messages.push(absolute("--message", v)?);
            }
            "--call-trigger" => {
                let v = value("--call-trigger")?;
                p.trigger = Some(absolute("--call-trigger", v)?);
            }
            "--call-reset" => {
                let v = value("--call-reset")?;
                p.resets.push(absolute("--call-reset", v)?);
            }
            "--seed" => {
                let v = value("--seed")?;
                seed = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("--seed {v:?}: not an unsigned 64-bit integer"))?,
                );
            }
            "--simif-reset" => {
                let v = value("--simif-reset")?;
                p.simif.reset = Some(absolute("--simif-reset", v)?);
            }
            "--simif-play" => {
                let v = value("--simif-play")?;
                p.simif.play = Some(absolute("--simif-play", v)?);
            }
            "--simif-entity" => {
                let v = absolute("--simif-entity", value("--simif-entity")?)?;
                p.simif.entity = Some((v, value("--simif-entity PREFIX")?));
            }
            "--simif-step" => {
                let v = value("--simif-step")?;
                step_prefix = Some(absolute("--simif-step", v)?);
            }
            f @ ("--step-ns" | "--control-ns" | "--truth-ns") => {
                let v = value(f)?;
                let n = v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{f} {v:?}: not a positive integer (ns)"))?;
                let i = ["--step-ns", "--control-ns", "--truth-ns"]
                    .iter()
                    .position(|x| *x == f)
                    .expect("one of the three");
                ns[i] = Some(n);
            }
            "--command-topic" => {
                let v = value("--command-topic")?;
                command_topic = Some(absolute("--command-topic", v)?);
            }
            "--truth-entity" => truth_entity = Some(value("--truth-entity")?),
            "--run-id" => run_id = Some(value("--run-id")?),
            "--out" => out = Some(value("--out")?),
            "--clock-advancing" => p.clock = true,
            "--timeout-s" => {
                let v = value("--timeout-s")?;
                let s: f64 = v
                    .parse()
                    .map_err(|_| format!("--timeout-s {v:?}: not a number"))?;
                if !(s.is_finite() && s > 0.0 && s <= 3600.0) {
                    return Err(format!("--timeout-s {s}: must be in (0, 3600] s"));
                }
                p.timeout = Duration::from_secs_f64(s);
            }
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    p.step = step_args(step_prefix, ns, command_topic, truth_entity)?;
    match (p.resets.is_empty(), seed, run_id, out) {
        (true, None, None, None) => {}
        (false, Some(seed), Some(run_id), Some(out_dir)) => {
            p.reset = ResetRunRequest {
                seed,
                run_id,
                out_dir,
            }
        }
        (true, ..) => {
            return Err(format!(
                "--seed, --run-id and --out go with --call-reset; {USAGE}"
            ))
        }
        (false, ..) => {
            return Err(format!(
                "--call-reset needs --seed, --run-id and --out; {USAGE}"
            ))
        }
    }
    Ok(p)
}

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "breakbench_ready",
        "readiness check of an external stack: reset services (kraken_interfaces/ResetRun) called in order, topics with a publisher, topics delivering a message, a start service (std_srvs/Trigger), /clock advancing",
        "docs/graph.md (Graph campaigns on an external stack)",
    );
    breakbench_ros::init_logging(breakbench_ros::TOOL_LOG_FILTER);
    let (args, rest) = match RosArgs::parse(std::env::args().skip(1), "breakbench_ready") {
        Ok(v) => v,
        Err(e) => {
            eprintln!("breakbench_ready: error: {e}");
            return ExitCode::from(2);
        }
    };
    let probe = match parse(&rest) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("breakbench_ready: error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(args, &probe) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "breakbench_ready: not ready: {}",
                breakbench_ros::error_chain(&*e)
            );
            ExitCode::FAILURE
        }
    }
}

async fn with_timeout<T>(d: Duration, f: impl std::future::Future<Output = T>) -> Option<T> {
    futures::pin_mut!(f);
    match futures::future::select(f, Box::pin(smol::Timer::after(d))).await {
        futures::future::Either::Left((v, _)) => Some(v),
        futures::future::Either::Right(_) => None,
    }
}

/// The probe's clock: its start and `--timeout-s`.
struct Deadline {
    t0: Instant,
    timeout: Duration,
}

impl Deadline {
    /// Wall time left before the deadline (zero once it has passed).
    fn left(&self) -> Duration {
        self.timeout.saturating_sub(self.t0.elapsed())
    }
    /// Prints `ready: <what> after <s> s` (since the probe's start) on stdout.
    fn done(&self, what: &str) {
        println!(
            "ready: {what} after {:.2} s",
            self.t0.elapsed().as_secs_f64()
        );
    }
    /// The timeout, s, as the messages give it.
    fn timeout_s(&self) -> f64 {
        self.timeout.as_secs_f64()
    }
}

fn run(args: RosArgs, p: &Probe) -> Result<()> {
    let t0 = Instant::now();
    let env = RosEnv::from_env()?;
    let mut node = RosNode::new(env, args)?;
    // The entities after the node: dropped before it.
    let resets = p
        .resets
        .iter()
        .map(|s| Ok((s.clone(), node.client::<ResetRunSrv>(s)?)))
        .collect::<Result<Vec<_>>>()?;
    let trigger = match &p.trigger {
        Some(s) => Some((s.clone(), node.client::<TriggerSrv>(s)?)),
        None => None,
    };
    let sim = SimifClients::new(&mut node, &p.simif)?;
    let clock = if p.clock {
        Some(node.subscription::<Clock>("/clock", qos::clock())?)
    } else {
        None
    };
    let _spinner = node.spawn_spinner()?;
    let dl = Deadline {
        t0,
        timeout: p.timeout,
    };

    // 0. The resets, in order: the simulator's first.
    smol::block_on(sim.reset(&node, &dl))?;
    smol::block_on(call_resets(&node, &resets, &p.reset, &dl))?;
    // 1. Topics with a publisher.
    wait_for_publishers(&node, &p.topics, &dl, env.domain_id)?;
    // 2. Topics delivering a message: the type from the discovered
    // publisher, then one undecoded sample.
    let subs = subscribe_undecoded(&mut node, &p.messages, &dl, env.domain_id)?;
    smol::block_on(async {
        wait_for_messages(&subs, &dl).await?;
        // 3. The simulator's entity, then the start gate.
        sim.entity(&node, &dl).await?;
        if let Some((name, client)) = &trigger {
            call_trigger(&node, name, client, &dl).await?;
        }
        sim.play(&node, &dl).await?;
        // 4. /clock advancing.
        if let Some(sub) = &clock {
            wait_for_clock(sub, &dl).await?;
        }
        Ok::<(), anyhow::Error>(())
    })?;
    // 5. The stepper, until killed.
    match &p.step {
        Some(s) => stepper::drive(&mut node, s, p.timeout),
        None => Ok(()),
    }
}

/// Waits until `client`'s service is found, polling every 20 ms. Returns
/// `None` if it was not found before the deadline.
async fn find_service<S: RosService>(
    node: &RosNode,
    client: &RosClient<S>,
    dl: &Deadline,
) -> Option<()> {
    with_timeout(dl.left(), async {
        while !node.service_ready(client) {
            smol::Timer::after(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// Check 0: calls each `--call-reset` service in `resets` (name, client)
/// in order with `req`, each once found, and prints each answer.
///
/// # Errors
/// A service not found or not answering before the deadline, a failed call
/// or an answer with `success: false`.
async fn call_resets(
    node: &RosNode,
    resets: &[(String, RosClient<ResetRunSrv>)],
    req: &ResetRunRequest,
    dl: &Deadline,
) -> Result<()> {
    for (name, client) in resets {
        if find_service(node, client, dl).await.is_none() {
            bail!(
                "reset service {name} not found within {:.1} s",
                dl.timeout_s()
            );
        }
        match with_timeout(dl.left(), client.call(req.clone())).await {
            Some(Ok(r)) if r.success => dl.done(&format!("{name} answered {:?}", r.message)),
            Some(Ok(r)) => bail!("{name} answered success=false: {:?}", r.message),
            Some(Err(e)) => bail!("{name}: call failed: {e}"),
            None => bail!("{name}: no answer within {:.1} s", dl.timeout_s()),
        }
    }
    Ok(())
}

/// Check 1: waits, polling every 50 ms, until every topic of `topics` has a
/// publisher, printing each as it is found.
///
/// # Errors
/// Some have none at the deadline (named, with `domain_id`).
fn wait_for_publishers(
    node: &RosNode,
    topics: &[String],
    dl: &Deadline,
    domain_id: u16,
) -> Result<()> {
    let mut waiting: Vec<&String> = topics.iter().collect();
    loop {
        waiting.retain(|t| {
            let found = node.publisher_count(t) > 0;
            if found {
                dl.done(&format!("{t} has a publisher"));
            }
            !found
        });
        if waiting.is_empty() {
            return Ok(());
        }
        if dl.left().is_zero() {
            bail!(
                "no publisher on {} within {:.1} s (ROS_DOMAIN_ID {})",
                waiting
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                dl.timeout_s(),
                domain_id
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An undecoded subscription of check 2: the topic, its ROS type
/// (package, type) and the subscription.
type UndecodedSub<'a> = (&'a String, (String, String), Subscription<Undecoded>);

/// Check 2, first half: for each topic of `messages` in order, waits
/// (polling every 50 ms) for a publisher's ROS type, then subscribes to it
/// undecoded, best-effort. Returns the subscriptions in that order.
///
/// # Errors
/// A topic without a typed publisher at the deadline (with `domain_id`);
/// a subscription that cannot be created.
fn subscribe_undecoded<'a>(
    node: &mut RosNode,
    messages: &'a [String],
    dl: &Deadline,
    domain_id: u16,
) -> Result<Vec<UndecodedSub<'a>>> {
    let mut subs = Vec::new();
    for t in messages {
        let ros_type = loop {
            if let Some(ty) = node.discovered_type(t) {
                break ty;
            }
            if dl.left().is_zero() {
                bail!(
                    "no publisher of a ROS 2 message type on {t} within {:.1} s (ROS_DOMAIN_ID {})",
                    dl.timeout_s(),
                    domain_id
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        subs.push((
            t,
            ros_type.clone(),
            node.undecoded_subscription(t, &ros_type, qos::subscribe(1))?,
        ));
    }
    Ok(subs)
}

/// Check 2, second half: waits for one sample on each of `subs` in order,
/// printing each.
///
/// # Errors
/// A topic that delivered nothing before the deadline.
async fn wait_for_messages(subs: &[UndecodedSub<'_>], dl: &Deadline) -> Result<()> {
    for (t, (pkg, ty), sub) in subs {
        let got = with_timeout(dl.left(), async {
            let mut s = std::pin::pin!(sub.async_stream());
            loop {
                if let Some(Ok(_)) = s.next().await {
                    return;
                }
            }
        })
        .await;
        match got {
            Some(()) => dl.done(&format!("{t} ({pkg}/msg/{ty}) delivered a message")),
            None => bail!(
                "{t} ({pkg}/msg/{ty}) has a publisher but delivered no message within {:.1} s",
                dl.timeout_s()
            ),
        }
    }
    Ok(())
}

/// Check 3: calls the `--call-trigger` service `name` once found, and
/// prints its answer.
///
/// # Errors
/// Not found or not answering before the deadline, a failed call or an
/// answer with `success: false`.
async fn call_trigger(
    node: &RosNode,
    name: &str,
    client: &RosClient<TriggerSrv>,
    dl: &Deadline,
) -> Result<()> {
    if find_service(node, client, dl).await.is_none() {
        bail!("service {name} not found within {:.1} s", dl.timeout_s());
    }
    match with_timeout(dl.left(), client.call(TriggerRequest::default())).await {
        Some(Ok(r)) if r.success => dl.done(&format!("{name} answered {:?}", r.message)),
        Some(Ok(r)) => bail!("{name} answered success=false: {:?}", r.message),
        Some(Err(e)) => bail!("{name}: call failed: {e}"),
        None => bail!("{name}: no answer within {:.1} s", dl.timeout_s()),
    }
    Ok(())
}

/// Check 4: waits for two `/clock` messages on `sub` with increasing times
/// and prints both (s.ns).
///
/// # Errors
/// `/clock` did not advance before the deadline.
async fn wait_for_clock(sub: &Subscription<Clock>, dl: &Deadline) -> Result<()> {
    let advanced = with_timeout(dl.left(), async {
        let mut first = None;
        loop {
            if let Ok(c) = sub.async_take().await {
                let t = (c.clock.sec, c.clock.nanosec);
                match first {
                    None => first = Some(t),
                    Some(f) if t > f => return (f, t),
                    Some(_) => {}
                }
            }
        }
    })
    .await;
    match advanced {
        Some((a, b)) => dl.done(&format!(
            "/clock advancing ({}.{:09} s -> {}.{:09} s)",
            a.0, a.1, b.0, b.1
        )),
        None => bail!("/clock did not advance within {:.1} s", dl.timeout_s()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// `--simif-step` and its group: parsed, or refused naming the flag.
    #[test]
    fn the_stepper_arguments_go_together() {
        let p = parse(&args(
            "--simif-step /sim --step-ns 10000000 --control-ns 50000000 --truth-entity robot --truth-ns 20000000",
        ))
        .unwrap();
        let s = p.step.unwrap();
        assert_eq!(
            (
                s.prefix.as_str(),
                s.step_ns,
                s.control_ns,
                s.command_topic.as_str(),
                s.truth
            ),
            (
                "/sim",
                10_000_000,
                50_000_000,
                "/cmd_vel",
                Some(("robot".to_string(), 20_000_000))
            )
        );
        for (a, want) in [
            (
                "--simif-step /sim --step-ns 10",
                "needs --step-ns and --control-ns",
            ),
            ("--step-ns 10", "go with --simif-step"),
            (
                "--simif-step /sim --step-ns 10 --control-ns 50 --truth-ns 20",
                "--truth-entity and --truth-ns go together",
            ),
            (
                "--simif-step /sim --step-ns 0",
                "--step-ns \"0\": not a positive",
            ),
            (
                "--simif-step sim",
                "--simif-step \"sim\": expected an absolute",
            ),
        ] {
            let e = parse(&args(a)).err().unwrap_or_default();
            assert!(e.contains(want), "{a}: {e}");
        }
    }
}
