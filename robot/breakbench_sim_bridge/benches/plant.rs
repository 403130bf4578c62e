//! Plant + lidar throughput: simulated seconds per wall second.
//!
//! Each iteration steps the plant for 1 s of sim time (100 steps of 10 ms,
//! 10 scans of 360 beams, 50 odometry and 50 truth messages) with a constant
//! command, on `config/corridor.yaml` and `config/robot.yaml`. Criterion's
//! time per iteration `T` gives the real-time factor `1 s / T`, printed at
//! the end. Run: `cargo bench -p breakbench_sim_bridge`.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use breakbench_sim_bridge::{Plant, PlantConfig};
use breakbench_world::World;
use criterion::{criterion_group, Criterion};

fn inputs() -> (World, PlantConfig) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config");
    (
        World::load(&dir.join("corridor.yaml")).unwrap(),
        PlantConfig::load(&dir.join("robot.yaml")).unwrap(),
    )
}

/// Steps `plant` for one simulated second; returns the number of scan beams produced.
fn one_sim_second(plant: &mut Plant) -> usize {
    let mut beams = 0;
    for _ in 0..100 {
        let out = plant.step();
        if let Some(s) = out.scan() {
            beams += s.ranges.len();
        }
        black_box(&out.sensors);
        black_box(&out.truth);
    }
    beams
}

fn bench(c: &mut Criterion) {
    let (world, cfg) = inputs();
    // Free driving: 0.1 m/s, 0.5 rad/s is a circle of radius 0.2 m about (1, 0.2),
    // footprint never touches the walls (no contact path).
    c.bench_function("plant+lidar 1 sim-s, free", |b| {
        let mut p = Plant::new(&world, &cfg, 1, &["scan", "odom"]).unwrap();
        p.set_cmd_vel(0.1, 0.5);
        b.iter(|| black_box(one_sim_second(&mut p)))
    });
    // Pushing against the box: every step takes the contact (bisection) path.
    c.bench_function("plant+lidar 1 sim-s, blocked", |b| {
        let mut p = Plant::new(&world, &cfg, 1, &["scan", "odom"]).unwrap();
        p.set_cmd_vel(0.5, 0.0);
        while !p.in_contact() {
            p.step();
        }
        b.iter(|| black_box(one_sim_second(&mut p)))
    });
}

/// A plain wall-clock measurement of the same loop, printed as a real-time
/// factor (criterion reports time per iteration only).
fn real_time_factor() {
    let (world, cfg) = inputs();
    for (name, v, w) in [("free", 0.1, 0.5), ("blocked", 0.5, 0.0)] {
        let mut p = Plant::new(&world, &cfg, 1, &["scan", "odom"]).unwrap();
        p.set_cmd_vel(v, w);
        let sim_s = 600u32;
        let t0 = Instant::now();
        for _ in 0..sim_s {
            black_box(one_sim_second(&mut p));
        }
        let wall = t0.elapsed();
        println!(
            "real-time factor ({name}): {sim_s} sim-s in {:.3} wall-s = {:.0}x",
            wall.as_secs_f64(),
            f64::from(sim_s) / wall.as_secs_f64()
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}

fn main() {
    benches();
    real_time_factor();
    Criterion::default().configure_from_args().final_summary();
}
