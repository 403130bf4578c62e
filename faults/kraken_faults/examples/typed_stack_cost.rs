//! What a typed channel's fault stack costs per message (REQ-FAULT-STACK):
//! `TypedStack::push` + `poll` on the build machine, in-process (no DDS),
//! for a passthrough (no stage: the message moves by value), a delivery
//! stage (drop p = 0: the CDR round trip without a decode), and a field
//! stage (serialize, decode, set, encode, deserialize).
//!
//!     cargo run --release -p kraken_faults --example typed_stack_cost [messages]
//!
//! Prints ns per message (mean over the run, after a warm-up of 1/10 of it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use breakbench_msgs::TypeRegistry;
use kraken_faults::{FaultRng, HoldLimits, MsgKind, SensorMsg, TypedStack};
use kraken_interfaces::ros::{Imu, LaserScan};
use rand::SeedableRng;

fn run(kind: MsgKind, msg: &SensorMsg, stack_yaml: &str, n: u64) -> f64 {
    let reg = Arc::new(TypeRegistry::builtin());
    let mut s = TypedStack::new("c", kind, reg, HoldLimits::DEFAULT).unwrap();
    if !stack_yaml.is_empty() {
        s.stack_mut()
            .set_stack(stack_yaml, false, Duration::ZERO)
            .unwrap();
    }
    let mut rng = FaultRng::seed_from_u64(1);
    let mut out = 0usize;
    let mut go = |count: u64| {
        let t0 = Instant::now();
        for i in 0..count {
            let now = Duration::from_micros(i);
            s.push(msg.clone(), now, &mut rng);
            out += s.poll(now).len();
        }
        t0.elapsed()
    };
    go(n / 10);
    let el = go(n);
    assert_eq!(out as u64, n + n / 10, "every message delivered");
    el.as_nanos() as f64 / n as f64
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("messages: an integer"))
        .unwrap_or(200_000);
    let imu = SensorMsg::Imu(Imu {
        angular_velocity: kraken_interfaces::ros::Vector3 {
            x: 0.1,
            y: 0.2,
            z: 0.3,
        },
        ..Default::default()
    });
    let scan = SensorMsg::LaserScan(LaserScan {
        range_max: 30.0,
        ranges: vec![1.5; 1080],
        intensities: vec![100.0; 1080],
        ..Default::default()
    });
    // The clone of the input is in every figure; measured alone for reference.
    let clone = |m: &SensorMsg| {
        let t0 = Instant::now();
        let mut k = 0usize;
        for _ in 0..n {
            k += std::hint::black_box(m.clone()).estimated_bytes();
        }
        std::hint::black_box(k);
        t0.elapsed().as_nanos() as f64 / n as f64
    };
    println!("messages per case: {n}");
    for (name, kind, m) in [
        ("Imu", MsgKind::Imu, &imu),
        ("LaserScan 1080 beams", MsgKind::LaserScan, &scan),
    ] {
        let field = match kind {
            MsgKind::Imu => {
                "[{fault: {field: {path: orientation, mode: set, value: [0, 0, 0, 0]}}}]"
            }
            _ => "[{fault: {field: {path: range_max, mode: set, value: 0}}}]",
        };
        println!(
            "{name}: clone alone {:.0} ns; no stage {:.0} ns; drop p=0 (CDR round trip) {:.0} ns; field set {:.0} ns",
            clone(m),
            run(kind, m, "", n),
            run(kind, m, "[{fault: {drop: {probability: 0.0}}}]", n),
            run(kind, m, field, n),
        );
    }
}
