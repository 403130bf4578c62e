//! A dynamic message value (REQ-MSG-CDR).
//!
//! Shapes, for a field of element type T:
//!
//! | `.msg` type | `Value` |
//! |---|---|
//! | `bool` | `Bool` |
//! | `byte`, `char`, `uint8` | `U8` |
//! | other primitives | `I8` … `U64`, `F32`, `F64` (same width) |
//! | `string`, `wstring` (bounded or not) | `String` |
//! | a message | `Struct`: its fields in wire order, with their names |
//! | `float32[…]` (fixed, bounded, unbounded) | `F32Seq` |
//! | `float64[…]` | `F64Seq` |
//! | `uint8[…]`, `byte[…]`, `char[…]` | `U8Seq` |
//! | any other `T[…]` | `Seq` of T's shape |
//!
//! The typed sequences keep the hot cases (LaserScan `ranges`, PointCloud2
//! `data`, covariances) as flat vectors. Units are whatever the message
//! type says (REP-103 for the standard ones).

use std::sync::Arc;

use crate::def::{ArrayKind, Primitive};
use crate::registry::{Elem, ResolvedType};

/// A message value of a type known at run time. See the module docs for the
/// shape of each `.msg` type.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `bool`
    Bool(bool),
    /// `int8`
    I8(i8),
    /// `uint8`, `byte`, `char`
    U8(u8),
    /// `int16`
    I16(i16),
    /// `uint16`
    U16(u16),
    /// `int32`
    I32(i32),
    /// `uint32`
    U32(u32),
    /// `int64`
    I64(i64),
    /// `uint64`
    U64(u64),
    /// `float32`
    F32(f32),
    /// `float64`
    F64(f64),
    /// `string`, `wstring`
    String(String),
    /// A message: (field name, value) in wire order.
    Struct(Vec<(Arc<str>, Value)>),
    /// An array or sequence of anything but f32, f64 and octets.
    Seq(Vec<Value>),
    /// `float32[…]`
    F32Seq(Vec<f32>),
    /// `float64[…]`
    F64Seq(Vec<f64>),
    /// `uint8[…]`, `byte[…]`, `char[…]`
    U8Seq(Vec<u8>),
}

impl Value {
    /// The value of a message of type `ty` with every field zero, empty or
    /// false, fixed arrays at their length (field defaults are not applied).
    pub fn zero(ty: &ResolvedType) -> Value {
        Value::Struct(
            ty.fields
                .iter()
                .map(|f| (f.name.clone(), zero_field(&f.elem, f.array)))
                .collect(),
        )
    }

    /// The field `name` of a `Struct`.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(fs) => fs.iter().find(|(n, _)| &**n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The field `name` of a `Struct`, mutably.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Value> {
        match self {
            Value::Struct(fs) => fs.iter_mut().find(|(n, _)| &**n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A numeric scalar as f64 (`bool` as 0/1); `None` for the rest.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::I8(v) => v.into(),
            Value::U8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::I64(v) => v as f64,
            Value::U64(v) => v as f64,
            Value::F32(v) => v.into(),
            Value::F64(v) => v,
            _ => return None,
        })
    }

    /// Set a numeric scalar from an f64, keeping its type: integers take the
    /// value rounded toward zero and saturated at their range (NaN gives 0),
    /// `bool` is `v != 0`. Returns false (and changes nothing) for a
    /// non-numeric value.
    pub fn set_f64(&mut self, v: f64) -> bool {
        match self {
            Value::Bool(b) => *b = v != 0.0,
            Value::I8(x) => *x = v as i8,
            Value::U8(x) => *x = v as u8,
            Value::I16(x) => *x = v as i16,
            Value::U16(x) => *x = v as u16,
            Value::I32(x) => *x = v as i32,
            Value::U32(x) => *x = v as u32,
            Value::I64(x) => *x = v as i64,
            Value::U64(x) => *x = v as u64,
            Value::F32(x) => *x = v as f32,
            Value::F64(x) => *x = v,
            _ => return false,
        }
        true
    }

    /// The variant's name (`"F64"`, `"Struct"`, `"F32Seq"`, …), for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "Bool",
            Value::I8(_) => "I8",
            Value::U8(_) => "U8",
            Value::I16(_) => "I16",
            Value::U16(_) => "U16",
            Value::I32(_) => "I32",
            Value::U32(_) => "U32",
            Value::I64(_) => "I64",
            Value::U64(_) => "U64",
            Value::F32(_) => "F32",
            Value::F64(_) => "F64",
            Value::String(_) => "String",
            Value::Struct(_) => "Struct",
            Value::Seq(_) => "Seq",
            Value::F32Seq(_) => "F32Seq",
            Value::F64Seq(_) => "F64Seq",
            Value::U8Seq(_) => "U8Seq",
        }
    }

    /// Number of elements of an array/sequence value; `None` for the rest.
    pub fn seq_len(&self) -> Option<usize> {
        Some(match self {
            Value::Seq(v) => v.len(),
            Value::F32Seq(v) => v.len(),
            Value::F64Seq(v) => v.len(),
            Value::U8Seq(v) => v.len(),
            _ => return None,
        })
    }
}

/// The zero value of one element.
pub(crate) fn zero_elem(elem: &Elem) -> Value {
    match elem {
        Elem::Prim(p) => match p {
            Primitive::Bool => Value::Bool(false),
            Primitive::Byte | Primitive::Char | Primitive::U8 => Value::U8(0),
            Primitive::I8 => Value::I8(0),
            Primitive::I16 => Value::I16(0),
            Primitive::U16 => Value::U16(0),
            Primitive::I32 => Value::I32(0),
            Primitive::U32 => Value::U32(0),
            Primitive::I64 => Value::I64(0),
            Primitive::U64 => Value::U64(0),
            Primitive::F32 => Value::F32(0.0),
            Primitive::F64 => Value::F64(0.0),
        },
        Elem::String(_) | Elem::WString(_) => Value::String(String::new()),
        Elem::Msg(t) => Value::zero(t),
    }
}

fn zero_field(elem: &Elem, array: ArrayKind) -> Value {
    let n = match array {
        ArrayKind::Single => return zero_elem(elem),
        ArrayKind::Fixed(n) => n,
        ArrayKind::Unbounded | ArrayKind::Bounded(_) => 0,
    };
    match elem {
        Elem::Prim(Primitive::F32) => Value::F32Seq(vec![0.0; n]),
        Elem::Prim(Primitive::F64) => Value::F64Seq(vec![0.0; n]),
        Elem::Prim(Primitive::U8 | Primitive::Byte | Primitive::Char) => Value::U8Seq(vec![0; n]),
        _ => Value::Seq((0..n).map(|_| zero_elem(elem)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TypeRegistry;

    #[test]
    fn zero_values_have_the_documented_shapes() {
        let r = TypeRegistry::builtin();
        let imu = Value::zero(&r.resolve("sensor_msgs/msg/Imu").unwrap());
        assert_eq!(
            imu.field("orientation_covariance"),
            Some(&Value::F64Seq(vec![0.0; 9]))
        );
        assert_eq!(
            imu.field("orientation").unwrap().field("w"),
            Some(&Value::F64(0.0))
        );
        let scan = Value::zero(&r.resolve("sensor_msgs/LaserScan").unwrap());
        assert_eq!(scan.field("ranges"), Some(&Value::F32Seq(vec![])));
        let pc = Value::zero(&r.resolve("sensor_msgs/PointCloud2").unwrap());
        assert_eq!(pc.field("data"), Some(&Value::U8Seq(vec![])));
        assert_eq!(pc.field("fields"), Some(&Value::Seq(vec![])));
    }

    #[test]
    fn set_f64_keeps_the_type_and_saturates() {
        let mut v = Value::U8(3);
        assert!(v.set_f64(300.7));
        assert_eq!(v, Value::U8(255));
        let mut v = Value::I16(0);
        assert!(v.set_f64(-2.9));
        assert_eq!(v, Value::I16(-2));
        let mut v = Value::F32(0.0);
        assert!(v.set_f64(0.1));
        assert_eq!(v, Value::F32(0.1f32));
        let mut v = Value::String("x".into());
        assert!(!v.set_f64(1.0));
        assert_eq!(v.as_f64(), None);
    }
}
