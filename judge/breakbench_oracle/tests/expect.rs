//! Golden tests of the resilience-test engine (`breakbench_oracle::expect`)
//! on hand-made streams: every expectation kind at its boundaries, every
//! trigger kind firing and timing out, every verdict class reached, and the
//! test-file errors.
//!
//! Times are dyadic (ε = 2^-10 s) so that "exactly at the boundary" is exact.

use breakbench_oracle::expect::*;
use breakbench_oracle::{judge, PoseSample};
use breakbench_world::World;
use kraken_interfaces::config::parse_yaml;

const EPS: f64 = 1.0 / 1024.0;

fn specs(yaml: &str) -> Vec<ExpectationSpec> {
    parse_yaml(yaml, "test.yaml").unwrap_or_else(|e| panic!("{e}"))
}

fn truth(t_s: f64, x_m: f64) -> TruthSample {
    TruthSample {
        t_s,
        x_m,
        y_m: 0.0,
        yaw_rad: 0.0,
        speed_m_s: 0.0,
        clearance_m: Some(x_m),
    }
}

/// Steps `yaml`'s expectations over `(t, x)` ground-truth samples; fault
/// `f` gets `events` noted at the first step at or after their time.
fn run_x(
    yaml: &str,
    steps: &[(f64, f64)],
    events: &[(f64, FaultEvent)],
    end: f64,
) -> Vec<ExpectationResult> {
    let sp = specs(yaml);
    let mut set = ExpectationSet::new(&sp, &["f"], None).unwrap();
    let mut obs = Observations::new();
    let mut tl = Timeline::new(&["f"]);
    for &(t, x) in steps {
        for &(te, ev) in events {
            if te <= t {
                tl.note(
                    "f",
                    ev,
                    Stamp {
                        sim_s: te,
                        host_s: None,
                    },
                );
            }
        }
        obs.push_truth(truth(t, x));
        set.step(t, &obs, &tl).unwrap();
    }
    set.finish(end, &tl)
}

/// Samples every 1/8 s from `t0` to `t1` (inclusive) of `x(t)`.
fn grid(t0: f64, t1: f64, x: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    let n = ((t1 - t0) * 8.0).round() as i64;
    (0..=n)
        .map(|k| t0 + k as f64 / 8.0)
        .map(|t| (t, x(t)))
        .collect()
}

const WITHIN: &str = "
- name: reacts
  role: reaction
  within:
    anchor: { applied: f }
    within_s: 0.5
    predicate: { compare: { observable: truth.x_m, op: gt, value: 1.0 } }
";

#[test]
fn within_exactly_at_the_deadline_passes() {
    let steps = [(9.5, 0.0), (10.0, 0.0), (10.25, 0.5), (10.5, 2.0)];
    let r = &run_x(WITHIN, &steps, &[(10.0, FaultEvent::Applied)], 12.0)[0];
    assert!(r.satisfied, "{r:?}");
    assert_eq!(r.decided_at_s, 10.5);
    assert_eq!((r.margin, r.margin_unit), (0.0, MarginUnit::Seconds));
    assert_eq!(r.anchor_s, Some(10.0));
    assert_eq!(r.latency_s(), Some(0.5));
    assert_eq!(r.first_violation, None);
}

#[test]
fn within_just_after_the_deadline_fails() {
    let steps = [(10.0, 0.0), (10.25, 0.5), (10.5, 0.75), (10.5 + EPS, 2.0)];
    let r = &run_x(WITHIN, &steps, &[(10.0, FaultEvent::Applied)], 12.0)[0];
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 10.5, "decided at the deadline");
    assert_eq!(
        r.first_violation,
        Some(ViolationSample {
            t_s: 10.5 + EPS,
            value: 2.0
        })
    );
    // closest it came in the window: x = 0.75 vs 1.0
    assert_eq!((r.margin, r.margin_unit), (-0.25, MarginUnit::Observable));
    assert_eq!(r.undecidable, None);
    assert_eq!(r.latency_s(), None);
}

#[test]
fn within_ignores_samples_before_its_anchor() {
    // true at 9.5 (before the anchor), false from the anchor on
    let steps = [(9.5, 2.0), (10.0, 0.0), (10.5, 0.0), (11.0, 0.0)];
    let r = &run_x(WITHIN, &steps, &[(10.0, FaultEvent::Applied)], 12.0)[0];
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 10.5);
    assert_eq!(r.margin, -1.0);
}

#[test]
fn within_with_the_run_ending_before_the_deadline_is_undecidable() {
    let steps = [(10.0, 0.0), (10.25, 0.0)];
    let r = &run_x(WITHIN, &steps, &[(10.0, FaultEvent::Applied)], 10.25)[0];
    assert!(!r.satisfied);
    assert_eq!(r.undecidable, Some(Undecidable::RunEnded));
    assert_eq!(r.decided_at_s, 10.25);
}

#[test]
fn within_whose_anchor_never_happens_is_undecidable() {
    let r = &run_x(WITHIN, &grid(0.0, 2.0, |_| 5.0), &[], 2.0)[0];
    assert!(!r.satisfied);
    assert_eq!(
        r.undecidable,
        Some(Undecidable::AnchorMissing {
            fault: "f".into(),
            event: FaultEvent::Applied
        })
    );
}

const AT: &str = "
- name: safe_stop
  role: reaction
  at:
    anchor: { trigger: f }
    at_s: 4.0
    tol_s: 0.5
    predicate: { compare: { observable: truth.x_m, op: ge, value: 1.0 } }
";

/// `at` with the predicate false until `t_true` and true from it on;
/// anchor at 2 s, so the window is [5.5, 6.5] s.
fn at_case(t_true: f64) -> ExpectationResult {
    let mut steps: Vec<(f64, f64)> = grid(2.0, 5.0, |_| 0.0);
    steps.push((t_true, 1.0));
    steps.push((7.0, 1.0));
    run_x(AT, &steps, &[(2.0, FaultEvent::Trigger)], 8.0).remove(0)
}

#[test]
fn at_just_before_the_tolerance_fails_too_early() {
    let r = at_case(5.5 - EPS);
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 5.5 - EPS, "decided at the early sample");
    assert_eq!((r.margin, r.margin_unit), (-EPS, MarginUnit::Seconds));
    assert_eq!(
        r.first_violation,
        Some(ViolationSample {
            t_s: 5.5 - EPS,
            value: 1.0
        })
    );
    assert!(r.reason.starts_with("too early"), "{}", r.reason);
}

#[test]
fn at_on_both_tolerance_edges_and_the_centre_passes() {
    for (t, margin) in [(5.5, 0.0), (6.0, 0.5), (6.5, 0.0)] {
        let r = at_case(t);
        assert!(r.satisfied, "{t}: {r:?}");
        assert_eq!((r.decided_at_s, r.margin), (t, margin));
        assert_eq!(r.latency_s(), Some(t - 2.0));
    }
}

#[test]
fn at_just_after_the_tolerance_fails_too_late() {
    let r = at_case(6.5 + EPS);
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 6.5);
    assert_eq!(r.margin, -EPS);
    assert_eq!(
        r.first_violation,
        Some(ViolationSample {
            t_s: 6.5 + EPS,
            value: 1.0
        })
    );
    assert!(r.reason.starts_with("too late"), "{}", r.reason);
}

#[test]
fn at_true_too_early_then_on_time_still_fails() {
    // a stop at 3 s ("none at 25 s"), moving again, then true in the window
    let mut steps = vec![(2.0, 0.0), (3.0, 1.0), (4.0, 0.0), (5.0, 0.0)];
    steps.extend([(6.0, 1.0), (7.0, 1.0)]);
    let r = &run_x(AT, &steps, &[(2.0, FaultEvent::Trigger)], 8.0)[0];
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 3.0);
    assert_eq!(
        r.margin,
        0.5 - 3.0,
        "3 s from the centre at 6 s, tolerance 0.5 s"
    );
}

#[test]
fn at_never_true_fails_at_the_end_of_the_window() {
    let r = &run_x(
        AT,
        &grid(2.0, 8.0, |_| 0.0),
        &[(2.0, FaultEvent::Trigger)],
        8.0,
    )[0];
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 6.5);
    assert_eq!(
        r.first_violation,
        Some(ViolationSample {
            t_s: 6.625,
            value: 0.0
        })
    );
}

fn persists(max: Option<u32>) -> String {
    let m = max.map_or(String::new(), |n| format!("\n    max_transitions: {n}"));
    format!(
        "
- name: settles
  persists:
    predicate: {{ compare: {{ observable: truth.x_m, op: gt, value: 0.5 }} }}{m}
"
    )
}

/// x alternates 0/1 per the pattern, one sample per second from t = 0.
fn pattern(p: &[u8]) -> Vec<(f64, f64)> {
    p.iter()
        .enumerate()
        .map(|(i, &v)| (i as f64, f64::from(v)))
        .collect()
}

#[test]
fn persists_max_transitions_at_n_passes_and_at_n_plus_one_fails() {
    let p = pattern(&[0, 1, 0, 1, 1]); // 3 transitions, true at the end
    let ok = &run_x(&persists(Some(3)), &p, &[], 5.0)[0];
    assert!(ok.satisfied, "{ok:?}");
    assert_eq!((ok.margin, ok.margin_unit), (0.0, MarginUnit::Transitions));
    assert_eq!(ok.decided_at_s, 5.0);
    let bad = &run_x(&persists(Some(2)), &p, &[], 5.0)[0];
    assert!(!bad.satisfied);
    assert_eq!(bad.decided_at_s, 3.0, "the third change exceeds 2");
    assert_eq!(bad.margin, -1.0);
    assert_eq!(
        bad.first_violation,
        Some(ViolationSample {
            t_s: 3.0,
            value: 1.0
        })
    );
}

#[test]
fn persists_without_max_transitions_once_true_stays_true() {
    let ok = &run_x(&persists(None), &pattern(&[0, 0, 1, 1]), &[], 4.0)[0];
    assert!(ok.satisfied);
    assert_eq!((ok.margin, ok.margin_unit), (0.5, MarginUnit::Observable));
    let fell = &run_x(&persists(None), &pattern(&[0, 1, 0, 1]), &[], 4.0)[0];
    assert!(!fell.satisfied);
    assert_eq!(fell.decided_at_s, 2.0);
    let never = &run_x(&persists(None), &pattern(&[0, 0, 0]), &[], 3.0)[0];
    assert!(!never.satisfied);
    assert_eq!(never.reason, "never became true");
    assert_eq!(
        never.first_violation,
        Some(ViolationSample {
            t_s: 0.0,
            value: 0.0
        })
    );
    // max_transitions: false at the end fails even within the count
    let end_false = &run_x(&persists(Some(5)), &pattern(&[0, 1, 0]), &[], 3.0)[0];
    assert!(!end_false.satisfied);
    assert_eq!(end_false.reason, "false at the end of the run");
    assert_eq!(
        end_false.first_violation,
        Some(ViolationSample {
            t_s: 2.0,
            value: 0.0
        })
    );
}

const SPAN_NEVER: &str = "
- name: no_overshoot
  never:
    predicate: { compare: { observable: truth.x_m, op: gt, value: 1.0 } }
    window: { span: { from: { applied: f }, until: { cleared: f } } }
";
const SPAN_ALWAYS: &str = "
- name: stays_low
  always:
    predicate: { compare: { observable: truth.x_m, op: le, value: 1.0 } }
    window: { span: { from: { applied: f }, until: { cleared: f } } }
";

/// x = 0.25 everywhere but one spike to 2 at `spike`; window [5, 8] s.
fn window_case(yaml: &str, spike: f64) -> ExpectationResult {
    let mut steps = vec![(4.0, 0.25), (spike, 2.0), (9.0, 0.25)];
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    steps.insert(1, (4.5, 0.25));
    let ev = [(5.0, FaultEvent::Applied), (8.0, FaultEvent::Cleared)];
    let mut s = steps.clone();
    s.extend(
        grid(5.0, 8.0, |_| 0.25)
            .into_iter()
            .filter(|(t, _)| *t != spike),
    );
    s.sort_by(|a, b| a.0.total_cmp(&b.0));
    run_x(yaml, &s, &ev, 10.0).remove(0)
}

#[test]
fn never_and_always_window_edges_are_inclusive() {
    for yaml in [SPAN_NEVER, SPAN_ALWAYS] {
        for spike in [5.0 - EPS, 8.0 + EPS] {
            let r = window_case(yaml, spike);
            assert!(r.satisfied, "{spike}: {r:?}");
            assert_eq!(r.decided_at_s, 8.0, "decided when the window closes");
            assert_eq!((r.margin, r.margin_unit), (0.75, MarginUnit::Observable));
        }
        for spike in [5.0, 6.0, 8.0] {
            let r = window_case(yaml, spike);
            assert!(!r.satisfied, "{spike}: {r:?}");
            assert_eq!(r.decided_at_s, spike);
            assert_eq!(r.margin, -1.0);
            assert_eq!(
                r.first_violation,
                Some(ViolationSample {
                    t_s: spike,
                    value: 2.0
                })
            );
        }
    }
}

#[test]
fn never_defaults_to_the_whole_run_and_while_fault_active_follows_trigger_to_clear() {
    let whole = "
- name: clear
  never: { predicate: { compare: { observable: truth.clearance_m, op: lt, value: 0.3 } } }
";
    let r = &run_x(whole, &[(0.0, 0.5), (1.0, 0.75), (2.0, 0.5)], &[], 2.0)[0];
    assert!(r.satisfied);
    assert_eq!((r.decided_at_s, r.margin), (2.0, 0.5 - 0.3));
    let r = &run_x(whole, &[(0.0, 0.25), (1.0, 0.75)], &[], 2.0)[0];
    assert!(!r.satisfied);
    assert_eq!(r.decided_at_s, 0.0, "the first sample counts");

    let active = "
- name: low_while_active
  never:
    predicate: { compare: { observable: truth.x_m, op: gt, value: 1.0 } }
    window: { while_fault_active: f }
";
    let ev = [(1.0, FaultEvent::Trigger), (3.0, FaultEvent::Cleared)];
    let outside = [(0.0, 2.0), (1.0, 0.0), (3.0, 0.0), (4.0, 2.0)];
    assert!(run_x(active, &outside, &ev, 5.0)[0].satisfied);
    let inside = [(0.0, 2.0), (1.0, 0.0), (2.0, 2.0), (4.0, 2.0)];
    let r = &run_x(active, &inside, &ev, 5.0)[0];
    assert_eq!((r.satisfied, r.decided_at_s), (false, 2.0));
    // never triggered: the window never opened
    let r = &run_x(active, &inside, &[], 5.0)[0];
    assert_eq!(
        r.undecidable,
        Some(Undecidable::AnchorMissing {
            fault: "f".into(),
            event: FaultEvent::Trigger
        })
    );
}

#[test]
fn an_expectation_anchored_on_another_starts_at_its_decision() {
    let yaml = "
- name: stops
  role: reaction
  within:
    anchor: { trigger: f }
    within_s: 1.0
    predicate: { compare: { observable: truth.x_m, op: lt, value: 0.5 } }
- name: resumes
  role: recovery
  within:
    anchor: { expectation: stops }
    within_s: 2.0
    predicate: { compare: { observable: truth.x_m, op: gt, value: 0.5 } }
";
    let steps = grid(
        0.0,
        6.0,
        |t| if (1.5..3.0).contains(&t) { 0.0 } else { 1.0 },
    );
    let ev = [(1.0, FaultEvent::Trigger)];
    let r = run_x(yaml, &steps, &ev, 6.0);
    assert_eq!((r[0].satisfied, r[0].decided_at_s), (true, 1.5));
    assert_eq!(
        (r[1].satisfied, r[1].decided_at_s, r[1].anchor_s),
        (true, 3.0, Some(1.5))
    );
    assert_eq!(r[1].anchor_fault.as_deref(), Some("f"));
    let mut tl = Timeline::new(&["f"]);
    tl.note(
        "f",
        FaultEvent::Trigger,
        Stamp {
            sim_s: 1.0,
            host_s: Some(1.25),
        },
    );
    tl.note(
        "f",
        FaultEvent::Applied,
        Stamp {
            sim_s: 1.125,
            host_s: None,
        },
    );
    tl.note(
        "f",
        FaultEvent::Trigger,
        Stamp {
            sim_s: 9.0,
            host_s: None,
        },
    );
    tl.record_expectations(&r);
    let f = tl.fault("f").unwrap();
    assert_eq!(
        f.t_trigger.unwrap().sim_s,
        1.0,
        "the first occurrence is kept"
    );
    assert_eq!(f.injection_latency_s, Some(0.125));
    assert_eq!(f.t_recovered.map(|s| s.sim_s), Some(3.0));
    assert_eq!(tl.expectations[0].latency_s, Some(0.5));
    assert_eq!(tl.expectations[1].latency_s, Some(1.5));

    // the first never stops: the second is unsatisfied, not undecidable
    let r = run_x(yaml, &grid(0.0, 6.0, |_| 1.0), &ev, 6.0);
    assert!(!r[0].satisfied && !r[1].satisfied);
    assert_eq!(r[1].undecidable, None);
    assert!(
        r[1].reason
            .contains("expectation 'stops', was not satisfied"),
        "{}",
        r[1].reason
    );
}

#[test]
fn predicates_over_diagnostics_rosout_speed_and_regions() {
    let yaml = r#"
- name: diag_error
  within:
    anchor: { applied: f }
    within_s: 1.0
    predicate: { diagnostic: { name: "nav: scan", at_least: ERROR } }
- name: warned
  within:
    anchor: { applied: f }
    within_s: 1.0
    predicate: { rosout: { at_least: WARN, logger: nav } }
- name: stopped_odom
  within:
    anchor: { applied: f }
    within_s: 1.0
    predicate: { stopped: { source: odom, tolerance_m_s: 0.05 } }
- name: goal_and_ok
  within:
    anchor: { applied: f }
    within_s: 3.0
    predicate:
      and:
        - { in_disc: { center_m: [3.0, 0.0], radius_m: 0.25 } }
        - { diagnostic: { name: "nav: scan", at_most: OK } }
        - not: { in_box: { min_m: [-1.0, -1.0], max_m: [1.0, 1.0] } }
- name: applied_flag
  within:
    anchor: { trigger: f }
    within_s: 1.0
    predicate: { fault: { name: f, state: applied } }
"#;
    let sp = specs(yaml);
    let mut set = ExpectationSet::new(&sp, &["f"], None).unwrap();
    let mut obs = Observations::new();
    let mut tl = Timeline::new(&["f"]);
    let stamp = |t| Stamp {
        sim_s: t,
        host_s: None,
    };
    tl.note("f", FaultEvent::Trigger, stamp(0.0));
    tl.note("f", FaultEvent::Applied, stamp(0.0));
    for k in 0..=32 {
        let t = f64::from(k) / 8.0;
        obs.push_truth(truth(t, t));
        let v = if t < 0.5 { 0.5 } else { 0.0 };
        let odom = OdomSample {
            t_s: t,
            x_m: t,
            y_m: 0.0,
            yaw_rad: 0.0,
            linear_x_m_s: v,
            angular_z_rad_s: 0.0,
        };
        obs.push_odom(odom);
        // an INFO entry from nav, a WARN from another logger, then the WARN from nav
        if k == 1 {
            obs.push_log(LogSample {
                t_s: t,
                level: 20,
                logger: "nav".into(),
                msg: "ok".into(),
            });
            obs.push_log(LogSample {
                t_s: t,
                level: 30,
                logger: "other".into(),
                msg: "x".into(),
            });
        }
        if k == 5 {
            obs.push_log(LogSample {
                t_s: t,
                level: 30,
                logger: "nav".into(),
                msg: "scan stale".into(),
            });
        }
        if k == 3 {
            obs.push_diagnostic(DiagnosticSample {
                t_s: t,
                name: "nav: scan".into(),
                level: 1,
            });
        }
        if k == 6 {
            obs.push_diagnostic(DiagnosticSample {
                t_s: t,
                name: "nav: scan".into(),
                level: 2,
            });
        }
        if k == 20 {
            obs.push_diagnostic(DiagnosticSample {
                t_s: t,
                name: "nav: scan".into(),
                level: 0,
            });
        }
        if k == 2 {
            obs.push_fault_status(FaultStatusSample {
                t_s: t,
                fault: "f".into(),
                active: true,
                applied: true,
            });
        }
        set.step(t, &obs, &tl).unwrap();
        obs.retire_logs(t);
    }
    let r = set.finish(4.0, &tl);
    let at = |i: usize| (r[i].satisfied, r[i].decided_at_s);
    assert_eq!(
        at(0),
        (true, 0.75),
        "ERROR at k = 6, WARN at k = 3 is not enough"
    );
    assert_eq!(at(1), (true, 0.625), "WARN from nav at k = 5");
    assert_eq!(at(2), (true, 0.5), "odom speed 0 from 0.5 s");
    // x in the goal disc [2.75, 3.25] and diag back to OK from 2.5 s
    assert_eq!(at(3), (true, 2.75));
    assert_eq!(r[3].margin, 0.25);
    assert_eq!(at(4), (true, 0.25));
}

#[test]
fn an_unknown_source_is_no_evidence_and_leaves_the_expectation_undecidable() {
    // cmd_vel never reported
    let yaml = "
- name: cmd_stop
  within:
    anchor: { applied: f }
    within_s: 1.0
    predicate: { stopped: { source: cmd_vel, tolerance_m_s: 0.01 } }
- name: no_cmd
  never: { predicate: { compare: { observable: cmd_vel.linear_x_m_s, op: gt, value: 1.0 } } }
";
    let r = run_x(
        yaml,
        &grid(0.0, 3.0, |_| 0.0),
        &[(0.0, FaultEvent::Applied)],
        3.0,
    );
    assert_eq!(r[0].undecidable, Some(Undecidable::NoData));
    assert_eq!(r[1].undecidable, Some(Undecidable::NoData));
    assert!(!r[0].satisfied && !r[1].satisfied, "never a silent pass");
    let c = classify(&facts(&r, &[fired("f", true)]));
    assert_eq!(c.class, VerdictClass::Invalid);
}

#[test]
fn the_named_invariants_agree_with_judge() {
    let world = World::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../config/corridor.yaml"
    )))
    .unwrap();
    let yaml = "
- { name: region, invariant: operating_region_containment }
- { name: clearance, invariant: obstacle_clearance }
- { name: mission, invariant: mission_completion_true_pose }
";
    let sp = specs(yaml);
    // straight down y = -0.5 into the box (min_m x = 5.8), then stop
    let poses: Vec<PoseSample> = (0..=80)
        .map(|k| PoseSample {
            t_s: f64::from(k) * 0.125,
            x_m: (1.0 + f64::from(k) * 0.0625).min(5.75),
            y_m: -0.5,
            yaw_rad: 0.0,
        })
        .collect();
    let mut set = ExpectationSet::new(&sp, &[], Some(&world)).unwrap();
    let mut obs = Observations::new();
    let tl = Timeline::new::<&str>(&[]);
    for p in &poses {
        obs.push_truth(TruthSample {
            t_s: p.t_s,
            x_m: p.x_m,
            y_m: p.y_m,
            yaw_rad: 0.0,
            speed_m_s: 0.0,
            clearance_m: None,
        });
        set.step(p.t_s, &obs, &tl).unwrap();
    }
    let r = set.finish(10.0, &tl);
    let v = judge(&world, &poses).unwrap();
    assert!(r[0].satisfied && v.operating_region_containment.holds);
    assert_eq!(r[0].margin, v.operating_region_containment.value);
    assert!(!r[1].satisfied && !v.obstacle_clearance.holds);
    assert_eq!(r[1].decided_at_s, v.obstacle_clearance.decided_at_s);
    // clearance 5.8 - x - 0.2 vs the 0.1 threshold: at x = 5.5 (t = 9 s) it
    // is 0.1 up to rounding (5.8 is not dyadic) and comes out just below
    assert_eq!(r[1].decided_at_s, 9.0);
    let fv = r[1].first_violation.unwrap();
    assert_eq!(fv.t_s, 9.0);
    assert!(fv.value < 0.1 && (fv.value - 0.1).abs() < 1e-12, "{fv:?}");
    assert_eq!(r[1].margin, fv.value - 0.1);
    assert!(!r[2].satisfied && !v.mission_completion_true_pose.holds);
    assert_eq!(
        r[2].decided_at_s,
        v.mission_completion_true_pose.decided_at_s
    );
    assert!((r[2].margin - (0.3 - (11.0f64 - 5.75).hypot(0.5))).abs() < 1e-12);
    // an invariant without a world is refused
    assert!(ExpectationSet::new(&sp, &[], None).is_err());
}

// ---- triggers ----

/// The `trigger:` field as a test file holds it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerField {
    #[serde(with = "serde_yaml_ng::with::singleton_map_recursive")]
    trigger: TriggerSpec,
}

fn trig(yaml: &str, fault: &str, seed: u64) -> Trigger {
    let t: TriggerField =
        parse_yaml(&format!("trigger: {{ {yaml} }}"), "t.yaml").unwrap_or_else(|e| panic!("{e}"));
    Trigger::new(&t.trigger, fault, &["f", "g"], seed).unwrap()
}

/// Steps `t` over x(t) every 1/8 s to `end`; returns the fire time or the
/// final state.
fn run_trigger(t: &mut Trigger, tl: &Timeline, end: f64, x: impl Fn(f64) -> f64) -> TriggerState {
    let mut obs = Observations::new();
    for (ts, xv) in grid(0.0, end, x) {
        obs.push_truth(truth(ts, xv));
        if let Some(f) = t.step(ts, &obs, tl).unwrap() {
            assert_eq!(f, ts);
        }
    }
    t.finish(end).clone()
}

#[test]
fn at_time_fires_at_the_first_step_at_or_after_it_or_times_out_with_the_run() {
    let tl = Timeline::new(&["f", "g"]);
    let mut t = trig("at_time: { t_s: 2.0 }", "f", 0);
    assert_eq!(
        run_trigger(&mut t, &tl, 4.0, |_| 0.0),
        TriggerState::Fired { t_s: 2.0 }
    );
    let mut t = trig("at_time: { t_s: 2.1 }", "f", 0);
    assert_eq!(
        run_trigger(&mut t, &tl, 4.0, |_| 0.0),
        TriggerState::Fired { t_s: 2.125 }
    );
    let mut t = trig("at_time: { t_s: 5.0 }", "f", 0);
    assert!(
        matches!(run_trigger(&mut t, &tl, 4.0, |_| 0.0), TriggerState::TimedOut { t_s, .. } if t_s == 4.0)
    );
}

const EDGE: &str = "rising_edge: { predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }, timeout_s: 10.0 }";

#[test]
fn rising_edge_fires_on_the_crossing_and_not_when_already_true() {
    let tl = Timeline::new(&["f", "g"]);
    let mut t = trig(EDGE, "f", 0);
    // x = t: first x > 4 at 4.125
    assert_eq!(
        run_trigger(&mut t, &tl, 8.0, |t| t),
        TriggerState::Fired { t_s: 4.125 }
    );
    // true from the start, false at [2, 3), true again from 3
    let mut t = trig(EDGE, "f", 0);
    let x = |t: f64| if (2.0..3.0).contains(&t) { 0.0 } else { 5.0 };
    assert_eq!(
        run_trigger(&mut t, &tl, 8.0, x),
        TriggerState::Fired { t_s: 3.0 }
    );
}

#[test]
fn rising_edge_times_out() {
    let tl = Timeline::new(&["f", "g"]);
    let mut t = trig(EDGE, "f", 0);
    // crosses only at 12 s, after the 10 s timeout
    let st = run_trigger(&mut t, &tl, 14.0, |t| t / 3.0);
    assert!(
        matches!(st, TriggerState::TimedOut { t_s, .. } if t_s == 10.0),
        "{st:?}"
    );
}

#[test]
fn after_fault_fires_a_delay_after_the_other_fault_s_event_or_times_out() {
    let yaml = "after_fault: { fault: g, event: cleared, delay_s: 1.5, timeout_s: 6.0 }";
    let mut tl = Timeline::new(&["f", "g"]);
    tl.note(
        "g",
        FaultEvent::Cleared,
        Stamp {
            sim_s: 2.0,
            host_s: None,
        },
    );
    let mut t = trig(yaml, "f", 0);
    assert_eq!(
        run_trigger(&mut t, &tl, 8.0, |_| 0.0),
        TriggerState::Fired { t_s: 3.5 }
    );
    let mut t = trig(yaml, "f", 0);
    let st = run_trigger(&mut t, &Timeline::new(&["f", "g"]), 8.0, |_| 0.0);
    assert!(
        matches!(st, TriggerState::TimedOut { t_s, .. } if t_s == 6.0),
        "{st:?}"
    );
}

#[test]
fn stable_baseline_fires_after_n_seconds_true_and_restarts_on_false() {
    let yaml = "stable_baseline: { predicate: { compare: { observable: truth.x_m, op: lt, value: 1.0 } }, for_s: 2.0, timeout_s: 6.0 }";
    let tl = Timeline::new(&["f", "g"]);
    let mut t = trig(yaml, "f", 0);
    // true from 0, broken at 1.5, true again from 1.625 → fires at 3.625
    let x = |t: f64| if t == 1.5 { 5.0 } else { 0.0 };
    assert_eq!(
        run_trigger(&mut t, &tl, 8.0, x),
        TriggerState::Fired { t_s: 3.625 }
    );
    let mut t = trig(yaml, "f", 0);
    let st = run_trigger(&mut t, &tl, 8.0, |t| if t < 5.0 { 5.0 } else { 0.0 });
    assert!(
        matches!(st, TriggerState::TimedOut { t_s, .. } if t_s == 6.0),
        "{st:?}"
    );
}

#[test]
fn random_in_window_is_seeded_per_fault_and_fires_at_its_draw() {
    let yaml = "random_in_window: { from_s: 2.0, to_s: 3.0 }";
    let a = trig(yaml, "f", 7).drawn_s().unwrap();
    assert_eq!(
        a,
        trig(yaml, "f", 7).drawn_s().unwrap(),
        "same seed and fault"
    );
    let b = trig(yaml, "g", 7).drawn_s().unwrap();
    let c = trig(yaml, "f", 8).drawn_s().unwrap();
    assert!(a != b && a != c, "{a} {b} {c}");
    for d in [a, b, c] {
        assert!((2.0..3.0).contains(&d), "{d}");
    }
    let mut t = trig(yaml, "f", 7);
    let tl = Timeline::new(&["f", "g"]);
    let first_step = (a * 8.0).ceil() / 8.0;
    assert_eq!(
        run_trigger(&mut t, &tl, 4.0, |_| 0.0),
        TriggerState::Fired { t_s: first_step }
    );
    let mut t = trig(yaml, "f", 7);
    assert!(matches!(
        run_trigger(&mut t, &tl, 1.0, |_| 0.0),
        TriggerState::TimedOut { .. }
    ));
    // the phase sweep: 10 seeds spread over the window
    let draws: Vec<f64> = (0..10)
        .map(|s| trig(yaml, "f", s).drawn_s().unwrap())
        .collect();
    let (lo, hi) = draws
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &d| (l.min(d), h.max(d)));
    assert!(hi - lo > 0.5, "{draws:?}");
}

// ---- verdict classes ----

fn fired(name: &str, applied: bool) -> FaultFacts {
    FaultFacts {
        name: name.into(),
        trigger: TriggerState::Fired { t_s: 1.0 },
        accepted: true,
        applied,
        unsupported: None,
    }
}

fn facts<'a>(r: &'a [ExpectationResult], f: &'a [FaultFacts]) -> RunFacts<'a> {
    RunFacts {
        error: None,
        baseline: None,
        injector_enabled: true,
        real_time_factor: None,
        input_starvation: None,
        faults: f,
        expectations: r,
    }
}

#[test]
fn every_verdict_class_is_reached_and_only_pass_passes() {
    let ok = run_x(WITHIN, &[(10.0, 2.0)], &[(10.0, FaultEvent::Applied)], 11.0);
    let bad = run_x(
        WITHIN,
        &[(10.0, 0.0), (11.0, 0.0)],
        &[(10.0, FaultEvent::Applied)],
        11.0,
    );
    assert!(ok[0].satisfied && !bad[0].satisfied);
    let f = [fired("f", true)];
    use VerdictClass::*;
    let c = |x: RunFacts| classify(&x);
    assert_eq!(c(facts(&ok, &f)).class, Pass);
    let fail = c(facts(&bad, &f));
    assert_eq!(fail.class, Fail);
    assert!(fail.reason.contains("reacts"), "{}", fail.reason);

    let mut x = facts(&ok, &f);
    x.error = Some("plant crashed".into());
    assert_eq!(c(x).class, Error);

    let mut unsup = [fired("f", false)];
    unsup[0].unsupported = Some("mode 'freeze' not implemented for odom".into());
    assert_eq!(c(facts(&ok, &unsup)).class, Unsupported);

    let timed_out = [FaultFacts {
        trigger: TriggerState::TimedOut {
            t_s: 10.0,
            reason: "no rising edge".into(),
        },
        ..fired("f", false)
    }];
    let pf = c(facts(&ok, &timed_out));
    assert_eq!(pf.class, PreconditionFailed);
    assert!(pf.reason.contains("never fired"), "{}", pf.reason);

    // ACK without effect
    let inv = c(facts(&ok, &[fired("f", false)]));
    assert_eq!(inv.class, Invalid);
    assert!(
        inv.reason.contains("never changed or withheld"),
        "{}",
        inv.reason
    );

    let refused = [FaultFacts {
        accepted: false,
        ..fired("f", false)
    }];
    assert_eq!(c(facts(&ok, &refused)).class, Error);

    let base_fail = ClassifiedVerdict {
        class: Fail,
        reason: "collided".into(),
    };
    let mut x = facts(&ok, &f);
    x.baseline = Some(&base_fail);
    let b = c(x);
    assert_eq!(b.class, Invalid);
    assert!(b.reason.contains("baseline"), "{}", b.reason);
    let base_pass = ClassifiedVerdict {
        class: Pass,
        reason: String::new(),
    };
    let mut x = facts(&ok, &f);
    x.baseline = Some(&base_pass);
    assert_eq!(c(x).class, Pass);

    let mut x = facts(&ok, &f);
    x.injector_enabled = false;
    assert_eq!(c(x).class, Invalid);
    // a disabled injector refuses every fault: the run is `invalid` (the
    // harness's state), not an `error` of the refusal
    let mut x = facts(&ok, &refused);
    x.injector_enabled = false;
    let d = c(x);
    assert_eq!(d.class, Invalid);
    assert_eq!(d.reason, "the injector was disabled");
    let mut x = facts(&ok, &f);
    x.real_time_factor = Some((0.4, 0.5));
    assert_eq!(c(x).class, Invalid);
    let mut x = facts(&ok, &f);
    x.real_time_factor = Some((0.5, 0.5));
    assert_eq!(c(x).class, Pass);
    // a gap in the injector's input the fault did not cause: invalid, and
    // it outranks an acknowledgement without effect (the starved channel
    // had nothing to change)
    let gap = InputGap {
        channel: "scan".into(),
        from_s: 12.0,
        gap_s: 1.25,
        limit_s: 1.0,
    };
    let mut x = facts(&ok, &f);
    x.input_starvation = Some(gap.clone());
    let s = c(x);
    assert_eq!(s.class, Invalid);
    assert!(
        s.reason
            .contains("channel 'scan' for 1.250 s from t = 12.000 s"),
        "{}",
        s.reason
    );
    let never = [fired("f", false)];
    let mut x = facts(&ok, &never);
    x.input_starvation = Some(gap);
    assert!(c(x).reason.starts_with("sensor starvation"));

    assert_eq!(
        c(facts(&[], &[])).class,
        Invalid,
        "nothing judged is not a pass"
    );

    let counted: Vec<VerdictClass> = VerdictClass::ALL
        .into_iter()
        .filter(|v| v.counts_in_p_hat())
        .collect();
    assert_eq!(counted, [Pass, Fail]);
    let names: Vec<&str> = VerdictClass::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(
        names,
        [
            "pass",
            "fail",
            "invalid",
            "unsupported",
            "precondition_failed",
            "error"
        ]
    );
    assert_eq!(
        serde_json::to_string(&PreconditionFailed).unwrap(),
        "\"precondition_failed\""
    );
}

// ---- the test file ----

fn check(yaml: &str, faults: &[&str]) -> Result<(), kraken_interfaces::ConfigError> {
    kraken_interfaces::config::parse_yaml_checked(yaml, "t.yaml", |s: &Vec<ExpectationSpec>, p| {
        check_expectations(s, faults, "", p)
    })
    .map(|_| ())
}

#[test]
fn test_file_errors_name_line_column_and_field() {
    let e = check(
        "- name: a\n  never:\n    predicat: { stopped: { source: truth, tolerance_m_s: 0.1 } }\n",
        &[],
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (3, 5), "{e}");
    assert!(e.message.contains("unknown field `predicat`"), "{e}");

    let e = check("- name: a\n  never: { predicate: { compare: { observable: truth.z_m, op: gt, value: 1 } } }\n", &[]).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("unknown variant `truth.z_m`"), "{e}");

    let two = "- name: a\n  never: { predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }\n  invariant: obstacle_clearance\n";
    let e = check(two, &[]).unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("[0]", 1), "{e}");

    let unknown_fault = "- name: a\n  within: { anchor: { applied: g }, within_s: 1, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }\n";
    let e = check(unknown_fault, &["f"]).unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("[0].within", 2), "{e}");
    assert!(e.message.contains("unknown fault 'g'"), "{e}");

    let bad_dt = "- name: a\n  within: { anchor: run_start, within_s: 0, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }\n";
    let e = check(bad_dt, &[]).unwrap_err();
    assert_eq!(e.field, "[0].within.within_s", "{e}");

    let cycle = "
- name: a
  within: { anchor: { expectation: b }, within_s: 1, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }
- name: b
  within: { anchor: { expectation: a }, within_s: 1, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }
";
    let e = check(cycle, &[]).unwrap_err();
    assert!(e.message.contains("anchor cycle"), "{e}");

    let diag = "- name: a\n  never: { predicate: { diagnostic: { name: x, at_least: WARN, at_most: OK } } }\n";
    let e = check(diag, &[]).unwrap_err();
    assert_eq!(e.field, "[0].never.predicate.diagnostic", "{e}");
    assert_eq!(e.line, 2, "{e}");

    let role = "- name: a\n  role: detection\n  never: { predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }\n";
    assert_eq!(check(role, &[]).unwrap_err().field, "[0].role");

    let dup = "- { name: a, invariant: obstacle_clearance }\n- { name: a, invariant: obstacle_clearance }\n";
    let e = check(dup, &[]).unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("[1].name", 2), "{e}");

    // symbols are accepted for the comparison
    check("- name: a\n  never: { predicate: { compare: { observable: truth.x_m, op: \">=\", value: 1 } } }\n", &[]).unwrap();
}

#[test]
fn refers_to_fault_follows_anchors_windows_and_fault_predicates() {
    let yaml = "
- { name: safe, invariant: obstacle_clearance }
- name: stops
  within: { anchor: { applied: f }, within_s: 1, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }
- name: after_stop
  within: { anchor: { expectation: stops }, within_s: 1, predicate: { stopped: { source: truth, tolerance_m_s: 0.1 } } }
- name: flag
  never: { predicate: { fault: { name: f, state: active } } }
- name: plain
  never: { predicate: { rosout: { at_least: ERROR } } }
";
    let sp = specs(yaml);
    let refer: Vec<bool> = sp.iter().map(|s| refers_to_fault(&sp, &s.name)).collect();
    assert_eq!(refer, [false, true, true, true, false]);
}

#[test]
fn a_step_back_in_time_or_a_nan_time_is_refused() {
    let sp = specs(WITHIN);
    let mut set = ExpectationSet::new(&sp, &["f"], None).unwrap();
    let obs = Observations::new();
    let tl = Timeline::new(&["f"]);
    set.step(1.0, &obs, &tl).unwrap();
    assert!(set.step(0.5, &obs, &tl).is_err());
    assert!(set.step(f64::NAN, &obs, &tl).is_err());
    set.step(1.0, &obs, &tl).unwrap();
}

/// Times in a reason read as written: the bound 7.37 + 1.0 s is `8.37`,
/// not the float sum `8.370000000000001`.
#[test]
fn reasons_print_times_without_float_noise() {
    let yaml = "
- name: late
  at:
    anchor: { applied: f }
    at_s: 0.5
    tol_s: 0.5
    predicate: { compare: { observable: truth.x_m, op: gt, value: 1.0 } }
";
    assert_eq!(7.37 + 1.0, 8.370000000000001);
    let steps = [(7.37, 0.0), (8.0, 0.0), (8.38, 0.0)];
    let r = &run_x(yaml, &steps, &[(7.37, FaultEvent::Applied)], 9.0)[0];
    assert!(!r.satisfied);
    assert_eq!(r.reason, "too late: still false at 8.38 s, after 8.37 s");
}

/// `estimate.error_m` is the distance between the latest estimate and the
/// latest true position; unknown until both have a sample.
#[test]
fn the_estimate_error_observable() {
    use breakbench_oracle::expect::{EstimateSample, Observable};
    let mut obs = Observations::new();
    assert_eq!(Observable::EstimateError.value(&obs), None);
    obs.push_truth(truth(1.0, 2.0));
    assert_eq!(Observable::EstimateError.value(&obs), None);
    obs.push_estimate(EstimateSample {
        t_s: 1.0,
        x_m: 5.0,
        y_m: 4.0,
        yaw_rad: 0.3,
    });
    // truth (2, 0) vs estimate (5, 4): a 3-4-5 triangle
    assert_eq!(Observable::EstimateError.value(&obs), Some(5.0));
    assert_eq!(Observable::EstimateX.value(&obs), Some(5.0));
    assert_eq!(Observable::EstimateYaw.value(&obs), Some(0.3));
    let o: Observable = serde_json::from_str("\"estimate.error_m\"").unwrap();
    assert_eq!(o, Observable::EstimateError);
}

/// REQ-EXPECT-DIAG-LEVELS: STALE (wire 3) is "no data", not a severity above
/// ERROR (2). A status that is OK, STALE, then OK never meets `at_least: ERROR`
/// or `at_least: WARN` (the EKF's start-up "no message yet" made every
/// baseline run of gnss_spoof_gated a false alarm), nor `at_most: OK` while
/// STALE; an explicit `at_least: STALE` meets it.
#[test]
fn stale_is_no_data_not_a_severity_above_error() {
    let yaml = r#"
- name: never_error
  never: { predicate: { diagnostic: { name: "ekf: gnss", at_least: ERROR } } }
- name: never_warn
  never: { predicate: { diagnostic: { name: "ekf: gnss", at_least: WARN } } }
- name: never_stale
  never: { predicate: { diagnostic: { name: "ekf: gnss", at_least: STALE } } }
- name: healthy_from_start
  always: { predicate: { diagnostic: { name: "ekf: gnss", at_most: OK } } }
"#;
    let sp = specs(yaml);
    let mut set = ExpectationSet::new(&sp, &[], None).unwrap();
    let mut obs = Observations::new();
    let tl = Timeline::new::<&str>(&[]);
    for k in 0..=16 {
        let t = f64::from(k) / 8.0;
        obs.push_truth(truth(t, t));
        // OK at 0 s, STALE at 0.125 s ("no message yet"), OK from 0.5 s
        let level = match k {
            0 => Some(0),
            1 => Some(3),
            4 => Some(0),
            _ => None,
        };
        if let Some(level) = level {
            obs.push_diagnostic(DiagnosticSample {
                t_s: t,
                name: "ekf: gnss".into(),
                level,
            });
        }
        set.step(t, &obs, &tl).unwrap();
    }
    let r = set.finish(2.0, &tl);
    assert!(r[0].satisfied, "STALE is not ERROR: {:?}", r[0]);
    assert!(r[1].satisfied, "STALE is not WARN: {:?}", r[1]);
    assert_eq!(
        (r[2].satisfied, r[2].decided_at_s),
        (false, 0.125),
        "at_least: STALE meets STALE"
    );
    assert!(!r[3].satisfied, "STALE is not at most OK: {:?}", r[3]);
    assert_eq!(r[3].decided_at_s, 0.125);
    // STALE as an upper bound is refused at load
    let bad = "- name: a\n  never: { predicate: { diagnostic: { name: x, at_most: STALE } } }\n";
    let e = check(bad, &[]).unwrap_err();
    assert_eq!(e.field, "[0].never.predicate.diagnostic.at_most", "{e}");
}

#[test]
fn diag_level_orders_severities_and_keeps_stale_apart() {
    use DiagLevel::*;
    assert!(Error.at_least_met_by(2) && !Error.at_least_met_by(3));
    assert!(Warn.at_least_met_by(1) && Warn.at_least_met_by(2) && !Warn.at_least_met_by(3));
    assert!(Stale.at_least_met_by(3) && !Stale.at_least_met_by(2));
    assert!(Ok.at_most_met_by(0) && !Ok.at_most_met_by(3) && !Ok.at_most_met_by(1));
    assert!(Error.at_most_met_by(2) && !Error.at_most_met_by(3));
    assert!(!Stale.at_most_met_by(3));
    assert_eq!(DiagLevel::severity(4), None);
}
