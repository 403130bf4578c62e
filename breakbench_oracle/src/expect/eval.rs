//! Incremental evaluation of expectations: [`ExpectationSet`] is stepped in
//! time order with the run's [`Observations`] and [`Timeline`], decides each
//! expectation as early as it can, and [`ExpectationSet::finish`] decides
//! the rest at the end of the run.
//!
//! Times are compared with a slack of [`TIME_EPS_S`] so that a step at
//! exactly `anchor + within_s` computed in floating point counts as on time.
//!
//! Decision rules per kind (`a` = anchor time; steps before `a` are ignored;
//! a step where the predicate is unknown is no evidence):
//!
//! | kind | satisfied | unsatisfied | margin |
//! | --- | --- | --- | --- |
//! | `within` | first true step `t <= a + Δ`, decided at `t` | first step after `a + Δ`, or the end, decided at `a + Δ` | satisfied: `a + Δ - t`, s; else the best robustness in the window, observable unit |
//! | `never` / `always` | end of the window | first step in the window where the predicate is true / false | least robustness in the window (observable unit; <= 0 when violated) |
//! | `at` | first true step in `[a+T-tol, a+T+tol]` | a true step before `a+T-tol` (too early, at it), or a step after `a+T+tol` (too late, at `a+T+tol`) | `tol - |t - (a+T)|`, s (negative outside) |
//! | `persists` | end of run, true at the end | a fall after becoming true (or a transition beyond `max_transitions`) at it; false at the end | plain: least robustness since it became true; with `max_transitions`: `n - transitions` |
//! | invariant | as [`crate::verdict`] | as [`crate::verdict`] | region: min margin, m; clearance: min clearance - threshold, m; mission: goal radius - least distance to the goal centre, m |
//!
//! An expectation whose anchor or window never occurred, that saw no step
//! with a known predicate, or whose deadline lies after the end of the run
//! is unsatisfied and `undecidable` (the verdict class makes it `invalid` or
//! `precondition_failed`, never `fail` or `pass`).

use breakbench_world::World;

use super::observe::Observations;
use super::predicate::{Eval, Predicate};
pub(crate) use super::result::check_step;
use super::result::{Base, Track};
pub use super::result::{ExpectationResult, MarginUnit, Undecidable, ViolationSample};
use super::spec::{
    check_expectations, eval_order, Anchor, ExpectationSpec, InvariantName, Kind, Role, Window,
};
use super::timeline::{FaultEvent, Timeline};
use crate::error::OracleError;
use crate::pose::PoseSample;
use crate::verdict::Monitor;

/// Slack of every time comparison, s.
pub const TIME_EPS_S: f64 = 1e-9;

/// A time in a reason, s: rounded to whole nanoseconds, so that a bound
/// computed as 7.37 + 1.0 reads `8.37`, not `8.370000000000001`.
struct S(f64);

impl std::fmt::Display for S {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", (self.0 * 1e9).round() / 1e9)
    }
}

enum AnchorAt {
    At(f64),
    Pending,
    /// An anchor expectation that was decided unsatisfied.
    Failed(String),
}

struct Slot {
    name: String,
    role: Option<Role>,
    kind: Kind,
    anchor_fault: Option<String>,
    st: State,
    result: Option<ExpectationResult>,
}

enum State {
    Track(Track),
    Invariant {
        monitor: Box<Monitor>,
        fed: u64,
        goal: ([f64; 2], f64),
        threshold_m: f64,
        timeout_s: f64,
        goal_min_dist_m: f64,
    },
}

/// The expectations of one run, stepped in time order.
pub struct ExpectationSet {
    slots: Vec<Slot>,
    order: Vec<usize>,
    steps: u64,
    prev_t_s: f64,
}

fn resolve_fault(specs: &[ExpectationSpec], k: &Kind, depth: usize) -> Option<String> {
    match k.anchor()? {
        Anchor::Expectation(e) if depth < specs.len() => {
            let k = specs.iter().find(|s| s.name == *e)?.kind()?;
            resolve_fault(specs, &k, depth + 1)
        }
        a => a.fault().map(str::to_string),
    }
}

impl ExpectationSet {
    /// Builds the evaluators of `specs` (checked as by
    /// [`check_expectations`] against the test's `faults`). `world` is
    /// needed by the invariants only.
    ///
    /// # Errors
    /// [`OracleError::Config`] if a check fails or an invariant is named
    /// without a world.
    pub fn new(
        specs: &[ExpectationSpec],
        faults: &[&str],
        world: Option<&World>,
    ) -> Result<Self, OracleError> {
        check_expectations(specs, faults, "expectations", "<test>")?;
        let order = eval_order(specs).expect("checked: no cycle");
        let mut slots = Vec::with_capacity(specs.len());
        for (i, s) in specs.iter().enumerate() {
            let kind = s.kind().expect("checked: one kind");
            let st = match (&kind, world) {
                (Kind::Invariant(_), Some(w)) => State::Invariant {
                    monitor: Box::new(Monitor::new(w)),
                    fed: 0,
                    goal: (w.goal.center_m, w.goal.radius_m),
                    threshold_m: w.clearance_threshold_m,
                    timeout_s: w.mission_timeout_s,
                    goal_min_dist_m: f64::MAX,
                },
                (Kind::Invariant(_), None) => {
                    return Err(kraken_interfaces::ConfigError::semantic(
                        "<test>",
                        &format!("expectations[{i}].invariant"),
                        "an invariant needs the world, and none was given",
                    )
                    .into())
                }
                _ => State::Track(Track::default()),
            };
            slots.push(Slot {
                name: s.name.clone(),
                role: s.role,
                anchor_fault: resolve_fault(specs, &kind, 0),
                kind,
                st,
                result: None,
            });
        }
        Ok(Self {
            slots,
            order,
            steps: 0,
            prev_t_s: f64::NEG_INFINITY,
        })
    }

    /// The result of `name` if already decided.
    pub fn decided(&self, name: &str) -> Option<&ExpectationResult> {
        self.slots
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.result.as_ref())
    }

    /// True once every expectation is decided.
    pub fn all_decided(&self) -> bool {
        self.slots.iter().all(|s| s.result.is_some())
    }

    fn anchor_at(&self, a: &Anchor, tl: &Timeline) -> AnchorAt {
        let ev = |f: &str, e| tl.event_s(f, e).map_or(AnchorAt::Pending, AnchorAt::At);
        match a {
            Anchor::RunStart => AnchorAt::At(0.0),
            Anchor::Trigger(f) => ev(f, FaultEvent::Trigger),
            Anchor::Applied(f) => ev(f, FaultEvent::Applied),
            Anchor::Cleared(f) => ev(f, FaultEvent::Cleared),
            Anchor::Expectation(e) => match self.decided(e) {
                Some(r) if r.satisfied => AnchorAt::At(r.decided_at_s),
                Some(_) => AnchorAt::Failed(e.clone()),
                None => AnchorAt::Pending,
            },
        }
    }

    /// The window `[start, end]` of a `never` / `always` (end `None` = open).
    fn window(&self, w: &Window, tl: &Timeline) -> (AnchorAt, Option<f64>) {
        match w {
            Window::WholeRun => (AnchorAt::At(f64::NEG_INFINITY), None),
            Window::WhileFaultActive(f) => (
                self.anchor_at(&Anchor::Trigger(f.clone()), tl),
                tl.event_s(f, FaultEvent::Cleared),
            ),
            Window::Span(s) => (
                self.anchor_at(&s.from, tl),
                s.until.as_ref().and_then(|u| match self.anchor_at(u, tl) {
                    AnchorAt::At(t) => Some(t),
                    _ => None,
                }),
            ),
        }
    }

    /// Evaluates every undecided expectation at step `t_s`.
    ///
    /// The run records its samples in `obs` and its fault events in `tl`
    /// before the step (an event must be noted no later than the first step
    /// at or after its time), and steps after every ground-truth sample.
    ///
    /// # Errors
    /// [`OracleError::NonFiniteSample`] for a non-finite `t_s` or ground-truth
    /// field, [`OracleError::TimeWentBackwards`] if `t_s` is before the
    /// previous step. A refused step changes nothing.
    pub fn step(&mut self, t_s: f64, obs: &Observations, tl: &Timeline) -> Result<(), OracleError> {
        check_step(self.steps, self.prev_t_s, t_s)?;
        let prev = self.prev_t_s;
        for k in 0..self.order.len() {
            let i = self.order[k];
            if self.slots[i].result.is_some() {
                continue;
            }
            let r = self.step_one(i, prev, t_s, obs, tl)?;
            self.slots[i].result = r;
        }
        self.steps += 1;
        self.prev_t_s = t_s;
        Ok(())
    }

    fn step_one(
        &mut self,
        i: usize,
        prev: f64,
        t: f64,
        obs: &Observations,
        tl: &Timeline,
    ) -> Result<Option<ExpectationResult>, OracleError> {
        let kind = self.slots[i].kind.clone();
        let base = |s: &Slot| Base {
            name: s.name.clone(),
            kind: s.kind.name(),
            role: s.role,
            anchor_fault: s.anchor_fault.clone(),
        };
        let b = base(&self.slots[i]);
        // The anchor / window start.
        let (start, end) = match &kind {
            Kind::Never(w) | Kind::Always(w) => self.window(&w.window, tl),
            Kind::Invariant(_) => (AnchorAt::At(f64::NEG_INFINITY), None),
            k => (self.anchor_at(k.anchor().expect("anchored"), tl), None),
        };
        let a = match start {
            AnchorAt::Pending => return Ok(None),
            AnchorAt::Failed(e) => {
                return Ok(Some(b.done(
                    false,
                    t,
                    0.0,
                    MarginUnit::Seconds,
                    None,
                    format!("its anchor, expectation '{e}', was not satisfied"),
                    None,
                )))
            }
            AnchorAt::At(a) => a,
        };
        let anchor_s = a.is_finite().then_some(a);
        if t < a - TIME_EPS_S {
            return Ok(None);
        }
        let e: Option<Eval> = kind
            .predicate()
            .and_then(|p: &Predicate| p.eval(obs, prev, t));
        let slot = &mut self.slots[i];
        let out = match (&kind, &mut slot.st) {
            (Kind::Within(w), State::Track(tr)) => {
                let deadline = a + w.within_s;
                if t > deadline + TIME_EPS_S {
                    Some(b.late_within(tr, deadline, t, e, anchor_s))
                } else if let Some(e) = e {
                    tr.saw = true;
                    tr.rho = Some(tr.rho.map_or(e.rho, |r| r.max(e.rho)));
                    e.truth.then(|| {
                        b.done(
                            true,
                            t,
                            deadline - t,
                            MarginUnit::Seconds,
                            None,
                            format!("true at {} s, {} s after the anchor", S(t), S(t - a)),
                            anchor_s,
                        )
                    })
                } else {
                    None
                }
            }
            (Kind::Never(_) | Kind::Always(_), State::Track(tr)) => {
                let never = matches!(kind, Kind::Never(_));
                match end {
                    Some(te) if t > te + TIME_EPS_S => Some(b.window_closed(tr, te, anchor_s)),
                    _ => match e {
                        Some(e) => {
                            tr.saw = true;
                            let rho = if never { -e.rho } else { e.rho };
                            tr.rho = Some(tr.rho.map_or(rho, |r| r.min(rho)));
                            let violated = if never { e.truth } else { !e.truth };
                            violated.then(|| {
                                b.done(
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
                                    anchor_s,
                                )
                            })
                        }
                        None => None,
                    },
                }
            }
            (Kind::At(at), State::Track(tr)) => {
                let (lo, hi, mid) = (a + at.at_s - at.tol_s, a + at.at_s + at.tol_s, a + at.at_s);
                let margin = |t: f64| at.tol_s - (t - mid).abs();
                if t > hi + TIME_EPS_S {
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
                    let mut r = b.done(
                        false,
                        hi,
                        margin(t),
                        MarginUnit::Seconds,
                        value
                            .is_finite()
                            .then_some(ViolationSample { t_s: t, value }),
                        format!("too late: {reason}"),
                        anchor_s,
                    );
                    r.undecidable = und;
                    Some(r)
                } else if let Some(e) = e {
                    tr.saw = true;
                    if !e.truth {
                        None
                    } else if t < lo - TIME_EPS_S {
                        Some(b.done(
                            false,
                            t,
                            margin(t),
                            MarginUnit::Seconds,
                            Some(ViolationSample {
                                t_s: t,
                                value: e.value,
                            }),
                            format!("too early: true at {} s, before {} s", S(t), S(lo)),
                            anchor_s,
                        ))
                    } else {
                        Some(b.done(
                            true,
                            t,
                            margin(t),
                            MarginUnit::Seconds,
                            None,
                            format!("true at {} s, in [{}, {}] s", S(t), S(lo), S(hi)),
                            anchor_s,
                        ))
                    }
                } else {
                    None
                }
            }
            (Kind::Persists(p), State::Track(tr)) => {
                let Some(e) = e else { return Ok(None) };
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
                    Some(n) if tr.transitions > n => Some(b.done(
                        false,
                        t,
                        f64::from(n) - f64::from(tr.transitions),
                        MarginUnit::Transitions,
                        v,
                        format!(
                            "{} value changes by {t} s, at most {n} allowed",
                            tr.transitions
                        ),
                        anchor_s,
                    )),
                    None if tr.became_true && !e.truth => Some(b.done(
                        false,
                        t,
                        e.rho,
                        MarginUnit::Observable,
                        v,
                        format!("became false again at {} s", S(t)),
                        anchor_s,
                    )),
                    _ => None,
                }
            }
            (
                Kind::Invariant(name),
                State::Invariant {
                    monitor,
                    fed,
                    goal,
                    threshold_m,
                    timeout_s,
                    goal_min_dist_m,
                },
            ) => {
                let Some(s) = obs.truth.filter(|_| obs.truth_count != *fed) else {
                    return Ok(None);
                };
                *fed = obs.truth_count;
                monitor.feed(&PoseSample {
                    t_s: s.t_s,
                    x_m: s.x_m,
                    y_m: s.y_m,
                    yaw_rad: s.yaw_rad,
                })?;
                *goal_min_dist_m =
                    goal_min_dist_m.min((s.x_m - goal.0[0]).hypot(s.y_m - goal.0[1]));
                let v = monitor.verdict()?;
                let early = match name {
                    InvariantName::MissionCompletionTruePose => {
                        v.mission_completion_true_pose.holds || t > *timeout_s
                    }
                    InvariantName::OperatingRegionContainment => {
                        !v.operating_region_containment.holds
                    }
                    InvariantName::ObstacleClearance => !v.obstacle_clearance.holds,
                };
                early
                    .then(|| invariant_result(&b, *name, &v, *threshold_m, *goal, *goal_min_dist_m))
            }
            _ => unreachable!("state matches kind"),
        };
        Ok(out)
    }

    /// Decides every undecided expectation at the end of the run, `end_s`,
    /// and returns all results in file order.
    pub fn finish(&mut self, end_s: f64, tl: &Timeline) -> Vec<ExpectationResult> {
        for k in 0..self.order.len() {
            let i = self.order[k];
            if self.slots[i].result.is_some() {
                continue;
            }
            let r = self.finish_one(i, end_s, tl);
            self.slots[i].result = Some(r);
        }
        self.slots
            .iter()
            .map(|s| s.result.clone().expect("all decided"))
            .collect()
    }

    fn finish_one(&mut self, i: usize, end: f64, tl: &Timeline) -> ExpectationResult {
        let kind = self.slots[i].kind.clone();
        let s = &self.slots[i];
        let b = Base {
            name: s.name.clone(),
            kind: kind.name(),
            role: s.role,
            anchor_fault: s.anchor_fault.clone(),
        };
        let (start, win_end) = match &kind {
            Kind::Never(w) | Kind::Always(w) => self.window(&w.window, tl),
            Kind::Invariant(_) => (AnchorAt::At(f64::NEG_INFINITY), None),
            k => (self.anchor_at(k.anchor().expect("anchored"), tl), None),
        };
        let missing = |b: &Base, a: &Anchor| {
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
        };
        let a = match start {
            AnchorAt::At(a) => a,
            AnchorAt::Failed(e) => return missing(&b, &Anchor::Expectation(e)),
            AnchorAt::Pending => {
                let anchor = match &kind {
                    Kind::Never(w) | Kind::Always(w) => match &w.window {
                        Window::WhileFaultActive(f) => Anchor::Trigger(f.clone()),
                        Window::Span(s) => s.from.clone(),
                        Window::WholeRun => Anchor::RunStart,
                    },
                    k => k.anchor().cloned().unwrap_or_default(),
                };
                return missing(&b, &anchor);
            }
        };
        let anchor_s = a.is_finite().then_some(a);
        let slot = &mut self.slots[i];
        match (&kind, &mut slot.st) {
            (Kind::Within(w), State::Track(tr)) => {
                let deadline = a + w.within_s;
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
            (Kind::Never(_) | Kind::Always(_), State::Track(tr)) => {
                b.window_closed(tr, win_end.unwrap_or(end).min(end), anchor_s)
            }
            (Kind::At(at), State::Track(_)) => {
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
                    r.reason =
                        format!("too late: still false at the end of the run ({} s)", S(end));
                }
                r
            }
            (Kind::Persists(p), State::Track(tr)) => {
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
            (
                Kind::Invariant(name),
                State::Invariant {
                    monitor,
                    goal,
                    threshold_m,
                    goal_min_dist_m,
                    ..
                },
            ) => match monitor.verdict() {
                Ok(v) => invariant_result(&b, *name, &v, *threshold_m, *goal, *goal_min_dist_m),
                Err(_) => b.no_data(end, None),
            },
            _ => unreachable!("state matches kind"),
        }
    }
}

fn invariant_result(
    b: &Base,
    name: InvariantName,
    v: &crate::Verdict,
    threshold_m: f64,
    goal: ([f64; 2], f64),
    goal_min_dist_m: f64,
) -> ExpectationResult {
    let (p, margin, what) = match name {
        InvariantName::OperatingRegionContainment => (
            v.operating_region_containment,
            v.operating_region_containment.value,
            "region margin",
        ),
        InvariantName::ObstacleClearance => (
            v.obstacle_clearance,
            v.obstacle_clearance.value - threshold_m,
            "clearance",
        ),
        InvariantName::MissionCompletionTruePose => (
            v.mission_completion_true_pose,
            goal.1 - goal_min_dist_m,
            "goal entry time",
        ),
    };
    let violation =
        (!p.holds && name != InvariantName::MissionCompletionTruePose).then_some(ViolationSample {
            t_s: p.decided_at_s,
            value: p.value,
        });
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
