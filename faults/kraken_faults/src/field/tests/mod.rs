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

// ---------------------------------------------------------------- stacks

mod bugs;
mod clock_tf;
mod numeric;
mod stack;
mod timing;
