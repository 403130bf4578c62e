//! Test fixtures: one realistic message per channel type.
#![allow(dead_code)]

use std::time::Duration;

use kraken_faults::{Channel, FaultRng, Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::*;
use rand::SeedableRng;

pub fn rng(seed: u64) -> FaultRng {
    FaultRng::seed_from_u64(seed)
}

pub fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

pub fn stamp(t: Duration) -> Time {
    Time::from_nanos(t.as_nanos() as i64)
}

/// Fixed true position: 48.1° N, 11.5° E, 520 m, GBAS fix, diagonal covariance.
pub const LAT0: f64 = 48.1;
pub const LON0: f64 = 11.5;

pub fn fix(t: Duration) -> NavSatFix {
    NavSatFix {
        header: Header {
            stamp: stamp(t),
            frame_id: "gnss_link".into(),
        },
        status: NavSatStatus {
            status: NavSatStatus::STATUS_GBAS_FIX,
            service: NavSatStatus::SERVICE_GPS,
        },
        latitude: LAT0,
        longitude: LON0,
        altitude: 520.0,
        position_covariance: [0.25, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 1.0],
        position_covariance_type: NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN,
    }
}

pub fn imu(t: Duration) -> Imu {
    Imu {
        header: Header {
            stamp: stamp(t),
            frame_id: "imu_link".into(),
        },
        orientation: Quaternion::from_yaw(0.3),
        orientation_covariance: [0.01, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 0.01],
        angular_velocity: Vector3 {
            x: 0.01,
            y: -0.02,
            z: 0.25,
        },
        angular_velocity_covariance: [0.0004, 0.0, 0.0, 0.0, 0.0004, 0.0, 0.0, 0.0, 0.0004],
        linear_acceleration: Vector3 {
            x: 0.3,
            y: 0.0,
            z: 9.81,
        },
        linear_acceleration_covariance: [0.04, 0.0, 0.0, 0.0, 0.04, 0.0, 0.0, 0.0, 0.04],
    }
}

pub fn odom(t: Duration) -> Odometry {
    let mut o = Odometry {
        header: Header {
            stamp: stamp(t),
            frame_id: "odom".into(),
        },
        child_frame_id: "base_link".into(),
        ..Default::default()
    };
    o.pose.pose.position = Point {
        x: 2.0,
        y: -1.0,
        z: 0.0,
    };
    o.pose.pose.orientation = Quaternion::from_yaw(0.5);
    o.pose.covariance[0] = 0.01;
    o.pose.covariance[7] = 0.01;
    o.pose.covariance[35] = 0.02;
    o.twist.twist.linear = Vector3 {
        x: 0.4,
        y: 0.0,
        z: 0.0,
    };
    o.twist.twist.angular = Vector3 {
        x: 0.0,
        y: 0.0,
        z: 0.3,
    };
    o.twist.covariance[0] = 0.001;
    o.twist.covariance[35] = 0.002;
    o
}

/// 8 beams; one with no return (+inf) and one NaN with a non-canonical payload.
pub fn scan(t: Duration) -> LaserScan {
    LaserScan {
        header: Header {
            stamp: stamp(t),
            frame_id: "base_scan".into(),
        },
        angle_min: -1.0,
        angle_max: 1.0,
        angle_increment: 2.0 / 7.0,
        time_increment: 0.0,
        scan_time: 0.1,
        range_min: 0.1,
        range_max: 12.0,
        ranges: vec![
            1.0,
            1.5,
            2.0,
            f32::INFINITY,
            f32::from_bits(0x7fc0_1234),
            3.0,
            0.5,
            11.0,
        ],
        intensities: vec![],
    }
}

pub fn msg_for(kind: MsgKind, t: Duration) -> SensorMsg {
    match kind {
        MsgKind::NavSatFix => SensorMsg::NavSatFix(fix(t)),
        MsgKind::Imu => SensorMsg::Imu(imu(t)),
        MsgKind::Odometry => SensorMsg::Odometry(odom(t)),
        MsgKind::LaserScan => SensorMsg::LaserScan(scan(t)),
    }
}

/// The shipped channels.yaml as an injector.
pub fn shipped() -> Injector {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/config/channels.yaml");
    Injector::from_config(&kraken_faults::ChannelsConfig::load(std::path::Path::new(path)).unwrap())
}

/// Pushes one message at `t` and returns what is released at `t`.
pub fn step(c: &mut Channel, msg: SensorMsg, t: Duration, r: &mut FaultRng) -> Vec<SensorMsg> {
    c.push(msg, t, r);
    c.poll(t)
}

/// Bit-exact comparison via the serde field stream (f32/f64 by bits, so NaN
/// payloads count): serializes both with a JSON-like Debug of to_bits.
pub fn bits(m: &SensorMsg) -> Vec<u64> {
    let mut v = Vec::new();
    let h = m.header();
    v.push(h.stamp.as_nanos() as u64);
    v.extend(h.frame_id.bytes().map(u64::from));
    match m {
        SensorMsg::NavSatFix(f) => {
            v.push(f.status.status as u64);
            v.push(f.status.service as u64);
            v.extend([f.latitude, f.longitude, f.altitude].map(f64::to_bits));
            v.extend(f.position_covariance.map(f64::to_bits));
            v.push(f.position_covariance_type as u64);
        }
        SensorMsg::Imu(i) => {
            let q = i.orientation;
            v.extend([q.x, q.y, q.z, q.w].map(f64::to_bits));
            v.extend(i.orientation_covariance.map(f64::to_bits));
            let w = i.angular_velocity;
            v.extend([w.x, w.y, w.z].map(f64::to_bits));
            v.extend(i.angular_velocity_covariance.map(f64::to_bits));
            let a = i.linear_acceleration;
            v.extend([a.x, a.y, a.z].map(f64::to_bits));
            v.extend(i.linear_acceleration_covariance.map(f64::to_bits));
        }
        SensorMsg::Odometry(o) => {
            v.extend(o.child_frame_id.bytes().map(u64::from));
            let p = o.pose.pose.position;
            let q = o.pose.pose.orientation;
            v.extend([p.x, p.y, p.z, q.x, q.y, q.z, q.w].map(f64::to_bits));
            v.extend(o.pose.covariance.map(f64::to_bits));
            let t = o.twist.twist;
            v.extend(
                [
                    t.linear.x,
                    t.linear.y,
                    t.linear.z,
                    t.angular.x,
                    t.angular.y,
                    t.angular.z,
                ]
                .map(f64::to_bits),
            );
            v.extend(o.twist.covariance.map(f64::to_bits));
        }
        SensorMsg::LaserScan(s) => {
            v.extend(
                [
                    s.angle_min,
                    s.angle_max,
                    s.angle_increment,
                    s.time_increment,
                    s.scan_time,
                    s.range_min,
                    s.range_max,
                ]
                .map(|x| x.to_bits() as u64),
            );
            v.push(s.ranges.len() as u64);
            v.extend(s.ranges.iter().map(|x| x.to_bits() as u64));
            v.push(s.intensities.len() as u64);
            v.extend(s.intensities.iter().map(|x| x.to_bits() as u64));
        }
    }
    v
}

/// Every floating-point value of a message, in field order (f32 widened).
pub fn floats(m: &SensorMsg) -> Vec<f64> {
    fn v3(v: &Vector3) -> [f64; 3] {
        [v.x, v.y, v.z]
    }
    fn q(v: &Quaternion) -> [f64; 4] {
        [v.x, v.y, v.z, v.w]
    }
    let mut out = Vec::new();
    match m {
        SensorMsg::NavSatFix(f) => {
            out.extend([f.latitude, f.longitude, f.altitude]);
            out.extend(f.position_covariance);
        }
        SensorMsg::Imu(i) => {
            out.extend(q(&i.orientation));
            out.extend(i.orientation_covariance);
            out.extend(v3(&i.angular_velocity));
            out.extend(i.angular_velocity_covariance);
            out.extend(v3(&i.linear_acceleration));
            out.extend(i.linear_acceleration_covariance);
        }
        SensorMsg::Odometry(o) => {
            let p = &o.pose.pose.position;
            out.extend([p.x, p.y, p.z]);
            out.extend(q(&o.pose.pose.orientation));
            out.extend(o.pose.covariance);
            out.extend(v3(&o.twist.twist.linear));
            out.extend(v3(&o.twist.twist.angular));
            out.extend(o.twist.covariance);
        }
        SensorMsg::LaserScan(l) => {
            out.extend(
                [
                    l.angle_min,
                    l.angle_max,
                    l.angle_increment,
                    l.time_increment,
                    l.scan_time,
                    l.range_min,
                    l.range_max,
                ]
                .map(f64::from),
            );
            out.extend(l.ranges.iter().map(|&r| f64::from(r)));
            out.extend(l.intensities.iter().map(|&r| f64::from(r)));
        }
    }
    out
}

/// Fails when `output` holds a non-finite value at a position where `input`
/// was finite (a fault may pass a sensor's NaN on, never make one), or more
/// non-finite values than the input overall (outputs of another shape, e.g.
/// a frozen sample, are judged by count).
pub fn assert_no_new_non_finite(input: &SensorMsg, output: &SensorMsg, what: &str) {
    let (a, b) = (floats(input), floats(output));
    if a.len() == b.len() {
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                y.is_finite() || !x.is_finite(),
                "{what}: value #{i} became {y} (input {x})"
            );
        }
    } else {
        let bad = |v: &[f64]| v.iter().filter(|x| !x.is_finite()).count();
        assert!(bad(&b) <= bad(&a), "{what}: new non-finite values");
    }
}

/// A channel named `imu` carrying `sensor_msgs/Imu` with `spec` set at t = 0.
pub fn imu_channel(spec: kraken_interfaces::FaultSpec) -> Channel {
    let mut c = Channel::new("imu", MsgKind::Imu);
    c.set_fault(
        &kraken_interfaces::FaultSpec {
            channel: "imu".into(),
            ..spec
        },
        Duration::ZERO,
    )
    .unwrap();
    c
}

/// The one message a step delivered (panics on none or several).
pub fn only(v: Vec<SensorMsg>) -> SensorMsg {
    assert_eq!(v.len(), 1, "expected exactly one message, got {}", v.len());
    v.into_iter().next().unwrap()
}

/// The fix inside `m` (panics on another type).
pub fn as_fix(m: SensorMsg) -> NavSatFix {
    match m {
        SensorMsg::NavSatFix(f) => f,
        other => panic!("not a fix: {other:?}"),
    }
}
