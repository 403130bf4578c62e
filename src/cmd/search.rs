//! `breakbench search`: the scenario's severity searches (`escape_search:`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::{Budget, Estimate, Scenario};

/// The arguments of `breakbench search`.
#[derive(clap::Args)]
pub struct SearchArgs {
    /// Scenario file with an `escape_search:` list
    pub scenario: PathBuf,
    /// Output directory
    #[arg(long)]
    pub out: PathBuf,
    /// Run only the search of this name (default: every one, in file order)
    #[arg(long)]
    pub name: Option<String>,
    /// Runs executed at once, 1..=1024 (default: the available cores)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// No per-probe progress lines
    #[arg(long)]
    pub quiet: bool,
}

/// Runs the searches named by `a` (all by default), each resumable, and
/// prints what each found.
///
/// # Errors
/// No search of that name, a plan over the default budget (REQ-PLAN-SIZE),
/// or a failed probe run.
pub fn run(a: SearchArgs) -> Result<ExitCode> {
    let SearchArgs {
        scenario,
        out,
        name,
        jobs,
        quiet,
    } = a;
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
        // Its page (the report module reads the search's record, not the
        // other way round).
        let link = s.file.statistics.unwrap_or_default().link;
        let page = breakbench::campaign::search::html_path(&opts.out, &x.name);
        let html = breakbench::campaign::report::search_html(&r, link);
        breakbench_records::write_atomic(&page, html.as_bytes())
            .with_context(|| format!("writing {}", page.display()))?;
        let o = r
            .outcome
            .as_ref()
            .expect("a finished search has its outcome");
        println!(
            "search {}: {} ({}, {})",
            x.name,
            o.statement,
            breakbench::campaign::search::record_path(&opts.out, &x.name).display(),
            breakbench::campaign::search::html_path(&opts.out, &x.name).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
