//! The error type of breakbench_oracle.

use kraken_interfaces::ConfigError;

/// Errors of the oracle crate.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// A world or scenario file is malformed (names file, line and field).
    #[error(transparent)]
    Config(#[from] ConfigError),
}
