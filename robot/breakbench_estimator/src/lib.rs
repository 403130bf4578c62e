//! The robot's state estimator: a 2-D extended Kalman filter over
//! `[x, y, yaw, v, yaw_rate]` fusing wheel odometry (`nav_msgs/Odometry`
//! twist), IMU yaw rate (`sensor_msgs/Imu`) and GNSS position
//! (`sensor_msgs/NavSatFix`, converted to local ENU by the caller), in the
//! manner of robot_localization's `ekf_node` + `navsat_transform_node`.
//!
//! Transport-free: plain structs stepped by the caller's sim clock (every
//! input takes `now`), no wall time, no ROS. A node or an in-process run
//! converts messages and publishes the outputs:
//!
//! - [`Estimator::filtered_odometry`]: `odometry/filtered`, pose in `map`,
//!   twist in `base_link` (REP-105);
//! - [`Estimator::odom_odometry`]: the dead-reckoned pose in `odom`;
//! - [`Estimator::map_to_odom`] / [`Estimator::map_to_odom_tf`]: the
//!   `map → odom` transform;
//! - [`Estimator::innovation`]: `nu`, `S`, `d2` of each sensor's last update;
//! - [`Estimator::drain_logs`] (`/rosout`) and [`Estimator::diagnostics`]
//!   (`/diagnostics`).
//!
//! Guards ([`guards`]), the per-sensor Mahalanobis gate (d² against the
//! statrs χ² quantile for the measurement's degrees of freedom) and the
//! GNSS-vs-dead-reckoning consistency monitor ([`monitor`]) are each a
//! declared option of [`EkfConfig`]. The crate README gives the models,
//! parameters and rules with their sources.

pub mod config;
pub mod estimator;
pub mod filter;
pub mod guards;
pub mod inputs;
pub mod monitor;
pub mod report;

pub use config::EkfConfig;
pub use estimator::{EnuConversion, Estimator, Fused, InitialState, Pose2, Sensor};
pub use filter::Innovation;
pub use guards::{RejectReason, SensorCounters, StampNote};
pub use inputs::{HeldInputs, Input};
pub use monitor::{ConsistencyMonitor, Divergence, MonitorState};
pub use report::{DiagLevel, DiagnosticStatus, LogLevel, LogRecord, LOGGER_NAME};

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum EstimatorError {
    /// The configuration is invalid (file, line, field in the message).
    #[error("estimator configuration: {0}")]
    Config(#[from] kraken_interfaces::ConfigError),
    /// A χ² gate quantile could not be computed.
    #[error("χ²({dof}) quantile at p = {p}: {message}")]
    ChiSquared {
        /// Degrees of freedom.
        dof: f64,
        /// Probability.
        p: f64,
        /// statrs' reason.
        message: String,
    },
}
