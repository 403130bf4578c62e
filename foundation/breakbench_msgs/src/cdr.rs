//! The dynamic CDR codec (REQ-MSG-CDR): serde drivers for a type known at
//! run time, run through RustDDS's CDR serializer and deserializer
//! (`cdr_encoding`, which rustdds 0.15 re-exports as `rustdds::cdr_encoding`
//! and uses for every typed topic).
//!
//! The format is XCDR1 as ROS 2 (Fast DDS, Cyclone DDS) uses it: a 4-byte
//! encapsulation header (`00 01 00 00` for little-endian CDR) and the body,
//! each primitive aligned to its size (8 for float64/int64/uint64) counted
//! from the start of the body; strings as u32 length (with the NUL) + UTF-8 +
//! NUL; `wstring` as u32 count of UTF-16 code units + one u32 per unit
//! (rosidl_typesupport_fastrtps); sequences as u32 count + elements; fixed
//! arrays as the elements only; nested messages inline; a message without
//! fields as one octet (rosidl's `structure_needs_at_least_one_member`).
//!
//! * [`TypedSeed`] is a `serde::de::DeserializeSeed` producing a [`Value`]:
//!   hand it to ros2-client's `Subscription::take_seed` /
//!   `async_stream_seed` to subscribe to a type known only at run time.
//! * [`TypedValue`] is `serde::Serialize`: publish it with a
//!   `Publisher<TypedValue>`.
//! * [`decode`] / [`encode`] do the same on a byte buffer with the 4-byte
//!   encapsulation header.
//!
//! Bounded strings and sequences longer than their bound, fixed arrays of
//! the wrong length and values whose shape does not match the type are
//! errors naming the field, both ways.

use std::fmt;
use std::sync::Arc;

use byteorder::{BigEndian, LittleEndian};
use cdr_encoding::CdrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{self, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::def::{ArrayKind, Primitive};
use crate::registry::{Elem, ResolvedField, ResolvedType};
use crate::value::Value;
use crate::MsgError;

/// Encapsulation header of little-endian plain CDR (what [`encode`] writes).
pub const CDR_LE_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// A `DeserializeSeed` that reads one message of a resolved type from a CDR
/// body (no encapsulation header: RustDDS strips it) into a [`Value`].
/// Cheap to clone (an `Arc`), as ros2-client's `take_seed` wants.
#[derive(Debug, Clone)]
pub struct TypedSeed {
    ty: Arc<ResolvedType>,
}

impl TypedSeed {
    /// A seed for `ty` (from [`crate::TypeRegistry::resolve`]).
    pub fn new(ty: Arc<ResolvedType>) -> Self {
        Self { ty }
    }

    /// The type it reads.
    pub fn ty(&self) -> &Arc<ResolvedType> {
        &self.ty
    }
}

impl<'de> DeserializeSeed<'de> for TypedSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StructSeed(&self.ty).deserialize(d)
    }
}

/// A value with its type, serialisable as CDR: `Publisher<TypedValue>`
/// publishes it, [`encode`] writes it with the encapsulation header.
#[derive(Debug, Clone)]
pub struct TypedValue {
    /// The type.
    pub ty: Arc<ResolvedType>,
    /// A `Value::Struct` of that type.
    pub value: Value,
}

impl Serialize for TypedValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StructSer(&self.ty, &self.value).serialize(s)
    }
}

/// Decode `bytes` (4-byte encapsulation header + CDR body, as
/// `rclpy.serialization.serialize_message` returns and DDS carries) as a
/// message of type `ty`. Both byte orders are read. Trailing bytes are
/// allowed up to [`trailing_allowance`] (what Fast DDS appends); more are
/// an error.
///
/// # Errors
/// [`MsgError::Encapsulation`] for a short buffer, an unknown
/// representation id or left-over bytes; [`MsgError::Cdr`] for a body that
/// does not decode as the type (truncated, bound exceeded, invalid UTF-8,
/// bool not 0/1), naming the field where it can.
pub fn decode(ty: &Arc<ResolvedType>, bytes: &[u8]) -> Result<Value, MsgError> {
    let enc_err = |reason: String| MsgError::Encapsulation {
        ty: ty.name.to_string(),
        reason,
    };
    if bytes.len() < 4 {
        return Err(enc_err(format!(
            "{} bytes: shorter than the 4-byte encapsulation header",
            bytes.len()
        )));
    }
    let body = &bytes[4..];
    let cdr_err = |source| MsgError::Cdr {
        op: "decode",
        ty: ty.name.to_string(),
        source,
    };
    let (value, used) = match (bytes[0], bytes[1]) {
        (0x00, 0x01) => {
            let mut d = CdrDeserializer::<LittleEndian>::new(body);
            let v = StructSeed(ty).deserialize(&mut d).map_err(cdr_err)?;
            (v, d.bytes_consumed())
        }
        (0x00, 0x00) => {
            let mut d = CdrDeserializer::<BigEndian>::new(body);
            let v = StructSeed(ty).deserialize(&mut d).map_err(cdr_err)?;
            (v, d.bytes_consumed())
        }
        (a, b) => {
            return Err(enc_err(format!(
                "representation id {a:02x} {b:02x} is not plain CDR (00 00 or 00 01)"
            )))
        }
    };
    let left = body.len() - used;
    if left > 3 && left > trailing_allowance(ty, &value) {
        return Err(enc_err(format!(
            "{left} bytes left over after the message ({used} bytes of body): not this type?"
        )));
    }
    Ok(value)
}

/// Encode `value` (a `Value::Struct` of type `ty`) as little-endian CDR with
/// the encapsulation header [`CDR_LE_HEADER`]. No trailing padding is added.
///
/// # Errors
/// [`MsgError::Cdr`] naming the field: a value of the wrong shape, a bound
/// exceeded, a fixed array of the wrong length.
pub fn encode(ty: &Arc<ResolvedType>, value: &Value) -> Result<Vec<u8>, MsgError> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&CDR_LE_HEADER);
    cdr_encoding::to_writer::<_, LittleEndian, _>(&mut out, &StructSer(ty, value)).map_err(
        |source| MsgError::Cdr {
            op: "encode",
            ty: ty.name.to_string(),
            source,
        },
    )?;
    Ok(out)
}

/// Encode a message of a compiled-in serde type (e.g.
/// `kraken_interfaces::ros::LaserScan`) as little-endian CDR with the
/// encapsulation header [`CDR_LE_HEADER`]: the serializer ros2-client's
/// `Publisher<T>` runs (RustDDS's `cdr_encoding`), so the bytes are what a
/// typed publisher puts on the wire. `type_name` (`pkg/msg/Type`) only names
/// the type in errors.
///
/// # Errors
/// [`MsgError::Cdr`] when the serializer refuses the value.
pub fn encode_serde<T: Serialize>(type_name: &str, msg: &T) -> Result<Vec<u8>, MsgError> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&CDR_LE_HEADER);
    cdr_encoding::to_writer::<_, LittleEndian, _>(&mut out, msg).map_err(|source| {
        MsgError::Cdr {
            op: "encode",
            ty: type_name.to_string(),
            source,
        }
    })?;
    Ok(out)
}

/// [`encode_serde`] appended to `out` (encapsulation header, then the
/// body), so a caller encoding many messages reuses one buffer (the run
/// recorder, REQ-REC-COST). On error `out` keeps what was written.
///
/// # Errors
/// As [`encode_serde`].
pub fn encode_serde_into<T: Serialize>(
    type_name: &str,
    msg: &T,
    out: &mut Vec<u8>,
) -> Result<(), MsgError> {
    out.extend_from_slice(&CDR_LE_HEADER);
    // The serializer aligns from where it starts writing (its own count),
    // so the body is aligned as in a fresh encoding.
    cdr_encoding::to_writer::<_, LittleEndian, _>(&mut *out, msg).map_err(|source| MsgError::Cdr {
        op: "encode",
        ty: type_name.to_string(),
        source,
    })
}

/// Decode `bytes` (encapsulation header + CDR body, either byte order) into
/// a compiled-in serde type, as ros2-client's `Subscription<T>` does. The
/// inverse of [`encode_serde`]; `type_name` only names the type in errors.
///
/// # Errors
/// [`MsgError::Encapsulation`] for a short buffer or an unknown
/// representation id; [`MsgError::Cdr`] for a body that does not decode.
pub fn decode_serde<T: de::DeserializeOwned>(type_name: &str, bytes: &[u8]) -> Result<T, MsgError> {
    let enc_err = |reason: String| MsgError::Encapsulation {
        ty: type_name.to_string(),
        reason,
    };
    if bytes.len() < 4 {
        return Err(enc_err(format!(
            "{} bytes: shorter than the 4-byte encapsulation header",
            bytes.len()
        )));
    }
    let cdr_err = |source| MsgError::Cdr {
        op: "decode",
        ty: type_name.to_string(),
        source,
    };
    let body = &bytes[4..];
    match (bytes[0], bytes[1]) {
        (0x00, 0x01) => {
            T::deserialize(&mut CdrDeserializer::<LittleEndian>::new(body)).map_err(cdr_err)
        }
        (0x00, 0x00) => {
            T::deserialize(&mut CdrDeserializer::<BigEndian>::new(body)).map_err(cdr_err)
        }
        (a, b) => Err(enc_err(format!(
            "representation id {a:02x} {b:02x} is not plain CDR (00 00 or 00 01)"
        ))),
    }
}

/// Which bytes of a peer's encoding of `value` are alignment padding
/// (`true`), for comparing [`encode`]`(ty, value)` with bytes made by Fast
/// DDS (Fast CDR leaves padding uninitialised). Indices are those of the
/// encoding, header included (never padding). The mask is longer than
/// [`encode`]'s output by the trailing bytes Fast DDS may append, all
/// padding: see [`trailing_allowance`].
///
/// # Errors
/// As [`encode`] (the value is encoded first).
pub fn padding_mask(ty: &Arc<ResolvedType>, value: &Value) -> Result<Vec<bool>, MsgError> {
    let bytes = encode(ty, value)?;
    let mut lay = Layout::new(false, true);
    lay.strukt(ty, value);
    let mut mask = vec![false; 4];
    mask.extend(lay.mask);
    debug_assert_eq!(mask.len(), bytes.len());
    let extra = trailing_allowance(ty, value);
    mask.resize(bytes.len() + extra, true);
    Ok(mask)
}

/// How many bytes past the end of `value`'s CDR body a Fast DDS peer may
/// send (and [`decode`] accepts). Measured with rclpy on Fast DDS
/// (`serialize_message`): the stream itself is plain XCDR1, but the length
/// is Fast CDR's size estimate, which counts alignment to 8 after the
/// element count of every sequence of 8-byte elements even when it is empty
/// (JointState with three empty float64[]: 32 bytes of body, 40 reported),
/// and a fixed-size message is reported to a 4-byte multiple (Bool: 1 byte
/// of body, 4 reported). So: the estimate minus the real length, plus 3.
pub fn trailing_allowance(ty: &ResolvedType, value: &Value) -> usize {
    let mut real = Layout::new(false, false);
    real.strukt(ty, value);
    let mut est = Layout::new(true, false);
    est.strukt(ty, value);
    est.pos.saturating_sub(real.pos) + 3
}

/// Mirrors the serializer's alignment to find padding positions and Fast
/// CDR's size estimate (`fastcdr_estimate`); never used to read or write
/// bytes.
struct Layout {
    pos: usize,
    fastcdr_estimate: bool,
    keep_mask: bool,
    mask: Vec<bool>,
}

impl Layout {
    fn new(fastcdr_estimate: bool, keep_mask: bool) -> Self {
        Self {
            pos: 0,
            fastcdr_estimate,
            keep_mask,
            mask: Vec::new(),
        }
    }

    fn align(&mut self, to: usize) {
        let pad = (to - self.pos % to) % to;
        self.pos += pad;
        if self.keep_mask {
            self.mask.resize(self.mask.len() + pad, true);
        }
    }

    fn data(&mut self, n: usize) {
        self.pos += n;
        if self.keep_mask {
            self.mask.resize(self.mask.len() + n, false);
        }
    }

    fn strukt(&mut self, ty: &ResolvedType, v: &Value) {
        let Value::Struct(fs) = v else { return };
        if ty.fields.is_empty() {
            self.data(1);
        }
        for (f, (_, fv)) in ty.fields.iter().zip(fs) {
            if f.array == ArrayKind::Single {
                self.elem(&f.elem, fv);
                continue;
            }
            if f.array.is_sequence() {
                self.align(4);
                self.data(4);
            }
            let (size, n) = match fv {
                Value::F32Seq(x) => (4, x.len()),
                Value::F64Seq(x) => (8, x.len()),
                Value::U8Seq(x) => (1, x.len()),
                Value::Seq(x) => {
                    if self.fastcdr_estimate && f.array.is_sequence() {
                        if let Elem::Prim(p) = &f.elem {
                            self.align(p.size());
                        }
                    }
                    x.iter().for_each(|e| self.elem(&f.elem, e));
                    continue;
                }
                _ => continue,
            };
            if n > 0 || (self.fastcdr_estimate && f.array.is_sequence()) {
                self.align(size);
            }
            self.data(size * n);
        }
    }

    fn elem(&mut self, elem: &Elem, v: &Value) {
        match (elem, v) {
            (Elem::Prim(p), _) => {
                self.align(p.size());
                self.data(p.size());
            }
            (Elem::String(_), Value::String(s)) => {
                self.align(4);
                self.data(4 + s.len() + 1);
            }
            (Elem::WString(_), Value::String(s)) => {
                self.align(4);
                self.data(4 + 4 * s.encode_utf16().count());
            }
            (Elem::Msg(t), _) => self.strukt(t, v),
            _ => {}
        }
    }
}

// ---- deserialisation -------------------------------------------------------

struct StructSeed<'a>(&'a ResolvedType);

impl<'de> DeserializeSeed<'de> for StructSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.0.fields.is_empty() {
            // rosidl gives an empty message one uint8 member.
            u8::deserialize(d)?;
            return Ok(Value::Struct(Vec::new()));
        }
        d.deserialize_tuple(self.0.fields.len(), StructVisitor(self.0))
    }
}

struct StructVisitor<'a>(&'a ResolvedType);

impl<'de> Visitor<'de> for StructVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} message", self.0.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(self.0.fields.len());
        for (i, f) in self.0.fields.iter().enumerate() {
            let v = seq
                .next_element_seed(FieldSeed(f))?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
            out.push((f.name.clone(), v));
        }
        Ok(Value::Struct(out))
    }
}

struct FieldSeed<'a>(&'a ResolvedField);

fn is_octet(e: &Elem) -> bool {
    matches!(
        e,
        Elem::Prim(Primitive::U8 | Primitive::Byte | Primitive::Char)
    )
}

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let f = self.0;
        match f.array {
            ArrayKind::Single => ElemSeed(&f.elem, f).deserialize(d),
            ArrayKind::Fixed(n) => d.deserialize_tuple(n, ArrayVisitor { f, bound: None }),
            ArrayKind::Unbounded | ArrayKind::Bounded(_) => {
                let bound = match f.array {
                    ArrayKind::Bounded(b) => Some(b),
                    _ => None,
                };
                if is_octet(&f.elem) {
                    // u32 count + raw octets: one copy, no per-element calls.
                    let v = d.deserialize_byte_buf(OctetsVisitor)?;
                    check_bound(f, v.len(), bound).map_err(de::Error::custom)?;
                    Ok(Value::U8Seq(v))
                } else {
                    d.deserialize_seq(ArrayVisitor { f, bound })
                }
            }
        }
    }
}

fn check_bound(f: &ResolvedField, len: usize, bound: Option<usize>) -> Result<(), String> {
    match bound {
        Some(b) if len > b => Err(format!(
            "field '{}': sequence of {len} elements exceeds its bound {b}",
            f.name
        )),
        _ => Ok(()),
    }
}

struct OctetsVisitor;

impl<'de> Visitor<'de> for OctetsVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an octet sequence")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }
}

struct ArrayVisitor<'a> {
    f: &'a ResolvedField,
    bound: Option<usize>,
}

impl<'de> Visitor<'de> for ArrayVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the elements of field '{}'", self.f.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        // The element count comes from the wire: check the bound as
        // elements arrive and never pre-allocate from it.
        let f = self.f;
        let bound = self.bound;
        let check = |n: usize| check_bound(f, n, bound).map_err(de::Error::custom);
        Ok(match &f.elem {
            Elem::Prim(Primitive::F32) => {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<f32>()? {
                    v.push(x);
                    check(v.len())?;
                }
                Value::F32Seq(v)
            }
            Elem::Prim(Primitive::F64) => {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<f64>()? {
                    v.push(x);
                    check(v.len())?;
                }
                Value::F64Seq(v)
            }
            e if is_octet(e) => {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<u8>()? {
                    v.push(x);
                    check(v.len())?;
                }
                Value::U8Seq(v)
            }
            e => {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element_seed(ElemSeed(e, f))? {
                    v.push(x);
                    check(v.len())?;
                }
                Value::Seq(v)
            }
        })
    }
}

/// One element of field `.1`'s type `.0`.
struct ElemSeed<'a>(&'a Elem, &'a ResolvedField);

impl<'de> DeserializeSeed<'de> for ElemSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let f = self.1;
        Ok(match self.0 {
            Elem::Prim(p) => match p {
                Primitive::Bool => Value::Bool(bool::deserialize(d)?),
                Primitive::Byte | Primitive::Char | Primitive::U8 => Value::U8(u8::deserialize(d)?),
                Primitive::I8 => Value::I8(i8::deserialize(d)?),
                Primitive::I16 => Value::I16(i16::deserialize(d)?),
                Primitive::U16 => Value::U16(u16::deserialize(d)?),
                Primitive::I32 => Value::I32(i32::deserialize(d)?),
                Primitive::U32 => Value::U32(u32::deserialize(d)?),
                Primitive::I64 => Value::I64(i64::deserialize(d)?),
                Primitive::U64 => Value::U64(u64::deserialize(d)?),
                Primitive::F32 => Value::F32(f32::deserialize(d)?),
                Primitive::F64 => Value::F64(f64::deserialize(d)?),
            },
            Elem::String(bound) => {
                let s = String::deserialize(d)?;
                if let Some(b) = bound {
                    if s.len() > *b {
                        return Err(de::Error::custom(format!(
                            "field '{}': string of {} bytes exceeds its bound {b}",
                            f.name,
                            s.len()
                        )));
                    }
                }
                Value::String(s)
            }
            Elem::WString(bound) => {
                let units = Vec::<u32>::deserialize(d)?;
                if let Some(b) = bound {
                    if units.len() > *b {
                        return Err(de::Error::custom(format!(
                            "field '{}': wstring of {} code units exceeds its bound {b}",
                            f.name,
                            units.len()
                        )));
                    }
                }
                let u16s: Vec<u16> = units
                    .iter()
                    .map(|&u| u16::try_from(u))
                    .collect::<Result<_, _>>()
                    .map_err(|_| {
                        de::Error::custom(format!(
                            "field '{}': wstring code unit above 0xFFFF",
                            f.name
                        ))
                    })?;
                Value::String(String::from_utf16(&u16s).map_err(|_| {
                    de::Error::custom(format!("field '{}': wstring is not UTF-16", f.name))
                })?)
            }
            Elem::Msg(t) => StructSeed(t).deserialize(d)?,
        })
    }
}

// ---- serialisation ---------------------------------------------------------

struct StructSer<'a>(&'a ResolvedType, &'a Value);

fn mismatch<E: ser::Error>(ty: &ResolvedType, field: Option<&str>, want: &str, got: &Value) -> E {
    let got = got.kind_name();
    match field {
        Some(f) => E::custom(format!("{} field '{f}': want {want}, got {got}", ty.name)),
        None => E::custom(format!("{}: want a message value, got {got}", ty.name)),
    }
}

impl Serialize for StructSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ty = self.0;
        let Value::Struct(fs) = self.1 else {
            return Err(mismatch(ty, None, "a message", self.1));
        };
        if fs.len() != ty.fields.len() || fs.iter().zip(&ty.fields).any(|((n, _), f)| *n != f.name)
        {
            let have: Vec<&str> = fs.iter().map(|(n, _)| &**n).collect();
            let want: Vec<&str> = ty.fields.iter().map(|f| &*f.name).collect();
            return Err(ser::Error::custom(format!(
                "{}: value has fields {have:?}, the type has {want:?}",
                ty.name
            )));
        }
        if ty.fields.is_empty() {
            return s.serialize_u8(0);
        }
        let mut t = s.serialize_tuple(fs.len())?;
        for (f, (_, v)) in ty.fields.iter().zip(fs) {
            t.serialize_element(&FieldSer(ty, f, v))?;
        }
        t.end()
    }
}

struct FieldSer<'a>(&'a ResolvedType, &'a ResolvedField, &'a Value);

impl Serialize for FieldSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (ty, f, v) = (self.0, self.1, self.2);
        if f.array == ArrayKind::Single {
            return ElemSer(ty, f, &f.elem, v).serialize(s);
        }
        let want = format!("{}", ArrayDesc(f));
        let len = v
            .seq_len()
            .ok_or_else(|| mismatch::<S::Error>(ty, Some(&f.name), &want, v))?;
        match f.array {
            ArrayKind::Fixed(n) if len != n => {
                return Err(ser::Error::custom(format!(
                    "{} field '{}': fixed array of {n} elements given {len}",
                    ty.name, f.name
                )))
            }
            ArrayKind::Bounded(b) if len > b => {
                return Err(ser::Error::custom(format!(
                    "{} field '{}': sequence of {len} elements exceeds its bound {b}",
                    ty.name, f.name
                )))
            }
            _ => {}
        }
        let seq = f.array.is_sequence();
        // Typed sequences must match the element type.
        match (&f.elem, v) {
            (Elem::Prim(Primitive::F32), Value::F32Seq(x)) => write_elems(s, seq, x),
            (Elem::Prim(Primitive::F64), Value::F64Seq(x)) => write_elems(s, seq, x),
            (e, Value::U8Seq(x)) if is_octet(e) => {
                if seq {
                    s.serialize_bytes(x)
                } else {
                    write_elems(s, false, x)
                }
            }
            (Elem::Prim(Primitive::F32 | Primitive::F64), _) => {
                Err(mismatch(ty, Some(&f.name), &want, v))
            }
            (e, _) if is_octet(e) => Err(mismatch(ty, Some(&f.name), &want, v)),
            (e, Value::Seq(x)) => {
                let items: Vec<ElemSer> = x.iter().map(|xv| ElemSer(ty, f, e, xv)).collect();
                write_elems(s, seq, &items)
            }
            _ => Err(mismatch(ty, Some(&f.name), &want, v)),
        }
    }
}

struct ArrayDesc<'a>(&'a ResolvedField);

impl fmt::Display for ArrayDesc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.elem {
            Elem::Prim(Primitive::F32) => f.write_str("F32Seq"),
            Elem::Prim(Primitive::F64) => f.write_str("F64Seq"),
            e if is_octet(e) => f.write_str("U8Seq"),
            _ => f.write_str("Seq"),
        }
    }
}

fn write_elems<S: Serializer, T: Serialize>(s: S, seq: bool, x: &[T]) -> Result<S::Ok, S::Error> {
    if seq {
        s.collect_seq(x)
    } else {
        let mut t = s.serialize_tuple(x.len())?;
        for e in x {
            t.serialize_element(e)?;
        }
        t.end()
    }
}

struct ElemSer<'a>(&'a ResolvedType, &'a ResolvedField, &'a Elem, &'a Value);

impl Serialize for ElemSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (ty, f, elem, v) = (self.0, self.1, self.2, self.3);
        let bad = |want: &str| mismatch::<S::Error>(ty, Some(&f.name), want, v);
        match elem {
            Elem::Prim(p) => match (p, v) {
                (Primitive::Bool, Value::Bool(x)) => s.serialize_bool(*x),
                (Primitive::Byte | Primitive::Char | Primitive::U8, Value::U8(x)) => {
                    s.serialize_u8(*x)
                }
                (Primitive::I8, Value::I8(x)) => s.serialize_i8(*x),
                (Primitive::I16, Value::I16(x)) => s.serialize_i16(*x),
                (Primitive::U16, Value::U16(x)) => s.serialize_u16(*x),
                (Primitive::I32, Value::I32(x)) => s.serialize_i32(*x),
                (Primitive::U32, Value::U32(x)) => s.serialize_u32(*x),
                (Primitive::I64, Value::I64(x)) => s.serialize_i64(*x),
                (Primitive::U64, Value::U64(x)) => s.serialize_u64(*x),
                (Primitive::F32, Value::F32(x)) => s.serialize_f32(*x),
                (Primitive::F64, Value::F64(x)) => s.serialize_f64(*x),
                _ => Err(bad(p.msg_name())),
            },
            Elem::String(bound) => {
                let Value::String(x) = v else {
                    return Err(bad("a string"));
                };
                if let Some(b) = bound {
                    if x.len() > *b {
                        return Err(ser::Error::custom(format!(
                            "{} field '{}': string of {} bytes exceeds its bound {b}",
                            ty.name,
                            f.name,
                            x.len()
                        )));
                    }
                }
                s.serialize_str(x)
            }
            Elem::WString(bound) => {
                let Value::String(x) = v else {
                    return Err(bad("a string"));
                };
                let units: Vec<u32> = x.encode_utf16().map(u32::from).collect();
                if let Some(b) = bound {
                    if units.len() > *b {
                        return Err(ser::Error::custom(format!(
                            "{} field '{}': wstring of {} code units exceeds its bound {b}",
                            ty.name,
                            f.name,
                            units.len()
                        )));
                    }
                }
                s.collect_seq(&units)
            }
            Elem::Msg(t) => StructSer(t, v).serialize(s),
        }
    }
}
