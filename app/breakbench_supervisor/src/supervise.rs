//! The supervisor itself: owns the child processes, echoes and scans their
//! output, waits for ready markers and the oracle's verdict line, and kills
//! every process group at the end.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::Stage;
use super::{
    NodeSpec, SupervisorError, UpOutcome, VerdictLine, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PASS,
    EXIT_VERDICT_FAIL, INT_GRACE, KILL_GRACE,
};

/// Lines of each child's output kept for the early-exit report.
pub const TAIL_LINES: usize = 20;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

pub(super) struct Proc {
    pub(super) name: String,
    pub(super) child: Child,
    pub(super) exited: Option<std::process::ExitStatus>,
    /// A one-shot helper (kraken_scenario) whose exit is expected.
    pub(super) one_shot: bool,
    /// The last [`TAIL_LINES`] lines of its stdout and stderr.
    pub(super) tail: std::collections::VecDeque<String>,
}

/// Owns every child; kills every process group on drop (also on panic).
pub(super) struct Supervisor {
    pub(super) procs: Vec<Proc>,
    tx: mpsc::Sender<(usize, bool, String)>,
    rx: mpsc::Receiver<(usize, bool, String)>,
    quiet: bool,
    width: usize,
    /// The last state entered.
    pub(super) stage: Stage,
    pub(super) ready_timeout: Duration,
    /// Shut down with SIGINT first (what `ros2 launch` expects), then
    /// SIGTERM after [`INT_GRACE`], then SIGKILL after [`KILL_GRACE`].
    interrupt_first: bool,
}

impl Supervisor {
    pub(super) fn spawn(
        &mut self,
        name: &str,
        exe: &Path,
        args: &[String],
        env: &BTreeMap<String, String>,
    ) -> Result<usize, SupervisorError> {
        let mut cmd = Command::new(exe);
        // The nodes speak Jazzy; what a sourced Jazzy install would set
        // (without it ros2-client warns once per node).
        if std::env::var_os("ROS_DISTRO").is_none() && !env.contains_key("ROS_DISTRO") {
            cmd.env("ROS_DISTRO", "jazzy");
        }
        cmd.args(args)
            .envs(env)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|source| SupervisorError::Spawn {
            name: name.into(),
            path: exe.into(),
            source,
        })?;
        let idx = self.procs.len();
        let out = child.stdout.take().expect("piped");
        let err = child.stderr.take().expect("piped");
        for (is_err, r) in [
            (false, Box::new(out) as Box<dyn std::io::Read + Send>),
            (true, Box::new(err)),
        ] {
            let tx = self.tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(r).lines() {
                    let Ok(line) = line else { break };
                    if tx.send((idx, is_err, line)).is_err() {
                        break;
                    }
                }
            });
        }
        self.width = self.width.max(name.len());
        if !self.quiet {
            println!("[up] started {name} pid {} ({})", child.id(), exe.display());
        } else {
            eprintln!("[up] started {name} pid {}", child.id());
        }
        self.procs.push(Proc {
            name: name.into(),
            child,
            exited: None,
            one_shot: false,
            tail: std::collections::VecDeque::new(),
        });
        Ok(idx)
    }

    /// Echoes output for up to `wait` and returns the lines seen.
    pub(super) fn pump(&mut self, wait: Duration) -> Vec<(usize, String)> {
        let mut seen = Vec::new();
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok((i, is_err, line)) => {
                    if !self.quiet {
                        let tag = format!("[{:w$}]", self.procs[i].name, w = self.width);
                        if is_err {
                            eprintln!("{tag} {line}");
                        } else {
                            println!("{tag} {line}");
                        }
                    }
                    let tail = &mut self.procs[i].tail;
                    if tail.len() == TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line.clone());
                    seen.push((i, line));
                }
                Err(_) => break,
            }
            if Instant::now() >= deadline {
                break;
            }
        }
        let _ = std::io::stdout().flush();
        for p in &mut self.procs {
            if p.exited.is_none() {
                if let Ok(Some(s)) = p.child.try_wait() {
                    p.exited = Some(s);
                }
            }
        }
        seen
    }

    /// Prints the last lines of child `i` on stderr (also with `--quiet`:
    /// they say why it failed), after draining what its readers still hold.
    pub(super) fn report_tail(&mut self, i: usize) {
        self.pump(Duration::from_millis(200));
        let p = &self.procs[i];
        eprintln!(
            "[up] {} exited early; its last {} lines of output:",
            p.name,
            p.tail.len()
        );
        for l in &p.tail {
            eprintln!("[up] | {l}");
        }
    }

    /// Signals the process group of every child still running with `sig`
    /// and waits up to `grace` for every child to exit.
    fn signal_all(&mut self, sig: libc::c_int, grace: Duration) {
        let live: Vec<i32> = self
            .procs
            .iter_mut()
            .filter_map(|p| match p.child.try_wait() {
                Ok(None) => Some(p.child.id() as i32),
                _ => None,
            })
            .collect();
        for pid in &live {
            // SAFETY: plain syscall; the group id is the child's pid (process_group(0)).
            unsafe { libc::killpg(*pid, sig) };
        }
        let t0 = Instant::now();
        while t0.elapsed() < grace
            && self
                .procs
                .iter_mut()
                .any(|p| matches!(p.child.try_wait(), Ok(None)))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills child `i`'s process group (SIGKILL) and reaps it: a helper
    /// that runs until told (the stepper), not part of the stack.
    pub(super) fn kill_one(&mut self, i: usize) {
        let p = &mut self.procs[i];
        if p.exited.is_none() {
            // SAFETY: plain syscall; the group id is the child's pid (process_group(0)).
            unsafe { libc::killpg(p.child.id() as i32, libc::SIGKILL) };
            p.exited = p.child.wait().ok();
        }
    }

    pub(super) fn shutdown(&mut self) {
        if self.interrupt_first {
            self.signal_all(libc::SIGINT, INT_GRACE);
        }
        self.signal_all(libc::SIGTERM, KILL_GRACE);
        for p in &mut self.procs {
            // The group may hold grandchildren even after the leader exited.
            unsafe { libc::killpg(p.child.id() as i32, libc::SIGKILL) };
            let _ = p.child.wait();
        }
    }

    /// The children whose process group still has a member, as `name pid`,
    /// after waiting up to one second for the kernel to finish the kills.
    pub(super) fn leftover(&self) -> Vec<String> {
        let alive = || -> Vec<String> {
            self.procs
                .iter()
                .filter(|p| {
                    // SAFETY: plain syscall; signal 0 only checks that the group exists.
                    unsafe { libc::killpg(p.child.id() as i32, 0) == 0 }
                })
                .map(|p| format!("{} {}", p.name, p.child.id()))
                .collect()
        };
        let t0 = Instant::now();
        loop {
            let left = alive();
            if left.is_empty() || t0.elapsed() > Duration::from_secs(1) {
                return left;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Catches SIGINT and SIGTERM for the supervised runs (checked by
/// [`check_running`]); the flag is cleared by [`run_with`] only.
pub(super) fn catch_signals() {
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

impl Supervisor {
    pub(super) fn new(quiet: bool, ready_timeout: Duration, interrupt_first: bool) -> Self {
        let (tx, rx) = mpsc::channel();
        Supervisor {
            procs: Vec::new(),
            tx,
            rx,
            quiet,
            width: 0,
            stage: Stage::Start,
            ready_timeout,
            interrupt_first,
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Starts the nodes of `plan` in order (the scenario first, before the
/// first `after_scenario` node), waits for the oracle's verdict, then shuts
/// every process group down (see the module docs of [`super`]).
///
/// `plan` holds each node with its executable and arguments, `scenario` the
/// `kraken_scenario` executable and the scenario file; `env` is added to
/// every child's environment. SIGINT and SIGTERM are caught for the run.
pub(super) fn run(
    plan: &[(NodeSpec, PathBuf, Vec<String>)],
    scenario: Option<&(PathBuf, PathBuf)>,
    env: &BTreeMap<String, String>,
    timeout: Duration,
    ready_timeout: Duration,
    quiet: bool,
) -> UpOutcome {
    run_with(
        quiet,
        ready_timeout,
        false,
        |sup, t0| supervise(sup, plan, scenario, env, timeout, t0),
        |_| Vec::new(),
    )
}

/// The frame of a supervised run, shared by `breakbench up` and the
/// external-stack runner ([`super::external`]): catches SIGINT and SIGTERM,
/// runs `body` (which starts children on the [`Supervisor`] and returns the
/// oracle's verdict or why there is none), then shuts every process group
/// down (SIGINT first when `interrupt_first`), calls `reset` (which returns
/// further leftover processes, `name pid`) and checks that no child's group
/// is left.
pub(super) fn run_with(
    quiet: bool,
    ready_timeout: Duration,
    interrupt_first: bool,
    body: impl FnOnce(&mut Supervisor, Instant) -> Result<VerdictLine, Fail>,
    reset: impl FnOnce(&mut Supervisor) -> Vec<String>,
) -> UpOutcome {
    INTERRUPTED.store(false, Ordering::SeqCst);
    catch_signals();
    let t0 = Instant::now();
    let mut sup = Supervisor::new(quiet, ready_timeout, interrupt_first);
    let result = body(&mut sup, t0);
    sup.shutdown();
    let mut leftover = sup.leftover();
    leftover.extend(reset(&mut sup));
    let stage = sup.stage;
    let wall_s = t0.elapsed().as_secs_f64();
    match result {
        Ok(v) => UpOutcome {
            exit_code: if v.safety_violation || v.mission_failure {
                EXIT_VERDICT_FAIL
            } else {
                EXIT_PASS
            },
            verdict: Some(v),
            error: None,
            wall_s,
            stage,
            leftover,
        },
        Err((code, e)) => UpOutcome {
            exit_code: code,
            verdict: None,
            error: Some(e),
            wall_s,
            stage,
            leftover,
        },
    }
}

/// Why a run has no verdict: exit code and message.
pub(super) type Fail = (u8, String);

/// Fails the run when it was interrupted, passed `timeout` since `t0`, or
/// a child other than `except` and the one-shot helpers exited.
pub(super) fn check_running(
    sup: &mut Supervisor,
    t0: Instant,
    timeout: Duration,
    except: Option<usize>,
) -> Result<(), Fail> {
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err((EXIT_INTERRUPTED, "interrupted".into()));
    }
    if t0.elapsed() > timeout {
        return Err((
            EXIT_ERROR,
            format!(
                "timeout: no verdict after {:.0} s (--timeout-s)",
                timeout.as_secs_f64()
            ),
        ));
    }
    let early = sup
        .procs
        .iter()
        .enumerate()
        .filter(|(i, p)| Some(*i) != except && !p.one_shot)
        .find_map(|(i, p)| {
            p.exited
                .map(|s| (i, format!("{} exited early ({s})", p.name)))
        });
    if let Some((i, msg)) = early {
        sup.report_tail(i);
        return Err((EXIT_ERROR, msg));
    }
    Ok(())
}

/// State `arm`: runs the kraken scenario `file` with `kraken_scenario`
/// (`sexe`; the injector's real `set_fault` service) to completion.
///
/// # Errors
/// The scenario failed (its output tail is printed), the run timed out or
/// another child exited.
pub(super) fn arm(
    sup: &mut Supervisor,
    sexe: &Path,
    file: &Path,
    env: &BTreeMap<String, String>,
    t0: Instant,
    timeout: Duration,
) -> Result<(), Fail> {
    let a = vec![
        file.display().to_string(),
        "--ros-args".into(),
        "-p".into(),
        "timeout_s:=20.0".into(),
    ];
    let idx = sup
        .spawn("kraken_scenario", sexe, &a, env)
        .map_err(|e| (EXIT_ERROR, e.to_string()))?;
    sup.procs[idx].one_shot = true;
    loop {
        sup.pump(Duration::from_millis(50));
        check_running(sup, t0, timeout, Some(idx))?;
        if let Some(s) = sup.procs[idx].exited {
            if !s.success() {
                sup.report_tail(idx);
                return Err((
                    EXIT_ERROR,
                    format!("kraken_scenario {} failed ({s})", file.display()),
                ));
            }
            return Ok(());
        }
    }
}

fn supervise(
    sup: &mut Supervisor,
    plan: &[(NodeSpec, PathBuf, Vec<String>)],
    scenario: Option<&(PathBuf, PathBuf)>,
    env: &BTreeMap<String, String>,
    timeout: Duration,
    t0: Instant,
) -> Result<VerdictLine, Fail> {
    let err = |e: SupervisorError| (EXIT_ERROR, e.to_string());
    let mut oracle = None;
    let mut verdict = None;
    let mut scenario_done = scenario.is_none();
    for (node, exe, args) in plan {
        if node.after_scenario && !scenario_done {
            let (sexe, file) = scenario.expect("not done means given");
            sup.stage = Stage::Arm;
            arm(sup, sexe, file, env, t0, timeout)?;
            scenario_done = true;
        }
        let mut node_env = env.clone();
        node_env.extend(node.env.clone());
        let idx = sup.spawn(&node.name, exe, args, &node_env).map_err(err)?;
        if node.role.as_deref() == Some("oracle") {
            oracle = Some(idx);
        }
        let started = Instant::now();
        if let Some(marker) = &node.ready {
            'ready: loop {
                for (i, line) in sup.pump(Duration::from_millis(50)) {
                    if Some(i) == oracle {
                        verdict = verdict.or_else(|| line.parse::<VerdictLine>().ok());
                    }
                    if i == idx && line.contains(marker.as_str()) {
                        break 'ready;
                    }
                }
                check_running(sup, t0, timeout, None)?;
                if started.elapsed() > sup.ready_timeout {
                    return Err((
                        EXIT_ERROR,
                        format!(
                            "{} printed no {marker:?} within {:.1} s",
                            node.name,
                            sup.ready_timeout.as_secs_f64()
                        ),
                    ));
                }
            }
        }
    }
    let oracle = oracle.expect("validated: one oracle");
    sup.stage = Stage::Observe;
    loop {
        for (i, line) in sup.pump(Duration::from_millis(100)) {
            if i == oracle {
                verdict = verdict.or_else(|| line.parse::<VerdictLine>().ok());
            }
        }
        if let Some(s) = sup.procs[oracle].exited {
            sup.stage = Stage::Collect;
            // Drain what the reader threads still hold.
            for (i, line) in sup.pump(Duration::from_millis(300)) {
                if i == oracle {
                    verdict = verdict.or_else(|| line.parse::<VerdictLine>().ok());
                }
            }
            return match (s.success(), verdict) {
                (true, Some(v)) => Ok(v),
                (true, None) => Err((EXIT_ERROR, "oracle exited without a verdict line".into())),
                (false, _) => Err((EXIT_ERROR, format!("oracle failed ({s})"))),
            };
        }
        check_running(sup, t0, timeout, Some(oracle))?;
    }
}
