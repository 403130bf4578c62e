//! [`FieldFault::build`](super::FieldFault::build)'s checks: the type and
//! path resolved, the parameters the mode reads, the leaf's type against
//! the mode, each parameter's range; then the mode's [`Op`].

use breakbench_msgs::def::{ArrayKind, Primitive};
use breakbench_msgs::registry::Elem;
use breakbench_msgs::{FieldPath, LeafType, MsgError, Selector, TypeRegistry, Value};

use super::super::{FieldFaultSpec, FieldMode};
use super::values::{
    elem_value, field_names, int_range, int_span, is_float, num, patch_for, zero_elem,
};
use super::{Len, Op, MAX_SEQ_LEN};
use crate::faults::bias::{Bias, BiasRamp};
use crate::faults::garbage::Garbage;
use crate::faults::saturation::Saturation;
use crate::faults::scale::Scale;
use crate::faults::stuck::Freeze;
use crate::params::MAX_MAGNITUDE;
use crate::FaultError;

/// `spec` checked against type `type_name` in `reg`: the resolved path and
/// the mode's operation. Errors: see [`FieldFault::build`](super::FieldFault::build).
pub(super) fn op_for(
    spec: &FieldFaultSpec,
    reg: &TypeRegistry,
    type_name: &str,
) -> Result<(Selector, Op), FaultError> {
    let ck = Check::new(spec, reg, type_name)?;
    ck.check_given()?;
    let op = ck.op()?;
    Ok((ck.sel, op))
}

/// What the checks need: the spec, the type's name, the resolved path and
/// its leaf's type.
struct Check<'a> {
    spec: &'a FieldFaultSpec,
    reg: &'a TypeRegistry,
    mode: &'static str,
    path: &'a str,
    /// The resolved message type's name.
    tn: String,
    sel: Selector,
    leaf: LeafType,
    /// "'<path>' is <leaf type>", the start of most refusals.
    leaf_desc: String,
}

impl<'a> Check<'a> {
    /// Resolves the type and the path. Errors: an unknown type (named as
    /// given), a malformed path or one not in the type.
    fn new(
        spec: &'a FieldFaultSpec,
        reg: &'a TypeRegistry,
        type_name: &str,
    ) -> Result<Self, FaultError> {
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
        let sel = FieldPath::parse(path)
            .and_then(|p| p.resolve(&ty))
            .map_err(|e| refuse(&tn, msg_reason(e)))?;
        let leaf = sel.leaf_type().clone();
        let leaf_desc = format!("'{path}' is {leaf}");
        Ok(Self {
            spec,
            reg,
            mode,
            path,
            tn,
            sel,
            leaf,
            leaf_desc,
        })
    }

    /// A [`FaultError::Field`] on the resolved type.
    fn err(&self, reason: String) -> FaultError {
        FaultError::Field {
            path: self.path.to_string(),
            ty: self.tn.clone(),
            mode: self.mode,
            reason,
        }
    }

    /// Errors: a parameter given that the mode does not read.
    fn check_given(&self) -> Result<(), FaultError> {
        let (spec, mode) = (self.spec, self.mode);
        let reads = spec.mode.parameters();
        for g in spec.given_parameters() {
            if !reads.contains(&g) {
                return Err(self.err(format!(
                    "parameter '{g}' is not read by mode '{mode}' (it reads: {})",
                    if reads.is_empty() {
                        "nothing".to_string()
                    } else {
                        reads.join(", ")
                    }
                )));
            }
        }
        Ok(())
    }

    /// Parameter `name`'s value. Errors: not given.
    fn need(&self, name: &str, v: Option<f64>) -> Result<f64, FaultError> {
        let mode = self.mode;
        v.ok_or_else(|| self.err(format!("mode '{mode}' needs parameter '{name}'")))
    }

    /// Parameter `name`'s value, finite with |x| ≤ [`MAX_MAGNITUDE`].
    /// Errors: not given, out of range.
    fn bounded(&self, name: &str, v: Option<f64>) -> Result<f64, FaultError> {
        let x = self.need(name, v)?;
        if x.is_finite() && x.abs() <= MAX_MAGNITUDE {
            Ok(x)
        } else {
            Err(self.err(format!(
                "{name} = {} must be finite and in [-{MAX_MAGNITUDE:e}, {MAX_MAGNITUDE:e}]",
                num(x)
            )))
        }
    }

    /// The (elem, array) of a leaf type, for set values. Errors: a
    /// sub-message type not in the registry.
    fn leaf_elem(&self, leaf: &LeafType) -> Result<(Elem, ArrayKind), FaultError> {
        Ok(match leaf {
            LeafType::Prim(p) => (Elem::Prim(*p), ArrayKind::Single),
            LeafType::String => (Elem::String(None), ArrayKind::Single),
            LeafType::Msg(t) => (
                Elem::Msg(
                    self.reg
                        .resolve(&t.to_string())
                        .map_err(|e| self.err(e.to_string()))?,
                ),
                ArrayKind::Single,
            ),
            LeafType::Array { elem, array } => (elem.clone(), *array),
        })
    }

    /// Numeric modes: the leaf's primitive. Errors: a bool, a string, a
    /// sub-message (naming its fields), a whole array.
    fn numeric(&self) -> Result<Primitive, FaultError> {
        let (mode, path, leaf_desc) = (self.mode, self.path, &self.leaf_desc);
        match &self.leaf {
            LeafType::Prim(p) if *p != Primitive::Bool => Ok(*p),
            LeafType::Prim(_) => Err(self.err(format!(
                "{leaf_desc}: mode '{mode}' needs a numeric field (set takes true/false or 0/1)"
            ))),
            LeafType::String => Err(self.err(format!(
                "{leaf_desc}: mode '{mode}' needs a numeric field (set takes a string)"
            ))),
            LeafType::Msg(_) => {
                let (Elem::Msg(t), _) = self.leaf_elem(&self.leaf)? else {
                    unreachable!()
                };
                Err(self.err(format!(
                    "{leaf_desc}, a sub-message: mode '{mode}' needs a numeric field: name one \
                     ('{path}.{}'; fields: {}), or use set with a map of its fields",
                    t.fields.first().map_or("x", |f| &*f.name),
                    field_names(&t)
                )))
            }
            LeafType::Array { .. } => Err(self.err(format!(
                "{leaf_desc}, a whole array: mode '{mode}' acts on elements: write '{path}[*]' \
                 or a slice '{path}[a:b]'"
            ))),
        }
    }

    /// Sequence-length modes: the fill value of a whole sequence that may
    /// take every length in `lens`. Errors: not a sequence, a fixed array,
    /// a length above [`MAX_SEQ_LEN`] or the bound, a bad fill.
    fn sequence(&self, lens: &[usize]) -> Result<Value, FaultError> {
        let (mode, path, leaf_desc) = (self.mode, self.path, &self.leaf_desc);
        match &self.leaf {
            LeafType::Array { elem, array } if array.is_sequence() => {
                for &n in lens {
                    let max = match array {
                        ArrayKind::Bounded(b) => (*b).min(MAX_SEQ_LEN),
                        _ => MAX_SEQ_LEN,
                    };
                    if n > max {
                        return Err(self.err(format!(
                            "{leaf_desc}: length {n} is above {max}{}",
                            if matches!(array, ArrayKind::Bounded(b) if *b <= MAX_SEQ_LEN) {
                                " (the sequence's bound)"
                            } else {
                                " (MAX_SEQ_LEN)"
                            }
                        )));
                    }
                }
                match &self.spec.fill {
                    Some(f) => {
                        elem_value(f, elem, &format!("{path} fill")).map_err(|e| self.err(e))
                    }
                    None => Ok(zero_elem(elem)),
                }
            }
            LeafType::Array { .. } => Err(self.err(format!(
                "{leaf_desc}, a fixed array: its length is part of the type, mode '{mode}' \
                 needs a sequence (T[] or T[<=N])"
            ))),
            _ => Err(self.err(format!(
                "{leaf_desc}: mode '{mode}' needs a whole sequence field{}",
                match path.rfind('[') {
                    Some(i) if path.ends_with(']') =>
                        format!(" (write '{}', without the index)", &path[..i]),
                    _ => String::new(),
                }
            ))),
        }
    }

    /// The mode's operation, its parameters checked.
    fn op(&self) -> Result<Op, FaultError> {
        let (spec, mode) = (self.spec, self.mode);
        Ok(match spec.mode {
            FieldMode::Set => {
                let v = spec
                    .value
                    .as_ref()
                    .ok_or_else(|| self.err(format!("mode '{mode}' needs parameter 'value'")))?;
                let (elem, array) = self.leaf_elem(&self.leaf)?;
                Op::Set(patch_for(v, &elem, array, self.path).map_err(|e| self.err(e))?)
            }
            FieldMode::Bias => self.bias()?,
            FieldMode::BiasRamp => {
                self.numeric()?;
                Op::BiasRamp(BiasRamp {
                    bias_rate: self.bounded("bias_rate_per_s", spec.bias_rate_per_s)?,
                    set_at: None,
                })
            }
            FieldMode::Scale => {
                self.numeric()?;
                Op::Scale(Scale {
                    factor: self.bounded("scale_factor", spec.scale_factor)?,
                })
            }
            FieldMode::Stuck => Op::Stuck(Freeze::default()),
            FieldMode::Saturation => {
                self.numeric()?;
                let lo = self.need("min", spec.min)?;
                let hi = self.need("max", spec.max)?;
                if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                    return Err(self.err(format!(
                        "saturation needs finite min <= max; got min = {}, max = {}",
                        num(lo),
                        num(hi)
                    )));
                }
                Op::Saturation(Saturation { min: lo, max: hi })
            }
            FieldMode::Garbage => self.garbage()?,
            FieldMode::Truncate | FieldMode::Extend => {
                let n = spec
                    .length
                    .ok_or_else(|| self.err(format!("mode '{mode}' needs parameter 'length'")))?;
                let fill = self.sequence(&[n])?;
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
                    .ok_or_else(|| self.err(format!("mode '{mode}' needs parameter 'lengths'")))?;
                let fill = self.sequence(&ls)?;
                Op::Length(Len::Alternate(ls, 0), fill)
            }
        })
    }

    /// `bias`: on an integer leaf (a stamp's sec) up to the type's span
    /// (int32: 2^32, the hdl_localization #48 offset of -1.66e9 s in one
    /// stage; the result saturates at the type's range), else bounded.
    fn bias(&self) -> Result<Op, FaultError> {
        let p = self.numeric()?;
        let leaf_desc = &self.leaf_desc;
        match int_span(p) {
            Some(span) if span > MAX_MAGNITUDE => {
                let b = self.need("bias", self.spec.bias)?;
                if !(b.is_finite() && b.abs() <= span) {
                    return Err(self.err(format!(
                        "bias = {} must be finite and in [-{span:e}, {span:e}] ({leaf_desc}: its span)",
                        num(b)
                    )));
                }
                Ok(Op::Bias(bias(b)))
            }
            _ => Ok(Op::Bias(bias(self.bounded("bias", self.spec.bias)?))),
        }
    }

    /// `garbage`: finite bounds with a finite span within the field type's
    /// range; `allow_non_finite` only on floats.
    fn garbage(&self) -> Result<Op, FaultError> {
        let (spec, leaf_desc) = (self.spec, &self.leaf_desc);
        let p = self.numeric()?;
        let lo = self.need("garbage_min", spec.garbage_min)?;
        let hi = self.need("garbage_max", spec.garbage_max)?;
        let allow = spec.allow_non_finite.unwrap_or(false);
        if !(lo.is_finite() && hi.is_finite() && lo < hi && (hi - lo).is_finite()) {
            return Err(self.err(format!(
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
            return Err(self.err(format!(
                "{leaf_desc}: garbage bounds {}..{} do not fit it",
                num(lo),
                num(hi)
            )));
        }
        if allow && !is_float(p) {
            return Err(self.err(format!(
                "{leaf_desc}: allow_non_finite needs a float field (an integer has no NaN or inf)"
            )));
        }
        Ok(Op::Garbage(Garbage {
            min: lo,
            max: hi,
            allow_non_finite: allow,
        }))
    }
}

/// The field mode `bias`: the typed bias model without a step (from the
/// first faulted message on).
fn bias(b: f64) -> Bias {
    Bias {
        bias: b,
        step_at: std::time::Duration::ZERO,
        set_at: None,
    }
}
