//! `breakbench up`: starts a ROS 2 graph (the corridor graph of
//! `launch/corridor.graph.yaml`) as child processes, the way
//! `launch/corridor.launch.py` does under `ros2 launch`, and supervises it.
//!
//! * Each node runs as `<exe> --ros-args -r __node:=<name> --params-file
//!   <share>/<params_file> [-r from:=to]... [-p name:=value]...`, where the
//!   `-p` arguments resolve the parameters file's relative paths
//!   (`*_file` against the share directory, `*_dir` against the working
//!   directory) and apply `--set node.param=value`.
//! * Nodes start in the config's order; each must print its `ready` marker
//!   before the next starts. Nodes with `after_scenario: true` start after
//!   the `--scenario` file has run (`kraken_scenario`, to completion).
//! * Every child is the leader of its own process group and dies with its
//!   parent (`PR_SET_PDEATHSIG`); on exit, error, panic (the supervisor's
//!   `Drop`), SIGINT or SIGTERM every group gets SIGTERM, then SIGKILL after
//!   [`KILL_GRACE`].
//! * Output lines are prefixed `[node]`. The run ends when the `role:
//!   oracle` node exits; its `oracle: verdict ...` line is the result.
//!
//! Exit codes ([`UpOutcome::exit_code`]): [`EXIT_PASS`] (no safety
//! violation, mission complete), [`EXIT_VERDICT_FAIL`] (a safety violation
//! or a mission failure), [`EXIT_ERROR`] (a node failed or exited early, no
//! verdict, timeout, bad config), [`EXIT_INTERRUPTED`] (SIGINT/SIGTERM).
//!
//! No DDS here: this module only manages processes.

pub mod config;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub use config::{LaunchConfig, NodeSpec};

/// Verdict passed: no safety violation and the mission completed.
pub const EXIT_PASS: u8 = 0;
/// Verdict failed: a safety violation or a mission failure.
pub const EXIT_VERDICT_FAIL: u8 = 1;
/// The graph did not produce a verdict (node error, early exit, timeout, config).
pub const EXIT_ERROR: u8 = 2;
/// Interrupted by SIGINT or SIGTERM.
pub const EXIT_INTERRUPTED: u8 = 130;
/// Time between SIGTERM and SIGKILL at shutdown.
pub const KILL_GRACE: Duration = Duration::from_secs(3);
/// How long a node may take to print its ready marker.
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// Errors of `breakbench up`.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error(transparent)]
    Config(#[from] kraken_interfaces::ConfigError),
    #[error("{path}: {message}")]
    ParamsFile { path: PathBuf, message: String },
    #[error("--set {0:?}: expected node.param=value with a node of the launch config")]
    BadSet(String),
    #[error("--set {set:?}: no node '{node}' in the launch config (nodes: {nodes})")]
    UnknownSetNode {
        set: String,
        node: String,
        nodes: String,
    },
    #[error("--set {set:?}: node '{node}' has no parameter '{param}' in its section of {params_file} (a typo? known: {known})")]
    UnknownSetParam {
        set: String,
        node: String,
        param: String,
        params_file: PathBuf,
        known: String,
    },
    #[error("executable '{executable}' of package '{package}' not found; tried: {tried}")]
    NotFound {
        package: String,
        executable: String,
        tried: String,
    },
    #[error("starting {name} ({path}): {source}")]
    Spawn {
        name: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Run(String),
}

/// What `breakbench up` was asked to do.
#[derive(Debug, Clone)]
pub struct UpOptions {
    /// The launch config file.
    pub config: PathBuf,
    /// `node.param=value` overrides.
    pub sets: Vec<String>,
    /// `ROS_DOMAIN_ID` for every child (default: inherited).
    pub domain_id: Option<u16>,
    /// Wall-time limit of the whole run.
    pub timeout: Duration,
    /// A kraken scenario file run (with `kraken_scenario`) before the
    /// `after_scenario` nodes start.
    pub scenario: Option<PathBuf>,
    /// Share directory (default: the parent of the config's `launch/` directory).
    pub share_dir: Option<PathBuf>,
    /// Do not echo the nodes' output.
    pub quiet: bool,
}

/// The oracle's verdict line.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictLine {
    pub safety_violation: bool,
    pub mission_failure: bool,
    pub self_report: String,
    pub samples: u64,
    pub manifest: PathBuf,
}

impl VerdictLine {
    /// Parses `oracle: verdict safety_violation=<b> mission_failure=<b>
    /// self_report=<s> samples=<n> manifest=<path>`.
    pub fn parse(line: &str) -> Option<Self> {
        let rest = line.trim().strip_prefix("oracle: verdict ")?;
        let mut kv = BTreeMap::new();
        let (head, manifest) = rest.split_once(" manifest=")?;
        for part in head.split_whitespace() {
            let (k, v) = part.split_once('=')?;
            kv.insert(k, v);
        }
        Some(Self {
            safety_violation: kv.get("safety_violation")?.parse().ok()?,
            mission_failure: kv.get("mission_failure")?.parse().ok()?,
            self_report: kv.get("self_report")?.to_string(),
            samples: kv.get("samples")?.parse().ok()?,
            manifest: PathBuf::from(manifest),
        })
    }
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct UpOutcome {
    pub exit_code: u8,
    pub verdict: Option<VerdictLine>,
    /// Why there is no verdict, when there is none.
    pub error: Option<String>,
    pub wall_s: f64,
}

/// Where the executables live: `BREAKBENCH_BIN_DIR`, next to the running
/// executable (`target/<profile>/`), a colcon install next to ours
/// (`install/<package>/lib/<package>/`), or `AMENT_PREFIX_PATH`.
///
/// # Errors
/// [`GraphError::NotFound`] listing every path tried.
pub fn find_executable(package: &str, executable: &str) -> Result<PathBuf, GraphError> {
    let mut tried = Vec::new();
    if let Some(d) = std::env::var_os("BREAKBENCH_BIN_DIR") {
        tried.push(PathBuf::from(d).join(executable));
    }
    if let Ok(me) = std::env::current_exe() {
        if let Some(dir) = me.parent() {
            tried.push(dir.join(executable));
            // install/<pkg>/lib/<pkg>/breakbench -> install/<package>/lib/<package>/<exe>
            if let Some(install) = dir.parent().and_then(Path::parent).and_then(Path::parent) {
                tried.push(
                    install
                        .join(package)
                        .join("lib")
                        .join(package)
                        .join(executable),
                );
            }
        }
    }
    if let Ok(prefixes) = std::env::var("AMENT_PREFIX_PATH") {
        for p in prefixes.split(':').filter(|p| !p.is_empty()) {
            tried.push(Path::new(p).join("lib").join(package).join(executable));
        }
    }
    tried
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| GraphError::NotFound {
            package: package.into(),
            executable: executable.into(),
            tried: tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The command-line arguments of one node (after the executable).
pub fn node_args(
    node: &NodeSpec,
    params_file: &Path,
    file_params: &BTreeMap<String, serde_yaml_ng::Value>,
    sets: &[(String, String)],
    share: &Path,
    cwd: &Path,
) -> Vec<String> {
    let mut a = vec![
        "--ros-args".to_string(),
        "-r".into(),
        format!("__node:={}", node.name),
        "--params-file".into(),
        params_file.display().to_string(),
    ];
    for r in &node.remaps {
        a.push("-r".into());
        a.push(r.clone());
    }
    let resolve = |name: &str, v: &str, base: &Path| -> Option<String> {
        let p = Path::new(v);
        ((name.ends_with("_file") || name.ends_with("_dir")) && !v.is_empty() && p.is_relative())
            .then(|| base.join(p).display().to_string())
    };
    for (k, v) in file_params {
        if let serde_yaml_ng::Value::String(s) = v {
            let base = if k.ends_with("_file") { share } else { cwd };
            if let Some(abs) = resolve(k, s, base) {
                a.push("-p".into());
                a.push(format!("{k}:={abs}"));
            }
        }
    }
    for (k, v) in sets {
        let v = resolve(k, v, cwd).unwrap_or_else(|| v.clone());
        a.push("-p".into());
        a.push(format!("{k}:={v}"));
    }
    a
}

/// Parses `--set node.param=value` overrides, grouped by node.
///
/// # Errors
/// [`GraphError::BadSet`] (not `node.param=value`),
/// [`GraphError::UnknownSetNode`] (no such node in the launch config),
/// [`GraphError::UnknownSetParam`] (the parameter is not in that node's
/// section of the params file, `/**` included: every settable parameter is
/// listed there, so an unknown name is a typo, not a silent no-op).
pub fn parse_sets(
    sets: &[String],
    nodes: &[NodeSpec],
    params: &BTreeMap<String, BTreeMap<String, serde_yaml_ng::Value>>,
    params_file: &Path,
) -> Result<BTreeMap<String, Vec<(String, String)>>, GraphError> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for s in sets {
        let (lhs, v) = s
            .split_once('=')
            .ok_or_else(|| GraphError::BadSet(s.clone()))?;
        let (node, param) = lhs
            .split_once('.')
            .ok_or_else(|| GraphError::BadSet(s.clone()))?;
        if node.is_empty() || param.is_empty() {
            return Err(GraphError::BadSet(s.clone()));
        }
        if !nodes.iter().any(|n| n.name == node) {
            return Err(GraphError::UnknownSetNode {
                set: s.clone(),
                node: node.into(),
                nodes: nodes
                    .iter()
                    .map(|n| n.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let known = params.get(node);
        if !known.is_some_and(|k| k.contains_key(param)) {
            return Err(GraphError::UnknownSetParam {
                set: s.clone(),
                node: node.into(),
                param: param.into(),
                params_file: params_file.to_path_buf(),
                known: known
                    .map(|k| k.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default(),
            });
        }
        out.entry(node.into())
            .or_default()
            .push((param.into(), v.into()));
    }
    Ok(out)
}

/// Lines of each child's output kept for the early-exit report.
pub const TAIL_LINES: usize = 20;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

struct Proc {
    name: String,
    child: Child,
    exited: Option<std::process::ExitStatus>,
    /// A one-shot helper (kraken_scenario) whose exit is expected.
    one_shot: bool,
    /// The last [`TAIL_LINES`] lines of its stdout and stderr.
    tail: std::collections::VecDeque<String>,
}

/// Owns every child; kills every process group on drop (also on panic).
struct Supervisor {
    procs: Vec<Proc>,
    tx: mpsc::Sender<(usize, bool, String)>,
    rx: mpsc::Receiver<(usize, bool, String)>,
    quiet: bool,
    width: usize,
}

impl Supervisor {
    fn spawn(
        &mut self,
        name: &str,
        exe: &Path,
        args: &[String],
        env: &BTreeMap<String, String>,
    ) -> Result<usize, GraphError> {
        let mut cmd = Command::new(exe);
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
        let mut child = cmd.spawn().map_err(|source| GraphError::Spawn {
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
    fn pump(&mut self, wait: Duration) -> Vec<(usize, String)> {
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
    fn report_tail(&mut self, i: usize) {
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

    fn shutdown(&mut self) {
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
            unsafe { libc::killpg(*pid, libc::SIGTERM) };
        }
        let t0 = Instant::now();
        while t0.elapsed() < KILL_GRACE
            && self
                .procs
                .iter_mut()
                .any(|p| matches!(p.child.try_wait(), Ok(None)))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        for p in &mut self.procs {
            // The group may hold grandchildren even after the leader exited.
            unsafe { libc::killpg(p.child.id() as i32, libc::SIGKILL) };
            let _ = p.child.wait();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The share directory for `config`: the parent of its `launch/` directory.
pub fn default_share_dir(config: &Path) -> PathBuf {
    let abs = std::fs::canonicalize(config).unwrap_or_else(|_| config.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    if dir.file_name().is_some_and(|n| n == "launch") {
        dir.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        dir
    }
}

/// Runs the graph of `opts` to its verdict (see the module docs).
///
/// # Errors
/// Configuration errors (bad config, params file, `--set`, missing
/// executables) before anything starts. Failures once the graph runs are
/// reported in the [`UpOutcome`] (exit code [`EXIT_ERROR`]).
pub fn up(opts: &UpOptions) -> Result<UpOutcome, GraphError> {
    let cfg = LaunchConfig::load(&opts.config)?;
    let share = opts
        .share_dir
        .clone()
        .unwrap_or_else(|| default_share_dir(&opts.config));
    let cwd =
        std::env::current_dir().map_err(|e| GraphError::Run(format!("working directory: {e}")))?;
    let params_file = share.join(&cfg.params_file);
    let params = config::node_params(&params_file, &cfg.nodes)?;
    let sets = parse_sets(&opts.sets, &cfg.nodes, &params, &params_file)?;
    let mut plan = Vec::new();
    for n in &cfg.nodes {
        let exe = find_executable(&n.package, &n.executable)?;
        let args = node_args(
            n,
            &params_file,
            &params[&n.name],
            sets.get(&n.name).map_or(&[][..], |v| v),
            &share,
            &cwd,
        );
        plan.push((n.clone(), exe, args));
    }
    if opts.scenario.is_some() && !cfg.nodes.iter().any(|n| n.after_scenario) {
        return Err(GraphError::Run(format!(
            "--scenario given, but no node of {} has `after_scenario: true` (the scenario would never run)",
            opts.config.display()
        )));
    }
    let scenario = match &opts.scenario {
        Some(f) => {
            let exe = find_executable("kraken_faults", "kraken_scenario")?;
            let f = cwd.join(f);
            if !f.is_file() {
                return Err(GraphError::Run(format!(
                    "--scenario {}: no such file",
                    f.display()
                )));
            }
            Some((exe, f))
        }
        None => None,
    };

    let mut env = BTreeMap::new();
    if let Some(d) = opts.domain_id {
        env.insert("ROS_DOMAIN_ID".to_string(), d.to_string());
    }
    INTERRUPTED.store(false, Ordering::SeqCst);
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let t0 = Instant::now();
    let (tx, rx) = mpsc::channel();
    let mut sup = Supervisor {
        procs: Vec::new(),
        tx,
        rx,
        quiet: opts.quiet,
        width: 0,
    };
    let result = supervise(&mut sup, &plan, scenario.as_ref(), &env, opts.timeout, t0);
    sup.shutdown();
    let wall_s = t0.elapsed().as_secs_f64();
    Ok(match result {
        Ok(v) => UpOutcome {
            exit_code: if v.safety_violation || v.mission_failure {
                EXIT_VERDICT_FAIL
            } else {
                EXIT_PASS
            },
            verdict: Some(v),
            error: None,
            wall_s,
        },
        Err((code, e)) => UpOutcome {
            exit_code: code,
            verdict: None,
            error: Some(e),
            wall_s,
        },
    })
}

type Fail = (u8, String);

fn check_running(
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

fn supervise(
    sup: &mut Supervisor,
    plan: &[(NodeSpec, PathBuf, Vec<String>)],
    scenario: Option<&(PathBuf, PathBuf)>,
    env: &BTreeMap<String, String>,
    timeout: Duration,
    t0: Instant,
) -> Result<VerdictLine, Fail> {
    let err = |e: GraphError| (EXIT_ERROR, e.to_string());
    let mut oracle = None;
    let mut verdict = None;
    let mut scenario_done = scenario.is_none();
    for (node, exe, args) in plan {
        if node.after_scenario && !scenario_done {
            let (sexe, file) = scenario.expect("not done means given");
            let a = vec![
                file.display().to_string(),
                "--ros-args".into(),
                "-p".into(),
                "timeout_s:=20.0".into(),
            ];
            let idx = sup.spawn("kraken_scenario", sexe, &a, env).map_err(err)?;
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
                    break;
                }
            }
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
                        verdict = verdict.or_else(|| VerdictLine::parse(&line));
                    }
                    if i == idx && line.contains(marker.as_str()) {
                        break 'ready;
                    }
                }
                check_running(sup, t0, timeout, None)?;
                if started.elapsed() > READY_TIMEOUT {
                    return Err((
                        EXIT_ERROR,
                        format!(
                            "{} printed no {marker:?} within {:.0} s",
                            node.name,
                            READY_TIMEOUT.as_secs_f64()
                        ),
                    ));
                }
            }
        }
    }
    let oracle = oracle.expect("validated: one oracle");
    loop {
        for (i, line) in sup.pump(Duration::from_millis(100)) {
            if i == oracle {
                verdict = verdict.or_else(|| VerdictLine::parse(&line));
            }
        }
        if let Some(s) = sup.procs[oracle].exited {
            // Drain what the reader threads still hold.
            for (i, line) in sup.pump(Duration::from_millis(300)) {
                if i == oracle {
                    verdict = verdict.or_else(|| VerdictLine::parse(&line));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_line_round_trip() {
        let v = VerdictLine::parse(
            "oracle: verdict safety_violation=false mission_failure=true self_report=success samples=3000 manifest=/tmp/a b/m.json",
        )
        .unwrap();
        assert!(!v.safety_violation && v.mission_failure);
        assert_eq!(v.self_report, "success");
        assert_eq!(v.samples, 3000);
        assert_eq!(v.manifest, PathBuf::from("/tmp/a b/m.json"));
        assert_eq!(
            VerdictLine::parse("oracle: verdict safety_violation=maybe"),
            None
        );
    }

    #[test]
    fn node_args_resolve_paths_and_sets() {
        let n = NodeSpec {
            name: "oracle".into(),
            package: "breakbench_oracle".into(),
            executable: "oracle".into(),
            ready: None,
            role: Some("oracle".into()),
            after_scenario: false,
            remaps: vec!["/a:=/b".into()],
            env: BTreeMap::new(),
        };
        let mut fp = BTreeMap::new();
        fp.insert(
            "world_file".to_string(),
            serde_yaml_ng::Value::String("config/corridor.yaml".into()),
        );
        fp.insert(
            "manifest_dir".to_string(),
            serde_yaml_ng::Value::String("runs/x".into()),
        );
        fp.insert(
            "abs_file".to_string(),
            serde_yaml_ng::Value::String("/etc/x.yaml".into()),
        );
        fp.insert("seed".to_string(), serde_yaml_ng::Value::Number(3.into()));
        let a = node_args(
            &n,
            Path::new("/share/config/params/corridor.yaml"),
            &fp,
            &[
                ("seed".into(), "7".into()),
                ("manifest_dir".into(), "out".into()),
            ],
            Path::new("/share"),
            Path::new("/work"),
        );
        assert_eq!(
            a,
            [
                "--ros-args",
                "-r",
                "__node:=oracle",
                "--params-file",
                "/share/config/params/corridor.yaml",
                "-r",
                "/a:=/b",
                "-p",
                "manifest_dir:=/work/runs/x",
                "-p",
                "world_file:=/share/config/corridor.yaml",
                "-p",
                "seed:=7",
                "-p",
                "manifest_dir:=/work/out",
            ]
        );
    }

    #[test]
    fn sets_name_the_unknown_node_or_parameter() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let c = LaunchConfig::load(&root.join("launch/corridor.graph.yaml")).unwrap();
        let pf = root.join(&c.params_file);
        let p = config::node_params(&pf, &c.nodes).unwrap();
        let set = |v: &[&str]| {
            let v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            parse_sets(&v, &c.nodes, &p, &pf)
        };
        let ok = set(&["sim_bridge.real_time_factor=5", "oracle.use_sim_time=false"]).unwrap();
        assert_eq!(
            ok["sim_bridge"],
            vec![("real_time_factor".to_string(), "5".to_string())]
        );
        // `/**` parameters are settable on every node.
        assert_eq!(
            ok["oracle"],
            vec![("use_sim_time".to_string(), "false".to_string())]
        );
        let e = set(&["sim_bridge.real_time_factr=5"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("node 'sim_bridge' has no parameter 'real_time_factr'")
                && e.contains("corridor.yaml"),
            "{e}"
        );
        let e = set(&["sim_brige.seed=1"]).unwrap_err().to_string();
        assert!(e.contains("no node 'sim_brige'"), "{e}");
        assert!(matches!(set(&["seed=1"]), Err(GraphError::BadSet(_))));
        assert!(matches!(set(&["oracle.seed"]), Err(GraphError::BadSet(_))));
    }

    #[test]
    fn shipped_launch_config_and_params_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let c = LaunchConfig::load(&root.join("launch/corridor.graph.yaml")).unwrap();
        let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            ["fault_injector", "simple_navigator", "oracle", "sim_bridge"]
        );
        let p = config::node_params(&root.join(&c.params_file), &c.nodes).unwrap();
        // `/**` use_sim_time: true, overridden by the bridge's own false.
        assert_eq!(
            p["oracle"]["use_sim_time"],
            serde_yaml_ng::Value::Bool(true)
        );
        assert_eq!(
            p["sim_bridge"]["use_sim_time"],
            serde_yaml_ng::Value::Bool(false)
        );
        assert_eq!(
            default_share_dir(&root.join("launch/corridor.graph.yaml")),
            std::fs::canonicalize(root).unwrap()
        );
    }

    #[test]
    fn bad_launch_configs_are_rejected_with_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("g.yaml");
        for (text, field) in [
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e}\n", "nodes"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle, bogus: 1}\n", "bogus"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle, remaps: [nope]}\n", "nodes[0].remaps[0]"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle}\n  - {name: a, package: p, executable: e}\n", "nodes[1].name"),
        ] {
            std::fs::write(&f, text).unwrap();
            let e = LaunchConfig::load(&f).unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("g.yaml"), "{field}: {e}");
        }
    }
}
