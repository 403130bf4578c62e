//! Golden tests: exact delivered values for each mode (REQ-FAULT-* in docs/requirements.md, "Checks that
//! must hold"). Numbers are derived by hand in the comments.

mod common;
use common::*;

use std::time::Duration;

use geographiclib_rs::{Geodesic, InverseGeodesic};
use kraken_faults::{Channel, MsgKind, SensorMsg};
use kraken_interfaces::ros::{NavSatFix, NavSatStatus};
use kraken_interfaces::FaultSpec;

fn only(v: Vec<SensorMsg>) -> SensorMsg {
    assert_eq!(v.len(), 1, "expected exactly one message, got {}", v.len());
    v.into_iter().next().unwrap()
}

fn as_fix(m: SensorMsg) -> NavSatFix {
    match m {
        SensorMsg::NavSatFix(f) => f,
        other => panic!("not a fix: {other:?}"),
    }
}

/// bias_ramp 0.2 m/s for 40 s at 10 Hz: at t = 40 s the offset is
/// 0.2 * 40 = 8.0 m on a 45° geodesic bearing; at 20 s it is 4.0 m; after the
/// transient window (t > 40 s) the fix is the true one, bit for bit.
#[test]
fn gnss_bias_ramp_walks_8_m_on_45_degrees_in_40_s() {
    let mut c = Channel::new("gnss", MsgKind::NavSatFix);
    let mut r = rng(1);
    let spec = FaultSpec {
        bias_rate: 0.2,
        duration_s: 40.0,
        ..FaultSpec::new("gnss", FaultSpec::BIAS_RAMP)
    };
    c.set_fault(&spec, Duration::ZERO).unwrap();
    let g = Geodesic::wgs84();
    let mut seen = Vec::new();
    for k in 0..=401u64 {
        let t = ms(100 * k);
        let out = as_fix(only(step(&mut c, SensorMsg::NavSatFix(fix(t)), t, &mut r)));
        let (s12, azi1, _azi2, _a12): (f64, f64, f64, f64) =
            g.inverse(LAT0, LON0, out.latitude, out.longitude);
        seen.push((k, s12, azi1, out));
    }
    let (_, s0, _, _) = &seen[0];
    assert_eq!(*s0, 0.0, "no offset at the moment the fault is set");
    let (_, s20, az20, _) = &seen[200];
    assert!((s20 - 4.0).abs() < 0.01, "t=20 s: {s20} m");
    assert!((az20 - 45.0).abs() < 1e-6, "t=20 s azimuth {az20}");
    let (_, s40, az40, f40) = &seen[400];
    assert!(
        (s40 - 8.0).abs() < 0.01,
        "t=40 s: {s40} m, expected 8.0 +/- 0.01"
    );
    assert!(
        (s40 - 8.0).abs() < 1e-6,
        "geodesic direct/inverse agree to the micrometre: {s40}"
    );
    assert!((az40 - 45.0).abs() < 1e-6, "azimuth {az40}");
    // Covariance and status stay as they were (the sensor lies confidently).
    assert_eq!(f40.position_covariance, fix(ms(0)).position_covariance);
    assert_eq!(f40.status.status, NavSatStatus::STATUS_GBAS_FIX);
    assert_eq!(f40.altitude, 520.0);
    // t = 40.1 s: expired, true fix again, and the expiry is recorded at 40 s.
    let (_, s401, _, f401) = &seen[401];
    assert_eq!(*s401, 0.0);
    assert_eq!(
        bits(&SensorMsg::NavSatFix(f401.clone())),
        bits(&SensorMsg::NavSatFix(fix(ms(40_100))))
    );
    assert_eq!(c.cleared(), Some(ms(40_000)));
    assert!(c.fault().is_none());
}

/// IMU bias_ramp: yaw rate 0.25 rad/s + 0.01 rad/s² * 3 s = 0.28 rad/s at t = 3 s.
#[test]
fn imu_bias_ramp_grows_yaw_rate_only() {
    let mut c = Channel::new("imu", MsgKind::Imu);
    let mut r = rng(1);
    c.set_fault(
        &FaultSpec {
            bias_rate: 0.01,
            ..FaultSpec::new("imu", FaultSpec::BIAS_RAMP)
        },
        ms(1000),
    )
    .unwrap();
    let out = only(step(
        &mut c,
        SensorMsg::Imu(imu(ms(4000))),
        ms(4000),
        &mut r,
    ));
    let SensorMsg::Imu(i) = out else { panic!() };
    assert!(
        (i.angular_velocity.z - 0.28).abs() < 1e-12,
        "{}",
        i.angular_velocity.z
    );
    assert_eq!(i.angular_velocity.x, 0.01);
    assert_eq!(
        i.angular_velocity_covariance,
        imu(ms(0)).angular_velocity_covariance
    );
}

/// slip 0.5: linear.x 0.4 -> 0.2 m/s, angular.z 0.3 -> 0.15 rad/s; pose unchanged.
#[test]
fn slip_half_halves_both_velocities() {
    let mut c = Channel::new("wheel", MsgKind::Odometry);
    let mut r = rng(1);
    c.set_fault(
        &FaultSpec {
            slip_ratio: 0.5,
            ..FaultSpec::new("wheel", FaultSpec::SLIP)
        },
        ms(0),
    )
    .unwrap();
    let SensorMsg::Odometry(o) = only(step(
        &mut c,
        SensorMsg::Odometry(odom(ms(100))),
        ms(100),
        &mut r,
    )) else {
        panic!()
    };
    assert_eq!(o.twist.twist.linear.x, 0.2);
    assert_eq!(o.twist.twist.angular.z, 0.15);
    assert_eq!(o.pose, odom(ms(0)).pose);
    assert_eq!(o.twist.covariance, odom(ms(0)).twist.covariance);
}

/// degrade with noise 0 isolates the covariance rule: 0.25 * 4 = 1.0 and
/// 1.0 * 4 = 4.0 exactly; GBAS_FIX -> FIX; position unchanged.
#[test]
fn degrade_multiplies_covariance_exactly_and_downgrades_gbas() {
    let mut c = Channel::new("gnss", MsgKind::NavSatFix);
    let mut r = rng(1);
    let spec = FaultSpec {
        noise_stddev: 0.0,
        covariance_scale: 4.0,
        ..FaultSpec::new("gnss", FaultSpec::DEGRADE)
    };
    c.set_fault(&spec, ms(0)).unwrap();
    let f = as_fix(only(step(
        &mut c,
        SensorMsg::NavSatFix(fix(ms(0))),
        ms(0),
        &mut r,
    )));
    assert_eq!(
        f.position_covariance,
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 4.0]
    );
    assert_eq!(f.status.status, NavSatStatus::STATUS_FIX);
    assert_eq!((f.latitude, f.longitude, f.altitude), (LAT0, LON0, 520.0));
    // A plain FIX stays FIX; SBAS stays SBAS (only GBAS is downgraded).
    let mut sbas = fix(ms(100));
    sbas.status.status = NavSatStatus::STATUS_SBAS_FIX;
    let f = as_fix(only(step(
        &mut c,
        SensorMsg::NavSatFix(sbas),
        ms(100),
        &mut r,
    )));
    assert_eq!(f.status.status, NavSatStatus::STATUS_SBAS_FIX);
}

/// degrade noise statistics (seed 7, n = 4000): altitude error variance
/// ~ sigma^2 = 4 m^2 (sampling s.e. of a variance = sigma^2 sqrt(2/n) = 0.09,
/// tolerance 0.4 = 4.5 s.e.); horizontal distance^2 mean ~ 2 sigma^2 = 8 m^2
/// (s.e. 8/sqrt(n) = 0.13, tolerance 0.6). Covariance 0.25 * 2.5 = 0.625.
#[test]
fn degrade_noise_has_the_requested_stddev_in_metres() {
    let mut c = Channel::new("gnss", MsgKind::NavSatFix);
    let mut r = rng(7);
    let spec = FaultSpec {
        noise_stddev: 2.0,
        covariance_scale: 2.5,
        ..FaultSpec::new("gnss", FaultSpec::DEGRADE)
    };
    c.set_fault(&spec, ms(0)).unwrap();
    let g = Geodesic::wgs84();
    let n = 4000;
    let (mut alt2, mut hor2) = (0.0, 0.0);
    for k in 0..n {
        let f = as_fix(only(step(
            &mut c,
            SensorMsg::NavSatFix(fix(ms(100 * k))),
            ms(100 * k),
            &mut r,
        )));
        alt2 += (f.altitude - 520.0).powi(2);
        let s: f64 = g.inverse(LAT0, LON0, f.latitude, f.longitude);
        hor2 += s * s;
        assert_eq!(f.position_covariance[0], 0.625);
    }
    let (alt_var, hor_ms) = (alt2 / n as f64, hor2 / n as f64);
    assert!((alt_var - 4.0).abs() < 0.4, "altitude variance {alt_var}");
    assert!(
        (hor_ms - 8.0).abs() < 0.6,
        "horizontal mean square {hor_ms}"
    );
}

/// delay 0.4 s on a 10 Hz stream: message k (stamp k*0.1 s) is released at
/// exactly k*0.1 + 0.4 s, one per poll, in stamp order, content unchanged.
#[test]
fn delay_holds_every_message_exactly_0_4_s_in_order() {
    let mut c = Channel::new("scan", MsgKind::LaserScan);
    let mut r = rng(1);
    c.set_fault(
        &FaultSpec {
            delay_s: 0.4,
            ..FaultSpec::new("scan", FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    let mut delivered = Vec::new();
    for k in 0..100u64 {
        let t = ms(100 * k);
        c.push(SensorMsg::LaserScan(scan(t)), t, &mut r);
        for m in c.poll(t) {
            delivered.push((t, m));
        }
    }
    // Messages 0..=95 are out by t = 9.9 s; 96..99 are still queued.
    assert_eq!(delivered.len(), 96);
    assert_eq!(c.queued(), 4);
    for (k, (t, m)) in delivered.iter().enumerate() {
        let sent = ms(100 * k as u64);
        assert_eq!(m.header().stamp, stamp(sent), "order");
        assert_eq!(*t - sent, ms(400), "message {k} released at {t:?}");
        assert_eq!(bits(m), bits(&SensorMsg::LaserScan(scan(sent))));
    }
    // The mean is a float sum of 96 x 0.4: equal to 0.4 up to rounding.
    assert!((c.stats().mean_latency_s().unwrap() - 0.4).abs() < 1e-12);
    assert_eq!(c.stats().latency_max_s, 0.4);
}

/// healthy and "no fault" are bit-exact on every channel type, NaN payloads
/// included (compared by to_bits).
#[test]
fn healthy_is_bit_exact_for_every_type() {
    let mut inj = shipped();
    let mut r = rng(3);
    inj.set_fault(&FaultSpec::new("scan", FaultSpec::HEALTHY), ms(0))
        .unwrap();
    let names: Vec<(String, MsgKind)> = inj
        .channels()
        .iter()
        .map(|c| (c.name().to_string(), c.kind()))
        .collect();
    for k in 0..20u64 {
        let t = ms(50 * k);
        for (name, kind) in &names {
            let m = msg_for(*kind, t);
            inj.push(name, m.clone(), t, &mut r).unwrap();
            let out = inj.poll(name, t).unwrap();
            assert_eq!(out.len(), 1);
            assert_eq!(bits(&out[0]), bits(&m), "{name} at {t:?}");
        }
    }
    // The NaN payload survived (0x7fc01234, not the canonical 0x7fc00000).
    let SensorMsg::LaserScan(s) = msg_for(MsgKind::LaserScan, ms(0)) else {
        panic!()
    };
    assert_eq!(s.ranges[4].to_bits(), 0x7fc0_1234);
    for c in inj.channels() {
        assert_eq!(c.stats().messages_faulted, 0);
        assert_eq!(c.stats().messages_in, 20);
        assert_eq!(c.stats().messages_out, 20);
    }
}

/// dropout, per type: gnss keeps publishing NO_FIX with unknown, zero
/// covariance (position unchanged); imu, odometry and scan are silent; the
/// wheel channel (tf_keepalive in channels.yaml) offers the last odom->base_link
/// transform stamped now, the odom channel (no keep-alive) does not.
#[test]
fn dropout_per_channel_type() {
    let mut inj = shipped();
    let mut r = rng(1);
    for name in ["gnss", "imu", "wheel", "scan", "odom"] {
        // One healthy message first, so the keep-alive has a last input.
        let kind = inj.channel(name).unwrap().kind();
        inj.push(name, msg_for(kind, ms(0)), ms(0), &mut r).unwrap();
        assert_eq!(inj.poll(name, ms(0)).unwrap().len(), 1);
        inj.set_fault(&FaultSpec::new(name, FaultSpec::DROPOUT), ms(50))
            .unwrap();
    }
    let t = ms(100);
    for name in ["gnss", "imu", "wheel", "scan", "odom"] {
        let kind = inj.channel(name).unwrap().kind();
        inj.push(name, msg_for(kind, t), t, &mut r).unwrap();
    }
    let f = as_fix(only(inj.poll("gnss", t).unwrap()));
    assert_eq!(f.status.status, NavSatStatus::STATUS_NO_FIX);
    assert_eq!(
        f.position_covariance_type,
        NavSatFix::COVARIANCE_TYPE_UNKNOWN
    );
    assert_eq!(f.position_covariance, [0.0; 9]);
    assert_eq!((f.latitude, f.longitude), (LAT0, LON0));
    assert_eq!(f.header.stamp, stamp(t));
    for name in ["imu", "wheel", "scan", "odom"] {
        assert!(
            inj.poll(name, t).unwrap().is_empty(),
            "{name} must be silent"
        );
        assert_eq!(inj.channel(name).unwrap().stats().messages_faulted, 1);
    }
    let tf = inj
        .channel("wheel")
        .unwrap()
        .keepalive_transform(ms(150))
        .expect("wheel keeps TF alive");
    assert_eq!(tf.header.frame_id, "odom");
    assert_eq!(tf.child_frame_id, "base_link");
    assert_eq!(tf.header.stamp, stamp(ms(150)));
    assert_eq!(
        (tf.transform.translation.x, tf.transform.translation.y),
        (2.0, -1.0)
    );
    assert_eq!(tf.transform.rotation, odom(ms(0)).pose.pose.orientation);
    assert_eq!(
        inj.channel("wheel")
            .unwrap()
            .tf_keepalive()
            .unwrap()
            .tf_rate_hz,
        20.0
    );
    assert!(inj
        .channel("odom")
        .unwrap()
        .keepalive_transform(ms(150))
        .is_none());
    // After clearing, no keep-alive (the topic itself carries data again).
    inj.clear_faults_at(ms(200));
    assert!(inj
        .channel("wheel")
        .unwrap()
        .keepalive_transform(ms(250))
        .is_none());
}
