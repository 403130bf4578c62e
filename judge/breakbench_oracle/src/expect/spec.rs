//! The expectation part of a resilience test file, as serde types with
//! their semantic checks.
//!
//! ```yaml
//! expectations:
//!   - name: stops
//!     role: reaction
//!     within: { anchor: { applied: scan_loss }, within_s: 0.5,
//!               predicate: { stopped: { source: truth, tolerance_m_s: 0.02 } } }
//!   - name: no_contact
//!     never: { predicate: { compare: { observable: truth.clearance_m, op: lt, value: 0.0 } } }
//!   - name: safe
//!     invariant: obstacle_clearance
//! ```
//!
//! Each expectation names exactly one kind (`within`, `never`, `always`,
//! `at`, `persists`, `invariant`). Unknown keys are errors (every struct is
//! `deny_unknown_fields`); [`check_expectations`] rejects what serde cannot
//! (two kinds, a non-finite or negative duration, an unknown fault or
//! expectation name, an anchor cycle).

use std::collections::BTreeMap;

use kraken_interfaces::ConfigError;
use serde::{Deserialize, Serialize};

use super::predicate::Predicate;

/// An event an expectation is measured from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// The start of the run, sim time 0.
    #[default]
    RunStart,
    /// The fault's trigger fired (`t_trigger`).
    Trigger(String),
    /// The fault first changed or withheld a message (`t_applied`).
    Applied(String),
    /// The fault was cleared (`t_cleared`).
    Cleared(String),
    /// Another expectation was decided satisfied (its `decided_at_s`).
    Expectation(String),
}

impl Anchor {
    /// The fault this anchor refers to, if any.
    pub fn fault(&self) -> Option<&str> {
        match self {
            Anchor::Trigger(f) | Anchor::Applied(f) | Anchor::Cleared(f) => Some(f),
            _ => None,
        }
    }
}

/// `span: { from: <anchor>, until: <anchor> }`; no `until` = the end of the
/// run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub from: Anchor,
    #[serde(default)]
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub until: Option<Anchor>,
}

/// The closed time window of a `never` / `always`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// Every step of the run (the default).
    #[default]
    WholeRun,
    /// From the fault's trigger to its clear (or the end of the run).
    WhileFaultActive(String),
    /// From one anchor to another.
    Span(Span),
}

/// Which latency an expectation measures (`decided_at_s` minus its anchor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Detection,
    Reaction,
    Recovery,
}

/// `within`: the predicate is true at some step in
/// `[anchor, anchor + within_s]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Within {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub anchor: Anchor,
    pub within_s: f64,
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
}

/// `never` / `always`: the predicate is false / true at every step of the
/// window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Windowed {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
    #[serde(default)]
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub window: Window,
}

/// `at`: the predicate is false at every step in `[anchor, anchor + at_s -
/// tol_s)` and true at some step in `[anchor + at_s - tol_s, anchor + at_s
/// + tol_s]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct At {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub anchor: Anchor,
    pub at_s: f64,
    pub tol_s: f64,
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
}

/// `persists`: from the anchor on, once true the predicate stays true to the
/// end of the run; with `max_transitions: n`, it may change value at most
/// `n` times and must be true at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persists {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub predicate: Predicate,
    #[serde(default)]
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub anchor: Anchor,
    #[serde(default)]
    pub max_transitions: Option<u32>,
}

/// The three ground-truth invariants of [`crate::verdict`], by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvariantName {
    OperatingRegionContainment,
    ObstacleClearance,
    MissionCompletionTruePose,
}

/// One expectation as written in the test file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationSpec {
    pub name: String,
    #[serde(default)]
    pub role: Option<Role>,
    #[serde(default)]
    pub within: Option<Within>,
    #[serde(default)]
    pub never: Option<Windowed>,
    #[serde(default)]
    pub always: Option<Windowed>,
    #[serde(default)]
    pub at: Option<At>,
    #[serde(default)]
    pub persists: Option<Persists>,
    #[serde(default)]
    pub invariant: Option<InvariantName>,
}

/// The kind of a checked expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Within(Within),
    Never(Windowed),
    Always(Windowed),
    At(At),
    Persists(Persists),
    Invariant(InvariantName),
}

impl Kind {
    /// The kind's name as in the file.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Within(_) => "within",
            Kind::Never(_) => "never",
            Kind::Always(_) => "always",
            Kind::At(_) => "at",
            Kind::Persists(_) => "persists",
            Kind::Invariant(_) => "invariant",
        }
    }

    /// The anchor of an anchored kind (`within`, `at`, `persists`).
    pub fn anchor(&self) -> Option<&Anchor> {
        match self {
            Kind::Within(w) => Some(&w.anchor),
            Kind::At(a) => Some(&a.anchor),
            Kind::Persists(p) => Some(&p.anchor),
            _ => None,
        }
    }

    fn anchors(&self) -> Vec<&Anchor> {
        match self {
            Kind::Never(w) | Kind::Always(w) => match &w.window {
                Window::Span(s) => std::iter::once(&s.from).chain(s.until.as_ref()).collect(),
                _ => vec![],
            },
            k => k.anchor().into_iter().collect(),
        }
    }

    /// The predicate of every kind but `invariant`.
    pub fn predicate(&self) -> Option<&Predicate> {
        match self {
            Kind::Within(w) => Some(&w.predicate),
            Kind::Never(w) | Kind::Always(w) => Some(&w.predicate),
            Kind::At(a) => Some(&a.predicate),
            Kind::Persists(p) => Some(&p.predicate),
            Kind::Invariant(_) => None,
        }
    }

    /// Faults this kind refers to directly (anchors, window, predicate).
    pub fn faults(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .anchors()
            .into_iter()
            .filter_map(|a| a.fault().map(str::to_string))
            .collect();
        if let Kind::Never(w) | Kind::Always(w) = self {
            if let Window::WhileFaultActive(f) = &w.window {
                out.push(f.clone());
            }
        }
        if let Some(p) = self.predicate() {
            p.faults(&mut out);
        }
        out
    }

    /// The expectations this kind is anchored on.
    pub fn depends_on(&self) -> Vec<&str> {
        self.anchors()
            .into_iter()
            .filter_map(|a| match a {
                Anchor::Expectation(e) => Some(e.as_str()),
                _ => None,
            })
            .collect()
    }
}

impl ExpectationSpec {
    /// The key of its kind as written in the file (`within`, `never`,
    /// `always`, `at`, `persists`, `invariant`), `None` if zero or several.
    pub fn kind_key(&self) -> Option<&'static str> {
        Some(match self.kind()? {
            Kind::Within(_) => "within",
            Kind::Never(_) => "never",
            Kind::Always(_) => "always",
            Kind::At(_) => "at",
            Kind::Persists(_) => "persists",
            Kind::Invariant(_) => "invariant",
        })
    }

    /// The one kind set, `None` if zero or several are set.
    pub fn kind(&self) -> Option<Kind> {
        let mut k: Vec<Kind> = Vec::new();
        k.extend(self.within.clone().map(Kind::Within));
        k.extend(self.never.clone().map(Kind::Never));
        k.extend(self.always.clone().map(Kind::Always));
        k.extend(self.at.clone().map(Kind::At));
        k.extend(self.persists.clone().map(Kind::Persists));
        k.extend(self.invariant.map(Kind::Invariant));
        if k.len() == 1 {
            k.pop()
        } else {
            None
        }
    }
}

/// True if expectation `name` of `specs` refers to a fault: directly (an
/// anchor, a window, a `fault:` predicate) or through an expectation it is
/// anchored on. The baseline run is judged by the others only.
pub fn refers_to_fault(specs: &[ExpectationSpec], name: &str) -> bool {
    fn go(specs: &[ExpectationSpec], name: &str, depth: usize) -> bool {
        let Some(k) = specs.iter().find(|s| s.name == name).and_then(|s| s.kind()) else {
            return false;
        };
        !k.faults().is_empty()
            || (depth < specs.len() && k.depends_on().iter().any(|d| go(specs, d, depth + 1)))
    }
    go(specs, name, 0)
}

/// Semantic checks of a test's expectations: `faults` are the names of the
/// test's faults, `field` the path of the `expectations` list in the file
/// (errors name `field[i].<key>`), `path` the file.
///
/// # Errors
/// A [`ConfigError`] (without line; [`ConfigError::located`] adds it) for:
/// an empty or duplicate name, zero or several kinds, a non-finite or
/// out-of-range duration (`within_s > 0`, `at_s >= 0`, `tol_s >= 0`), a
/// `role` on a kind without an anchor, an unknown fault or expectation in an
/// anchor, window or predicate, an expectation anchored on itself or in a
/// cycle, a bad predicate (see [`Predicate::check`]).
pub fn check_expectations(
    specs: &[ExpectationSpec],
    faults: &[&str],
    field: &str,
    path: &str,
) -> Result<(), ConfigError> {
    let err = |f: String, m: String| Err(ConfigError::semantic(path, &f, m));
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, s) in specs.iter().enumerate() {
        let at = format!("{field}[{i}]");
        if s.name.is_empty() {
            return err(format!("{at}.name"), "is empty".into());
        }
        if seen.insert(&s.name, i).is_some() {
            return err(
                format!("{at}.name"),
                format!("duplicate expectation name '{}'", s.name),
            );
        }
        let Some(kind) = s.kind() else {
            return err(
                at,
                "give exactly one of within, never, always, at, persists, invariant".into(),
            );
        };
        let key = format!("{at}.{}", kind.name());
        let pos = |v: f64, strict: bool| v.is_finite() && (v > 0.0 || (!strict && v == 0.0));
        match &kind {
            Kind::Within(w) if !pos(w.within_s, true) => {
                return err(
                    format!("{key}.within_s"),
                    "must be a finite number > 0 (s)".into(),
                )
            }
            Kind::At(a) if !pos(a.at_s, false) => {
                return err(
                    format!("{key}.at_s"),
                    "must be a finite number >= 0 (s)".into(),
                )
            }
            Kind::At(a) if !pos(a.tol_s, false) => {
                return err(
                    format!("{key}.tol_s"),
                    "must be a finite number >= 0 (s)".into(),
                )
            }
            Kind::At(a) if a.tol_s > a.at_s => {
                return err(
                    format!("{key}.tol_s"),
                    format!(
                        "{} s is above at_s {} s: the window [at_s - tol_s, at_s + tol_s] would reach before its anchor",
                        a.tol_s, a.at_s
                    ),
                )
            }
            Kind::Never(w) | Kind::Always(w) => {
                if let Window::Span(sp) = &w.window {
                    if let Some(why) = reversed_span(sp) {
                        return err(format!("{key}.window.span"), why);
                    }
                }
            }
            _ => {}
        }
        if s.role.is_some() && kind.anchor().is_none_or(|a| *a == Anchor::RunStart) {
            return err(
                format!("{at}.role"),
                "a role needs an anchored kind (within, at, persists with an anchor)".into(),
            );
        }
        for f in kind.faults() {
            if !faults.contains(&f.as_str()) {
                return err(
                    key,
                    format!("unknown fault '{f}' (faults of this test: {faults:?})"),
                );
            }
        }
        for d in kind.depends_on() {
            if !specs.iter().any(|o| o.name == d) {
                return err(key, format!("unknown expectation '{d}'"));
            }
            if d == s.name {
                return err(key, "an expectation cannot be anchored on itself".into());
            }
        }
        if let Some(p) = kind.predicate() {
            p.check(&format!("{key}.predicate"), faults)
                .or_else(|(f, m)| err(f, m))?;
        }
    }
    if let Err(name) = eval_order(specs) {
        let i = seen[name.as_str()];
        return err(
            format!("{field}[{i}]"),
            format!("expectation '{name}' is in an anchor cycle"),
        );
    }
    Ok(())
}

/// Why `span` is empty or reversed whatever the run does, if it is: an
/// `until` at the run start, equal to `from`, or an event of the same fault
/// that cannot come after `from` (a fault is triggered before it is applied,
/// and applied, if ever, before it is cleared). Such a window has no step,
/// so its `never` / `always` would hold trivially.
fn reversed_span(span: &Span) -> Option<String> {
    let until = span.until.as_ref()?;
    let rank = |a: &Anchor| match a {
        Anchor::RunStart => Some(0),
        Anchor::Trigger(_) => Some(1),
        Anchor::Applied(_) => Some(2),
        Anchor::Cleared(_) => Some(3),
        Anchor::Expectation(_) => None,
    };
    let name = |a: &Anchor| serde_json::to_string(a).unwrap_or_default();
    let reversed = *until == span.from
        || *until == Anchor::RunStart
        || (until.fault().is_some()
            && until.fault() == span.from.fault()
            && rank(until) < rank(&span.from));
    reversed.then(|| {
        format!(
            "until {} cannot come after from {}: the window would hold no step, so the expectation would be trivially satisfied",
            name(until),
            name(&span.from)
        )
    })
}

/// Indices of `specs` in an order where every expectation comes after the
/// ones it is anchored on (stable: file order otherwise).
///
/// # Errors
/// The name of an expectation in a cycle.
pub(crate) fn eval_order(specs: &[ExpectationSpec]) -> Result<Vec<usize>, String> {
    let deps: Vec<Vec<usize>> = specs
        .iter()
        .map(|s| {
            s.kind().map_or(vec![], |k| {
                k.depends_on()
                    .iter()
                    .filter_map(|d| specs.iter().position(|o| o.name == *d))
                    .collect()
            })
        })
        .collect();
    let mut done = vec![false; specs.len()];
    let mut order = Vec::with_capacity(specs.len());
    while order.len() < specs.len() {
        let next = (0..specs.len()).find(|&i| !done[i] && deps[i].iter().all(|&d| done[d]));
        match next {
            Some(i) => {
                done[i] = true;
                order.push(i);
            }
            None => {
                let i = (0..specs.len()).find(|&i| !done[i]).expect("one left");
                return Err(specs[i].name.clone());
            }
        }
    }
    Ok(order)
}
