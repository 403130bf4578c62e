//! The field bugs of public issue trackers, reproduced as field faults.

use super::*;

/// navigation2 #2506: a LaserScan stamped `sec = -1`.
#[test]
fn bug_nav2_2506_scan_stamp_sec_minus_one() {
    let t = ty(SCAN);
    let mut v = scan(360);
    let mut f = fault(SCAN, "{path: header.stamp.sec, mode: set, value: -1}");
    assert!(f.apply(&mut v, ms(0), &mut rng(1)));
    let v = wire(&t, &v);
    assert_eq!(get(&v, &["header", "stamp", "sec"]), &Value::I32(-1));
    assert_eq!(
        get(&v, &["header", "stamp", "nanosec"]),
        &Value::U32(500_000_000)
    );
    assert_eq!(ranges(&v), ranges(&scan(360)));
    // The same through the whole stamp, as a map.
    let mut w = scan(360);
    fault(
        SCAN,
        "{path: header.stamp, mode: set, value: {sec: -1, nanosec: 0}}",
    )
    .apply(&mut w, ms(0), &mut rng(1));
    assert_eq!(get(&w, &["header", "stamp", "sec"]), &Value::I32(-1));
    assert_eq!(get(&w, &["header", "stamp", "nanosec"]), &Value::U32(0));
}

/// navigation2 PR #3276: `range_max = 0` with every range 0 (a stack of two
/// set faults).
#[test]
fn bug_nav2_3276_range_max_zero_and_all_ranges_zero() {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {field: {path: range_max, mode: set, value: 0}}\n\
         - fault: {field: {path: 'ranges[*]', mode: set, value: 0}}\n",
    )
    .unwrap();
    let mut s = FaultStack::build(&specs, &reg(), SCAN).unwrap();
    let out = s.apply(scan(360), ms(0), &mut rng(1));
    assert_eq!(out.len(), 1);
    let v = wire(&ty(SCAN), &out[0].payload);
    assert_eq!(get(&v, &["range_max"]), &Value::F32(0.0));
    assert_eq!(ranges(&v), &[0.0f32; 360][..]);
    assert_eq!(get(&v, &["range_min"]), &Value::F32(0.1));
    assert_eq!(out[0].touched_by, vec![0, 1]);
}

/// slam_toolbox #426: a scan whose beam count differs from the first scan's.
#[test]
fn bug_slam_toolbox_426_beam_count_differs_from_the_first_scan() {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {field: {path: ranges, mode: truncate, length: 359}}\n  window: {at_s: 0.1}\n\
         - fault: {field: {path: intensities, mode: truncate, length: 359}}\n  window: {at_s: 0.1}\n",
    )
    .unwrap();
    let mut s = FaultStack::build(&specs, &reg(), SCAN).unwrap();
    s.set(ms(0));
    let first = s.apply(scan(360), ms(0), &mut rng(1)).remove(0);
    assert_eq!(ranges(&first.payload).len(), 360);
    assert!(first.touched_by.is_empty());
    let second = s.apply(scan(360), ms(100), &mut rng(1)).remove(0);
    assert_eq!(ranges(&second.payload).len(), 359);
    assert_eq!(get(&second.payload, &["intensities"]).seq_len(), Some(359));
    // angle_increment still says 360 beams: the inconsistency of the bug.
    assert_eq!(
        get(&second.payload, &["angle_increment"]),
        get(&scan(360), &["angle_increment"])
    );
    assert_eq!(wire(&ty(SCAN), &second.payload), second.payload);
    assert_eq!(
        s.stats(),
        vec![
            StageStats {
                changed: 1,
                ..Default::default()
            };
            2
        ]
    );
}

/// robot_localization #313: an Imu orientation of all zeros.
#[test]
fn bug_robot_localization_313_imu_orientation_all_zeros() {
    for value in ["[0, 0, 0, 0]", "{x: 0, y: 0, z: 0, w: 0}"] {
        let mut f = fault(
            IMU,
            &format!("{{path: orientation, mode: set, value: {value}}}"),
        );
        let mut v = imu();
        assert!(f.apply(&mut v, ms(0), &mut rng(1)));
        let v = wire(&ty(IMU), &v);
        for c in ["x", "y", "z", "w"] {
            assert_eq!(
                get(&v, &["orientation", c]),
                &Value::F64(0.0),
                "{value} {c}"
            );
        }
        assert_eq!(get(&v, &["angular_velocity", "z"]), &Value::F64(1.0));
    }
}

/// robot_localization #325: odometry pitched 10° at start-up.
#[test]
fn bug_robot_localization_325_odometry_pitched_10_degrees() {
    let half = 10f64.to_radians() / 2.0;
    let (y, w) = (half.sin(), half.cos());
    assert_eq!(y, 0.08715574274765817);
    assert_eq!(w, 0.9961946980917455);
    let spec = FieldFaultSpec {
        value: Some(SetValue::List(vec![
            SetValue::Float(0.0),
            SetValue::Float(y),
            SetValue::Float(0.0),
            SetValue::Float(w),
        ])),
        ..FieldFaultSpec::new("pose.pose.orientation", FieldMode::Set)
    };
    let mut f = FieldFault::build(&spec, &reg(), "nav_msgs/Odometry").unwrap();
    let mut v = odom();
    assert!(f.apply(&mut v, ms(0), &mut rng(1)));
    let v = wire(&ty(ODOM), &v);
    let q = get(&v, &["pose", "pose", "orientation"]);
    assert_eq!(q.field("x"), Some(&Value::F64(0.0)));
    assert_eq!(q.field("y"), Some(&Value::F64(y)));
    assert_eq!(q.field("z"), Some(&Value::F64(0.0)));
    assert_eq!(q.field("w"), Some(&Value::F64(w)));
    // The pitch it encodes: asin(2(wy − zx)) = 10°.
    let pitch = (2.0 * (w * y)).asin().to_degrees();
    assert!((pitch - 10.0).abs() < 1e-12, "{pitch}");
    assert_eq!(
        get(&v, &["pose", "pose", "position", "x"]),
        &Value::F64(2.0)
    );
}
