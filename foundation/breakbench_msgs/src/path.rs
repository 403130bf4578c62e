//! Field paths (REQ-MSG-PATH): the address of what a data fault changes.
//!
//! Syntax: a field name, then any number of `.name` and index segments:
//! `[i]` (one element), `[*]` (every element), `[a:b]` (elements a ≤ i < b,
//! half-open). Examples: `angular_velocity.z`, `pose.pose.position.x`,
//! `header.stamp`, `ranges[*]`, `ranges[0:90]`, `orientation` (a whole
//! sub-message), `pose.covariance[0]`, `status[*].values[*].value`.
//!
//! [`FieldPath::resolve`] checks a path against a type once and gives a
//! [`Selector`]; [`Selector::visit_mut`] then visits the selected leaves of
//! each message value. A path that does not exist in the type is refused at
//! resolve time with a message naming the path, the segment and the type. An
//! index beyond a fixed array's length is refused there too; on a sequence
//! (whose length varies per message) the part of `[i]` or `[a:b]` beyond the
//! value's length selects nothing.

use std::fmt;
use std::sync::Arc;

use crate::def::{ArrayKind, Primitive, TypeName};
use crate::registry::{Elem, ResolvedType};
use crate::value::Value;
use crate::MsgError;

/// One segment of a [`FieldPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// `name` / `.name`
    Field(String),
    /// `[i]`
    Index(usize),
    /// `[*]`
    All,
    /// `[a:b]`, a < b
    Slice(usize, usize),
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Field(n) => f.write_str(n),
            Segment::Index(i) => write!(f, "[{i}]"),
            Segment::All => f.write_str("[*]"),
            Segment::Slice(a, b) => write!(f, "[{a}:{b}]"),
        }
    }
}

/// A parsed field path, not yet checked against a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    segments: Vec<Segment>,
}

/// What a selector's leaves are. Every leaf of one selector has the same
/// type.
#[derive(Debug, Clone, PartialEq)]
pub enum LeafType {
    /// A primitive scalar (an element of a typed sequence included).
    Prim(Primitive),
    /// A string (`string` or `wstring`, bounded or not).
    String,
    /// A whole sub-message.
    Msg(TypeName),
    /// A whole array or sequence of `elem` (a path ending at an array
    /// field without an index).
    Array {
        /// The element type.
        elem: Elem,
        /// Its kind.
        array: ArrayKind,
    },
}

impl fmt::Display for LeafType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeafType::Prim(p) => f.write_str(p.msg_name()),
            LeafType::String => f.write_str("string"),
            LeafType::Msg(t) => write!(f, "{t}"),
            LeafType::Array { elem, array } => write!(f, "{}", describe(elem, *array)),
        }
    }
}

/// One selected leaf, borrowed mutably from the message value.
#[derive(Debug)]
pub enum LeafMut<'a> {
    /// A scalar, string, sub-message or whole array held as a [`Value`].
    Value(&'a mut Value),
    /// An element of a `Value::F32Seq`.
    F32(&'a mut f32),
    /// An element of a `Value::F64Seq`.
    F64(&'a mut f64),
    /// An element of a `Value::U8Seq`.
    U8(&'a mut u8),
}

impl LeafMut<'_> {
    /// The leaf as f64 if numeric (see [`Value::as_f64`]).
    pub fn get_f64(&self) -> Option<f64> {
        match self {
            LeafMut::Value(v) => v.as_f64(),
            LeafMut::F32(x) => Some(f64::from(**x)),
            LeafMut::F64(x) => Some(**x),
            LeafMut::U8(x) => Some(f64::from(**x)),
        }
    }

    /// Set a numeric leaf from an f64, keeping its type (see
    /// [`Value::set_f64`]); false for a non-numeric leaf.
    pub fn set_f64(&mut self, v: f64) -> bool {
        match self {
            LeafMut::Value(x) => x.set_f64(v),
            LeafMut::F32(x) => {
                **x = v as f32;
                true
            }
            LeafMut::F64(x) => {
                **x = v;
                true
            }
            LeafMut::U8(x) => {
                **x = v as u8;
                true
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// Field by position in the struct.
    Field(usize),
    Index(usize),
    All,
    Slice(usize, usize),
}

/// A path resolved against a type: visits the selected leaves of values of
/// that type.
#[derive(Debug, Clone)]
pub struct Selector {
    text: String,
    ty: Arc<ResolvedType>,
    steps: Vec<Step>,
    leaf: LeafType,
}

fn describe(elem: &Elem, array: ArrayKind) -> String {
    let base = match elem {
        Elem::Prim(p) => p.msg_name().to_string(),
        Elem::String(None) => "string".into(),
        Elem::String(Some(n)) => format!("string<={n}"),
        Elem::WString(None) => "wstring".into(),
        Elem::WString(Some(n)) => format!("wstring<={n}"),
        Elem::Msg(t) => t.name.to_string(),
    };
    match array {
        ArrayKind::Single => base,
        ArrayKind::Fixed(n) => format!("{base}[{n}]"),
        ArrayKind::Unbounded => format!("{base}[]"),
        ArrayKind::Bounded(n) => format!("{base}[<={n}]"),
    }
}

impl FieldPath {
    /// Parse `name(.name|[i]|[*]|[a:b])*`.
    ///
    /// # Errors
    /// [`MsgError::Path`] naming the path and what is malformed: an empty
    /// segment, a bad field name, an unclosed or bad index, an empty slice.
    pub fn parse(text: &str) -> Result<FieldPath, MsgError> {
        let err = |reason: String| MsgError::Path {
            path: text.to_string(),
            reason,
        };
        let mut segments = Vec::new();
        let mut rest = text;
        let mut expect_name = true;
        while !rest.is_empty() || expect_name {
            if expect_name {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                let name = &rest[..end];
                let ok = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if !ok {
                    return Err(err(if name.is_empty() {
                        "empty field name".to_string()
                    } else {
                        format!("'{name}' is not a field name")
                    }));
                }
                segments.push(Segment::Field(name.to_string()));
                rest = &rest[end..];
                expect_name = false;
            } else if let Some(r) = rest.strip_prefix('.') {
                rest = r;
                expect_name = true;
            } else if let Some(r) = rest.strip_prefix('[') {
                let close = r
                    .find(']')
                    .ok_or_else(|| err(format!("'[{r}' is not closed by ']'")))?;
                let inner = &r[..close];
                let num = |s: &str| -> Result<usize, MsgError> {
                    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(err(format!(
                            "'[{inner}]': want [i], [*] or [a:b] with non-negative integers"
                        )));
                    }
                    s.parse()
                        .map_err(|_| err(format!("'[{inner}]': index too large")))
                };
                let seg = if inner == "*" {
                    Segment::All
                } else if let Some((a, b)) = inner.split_once(':') {
                    let (a, b) = (num(a)?, num(b)?);
                    if a >= b {
                        return Err(err(format!(
                            "'[{inner}]': empty slice (half-open [a:b] needs a < b)"
                        )));
                    }
                    Segment::Slice(a, b)
                } else {
                    Segment::Index(num(inner)?)
                };
                segments.push(seg);
                rest = &r[close + 1..];
            } else {
                return Err(err(format!(
                    "unexpected '{rest}' (want '.name' or '[...]')"
                )));
            }
        }
        Ok(FieldPath {
            text: text.to_string(),
            segments,
        })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its segments.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Check the path against `ty` and build a [`Selector`].
    ///
    /// # Errors
    /// [`MsgError::Path`] naming the path, the segment and the type: no such
    /// field ("sensor_msgs/msg/Imu field 'angular_velocity' is
    /// geometry_msgs/msg/Vector3, which has no field 'w'"), a field of a
    /// primitive/string/array reached with `.name`, an index on a non-array,
    /// an index or slice beyond a fixed array's length.
    pub fn resolve(&self, ty: &Arc<ResolvedType>) -> Result<Selector, MsgError> {
        let err = |reason: String| MsgError::Path {
            path: self.text.clone(),
            reason,
        };
        let mut steps = Vec::new();
        // Where we are: a message, or an array of `elem` reached through
        // `field_desc`, or a scalar/string.
        enum At<'a> {
            Msg(&'a Arc<ResolvedType>, String),
            Array(&'a Elem, ArrayKind, String),
            Elem(&'a Elem, String),
        }
        let mut at = At::Msg(ty, ty.name.to_string());
        for seg in &self.segments {
            at = match (seg, at) {
                (Segment::Field(name), At::Msg(t, desc)) => {
                    let Some(i) = t.fields.iter().position(|f| &*f.name == name) else {
                        return Err(err(if Arc::ptr_eq(t, ty) {
                            format!("{} has no field '{name}'", ty.name)
                        } else {
                            format!("{desc} is {}, which has no field '{name}'", t.name)
                        }));
                    };
                    steps.push(Step::Field(i));
                    let f = &t.fields[i];
                    let desc = format!("{} field '{}'", t.name, f.name);
                    match (&f.elem, f.array) {
                        (Elem::Msg(sub), ArrayKind::Single) => At::Msg(sub, desc),
                        (e, ArrayKind::Single) => At::Elem(e, desc),
                        (e, a) => At::Array(e, a, desc),
                    }
                }
                (Segment::Field(name), At::Array(e, a, desc)) => {
                    return Err(err(format!(
                        "{desc} is {}: index it ([i], [*] or [a:b]) before '.{name}'",
                        describe(e, a)
                    )))
                }
                (Segment::Field(name), At::Elem(e, desc)) => {
                    return Err(err(format!(
                        "{desc} is {}, which has no field '{name}'",
                        describe(e, ArrayKind::Single)
                    )))
                }
                (idx, At::Array(e, a, desc)) => {
                    if let ArrayKind::Fixed(n) = a {
                        let end = match idx {
                            Segment::Index(i) => i + 1,
                            Segment::Slice(_, b) => *b,
                            _ => 0,
                        };
                        if end > n {
                            return Err(err(format!(
                                "{idx} is out of range: {desc} is {}",
                                describe(e, a)
                            )));
                        }
                    }
                    steps.push(match idx {
                        Segment::Index(i) => Step::Index(*i),
                        Segment::All => Step::All,
                        Segment::Slice(x, y) => Step::Slice(*x, *y),
                        Segment::Field(_) => unreachable!(),
                    });
                    let desc = format!("{desc}{idx}");
                    match e {
                        Elem::Msg(sub) => At::Msg(sub, desc),
                        e => At::Elem(e, desc),
                    }
                }
                (idx, At::Msg(t, desc)) => {
                    return Err(err(if Arc::ptr_eq(t, ty) && steps.is_empty() {
                        format!("{idx}: {} is a message, not an array", t.name)
                    } else {
                        format!("{idx}: {desc} is {}, not an array", t.name)
                    }))
                }
                (idx, At::Elem(e, desc)) => {
                    return Err(err(format!(
                        "{idx}: {desc} is {}, not an array",
                        describe(e, ArrayKind::Single)
                    )))
                }
            };
        }
        let leaf = match at {
            At::Msg(t, _) => LeafType::Msg(t.name.clone()),
            At::Array(e, a, _) => LeafType::Array {
                elem: e.clone(),
                array: a,
            },
            At::Elem(Elem::Prim(p), _) => LeafType::Prim(*p),
            At::Elem(_, _) => LeafType::String,
        };
        Ok(Selector {
            text: self.text.clone(),
            ty: ty.clone(),
            steps,
            leaf,
        })
    }
}

impl Selector {
    /// The path as written.
    pub fn path(&self) -> &str {
        &self.text
    }

    /// The type it was resolved against.
    pub fn ty(&self) -> &Arc<ResolvedType> {
        &self.ty
    }

    /// The type of every selected leaf.
    pub fn leaf_type(&self) -> &LeafType {
        &self.leaf
    }

    /// Call `f` on every selected leaf of `value` (a message of the
    /// selector's type), in order, with the leaf's type (the same for every
    /// leaf: [`Selector::leaf_type`]); returns how many were visited. A
    /// sequence shorter than an index or slice gives fewer (or no) leaves.
    ///
    /// # Errors
    /// [`MsgError::Path`] if `value` does not have the shape of the type.
    pub fn visit_mut<F: FnMut(&LeafType, LeafMut<'_>)>(
        &self,
        value: &mut Value,
        mut f: F,
    ) -> Result<usize, MsgError> {
        let mut n = 0;
        let leaf = &self.leaf;
        self.walk(&self.steps, value, &mut |l| {
            n += 1;
            f(leaf, l)
        })?;
        Ok(n)
    }

    fn shape_err(&self, what: &str, v: &Value) -> MsgError {
        MsgError::Path {
            path: self.text.clone(),
            reason: format!(
                "the value does not have the shape of {}: want {what}, found {}",
                self.ty.name,
                v.kind_name()
            ),
        }
    }

    fn walk(
        &self,
        steps: &[Step],
        v: &mut Value,
        f: &mut dyn FnMut(LeafMut<'_>),
    ) -> Result<(), MsgError> {
        let Some((step, rest)) = steps.split_first() else {
            f(LeafMut::Value(v));
            return Ok(());
        };
        let range = |len: usize| -> std::ops::Range<usize> {
            match step {
                Step::Index(i) => (*i).min(len)..(i + 1).min(len),
                Step::All => 0..len,
                Step::Slice(a, b) => (*a).min(len)..(*b).min(len),
                Step::Field(_) => 0..0,
            }
        };
        match (step, v) {
            (Step::Field(i), Value::Struct(fs)) => match fs.get_mut(*i) {
                Some((_, fv)) => self.walk(rest, fv, f),
                None => Err(MsgError::Path {
                    path: self.text.clone(),
                    reason: format!(
                        "the value does not have the shape of {}: a message with {} fields",
                        self.ty.name,
                        fs.len()
                    ),
                }),
            },
            (Step::Field(_), other) => Err(self.shape_err("Struct", other)),
            (_, Value::F32Seq(x)) => {
                let r = range(x.len());
                x[r].iter_mut().for_each(|e| f(LeafMut::F32(e)));
                Ok(())
            }
            (_, Value::F64Seq(x)) => {
                let r = range(x.len());
                x[r].iter_mut().for_each(|e| f(LeafMut::F64(e)));
                Ok(())
            }
            (_, Value::U8Seq(x)) => {
                let r = range(x.len());
                x[r].iter_mut().for_each(|e| f(LeafMut::U8(e)));
                Ok(())
            }
            (_, Value::Seq(x)) => {
                let r = range(x.len());
                for e in &mut x[r] {
                    self.walk(rest, e, f)?;
                }
                Ok(())
            }
            (_, other) => Err(self.shape_err("a sequence", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TypeRegistry;

    fn sel(ty: &str, path: &str) -> Result<Selector, String> {
        let r = TypeRegistry::builtin();
        let t = r.resolve(ty).unwrap();
        FieldPath::parse(path)
            .and_then(|p| p.resolve(&t))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_issue_paths_resolve_with_their_leaf_types() {
        let cases = [
            ("sensor_msgs/Imu", "angular_velocity.z", "float64"),
            ("nav_msgs/Odometry", "pose.pose.position.x", "float64"),
            (
                "sensor_msgs/Imu",
                "header.stamp",
                "builtin_interfaces/msg/Time",
            ),
            ("sensor_msgs/LaserScan", "ranges[*]", "float32"),
            ("sensor_msgs/LaserScan", "ranges[0:90]", "float32"),
            (
                "sensor_msgs/Imu",
                "orientation",
                "geometry_msgs/msg/Quaternion",
            ),
            ("sensor_msgs/LaserScan", "ranges", "float32[]"),
            ("sensor_msgs/Imu", "header.frame_id", "string"),
            ("sensor_msgs/NavSatFix", "status.status", "int8"),
            ("nav_msgs/Odometry", "pose.covariance[35]", "float64"),
            (
                "diagnostic_msgs/DiagnosticArray",
                "status[*].values[*].value",
                "string",
            ),
            ("sensor_msgs/PointCloud2", "data[0:4]", "uint8"),
        ];
        for (ty, path, leaf) in cases {
            let s = sel(ty, path).unwrap_or_else(|e| panic!("{ty} {path}: {e}"));
            assert_eq!(s.leaf_type().to_string(), leaf, "{ty} {path}");
        }
    }

    #[test]
    fn refusals_name_the_path_the_segment_and_the_type() {
        let cases = [
            ("sensor_msgs/Imu", "angular_velocity.w",
             "path 'angular_velocity.w': sensor_msgs/msg/Imu field 'angular_velocity' is geometry_msgs/msg/Vector3, which has no field 'w'"),
            ("sensor_msgs/Imu", "angular_vel.z",
             "path 'angular_vel.z': sensor_msgs/msg/Imu has no field 'angular_vel'"),
            ("nav_msgs/Odometry", "pose.pose.position.x.y",
             "path 'pose.pose.position.x.y': geometry_msgs/msg/Point field 'x' is float64, which has no field 'y'"),
            ("sensor_msgs/LaserScan", "ranges.x",
             "path 'ranges.x': sensor_msgs/msg/LaserScan field 'ranges' is float32[]: index it ([i], [*] or [a:b]) before '.x'"),
            ("sensor_msgs/LaserScan", "angle_min[0]",
             "path 'angle_min[0]': [0]: sensor_msgs/msg/LaserScan field 'angle_min' is float32, not an array"),
            ("sensor_msgs/Imu", "orientation[*]",
             "path 'orientation[*]': [*]: sensor_msgs/msg/Imu field 'orientation' is geometry_msgs/msg/Quaternion, not an array"),
            ("sensor_msgs/Imu", "orientation_covariance[9]",
             "path 'orientation_covariance[9]': [9] is out of range: sensor_msgs/msg/Imu field 'orientation_covariance' is float64[9]"),
            ("sensor_msgs/Imu", "orientation_covariance[3:10]",
             "path 'orientation_covariance[3:10]': [3:10] is out of range: sensor_msgs/msg/Imu field 'orientation_covariance' is float64[9]"),
            ("diagnostic_msgs/DiagnosticArray", "status[0].valuez",
             "path 'status[0].valuez': sensor_msgs/msg/Imu"),
        ];
        for (ty, path, want) in &cases[..8] {
            assert_eq!(sel(ty, path).unwrap_err(), *want);
        }
        assert_eq!(
            sel(cases[8].0, cases[8].1).unwrap_err(),
            "path 'status[0].valuez': diagnostic_msgs/msg/DiagnosticArray field 'status'[0] is diagnostic_msgs/msg/DiagnosticStatus, which has no field 'valuez'"
        );
    }

    #[test]
    fn malformed_paths_are_refused() {
        for (p, want) in [
            ("", "path '': empty field name"),
            ("a..b", "path 'a..b': empty field name"),
            ("ranges[", "path 'ranges[': '[' is not closed by ']'"),
            (
                "ranges[-1]",
                "path 'ranges[-1]': '[-1]': want [i], [*] or [a:b] with non-negative integers",
            ),
            (
                "ranges[5:5]",
                "path 'ranges[5:5]': '[5:5]': empty slice (half-open [a:b] needs a < b)",
            ),
            (
                "ranges[0]x",
                "path 'ranges[0]x': unexpected 'x' (want '.name' or '[...]')",
            ),
            ("Pose.x", "path 'Pose.x': 'Pose' is not a field name"),
            ("pose.", "path 'pose.': empty field name"),
        ] {
            assert_eq!(FieldPath::parse(p).unwrap_err().to_string(), want);
        }
        assert_eq!(
            FieldPath::parse("a.b[2][*][1:3]").unwrap().segments(),
            &[
                Segment::Field("a".into()),
                Segment::Field("b".into()),
                Segment::Index(2),
                Segment::All,
                Segment::Slice(1, 3)
            ]
        );
    }

    #[test]
    fn visiting_changes_exactly_the_selected_leaves() {
        let r = TypeRegistry::builtin();
        let scan_t = r.resolve("sensor_msgs/LaserScan").unwrap();
        let mut scan = Value::zero(&scan_t);
        *scan.field_mut("ranges").unwrap() = Value::F32Seq((0..100).map(|i| i as f32).collect());
        let s = FieldPath::parse("ranges[10:20]")
            .unwrap()
            .resolve(&scan_t)
            .unwrap();
        let n = s
            .visit_mut(&mut scan, |t, mut l| {
                assert_eq!(t, &LeafType::Prim(Primitive::F32));
                let v = l.get_f64().unwrap();
                assert!(l.set_f64(-v));
            })
            .unwrap();
        assert_eq!(n, 10);
        let Some(Value::F32Seq(rg)) = scan.field("ranges") else {
            panic!()
        };
        assert_eq!(rg[9], 9.0);
        assert_eq!(rg[10], -10.0);
        assert_eq!(rg[19], -19.0);
        assert_eq!(rg[20], 20.0);
        // A slice beyond a shorter sequence selects what exists.
        let s = FieldPath::parse("ranges[95:200]")
            .unwrap()
            .resolve(&scan_t)
            .unwrap();
        assert_eq!(s.visit_mut(&mut scan, |_, _| {}).unwrap(), 5);
        let s = FieldPath::parse("ranges[300]")
            .unwrap()
            .resolve(&scan_t)
            .unwrap();
        assert_eq!(s.visit_mut(&mut scan, |_, _| {}).unwrap(), 0);

        // A whole sub-message.
        let imu_t = r.resolve("sensor_msgs/Imu").unwrap();
        let mut imu = Value::zero(&imu_t);
        let s = FieldPath::parse("orientation")
            .unwrap()
            .resolve(&imu_t)
            .unwrap();
        s.visit_mut(&mut imu, |_, l| {
            let LeafMut::Value(v) = l else { panic!() };
            v.field_mut("w").unwrap().set_f64(1.0);
        })
        .unwrap();
        assert_eq!(
            imu.field("orientation").unwrap().field("w"),
            Some(&Value::F64(1.0))
        );
        let s = FieldPath::parse("angular_velocity.z")
            .unwrap()
            .resolve(&imu_t)
            .unwrap();
        s.visit_mut(&mut imu, |_, mut l| assert!(l.set_f64(0.5)))
            .unwrap();
        assert_eq!(
            imu.field("angular_velocity").unwrap().field("z"),
            Some(&Value::F64(0.5))
        );
        assert_eq!(
            imu.field("angular_velocity").unwrap().field("x"),
            Some(&Value::F64(0.0))
        );

        // Nested sequences of messages.
        let d_t = r.resolve("diagnostic_msgs/DiagnosticArray").unwrap();
        let kv_t = r.resolve("diagnostic_msgs/KeyValue").unwrap();
        let st_t = r.resolve("diagnostic_msgs/DiagnosticStatus").unwrap();
        let mut st = Value::zero(&st_t);
        *st.field_mut("values").unwrap() = Value::Seq(vec![Value::zero(&kv_t); 3]);
        let mut d = Value::zero(&d_t);
        *d.field_mut("status").unwrap() = Value::Seq(vec![st.clone(), st]);
        let s = FieldPath::parse("status[*].values[1:3].value")
            .unwrap()
            .resolve(&d_t)
            .unwrap();
        let n = s
            .visit_mut(&mut d, |_, l| {
                let LeafMut::Value(Value::String(x)) = l else {
                    panic!()
                };
                x.push('!');
            })
            .unwrap();
        assert_eq!(n, 4);

        // A value of the wrong shape is an error, not a panic.
        let mut wrong = Value::F64(1.0);
        assert!(s
            .visit_mut(&mut wrong, |_, _| {})
            .unwrap_err()
            .to_string()
            .contains("want Struct"));
    }
}
