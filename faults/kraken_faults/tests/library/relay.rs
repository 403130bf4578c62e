//! `Channel::relay` (straight-through delivery) against `push` + `poll`.

use std::time::Duration;

use kraken_faults::{channel_rng, Channel, LatencyProbe, MsgKind, SensorMsg};
use kraken_interfaces::ros::{Odometry, Time};
use kraken_interfaces::FaultSpec;

fn odom(t: Duration, x: f64) -> SensorMsg {
    let mut o = Odometry::default();
    o.header.stamp = Time::from_nanos(t.as_nanos() as i64);
    o.pose.pose.position.x = x;
    SensorMsg::Odometry(o)
}

#[test]
fn relay_delivers_what_push_and_poll_deliver() {
    let jittered = FaultSpec {
        jitter_s: 0.04,
        ..FaultSpec::new("odom", FaultSpec::JITTER)
    };
    let probe = || Box::new(LatencyProbe::default());
    let mut a = Channel::new("odom", MsgKind::Odometry).with_probe(probe());
    let mut b = Channel::new("odom", MsgKind::Odometry).with_probe(probe());
    let (mut ra, mut rb) = (channel_rng(5, "odom"), channel_rng(5, "odom"));
    let (mut got_a, mut got_b) = (Vec::new(), Vec::new());
    for k in 0..200u64 {
        let now = Duration::from_millis(10 * k);
        if k == 40 {
            a.set_fault(&jittered, now).unwrap();
            b.set_fault(&jittered, now).unwrap();
        }
        if k == 120 {
            a.clear_at(now);
            b.clear_at(now);
        }
        // A message every other step; the steps between only release.
        let msg = (k % 2 == 0).then(|| odom(now, k as f64));
        if let Some(m) = msg.clone() {
            a.push(m, now, &mut ra);
        }
        got_a.extend(a.poll(now).into_iter().map(|m| (now, m)));
        b.relay(msg.as_ref(), now, &mut rb, |m| got_b.push((now, m.clone())));
    }
    assert_eq!(got_a.len(), got_b.len());
    assert!(got_a.len() > 80, "{}", got_a.len());
    assert_eq!(got_a, got_b);
    assert_eq!(a.stats(), b.stats());
    assert!(a.stats().messages_dropped_on_clear > 0 || a.stats().messages_faulted > 0);
    let (pa, pb) = (a.probes()[0].value(), b.probes()[0].value());
    assert_eq!(pa, pb);
    assert!(pa.unwrap() > 0.0);
}
