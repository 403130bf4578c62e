//! `breakbench campaign`: a campaign (or one shard of it) in-process or on
//! a ROS 2 graph, resumable; prints the corpus, the harness checks and each
//! resilience test's verdict classes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use breakbench::campaign::executor::{Executor, InProcess};
use breakbench::campaign::graph::{GraphExecutor, GraphOptions, GraphRecording, GraphSource};
use breakbench::campaign::plan::Shard;
use breakbench::campaign::run::RecordMode;
use breakbench::campaign::runner::{run_campaign_on, run_shard_on, CampaignOptions, Timing};
use breakbench::campaign::summary::ClassCounts;
use breakbench::campaign::{Budget, Scenario, Summary};
use breakbench::supervisor::external::{ExternalStack, SimulatorConfig, StepSchedule};
use kraken_interfaces::text::terminal_safe as safe;

use super::harness_exit;

/// The arguments of `breakbench campaign`.
#[derive(clap::Args)]
pub struct CampaignArgs {
    /// Scenario file, e.g. scenarios/corridor_study.yaml
    pub scenario: PathBuf,
    /// Output directory (manifests/, traces/, summary.json, report.html, junit.xml, timing.json)
    #[arg(long)]
    pub out: PathBuf,
    /// Parallel runs, 1..=1024 (default: available cores)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// No progress bar
    #[arg(long)]
    pub quiet: bool,
    /// Resource budget: most runs the plan may have
    #[arg(long, default_value_t = Budget::default().max_runs)]
    pub max_runs: u64,
    /// Resource budget: most plant steps over all runs
    #[arg(long, default_value_t = Budget::default().max_sim_steps)]
    pub max_sim_steps: u64,
    /// Resource budget: most lidar rays (beams × scans) over all runs
    #[arg(long, default_value_t = Budget::default().max_rays)]
    pub max_rays: u64,
    /// Resource budget: most ray-segment tests (rays × the world's wall and box edges)
    #[arg(long, default_value_t = Budget::default().max_ray_tests)]
    pub max_ray_tests: u64,
    /// Resource budget: most bytes written (manifests, traces, report), estimated
    #[arg(long, default_value_t = Budget::default().max_output_bytes)]
    pub max_output_bytes: u64,
    /// Execute only slice K (0-based) of N disjoint slices of the plan (the run at
    /// plan position i is in slice i mod N), into its own --out directory, for
    /// `breakbench merge`. `auto/N` reads K from JOB_COMPLETION_INDEX (Kubernetes
    /// Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array). The budget applies to the slice.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Execute each run on a ROS 2 graph started from this `breakbench up` launch config
    /// (e.g. launch/corridor.graph.yaml), lock-step, instead of in-process: same plan,
    /// manifests, resume and outputs. Default --jobs 1 then.
    #[arg(long, value_name = "LAUNCH_CONFIG", group = "graph_source")]
    pub graph: Option<PathBuf>,
    /// Execute each run on an external stack (your own ROS 2 graph) started by this
    /// command template, e.g. 'ros2 launch breakbench corridor.launch.py seed:={seed}
    /// run_id:={run_id} out_dir:={out} start_service:=true'. Placeholders: {domain_id},
    /// {seed}, {run_id}, {out}; words split as by a shell, no other shell syntax
    #[arg(
        long,
        value_name = "TEMPLATE",
        conflicts_with = "graph",
        group = "graph_source"
    )]
    pub graph_cmd: Option<String>,
    /// External stack: a topic that must have a publisher before the run is armed
    /// (repeatable; must not need the clock, e.g. /fault_injector/status)
    #[arg(long, value_name = "TOPIC", requires = "graph_cmd")]
    pub ready_topic: Vec<String>,
    /// External stack: a topic on which a message must arrive before the run is armed
    /// (repeatable; any message type; must not need the clock, e.g. /fault_injector/status)
    #[arg(long, value_name = "TOPIC", requires = "graph_cmd")]
    pub ready_message: Vec<String>,
    /// External stack: std_srvs/Trigger service called after arming that starts the
    /// stack's clock (e.g. /sim_bridge/start); without it the clock runs while arming
    #[arg(long, value_name = "SERVICE", requires = "graph_cmd")]
    pub start_service: Option<String>,
    /// External stack: do not require /clock to advance after arming
    #[arg(long, requires = "graph_cmd")]
    pub no_ready_clock: bool,
    /// External stack: command template run after each run's stack was stopped (the
    /// reset rule; default: the stack is restarted per run, nothing else); with
    /// --keep-running, run before each run on the running stack, with the run's {seed},
    /// {run_id}, {out}
    #[arg(long, value_name = "TEMPLATE", requires = "graph_cmd")]
    pub reset_cmd: Option<String>,
    /// External stack: start the --graph-cmd stack once per job slot and keep it running
    /// across runs, reset before each run by --reset-service and/or --reset-cmd (the
    /// template must not use {seed}, {run_id} or {out}: those go to the reset). A failed
    /// run restarts its slot's stack (REQ-GRAPH-RESET)
    #[arg(long, requires = "graph_cmd")]
    pub keep_running: bool,
    /// External stack with --keep-running: a kraken_interfaces/srv/ResetRun service called
    /// with the run's seed, run id and output directory before each run (repeatable,
    /// called in the order given; our corridor stack: /sim_bridge/reset,
    /// /fault_injector/reset, /simple_navigator/reset, /oracle/reset)
    #[arg(long, value_name = "SERVICE", requires = "keep_running")]
    pub reset_service: Vec<String>,
    /// External stack: its simulator is driven through the ROS 2 standard
    /// simulation_interfaces, per this YAML file (simulator: simulation_interfaces,
    /// service_prefix, entity): started by SetSimulationState PLAYING after arming (instead
    /// of --start-service), its entity checked before arming, and with --keep-running reset
    /// by ResetSimulation before the --reset-service calls (docs/simulators.md)
    #[arg(long, value_name = "FILE", requires = "graph_cmd")]
    pub simulator: Option<PathBuf>,
    /// Graph runs: ROS_DOMAIN_IDs used are BASE .. BASE + jobs (one per graph running at once)
    #[arg(
        long,
        default_value_t = 100,
        value_name = "BASE",
        requires = "graph_source"
    )]
    pub graph_domain_base: u16,
    /// Graph runs: `node.param=value` override (repeatable), applied after the executor's
    /// `sim_bridge.real_time_factor=0` (lock-step)
    #[arg(
        long = "graph-set",
        value_name = "NODE.PARAM=VALUE",
        requires = "graph"
    )]
    pub graph_sets: Vec<String>,
    /// Graph runs: deadline of each node's ready marker (external stack: of each
    /// readiness check), seconds
    #[arg(long, default_value_t = 30.0, requires = "graph_source")]
    pub ready_timeout_s: f64,
    /// Graph runs: deadline of a whole run, start to verdict, seconds
    #[arg(long, default_value_t = 300.0, requires = "graph_source")]
    pub run_timeout_s: f64,
    /// Graph runs: real-time factor floor (sim s per wall s); a run below it is invalid
    #[arg(long, requires = "graph_source")]
    pub min_rtf: Option<f64>,
    /// In-process runs: also record which fault touched each message of every channel
    /// (changed, delayed, withheld or added; input index, times, the faults) as
    /// <out>/provenance/<run_id>.csv. Changes no result; a resumed run without its
    /// record is run again
    #[arg(long, conflicts_with = "graph_source")]
    pub record_provenance: bool,
    /// What each run's MCAP recording <out>/recordings/<run_id>.mcap keeps (its sha256
    /// in the manifest). In-process: ground truth, each sensor before and after the
    /// injector, the commanded and the delivered cmd_vel, the injector's status, the
    /// run's events; `full` every message, `events` the messages within the scenario's
    /// `recording:` window (pre_s, post_s; default 0.5 s each) around every event.
    /// On the graph (--graph, --graph-cmd): the graph's topics as `ros2 bag record`
    /// records them (/oracle/odom, each sensor's raw and delivered topic, /cmd_vel_nav,
    /// /cmd_vel, /fault_injector/status, /diagnostics, /rosout, /tf, /tf_static) and
    /// every --record-topic, log time the graph's /clock; `events` records `full`
    /// there. `none`: no recording. Default: full when the whole plan's full recordings
    /// are estimated at most 256 MiB, else events. Changes no result
    #[arg(long, value_enum)]
    pub record: Option<RecordArg>,
    /// Graph runs: also record this topic of your own stack (repeatable; an absolute
    /// name, e.g. /plan or /local_costmap/costmap), subscribed with the QoS its
    /// publishers offer, its type from the graph; a type the message registry does not
    /// know is not recorded (a WARN naming the topic and type, counted in the file's
    /// breakbench_recording metadata), a topic no one publishes is listed there too
    #[arg(long, value_name = "TOPIC", requires = "graph_source")]
    pub record_topic: Vec<String>,
}

/// The values of `--record` (REQ-REC-POLICY).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RecordArg {
    Full,
    Events,
    None,
}

impl RecordArg {
    /// The policy `arg` asks for, or the default for scenario `s`
    /// ([`breakbench::campaign::default_record_mode`]).
    pub fn mode(arg: Option<Self>, s: &Scenario) -> RecordMode {
        match arg {
            Some(Self::Full) => RecordMode::Full,
            Some(Self::Events) => RecordMode::Events,
            Some(Self::None) => RecordMode::None,
            None => breakbench::campaign::default_record_mode(s),
        }
    }
}

/// Runs the campaign (or the shard) of `a` and prints what it found; exit
/// code 0, or 1 when a harness check failed (the results are written).
///
/// # Errors
/// A bad flag, shard or scenario, a plan over the budget, a graph that
/// cannot be set up, or a failed run or write.
pub fn run(a: CampaignArgs) -> Result<ExitCode> {
    let shard = a
        .shard
        .as_ref()
        .map(|spec| Shard::parse(spec, |v| std::env::var(v).ok()))
        .transpose()?;
    let s = Scenario::load(&a.scenario)?;
    check_flags(&a)?;
    let on_graph = a.graph.is_some() || a.graph_cmd.is_some();
    let jobs = a.jobs.map(usize::from).unwrap_or_else(|| {
        if on_graph {
            1
        } else {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }
    });
    let executor = executor(&a, jobs, &s)?;
    let opts = CampaignOptions {
        out: a.out.clone(),
        jobs,
        progress: !a.quiet,
        budget: Budget {
            max_runs: a.max_runs,
            max_sim_steps: a.max_sim_steps,
            max_rays: a.max_rays,
            max_ray_tests: a.max_ray_tests,
            max_output_bytes: a.max_output_bytes,
        },
    };
    let out = &a.out;
    if let Some(shard) = shard {
        let r = run_shard_on(&s, &opts, shard, executor.as_ref())
            .with_context(|| format!("campaign {} shard {shard}", a.scenario.display()))?;
        println!(
            "{} shard {shard}: {} runs ({} executed, {} resumed) in {:.2} s wall, {:.0} s sim ({:.0}x real time, {} jobs) into {}; merge the shards with breakbench merge",
            safe(&s.file.name),
            r.runs,
            r.timing.runs_executed,
            r.timing.runs_resumed,
            r.timing.wall_time_s,
            r.timing.sim_time_s,
            r.timing.real_time_factor,
            r.timing.jobs,
            out.display()
        );
        return Ok(harness_exit(&r.harness_failures, out));
    }
    let r = run_campaign_on(&s, &opts, executor.as_ref())
        .with_context(|| format!("campaign {}", a.scenario.display()))?;
    print_summary(&r.summary, &r.timing);
    println!("report: {}", out.join("report.html").display());
    Ok(harness_exit(&r.harness_failures, out))
}

/// The flags no parser rule covers: `--out` a directory, the graph
/// deadlines and the real-time factor floor in range.
fn check_flags(a: &CampaignArgs) -> Result<()> {
    if a.out.exists() && !a.out.is_dir() {
        anyhow::bail!(
            "--out {}: exists and is not a directory (the campaign writes a directory)",
            a.out.display()
        );
    }
    for (flag, v) in [
        ("--ready-timeout-s", a.ready_timeout_s),
        ("--run-timeout-s", a.run_timeout_s),
    ] {
        anyhow::ensure!(
            v.is_finite() && v > 0.0 && v <= 1e6,
            "{flag} {v:?}: must be > 0 and <= 1e6 s"
        );
    }
    if let Some(r) = a.min_rtf {
        anyhow::ensure!(
            r.is_finite() && r > 0.0,
            "--min-rtf {r:?}: must be a positive real-time factor"
        );
    }
    Ok(())
}

/// The executor of `a`: in-process, or a graph from `--graph` (our launch
/// config) or `--graph-cmd` (an external stack), with `jobs` domain ids;
/// in-process, recording scenario `s`'s runs as `--record` asks.
fn executor(a: &CampaignArgs, jobs: usize, s: &Scenario) -> Result<Box<dyn Executor>> {
    let source = match (&a.graph, &a.graph_cmd) {
        (Some(config), _) => GraphSource::Launch {
            config: config.clone(),
            share_dir: None,
            sets: a.graph_sets.clone(),
        },
        (None, Some(cmd)) => {
            let stack = ExternalStack::new(
                cmd,
                a.ready_topic.clone(),
                a.start_service.clone(),
                !a.no_ready_clock,
                a.reset_cmd.as_deref(),
            )?
            .with_ready_messages(a.ready_message.clone())?;
            let stack = match &a.simulator {
                Some(f) => stack
                    .with_simulator(f, SimulatorConfig::load(f)?)?
                    .with_step_schedule(step_schedule(s)?),
                None => stack,
            };
            GraphSource::External(if a.keep_running {
                stack.with_keep_running(a.reset_service.clone())?
            } else {
                stack
            })
        }
        (None, None) => {
            return Ok(Box::new(InProcess {
                record_provenance: a.record_provenance,
                record_mcap: RecordArg::mode(a.record, s),
            }))
        }
    };
    Ok(Box::new(GraphExecutor::new(GraphOptions {
        source,
        domain_base: a.graph_domain_base,
        jobs,
        ready_timeout: Duration::from_secs_f64(a.ready_timeout_s),
        run_timeout: Duration::from_secs_f64(a.run_timeout_s),
        min_rtf: a.min_rtf,
        work_dir: a.out.join("graph"),
        recording: graph_recording(a, s)?,
    })?))
}

/// The graph runs' recording `--record` and `--record-topic` ask for
/// (REQ-REC-GRAPH): `events` records `full` on the graph.
///
/// # Errors
/// A `--record-topic` that is not an absolute ROS name; a recording asked
/// for (`--record full|events`) of a build without ROS 2.
fn graph_recording(a: &CampaignArgs, s: &Scenario) -> Result<Option<GraphRecording>> {
    for t in &a.record_topic {
        anyhow::ensure!(
            t.starts_with('/') && t.len() > 1 && !t.contains(char::is_whitespace),
            "--record-topic {t:?}: expected an absolute ROS topic name (/...)"
        );
    }
    if RecordArg::mode(a.record, s) == RecordMode::None {
        return Ok(None);
    }
    #[cfg(feature = "node")]
    {
        Ok(Some(GraphRecording {
            recorder: std::sync::Arc::new(super::graph_record::DdsRecorder),
            user_topics: a.record_topic.clone(),
        }))
    }
    #[cfg(not(feature = "node"))]
    {
        anyhow::ensure!(
            a.record.is_none(),
            "--record on the graph: this breakbench was built without ROS 2 (the `node` feature); use --record none"
        );
        Ok(None)
    }
}

/// The in-process lock-step schedule of scenario `s` (REQ-SIMIF-STEP):
/// its plant step and ground-truth period (robot file), its control period
/// (1 / navigator `control_rate_hz`, in whole ns as sim_bridge's
/// `lockstep_period_s`).
fn step_schedule(s: &Scenario) -> Result<StepSchedule> {
    let t = s
        .plant
        .timing(&s.file.robot.display().to_string())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let control_ns = Duration::from_secs_f64(1.0 / s.navigator.control_rate_hz).as_nanos() as u64;
    StepSchedule::new(t.step_ns, control_ns, Some(t.truth_period_ns)).map_err(anyhow::Error::msg)
}

/// The campaign's lines: the corpus, the harness checks, and one line per
/// resilience test (a failing robot is a result, exit 0, so it is said
/// here rather than only in junit.xml and the report).
fn print_summary(sm: &Summary, timing: &Timing) {
    println!(
        "{}: {} manifests ({} grid of {}, {} nominal, {} canary) in {:.2} s wall, {:.0} s sim ({:.0}x real time, {} jobs)",
        safe(&sm.scenario_name),
        sm.corpus.manifests,
        sm.corpus.grid_runs,
        sm.corpus.grid_expected,
        sm.corpus.nominal_runs,
        sm.canary.runs,
        timing.wall_time_s,
        timing.sim_time_s,
        timing.real_time_factor,
        timing.jobs
    );
    // A check that does not apply to this scenario reads "n/a", not "false".
    let check = |applies: bool, ok: bool| {
        if applies {
            ok.to_string()
        } else {
            "n/a".into()
        }
    };
    println!(
        "canary violation detected: {}; verdict isolation passed: {} ({} runs); nominal spread converged: {}",
        check(sm.canary.runs > 0, sm.canary.violation_detected),
        check(sm.isolation.runs_checked > 0, sm.isolation.passed),
        sm.isolation.runs_checked,
        check(sm.nominal.n > 0, sm.nominal.spread_converged)
    );
    // REQ-STAT-DOSE: each model's s* with both intervals, read against the
    // run-to-run noise of the fault-free runs
    let noise = format!(
        "nominal spread sd {:.4} m over {} runs",
        sm.nominal.sd_all, sm.nominal.n
    );
    for m in &sm.dose_response {
        for line in m.lines(sm.statistics.p_star, &noise) {
            println!("{line}");
        }
    }
    for t in &sm.tests {
        let self_test = t.self_test.as_ref().map_or(String::new(), |st| {
            format!(
                "; self-test (every fault run {}): {}/{} {}",
                st.expect_class.name(),
                st.met,
                st.runs,
                if st.passed { "ok" } else { "FAILED" }
            )
        });
        println!(
            "test {} ({} / {}): fault runs {}; baselines {}{self_test}",
            t.test,
            safe(&t.requirement),
            safe(&t.hazard),
            classes(&t.verdict_classes),
            classes(&t.baselines)
        );
    }
}

/// Only the verdict classes that occurred, e.g. "pass 9, fail 1": a healthy
/// run's line does not read "error 0" to a log scanner.
fn classes(k: &ClassCounts) -> String {
    let parts: Vec<String> = [
        ("pass", k.pass),
        ("fail", k.fail),
        ("invalid", k.invalid),
        ("unsupported", k.unsupported),
        ("precondition_failed", k.precondition_failed),
        ("harness error", k.error),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(name, n)| format!("{name} {n}"))
    .collect();
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}
