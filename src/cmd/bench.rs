//! `breakbench bench`: the in-process run loop timed on one core.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::{Budget, Estimate, Scenario};

/// The arguments of `breakbench bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Scenario file (default: scenarios/corridor_study.yaml)
    #[arg(default_value = "scenarios/corridor_study.yaml")]
    pub scenario: PathBuf,
    /// Runs to time (the first runs of the plan, in order, each once): at most the
    /// plan's size (a larger number is refused) [default: 32, or the whole plan if
    /// it has fewer runs]
    #[arg(long)]
    pub runs: Option<usize>,
    /// Each run's MCAP recording, built in memory and not written (as
    /// `campaign --record`): its cost is in the figures, its mean size and
    /// zstd ratio printed
    #[arg(long, value_enum, default_value = "none")]
    pub record: super::campaign::RecordArg,
}

/// `breakbench bench`: times the first `runs` runs of the plan of
/// `scenario` (default 32, or the whole plan if smaller), each once, on one
/// core; more runs than the plan has are refused (REQ-PLAN-SIZE).
pub fn run(a: BenchArgs) -> Result<ExitCode> {
    let (scenario, runs) = (a.scenario.as_path(), a.runs);
    let s = Scenario::load(scenario)?;
    let records = breakbench::campaign::run::RunRecords {
        provenance: false,
        mcap: super::campaign::RecordArg::mode(Some(a.record), &s),
    };
    let (mut bytes, mut chunks) = (0u64, (0u64, 0u64));
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
        let o = breakbench::campaign::run::execute_with(&s, spec, &prov, records)?;
        let w = t.elapsed().as_secs_f64();
        if let Some(r) = &o.recording {
            bytes += r.len() as u64;
            let (c, u) = breakbench_records::chunk_bytes(r)?;
            chunks = (chunks.0 + c, chunks.1 + u);
        }
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
    if records.mcap != breakbench::campaign::run::RecordMode::None {
        println!(
            "recording ({}): {} bytes per run, zstd chunks {} -> {} bytes per run (ratio {:.2})",
            records.mcap.name(),
            bytes / runs as u64,
            chunks.1 / runs as u64,
            chunks.0 / runs as u64,
            chunks.1 as f64 / chunks.0.max(1) as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}
