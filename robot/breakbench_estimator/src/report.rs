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

impl LogRecord {
    /// The record as `rcl_interfaces/msg/Log` (`/rosout`): stamp from
    /// `stamp_ns`, level byte, logger name and message; `file` names this
    /// crate's estimator, `function` the estimator type, `line` 0. The
    /// in-process stack and `ekf_node` publish exactly this.
    pub fn to_ros(self) -> kraken_interfaces::ros::Log {
        kraken_interfaces::ros::Log {
            stamp: kraken_interfaces::ros::Time::from_nanos(self.stamp_ns),
            level: self.level.as_u8(),
            name: self.name,
            msg: self.msg,
            file: "robot/breakbench_estimator/src/estimator.rs".into(),
            function: "breakbench_estimator::Estimator".into(),
            line: 0,
        }
    }
}

impl DiagnosticStatus {
    /// The status as `diagnostic_msgs/msg/DiagnosticStatus` (level byte,
    /// name, message, hardware id, key/value pairs in order). The in-process
    /// stack and `ekf_node` publish exactly this.
    pub fn to_ros(self) -> kraken_interfaces::ros::DiagnosticStatus {
        kraken_interfaces::ros::DiagnosticStatus {
            level: self.level.as_u8(),
            name: self.name,
            message: self.message,
            hardware_id: self.hardware_id,
            values: self
                .values
                .into_iter()
                .map(|(key, value)| kraken_interfaces::ros::KeyValue { key, value })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ros_conversions_keep_levels_and_values() {
        let l = LogRecord {
            stamp_ns: 3_000_000_007,
            level: LogLevel::Warn,
            name: LOGGER_NAME.into(),
            msg: "gnss: refused".into(),
        }
        .to_ros();
        assert_eq!(l.level, kraken_interfaces::ros::Log::WARN);
        assert_eq!((l.stamp.sec, l.stamp.nanosec), (3, 7));
        assert_eq!(l.name, "ekf_filter_node");
        let d = DiagnosticStatus {
            level: DiagLevel::Error,
            name: "ekf: gnss".into(),
            message: "m".into(),
            hardware_id: LOGGER_NAME.into(),
            values: vec![("d2".into(), "14.2".into()), ("fused".into(), "3".into())],
        }
        .to_ros();
        assert_eq!(d.level, kraken_interfaces::ros::DiagnosticStatus::ERROR);
        assert_eq!(d.values.len(), 2);
        assert_eq!(
            (d.values[0].key.as_str(), d.values[0].value.as_str()),
            ("d2", "14.2")
        );
        assert_eq!(
            DiagLevel::Stale.as_u8(),
            kraken_interfaces::ros::DiagnosticStatus::STALE
        );
    }
}
