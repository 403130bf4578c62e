//! Resilience-test expectations, triggers, verdict classes and the timeline.
//!
//! A resilience test injects faults at a **trigger** and judges the run by
//! named **expectations**: temporal predicates over observables (ground
//! truth, the robot's own topics, `/diagnostics`, `/rosout`, the injector's
//! fault status). Everything here is transport-free and stepped by the
//! run's sim clock:
//!
//! * [`observe`]: the input samples and [`Observations`], the latest value of
//!   every observable;
//! * [`predicate`]: [`Predicate`] (comparisons, `stopped`, diagnostic level,
//!   `/rosout` entry, region / waypoint reached, fault status, and/or/not);
//! * [`spec`]: the test file's expectations ([`ExpectationSpec`]) and their
//!   checks;
//! * [`eval`]: [`ExpectationSet`], the incremental evaluator, and
//!   [`ExpectationResult`];
//! * [`trigger`]: [`TriggerSpec`] and the online [`Trigger`];
//! * [`class`]: [`VerdictClass`] and [`classify`], the one classification
//!   rule;
//! * [`timeline`]: [`Timeline`] (events on two clocks, decisions, latencies);
//! * [`starvation`]: [`InputMonitor`], gaps in the injector's input the
//!   fault did not cause (a run starved that way is `invalid`).
//!
//! A run builds one [`Observations`], one [`Timeline`], a [`Trigger`] per
//! fault and one [`ExpectationSet`]; at each step it pushes its samples,
//! steps the triggers (a fired trigger → the fault goes into the schedule,
//! [`Timeline::note`]), notes `applied` / `cleared` from the injector's
//! status, steps the expectations, and at the end calls `finish` on both
//! and [`classify`].

pub mod class;
mod decide;
pub mod eval;
pub mod observe;
pub mod predicate;
pub mod record;
pub mod result;
pub mod spec;
pub mod starvation;
pub mod timeline;
pub mod trigger;

pub use class::{classify, ClassifiedVerdict, FaultFacts, RunFacts, VerdictClass};
pub use eval::{
    ExpectationResult, ExpectationSet, MarginUnit, Undecidable, ViolationSample, TIME_EPS_S,
};
pub use observe::{
    CmdVelSample, DiagLevel, DiagnosticSample, EstimateSample, FaultStatusSample, LogLevel,
    LogSample, Observable, Observations, OdomSample, TruthSample,
};
pub use predicate::{CmpOp, Eval, Predicate};
pub use record::{RunJudgement, TestInfo};
pub use spec::{
    check_expectations, refers_to_fault, Anchor, ExpectationSpec, InvariantName, Kind, Role, Window,
};
pub use starvation::{InputGap, InputMonitor};
pub use timeline::{FaultEvent, FaultTimeline, Stamp, Timeline};
pub use trigger::{Trigger, TriggerSpec, TriggerState};
