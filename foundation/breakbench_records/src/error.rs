//! The error type of breakbench_records.

use std::path::PathBuf;

/// Errors of writing or hashing records.
#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    /// A file could not be read, written, synced or renamed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file (or directory) the operation was on.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// The MCAP writer refused a record (`crate::recording`).
    #[error("MCAP recording: {0}")]
    Mcap(#[from] mcap::McapError),

    /// A recording's contents are not what its reader needs (a channel's
    /// `offered_qos_profiles` that does not parse, ...).
    #[error("MCAP recording: {0}")]
    Recording(String),

    /// A record could not be serialised as JSON.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file it was meant for.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

impl RecordsError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
