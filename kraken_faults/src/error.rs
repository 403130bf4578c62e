//! The error type of kraken_faults.

/// Errors from fault configuration and requests.
#[derive(Debug, thiserror::Error)]
pub enum FaultError {
    /// The request names a channel that channels.yaml does not declare.
    #[error("unknown channel '{0}'")]
    UnknownChannel(String),
    /// The mode constant is not one of FaultSpec's.
    #[error("unknown fault mode {0}")]
    UnknownMode(u8),
    /// The mode exists but makes no sense for this channel's message type.
    #[error("mode '{mode}' is unsupported on channel '{channel}' ({kind}): {reason}")]
    Unsupported { channel: String, kind: &'static str, mode: &'static str, reason: String },
    /// A parameter is out of its valid range.
    #[error("invalid parameter {field} = {value} for mode '{mode}': {reason}")]
    InvalidParameter { mode: &'static str, field: &'static str, value: f64, reason: String },
    /// A configuration file could not be read or parsed.
    #[error("{path}:{line}:{column}: {field}: {message}")]
    Config { path: String, line: usize, column: usize, field: String, message: String },
    /// I/O error reading a configuration file.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

