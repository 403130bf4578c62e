//! The error type of kraken_faults.

/// Errors from fault configuration and requests.
#[derive(Debug, thiserror::Error)]
pub enum FaultError {
    /// The request names a channel that channels.yaml does not declare.
    #[error("unknown channel '{0}'")]
    UnknownChannel(String),
    /// A request's channel name is longer than every declared channel name
    /// (the name itself is not echoed: it may be megabytes long).
    #[error(
        "channel name of {len} bytes is longer than any declared channel (longest: {max} bytes; \
         FaultSpec.channel is at most {limit} bytes)",
        limit = kraken_interfaces::FaultSpec::MAX_CHANNEL_NAME_LEN
    )]
    ChannelNameTooLong { len: usize, max: usize },
    /// The mode constant is not one of FaultSpec's.
    #[error("unknown fault mode {0}")]
    UnknownMode(u8),
    /// The mode exists but makes no sense for this channel's message type.
    #[error("mode '{mode}' is unsupported on channel '{channel}' ({kind}): {reason}")]
    Unsupported {
        channel: String,
        kind: &'static str,
        mode: &'static str,
        reason: String,
    },
    /// A parameter is out of its valid range.
    #[error("invalid parameter {field} = {} for mode '{mode}': {reason}", Num(*value))]
    InvalidParameter {
        mode: &'static str,
        field: &'static str,
        value: f64,
        reason: String,
    },
    /// A mode name (scenario files) that is not in `MODE_NAMES`.
    #[error("unknown fault mode '{0}' (expected one of {names})", names = kraken_interfaces::MODE_NAMES.join(", "))]
    UnknownModeName(String),
    /// Fault injection is disabled (production guard): nothing was set.
    #[error("fault injection is disabled")]
    Disabled,
    /// A message of the wrong type was pushed into a channel.
    #[error("channel '{channel}' carries {expected}, got {got}")]
    WrongKind {
        channel: String,
        expected: &'static str,
        got: &'static str,
    },
    /// A scenario step that cannot become a FaultSpec.
    #[error("scenario step '{label}': {message}")]
    Scenario { label: String, message: String },
    /// A scenario step's parameter that FaultSpec does not have, or of the
    /// wrong type.
    #[error("scenario step '{label}': {source}")]
    Param {
        label: String,
        #[source]
        source: kraken_interfaces::ParamError,
    },
    /// A configuration file could not be read or parsed.
    #[error("{path}:{line}:{column}: {field}: {message}")]
    Config {
        path: String,
        line: usize,
        column: usize,
        field: String,
        message: String,
    },
    /// A fault on a field path ([`crate::field`]) refused at build time: the
    /// path is not in the type, the mode makes no sense for the field's type,
    /// or a parameter is missing, superfluous or out of range. Nothing was
    /// changed.
    #[error("field fault '{mode}' on path '{path}' of {ty}: {reason}")]
    Field {
        /// The path as written.
        path: String,
        /// The message type the path was resolved against.
        ty: String,
        /// The mode's name (`set`, `bias`, …).
        mode: &'static str,
        /// What is wrong, naming the field's type.
        reason: String,
    },
    /// An element selection ([`crate::field::SelectSpec`]) refused at build
    /// time: the sequence or a `where` path is not in the type, is not a
    /// sequence of messages / not a comparable leaf, or a value does not fit.
    /// Nothing was changed.
    #[error("select path '{path}' of {ty}: {reason}")]
    Select {
        /// The path as written.
        path: String,
        /// The type it was resolved against (the message type for the
        /// sequence, the element type for a `where` path).
        ty: String,
        /// What is wrong.
        reason: String,
    },
    /// A stage of a [`crate::field::FaultStack`] refused at build time.
    #[error("fault stack stage {index}: {source}")]
    Stage {
        /// The stage's position in the declared order (0-based).
        index: usize,
        /// Why.
        #[source]
        source: Box<FaultError>,
    },
    /// A message of channel `channel` could not be serialized or
    /// deserialized as its type.
    #[error("channel '{channel}': {source}")]
    Codec {
        channel: String,
        #[source]
        source: breakbench_msgs::MsgError,
    },
    /// I/O error reading a configuration file.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl From<kraken_interfaces::ConfigError> for FaultError {
    fn from(e: kraken_interfaces::ConfigError) -> Self {
        FaultError::Config {
            path: e.path,
            line: e.line,
            column: e.column,
            field: e.field,
            message: e.message,
        }
    }
}

/// A parameter value for a message: plain notation for ordinary magnitudes,
/// scientific beyond them (1e308 is "1e308", not 309 digits).
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e15).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}
