//! The decision rule of each expectation kind (the table in
//! [`super::eval`]'s docs), one function per kind and phase: `step_*` at a
//! step at or after the anchor, `finish_*` at the end of the run. Times are
//! sim times, s; every comparison has the slack [`TIME_EPS_S`].

use breakbench_world::World;

use super::eval::TIME_EPS_S;
use super::observe::Observations;
use super::predicate::Eval;
use super::result::{Base, Track};
use super::result::{ExpectationResult, MarginUnit, Undecidable, ViolationSample};
use super::spec::{Anchor, At, InvariantName, Persists, Within};
use super::timeline::FaultEvent;
use crate::error::OracleError;
use crate::pose::PoseSample;
use crate::verdict::Monitor;

/// A time in a reason, s: rounded to whole nanoseconds, so that a bound
/// computed as 7.37 + 1.0 reads `8.37`, not `8.370000000000001`.
pub(super) struct S(pub f64);

impl std::fmt::Display for S {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", (self.0 * 1e9).round() / 1e9)
    }
}

/// One step of one undecided expectation, at or after its anchor.
pub(super) struct Step<'a> {
    pub b: &'a Base,
    /// The anchor / window start, s (`-inf` for the whole run).
    pub a: f64,
    /// `a` when finite (the result's `anchor_s`).
    pub anchor_s: Option<f64>,
    /// The step's time, s.
    pub t: f64,
    /// The predicate at the step (`None`: unknown, no evidence).
    pub e: Option<Eval>,
}

/// `within`: satisfied at the first true step by the deadline `a +
/// within_s` (margin: the slack, s); unsatisfied at the first step after
/// it (margin: the best robustness seen).
pub(super) fn step_within(s: &Step, tr: &mut Track, w: &Within) -> Option<ExpectationResult> {
    let (a, t) = (s.a, s.t);
    let deadline = a + w.within_s;
    if t > deadline + TIME_EPS_S {
        return Some(s.b.late_within(tr, deadline, t, s.e, s.anchor_s));
    }
    let e = s.e?;
    tr.saw = true;
    tr.rho = Some(tr.rho.map_or(e.rho, |r| r.max(e.rho)));
    e.truth.then(|| {
        s.b.done(
            true,
            t,
            deadline - t,
            MarginUnit::Seconds,
            None,
            format!("true at {} s, {} s after the anchor", S(t), S(t - a)),
            s.anchor_s,
        )
    })
}

/// `never` (`never` true) / `always`: unsatisfied at the first step in the
/// window where the predicate is true / false; satisfied at the first step
/// after the window's `end` (margin: the least robustness seen).
pub(super) fn step_window(
    s: &Step,
    tr: &mut Track,
    never: bool,
    end: Option<f64>,
) -> Option<ExpectationResult> {
    let t = s.t;
    if let Some(te) = end.filter(|te| t > te + TIME_EPS_S) {
        return Some(s.b.window_closed(tr, te, s.anchor_s));
    }
    let e = s.e?;
    tr.saw = true;
    let rho = if never { -e.rho } else { e.rho };
    tr.rho = Some(tr.rho.map_or(rho, |r| r.min(rho)));
    let violated = if never { e.truth } else { !e.truth };
    violated.then(|| {
        s.b.done(
            false,
            t,
            rho,
            MarginUnit::Observable,
            Some(ViolationSample {
                t_s: t,
                value: e.value,
            }),
            format!(
                "{} at {t} s (value {})",
                if never { "true" } else { "false" },
                e.value
            ),
            s.anchor_s,
        )
    })
}

/// `at`: satisfied at the first true step in `[a + at_s - tol_s, a + at_s
/// + tol_s]`; unsatisfied at a true step before it (too early) or at the
/// first step after it (too late). Margin: `tol_s - |t - (a + at_s)|`, s.
pub(super) fn step_at(s: &Step, tr: &mut Track, at: &At) -> Option<ExpectationResult> {
    let (a, t) = (s.a, s.t);
    let (lo, hi, mid) = (a + at.at_s - at.tol_s, a + at.at_s + at.tol_s, a + at.at_s);
    let margin = |t: f64| at.tol_s - (t - mid).abs();
    if t > hi + TIME_EPS_S {
        return Some(at_too_late(s, tr, hi, margin(t)));
    }
    let e = s.e?;
    tr.saw = true;
    if !e.truth {
        None
    } else if t < lo - TIME_EPS_S {
        Some(s.b.done(
            false,
            t,
            margin(t),
            MarginUnit::Seconds,
            Some(ViolationSample {
                t_s: t,
                value: e.value,
            }),
            format!("too early: true at {} s, before {} s", S(t), S(lo)),
            s.anchor_s,
        ))
    } else {
        Some(s.b.done(
            true,
            t,
            margin(t),
            MarginUnit::Seconds,
            None,
            format!("true at {} s, in [{}, {}] s", S(t), S(lo), S(hi)),
            s.anchor_s,
        ))
    }
}

/// `at` at the first step after its window's end `hi`: too late, decided
/// at `hi` (undecidable when no step had a known value).
fn at_too_late(s: &Step, tr: &Track, hi: f64, margin: f64) -> ExpectationResult {
    let (t, e) = (s.t, s.e);
    let (reason, value) = match e {
        Some(e) if e.truth => (
            format!("true only at {} s, after {} s", S(t), S(hi)),
            e.value,
        ),
        Some(e) => (
            format!("still false at {} s, after {} s", S(t), S(hi)),
            e.value,
        ),
        None => (format!("no value by {} s", S(hi)), f64::NAN),
    };
    let und = (!tr.saw && e.is_none()).then_some(Undecidable::NoData);
    let mut r = s.b.done(
        false,
        hi,
        margin,
        MarginUnit::Seconds,
        value
            .is_finite()
            .then_some(ViolationSample { t_s: t, value }),
        format!("too late: {reason}"),
        s.anchor_s,
    );
    r.undecidable = und;
    r
}

/// `persists`: tracks the value changes; unsatisfied at a change beyond
/// `max_transitions`, or (without it) at a fall after becoming true.
pub(super) fn step_persists(s: &Step, tr: &mut Track, p: &Persists) -> Option<ExpectationResult> {
    let t = s.t;
    let e = s.e?;
    tr.saw = true;
    if tr.last.is_some_and(|l| l != e.truth) {
        tr.transitions += 1;
    }
    tr.last = Some(e.truth);
    if e.truth {
        tr.false_since = None;
        tr.became_true = true;
        tr.rho = Some(tr.rho.map_or(e.rho, |r| r.min(e.rho)));
    } else if tr.false_since.is_none() {
        tr.false_since = Some(ViolationSample {
            t_s: t,
            value: e.value,
        });
    }
    let v = Some(ViolationSample {
        t_s: t,
        value: e.value,
    });
    match p.max_transitions {
        Some(n) if tr.transitions > n => Some(s.b.done(
            false,
            t,
            f64::from(n) - f64::from(tr.transitions),
            MarginUnit::Transitions,
            v,
            format!(
                "{} value changes by {t} s, at most {n} allowed",
                tr.transitions
            ),
            s.anchor_s,
        )),
        None if tr.became_true && !e.truth => Some(s.b.done(
            false,
            t,
            e.rho,
            MarginUnit::Observable,
            v,
            format!("became false again at {} s", S(t)),
            s.anchor_s,
        )),
        _ => None,
    }
}

/// An expectation whose anchor `a` never happened (or, for an expectation
/// anchor, was not satisfied), at the end of the run `end`.
pub(super) fn missing_anchor(b: &Base, a: &Anchor, end: f64) -> ExpectationResult {
    let mut r = b.done(
        false,
        end,
        0.0,
        MarginUnit::Seconds,
        None,
        String::new(),
        None,
    );
    match (a.fault(), a) {
        (Some(f), _) => {
            let event = match a {
                Anchor::Trigger(_) => FaultEvent::Trigger,
                Anchor::Applied(_) => FaultEvent::Applied,
                _ => FaultEvent::Cleared,
            };
            r.reason = format!("its anchor, {event:?} of fault '{f}', never happened");
            r.undecidable = Some(Undecidable::AnchorMissing {
                fault: f.to_string(),
                event,
            });
        }
        (None, Anchor::Expectation(e)) => {
            r.reason = format!("its anchor, expectation '{e}', was not satisfied");
        }
        _ => r.reason = "its anchor never happened".into(),
    }
    r
}

/// `within` undecided at the end of the run `end`: unsatisfied as past its
/// `deadline`, undecidable if the run ended before it.
pub(super) fn finish_within(
    b: &Base,
    tr: &Track,
    deadline: f64,
    end: f64,
    anchor_s: Option<f64>,
) -> ExpectationResult {
    let mut r = b.late_within(tr, deadline, end, None, anchor_s);
    if end < deadline - TIME_EPS_S {
        r.decided_at_s = end;
        r.reason = format!(
            "the run ended at {} s, before the deadline {} s",
            S(end),
            S(deadline)
        );
        r.undecidable = Some(Undecidable::RunEnded);
    }
    r
}

/// `at` undecided at the end of the run `end` (anchor `a`): too late,
/// undecidable if the run ended before its window did.
pub(super) fn finish_at(
    b: &Base,
    at: &At,
    a: f64,
    end: f64,
    anchor_s: Option<f64>,
) -> ExpectationResult {
    let hi = a + at.at_s + at.tol_s;
    let mut r = b.done(
        false,
        end,
        0.0,
        MarginUnit::Seconds,
        None,
        format!(
            "the run ended at {} s, before the predicate became true",
            S(end)
        ),
        anchor_s,
    );
    if end < hi - TIME_EPS_S {
        r.undecidable = Some(Undecidable::RunEnded);
    } else {
        r.decided_at_s = hi;
        r.margin = at.tol_s - (end - (a + at.at_s)).abs();
        r.reason = format!("too late: still false at the end of the run ({} s)", S(end));
    }
    r
}

/// `persists` at the end of the run `end`: satisfied when true at the end.
pub(super) fn finish_persists(
    b: &Base,
    tr: &Track,
    p: &Persists,
    end: f64,
    anchor_s: Option<f64>,
) -> ExpectationResult {
    if !tr.saw {
        return b.no_data(end, anchor_s);
    }
    let ok = tr.last == Some(true);
    let (margin, unit) = match p.max_transitions {
        Some(n) => (
            f64::from(n) - f64::from(tr.transitions),
            MarginUnit::Transitions,
        ),
        None => (tr.rho.unwrap_or(-1.0), MarginUnit::Observable),
    };
    let reason = if ok {
        format!("true at the end, {} value changes", tr.transitions)
    } else if tr.became_true {
        "false at the end of the run".into()
    } else {
        "never became true".into()
    };
    b.done(
        ok,
        end,
        margin,
        unit,
        if ok { None } else { tr.false_since },
        reason,
        anchor_s,
    )
}

/// An invariant expectation's state: its own [`Monitor`] fed with every new
/// ground-truth sample, and what its margin needs from the world.
pub(super) struct InvariantState {
    monitor: Box<Monitor>,
    /// `truth_count` of the last sample fed.
    fed: u64,
    /// The world's mission timeout, s.
    timeout_s: f64,
}

impl InvariantState {
    pub(super) fn new(w: &World) -> Self {
        Self {
            monitor: Box::new(Monitor::new(w)),
            fed: 0,
            timeout_s: w.mission_timeout_s,
        }
    }

    /// At step `t`: feeds a new ground-truth sample, if any; decides early
    /// when the invariant is violated (region, clearance) or the mission
    /// completed or timed out.
    ///
    /// # Errors
    /// The monitor refuses the sample ([`Monitor::feed`]) or has no verdict.
    pub(super) fn step(
        &mut self,
        b: &Base,
        name: InvariantName,
        obs: &Observations,
        t: f64,
    ) -> Result<Option<ExpectationResult>, OracleError> {
        let Some(s) = obs.truth.filter(|_| obs.truth_count != self.fed) else {
            return Ok(None);
        };
        self.fed = obs.truth_count;
        self.monitor.feed(&PoseSample {
            t_s: s.t_s,
            x_m: s.x_m,
            y_m: s.y_m,
            yaw_rad: s.yaw_rad,
        })?;
        let v = self.monitor.verdict()?;
        let early = match name {
            InvariantName::MissionCompletionTruePose => {
                v.mission_completion_true_pose.holds || t > self.timeout_s
            }
            InvariantName::OperatingRegionContainment => !v.operating_region_containment.holds,
            InvariantName::ObstacleClearance => !v.obstacle_clearance.holds,
        };
        Ok(early.then(|| self.result(b, name, &v)))
    }

    /// At the end of the run `end`: the invariant over the whole run
    /// (undecidable without a sample).
    pub(super) fn finish(&self, b: &Base, name: InvariantName, end: f64) -> ExpectationResult {
        match self.monitor.verdict() {
            Ok(v) => self.result(b, name, &v),
            Err(_) => b.no_data(end, None),
        }
    }

    /// The result of invariant `name` from the verdict `v`.
    fn result(&self, b: &Base, name: InvariantName, v: &crate::Verdict) -> ExpectationResult {
        // The monitor's margins (REQ-STAT-MARGIN), the same the manifest
        // records; a world without obstacles keeps the clearance sentinel.
        let m = self.monitor.margins();
        let (p, margin, what) = match name {
            InvariantName::OperatingRegionContainment => (
                v.operating_region_containment,
                m.map_or(v.operating_region_containment.value, |m| m.region_m),
                "region margin",
            ),
            InvariantName::ObstacleClearance => (
                v.obstacle_clearance,
                m.and_then(|m| m.clearance_m)
                    .unwrap_or(v.obstacle_clearance.value),
                "clearance",
            ),
            InvariantName::MissionCompletionTruePose => (
                v.mission_completion_true_pose,
                m.map_or(f64::NAN, |m| m.goal_m),
                "goal entry time",
            ),
        };
        let violation = (!p.holds && name != InvariantName::MissionCompletionTruePose).then_some(
            ViolationSample {
                t_s: p.decided_at_s,
                value: p.value,
            },
        );
        b.done(
            p.holds,
            p.decided_at_s,
            margin,
            MarginUnit::Observable,
            violation,
            format!(
                "{} {}, {what} {}",
                b.name,
                if p.holds { "holds" } else { "violated" },
                p.value
            ),
            None,
        )
    }
}
