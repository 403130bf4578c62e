//! Tests of the field faults and stacks on real messages: values built with
//! breakbench_msgs, encoded to CDR and decoded back (what the injector will
//! see), faulted, and encoded again where the fault must keep the message
//! encodable.

use std::f64::consts::PI;
use std::sync::Arc;
use std::time::Duration;

use breakbench_msgs::{decode, encode, ResolvedType, TypeRegistry, Value};
use rand::SeedableRng;

use super::*;
use crate::FaultRng;

fn reg() -> TypeRegistry {
    TypeRegistry::builtin()
}

fn rng(seed: u64) -> FaultRng {
    FaultRng::seed_from_u64(seed)
}

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

fn ty(name: &str) -> Arc<ResolvedType> {
    reg().resolve(name).unwrap()
}

/// `v` through CDR and back: a value as the injector decodes it.
fn wire(t: &Arc<ResolvedType>, v: &Value) -> Value {
    decode(t, &encode(t, v).unwrap()).unwrap()
}

fn set(v: &mut Value, path: &[&str], x: Value) {
    let mut cur = v;
    for p in path {
        cur = cur.field_mut(p).unwrap();
    }
    *cur = x;
}

fn get<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    let mut cur = v;
    for p in path {
        cur = cur.field(p).unwrap();
    }
    cur
}

const SCAN: &str = "sensor_msgs/msg/LaserScan";
const IMU: &str = "sensor_msgs/msg/Imu";
const ODOM: &str = "nav_msgs/msg/Odometry";

/// A 360-beam scan at t = 12.5 s, ranges 1.0, 1.01, …, range 0.1..30 m.
fn scan(beams: usize) -> Value {
    let t = ty(SCAN);
    let mut v = Value::zero(&t);
    set(&mut v, &["header", "stamp", "sec"], Value::I32(12));
    set(
        &mut v,
        &["header", "stamp", "nanosec"],
        Value::U32(500_000_000),
    );
    set(
        &mut v,
        &["header", "frame_id"],
        Value::String("laser".into()),
    );
    set(&mut v, &["angle_min"], Value::F32(-PI as f32));
    set(&mut v, &["angle_max"], Value::F32(PI as f32));
    set(
        &mut v,
        &["angle_increment"],
        Value::F32((2.0 * PI / beams as f64) as f32),
    );
    set(&mut v, &["range_min"], Value::F32(0.1));
    set(&mut v, &["range_max"], Value::F32(30.0));
    set(
        &mut v,
        &["ranges"],
        Value::F32Seq((0..beams).map(|i| 1.0 + i as f32 * 0.01).collect()),
    );
    set(&mut v, &["intensities"], Value::F32Seq(vec![100.0; beams]));
    wire(&t, &v)
}

/// An IMU at rest, level: orientation (0, 0, 0, 1), angular velocity
/// (0.1, -0.2, 1.0) rad/s, gravity on z.
fn imu() -> Value {
    let t = ty(IMU);
    let mut v = Value::zero(&t);
    set(&mut v, &["header", "frame_id"], Value::String("imu".into()));
    set(&mut v, &["orientation", "w"], Value::F64(1.0));
    set(&mut v, &["angular_velocity", "x"], Value::F64(0.1));
    set(&mut v, &["angular_velocity", "y"], Value::F64(-0.2));
    set(&mut v, &["angular_velocity", "z"], Value::F64(1.0));
    set(&mut v, &["linear_acceleration", "z"], Value::F64(9.81));
    set(
        &mut v,
        &["orientation_covariance"],
        Value::F64Seq(vec![0.01, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 0.01]),
    );
    wire(&t, &v)
}

/// Odometry at (2, 3) m, level, 0.5 m/s forward.
fn odom() -> Value {
    let t = ty(ODOM);
    let mut v = Value::zero(&t);
    set(
        &mut v,
        &["header", "frame_id"],
        Value::String("odom".into()),
    );
    set(
        &mut v,
        &["child_frame_id"],
        Value::String("base_link".into()),
    );
    set(&mut v, &["pose", "pose", "position", "x"], Value::F64(2.0));
    set(&mut v, &["pose", "pose", "position", "y"], Value::F64(3.0));
    set(
        &mut v,
        &["pose", "pose", "orientation", "w"],
        Value::F64(1.0),
    );
    set(&mut v, &["twist", "twist", "linear", "x"], Value::F64(0.5));
    wire(&t, &v)
}

fn yaml(text: &str) -> FieldFaultSpec {
    serde_yaml_ng::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn build(type_name: &str, text: &str) -> Result<FieldFault, String> {
    FieldFault::build(&yaml(text), &reg(), type_name).map_err(|e| e.to_string())
}

fn fault(type_name: &str, text: &str) -> FieldFault {
    build(type_name, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn ranges(v: &Value) -> &[f32] {
    let Value::F32Seq(r) = get(v, &["ranges"]) else {
        panic!("ranges is not F32Seq")
    };
    r
}

// ---------------------------------------------------------------- the spec

#[test]
fn yaml_values_numbers_specials_lists_and_maps() {
    let v = |s: &str| {
        yaml(&format!("{{path: x, mode: set, value: {s}}}"))
            .value
            .unwrap()
    };
    assert_eq!(v("-1"), SetValue::Int(-1));
    assert_eq!(v("18446744073709551615"), SetValue::UInt(u64::MAX));
    assert_eq!(v("1e256"), SetValue::Float(1e256));
    assert_eq!(v("nan"), SetValue::Text("nan".into()));
    assert_eq!(v("\"-inf\""), SetValue::Text("-inf".into()));
    assert!(matches!(v(".nan"), SetValue::Float(x) if x.is_nan()));
    assert_eq!(v("-.inf"), SetValue::Float(f64::NEG_INFINITY));
    assert_eq!(v("true"), SetValue::Bool(true));
    assert_eq!(
        v("[0, 0.5]"),
        SetValue::List(vec![SetValue::Int(0), SetValue::Float(0.5)])
    );
    assert!(matches!(v("{w: 1}"), SetValue::Map(m) if m["w"] == SetValue::Int(1)));
    // Unknown keys are refused by serde.
    let e = serde_yaml_ng::from_str::<FieldFaultSpec>("{path: x, mode: bias, bias_m: 1}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `bias_m`"), "{e}");
    let e = serde_yaml_ng::from_str::<FieldFaultSpec>("{path: x, mode: wobble}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown variant `wobble`"), "{e}");
}

// ---------------------------------------------------------------- set

#[test]
fn set_writes_the_bug_values_into_float_fields() {
    let t = ty(IMU);
    for (text, want) in [
        ("nan", f64::NAN),
        ("inf", f64::INFINITY),
        ("\"-inf\"", f64::NEG_INFINITY),
        ("0", 0.0),
        ("-1", -1.0),
        ("1e256", 1e256),
    ] {
        let mut f = fault(
            IMU,
            &format!("{{path: angular_velocity.z, mode: set, value: {text}}}"),
        );
        let mut v = imu();
        assert!(f.apply(&mut v, ms(0), &mut rng(1)), "{text}");
        let Value::F64(got) = *get(&v, &["angular_velocity", "z"]) else {
            panic!()
        };
        assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        // Nothing else changed.
        set(&mut v, &["angular_velocity", "z"], Value::F64(1.0));
        assert_eq!(v, imu(), "{text}");
        // Setting again the value it has is no change (NaN included).
        let mut again = imu();
        f.apply(&mut again, ms(1), &mut rng(1));
        assert!(!f.apply(&mut again, ms(2), &mut rng(1)), "{text}");
        let _ = encode(&t, &again).unwrap();
    }
}

#[test]
fn set_on_a_lidar_sector_a_string_a_bool_and_a_whole_array() {
    // ranges[0:90]: the first quarter of a 360-beam scan goes blind (inf).
    let mut f = fault(SCAN, "{path: 'ranges[0:90]', mode: set, value: inf}");
    let mut v = scan(360);
    assert!(f.apply(&mut v, ms(0), &mut rng(1)));
    let r = ranges(&v);
    assert!(r[..90].iter().all(|x| *x == f32::INFINITY));
    assert_eq!(r[90], 1.9);
    assert_eq!(r[359], 1.0 + 359.0 * 0.01);
    assert_eq!(r.len(), 360);

    let mut f = fault(IMU, "{path: header.frame_id, mode: set, value: ''}");
    let mut v = imu();
    assert!(f.apply(&mut v, ms(0), &mut rng(1)));
    assert_eq!(
        get(&v, &["header", "frame_id"]),
        &Value::String(String::new())
    );

    let t = reg().resolve("sensor_msgs/msg/RegionOfInterest").unwrap();
    for (text, want) in [("true", true), ("1", true), ("0", false)] {
        let mut f = FieldFault::build(
            &yaml(&format!("{{path: do_rectify, mode: set, value: {text}}}")),
            &reg(),
            "sensor_msgs/RegionOfInterest",
        )
        .unwrap();
        let mut v = Value::zero(&t);
        f.apply(&mut v, ms(0), &mut rng(1));
        assert_eq!(v.field("do_rectify"), Some(&Value::Bool(want)), "{text}");
    }
    assert!(build(
        "sensor_msgs/RegionOfInterest",
        "{path: do_rectify, mode: set, value: 2}"
    )
    .unwrap_err()
    .contains("2 does not fit bool (want true, false, 0 or 1)"));

    // A whole fixed array takes a list of exactly its length.
    let mut f = fault(
        IMU,
        "{path: orientation_covariance, mode: set, value: [-1, 0, 0, 0, 0, 0, 0, 0, 0]}",
    );
    let mut v = imu();
    assert!(f.apply(&mut v, ms(0), &mut rng(1)));
    assert_eq!(
        get(&v, &["orientation_covariance"]),
        &Value::F64Seq(vec![-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    );
    assert_eq!(
        build(
            IMU,
            "{path: orientation_covariance, mode: set, value: [1, 2]}"
        )
        .unwrap_err(),
        "field fault 'set' on path 'orientation_covariance' of sensor_msgs/msg/Imu: \
         orientation_covariance is float64[9]: want exactly 9 values, got 2"
    );
    assert!(
        build(IMU, "{path: orientation_covariance, mode: set, value: 0}")
            .unwrap_err()
            .contains("is float64[9], a whole array: want a list (or index it: 'orientation_covariance[*]')")
    );
}

#[test]
fn set_refuses_values_that_do_not_fit_the_field() {
    let cases = [
        (
            SCAN,
            "{path: header.stamp.sec, mode: set, value: 1e256}",
            "field fault 'set' on path 'header.stamp.sec' of sensor_msgs/msg/LaserScan: \
             header.stamp.sec is int32: 1e256 does not fit int32 [-2147483648, 2147483647]: \
             refused rather than wrapped",
        ),
        (
            SCAN,
            "{path: header.stamp.nanosec, mode: set, value: -1}",
            "field fault 'set' on path 'header.stamp.nanosec' of sensor_msgs/msg/LaserScan: \
             header.stamp.nanosec is uint32: -1 does not fit uint32 [0, 4294967295]: \
             refused rather than wrapped",
        ),
        (
            SCAN,
            "{path: header.stamp.sec, mode: set, value: 2147483648}",
            "2147483648 does not fit int32",
        ),
        (
            SCAN,
            "{path: header.stamp.sec, mode: set, value: 1.5}",
            "header.stamp.sec is int32: 1.5 is not an integer: int32 needs one",
        ),
        (
            SCAN,
            "{path: header.stamp.sec, mode: set, value: nan}",
            "header.stamp.sec is int32: \"nan\" is not an integer for int32",
        ),
        (
            SCAN,
            "{path: range_max, mode: set, value: 1e256}",
            "range_max is float32: 1e256 does not fit float32 (largest finite 3.4028235e38; \
             write \"inf\" for infinity)",
        ),
        (
            SCAN,
            "{path: 'ranges[*]', mode: set, value: many}",
            "\"many\" is not a number for float32",
        ),
        (
            IMU,
            "{path: orientation, mode: set, value: {x: 0, q: 1}}",
            "orientation is geometry_msgs/msg/Quaternion, which has no field 'q' \
             (fields: x, y, z, w)",
        ),
        (
            IMU,
            "{path: orientation, mode: set, value: [0, 0, 1]}",
            "orientation is geometry_msgs/msg/Quaternion, a sub-message: want a map of some of \
             its fields or a list of all 4 in order (x, y, z, w); got a list of 3",
        ),
        (
            IMU,
            "{path: header.frame_id, mode: set, value: 3}",
            "header.frame_id is a string: 3 is not one",
        ),
        (
            IMU,
            "{path: orientation.w, mode: set}",
            "mode 'set' needs parameter 'value'",
        ),
    ];
    for (ty, text, want) in cases {
        let e = build(ty, text).unwrap_err();
        assert!(e.contains(want), "{text}:\n got {e}\nwant {want}");
    }
    // Exact integers at the edges of their range are taken.
    let mut f = fault(
        SCAN,
        "{path: header.stamp.sec, mode: set, value: -2147483648}",
    );
    let mut v = scan(4);
    f.apply(&mut v, ms(0), &mut rng(1));
    assert_eq!(get(&v, &["header", "stamp", "sec"]), &Value::I32(i32::MIN));
}

// ---------------------------------------------------------------- refusals

#[test]
fn refusals_name_the_path_the_type_and_the_field_type() {
    let cases = [
        (
            IMU,
            "{path: angular_velocity.w, mode: bias, bias: 1}",
            "field fault 'bias' on path 'angular_velocity.w' of sensor_msgs/msg/Imu: \
             sensor_msgs/msg/Imu field 'angular_velocity' is geometry_msgs/msg/Vector3, \
             which has no field 'w'",
        ),
        (
            IMU,
            "{path: header.frame_id, mode: scale, scale_factor: -1}",
            "field fault 'scale' on path 'header.frame_id' of sensor_msgs/msg/Imu: \
             'header.frame_id' is string: mode 'scale' needs a numeric field \
             (set takes a string)",
        ),
        (
            "sensor_msgs/RegionOfInterest",
            "{path: do_rectify, mode: bias, bias: 1}",
            "'do_rectify' is bool: mode 'bias' needs a numeric field (set takes true/false or 0/1)",
        ),
        (
            IMU,
            "{path: orientation, mode: bias, bias: 0.1}",
            "field fault 'bias' on path 'orientation' of sensor_msgs/msg/Imu: \
             'orientation' is geometry_msgs/msg/Quaternion, a sub-message: mode 'bias' needs a \
             numeric field: name one ('orientation.x'; fields: x, y, z, w), or use set with a \
             map of its fields",
        ),
        (
            SCAN,
            "{path: ranges, mode: scale, scale_factor: 2}",
            "'ranges' is float32[], a whole array: mode 'scale' acts on elements: \
             write 'ranges[*]' or a slice 'ranges[a:b]'",
        ),
        (
            IMU,
            "{path: orientation_covariance, mode: truncate, length: 3}",
            "field fault 'truncate' on path 'orientation_covariance' of sensor_msgs/msg/Imu: \
             'orientation_covariance' is float64[9], a fixed array: its length is part of the \
             type, mode 'truncate' needs a sequence (T[] or T[<=N])",
        ),
        (
            SCAN,
            "{path: 'ranges[*]', mode: truncate, length: 3}",
            "'ranges[*]' is float32: mode 'truncate' needs a whole sequence field \
             (write 'ranges', without the index)",
        ),
        (
            SCAN,
            "{path: range_max, mode: extend, length: 3}",
            "'range_max' is float32: mode 'extend' needs a whole sequence field",
        ),
        (
            SCAN,
            "{path: ranges, mode: extend, length: 100000000}",
            "'ranges' is float32[]: length 100000000 is above 16777216 (MAX_SEQ_LEN)",
        ),
        (
            SCAN,
            "{path: ranges, mode: extend, length: 400, fill: 1e256}",
            "ranges fill is float32: 1e256 does not fit float32",
        ),
        (
            IMU,
            "{path: orientation.w, mode: bias, bias: 1, scale_factor: 2}",
            "parameter 'scale_factor' is not read by mode 'bias' (it reads: bias)",
        ),
        (
            IMU,
            "{path: orientation.w, mode: stuck, value: 1}",
            "parameter 'value' is not read by mode 'stuck' (it reads: nothing)",
        ),
        (
            IMU,
            "{path: orientation.w, mode: bias}",
            "mode 'bias' needs parameter 'bias'",
        ),
        (
            IMU,
            "{path: orientation.w, mode: bias, bias: .inf}",
            "bias = inf must be finite and in [-1e9, 1e9]",
        ),
        (
            IMU,
            "{path: orientation.w, mode: saturation, min: 1, max: -1}",
            "saturation needs finite min <= max; got min = 1, max = -1",
        ),
        (
            SCAN,
            "{path: 'ranges[*]', mode: garbage, garbage_min: 0, garbage_max: 1e300}",
            "'ranges[*]' is float32: garbage bounds 0..1e300 do not fit it",
        ),
        (
            SCAN,
            "{path: header.stamp.sec, mode: garbage, garbage_min: 0, garbage_max: 5, \
             allow_non_finite: true}",
            "'header.stamp.sec' is int32: allow_non_finite needs a float field",
        ),
        (
            IMU,
            "{path: 'angular_velocity[0]', mode: bias, bias: 1}",
            "[0]: sensor_msgs/msg/Imu field 'angular_velocity' is geometry_msgs/msg/Vector3, \
             not an array",
        ),
        (
            IMU,
            "{path: 'Bad', mode: stuck}",
            "'Bad' is not a field name",
        ),
    ];
    for (ty, text, want) in cases {
        let e = build(ty, text).unwrap_err();
        assert!(e.contains(want), "{text}:\n got {e}\nwant {want}");
    }
    let e = FieldFault::build(&yaml("{path: x, mode: stuck}"), &reg(), "nope_msgs/Nope")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("field fault 'stuck' on path 'x' of nope_msgs/Nope: unknown message type"),
        "{e}"
    );
}

// ---------------------------------------------------------------- numeric modes

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

// ---------------------------------------------------------------- the bug cases

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

// ---------------------------------------------------------------- stacks

mod clock_tf;
mod stack;
mod timing;
