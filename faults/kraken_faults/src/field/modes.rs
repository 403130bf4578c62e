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

use breakbench_msgs::{LeafMut, Selector, TypeRegistry, Value};

use super::FieldFaultSpec;
use crate::faults::bias::{biased, Bias, BiasRamp};
use crate::faults::garbage::Garbage;
use crate::faults::saturation::Saturation;
use crate::faults::scale::Scale;
use crate::faults::stuck::Freeze;
use crate::faults::FaultStage;
use crate::{FaultError, FaultRng};

mod build;
mod leaf;
mod values;

use leaf::{map_leaf, put_leaf, read_leaf, resize, write_leaf};
pub use values::same;
pub(crate) use values::{prim_value, show};

/// Largest sequence length `extend` and `alternate_length` may ask for
/// (2^24 elements: a 64 MB float32 sequence).
pub const MAX_SEQ_LEN: usize = 1 << 24;

/// A field fault ready to apply to messages of one type.
#[derive(Debug, Clone)]
pub struct FieldFault {
    spec: FieldFaultSpec,
    sel: Selector,
    op: Op,
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

/// A field fault's operation. The value models (bias, bias_ramp, scale,
/// saturation, garbage, stuck) are the typed modes' own, from
/// [`crate::faults`]: one model, applied here to each selected leaf.
#[derive(Debug, Clone)]
enum Op {
    Set(Patch),
    Bias(Bias),
    BiasRamp(BiasRamp),
    Scale(Scale),
    Stuck(Freeze<Vec<Patch>>),
    Saturation(Saturation),
    Garbage(Garbage),
    Length(Len, Value),
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
        let (sel, op) = build::op_for(spec, reg, type_name)?;
        Ok(FieldFault {
            spec: spec.clone(),
            sel,
            op,
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
        match &mut self.op {
            Op::Bias(m) => m.on_set(now),
            Op::BiasRamp(m) => m.on_set(now),
            _ => {}
        }
    }

    /// Applies the fault to one message `value` (of the type it was built
    /// for) received at `now`; garbage draws from `rng` (one draw per leaf,
    /// in leaf order, two when `allow_non_finite`). Returns true when it
    /// changed something (bitwise: setting a leaf to the value it has is no
    /// change). A value that does not have the shape of the type is left
    /// unchanged up to where the shape differs, and false is returned unless
    /// something before that changed.
    pub fn apply(&mut self, value: &mut Value, now: Duration, rng: &mut FaultRng) -> bool {
        let mut changed = false;
        let sel = &self.sel;
        match &mut self.op {
            Op::Set(p) => {
                let _ = sel.visit_mut(value, |_, l| changed |= write_leaf(l, p));
            }
            Op::Bias(m) => {
                if let Some(b) = m.offset(now) {
                    let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| biased(x, b)));
                }
            }
            Op::BiasRamp(m) => {
                let b = m.offset(now);
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| biased(x, b)));
            }
            Op::Scale(m) => {
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| m.value(x)));
            }
            Op::Saturation(m) => {
                let _ = sel.visit_mut(value, |_, l| changed |= map_leaf(l, |x| m.value(x)));
            }
            Op::Garbage(g) => {
                let _ = sel.visit_mut(value, |_, l| changed |= put_leaf(l, g.draw(rng)));
            }
            Op::Stuck(freeze) => {
                let (frozen, first) = freeze.replay(|| {
                    let mut got = Vec::new();
                    let _ = sel.visit_mut(value, |_, l| got.push(Patch::Whole(read_leaf(&l))));
                    got
                });
                if !first {
                    let mut i = 0;
                    let _ = sel.visit_mut(value, |_, l| {
                        if let Some(p) = frozen.get(i) {
                            changed |= write_leaf(l, p);
                        }
                        i += 1;
                    });
                }
            }
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
