//! `breakbench`: the campaign command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::executor::{Executor, InProcess};
use breakbench::campaign::graph::{GraphExecutor, GraphOptions, GraphSource};
use breakbench::campaign::merge::merge;
use breakbench::campaign::plan::Shard;
use breakbench::campaign::runner::{analyze, run_campaign_on, run_shard_on, CampaignOptions};
use breakbench::campaign::{Budget, Estimate, Scenario};
use breakbench::supervisor::external::ExternalStack;
use clap::{Parser, Subcommand};
// Every name printed came from a file: printed without control sequences.
use kraken_interfaces::text::terminal_safe as safe;

#[derive(Parser)]
#[command(
    name = "breakbench",
    version,
    about = "Degraded-state testing of ROS 2 robots"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process and matched by value: the size of its largest
// variant (campaign, many flags) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run (or resume) a campaign: every grid cell × repeat, the nominal set, the canary
    /// and each resilience test's fault and baseline runs. Exit code: 0 all harness checks
    /// passed (a robot failing a test is a result, not a harness failure), 1 a harness check
    /// failed (the positive canary was not detected, the verdict isolation check failed, or a
    /// self-test's run got another verdict class than it declares; results still written),
    /// 2 error (bad input, plan over budget, I/O).
    Campaign {
        /// Scenario file, e.g. scenarios/corridor_study.yaml
        scenario: PathBuf,
        /// Output directory (manifests/, traces/, summary.json, report.html, junit.xml, timing.json)
        #[arg(long)]
        out: PathBuf,
        /// Parallel runs, 1..=1024 (default: available cores)
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        jobs: Option<u16>,
        /// No progress bar
        #[arg(long)]
        quiet: bool,
        /// Resource budget: most runs the plan may have
        #[arg(long, default_value_t = Budget::default().max_runs)]
        max_runs: u64,
        /// Resource budget: most plant steps over all runs
        #[arg(long, default_value_t = Budget::default().max_sim_steps)]
        max_sim_steps: u64,
        /// Resource budget: most lidar rays (beams × scans) over all runs
        #[arg(long, default_value_t = Budget::default().max_rays)]
        max_rays: u64,
        /// Resource budget: most ray-segment tests (rays × the world's wall and box edges)
        #[arg(long, default_value_t = Budget::default().max_ray_tests)]
        max_ray_tests: u64,
        /// Resource budget: most bytes written (manifests, traces, report), estimated
        #[arg(long, default_value_t = Budget::default().max_output_bytes)]
        max_output_bytes: u64,
        /// Execute only slice K (0-based) of N disjoint slices of the plan (the run at
        /// plan position i is in slice i mod N), into its own --out directory, for
        /// `breakbench merge`. `auto/N` reads K from JOB_COMPLETION_INDEX (Kubernetes
        /// Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array). The budget applies to the slice.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Execute each run on a ROS 2 graph started from this `breakbench up` launch config
        /// (e.g. launch/corridor.graph.yaml), lock-step, instead of in-process: same plan,
        /// manifests, resume and outputs. Default --jobs 1 then.
        #[arg(long, value_name = "LAUNCH_CONFIG", group = "graph_source")]
        graph: Option<PathBuf>,
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
        graph_cmd: Option<String>,
        /// External stack: a topic that must have a publisher before the run is armed
        /// (repeatable; must not need the clock, e.g. /fault_injector/status)
        #[arg(long, value_name = "TOPIC", requires = "graph_cmd")]
        ready_topic: Vec<String>,
        /// External stack: a topic on which a message must arrive before the run is armed
        /// (repeatable; any message type; must not need the clock, e.g. /fault_injector/status)
        #[arg(long, value_name = "TOPIC", requires = "graph_cmd")]
        ready_message: Vec<String>,
        /// External stack: std_srvs/Trigger service called after arming that starts the
        /// stack's clock (e.g. /sim_bridge/start); without it the clock runs while arming
        #[arg(long, value_name = "SERVICE", requires = "graph_cmd")]
        start_service: Option<String>,
        /// External stack: do not require /clock to advance after arming
        #[arg(long, requires = "graph_cmd")]
        no_ready_clock: bool,
        /// External stack: command template run after each run's stack was stopped (the
        /// reset rule; default: the stack is restarted per run, nothing else); with
        /// --keep-running, run before each run on the running stack, with the run's {seed},
        /// {run_id}, {out}
        #[arg(long, value_name = "TEMPLATE", requires = "graph_cmd")]
        reset_cmd: Option<String>,
        /// External stack: start the --graph-cmd stack once per job slot and keep it running
        /// across runs, reset before each run by --reset-service and/or --reset-cmd (the
        /// template must not use {seed}, {run_id} or {out}: those go to the reset). A failed
        /// run restarts its slot's stack (REQ-GRAPH-RESET)
        #[arg(long, requires = "graph_cmd")]
        keep_running: bool,
        /// External stack with --keep-running: a kraken_interfaces/srv/ResetRun service called
        /// with the run's seed, run id and output directory before each run (repeatable,
        /// called in the order given; our corridor stack: /sim_bridge/reset,
        /// /fault_injector/reset, /simple_navigator/reset, /oracle/reset)
        #[arg(long, value_name = "SERVICE", requires = "keep_running")]
        reset_service: Vec<String>,
        /// Graph runs: ROS_DOMAIN_IDs used are BASE .. BASE + jobs (one per graph running at once)
        #[arg(
            long,
            default_value_t = 100,
            value_name = "BASE",
            requires = "graph_source"
        )]
        graph_domain_base: u16,
        /// Graph runs: `node.param=value` override (repeatable), applied after the executor's
        /// `sim_bridge.real_time_factor=0` (lock-step)
        #[arg(
            long = "graph-set",
            value_name = "NODE.PARAM=VALUE",
            requires = "graph"
        )]
        graph_sets: Vec<String>,
        /// Graph runs: deadline of each node's ready marker (external stack: of each
        /// readiness check), seconds
        #[arg(long, default_value_t = 30.0, requires = "graph_source")]
        ready_timeout_s: f64,
        /// Graph runs: deadline of a whole run, start to verdict, seconds
        #[arg(long, default_value_t = 300.0, requires = "graph_source")]
        run_timeout_s: f64,
        /// Graph runs: real-time factor floor (sim s per wall s); a run below it is invalid
        #[arg(long, requires = "graph_source")]
        min_rtf: Option<f64>,
        /// In-process runs: also record which fault touched each message of every channel
        /// (changed, delayed, withheld or added; input index, times, the faults) as
        /// <out>/provenance/<run_id>.csv. Changes no result; a resumed run without its
        /// record is run again
        #[arg(long, conflicts_with = "graph_source")]
        record_provenance: bool,
    },
    /// Merge the directories of `campaign --shard K/N` into one campaign directory: checks
    /// that they come from one scenario hash and build and that every run is in exactly
    /// one shard, then writes <out> (manifests and traces linked or copied, summary.json
    /// byte-identical to the unsharded campaign's, report.html, junit.xml, timing.json,
    /// merge.json) in one rename. Exit code as `campaign`: 0, 1 harness check failed, 2 error.
    Merge {
        /// Shard directories (the --out of each `campaign --shard K/N`)
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// New campaign directory (must not exist, or be empty)
        #[arg(long)]
        out: PathBuf,
        /// Scenario file for the report (default: the scenario path the shards recorded)
        #[arg(long)]
        scenario: Option<PathBuf>,
    },
    /// Severity search (the scenario's `escape_search:` entries): bisection along a fault
    /// axis for where P(event) crosses the target, each probe with its Wilson interval,
    /// in-process. Writes <out>/search_<name>.json after each probe; a rerun resumes.
    /// Exit code: 0 the searches ran (whatever they found: crossing or not, resolved or
    /// not, as printed), 2 error (bad file or option, nothing run).
    Search {
        /// Scenario file with an `escape_search:` list
        scenario: PathBuf,
        /// Output directory
        #[arg(long)]
        out: PathBuf,
        /// Run only the search of this name (default: every one, in file order)
        #[arg(long)]
        name: Option<String>,
        /// Runs executed at once, 1..=1024 (default: the available cores)
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        jobs: Option<u16>,
        /// No per-probe progress lines
        #[arg(long)]
        quiet: bool,
    },
    /// Benchmark: the in-process run loop (plant + lidar + fault stages +
    /// navigator + oracle) on one core, no file output. Prints simulated
    /// seconds per wall second.
    Bench {
        /// Scenario file (default: scenarios/corridor_study.yaml)
        #[arg(default_value = "scenarios/corridor_study.yaml")]
        scenario: PathBuf,
        /// Runs to time (the first runs of the plan, in order, each once): at most the
        /// plan's size (a larger number is refused) [default: 32, or the whole plan if
        /// it has fewer runs]
        #[arg(long)]
        runs: Option<usize>,
    },
    /// Start a ROS 2 graph (e.g. launch/corridor.graph.yaml) as child processes,
    /// wait for the oracle's verdict, clean up every process. Exit code: 0 pass,
    /// 1 safety violation or mission failure, 2 no verdict (error/timeout), 130 interrupted.
    Up {
        /// Launch config, e.g. launch/corridor.graph.yaml
        config: PathBuf,
        /// Parameter override node.param=value (repeatable)
        #[arg(long = "set", value_name = "NODE.PARAM=VALUE")]
        sets: Vec<String>,
        /// ROS_DOMAIN_ID for every node (default: inherited)
        #[arg(long, value_parser = clap::value_parser!(u16).range(0..=232))]
        domain_id: Option<u16>,
        /// Wall-time limit, seconds
        #[arg(long, default_value_t = 600.0)]
        timeout_s: f64,
        /// kraken scenario run with kraken_scenario before the sim starts (faults from t = 0)
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Share directory for relative *_file parameters (default: parent of the config's launch/)
        #[arg(long)]
        share_dir: Option<PathBuf>,
        /// Do not echo the nodes' output
        #[arg(long)]
        quiet: bool,
    },
    /// Recompute summary.json from a campaign directory's manifests alone; prints it,
    /// or with --check compares it byte for byte with the stored summary.json. Every
    /// manifest must match its line in <dir>/manifests.sha256 and have no unknown field,
    /// and every trace and provenance record its manifest's sha256, or nothing is computed
    /// (exit 2, naming the file).
    Analyze {
        dir: PathBuf,
        /// Exit non-zero if the recomputed summary differs from <dir>/summary.json
        #[arg(long)]
        check: bool,
        /// Write the recomputed summary.json (atomically)
        #[arg(long, conflicts_with = "check")]
        write: bool,
        /// Re-judge every run from its trace (the recorded ground truth) with the oracle and
        /// print each run whose recorded verdict differs (exit 1) and what of each run the
        /// trace cannot re-judge
        #[arg(long, conflicts_with_all = ["check", "write"])]
        verify: bool,
        /// With --verify: the scenario file (default: the path campaign.json recorded, as
        /// given to `campaign`); its hash must be the campaign's
        #[arg(long, requires = "verify")]
        scenario: Option<PathBuf>,
    },
}

fn summary_bytes(s: &breakbench::campaign::Summary) -> Result<Vec<u8>> {
    let mut b = serde_json::to_vec_pretty(s)?;
    b.push(b'\n');
    Ok(b)
}

/// Prints the failed harness checks of the results in `out`: exit code 1 if
/// any failed, else 0.
fn harness_exit(failures: &[String], out: &std::path::Path) -> ExitCode {
    if failures.is_empty() {
        return ExitCode::SUCCESS;
    }
    for f in failures {
        eprintln!("error: harness check failed: {f}");
    }
    eprintln!(
        "error: {} harness check(s) failed: the results in {} are written but cannot be trusted",
        failures.len(),
        out.display()
    );
    ExitCode::from(1)
}

/// `breakbench bench`: times the first `runs` runs of the plan of
/// `scenario` (default 32, or the whole plan if smaller), each once, on one
/// core; more runs than the plan has are refused (REQ-PLAN-SIZE).
fn bench(scenario: &std::path::Path, runs: Option<usize>) -> Result<ExitCode> {
    let s = Scenario::load(scenario)?;
    let estimate = Estimate::of(&s);
    let runs = runs.unwrap_or_else(|| estimate.runs.min(32) as usize);
    anyhow::ensure!(runs > 0, "--runs must be at least 1");
    // Each planned run once, never the plan cycled (REQ-PLAN-SIZE).
    anyhow::ensure!(
        runs as u64 <= estimate.runs,
        "--runs {runs}: the plan of {} has {} runs and bench runs each at most once; give --runs {} or fewer",
        scenario.display(),
        estimate.runs,
        estimate.runs
    );
    Budget::default()
        .check(&estimate)
        .with_context(|| format!("bench {}", scenario.display()))?;
    let prov = breakbench::campaign::runner::provenance();
    let plan = breakbench::campaign::plan::plan(&s);
    let mut rtfs = Vec::new();
    let (mut sim, mut wall) = (0.0, 0.0);
    for spec in plan.iter().take(runs) {
        let t = std::time::Instant::now();
        let o = breakbench::campaign::run::execute(&s, spec, &prov)?;
        let w = t.elapsed().as_secs_f64();
        sim += o.manifest.sim_time_s;
        wall += w;
        rtfs.push(o.manifest.sim_time_s / w);
    }
    rtfs.sort_by(f64::total_cmp);
    println!(
        "bench: {runs} runs, {sim:.0} s sim in {wall:.3} s wall on one core: {:.0}x real time overall, per run min {:.0}x median {:.0}x max {:.0}x",
        sim / wall,
        rtfs[0],
        rtfs[rtfs.len() / 2],
        rtfs[rtfs.len() - 1]
    );
    Ok(ExitCode::SUCCESS)
}

/// `analyze --verify`: one line per run (what differs, what was not
/// re-judged), a closing count; exit 1 if any run differs.
fn verify_dir(dir: &std::path::Path, scenario: Option<&std::path::Path>) -> Result<ExitCode> {
    let checks = breakbench::campaign::verify::verify(dir, scenario)?;
    let differ = checks.iter().filter(|c| !c.differences.is_empty()).count();
    for c in &checks {
        let state = if c.differences.is_empty() {
            "re-judged from its trace: same verdict".to_string()
        } else {
            format!("DIFFERS from its trace: {}", c.differences.join("; "))
        };
        let not = if c.not_rejudged.is_empty() {
            String::new()
        } else {
            format!("; not re-judged: {}", c.not_rejudged.join("; "))
        };
        println!("{}: {state}{not}", c.run_id);
    }
    println!(
        "verify {}: {} runs re-judged from their traces, {differ} differ from their manifests",
        dir.display(),
        checks.len()
    );
    if differ > 0 {
        for c in checks.iter().filter(|c| !c.differences.is_empty()) {
            eprintln!(
                "error: {}: the recorded verdict differs from the one re-judged from {}: {}",
                dir.join("manifests")
                    .join(format!("{}.json", c.run_id))
                    .display(),
                dir.join("traces")
                    .join(format!("{}.csv", c.run_id))
                    .display(),
                c.differences.join("; ")
            );
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // Output piped into `head` or a closed pager ends the program quietly,
    // as for any Unix tool (SIGPIPE's default action), instead of a panic
    // on the next println! (Rust sets SIGPIPE to ignored before main).
    // SAFETY: signal(2) with SIG_DFL, before any thread is started.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(kraken_interfaces::text::log_colour())
        .init();
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            // Each cause once, terminal-safe (REQ-OUTPUT-SAFE-TEXT).
            eprintln!("error: {}", kraken_interfaces::text::error_chain(&*e));
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Campaign {
            scenario,
            out,
            jobs,
            quiet,
            max_runs,
            max_sim_steps,
            max_rays,
            max_ray_tests,
            max_output_bytes,
            shard,
            graph,
            graph_cmd,
            ready_topic,
            ready_message,
            start_service,
            no_ready_clock,
            reset_cmd,
            keep_running,
            reset_service,
            graph_domain_base,
            graph_sets,
            ready_timeout_s,
            run_timeout_s,
            min_rtf,
            record_provenance,
        } => {
            let shard = shard
                .map(|spec| Shard::parse(&spec, |v| std::env::var(v).ok()))
                .transpose()?;
            let s = Scenario::load(&scenario)?;
            let budget = Budget {
                max_runs,
                max_sim_steps,
                max_rays,
                max_ray_tests,
                max_output_bytes,
            };
            if out.exists() && !out.is_dir() {
                anyhow::bail!(
                    "--out {}: exists and is not a directory (the campaign writes a directory)",
                    out.display()
                );
            }
            let jobs = jobs.map(usize::from).unwrap_or_else(|| {
                if graph.is_some() || graph_cmd.is_some() {
                    1
                } else {
                    std::thread::available_parallelism()
                        .map(|n| n.get())
                        .unwrap_or(1)
                }
            });
            for (flag, v) in [
                ("--ready-timeout-s", ready_timeout_s),
                ("--run-timeout-s", run_timeout_s),
            ] {
                anyhow::ensure!(
                    v.is_finite() && v > 0.0 && v <= 1e6,
                    "{flag} {v:?}: must be > 0 and <= 1e6 s"
                );
            }
            if let Some(r) = min_rtf {
                anyhow::ensure!(
                    r.is_finite() && r > 0.0,
                    "--min-rtf {r:?}: must be a positive real-time factor"
                );
            }
            let source = match (&graph, &graph_cmd) {
                (Some(config), _) => Some(GraphSource::Launch {
                    config: config.clone(),
                    share_dir: None,
                    sets: graph_sets,
                }),
                (None, Some(cmd)) => {
                    let stack = ExternalStack::new(
                        cmd,
                        ready_topic,
                        start_service,
                        !no_ready_clock,
                        reset_cmd.as_deref(),
                    )?
                    .with_ready_messages(ready_message)?;
                    Some(GraphSource::External(if keep_running {
                        stack.with_keep_running(reset_service)?
                    } else {
                        stack
                    }))
                }
                (None, None) => None,
            };
            let executor: Box<dyn Executor> = match source {
                Some(source) => Box::new(GraphExecutor::new(GraphOptions {
                    source,
                    domain_base: graph_domain_base,
                    jobs,
                    ready_timeout: std::time::Duration::from_secs_f64(ready_timeout_s),
                    run_timeout: std::time::Duration::from_secs_f64(run_timeout_s),
                    min_rtf,
                    work_dir: out.join("graph"),
                })?),
                None => Box::new(InProcess { record_provenance }),
            };
            let opts = CampaignOptions {
                out: out.clone(),
                jobs,
                progress: !quiet,
                budget,
            };
            if let Some(shard) = shard {
                let r = run_shard_on(&s, &opts, shard, executor.as_ref())
                    .with_context(|| format!("campaign {} shard {shard}", scenario.display()))?;
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
                return Ok(harness_exit(&r.harness_failures, &out));
            }
            let r = run_campaign_on(&s, &opts, executor.as_ref())
                .with_context(|| format!("campaign {}", scenario.display()))?;
            let sm = &r.summary;
            println!(
                "{}: {} manifests ({} grid of {}, {} nominal, {} canary) in {:.2} s wall, {:.0} s sim ({:.0}x real time, {} jobs)",
                safe(&sm.scenario_name),
                sm.corpus.manifests,
                sm.corpus.grid_runs,
                sm.corpus.grid_expected,
                sm.corpus.nominal_runs,
                sm.canary.runs,
                r.timing.wall_time_s,
                r.timing.sim_time_s,
                r.timing.real_time_factor,
                r.timing.jobs
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
            // Resilience tests: a failing robot is a result (exit 0), so
            // say it here rather than only in junit.xml and the report.
            for t in &sm.tests {
                // Only the classes that occurred: a healthy run's line does
                // not read "error 0" to a log scanner.
                let c = |k: &breakbench::campaign::summary::ClassCounts| {
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
                };
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
                    c(&t.verdict_classes),
                    c(&t.baselines)
                );
            }
            println!("report: {}", out.join("report.html").display());
            Ok(harness_exit(&r.harness_failures, &out))
        }
        Command::Merge {
            shards,
            out,
            scenario,
        } => {
            let r = merge(&shards, &out, scenario.as_deref())
                .with_context(|| format!("merge into {}", out.display()))?;
            let sm = &r.summary;
            println!(
                "{}: merged {} shards of {}: {} manifests ({} grid of {}, {} nominal, {} canary), {:.0} s sim, {:.2} s wall summed over the shards",
                safe(&sm.scenario_name),
                r.merge.shards.len(),
                r.merge.shards.first().map_or(0, |s| s.shard.count),
                sm.corpus.manifests,
                sm.corpus.grid_runs,
                sm.corpus.grid_expected,
                sm.corpus.nominal_runs,
                sm.canary.runs,
                r.timing.sim_time_s,
                r.timing.wall_time_s
            );
            println!("report: {}", out.join("report.html").display());
            Ok(harness_exit(&r.harness_failures, &out))
        }
        Command::Search {
            scenario,
            out,
            name,
            jobs,
            quiet,
        } => {
            let s = Scenario::load(&scenario)?;
            let searches: Vec<_> = s
                .file
                .escape_search
                .iter()
                .filter(|x| name.as_ref().is_none_or(|n| *n == x.name))
                .cloned()
                .collect();
            if searches.is_empty() {
                let have: Vec<&str> = s
                    .file
                    .escape_search
                    .iter()
                    .map(|x| x.name.as_str())
                    .collect();
                anyhow::bail!(
                    "{}: no escape_search{} (the file has: {})",
                    scenario.display(),
                    name.map_or(String::new(), |n| format!(" named '{n}'")),
                    if have.is_empty() {
                        "none".into()
                    } else {
                        have.join(", ")
                    }
                );
            }
            // A search runs at most (2 + steps) x repeats probes: held to
            // the default budget before anything runs (REQ-PLAN-SIZE).
            let probes = searches.iter().fold(0u64, |acc, x| {
                acc.saturating_add((2 + x.steps as u64).saturating_mul(x.repeats as u64))
            });
            Budget::default()
                .check(&Estimate::of_runs(&s, probes))
                .with_context(|| {
                    format!(
                        "search {}: {probes} probe runs over the default budget (search takes no budget flags: lower the searches' repeats or steps)",
                        scenario.display()
                    )
                })?;
            let jobs = jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
                usize::from,
            );
            let prov = breakbench::campaign::runner::provenance();
            let opts = breakbench::campaign::search::SearchOptions { out, jobs, quiet };
            for x in &searches {
                let r = breakbench::campaign::search::run_search(&s, x, &prov, &opts)?;
                let o = r
                    .outcome
                    .as_ref()
                    .expect("a finished search has its outcome");
                println!(
                    "search {}: {} ({})",
                    x.name,
                    o.statement,
                    breakbench::campaign::search::record_path(&opts.out, &x.name).display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { scenario, runs } => bench(&scenario, runs),
        Command::Up {
            config,
            sets,
            domain_id,
            timeout_s,
            scenario,
            share_dir,
            quiet,
        } => {
            anyhow::ensure!(
                timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= 1e6,
                "--timeout-s {timeout_s:?}: must be > 0 and <= 1e6 s (about 11.6 days)"
            );
            // Checked before anything starts: a kraken step list. A campaign
            // scenario (resilience tests, fault axes) runs on the graph
            // through `campaign --graph`, which adds the orchestrator.
            if let Some(sc) = &scenario {
                if let Err(e) = kraken_faults::ScenarioFile::load(sc) {
                    let campaign = std::fs::read_to_string(sc)
                        .ok()
                        .and_then(|t| serde_yaml_ng::from_str::<serde_yaml_ng::Mapping>(&t).ok())
                        .is_some_and(|m| m.contains_key("tests") || m.contains_key("axes"));
                    if campaign {
                        anyhow::bail!(
                            "--scenario {}: a campaign scenario (tests:, axes:), not a kraken step list; run it on this graph with `breakbench campaign {} --graph {} --out <dir>`",
                            sc.display(),
                            sc.display(),
                            config.display()
                        );
                    }
                    return Err(
                        anyhow::Error::new(e).context(format!("--scenario {}", sc.display()))
                    );
                }
            }
            let o = breakbench::supervisor::up(&breakbench::supervisor::UpOptions {
                config,
                sets,
                domain_id,
                timeout: std::time::Duration::from_secs_f64(timeout_s),
                scenario,
                share_dir,
                quiet,
                ready_timeout: breakbench::supervisor::READY_TIMEOUT,
            })?;
            match (&o.verdict, &o.error) {
                (Some(v), _) => println!(
                    "up: verdict safety_violation={} mission_failure={} self_report={} manifest={} ({:.1} s wall)",
                    v.safety_violation,
                    v.mission_failure,
                    v.self_report,
                    v.manifest.display(),
                    o.wall_s
                ),
                (None, e) => eprintln!(
                    "up: no verdict: {} ({:.1} s wall)",
                    e.as_deref().unwrap_or("?"),
                    o.wall_s
                ),
            }
            Ok(ExitCode::from(o.exit_code))
        }
        Command::Analyze {
            dir,
            check,
            write,
            verify,
            scenario,
        } => {
            if verify {
                return verify_dir(&dir, scenario.as_deref());
            }
            let s = analyze(&dir)?;
            let ledger = breakbench::campaign::ledger::ledger_sha256(&dir).unwrap_or_default();
            eprintln!(
                "{}: {} manifests match {} (sha256 {ledger}), their traces and records their manifests",
                dir.display(),
                s.corpus.manifests,
                breakbench::campaign::ledger::LEDGER_FILE
            );
            let bytes = summary_bytes(&s)?;
            if check {
                let p = dir.join("summary.json");
                let stored =
                    std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
                if stored != bytes {
                    eprintln!(
                        "{}: differs from the summary recomputed from the manifests",
                        p.display()
                    );
                    return Ok(ExitCode::from(1));
                }
                println!(
                    "{}: identical to the summary recomputed from the manifests",
                    p.display()
                );
            } else if write {
                breakbench::campaign::atomic::write_atomic(&dir.join("summary.json"), &bytes)?;
            } else {
                use std::io::Write;
                std::io::stdout().write_all(&bytes)?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
