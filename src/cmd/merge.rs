//! `breakbench merge`: the shard directories of one campaign into one.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::merge::merge;
use kraken_interfaces::text::terminal_safe as safe;

use super::harness_exit;

/// The arguments of `breakbench merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Shard directories (the --out of each `campaign --shard K/N`)
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// New campaign directory (must not exist, or be empty)
    #[arg(long)]
    pub out: PathBuf,
    /// Scenario file for the report (default: the scenario path the shards recorded)
    #[arg(long)]
    pub scenario: Option<PathBuf>,
}

/// Merges, prints the merged corpus and the report's path.
///
/// # Errors
/// As [`merge`], with the output directory named.
pub fn run(a: MergeArgs) -> Result<ExitCode> {
    let r = merge(&a.shards, &a.out, a.scenario.as_deref())
        .with_context(|| format!("merge into {}", a.out.display()))?;
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
    println!("report: {}", a.out.join("report.html").display());
    Ok(harness_exit(&r.harness_failures, &a.out))
}
