//! Element selection for drop and delay stages (REQ-FAULT-TF-CLOCK): a
//! stage that acts only on the elements of a sequence of sub-messages that
//! match some field values, e.g. the `odom → base_link` transform of a
//! `tf2_msgs/msg/TFMessage`:
//!
//! ```yaml
//! - fault: {delay: {delay_s: 0.2}}
//!   select: {sequence: transforms, where: {header.frame_id: odom, child_frame_id: base_link}}
//! ```
//!
//! [`SelectSpec`] is the YAML form; [`ElementSelector::build`] checks it
//! against a message type: `sequence` is a path of plain field names
//! (`transforms`, `status`, `a.b.items`; no index) to a variable-length
//! sequence (`T[]` or `T[<=N]`) of messages; each `where` key is a path
//! ([`breakbench_msgs::FieldPath`] syntax, field names and `[i]` only) in the
//! element type to one numeric, bool or string leaf, and its value is
//! converted to that leaf's type by the rules of the `set` field fault
//! (integers exact and in range, float32 finite within ±3.4e38, bool
//! true/false/0/1, a string for a string). An element matches when every
//! `where` leaf equals its value (`==`: NaN never matches; an index past a
//! sequence's end never matches).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use breakbench_msgs::def::ArrayKind;
use breakbench_msgs::path::Segment;
use breakbench_msgs::registry::Elem;
use breakbench_msgs::{FieldPath, LeafType, MsgError, ResolvedType, Value};
use serde::{Deserialize, Serialize};

use super::SetValue;
use crate::FaultError;

/// Which elements of a sequence of sub-messages a stage acts on, as written
/// in a stack YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectSpec {
    /// Path of field names to a sequence of messages (`transforms`).
    pub sequence: String,
    /// Element field path → the value it must equal (at least one; all must
    /// hold).
    #[serde(rename = "where")]
    pub where_equal: BTreeMap<String, SetValue>,
}

/// One `where` condition, resolved.
#[derive(Debug, Clone)]
struct Condition {
    path: String,
    segments: Vec<Segment>,
    want: Value,
}

/// A [`SelectSpec`] checked against a message type.
#[derive(Debug, Clone)]
pub struct ElementSelector {
    spec: SelectSpec,
    sequence: Vec<String>,
    conditions: Vec<Condition>,
}

impl ElementSelector {
    /// Checks `spec` against `ty`.
    ///
    /// # Errors
    /// [`FaultError::Select`] naming the path and the type: the sequence
    /// path does not exist, has an index, is not a sequence, is a fixed
    /// array (its elements cannot be removed) or a sequence of non-messages;
    /// `where` is empty; a `where` path does not exist in the element type,
    /// selects several leaves (`[*]`, `[a:b]`), or ends at a sub-message or
    /// an array; a `where` value does not fit the leaf's type.
    pub fn build(spec: &SelectSpec, ty: &Arc<ResolvedType>) -> Result<Self, FaultError> {
        let tn = ty.name.to_string();
        let refuse = |path: &str, ty: &str, reason: String| FaultError::Select {
            path: path.to_string(),
            ty: ty.to_string(),
            reason,
        };
        let msg_reason = |e: MsgError| match e {
            MsgError::Path { reason, .. } => reason,
            e => e.to_string(),
        };
        let seq = spec.sequence.as_str();
        let p = FieldPath::parse(seq).map_err(|e| refuse(seq, &tn, msg_reason(e)))?;
        let mut names = Vec::new();
        for s in p.segments() {
            match s {
                Segment::Field(n) => names.push(n.clone()),
                other => {
                    return Err(refuse(
                        seq,
                        &tn,
                        format!("{other}: the sequence is named by field names only (no index)"),
                    ))
                }
            }
        }
        let sel = p.resolve(ty).map_err(|e| refuse(seq, &tn, msg_reason(e)))?;
        let elem_ty = match sel.leaf_type() {
            LeafType::Array {
                elem: Elem::Msg(t),
                array: ArrayKind::Unbounded | ArrayKind::Bounded(_),
            } => t.clone(),
            LeafType::Array {
                elem: Elem::Msg(_),
                array: ArrayKind::Fixed(n),
            } => {
                return Err(refuse(
                    seq,
                    &tn,
                    format!(
                        "'{seq}' is {}: a fixed array of {n}, whose elements cannot be removed",
                        sel.leaf_type()
                    ),
                ))
            }
            other => {
                return Err(refuse(
                    seq,
                    &tn,
                    format!("'{seq}' is {other}, not a sequence of messages"),
                ))
            }
        };
        if spec.where_equal.is_empty() {
            return Err(refuse(
                seq,
                &tn,
                "'where' needs at least one element field and its value".into(),
            ));
        }
        let en = elem_ty.name.to_string();
        let mut conditions = Vec::new();
        for (path, v) in &spec.where_equal {
            let wp = FieldPath::parse(path).map_err(|e| refuse(path, &en, msg_reason(e)))?;
            if let Some(s) = wp
                .segments()
                .iter()
                .find(|s| matches!(s, Segment::All | Segment::Slice(..)))
            {
                return Err(refuse(
                    path,
                    &en,
                    format!("{s} selects several values: a 'where' path names one (use [i])"),
                ));
            }
            let ws = wp
                .resolve(&elem_ty)
                .map_err(|e| refuse(path, &en, msg_reason(e)))?;
            let want = match ws.leaf_type() {
                LeafType::Prim(p) => super::modes::prim_value(v, *p),
                LeafType::String => match v {
                    SetValue::Text(t) => Ok(Value::String(t.clone())),
                    other => Err(format!(
                        "{} is not a string for a string field (quote it)",
                        super::modes::show(other)
                    )),
                },
                other => Err(format!(
                    "'{path}' is {other}: compare a number, bool or string field"
                )),
            }
            .map_err(|reason| refuse(path, &en, reason))?;
            conditions.push(Condition {
                path: path.clone(),
                segments: wp.segments().to_vec(),
                want,
            });
        }
        Ok(Self {
            spec: spec.clone(),
            sequence: names,
            conditions,
        })
    }

    /// The spec it was built from.
    pub fn spec(&self) -> &SelectSpec {
        &self.spec
    }

    /// `transforms[header.frame_id == "odom", child_frame_id == "base_link"]`.
    pub fn describe(&self) -> String {
        let conds: Vec<String> = self
            .conditions
            .iter()
            .map(|c| {
                let v = match &c.want {
                    Value::String(s) => format!("{s:?}"),
                    v => v
                        .as_f64()
                        .map_or_else(|| format!("{v:?}"), |x| format!("{x}")),
                };
                format!("{} == {v}", c.path)
            })
            .collect();
        format!("{}[{}]", self.spec.sequence, conds.join(", "))
    }

    fn sequence<'a>(&self, v: &'a Value) -> Option<&'a Vec<Value>> {
        let mut at = v;
        for n in &self.sequence {
            at = at.field(n)?;
        }
        match at {
            Value::Seq(x) => Some(x),
            _ => None,
        }
    }

    fn sequence_mut<'a>(&self, v: &'a mut Value) -> Option<&'a mut Vec<Value>> {
        let mut at = v;
        for n in &self.sequence {
            at = at.field_mut(n)?;
        }
        match at {
            Value::Seq(x) => Some(x),
            _ => None,
        }
    }

    fn element_matches(&self, e: &Value) -> bool {
        self.conditions
            .iter()
            .all(|c| leaf(e, &c.segments).is_some_and(|l| *l == c.want))
    }

    /// Per element of the message's sequence, whether it matches; `None`
    /// when the value has no such sequence (a value not of the type).
    pub fn matches(&self, v: &Value) -> Option<Vec<bool>> {
        self.sequence(v)
            .map(|s| s.iter().map(|e| self.element_matches(e)).collect())
    }

    /// Keeps in `v`'s sequence the elements whose `mask` entry equals
    /// `keep_matching` (mask from [`ElementSelector::matches`] on the same
    /// value).
    pub fn retain(&self, v: &mut Value, mask: &[bool], keep_matching: bool) {
        if let Some(s) = self.sequence_mut(v) {
            let mut k = mask.iter();
            s.retain(|_| k.next().copied().unwrap_or(false) == keep_matching);
        }
    }
}

/// The leaf at `segments` (field names and indices) of `v`, if present.
fn leaf<'a>(v: &'a Value, segments: &[Segment]) -> Option<Cow<'a, Value>> {
    let Some((s, rest)) = segments.split_first() else {
        return Some(Cow::Borrowed(v));
    };
    match (s, v) {
        (Segment::Field(n), v) => leaf(v.field(n)?, rest),
        (Segment::Index(i), Value::Seq(x)) => leaf(x.get(*i)?, rest),
        (Segment::Index(i), Value::F32Seq(x)) => Some(Cow::Owned(Value::F32(*x.get(*i)?))),
        (Segment::Index(i), Value::F64Seq(x)) => Some(Cow::Owned(Value::F64(*x.get(*i)?))),
        (Segment::Index(i), Value::U8Seq(x)) => Some(Cow::Owned(Value::U8(*x.get(*i)?))),
        _ => None,
    }
}
