//! [`locate`]: the position of a field path in a YAML text, as
//! serde_yaml_ng's own parser reports it.

use std::cell::Cell;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::without_bom;

/// The message of the error that stops the walk at the target node.
const FOUND: &str = "\u{0}breakbench-locate-found";

/// One step of a field path: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Splits a field path as serde_path_to_error and the semantic checks write
/// it (`axes[0].values[1]`, `nominal.convergence.rel_tol`, `.` for the root).
fn split_path(field: &str) -> Option<Vec<Seg>> {
    let mut out = Vec::new();
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Seg::Key(key.to_string()));
        }
        while !rest.is_empty() {
            let (idx, tail) = rest.split_once(']')?;
            out.push(Seg::Index(idx.parse().ok()?));
            rest = tail.strip_prefix('[').unwrap_or(tail);
        }
    }
    Some(out)
}

/// The 1-based line and column of the `nth` (1-based) occurrence of `field`
/// in the YAML `text`: of its key when the path ends in a key (so the second
/// occurrence of a duplicated key can be found), of the element when it ends
/// in an index. `None` for the root, an unparsable path or a field not in the
/// text.
///
/// It walks the document with serde_yaml_ng's own deserializer and stops with
/// an error at the target node; serde_yaml_ng stamps that error with the
/// node's position, which is read back. So the position is the parser's, not
/// a text search.
pub fn locate(text: &str, field: &str, nth: usize) -> Option<(usize, usize)> {
    let text = without_bom(text);
    let target = split_path(field)?;
    if target.is_empty() || nth == 0 {
        return None;
    }
    let seen = Cell::new(0);
    let walk = Walk {
        target: &target,
        depth: 0,
        nth,
        seen: &seen,
    };
    let de = serde_yaml_ng::Deserializer::from_str(text);
    match (&walk).deserialize(de) {
        Err(e) if e.to_string().contains(FOUND) => e.location().map(|l| (l.line(), l.column())),
        _ => None,
    }
}

/// The walk down the document towards `target`: the current depth, and how
/// many nodes matching the target were seen (the `nth` is the one).
struct Walk<'a> {
    target: &'a [Seg],
    depth: usize,
    nth: usize,
    seen: &'a Cell<usize>,
}
impl Walk<'_> {
    fn hit(&self) -> bool {
        self.seen.set(self.seen.get() + 1);
        self.seen.get() == self.nth
    }
    fn child(&self) -> Walk<'_> {
        Walk {
            target: self.target,
            depth: self.depth + 1,
            nth: self.nth,
            seen: self.seen,
        }
    }
}
/// A key of a mapping on the target's path: stops on the target key.
struct Key<'a>(&'a Walk<'a>);
impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<String>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let w = self.0;
        if w.depth + 1 == w.target.len() && w.target[w.depth] == Seg::Key(v.to_string()) && w.hit()
        {
            return Err(E::custom(FOUND));
        }
        Ok(Some(v.to_string()))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}
impl<'de> DeserializeSeed<'de> for &Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth >= self.target.len() {
            d.deserialize_ignored_any(IgnoredAny).map(|_| ())
        } else {
            d.deserialize_any(self)
        }
    }
}
impl<'de> Visitor<'de> for &Walk<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.deserialize(d)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(key) = m.next_key_seed(Key(self))? {
            let child = self.child();
            if key.is_some_and(|k| self.target[self.depth] == Seg::Key(k)) {
                m.next_value_seed(&child)?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let child = self.child();
            let on_path = self.target[self.depth] == Seg::Index(i);
            if on_path && self.depth + 1 == self.target.len() {
                // The element itself is the target: stop inside its own
                // deserialize call so the error carries its position.
                if s.next_element_seed(Stop(self))?.is_none() {
                    break;
                }
            } else if on_path {
                if s.next_element_seed(&child)?.is_none() {
                    break;
                }
            } else if s.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            i += 1;
        }
        Ok(())
    }
}

/// The target element of a sequence: stops on the `nth` match.
struct Stop<'a>(&'a Walk<'a>);
impl<'de> DeserializeSeed<'de> for Stop<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.0.hit() {
            d.deserialize_any(Bang)
        } else {
            d.deserialize_ignored_any(IgnoredAny).map(|_| ())
        }
    }
}
/// Fails on whatever node it is given, from inside that
/// node's own deserialize call.
struct Bang;
impl<'de> Visitor<'de> for Bang {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("nothing")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(A::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(A::Error::custom(FOUND))
    }
}
