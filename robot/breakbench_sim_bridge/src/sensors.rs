//! GNSS and IMU outputs from the plant's true state, for the raw sensor
//! channels the fault injector sits on (`gnss`, `imu`).
//!
//! Transport-free like the plant: stamps come from the caller's sim time,
//! noise from the caller's seeded generator (the plant gives each sensor its
//! own stream).

use std::time::Duration;

use breakbench_world::geodesy::{GeodeticDatum, LocalEnu};
use breakbench_world::world::Pose2;
use kraken_interfaces::ros::{Header, Imu, NavSatFix, NavSatStatus, Quaternion, Time, Vector3};
use rand::Rng;
use rand_distr::{Distribution, Normal};

use crate::config::{GnssConfig, ImuConfig};

/// Frame of the GNSS antenna (at the robot centre).
pub const GNSS_FRAME: &str = "gnss_link";
/// Frame of the IMU (at the robot centre, axes of `base_link`).
pub const IMU_FRAME: &str = "imu_link";
/// Orientation variance an IMU that reports orientation states, rad^2.
pub const ORIENTATION_VARIANCE_RAD2: f64 = 1e-6;

/// A GNSS receiver at the robot centre ([`GnssConfig`]): world `(x, y, z)`
/// metres are east, north and up of the world's datum, converted exactly on
/// the WGS84 ellipsoid ([`LocalEnu`]).
#[derive(Debug, Clone)]
pub struct GnssModel {
    enu: LocalEnu,
    cfg: GnssConfig,
    horizontal: Normal<f64>,
    vertical: Normal<f64>,
}

impl GnssModel {
    /// A receiver of `cfg` in the world whose origin is `datum` (`cfg` is
    /// validated by [`crate::PlantConfig::validate`]: noises finite, >= 0).
    pub fn new(datum: GeodeticDatum, cfg: &GnssConfig) -> Self {
        let n = |s: f64| Normal::new(0.0, s).expect("validated: stddev finite, >= 0");
        Self {
            enu: LocalEnu::new(datum),
            horizontal: n(cfg.horizontal_noise_stddev_m),
            vertical: n(cfg.vertical_noise_stddev_m),
            cfg: cfg.clone(),
        }
    }

    /// Latitude, longitude (degrees) and height above the ellipsoid (m) of
    /// world point `(east m, north m, up m)`.
    pub fn geodetic(&self, enu_m: [f64; 3]) -> (f64, f64, f64) {
        self.enu.to_geodetic(enu_m)
    }

    /// The fix of the true pose `pose` (at height 0 of the world) at sim
    /// time `now`: biases plus fresh noise, east, north, up (three normals
    /// from `rng` on every fix, also when a noise is 0, so the stream stays
    /// aligned).
    pub fn fix<R: Rng + ?Sized>(&self, pose: &Pose2, now: Duration, rng: &mut R) -> NavSatFix {
        let c = &self.cfg;
        let (ne, nn, nu) = (
            self.horizontal.sample(rng),
            self.horizontal.sample(rng),
            self.vertical.sample(rng),
        );
        let (lat, lon, alt) = self.geodetic([
            pose.x_m + c.bias_east_m + ne,
            pose.y_m + c.bias_north_m + nn,
            c.bias_up_m + nu,
        ]);
        let (h, v) = (
            c.reported_horizontal_variance_m2,
            c.reported_vertical_variance_m2,
        );
        NavSatFix {
            header: Header {
                stamp: Time::from_nanos(now.as_nanos() as i64),
                frame_id: GNSS_FRAME.into(),
            },
            status: NavSatStatus {
                status: c.status.code(),
                service: NavSatStatus::SERVICE_GPS,
            },
            latitude: lat,
            longitude: lon,
            altitude: alt,
            position_covariance: [h, 0.0, 0.0, 0.0, h, 0.0, 0.0, 0.0, v],
            position_covariance_type: NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN,
        }
    }
}

/// A planar IMU at the robot centre ([`ImuConfig`], REP-145 conventions:
/// angular velocity and linear acceleration in the IMU frame, gravity
/// included in +z).
///
/// From the true body velocity `(v, w)` sampled every IMU period `dt`:
/// yaw rate `w + bias`; forward acceleration `(v - v_prev) / dt` (the
/// finite difference over the IMU period); lateral (centripetal)
/// acceleration `v * w`; `z = 9.80665` (standard gravity, CGPM 1901).
/// Orientation: the true yaw if declared, else identity with
/// `orientation_covariance[0] = -1`. Noise: `N(0, gyro^2)` on the yaw rate
/// and `N(0, accel^2)` on x and y (three draws per sample, always).
/// Covariances: diagonal variances (`1e-6` floor).
#[derive(Debug, Clone)]
pub struct ImuModel {
    gyro: Normal<f64>,
    accel: Normal<f64>,
    gyro_bias: f64,
    gyro_var: f64,
    accel_var: f64,
    reports_orientation: bool,
    prev_v: Option<f64>,
    prev_t: Duration,
}

/// Standard gravity, m/s^2 (3rd CGPM, 1901).
pub const STANDARD_GRAVITY_M_S2: f64 = 9.80665;

impl ImuModel {
    /// An IMU of `cfg` (validated by [`crate::PlantConfig::validate`]).
    pub fn new(cfg: &ImuConfig) -> Self {
        let n = |s: f64| Normal::new(0.0, s).expect("validated: stddev finite, >= 0");
        let (g, a) = (cfg.gyro_noise_stddev_rad_s, cfg.accel_noise_stddev_m_s2);
        Self {
            gyro: n(g),
            accel: n(a),
            gyro_bias: cfg.gyro_bias_rad_s,
            gyro_var: (g * g).max(1e-6),
            accel_var: (a * a).max(1e-6),
            reports_orientation: cfg.reports_orientation,
            prev_v: None,
            prev_t: Duration::ZERO,
        }
    }

    /// One sample at sim time `now` from the true pose and body velocity
    /// `(linear m/s, angular rad/s)`. The first sample reports 0 forward
    /// acceleration (no previous velocity).
    pub fn sample<R: Rng + ?Sized>(
        &mut self,
        pose: &Pose2,
        twist: (f64, f64),
        now: Duration,
        rng: &mut R,
    ) -> Imu {
        let (v, w) = twist;
        let ax = match self.prev_v {
            Some(pv) if now > self.prev_t => (v - pv) / (now - self.prev_t).as_secs_f64(),
            _ => 0.0,
        };
        self.prev_v = Some(v);
        self.prev_t = now;
        let (nw, nx, ny) = (
            self.gyro.sample(rng),
            self.accel.sample(rng),
            self.accel.sample(rng),
        );
        let diag = |d: f64| [d, 0.0, 0.0, 0.0, d, 0.0, 0.0, 0.0, d];
        let (orientation, orientation_covariance) = if self.reports_orientation {
            (
                Quaternion::from_yaw(pose.yaw_rad),
                diag(ORIENTATION_VARIANCE_RAD2),
            )
        } else {
            let mut c = [0.0; 9];
            c[0] = -1.0;
            (Quaternion::from_yaw(0.0), c)
        };
        Imu {
            header: Header {
                stamp: Time::from_nanos(now.as_nanos() as i64),
                frame_id: IMU_FRAME.into(),
            },
            orientation,
            orientation_covariance,
            angular_velocity: Vector3 {
                x: 0.0,
                y: 0.0,
                z: w + self.gyro_bias + nw,
            },
            angular_velocity_covariance: diag(self.gyro_var),
            linear_acceleration: Vector3 {
                x: ax + nx,
                y: v * w + ny,
                z: STANDARD_GRAVITY_M_S2,
            },
            linear_acceleration_covariance: diag(self.accel_var),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{FixStatus, PlantConfig};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const DATUM: GeodeticDatum = GeodeticDatum {
        latitude_deg: 52.2297,
        longitude_deg: 21.0122,
        altitude_m: 100.0,
    };

    fn gnss_cfg() -> GnssConfig {
        PlantConfig::default().gnss.unwrap()
    }

    #[test]
    fn gnss_fix_is_the_enu_point_on_the_ellipsoid() {
        let g = GnssModel::new(DATUM, &gnss_cfg());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let p = Pose2 {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
        };
        let f = g.fix(&p, Duration::from_millis(1500), &mut rng);
        assert!((f.latitude - 52.2297).abs() < 1e-12 && (f.longitude - 21.0122).abs() < 1e-12);
        assert!((f.altitude - 100.0).abs() < 1e-8, "{}", f.altitude);
        assert_eq!(f.status.status, NavSatStatus::STATUS_GBAS_FIX);
        assert_eq!(f.position_covariance[0], 1e-4);
        assert_eq!(f.position_covariance[8], 1e-3);
        assert_eq!(
            f.header.stamp,
            Time {
                sec: 1,
                nanosec: 500_000_000
            }
        );
        // 1000 m north and east of the datum, on the ENU tangent plane
        // (GeographicLib LocalCartesian convention; values cross-checked with
        // PROJ 9.6 `+proj=topocentric`, see breakbench_world::geodesy). The
        // old conversion (a geodesic of that length along the ellipsoid) put
        // the north point at 52.2297 + 0.00898701 deg, 1.7 cm farther north.
        let (lat, lon, _) = g.geodetic([0.0, 1000.0, 0.0]);
        assert!((lat - 52.238_686_862_074).abs() < 1e-10, "{lat}");
        assert!((lon - 21.0122).abs() < 1e-12);
        let (lat2, lon2, _) = g.geodetic([1000.0, 0.0, 0.0]);
        assert!((lon2 - 21.026_835_498_595).abs() < 1e-10, "{lon2}");
        assert!(
            lat2 < 52.2297 && 52.2297 - lat2 < 1e-6,
            "east of the datum bends slightly south: {lat2}"
        );
    }

    #[test]
    fn gnss_bias_status_and_noise_are_as_declared() {
        let cfg = GnssConfig {
            bias_north_m: 1000.0,
            bias_up_m: 2.0,
            status: FixStatus::NoFix,
            ..gnss_cfg()
        };
        let g = GnssModel::new(DATUM, &cfg);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let p = Pose2 {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
        };
        let f = g.fix(&p, Duration::ZERO, &mut rng);
        // 2 m up along the datum's normal, which is tilted by 1000 / R =
        // 1.57e-4 rad from the fix's: 0.3 mm south, 2.8e-9 deg.
        let dlat = 52.238_686_862_074 - f.latitude;
        assert!(dlat > 2.5e-9 && dlat < 3.1e-9, "{}", f.latitude);
        assert!((f.altitude - 102.078).abs() < 2e-3, "{}", f.altitude);
        assert_eq!(f.status.status, NavSatStatus::STATUS_NO_FIX);
        // 2000 fixes with 1 m horizontal noise: the east offsets' sample
        // standard deviation is 1 m within 5 % (4.4 sigma of its estimate).
        let g = GnssModel::new(
            DATUM,
            &GnssConfig {
                horizontal_noise_stddev_m: 1.0,
                ..gnss_cfg()
            },
        );
        let e: Vec<f64> = (0..2000)
            .map(|_| {
                let f = g.fix(&p, Duration::ZERO, &mut rng);
                g.enu.from_geodetic(f.latitude, f.longitude, f.altitude)[0]
            })
            .collect();
        let sd = (e.iter().map(|x| x * x).sum::<f64>() / e.len() as f64).sqrt();
        assert!((sd - 1.0).abs() < 0.05, "{sd}");
    }

    #[test]
    fn imu_reports_yaw_rate_bias_and_accelerations() {
        let cfg = PlantConfig::default().imu.unwrap();
        let mut imu = ImuModel::new(&cfg);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let p = Pose2 {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.5,
        };
        let a = imu.sample(&p, (0.2, 0.0), Duration::from_millis(10), &mut rng);
        assert_eq!(a.linear_acceleration.x, 0.0);
        // 0.2 -> 0.3 m/s in 10 ms: 10 m/s^2; centripetal 0.3 * 1.5 = 0.45 m/s^2.
        let b = imu.sample(&p, (0.3, 1.5), Duration::from_millis(20), &mut rng);
        assert!((b.linear_acceleration.x - 10.0).abs() < 1e-12);
        assert!((b.linear_acceleration.y - 0.45).abs() < 1e-15);
        assert_eq!(b.angular_velocity.z, 1.5);
        assert_eq!(b.linear_acceleration.z, STANDARD_GRAVITY_M_S2);
        assert!((b.orientation.yaw() - 0.5).abs() < 1e-15);
        assert_eq!(b.orientation_covariance[0], ORIENTATION_VARIANCE_RAD2);
        let mut biased = ImuModel::new(&ImuConfig {
            gyro_bias_rad_s: 0.02,
            reports_orientation: false,
            ..cfg
        });
        let c = biased.sample(&p, (0.3, 1.5), Duration::from_millis(10), &mut rng);
        assert!((c.angular_velocity.z - 1.52).abs() < 1e-15);
        assert_eq!(c.orientation_covariance[0], -1.0);
        assert_eq!(c.orientation.yaw(), 0.0);
    }
}
