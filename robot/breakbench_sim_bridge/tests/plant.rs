//! Plant, lidar and config tests on the shipped `config/corridor.yaml` and
//! `config/robot.yaml`, with golden values computed by hand in the comments.

use std::f64::consts::{FRAC_PI_2, PI};
use std::path::{Path, PathBuf};
use std::time::Duration;

use breakbench_sim_bridge::{Lidar, Plant, PlantConfig, PlantOutputs, SimError};
use breakbench_world::world::Pose2;
use breakbench_world::World;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn cfg_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../config")
        .join(name)
}

/// The sensors the corridor's navigator consumes (the campaign's wiring).
const WIRED: &[&str] = &["scan", "odom"];

fn corridor() -> World {
    World::load(&cfg_path("corridor.yaml")).unwrap()
}

fn noiseless() -> PlantConfig {
    let mut c = PlantConfig::default();
    c.lidar.range_noise_stddev_m = 0.0;
    c.odometry.wheel_speed_noise_ratio = 0.0;
    c
}

/// Runs `steps` steps with a constant command, returning every output.
fn run(p: &mut Plant, v: f64, w: f64, steps: usize) -> Vec<PlantOutputs> {
    p.set_cmd_vel(v, w);
    (0..steps).map(|_| p.step()).collect()
}

#[test]
fn shipped_robot_yaml_is_the_default() {
    let c = PlantConfig::load(&cfg_path("robot.yaml")).unwrap();
    assert_eq!(c, PlantConfig::default());
}

#[test]
fn unknown_field_and_bad_rate_name_file_line_field() {
    let text = std::fs::read_to_string(cfg_path("robot.yaml")).unwrap();
    let bad = text.replace("  beams: 360", "  beams: 360\n  colour: red");
    let e = PlantConfig::parse(&bad, "robot.yaml").unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.field.as_str()),
        ("robot.yaml", "lidar.colour")
    );
    let line = bad.lines().position(|l| l.contains("colour")).unwrap() + 1;
    assert_eq!(e.line, line);
    let bad = text.replace("  rate_hz: 10.0", "  rate_hz: 7.0"); // 142857142.86 ns
    let e = PlantConfig::parse(&bad, "robot.yaml").unwrap_err();
    assert_eq!(e.field, "lidar.rate_hz");
    let missing = text.replace("truth_rate_hz: 50.0", "");
    let e = PlantConfig::parse(&missing, "robot.yaml").unwrap_err();
    assert!(e.message.contains("missing field `truth_rate_hz`"), "{e}");
}

#[test]
fn straight_line_distance_with_accel_limit() {
    // 0.5 m/s for 4 s from rest, a = 1 m/s^2: ramp 0.5 s covers 0.5^2 / 2 = 0.125 m,
    // then 3.5 s at 0.5 m/s = 1.75 m: 1.875 m = 0.5*4 - 0.5*0.5^2/1.0. The step integrates
    // the mean of the old and new wheel speed, exact for the linear ramp (which ends
    // on a step boundary: 0.5 / (1.0 * 0.01) = 50 steps), so only rounding remains.
    let mut p = Plant::new(&corridor(), &noiseless(), 1, WIRED).unwrap();
    let out = run(&mut p, 0.5, 0.0, 400);
    assert_eq!(p.now(), Duration::from_secs(4));
    let q = p.true_pose();
    assert!((q.x_m - (1.0 + 1.875)).abs() < 1e-12, "{q:?}");
    assert_eq!((q.y_m, q.yaw_rad), (0.0, 0.0));
    // Noise-free odometry equals the true displacement; the last odom twist is 0.5 m/s.
    let o = out.iter().rev().find_map(|o| o.odom().cloned()).unwrap();
    assert!((o.pose.pose.position.x - 1.875).abs() < 1e-12);
    assert_eq!(o.twist.twist.linear.x, 0.5);
    assert!(p.contacts().is_empty());
}

#[test]
fn command_is_clamped_to_velocity_limits() {
    // Command 2 m/s is clamped to 0.5: after 2 s, 0.5*2 - 0.125 = 0.875 m.
    let mut p = Plant::new(&corridor(), &noiseless(), 1, WIRED).unwrap();
    run(&mut p, 2.0, 0.0, 200);
    assert!((p.true_pose().x_m - 1.875).abs() < 1e-12);
    assert_eq!(p.wheel_velocity(), (0.5, 0.0));
}

#[test]
fn rotation_in_place() {
    // 1.5 rad/s for 2 s from rest, alpha = 3 rad/s^2: 1.5*2 - 0.5*1.5^2/3 = 2.625 rad;
    // the centre does not move (v = 0 gives a zero chord exactly).
    let mut p = Plant::new(&corridor(), &noiseless(), 1, WIRED).unwrap();
    let out = run(&mut p, 0.0, 1.5, 200);
    let q = p.true_pose();
    assert!((q.yaw_rad - 2.625).abs() < 1e-12, "{q:?}");
    assert_eq!((q.x_m, q.y_m), (1.0, 0.0));
    // Another 1 s: 2.625 + 1.5 = 4.125 rad, wrapped to 4.125 - 2 pi = -2.158185307...
    run(&mut p, 0.0, 1.5, 100);
    assert!((p.true_pose().yaw_rad - (4.125 - 2.0 * PI)).abs() < 1e-12);
    // Odometry (noise-free) turned the same; its quaternion yaw agrees.
    let o = out.last().unwrap().odom().unwrap();
    assert!((o.pose.pose.orientation.yaw() - 2.625).abs() < 1e-12);
}

#[test]
fn contact_with_box_stops_truth_but_not_odometry() {
    // From (1, 0) facing +x the disc (r = 0.2) meets the box face x = 5.8 with its
    // centre at x = 5.6: 4.6 m = 0.125 m ramp + 4.475 m at 0.5 m/s = 0.5 + 8.95 s
    // -> contact at t = 9.45 s. After 20 s the wheels have covered
    // 0.5*20 - 0.125 = 9.875 m, so odometry reads x = 9.875 while the truth stays at 5.6.
    let world = corridor();
    let mut p = Plant::new(&world, &noiseless(), 7, WIRED).unwrap();
    let out = run(&mut p, 0.5, 0.0, 2000);
    let q = p.true_pose();
    let (clear, _) = p.lidar().geometry().clearance(q.x_m, q.y_m);
    assert!(
        clear >= world.footprint_radius_m - 1e-9,
        "penetration: {clear}"
    );
    assert!((q.x_m - 5.6).abs() < 1e-9, "{q:?}");
    assert_eq!(p.contacts().len(), 1, "one onset: {:?}", p.contacts());
    let c = &p.contacts()[0];
    assert_eq!(c.with, "box");
    assert!((c.x_m - 5.6).abs() < 1e-9 && c.y_m == 0.0, "{c:?}");
    assert!((c.t.as_secs_f64() - 9.45).abs() <= 0.01, "{c:?}");
    assert!(p.in_contact());
    let odom = out.last().unwrap().odom().unwrap();
    assert!((odom.pose.pose.position.x - 9.875).abs() < 1e-9, "{odom:?}");
    let truth = out.last().unwrap().truth.as_ref().unwrap();
    assert_eq!(truth.header.frame_id, "world");
    assert_eq!(truth.pose.pose.position.x, q.x_m);
    assert!(
        truth.twist.twist.linear.x.abs() < 1e-9,
        "blocked: achieved speed ~0"
    );
    // Every truth sample along the way kept the clearance.
    for o in out.iter().filter_map(|o| o.truth.as_ref()) {
        let (c, _) = p
            .lidar()
            .geometry()
            .clearance(o.pose.pose.position.x, o.pose.pose.position.y);
        assert!(c >= world.footprint_radius_m - 1e-9);
    }
}

#[test]
fn contact_with_wall_then_turn_away() {
    // Start (1, 0) facing +y: the disc meets wall y = 1 (walls_m[2]) at centre y = 0.8.
    let mut world = corridor();
    world.start = Pose2 {
        x_m: 1.0,
        y_m: 0.0,
        yaw_rad: FRAC_PI_2,
    };
    let mut p = Plant::new(&world, &noiseless(), 7, WIRED).unwrap();
    run(&mut p, 0.5, 0.0, 300);
    let q = p.true_pose();
    assert!(q.y_m <= 0.8 && q.y_m > 0.8 - 1e-9, "{q:?}");
    assert!((q.x_m - 1.0).abs() < 1e-12);
    assert_eq!(p.contacts()[0].with, "walls_m[2]");
    // Blocked, it can still turn. Stop (1 s), turn at -1.5 rad/s for 1.5 s
    // (-(1.5*1.5 - 0.5*1.5^2/3) = -1.875 rad) and stop again (braking adds
    // -1.5^2/(2*3) = -0.375 rad): yaw = pi/2 - 2.25. Then 0.3 m/s for 1 s from rest
    // covers 0.3 - 0.5*0.3^2/1 = 0.255 m along that heading, away from the wall.
    run(&mut p, 0.0, 0.0, 100);
    run(&mut p, 0.0, -1.5, 150);
    run(&mut p, 0.0, 0.0, 100);
    let yaw = FRAC_PI_2 - 2.25;
    assert!(
        (p.true_pose().yaw_rad - yaw).abs() < 1e-12,
        "{:?}",
        p.true_pose()
    );
    let y0 = p.true_pose().y_m;
    run(&mut p, 0.3, 0.0, 100);
    let r = p.true_pose();
    assert!((r.y_m - (y0 + 0.255 * yaw.sin())).abs() < 1e-12, "{r:?}");
    assert!((r.x_m - (1.0 + 0.255 * yaw.cos())).abs() < 1e-12, "{r:?}");
    assert!(!p.in_contact());
    assert_eq!(p.contacts().len(), 1);
}

#[test]
fn passing_a_corner_too_close_is_a_contact() {
    // Drive diagonally (yaw -pi/4) on a line passing the box corner (6.2, 0.1) at
    // h = 0.199999 m < r: the disc would clip the corner by 1e-6 m. Step-end samples
    // 5 mm apart see the clip only inside a window of 2 sqrt(r^2 - h^2) = 1.26 mm, so
    // a sampled check usually misses it; the swept check must stop the robot at the
    // corner (ends at distance r from it) and record a contact with the box.
    let h = 0.199999;
    let k = std::f64::consts::FRAC_1_SQRT_2;
    let mut world = corridor();
    // 0.5025 m before the closest approach along the line: from rest (0.125 m ramp
    // in 50 steps, then 5 mm per step) the step ends fall 2.5 mm before and after
    // it, both outside the clip window, so only a swept check can see the clip.
    world.start = Pose2 {
        x_m: 6.2 + (h - 0.5025) * k,
        y_m: 0.1 + (h + 0.5025) * k,
        yaw_rad: -PI / 4.0,
    };
    let mut p = Plant::new(&world, &noiseless(), 1, WIRED).unwrap();
    p.set_cmd_vel(0.5, 0.0);
    let mut prev = p.true_pose();
    let mut min_path = f64::INFINITY;
    for _ in 0..400 {
        p.step();
        let q = p.true_pose();
        min_path = min_path.min(
            p.lidar()
                .geometry()
                .swept_clearance(prev.x_m, prev.y_m, q.x_m, q.y_m)
                .0,
        );
        prev = q;
    }
    assert!(min_path >= world.footprint_radius_m - 1e-9, "{min_path}");
    assert_eq!(p.contacts().len(), 1, "{:?}", p.contacts());
    assert_eq!(p.contacts()[0].with, "box");
    // Stopped before the closest approach: distance to the corner is r, at
    // t = -sqrt(r^2 - h^2) = -6.32e-4 m along the line.
    let q = p.true_pose();
    assert!(
        ((q.x_m - 6.2).hypot(q.y_m - 0.1) - 0.2).abs() < 1e-9,
        "{q:?}"
    );
    let along = (q.x_m - 6.2) * k - (q.y_m - 0.1) * k;
    assert!((along + (0.04f64 - h * h).sqrt()).abs() < 1e-6, "{along}");
}

#[test]
fn start_in_collision_is_rejected() {
    let mut world = corridor();
    world.start = Pose2 {
        x_m: 5.7,
        y_m: 0.0,
        yaw_rad: 0.0,
    }; // 0.1 m from the box face
    match Plant::new(&world, &PlantConfig::default(), 0, WIRED) {
        Err(SimError::StartInCollision {
            with, clearance_m, ..
        }) => {
            assert_eq!(with, "box");
            assert!((clearance_m - 0.1).abs() < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    let mut c = PlantConfig::default();
    c.drive.max_linear_m_s = 25.0; // 0.25 m per 10 ms step > radius 0.2
    assert!(matches!(
        Plant::new(&corridor(), &c, 0, WIRED),
        Err(SimError::StepTooCoarse { .. })
    ));
}

#[test]
fn lidar_ranges_against_known_walls() {
    // From (1, 0) facing +x, 360 beams from -pi: beam 180 is angle 0, beam 270 is +pi/2,
    // beam 90 is -pi/2, beam 0 is -pi.
    let world = corridor();
    let cfg = noiseless();
    let lidar = Lidar::new(&world, &cfg.lidar).unwrap();
    let pose = world.start;
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let s = lidar.scan(&pose, Duration::from_millis(100), &mut rng);
    // Angle 0: the box face x = 5.8 is in the way (box spans y in [-1, 0.1]): 4.8 m.
    assert!((s.ranges[180] - 4.8).abs() < 1e-6, "{}", s.ranges[180]);
    assert_eq!(s.ranges[270], 1.0); // wall y = 1
    assert_eq!(s.ranges[90], 1.0); // wall y = -1
    assert_eq!(s.ranges[0], 1.0); // wall x = 0
                                  // Without the box, angle 0 reaches the far wall x = 12: 11 m.
    let mut open = world.clone();
    open.obstacles.clear();
    let s2 = Lidar::new(&open, &cfg.lidar)
        .unwrap()
        .scan(&pose, Duration::ZERO, &mut rng);
    assert_eq!(s2.ranges[180], 11.0);
    // Beam 45 (angle -3 pi/4) from (1, 0): hits y = -1 at 1/sin(pi/4) = sqrt 2.
    assert!((s.ranges[45] as f64 - 2f64.sqrt()).abs() < 1e-6);
    // Message fields (sensor_msgs/LaserScan semantics).
    assert_eq!(s.header.frame_id, "base_scan");
    assert_eq!(s.header.stamp.as_nanos(), 100_000_000);
    assert_eq!(s.angle_min, -PI as f32);
    assert_eq!(s.angle_increment, (2.0 * PI / 360.0) as f32);
    assert_eq!(s.angle_max, (-PI + 359.0 * 2.0 * PI / 360.0) as f32);
    assert_eq!((s.scan_time, s.time_increment), (0.1, 0.0));
    assert_eq!((s.range_min, s.range_max), (0.12, 12.0));
    assert_eq!(s.ranges.len(), 360);
    assert!(s.intensities.is_empty());
}

#[test]
fn no_return_or_beyond_range_max_is_inf() {
    let mut cfg = noiseless().lidar;
    // A world with only the wall x = 0: beams facing +x see nothing.
    let mut world = corridor();
    world.obstacles.clear();
    world.walls_m.retain(|w| w[0][0] == 0.0 && w[1][0] == 0.0);
    assert_eq!(world.walls_m.len(), 1);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let s = Lidar::new(&world, &cfg)
        .unwrap()
        .scan(&world.start, Duration::ZERO, &mut rng);
    assert_eq!(s.ranges[180], f32::INFINITY);
    assert_eq!(s.ranges[0], 1.0);
    // In the full corridor with range_max 10 m, the 11 m beam above the box is +inf.
    cfg.range_max_m = 10.0;
    let world = corridor();
    let pose = Pose2 {
        x_m: 1.0,
        y_m: 0.5,
        yaw_rad: 0.0,
    };
    let s = Lidar::new(&world, &cfg)
        .unwrap()
        .scan(&pose, Duration::ZERO, &mut rng);
    assert_eq!(s.ranges[180], f32::INFINITY);
    // range_min 1.2 m: the 0.5 m beam to wall y = 1 is "too close": -inf (REP-117).
    cfg.range_min_m = 1.2;
    let s = Lidar::new(&world, &cfg)
        .unwrap()
        .scan(&pose, Duration::ZERO, &mut rng);
    assert_eq!(s.ranges[270], f32::NEG_INFINITY);
}

#[test]
fn ray_caster_agrees_with_parry2d() {
    use parry2d::math::Vector;
    use parry2d::query::{Ray, RayCast};
    use parry2d::shape::{Cuboid, Segment};
    let world = corridor();
    let lidar = Lidar::new(&world, &noiseless().lidar).unwrap();
    let walls: Vec<Segment> = world
        .walls_m
        .iter()
        .map(|w| {
            Segment::new(
                Vector::new(w[0][0] as f32, w[0][1] as f32),
                Vector::new(w[1][0] as f32, w[1][1] as f32),
            )
        })
        .collect();
    let b = &world.obstacles[0];
    let half = Vector::new(
        ((b.max_m[0] - b.min_m[0]) / 2.0) as f32,
        ((b.max_m[1] - b.min_m[1]) / 2.0) as f32,
    );
    let centre = Vector::new(
        ((b.max_m[0] + b.min_m[0]) / 2.0) as f32,
        ((b.max_m[1] + b.min_m[1]) / 2.0) as f32,
    );
    let cuboid = Cuboid::new(half);
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut checked = 0;
    while checked < 200 {
        let pose = Pose2 {
            x_m: rng.random_range(0.3..11.7),
            y_m: rng.random_range(-0.7..0.7),
            yaw_rad: rng.random_range(-PI..PI),
        };
        if lidar.geometry().clearance(pose.x_m, pose.y_m).0 < 0.2 {
            continue;
        }
        checked += 1;
        for i in (0..360).step_by(7) {
            let a = pose.yaw_rad + lidar.beam_angle(i);
            let o = Vector::new(pose.x_m as f32, pose.y_m as f32);
            let d = Vector::new(a.cos() as f32, a.sin() as f32);
            let mut best = f32::INFINITY;
            for s in &walls {
                if let Some(t) = s.cast_local_ray(&Ray::new(o, d), 100.0, true) {
                    best = best.min(t);
                }
            }
            if let Some(t) = cuboid.cast_local_ray(&Ray::new(o - centre, d), 100.0, true) {
                best = best.min(t);
            }
            let mine = lidar.true_range(&pose, i);
            // parry2d is f32: at grazing incidence its error reaches ~1e-4 m (pose
            // (11.2097, 0.1302, 1.4376) beam 273: parry 10.769998, exact closed form
            // (1 - y) / sin(a) = 10.769875, ours 10.769875). 1 mm still catches a
            // wrong segment, box edge or beam angle.
            assert!(
                (mine as f32 - best).abs() < 1e-3,
                "pose {pose:?} beam {i}: {mine} vs parry {best}"
            );
        }
    }
}

#[test]
fn fan_cast_equals_per_beam_cast() {
    // The scan's angular-culling fan cast must give exactly the brute-force
    // per-beam result, including odd beam counts and angle_min offsets.
    let world = corridor();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for (beams, angle_min) in [(360u32, -PI), (361, -PI), (7, 0.3), (1000, 2.0)] {
        let mut cfg = noiseless().lidar;
        cfg.beams = beams;
        cfg.angle_min_rad = angle_min;
        let lidar = Lidar::new(&world, &cfg).unwrap();
        for _ in 0..50 {
            let pose = Pose2 {
                x_m: rng.random_range(0.2..11.8),
                y_m: rng.random_range(-0.8..0.8),
                yaw_rad: rng.random_range(-PI..PI),
            };
            if lidar.geometry().clearance(pose.x_m, pose.y_m).0 < 0.0 {
                continue; // inside the box
            }
            let s = lidar.scan(&pose, Duration::ZERO, &mut rng);
            for (i, r) in s.ranges.iter().enumerate() {
                let t = lidar.true_range(&pose, i);
                let want = if t > cfg.range_max_m {
                    f32::INFINITY
                } else if t < cfg.range_min_m {
                    f32::NEG_INFINITY
                } else {
                    t as f32
                };
                assert_eq!(*r, want, "beams {beams} pose {pose:?} beam {i}");
            }
        }
    }
}

#[test]
fn sensor_rates_are_exact() {
    // 1 s = 100 steps of 10 ms: 10 scans (every 100 ms), 50 odometry and 50 truth (every 20 ms).
    let mut p = Plant::new(&corridor(), &PlantConfig::default(), 3, WIRED).unwrap();
    let out = run(&mut p, 0.2, 0.1, 100);
    let scans: Vec<i64> = out
        .iter()
        .filter_map(|o| o.scan())
        .map(|s| s.header.stamp.as_nanos())
        .collect();
    assert_eq!(scans, (1..=10).map(|k| k * 100_000_000).collect::<Vec<_>>());
    let odom: Vec<_> = out.iter().filter_map(|o| o.odom()).collect();
    assert_eq!(odom.len(), 50);
    assert_eq!(odom[0].header.stamp.as_nanos(), 20_000_000);
    assert_eq!(
        (
            odom[0].header.frame_id.as_str(),
            odom[0].child_frame_id.as_str()
        ),
        ("odom", "base_link")
    );
    let truth = out.iter().filter(|o| o.truth.is_some()).count();
    assert_eq!(truth, 50);
    assert_eq!(p.now(), Duration::from_secs(1));
}

#[test]
fn determinism_and_seed_dependence() {
    let world = corridor();
    let cfg = PlantConfig::default();
    let go = |seed| {
        let mut p = Plant::new(&world, &cfg, seed, WIRED).unwrap();
        run(&mut p, 0.4, 0.2, 300)
    };
    let (a, b, c) = (go(11), go(11), go(12));
    assert_eq!(a, b);
    let scans = |o: &[PlantOutputs]| {
        o.iter()
            .filter_map(|x| x.scan().cloned())
            .collect::<Vec<_>>()
    };
    assert_ne!(scans(&a)[0].ranges, scans(&c)[0].ranges);
    let odom = |o: &[PlantOutputs]| {
        o.iter()
            .filter_map(|x| x.odom().cloned())
            .collect::<Vec<_>>()
    };
    assert_ne!(odom(&a).last().unwrap().pose, odom(&c).last().unwrap().pose);
    // The truth does not depend on the noise seed.
    let truth = |o: &[PlantOutputs]| o.iter().filter_map(|x| x.truth.clone()).collect::<Vec<_>>();
    assert_eq!(truth(&a), truth(&c));
}

#[test]
fn noise_has_the_declared_spread_and_separate_streams() {
    // Range noise: a stationary robot's beam 270 (wall at 1.0 m) over 100 scans has
    // sample stddev ~0.01 m (100 * 360 draws; check the one beam's 100 values within 30 %).
    let world = corridor();
    let mut p = Plant::new(&world, &PlantConfig::default(), 5, WIRED).unwrap();
    let out = run(&mut p, 0.0, 0.0, 1000);
    let r: Vec<f64> = out
        .iter()
        .filter_map(|o| o.scan())
        .map(|s| s.ranges[270] as f64)
        .collect();
    assert_eq!(r.len(), 100);
    let mean = r.iter().sum::<f64>() / 100.0;
    let sd = (r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 99.0).sqrt();
    assert!(
        (mean - 1.0).abs() < 0.004 && (sd - 0.01).abs() < 0.003,
        "mean {mean} sd {sd}"
    );
    // Changing the wheel noise does not change the scan noise (separate streams).
    let mut cfg = PlantConfig::default();
    cfg.odometry.wheel_speed_noise_ratio = 0.05;
    let mut q = Plant::new(&world, &cfg, 5, WIRED).unwrap();
    let out2 = run(&mut q, 0.0, 0.0, 1000);
    let s1: Vec<_> = out.iter().filter_map(|o| o.scan().cloned()).collect();
    let s2: Vec<_> = out2.iter().filter_map(|o| o.scan().cloned()).collect();
    assert_eq!(s1, s2);
    // Wheel noise: driving straight at 0.5 m/s for 4 s, the odometry error is a random
    // walk of 400 steps, per step sd = 0.5 * 0.01 / sqrt 2 * 0.01 s: total sd
    // ~ 3.5e-5 * 20 = 7e-4 m; check it is nonzero and below 10 sd.
    let mut p = Plant::new(&world, &PlantConfig::default(), 9, WIRED).unwrap();
    let out = run(&mut p, 0.5, 0.0, 400);
    let o = out.last().unwrap().odom().unwrap();
    let err = o.pose.pose.position.x - 1.875;
    assert!(err != 0.0 && err.abs() < 7e-3, "{err}");
}

/// Every declared sensor is emitted at its rate as `(channel, message)`
/// pairs in the fixed order scan, odom, gnss, imu; a sensor nobody wires is
/// not computed, and wiring GNSS and IMU changes no scan or odometry value
/// (own streams).
#[test]
fn wired_sensors_only_and_in_a_fixed_order() {
    let world = corridor();
    let cfg = PlantConfig {
        gnss: PlantConfig::default()
            .gnss
            .map(|g| breakbench_sim_bridge::GnssConfig {
                horizontal_noise_stddev_m: 0.5,
                ..g
            }),
        imu: PlantConfig::default()
            .imu
            .map(|i| breakbench_sim_bridge::ImuConfig {
                gyro_noise_stddev_rad_s: 0.01,
                ..i
            }),
        ..PlantConfig::default()
    };
    let all = cfg.sensor_channels();
    assert_eq!(all, vec!["scan", "odom", "gnss", "imu"]);
    let mut p = Plant::new(&world, &cfg, 4, &all).unwrap();
    let out = run(&mut p, 0.3, 0.2, 100);
    let count = |c: &str| out.iter().filter(|o| o.get(c).is_some()).count();
    assert_eq!(
        [count("scan"), count("odom"), count("gnss"), count("imu")],
        [10, 50, 10, 100]
    );
    // At t = 100 ms every sensor is due: the fixed order.
    let names: Vec<&str> = out[9].sensors.iter().map(|(c, _)| *c).collect();
    assert_eq!(names, ["scan", "odom", "gnss", "imu"]);
    let fix = out[9].gnss().unwrap();
    assert_eq!(fix.header.frame_id, "gnss_link");
    assert_eq!(out[9].imu().unwrap().header.frame_id, "imu_link");
    // The fix is near the true position (0.5 m noise), converted at the datum.
    let d = world.datum.unwrap();
    let enu = breakbench_world::geodesy::LocalEnu::new(d);
    let t = out[9].truth.as_ref().unwrap().pose.pose.position;
    let e = enu.from_geodetic(fix.latitude, fix.longitude, fix.altitude);
    assert!((e[0] - t.x).hypot(e[1] - t.y) < 3.0, "{e:?} vs {t:?}");

    let mut q = Plant::new(&world, &cfg, 4, WIRED).unwrap();
    let out2 = run(&mut q, 0.3, 0.2, 100);
    assert!(out2.iter().all(|o| o.gnss().is_none() && o.imu().is_none()));
    let pick = |o: &[breakbench_sim_bridge::PlantOutputs], c: &str| {
        o.iter()
            .filter_map(|x| x.get(c).cloned())
            .collect::<Vec<_>>()
    };
    assert_eq!(pick(&out, "scan"), pick(&out2, "scan"));
    assert_eq!(pick(&out, "odom"), pick(&out2, "odom"));
    // Scan alone: odometry not integrated, no odom message.
    let mut r = Plant::new(&world, &cfg, 4, &["scan"]).unwrap();
    let out3 = run(&mut r, 0.3, 0.2, 100);
    assert_eq!(pick(&out, "scan"), pick(&out3, "scan"));
    assert!(out3.iter().all(|o| o.odom().is_none()));
    assert_eq!(
        r.odom_pose(),
        Pose2 {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0
        }
    );
}

#[test]
fn unknown_or_undeclared_sensors_and_a_missing_datum_are_refused() {
    let world = corridor();
    let e = Plant::new(&world, &PlantConfig::default(), 0, &["lidar2"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "channel 'lidar2' is wired, but the plant simulates no such sensor (declared sensors: scan, odom, gnss, imu)"
    );
    let no_gnss = PlantConfig {
        gnss: None,
        ..PlantConfig::default()
    };
    let e = Plant::new(&world, &no_gnss, 0, &["gnss"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "channel 'gnss' is wired, but the robot file declares no 'gnss' section (declared sensors: scan, odom, imu)"
    );
    let flat = World {
        datum: None,
        ..world.clone()
    };
    assert!(matches!(
        Plant::new(&flat, &PlantConfig::default(), 0, &["gnss"]),
        Err(SimError::NoDatum { .. })
    ));
    // Not wired, no datum needed.
    Plant::new(&flat, &PlantConfig::default(), 0, WIRED).unwrap();
}

#[test]
fn step_into_reused_buffers_equals_step() {
    // The run loop's step_into, with its buffers kept across steps, yields
    // exactly step()'s outputs (messages, ground truth and when it is due).
    let cfg = PlantConfig::default();
    let mut a = Plant::new(&corridor(), &cfg, 9, WIRED).unwrap();
    let mut b = a.clone();
    let (mut sensors, mut truth) = (Vec::new(), Default::default());
    for k in 0..400 {
        let w = if k < 200 { 0.4 } else { -0.7 };
        a.set_cmd_vel(0.3, w);
        b.set_cmd_vel(0.3, w);
        let out = a.step();
        let due = b.step_into(&mut sensors, &mut truth);
        assert_eq!(out.sensors, sensors, "step {k}");
        assert_eq!(out.truth.as_ref(), due.then_some(&truth), "step {k}");
    }
}

/// The in-process plant's ground truth after `n` steps of a constant
/// command `(v m/s, ω rad/s)` from the start pose, seed `seed`, every
/// declared sensor on (what `sim_bridge` builds): the pose a
/// `simulation_interfaces` client must read after StepSimulation(`n`)
/// (scripts/interop.sh phase 16 reads the `simif_expect:` line; issue 29).
/// `BREAKBENCH_SIMIF_EXPECT="n v w seed"` sets the case (default
/// "150 0.3 0.2 1").
#[test]
fn simif_expected_pose_after_n_steps() {
    let case = std::env::var("BREAKBENCH_SIMIF_EXPECT").unwrap_or("150 0.3 0.2 1".into());
    let f: Vec<&str> = case.split_whitespace().collect();
    assert_eq!(
        f.len(),
        4,
        "BREAKBENCH_SIMIF_EXPECT='{case}': want 'n v w seed'"
    );
    let n: usize = f[0].parse().unwrap();
    let (v, w): (f64, f64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
    let seed: u64 = f[3].parse().unwrap();
    let robot = PlantConfig::load(&cfg_path("robot.yaml")).unwrap();
    let pose_after = || {
        let mut p = Plant::new(&corridor(), &robot, seed, &robot.sensor_channels()).unwrap();
        run(&mut p, v, w, n);
        (p.now(), p.true_pose(), p.true_twist())
    };
    let (t, pose, (tv, tw)) = pose_after();
    // Deterministic: a second plant gives the same bits.
    let (t2, pose2, _) = pose_after();
    assert_eq!(
        (t, pose.x_m.to_bits(), pose.yaw_rad.to_bits()),
        (t2, pose2.x_m.to_bits(), pose2.yaw_rad.to_bits())
    );
    assert_eq!(t, Duration::from_millis(10 * n as u64));
    println!(
        "simif_expect: t_ns={} x={:e} y={:e} yaw={:e} v={:e} w={:e}",
        t.as_nanos(),
        pose.x_m,
        pose.y_m,
        pose.yaw_rad,
        tv,
        tw
    );
    if case == "150 0.3 0.2 1" {
        // 1.5 s from (1, 0, 0): accelerating to 0.3 m/s in 0.3 s (1 m/s²)
        // and to 0.2 rad/s in 0.07 s (3 rad/s²), then turning steadily:
        // yaw = 0.2 (1.5 - 0.07/2) = 0.293 rad, the path an arc of
        // 0.3 (1.5 - 0.15) = 0.405 m.
        assert!((pose.yaw_rad - 0.293).abs() < 2e-3, "{pose:?}");
        assert!((pose.x_m - 1.0 - 0.405).abs() < 0.03, "{pose:?}");
        assert!(pose.y_m > 0.03 && pose.y_m < 0.08, "{pose:?}");
        assert_eq!((tv, tw), (0.3, 0.2));
    }
}
