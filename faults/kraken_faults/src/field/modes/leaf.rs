//! Writing into the leaves a path selects: a patch, a mapped or drawn
//! number, a sequence's length. Each returns whether the leaf changed
//! (bitwise, [`same`]).

use breakbench_msgs::{LeafMut, Value};

use super::values::same;
use super::Patch;
use crate::faults::{map32, map64};

/// Writes `p` into `target`; true when that changed it.
pub(super) fn apply_patch(target: &mut Value, p: &Patch) -> bool {
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
pub(super) fn write_leaf(leaf: LeafMut<'_>, p: &Patch) -> bool {
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
pub(super) fn read_leaf(leaf: &LeafMut<'_>) -> Value {
    match leaf {
        LeafMut::Value(v) => (**v).clone(),
        LeafMut::F32(x) => Value::F32(**x),
        LeafMut::F64(x) => Value::F64(**x),
        LeafMut::U8(x) => Value::U8(**x),
    }
}

/// `x ↦ f(x)` on a numeric leaf, floats kept finite when they were
/// ([`map64`], [`map32`]: the typed stages' writers); true when the leaf
/// changed.
pub(super) fn map_leaf(leaf: LeafMut<'_>, f: impl FnOnce(f64) -> f64) -> bool {
    match leaf {
        LeafMut::F32(r) | LeafMut::Value(Value::F32(r)) => {
            let old = *r;
            map32(r, f);
            old.to_bits() != r.to_bits()
        }
        LeafMut::F64(r) | LeafMut::Value(Value::F64(r)) => {
            let old = *r;
            map64(r, f);
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
pub(super) fn put_leaf(mut leaf: LeafMut<'_>, y: f64) -> bool {
    let before = read_leaf(&leaf);
    leaf.set_f64(y);
    !same(&before, &read_leaf(&leaf))
}

/// Resizes a sequence value to `n` elements, adding `fill`; true when its
/// length changed.
pub(super) fn resize(v: &mut Value, n: usize, fill: &Value) -> bool {
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
