//! The graph of one run: the launch config, the parameter sets and the
//! faults scenario the executor starts ([`super::GraphExecutor`]).

use super::collect::collect;
use super::{Collected, GraphExecutor, GraphSource};
use crate::manifest::{Provenance, RunKind};
use crate::run::RunSpec;
use crate::{CampaignError, Scenario};
use breakbench_oracle::expect::ClassifiedVerdict;
use breakbench_supervisor::external::{self, ExternalRun};
use breakbench_supervisor::template::TemplateVars;
use breakbench_supervisor::{self as supervisor, UpOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The kraken scenario (YAML) that sets every axis' fault of `spec` at t = 0.
pub(super) fn faults_scenario(scenario: &Scenario, spec: &RunSpec) -> String {
    let mut y = format!(
        "name: {}\ndescription: the faults of run {} (set by the graph executor)\nsteps:\n",
        spec.run_id, spec.run_id
    );
    for axis in &scenario.file.axes {
        let v = spec.faults[&axis.name];
        y.push_str(&format!(
            "  - label: {}\n    action: set_fault\n    channel: {}\n    mode: {}\n    {}: {:?}\n    at_s: 0.0\n",
            axis.name,
            axis.channel,
            axis.mode,
            axis.parameter,
            axis.offset + v
        ));
    }
    y
}

impl GraphExecutor {
    /// Runs the graph of `spec` on `domain` (states `start` to `reset`).
    pub(super) fn run_graph(
        &self,
        scenario: &Scenario,
        spec: &RunSpec,
        provenance: &Provenance,
        domain: u16,
        dir: &Path,
        baseline: Option<&ClassifiedVerdict>,
    ) -> Result<(Collected, supervisor::UpOutcome), CampaignError> {
        let io = |p: &Path, e| CampaignError::io(p, e);
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let faults = if spec.kind == RunKind::Grid {
            let f = dir.join("faults.yaml");
            std::fs::write(&f, faults_scenario(scenario, spec)).map_err(|e| io(&f, e))?;
            Some(f)
        } else {
            None
        };
        let outcome = match &self.opts.source {
            GraphSource::Launch {
                config,
                share_dir,
                sets: user_sets,
            } => {
                // ROS integer parameters are int64: the u64 seed's bits.
                let seed = spec.seed as i64;
                let kind = if spec.kind == RunKind::Grid {
                    "grid"
                } else {
                    "nominal"
                };
                let mut sets = vec!["sim_bridge.real_time_factor=0".to_string()];
                sets.extend(user_sets.iter().cloned());
                // The launch config's node names (a config may bring its
                // own controller instead of our navigator node).
                let nodes: Option<Vec<String>> = supervisor::config::LaunchConfig::load(config)
                    .ok()
                    .map(|c| c.nodes.into_iter().map(|n| n.name).collect());
                let has_node =
                    |name: &str| nodes.as_ref().is_none_or(|n| n.iter().any(|n| n == name));
                let has_navigator = has_node("simple_navigator");
                if has_navigator {
                    sets.extend(navigator_sets(scenario, spec)?);
                }
                let launch = config;
                let (config, share_dir) = match &spec.test {
                    Some(test) => {
                        let (c, extra) = test_graph(scenario, spec, config, dir, test, baseline)?;
                        sets.extend(extra);
                        (
                            c,
                            Some(
                                share_dir
                                    .clone()
                                    .unwrap_or_else(|| supervisor::args::default_share_dir(config)),
                            ),
                        )
                    }
                    None => (config.clone(), share_dir.clone()),
                };
                // A navigator on the estimator: the robot's EKF joins the graph.
                let (config, share_dir) = if has_navigator
                    && scenario.navigator.pose_source == breakbench_navigator::PoseSource::Estimator
                {
                    sets.extend(estimator_sets(scenario.navigator.estimator_gating));
                    let share =
                        share_dir.unwrap_or_else(|| supervisor::args::default_share_dir(launch));
                    (with_estimator(&config, dir)?, Some(share))
                } else {
                    (config, share_dir)
                };
                // Every node that draws takes the run's seed: the injector's
                // fault streams are then the in-process run's (REQ-GRAPH-SEED).
                if has_node(INJECTOR_NODE) {
                    sets.push(format!("{INJECTOR_NODE}.seed={seed}"));
                }
                sets.extend([
                    format!("sim_bridge.seed={seed}"),
                    format!("oracle.seed={seed}"),
                    format!("oracle.run_id={}", spec.run_id),
                    format!("oracle.manifest_dir={}", dir.display()),
                    format!("oracle.run_kind={kind}"),
                    format!("oracle.scenario_name={}", scenario.file.name),
                ]);
                supervisor::up(&UpOptions {
                    config: config.clone(),
                    sets,
                    domain_id: Some(domain),
                    timeout: self.opts.run_timeout,
                    scenario: faults,
                    share_dir,
                    quiet: true,
                    ready_timeout: self.opts.ready_timeout,
                })
                .map_err(|source| CampaignError::Graph {
                    config: config.display().to_string(),
                    source: Box::new(source),
                })?
            }
            GraphSource::External(stack) => {
                let out = std::path::absolute(dir).map_err(|e| io(dir, e))?;
                let run = ExternalRun {
                    stack,
                    exes: self.exes.as_ref().expect("found by new()"),
                    vars: TemplateVars {
                        domain_id: domain,
                        seed: spec.seed,
                        run_id: spec.run_id.clone(),
                        out,
                    },
                    scenario: faults,
                    timeout: self.opts.run_timeout,
                    ready_timeout: self.opts.ready_timeout,
                    quiet: true,
                };
                if stack.keep_running {
                    // The slot's stack, out of the map for the run (the
                    // domain id is this run's alone until it is freed).
                    let mut kept = self
                        .kept
                        .lock()
                        .expect("lock")
                        .remove(&domain)
                        .unwrap_or_default();
                    let o = external::run_kept(&run, &mut kept);
                    self.kept.lock().expect("lock").insert(domain, kept);
                    o
                } else {
                    external::run(&run)
                }
            }
        };
        let judgement = spec.test.is_some().then(|| dir.join(JUDGEMENT_FILE));
        let collected = collect(scenario, spec, provenance, &outcome, judgement.as_deref());
        Ok((collected, outcome))
    }
}

/// The `--set`s of our navigator node for a run of `spec`: the scenario's
/// navigator file, not the params file's default (a test's variant
/// navigator, e.g. a longer grace window), and for the positive canary the
/// in-process canary's open-loop controller.
///
/// # Errors
/// [`CampaignError::Io`] when the navigator file's path cannot be made
/// absolute.
pub(super) fn navigator_sets(
    scenario: &Scenario,
    spec: &RunSpec,
) -> Result<Vec<String>, CampaignError> {
    let nav = scenario
        .path
        .parent()
        .unwrap_or(Path::new("."))
        .join(&scenario.file.navigator);
    let nav = std::path::absolute(&nav).map_err(|e| CampaignError::io(&nav, e))?;
    let mut sets = vec![format!("simple_navigator.navigator_file={}", nav.display())];
    if let (RunKind::Canary, Some(c)) = (spec.kind, &scenario.file.canary) {
        sets.extend([
            format!("simple_navigator.open_loop_linear_m_s={:?}", c.linear_m_s),
            format!("simple_navigator.open_loop_duration_s={:?}", c.duration_s),
        ]);
    }
    Ok(sets)
}

/// The node name of the fault injector in our launch configs: its `seed`
/// is set to the run's (REQ-GRAPH-SEED).
pub(super) const INJECTOR_NODE: &str = "fault_injector";

/// The orchestrator's output in a run's working directory.
pub(super) const JUDGEMENT_FILE: &str = "judgement.json";
/// The lock-step gate between the orchestrator and the sim_bridge.
pub(super) const GATE_TOPIC: &str = "/breakbench/gate";

/// The node name of the robot's EKF on the graph (`ekf_node`, named like
/// robot_localization's; REQ-EKF-NODE).
pub const EKF_NODE: &str = "ekf_filter_node";

/// A run's graph with the robot's EKF: a copy of the launch config `config`
/// in `dir` (`graph.yaml`; the copy `config` may already be) with the node
/// [`EKF_NODE`] (`breakbench_estimator`'s `ekf_node`) started before
/// `simple_navigator`, which then drives from its `odometry/filtered`
/// (`pose_source: estimator`). Its parameters are the params file's
/// `ekf_filter_node` section (the in-process stack's `config/ekf.yaml`
/// defaults, the world's datum and start pose) and [`estimator_sets`].
///
/// # Errors
/// [`CampaignError::Graph`] when `config` cannot be read,
/// [`CampaignError::Io`] when the copy cannot be written.
pub(super) fn with_estimator(config: &Path, dir: &Path) -> Result<PathBuf, CampaignError> {
    with_node(
        config,
        dir,
        EKF_NODE,
        ("breakbench_estimator", "ekf_node"),
        |n| n.name == "simple_navigator" || n.after_scenario,
    )
}

/// A copy of the launch config `config` written to `dir/graph.yaml` with the
/// node `name` (`(package, executable)`, ready marker `ready`) inserted
/// before the first node that `before` selects (at the end if none).
///
/// # Errors
/// [`CampaignError::Graph`] when `config` cannot be read,
/// [`CampaignError::Io`] when the copy cannot be written.
pub(super) fn with_node(
    config: &Path,
    dir: &Path,
    name: &str,
    (package, executable): (&str, &str),
    before: impl Fn(&supervisor::config::NodeSpec) -> bool,
) -> Result<PathBuf, CampaignError> {
    let bad = |source| CampaignError::Graph {
        config: config.display().to_string(),
        source: Box::new(source),
    };
    let mut cfg = supervisor::config::LaunchConfig::load(config).map_err(bad)?;
    let node = supervisor::config::NodeSpec {
        name: name.into(),
        package: package.into(),
        executable: executable.into(),
        ready: Some("ready".into()),
        role: None,
        after_scenario: false,
        remaps: Vec::new(),
        env: BTreeMap::new(),
    };
    let at = cfg.nodes.iter().position(before).unwrap_or(cfg.nodes.len());
    cfg.nodes.insert(at, node);
    let path = dir.join("graph.yaml");
    let text =
        serde_yaml_ng::to_string(&cfg).map_err(|e| CampaignError::GraphOptions(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| CampaignError::io(&path, e))?;
    Ok(path)
}

/// The `--set`s of the EKF node for the navigator's `estimator_gating`, as
/// [`breakbench_navigator::stack::Gating::apply`] sets them in-process.
pub(super) fn estimator_sets(gating: breakbench_navigator::stack::Gating) -> Vec<String> {
    let cfg = gating.apply(breakbench_navigator::stack::EkfConfig::default());
    vec![
        format!(
            "{EKF_NODE}.gnss.mahalanobis_gate={}",
            cfg.gnss.mahalanobis_gate
        ),
        format!("{EKF_NODE}.consistency.enabled={}", cfg.consistency.enabled),
    ]
}

/// A resilience-test run's graph: a copy of the launch config `config` in
/// `dir` with the node `orchestrator` (`breakbench_orchestrator`) before the
/// first `after_scenario` node, and the `--set`s that configure it, gate the
/// sim_bridge on it and raise the injector's status rate (see the module
/// docs).
pub(super) fn test_graph(
    scenario: &Scenario,
    spec: &RunSpec,
    config: &Path,
    dir: &Path,
    test: &str,
    baseline: Option<&ClassifiedVerdict>,
) -> Result<(PathBuf, Vec<String>), CampaignError> {
    let path = with_node(
        config,
        dir,
        "orchestrator",
        ("breakbench", "breakbench_orchestrator"),
        |n| n.after_scenario,
    )?;
    let abs = |p: &Path| std::path::absolute(p).map_err(|e| CampaignError::io(p, e));
    let kind = if spec.kind == RunKind::Baseline {
        "baseline"
    } else {
        "test"
    };
    let phase_s = spec.phase_s.unwrap_or(0.0);
    let mut sets = vec![
        format!("sim_bridge.gate_topic={GATE_TOPIC}"),
        "fault_injector.status_rate_hz=1000.0".into(),
        format!("orchestrator.gate_topic={GATE_TOPIC}"),
        format!(
            "orchestrator.scenario_file={}",
            abs(&scenario.path)?.display()
        ),
        format!("orchestrator.test={test}"),
        format!("orchestrator.run_kind={kind}"),
        format!("orchestrator.seed={}", spec.seed as i64),
        format!("orchestrator.phase_s={phase_s:?}"),
        format!(
            "orchestrator.judgement_file={}",
            abs(&dir.join(JUDGEMENT_FILE))?.display()
        ),
    ];
    if let Some(b) = baseline {
        let class = serde_json::to_value(b.class)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        sets.push(format!("orchestrator.baseline_class={class}"));
        // A YAML single-quoted scalar: the reason may hold `: ` or `#`.
        sets.push(format!(
            "orchestrator.baseline_reason='{}'",
            b.reason.replace('\'', "''")
        ));
    }
    Ok((path, sets))
}
