//! An external stack: the user's own ROS 2 graph, started by a command
//! template (`breakbench campaign --graph-cmd 'ros2 launch my_robot
//! sim.launch.py seed:={seed} ...'`, placeholders in [`super::template`])
//! instead of a launch config of ours. The run's states are those of
//! [`super::up`] ([`Stage`]), each with its deadline:
//!
//! 1. `start`: the command runs on the run's `ROS_DOMAIN_ID` as the leader
//!    of its own process group; the readiness check (`breakbench_ready`, a
//!    ROS 2 helper) waits until every [`ExternalStack::ready_topics`] topic
//!    has a publisher and every [`ExternalStack::ready_messages`] topic has
//!    delivered a message, within the ready deadline. These topics must not
//!    need the clock (e.g. `/fault_injector/status`, `/oracle/odom`).
//! 2. `arm`: the run's faults are set by `kraken_scenario` through the
//!    injector's real `set_fault` service (confirmed applied later, from
//!    the injector's status as the oracle recorded it); then, when the stack
//!    has a start gate ([`ExternalStack::start_service`], a std_srvs/Trigger
//!    such as sim_bridge's `/sim_bridge/start` with `start_service: true`),
//!    the readiness check calls it. A lock-step plant must hold its clock until that
//!    call: this is the external-stack equivalent of `after_scenario` in a
//!    launch config. A stack without a start gate runs free while it is
//!    armed, and its faults apply from a sim time after 0.
//!    With a `--simulator` ([`simulator`]) the start is SetSimulationState
//!    PLAYING, or, with `stepping: step_simulation`, the campaign's stepper
//!    (`stepping.rs`) pauses the simulator and steps it through `observe`
//!    (no `/clock` check then).
//! 3. `observe`: with [`ExternalStack::clock_advancing`], `/clock` must
//!    advance within the ready deadline; then the oracle's verdict line
//!    (`oracle: verdict ...`, anywhere in a line of the stack's output, so
//!    `ros2 launch`'s `[oracle-3] ` prefix is fine) within the run deadline.
//! 4. `collect`: the verdict line names the manifest the oracle wrote.
//! 5. stop / reset: the stack's process group gets SIGINT (what `ros2
//!    launch` handles), SIGTERM after [`super::INT_GRACE`], SIGKILL after
//!    [`super::KILL_GRACE`]; the reset command, when given, runs to
//!    completion (within the ready deadline); then every process still
//!    carrying the run's `BREAKBENCH_STACK` environment marker (also one
//!    that left the group, e.g. a daemon) is killed and reported as left
//!    over, which makes the run `invalid` in state `reset`.
//!
//! A kept-running stack ([`ExternalStack::with_keep_running`], `campaign
//! --keep-running`, REQ-GRAPH-RESET): the command starts once per job slot
//! ([`KeptStack`], on the slot's `ROS_DOMAIN_ID`) and keeps running across
//! runs; [`run_kept`] runs one run on it. Per run:
//!
//! 0. `reset`: the readiness check calls each `--reset-service`
//!    (kraken_interfaces/ResetRun with the run's seed, id and output
//!    directory) in the order given, each once the one before answered
//!    `success: true`; then the `--reset-cmd` template, given the run's
//!    `{seed}`, `{run_id}`, `{out}`, runs to completion. The start command
//!    takes none of those (refused), so the run's values reach the stack
//!    only through its reset.
//! 1. to 4. as above (readiness, arm, start gate, observe, collect), but the
//!    verdict line taken is this run's only: it must name
//!    `manifests/<run_id>.json`, so a line of the previous run still in the
//!    pipe is skipped ([`scan`]).
//! 5. the stack is not stopped; the reset of the run (no fault left active)
//!    is checked from the manifest as for every graph run, and the next run
//!    starts with its own reset. A run that fails (a missed deadline, the
//!    stack exited, a failed reset, SIGINT) stops the slot's stack (and runs
//!    the leftover check on its marker), so the next run starts a fresh one:
//!    a broken stack does not poison later runs. [`KeptStack::stop`] at the
//!    end of the campaign (also on drop) stops it and runs the leftover check.
//!
//! No DDS in this module: the readiness check and `kraken_scenario` are child processes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod kept;
pub mod simulator;
mod stepping;
#[cfg(test)]
mod tests;

pub use kept::{run_kept, KeptStack};
pub use simulator::{GroundTruth, SimulatorConfig, SimulatorKind, StepSchedule, Stepping};

use super::supervise::{arm, check_running, run_with, Fail, Supervisor};
use super::template::{CommandTemplate, TemplateVars};
use super::{find_executable, Stage, SupervisorError, UpOutcome, VerdictLine, EXIT_ERROR};

/// Environment variable marking every process of one external-stack run
/// (value: a token unique to the run), for the leftover check.
pub const STACK_MARKER: &str = "BREAKBENCH_STACK";

/// An external stack (see the module docs).
#[derive(Debug, Clone)]
pub struct ExternalStack {
    /// Starts the stack; runs until stopped (or until its oracle exits).
    pub command: CommandTemplate,
    /// Topics (absolute ROS names) that must have a publisher before the
    /// run is armed; none of them may need the clock.
    pub ready_topics: Vec<String>,
    /// Topics (absolute ROS names) on which a message must arrive before the
    /// run is armed (the topic is publishing, not just advertised); any
    /// ROS 2 message type, none of them may need the clock.
    pub ready_messages: Vec<String>,
    /// A std_srvs/Trigger service called after arming that starts the
    /// stack's clock (e.g. `/sim_bridge/start`); `None`: the clock runs free.
    pub start_service: Option<String>,
    /// `/clock` must advance (two increasing times) after arming.
    pub clock_advancing: bool,
    /// Run after the stack was stopped, to completion (the reset rule;
    /// `None`: the stack is simply restarted for the next run); with
    /// [`Self::keep_running`], run between runs on the running stack.
    pub reset: Option<CommandTemplate>,
    /// Keep the stack running across runs ([`KeptStack`], [`run_kept`]).
    pub keep_running: bool,
    /// kraken_interfaces/ResetRun services called, in this order, to reset
    /// a kept-running stack before each run (absolute names).
    pub reset_services: Vec<String>,
    /// The simulator driven through `simulation_interfaces` (`--simulator`):
    /// the start gate, the entity check and, kept running, the first reset.
    pub simulator: Option<SimulatorConfig>,
    /// The lock-step schedule of a simulator with `stepping:
    /// step_simulation` (from the scenario's robot and navigator files).
    pub step_schedule: Option<StepSchedule>,
}

/// The executables an external stack's runs need, found before anything runs.
#[derive(Debug, Clone)]
pub struct ExternalExes {
    /// The readiness check (`breakbench_ready`).
    pub ready: PathBuf,
    /// `kraken_scenario` (arms the faults).
    pub scenario: PathBuf,
}

/// Whether `program` (a path, or a name looked up on `PATH`) is a file.
fn program_exists(program: &str) -> Result<(), SupervisorError> {
    if program.contains('/') {
        if Path::new(program).is_file() {
            return Ok(());
        }
        return Err(SupervisorError::ProgramNotFound {
            program: program.into(),
            looked: "no such file".into(),
        });
    }
    let path = std::env::var("PATH").unwrap_or_default();
    if path
        .split(':')
        .filter(|d| !d.is_empty())
        .any(|d| Path::new(d).join(program).is_file())
    {
        return Ok(());
    }
    Err(SupervisorError::ProgramNotFound {
        program: program.into(),
        looked: format!("PATH={path}"),
    })
}

impl ExternalStack {
    /// The stack of `campaign --graph-cmd <command> [--ready-topic T]...
    /// [--start-service S] [--no-ready-clock] [--reset-cmd <reset>]`:
    /// the templates parsed, the names checked.
    ///
    /// # Errors
    /// [`SupervisorError::Template`] naming the flag and what is wrong (an
    /// unknown placeholder by name); [`SupervisorError::BadName`] for a
    /// topic or service name that is not absolute.
    pub fn new(
        command: &str,
        ready_topics: Vec<String>,
        start_service: Option<String>,
        clock_advancing: bool,
        reset: Option<&str>,
    ) -> Result<Self, SupervisorError> {
        let parse = |flag: &'static str, t: &str| {
            CommandTemplate::parse(t).map_err(|error| SupervisorError::Template {
                flag,
                template: t.to_string(),
                error,
            })
        };
        for (flag, name) in ready_topics
            .iter()
            .map(|t| ("--ready-topic", t))
            .chain(start_service.iter().map(|s| ("--start-service", s)))
        {
            if !(name.starts_with('/') && name.len() > 1) {
                return Err(SupervisorError::BadName {
                    flag,
                    name: name.clone(),
                });
            }
        }
        Ok(Self {
            command: parse("--graph-cmd", command)?,
            ready_topics,
            ready_messages: Vec::new(),
            start_service,
            clock_advancing,
            reset: reset.map(|t| parse("--reset-cmd", t)).transpose()?,
            keep_running: false,
            reset_services: Vec::new(),
            simulator: None,
            step_schedule: None,
        })
    }

    /// The stack whose simulator is driven through `simulation_interfaces`
    /// (`--simulator FILE`, [`simulator`]). Give it before
    /// [`Self::with_keep_running`]: it is a reset rule.
    ///
    /// # Errors
    /// [`SupervisorError::Simulator`] when a `--start-service` is given too
    /// (the start is SetSimulationState PLAYING).
    pub fn with_simulator(
        mut self,
        path: &Path,
        sim: SimulatorConfig,
    ) -> Result<Self, SupervisorError> {
        if let Some(s) = &self.start_service {
            return Err(SupervisorError::Simulator {
                path: path.to_path_buf(),
                message: format!(
                    "the simulator is started through {}/set_simulation_state (PLAYING): drop --start-service {s}",
                    sim.service_prefix
                ),
            });
        }
        self.simulator = Some(sim);
        Ok(self)
    }

    /// The lock-step schedule the campaign steps a `stepping:
    /// step_simulation` simulator by (REQ-SIMIF-STEP): the scenario's plant
    /// step, control period and ground-truth period.
    pub fn with_step_schedule(mut self, schedule: StepSchedule) -> Self {
        self.step_schedule = Some(schedule);
        self
    }

    /// The stack kept running across runs (`--keep-running`), reset before
    /// each run by `reset_services` (`--reset-service`, in order) and/or the
    /// reset command (REQ-GRAPH-RESET).
    ///
    /// # Errors
    /// [`SupervisorError::KeepRunning`] when there is no reset rule at all,
    /// or when the start command uses `{seed}`, `{run_id}` or `{out}` (named:
    /// a stack started once cannot take a run's value; it goes to the
    /// reset); [`SupervisorError::BadName`] for a service name that is not
    /// absolute.
    pub fn with_keep_running(
        mut self,
        reset_services: Vec<String>,
    ) -> Result<Self, SupervisorError> {
        if let Some(s) = reset_services
            .iter()
            .find(|s| !(s.starts_with('/') && s.len() > 1))
        {
            return Err(SupervisorError::BadName {
                flag: "--reset-service",
                name: s.clone(),
            });
        }
        if reset_services.is_empty() && self.reset.is_none() && self.simulator.is_none() {
            return Err(SupervisorError::KeepRunning(
                "needs a reset rule: --reset-service SERVICE (repeatable), --reset-cmd TEMPLATE and/or --simulator FILE (simulation_interfaces)"
                    .into(),
            ));
        }
        if let Some(name) = ["seed", "run_id", "out"]
            .into_iter()
            .find(|n| self.command.uses(n))
        {
            return Err(SupervisorError::KeepRunning(format!(
                "the --graph-cmd template {:?} uses {{{name}}}, but a kept-running stack is started once per job slot, not per run; a run's {{seed}}, {{run_id}} and {{out}} reach it through its reset (--reset-service, or the --reset-cmd template)",
                self.command.to_string()
            )));
        }
        self.keep_running = true;
        self.reset_services = reset_services;
        Ok(self)
    }

    /// The stack with `--ready-message` topics: each must deliver a message
    /// before the run is armed.
    ///
    /// # Errors
    /// [`SupervisorError::BadName`] for a name that is not absolute.
    pub fn with_ready_messages(mut self, topics: Vec<String>) -> Result<Self, SupervisorError> {
        if let Some(t) = topics.iter().find(|t| !(t.starts_with('/') && t.len() > 1)) {
            return Err(SupervisorError::BadName {
                flag: "--ready-message",
                name: t.clone(),
            });
        }
        self.ready_messages = topics;
        Ok(self)
    }

    /// Checks what can be checked before any run: the programs of the
    /// command and reset templates (when not a placeholder) exist, and the
    /// readiness check and `kraken_scenario` are installed.
    ///
    /// # Errors
    /// [`SupervisorError::ProgramNotFound`] or [`SupervisorError::NotFound`].
    pub fn check(&self) -> Result<ExternalExes, SupervisorError> {
        for t in std::iter::once(&self.command).chain(&self.reset) {
            if let Some(p) = t.program() {
                program_exists(p)?;
            }
        }
        Ok(ExternalExes {
            ready: find_executable("breakbench", "breakbench_ready")?,
            scenario: find_executable("kraken_faults", "kraken_scenario")?,
        })
    }
}

/// One run of an external stack.
#[derive(Debug, Clone)]
pub struct ExternalRun<'a> {
    pub stack: &'a ExternalStack,
    /// From [`ExternalStack::check`].
    pub exes: &'a ExternalExes,
    /// The placeholders' values (`vars.domain_id` is also the children's
    /// `ROS_DOMAIN_ID`).
    pub vars: TemplateVars,
    /// The kraken scenario that sets the run's faults (none: a nominal run).
    pub scenario: Option<PathBuf>,
    /// Deadline of the whole run, start to verdict.
    pub timeout: Duration,
    /// Deadline of each readiness check (topics; start service; clock).
    pub ready_timeout: Duration,
    /// Do not echo the stack's output.
    pub quiet: bool,
}

/// Takes the first verdict line of run `run_id` in `lines` (anywhere in a
/// line): one whose manifest is `.../<run_id>.json`. A verdict line of
/// another run (a kept-running stack's previous run, still in the pipe) is
/// skipped.
fn scan(lines: &[(usize, String)], run_id: &str, verdict: &mut Option<VerdictLine>) {
    for (_, l) in lines {
        if verdict.is_none() {
            if let Some(at) = l.find(breakbench_oracle::verdict_line::VERDICT_PREFIX) {
                *verdict = l[at..]
                    .parse::<VerdictLine>()
                    .ok()
                    .filter(|v| v.manifest.file_stem().is_some_and(|s| s == run_id));
            }
        }
    }
}

/// One run's readiness check (`breakbench_ready`): what every call of it
/// shares (the run, the stack's environment, the run's start, the stack's
/// child index).
struct ReadinessCheck<'a> {
    r: &'a ExternalRun<'a>,
    env: &'a BTreeMap<String, String>,
    t0: Instant,
    stack: usize,
}

impl ReadinessCheck<'_> {
    /// Runs the check with `extra` and `--timeout-s <ready timeout>` to
    /// completion, scanning the output for the run's verdict line into
    /// `verdict`; its `not ready: ...` line is the error.
    fn call(
        &self,
        sup: &mut Supervisor,
        mut extra: Vec<String>,
        verdict: &mut Option<VerdictLine>,
    ) -> Result<(), Fail> {
        extra.extend([
            "--timeout-s".to_string(),
            format!("{}", self.r.ready_timeout.as_secs_f64()),
        ]);
        let idx = sup
            .spawn("breakbench_ready", &self.r.exes.ready, &extra, self.env)
            .map_err(|e| (EXIT_ERROR, e.to_string()))?;
        sup.procs[idx].one_shot = true;
        loop {
            let lines = sup.pump(Duration::from_millis(50));
            scan(&lines, &self.r.vars.run_id, verdict);
            if verdict.is_some() {
                // The run already ended (a short run, a free-running clock):
                // nothing left to wait for; the check is stopped with the rest.
                return Ok(());
            }
            check_running(sup, self.t0, self.r.timeout, Some(idx))?;
            if sup.procs[self.stack].exited.is_some() {
                return Err((EXIT_ERROR, "the stack exited before it was ready".into()));
            }
            if let Some(s) = sup.procs[idx].exited {
                if s.success() {
                    return Ok(());
                }
                sup.pump(Duration::from_millis(200));
                let why = sup.procs[idx]
                    .tail
                    .iter()
                    .rev()
                    .find_map(|l| l.split_once("not ready: ").map(|(_, w)| w.to_string()))
                    .unwrap_or_else(|| format!("readiness check failed ({s})"));
                sup.report_tail(idx);
                return Err((EXIT_ERROR, format!("not ready: {why}")));
            }
        }
    }
}

/// Processes (other than this one) whose environment holds
/// `STACK_MARKER=token`, as `comm pid`; each is sent SIGKILL.
fn kill_marked(token: &str) -> Vec<String> {
    let needle = format!("{STACK_MARKER}={token}");
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            if stat
                .rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            {
                continue; // a zombie: already dead, waiting for its parent
            }
            let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
            // SAFETY: plain syscall.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            found.push(format!(
                "{} {pid} (outside the stack's process group)",
                comm.trim()
            ));
        }
    }
    found
}

/// The environment of every process of a stack: its `ROS_DOMAIN_ID`, the
/// leftover marker `token`, and unbuffered Python output (`ros2 launch`
/// writing into our pipe: line by line, so the verdict line arrives when
/// the oracle prints it).
fn stack_env(domain_id: u16, token: &str) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("ROS_DOMAIN_ID".to_string(), domain_id.to_string());
    env.insert(STACK_MARKER.to_string(), token.to_string());
    env.insert("PYTHONUNBUFFERED".to_string(), "1".to_string());
    env
}

/// States `start` (readiness, the stack already spawned as child `stack`)
/// to `collect` of one run: the run's verdict line, or why there is none.
fn readiness_to_verdict(
    sup: &mut Supervisor,
    r: &ExternalRun,
    env: &BTreeMap<String, String>,
    stack: usize,
    t0: Instant,
) -> Result<VerdictLine, Fail> {
    let run_id = r.vars.run_id.as_str();
    let ready = ReadinessCheck { r, env, t0, stack };
    let mut verdict = None;
    sup.stage = Stage::Start;
    if !(r.stack.ready_topics.is_empty() && r.stack.ready_messages.is_empty()) {
        let topics = r.stack.ready_topics.iter().map(|t| ("--topic", t));
        let messages = r.stack.ready_messages.iter().map(|t| ("--message", t));
        let a = topics
            .chain(messages)
            .flat_map(|(flag, t)| [flag.to_string(), t.clone()])
            .collect();
        ready.call(sup, a, &mut verdict)?;
    }
    if let Some(sim) = &r.stack.simulator {
        let a = vec![
            "--simif-entity".to_string(),
            sim.service_prefix.clone(),
            sim.entity.clone(),
        ];
        ready.call(sup, a, &mut verdict)?;
    }
    sup.stage = Stage::Arm;
    if let Some(f) = &r.scenario {
        arm(sup, &r.exes.scenario, f, env, t0, r.timeout)?;
    }
    if let Some(s) = &r.stack.start_service {
        ready.call(
            sup,
            vec!["--call-trigger".to_string(), s.clone()],
            &mut verdict,
        )?;
    }
    let stepped = r
        .stack
        .simulator
        .as_ref()
        .filter(|s| s.stepping == Stepping::StepSimulation);
    if let (Some(sim), None) = (&r.stack.simulator, stepped) {
        let a = vec!["--simif-play".to_string(), sim.service_prefix.clone()];
        ready.call(sup, a, &mut verdict)?;
    }
    sup.stage = Stage::Observe;
    if let (Some(sim), None) = (stepped, &verdict) {
        let schedule = r.stack.step_schedule.as_ref().ok_or_else(|| {
            (
                EXIT_ERROR,
                "stepping: step_simulation without a step schedule (ExternalStack::with_step_schedule)".to_string(),
            )
        })?;
        let v = stepping::drive(sup, &ready, sim, schedule)?;
        sup.stage = Stage::Collect;
        return Ok(v);
    }
    if r.stack.clock_advancing && verdict.is_none() {
        ready.call(sup, vec!["--clock-advancing".to_string()], &mut verdict)?;
    }
    loop {
        if let Some(v) = verdict.take() {
            sup.stage = Stage::Collect;
            return Ok(v);
        }
        let lines = sup.pump(Duration::from_millis(100));
        scan(&lines, run_id, &mut verdict);
        if verdict.is_none() {
            if let Some(s) = sup.procs[stack].exited {
                sup.stage = Stage::Collect;
                scan(&sup.pump(Duration::from_millis(300)), run_id, &mut verdict);
                return verdict.ok_or_else(|| {
                    sup.report_tail(stack);
                    (
                        EXIT_ERROR,
                        format!("the stack exited ({s}) without an oracle verdict line"),
                    )
                });
            }
            check_running(sup, t0, r.timeout, Some(stack))?;
        }
    }
}

/// Runs the reset command `t` with the run's values to completion, within
/// `timeout`; what went wrong otherwise. Its process group is left to the
/// caller's shutdown (what it left carries the marker).
fn run_reset_cmd(
    sup: &mut Supervisor,
    t: &CommandTemplate,
    vars: &TemplateVars,
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> Result<(), String> {
    let argv = t.expand(vars);
    let idx = sup
        .spawn("reset", Path::new(&argv[0]), &argv[1..], env)
        .map_err(|e| format!("(reset command: {e})"))?;
    sup.procs[idx].one_shot = true;
    let t0 = Instant::now();
    while sup.procs[idx].exited.is_none() && t0.elapsed() < timeout {
        sup.pump(Duration::from_millis(50));
    }
    match sup.procs[idx].exited {
        Some(s) if s.success() => Ok(()),
        Some(s) => {
            sup.report_tail(idx);
            Err(format!("(reset command {t} failed: {s})"))
        }
        None => Err(format!(
            "(reset command {t} did not finish within {:.1} s)",
            timeout.as_secs_f64()
        )),
    }
}

/// Runs one external-stack run to its verdict (see the module docs).
///
/// # Errors
/// None once the inputs were checked ([`ExternalStack::check`]); failures
/// are reported in the [`UpOutcome`] (exit code [`EXIT_ERROR`], the state
/// reached in [`UpOutcome::stage`], leftovers in [`UpOutcome::leftover`]).
pub fn run(r: &ExternalRun) -> UpOutcome {
    let token = format!(
        "{}-{}-{}",
        std::process::id(),
        r.vars.domain_id,
        r.vars.run_id
    );
    let env = stack_env(r.vars.domain_id, &token);
    let body = |sup: &mut Supervisor, t0: Instant| -> Result<VerdictLine, Fail> {
        sup.stage = Stage::Start;
        let argv = r.stack.command.expand(&r.vars);
        let stack = sup
            .spawn("stack", Path::new(&argv[0]), &argv[1..], &env)
            .map_err(|e| (EXIT_ERROR, e.to_string()))?;
        readiness_to_verdict(sup, r, &env, stack, t0)
    };
    let reset = |sup: &mut Supervisor| -> Vec<String> {
        let mut left = Vec::new();
        if let Some(t) = &r.stack.reset {
            if let Err(e) = run_reset_cmd(sup, t, &r.vars, &env, r.ready_timeout) {
                left.push(e);
            }
            // Its group is stopped like the stack's; what it left carries
            // the marker and is found below.
            sup.shutdown();
        }
        left.extend(kill_marked(&token));
        left
    };
    run_with(r.quiet, r.ready_timeout, true, body, reset)
}
