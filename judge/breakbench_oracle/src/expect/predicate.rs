//! Predicates over [`Observations`]: the test file's `predicate:` and a
//! trigger's condition.
//!
//! Evaluation gives, besides true/false, a robustness `rho` in the unit of
//! the observable (positive on the satisfied side, STL-style: `and` = min,
//! `or` = max, `not` = negation; Donzé and Maler, "Robust satisfaction of
//! temporal logic over real-valued signals", FORMATS 2010) and the value of
//! the observable that decided it. Expectations turn `rho` into their
//! `margin` ("how close it came").
//!
//! A predicate on a source that has not reported yet (no ground-truth,
//! `cmd_vel` or odometry sample, or no clearance in the world) is unknown at
//! that step: [`Predicate::eval`] returns `None` and the step is no evidence
//! either way. Event-like sources are known from the start: a diagnostic
//! status never reported satisfies no level predicate (its level counts as
//! -1), a step without a matching `/rosout` entry is false, a fault the
//! injector never reported is neither active nor applied.

use serde::{Deserialize, Serialize};

use super::observe::{DiagLevel, LogLevel, Observable, Observations};

/// Comparison of an observable with a constant. YAML accepts the names
/// (`gt`) and the symbols (`">"`, quoted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    #[serde(alias = ">")]
    Gt,
    #[serde(alias = ">=")]
    Ge,
    #[serde(alias = "<")]
    Lt,
    #[serde(alias = "<=")]
    Le,
    #[serde(alias = "==")]
    Eq,
    #[serde(alias = "!=")]
    Ne,
}

impl CmpOp {
    /// `(v op c, rho)`; `rho` = signed distance to the boundary, positive on
    /// the true side (0 at equality; for `eq` `-|v - c|`, for `ne` `|v - c|`).
    pub fn apply(self, v: f64, c: f64) -> (bool, f64) {
        match self {
            CmpOp::Gt => (v > c, v - c),
            CmpOp::Ge => (v >= c, v - c),
            CmpOp::Lt => (v < c, c - v),
            CmpOp::Le => (v <= c, c - v),
            CmpOp::Eq => (v == c, -(v - c).abs()),
            CmpOp::Ne => (v != c, (v - c).abs()),
        }
    }
}

/// `compare: { observable: truth.x_m, op: gt, value: 4.0 }`; `value` is in
/// the observable's unit (its name's suffix).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compare {
    pub observable: Observable,
    pub op: CmpOp,
    pub value: f64,
}

/// The speed source of `stopped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedSource {
    /// True planar speed (`truth.speed_m_s`).
    Truth,
    /// The robot's odometry, `|odom.linear_x_m_s|`.
    Odom,
    /// The command, `|cmd_vel.linear_x_m_s|`.
    CmdVel,
}

/// `stopped: { source: truth, tolerance_m_s: 0.01 }`: `|v| < tolerance_m_s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stopped {
    pub source: SpeedSource,
    pub tolerance_m_s: f64,
}

/// `diagnostic: { name: "simple_navigator: scan", at_least: ERROR }`
/// (severity at or above L) or `at_most: OK` (severity at or below L); exactly
/// one of the two. Severities
/// are OK < WARN < ERROR; STALE ("no data") meets neither, only an explicit
/// `at_least: STALE` (`at_most: STALE` is refused). REQ-EXPECT-DIAG-LEVELS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnostic {
    pub name: String,
    #[serde(default)]
    pub at_least: Option<DiagLevel>,
    #[serde(default)]
    pub at_most: Option<DiagLevel>,
}

/// `rosout: { at_least: WARN, logger: simple_navigator }`: true at a step
/// that received an entry of level >= `at_least` from `logger` (exact name;
/// any logger if absent) whose message contains `msg_contains` (if given).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rosout {
    pub at_least: LogLevel,
    #[serde(default)]
    pub logger: Option<String>,
    #[serde(default)]
    pub msg_contains: Option<String>,
}

/// `in_box: { min_m: [x, y], max_m: [x, y] }`: the true footprint centre is
/// in the closed axis-aligned box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InBox {
    pub min_m: [f64; 2],
    pub max_m: [f64; 2],
}

/// `in_disc: { center_m: [x, y], radius_m: r }`: the true footprint centre is
/// in the closed disc (a waypoint reached).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InDisc {
    pub center_m: [f64; 2],
    pub radius_m: f64,
}

/// Which injector status flag `fault:` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultState {
    Active,
    Applied,
}

/// `fault: { name: scan_loss, state: active }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultFlag {
    pub name: String,
    pub state: FaultState,
}

/// A predicate of the test file (externally tagged: `{ compare: {...} }`,
/// `{ and: [...] }`, `{ not: {...} }`). YAML holds it in the map form, so a
/// field of this type is read through
/// `serde_yaml_ng::with::singleton_map_recursive` (which also reaches the
/// nested `and` / `or` / `not`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicate {
    Compare(Compare),
    Stopped(Stopped),
    Diagnostic(Diagnostic),
    Rosout(Rosout),
    InBox(InBox),
    InDisc(InDisc),
    Fault(FaultFlag),
    And(Vec<Predicate>),
    Or(Vec<Predicate>),
    Not(Box<Predicate>),
}

/// One evaluation of a predicate at a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eval {
    /// The predicate holds.
    pub truth: bool,
    /// Robustness: signed distance to the boundary, positive on the true
    /// side, in the deciding observable's unit (boolean atoms: +1 / -1).
    pub rho: f64,
    /// The deciding observable's value (for `and`/`or`, the atom that gave
    /// `rho`; boolean atoms: 1 / 0).
    pub value: f64,
}

impl Eval {
    fn boolean(b: bool) -> Self {
        Eval {
            truth: b,
            rho: if b { 1.0 } else { -1.0 },
            value: if b { 1.0 } else { 0.0 },
        }
    }
}

impl Predicate {
    /// Evaluates the predicate on `o` at step `t_s`, whose previous step was
    /// at `prev_t_s` (`/rosout` entries stamped in `(prev_t_s, t_s]` belong
    /// to this step; `f64::NEG_INFINITY` at the first step). `None` when a
    /// source it needs has not reported (see the module docs).
    pub fn eval(&self, o: &Observations, prev_t_s: f64, t_s: f64) -> Option<Eval> {
        match self {
            Predicate::Compare(c) => {
                let v = c.observable.value(o)?;
                let (truth, rho) = c.op.apply(v, c.value);
                Some(Eval {
                    truth,
                    rho,
                    value: v,
                })
            }
            Predicate::Stopped(s) => {
                let v = match s.source {
                    SpeedSource::Truth => o.truth?.speed_m_s,
                    SpeedSource::Odom => o.odom?.linear_x_m_s,
                    SpeedSource::CmdVel => o.cmd_vel?.linear_x_m_s,
                }
                .abs();
                Some(Eval {
                    truth: v < s.tolerance_m_s,
                    rho: s.tolerance_m_s - v,
                    value: v,
                })
            }
            Predicate::Diagnostic(d) => {
                let level = o.diagnostics.get(&d.name).map_or(-1.0, |&l| f64::from(l));
                // STALE is "no data", not a severity above ERROR: it meets
                // only `at_least: STALE`; its margin to a severity bound is
                // that of an unknown status (-1). REQ-EXPECT-DIAG-LEVELS.
                let sev = o
                    .diagnostics
                    .get(&d.name)
                    .and_then(|&l| DiagLevel::severity(l));
                let wire = o.diagnostics.get(&d.name).copied();
                let (truth, rho) = match (d.at_least, d.at_most) {
                    (Some(DiagLevel::Stale), _) => {
                        let t = wire.is_some_and(|l| DiagLevel::Stale.at_least_met_by(l));
                        (t, if t { 0.0 } else { -1.0 })
                    }
                    (Some(l), _) => match sev {
                        Some(s) => (l.at_least_met_by(s), f64::from(s) - f64::from(l.value())),
                        None => (false, -1.0),
                    },
                    (None, Some(l)) => match sev {
                        Some(s) => (l.at_most_met_by(s), f64::from(l.value()) - f64::from(s)),
                        None => (false, -1.0),
                    },
                    (None, None) => (false, -1.0),
                };
                Some(Eval {
                    truth,
                    rho,
                    value: level,
                })
            }
            Predicate::Rosout(r) => {
                let min = r.at_least.value();
                let hit = o.logs.iter().any(|l| {
                    l.t_s > prev_t_s
                        && l.t_s <= t_s
                        && l.level >= min
                        && r.logger.as_ref().is_none_or(|n| *n == l.logger)
                        && r.msg_contains
                            .as_ref()
                            .is_none_or(|m| l.msg.contains(m.as_str()))
                });
                Some(Eval::boolean(hit))
            }
            Predicate::InBox(b) => {
                let s = o.truth?;
                let inside = (s.x_m - b.min_m[0])
                    .min(b.max_m[0] - s.x_m)
                    .min(s.y_m - b.min_m[1])
                    .min(b.max_m[1] - s.y_m);
                Some(Eval {
                    truth: inside >= 0.0,
                    rho: inside,
                    value: inside,
                })
            }
            Predicate::InDisc(d) => {
                let s = o.truth?;
                let dist = (s.x_m - d.center_m[0]).hypot(s.y_m - d.center_m[1]);
                Some(Eval {
                    truth: dist <= d.radius_m,
                    rho: d.radius_m - dist,
                    value: dist,
                })
            }
            Predicate::Fault(f) => {
                let st = o.faults.get(&f.name);
                let b = st.is_some_and(|s| match f.state {
                    FaultState::Active => s.active,
                    FaultState::Applied => s.applied,
                });
                Some(Eval::boolean(b))
            }
            Predicate::And(ps) => {
                let mut out = Eval::boolean(true);
                out.rho = f64::INFINITY;
                for p in ps {
                    let e = p.eval(o, prev_t_s, t_s)?;
                    out.truth &= e.truth;
                    if e.rho < out.rho {
                        out.rho = e.rho;
                        out.value = e.value;
                    }
                }
                Some(out)
            }
            Predicate::Or(ps) => {
                let mut out = Eval::boolean(false);
                out.rho = f64::NEG_INFINITY;
                for p in ps {
                    let e = p.eval(o, prev_t_s, t_s)?;
                    out.truth |= e.truth;
                    if e.rho > out.rho {
                        out.rho = e.rho;
                        out.value = e.value;
                    }
                }
                Some(out)
            }
            Predicate::Not(p) => {
                let e = p.eval(o, prev_t_s, t_s)?;
                Some(Eval {
                    truth: !e.truth,
                    rho: -e.rho,
                    value: e.value,
                })
            }
        }
    }

    /// Faults this predicate reads the injector status of.
    pub fn faults(&self, out: &mut Vec<String>) {
        match self {
            Predicate::Fault(f) => out.push(f.name.clone()),
            Predicate::And(ps) | Predicate::Or(ps) => ps.iter().for_each(|p| p.faults(out)),
            Predicate::Not(p) => p.faults(out),
            _ => {}
        }
    }

    /// The `/diagnostics` status names and `/rosout` logger names this
    /// predicate reads, each with its path below `field`
    /// (`<field>.diagnostic.name`, `<field>.and[1].rosout.logger`) and
    /// whether it is a logger name; in file order.
    pub fn published_names(&self, field: &str, out: &mut Vec<(String, String, bool)>) {
        match self {
            Predicate::Diagnostic(d) => {
                out.push((format!("{field}.diagnostic.name"), d.name.clone(), false))
            }
            Predicate::Rosout(r) => {
                if let Some(l) = &r.logger {
                    out.push((format!("{field}.rosout.logger"), l.clone(), true));
                }
            }
            Predicate::And(ps) | Predicate::Or(ps) => {
                let key = if matches!(self, Predicate::And(_)) {
                    "and"
                } else {
                    "or"
                };
                for (i, p) in ps.iter().enumerate() {
                    p.published_names(&format!("{field}.{key}[{i}]"), out);
                }
            }
            Predicate::Not(p) => p.published_names(&format!("{field}.not"), out),
            _ => {}
        }
    }

    /// Semantic checks; `field` is this predicate's path in the file.
    /// Returns `(field, message)` of the first problem.
    pub fn check(&self, field: &str, faults: &[&str]) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((format!("{field}.{f}"), m.to_string()));
        let finite = |v: f64| v.is_finite();
        match self {
            Predicate::Compare(c) if !finite(c.value) => bad("compare.value", "must be finite"),
            Predicate::Stopped(s) if !(s.tolerance_m_s > 0.0 && finite(s.tolerance_m_s)) => {
                bad("stopped.tolerance_m_s", "must be a finite number > 0")
            }
            Predicate::Diagnostic(d) if d.at_least.is_some() == d.at_most.is_some() => {
                bad("diagnostic", "give exactly one of at_least, at_most")
            }
            Predicate::Diagnostic(d) if d.name.is_empty() => bad("diagnostic.name", "is empty"),
            Predicate::Diagnostic(d) if d.at_most == Some(DiagLevel::Stale) => bad(
                "diagnostic.at_most",
                "STALE is \"no data\", not a severity: use at_most OK, WARN or ERROR, or at_least: STALE",
            ),
            Predicate::InBox(b)
                if !(b.min_m.iter().chain(&b.max_m).all(|v| v.is_finite())
                    && b.min_m[0] <= b.max_m[0]
                    && b.min_m[1] <= b.max_m[1]) =>
            {
                bad(
                    "in_box",
                    "min_m and max_m must be finite with min_m <= max_m",
                )
            }
            Predicate::InDisc(d)
                if !(d.center_m.iter().all(|v| v.is_finite())
                    && d.radius_m >= 0.0
                    && finite(d.radius_m)) =>
            {
                bad(
                    "in_disc",
                    "center_m must be finite and radius_m finite and >= 0",
                )
            }
            Predicate::Fault(f) if !faults.contains(&f.name.as_str()) => bad(
                "fault.name",
                &format!(
                    "unknown fault '{}' (faults of this test: {faults:?})",
                    f.name
                ),
            ),
            Predicate::And(ps) | Predicate::Or(ps) => {
                let key = if matches!(self, Predicate::And(_)) {
                    "and"
                } else {
                    "or"
                };
                if ps.is_empty() {
                    return bad(key, "needs at least one predicate");
                }
                for (i, p) in ps.iter().enumerate() {
                    p.check(&format!("{field}.{key}[{i}]"), faults)?;
                }
                Ok(())
            }
            Predicate::Not(p) => p.check(&format!("{field}.not"), faults),
            _ => Ok(()),
        }
    }
}
