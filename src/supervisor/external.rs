//! An external stack: the user's own ROS 2 graph, started by a command
//! template (`breakbench campaign --graph-cmd 'ros2 launch my_robot
//! sim.launch.py seed:={seed} ...'`, placeholders in [`super::template`])
//! instead of a launch config of ours. The run's states are those of
//! [`super::up`] ([`Stage`]), each with its deadline:
//!
//! 1. `start`: the command runs on the run's `ROS_DOMAIN_ID` as the leader
//!    of its own process group; the readiness probe (`breakbench_ready`, a
//!    ROS 2 helper) waits until every [`ExternalStack::ready_topics`] topic
//!    has a publisher and every [`ExternalStack::ready_messages`] topic has
//!    delivered a message, within the ready deadline. These topics must not
//!    need the clock (e.g. `/fault_injector/status`, `/oracle/odom`).
//! 2. `arm`: the run's faults are set by `kraken_scenario` through the
//!    injector's real `set_fault` service (confirmed applied later, from
//!    the injector's status as the oracle recorded it); then, when the stack
//!    has a start gate ([`ExternalStack::start_service`], a std_srvs/Trigger
//!    such as sim_bridge's `/sim_bridge/start` with `start_service: true`),
//!    the probe calls it. A lock-step plant must hold its clock until that
//!    call: this is the external-stack equivalent of `after_scenario` in a
//!    launch config. A stack without a start gate runs free while it is
//!    armed, and its faults apply from a sim time after 0.
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
//! No DDS in this module: the probe and `kraken_scenario` are child processes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    /// `None`: the stack is simply restarted for the next run).
    pub reset: Option<CommandTemplate>,
}

/// The executables an external stack's runs need, found before anything runs.
#[derive(Debug, Clone)]
pub struct ExternalExes {
    /// The readiness probe (`breakbench_ready`).
    pub probe: PathBuf,
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
        })
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
    /// probe and `kraken_scenario` are installed.
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
            probe: find_executable("breakbench", "breakbench_ready")?,
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

/// Takes the first verdict line in `lines` (anywhere in a line).
fn scan(lines: &[(usize, String)], verdict: &mut Option<VerdictLine>) {
    for (_, l) in lines {
        if verdict.is_none() {
            if let Some(at) = l.find(breakbench_oracle::verdict_line::VERDICT_PREFIX) {
                *verdict = l[at..].parse().ok();
            }
        }
    }
}

/// Runs the probe with `args` to completion; its `not ready: ...` line is the error.
#[allow(clippy::too_many_arguments)]
fn probe(
    sup: &mut Supervisor,
    exe: &Path,
    args: &[String],
    env: &BTreeMap<String, String>,
    t0: Instant,
    timeout: Duration,
    stack: usize,
    verdict: &mut Option<VerdictLine>,
) -> Result<(), Fail> {
    let idx = sup
        .spawn("breakbench_ready", exe, args, env)
        .map_err(|e| (EXIT_ERROR, e.to_string()))?;
    sup.procs[idx].one_shot = true;
    loop {
        let lines = sup.pump(Duration::from_millis(50));
        scan(&lines, verdict);
        if verdict.is_some() {
            // The run already ended (a short run, a free-running clock):
            // nothing left to wait for; the probe is stopped with the rest.
            return Ok(());
        }
        check_running(sup, t0, timeout, Some(idx))?;
        if sup.procs[stack].exited.is_some() {
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
                .unwrap_or_else(|| format!("readiness probe failed ({s})"));
            sup.report_tail(idx);
            return Err((EXIT_ERROR, format!("not ready: {why}")));
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
    let mut env = BTreeMap::new();
    env.insert("ROS_DOMAIN_ID".to_string(), r.vars.domain_id.to_string());
    env.insert(STACK_MARKER.to_string(), token.clone());
    // `ros2 launch` (Python) writing into our pipe: line by line, so the
    // verdict line arrives when the oracle prints it.
    env.insert("PYTHONUNBUFFERED".to_string(), "1".to_string());
    let ready_s = format!("{}", r.ready_timeout.as_secs_f64());
    let probe_args = |extra: Vec<String>| {
        let mut a = extra;
        a.extend(["--timeout-s".to_string(), ready_s.clone()]);
        a
    };
    let body = |sup: &mut Supervisor, t0: Instant| -> Result<VerdictLine, Fail> {
        let mut verdict = None;
        sup.stage = Stage::Start;
        let argv = r.stack.command.expand(&r.vars);
        let stack = sup
            .spawn("stack", Path::new(&argv[0]), &argv[1..], &env)
            .map_err(|e| (EXIT_ERROR, e.to_string()))?;
        if !(r.stack.ready_topics.is_empty() && r.stack.ready_messages.is_empty()) {
            let topics = r.stack.ready_topics.iter().map(|t| ("--topic", t));
            let messages = r.stack.ready_messages.iter().map(|t| ("--message", t));
            let a = topics
                .chain(messages)
                .flat_map(|(flag, t)| [flag.to_string(), t.clone()])
                .collect();
            probe(
                sup,
                &r.exes.probe,
                &probe_args(a),
                &env,
                t0,
                r.timeout,
                stack,
                &mut verdict,
            )?;
        }
        sup.stage = Stage::Arm;
        if let Some(f) = &r.scenario {
            arm(sup, &r.exes.scenario, f, &env, t0, r.timeout)?;
        }
        if let Some(s) = &r.stack.start_service {
            let a = vec!["--call-trigger".to_string(), s.clone()];
            probe(
                sup,
                &r.exes.probe,
                &probe_args(a),
                &env,
                t0,
                r.timeout,
                stack,
                &mut verdict,
            )?;
        }
        sup.stage = Stage::Observe;
        if r.stack.clock_advancing && verdict.is_none() {
            let a = vec!["--clock-advancing".to_string()];
            probe(
                sup,
                &r.exes.probe,
                &probe_args(a),
                &env,
                t0,
                r.timeout,
                stack,
                &mut verdict,
            )?;
        }
        loop {
            if let Some(v) = verdict.take() {
                sup.stage = Stage::Collect;
                return Ok(v);
            }
            let lines = sup.pump(Duration::from_millis(100));
            scan(&lines, &mut verdict);
            if verdict.is_none() {
                if let Some(s) = sup.procs[stack].exited {
                    sup.stage = Stage::Collect;
                    scan(&sup.pump(Duration::from_millis(300)), &mut verdict);
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
    };
    let reset = |sup: &mut Supervisor| -> Vec<String> {
        let mut left = Vec::new();
        if let Some(t) = &r.stack.reset {
            let argv = t.expand(&r.vars);
            match sup.spawn("reset", Path::new(&argv[0]), &argv[1..], &env) {
                Ok(idx) => {
                    sup.procs[idx].one_shot = true;
                    let t0 = Instant::now();
                    while sup.procs[idx].exited.is_none() && t0.elapsed() < r.ready_timeout {
                        sup.pump(Duration::from_millis(50));
                    }
                    match sup.procs[idx].exited {
                        Some(s) if s.success() => {}
                        Some(s) => {
                            sup.report_tail(idx);
                            left.push(format!("(reset command {t} failed: {s})"));
                        }
                        None => left.push(format!(
                            "(reset command {t} did not finish within {:.1} s)",
                            r.ready_timeout.as_secs_f64()
                        )),
                    }
                    // Its group is stopped like the stack's; what it left
                    // carries the marker and is found below.
                    sup.shutdown();
                }
                Err(e) => left.push(format!("(reset command: {e})")),
            }
        }
        left.extend(kill_marked(&token));
        left
    };
    run_with(r.quiet, r.ready_timeout, true, body, reset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_checked_and_templates_parsed() {
        let s = ExternalStack::new(
            "ros2 launch x y.launch.py seed:={seed}",
            vec!["/a".into()],
            Some("/sim_bridge/start".into()),
            true,
            Some("pkill -f {run_id}"),
        )
        .unwrap();
        assert!(s.command.uses("seed") && s.reset.as_ref().unwrap().uses("run_id"));
        let e = ExternalStack::new("x", vec!["a".into()], None, true, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--ready-topic \"a\": expected an absolute ROS name (/...)"
        );
        let e = ExternalStack::new("x", vec![], None, true, Some("r {outdir}")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--reset-cmd \"r {outdir}\": unknown placeholder {outdir}"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_program_is_named_before_anything_runs() {
        let s =
            ExternalStack::new("/nonexistent/launcher {seed}", vec![], None, true, None).unwrap();
        let e = s.check().unwrap_err();
        assert!(
            e.to_string()
                .contains("program \"/nonexistent/launcher\" of the command template not found"),
            "{e}"
        );
    }

    #[test]
    fn verdict_lines_are_found_behind_a_prefix() {
        let mut v = None;
        scan(
            &[(
                0,
                "[oracle-3] oracle: verdict safety_violation=false mission_failure=true self_report=none samples=3000 manifest=/o/manifests/r.json".into(),
            )],
            &mut v,
        );
        let v = v.expect("parsed");
        assert!(v.mission_failure && !v.safety_violation);
        assert_eq!(v.manifest, PathBuf::from("/o/manifests/r.json"));
    }
}
