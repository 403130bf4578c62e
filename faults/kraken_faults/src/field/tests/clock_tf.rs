//! `/tf` and `/clock` faults (issue #10, REQ-FAULT-TF-CLOCK): element
//! selection on drop and delay stages (a frame filter on
//! tf2_msgs/msg/TFMessage), the throttle stage, and the clock jump back and
//! stall as existing stages, with exact values.

use super::*;

const TF: &str = "tf2_msgs/msg/TFMessage";
const CLOCK: &str = "rosgraph_msgs/msg/Clock";
const ODOM_TO_BASE: &str =
    "{sequence: transforms, where: {header.frame_id: odom, child_frame_id: base_link}}";

/// A TransformStamped `parent → child` at `sec` s with translation x = `x`.
fn transform(parent: &str, child: &str, sec: i32, x: f64) -> Value {
    let t = ty("geometry_msgs/msg/TransformStamped");
    let mut v = Value::zero(&t);
    set(&mut v, &["header", "stamp", "sec"], Value::I32(sec));
    set(
        &mut v,
        &["header", "stamp", "nanosec"],
        Value::U32(250_000_000),
    );
    set(
        &mut v,
        &["header", "frame_id"],
        Value::String(parent.into()),
    );
    set(&mut v, &["child_frame_id"], Value::String(child.into()));
    set(&mut v, &["transform", "translation", "x"], Value::F64(x));
    set(&mut v, &["transform", "rotation", "w"], Value::F64(1.0));
    v
}

fn tf_msg(transforms: Vec<Value>) -> Value {
    let mut v = Value::zero(&ty(TF));
    set(&mut v, &["transforms"], Value::Seq(transforms));
    v
}

fn tf_bytes(transforms: Vec<Value>) -> Vec<u8> {
    encode(&ty(TF), &tf_msg(transforms)).unwrap()
}

fn tf_stack(yaml: &str) -> FaultStack {
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
    FaultStack::build(&specs, &reg(), TF).unwrap()
}

fn transforms(bytes: &[u8]) -> Vec<Value> {
    match decode(&ty(TF), bytes).unwrap().field("transforms") {
        Some(Value::Seq(x)) => x.clone(),
        other => panic!("{other:?}"),
    }
}

fn clock_bytes(nanos: u64) -> Vec<u8> {
    let t = ty(CLOCK);
    let mut v = Value::zero(&t);
    set(
        &mut v,
        &["clock", "sec"],
        Value::I32((nanos / 1_000_000_000) as i32),
    );
    set(
        &mut v,
        &["clock", "nanosec"],
        Value::U32((nanos % 1_000_000_000) as u32),
    );
    encode(&t, &v).unwrap()
}

fn clock_of(bytes: &[u8]) -> (i32, u32) {
    let v = decode(&ty(CLOCK), bytes).unwrap();
    match (get(&v, &["clock", "sec"]), get(&v, &["clock", "nanosec"])) {
        (Value::I32(s), Value::U32(n)) => (*s, *n),
        other => panic!("{other:?}"),
    }
}

fn cdr(bytes: &[u8]) -> CdrPayload {
    CdrPayload::new(ty(TF), bytes.to_vec())
}

#[test]
fn selected_drop_removes_only_odom_to_base_link_and_keeps_the_rest_byte_equal() {
    let mut s = tf_stack(&format!(
        "- fault: {{drop: {{probability: 1.0}}}}\n  select: {ODOM_TO_BASE}\n"
    ));
    assert_eq!(
        s.describe(),
        ["0: drop p=1 of transforms[child_frame_id == \"base_link\", header.frame_id == \"odom\"]"]
    );
    let map_odom = transform("map", "odom", 7, 1.5);
    let odom_base = transform("odom", "base_link", 7, 2.5);
    let both = tf_bytes(vec![map_odom.clone(), odom_base.clone()]);
    let out = s.apply(cdr(&both), ms(0), &mut rng(1));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].delay, Duration::ZERO);
    assert_eq!(out[0].touched_by, vec![0]);
    let bytes = out[0].payload.clone().into_bytes().unwrap();
    // Exactly the message holding map → odom alone, its bytes as that
    // transform's own encoding.
    assert_eq!(bytes, tf_bytes(vec![map_odom.clone()]));
    assert_eq!(transforms(&bytes), vec![map_odom.clone()]);

    // A message with no matching element is untouched: its very bytes go
    // out (a nonzero padding byte proves it was not re-encoded).
    let mut only_map = tf_bytes(vec![map_odom.clone()]);
    let t = ty(TF);
    let pad = breakbench_msgs::padding_mask(&t, &tf_msg(vec![map_odom.clone()])).unwrap();
    let k = pad.iter().position(|p| *p).expect("TFMessage has padding");
    only_map[4 + k] = 0xAB;
    let out = s.apply(cdr(&only_map), ms(10), &mut rng(1));
    assert_eq!(out.len(), 1);
    assert!(out[0].touched_by.is_empty());
    assert_eq!(out[0].payload.clone().into_bytes().unwrap(), only_map);

    // A message holding only the selected transform is withheld whole.
    let out = s.apply(cdr(&tf_bytes(vec![odom_base])), ms(20), &mut rng(1));
    assert!(out.is_empty());
    assert_eq!(
        s.stats(),
        vec![StageStats {
            changed: 1,
            withheld: 1,
            added: 0
        }]
    );
}

#[test]
fn selected_delay_releases_exactly_the_selected_elements_later() {
    let mut s = tf_stack(&format!(
        "- fault: {{delay: {{delay_s: 0.2}}}}\n  select: {ODOM_TO_BASE}\n"
    ));
    // Three transforms: the selected one in the middle.
    let a = transform("map", "odom", 3, 1.0);
    let b = transform("odom", "base_link", 3, 2.0);
    let c = transform("base_link", "laser", 3, 0.3);
    let out = s.apply(
        cdr(&tf_bytes(vec![a.clone(), b.clone(), c.clone()])),
        ms(100),
        &mut rng(1),
    );
    assert_eq!(out.len(), 2);
    assert_eq!((out[0].delay, out[1].delay), (Duration::ZERO, ms(200)));
    assert_eq!(out[0].touched_by, Vec::<usize>::new());
    assert_eq!(out[1].touched_by, vec![0]);
    assert_eq!(
        out[0].payload.clone().into_bytes().unwrap(),
        tf_bytes(vec![a.clone(), c.clone()])
    );
    assert_eq!(
        out[1].payload.clone().into_bytes().unwrap(),
        tf_bytes(vec![b.clone()])
    );
    // Two matching elements go together into one delayed message.
    let b2 = transform("odom", "base_link", 4, 2.1);
    let out = s.apply(
        cdr(&tf_bytes(vec![b.clone(), a.clone(), b2.clone()])),
        ms(120),
        &mut rng(1),
    );
    assert_eq!(
        transforms(&out[0].payload.clone().into_bytes().unwrap()),
        vec![a]
    );
    assert_eq!(
        transforms(&out[1].payload.clone().into_bytes().unwrap()),
        vec![b, b2]
    );
    assert_eq!(s.stats()[0].changed, 2);
}

#[test]
fn selection_works_on_other_types_diagnostic_status_by_name() {
    let t = ty("diagnostic_msgs/msg/DiagnosticArray");
    let st = ty("diagnostic_msgs/msg/DiagnosticStatus");
    let status = |name: &str, level: u8| {
        let mut v = Value::zero(&st);
        set(&mut v, &["name"], Value::String(name.into()));
        set(&mut v, &["level"], Value::U8(level));
        v
    };
    let mut arr = Value::zero(&t);
    set(
        &mut arr,
        &["status"],
        Value::Seq(vec![
            status("motor", 0),
            status("battery", 2),
            status("motor", 2),
        ]),
    );
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {drop: {probability: 1.0}}\n  select: {sequence: status, where: {name: motor, level: 2}}\n",
    )
    .unwrap();
    let mut s = FaultStack::build(&specs, &reg(), "diagnostic_msgs/msg/DiagnosticArray").unwrap();
    let out = s.apply(arr, ms(0), &mut rng(1));
    assert_eq!(
        get(&out[0].payload, &["status"]),
        &Value::Seq(vec![status("motor", 0), status("battery", 2)])
    );
}

#[test]
fn selection_refusals_name_the_path_and_the_type() {
    let build = |yaml: &str| {
        let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
        FaultStack::build(&specs, &reg(), TF)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let drop = "- fault: {drop: {probability: 1.0}}\n  select: ";
    let cases = [
        (
            format!("{drop}{{sequence: transform, where: {{child_frame_id: a}}}}"),
            "fault stack stage 0: select path 'transform' of tf2_msgs/msg/TFMessage: tf2_msgs/msg/TFMessage has no field 'transform'",
        ),
        (
            format!("{drop}{{sequence: 'transforms[0]', where: {{child_frame_id: a}}}}"),
            "fault stack stage 0: select path 'transforms[0]' of tf2_msgs/msg/TFMessage: [0]: the sequence is named by field names only (no index)",
        ),
        (
            format!("{drop}{{sequence: transforms, where: {{}}}}"),
            "fault stack stage 0: select path 'transforms' of tf2_msgs/msg/TFMessage: 'where' needs at least one element field and its value",
        ),
        (
            format!("{drop}{{sequence: transforms, where: {{header.frame: odom}}}}"),
            "fault stack stage 0: select path 'header.frame' of geometry_msgs/msg/TransformStamped: geometry_msgs/msg/TransformStamped field 'header' is std_msgs/msg/Header, which has no field 'frame'",
        ),
        (
            format!("{drop}{{sequence: transforms, where: {{transform.translation: 0}}}}"),
            "fault stack stage 0: select path 'transform.translation' of geometry_msgs/msg/TransformStamped: 'transform.translation' is geometry_msgs/msg/Vector3: compare a number, bool or string field",
        ),
        (
            format!("{drop}{{sequence: transforms, where: {{child_frame_id: 5}}}}"),
            "fault stack stage 0: select path 'child_frame_id' of geometry_msgs/msg/TransformStamped: 5 is not a string for a string field (quote it)",
        ),
        (
            format!("{drop}{{sequence: transforms, where: {{header.stamp.sec: 1.5}}}}"),
            "fault stack stage 0: select path 'header.stamp.sec' of geometry_msgs/msg/TransformStamped: 1.5 is not an integer: int32 needs one",
        ),
        (
            "- fault: {duplicate: {copies: 1}}\n  select: {sequence: transforms, where: {child_frame_id: a}}".to_string(),
            "fault stack stage 0: select path 'transforms' of tf2_msgs/msg/TFMessage: 'select' works on drop and delay stages, not on duplicate",
        ),
        (
            "- fault: {throttle: {rate_hz: 0}}".to_string(),
            "fault stack stage 0: invalid parameter rate_hz = 0 for mode 'throttle': must be finite and in (0, 1e6] Hz",
        ),
    ];
    for (yaml, want) in &cases {
        assert_eq!(build(yaml), *want, "{yaml}");
    }
    // Not a sequence of messages (on another type).
    let specs: Vec<StageSpec> = serde_yaml_ng::from_str(
        "- fault: {drop: {probability: 1.0}}\n  select: {sequence: ranges, where: {x: 1}}\n",
    )
    .unwrap();
    assert_eq!(
        FaultStack::build(&specs, &reg(), SCAN).unwrap_err().to_string(),
        "fault stack stage 0: select path 'ranges' of sensor_msgs/msg/LaserScan: 'ranges' is float32[], not a sequence of messages"
    );
}

/// autoware_universe #398: `/clock` at 20 Hz under a 50 Hz filter. A 50 Hz
/// clock (20 ms steps) through `throttle 20 Hz` passes the first message of
/// each 50 ms slot: 0, 60, 100, 160, 200, … ms — exactly 20 per second.
#[test]
fn throttle_20_hz_from_50_hz_passes_exactly_the_expected_stamps() {
    let specs: Vec<StageSpec> =
        serde_yaml_ng::from_str("- fault: {throttle: {rate_hz: 20.0}}\n").unwrap();
    let mut s = FaultStack::build(&specs, &reg(), CLOCK).unwrap();
    assert_eq!(s.describe(), ["0: throttle 20 Hz"]);
    let mut passed = Vec::new();
    for k in 0..50u64 {
        let t = 1000 + 20 * k; // ms of the raw clock, which is the node's clock
                               // Raw bytes: the throttle never decodes.
        for d in s.apply(clock_bytes(t * 1_000_000), ms(t), &mut rng(1)) {
            assert_eq!(d.delay, Duration::ZERO);
            let (sec, ns) = clock_of(&d.payload);
            passed.push(sec as u64 * 1000 + u64::from(ns) / 1_000_000);
        }
    }
    let want: Vec<u64> = (0..10)
        .flat_map(|i| [1000 + 100 * i, 1060 + 100 * i])
        .collect();
    assert_eq!(passed, want);
    assert_eq!(s.stats()[0].withheld, 30);
    // After a gap the grid restarts at the next message: no burst.
    let mut after = Vec::new();
    for t in [3000u64, 3020, 3040, 3060] {
        if !s
            .apply(clock_bytes(t * 1_000_000), ms(t), &mut rng(1))
            .is_empty()
        {
            after.push(t);
        }
    }
    assert_eq!(after, [3000, 3060]);
    // The shipped example is this stack.
    let example: Vec<StageSpec> = serde_yaml_ng::from_str(include_str!(
        "../../../config/examples/autoware_398_clock_20hz.yaml"
    ))
    .unwrap();
    assert_eq!(example, specs);
}

/// slam_toolbox #516's 10 s jump back: `bias −10` on `clock.sec` from
/// `at_s` on; the clock then continues at its rate, 10 s behind. With a
/// `duration_s` the clock jumps forward again when the window closes.
#[test]
fn clock_jump_back_and_stall_give_the_exact_values() {
    let run = |yaml: &str| {
        let specs: Vec<StageSpec> = serde_yaml_ng::from_str(yaml).unwrap();
        let mut s = FaultStack::build(&specs, &reg(), CLOCK).unwrap();
        let t = ty(CLOCK);
        s.set(ms(100_000));
        (0..8u64)
            .map(|k| {
                let now = 100_000 + 500 * k; // raw clock 100.0, 100.5, … 103.5 s
                s.apply(
                    CdrPayload::new(t.clone(), clock_bytes(now * 1_000_000)),
                    ms(now),
                    &mut rng(1),
                )
                .into_iter()
                .map(|d| clock_of(&d.payload.into_bytes().unwrap()))
                .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let h = 500_000_000;
    // Permanent jump back from 1 s after the set.
    let back =
        run("- fault: {field: {path: clock.sec, mode: bias, bias: -10}}\n  window: {at_s: 1.0}\n");
    assert_eq!(
        back,
        [
            vec![(100, 0)],
            vec![(100, h)],
            vec![(91, 0)],
            vec![(91, h)],
            vec![(92, 0)],
            vec![(92, h)],
            vec![(93, 0)],
            vec![(93, h)]
        ]
    );
    // The same for 1 s (closed window: 102.0 still faulted), then forward again.
    let window =
        run("- fault: {field: {path: clock.sec, mode: bias, bias: -10}}\n  window: {at_s: 1.0, duration_s: 1.0}\n");
    let secs: Vec<(i32, u32)> = window.into_iter().flatten().collect();
    assert_eq!(
        secs,
        [
            (100, 0),
            (100, h),
            (91, 0),
            (91, h),
            (92, 0),
            (102, h),
            (103, 0),
            (103, h)
        ]
    );
    // Stall 2 s: nothing from 101.0 to 103.0 s (closed window), then the raw clock.
    let stall =
        run("- fault: {drop: {probability: 1.0}}\n  window: {at_s: 1.0, duration_s: 2.0}\n");
    let secs: Vec<(i32, u32)> = stall.into_iter().flatten().collect();
    assert_eq!(secs, [(100, 0), (100, h), (103, h)]);
}
