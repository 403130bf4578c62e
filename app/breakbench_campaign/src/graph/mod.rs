//! The graph executor: each run of a campaign on a ROS 2 graph of child
//! processes, started in one of two ways ([`GraphSource`]):
//!
//! * `breakbench campaign <scenario> --graph <launch config>`: by the
//!   supervisor of `breakbench up` ([`breakbench_supervisor`]) from a launch
//!   config of ours;
//! * `breakbench campaign <scenario> --graph-cmd '<command template>'`: an
//!   external stack, the user's own (e.g. `ros2 launch my_robot
//!   sim.launch.py seed:={seed} ...`), started from a command template with
//!   placeholders ([`breakbench_supervisor::template`]) and readiness
//!   conditions ([`breakbench_supervisor::external`], which documents how its
//!   states map onto the ones below).
//!
//! Both go through the same states, deadlines, collection and `invalid`
//! paths below.
//!
//! An external stack with `--keep-running` (REQ-GRAPH-RESET) is started once
//! per job slot (domain id) and kept across runs ([`KeptStack`], owned here
//! per domain id and taken out for the run that holds the domain); each run
//! begins with state `reset` (the `--reset-service`s and `--reset-cmd` with
//! the run's values) instead of a start, and a failed run stops the slot's
//! stack so the next one starts fresh. Dropping the executor (the end of the
//! campaign, or its error on SIGINT) drops every slot's [`KeptStack`], which
//! stops it and runs the leftover check.
//!
//! Per run, a state machine with a deadline per state (the state reached is
//! recorded in the manifest's [`GraphRecord`]):
//!
//! 1. `start`: the launch config's nodes start on the run's own
//!    `ROS_DOMAIN_ID`, each within [`GraphOptions::ready_timeout`] of its
//!    start (its ready marker).
//! 2. `arm`: a grid run's faults (one per axis, at the cell's value) are set
//!    through the injector's real `set_fault` service by `kraken_scenario`
//!    before the clock source starts; they are confirmed `applied` from the
//!    injector's `/fault_injector/status` as the oracle node recorded it in
//!    its manifest (channel, mode and requested parameter of every axis, with
//!    its first-applied time), not from the service reply.
//! 3. `observe`: the plant and the injector (seeded with the run's seed: the
//!    injector's fault streams are the in-process run's, REQ-GRAPH-SEED)
//!    run to the oracle's verdict within [`GraphOptions::run_timeout`] (the
//!    whole run's deadline).
//! 4. `collect`: the oracle's verdict line and the manifest and trace it wrote.
//! 5. `stop` / `reset`: every process group the run started is signalled and
//!    checked gone (no leftover process); a nominal run must report no fault.
//!
//! Recording (REQ-REC-GRAPH, [`record`]): with [`GraphOptions::recording`]
//! each run's topics are recorded from before its graph starts until it
//! has stopped, as `ros2 bag record` would, into the run's MCAP file
//! (`recordings/<run_id>.mcap`, policy `full`: `--record events` records
//! `full` on the graph), an invalid run's too.
//!
//! A missed deadline, an unconfirmed fault, a real-time factor below
//! [`GraphOptions::min_rtf`] or a leftover process make the run `invalid`
//! (never `fail`): its manifest carries the state it stopped in and why;
//! the summary does not count it, and a resumed campaign runs it again.
//!
//! The positive canary (an open-loop controller) runs in our graph's
//! `simple_navigator` node (its `open_loop_*` parameters, the same
//! [`breakbench_navigator::controller::OpenLoop`] as in-process); on an
//! external stack its run is `invalid` (`unsupported`).
//!
//! Resilience tests (`tests:`; test and baseline runs): the executor adds a
//! node `orchestrator` (`breakbench_orchestrator`, before the first
//! `after_scenario` node) to a copy of the launch config in the run's
//! working directory, gates the lock-step sim_bridge on it
//! (`sim_bridge.gate_topic=/breakbench/gate`) and raises the injector's
//! status rate (`fault_injector.status_rate_hz=1000`, wall) so that
//! `applied` is read from the status within a few plant steps. The
//! orchestrator fires the triggers from ground truth, sets and clears the
//! faults through the injector's real services, evaluates the expectations
//! with the in-process code ([`super::orchestrate`]) and writes the run's
//! judgement; the manifest takes its `judgement` (verdict class, timeline,
//! expectations) and fault records. No judgement, or a fault the oracle's
//! status record and the orchestrator's disagree on, is `invalid` with the
//! state reached (`collect`). A fault run's paired baseline is the campaign's
//! baseline run of the same test and repeat (run first if this executor has
//! not run it yet, as in-process).

mod collect;
mod compose;
pub mod record;

pub use record::{GraphRecorder, GraphRecording, RunningRecording, GRAPH_TOPICS};

use collect::invalid_manifest;

use breakbench_oracle::expect::ClassifiedVerdict;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::executor::Executor;
use super::manifest::{GraphRecord, Manifest, Provenance, RunKind};
use super::run::{RecordMode, RunOutput, RunSpec};
use super::trace::TraceWriter;
use super::{CampaignError, Scenario};
use breakbench_supervisor::external::{ExternalExes, ExternalStack, KeptStack};
use breakbench_supervisor::{self as supervisor, Stage};

/// How the graph of each run is started.
// One per campaign, never in a collection: the external stack's size (its
// simulator stepping schedule) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum GraphSource {
    /// By the `breakbench up` supervisor from a launch config of ours.
    Launch {
        /// The launch config (e.g. `launch/corridor.graph.yaml`).
        config: PathBuf,
        /// Share directory (default: the parent of the config's `launch/` directory).
        share_dir: Option<PathBuf>,
        /// `node.param=value` overrides added after the executor's own
        /// (`sim_bridge.real_time_factor=0`, lock-step, comes first and can be
        /// overridden here).
        sets: Vec<String>,
    },
    /// An external stack started from a command template. Its command must
    /// pass the run's seed, id and output directory on to its plant and
    /// oracle through the placeholders; lock-step is up to the stack (see
    /// [`breakbench_supervisor::external`] for the start gate).
    External(ExternalStack),
}

impl GraphSource {
    /// How the source is named in errors: the launch config's path, or
    /// `--graph-cmd <template>`.
    pub fn describe(&self) -> String {
        match self {
            GraphSource::Launch { config, .. } => config.display().to_string(),
            GraphSource::External(s) => format!("--graph-cmd {:?}", s.command.to_string()),
        }
    }
}

/// How the graph executor runs its graphs.
#[derive(Debug, Clone)]
pub struct GraphOptions {
    /// How each run's graph is started.
    pub source: GraphSource,
    /// Runs use `ROS_DOMAIN_ID`s `domain_base .. domain_base + jobs`, one per
    /// graph running at once.
    pub domain_base: u16,
    /// Graphs side by side (the campaign's `--jobs`).
    pub jobs: usize,
    /// Deadline of the `start` state, per node (its ready marker); for an
    /// external stack, of each readiness check.
    pub ready_timeout: Duration,
    /// Deadline of the whole run, start to verdict.
    pub run_timeout: Duration,
    /// Real-time factor floor (sim s per wall s over the observed run): a
    /// run below it is `invalid`.
    pub min_rtf: Option<f64>,
    /// Per-run working directories (`<work_dir>/<run_id>/`: the kraken
    /// scenario file and the oracle's output), removed after a valid run.
    pub work_dir: PathBuf,
    /// Each run's MCAP recording (REQ-REC-GRAPH): the recorder and the
    /// user's topics; `None`: no recording (`--record none`).
    pub recording: Option<GraphRecording>,
}

/// The graph executor (see the module docs).
pub struct GraphExecutor {
    opts: GraphOptions,
    /// An external stack's helper executables (found by [`Self::new`]).
    exes: Option<ExternalExes>,
    /// Domain ids not in use by a running graph.
    free_domains: Mutex<Vec<u16>>,
    /// Verdict classes of the resilience-test baselines run so far, by run id.
    baselines: Mutex<BTreeMap<String, ClassifiedVerdict>>,
    /// `--keep-running`: each job slot's running stack, by domain id (taken
    /// out while a run uses it); stopped when the executor is dropped.
    kept: Mutex<BTreeMap<u16, KeptStack>>,
}

impl GraphExecutor {
    /// An executor with `opts.jobs` domain ids from `opts.domain_base`.
    ///
    /// # Errors
    /// [`CampaignError::GraphOptions`] when the domain range passes 232 (the
    /// largest ROS 2 domain id) or when an external stack's program, the
    /// readiness check (`breakbench_ready`) or `kraken_scenario` is not found.
    pub fn new(opts: GraphOptions) -> Result<Self, CampaignError> {
        let jobs = opts.jobs.max(1);
        let last = usize::from(opts.domain_base) + jobs - 1;
        if last > 232 {
            return Err(CampaignError::GraphOptions(format!(
                "--graph-domain-base {} with --jobs {jobs} needs domain ids up to {last}; ROS 2 domain ids end at 232",
                opts.domain_base
            )));
        }
        let free = (0..jobs)
            .rev()
            .map(|i| opts.domain_base + i as u16)
            .collect();
        let exes = match &opts.source {
            // The message names the template and what is missing (as
            // GraphOptions: no duplicated source chain).
            GraphSource::External(stack) => Some(stack.check().map_err(|e| {
                CampaignError::GraphOptions(format!("{}: {e}", opts.source.describe()))
            })?),
            GraphSource::Launch { .. } => None,
        };
        Ok(Self {
            opts,
            exes,
            free_domains: Mutex::new(free),
            baselines: Mutex::new(BTreeMap::new()),
            kept: Mutex::new(BTreeMap::new()),
        })
    }
}

/// Host CPU counters from the first line of `/proc/stat`: (busy, total) jiffies.
fn cpu_counters() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().next()?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    if v.len() < 5 {
        return None;
    }
    let total: u64 = v.iter().take(8).sum();
    // idle + iowait
    Some((total - v[3] - v[4], total))
}

/// What the run's graph left: the oracle's manifest with the campaign's
/// identity, or why the run is invalid and where it stopped.
type Collected = Result<(Manifest, String), (&'static str, String)>;

impl Executor for GraphExecutor {
    /// The graph runs grid, nominal and canary runs of a corridor-type
    /// study, and resilience tests (`tests:`) on a launch config of ours
    /// (the orchestrator is added to it). Not yet: resilience tests on an
    /// external stack (`--graph-cmd`: no place for the orchestrator and the
    /// gate in a user's launch), self-tests with a disabled injector (the
    /// graph's injector is enabled by its `enable` parameter only), and a
    /// navigator driving from the estimator on an external stack (the
    /// executor adds `ekf_node` to our launch config only). Refused rather
    /// than run as something else.
    fn supports(&self, scenario: &Scenario) -> Result<(), CampaignError> {
        let refuse = |field: &str, why: &str| {
            Err(CampaignError::Unsupported {
                scenario: scenario.path.display().to_string(),
                field: field.into(),
                executor: "graph",
                why: why.into(),
            })
        };
        if !scenario.file.tests.is_empty() {
            if let GraphSource::External(_) = self.opts.source {
                return refuse(
                    "tests",
                    "resilience tests on the graph need our launch config (--graph), not --graph-cmd: the orchestrator and the sim_bridge's gate are added to it",
                );
            }
            // The navigator's pose estimate has no topic on the graph: an
            // `estimate.*` observable (or `source: estimate`) would never
            // get a sample there.
            if let Some(t) = scenario
                .file
                .tests
                .iter()
                .find(|t| serde_json::to_string(t).is_ok_and(|j| j.contains("\"estimate")))
            {
                return refuse(
                    "tests",
                    &format!(
                        "test '{}' reads the navigator's pose estimate (estimate.*), which no topic of the graph carries; run without --graph",
                        t.name
                    ),
                );
            }
            if let Some(t) = scenario
                .file
                .tests
                .iter()
                .find(|t| t.self_test.as_ref().is_some_and(|st| !st.injector_enabled))
            {
                return refuse(
                    "tests",
                    &format!(
                        "test '{}': self_test.injector_enabled: false needs a disabled injector, and the graph's fault_injector is enabled by its `enable` parameter; run without --graph",
                        t.name
                    ),
                );
            }
        }
        if !scenario.file.navigator_axes.is_empty() {
            return refuse(
                "navigator_axes",
                "the graph launches one navigator configuration; navigator axes run in-process only; run without --graph",
            );
        }
        if scenario.file.detection.is_some() {
            return refuse(
                "detection",
                "the graph executor does not record /diagnostics per run yet; run without --graph",
            );
        }
        if let Some(i) = scenario
            .file
            .axes
            .iter()
            .position(|a| a.at_s != 0.0 || a.duration_s.is_some())
        {
            return refuse(
                &format!("axes[{i}].at_s"),
                "the graph sets every axis' fault at the start and holds it; a timed axis (at_s, duration_s) runs in-process only; run without --graph",
            );
        }
        // An actuator fault that withholds, holds or adds commands stalls
        // the lock-step plant (it waits for one /cmd_vel per step, up to
        // lockstep_timeout_s); one that changes each command's values
        // relays one for one.
        let actuator = |c: &str| {
            matches!(
                super::scenario::harness_channel(c),
                Some(super::scenario::HarnessChannel::Actuator(_))
            )
        };
        // What a mode does to delivery is the fault registry's to say.
        let one_for_one = |mode: &str| {
            kraken_interfaces::mode_from_name(mode)
                .is_some_and(kraken_faults::faults::is_one_for_one)
        };
        let faulted = scenario
            .file
            .axes
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("axes[{i}].mode"), &a.channel, &a.mode))
            .chain(scenario.file.tests.iter().enumerate().flat_map(|(i, t)| {
                t.faults.iter().enumerate().map(move |(j, f)| {
                    (format!("tests[{i}].faults[{j}].mode"), &f.channel, &f.mode)
                })
            }));
        for (field, channel, mode) in faulted {
            if actuator(channel) && !one_for_one(mode) {
                let allowed: Vec<&str> = kraken_interfaces::MODES
                    .iter()
                    .filter(|m| {
                        m.mode != kraken_interfaces::FaultSpec::HEALTHY
                            && kraken_faults::faults::is_one_for_one(m.mode)
                    })
                    .map(|m| m.name)
                    .collect();
                return refuse(
                    &field,
                    &format!(
                        "'{mode}' on the actuator channel '{channel}' withholds, holds or adds commands, and the lock-step plant waits for one /cmd_vel per step; on the graph only the one-for-one modes run there ({}); run without --graph",
                        allowed.join(", ")
                    ),
                );
            }
        }
        if scenario.navigator.pose_source == breakbench_navigator::PoseSource::Estimator
            && matches!(self.opts.source, GraphSource::External(_))
        {
            return refuse(
                "navigator",
                "pose_source: estimator: the graph executor adds the robot's EKF (ekf_node) to our launch config (--graph); an external stack brings its own estimator and navigator",
            );
        }
        Ok(())
    }

    fn execute(
        &self,
        scenario: &Scenario,
        spec: &RunSpec,
        provenance: &Provenance,
    ) -> Result<RunOutput, CampaignError> {
        let wall = Instant::now();
        let mut record = GraphRecord {
            state_reached: Stage::Start.name().into(),
            invalid_reason: None,
            domain_id: self.opts.domain_base,
            rtf_achieved: 0.0,
            min_rtf: self.opts.min_rtf,
            host_cpu_busy: None,
            wall_time_s: 0.0,
        };
        // A resilience-test fault run: its paired baseline's class (the
        // same seed without the fault), run first if not run yet.
        let baseline = match scenario.paired_baseline(spec) {
            Some(b) => {
                let known = self.baselines.lock().expect("lock").get(&b.run_id).cloned();
                match known {
                    Some(c) => Some(c),
                    None => Some(
                        self.execute(scenario, &b, provenance)?
                            .manifest
                            .judgement
                            .verdict_class,
                    ),
                }
            }
            None => None,
        };
        if spec.kind == RunKind::Canary && matches!(self.opts.source, GraphSource::External(_)) {
            record.invalid_reason = Some(
                "unsupported: the positive canary needs our simple_navigator's open-loop parameters, which an external stack's command template does not take"
                    .into(),
            );
            return Ok(RunOutput {
                manifest: invalid_manifest(scenario, spec, provenance, record),
                trace_csv: TraceWriter::new().finish(),
                provenance_csv: None,
                recording: None,
            });
        }
        let domain = self
            .free_domains
            .lock()
            .expect("lock")
            .pop()
            .expect("one domain id per job");
        record.domain_id = domain;
        let dir = self.opts.work_dir.join(&spec.run_id);
        // The recorder joins the domain before the graph starts.
        let rec = match &self.opts.recording {
            Some(r) => match r.recorder.start(domain, &r.topics()) {
                Ok(running) => Some(running),
                Err(e) => {
                    self.free_domains.lock().expect("lock").push(domain);
                    return Err(CampaignError::Recording(format!(
                        "run {}: the graph recorder did not start on ROS_DOMAIN_ID {domain}: {e}",
                        spec.run_id
                    )));
                }
            },
            None => None,
        };
        let cpu0 = cpu_counters();
        let res = self.run_graph(scenario, spec, provenance, domain, &dir, baseline.as_ref());
        self.free_domains.lock().expect("lock").push(domain);
        let (collected, outcome) = res?;
        let output = self.output(
            scenario,
            spec,
            provenance,
            (collected, outcome),
            record,
            &dir,
            (wall, cpu0),
        )?;
        finish_recording(output, rec)
    }

    fn on_graph(&self) -> bool {
        true
    }

    fn record_mode(&self) -> RecordMode {
        match self.opts.recording {
            Some(_) => RecordMode::Full,
            None => RecordMode::None,
        }
    }
}

/// `output` with the run's recording `rec` (when recorded) finished, its
/// metadata from the run's manifest.
///
/// # Errors
/// [`CampaignError::Recording`]: the recorder failed or the file could not
/// be written.
fn finish_recording(
    mut output: RunOutput,
    rec: Option<Box<dyn RunningRecording>>,
) -> Result<RunOutput, CampaignError> {
    let Some(rec) = rec else {
        return Ok(output);
    };
    let bytes = rec
        .finish(record::run_metadata(&output.manifest))
        .map_err(|e| CampaignError::Recording(format!("run {}: {e}", output.manifest.run_id)))?;
    output.manifest.recording_mode = Some(RecordMode::Full.name().to_string());
    output.recording = Some(bytes);
    Ok(output)
}

impl GraphExecutor {
    /// The run's output from what its graph left (`collected`, `outcome`):
    /// the manifest with the graph record `record` (the run's start `wall`
    /// and host CPU counters `cpu0`), or an invalid run's.
    ///
    /// # Errors
    /// The campaign was interrupted (SIGINT/SIGTERM) during the run.
    #[allow(clippy::too_many_arguments)]
    fn output(
        &self,
        scenario: &Scenario,
        spec: &RunSpec,
        provenance: &Provenance,
        (collected, outcome): (Collected, supervisor::UpOutcome),
        mut record: GraphRecord,
        dir: &std::path::Path,
        (wall, cpu0): (Instant, Option<(u64, u64)>),
    ) -> Result<RunOutput, CampaignError> {
        if outcome.exit_code == supervisor::EXIT_INTERRUPTED {
            // SIGINT/SIGTERM to the campaign: stop it, as the in-process engine stops.
            return Err(CampaignError::GraphOptions(format!(
                "interrupted during run {} (state {})",
                spec.run_id,
                outcome.stage.name()
            )));
        }
        record.host_cpu_busy = match (cpu0, cpu_counters()) {
            (Some((b0, t0)), Some((b1, t1))) if t1 > t0 => {
                Some((b1 - b0) as f64 / (t1 - t0) as f64)
            }
            _ => None,
        };
        record.wall_time_s = wall.elapsed().as_secs_f64();
        let mut result = collected;
        if let Ok((m, _)) = &result {
            record.rtf_achieved = if m.wall_time_s > 0.0 {
                m.sim_time_s / m.wall_time_s
            } else {
                0.0
            };
            if let Some(floor) = self.opts.min_rtf {
                if record.rtf_achieved < floor {
                    result = Err((
                        "observe",
                        format!(
                            "real-time factor {:.3} below the floor {floor} (--min-rtf): the host was overloaded",
                            record.rtf_achieved
                        ),
                    ));
                }
            }
        }
        if !outcome.leftover.is_empty() {
            result = Err((
                "reset",
                format!(
                    "processes left after the shutdown: {}",
                    outcome.leftover.join(", ")
                ),
            ));
        }
        match result {
            Ok((mut m, trace)) => {
                record.state_reached = "done".into();
                if spec.kind == RunKind::Baseline {
                    self.baselines
                        .lock()
                        .expect("lock")
                        .insert(spec.run_id.clone(), m.judgement.verdict_class.clone());
                }
                m.wall_time_s = record.wall_time_s;
                m.graph = Some(record);
                let _ = std::fs::remove_dir_all(dir);
                Ok(RunOutput {
                    manifest: m,
                    trace_csv: trace,
                    provenance_csv: None,
                    recording: None,
                })
            }
            Err((state, why)) => {
                record.state_reached = state.into();
                record.invalid_reason = Some(why);
                Ok(RunOutput {
                    manifest: invalid_manifest(scenario, spec, provenance, record),
                    trace_csv: TraceWriter::new().finish(),
                    provenance_csv: None,
                    recording: None,
                })
            }
        }
    }
}

/// The graph records of `manifests` that are invalid, by run id.
pub fn invalid_runs(manifests: &[Manifest]) -> BTreeMap<String, GraphRecord> {
    manifests
        .iter()
        .filter_map(|m| {
            m.graph
                .as_ref()
                .filter(|g| g.invalid())
                .map(|g| (m.run_id.clone(), g.clone()))
        })
        .collect()
}
