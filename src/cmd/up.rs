//! `breakbench up`: one ROS 2 graph, from start to the oracle's verdict.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

/// The arguments of `breakbench up`.
#[derive(clap::Args)]
pub struct UpArgs {
    /// Launch config, e.g. launch/corridor.graph.yaml
    pub config: PathBuf,
    /// Parameter override node.param=value (repeatable)
    #[arg(long = "set", value_name = "NODE.PARAM=VALUE")]
    pub sets: Vec<String>,
    /// ROS_DOMAIN_ID for every node (default: inherited)
    #[arg(long, value_parser = clap::value_parser!(u16).range(0..=232))]
    pub domain_id: Option<u16>,
    /// Wall-time limit, seconds
    #[arg(long, default_value_t = 600.0)]
    pub timeout_s: f64,
    /// kraken scenario run with kraken_scenario before the sim starts (faults from t = 0)
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Share directory for relative *_file parameters (default: parent of the config's launch/)
    #[arg(long)]
    pub share_dir: Option<PathBuf>,
    /// Do not echo the nodes' output
    #[arg(long)]
    pub quiet: bool,
}

/// Starts the graph of `a.config`, waits for the verdict, prints it; the
/// exit code is the supervisor's (0 pass, 1 violation or failure, 2 no
/// verdict, 130 interrupted).
///
/// # Errors
/// A bad timeout, a `--scenario` that is no kraken step list (a campaign
/// scenario is named as such), or a graph that cannot be started.
pub fn run(a: UpArgs) -> Result<ExitCode> {
    let UpArgs {
        config,
        sets,
        domain_id,
        timeout_s,
        scenario,
        share_dir,
        quiet,
    } = a;
    anyhow::ensure!(
        timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= 1e6,
        "--timeout-s {timeout_s:?}: must be > 0 and <= 1e6 s (about 11.6 days)"
    );
    // Checked before anything starts: a kraken step list. A campaign
    // scenario (resilience tests, fault axes) runs on the graph
    // through `campaign --graph`, which adds the orchestrator.
    if let Some(sc) = &scenario {
        if let Err(e) = kraken_faults::StepList::load(sc) {
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
            return Err(anyhow::Error::new(e).context(format!("--scenario {}", sc.display())));
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
