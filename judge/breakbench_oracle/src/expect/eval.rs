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

use super::decide::{
    finish_at, finish_persists, finish_within, missing_anchor, step_at, step_persists, step_window,
    step_within, InvariantState, Step,
};
use super::observe::Observations;
use super::predicate::Predicate;
pub(crate) use super::result::check_step;
use super::result::{Base, Track};
pub use super::result::{ExpectationResult, MarginUnit, Undecidable, ViolationSample};
use super::spec::{check_expectations, eval_order, Anchor, ExpectationSpec, Kind, Role, Window};
use super::timeline::{FaultEvent, Timeline};
use crate::error::OracleError;

/// Slack of every time comparison, s.
pub const TIME_EPS_S: f64 = 1e-9;

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

/// An expectation's evaluation state: what a temporal kind tracked so far,
/// or an invariant's own monitor.
enum State {
    Track(Track),
    Invariant(InvariantState),
}

impl Slot {
    /// What every result of this expectation carries.
    fn base(&self) -> Base {
        Base {
            name: self.name.clone(),
            kind: self.kind.name(),
            role: self.role,
            anchor_fault: self.anchor_fault.clone(),
        }
    }
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
                (Kind::Invariant(_), Some(w)) => State::Invariant(InvariantState::new(w)),
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

    /// The anchor (window start) of `kind`, and the end of its window
    /// (`never` / `always` only).
    fn start_end(&self, kind: &Kind, tl: &Timeline) -> (AnchorAt, Option<f64>) {
        match kind {
            Kind::Never(w) | Kind::Always(w) => self.window(&w.window, tl),
            Kind::Invariant(_) => (AnchorAt::At(f64::NEG_INFINITY), None),
            k => (self.anchor_at(k.anchor().expect("anchored"), tl), None),
        }
    }

    /// Expectation `i` at step `t` (the previous step at `prev`): its
    /// result if decided now. Before its anchor nothing happens; a failed
    /// expectation anchor decides it unsatisfied; then its kind's rule
    /// ([`super::decide`]).
    fn step_one(
        &mut self,
        i: usize,
        prev: f64,
        t: f64,
        obs: &Observations,
        tl: &Timeline,
    ) -> Result<Option<ExpectationResult>, OracleError> {
        let kind = self.slots[i].kind.clone();
        let b = self.slots[i].base();
        // The anchor / window start.
        let (start, end) = self.start_end(&kind, tl);
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
        if t < a - TIME_EPS_S {
            return Ok(None);
        }
        let step = Step {
            b: &b,
            a,
            anchor_s: a.is_finite().then_some(a),
            t,
            e: kind
                .predicate()
                .and_then(|p: &Predicate| p.eval(obs, prev, t)),
        };
        let out = match (&kind, &mut self.slots[i].st) {
            (Kind::Within(w), State::Track(tr)) => step_within(&step, tr, w),
            (Kind::Never(_), State::Track(tr)) => step_window(&step, tr, true, end),
            (Kind::Always(_), State::Track(tr)) => step_window(&step, tr, false, end),
            (Kind::At(at), State::Track(tr)) => step_at(&step, tr, at),
            (Kind::Persists(p), State::Track(tr)) => step_persists(&step, tr, p),
            (Kind::Invariant(name), State::Invariant(inv)) => inv.step(&b, *name, obs, t)?,
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

    /// Expectation `i`, still undecided at the end of the run `end_s`: an
    /// anchor that never happened makes it unsatisfied (undecidable for a
    /// fault event), else its kind's rule ([`super::decide`]).
    fn finish_one(&self, i: usize, end: f64, tl: &Timeline) -> ExpectationResult {
        let slot = &self.slots[i];
        let kind = &slot.kind;
        let b = slot.base();
        let (start, win_end) = self.start_end(kind, tl);
        let a = match start {
            AnchorAt::At(a) => a,
            AnchorAt::Failed(e) => return missing_anchor(&b, &Anchor::Expectation(e), end),
            AnchorAt::Pending => return missing_anchor(&b, &start_anchor(kind), end),
        };
        let anchor_s = a.is_finite().then_some(a);
        match (kind, &slot.st) {
            (Kind::Within(w), State::Track(tr)) => {
                finish_within(&b, tr, a + w.within_s, end, anchor_s)
            }
            (Kind::Never(_) | Kind::Always(_), State::Track(tr)) => {
                b.window_closed(tr, win_end.unwrap_or(end).min(end), anchor_s)
            }
            (Kind::At(at), State::Track(_)) => finish_at(&b, at, a, end, anchor_s),
            (Kind::Persists(p), State::Track(tr)) => finish_persists(&b, tr, p, end, anchor_s),
            (Kind::Invariant(name), State::Invariant(inv)) => inv.finish(&b, *name, end),
            _ => unreachable!("state matches kind"),
        }
    }
}

/// The anchor that starts `kind` (its window's start for `never` /
/// `always`), named when it never happened.
fn start_anchor(kind: &Kind) -> Anchor {
    match kind {
        Kind::Never(w) | Kind::Always(w) => match &w.window {
            Window::WhileFaultActive(f) => Anchor::Trigger(f.clone()),
            Window::Span(s) => s.from.clone(),
            Window::WholeRun => Anchor::RunStart,
        },
        k => k.anchor().cloned().unwrap_or_default(),
    }
}
