//! Loss patterns, garbage bounds, activation patterns, and the remaining
//! modes' exact effects.

mod common;
use common::*;

use std::time::Duration;

use kraken_faults::{Channel, MsgKind, SensorMsg};
use kraken_interfaces::ros::NavSatStatus;
use kraken_interfaces::FaultSpec;

fn imu_channel(spec: FaultSpec) -> Channel {
    let mut c = Channel::new("imu", MsgKind::Imu);
    c.set_fault(
        &FaultSpec {
            channel: "imu".into(),
            ..spec
        },
        Duration::ZERO,
    )
    .unwrap();
    c
}

fn loss_rate(spec: FaultSpec, n: u64, seed: u64) -> f64 {
    let mut c = imu_channel(spec);
    let mut r = rng(seed);
    let mut out = 0u64;
    for k in 0..n {
        out += step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).len() as u64;
    }
    1.0 - out as f64 / n as f64
}

/// Gilbert-Elliott p = 0.05, r = 0.2: stationary loss p/(p+r) = 0.2. With
/// lag-1 correlation 1-p-r = 0.75 the variance of the mean is inflated by
/// (1+0.75)/(1-0.75) = 7: s.e. = sqrt(0.2*0.8*7/200000) = 0.0024; tolerance
/// 0.01 (about 4 s.e.), seed 11.
#[test]
fn gilbert_elliott_long_run_rate_is_stationary_probability() {
    let spec = FaultSpec {
        loss_model: FaultSpec::LOSS_GILBERT_ELLIOTT,
        loss_probability: 0.05,
        recovery_probability: 0.2,
        ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
    };
    let rate = loss_rate(spec, 200_000, 11);
    assert!((rate - 0.2).abs() < 0.01, "loss rate {rate}");
}

/// Bernoulli 0.3: s.e. sqrt(0.21/100000) = 0.0014; tolerance 0.006.
/// Burst p = 0.02, length 5: each delivered message starts a burst with
/// probability p, so (1-p)/p = 49 delivered per 5 lost: 5/54 = 0.0926.
#[test]
fn bernoulli_and_burst_loss_rates() {
    let b = loss_rate(
        FaultSpec {
            loss_probability: 0.3,
            ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
        },
        100_000,
        5,
    );
    assert!((b - 0.3).abs() < 0.006, "bernoulli {b}");
    let spec = FaultSpec {
        loss_model: FaultSpec::LOSS_BURST,
        loss_probability: 0.02,
        burst_length: 5,
        ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
    };
    let burst = loss_rate(spec, 100_000, 5);
    assert!((burst - 5.0 / 54.0).abs() < 0.01, "burst {burst}");
}

/// Bursts really are bursts: every run of lost messages has length 5 (a
/// burst can start right after another one ends, giving 10, 15, ...).
#[test]
fn burst_runs_are_multiples_of_burst_length() {
    let mut c = imu_channel(FaultSpec {
        loss_model: FaultSpec::LOSS_BURST,
        loss_probability: 0.05,
        burst_length: 5,
        ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
    });
    let mut r = rng(2);
    let mut run = 0;
    let mut runs = Vec::new();
    for k in 0..20_000 {
        if step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).is_empty() {
            run += 1;
        } else if run > 0 {
            runs.push(run);
            run = 0;
        }
    }
    assert!(runs.len() > 100, "{} bursts", runs.len());
    assert!(runs.iter().all(|n| n % 5 == 0), "{runs:?}");
}

/// garbage in [-5, 5]: every drawn value in bounds and finite; with
/// allow_non_finite about 10 % non-finite (of 6000 values, s.e. 0.4 %),
/// the finite ones still in bounds; covariance untouched.
#[test]
fn garbage_is_bounded_and_finite_unless_asked() {
    for allow in [false, true] {
        let mut c = imu_channel(FaultSpec {
            garbage_min: -5.0,
            garbage_max: 5.0,
            allow_non_finite: allow,
            ..FaultSpec::new("imu", FaultSpec::GARBAGE)
        });
        let mut r = rng(9);
        let mut non_finite = 0;
        let mut distinct = std::collections::BTreeSet::new();
        for k in 0..1000 {
            let SensorMsg::Imu(i) =
                step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).remove(0)
            else {
                panic!()
            };
            let (w, a) = (i.angular_velocity, i.linear_acceleration);
            for v in [w.x, w.y, w.z, a.x, a.y, a.z] {
                if v.is_finite() {
                    assert!((-5.0..=5.0).contains(&v), "{v}");
                    distinct.insert(v.to_bits());
                } else {
                    non_finite += 1;
                }
            }
            assert_eq!(
                i.angular_velocity_covariance,
                imu(ms(0)).angular_velocity_covariance
            );
        }
        assert!(distinct.len() > 5000, "values are random, not constant");
        if allow {
            let frac = non_finite as f64 / 6000.0;
            assert!((frac - 0.1).abs() < 0.02, "non-finite fraction {frac}");
        } else {
            assert_eq!(non_finite, 0);
        }
    }
}

/// Intermittent, period 1 s, duty 0.305, phase 0, bias 1 rad/s on yaw rate,
/// samples every 10 ms for 10 s: active samples per period are those with
/// (t mod 1) < 0.305, i.e. 0.00 ... 0.30 = 31; 10 periods = 310.
#[test]
fn intermittent_duty_cycle_counts_exactly() {
    let mut c = imu_channel(FaultSpec {
        bias: 1.0,
        period_s: 1.0,
        duty_cycle: 0.305,
        ..FaultSpec::new("imu", FaultSpec::BIAS)
    });
    let mut r = rng(1);
    let mut biased = 0;
    for k in 0..1000u64 {
        let t = ms(10 * k);
        let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(t)), t, &mut r).remove(0) else {
            panic!()
        };
        let on = (k % 100) <= 30;
        assert_eq!(i.angular_velocity.z == 1.25, on, "k = {k}");
        assert_eq!(c.is_active(t), on);
        biased += on as u32;
    }
    assert_eq!(biased, 310);
    assert_eq!(c.stats().messages_faulted, 310);
}

/// A random phase is drawn once, from the seed: the same seed gives the same
/// phase, it lies in [0, period), and the duty fraction is unchanged.
#[test]
fn intermittent_random_phase_is_seeded_and_drawn_once() {
    let spec = FaultSpec {
        bias: 1.0,
        period_s: 2.0,
        duty_cycle: 0.25,
        random_phase: true,
        ..FaultSpec::new("imu", FaultSpec::BIAS)
    };
    let phase = |seed| {
        let mut c = Channel::new("imu", MsgKind::Imu);
        c.set_fault_seeded(&spec, ms(0), &mut rng(seed)).unwrap();
        c.activation().unwrap().phase_s.unwrap()
    };
    assert_eq!(phase(4), phase(4));
    assert_ne!(phase(4), phase(5));
    let p = phase(4);
    assert!((0.0..2.0).contains(&p));
    // Lazy draw at the first message with a plain set_fault: fixed afterwards.
    let mut c = imu_channel(spec.clone());
    assert!(c.activation().unwrap().phase_s.is_none());
    let mut r = rng(4);
    let mut on = 0;
    for k in 0..2000u64 {
        let t = ms(10 * k);
        c.push(SensorMsg::Imu(imu(t)), t, &mut r);
        on += c.is_active(t) as u32;
    }
    let drawn = c.activation().unwrap().phase_s.unwrap();
    c.push(SensorMsg::Imu(imu(ms(20_000))), ms(20_000), &mut r);
    assert_eq!(c.activation().unwrap().phase_s.unwrap(), drawn);
    // 20 s = 10 periods of 200 samples, 50 active each (+/- 1 at the edges).
    assert!((490..=510).contains(&on), "{on}");
}

/// Transient bias, 2 s, 10 Hz: samples at 0.0 ... 2.0 s (21, end inclusive)
/// are biased, later ones are bit-exact; cleared = 2.0 s, reported by status
/// even before the next message arrives.
#[test]
fn transient_fault_expires_to_healthy() {
    let mut c = imu_channel(FaultSpec {
        bias: 0.5,
        duration_s: 2.0,
        ..FaultSpec::new("imu", FaultSpec::BIAS)
    });
    let mut r = rng(1);
    let mut biased = 0;
    for k in 0..=20u64 {
        let t = ms(100 * k);
        let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(t)), t, &mut r).remove(0) else {
            panic!()
        };
        assert_eq!(i.angular_velocity.z, 0.75);
        biased += 1;
    }
    assert_eq!(biased, 21);
    let st = c.status(ms(2050));
    assert!(!st.active);
    assert_eq!(st.cleared, stamp(ms(2000)));
    let out = step(&mut c, SensorMsg::Imu(imu(ms(2100))), ms(2100), &mut r).remove(0);
    assert_eq!(bits(&out), bits(&SensorMsg::Imu(imu(ms(2100)))));
    assert!(c.fault().is_none());
    assert_eq!(c.cleared(), Some(ms(2000)));
    assert_eq!(c.record().unwrap().spec.mode, FaultSpec::BIAS);
}

/// stuck: data frozen at the first faulted sample, stamps fresh (or frozen
/// with freeze_stamp).
#[test]
fn stuck_freezes_value_with_fresh_or_frozen_stamps() {
    for freeze in [false, true] {
        let mut c = imu_channel(FaultSpec {
            freeze_stamp: freeze,
            ..FaultSpec::new("imu", FaultSpec::STUCK)
        });
        let mut r = rng(1);
        for k in 0..5u64 {
            let t = ms(100 * k);
            let mut m = imu(t);
            m.angular_velocity.z = k as f64;
            let SensorMsg::Imu(o) = step(&mut c, SensorMsg::Imu(m), t, &mut r).remove(0) else {
                panic!()
            };
            assert_eq!(o.angular_velocity.z, 0.0, "frozen at the first sample");
            let want = if freeze { stamp(ms(0)) } else { stamp(t) };
            assert_eq!(o.header.stamp, want);
        }
    }
}

/// bias with a step: 0.5 m/s on wheel linear.x from 1 s after set.
#[test]
fn bias_steps_in_at_step_at_s() {
    let mut c = Channel::new("wheel", MsgKind::Odometry);
    let mut r = rng(1);
    c.set_fault(
        &FaultSpec {
            bias: 0.5,
            step_at_s: 1.0,
            ..FaultSpec::new("wheel", FaultSpec::BIAS)
        },
        ms(500),
    )
    .unwrap();
    let x = |c: &mut Channel, r: &mut _, t| {
        let SensorMsg::Odometry(o) = step(c, SensorMsg::Odometry(odom(t)), t, r).remove(0) else {
            panic!()
        };
        o.twist.twist.linear.x
    };
    assert_eq!(x(&mut c, &mut r, ms(1400)), 0.4);
    assert_eq!(x(&mut c, &mut r, ms(1500)), 0.9);
}

/// scale: odometry position about the origin (x 2 -> 2.4 for 1.2, -> -2 for
/// -1: sign flip), imu angular velocity x -1; scan ranges x 0.5 (inf stays inf).
#[test]
fn scale_and_sign_flip() {
    let mut r = rng(1);
    for (f, want) in [(1.2, (2.4, -1.2)), (-1.0, (-2.0, 1.0))] {
        let mut c = Channel::new("odom", MsgKind::Odometry)
            .with_probe(Box::new(kraken_faults::RatioXProbe::default()));
        c.set_fault(
            &FaultSpec {
                scale_factor: f,
                ..FaultSpec::new("odom", FaultSpec::SCALE)
            },
            ms(0),
        )
        .unwrap();
        let SensorMsg::Odometry(o) =
            step(&mut c, SensorMsg::Odometry(odom(ms(0))), ms(0), &mut r).remove(0)
        else {
            panic!()
        };
        assert_eq!((o.pose.pose.position.x, o.pose.pose.position.y), want);
        assert_eq!(o.twist, odom(ms(0)).twist);
        assert!((c.probes()[0].value().unwrap() - f).abs() < 1e-15);
    }
    let mut c = imu_channel(FaultSpec {
        scale_factor: -1.0,
        ..FaultSpec::new("imu", FaultSpec::SCALE)
    });
    let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).remove(0)
    else {
        panic!()
    };
    assert_eq!(i.angular_velocity.z, -0.25);
    let mut c = Channel::new("scan", MsgKind::LaserScan);
    c.set_fault(
        &FaultSpec {
            scale_factor: 0.5,
            ..FaultSpec::new("scan", FaultSpec::SCALE)
        },
        ms(0),
    )
    .unwrap();
    let SensorMsg::LaserScan(s) =
        step(&mut c, SensorMsg::LaserScan(scan(ms(0))), ms(0), &mut r).remove(0)
    else {
        panic!()
    };
    assert_eq!(&s.ranges[..4], &[0.5, 0.75, 1.0, f32::INFINITY]);
}

/// saturation 0.2: imu yaw rate 0.25 -> 0.2, scan ranges > 2 m -> 2 m
/// (inf stays inf), wheel 0.4 m/s -> 0.2.
#[test]
fn saturation_clips() {
    let mut r = rng(1);
    let mut c = imu_channel(FaultSpec {
        saturation_limit: 0.2,
        ..FaultSpec::new("imu", FaultSpec::SATURATION)
    });
    let SensorMsg::Imu(i) = step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).remove(0)
    else {
        panic!()
    };
    assert_eq!(
        (
            i.angular_velocity.x,
            i.angular_velocity.y,
            i.angular_velocity.z
        ),
        (0.01, -0.02, 0.2)
    );
    let mut c = Channel::new("scan", MsgKind::LaserScan);
    c.set_fault(
        &FaultSpec {
            saturation_limit: 2.0,
            ..FaultSpec::new("scan", FaultSpec::SATURATION)
        },
        ms(0),
    )
    .unwrap();
    let SensorMsg::LaserScan(s) =
        step(&mut c, SensorMsg::LaserScan(scan(ms(0))), ms(0), &mut r).remove(0)
    else {
        panic!()
    };
    assert_eq!(s.ranges[..4], [1.0, 1.5, 2.0, f32::INFINITY]);
    assert_eq!(s.ranges[5..], [2.0, 0.5, 2.0]);
}

/// Timing modes: duplicate (p = 1) doubles, reorder (p = 1 on the first)
/// swaps a pair, timestamp_jump shifts the stamp by -0.25 s, jitter stays in
/// [0, jitter_s].
#[test]
fn timing_modes() {
    let mut r = rng(1);
    let mut c = imu_channel(FaultSpec {
        probability: 1.0,
        ..FaultSpec::new("imu", FaultSpec::DUPLICATE)
    });
    assert_eq!(
        step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).len(),
        2
    );

    let mut c = imu_channel(FaultSpec {
        probability: 1.0,
        ..FaultSpec::new("imu", FaultSpec::REORDER)
    });
    assert!(step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).is_empty());
    let pair = step(&mut c, SensorMsg::Imu(imu(ms(10))), ms(10), &mut r);
    assert_eq!(
        pair.iter().map(|m| m.header().stamp).collect::<Vec<_>>(),
        vec![stamp(ms(10)), stamp(ms(0))]
    );

    let mut c = imu_channel(FaultSpec {
        timestamp_offset_s: -0.25,
        ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
    });
    let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
    assert_eq!(out.header().stamp, stamp(ms(750)));
    let mut c = imu_channel(FaultSpec {
        timestamp_offset_s: 2.5,
        ..FaultSpec::new("imu", FaultSpec::TIMESTAMP_JUMP)
    });
    let out = step(&mut c, SensorMsg::Imu(imu(ms(1000))), ms(1000), &mut r).remove(0);
    assert_eq!(out.header().stamp, stamp(ms(3500)));

    let mut c = imu_channel(FaultSpec {
        jitter_s: 0.05,
        ..FaultSpec::new("imu", FaultSpec::JITTER)
    });
    // 1 kHz stream, polled every 1 ms: latency = release time rounded up to
    // the next millisecond, so at most 50 ms; 200 uniform draws in [0, 50] ms
    // make a max below 30 ms vanishingly unlikely (0.6^200).
    let mut got = 0;
    for k in 0..260u64 {
        if k < 200 {
            c.push(SensorMsg::Imu(imu(ms(k))), ms(k), &mut r);
        }
        got += c.poll(ms(k)).len();
    }
    assert_eq!(got, 200);
    let max = c.stats().latency_max_s;
    assert!(max <= 0.05 + 1e-9 && max > 0.03, "{max}");
}

/// corrupt_status on gnss: data unchanged, status GBAS_FIX, covariance x 0.01.
#[test]
fn corrupt_status_lies_about_quality() {
    let mut r = rng(1);
    let mut c = Channel::new("gnss", MsgKind::NavSatFix);
    let spec = FaultSpec {
        covariance_scale: 0.01,
        ..FaultSpec::new("gnss", FaultSpec::CORRUPT_STATUS)
    };
    c.set_fault(&spec, ms(0)).unwrap();
    let mut m = fix(ms(0));
    m.status.status = NavSatStatus::STATUS_FIX;
    let SensorMsg::NavSatFix(f) = step(&mut c, SensorMsg::NavSatFix(m), ms(0), &mut r).remove(0)
    else {
        panic!()
    };
    assert_eq!(f.status.status, NavSatStatus::STATUS_GBAS_FIX);
    assert_eq!(f.position_covariance[0], 0.0025);
    assert_eq!(f.position_covariance[8], 0.01);
    assert_eq!((f.latitude, f.longitude, f.altitude), (LAT0, LON0, 520.0));
}
