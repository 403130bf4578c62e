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
use std::time::Instant;

use anyhow::Result;
use breakbench_ros::{RosArgs, RosEnv, RosNode, Shutdown};
use futures::stream::{select_all, StreamExt};
use kraken_faults::{clock_source, ChannelsConfig, ClockSource};

mod events;
mod relay;
mod services;
mod state;
mod wiring;

use relay::{FaultNode, Then};

const NODE_NAME: &str = "fault_injector";

/// The target of the node's log lines, its handlers' included (they live
/// in submodules; the lines stay `fault_injector::node: ...`).
const LOG_TARGET: &str = module_path!();

/// Exit code when the production guard refuses to start.
const EXIT_GUARD: u8 = 2;
/// Exit code for an invalid parameter value (same as the guard: nothing ran).
const EXIT_USAGE: u8 = 2;
/// Accepted `status_rate_hz` range: at least one status per 1000 s (keeps
/// the period a representable Duration), at most 1 kHz.
const MIN_RATE_HZ: f64 = 1e-3;
const MAX_RATE_HZ: f64 = 1e3;

/// The channels file when `channels_file` is not given: the installed
/// package's share directory (colcon/ament layout) if present, else the
/// source tree's `faults/kraken_faults/config/channels.yaml`.
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
        "faults/kraken_faults/README.md",
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

/// The production guard, before any DDS traffic: true when
/// `KRAKEN_FAULTS_ENABLE=1` or the parameter `enable` is true; otherwise
/// says why on stderr and returns false. Errors: `enable` not a bool.
fn enabled(args: &RosArgs) -> Result<bool> {
    let env_enable = std::env::var("KRAKEN_FAULTS_ENABLE").is_ok_and(|v| v == "1");
    let param_enable = args.param_bool("enable", false)?;
    if !(env_enable || param_enable) {
        eprintln!(
            "fault_injector: refusing to start: fault injection is not enabled. \
             This node corrupts sensor data on purpose; enable it only on test systems with \
             KRAKEN_FAULTS_ENABLE=1 or the parameter `enable: true` (--ros-args -p enable:=true)."
        );
        return Ok(false);
    }
    Ok(true)
}

/// The node's parameters past the guard (see the module doc), and the
/// channels file they name, loaded.
struct Params {
    channels_file: PathBuf,
    /// The run's seed (its u64 bits seed every stream).
    seed: i64,
    /// Status period's rate, Hz, in [`MIN_RATE_HZ`, `MAX_RATE_HZ`].
    status_rate_hz: f64,
    /// channels.yaml with its topics resolved.
    cfg: ChannelsConfig,
    /// Where the node's own sim clock comes from.
    clock_src: ClockSource,
}

impl Params {
    /// Reads the parameters in the node's order. `Ok(Err(code))`: an
    /// out-of-range value, already reported on stderr (exit `code`, 2).
    /// Errors: a parameter of the wrong type, an unreadable or invalid
    /// channels file.
    fn read(args: &RosArgs) -> Result<Result<Self, ExitCode>> {
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
            return Ok(Err(ExitCode::from(EXIT_USAGE)));
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
                return Ok(Err(ExitCode::from(EXIT_USAGE)));
            }
        };
        Ok(Ok(Self {
            channels_file,
            seed,
            status_rate_hz,
            cfg,
            clock_src,
        }))
    }
}

fn run() -> Result<ExitCode> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        anyhow::bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    if !enabled(&args)? {
        return Ok(ExitCode::from(EXIT_GUARD));
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let p = match Params::read(&args)? {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };

    let mut node = RosNode::new(env, args)?;
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        channels_file = %p.channels_file.display(),
        seed = p.seed,
        sim_time = matches!(node.clock, breakbench_ros::NodeClock::Sim(_)),
        clock_topic = %p.clock_src.resolved,
        "starting"
    );
    let wiring::Wired {
        inputs,
        services,
        outputs,
        faults,
        reg,
    } = wiring::open(&mut node, &p.cfg, &p.clock_src, p.seed as u64)?;
    let _spinner = node.spawn_spinner()?;
    let mut events = shutdown.until(select_all(events::streams(&inputs, &services)));
    let mut fault_node = FaultNode::new(&node, &services, outputs, faults, reg, p);
    // Private names: they follow `__ns`/`__node` like `~/status`
    // (defaults `/fault_injector/set_fault`, `/fault_injector/clear_faults`).
    let set_name = node.args.resolve("~/set_fault");
    let clear_name = node.args.resolve("~/clear_faults");
    tracing::info!("ready: {set_name}, {clear_name}");

    smol::block_on(async {
        loop {
            // Wake at the next status/keep-alive deadline, and (wall clock) when
            // the earliest held message is due. Under sim time every /clock
            // message wakes the loop, which then polls every channel.
            let wall = Instant::now();
            let deadline = fault_node.deadline(wall);
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
            match fault_node.handle(ev, deadline) {
                Then::Wait => continue,
                Then::Periodic { changed } => fault_node.periodic(changed),
            }
        }
    });
    Ok(ExitCode::SUCCESS)
}
