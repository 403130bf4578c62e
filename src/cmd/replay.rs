//! `breakbench replay`: a recording's raw streams through a run's fault
//! stages on the recorded clock (REQ-REC-REPLAY;
//! `breakbench::campaign::replay`).

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
    #[arg(long)]
    pub scenario: PathBuf,
    /// The run of the scenario's plan whose faults and seed are applied (default: the
    /// run the recording's breakbench_run metadata names)
    #[arg(long)]
    pub run_id: Option<String>,
    /// The fault streams' seed instead of the run's
    #[arg(long)]
    pub seed: Option<u64>,
    /// The output recording (written atomically)
    #[arg(long)]
    pub out: PathBuf,
}

/// Replays `a.input` through run `a.run_id`'s faults of `a.scenario` into `a.out`.
///
/// # Errors
/// An unreadable input or scenario, a run not in the plan, a message that
/// does not decode, or the output not written.
pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let s = Scenario::load(&a.scenario)?;
    let input =
        std::fs::read(&a.input).with_context(|| format!("reading {}", a.input.display()))?;
    let spec = replay_spec(&s, &input, a.run_id.as_deref(), a.seed)
        .with_context(|| a.input.display().to_string())?;
    let bytes = replay(&s, &spec, &input).with_context(|| a.input.display().to_string())?;
    breakbench_records::write_atomic(&a.out, &bytes)
        .with_context(|| format!("writing {}", a.out.display()))?;
    println!(
        "replay: {} through the faults of run {} (seed {}) -> {} ({} bytes, sha256 {})",
        a.input.display(),
        spec.run_id,
        spec.seed,
        a.out.display(),
        bytes.len(),
        breakbench_records::sha256_hex(&bytes)
    );
    Ok(ExitCode::SUCCESS)
}
