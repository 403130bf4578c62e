//! `breakbench`: parses the command line and dispatches to one subcommand
//! of [`cmd`] (each its own module with its arguments and `run`).

mod cmd;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

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
    Campaign(cmd::campaign::CampaignArgs),
    /// Merge the directories of `campaign --shard K/N` into one campaign directory: checks
    /// that they come from one scenario hash and build and that every run is in exactly
    /// one shard, then writes <out> (manifests and traces linked or copied, summary.json
    /// byte-identical to the unsharded campaign's, report.html, junit.xml, timing.json,
    /// merge.json) in one rename. Exit code as `campaign`: 0, 1 harness check failed, 2 error.
    Merge(cmd::merge::MergeArgs),
    /// Severity search (the scenario's `escape_search:` entries): bisection along a fault
    /// axis for where P(event) crosses the target, each probe with its Wilson interval,
    /// or (`method: adaptive`) the adaptive design's s* with its Fieller and delta
    /// intervals, in-process. Writes <out>/search_<name>.json after each probe; a rerun resumes.
    /// Exit code: 0 the searches ran (whatever they found: crossing or not, resolved or
    /// not, as printed), 2 error (bad file or option, nothing run).
    Search(cmd::search::SearchArgs),
    /// Replay a recording's raw sensor streams and commands through the fault stages of
    /// a scenario's run on the recorded clock, into a new recording (the same input,
    /// run and seed give the same bytes); or with --publish play it into a live ROS 2
    /// graph with /clock (as `ros2 bag play --clock`). Exit code: 0 written or played, 2 error.
    Replay(cmd::replay::ReplayArgs),
    /// Benchmark: the in-process run loop (plant + lidar + fault stages +
    /// navigator + oracle) on one core, no file output. Prints simulated
    /// seconds per wall second.
    Bench(cmd::bench::BenchArgs),
    /// Start a ROS 2 graph (e.g. launch/corridor.graph.yaml) as child processes,
    /// wait for the oracle's verdict, clean up every process. Exit code: 0 pass,
    /// 1 safety violation or mission failure, 2 no verdict (error/timeout), 130 interrupted.
    Up(cmd::up::UpArgs),
    /// Recompute summary.json from a campaign directory's manifests alone; prints it,
    /// or with --check compares it byte for byte with the stored summary.json. Every
    /// manifest must match its line in <dir>/manifests.sha256 and have no unknown field,
    /// and every trace and provenance record its manifest's sha256, or nothing is computed
    /// (exit 2, naming the file).
    Analyze(cmd::analyze::AnalyzeArgs),
}

fn main() -> ExitCode {
    // Output piped into `head` or a closed pager ends the program quietly,
    // as for any Unix tool (SIGPIPE's default action), instead of a panic
    // on the next println! (Rust sets SIGPIPE to ignored before main).
    // SAFETY: signal(2) with SIG_DFL, before any thread is started.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    // With ROS 2 (`replay --publish`): the nodes' logging, which keeps the
    // middleware to its errors and drops its known-harmless ones.
    #[cfg(feature = "node")]
    breakbench_ros::init_logging(breakbench_ros::CLI_LOG_FILTER);
    #[cfg(not(feature = "node"))]
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(kraken_interfaces::text::log_colour())
        .init();
    match dispatch(Cli::parse().command) {
        Ok(code) => code,
        Err(e) => {
            // Each cause once, terminal-safe (REQ-OUTPUT-SAFE-TEXT).
            eprintln!("error: {}", kraken_interfaces::text::error_chain(&*e));
            ExitCode::from(2)
        }
    }
}

/// Runs the parsed subcommand; its exit code, or the error `main` prints
/// (exit 2).
fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Campaign(a) => cmd::campaign::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Search(a) => cmd::search::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Up(a) => cmd::up::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
    }
}
