//! [`FieldFault`]: a [`FieldFaultSpec`] checked against a message type and
//! applied to dynamic values (REQ-FAULT-FIELD-PATH).
//!
//! What each mode accepts (the leaf type is that of the path's end:
//! [`breakbench_msgs::LeafType`]); anything else is refused by
//! [`FieldFault::build`] with [`FaultError::Field`] naming the path, the
//! message type and the field's type, and nothing changes:
//!
//! | mode | leaf types | parameters |
//! |---|---|---|
//! | `set` | any numeric, `bool`, string, a whole sub-message, a whole array | `value` |
//! | `bias`, `bias_ramp`, `scale`, `saturation`, `garbage` | numeric (not `bool`) | `bias` / `bias_rate_per_s` / `scale_factor` / `min`, `max` / `garbage_min`, `garbage_max`, `allow_non_finite` |
//! | `stuck` | any | none |
//! | `truncate`, `extend`, `alternate_length` | a whole sequence (`T[]`, `T[<=N]`), not a fixed array | `length` / `length`, `fill` / `lengths`, `fill` |
//!
//! `set` values ([`SetValue`]): on an integer field the value must be an
//! integer in the field's range (1e256 into int32, −1 into uint32, 1.5 into
//! int8, NaN into anything integer are refused, never wrapped or rounded);
//! on a float32 field a finite value beyond ±f32::MAX is refused (it would
//! become ±inf silently: write `"inf"`); on a float field `"nan"`, `"inf"`,
//! `"+inf"`, `"-inf"` (any case) are NaN and ±inf; a `bool` field takes
//! `true`/`false` or 0/1; a string field takes a string (bounded strings:
//! within the bound). A sub-message takes a map of some of its fields by name
//! (the others keep the message's value) or a list of all its fields in wire
//! order; a whole array takes a list (a fixed array exactly its length, a
//! bounded one at most its bound). Numeric modes on a sub-message are
//! refused with the names of its fields: name the field
//! (`orientation.x`) or use `set` with a map.
//!
//! Arithmetic keeps a finite input finite ([`crate::params::sat`],
//! [`crate::params::sat32`]): a float overflow saturates at ±MAX, a
//! non-finite input passes as computed. Integer leaves take the result
//! rounded toward zero and saturated at the type's range (computed in f64:
//! 64-bit integers beyond 2^53 lose their low bits under arithmetic modes;
//! `set` is exact).
//!
//! `stuck` records the selected leaves of the first message it is applied
//! to and writes them into every later one (that first message is passed
//! unchanged); a selection with more leaves than the recorded one (a longer
//! sequence under `ranges[*]`) leaves the extra ones as they are: freeze the
//! whole sequence, length included, with the path `ranges`. `bias_ramp`
//! grows from [`FieldFault::on_set`] (or the first message if never called).
//! `alternate_length` gives `lengths[0]` to the 1st, 3rd, … message it is
//! applied to and `lengths[1]` to the others.

use std::sync::Arc;
use std::time::Duration;

use breakbench_msgs::def::{ArrayKind, Primitive};
use breakbench_msgs::registry::Elem;
use breakbench_msgs::{FieldPath, LeafMut, LeafType, MsgError, Selector, TypeRegistry, Value};

use super::{FieldFaultSpec, FieldMode, SetValue};
use crate::faults::garbage::Garbage;
use crate::params::{sat, sat32, MAX_MAGNITUDE};
use crate::{FaultError, FaultRng};

/// Largest sequence length `extend` and `alternate_length` may ask for
/// (2^24 elements: a 64 MB float32 sequence).
pub const MAX_SEQ_LEN: usize = 1 << 24;

/// A field fault ready to apply to messages of one type.
#[derive(Debug, Clone)]
pub struct FieldFault {
    spec: FieldFaultSpec,
    sel: Selector,
    op: Op,
    set_at: Option<Duration>,
}

/// A value to write into a leaf: all of it, or some fields of a sub-message
/// (by position).
#[derive(Debug, Clone, PartialEq)]
enum Patch {
    Whole(Value),
    Fields(Vec<(usize, Patch)>),
}

#[derive(Debug, Clone)]
enum Len {
    Truncate(usize),
    Extend(usize),
    Alternate([usize; 2], u64),
}

#[derive(Debug, Clone)]
enum Op {
    Set(Patch),
    Bias(f64),
    BiasRamp(f64),
    Scale(f64),
    Stuck(Option<Vec<Patch>>),
    Saturation(f64, f64),
    Garbage(Garbage),
    Length(Len, Value),
}

/// A number for a message: plain for ordinary magnitudes, scientific beyond.
fn num(x: f64) -> String {
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
fn int_span(p: Primitive) -> Option<f64> {
    match p {
        Primitive::F32 | Primitive::F64 | Primitive::Bool => None,
        p => {
            let (lo, hi) = int_range(p);
            Some((hi - lo) as f64)
        }
    }
}

fn int_range(p: Primitive) -> (i128, i128) {
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

fn is_float(p: Primitive) -> bool {
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

fn field_names(t: &breakbench_msgs::ResolvedType) -> String {
    t.fields
        .iter()
        .map(|f| &*f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn array_desc(elem: &Elem, array: ArrayKind) -> String {
    LeafType::Array {
        elem: elem.clone(),
        array,
    }
    .to_string()
}

/// The patch a `set` value gives a leaf of `elem`/`array` at `at`.
fn patch_for(v: &SetValue, elem: &Elem, array: ArrayKind, at: &str) -> Result<Patch, String> {
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
fn array_value(v: &SetValue, elem: &Elem, array: ArrayKind, at: &str) -> Result<Value, String> {
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
fn elem_value(v: &SetValue, elem: &Elem, at: &str) -> Result<Value, String> {
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
fn zero_elem(elem: &Elem) -> Value {
    match elem {
        Elem::Prim(p) if is_float(*p) => prim_value(&SetValue::Float(0.0), *p),
        Elem::Prim(p) => prim_value(&SetValue::Int(0), *p),
        Elem::String(_) | Elem::WString(_) => Ok(Value::String(String::new())),
        Elem::Msg(t) => Ok(Value::zero(t)),
    }
    .expect("zero fits every type")
}

/// Element values as the sequence shape [`Value`] uses for `elem`.
fn pack(elem: &Elem, elems: Vec<Value>) -> Value {
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

/// Writes `p` into `target`; true when that changed it.
fn apply_patch(target: &mut Value, p: &Patch) -> bool {
    match p {
        Patch::Whole(v) => {
            if same(target, v) {
                false
            } else {
                *target = v.clone();
                true
            }
        }
        Patch::Fields(fs) => {
            let Value::Struct(t) = target else {
                return false;
            };
            let mut changed = false;
            for (i, fp) in fs {
                if let Some((_, fv)) = t.get_mut(*i) {
                    changed |= apply_patch(fv, fp);
                }
            }
            changed
        }
    }
}

/// Writes `p` into a leaf; true when that changed it.
fn write_leaf(leaf: LeafMut<'_>, p: &Patch) -> bool {
    match (leaf, p) {
        (LeafMut::Value(t), p) => apply_patch(t, p),
        (LeafMut::F32(r), Patch::Whole(Value::F32(x))) => {
            let c = r.to_bits() != x.to_bits();
            *r = *x;
            c
        }
        (LeafMut::F64(r), Patch::Whole(Value::F64(x))) => {
            let c = r.to_bits() != x.to_bits();
            *r = *x;
            c
        }
        (LeafMut::U8(r), Patch::Whole(Value::U8(x))) => {
            let c = *r != *x;
            *r = *x;
            c
        }
        _ => false,
    }
}

/// A leaf's current value.
fn read_leaf(leaf: &LeafMut<'_>) -> Value {
    match leaf {
        LeafMut::Value(v) => (**v).clone(),
        LeafMut::F32(x) => Value::F32(**x),
        LeafMut::F64(x) => Value::F64(**x),
        LeafMut::U8(x) => Value::U8(**x),
    }
}

/// `x ↦ f(x)` on a numeric leaf, floats kept finite when they were
/// ([`sat`]); true when the leaf changed.
fn map_leaf(leaf: LeafMut<'_>, f: impl FnOnce(f64) -> f64) -> bool {
    match leaf {
        LeafMut::F32(r) | LeafMut::Value(Value::F32(r)) => {
            let old = *r;
            *r = sat32(old, f(f64::from(old)));
            old.to_bits() != r.to_bits()
        }
        LeafMut::F64(r) | LeafMut::Value(Value::F64(r)) => {
            let old = *r;
            *r = sat(old, f(old));
            old.to_bits() != r.to_bits()
        }
        LeafMut::U8(r) => {
            let old = *r;
            *r = f(f64::from(old)) as u8;
            old != *r
        }
        LeafMut::Value(v) => {
            let Some(x) = v.as_f64() else { return false };
            let before = v.clone();
            v.set_f64(f(x));
            *v != before
        }
    }
}

/// `x ↦ y` on a numeric leaf without saturation (garbage: a NaN draw stays
/// NaN); true when the leaf changed.
fn put_leaf(mut leaf: LeafMut<'_>, y: f64) -> bool {
    let before = read_leaf(&leaf);
    leaf.set_f64(y);
    !same(&before, &read_leaf(&leaf))
}

/// Resizes a sequence value to `n` elements, adding `fill`; true when its
/// length changed.
fn resize(v: &mut Value, n: usize, fill: &Value) -> bool {
    if v.seq_len() == Some(n) {
        return false;
    }
    match (v, fill) {
        (Value::F32Seq(x), Value::F32(f)) => x.resize(n, *f),
        (Value::F64Seq(x), Value::F64(f)) => x.resize(n, *f),
        (Value::U8Seq(x), Value::U8(f)) => x.resize(n, *f),
        (Value::Seq(x), f) => x.resize(n, f.clone()),
        _ => return false,
    }
    true
}

impl FieldFault {
    /// Checks `spec` against the message type `type_name` (resolved in
    /// `reg`) and builds the fault.
    ///
    /// # Errors
    /// [`FaultError::Field`] naming the path, the type and the field's type:
    /// an unknown type, a malformed path or one not in the type, a mode that
    /// makes no sense for the field's type (see the module's table), a
    /// parameter missing, not read by the mode, or out of range (bias,
    /// bias_rate_per_s, scale_factor: finite, |x| ≤ 1e9, a bias on an
    /// integer leaf up to its type's span, int32: 2^32; saturation: finite,
    /// min ≤ max; garbage: finite, min < max, finite span, within the field
    /// type's range, allow_non_finite only on floats; set and fill values:
    /// the module docs; lengths ≤ [`MAX_SEQ_LEN`] and ≤ a bounded
    /// sequence's bound).
    pub fn build(
        spec: &FieldFaultSpec,
        reg: &TypeRegistry,
        type_name: &str,
    ) -> Result<FieldFault, FaultError> {
        let mode = spec.mode.name();
        let path = spec.path.as_str();
        let refuse = |ty: &str, reason: String| FaultError::Field {
            path: path.to_string(),
            ty: ty.to_string(),
            mode,
            reason,
        };
        let msg_reason = |e: MsgError| match e {
            MsgError::Path { reason, .. } => reason,
            e => e.to_string(),
        };
        let ty = reg
            .resolve(type_name)
            .map_err(|e| refuse(type_name, e.to_string()))?;
        let tn = ty.name.to_string();
        let err = |reason: String| refuse(&tn, reason);
        let sel = FieldPath::parse(path)
            .and_then(|p| p.resolve(&ty))
            .map_err(|e| err(msg_reason(e)))?;

        let reads = spec.mode.parameters();
        for g in spec.given_parameters() {
            if !reads.contains(&g) {
                return Err(err(format!(
                    "parameter '{g}' is not read by mode '{mode}' (it reads: {})",
                    if reads.is_empty() {
                        "nothing".to_string()
                    } else {
                        reads.join(", ")
                    }
                )));
            }
        }
        let need = |name: &str, v: Option<f64>| {
            v.ok_or_else(|| err(format!("mode '{mode}' needs parameter '{name}'")))
        };
        let bounded = |name: &str, v: Option<f64>| {
            let x = need(name, v)?;
            if x.is_finite() && x.abs() <= MAX_MAGNITUDE {
                Ok(x)
            } else {
                Err(err(format!(
                    "{name} = {} must be finite and in [-{MAX_MAGNITUDE:e}, {MAX_MAGNITUDE:e}]",
                    num(x)
                )))
            }
        };

        let leaf = sel.leaf_type().clone();
        let leaf_desc = format!("'{path}' is {leaf}");
        // The (elem, array) of the leaf, for set values.
        let leaf_elem = |leaf: &LeafType| -> Result<(Elem, ArrayKind), FaultError> {
            Ok(match leaf {
                LeafType::Prim(p) => (Elem::Prim(*p), ArrayKind::Single),
                LeafType::String => (Elem::String(None), ArrayKind::Single),
                LeafType::Msg(t) => (
                    Elem::Msg(
                        reg.resolve(&t.to_string())
                            .map_err(|e| err(e.to_string()))?,
                    ),
                    ArrayKind::Single,
                ),
                LeafType::Array { elem, array } => (elem.clone(), *array),
            })
        };
        // Numeric modes: a number, not a bool.
        let numeric = || -> Result<Primitive, FaultError> {
            match &leaf {
                LeafType::Prim(p) if *p != Primitive::Bool => Ok(*p),
                LeafType::Prim(_) => Err(err(format!(
                    "{leaf_desc}: mode '{mode}' needs a numeric field (set takes true/false or 0/1)"
                ))),
                LeafType::String => Err(err(format!(
                    "{leaf_desc}: mode '{mode}' needs a numeric field (set takes a string)"
                ))),
                LeafType::Msg(_) => {
                    let (Elem::Msg(t), _) = leaf_elem(&leaf)? else {
                        unreachable!()
                    };
                    Err(err(format!(
                        "{leaf_desc}, a sub-message: mode '{mode}' needs a numeric field: name one \
                         ('{path}.{}'; fields: {}), or use set with a map of its fields",
                        t.fields.first().map_or("x", |f| &*f.name),
                        field_names(&t)
                    )))
                }
                LeafType::Array { .. } => Err(err(format!(
                    "{leaf_desc}, a whole array: mode '{mode}' acts on elements: write '{path}[*]' \
                     or a slice '{path}[a:b]'"
                ))),
            }
        };
        // Sequence-length modes: a whole sequence.
        let sequence = |lens: &[usize]| -> Result<(Elem, Value), FaultError> {
            match &leaf {
                LeafType::Array { elem, array } if array.is_sequence() => {
                    for &n in lens {
                        let max = match array {
                            ArrayKind::Bounded(b) => (*b).min(MAX_SEQ_LEN),
                            _ => MAX_SEQ_LEN,
                        };
                        if n > max {
                            return Err(err(format!(
                                "{leaf_desc}: length {n} is above {max}{}",
                                if matches!(array, ArrayKind::Bounded(b) if *b <= MAX_SEQ_LEN) {
                                    " (the sequence's bound)"
                                } else {
                                    " (MAX_SEQ_LEN)"
                                }
                            )));
                        }
                    }
                    let fill = match &spec.fill {
                        Some(f) => elem_value(f, elem, &format!("{path} fill")).map_err(err)?,
                        None => zero_elem(elem),
                    };
                    Ok((elem.clone(), fill))
                }
                LeafType::Array { .. } => Err(err(format!(
                    "{leaf_desc}, a fixed array: its length is part of the type, mode '{mode}' \
                     needs a sequence (T[] or T[<=N])"
                ))),
                _ => Err(err(format!(
                    "{leaf_desc}: mode '{mode}' needs a whole sequence field{}",
                    match path.rfind('[') {
                        Some(i) if path.ends_with(']') =>
                            format!(" (write '{}', without the index)", &path[..i]),
                        _ => String::new(),
                    }
                ))),
            }
        };

        let op = match spec.mode {
            FieldMode::Set => {
                let v = spec
                    .value
                    .as_ref()
                    .ok_or_else(|| err(format!("mode '{mode}' needs parameter 'value'")))?;
                let (elem, array) = leaf_elem(&leaf)?;
                Op::Set(patch_for(v, &elem, array, path).map_err(err)?)
            }
            FieldMode::Bias => {
                let p = numeric()?;
                // An integer leaf (a stamp's sec) may move across its whole
                // range: |bias| up to the type's span (int32: 2^32, the
                // hdl_localization #48 offset of -1.66e9 s in one stage);
                // the result saturates at the type's range.
                match int_span(p) {
                    Some(span) if span > MAX_MAGNITUDE => {
                        let b = need("bias", spec.bias)?;
                        if !(b.is_finite() && b.abs() <= span) {
                            return Err(err(format!(
                                "bias = {} must be finite and in [-{span:e}, {span:e}] ({leaf_desc}: its span)",
                                num(b)
                            )));
                        }
                        Op::Bias(b)
                    }
                    _ => Op::Bias(bounded("bias", spec.bias)?),
                }
            }
            FieldMode::BiasRamp => {
                numeric()?;
                Op::BiasRamp(bounded("bias_rate_per_s", spec.bias_rate_per_s)?)
            }
            FieldMode::Scale => {
                numeric()?;
                Op::Scale(bounded("scale_factor", spec.scale_factor)?)
            }
            FieldMode::Stuck => Op::Stuck(None),
            FieldMode::Saturation => {
                numeric()?;
                let lo = need("min", spec.min)?;
                let hi = need("max", spec.max)?;
                if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                    return Err(err(format!(
                        "saturation needs finite min <= max; got min = {}, max = {}",
                        num(lo),
                        num(hi)
                    )));
                }
                Op::Saturation(lo, hi)
            }
            FieldMode::Garbage => {
                let p = numeric()?;
                let lo = need("garbage_min", spec.garbage_min)?;
                let hi = need("garbage_max", spec.garbage_max)?;
                let allow = spec.allow_non_finite.unwrap_or(false);
                if !(lo.is_finite() && hi.is_finite() && lo < hi && (hi - lo).is_finite()) {
                    return Err(err(format!(
                        "garbage needs finite garbage_min < garbage_max with a finite span; got {}..{}",
                        num(lo),
                        num(hi)
                    )));
                }
                let (tlo, thi) = match p {
                    Primitive::F32 => (f64::from(f32::MIN), f64::from(f32::MAX)),
                    Primitive::F64 => (f64::MIN, f64::MAX),
                    p => {
                        let (a, b) = int_range(p);
                        (a as f64, b as f64)
                    }
                };
                if lo < tlo || hi > thi {
                    return Err(err(format!(
                        "{leaf_desc}: garbage bounds {}..{} do not fit it",
                        num(lo),
                        num(hi)
                    )));
                }
                if allow && !is_float(p) {
                    return Err(err(format!(
                        "{leaf_desc}: allow_non_finite needs a float field (an integer has no NaN or inf)"
                    )));
                }
                Op::Garbage(Garbage {
                    min: lo,
                    max: hi,
                    allow_non_finite: allow,
                })
            }
            FieldMode::Truncate | FieldMode::Extend => {
                let n = spec
                    .length
                    .ok_or_else(|| err(format!("mode '{mode}' needs parameter 'length'")))?;
                let (_, fill) = sequence(&[n])?;
                let len = if spec.mode == FieldMode::Truncate {
                    Len::Truncate(n)
                } else {
                    Len::Extend(n)
                };
                Op::Length(len, fill)
            }
            FieldMode::AlternateLength => {
                let ls = spec
                    .lengths
                    .ok_or_else(|| err(format!("mode '{mode}' needs parameter 'lengths'")))?;
                let (_, fill) = sequence(&ls)?;
                Op::Length(Len::Alternate(ls, 0), fill)
            }
        };
        Ok(FieldFault {
            spec: spec.clone(),
            sel,
            op,
            set_at: None,
        })
    }

    /// The spec it was built from.
    pub fn spec(&self) -> &FieldFaultSpec {
        &self.spec
    }

    /// The resolved path.
    pub fn selector(&self) -> &Selector {
        &self.sel
    }

    /// The message type it applies to.
    pub fn message_type(&self) -> &Arc<breakbench_msgs::ResolvedType> {
        self.sel.ty()
    }

    /// `"<mode> <path>"`, for reports.
    pub fn describe(&self) -> String {
        format!("{} {}", self.spec.mode.name(), self.spec.path)
    }

    /// The time the fault was set: `bias_ramp` grows from it. Without a
    /// call, the first [`FieldFault::apply`] sets it.
    pub fn on_set(&mut self, now: Duration) {
        self.set_at = Some(now);
    }

    /// Applies the fault to one message `value` (of the type it was built
    /// for) received at `now`; garbage draws from `rng` (one draw per leaf,
    /// in leaf order, two when `allow_non_finite`). Returns true when it
    /// changed something (bitwise: setting a leaf to the value it has is no
    /// change). A value that does not have the shape of the type is left
    /// unchanged up to where the shape differs, and false is returned unless
    /// something before that changed.
    pub fn apply(&mut self, value: &mut Value, now: Duration, rng: &mut FaultRng) -> bool {
        let t0 = *self.set_at.get_or_insert(now);
        let mut changed = false;
        let sel = &self.sel;
        match &mut self.op {
            Op::Set(p) => {
                let _ = sel.visit_mut(value, |_, l| changed |= write_leaf(l, p));
            }
            Op::Bias(b) => {
                let b = *b;
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| x + b));
            }
            Op::BiasRamp(rate) => {
                // |rate| <= 1e9, elapsed <= 1.8e19 s: finite.
                let b = *rate * now.saturating_sub(t0).as_secs_f64();
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| x + b));
            }
            Op::Scale(k) => {
                let k = *k;
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| x * k));
            }
            Op::Saturation(lo, hi) => {
                let (lo, hi) = (*lo, *hi);
                // NaN passes (f64::clamp keeps NaN).
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| x.clamp(lo, hi)));
            }
            Op::Garbage(g) => {
                let _ = sel.visit_mut(value, |_, l| changed |= put_leaf(l, g.draw(rng)));
            }
            Op::Stuck(frozen) => match frozen {
                None => {
                    let mut got = Vec::new();
                    let _ = sel.visit_mut(value, |_, l| got.push(Patch::Whole(read_leaf(&l))));
                    *frozen = Some(got);
                }
                Some(f) => {
                    let mut i = 0;
                    let _ = sel.visit_mut(value, |_, l| {
                        if let Some(p) = f.get(i) {
                            changed |= write_leaf(l, p);
                        }
                        i += 1;
                    });
                }
            },
            Op::Length(len, fill) => {
                let target = |cur: usize| match &*len {
                    Len::Truncate(n) => cur.min(*n),
                    Len::Extend(n) => cur.max(*n),
                    Len::Alternate(ls, k) => ls[(*k % 2) as usize],
                };
                let _ = sel.visit_mut(value, |_, l| {
                    if let LeafMut::Value(v) = l {
                        if let Some(cur) = v.seq_len() {
                            changed |= resize(v, target(cur), fill);
                        }
                    }
                });
                if let Len::Alternate(_, k) = len {
                    *k += 1;
                }
            }
        }
        changed
    }
}
