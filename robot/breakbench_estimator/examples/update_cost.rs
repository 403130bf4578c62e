//! Cost of the estimator per update: runs `SECONDS` of simulated time with
//! wheel odometry at 20 Hz, IMU at 50 Hz and GNSS at 5 Hz (75 updates per
//! simulated second, every gate and the consistency monitor on), and prints
//! the update count and the wall time per update.
//!
//! Wall time on a shared machine is noisy; count instructions instead:
//!
//! ```text
//! cargo build --release -p breakbench_estimator --example update_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/ekf.cg \
//!     target/release/examples/update_cost 100
//! callgrind_annotate /tmp/ekf.cg | head
//! ```
//!
//! and divide the total by the printed update count (run it with two
//! durations and take the difference to remove the start-up cost).

use breakbench_estimator::{EkfConfig, Estimator, InitialState, Pose2};
use kraken_interfaces::ros::{Imu, NavSatFix, NavSatStatus, Odometry, Time};

fn main() {
    let seconds: i64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let mut cfg = EkfConfig::default();
    cfg.wheel_odom.mahalanobis_gate = true;
    cfg.imu.mahalanobis_gate = true;
    let (v, w) = (1.0, 0.01);
    let mut est = Estimator::new(
        cfg,
        InitialState {
            stamp: Time::default(),
            map: Pose2::default(),
            odom: Pose2::default(),
            v_m_s: v,
            yaw_rate_rad_s: w,
        },
    )
    .expect("the default configuration is valid");
    let enu = |lat: f64, lon: f64, alt: f64| Some([lon, lat, alt]);
    let mut odom = Odometry::default();
    odom.twist.covariance[0] = 4e-4;
    odom.twist.covariance[35] = 1e-4;
    let mut imu = Imu::default();
    imu.angular_velocity_covariance[8] = 2.5e-5;
    let mut fix = NavSatFix {
        position_covariance: [0.25, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 1.0],
        position_covariance_type: NavSatFix::COVARIANCE_TYPE_KNOWN,
        ..Default::default()
    };
    fix.status.status = NavSatStatus::STATUS_FIX;
    let ms = 1_000_000i64;
    let mut updates = 0u64;
    let mut fused = 0u64;
    let start = std::time::Instant::now();
    for tick in 1..=seconds * 100 {
        let tn = tick * 10 * ms;
        let now = Time::from_nanos(tn);
        let ts = tn as f64 * 1e-9;
        // Exact pose on the circle (for the fixes).
        let a = 0.5 * w * ts;
        let (x, y) = (
            v * ts * a.sin() / a * a.cos(),
            v * ts * a.sin() / a * a.sin(),
        );
        if tn % (50 * ms) == 0 {
            odom.header.stamp = now;
            odom.twist.twist.linear.x = v;
            odom.twist.twist.angular.z = w;
            fused += est.fuse_wheel_odom(&odom, now).is_ok() as u64;
            updates += 1;
        }
        if tn % (20 * ms) == 0 {
            imu.header.stamp = now;
            imu.angular_velocity.z = w;
            fused += est.fuse_imu(&imu, now).is_ok() as u64;
            updates += 1;
        }
        if tn % (200 * ms) == 0 {
            fix.header.stamp = now;
            fix.longitude = x;
            fix.latitude = y;
            fused += est.fuse_navsat(&fix, now, &enu).is_ok() as u64;
            updates += 1;
        }
    }
    let wall = start.elapsed();
    let out = est.filtered_odometry();
    println!(
        "{updates} updates ({fused} fused) over {seconds} simulated s: {:.0} ns per update (wall); final x = {:.3} m",
        wall.as_nanos() as f64 / updates as f64,
        out.pose.pose.position.x
    );
}
