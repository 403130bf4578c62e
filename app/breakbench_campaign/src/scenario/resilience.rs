//! Resilience tests of a scenario file: faults injected at a trigger and
//! judged by expectations (see `breakbench_oracle::expect`).
//!
//! ```yaml
//! tests:
//!   - name: scan_loss_at_obstacle
//!     requirement: REQ-NAV-STALE-SCAN
//!     hazard: HAZ-COLLISION
//!     faults:
//!       - name: scan_loss
//!         channel: scan
//!         mode: dropout
//!         parameters: { drop_probability: 1.0 }
//!         trigger: { rising_edge: { predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }, timeout_s: 30 } }
//!         duration_s: 3.0
//!     expectations:
//!       - { name: no_contact, invariant: obstacle_clearance }
//! ```
//!
//! A fault ends after `duration_s`, at its `clear` trigger, or never (a
//! permanent fault: neither given). `surfacing` (requirement "no silent
//! error swallowing") adds two detection expectations anchored on the
//! fault's `applied`: a `/rosout` entry at WARN or above, and the named
//! `/diagnostics` status at WARN or above, each within `within_s`
//! ([`ResilienceTest::expectations`]). A fault handled without both fails.

use std::collections::BTreeMap;

use breakbench_oracle::expect::predicate::{Diagnostic, Rosout};
use breakbench_oracle::expect::record::RunJudgement;
use breakbench_oracle::expect::spec::Within;
use breakbench_oracle::expect::timeline::FaultEvent;
use breakbench_oracle::expect::{
    Anchor, DiagLevel, ExpectationSpec, LogLevel, Predicate, Role, TriggerSpec, VerdictClass,
};
use kraken_interfaces::{mode_from_name, FaultSpec, ParamValue, MODE_NAMES};
use serde::{Deserialize, Serialize};

mod validate;

/// `surfacing:` of a fault.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Surfacing {
    /// Both the `/rosout` entry and the `/diagnostics` transition must come
    /// within this many seconds of the fault's `applied`, s (> 0).
    pub within_s: f64,
    /// The `/diagnostics` status name that must reach WARN or above.
    pub diagnostic: String,
    /// The logger the `/rosout` entry must come from (any if absent).
    #[serde(default)]
    pub logger: Option<String>,
}

/// One fault of a test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestFault {
    /// Name used by anchors, windows and `fault:` predicates.
    pub name: String,
    /// A harness channel (`scan`, `odom`).
    pub channel: String,
    /// A fault mode of FaultSpec.msg (`dropout`, `delay`, ...).
    pub mode: String,
    /// FaultSpec parameters by name (`drop_probability`, `delay_s`), each in
    /// its field's unit.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub trigger: TriggerSpec,
    /// Cleared this long after it was set, s (> 0).
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// Cleared when this trigger fires.
    #[serde(default, with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub clear: Option<TriggerSpec>,
    #[serde(default)]
    pub surfacing: Option<Surfacing>,
}

/// One resilience test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResilienceTest {
    /// Test name: run ids and report rows.
    pub name: String,
    /// The requirement id it verifies (free text; traceability matrix).
    pub requirement: String,
    /// The hazard id it guards against (free text).
    pub hazard: String,
    pub faults: Vec<TestFault>,
    pub expectations: Vec<ExpectationSpec>,
    /// Pair each run with a baseline run (same seed, no fault); default true.
    #[serde(default = "yes")]
    pub baseline: bool,
    /// A test of the harness or of the test itself (the negative tests of
    /// seed 004, "Testy negatywne mechanizmu injection"): the verdict class
    /// every fault run must get. A run of another class fails the campaign's
    /// self-test check (exit code 1), whatever the class is.
    #[serde(default)]
    pub self_test: Option<SelfTest>,
    /// Sweep the trigger phase of one fault (seed 004, "Usterki trwałe,
    /// przejściowe i intermittent": where in a sensor period a fault lands
    /// changes what the robot sees). Each phase is a cell of the test.
    #[serde(default)]
    pub phase_sweep: Option<PhaseSweep>,
    /// The longest gap, s, allowed in the injector's input of any channel
    /// the controller reads (default 1.0 s: ten periods of the corridor
    /// robot's slowest sensor). A longer gap is sensor starvation the fault
    /// did not cause (a fault acts downstream of that input): the run is
    /// `invalid` (REQ-TEST-STARVATION). Must exceed every sensor period of
    /// the robot file, in (0, 3600] s.
    #[serde(default = "default_max_input_gap_s")]
    pub max_input_gap_s: f64,
}

/// Default [`ResilienceTest::max_input_gap_s`], s.
pub const DEFAULT_MAX_INPUT_GAP_S: f64 = 1.0;

fn default_max_input_gap_s() -> f64 {
    DEFAULT_MAX_INPUT_GAP_S
}

/// `phase_sweep:` of a test: `steps` phases `k * span_s / steps` (k = 0 ..
/// steps - 1), each delaying the named fault's trigger by that much after
/// its condition is met (the fault is set, and `t_trigger` noted, at the
/// first sim step at or after condition time + phase). Every phase runs the
/// test's `repeats` fault runs on the same seeds (common random numbers); the
/// baselines (no fault) are shared by all phases. Run ids:
/// `test_<name>_p<k>_r<repeat>` (k zero-padded to the width of `steps - 1`,
/// so ids sort in phase order); the manifest's `cell` is `{phase_s: <phase>}`.
///
/// ```yaml
/// phase_sweep: { fault: scan_loss, span_s: 0.1, steps: 10 }   # one 10 Hz scan period
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseSweep {
    /// The fault (of the test, by name) whose trigger is shifted.
    pub fault: String,
    /// The span the phases cover, s (> 0; typically one sensor period).
    pub span_s: f64,
    /// How many phases (2 ..= 1000).
    pub steps: usize,
}

/// The cell key of a phase-swept run (`cell: {phase_s: ...}`).
pub const PHASE_KEY: &str = "phase_s";

impl PhaseSweep {
    /// The phases, s, in order: `k * span_s / steps`, rounded to whole
    /// nanoseconds (so that `0.03`, not `0.030000000000000006`, names the run
    /// and survives the manifest's JSON round trip).
    pub fn phases(&self) -> Vec<f64> {
        (0..self.steps)
            .map(|k| (k as f64 * self.span_s / self.steps as f64 * 1e9).round() / 1e9)
            .collect()
    }
}

/// `self_test:` of a test: what every one of its fault runs must come out as.
///
/// ```yaml
/// self_test:
///   expect_class: invalid                        # the verdict class of every fault run
///   reason_contains: "the injector was disabled" # and the reason for it (optional)
///   expect_satisfied: [scan_never_stale]         # expectations satisfied whatever the class (optional)
///   injector_enabled: false                      # run the fault runs with the injector disabled (default true)
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfTest {
    /// The verdict class every fault run of the test must get.
    pub expect_class: VerdictClass,
    /// A part of the verdict's reason every fault run must carry, so that a
    /// run `invalid` for another reason (a failed baseline) does not pass.
    #[serde(default)]
    pub reason_contains: Option<String>,
    /// Expectations (of the test, by name) that every fault run must satisfy,
    /// whatever its class: how a run the class rules call `invalid` shows
    /// what it did (the disabled injector changed nothing).
    #[serde(default)]
    pub expect_satisfied: Vec<String>,
    /// `false`: the fault runs run with the injector disabled (the
    /// production guard: every `set_fault` refused, every channel a
    /// bit-exact passthrough). Baselines are not affected.
    #[serde(default = "yes")]
    pub injector_enabled: bool,
}

impl SelfTest {
    /// The declaration in words: `every fault run invalid, for the reason
    /// '…', with a, b satisfied, the injector disabled`.
    pub fn describe(&self) -> String {
        let mut s = format!("every fault run {}", self.expect_class.name());
        if let Some(r) = &self.reason_contains {
            s.push_str(&format!(", for the reason '{r}'"));
        }
        if !self.expect_satisfied.is_empty() {
            s.push_str(&format!(
                ", with {} satisfied",
                self.expect_satisfied.join(", ")
            ));
        }
        if !self.injector_enabled {
            s.push_str(", the injector disabled");
        }
        s
    }

    /// Why the fault run judged `judgement` does not meet this self-test, or
    /// `None` if it does.
    pub fn mismatch(&self, judgement: &RunJudgement) -> Option<String> {
        let v = &judgement.verdict_class;
        if v.class != self.expect_class {
            return Some(format!(
                "expected {}, got {} ({})",
                self.expect_class.name(),
                v.class.name(),
                v.reason
            ));
        }
        if let Some(want) = self.reason_contains.as_deref() {
            if !v.reason.contains(want) {
                return Some(format!(
                    "{} as declared, but for another reason: '{}' (declared: containing '{want}')",
                    v.class.name(),
                    v.reason
                ));
            }
        }
        for name in &self.expect_satisfied {
            match judgement.expectations.iter().find(|r| &r.name == name) {
                Some(r) if r.satisfied => {}
                Some(r) => {
                    return Some(format!("expectation '{name}' not satisfied: {}", r.reason))
                }
                None => return Some(format!("expectation '{name}' was not evaluated")),
            }
        }
        None
    }
}

fn yes() -> bool {
    true
}

impl TestFault {
    /// The FaultSpec it sets: `mode` on `channel`, every parameter from
    /// `parameters`, the rest 0.
    ///
    /// # Errors
    /// `(field, message)`: unknown mode or parameter.
    pub fn spec(&self) -> Result<FaultSpec, (&'static str, String)> {
        let mode = mode_from_name(&self.mode).ok_or_else(|| {
            (
                "mode",
                format!(
                    "unknown fault mode '{}' (one of {})",
                    self.mode,
                    MODE_NAMES.join(", ")
                ),
            )
        })?;
        let mut spec = FaultSpec::new(self.channel.clone(), mode);
        for (k, v) in &self.parameters {
            if !FaultSpec::mode_reads(mode, k) {
                let own = FaultSpec::mode_parameters(mode);
                return Err((
                    "parameters",
                    format!(
                        "mode '{}' does not read '{k}' (its parameters: {})",
                        self.mode,
                        if own.is_empty() {
                            "none".to_string()
                        } else {
                            own.join(", ")
                        }
                    ),
                ));
            }
            spec.set_param(k, ParamValue::Float(*v))
                .map_err(|e| ("parameters", format!("{k}: {e}")))?;
        }
        Ok(spec)
    }
}

impl ResilienceTest {
    /// The test's expectations followed by those its faults' `surfacing`
    /// adds: `<fault>.surfacing.rosout` and `<fault>.surfacing.diagnostics`
    /// (role detection, `within` of `applied`).
    pub fn expectations(&self) -> Vec<ExpectationSpec> {
        let mut out = self.expectations.clone();
        for f in &self.faults {
            let Some(s) = &f.surfacing else { continue };
            let within = |what: &str, predicate: Predicate| ExpectationSpec {
                name: format!("{}.surfacing.{what}", f.name),
                role: Some(Role::Detection),
                within: Some(Within {
                    anchor: Anchor::Applied(f.name.clone()),
                    within_s: s.within_s,
                    predicate,
                }),
                never: None,
                always: None,
                at: None,
                persists: None,
                invariant: None,
            };
            out.push(within(
                "rosout",
                Predicate::Rosout(Rosout {
                    at_least: LogLevel::Warn,
                    logger: s.logger.clone(),
                    msg_contains: None,
                }),
            ));
            out.push(within(
                "diagnostics",
                Predicate::Diagnostic(Diagnostic {
                    name: s.diagnostic.clone(),
                    at_least: Some(DiagLevel::Warn),
                    at_most: None,
                }),
            ));
        }
        out
    }

    /// Every `/diagnostics` status name and `/rosout` logger name the test
    /// reads (expectations, surfacing, triggers and clear triggers), each
    /// with its field path below `field` (`tests[0]`) and whether it is a
    /// logger name; in file order.
    pub fn published_names(&self, field: &str) -> Vec<(String, String, bool)> {
        let mut out = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            let at = format!("{field}.faults[{i}]");
            for (key, t) in [("trigger", Some(&f.trigger)), ("clear", f.clear.as_ref())] {
                if let Some((k, p)) = t.and_then(TriggerSpec::predicate) {
                    p.published_names(&format!("{at}.{key}.{k}"), &mut out);
                }
            }
            if let Some(s) = &f.surfacing {
                out.push((
                    format!("{at}.surfacing.diagnostic"),
                    s.diagnostic.clone(),
                    false,
                ));
                if let Some(l) = &s.logger {
                    out.push((format!("{at}.surfacing.logger"), l.clone(), true));
                }
            }
        }
        for (j, e) in self.expectations.iter().enumerate() {
            let (Some(key), Some(p)) =
                (e.kind_key(), e.kind().and_then(|k| k.predicate().cloned()))
            else {
                continue;
            };
            p.published_names(
                &format!("{field}.expectations[{j}].{key}.predicate"),
                &mut out,
            );
        }
        out
    }

    /// Every time of the test, s, with its field path below `field`: trigger
    /// and clear times, `duration_s`, surfacing and `within` bounds, `at`
    /// times (`at_s + tol_s`), the phase sweep's span. A run lasts the
    /// world's `mission_timeout_s`, so a time beyond it can never be met
    /// (the scenario loader refuses it).
    pub fn times(&self, field: &str) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            let at = format!("{field}.faults[{i}]");
            for (key, t) in [("trigger", Some(&f.trigger)), ("clear", f.clear.as_ref())] {
                for (k, v) in t.map(TriggerSpec::times).unwrap_or_default() {
                    out.push((format!("{at}.{key}.{k}"), v));
                }
            }
            if let Some(d) = f.duration_s {
                out.push((format!("{at}.duration_s"), d));
            }
            if let Some(s) = &f.surfacing {
                out.push((format!("{at}.surfacing.within_s"), s.within_s));
            }
        }
        for (j, e) in self.expectations.iter().enumerate() {
            let at = format!("{field}.expectations[{j}]");
            if let Some(w) = &e.within {
                out.push((format!("{at}.within.within_s"), w.within_s));
            }
            if let Some(a) = &e.at {
                out.push((format!("{at}.at.at_s"), a.at_s + a.tol_s));
            }
        }
        if let Some(ps) = &self.phase_sweep {
            out.push((format!("{field}.phase_sweep.span_s"), ps.span_s));
            // a fixed trigger time shifted by the largest phase
            if let Some((i, f)) = self
                .faults
                .iter()
                .enumerate()
                .find(|(_, f)| f.name == ps.fault)
            {
                if let TriggerSpec::AtTime(t) = &f.trigger {
                    let last = ps.phases().last().copied().unwrap_or(0.0);
                    out.push((
                        format!("{field}.faults[{i}].trigger.at_time.t_s"),
                        t.t_s + last,
                    ));
                }
            }
        }
        out
    }

    /// The names of its faults, in file order.
    pub fn fault_names(&self) -> Vec<&str> {
        self.faults.iter().map(|f| f.name.as_str()).collect()
    }

    /// The `after_fault` graph of the test's triggers and clears: each
    /// fault's trigger waits on another fault's event (its trigger for
    /// `trigger`, `requested` and `applied`; its clear for `cleared`), a
    /// clear waits on its own fault's trigger. A cycle of any length (A
    /// after B after A) can never fire, nor can a wait on the `cleared` of a
    /// fault that is never cleared (no `clear`, no `duration_s`): every run
    /// would be `precondition_failed`.
    ///
    /// # Errors
    /// `(field, message)` naming the first `after_fault.fault` on a cycle or
    /// waiting on a fault never cleared.
    pub fn check_trigger_graph(&self, field: &str) -> Result<(), (String, String)> {
        // Node 2i: fault i's trigger; 2i + 1: its clear.
        let index = |name: &str| self.faults.iter().position(|f| f.name == name);
        let mut deps: Vec<Option<(usize, String)>> = vec![None; 2 * self.faults.len()];
        for (i, f) in self.faults.iter().enumerate() {
            for (node, key, t) in [
                (2 * i, "trigger", Some(&f.trigger)),
                (2 * i + 1, "clear", f.clear.as_ref()),
            ] {
                let Some(TriggerSpec::AfterFault(a)) = t else {
                    continue;
                };
                let Some(j) = index(&a.fault) else { continue }; // refused by check
                let at = format!("{field}.faults[{i}].{key}.after_fault.fault");
                let on_clear = a.event == FaultEvent::Cleared;
                let o = &self.faults[j];
                if on_clear && o.clear.is_none() && o.duration_s.is_none() {
                    return Err((
                        at,
                        format!(
                            "waits for fault '{}' to be cleared, but it has no clear and no duration_s (it lasts to the end of the run): the {key} would never fire",
                            o.name
                        ),
                    ));
                }
                deps[node] = Some((2 * j + usize::from(on_clear), at));
            }
        }
        // Follow each node's chain: every node has at most one explicit
        // dependency, plus clear -> own trigger.
        // A cycle holds an explicit wait: start from those.
        for start in (0..deps.len()).filter(|&k| deps[k].is_some()) {
            let mut path = vec![start];
            let mut node = start;
            loop {
                let next = match &deps[node] {
                    Some((n, _)) => Some(*n),
                    None if node % 2 == 1 => Some(node - 1),
                    None => None,
                };
                let Some(n) = next else { break };
                if n == start {
                    let names: Vec<String> = path
                        .iter()
                        .chain(std::iter::once(&start))
                        .map(|&k| {
                            let what = if k % 2 == 0 { "trigger" } else { "clear" };
                            format!("{}'s {what}", self.faults[k / 2].name)
                        })
                        .collect();
                    let at = deps[start]
                        .as_ref()
                        .map(|d| d.1.clone())
                        .unwrap_or_default();
                    return Err((
                        at,
                        format!(
                            "a trigger cycle ({}) can never fire: every run would be precondition_failed",
                            names.join(" waits for ")
                        ),
                    ));
                }
                if path.contains(&n) || path.len() > deps.len() {
                    break; // a cycle not through start: found from its own nodes
                }
                path.push(n);
                node = n;
            }
        }
        Ok(())
    }
}
