//! CDR bytes checked against bytes written by hand from the XCDR1 rules
//! (REQ-MSG-CDR), round trips of random values of every built-in type, and
//! the codec's refusals.

use std::sync::Arc;

use breakbench_msgs::def::{parse_msg, ArrayKind, Primitive};
use breakbench_msgs::registry::Elem;
use breakbench_msgs::{
    decode, encode, padding_mask, ResolvedType, TypeRegistry, TypedSeed, TypedValue, Value,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeSeed;

fn reg() -> TypeRegistry {
    TypeRegistry::builtin()
}

fn set(v: &mut Value, path: &[&str], x: Value) {
    let mut cur = v;
    for p in path {
        cur = cur.field_mut(p).unwrap_or_else(|| panic!("no field {p}"));
    }
    *cur = x;
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn point_stamped_header_string_then_f64_alignment() {
    // Header {stamp {sec 1, nanosec 2}, frame_id "ab"} then Point {x 1.5, y -2, z 0}.
    // Body offsets: sec 0..4, nanosec 4..8, string length 8..12 (=3, with the
    // NUL), "ab\0" 12..15, one padding byte 15, x 16..24 (float64 aligned to 8),
    // y 24..32, z 32..40.
    let r = reg();
    let ty = r.resolve("geometry_msgs/msg/PointStamped").unwrap();
    let mut v = Value::zero(&ty);
    set(&mut v, &["header", "stamp", "sec"], Value::I32(1));
    set(&mut v, &["header", "stamp", "nanosec"], Value::U32(2));
    set(&mut v, &["header", "frame_id"], Value::String("ab".into()));
    set(&mut v, &["point", "x"], Value::F64(1.5));
    set(&mut v, &["point", "y"], Value::F64(-2.0));
    let mut want = vec![0x00, 0x01, 0x00, 0x00];
    want.extend([1, 0, 0, 0, 2, 0, 0, 0]);
    want.extend([3, 0, 0, 0, b'a', b'b', 0]);
    want.push(0); // padding to 8
    want.extend(1.5f64.to_le_bytes());
    want.extend((-2.0f64).to_le_bytes());
    want.extend(0.0f64.to_le_bytes());
    let got = encode(&ty, &v).unwrap();
    assert_eq!(hex(&got), hex(&want));
    assert_eq!(decode(&ty, &want).unwrap(), v);
    let mask = padding_mask(&ty, &v).unwrap();
    let pads: Vec<usize> = (0..got.len()).filter(|&i| mask[i]).collect();
    assert_eq!(pads, [4 + 15]);
    // Padding bytes are not read: garbage there decodes the same.
    let mut garbage = want.clone();
    garbage[4 + 15] = 0x55;
    assert_eq!(decode(&ty, &garbage).unwrap(), v);
}

#[test]
fn nav_sat_status_int8_then_uint16() {
    // status int8 -1 at 0, one padding byte, service uint16 1 at 2..4.
    let r = reg();
    let ty = r.resolve("sensor_msgs/NavSatStatus").unwrap();
    let v = Value::Struct(vec![
        ("status".into(), Value::I8(-1)),
        ("service".into(), Value::U16(1)),
    ]);
    let want = [0, 1, 0, 0, 0xff, 0, 1, 0];
    assert_eq!(encode(&ty, &v).unwrap(), want);
    assert_eq!(decode(&ty, &want).unwrap(), v);
}

#[test]
fn laser_scan_floats_and_sequences() {
    // Header with frame "" (stamp 8, length 4 (=1), NUL: 13 bytes), 3 bytes
    // padding, seven float32 16..44, ranges: count 44..48 then 2 × f32,
    // intensities: count 56..60, empty.
    let r = reg();
    let ty = r.resolve("sensor_msgs/LaserScan").unwrap();
    let mut v = Value::zero(&ty);
    set(&mut v, &["angle_min"], Value::F32(-1.0));
    set(&mut v, &["range_max"], Value::F32(f32::INFINITY));
    set(&mut v, &["ranges"], Value::F32Seq(vec![0.5, f32::NAN]));
    let mut want = vec![0, 1, 0, 0];
    want.extend([0; 8]);
    want.extend([1, 0, 0, 0, 0]);
    want.extend([0; 3]);
    want.extend((-1.0f32).to_le_bytes());
    want.extend([0; 20]);
    want.extend(f32::INFINITY.to_le_bytes());
    want.extend([2, 0, 0, 0]);
    want.extend(0.5f32.to_le_bytes());
    want.extend(f32::NAN.to_le_bytes());
    want.extend([0, 0, 0, 0]);
    let got = encode(&ty, &v).unwrap();
    assert_eq!(hex(&got), hex(&want));
    let back = decode(&ty, &want).unwrap();
    let Some(Value::F32Seq(rg)) = back.field("ranges") else {
        panic!("{back:?}")
    };
    assert_eq!(rg[0], 0.5);
    assert!(rg[1].is_nan());
}

#[test]
fn empty_message_string_wstring_and_big_endian() {
    let r = reg();
    let empty = r.resolve("std_msgs/Empty").unwrap();
    assert_eq!(
        encode(&empty, &Value::Struct(vec![])).unwrap(),
        [0, 1, 0, 0, 0]
    );
    let string = r.resolve("std_msgs/String").unwrap();
    let v = Value::Struct(vec![("data".into(), Value::String(String::new()))]);
    assert_eq!(encode(&string, &v).unwrap(), [0, 1, 0, 0, 1, 0, 0, 0, 0]);
    let v = Value::Struct(vec![("data".into(), Value::String("é".into()))]);
    assert_eq!(
        encode(&string, &v).unwrap(),
        [0, 1, 0, 0, 3, 0, 0, 0, 0xc3, 0xa9, 0]
    );
    // wstring: u32 count of UTF-16 code units, one u32 per unit
    // (rosidl_typesupport_fastrtps).
    let mut wr = TypeRegistry::empty();
    wr.insert(parse_msg("t_msgs", "W", "uint8 a\nwstring w\n", "t").unwrap());
    let wt = wr.resolve("t_msgs/W").unwrap();
    let v = Value::Struct(vec![
        ("a".into(), Value::U8(7)),
        ("w".into(), Value::String("é😀".into())),
    ]);
    let want = [
        0, 1, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0xe9, 0, 0, 0, 0x3d, 0xd8, 0, 0, 0x00, 0xde, 0, 0,
    ];
    assert_eq!(hex(&encode(&wt, &v).unwrap()), hex(&want));
    assert_eq!(decode(&wt, &want).unwrap(), v);
    // Big-endian CDR (00 00) is read too.
    let pt = r.resolve("sensor_msgs/NavSatStatus").unwrap();
    assert_eq!(
        decode(&pt, &[0, 0, 0, 0, 0x02, 0, 0x01, 0x02]).unwrap(),
        Value::Struct(vec![
            ("status".into(), Value::I8(2)),
            ("service".into(), Value::U16(0x0102)),
        ])
    );
}

#[test]
fn typed_seed_reads_a_body_as_rustdds_hands_it_over() {
    // RustDDS strips the encapsulation header and runs the seed on the body
    // with its CdrDeserializer (ros2-client's take_seed).
    let r = reg();
    let ty = r.resolve("geometry_msgs/Vector3").unwrap();
    let mut body = Vec::new();
    for x in [1.0f64, 2.0, 3.0] {
        body.extend(x.to_le_bytes());
    }
    let mut d = cdr_encoding::CdrDeserializer::<byteorder::LittleEndian>::new(&body);
    let v = TypedSeed::new(ty.clone()).deserialize(&mut d).unwrap();
    assert_eq!(v.field("z"), Some(&Value::F64(3.0)));
    // TypedValue is what a Publisher<TypedValue> hands to the serializer.
    let tv = TypedValue { ty, value: v };
    let out = cdr_encoding::to_vec::<_, byteorder::LittleEndian>(&tv).unwrap();
    assert_eq!(out, body);
}

fn bounded() -> Arc<ResolvedType> {
    let mut r = TypeRegistry::empty();
    r.insert(
        parse_msg(
            "t_msgs",
            "B",
            "int32[<=2] a\nstring<=3 s\nfloat64[3] f\nuint8[<=2] o\n",
            "t",
        )
        .unwrap(),
    );
    r.resolve("t_msgs/B").unwrap()
}

fn bval(a: Vec<Value>, s: &str, f: Vec<f64>, o: Vec<u8>) -> Value {
    Value::Struct(vec![
        ("a".into(), Value::Seq(a)),
        ("s".into(), Value::String(s.into())),
        ("f".into(), Value::F64Seq(f)),
        ("o".into(), Value::U8Seq(o)),
    ])
}

#[test]
fn bounds_and_shapes_are_enforced_both_ways() {
    let ty = bounded();
    let ok = bval(vec![Value::I32(1)], "abc", vec![0.0; 3], vec![9]);
    let bytes = encode(&ty, &ok).unwrap();
    assert_eq!(decode(&ty, &bytes).unwrap(), ok);
    let e = |v: Value| encode(&ty, &v).unwrap_err().to_string();
    assert_eq!(
        e(bval(vec![Value::I32(1); 3], "", vec![0.0; 3], vec![])),
        "CDR encode of t_msgs/msg/B: t_msgs/msg/B field 'a': sequence of 3 elements exceeds its bound 2"
    );
    assert_eq!(
        e(bval(vec![], "abcd", vec![0.0; 3], vec![])),
        "CDR encode of t_msgs/msg/B: t_msgs/msg/B field 's': string of 4 bytes exceeds its bound 3"
    );
    assert_eq!(
        e(bval(vec![], "", vec![0.0; 2], vec![])),
        "CDR encode of t_msgs/msg/B: t_msgs/msg/B field 'f': fixed array of 3 elements given 2"
    );
    assert_eq!(
        e(bval(vec![Value::F64(1.0)], "", vec![0.0; 3], vec![])),
        "CDR encode of t_msgs/msg/B: t_msgs/msg/B field 'a': want int32, got F64"
    );
    assert_eq!(
        e(bval(vec![], "", vec![0.0; 3], vec![1, 2, 3])),
        "CDR encode of t_msgs/msg/B: t_msgs/msg/B field 'o': sequence of 3 elements exceeds its bound 2"
    );
    // The same violations on the wire are decode errors.
    let mut long_a = vec![0, 1, 0, 0, 3, 0, 0, 0];
    long_a.extend([0; 12]);
    assert_eq!(
        decode(&ty, &long_a).unwrap_err().to_string(),
        "CDR decode of t_msgs/msg/B: field 'a': sequence of 3 elements exceeds its bound 2"
    );
    let mut long_s = vec![0, 1, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0];
    long_s.extend(b"abcd\0");
    assert_eq!(
        decode(&ty, &long_s).unwrap_err().to_string(),
        "CDR decode of t_msgs/msg/B: field 's': string of 4 bytes exceeds its bound 3"
    );
}

#[test]
fn malformed_buffers_are_refused() {
    let r = reg();
    let ty = r.resolve("std_msgs/Bool").unwrap();
    assert_eq!(
        decode(&ty, &[0, 1]).unwrap_err().to_string(),
        "CDR decode of std_msgs/msg/Bool: 2 bytes: shorter than the 4-byte encapsulation header"
    );
    assert_eq!(
        decode(&ty, &[0, 3, 0, 0, 1]).unwrap_err().to_string(),
        "CDR decode of std_msgs/msg/Bool: representation id 00 03 is not plain CDR (00 00 or 00 01)"
    );
    assert_eq!(
        decode(&ty, &[0, 1, 0, 0, 2]).unwrap_err().to_string(),
        "CDR decode of std_msgs/msg/Bool: Expected 0 or 1 as Boolean, got: 2"
    );
    assert_eq!(
        decode(&ty, &[0, 1, 0, 0, 1, 0, 0, 0, 0]).unwrap_err().to_string(),
        "CDR decode of std_msgs/msg/Bool: 4 bytes left over after the message (1 bytes of body): not this type?"
    );
    // Fast DDS's trailing padding is accepted.
    assert_eq!(
        decode(&ty, &[0, 1, 0, 0, 1, 0x55, 0, 0]).unwrap(),
        Value::Struct(vec![("data".into(), Value::Bool(true))])
    );
    let s = r.resolve("std_msgs/String").unwrap();
    assert_eq!(
        decode(&s, &[0, 1, 0, 0, 200, 0, 0, 0, b'a'])
            .unwrap_err()
            .to_string(),
        "CDR decode of std_msgs/msg/String: unexpected end of input"
    );
    // A huge sequence count fails on the missing bytes without allocating
    // for the count.
    let f = r.resolve("std_msgs/Float64MultiArray").unwrap();
    let mut b = vec![0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    b.extend(u32::MAX.to_le_bytes());
    assert!(decode(&f, &b).is_err());
}

fn random_elem(rng: &mut ChaCha8Rng, e: &Elem) -> Value {
    match e {
        Elem::Prim(p) => match p {
            Primitive::Bool => Value::Bool(rng.random()),
            Primitive::Byte | Primitive::Char | Primitive::U8 => Value::U8(rng.random()),
            Primitive::I8 => Value::I8(rng.random()),
            Primitive::I16 => Value::I16(rng.random()),
            Primitive::U16 => Value::U16(rng.random()),
            Primitive::I32 => Value::I32(rng.random()),
            Primitive::U32 => Value::U32(rng.random()),
            Primitive::I64 => Value::I64(rng.random()),
            Primitive::U64 => Value::U64(rng.random()),
            Primitive::F32 => Value::F32(rng.random_range(-1e6..1e6)),
            Primitive::F64 => Value::F64(rng.random_range(-1e9..1e9)),
        },
        Elem::String(b) | Elem::WString(b) => {
            let n = rng.random_range(0..12usize).min(b.unwrap_or(usize::MAX));
            Value::String((0..n).map(|_| rng.random_range('a'..='z')).collect())
        }
        Elem::Msg(t) => random_struct(rng, t),
    }
}

fn random_struct(rng: &mut ChaCha8Rng, ty: &ResolvedType) -> Value {
    Value::Struct(
        ty.fields
            .iter()
            .map(|f| {
                let n = match f.array {
                    ArrayKind::Single => return (f.name.clone(), random_elem(rng, &f.elem)),
                    ArrayKind::Fixed(n) => n,
                    ArrayKind::Unbounded => rng.random_range(0..4),
                    ArrayKind::Bounded(b) => rng.random_range(0..=b.min(4)),
                };
                let v = match &f.elem {
                    Elem::Prim(Primitive::F32) => {
                        Value::F32Seq((0..n).map(|_| rng.random()).collect())
                    }
                    Elem::Prim(Primitive::F64) => {
                        Value::F64Seq((0..n).map(|_| rng.random()).collect())
                    }
                    Elem::Prim(Primitive::U8 | Primitive::Byte | Primitive::Char) => {
                        Value::U8Seq((0..n).map(|_| rng.random()).collect())
                    }
                    e => Value::Seq((0..n).map(|_| random_elem(rng, e)).collect()),
                };
                (f.name.clone(), v)
            })
            .collect(),
    )
}

#[test]
fn random_values_of_every_builtin_type_round_trip() {
    let r = reg();
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let mut n = 0;
    for def in r.iter() {
        let ty = r.resolve(&def.name.to_string()).unwrap();
        for _ in 0..20 {
            let v = random_struct(&mut rng, &ty);
            let bytes = encode(&ty, &v).unwrap();
            assert_eq!(decode(&ty, &bytes).unwrap(), v, "{}", def.name);
            assert_eq!(
                padding_mask(&ty, &v).unwrap().len(),
                bytes.len() + breakbench_msgs::trailing_allowance(&ty, &v),
                "{}",
                def.name
            );
            n += 1;
        }
    }
    assert_eq!(n, 20 * 118);
}

/// ros2-client 0.12's bounds, copied: `Subscription::take_seed` /
/// `async_stream_seed` take `S: for<'de> DeserializeSeed<'de, Value = M> +
/// Clone` with `M: 'static`; `Publisher<M>` needs `M: Serialize`.
#[test]
fn typed_seed_and_typed_value_meet_ros2_clients_bounds() {
    fn take_seed<S, M>(_: S)
    where
        S: for<'de> DeserializeSeed<'de, Value = M> + Clone,
        M: 'static,
    {
    }
    fn publish<M: serde::Serialize>(_: &M) {}
    let ty = reg().resolve("sensor_msgs/Imu").unwrap();
    take_seed(TypedSeed::new(ty.clone()));
    publish(&TypedValue {
        value: Value::zero(&ty),
        ty,
    });
}

/// Appended after bytes already in the buffer (an odd count), the body is
/// aligned from its own start: the same bytes as a fresh encoding.
#[test]
fn encode_serde_into_appends_a_fresh_encoding() {
    #[derive(serde::Serialize)]
    struct S {
        a: u8,
        b: f64,
        c: Vec<f32>,
    }
    let s = S {
        a: 7,
        b: -1.5,
        c: vec![1.0, 2.0],
    };
    let fresh = breakbench_msgs::encode_serde("t/msg/S", &s).unwrap();
    assert_eq!(fresh.len(), 4 + 8 + 8 + 4 + 8);
    let mut buf = vec![9u8; 3];
    breakbench_msgs::encode_serde_into("t/msg/S", &s, &mut buf).unwrap();
    assert_eq!(&buf[..3], &[9, 9, 9]);
    assert_eq!(&buf[3..], &fresh[..]);
}
