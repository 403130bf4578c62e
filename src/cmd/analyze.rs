//! `breakbench analyze`: the summary recomputed from a campaign's
//! manifests, checked against the stored one, or every run re-judged from
//! its trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use breakbench::campaign::runner::analyze;

/// The arguments of `breakbench analyze`.
#[derive(clap::Args)]
pub struct AnalyzeArgs {
    pub dir: PathBuf,
    /// Exit non-zero if the recomputed summary differs from <dir>/summary.json
    #[arg(long)]
    pub check: bool,
    /// Write the recomputed summary.json (atomically)
    #[arg(long, conflicts_with = "check")]
    pub write: bool,
    /// Re-judge every run from its trace (the recorded ground truth) with the oracle and
    /// print each run whose recorded verdict differs (exit 1) and what of each run the
    /// trace cannot re-judge
    #[arg(long, conflicts_with_all = ["check", "write"])]
    pub verify: bool,
    /// With --verify: the scenario file (default: the path campaign.json recorded, as
    /// given to `campaign`); its hash must be the campaign's
    #[arg(long, requires = "verify")]
    pub scenario: Option<PathBuf>,
}

/// Recomputes the summary of `a.dir` and prints, checks or writes it, or
/// with `--verify` re-judges every run.
///
/// # Errors
/// A manifest, trace or record that does not match the ledger (nothing is
/// computed), or an unreadable stored summary.
pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let AnalyzeArgs {
        dir,
        check,
        write,
        verify,
        scenario,
    } = a;
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
        let stored = std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
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

fn summary_bytes(s: &breakbench::campaign::Summary) -> Result<Vec<u8>> {
    let mut b = serde_json::to_vec_pretty(s)?;
    b.push(b'\n');
    Ok(b)
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
