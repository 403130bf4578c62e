//! `breakbench replay`: a recording's raw streams through a run's fault
//! stages on the recorded clock (REQ-REC-REPLAY;
//! `breakbench::campaign::replay`), or with `--publish` played into a live
//! graph ([`super::play`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::replay::{replay, replay_spec};
use breakbench::campaign::Scenario;

/// The arguments of `breakbench replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A recording of an in-process run (`recordings/<run_id>.mcap`, made with `--record full`)
    pub input: PathBuf,
    /// The scenario whose run's faults are applied
    #[arg(long, required_unless_present = "publish")]
    pub scenario: Option<PathBuf>,
    /// The run of the scenario's plan whose faults and seed are applied (default: the
    /// run the recording's breakbench_run metadata names)
    #[arg(long)]
    pub run_id: Option<String>,
    /// The fault streams' seed instead of the run's
    #[arg(long)]
    pub seed: Option<u64>,
    /// The output recording (written atomically)
    #[arg(long, required_unless_present = "publish")]
    pub out: Option<PathBuf>,
    /// Instead of writing a recording, play INPUT into the live ROS 2 graph of
    /// ROS_DOMAIN_ID on its recorded clock, publishing /clock (as `ros2 bag play
    /// --clock`): each channel with its recorded type and offered QoS
    #[arg(long, conflicts_with_all = ["scenario", "out", "run_id", "seed"])]
    pub publish: bool,
    /// --publish: wall-time speed-up (1.0: as recorded)
    #[arg(long, default_value_t = 1.0, requires = "publish")]
    pub rate: f64,
    /// --publish: a topic to play (repeatable; default every channel but /clock)
    #[arg(long = "topic", requires = "publish")]
    pub topics: Vec<String>,
    /// --publish: seconds to wait after creating the publishers, for discovery
    #[arg(long, default_value_t = 1.0, requires = "publish")]
    pub delay_s: f64,
}

/// Replays `a.input` through run `a.run_id`'s faults of `a.scenario` into `a.out`.
///
/// # Errors
/// An unreadable input or scenario, a run not in the plan, a message that
/// does not decode, or the output not written.
pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    if a.publish {
        return publish(&a);
    }
    let (Some(scenario), Some(out)) = (&a.scenario, &a.out) else {
        anyhow::bail!("--scenario and --out are required without --publish");
    };
    let s = Scenario::load(scenario)?;
    let input =
        std::fs::read(&a.input).with_context(|| format!("reading {}", a.input.display()))?;
    let spec = replay_spec(&s, &input, a.run_id.as_deref(), a.seed)
        .with_context(|| a.input.display().to_string())?;
    let bytes = replay(&s, &spec, &input).with_context(|| a.input.display().to_string())?;
    breakbench_records::write_atomic(out, &bytes)
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "replay: {} through the faults of run {} (seed {}) -> {} ({} bytes, sha256 {})",
        a.input.display(),
        spec.run_id,
        spec.seed,
        out.display(),
        bytes.len(),
        breakbench_records::sha256_hex(&bytes)
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "node")]
fn publish(a: &ReplayArgs) -> Result<ExitCode> {
    super::play::play(
        &a.input,
        &super::play::PlayOptions {
            rate: a.rate,
            topics: &a.topics,
            delay_s: a.delay_s,
        },
    )
}

#[cfg(not(feature = "node"))]
fn publish(_: &ReplayArgs) -> Result<ExitCode> {
    anyhow::bail!("--publish needs ROS 2: this breakbench was built without the `node` feature")
}
