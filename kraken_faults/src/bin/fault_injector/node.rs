//! `fault_injector`: the kraken_faults ROS 2 node.
//!
//! Subscribes each channel's `input_topic` from channels.yaml, feeds the
//! message through the channel's fault ([`Injector::push`]), publishes what
//! the channel releases ([`Injector::poll`]) on `output_topic`, serves
//! `~/set_fault` (kraken_interfaces/srv/SetFault) and `~/clear_faults`
//! (std_srvs/srv/Trigger) — `/fault_injector/set_fault` and
//! `/fault_injector/clear_faults` under the default node name, following
//! `-r __ns:=` and `-r __node:=` — publishes
//! `~/status` (kraken_interfaces/msg/FaultStatus) at `status_rate_hz` and on
//! every change, and broadcasts the TF keep-alive of odometry channels in
//! dropout on `/tf`.
//!
//! Channels of any other message type (dynamic channels, REQ-FAULT-ANY-TYPE)
//! are relayed as raw serialized bytes ([`breakbench_ros::RawCdr`]) through
//! a fault stack ([`kraken_faults::DynChannel`]): `~/set_fault_stack`
//! (kraken_interfaces/srv/SetFaultStack) sets or extends it,
//! `~/clear_fault_stage` (kraken_interfaces/srv/ClearFaultStage) removes one
//! stage by id, `~/clear_faults` empties every stack too, and
//! `~/stack_status` (diagnostic_msgs/msg/DiagnosticArray, one status per
//! channel) reports the stages at `status_rate_hz` and on every call.
//! `~/set_fault` on a dynamic channel sets the typed mode as stages on the
//! channel's `fault_fields` (the actuator faults of `/cmd_vel`:
//! [`kraken_faults::spec_stages`], REQ-FAULT-ACTUATOR), replacing its stack.
//! A `rosgraph_msgs/msg/Clock` channel publishing `/clock` is the node's own
//! sim clock source through its *input* (REQ-FAULT-TF-CLOCK).
//!
//! The typed channels have a stack too ([`kraken_faults::TypedStack`]), run
//! after their typed fault on the message's CDR form; the same two
//! services set it. `~/set_fault` on a typed channel replaces its faults:
//! the typed fault and the stack (seed 001's meaning).
//!
//! `~/reset` (kraken_interfaces/srv/ResetRun, REQ-GRAPH-RESET): the next run
//! of a kept-running graph; every channel and stack as at start-up (held
//! messages dropped), every random stream re-seeded from the request's
//! `seed` (the run's seed: the streams of a started-fresh injector with
//! `seed` set to it, which are the in-process run's, REQ-GRAPH-SEED), the
//! sim clock back to "no time yet" (the plant restarts `/clock` at 0).
//!
//! Production guard: refuses to start (exit code 2) unless
//! `KRAKEN_FAULTS_ENABLE=1` or the parameter `enable` is true.
//!
//! Parameters (all optional): `enable` (bool, false), `channels_file`
//! (string; empty or not given: the package's `config/channels.yaml`), `seed` (integer, 0: the
//! run's seed, its u64 bits; each channel draws from its own stream
//! `kraken_faults::channel_rng(seed, name)`, its typed stack from
//! `channel_rng(seed, "<name>/stack")`, as the in-process run of that seed,
//! REQ-GRAPH-SEED; `~/reset` replaces it with the request's `seed`),
//! `status_rate_hz` (double in [0.001, 1000], 1.0), `use_sim_time` (bool,
//! false), `clock_topic` (string: the topic the node's own sim clock follows;
//! default the input of a `rosgraph_msgs/msg/Clock` channel publishing
//! `/clock`, else `/clock`; never a channel's output, REQ-FAULT-TF-CLOCK).
//! An out-of-range parameter is an error with exit code 2.
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use std::sync::Arc;

use anyhow::Result;
use breakbench_msgs::TypeRegistry;
use breakbench_ros::ros2_client::{RmwRequestId, Subscription};
use breakbench_ros::{
    qos, ClearFaultStageSrv, Msg, NodeClock, RawCdr, ResetRunSrv, RosArgs, RosEnv, RosNode,
    SetFaultSrv, SetFaultStackSrv, Shutdown, TriggerSrv,
};
use futures::stream::{select_all, LocalBoxStream, StreamExt};
use kraken_faults::{clock_source, ChannelsConfig, MsgKind, SensorMsg};
use kraken_interfaces::ros::{
    Clock, DiagnosticArray, Header, Imu, LaserScan, NavSatFix, Odometry, TFMessage, TriggerResponse,
};
use kraken_interfaces::{
    mode_name, ClearFaultStageRequest, ClearFaultStageResponse, FaultStatus, ResetRunRequest,
    ResetRunResponse, SetFaultRequest, SetFaultResponse, SetFaultStackRequest,
    SetFaultStackResponse,
};

mod state;
use state::{
    bounded_reply, channel_qos, release, release_dyn, stack_of, unknown_channel, ChanPub, Faults,
    HeapTrim,
};

const NODE_NAME: &str = "fault_injector";

/// Exit code when the production guard refuses to start.
const EXIT_GUARD: u8 = 2;
/// Exit code for an invalid parameter value (same as the guard: nothing ran).
const EXIT_USAGE: u8 = 2;
/// Accepted `status_rate_hz` range: at least one status per 1000 s (keeps
/// the period a representable Duration), at most 1 kHz.
const MIN_RATE_HZ: f64 = 1e-3;
const MAX_RATE_HZ: f64 = 1e3;

enum ChanSub {
    NavSatFix(Subscription<NavSatFix>),
    Imu(Subscription<Imu>),
    Odometry(Subscription<Odometry>),
    LaserScan(Subscription<LaserScan>),
}

// Inputs are the hot path: moved once into the injector, no extra allocation.
#[allow(clippy::large_enum_variant)]
enum Event {
    Input(usize, SensorMsg),
    DynInput(usize, RawCdr),
    SetFault(RmwRequestId, SetFaultRequest),
    SetStack(RmwRequestId, SetFaultStackRequest),
    ClearStage(RmwRequestId, ClearFaultStageRequest),
    ClearFaults(RmwRequestId),
    Reset(RmwRequestId, ResetRunRequest),
    Clock(Clock),
}

fn input_stream<M, F>(sub: &Subscription<M>, idx: usize, wrap: F) -> LocalBoxStream<'_, Event>
where
    M: serde::de::DeserializeOwned + 'static,
    F: Fn(M) -> SensorMsg + 'static,
{
    sub.async_stream()
        .filter_map(move |r| {
            let ev = match r {
                Ok((m, _info)) => Some(Event::Input(idx, wrap(m))),
                Err(e) => {
                    tracing::warn!("channel #{idx}: receive error {e:?}");
                    None
                }
            };
            std::future::ready(ev)
        })
        .boxed_local()
}

impl ChanSub {
    fn stream(&self, idx: usize) -> LocalBoxStream<'_, Event> {
        match self {
            ChanSub::NavSatFix(s) => input_stream(s, idx, SensorMsg::NavSatFix),
            ChanSub::Imu(s) => input_stream(s, idx, SensorMsg::Imu),
            ChanSub::Odometry(s) => input_stream(s, idx, SensorMsg::Odometry),
            ChanSub::LaserScan(s) => input_stream(s, idx, SensorMsg::LaserScan),
        }
    }
}

/// The channels file when `channels_file` is not given: the installed
/// package's share directory (colcon/ament layout) if present, else the
/// source tree's `kraken_faults/config/channels.yaml`.
fn default_channels_file() -> PathBuf {
    if let Ok(prefixes) = std::env::var("AMENT_PREFIX_PATH") {
        for p in prefixes.split(':').filter(|p| !p.is_empty()) {
            let f = PathBuf::from(p).join("share/kraken_faults/config/channels.yaml");
            if f.is_file() {
                return f;
            }
        }
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/config/channels.yaml"))
}

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "fault_injector",
        "relays the channels of channels.yaml through fault stages; services ~/set_fault (typed channels), ~/clear_faults, ~/set_fault_stack and ~/clear_fault_stage (every channel); status on ~/status and ~/stack_status. Refuses to start unless KRAKEN_FAULTS_ENABLE=1 or -p enable:=true",
        "kraken_faults/README.md",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fault_injector: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        anyhow::bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }

    // Production guard, before any DDS traffic.
    let env_enable = std::env::var("KRAKEN_FAULTS_ENABLE").is_ok_and(|v| v == "1");
    let param_enable = args.param_bool("enable", false)?;
    if !(env_enable || param_enable) {
        eprintln!(
            "fault_injector: refusing to start: fault injection is not enabled. \
             This node corrupts sensor data on purpose; enable it only on test systems with \
             KRAKEN_FAULTS_ENABLE=1 or the parameter `enable: true` (--ros-args -p enable:=true)."
        );
        return Ok(ExitCode::from(EXIT_GUARD));
    }

    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    // Not given, or "" (a parameters file's "the default"): the installed one.
    let channels_file = match args.params.get("channels_file") {
        Some(_) => match args.param_string("channels_file", "")? {
            f if f.is_empty() => default_channels_file(),
            f => PathBuf::from(f),
        },
        None => default_channels_file(),
    };
    let seed = args.param_i64("seed", 0)?;
    let status_rate_hz = args.param_f64("status_rate_hz", 1.0)?;
    if !(MIN_RATE_HZ..=MAX_RATE_HZ).contains(&status_rate_hz) {
        eprintln!(
            "fault_injector: error: parameter 'status_rate_hz' must be in \
             [{MIN_RATE_HZ}, {MAX_RATE_HZ}] Hz, got {status_rate_hz}"
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    // Topics compared as they will resolve: `scan_raw` is `/scan_raw` in
    // the root namespace.
    let cfg = ChannelsConfig::load_resolved(&channels_file, |n| args.resolve(n))?;
    // The node's own clock never follows a faulted output (a /clock channel
    // stalls or jumps its output; the node keeps the raw clock).
    let clock_topic = match args.params.get("clock_topic") {
        Some(_) => Some(args.param_string("clock_topic", "")?),
        None => None,
    };
    let clock_src = match clock_source(&cfg, clock_topic.as_deref(), |n| args.resolve(n)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fault_injector: error: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };

    let mut node = RosNode::new(env, args)?;
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        channels_file = %channels_file.display(),
        seed,
        sim_time = matches!(node.clock, NodeClock::Sim(_)),
        clock_topic = %clock_src.resolved,
        "starting"
    );

    let mut subs = Vec::new();
    let mut pubs = Vec::new();
    for c in &cfg.channels {
        let (sub_qos, pub_qos) = channel_qos(&c.qos);
        let (i, o) = (c.input_topic.as_str(), c.output_topic.as_str());
        let (s, p) = match c.kind {
            MsgKind::NavSatFix => (
                ChanSub::NavSatFix(node.subscription(i, sub_qos)?),
                ChanPub::NavSatFix(node.publisher(o, pub_qos)?),
            ),
            MsgKind::Imu => (
                ChanSub::Imu(node.subscription(i, sub_qos)?),
                ChanPub::Imu(node.publisher(o, pub_qos)?),
            ),
            MsgKind::Odometry => (
                ChanSub::Odometry(node.subscription(i, sub_qos)?),
                ChanPub::Odometry(node.publisher(o, pub_qos)?),
            ),
            MsgKind::LaserScan => (
                ChanSub::LaserScan(node.subscription(i, sub_qos)?),
                ChanPub::LaserScan(node.publisher(o, pub_qos)?),
            ),
        };
        tracing::info!(
            channel = %c.name,
            input = %node.args.resolve(i),
            output = %node.args.resolve(o),
            r#type = c.kind.ros_type(),
            "channel"
        );
        subs.push(s);
        pubs.push(p);
    }
    // Dynamic channels: raw bytes in and out, the type resolved once more
    // (built-in + AMENT_PREFIX_PATH, as the file was checked).
    let reg = Arc::new(if cfg.dynamic_channels.is_empty() {
        TypeRegistry::builtin()
    } else {
        TypeRegistry::with_ament_prefix_path()?
    });
    let Faults {
        mut injector,
        mut rngs,
        mut typed,
        mut dyns,
        mut dyn_rngs,
    } = Faults::new(&cfg, &reg, seed as u64)?;
    let mut dyn_subs = Vec::new();
    let mut dyn_pubs = Vec::new();
    for c in &cfg.dynamic_channels {
        let (sub_qos, pub_qos) = channel_qos(&c.qos);
        let (i, o) = (c.input_topic.as_str(), c.output_topic.as_str());
        dyn_subs.push(node.raw_subscription(i, &c.type_name, sub_qos)?);
        dyn_pubs.push(node.raw_publisher(o, &c.type_name, pub_qos)?);
        tracing::info!(
            channel = %c.name,
            input = %node.args.resolve(i),
            output = %node.args.resolve(o),
            r#type = %c.type_name,
            "dynamic channel"
        );
    }
    let status_pub = node.publisher::<FaultStatus>("~/status", qos::publish())?;
    let tf_pub = if cfg.channels.iter().any(|c| c.tf_keepalive.is_some()) {
        Some(node.publisher::<TFMessage>("/tf", qos::publish())?)
    } else {
        None
    };
    // Private names: they follow `__ns`/`__node` like `~/status`
    // (defaults `/fault_injector/set_fault`, `/fault_injector/clear_faults`).
    let set_name = node.args.resolve("~/set_fault");
    let clear_name = node.args.resolve("~/clear_faults");
    let set_srv = node.server::<SetFaultSrv>("~/set_fault")?;
    let clear_srv = node.server::<TriggerSrv>("~/clear_faults")?;
    let stack_srv = node.server::<SetFaultStackSrv>("~/set_fault_stack")?;
    let stage_srv = node.server::<ClearFaultStageSrv>("~/clear_fault_stage")?;
    let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
    let stack_status_pub = node.publisher::<DiagnosticArray>("~/stack_status", qos::publish())?;
    let node_fqn = node.args.fully_qualified_name();
    // A Clock channel's input feeds the clock from its own messages (in
    // order with them); any other clock topic gets a subscription.
    let clock_sub = if clock_src.channel.is_some() {
        None
    } else {
        node.clock_subscription_on(&clock_src.topic)?
    };
    let clock_channel = clock_src.channel;
    let _spinner = node.spawn_spinner()?;
    let clock = node.clock.clone();
    let node_clock = node.clock.clone();

    let mut streams: Vec<LocalBoxStream<'_, Event>> =
        subs.iter().enumerate().map(|(i, s)| s.stream(i)).collect();
    for (i, s) in dyn_subs.iter().enumerate() {
        streams.push(
            s.async_stream()
                .filter_map(move |r| {
                    std::future::ready(match r {
                        Ok((m, _info)) => Some(Event::DynInput(i, m)),
                        Err(e) => {
                            tracing::warn!("dynamic channel #{i}: receive error {e:?}");
                            None
                        }
                    })
                })
                .boxed_local(),
        );
    }
    streams.push(
        stack_srv
            .receive_request_stream()
            .filter_map(|r| {
                std::future::ready(match r {
                    Ok((id, Msg(req))) => Some(Event::SetStack(id, req)),
                    Err(e) => {
                        tracing::warn!("set_fault_stack: bad request {e:?}");
                        None
                    }
                })
            })
            .boxed_local(),
    );
    streams.push(
        stage_srv
            .receive_request_stream()
            .filter_map(|r| {
                std::future::ready(match r {
                    Ok((id, Msg(req))) => Some(Event::ClearStage(id, req)),
                    Err(e) => {
                        tracing::warn!("clear_fault_stage: bad request {e:?}");
                        None
                    }
                })
            })
            .boxed_local(),
    );
    streams.push(
        set_srv
            .receive_request_stream()
            .filter_map(|r| {
                std::future::ready(match r {
                    Ok((id, Msg(req))) => Some(Event::SetFault(id, req)),
                    Err(e) => {
                        tracing::warn!("set_fault: bad request {e:?}");
                        None
                    }
                })
            })
            .boxed_local(),
    );
    streams.push(
        reset_srv
            .receive_request_stream()
            .filter_map(|r| {
                std::future::ready(match r {
                    Ok((id, Msg(req))) => Some(Event::Reset(id, req)),
                    Err(e) => {
                        tracing::warn!("reset: bad request {e:?}");
                        None
                    }
                })
            })
            .boxed_local(),
    );
    streams.push(
        clear_srv
            .receive_request_stream()
            .filter_map(|r| {
                std::future::ready(match r {
                    Ok((id, _)) => Some(Event::ClearFaults(id)),
                    Err(e) => {
                        tracing::warn!("clear_faults: bad request {e:?}");
                        None
                    }
                })
            })
            .boxed_local(),
    );
    let sim = match &node_clock {
        NodeClock::Sim(c) => Some(c.clone()),
        NodeClock::Wall => None,
    };
    if let Some((sub, _)) = &clock_sub {
        streams.push(
            sub.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(c, _)| Event::Clock(c))))
                .boxed_local(),
        );
    }
    let mut events = shutdown.until(select_all(streams));

    let names: Vec<String> = cfg.channels.iter().map(|c| c.name.clone()).collect();
    let keepalive_period: Vec<Option<Duration>> = cfg
        .channels
        .iter()
        .map(|c| {
            c.tf_keepalive
                .as_ref()
                .map(|k| Duration::from_secs_f64(1.0 / k.tf_rate_hz))
        })
        .collect();
    let mut next_keepalive: Vec<Instant> = vec![Instant::now(); names.len()];
    let status_period = Duration::from_secs_f64(1.0 / status_rate_hz);
    let mut next_status = Instant::now();
    let mut last_status_key = Vec::new();
    let mut next_change_check = Instant::now();
    let mut trim = HeapTrim::default();
    tracing::info!("ready: {set_name}, {clear_name}");

    smol::block_on(async {
        loop {
            // Wake at the next status/keep-alive deadline, and (wall clock) when
            // the earliest held message is due. Under sim time every /clock
            // message wakes the loop, which then polls every channel.
            let wall = Instant::now();
            let mut deadline = next_status.min(next_change_check);
            for (i, p) in keepalive_period.iter().enumerate() {
                if p.is_some() && injector.channels()[i].is_active(clock.now()) {
                    deadline = deadline.min(next_keepalive[i]);
                }
            }
            if matches!(clock, NodeClock::Wall) {
                let now = clock.now();
                if let Some(next) = injector
                    .channels()
                    .iter()
                    .filter_map(|c| c.next_release())
                    .chain(dyns.iter().filter_map(|d| d.next_release()))
                    .chain(typed.stacks.iter().filter_map(|t| t.next_release()))
                    .min()
                {
                    deadline = deadline.min(wall + next.saturating_sub(now));
                }
            }
            let timeout = deadline.saturating_duration_since(wall);
            let ev = {
                let next = events.next();
                let timer = smol::Timer::after(timeout);
                futures::pin_mut!(next);
                match futures::future::select(next, Box::pin(timer)).await {
                    futures::future::Either::Left((Some(ev), _)) => Some(ev),
                    futures::future::Either::Left((None, _)) => {
                        if !shutdown.is_requested() {
                            tracing::error!("all input streams ended");
                        }
                        return;
                    }
                    futures::future::Either::Right(_) => None,
                }
            };
            let now = clock.now();
            let mut changed = false;
            match ev {
                Some(Event::Input(i, msg)) => {
                    if let Err(e) = injector.push(&names[i], msg, now, &mut rngs[i]) {
                        tracing::warn!("channel {}: {e}", names[i]);
                    }
                    release(&mut injector, &pubs, &names, &mut typed, i, now);
                    // Under a continuous input stream the timer never wins the
                    // select: do the periodic work only when it is due.
                    if Instant::now() < deadline {
                        continue;
                    }
                }
                Some(Event::DynInput(i, m)) => {
                    // The raw clock moves the node's clock before its
                    // message enters the channel's stack.
                    let now = match (&sim, clock_channel == Some(i)) {
                        (Some(s), true) => {
                            match kraken_faults::clock_of(&m.0) {
                                Some((sec, nanosec)) => s.update(&Clock {
                                    clock: kraken_interfaces::ros::Time { sec, nanosec },
                                }),
                                None => tracing::warn!(
                                    "channel {}: a message that is not a rosgraph_msgs/msg/Clock",
                                    dyns[i].name
                                ),
                            }
                            clock.now()
                        }
                        _ => now,
                    };
                    dyns[i].push(m.0, now, &mut dyn_rngs[i]);
                    release_dyn(&mut dyns[i], &dyn_pubs[i], now);
                    if Instant::now() < deadline {
                        continue;
                    }
                }
                Some(Event::SetStack(id, req)) => {
                    let resp = match stack_of(&mut dyns, &mut typed.stacks, &req.channel) {
                        Some(d) => match d.set_stack(&req.stack_yaml, req.append, now) {
                            Ok(ids) => SetFaultStackResponse {
                                success: true,
                                message: format!(
                                    "channel '{}': {} stage(s): {}",
                                    d.name,
                                    ids.len(),
                                    d.stack().describe().join("; ")
                                ),
                                ids,
                            },
                            Err(e) => SetFaultStackResponse {
                                success: false,
                                message: format!("channel '{}': {e}", d.name),
                                ids: d.ids(),
                            },
                        },
                        None => SetFaultStackResponse {
                            success: false,
                            message: unknown_channel(&req.channel, &names, &dyns),
                            ids: Vec::new(),
                        },
                    };
                    if resp.success {
                        tracing::info!("set_fault_stack: {}", resp.message);
                    } else {
                        tracing::warn!("set_fault_stack rejected: {}", resp.message);
                    }
                    let resp = SetFaultStackResponse {
                        message: bounded_reply(resp.message),
                        ..resp
                    };
                    if let Err(e) = stack_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("set_fault_stack: response not sent: {e:?}");
                    }
                    changed = true;
                }
                Some(Event::ClearStage(id, req)) => {
                    let resp = match stack_of(&mut dyns, &mut typed.stacks, &req.channel) {
                        Some(d) => match d.clear_stage(req.id, now) {
                            Ok(()) => ClearFaultStageResponse {
                                success: true,
                                message: format!(
                                    "channel '{}': stage {} cleared; ids now {:?}",
                                    d.name,
                                    req.id,
                                    d.ids()
                                ),
                            },
                            Err(e) => ClearFaultStageResponse {
                                success: false,
                                message: e,
                            },
                        },
                        None => ClearFaultStageResponse {
                            success: false,
                            message: unknown_channel(&req.channel, &names, &dyns),
                        },
                    };
                    if resp.success {
                        tracing::info!("clear_fault_stage: {}", resp.message);
                    } else {
                        tracing::warn!("clear_fault_stage rejected: {}", resp.message);
                    }
                    let resp = ClearFaultStageResponse {
                        message: bounded_reply(resp.message),
                        ..resp
                    };
                    if let Err(e) = stage_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("clear_fault_stage: response not sent: {e:?}");
                    }
                    changed = true;
                }
                Some(Event::SetFault(id, req)) => {
                    let spec = req.fault;
                    let set = match names.iter().position(|n| *n == spec.channel) {
                        // Seed 001's meaning: one fault replaces the
                        // channel's faults, its stack included.
                        Some(k) => injector
                            .set_fault_seeded(&spec, now, &mut rngs[k])
                            .map(|()| typed.stacks[k].stack_mut().clear_all(now))
                            .map_err(anyhow::Error::from),
                        // A raw channel: the typed mode as stages on its
                        // fault_fields (kraken_faults::spec_stages).
                        None => match dyns.iter_mut().find(|d| d.name == spec.channel) {
                            Some(d) => d.set_fault(&spec, now).map_err(Into::into),
                            // Unknown channel: the injector's error names it.
                            None => injector.set_fault(&spec, now).map_err(Into::into),
                        },
                    };
                    let resp = match set {
                        Ok(()) => {
                            let msg = format!(
                                "set {} on channel '{}'",
                                mode_name(spec.mode).unwrap_or("?"),
                                spec.channel
                            );
                            tracing::info!("{msg}");
                            SetFaultResponse {
                                success: true,
                                message: msg,
                            }
                        }
                        Err(e) => {
                            tracing::warn!("set_fault rejected: {e}");
                            SetFaultResponse {
                                success: false,
                                message: e.to_string(),
                            }
                        }
                    };
                    let resp = SetFaultResponse {
                        message: bounded_reply(resp.message),
                        ..resp
                    };
                    if let Err(e) = set_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("set_fault: response not sent: {e:?}");
                    }
                    changed = true;
                }
                Some(Event::ClearFaults(id)) => {
                    injector.clear_faults_at(now);
                    for d in &mut dyns {
                        d.clear_all(now);
                    }
                    for t in &mut typed.stacks {
                        t.stack_mut().clear_all(now);
                    }
                    tracing::info!("cleared all faults");
                    let resp = TriggerResponse {
                        success: true,
                        message: "all faults cleared".into(),
                    };
                    if let Err(e) = clear_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("clear_faults: response not sent: {e:?}");
                    }
                    changed = true;
                }
                Some(Event::Reset(id, req)) => {
                    // The next run of a kept-running graph: every channel
                    // and stack as at start-up (messages held by a fault
                    // are dropped: they belong to the previous run), every
                    // random stream from the run's seed (REQ-GRAPH-SEED),
                    // sim time back to "none yet".
                    let resp = match Faults::new(&cfg, &reg, req.seed) {
                        Ok(f) => {
                            (injector, rngs, typed, dyns, dyn_rngs) =
                                (f.injector, f.rngs, f.typed, f.dyns, f.dyn_rngs);
                            if let Some(s) = &sim {
                                s.reset();
                            }
                            tracing::info!(
                                run_id = %req.run_id,
                                seed = req.seed,
                                "reset: every fault cleared, streams re-seeded"
                            );
                            ResetRunResponse {
                                success: true,
                                message: format!(
                                    "every fault cleared, channels as at start-up, streams from seed {}, for run {}",
                                    req.seed, req.run_id
                                ),
                            }
                        }
                        Err(e) => ResetRunResponse {
                            success: false,
                            message: bounded_reply(format!("{e:#}")),
                        },
                    };
                    if let Err(e) = reset_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("reset: response not sent: {e:?}");
                    }
                    changed = true;
                }
                Some(Event::Clock(c)) => {
                    if let Some(s) = &sim {
                        s.update(&c);
                    }
                }
                None => {}
            }
            let now = clock.now();
            for i in 0..names.len() {
                release(&mut injector, &pubs, &names, &mut typed, i, now);
            }
            for (d, p) in dyns.iter_mut().zip(&dyn_pubs) {
                release_dyn(d, p, now);
            }
            let wall = Instant::now();
            // TF keep-alive of odometry channels in dropout.
            if let Some(tf) = &tf_pub {
                for (i, p) in keepalive_period.iter().enumerate() {
                    let Some(p) = p else { continue };
                    if wall < next_keepalive[i] {
                        continue;
                    }
                    if let Some(t) = injector.channels()[i].keepalive_transform(now) {
                        if let Err(e) = tf.publish(TFMessage {
                            transforms: vec![t],
                        }) {
                            tracing::warn!("/tf keep-alive: {e:?}");
                        }
                    }
                    next_keepalive[i] = wall + *p;
                }
            }
            // Status: periodically, and when a fault's state changes (checked
            // every 20 ms, ignoring the message counters).
            let due = wall >= next_status;
            if changed || due || wall >= next_change_check {
                // Typed channels, then the raw ones (their `~/set_fault`
                // fault, e.g. on the actuator channel cmd_vel).
                let mut st = injector.status(now);
                st.channels.extend(dyns.iter().map(|d| d.fault_status(now)));
                let held: u64 = st.channels.iter().map(|c| c.bytes_held).sum();
                let key: Vec<_> = st
                    .channels
                    .iter()
                    .map(|c| {
                        (
                            c.fault.mode,
                            c.active,
                            c.requested,
                            c.first_applied,
                            c.cleared,
                        )
                    })
                    .collect();
                if changed || due || key != last_status_key {
                    if let Err(e) = status_pub.publish(st) {
                        tracing::warn!("status: {e:?}");
                    }
                    // Typed channels first (typed fault, then stages), then
                    // the dynamic ones.
                    let arr = DiagnosticArray {
                        header: Header {
                            stamp: breakbench_ros::to_stamp(now),
                            frame_id: String::new(),
                        },
                        status: typed
                            .stacks
                            .iter()
                            .zip(injector.channels())
                            .map(|(t, c)| t.status(now, &node_fqn, c))
                            .chain(dyns.iter().map(|d| d.status(now, &node_fqn)))
                            .collect(),
                    };
                    if let Err(e) = stack_status_pub.publish(arr) {
                        tracing::warn!("stack_status: {e:?}");
                    }
                    last_status_key = key;
                    next_status = wall + status_period;
                }
                next_change_check = wall + Duration::from_millis(20);
                trim.after(held);
            }
        }
    });
    Ok(ExitCode::SUCCESS)
}
