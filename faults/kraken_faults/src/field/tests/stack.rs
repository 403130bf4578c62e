//! Tests of the fault stack (order, counters, provenance, windows, raw
//! CDR payloads, append/remove) on real messages.

use super::*;

fn stack(type_name: &str, yaml: &str) -> FaultStack {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
    FaultStack::build(&specs, &reg(), type_name).unwrap()
}

#[test]
fn stack_order_matters_bias_then_scale_differs_from_scale_then_bias() {
    let bias = "- fault: {field: {path: angular_velocity.z, mode: bias, bias: 0.5}}\n";
    let scale = "- fault: {field: {path: angular_velocity.z, mode: scale, scale_factor: 2}}\n";
    let z = |yaml: String| {
        let mut s = stack(IMU, &yaml);
        let out = s.apply(imu(), ms(0), &mut rng(1));
        get(&out[0].payload, &["angular_velocity", "z"]).clone()
    };
    // z = 1.0: (1 + 0.5)·2 = 3, 1·2 + 0.5 = 2.5.
    assert_eq!(z(format!("{bias}{scale}")), Value::F64(3.0));
    assert_eq!(z(format!("{scale}{bias}")), Value::F64(2.5));
    let s = stack(IMU, &format!("{bias}{scale}"));
    assert_eq!(
        s.describe(),
        ["0: bias angular_velocity.z", "1: scale angular_velocity.z"]
    );
}

#[test]
fn stack_delay_drop_bias_counts_per_stage_and_records_provenance() {
    let yaml = "\
- fault: {delay: {delay_s: 0.1}}
- fault: {drop: {probability: 0.05}}
- fault: {field: {path: angular_velocity.z, mode: bias, bias: 0.02}}
  window: {at_s: 1.0}
";
    let mut s = stack(IMU, yaml);
    assert_eq!(
        s.describe(),
        [
            "0: delay 0.1 s",
            "1: drop p=0.05",
            "2: bias angular_velocity.z [from 1 s]"
        ]
    );
    s.set(Duration::ZERO);
    let mut r = rng(42);
    let mut delivered = 0u64;
    let mut delivered_late = 0u64;
    for k in 0..2000u64 {
        let now = ms(k); // 1 kHz for 2 s: the bias acts from message 1000 on.
        for d in s.apply(imu(), now, &mut r) {
            delivered += 1;
            assert_eq!(d.delay, ms(100));
            let z = get(&d.payload, &["angular_velocity", "z"]).clone();
            if k >= 1000 {
                delivered_late += 1;
                assert_eq!(z, Value::F64(1.02));
                assert_eq!(d.touched_by, vec![0, 2]);
            } else {
                assert_eq!(z, Value::F64(1.0));
                assert_eq!(d.touched_by, vec![0]);
            }
        }
    }
    let st = s.stats();
    assert_eq!(st[0].changed, 2000);
    assert_eq!(st[1].withheld, 2000 - delivered);
    // 5 % of 2000: 100, s.e. 9.7.
    assert!((60..=140).contains(&st[1].withheld), "{:?}", st[1]);
    assert_eq!(st[2].changed, delivered_late);
    assert!(delivered_late > 900, "{delivered_late}");
    assert_eq!(st[2].withheld + st[2].added, 0);

    // Same seed, same stream: determinism.
    let mut s2 = stack(IMU, yaml);
    s2.set(Duration::ZERO);
    let mut r2 = rng(42);
    for k in 0..2000u64 {
        s2.apply(imu(), ms(k), &mut r2);
    }
    assert_eq!(s2.stats(), st);
}

#[test]
fn stack_duplicate_then_field_changes_each_copy_and_windows_expire() {
    let yaml = "\
- fault: {duplicate: {copies: 2}}
- fault: {field: {path: 'ranges[0]', mode: set, value: -1}}
  window: {duration_s: 0.5}
";
    let mut s = stack(SCAN, yaml);
    s.set(Duration::ZERO);
    let out = s.apply(scan(4), ms(500), &mut rng(1));
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].touched_by, vec![1]);
    assert_eq!(out[1].touched_by, vec![0, 1]);
    assert_eq!(out[2].touched_by, vec![0, 1]);
    assert!(out.iter().all(|d| ranges(&d.payload)[0] == -1.0));
    // After the window (end inclusive): the field stage no longer acts.
    let out = s.apply(scan(4), ms(501), &mut rng(1));
    assert!(out.iter().all(|d| ranges(&d.payload)[0] == 1.0));
    assert_eq!(
        s.stats(),
        [
            StageStats {
                added: 4,
                ..Default::default()
            },
            StageStats {
                changed: 3,
                ..Default::default()
            }
        ]
    );
}

#[test]
fn stack_on_raw_bytes_drop_and_delay_and_intermittent_window() {
    let yaml = "\
- fault: {drop: {probability: 1.0}}
  window: {period_s: 1.0, duty_cycle: 0.5}
- fault: {delay: {delay_s: 0.25}}
";
    let mut s = stack(SCAN, yaml);
    s.set(Duration::ZERO);
    let bytes = encode(&ty(SCAN), &scan(8)).unwrap();
    let mut r = rng(1);
    // Dropped on [0, 0.5) of each second, delayed by 0.25 s otherwise.
    for (t, kept) in [
        (0, false),
        (499, false),
        (500, true),
        (999, true),
        (1000, false),
    ] {
        let out = s.apply(bytes.clone(), ms(t), &mut r);
        if kept {
            assert_eq!(out.len(), 1, "{t}");
            assert_eq!(out[0].payload, bytes);
            assert_eq!(out[0].delay, ms(250));
            assert_eq!(out[0].touched_by, vec![1]);
        } else {
            assert!(out.is_empty(), "{t}");
        }
    }
    assert_eq!(s.stats()[0].withheld, 3);
    assert_eq!(s.stats()[1].changed, 2);
    // A data stage on raw bytes passes them unchanged, uncounted.
    let mut d = stack(
        SCAN,
        "- fault: {field: {path: range_max, mode: set, value: 0}}\n",
    );
    let out = d.apply(bytes.clone(), ms(0), &mut r);
    assert_eq!(out[0].payload, bytes);
    assert_eq!(d.stats()[0], StageStats::default());
}

#[test]
fn stack_refusals_name_the_stage() {
    let err = |yaml: &str| {
        let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
        FaultStack::build(&specs, &reg(), SCAN)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("- fault: {delay: {delay_s: 0.1}}\n- fault: {drop: {probability: 1.5}}\n"),
        "fault stack stage 1: invalid parameter probability = 1.5 for mode 'drop': \
         must be a probability in [0, 1]"
    );
    assert_eq!(
        err("- fault: {delay: {delay_s: 61}}\n"),
        "fault stack stage 0: invalid parameter delay_s = 61 for mode 'delay': \
         must be finite and in [0, 60] s"
    );
    assert_eq!(
        err("- fault: {field: {path: ranges, mode: bias, bias: 1}}\n"),
        "fault stack stage 0: field fault 'bias' on path 'ranges' of sensor_msgs/msg/LaserScan: \
         'ranges' is float32[], a whole array: mode 'bias' acts on elements: write 'ranges[*]' \
         or a slice 'ranges[a:b]'"
    );
    assert_eq!(
        err("- fault: {duplicate: {copies: 0}}\n  window: {at_s: 1}\n"),
        "fault stack stage 0: invalid parameter copies = 0 for mode 'duplicate': must be in [1, 16]"
    );
    assert_eq!(
        err("- fault: {delay: {delay_s: 0}}\n  window: {at_s: -1}\n"),
        "fault stack stage 0: invalid parameter at_s = -1 for mode 'delay': \
         must be finite and in [0, 1000000] s"
    );
    let e =
        serde_yaml_ng::from_str::<Vec<StageSpec>>("- fault: {delay: {delay_s: 0.1}}\n  when: 1\n")
            .unwrap_err()
            .to_string();
    assert!(e.contains("unknown field `when`"), "{e}");
}

/// The README's example stack parses and builds on an Imu channel, in order.
#[test]
fn readme_example_builds() {
    let text = include_str!("../../../README.md");
    let start = text
        .find("## Faults on field paths")
        .expect("README section");
    let block = text[start..]
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a yaml block");
    let s = stack(IMU, block);
    assert_eq!(
        s.describe(),
        [
            "0: delay 0.1 s",
            "1: drop p=0.05",
            "2: bias angular_velocity.z [from 5 s for 10 s]"
        ]
    );
}

fn range_msg(range: f32) -> (Arc<ResolvedType>, Vec<u8>) {
    let t = ty("sensor_msgs/msg/Range");
    let mut v = Value::zero(&t);
    set(
        &mut v,
        &["header", "frame_id"],
        Value::String("sonar".into()),
    );
    set(&mut v, &["max_range"], Value::F32(4.0));
    set(&mut v, &["range"], Value::F32(range));
    let b = encode(&t, &v).unwrap();
    (t, b)
}

fn stages(text: &str) -> Vec<StageSpec> {
    serde_yaml_ng::from_str(text).unwrap()
}

/// Raw CDR through a stack: delivery stages never decode, a field stage
/// decodes with the channel's type, changes the field and re-encodes.
#[test]
fn cdr_payload_decodes_only_for_an_active_field_stage() {
    let (t, bytes) = range_msg(1.5);
    let reg = reg();
    let mut delivery = FaultStack::build(
        &stages("- fault: {delay: {delay_s: 0.1}}\n- fault: {duplicate: {copies: 1}}\n"),
        &reg,
        "sensor_msgs/msg/Range",
    )
    .unwrap();
    let out = delivery.apply(
        CdrPayload::new(t.clone(), bytes.clone()),
        ms(0),
        &mut rng(1),
    );
    assert_eq!(out.len(), 2);
    for d in out {
        assert!(!d.payload.was_decoded());
        assert_eq!(
            d.payload.into_bytes().unwrap(),
            bytes,
            "bytes passed through"
        );
    }

    let mut field = FaultStack::build(
        &stages("- fault: {field: {path: range, mode: set, value: nan}}\n  window: {at_s: 1.0}\n"),
        &reg,
        "sensor_msgs/msg/Range",
    )
    .unwrap();
    // Before the window: not decoded, untouched.
    let out = field.apply(
        CdrPayload::new(t.clone(), bytes.clone()),
        ms(0),
        &mut rng(1),
    );
    assert!(!out[0].payload.was_decoded());
    assert_eq!(out[0].payload.clone().into_bytes().unwrap(), bytes);
    let out = field.apply(
        CdrPayload::new(t.clone(), bytes.clone()),
        ms(1500),
        &mut rng(1),
    );
    assert_eq!(out[0].touched_by, vec![0]);
    let got = decode(&t, &out[0].payload.clone().into_bytes().unwrap()).unwrap();
    assert!(matches!(get(&got, &["range"]), Value::F32(x) if x.is_nan()));
    let mut want = decode(&t, &bytes).unwrap();
    set(&mut want, &["range"], get(&got, &["range"]).clone());
    // Every other field unchanged (NaN != NaN: compare the rest).
    let strip = |v: &Value| {
        let mut v = v.clone();
        set(&mut v, &["range"], Value::F32(0.0));
        v
    };
    assert_eq!(strip(&got), strip(&want));
    assert_eq!(field.stats()[0].changed, 1);

    // Bytes that are not the type: passed unchanged, uncounted, the reason kept.
    let junk = vec![0, 1, 0, 0, 1];
    let out = field.apply(
        CdrPayload::new(t.clone(), junk.clone()),
        ms(2000),
        &mut rng(1),
    );
    assert!(out[0].payload.decode_error().is_some());
    assert_eq!(out[0].payload.clone().into_bytes().unwrap(), junk);
    assert_eq!(field.stats()[0].changed, 1);
}

/// Appended stages start at the append time; removing a stage keeps the
/// others' windows and counters.
#[test]
fn stack_append_remove_and_active() {
    let reg = reg();
    let build =
        |text: &str| FaultStack::build(&stages(text), &reg, "sensor_msgs/msg/Range").unwrap();
    let (t, bytes) = range_msg(1.0);
    let mut s = build("- fault: {delay: {delay_s: 0.5}}\n  window: {duration_s: 10.0}\n");
    s.set(ms(0));
    s.apply(
        CdrPayload::new(t.clone(), bytes.clone()),
        ms(100),
        &mut rng(1),
    );
    s.append(
        build("- fault: {drop: {probability: 1.0}}\n  window: {at_s: 1.0}\n"),
        ms(5000),
    );
    assert_eq!(s.len(), 2);
    assert_eq!(s.active(ms(5500)), vec![true, false]);
    assert_eq!(s.active(ms(6500)), vec![true, true]);
    assert!(s
        .apply(
            CdrPayload::new(t.clone(), bytes.clone()),
            ms(6500),
            &mut rng(1)
        )
        .is_empty());
    let (spec, stats) = s.remove(1).unwrap();
    assert_eq!(spec.fault.kind(), "drop");
    assert_eq!(stats.withheld, 1);
    assert!(s.remove(1).is_none());
    assert_eq!(s.stats()[0].changed, 2);
    assert_eq!(s.active(ms(11_000)), vec![false]);
    let out = s.apply(CdrPayload::new(t, bytes), ms(7000), &mut rng(1));
    assert_eq!(out[0].delay, ms(500));
}
