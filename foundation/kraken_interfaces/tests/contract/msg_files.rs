//! The `.msg`/`.srv` files are the source of truth: parse every one of them
//! (constants, fields, types, fixed and unbounded arrays) and check that the
//! Rust types in `src/kraken.rs` have the same fields, in the same order, with
//! the same ROS types, and that the constants equal `FaultSpec::*` and
//! `MODE_NAMES`.
//!
//! The Rust side is read through serde: a recording `Serializer` walks a
//! value and records, per field, its name and the primitive serde call it
//! makes (`serialize_u8` = `uint8`, `serialize_tuple(9)` of f64 = `float64[9]`,
//! a sequence = `T[]`, a nested struct = its type name), which is what a CDR
//! encoder would see on the wire.

use std::fmt;
use std::path::{Path, PathBuf};

use kraken_interfaces::*;
use serde::ser::{self, Serialize};

// ---------------------------------------------------------------- .msg parser

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Field {
        ty: String,
        name: String,
    },
    Constant {
        ty: String,
        name: String,
        value: String,
    },
}

/// Parses one message body (or one half of a service). Comments start at `#`
/// (no string constants in these files); the type is normalised by dropping
/// `/msg/` (`builtin_interfaces/msg/Time` = `builtin_interfaces/Time`).
fn parse_msg(text: &str, file: &str) -> Vec<Item> {
    let mut items = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let (ty, rest) = line
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("{file}:{}: no name", i + 1));
        let ty = ty.replace("/msg/", "/");
        let rest = rest.trim();
        assert!(
            ty.trim_end_matches(|c: char| c == ']' || c.is_ascii_digit() || c == '[')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/'),
            "{file}:{}: bad type {ty}",
            i + 1
        );
        if let Some((name, value)) = rest.split_once('=') {
            let name = name.trim().to_string();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                "{file}: {name}"
            );
            items.push(Item::Constant {
                ty,
                name,
                value: value.trim().to_string(),
            });
        } else {
            let name = rest.split_whitespace().next().unwrap().to_string();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{file}: {name}"
            );
            assert_eq!(
                rest.split_whitespace().count(),
                1,
                "{file}:{}: default values are not used here",
                i + 1
            );
            items.push(Item::Field { ty, name });
        }
    }
    items
}

fn fields(items: &[Item]) -> Vec<(String, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Field { ty, name } => Some((name.clone(), ty.clone())),
            _ => None,
        })
        .collect()
}

fn constants(items: &[Item]) -> Vec<(String, String, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Constant { ty, name, value } => Some((name.clone(), ty.clone(), value.clone())),
            _ => None,
        })
        .collect()
}

// ------------------------------------------------------- recording serializer

#[derive(Debug)]
struct ProbeError(String);
impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ProbeError {}
impl ser::Error for ProbeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ProbeError(msg.to_string())
    }
}

/// What one value looks like to a serializer.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Prim(&'static str),
    Struct(&'static str, Vec<(&'static str, Shape)>),
    Tuple(Vec<Shape>),
    Seq(Vec<Shape>),
}

impl Shape {
    /// The ROS type this shape is on the wire. Nested structs of this package
    /// are named bare (as in the .msg files); `Time` is builtin_interfaces'.
    fn ros_type(&self) -> String {
        match self {
            Shape::Prim(p) => p.to_string(),
            Shape::Struct("Time", _) => "builtin_interfaces/Time".into(),
            Shape::Struct("Header", _) => "std_msgs/Header".into(),
            Shape::Struct(n, _) => n.to_string(),
            Shape::Tuple(e) => format!("{}[{}]", elem_type(e), e.len()),
            Shape::Seq(e) => format!("{}[]", elem_type(e)),
        }
    }
    fn fields(&self) -> Vec<(String, String)> {
        match self {
            Shape::Struct(_, f) => f
                .iter()
                .map(|(n, s)| (n.to_string(), s.ros_type()))
                .collect(),
            other => panic!("not a struct: {other:?}"),
        }
    }
}

fn elem_type(e: &[Shape]) -> String {
    let first = e
        .first()
        .expect("probe sequences with at least one element")
        .ros_type();
    assert!(
        e.iter().all(|s| s.ros_type() == first),
        "heterogeneous array"
    );
    first
}

struct Probe;
struct Collect(Vec<Shape>, bool);
struct Fields(&'static str, Vec<(&'static str, Shape)>);

type R = Result<Shape, ProbeError>;

impl ser::Serializer for Probe {
    type Ok = Shape;
    type Error = ProbeError;
    type SerializeSeq = Collect;
    type SerializeTuple = Collect;
    type SerializeTupleStruct = Collect;
    type SerializeTupleVariant = ser::Impossible<Shape, ProbeError>;
    type SerializeMap = ser::Impossible<Shape, ProbeError>;
    type SerializeStruct = Fields;
    type SerializeStructVariant = ser::Impossible<Shape, ProbeError>;

    fn serialize_bool(self, _: bool) -> R {
        Ok(Shape::Prim("bool"))
    }
    fn serialize_i8(self, _: i8) -> R {
        Ok(Shape::Prim("int8"))
    }
    fn serialize_i16(self, _: i16) -> R {
        Ok(Shape::Prim("int16"))
    }
    fn serialize_i32(self, _: i32) -> R {
        Ok(Shape::Prim("int32"))
    }
    fn serialize_i64(self, _: i64) -> R {
        Ok(Shape::Prim("int64"))
    }
    fn serialize_u8(self, _: u8) -> R {
        Ok(Shape::Prim("uint8"))
    }
    fn serialize_u16(self, _: u16) -> R {
        Ok(Shape::Prim("uint16"))
    }
    fn serialize_u32(self, _: u32) -> R {
        Ok(Shape::Prim("uint32"))
    }
    fn serialize_u64(self, _: u64) -> R {
        Ok(Shape::Prim("uint64"))
    }
    fn serialize_f32(self, _: f32) -> R {
        Ok(Shape::Prim("float32"))
    }
    fn serialize_f64(self, _: f64) -> R {
        Ok(Shape::Prim("float64"))
    }
    fn serialize_char(self, _: char) -> R {
        Err(ser::Error::custom("char has no ROS type"))
    }
    fn serialize_str(self, _: &str) -> R {
        Ok(Shape::Prim("string"))
    }
    fn serialize_bytes(self, _: &[u8]) -> R {
        Err(ser::Error::custom("bytes not used"))
    }
    fn serialize_none(self) -> R {
        Err(ser::Error::custom("Option has no ROS type"))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> R {
        Err(ser::Error::custom("Option has no ROS type"))
    }
    fn serialize_unit(self) -> R {
        Err(ser::Error::custom("unit has no ROS type"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Err(ser::Error::custom("unit struct has no ROS type"))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> R {
        Err(ser::Error::custom("enums have no ROS type"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> R {
        v.serialize(Probe)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R {
        Err(ser::Error::custom("enums have no ROS type"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Collect, ProbeError> {
        Ok(Collect(Vec::new(), false))
    }
    fn serialize_tuple(self, _: usize) -> Result<Collect, ProbeError> {
        Ok(Collect(Vec::new(), true))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Collect, ProbeError> {
        Ok(Collect(Vec::new(), true))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, ProbeError> {
        Err(ser::Error::custom("enums have no ROS type"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, ProbeError> {
        Err(ser::Error::custom("maps have no ROS type"))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Fields, ProbeError> {
        Ok(Fields(name, Vec::new()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, ProbeError> {
        Err(ser::Error::custom("enums have no ROS type"))
    }
}

impl Collect {
    fn done(self) -> R {
        Ok(if self.1 {
            Shape::Tuple(self.0)
        } else {
            Shape::Seq(self.0)
        })
    }
}

impl ser::SerializeSeq for Collect {
    type Ok = Shape;
    type Error = ProbeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), ProbeError> {
        self.0.push(v.serialize(Probe)?);
        Ok(())
    }
    fn end(self) -> R {
        self.done()
    }
}
impl ser::SerializeTuple for Collect {
    type Ok = Shape;
    type Error = ProbeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), ProbeError> {
        self.0.push(v.serialize(Probe)?);
        Ok(())
    }
    fn end(self) -> R {
        self.done()
    }
}
impl ser::SerializeTupleStruct for Collect {
    type Ok = Shape;
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), ProbeError> {
        self.0.push(v.serialize(Probe)?);
        Ok(())
    }
    fn end(self) -> R {
        self.done()
    }
}
impl ser::SerializeStruct for Fields {
    type Ok = Shape;
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), ProbeError> {
        self.1.push((key, v.serialize(Probe)?));
        Ok(())
    }
    fn end(self) -> R {
        Ok(Shape::Struct(self.0, self.1))
    }
}

fn shape<T: Serialize>(v: &T) -> Shape {
    v.serialize(Probe).expect("every field has a ROS type")
}

// ----------------------------------------------------------------- the tests

fn pkg() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(pkg().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// The Rust value standing for each message (sequences given one element so
/// their element type is visible).
fn rust_shape_of_msg(name: &str) -> Shape {
    match name {
        "FaultSpec" => shape(&FaultSpec::default()),
        "ChannelFaultStatus" => shape(&ChannelFaultStatus::default()),
        "RunEvent" => shape(&RunEvent::default()),
        "FaultStatus" => shape(&FaultStatus {
            channels: vec![ChannelFaultStatus::default()],
            ..Default::default()
        }),
        other => panic!(
            "msg/{other}.msg has no Rust type in this test: add it to src/kraken.rs and here"
        ),
    }
}

#[test]
fn parser_reads_types_arrays_and_constants() {
    let items = parse_msg(
        "uint8 A=3 # c\nfloat64[9] cov\nFoo[] foos # x\nbuiltin_interfaces/msg/Time t\n",
        "t.msg",
    );
    assert_eq!(
        items,
        vec![
            Item::Constant {
                ty: "uint8".into(),
                name: "A".into(),
                value: "3".into()
            },
            Item::Field {
                ty: "float64[9]".into(),
                name: "cov".into()
            },
            Item::Field {
                ty: "Foo[]".into(),
                name: "foos".into()
            },
            Item::Field {
                ty: "builtin_interfaces/Time".into(),
                name: "t".into()
            },
        ]
    );
    // The probe sees a fixed array as T[N] and a Vec as T[].
    assert_eq!(
        shape(&kraken_interfaces::ros::NavSatFix::default()).fields()[5],
        ("position_covariance".into(), "float64[9]".into())
    );
}

#[test]
fn every_msg_file_matches_its_rust_type_field_for_field() {
    let msgs = files("msg", "msg");
    let names: Vec<String> = msgs.iter().map(|p| stem(p)).collect();
    assert_eq!(
        names,
        ["ChannelFaultStatus", "FaultSpec", "FaultStatus", "RunEvent"]
    );
    // The compiled-in copies are these files, in this order.
    for (p, (name, text)) in msgs.iter().zip(kraken_interfaces::MSG_FILES) {
        assert_eq!(
            (
                stem(p).as_str(),
                std::fs::read_to_string(p).unwrap().as_str()
            ),
            (name, text)
        );
    }
    for p in &msgs {
        let name = stem(p);
        let items = parse_msg(
            &std::fs::read_to_string(p).unwrap(),
            &p.display().to_string(),
        );
        let want = fields(&items);
        let got = rust_shape_of_msg(&name).fields();
        assert_eq!(
            got,
            want,
            "{name}: Rust fields (left) differ from {}",
            p.display()
        );
        match rust_shape_of_msg(&name) {
            Shape::Struct(n, _) => assert_eq!(n, name),
            _ => unreachable!(),
        }
    }
}

fn check_srv<Req: Serialize, Resp: Serialize>(path: &Path, req: &Req, resp: &Resp) {
    let name = stem(path);
    let text = std::fs::read_to_string(path).unwrap();
    let (q, r) = text.split_once("\n---\n").expect("request --- response");
    let req_items = parse_msg(q, &format!("{name}.srv request"));
    let resp_items = parse_msg(r, &format!("{name}.srv response"));
    assert_eq!(shape(req).fields(), fields(&req_items), "{name} request");
    assert_eq!(shape(resp).fields(), fields(&resp_items), "{name} response");
    assert!(constants(&req_items).is_empty() && constants(&resp_items).is_empty());
}

#[test]
fn every_srv_file_matches_its_rust_types() {
    let srvs = files("srv", "srv");
    assert_eq!(
        srvs.iter().map(|p| stem(p)).collect::<Vec<_>>(),
        ["ClearFaultStage", "ResetRun", "SetFault", "SetFaultStack"]
    );
    check_srv(
        &srvs[0],
        &ClearFaultStageRequest::default(),
        &ClearFaultStageResponse::default(),
    );
    check_srv(
        &srvs[1],
        &ResetRunRequest::default(),
        &ResetRunResponse::default(),
    );
    check_srv(
        &srvs[2],
        &SetFaultRequest::default(),
        &SetFaultResponse::default(),
    );
    check_srv(
        &srvs[3],
        &SetFaultStackRequest::default(),
        // One id, so the sequence's element type is visible.
        &SetFaultStackResponse {
            ids: vec![1],
            ..Default::default()
        },
    );
}

#[test]
fn fault_spec_constants_match_rust_and_mode_names() {
    let items = parse_msg(
        &std::fs::read_to_string(pkg().join("msg/FaultSpec.msg")).unwrap(),
        "FaultSpec.msg",
    );
    // The mode table (kraken_interfaces::MODES) in constant order, then the
    // loss models.
    let rust: Vec<(&str, u8)> = kraken_interfaces::MODES
        .iter()
        .map(|m| (m.constant, m.mode))
        .chain([
            ("LOSS_BERNOULLI", FaultSpec::LOSS_BERNOULLI),
            ("LOSS_BURST", FaultSpec::LOSS_BURST),
            ("LOSS_GILBERT_ELLIOTT", FaultSpec::LOSS_GILBERT_ELLIOTT),
        ])
        .collect();
    let file: Vec<(String, String, String)> = constants(&items);
    assert_eq!(file.len(), rust.len(), "constant count: {file:?}");
    for ((name, ty, value), (rname, rvalue)) in file.iter().zip(&rust) {
        assert_eq!((name.as_str(), ty.as_str()), (*rname, "uint8"));
        assert_eq!(value.parse::<u8>().unwrap(), *rvalue, "{name}");
    }
    // The first five are fixed by the FaultSpec.msg contract.
    assert_eq!(
        (
            FaultSpec::HEALTHY,
            FaultSpec::DROPOUT,
            FaultSpec::DEGRADE,
            FaultSpec::BIAS_RAMP,
            FaultSpec::SLIP
        ),
        (0, 1, 2, 3, 4)
    );
    // Mode constants (all but LOSS_*) are MODE_NAMES in upper case, by value.
    let modes: Vec<&(String, String, String)> = file
        .iter()
        .filter(|(n, _, _)| !n.starts_with("LOSS_"))
        .collect();
    assert_eq!(modes.len(), MODE_NAMES.len());
    for (name, _, value) in modes {
        let v: u8 = value.parse().unwrap();
        assert_eq!(MODE_NAMES[v as usize].to_uppercase(), *name);
        assert_eq!(mode_from_name(&name.to_lowercase()), Some(v));
        assert_eq!(mode_name(v), Some(MODE_NAMES[v as usize]));
    }
    assert_eq!(mode_name(MODE_NAMES.len() as u8), None);
}

#[test]
fn run_event_constants_match_rust() {
    let items = parse_msg(
        &std::fs::read_to_string(pkg().join("msg/RunEvent.msg")).unwrap(),
        "RunEvent.msg",
    );
    let file: Vec<(String, String, u8)> = constants(&items)
        .into_iter()
        .map(|(n, t, v)| (n, t, v.parse().unwrap()))
        .collect();
    let rust = [
        ("TRIGGER", RunEvent::TRIGGER),
        ("REQUESTED", RunEvent::REQUESTED),
        ("APPLIED", RunEvent::APPLIED),
        ("CLEARED", RunEvent::CLEARED),
        ("EXPECTATION", RunEvent::EXPECTATION),
        ("VERDICT", RunEvent::VERDICT),
    ];
    let rust: Vec<(String, String, u8)> = rust
        .iter()
        .map(|(n, v)| (n.to_string(), "uint8".to_string(), *v))
        .collect();
    assert_eq!(file, rust);
}

// ------------------------------------------- standard ROS 2 types (src/ros.rs)

/// The standard messages of `src/ros.rs` held against `tests/ros_msgs/`:
/// `(package, name, Rust shape, Rust constants (name, value))`.
type StandardType = (&'static str, &'static str, Shape, Vec<(&'static str, u8)>);

fn standard_types() -> Vec<StandardType> {
    use kraken_interfaces::ros::{DiagnosticArray, DiagnosticStatus, KeyValue, Log};
    vec![
        (
            "rcl_interfaces",
            "Log",
            shape(&Log::default()),
            vec![
                ("DEBUG", Log::DEBUG),
                ("INFO", Log::INFO),
                ("WARN", Log::WARN),
                ("ERROR", Log::ERROR),
                ("FATAL", Log::FATAL),
            ],
        ),
        (
            "diagnostic_msgs",
            "KeyValue",
            shape(&KeyValue::default()),
            vec![],
        ),
        (
            "diagnostic_msgs",
            "DiagnosticStatus",
            shape(&DiagnosticStatus {
                values: vec![KeyValue::default()],
                ..Default::default()
            }),
            vec![
                ("OK", DiagnosticStatus::OK),
                ("WARN", DiagnosticStatus::WARN),
                ("ERROR", DiagnosticStatus::ERROR),
                ("STALE", DiagnosticStatus::STALE),
            ],
        ),
        (
            "diagnostic_msgs",
            "DiagnosticArray",
            shape(&DiagnosticArray {
                status: vec![DiagnosticStatus::default()],
                ..Default::default()
            }),
            vec![],
        ),
    ]
}

/// A ROS `byte` is one octet on the wire, as `uint8` (what a `u8` serialises as).
fn octet(ty: &str) -> String {
    match ty {
        "byte" => "uint8".into(),
        t => t.to_string(),
    }
}

#[test]
fn standard_types_match_their_msg_files_field_for_field() {
    for (pkg_name, name, rust, rust_consts) in standard_types() {
        let p = pkg().join(format!("tests/ros_msgs/{pkg_name}/{name}.msg"));
        let items = parse_msg(
            &std::fs::read_to_string(&p).unwrap(),
            &p.display().to_string(),
        );
        let want: Vec<(String, String)> = fields(&items)
            .into_iter()
            .map(|(n, t)| (n, octet(&t)))
            .collect();
        assert_eq!(
            rust.fields(),
            want,
            "{pkg_name}/{name}: Rust fields (left) differ from {}",
            p.display()
        );
        match &rust {
            Shape::Struct(n, _) => assert_eq!(*n, name),
            _ => unreachable!(),
        }
        let file: Vec<(String, u8)> = constants(&items)
            .into_iter()
            .map(|(n, t, v)| {
                assert_eq!(octet(&t), "uint8", "{name}.{n}");
                (n, v.parse().unwrap())
            })
            .collect();
        let rust_consts: Vec<(String, u8)> = rust_consts
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        assert_eq!(rust_consts, file, "{pkg_name}/{name}: constants");
    }
}

/// Where the ROS 2 venv (`ROS_VENV`, default `<repo>/.venv-ros`) is
/// installed, each copy in `tests/ros_msgs/` has the fields and constants
/// of the installed `.msg` file of that name (comments aside). Types the
/// venv does not ship are listed on stderr, not checked.
#[test]
fn standard_msg_copies_match_the_installed_ros_2_files() {
    let venv = std::env::var_os("ROS_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| pkg().join("../../.venv-ros"));
    if !venv.join("share").is_dir() {
        eprintln!("no ROS 2 venv at {}: copies not compared", venv.display());
        return;
    }
    let mut compared = 0;
    for (pkg_name, name, _, _) in standard_types() {
        let installed = venv.join(format!("share/{pkg_name}/msg/{name}.msg"));
        let Ok(text) = std::fs::read_to_string(&installed) else {
            eprintln!("{} not installed: copy not compared", installed.display());
            continue;
        };
        let copy = pkg().join(format!("tests/ros_msgs/{pkg_name}/{name}.msg"));
        assert_eq!(
            parse_msg(&std::fs::read_to_string(&copy).unwrap(), "copy"),
            parse_msg(&text, &installed.display().to_string()),
            "{} differs from {}",
            copy.display(),
            installed.display()
        );
        compared += 1;
    }
    // The Jazzy venv of this project ships rcl_interfaces (rclpy needs it).
    assert!(
        compared >= 1,
        "no standard type found in {}",
        venv.display()
    );
}
