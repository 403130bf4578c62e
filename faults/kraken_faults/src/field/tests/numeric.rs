//! Numeric modes (bias, ramp, scale, saturation, stuck, garbage) and
//! sequence lengths (truncate, extend, alternate) on real messages.

use super::*;

#[test]
fn bias_scale_saturation_on_real_values() {
    let mut v = imu();
    assert!(
        fault(IMU, "{path: angular_velocity.z, mode: bias, bias: 0.25}").apply(
            &mut v,
            ms(0),
            &mut rng(1)
        )
    );
    assert_eq!(get(&v, &["angular_velocity", "z"]), &Value::F64(1.25));
    assert_eq!(get(&v, &["angular_velocity", "x"]), &Value::F64(0.1));

    // Sign flip of every angular velocity component through the sub-message's
    // fields... one path per field: x.
    let mut v = imu();
    fault(
        IMU,
        "{path: angular_velocity.x, mode: scale, scale_factor: -1}",
    )
    .apply(&mut v, ms(0), &mut rng(1));
    assert_eq!(get(&v, &["angular_velocity", "x"]), &Value::F64(-0.1));

    // Scale a lidar sector (f32 arithmetic in f64, rounded once).
    let mut v = scan(360);
    fault(
        SCAN,
        "{path: 'ranges[10:12]', mode: scale, scale_factor: 2}",
    )
    .apply(&mut v, ms(0), &mut rng(1));
    let r = ranges(&v);
    assert_eq!(r[9], 1.09);
    assert_eq!(r[10], (f64::from(1.1f32) * 2.0) as f32);
    assert_eq!(r[11], (f64::from(1.11f32) * 2.0) as f32);
    assert_eq!(r[12], 1.12);

    // Saturation: ranges above 2 m clipped, NaN passes.
    let mut v = scan(200);
    if let Some(Value::F32Seq(r)) = v.field_mut("ranges") {
        r[0] = f32::NAN;
    }
    fault(
        SCAN,
        "{path: 'ranges[*]', mode: saturation, min: 0, max: 2}",
    )
    .apply(&mut v, ms(0), &mut rng(1));
    let r = ranges(&v);
    assert!(r[0].is_nan());
    assert_eq!(r[99], 1.99);
    assert_eq!(r[100], 2.0);
    assert_eq!(r[199], 2.0);

    // Integer fields: saturated at the range, not wrapped.
    let mut v = scan(4);
    fault(
        SCAN,
        "{path: header.stamp.sec, mode: scale, scale_factor: 1e9}",
    )
    .apply(&mut v, ms(0), &mut rng(1));
    assert_eq!(get(&v, &["header", "stamp", "sec"]), &Value::I32(i32::MAX));
    let mut v = scan(4);
    fault(SCAN, "{path: header.stamp.sec, mode: bias, bias: -100}").apply(
        &mut v,
        ms(0),
        &mut rng(1),
    );
    assert_eq!(get(&v, &["header", "stamp", "sec"]), &Value::I32(-88));

    // f32 overflow saturates at f32::MAX (a finite input stays finite).
    let mut v = scan(4);
    fault(SCAN, "{path: range_max, mode: scale, scale_factor: 1e9}").apply(
        &mut v,
        ms(0),
        &mut rng(1),
    );
    assert_eq!(get(&v, &["range_max"]), &Value::F32(3e10));
    let mut f = fault(SCAN, "{path: range_max, mode: scale, scale_factor: 1e9}");
    for _ in 0..4 {
        f.apply(&mut v, ms(0), &mut rng(1));
    }
    assert_eq!(get(&v, &["range_max"]), &Value::F32(f32::MAX));

    // A scale of 1 changes nothing.
    let mut v = imu();
    assert!(!fault(
        IMU,
        "{path: angular_velocity.z, mode: scale, scale_factor: 1}"
    )
    .apply(&mut v, ms(0), &mut rng(1)));
    assert_eq!(v, imu());
}

#[test]
fn bias_ramp_grows_from_the_set_time() {
    let mut f = fault(
        ODOM,
        "{path: pose.pose.position.x, mode: bias_ramp, bias_rate_per_s: 0.5}",
    );
    f.on_set(Duration::from_secs(10));
    let at = |f: &mut FieldFault, t: Duration| {
        let mut v = odom();
        f.apply(&mut v, t, &mut rng(1));
        get(&v, &["pose", "pose", "position", "x"]).clone()
    };
    assert_eq!(at(&mut f, Duration::from_secs(10)), Value::F64(2.0));
    assert_eq!(at(&mut f, Duration::from_secs(12)), Value::F64(3.0));
    assert_eq!(at(&mut f, ms(14_500)), Value::F64(4.25));
    // Without on_set: from the first message.
    let mut g = fault(
        ODOM,
        "{path: pose.pose.position.x, mode: bias_ramp, bias_rate_per_s: -1}",
    );
    assert_eq!(at(&mut g, Duration::from_secs(5)), Value::F64(2.0));
    assert_eq!(at(&mut g, Duration::from_secs(8)), Value::F64(-1.0));
}

#[test]
fn stuck_freezes_the_selected_leaves_at_the_first_message() {
    let mut f = fault(IMU, "{path: angular_velocity.z, mode: stuck}");
    let mut first = imu();
    assert!(!f.apply(&mut first, ms(0), &mut rng(1)));
    assert_eq!(first, imu());
    let mut later = imu();
    set(&mut later, &["angular_velocity", "z"], Value::F64(-3.0));
    set(&mut later, &["angular_velocity", "x"], Value::F64(7.0));
    assert!(f.apply(&mut later, ms(100), &mut rng(1)));
    assert_eq!(get(&later, &["angular_velocity", "z"]), &Value::F64(1.0));
    assert_eq!(get(&later, &["angular_velocity", "x"]), &Value::F64(7.0));

    // A whole sub-message.
    let mut f = fault(IMU, "{path: orientation, mode: stuck}");
    f.apply(&mut imu(), ms(0), &mut rng(1));
    let mut later = imu();
    set(&mut later, &["orientation", "z"], Value::F64(0.6));
    set(&mut later, &["orientation", "w"], Value::F64(0.8));
    assert!(f.apply(&mut later, ms(100), &mut rng(1)));
    assert_eq!(get(&later, &["orientation"]), get(&imu(), &["orientation"]));

    // A whole sequence: length included.
    let mut f = fault(SCAN, "{path: ranges, mode: stuck}");
    f.apply(&mut scan(360), ms(0), &mut rng(1));
    let mut later = scan(200);
    assert!(f.apply(&mut later, ms(100), &mut rng(1)));
    assert_eq!(ranges(&later), ranges(&scan(360)));

    // Elements: a longer later scan keeps its extra beams.
    let mut f = fault(SCAN, "{path: 'ranges[*]', mode: stuck}");
    let mut s = scan(2);
    f.apply(&mut s, ms(0), &mut rng(1));
    let mut later = scan(4);
    if let Some(Value::F32Seq(r)) = later.field_mut("ranges") {
        r.iter_mut().for_each(|x| *x = 5.0);
    }
    f.apply(&mut later, ms(100), &mut rng(1));
    assert_eq!(ranges(&later), &[1.0, 1.01, 5.0, 5.0]);
}

#[test]
fn garbage_draws_from_the_passed_rng_only() {
    let spec = "{path: 'ranges[*]', mode: garbage, garbage_min: 0, garbage_max: 10}";
    let run = |seed| {
        let mut f = fault(SCAN, spec);
        let mut v = scan(360);
        assert!(f.apply(&mut v, ms(0), &mut rng(seed)));
        ranges(&v).to_vec()
    };
    let a = run(7);
    assert_eq!(a, run(7), "same seed, same draws");
    assert_ne!(a, run(8));
    assert!(a.iter().all(|x| (0.0..=10.0).contains(x)));
    let mut bits: Vec<u32> = a.iter().map(|x| x.to_bits()).collect();
    bits.sort_unstable();
    bits.dedup();
    assert!(bits.len() > 300, "values are random, not constant");
    // The draws are the typed garbage mode's: the same generator state gives
    // the same first value.
    let g = crate::faults::garbage::Garbage {
        min: 0.0,
        max: 10.0,
        allow_non_finite: false,
    };
    assert_eq!(a[0], g.draw(&mut rng(7)) as f32);
    // Integer fields: rounded toward zero, within bounds.
    let mut f = fault(
        SCAN,
        "{path: header.stamp.sec, mode: garbage, garbage_min: -5, garbage_max: 5}",
    );
    let mut r = rng(3);
    for k in 0..50 {
        let mut v = scan(1);
        f.apply(&mut v, ms(k), &mut r);
        let Value::I32(s) = get(&v, &["header", "stamp", "sec"]) else {
            panic!()
        };
        assert!((-5..=5).contains(s));
    }
}

// ---------------------------------------------------------------- sequence lengths

#[test]
fn truncate_extend_and_alternate_lengths() {
    let t = ty(SCAN);
    let mut v = scan(360);
    assert!(
        fault(SCAN, "{path: ranges, mode: truncate, length: 300}").apply(
            &mut v,
            ms(0),
            &mut rng(1)
        )
    );
    assert_eq!(ranges(&v), &ranges(&scan(360))[..300]);
    assert_eq!(get(&v, &["intensities"]).seq_len(), Some(360));
    assert_eq!(wire(&t, &v), v, "a truncated scan still encodes");
    // Shorter than the length: unchanged.
    let mut v = scan(100);
    assert!(
        !fault(SCAN, "{path: ranges, mode: truncate, length: 300}").apply(
            &mut v,
            ms(0),
            &mut rng(1)
        )
    );
    assert_eq!(v, scan(100));

    let mut v = scan(3);
    assert!(
        fault(SCAN, "{path: ranges, mode: extend, length: 5, fill: nan}").apply(
            &mut v,
            ms(0),
            &mut rng(1)
        )
    );
    let r = ranges(&v);
    assert_eq!(&r[..3], &[1.0, 1.01, 1.02]);
    assert!(r[3].is_nan() && r[4].is_nan() && r.len() == 5);
    let mut v = scan(3);
    fault(SCAN, "{path: intensities, mode: extend, length: 4}").apply(&mut v, ms(0), &mut rng(1));
    assert_eq!(
        get(&v, &["intensities"]),
        &Value::F32Seq(vec![100.0, 100.0, 100.0, 0.0])
    );

    // alternate_length: 360, 359, 360, 359, … beams.
    let mut f = fault(
        SCAN,
        "{path: ranges, mode: alternate_length, lengths: [360, 359]}",
    );
    let lens: Vec<usize> = (0..4)
        .map(|k| {
            let mut v = scan(360);
            f.apply(&mut v, ms(k * 100), &mut rng(1));
            ranges(&v).len()
        })
        .collect();
    assert_eq!(lens, [360, 359, 360, 359]);

    // A sequence of messages: extended with zero messages.
    let d = ty("diagnostic_msgs/msg/DiagnosticArray");
    let mut v = Value::zero(&d);
    fault(
        "diagnostic_msgs/DiagnosticArray",
        "{path: status, mode: extend, length: 2, fill: {name: ghost, level: 2}}",
    )
    .apply(&mut v, ms(0), &mut rng(1));
    let Value::Seq(st) = v.field("status").unwrap() else {
        panic!()
    };
    assert_eq!(st.len(), 2);
    assert_eq!(st[1].field("name"), Some(&Value::String("ghost".into())));
    assert_eq!(st[1].field("level"), Some(&Value::U8(2)));
    assert_eq!(wire(&d, &v), v);
}

/// One engine: a typed stage and the field fault of the same mode run the
/// same value model, so on the same input (Imu `angular_velocity.z`, rad/s)
/// they give the same bits, edge values included: f64::MAX × −2 saturates
/// at −f64::MAX on both, NaN and ±inf pass as the model treats them.
#[test]
fn typed_stage_and_field_fault_give_the_same_bits() {
    use kraken_interfaces::FaultSpec;
    let xs = [
        0.25,
        -3.5,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NAN,
        -0.0,
    ];
    let cases = [
        (
            FaultSpec {
                scale_factor: -2.0,
                ..FaultSpec::new("imu", FaultSpec::SCALE)
            },
            "{path: angular_velocity.z, mode: scale, scale_factor: -2}",
        ),
        (
            FaultSpec {
                saturation_limit: 0.2,
                ..FaultSpec::new("imu", FaultSpec::SATURATION)
            },
            "{path: angular_velocity.z, mode: saturation, min: -0.2, max: 0.2}",
        ),
        (
            FaultSpec {
                bias: 1e9,
                ..FaultSpec::new("imu", FaultSpec::BIAS)
            },
            "{path: angular_velocity.z, mode: bias, bias: 1e9}",
        ),
    ];
    let mut seen = Vec::new();
    for (spec, text) in &cases {
        for x in xs {
            let mut stage = crate::build_stage(spec, "imu", crate::MsgKind::Imu).unwrap();
            let mut m = kraken_interfaces::ros::Imu::default();
            m.angular_velocity.z = x;
            let out = stage.apply(crate::SensorMsg::Imu(m), ms(0), &mut rng(1));
            let crate::SensorMsg::Imu(typed) = &out[0].1 else {
                panic!("{out:?}")
            };
            let mut v = imu();
            set(&mut v, &["angular_velocity", "z"], Value::F64(x));
            fault(IMU, text).apply(&mut v, ms(0), &mut rng(1));
            let Value::F64(field) = get(&v, &["angular_velocity", "z"]) else {
                panic!("{v:?}")
            };
            assert_eq!(
                typed.angular_velocity.z.to_bits(),
                field.to_bits(),
                "{text} on {x}"
            );
            seen.push(*field);
        }
    }
    // Scale: 0.25 × −2, MAX × −2 saturated; saturation: 0.25 → 0.2, inf →
    // 0.2; bias: 0.25 + 1e9.
    assert_eq!(
        (seen[0], seen[2], seen[4]),
        (-0.5, -f64::MAX, f64::NEG_INFINITY)
    );
    assert_eq!((seen[7], seen[11]), (0.2, 0.2));
    assert_eq!(seen[14], 0.25 + 1e9);
}
