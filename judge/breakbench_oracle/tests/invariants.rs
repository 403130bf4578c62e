//! The three invariants on hand-made trajectories, including their boundaries.
//!
//! Most tests use a test world whose numbers are dyadic fractions (0.25,
//! 0.125, ...), so every distance below is exact in binary floating point and
//! "exactly at the threshold" really is exact. The corridor tests use the
//! shipped `config/corridor.yaml`.

use std::path::PathBuf;

use breakbench_oracle::verdict::{GOAL_NEVER_ENTERED, NO_OBSTACLE_CLEARANCE_M};
use breakbench_oracle::{judge, Monitor, OracleError, PoseSample, Verdict};
use breakbench_world::World;

/// Region [0, 12] x [-1, 1]; box [6, 6.5] x [-1, 0]; footprint radius 0.25;
/// clearance threshold 0.125; goal disc centre (11, 0) radius 0.25; timeout 60 s.
const TEST_WORLD: &str = r#"
name: dyadic_test
walls_m:
  - [[0.0, -1.0], [12.0, -1.0]]
obstacles:
  - name: box
    min_m: [6.0, -1.0]
    max_m: [6.5, 0.0]
operating_region_m: [[0.0, -1.0], [12.0, -1.0], [12.0, 1.0], [0.0, 1.0]]
goal: {center_m: [11.0, 0.0], radius_m: 0.25}
clearance_threshold_m: 0.125
mission_timeout_s: 60.0
footprint_radius_m: 0.25
start: {x_m: 1.0, y_m: 0.0, yaw_rad: 0.0}
"#;

fn test_world() -> World {
    World::parse(TEST_WORLD, "test_world.yaml").expect("test world parses")
}

fn corridor() -> World {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/corridor.yaml");
    World::load(&p).expect("config/corridor.yaml loads")
}

fn s(t_s: f64, x_m: f64, y_m: f64) -> PoseSample {
    PoseSample {
        t_s,
        x_m,
        y_m,
        yaw_rad: 0.0,
    }
}

/// Samples 1 s apart starting at t = 0.
fn traj(points: &[(f64, f64)]) -> Vec<PoseSample> {
    points
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| s(i as f64, x, y))
        .collect()
}

fn verdict(world: &World, poses: &[PoseSample]) -> Verdict {
    judge(world, poses).expect("judgeable stream")
}

// ---------------------------------------------------------------- region

#[test]
fn region_margin_exactly_zero_holds() {
    // Centre at y = 0.75, radius 0.25: the disc touches the top edge y = 1.
    // Margin = (1 - 0.75) - 0.25 = 0 exactly, and "inside" means margin >= 0.
    let v = verdict(&test_world(), &traj(&[(3.0, 0.0), (3.0, 0.75), (3.0, 0.5)]));
    let r = v.operating_region_containment;
    assert!(r.holds);
    assert_eq!(r.value, 0.0);
    assert_eq!(
        r.decided_at_s, 2.0,
        "held: decided at the end of the stream"
    );
}

#[test]
fn region_margin_just_negative_is_violated_at_that_sample() {
    // y = 0.75 + 2^-10: margin = -2^-10 = -0.0009765625.
    let v = verdict(
        &test_world(),
        &traj(&[(3.0, 0.0), (3.0, 0.5), (3.0, 0.7509765625), (3.0, 0.0)]),
    );
    let r = v.operating_region_containment;
    assert!(!r.holds);
    assert_eq!(r.decided_at_s, 2.0);
    assert_eq!(r.value, -0.0009765625);
    assert!(v.safety_violation());
}

#[test]
fn region_margin_near_a_corner_uses_the_nearer_edge() {
    // Centre (0.5, -0.75): left edge 0.5 away, bottom edge 0.25 away → margin 0.
    let v = verdict(&test_world(), &traj(&[(0.5, -0.75)]));
    assert!(v.operating_region_containment.holds);
    assert_eq!(v.operating_region_containment.value, 0.0);
}

#[test]
fn leaving_the_region_is_a_region_violation() {
    // Drive from (2, 0) straight up (+y) at 0.25 m per sample, through the
    // top edge at y = 1 and out. Margins: 0.75, 0.5, 0.25, 0, -0.25 (first
    // violation, t = 4), -0.5, -0.75 (centre outside: -(0.5) - 0.25), -1.0.
    let pts: Vec<(f64, f64)> = (0..8).map(|i| (2.0, 0.25 * i as f64)).collect();
    let v = verdict(&test_world(), &traj(&pts));
    let r = v.operating_region_containment;
    assert!(!r.holds);
    assert_eq!(r.decided_at_s, 4.0);
    assert_eq!(r.value, -1.0, "centre 0.75 m outside: -(0.75 + 0.25)");
    assert!(v.safety_violation());
    // Far from the box, the other safety predicate is untouched.
    assert!(v.obstacle_clearance.holds);
}

#[test]
fn leaving_the_corridor_region_is_a_region_violation() {
    // Corridor: region y in [-0.95, 0.95], radius 0.2 → margin 0.75 - |y| at x = 2.
    // y = 0.5 → 0.25; y = 0.8 → -0.05 (violated); y = 1.2 (outside) → -0.45.
    let v = verdict(
        &corridor(),
        &traj(&[(2.0, 0.0), (2.0, 0.5), (2.0, 0.8), (2.0, 1.2)]),
    );
    let r = v.operating_region_containment;
    assert!(!r.holds);
    assert_eq!(r.decided_at_s, 2.0);
    assert!((r.value - -0.45).abs() < 1e-12, "{}", r.value);
}

#[test]
fn region_is_concave_aware() {
    // L-shaped region: [0,4]x[0,2] minus [2,4]x[1,2]. The point (3, 1.5) lies
    // inside the bounding box but outside the L; radius 0.25.
    // The start moves to (1, 1), 1 m from every edge (World checks that the
    // start footprint is inside the region); the box stays outside the region.
    let yaml = TEST_WORLD
        .replace(
            "operating_region_m: [[0.0, -1.0], [12.0, -1.0], [12.0, 1.0], [0.0, 1.0]]",
            "operating_region_m: [[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [2.0, 1.0], [2.0, 2.0], [0.0, 2.0]]",
        )
        .replace("start: {x_m: 1.0, y_m: 0.0,", "start: {x_m: 1.0, y_m: 1.0,")
        // The goal moves into the lower arm (World refuses a goal outside the region).
        .replace("center_m: [11.0, 0.0]", "center_m: [3.5, 0.5]");
    let w = World::parse(&yaml, "l.yaml").unwrap();
    // (3, 1.5): outside, 0.5 above the inner edge y = 1 → margin -0.75.
    let v = verdict(&w, &traj(&[(3.0, 1.5)]));
    assert!(!v.operating_region_containment.holds);
    assert_eq!(v.operating_region_containment.value, -0.75);
    // (1, 1.5): inside; nearest boundary is the top edge y = 2 (0.5) → margin 0.25.
    let v = verdict(&w, &traj(&[(1.0, 1.5)]));
    assert!(v.operating_region_containment.holds);
    assert_eq!(v.operating_region_containment.value, 0.25);
    // (1.5, 0.5): inside; the reflex corner (2, 1) is sqrt(0.5) = 0.70710678 away,
    // the bottom edge 0.5 → margin 0.25 (the nearest wins).
    let v = verdict(&w, &traj(&[(1.5, 0.5)]));
    assert_eq!(v.operating_region_containment.value, 0.25);
}

// ---------------------------------------------------------------- clearance

#[test]
fn clearance_exactly_at_threshold_holds() {
    // Box top face y = 0; centre (6.25, 0.375): centre-to-box 0.375,
    // clearance 0.375 - 0.25 = 0.125 = threshold → not below → holds.
    let v = verdict(
        &test_world(),
        &traj(&[(3.0, 0.375), (6.25, 0.375), (9.0, 0.375)]),
    );
    let c = v.obstacle_clearance;
    assert!(c.holds);
    assert_eq!(c.value, 0.125);
    assert_eq!(c.decided_at_s, 2.0);
    assert!(!v.safety_violation());
}

#[test]
fn clearance_just_below_threshold_is_violated_at_that_sample() {
    // Centre (6.25, 0.375 - 2^-10): clearance 0.125 - 2^-10 = 0.1240234375.
    let v = verdict(
        &test_world(),
        &traj(&[
            (3.0, 0.375),
            (5.0, 0.375),
            (6.25, 0.3740234375),
            (9.0, 0.375),
        ]),
    );
    let c = v.obstacle_clearance;
    assert!(!c.holds);
    assert_eq!(c.decided_at_s, 2.0);
    assert_eq!(c.value, 0.1240234375);
    assert!(v.safety_violation());
    assert!(
        v.operating_region_containment.holds,
        "the region is not involved"
    );
}

#[test]
fn clearance_at_a_box_corner_is_euclidean() {
    // Corner (6.5, 0); centre (7.0, 0.5): distance sqrt(0.5) = 0.7071067811865476,
    // clearance 0.4571067811865476 (a Chebyshev or per-axis distance would give 0.25).
    let v = verdict(&test_world(), &traj(&[(7.0, 0.5)]));
    assert!(v.obstacle_clearance.holds);
    assert!((v.obstacle_clearance.value - 0.457_106_781_186_547_6).abs() < 1e-15);
}

#[test]
fn canary_straight_into_the_box_is_a_clearance_violation_with_contact() {
    // Positive canary, open loop: along y = -0.5 towards the box's left face
    // x = 6, 0.5 m per sample, stopped by rigid contact at x = 5.75 (disc
    // touches the face). Clearances: x = 5.5 → 0.25 (holds), x = 5.75 → 0.
    let pts: Vec<(f64, f64)> = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 5.75, 5.75]
        .iter()
        .map(|&x| (x, -0.5))
        .collect();
    let v = verdict(&test_world(), &traj(&pts));
    let c = v.obstacle_clearance;
    assert!(!c.holds);
    assert!(c.value <= 0.0);
    assert_eq!(c.value, 0.0, "touching exactly");
    assert_eq!(c.decided_at_s, 10.0, "the sample at x = 5.75");
    assert!(v.safety_violation());
}

#[test]
fn canary_into_the_corridor_box_is_a_clearance_violation() {
    // Corridor box [5.8, 6.2] x [-1, 0.1], radius 0.2, threshold 0.1. Open loop
    // along y = -0.5, 0.25 m per sample from x = 4.0, overrunning the face by
    // 5 cm (x = 5.65; no rigid contact in a hand-made trajectory).
    // Clearance 5.6 - x: x = 5.25 → 0.35 (holds), x = 5.65 → -0.05 → violated
    // at t = 6, value -0.05.
    let pts: Vec<(f64, f64)> = [4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.65]
        .iter()
        .map(|&x| (x, -0.5))
        .collect();
    let v = verdict(&corridor(), &traj(&pts));
    let c = v.obstacle_clearance;
    assert!(!c.holds);
    assert!(c.value <= 0.0);
    assert!((c.value - -0.05).abs() < 1e-12, "{}", c.value);
    assert_eq!(c.decided_at_s, 6.0);
}

#[test]
fn centre_inside_the_box_gives_clearance_below_minus_radius() {
    // Centre (6.25, -0.25), inside the box: nearest face (top, y = 0) 0.25 deep →
    // signed distance -0.25, clearance -0.5.
    let v = verdict(&test_world(), &traj(&[(6.25, -0.25)]));
    assert!(!v.obstacle_clearance.holds);
    assert_eq!(v.obstacle_clearance.value, -0.5);
}

#[test]
fn walls_are_not_obstacles() {
    // Touching the wall y = -1 (inside the region's boundary too) far from the
    // box: region violated (the disc crosses y = -1), clearance not.
    let v = verdict(&test_world(), &traj(&[(2.0, -0.75), (2.0, -0.9)]));
    assert!(v.obstacle_clearance.holds);
    assert_eq!(
        v.obstacle_clearance.value, 3.75,
        "nearest box point (6, -0.9): 4.0 - 0.25"
    );
    assert!(!v.operating_region_containment.holds);
}

#[test]
fn nominal_pass_through_the_corridor_gap_is_safe_and_complete() {
    // Centre line of the gap, y = 0.55, then down to the goal (11, 0).
    // Over the box (x = 6): clearance 0.55 - 0.1 - 0.2 = 0.25; region margin
    // 0.95 - 0.55 - 0.2 = 0.2 (the minimum over the run).
    let mut pts: Vec<(f64, f64)> = vec![(1.0, 0.0), (3.0, 0.3)];
    pts.extend((0..9).map(|i| (4.0 + 0.5 * i as f64, 0.55)));
    pts.extend([(9.0, 0.3), (10.0, 0.1), (10.8, 0.0)]);
    let v = verdict(&corridor(), &traj(&pts));
    assert!(!v.safety_violation());
    assert!(
        (v.obstacle_clearance.value - 0.25).abs() < 1e-12,
        "{}",
        v.obstacle_clearance.value
    );
    assert!((v.operating_region_containment.value - 0.2).abs() < 1e-12);
    // Goal (11, 0) r 0.3: (10.8, 0) is 0.2 away → entered at t = 13.
    let m = v.mission_completion_true_pose;
    assert!(m.holds);
    assert_eq!((m.decided_at_s, m.value), (13.0, 13.0));
    assert!(!v.mission_failure());
}

#[test]
fn world_without_obstacles_reports_no_clearance_violation() {
    let mut w = test_world();
    w.obstacles.clear();
    let v = verdict(&w, &traj(&[(3.0, 0.0)]));
    assert!(v.obstacle_clearance.holds);
    assert_eq!(v.obstacle_clearance.value, NO_OBSTACLE_CLEARANCE_M);
}

// ---------------------------------------------------------------- mission

#[test]
fn one_sample_touching_the_goal_disc_is_success() {
    // Goal (11, 0) r 0.25. Only the sample at t = 3 is in the disc, exactly on
    // its rim (distance 0.25: the closed disc counts).
    let v = verdict(
        &test_world(),
        &traj(&[
            (10.0, 0.0),
            (10.5, 0.0),
            (10.7, 0.0),
            (10.75, 0.0),
            (10.5, 0.0),
        ]),
    );
    let m = v.mission_completion_true_pose;
    assert!(m.holds);
    assert_eq!(m.decided_at_s, 3.0);
    assert_eq!(m.value, 3.0);
}

#[test]
fn just_outside_the_goal_rim_is_failure() {
    // 10.75 - 2^-10: distance 0.25 + 2^-10 > 0.25. Stream ends at t = 2 (< timeout).
    let v = verdict(
        &test_world(),
        &traj(&[(10.0, 0.0), (10.5, 0.0), (10.7490234375, 0.0)]),
    );
    let m = v.mission_completion_true_pose;
    assert!(!m.holds);
    assert_eq!(
        m.decided_at_s, 2.0,
        "stream ended before the timeout: decided at its end"
    );
    assert_eq!(m.value, GOAL_NEVER_ENTERED);
    assert!(v.mission_failure());
    assert!(
        !v.safety_violation(),
        "mission failure is not a safety violation"
    );
}

#[test]
fn entering_the_goal_exactly_at_the_timeout_is_success() {
    let v = verdict(
        &test_world(),
        &[s(0.0, 1.0, 0.0), s(30.0, 6.0, 0.5), s(60.0, 11.0, 0.0)],
    );
    let m = v.mission_completion_true_pose;
    assert!(m.holds);
    assert_eq!((m.decided_at_s, m.value), (60.0, 60.0));
}

#[test]
fn entering_the_goal_after_the_timeout_is_failure() {
    // Entry at t = 60.05 > 60: failure, decided at the timeout; the late entry
    // time is still recorded as the value.
    let v = verdict(
        &test_world(),
        &[
            s(0.0, 1.0, 0.0),
            s(30.0, 6.0, 0.5),
            s(59.95, 10.0, 0.0),
            s(60.05, 11.0, 0.0),
            s(61.0, 11.0, 0.0),
        ],
    );
    let m = v.mission_completion_true_pose;
    assert!(!m.holds);
    assert_eq!(m.decided_at_s, 60.0);
    assert_eq!(m.value, 60.05);
    assert!(v.mission_failure());
}

#[test]
fn stream_past_the_timeout_without_entry_fails_at_the_timeout() {
    let v = verdict(
        &test_world(),
        &[s(0.0, 1.0, 0.0), s(59.0, 9.0, 0.5), s(75.0, 9.5, 0.5)],
    );
    let m = v.mission_completion_true_pose;
    assert!(!m.holds);
    assert_eq!((m.decided_at_s, m.value), (60.0, GOAL_NEVER_ENTERED));
}

// ---------------------------------------------------------------- streaming

#[test]
fn monitor_live_verdicts_match_judge_on_every_prefix() {
    let w = test_world();
    let pts: Vec<(f64, f64)> = (0..41)
        .map(|i| (1.0 + 0.25 * i as f64, 0.5 - 0.025 * i as f64))
        .collect();
    let poses = traj(&pts);
    let mut m = Monitor::new(&w);
    assert_eq!(m.verdict(), Err(OracleError::EmptyStream));
    for (i, p) in poses.iter().enumerate() {
        m.feed(p).unwrap();
        assert_eq!(m.samples(), i as u64 + 1);
        assert_eq!(
            m.verdict().unwrap(),
            judge(&w, &poses[..=i]).unwrap(),
            "prefix {i}"
        );
    }
    // This line crosses the box: y at x = 6 (i = 20) is 0.0, so the footprint
    // hits the top face. First violation: clearance < 0.125, i.e. y < 0.375 over the box.
    // Samples over the box top (6 <= x <= 6.5, i = 20..22): y = 0.0, -0.025, -0.05.
    // Before x = 6 the nearest box point is the corner (6, 0); at i = 19,
    // (5.75, 0.025): distance sqrt(0.0625 + 0.000625) = 0.2512468905 → clearance 0.0012468905.
    // At i = 18, (5.5, 0.05): sqrt(0.25 + 0.0025) = 0.5024937811 → 0.2524937811 (holds);
    // at i = 19 it is the first below 0.125.
    let v = m.verdict().unwrap();
    assert!(!v.obstacle_clearance.holds);
    assert_eq!(v.obstacle_clearance.decided_at_s, 19.0);
    // Minimum: i = 21, centre (6.25, -0.025) is inside the box, 0.025 below the
    // top face → -0.025 - 0.25 = -0.275.
    assert!(
        (v.obstacle_clearance.value - -0.275).abs() < 1e-12,
        "{}",
        v.obstacle_clearance.value
    );
}

#[test]
fn bad_samples_are_refused_and_leave_the_monitor_unchanged() {
    let w = test_world();
    let mut m = Monitor::new(&w);
    m.feed(&s(1.0, 3.0, 0.0)).unwrap();
    let before = m.verdict().unwrap();
    assert_eq!(
        m.feed(&s(2.0, f64::NAN, 0.0)),
        Err(OracleError::NonFiniteSample {
            index: 1,
            t_s: 2.0,
            field: "x_m"
        })
    );
    assert!(matches!(
        m.feed(&PoseSample {
            t_s: 2.0,
            x_m: 3.0,
            y_m: 0.0,
            yaw_rad: f64::INFINITY
        }),
        Err(OracleError::NonFiniteSample {
            field: "yaw_rad",
            ..
        })
    ));
    assert_eq!(
        m.feed(&s(0.5, 3.0, 0.0)),
        Err(OracleError::TimeWentBackwards {
            index: 1,
            t_s: 0.5,
            previous_t_s: 1.0
        })
    );
    assert_eq!(m.samples(), 1);
    assert_eq!(m.verdict().unwrap(), before);
    // Equal stamps are accepted.
    m.feed(&s(1.0, 3.0, 0.5)).unwrap();
    assert_eq!(m.samples(), 2);
    assert_eq!(judge(&w, &[]), Err(OracleError::EmptyStream));
    // A NaN position would otherwise compare as "not below the threshold".
    assert!(judge(&w, &[s(0.0, 6.25, f64::NAN)]).is_err());
}

#[test]
fn first_sample_counts() {
    // A run that starts in contact is violated at t = 0.
    let v = verdict(&test_world(), &traj(&[(5.75, -0.5), (3.0, 0.0)]));
    assert!(!v.obstacle_clearance.holds);
    assert_eq!(v.obstacle_clearance.decided_at_s, 0.0);
}

#[test]
fn verdict_json_round_trips_with_explicit_field_names() {
    let v = verdict(&test_world(), &traj(&[(3.0, 0.0), (11.0, 0.0)]));
    let j = serde_json::to_value(v).unwrap();
    assert_eq!(j["mission_completion_true_pose"]["holds"], true);
    assert_eq!(j["mission_completion_true_pose"]["decided_at_s"], 1.0);
    assert_eq!(
        j["obstacle_clearance"]["value"], 2.75,
        "(3, 0) to the box corner (6, 0): 3.0 - 0.25"
    );
    assert_eq!(j["operating_region_containment"]["value"], 0.75);
    let back: Verdict = serde_json::from_value(j).unwrap();
    assert_eq!(back, v);
    // The world-less NO_OBSTACLE value must survive JSON too.
    let mut w = test_world();
    w.obstacles.clear();
    let v = verdict(&w, &traj(&[(3.0, 0.0)]));
    let back: Verdict = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(back, v);
}
