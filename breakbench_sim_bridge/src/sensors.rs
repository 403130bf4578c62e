//! GNSS and IMU outputs from the plant's true state, for the raw sensor
//! channels the fault injector sits on (`/gnss/fix`, `/imu/data`).
//!
//! Transport-free like the plant: stamps come from the caller's sim time,
//! noise from a caller's seeded generator.

use std::time::Duration;

use breakbench_world::world::Pose2;
use geographiclib_rs::{DirectGeodesic, Geodesic};
use kraken_interfaces::ros::{Header, Imu, NavSatFix, NavSatStatus, Quaternion, Time, Vector3};
use rand::Rng;
use rand_distr::{Distribution, Normal};

/// Frame of the GNSS antenna (at the robot centre).
pub const GNSS_FRAME: &str = "gnss_link";
/// Frame of the IMU (at the robot centre, axes of `base_link`).
pub const IMU_FRAME: &str = "imu_link";
/// Covariance reported for a noise-free fix, m^2 (1 cm^2: a GBAS/RTK class fix).
pub const NOISE_FREE_FIX_VARIANCE_M2: f64 = 1e-4;

/// A GNSS receiver at the robot centre: world `(x, y)` metres are east and
/// north of the datum on the WGS84 ellipsoid.
///
/// The fix of a pose is the geodesic direct problem (geographiclib, Karney
/// 2013, "Algorithms for geodesics") from the datum with azimuth
/// `atan2(x, y)` (clockwise from north) and distance `hypot(x, y)`, so the
/// fix is exact on the ellipsoid rather than a flat-earth guess. Horizontal
/// noise: independent `N(0, noise_stddev_m^2)` east and north offsets added
/// to `(x, y)` before the conversion. Status `STATUS_GBAS_FIX`, service GPS,
/// diagonal covariance `max(noise^2, 1e-4)` m^2 (east, north), `(10 * that)`
/// for altitude.
#[derive(Debug, Clone)]
pub struct GnssModel {
    pub datum_lat_deg: f64,
    pub datum_lon_deg: f64,
    pub datum_alt_m: f64,
    noise: Normal<f64>,
    noise_stddev_m: f64,
}

impl GnssModel {
    /// A receiver at `datum` with horizontal noise `noise_stddev_m` (>= 0, finite).
    ///
    /// # Errors
    /// A message naming the bad value (latitude outside [-90, 90], a
    /// non-finite value, negative noise).
    pub fn new(
        datum_lat_deg: f64,
        datum_lon_deg: f64,
        datum_alt_m: f64,
        noise_stddev_m: f64,
    ) -> Result<Self, String> {
        if !(datum_lat_deg.is_finite() && (-90.0..=90.0).contains(&datum_lat_deg)) {
            return Err(format!(
                "datum latitude {datum_lat_deg} is not in [-90, 90] degrees"
            ));
        }
        if !datum_lon_deg.is_finite() || !datum_alt_m.is_finite() {
            return Err("datum longitude and altitude must be finite".into());
        }
        if !(noise_stddev_m.is_finite() && noise_stddev_m >= 0.0) {
            return Err(format!(
                "noise stddev {noise_stddev_m} must be finite and >= 0"
            ));
        }
        let noise = Normal::new(0.0, noise_stddev_m)
            .map_err(|_| format!("noise stddev {noise_stddev_m} must be finite and >= 0"))?;
        Ok(Self {
            datum_lat_deg,
            datum_lon_deg,
            datum_alt_m,
            noise,
            noise_stddev_m,
        })
    }

    /// Latitude and longitude (degrees) of world point `(x_m, y_m)`.
    pub fn lat_lon(&self, x_m: f64, y_m: f64) -> (f64, f64) {
        let d = x_m.hypot(y_m);
        if d == 0.0 {
            return (self.datum_lat_deg, self.datum_lon_deg);
        }
        let azimuth_deg = x_m.atan2(y_m).to_degrees();
        Geodesic::wgs84().direct(self.datum_lat_deg, self.datum_lon_deg, azimuth_deg, d)
    }

    /// The fix of the true pose `pose` at sim time `now`. Draws two normals
    /// from `rng` (also when the noise is 0, so streams stay aligned).
    pub fn fix<R: Rng + ?Sized>(&self, pose: &Pose2, now: Duration, rng: &mut R) -> NavSatFix {
        let (ex, ny) = (self.noise.sample(rng), self.noise.sample(rng));
        let (lat, lon) = self.lat_lon(pose.x_m + ex, pose.y_m + ny);
        let var = (self.noise_stddev_m * self.noise_stddev_m).max(NOISE_FREE_FIX_VARIANCE_M2);
        NavSatFix {
            header: Header {
                stamp: Time::from_nanos(now.as_nanos() as i64),
                frame_id: GNSS_FRAME.into(),
            },
            status: NavSatStatus {
                status: NavSatStatus::STATUS_GBAS_FIX,
                service: NavSatStatus::SERVICE_GPS,
            },
            latitude: lat,
            longitude: lon,
            altitude: self.datum_alt_m,
            position_covariance: [var, 0.0, 0.0, 0.0, var, 0.0, 0.0, 0.0, 10.0 * var],
            position_covariance_type: NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN,
        }
    }
}

/// A planar IMU at the robot centre (REP-145 conventions: angular velocity
/// and linear acceleration in the IMU frame, gravity included in +z).
///
/// From the true body velocity `(v, w)` sampled every IMU period `dt`:
/// yaw rate `w`; forward acceleration `(v - v_prev) / dt` (the finite
/// difference over the IMU period); lateral (centripetal) acceleration
/// `v * w`; `z = 9.80665` (standard gravity, CGPM 1901). Orientation = the
/// true yaw. Noise: `N(0, gyro^2)` on the yaw rate and `N(0, accel^2)` on x
/// and y (three draws per sample, always). Covariances: diagonal variances
/// (`1e-6` floor), orientation `1e-6` rad^2.
#[derive(Debug, Clone)]
pub struct ImuModel {
    gyro: Normal<f64>,
    accel: Normal<f64>,
    gyro_var: f64,
    accel_var: f64,
    prev_v: Option<f64>,
    prev_t: Duration,
}

/// Standard gravity, m/s^2 (3rd CGPM, 1901).
pub const STANDARD_GRAVITY_M_S2: f64 = 9.80665;

impl ImuModel {
    /// An IMU with the given white-noise standard deviations (finite, >= 0).
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn new(gyro_noise_rad_s: f64, accel_noise_m_s2: f64) -> Result<Self, String> {
        // rand_distr 0.6 accepts a negative standard deviation (it mirrors the
        // distribution); a negative noise setting is a configuration error here.
        for (name, v) in [("gyro", gyro_noise_rad_s), ("accel", accel_noise_m_s2)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} noise {v} must be finite and >= 0"));
            }
        }
        let gyro = Normal::new(0.0, gyro_noise_rad_s)
            .map_err(|_| format!("gyro noise {gyro_noise_rad_s} must be finite and >= 0"))?;
        let accel = Normal::new(0.0, accel_noise_m_s2)
            .map_err(|_| format!("accel noise {accel_noise_m_s2} must be finite and >= 0"))?;
        Ok(Self {
            gyro,
            accel,
            gyro_var: (gyro_noise_rad_s * gyro_noise_rad_s).max(1e-6),
            accel_var: (accel_noise_m_s2 * accel_noise_m_s2).max(1e-6),
            prev_v: None,
            prev_t: Duration::ZERO,
        })
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
        Imu {
            header: Header {
                stamp: Time::from_nanos(now.as_nanos() as i64),
                frame_id: IMU_FRAME.into(),
            },
            orientation: Quaternion::from_yaw(pose.yaw_rad),
            orientation_covariance: diag(1e-6),
            angular_velocity: Vector3 {
                x: 0.0,
                y: 0.0,
                z: w + nw,
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
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn gnss_fix_is_geodesic_from_the_datum() {
        let g = GnssModel::new(52.2297, 21.0122, 100.0, 0.0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let p = Pose2 {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
        };
        let f = g.fix(&p, Duration::from_millis(1500), &mut rng);
        assert_eq!((f.latitude, f.longitude), (52.2297, 21.0122));
        assert_eq!(
            f.header.stamp,
            Time {
                sec: 1,
                nanosec: 500_000_000
            }
        );
        // 1000 m north: meridian radius of curvature at 52.2297 deg
        // M = a(1-e^2)/(1-e^2 sin^2 phi)^1.5 = 6,375,399.6 m (WGS84 a, f), so
        // 1000 m = 1000 / M rad = 0.00898701 deg (curvature change over 1 km: < 1e-8 deg).
        let (lat, lon) = g.lat_lon(0.0, 1000.0);
        assert!((lat - 52.2297 - 0.00898701).abs() < 5e-8, "{lat}");
        assert!((lon - 21.0122).abs() < 1e-12);
        // 1000 m east: longitude grows by 1000 / (N cos phi) rad with the prime
        // vertical radius N = a / sqrt(1 - e^2 sin^2 phi) = 6,391,518.8 m:
        // 0.01463573 deg.
        let (lat2, lon2) = g.lat_lon(1000.0, 0.0);
        assert!((lon2 - 21.0122 - 0.01463573).abs() < 5e-8, "{lon2}");
        // A geodesic leaving due east in the northern hemisphere bends towards
        // the equator: after 1 km the latitude drops by about
        // s^2 tan(phi) / (2 N M) = 1e6 * 1.2907 / (2 * 6.3915e6 * 6.3754e6) rad
        // = 1.58e-8 rad = 9.1e-7 deg.
        assert!(
            lat2 < 52.2297 && 52.2297 - lat2 < 1e-6,
            "geodesic east bends slightly south: {lat2}"
        );
    }

    #[test]
    fn imu_reports_yaw_rate_and_accelerations() {
        let mut imu = ImuModel::new(0.0, 0.0).unwrap();
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
        assert!(ImuModel::new(-1.0, 0.0).is_err());
        assert!(GnssModel::new(91.0, 0.0, 0.0, 0.0).is_err());
    }
}
