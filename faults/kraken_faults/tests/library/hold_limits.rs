//! Bounded memory per channel: the hold queue's caps in messages and bytes
//! (channels.yaml `hold_limits`), the drop-oldest overflow policy and its
//! status counters, and the byte estimate returning to zero after a drain.

use crate::common;
use common::*;

use kraken_faults::{channel::held_bytes, SensorMsg};
use kraken_faults::{Channel, ChannelsConfig, FaultError, HoldLimits, MsgKind, OverflowPolicy};
use kraken_interfaces::FaultSpec;

fn delay(channel: &str, s: f64) -> FaultSpec {
    FaultSpec {
        delay_s: s,
        ..FaultSpec::new(channel, FaultSpec::DELAY)
    }
}

#[test]
fn message_cap_drops_the_oldest_and_counts_them() {
    let limits = HoldLimits {
        max_held_messages: 100,
        ..HoldLimits::DEFAULT
    };
    let mut c = Channel::new("imu", MsgKind::Imu).with_hold_limits(limits);
    c.set_fault(&delay("imu", 60.0), ms(0)).unwrap();
    let mut r = rng(1);
    for t in 1..=1000 {
        c.push(msg_for(MsgKind::Imu, ms(t)), ms(t), &mut r);
    }
    assert_eq!(c.queued(), 100);
    let st = c.status(ms(1000));
    assert_eq!(st.messages_held, 100);
    assert_eq!(st.messages_dropped_overflow, 900);
    assert_eq!(st.messages_in, 1000);
    // The newest 100 are held: released 60 s later, stamps 901..=1000 ms.
    let out = c.poll(ms(61_000));
    assert_eq!(out.len(), 100);
    assert_eq!(out[0].header().stamp, stamp(ms(901)));
    assert_eq!(out[99].header().stamp, stamp(ms(1000)));
    assert_eq!(c.held_bytes(), 0, "estimate returns to 0 after the drain");
    assert_eq!(c.status(ms(61_000)).bytes_held, 0);
}

fn big_scan(t: u64, n: usize) -> SensorMsg {
    let mut m = msg_for(MsgKind::LaserScan, ms(t));
    if let SensorMsg::LaserScan(l) = &mut m {
        l.ranges = vec![1.0; n];
    }
    m
}

#[test]
fn byte_cap_bounds_held_scans() {
    let limits = HoldLimits {
        max_held_bytes: 10 * 1024 * 1024,
        ..HoldLimits::DEFAULT
    };
    let mut c = Channel::new("scan", MsgKind::LaserScan).with_hold_limits(limits);
    c.set_fault(&delay("scan", 60.0), ms(0)).unwrap();
    let one = held_bytes(&big_scan(0, 262_144));
    assert!(
        one > 1024 * 1024 && one < 1024 * 1024 + 2048,
        "1 MB scan estimated {one}"
    );
    let mut r = rng(2);
    for t in 1..=50 {
        c.push(big_scan(t, 262_144), ms(t), &mut r);
        assert!(c.held_bytes() <= 10 * 1024 * 1024);
    }
    let held = c.queued() as u64;
    assert_eq!(held, 10 * 1024 * 1024 / one);
    assert_eq!(c.held_bytes(), held * one);
    assert_eq!(c.status(ms(50)).messages_dropped_overflow, 50 - held);
    // Clearing drops what is held; the estimate goes back to 0.
    c.clear_at(ms(51));
    assert_eq!(c.queued(), 0);
    assert_eq!(c.held_bytes(), 0);
}

#[test]
fn a_single_message_above_the_byte_cap_still_passes() {
    let limits = HoldLimits {
        max_held_bytes: HoldLimits::MIN_BYTES,
        ..HoldLimits::DEFAULT
    };
    let mut c = Channel::new("scan", MsgKind::LaserScan).with_hold_limits(limits);
    let out = step(&mut c, big_scan(1, 100_000), ms(1), &mut rng(1));
    assert_eq!(
        out.len(),
        1,
        "healthy relay of a 400 kB scan is not dropped"
    );
    assert_eq!(c.status(ms(1)).messages_dropped_overflow, 0);
}

#[test]
fn shipped_defaults_and_per_channel_overrides() {
    let inj = shipped();
    for ch in inj.channels() {
        let want = if ch.name() == "imu" {
            HoldLimits {
                max_held_messages: 20_000,
                ..HoldLimits::DEFAULT
            }
        } else {
            HoldLimits::DEFAULT
        };
        assert_eq!(*ch.hold_limits(), want, "{}", ch.name());
    }
    assert_eq!(HoldLimits::DEFAULT.max_held_messages, 10_000);
    assert_eq!(HoldLimits::DEFAULT.max_held_bytes, 67_108_864);
    let yaml = "hold_limits: {max_held_messages: 500}\nchannels:\n  - name: imu\n    type: sensor_msgs/msg/Imu\n    input_topic: /a\n    output_topic: /b\n    qos: {reliability: best_effort, depth: 10}\n    hold_limits: {max_held_bytes: 1000000}\n  - name: gnss\n    type: sensor_msgs/msg/NavSatFix\n    input_topic: /c\n    output_topic: /d\n    qos: {reliability: best_effort, depth: 10}\n";
    let cfg = ChannelsConfig::parse(yaml, "ch.yaml").unwrap();
    let imu = cfg.hold_limits_of(&cfg.channels[0]);
    assert_eq!(
        imu,
        HoldLimits {
            max_held_messages: 500,
            max_held_bytes: 1_000_000,
            overflow: OverflowPolicy::DropOldest
        }
    );
    assert_eq!(
        cfg.hold_limits_of(&cfg.channels[1]).max_held_bytes,
        67_108_864
    );

    let cases = [
        (
            yaml.replace("max_held_messages: 500", "max_held_messages: 0"),
            1,
            "hold_limits.max_held_messages",
        ),
        (
            yaml.replace("max_held_bytes: 1000000", "max_held_bytes: 10"),
            8,
            "channels[0].hold_limits.max_held_bytes",
        ),
        (
            yaml.replace(
                "{max_held_bytes: 1000000}",
                "{max_held_bytes: 1000000, overflow: drop_newest}",
            ),
            8,
            "channels[0].hold_limits.overflow",
        ),
        (
            yaml.replace("max_held_messages: 500", "max_held_msgs: 500"),
            1,
            "hold_limits",
        ),
    ];
    for (text, line, field) in cases {
        let e = ChannelsConfig::parse(&text, "ch.yaml").unwrap_err();
        match &e {
            FaultError::Config {
                line: l, field: f, ..
            } => {
                assert_eq!(*l, line, "{e}");
                assert!(f.starts_with(field), "{e}");
            }
            other => panic!("{other}"),
        }
    }
}
