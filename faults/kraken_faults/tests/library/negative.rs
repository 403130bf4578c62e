//! Negative tests of the injection mechanism (REQ-FAULT-NEGATIVE-TESTS).

use crate::common;
use common::*;

use kraken_faults::{FaultError, Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::Time;
use kraken_interfaces::FaultSpec;

fn feed_all(
    inj: &mut Injector,
    t: std::time::Duration,
    r: &mut kraken_faults::FaultRng,
) -> Vec<(String, Vec<SensorMsg>)> {
    let names: Vec<(String, MsgKind)> = inj
        .channels()
        .iter()
        .map(|c| (c.name().to_string(), c.kind()))
        .collect();
    names
        .into_iter()
        .map(|(n, k)| {
            inj.push(&n, msg_for(k, t), t, r).unwrap();
            let out = inj.poll(&n, t).unwrap();
            (n, out)
        })
        .collect()
}

#[test]
fn unknown_channel_is_rejected_and_nothing_changes() {
    let mut inj = shipped();
    let before = inj.status(ms(10));
    let e = inj
        .set_fault(&FaultSpec::new("lidar", FaultSpec::DROPOUT), ms(10))
        .unwrap_err();
    assert!(
        matches!(&e, FaultError::UnknownChannel(n) if n == "lidar"),
        "{e}"
    );
    assert_eq!(e.to_string(), "unknown channel 'lidar'");
    assert_eq!(inj.status(ms(10)), before);
    assert!(matches!(
        inj.push("lidar", msg_for(MsgKind::Imu, ms(0)), ms(0), &mut rng(1)),
        Err(FaultError::UnknownChannel(_))
    ));
}

/// Unsupported mode on a channel: an error that says why, and the channel
/// keeps its previous fault (same record, same stage behaviour).
#[test]
fn unsupported_mode_is_not_applied_and_state_is_unchanged() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(
        &FaultSpec {
            delay_s: 0.2,
            ..FaultSpec::new("gnss", FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    let before = inj.status(ms(100));
    let cases = [
        (
            "gnss",
            FaultSpec {
                slip_ratio: 0.5,
                ..FaultSpec::new("gnss", FaultSpec::SLIP)
            },
        ),
        (
            "gnss",
            FaultSpec {
                scale_factor: 2.0,
                ..FaultSpec::new("gnss", FaultSpec::SCALE)
            },
        ),
        (
            "gnss",
            FaultSpec {
                saturation_limit: 1.0,
                ..FaultSpec::new("gnss", FaultSpec::SATURATION)
            },
        ),
        (
            "imu",
            FaultSpec {
                slip_ratio: 0.5,
                ..FaultSpec::new("imu", FaultSpec::SLIP)
            },
        ),
        (
            "scan",
            FaultSpec {
                covariance_scale: 0.1,
                ..FaultSpec::new("scan", FaultSpec::CORRUPT_STATUS)
            },
        ),
        (
            "scan",
            FaultSpec {
                scale_factor: -1.0,
                ..FaultSpec::new("scan", FaultSpec::SCALE)
            },
        ),
    ];
    for (ch, spec) in cases {
        let e = inj.set_fault(&spec, ms(100)).unwrap_err();
        let FaultError::Unsupported {
            channel, reason, ..
        } = &e
        else {
            panic!("{ch}: {e}")
        };
        assert_eq!(channel, ch);
        assert!(!reason.is_empty());
        assert_eq!(inj.status(ms(100)), before, "{e}");
    }
    // The delay still acts on gnss.
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(100)),
        ms(100),
        &mut r,
    )
    .unwrap();
    assert!(inj.poll("gnss", ms(299)).unwrap().is_empty());
    assert_eq!(inj.poll("gnss", ms(300)).unwrap().len(), 1);
    let before = inj.status(ms(300));
    // Unknown mode constant and invalid parameters are rejected the same way.
    let unknown = kraken_interfaces::MODES.len() as u8; // first unused constant
    assert!(matches!(
        inj.set_fault(&FaultSpec::new("imu", unknown), ms(0)),
        Err(FaultError::UnknownMode(m)) if m == unknown
    ));
    let e = inj.set_fault(
        &FaultSpec {
            probability: 1.5,
            ..FaultSpec::new("imu", FaultSpec::DUPLICATE)
        },
        ms(0),
    );
    assert!(matches!(
        e,
        Err(FaultError::InvalidParameter {
            field: "probability",
            ..
        })
    ));
    let e = inj.set_fault(
        &FaultSpec {
            noise_stddev: 1.0,
            ..FaultSpec::new("imu", FaultSpec::DEGRADE)
        },
        ms(0),
    );
    assert!(
        matches!(
            e,
            Err(FaultError::InvalidParameter {
                field: "covariance_scale",
                ..
            })
        ),
        "{e:?}"
    );
    let e = inj.set_fault(
        &FaultSpec {
            bias: 1.0,
            period_s: 1.0,
            ..FaultSpec::new("imu", FaultSpec::BIAS)
        },
        ms(0),
    );
    assert!(
        matches!(
            e,
            Err(FaultError::InvalidParameter {
                field: "duty_cycle",
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(inj.status(ms(300)), before);
}

/// A fault on imu leaves every other channel bit-exact.
#[test]
fn fault_on_one_channel_leaves_the_others_untouched() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(
        &FaultSpec {
            bias: 0.1,
            ..FaultSpec::new("imu", FaultSpec::BIAS)
        },
        ms(0),
    )
    .unwrap();
    for k in 0..10u64 {
        let t = ms(100 * k);
        for (name, out) in feed_all(&mut inj, t, &mut r) {
            let kind = inj.channel(&name).unwrap().kind();
            assert_eq!(out.len(), 1);
            if name == "imu" {
                assert_ne!(bits(&out[0]), bits(&msg_for(kind, t)));
            } else {
                assert_eq!(bits(&out[0]), bits(&msg_for(kind, t)), "{name}");
                assert!(inj.channel(&name).unwrap().fault().is_none());
            }
        }
    }
    let st = inj.status(ms(1000));
    for c in &st.channels {
        assert_eq!(c.active, c.channel == "imu", "{}", c.channel);
        assert_eq!(c.messages_faulted, if c.channel == "imu" { 10 } else { 0 });
    }
}

/// clear really clears: afterwards every channel is bit-exact, status shows
/// inactive with the clear time, and the last spec is kept for the record.
#[test]
fn clear_really_clears() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(&FaultSpec::new("gnss", FaultSpec::DROPOUT), ms(0))
        .unwrap();
    inj.set_fault(
        &FaultSpec {
            slip_ratio: 0.0,
            ..FaultSpec::new("wheel", FaultSpec::SLIP)
        },
        ms(0),
    )
    .unwrap();
    feed_all(&mut inj, ms(100), &mut r);
    inj.clear_faults_at(ms(200));
    for (name, out) in feed_all(&mut inj, ms(300), &mut r) {
        let kind = inj.channel(&name).unwrap().kind();
        assert_eq!(bits(&out[0]), bits(&msg_for(kind, ms(300))), "{name}");
    }
    let st = inj.status(ms(300));
    let g = &st.channels[0];
    assert_eq!(g.channel, "gnss");
    assert!(!g.active);
    assert_eq!(g.fault.mode, FaultSpec::DROPOUT);
    assert_eq!(g.requested, Time::default());
    assert_eq!(g.first_applied, stamp(ms(100)));
    assert_eq!(g.cleared, stamp(ms(200)));
    // Setting healthy is the same as clearing that one channel.
    inj.set_fault(&FaultSpec::new("imu", FaultSpec::BIAS_RAMP), ms(400))
        .unwrap();
    inj.set_fault(&FaultSpec::new("imu", FaultSpec::HEALTHY), ms(500))
        .unwrap();
    assert!(inj.channel("imu").unwrap().fault().is_none());
    assert_eq!(inj.channel("imu").unwrap().cleared(), Some(ms(500)));
    // clear() without a time records the latest time the channel was given.
    inj.set_fault(&FaultSpec::new("scan", FaultSpec::DROPOUT), ms(600))
        .unwrap();
    inj.push(
        "scan",
        msg_for(MsgKind::LaserScan, ms(650)),
        ms(650),
        &mut r,
    )
    .unwrap();
    assert!(inj.poll("scan", ms(700)).unwrap().is_empty());
    inj.clear_faults();
    assert_eq!(inj.channel("scan").unwrap().cleared(), Some(ms(700)));
    assert!(!inj.status(ms(700)).channels[3].active);
}

/// Two faults on different channels do not overwrite each other; a second
/// fault on the same channel replaces the first and closes its record.
#[test]
fn two_faults_on_different_channels_coexist() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(&FaultSpec::new("gnss", FaultSpec::DROPOUT), ms(0))
        .unwrap();
    inj.set_fault(
        &FaultSpec {
            slip_ratio: 0.5,
            ..FaultSpec::new("wheel", FaultSpec::SLIP)
        },
        ms(10),
    )
    .unwrap();
    assert_eq!(
        inj.channel("gnss").unwrap().fault().unwrap().mode,
        FaultSpec::DROPOUT
    );
    assert_eq!(
        inj.channel("wheel").unwrap().fault().unwrap().mode,
        FaultSpec::SLIP
    );
    let out = feed_all(&mut inj, ms(100), &mut r);
    let SensorMsg::NavSatFix(f) = &out[0].1[0] else {
        panic!()
    };
    assert_eq!(
        f.status.status,
        kraken_interfaces::ros::NavSatStatus::STATUS_NO_FIX
    );
    let SensorMsg::Odometry(o) = &out[2].1[0] else {
        panic!()
    };
    assert_eq!(o.twist.twist.linear.x, 0.2);
    // Replace on the same channel.
    inj.set_fault(
        &FaultSpec {
            delay_s: 0.1,
            ..FaultSpec::new("gnss", FaultSpec::DELAY)
        },
        ms(200),
    )
    .unwrap();
    let st = inj.status(ms(200));
    assert_eq!(st.channels[0].fault.mode, FaultSpec::DELAY);
    assert_eq!(st.channels[0].requested, stamp(ms(200)));
    assert_eq!(st.channels[0].first_applied, Time::default());
    assert_eq!(st.channels[2].fault.mode, FaultSpec::SLIP);
    assert!(st.channels[2].active);
}

/// Request vs applied: requested is stamped when set_fault accepts, while
/// first_applied stays zero until a message passes through the active fault.
#[test]
fn request_and_first_application_are_distinguished() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(
        &FaultSpec {
            bias: 0.1,
            ..FaultSpec::new("imu", FaultSpec::BIAS)
        },
        ms(1000),
    )
    .unwrap();
    let st = inj.status(ms(1200));
    let imu = &st.channels[1];
    assert_eq!(imu.channel, "imu");
    assert!(imu.active);
    assert_eq!(imu.requested, stamp(ms(1000)));
    assert_eq!(imu.first_applied, Time::default());
    assert_eq!(inj.channel("imu").unwrap().first_applied(), None);
    // Messages on other channels do not count as application.
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(1300)),
        ms(1300),
        &mut r,
    )
    .unwrap();
    assert_eq!(inj.channel("imu").unwrap().first_applied(), None);
    inj.push("imu", msg_for(MsgKind::Imu, ms(1500)), ms(1500), &mut r)
        .unwrap();
    assert_eq!(inj.channel("imu").unwrap().first_applied(), Some(ms(1500)));
    inj.push("imu", msg_for(MsgKind::Imu, ms(1600)), ms(1600), &mut r)
        .unwrap();
    assert_eq!(
        inj.status(ms(1600)).channels[1].first_applied,
        stamp(ms(1500))
    );
    assert_eq!(inj.status(ms(1600)).stamp, stamp(ms(1600)));
    assert_eq!(inj.status(ms(1600)).channels[1].messages_in, 2);
}

/// A disabled injector refuses faults, clears the ones set, and is a
/// bit-exact passthrough.
#[test]
fn disabled_injector_changes_nothing() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(&FaultSpec::new("gnss", FaultSpec::DROPOUT), ms(0))
        .unwrap();
    inj.set_enabled(false, ms(50));
    assert!(!inj.status(ms(50)).enabled);
    assert!(matches!(
        inj.set_fault(&FaultSpec::new("imu", FaultSpec::DROPOUT), ms(60)),
        Err(FaultError::Disabled)
    ));
    for k in 1..5u64 {
        for (name, out) in feed_all(&mut inj, ms(100 * k), &mut r) {
            let kind = inj.channel(&name).unwrap().kind();
            assert_eq!(bits(&out[0]), bits(&msg_for(kind, ms(100 * k))), "{name}");
        }
    }
    assert!(inj.status(ms(500)).channels.iter().all(|c| !c.active));
    // A message of the wrong type is refused, not relayed.
    let e = inj
        .push("gnss", msg_for(MsgKind::Imu, ms(0)), ms(0), &mut r)
        .unwrap_err();
    assert!(matches!(e, FaultError::WrongKind { .. }), "{e}");
}

/// Huge finite time parameters (review repro: 1e300 panicked the node in
/// `Duration::from_secs_f64`; 1.8446744073709e19 s was accepted and the next
/// message overflowed `now + delay`). Each is now an `InvalidParameter` that
/// names the field and its maximum, and the injector state is unchanged.
#[test]
fn huge_time_parameters_are_rejected_with_their_maximum() {
    let mut inj = shipped();
    let mut r = rng(1);
    let before = inj.status(ms(10));
    let cases: Vec<(FaultSpec, &str, &str)> = vec![
        (
            FaultSpec {
                delay_s: 1e300,
                ..FaultSpec::new("gnss", FaultSpec::DELAY)
            },
            "delay_s",
            "[0, 60] s",
        ),
        (
            FaultSpec {
                delay_s: 1.8446744073709e19,
                ..FaultSpec::new("gnss", FaultSpec::DELAY)
            },
            "delay_s",
            "[0, 60] s",
        ),
        (
            FaultSpec {
                delay_s: 60.5,
                ..FaultSpec::new("gnss", FaultSpec::DELAY)
            },
            "delay_s",
            "[0, 60] s",
        ),
        (
            FaultSpec {
                jitter_s: 1e300,
                ..FaultSpec::new("imu", FaultSpec::JITTER)
            },
            "jitter_s",
            "[0, 60] s",
        ),
        (
            FaultSpec {
                duration_s: 1e300,
                ..FaultSpec::new("gnss", FaultSpec::DROPOUT)
            },
            "duration_s",
            "[0, 1000000] s",
        ),
        (
            FaultSpec {
                period_s: 1e300,
                duty_cycle: 0.5,
                ..FaultSpec::new("gnss", FaultSpec::DROPOUT)
            },
            "period_s",
            "[0, 1000000] s",
        ),
        (
            FaultSpec {
                bias: 1.0,
                step_at_s: 1e300,
                ..FaultSpec::new("imu", FaultSpec::BIAS)
            },
            "step_at_s",
            "[0, 1000000] s",
        ),
    ];
    for (spec, field, max) in cases {
        let e = inj.set_fault(&spec, ms(10)).unwrap_err();
        assert!(
            matches!(&e, FaultError::InvalidParameter { field: f, .. } if *f == field),
            "{e}"
        );
        let text = e.to_string();
        assert!(text.contains(field) && text.contains(max), "{text}");
        assert_eq!(inj.status(ms(10)), before, "{field}");
    }
    // The channels still pass messages through bit-exactly afterwards.
    for (name, out) in feed_all(&mut inj, ms(20), &mut r) {
        let kind = inj.channel(&name).unwrap().kind();
        assert_eq!(out.len(), 1, "{name}");
        assert_eq!(bits(&out[0]), bits(&msg_for(kind, ms(20))), "{name}");
    }
}

/// The largest accepted values work: a 60 s delay releases the message at
/// exactly received + 60 s, and a 1e6 s transient expires at set + 1e6 s.
#[test]
fn maximum_time_parameters_are_accepted_and_exact() {
    let mut inj = shipped();
    let mut r = rng(1);
    inj.set_fault(
        &FaultSpec {
            delay_s: 60.0,
            ..FaultSpec::new("gnss", FaultSpec::DELAY)
        },
        ms(0),
    )
    .unwrap();
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(100)),
        ms(100),
        &mut r,
    )
    .unwrap();
    // 100 ms + 60 s = 60.1 s: nothing 1 ms before, the message at 60.1 s.
    assert!(inj.poll("gnss", ms(60_099)).unwrap().is_empty());
    assert_eq!(inj.poll("gnss", ms(60_100)).unwrap().len(), 1);
    inj.set_fault(
        &FaultSpec {
            duration_s: 1e6,
            ..FaultSpec::new("imu", FaultSpec::DROPOUT)
        },
        ms(1000),
    )
    .unwrap();
    // expires_at = 1 s + 1e6 s = 1_000_001 s.
    assert_eq!(
        inj.channel("imu")
            .unwrap()
            .activation()
            .unwrap()
            .expires_at(),
        Some(std::time::Duration::from_secs(1_000_001))
    );
}

/// A cleared fault stops affecting the stream: messages a delay still holds
/// are dropped (review: a 1e6 s delay kept its queue after clear_faults), and
/// counted; a message already due at the clear time is still released.
#[test]
fn clear_drops_the_messages_a_fault_still_holds() {
    let mut inj = shipped();
    let mut r = rng(1);
    let delay = |d: f64| FaultSpec {
        delay_s: d,
        ..FaultSpec::new("gnss", FaultSpec::DELAY)
    };
    inj.set_fault(&delay(60.0), ms(0)).unwrap();
    for t in [0, 100, 200] {
        inj.push("gnss", msg_for(MsgKind::NavSatFix, ms(t)), ms(t), &mut r)
            .unwrap();
    }
    assert_eq!(inj.channel("gnss").unwrap().queued(), 3);
    // Next wake-up: the first message, due at 0 + 60 s.
    assert_eq!(
        inj.channel("gnss").unwrap().next_release(),
        Some(ms(60_000))
    );
    inj.clear_faults_at(ms(300));
    let g = inj.channel("gnss").unwrap();
    assert_eq!(g.queued(), 0);
    assert_eq!(g.next_release(), None);
    assert_eq!(g.stats().messages_dropped_on_clear, 3);
    assert_eq!(g.stats().messages_faulted, 3);
    assert!(inj.poll("gnss", ms(61_000)).unwrap().is_empty());
    // After the clear, a new message passes straight through.
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(61_000)),
        ms(61_000),
        &mut r,
    )
    .unwrap();
    let out = inj.poll("gnss", ms(61_000)).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(
        bits(&out[0]),
        bits(&msg_for(MsgKind::NavSatFix, ms(61_000)))
    );

    // Due exactly at the clear time (received 62.0 s + 0.1 s = 62.1 s): kept
    // and released; due after it (62.05 s + 0.1 s = 62.15 s): dropped.
    inj.set_fault(&delay(0.1), ms(62_000)).unwrap();
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(62_000)),
        ms(62_000),
        &mut r,
    )
    .unwrap();
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(62_050)),
        ms(62_050),
        &mut r,
    )
    .unwrap();
    inj.clear_faults_at(ms(62_100));
    let out = inj.poll("gnss", ms(62_200)).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(
        bits(&out[0]),
        bits(&msg_for(MsgKind::NavSatFix, ms(62_000)))
    );
    assert_eq!(
        inj.channel("gnss")
            .unwrap()
            .stats()
            .messages_dropped_on_clear,
        4
    );

    // Replacing a fault drops what the old one holds; expiry too.
    inj.set_fault(&delay(1.0), ms(70_000)).unwrap();
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(70_000)),
        ms(70_000),
        &mut r,
    )
    .unwrap();
    inj.set_fault(&delay(2.0), ms(70_500)).unwrap();
    assert_eq!(inj.channel("gnss").unwrap().queued(), 0);
    inj.set_fault(
        &FaultSpec {
            duration_s: 1.0,
            ..delay(5.0)
        },
        ms(80_000),
    )
    .unwrap();
    inj.push(
        "gnss",
        msg_for(MsgKind::NavSatFix, ms(80_500)),
        ms(80_500),
        &mut r,
    )
    .unwrap();
    // Expired at 81.0 s; the message (due 85.5 s) is dropped at the next poll.
    assert!(inj.poll("gnss", ms(81_100)).unwrap().is_empty());
    let g = inj.channel("gnss").unwrap();
    assert_eq!(g.queued(), 0);
    assert_eq!(g.cleared(), Some(ms(81_000)));
    assert_eq!(g.stats().messages_dropped_on_clear, 6);
}
