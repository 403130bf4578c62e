//! Values for field faults: `set` and `fill` values ([`SetValue`]) checked
//! and converted to a field's type, numbers and values shown in messages,
//! and bitwise equality ([`same`]).

use breakbench_msgs::def::{ArrayKind, Primitive};
use breakbench_msgs::registry::Elem;
use breakbench_msgs::{LeafType, Value};

use super::super::SetValue;
use super::leaf::apply_patch;
use super::Patch;

/// A number for a message: plain for ordinary magnitudes, scientific beyond.
pub(super) fn num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() || (1e-4..1e15).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

pub(crate) fn show(v: &SetValue) -> String {
    match v {
        SetValue::Bool(b) => b.to_string(),
        SetValue::Int(i) => i.to_string(),
        SetValue::UInt(u) => u.to_string(),
        SetValue::Float(f) => num(*f),
        SetValue::Text(t) => format!("{t:?}"),
        SetValue::List(l) => format!("a list of {}", l.len()),
        SetValue::Map(_) => "a map".into(),
    }
}

/// max − min of an integer primitive, as f64 (None for floats and bool).
pub(super) fn int_span(p: Primitive) -> Option<f64> {
    match p {
        Primitive::F32 | Primitive::F64 | Primitive::Bool => None,
        p => {
            let (lo, hi) = int_range(p);
            Some((hi - lo) as f64)
        }
    }
}

pub(super) fn int_range(p: Primitive) -> (i128, i128) {
    match p {
        Primitive::I8 => (i8::MIN.into(), i8::MAX.into()),
        Primitive::U8 | Primitive::Byte | Primitive::Char => (0, u8::MAX.into()),
        Primitive::I16 => (i16::MIN.into(), i16::MAX.into()),
        Primitive::U16 => (0, u16::MAX.into()),
        Primitive::I32 => (i32::MIN.into(), i32::MAX.into()),
        Primitive::U32 => (0, u32::MAX.into()),
        Primitive::I64 => (i64::MIN.into(), i64::MAX.into()),
        Primitive::U64 => (0, u64::MAX.into()),
        Primitive::Bool => (0, 1),
        Primitive::F32 | Primitive::F64 => (i128::MIN, i128::MAX),
    }
}

pub(super) fn is_float(p: Primitive) -> bool {
    matches!(p, Primitive::F32 | Primitive::F64)
}

/// A `set` value for a primitive leaf, refused rather than wrapped.
pub(crate) fn prim_value(v: &SetValue, p: Primitive) -> Result<Value, String> {
    let name = p.msg_name();
    if p == Primitive::Bool {
        return match v {
            SetValue::Bool(b) => Ok(Value::Bool(*b)),
            SetValue::Int(0) | SetValue::UInt(0) => Ok(Value::Bool(false)),
            SetValue::Int(1) | SetValue::UInt(1) => Ok(Value::Bool(true)),
            _ => Err(format!(
                "{} does not fit bool (want true, false, 0 or 1)",
                show(v)
            )),
        };
    }
    if is_float(p) {
        let x = match v {
            SetValue::Int(i) => *i as f64,
            SetValue::UInt(u) => *u as f64,
            SetValue::Float(f) => *f,
            SetValue::Text(t) => match t.to_ascii_lowercase().as_str() {
                "nan" => f64::NAN,
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => {
                    return Err(format!(
                        "{} is not a number for {name} (numbers, \"nan\", \"inf\", \"-inf\")",
                        show(v)
                    ))
                }
            },
            _ => return Err(format!("{} is not a number for {name}", show(v))),
        };
        return if p == Primitive::F32 {
            if x.is_finite() && x.abs() > f64::from(f32::MAX) {
                Err(format!(
                    "{} does not fit float32 (largest finite {:e}; write \"inf\" for infinity)",
                    num(x),
                    f32::MAX
                ))
            } else {
                Ok(Value::F32(x as f32))
            }
        } else {
            Ok(Value::F64(x))
        };
    }
    let (lo, hi) = int_range(p);
    let i: i128 = match v {
        SetValue::Int(i) => (*i).into(),
        SetValue::UInt(u) => (*u).into(),
        SetValue::Float(f) if !f.is_finite() => {
            return Err(format!("{} does not fit {name} (no NaN or inf)", num(*f)))
        }
        SetValue::Float(f) if f.fract() != 0.0 => {
            return Err(format!("{} is not an integer: {name} needs one", num(*f)))
        }
        SetValue::Float(f) if f.abs() > 1e30 => {
            hi.saturating_add(1).saturating_mul(f.signum() as i128)
        }
        SetValue::Float(f) => *f as i128,
        _ => return Err(format!("{} is not an integer for {name}", show(v))),
    };
    if !(lo..=hi).contains(&i) {
        return Err(format!(
            "{} does not fit {name} [{lo}, {hi}]: refused rather than wrapped",
            show(v)
        ));
    }
    Ok(match p {
        Primitive::I8 => Value::I8(i as i8),
        Primitive::U8 | Primitive::Byte | Primitive::Char => Value::U8(i as u8),
        Primitive::I16 => Value::I16(i as i16),
        Primitive::U16 => Value::U16(i as u16),
        Primitive::I32 => Value::I32(i as i32),
        Primitive::U32 => Value::U32(i as u32),
        Primitive::I64 => Value::I64(i as i64),
        Primitive::U64 => Value::U64(i as u64),
        Primitive::Bool | Primitive::F32 | Primitive::F64 => unreachable!("handled above"),
    })
}

pub(super) fn field_names(t: &breakbench_msgs::ResolvedType) -> String {
    t.fields
        .iter()
        .map(|f| &*f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn array_desc(elem: &Elem, array: ArrayKind) -> String {
    LeafType::Array {
        elem: elem.clone(),
        array,
    }
    .to_string()
}

/// The patch a `set` value gives a leaf of `elem`/`array` at `at`.
pub(super) fn patch_for(
    v: &SetValue,
    elem: &Elem,
    array: ArrayKind,
    at: &str,
) -> Result<Patch, String> {
    if array != ArrayKind::Single {
        return Ok(Patch::Whole(array_value(v, elem, array, at)?));
    }
    match elem {
        Elem::Prim(p) => prim_value(v, *p)
            .map(Patch::Whole)
            .map_err(|e| format!("{at} is {}: {e}", p.msg_name())),
        Elem::String(bound) | Elem::WString(bound) => {
            let SetValue::Text(s) = v else {
                return Err(format!("{at} is a string: {} is not one", show(v)));
            };
            let len = match elem {
                Elem::WString(_) => s.encode_utf16().count(),
                _ => s.len(),
            };
            if let Some(n) = bound.filter(|n| len > *n) {
                return Err(format!("{at} is a string of at most {n}: {s:?} has {len}"));
            }
            Ok(Patch::Whole(Value::String(s.clone())))
        }
        Elem::Msg(t) => match v {
            SetValue::Map(m) => {
                let mut fs = Vec::new();
                for (k, sv) in m {
                    let Some(i) = t.fields.iter().position(|f| &*f.name == k) else {
                        return Err(format!(
                            "{at} is {}, which has no field '{k}' (fields: {})",
                            t.name,
                            field_names(t)
                        ));
                    };
                    let f = &t.fields[i];
                    fs.push((i, patch_for(sv, &f.elem, f.array, &format!("{at}.{k}"))?));
                }
                fs.sort_by_key(|(i, _)| *i);
                Ok(Patch::Fields(fs))
            }
            SetValue::List(l) if l.len() == t.fields.len() => Ok(Patch::Fields(
                t.fields
                    .iter()
                    .zip(l)
                    .enumerate()
                    .map(|(i, (f, sv))| {
                        patch_for(sv, &f.elem, f.array, &format!("{at}.{}", f.name)).map(|p| (i, p))
                    })
                    .collect::<Result<_, _>>()?,
            )),
            _ => Err(format!(
                "{at} is {}, a sub-message: want a map of some of its fields or a list of all {} in order ({}); got {}",
                t.name,
                t.fields.len(),
                field_names(t),
                show(v)
            )),
        },
    }
}

/// A whole array value from a list.
pub(super) fn array_value(
    v: &SetValue,
    elem: &Elem,
    array: ArrayKind,
    at: &str,
) -> Result<Value, String> {
    let desc = array_desc(elem, array);
    let SetValue::List(l) = v else {
        return Err(format!(
            "{at} is {desc}, a whole array: want a list (or index it: '{at}[*]'); got {}",
            show(v)
        ));
    };
    match array {
        ArrayKind::Fixed(n) if l.len() != n => {
            return Err(format!(
                "{at} is {desc}: want exactly {n} values, got {}",
                l.len()
            ))
        }
        ArrayKind::Bounded(n) if l.len() > n => {
            return Err(format!(
                "{at} is {desc}: want at most {n} values, got {}",
                l.len()
            ))
        }
        _ => {}
    }
    let elems = l
        .iter()
        .enumerate()
        .map(|(i, x)| elem_value(x, elem, &format!("{at}[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(pack(elem, elems))
}

/// One element from a `set`/`fill` value (a partial map fills the rest of a
/// message element with zeros).
pub(super) fn elem_value(v: &SetValue, elem: &Elem, at: &str) -> Result<Value, String> {
    match patch_for(v, elem, ArrayKind::Single, at)? {
        Patch::Whole(x) => Ok(x),
        p @ Patch::Fields(_) => {
            let Elem::Msg(t) = elem else {
                unreachable!("only a message gives Fields")
            };
            let mut z = Value::zero(t);
            apply_patch(&mut z, &p);
            Ok(z)
        }
    }
}

/// The zero element of `elem`.
pub(super) fn zero_elem(elem: &Elem) -> Value {
    match elem {
        Elem::Prim(p) if is_float(*p) => prim_value(&SetValue::Float(0.0), *p),
        Elem::Prim(p) => prim_value(&SetValue::Int(0), *p),
        Elem::String(_) | Elem::WString(_) => Ok(Value::String(String::new())),
        Elem::Msg(t) => Ok(Value::zero(t)),
    }
    .expect("zero fits every type")
}

/// Element values as the sequence shape [`Value`] uses for `elem`.
pub(super) fn pack(elem: &Elem, elems: Vec<Value>) -> Value {
    let f32s = |e: &Value| if let Value::F32(x) = e { *x } else { 0.0 };
    let f64s = |e: &Value| if let Value::F64(x) = e { *x } else { 0.0 };
    let u8s = |e: &Value| if let Value::U8(x) = e { *x } else { 0 };
    match elem {
        Elem::Prim(Primitive::F32) => Value::F32Seq(elems.iter().map(f32s).collect()),
        Elem::Prim(Primitive::F64) => Value::F64Seq(elems.iter().map(f64s).collect()),
        Elem::Prim(Primitive::U8 | Primitive::Byte | Primitive::Char) => {
            Value::U8Seq(elems.iter().map(u8s).collect())
        }
        _ => Value::Seq(elems),
    }
}

/// Bitwise equality (NaN equals the same NaN, 0.0 differs from −0.0): what
/// "changed" means for the counters.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::F32Seq(x), Value::F32Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Value::F64Seq(x), Value::F64Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((n, p), (m, q))| n == m && same(p, q))
        }
        _ => a == b,
    }
}
