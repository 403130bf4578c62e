//! The robot configuration (`config/robot.yaml`): fixed step, drive limits,
//! lidar, odometry, the optional GNSS receiver and IMU, and the ground-truth
//! rate.
//!
//! Every field is required in the file (no silent defaults); the values of
//! [`PlantConfig::default`] are the ones shipped in `config/robot.yaml`.
//! Units are in the field names (REP-103: metres, seconds, radians).

use std::path::Path;

use breakbench_world::range::{check_ranges, Range};
use kraken_interfaces::config::{load_yaml_checked, parse_yaml_checked};
use kraken_interfaces::ConfigError;
use serde::{Deserialize, Serialize};

/// The declared range of every numeric field of the lidar section (see the
/// field docs), relative to the section.
pub const LIDAR_RANGES: &[Range] = &[
    Range::new("rate_hz", 0.1, 1000.0, "Hz"),
    Range::new("beams", 1.0, 100_000.0, "beams"),
    Range::new(
        "angle_min_rad",
        -std::f64::consts::TAU,
        std::f64::consts::TAU,
        "rad",
    ),
    Range::new("range_min_m", 0.0, 1000.0, "m"),
    Range::new("range_max_m", 0.01, 1000.0, "m"),
    Range::new("range_noise_stddev_m", 0.0, 10.0, "m"),
];

/// The declared range of every numeric field of a robot file outside its
/// lidar section (see the field docs).
pub const ROBOT_RANGES: &[Range] = &[
    Range::new("step_s", 1e-6, 0.1, "s"),
    Range::new("drive.wheel_separation_m", 0.01, 10.0, "m"),
    Range::new("drive.max_linear_m_s", 0.001, 100.0, "m/s"),
    Range::new("drive.max_angular_rad_s", 0.001, 100.0, "rad/s"),
    Range::new("drive.max_linear_accel_m_s2", 0.001, 1000.0, "m/s^2"),
    Range::new("drive.max_angular_accel_rad_s2", 0.001, 1000.0, "rad/s^2"),
    Range::new("odometry.rate_hz", 0.1, 1000.0, "Hz"),
    Range::new("odometry.wheel_speed_noise_ratio", 0.0, 1.0, "1"),
    Range::new("truth_rate_hz", 0.1, 1000.0, "Hz"),
];

/// The declared range of every numeric field of the gnss section, relative
/// to the section.
pub const GNSS_RANGES: &[Range] = &[
    Range::new("rate_hz", 0.1, 1000.0, "Hz"),
    Range::new("horizontal_noise_stddev_m", 0.0, 100.0, "m"),
    Range::new("vertical_noise_stddev_m", 0.0, 100.0, "m"),
    Range::new("bias_east_m", -1000.0, 1000.0, "m"),
    Range::new("bias_north_m", -1000.0, 1000.0, "m"),
    Range::new("bias_up_m", -1000.0, 1000.0, "m"),
    Range::new("reported_horizontal_variance_m2", 0.0, 1.0e6, "m^2"),
    Range::new("reported_vertical_variance_m2", 0.0, 1.0e6, "m^2"),
];

/// The declared range of every numeric field of the imu section, relative
/// to the section.
pub const IMU_RANGES: &[Range] = &[
    Range::new("rate_hz", 0.1, 1000.0, "Hz"),
    Range::new("gyro_noise_stddev_rad_s", 0.0, 10.0, "rad/s"),
    Range::new("gyro_bias_rad_s", -10.0, 10.0, "rad/s"),
    Range::new("accel_noise_stddev_m_s2", 0.0, 100.0, "m/s^2"),
];

/// Differential-drive limits and geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveConfig {
    /// Distance between the wheel contact points, metres (TurtleBot3 Waffle:
    /// 0.287 m, `turtlebot3_node` parameter `wheels.separation`), in [0.01, 10] m.
    pub wheel_separation_m: f64,
    /// |linear velocity| limit, m/s, in [0.001, 100] m/s.
    pub max_linear_m_s: f64,
    /// |angular velocity| limit, rad/s, in [0.001, 100] rad/s.
    pub max_angular_rad_s: f64,
    /// |linear acceleration| limit, m/s^2, in [0.001, 1000] m/s^2.
    pub max_linear_accel_m_s2: f64,
    /// |angular acceleration| limit, rad/s^2, in [0.001, 1000] rad/s^2.
    pub max_angular_accel_rad_s2: f64,
}

/// The 2-D lidar, mounted at the robot centre (frame `base_scan`, same
/// orientation as `base_link`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LidarConfig {
    /// Scan rate, Hz, in [0.1, 1000] Hz. `1e9 / rate_hz` must be a whole
    /// number of nanoseconds and a multiple of the step.
    pub rate_hz: f64,
    /// Beams per scan, in [1, 100000]; `angle_increment = 2 pi / beams`, so
    /// `angle_max = angle_min + (beams - 1) * angle_increment`.
    pub beams: u32,
    /// Angle of the first beam, radians, in `base_scan` (CCW from +x), in
    /// [-2 pi, 2 pi] rad.
    pub angle_min_rad: f64,
    /// Smallest reported range, metres (closer returns are `-inf`, REP-117),
    /// in [0, 1000] m and below `range_max_m`.
    pub range_min_m: f64,
    /// Largest reported range, metres (farther or no return is `+inf`,
    /// REP-117), in [0.01, 1000] m.
    pub range_max_m: f64,
    /// Standard deviation of the additive Gaussian range noise, metres, in [0, 10] m.
    pub range_noise_stddev_m: f64,
}

impl LidarConfig {
    /// Checks the lidar values: each in its declared range ([`LIDAR_RANGES`])
    /// and `range_min_m < range_max_m`; `prefix` (e.g. `"lidar."`) is the
    /// section's field path in the file `path`.
    ///
    /// # Errors
    /// A semantic [`ConfigError`] naming the first offending field.
    pub fn validate(&self, path: &str, prefix: &str) -> Result<(), ConfigError> {
        check_ranges(self, path, prefix, &[(prefix, LIDAR_RANGES)])?;
        if self.range_min_m >= self.range_max_m {
            return Err(ConfigError::semantic(
                path,
                &format!("{prefix}range_min_m"),
                format!(
                    "{} must be below range_max_m = {}",
                    self.range_min_m, self.range_max_m
                ),
            ));
        }
        Ok(())
    }
}

/// Wheel odometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OdometryConfig {
    /// Publication rate, Hz, in [0.1, 1000] Hz (same whole-nanosecond and
    /// step-multiple rule).
    pub rate_hz: f64,
    /// Standard deviation of the multiplicative noise on each wheel speed,
    /// drawn independently for the left and right wheel every step:
    /// `v_wheel_measured = v_wheel * (1 + n)`, `n ~ N(0, ratio^2)`.
    /// Dimensionless, in [0, 1].
    pub wheel_speed_noise_ratio: f64,
}

/// The fix status a GNSS receiver reports (`sensor_msgs/NavSatStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixStatus {
    /// `STATUS_NO_FIX` (-1).
    NoFix,
    /// `STATUS_FIX` (0), unaugmented.
    Fix,
    /// `STATUS_SBAS_FIX` (1), satellite-based augmentation.
    SbasFix,
    /// `STATUS_GBAS_FIX` (2), ground-based augmentation (RTK class).
    GbasFix,
}

impl FixStatus {
    /// The `sensor_msgs/NavSatStatus.status` value.
    pub fn code(self) -> i8 {
        match self {
            FixStatus::NoFix => -1,
            FixStatus::Fix => 0,
            FixStatus::SbasFix => 1,
            FixStatus::GbasFix => 2,
        }
    }
}

/// A GNSS receiver at the robot centre (frame `gnss_link`), publishing
/// `sensor_msgs/NavSatFix` from the true position. The world file must
/// declare its geodetic `datum`.
///
/// The fix of true world point `(x, y, 0)` (east, north, up of the datum)
/// is the exact WGS84 conversion ([`breakbench_world::geodesy::LocalEnu`])
/// of `(x + b_e + n_e, y + b_n + n_n, b_u + n_u)`, with the constant biases
/// `b` and fresh noise `n_e, n_n ~ N(0, horizontal^2)`, `n_u ~ N(0,
/// vertical^2)` each fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GnssConfig {
    /// Fix rate, Hz, in [0.1, 1000] Hz (same whole-nanosecond and
    /// step-multiple rule as the lidar).
    pub rate_hz: f64,
    /// Standard deviation of the east and north noise, metres, in [0, 100] m.
    pub horizontal_noise_stddev_m: f64,
    /// Standard deviation of the up noise, metres, in [0, 100] m.
    pub vertical_noise_stddev_m: f64,
    /// Constant east offset of every fix, metres, in [-1000, 1000] m.
    pub bias_east_m: f64,
    /// Constant north offset of every fix, metres, in [-1000, 1000] m.
    pub bias_north_m: f64,
    /// Constant up offset of every fix, metres, in [-1000, 1000] m.
    pub bias_up_m: f64,
    /// East and north variance the fix reports (`position_covariance[0]`,
    /// `[4]`, type `COVARIANCE_TYPE_DIAGONAL_KNOWN`), m^2, in [0, 1e6] m^2.
    pub reported_horizontal_variance_m2: f64,
    /// Up variance the fix reports (`position_covariance[8]`), m^2, in
    /// [0, 1e6] m^2.
    pub reported_vertical_variance_m2: f64,
    /// The fix status reported (service GPS).
    pub status: FixStatus,
}

/// An IMU at the robot centre (frame `imu_link`, axes of `base_link`),
/// publishing `sensor_msgs/Imu` (REP-145: angular velocity and linear
/// acceleration in the IMU frame, gravity included in +z).
///
/// Each sample from the true body velocity `(v, w)`: yaw rate `w + b + n`
/// with the constant bias `b` and `n ~ N(0, gyro^2)`; forward acceleration
/// the finite difference of `v` over the IMU period, lateral (centripetal)
/// `v w`, each plus `N(0, accel^2)`; `z` standard gravity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImuConfig {
    /// Sample rate, Hz, in [0.1, 1000] Hz (whole-nanosecond, step-multiple).
    pub rate_hz: f64,
    /// Standard deviation of the yaw-rate noise, rad/s, in [0, 10] rad/s.
    pub gyro_noise_stddev_rad_s: f64,
    /// Constant yaw-rate bias, rad/s, in [-10, 10] rad/s.
    pub gyro_bias_rad_s: f64,
    /// Standard deviation of the x and y acceleration noise, m/s^2, in
    /// [0, 100] m/s^2.
    pub accel_noise_stddev_m_s2: f64,
    /// Whether the IMU reports an orientation (the true yaw, covariance
    /// 1e-6 rad^2); without one, `orientation_covariance[0] = -1` (REP-145)
    /// and the orientation is the identity.
    pub reports_orientation: bool,
}

/// The whole robot configuration (`config/robot.yaml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlantConfig {
    /// Fixed integration step, seconds (a whole number of nanoseconds), in
    /// [1e-6, 0.1] s.
    pub step_s: f64,
    /// Drive limits.
    pub drive: DriveConfig,
    /// Lidar.
    pub lidar: LidarConfig,
    /// Wheel odometry.
    pub odometry: OdometryConfig,
    /// The GNSS receiver, if the robot has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gnss: Option<GnssConfig>,
    /// The IMU, if the robot has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imu: Option<ImuConfig>,
    /// Rate of the ground-truth pose stream (`/oracle/odom`), Hz, in [0.1, 1000] Hz.
    pub truth_rate_hz: f64,
}

impl Default for PlantConfig {
    /// The values shipped in `config/robot.yaml`.
    fn default() -> Self {
        Self {
            step_s: 0.01,
            drive: DriveConfig {
                wheel_separation_m: 0.287,
                max_linear_m_s: 0.5,
                max_angular_rad_s: 1.5,
                max_linear_accel_m_s2: 1.0,
                max_angular_accel_rad_s2: 3.0,
            },
            lidar: LidarConfig {
                rate_hz: 10.0,
                beams: 360,
                angle_min_rad: -std::f64::consts::PI,
                range_min_m: 0.12,
                range_max_m: 12.0,
                range_noise_stddev_m: 0.01,
            },
            odometry: OdometryConfig {
                rate_hz: 50.0,
                wheel_speed_noise_ratio: 0.01,
            },
            gnss: Some(GnssConfig {
                rate_hz: 10.0,
                horizontal_noise_stddev_m: 0.0,
                vertical_noise_stddev_m: 0.0,
                bias_east_m: 0.0,
                bias_north_m: 0.0,
                bias_up_m: 0.0,
                reported_horizontal_variance_m2: 1e-4,
                reported_vertical_variance_m2: 1e-3,
                status: FixStatus::GbasFix,
            }),
            imu: Some(ImuConfig {
                rate_hz: 100.0,
                gyro_noise_stddev_rad_s: 0.0,
                gyro_bias_rad_s: 0.0,
                accel_noise_stddev_m_s2: 0.0,
                reports_orientation: true,
            }),
            truth_rate_hz: 50.0,
        }
    }
}

/// The fixed step and the sensor periods in integer nanoseconds, as derived
/// and checked by [`PlantConfig::timing`]. Every period is a multiple of
/// `step_ns`, so a sensor fires exactly when `now_ns % period_ns == 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Fixed step, ns.
    pub step_ns: u64,
    /// Lidar period, ns.
    pub scan_period_ns: u64,
    /// Odometry period, ns.
    pub odom_period_ns: u64,
    /// Ground-truth period, ns.
    pub truth_period_ns: u64,
    /// GNSS period, ns (`None`: no receiver declared).
    pub gnss_period_ns: Option<u64>,
    /// IMU period, ns (`None`: no IMU declared).
    pub imu_period_ns: Option<u64>,
}

/// Converts `seconds` to whole nanoseconds; `None` if not positive, not
/// finite or more than 1e-3 ns away from a whole number.
fn whole_ns(seconds: f64) -> Option<u64> {
    let x = seconds * 1e9;
    if !(x.is_finite() && x >= 1.0) || x > u64::MAX as f64 / 2.0 {
        return None;
    }
    let n = x.round();
    ((x - n).abs() <= 1e-3).then_some(n as u64)
}

impl PlantConfig {
    /// Loads and validates `path`.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the file, line and field for an unknown,
    /// missing or malformed field, or for a value failing [`Self::timing`] /
    /// [`Self::validate`].
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        load_yaml_checked(path, |c: &PlantConfig, p| c.validate(p).map(|_| ()))
    }

    /// Parses and validates YAML `text` that was read from `path`.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        parse_yaml_checked(text, path, |c: &PlantConfig, p| c.validate(p).map(|_| ()))
    }

    /// Checks every value against its declared range ([`ROBOT_RANGES`],
    /// [`LIDAR_RANGES`], [`GNSS_RANGES`], [`IMU_RANGES`]), the lidar's range
    /// order, and the timing; `path` is
    /// only used in the error.
    ///
    /// # Errors
    /// A semantic [`ConfigError`] naming the first offending field.
    pub fn validate(&self, path: &str) -> Result<Timing, ConfigError> {
        check_ranges(
            self,
            path,
            "",
            &[
                ("", ROBOT_RANGES),
                ("lidar.", LIDAR_RANGES),
                ("gnss.", GNSS_RANGES),
                ("imu.", IMU_RANGES),
            ],
        )?;
        self.lidar.validate(path, "lidar.")?;
        self.timing(path)
    }

    /// The sensor channels this robot declares, in emission order: `scan`
    /// and `odom` always, then `gnss` and `imu` if their sections exist.
    pub fn sensor_channels(&self) -> Vec<&'static str> {
        use crate::plant::{GNSS_CHANNEL, IMU_CHANNEL, ODOM_CHANNEL, SCAN_CHANNEL};
        let mut c = vec![SCAN_CHANNEL, ODOM_CHANNEL];
        if self.gnss.is_some() {
            c.push(GNSS_CHANNEL);
        }
        if self.imu.is_some() {
            c.push(IMU_CHANNEL);
        }
        c
    }

    /// Derives the integer-nanosecond [`Timing`].
    ///
    /// # Errors
    /// A semantic [`ConfigError`] naming `step_s`, `lidar.rate_hz`,
    /// `odometry.rate_hz` or `truth_rate_hz` when a value is not positive,
    /// the step or a period (`1e9 / rate_hz` ns) is not a whole number of
    /// nanoseconds, or a period is not a multiple of the step.
    pub fn timing(&self, path: &str) -> Result<Timing, ConfigError> {
        let Some(step_ns) = whole_ns(self.step_s) else {
            return Err(ConfigError::semantic(
                path,
                "step_s",
                format!(
                    "must be > 0 and a whole number of nanoseconds, got {}",
                    self.step_s
                ),
            ));
        };
        let period = |field: &str, hz: f64| -> Result<u64, ConfigError> {
            let e = |m: String| ConfigError::semantic(path, field, m);
            if !(hz.is_finite() && hz > 0.0) {
                return Err(e(format!("must be finite and > 0, got {hz}")));
            }
            let p = whole_ns(1.0 / hz).ok_or_else(|| {
                e(format!(
                    "period 1/{hz} s = {} ns is not a whole number of nanoseconds",
                    1e9 / hz
                ))
            })?;
            if !p.is_multiple_of(step_ns) {
                return Err(e(format!(
                    "period {p} ns is not a multiple of step_s ({step_ns} ns)"
                )));
            }
            Ok(p)
        };
        Ok(Timing {
            step_ns,
            scan_period_ns: period("lidar.rate_hz", self.lidar.rate_hz)?,
            odom_period_ns: period("odometry.rate_hz", self.odometry.rate_hz)?,
            truth_period_ns: period("truth_rate_hz", self.truth_rate_hz)?,
            gnss_period_ns: self
                .gnss
                .as_ref()
                .map(|g| period("gnss.rate_hz", g.rate_hz))
                .transpose()?,
            imu_period_ns: self
                .imu
                .as_ref()
                .map(|i| period("imu.rate_hz", i.rate_hz))
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_timing_is_exact() {
        let t = PlantConfig::default().validate("robot.yaml").unwrap();
        assert_eq!(
            t,
            Timing {
                step_ns: 10_000_000,
                scan_period_ns: 100_000_000,
                odom_period_ns: 20_000_000,
                truth_period_ns: 20_000_000,
                gnss_period_ns: Some(100_000_000),
                imu_period_ns: Some(10_000_000),
            }
        );
    }

    #[test]
    fn bad_rates_name_the_field() {
        let mut c = PlantConfig::default();
        c.lidar.rate_hz = 30.0; // 33 333 333.33 ns: not whole
        let e = c.validate("r.yaml").unwrap_err();
        assert_eq!(e.field, "lidar.rate_hz");
        assert!(e.message.contains("whole number"), "{}", e.message);

        let mut c = PlantConfig::default();
        c.odometry.rate_hz = 40.0; // 25 ms is not a multiple of 10 ms
        let e = c.validate("r.yaml").unwrap_err();
        assert_eq!(e.field, "odometry.rate_hz");
        assert!(
            e.message.contains("25000000 ns is not a multiple"),
            "{}",
            e.message
        );

        let c = PlantConfig {
            truth_rate_hz: 0.0,
            ..Default::default()
        };
        assert_eq!(c.validate("r.yaml").unwrap_err().field, "truth_rate_hz");

        let c = PlantConfig {
            step_s: 1.5e-10,
            ..Default::default()
        }; // 0.15 ns
        assert_eq!(c.validate("r.yaml").unwrap_err().field, "step_s");
    }

    #[test]
    fn bad_values_name_the_field() {
        let mut c = PlantConfig::default();
        c.lidar.range_min_m = 20.0;
        assert_eq!(c.validate("r").unwrap_err().field, "lidar.range_min_m");
        let mut c = PlantConfig::default();
        c.lidar.beams = 0;
        assert_eq!(c.validate("r").unwrap_err().field, "lidar.beams");
        let mut c = PlantConfig::default();
        c.drive.max_linear_m_s = f64::NAN;
        assert_eq!(c.validate("r").unwrap_err().field, "drive.max_linear_m_s");
        let mut c = PlantConfig::default();
        c.odometry.wheel_speed_noise_ratio = -0.1;
        assert_eq!(
            c.validate("r").unwrap_err().field,
            "odometry.wheel_speed_noise_ratio"
        );
    }

    /// The absurd values are refused at load with file, line, column, field and range.
    #[test]
    fn values_outside_their_declared_range_name_line_and_field() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/robot.yaml"
        ))
        .unwrap();
        PlantConfig::parse(&text, "robot.yaml").unwrap();
        let cases = [
            ("beams: 360", "beams: 1000000000", "robot.yaml:13:3: field 'lidar.beams': 1e9 is outside its declared range [1, 100000] beams"),
            ("  rate_hz: 10.0", "  rate_hz: 1.0e7", "robot.yaml:12:3: field 'lidar.rate_hz': 1e7 is outside its declared range [0.1, 1000] Hz"),
            ("step_s: 0.01", "step_s: 1.0e-9", "robot.yaml:4:1: field 'step_s': 1e-9 is outside its declared range [1e-6, 0.1] s"),
            ("truth_rate_hz: 50.0", "truth_rate_hz: .nan", "robot.yaml:21:1: field 'truth_rate_hz': is not a finite number (declared range [0.1, 1000] Hz)"),
            ("range_max_m: 12.0", "range_max_m: 1.0e12", "field 'lidar.range_max_m': 1e12 is outside"),
            ("wheel_speed_noise_ratio: 0.01", "wheel_speed_noise_ratio: 5.0", "field 'odometry.wheel_speed_noise_ratio': 5 is outside its declared range [0, 1]"),
            ("max_linear_m_s: 0.5", "max_linear_m_s: -0.5", "field 'drive.max_linear_m_s': -0.5 is outside"),
        ];
        for (from, to, want) in cases {
            assert!(text.contains(from), "{from}");
            let e = PlantConfig::parse(&text.replacen(from, to, 1), "robot.yaml").unwrap_err();
            assert!(e.to_string().contains(want), "{to}: {e}");
        }
    }
}
