//! The estimator's parameters (an `ekf.yaml` file or [`EkfConfig::default`]).
//!
//! Every field is required in a file (no silent defaults), unknown fields are
//! refused, units are in the names (REP-103: metres, seconds, radians;
//! `_m2_s2` is m²/s², `_rad2_s3` rad²/s³). Each number has a declared range
//! ([`EKF_RANGES`]); the README's Parameters table lists them with their
//! defaults.

use std::path::Path;

use breakbench_world::range::{check_ranges, Range};
use kraken_interfaces::config::{load_yaml_checked, parse_yaml_checked};
use kraken_interfaces::ConfigError;
use serde::{Deserialize, Serialize};

use crate::filter::ProcessNoise;

/// The declared range of every numeric field of an estimator file.
pub const EKF_RANGES: &[Range] = &[
    Range::new("map_process_noise.xy_m2_s", 0.0, 100.0, "m^2/s"),
    Range::new("map_process_noise.yaw_rad2_s", 0.0, 100.0, "rad^2/s"),
    Range::new("map_process_noise.v_m2_s3", 0.0, 1000.0, "m^2/s^3"),
    Range::new(
        "map_process_noise.yaw_rate_rad2_s3",
        0.0,
        1000.0,
        "rad^2/s^3",
    ),
    Range::new("odom_process_noise.xy_m2_s", 0.0, 100.0, "m^2/s"),
    Range::new("odom_process_noise.yaw_rad2_s", 0.0, 100.0, "rad^2/s"),
    Range::new("odom_process_noise.v_m2_s3", 0.0, 1000.0, "m^2/s^3"),
    Range::new(
        "odom_process_noise.yaw_rate_rad2_s3",
        0.0,
        1000.0,
        "rad^2/s^3",
    ),
    Range::new("initial_sigma.xy_m", 1e-6, 1e6, "m"),
    Range::new("initial_sigma.yaw_rad", 1e-6, 10.0, "rad"),
    Range::new("initial_sigma.v_m_s", 1e-6, 100.0, "m/s"),
    Range::new("initial_sigma.yaw_rate_rad_s", 1e-6, 100.0, "rad/s"),
    Range::new("time.future_tolerance_s", 0.0, 10.0, "s"),
    Range::new("time.late_tolerance_s", 0.0, 10.0, "s"),
    Range::new("wheel_odom.gate_probability", 0.5, 0.999_999_999, "1"),
    Range::new("wheel_odom.min_variance_v_m2_s2", 1e-12, 1.0, "m^2/s^2"),
    Range::new("wheel_odom.max_variance_v_m2_s2", 1e-6, 1e12, "m^2/s^2"),
    Range::new(
        "wheel_odom.min_variance_yaw_rate_rad2_s2",
        1e-12,
        1.0,
        "rad^2/s^2",
    ),
    Range::new(
        "wheel_odom.max_variance_yaw_rate_rad2_s2",
        1e-6,
        1e12,
        "rad^2/s^2",
    ),
    Range::new("wheel_odom.timeout_s", 0.001, 3600.0, "s"),
    Range::new("imu.gate_probability", 0.5, 0.999_999_999, "1"),
    Range::new("imu.min_variance_rad2_s2", 1e-12, 1.0, "rad^2/s^2"),
    Range::new("imu.max_variance_rad2_s2", 1e-6, 1e12, "rad^2/s^2"),
    Range::new("imu.timeout_s", 0.001, 3600.0, "s"),
    Range::new("gnss.gate_probability", 0.5, 0.999_999_999, "1"),
    Range::new("gnss.min_variance_m2", 1e-12, 100.0, "m^2"),
    Range::new("gnss.max_variance_m2", 1e-6, 1e12, "m^2"),
    Range::new("gnss.timeout_s", 0.001, 3600.0, "s"),
    Range::new("consistency.window_s", 0.1, 3600.0, "s"),
    Range::new("consistency.min_fixes", 3.0, 100_000.0, "fixes"),
    Range::new("consistency.k_high_sigma", 0.1, 1000.0, "sigma"),
    Range::new("consistency.k_low_sigma", 0.0, 1000.0, "sigma"),
    Range::new("consistency.reaccept_hold_s", 0.0, 3600.0, "s"),
    Range::new("consistency.alignment_sigma_rad", 0.0, 1.0, "rad"),
];

/// Initial standard deviations of the state (the initial covariance is
/// diagonal with their squares).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialSigma {
    /// σ of x and of y, m.
    pub xy_m: f64,
    /// σ of yaw, rad.
    pub yaw_rad: f64,
    /// σ of v, m/s.
    pub v_m_s: f64,
    /// σ of yaw_rate, rad/s.
    pub yaw_rate_rad_s: f64,
}

/// The stamp rules (see the crate docs, "Time").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeConfig {
    /// A stamp later than the receive time by more than this is a future
    /// stamp: the message is used at its receive time and counted, s.
    pub future_tolerance_s: f64,
    /// A message older than the filter time by at most this is fused at the
    /// filter time and counted as late; older ones are refused (`too_old`), s.
    pub late_tolerance_s: f64,
}

/// Wheel odometry (`nav_msgs/Odometry` twist: `linear.x`, `angular.z`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelOdomConfig {
    /// Fuse this sensor at all.
    pub enabled: bool,
    /// Refuse a measurement whose d² exceeds the χ²(2) quantile of
    /// `gate_probability`.
    pub mahalanobis_gate: bool,
    /// Gate probability (the χ² quantile level), in [0.5, 1).
    pub gate_probability: f64,
    /// Variances of v below this are raised to it, m²/s².
    pub min_variance_v_m2_s2: f64,
    /// A variance of v at or above this (DBL_MAX included) is refused, m²/s².
    pub max_variance_v_m2_s2: f64,
    /// Variances of yaw_rate below this are raised to it, rad²/s².
    pub min_variance_yaw_rate_rad2_s2: f64,
    /// A variance of yaw_rate at or above this is refused, rad²/s².
    pub max_variance_yaw_rate_rad2_s2: f64,
    /// No accepted message for this long turns the diagnostic to WARN, s.
    pub timeout_s: f64,
}

/// IMU yaw rate (`sensor_msgs/Imu.angular_velocity.z`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImuConfig {
    /// Fuse this sensor at all.
    pub enabled: bool,
    /// Refuse a measurement whose d² exceeds the χ²(1) quantile.
    pub mahalanobis_gate: bool,
    /// Gate probability, in [0.5, 1).
    pub gate_probability: f64,
    /// Variances below this are raised to it, rad²/s².
    pub min_variance_rad2_s2: f64,
    /// A variance at or above this is refused, rad²/s².
    pub max_variance_rad2_s2: f64,
    /// No accepted message for this long turns the diagnostic to WARN, s.
    pub timeout_s: f64,
}

/// GNSS position (`sensor_msgs/NavSatFix`, converted to the local ENU `map`
/// frame by the caller's conversion).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GnssConfig {
    /// Fuse this sensor at all.
    pub enabled: bool,
    /// Refuse a fix whose d² exceeds the χ²(2) quantile.
    pub mahalanobis_gate: bool,
    /// Gate probability, in [0.5, 1).
    pub gate_probability: f64,
    /// Variances (east, north) below this are raised to it, m².
    pub min_variance_m2: f64,
    /// A variance at or above this (DBL_MAX included) is refused, m².
    pub max_variance_m2: f64,
    /// No accepted fix for this long turns the diagnostic to WARN, s.
    pub timeout_s: f64,
}

/// The GNSS-vs-dead-reckoning consistency monitor (see `monitor`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyConfig {
    /// Run the monitor and let it refuse GNSS.
    pub enabled: bool,
    /// The divergence is measured over the fixes of the last `window_s`, s.
    pub window_s: f64,
    /// Fewer fixes than this (or a span under half the window) give no
    /// verdict: the monitor keeps its state.
    pub min_fixes: u32,
    /// Refuse GNSS when the divergence exceeds this many combined σ.
    pub k_high_sigma: f64,
    /// Re-accept GNSS once the divergence stayed below this many combined σ
    /// for `reaccept_hold_s` (must be below `k_high_sigma`).
    pub k_low_sigma: f64,
    /// How long the divergence must stay below `k_low_sigma`, s.
    pub reaccept_hold_s: f64,
    /// σ of the map→odom rotation the monitor aligns the dead-reckoned track
    /// with (taken from the initial poses), rad.
    pub alignment_sigma_rad: f64,
    /// On refusing, put the map-frame pose back on the dead-reckoned track
    /// from the oldest fix of the window (undoing what the diverging fixes
    /// pulled in before detection).
    pub rollback_on_refusal: bool,
}

/// All estimator parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EkfConfig {
    /// The global frame (REP-105 `map`): frame of the fused pose and of the
    /// ENU coordinates the GNSS conversion returns.
    pub map_frame: String,
    /// The continuous frame (REP-105 `odom`): frame of the dead-reckoned pose.
    pub odom_frame: String,
    /// The robot frame (`base_link`): frame of the twist.
    pub base_frame: String,
    /// Process noise spectral densities of the map-frame filter (the one
    /// that fuses GNSS).
    pub map_process_noise: ProcessNoise,
    /// Process noise spectral densities of the odom-frame (dead-reckoning)
    /// filter; its position noise is what the consistency monitor budgets
    /// for the dead-reckoned track, so it should describe the real drift of
    /// integrated odometry, not the looseness wanted for GNSS fusion.
    pub odom_process_noise: ProcessNoise,
    /// Initial state standard deviations.
    pub initial_sigma: InitialSigma,
    /// Stamp rules.
    pub time: TimeConfig,
    /// Wheel odometry.
    pub wheel_odom: WheelOdomConfig,
    /// IMU yaw rate.
    pub imu: ImuConfig,
    /// GNSS position.
    pub gnss: GnssConfig,
    /// GNSS-vs-dead-reckoning consistency monitor.
    pub consistency: ConsistencyConfig,
}

impl Default for EkfConfig {
    /// The values the README's Parameters table lists.
    fn default() -> Self {
        Self {
            map_frame: "map".into(),
            odom_frame: "odom".into(),
            base_frame: "base_link".into(),
            // x, y: robot_localization's template value (0.05 per s).
            map_process_noise: ProcessNoise {
                xy_m2_s: 0.05,
                yaw_rad2_s: 1e-4,
                v_m2_s3: 0.5,
                yaw_rate_rad2_s3: 0.5,
            },
            odom_process_noise: ProcessNoise {
                xy_m2_s: 1e-4,
                yaw_rad2_s: 1e-6,
                v_m2_s3: 0.5,
                yaw_rate_rad2_s3: 0.5,
            },
            initial_sigma: InitialSigma {
                xy_m: 0.1,
                yaw_rad: 0.05,
                v_m_s: 0.1,
                yaw_rate_rad_s: 0.1,
            },
            time: TimeConfig {
                future_tolerance_s: 0.1,
                late_tolerance_s: 0.5,
            },
            wheel_odom: WheelOdomConfig {
                enabled: true,
                mahalanobis_gate: false,
                gate_probability: 0.9999,
                min_variance_v_m2_s2: 1e-6,
                max_variance_v_m2_s2: 1e3,
                min_variance_yaw_rate_rad2_s2: 1e-6,
                max_variance_yaw_rate_rad2_s2: 1e3,
                timeout_s: 1.0,
            },
            imu: ImuConfig {
                enabled: true,
                mahalanobis_gate: false,
                gate_probability: 0.9999,
                min_variance_rad2_s2: 1e-8,
                max_variance_rad2_s2: 1e3,
                timeout_s: 1.0,
            },
            gnss: GnssConfig {
                enabled: true,
                mahalanobis_gate: true,
                gate_probability: 0.999,
                min_variance_m2: 1e-4,
                max_variance_m2: 1e6,
                timeout_s: 2.0,
            },
            consistency: ConsistencyConfig {
                enabled: true,
                window_s: 10.0,
                min_fixes: 10,
                k_high_sigma: 4.0,
                k_low_sigma: 2.0,
                reaccept_hold_s: 5.0,
                alignment_sigma_rad: 0.01,
                rollback_on_refusal: true,
            },
        }
    }
}

impl EkfConfig {
    /// Loads and validates the YAML file at `path`.
    ///
    /// # Errors
    /// A [`ConfigError`] naming file, line, column and field for an unknown,
    /// missing or malformed field or a value failing [`Self::validate`].
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        load_yaml_checked(path, |c: &EkfConfig, p| c.validate(p))
    }

    /// Parses and validates YAML `text` read from `path` (used in errors).
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        parse_yaml_checked(text, path, |c: &EkfConfig, p| c.validate(p))
    }

    /// Checks every number against [`EKF_RANGES`], each `min_variance_*`
    /// below its `max_variance_*`, and `k_low_sigma < k_high_sigma`.
    ///
    /// # Errors
    /// A semantic [`ConfigError`] on `path` naming the first offending field.
    pub fn validate(&self, path: &str) -> Result<(), ConfigError> {
        check_ranges(self, path, "", &[("", EKF_RANGES)])?;
        let pairs = [
            (
                "wheel_odom.min_variance_v_m2_s2",
                self.wheel_odom.min_variance_v_m2_s2,
                self.wheel_odom.max_variance_v_m2_s2,
            ),
            (
                "wheel_odom.min_variance_yaw_rate_rad2_s2",
                self.wheel_odom.min_variance_yaw_rate_rad2_s2,
                self.wheel_odom.max_variance_yaw_rate_rad2_s2,
            ),
            (
                "imu.min_variance_rad2_s2",
                self.imu.min_variance_rad2_s2,
                self.imu.max_variance_rad2_s2,
            ),
            (
                "gnss.min_variance_m2",
                self.gnss.min_variance_m2,
                self.gnss.max_variance_m2,
            ),
        ];
        for (field, lo, hi) in pairs {
            if lo >= hi {
                return Err(ConfigError::semantic(
                    path,
                    field,
                    format!("{lo} must be below the matching max_variance ({hi})"),
                ));
            }
        }
        if self.consistency.k_low_sigma >= self.consistency.k_high_sigma {
            return Err(ConfigError::semantic(
                path,
                "consistency.k_low_sigma",
                format!(
                    "{} must be below k_high_sigma ({}) for hysteresis",
                    self.consistency.k_low_sigma, self.consistency.k_high_sigma
                ),
            ));
        }
        for (field, name) in [
            ("map_frame", &self.map_frame),
            ("odom_frame", &self.odom_frame),
            ("base_frame", &self.base_frame),
        ] {
            if name.is_empty() {
                return Err(ConfigError::semantic(path, field, "must not be empty"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default written as JSON, which is valid YAML.
    fn default_yaml() -> String {
        serde_json::to_string_pretty(&EkfConfig::default()).unwrap()
    }

    #[test]
    fn default_round_trips_and_validates() {
        let text = default_yaml();
        let c = EkfConfig::parse(&text, "ekf.yaml").unwrap();
        assert_eq!(c, EkfConfig::default());
    }

    /// The shipped example file is the default (so the README table, which
    /// lists the defaults, describes it).
    #[test]
    fn shipped_file_is_the_default() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/ekf.yaml");
        let c = EkfConfig::load(path.as_ref()).unwrap();
        assert_eq!(c, EkfConfig::default());
        let text = std::fs::read_to_string(path).unwrap();
        let e = EkfConfig::parse(
            &text.replace("k_low_sigma: 2.0", "k_low_sigma: 6.0"),
            "ekf.yaml",
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (52, "consistency.k_low_sigma"),
            "{e}"
        );
    }

    #[test]
    fn unknown_field_names_file_line_and_field() {
        let text = default_yaml().replacen("\"window_s\"", "\"window_sec\"", 1);
        let e = EkfConfig::parse(&text, "ekf.yaml").unwrap_err();
        assert!(e.line > 0, "{e}");
        assert!(e.to_string().contains("window_sec"), "{e}");
    }

    #[test]
    fn out_of_range_and_hysteresis_order_are_refused() {
        let mut c = EkfConfig::default();
        c.gnss.gate_probability = 1.0;
        let e = c.validate("ekf.yaml").unwrap_err();
        assert_eq!(e.field, "gnss.gate_probability", "{e}");
        let mut c = EkfConfig::default();
        c.consistency.k_low_sigma = 5.0;
        let e = c.validate("ekf.yaml").unwrap_err();
        assert_eq!(e.field, "consistency.k_low_sigma", "{e}");
        let mut c = EkfConfig::default();
        c.gnss.min_variance_m2 = 2e6;
        c.gnss.max_variance_m2 = 1e6;
        let e = c.validate("ekf.yaml").unwrap_err();
        assert_eq!(e.field, "gnss.min_variance_m2", "{e}");
    }
}
