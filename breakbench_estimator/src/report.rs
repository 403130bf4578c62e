//! What the estimator tells the world besides its estimate: log records (to
//! publish on `/rosout`) and diagnostic statuses (to publish on
//! `/diagnostics`). Plain structs whose fields and level values are those of
//! `rcl_interfaces/msg/Log` and `diagnostic_msgs/msg/DiagnosticStatus`, so a
//! node converts them field by field.

use serde::Serialize;

/// Log severity with the byte values of `rcl_interfaces/msg/Log`
/// (`DEBUG = 10, INFO = 20, WARN = 30, ERROR = 40, FATAL = 50`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum LogLevel {
    Debug = 10,
    Info = 20,
    Warn = 30,
    Error = 40,
}

impl LogLevel {
    /// The `rcl_interfaces/msg/Log.level` byte.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// One log record (`rcl_interfaces/msg/Log` without `file`/`function`/`line`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogRecord {
    /// Sim time, ns (`Log.stamp`).
    pub stamp_ns: i64,
    /// Severity (`Log.level`).
    pub level: LogLevel,
    /// Logger name (`Log.name`), [`LOGGER_NAME`] for every record of this crate.
    pub name: String,
    /// Message (`Log.msg`); gating records carry `d2=` and `divergence_sigma=`.
    pub msg: String,
}

/// The logger name of every record (the node's name in robot_localization
/// terms).
pub const LOGGER_NAME: &str = "ekf_filter_node";

/// Diagnostic level with the byte values of
/// `diagnostic_msgs/msg/DiagnosticStatus` (`OK = 0, WARN = 1, ERROR = 2,
/// STALE = 3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum DiagLevel {
    Ok = 0,
    Warn = 1,
    Error = 2,
    Stale = 3,
}

impl DiagLevel {
    /// The `DiagnosticStatus.level` byte.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// One `diagnostic_msgs/msg/DiagnosticStatus`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnosticStatus {
    /// Level.
    pub level: DiagLevel,
    /// `ekf: gnss`, `ekf: wheel_odom`, `ekf: imu`.
    pub name: String,
    /// One-line summary.
    pub message: String,
    /// `hardware_id` (the estimator's logger name).
    pub hardware_id: String,
    /// `values` (`diagnostic_msgs/msg/KeyValue`), in a fixed order.
    pub values: Vec<(String, String)>,
}

impl DiagnosticStatus {
    /// The value of key `k`, if present.
    pub fn value(&self, k: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }
}
