//! The subcommands of `breakbench`: one module each, with its arguments
//! (`clap::Args`) and a `run` that returns the process exit code. `main.rs`
//! only parses and dispatches.

pub mod analyze;
pub mod bench;
pub mod campaign;
#[cfg(feature = "node")]
pub mod graph_record;
pub mod merge;
#[cfg(feature = "node")]
pub mod play;
pub mod replay;
pub mod search;
pub mod up;

use std::path::Path;
use std::process::ExitCode;

/// Prints the failed harness checks of the results in `out`: exit code 1 if
/// any failed, else 0.
pub fn harness_exit(failures: &[String], out: &Path) -> ExitCode {
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
