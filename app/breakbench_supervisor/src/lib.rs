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
//!   oracle` node exits; its verdict line ([`VerdictLine`]) is the result.
//!
//! Exit codes ([`UpOutcome::exit_code`]): [`EXIT_PASS`] (no safety
//! violation, mission complete), [`EXIT_VERDICT_FAIL`] (a safety violation
//! or a mission failure), [`EXIT_ERROR`] (a node failed or exited early, no
//! verdict, timeout, bad config), [`EXIT_INTERRUPTED`] (SIGINT/SIGTERM).
//!
//! No DDS here: this module only manages processes. Requirements: REQ-GRAPH-UP,
//! REQ-GRAPH-FAIL-VS-INVALID (`docs/requirements.md`).

pub mod args;
pub mod config;
pub mod error;
pub mod exe;
pub mod external;
mod supervise;
pub mod template;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub use args::{default_share_dir, node_args, parse_sets};
/// The oracle's verdict line, the result of a run.
pub use breakbench_oracle::VerdictLine;
pub use config::{LaunchConfig, NodeSpec};
pub use error::SupervisorError;
pub use exe::find_executable;
pub use supervise::TAIL_LINES;

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
/// External stacks: time between SIGINT (what `ros2 launch` handles) and
/// SIGTERM at shutdown.
pub const INT_GRACE: Duration = Duration::from_secs(5);
/// How long a node may take to print its ready marker.
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// How long each node may take to print its ready marker
    /// ([`READY_TIMEOUT`] for `breakbench up`).
    pub ready_timeout: Duration,
}

/// The states of a supervised run, in order; [`UpOutcome::stage`] is the
/// last one entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Starting the nodes and waiting for each one's ready marker.
    Start,
    /// Running the kraken scenario (setting the faults) before the
    /// `after_scenario` nodes start.
    Arm,
    /// Every node is ready; waiting for the oracle's verdict.
    Observe,
    /// The oracle exited; reading its verdict.
    Collect,
    /// A kept-running external stack (`--keep-running`): bringing the
    /// running stack back to the start of the next run (its reset services
    /// and command), before `start`'s readiness checks (REQ-GRAPH-RESET).
    Reset,
}

impl Stage {
    /// The state's name as recorded in manifests (`start`, `arm`, `observe`,
    /// `collect`, `reset`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Start => "start",
            Stage::Arm => "arm",
            Stage::Observe => "observe",
            Stage::Collect => "collect",
            Stage::Reset => "reset",
        }
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
    /// The last state entered (where a failed run stopped).
    pub stage: Stage,
    /// Processes still alive after the shutdown (`name pid`), checked by
    /// signalling each child's process group: empty after a clean reset.
    pub leftover: Vec<String>,
}

/// Runs the graph of `opts` to its verdict (see the module docs).
///
/// # Errors
/// Configuration errors (bad config, params file, `--set`, missing
/// executables) before anything starts. Failures once the graph runs are
/// reported in the [`UpOutcome`] (exit code [`EXIT_ERROR`]).
pub fn up(opts: &UpOptions) -> Result<UpOutcome, SupervisorError> {
    let cfg = LaunchConfig::load(&opts.config)?;
    let share = opts
        .share_dir
        .clone()
        .unwrap_or_else(|| default_share_dir(&opts.config));
    let cwd = std::env::current_dir().map_err(SupervisorError::WorkingDirectory)?;
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
        return Err(SupervisorError::NoScenarioNode {
            config: opts.config.clone(),
        });
    }
    let scenario = match &opts.scenario {
        Some(f) => {
            let exe = find_executable("kraken_faults", "kraken_scenario")?;
            let f = cwd.join(f);
            if !f.is_file() {
                return Err(SupervisorError::NoScenarioFile(f));
            }
            Some((exe, f))
        }
        None => None,
    };

    let mut env = BTreeMap::new();
    if let Some(d) = opts.domain_id {
        env.insert("ROS_DOMAIN_ID".to_string(), d.to_string());
    }
    Ok(supervise::run(
        &plan,
        scenario.as_ref(),
        &env,
        opts.timeout,
        opts.ready_timeout,
        opts.quiet,
    ))
}
