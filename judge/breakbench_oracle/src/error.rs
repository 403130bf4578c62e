//! The error type of breakbench_oracle.

use kraken_interfaces::ConfigError;

/// Errors of the oracle crate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OracleError {
    /// A world or scenario file is malformed (names file, line and field).
    #[error(transparent)]
    Config(#[from] ConfigError),

    /// A ground-truth pose sample carries a non-finite field (NaN or ±inf).
    /// The oracle refuses it rather than let a NaN compare as "safe".
    #[error("pose sample #{index} (t_s = {t_s}): field '{field}' is not finite")]
    NonFiniteSample {
        /// 0-based position of the sample in the stream.
        index: u64,
        /// The sample's time stamp as received (may itself be NaN).
        t_s: f64,
        /// `t_s`, `x_m`, `y_m` or `yaw_rad`.
        field: &'static str,
    },

    /// A ground-truth pose sample is older than the one before it. Equal
    /// stamps are accepted; going back in time is not.
    #[error(
        "pose sample #{index}: t_s = {t_s} s is before the previous sample's {previous_t_s} s"
    )]
    TimeWentBackwards {
        /// 0-based position of the sample in the stream.
        index: u64,
        /// The offending stamp, seconds.
        t_s: f64,
        /// The previous sample's stamp, seconds.
        previous_t_s: f64,
    },

    /// A verdict was asked for before any ground-truth pose was seen: there is
    /// no evidence to judge, and the oracle does not guess.
    #[error("no ground-truth pose sample was received; the run cannot be judged")]
    EmptyStream,

    /// A line read as the oracle node's verdict line is not one (see
    /// [`crate::VerdictLine`]).
    #[error("verdict line {line:?}: {reason}")]
    VerdictLine {
        /// The line as read.
        line: String,
        /// What is wrong with it.
        reason: String,
    },
}
