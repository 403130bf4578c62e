//! The synthetic corpora of the report's tests: a 2 × 2 grid of the
//! corridor study × 5 repeats, 7 nominal runs and one canary; and two
//! resilience tests with hand-made timelines and expectation results.

use std::collections::BTreeMap;
use std::path::Path;

use breakbench_oracle::expect::{
    ClassifiedVerdict, ExpectationResult, FaultEvent, MarginUnit, Role, RunJudgement, Stamp,
    TestInfo, Timeline, VerdictClass, ViolationSample,
};
use breakbench_oracle::{PredicateResult, Verdict};
use kraken_interfaces::SelfReport;

use crate::manifest::{
    FaultRecord, IsolationRecord, Manifest, Provenance, RunKind, MANIFEST_SCHEMA,
};
use crate::resilience_summary::FALSE_ALARM_SUFFIX;
use crate::scenario::Scenario;

pub(super) fn scenario() -> Scenario {
    let mut s = Scenario::load(Path::new(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/scenarios/corridor_study.yaml"
    )))
    .unwrap();
    // A 2 × 2 grid keeps the synthetic corpus small.
    s.file.axes[0].values = vec![0.0, 0.8];
    s.file.axes[1].values = vec![0.0, 0.4];
    s.file.nominal.runs = 7;
    s
}

pub(super) fn pred(holds: bool, value: f64) -> PredicateResult {
    PredicateResult {
        holds,
        decided_at_s: 10.0,
        value,
    }
}

pub(super) fn manifest(
    run_id: &str,
    kind: RunKind,
    cell: &[(&str, f64)],
    safety_ok: bool,
    mission_ok: bool,
) -> Manifest {
    let cell: BTreeMap<String, f64> = cell.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let faults = cell
        .iter()
        .map(|(axis, v)| FaultRecord {
            axis: axis.clone(),
            channel: "x".into(),
            mode: "x".into(),
            parameter: "x".into(),
            requested: *v,
            axis_value: *v,
            delivered_metric: "x".into(),
            // odom_bias offset is 1 → delivered ratio 1 + v; latency offset 0.
            delivered: Some(if axis == "odom_bias" { 1.0 + v } else { *v }),
            messages_in: 1,
            messages_out: 1,
            first_applied_s: Some(0.0),
            cleared_s: None,
        })
        .collect();
    let verdict = Verdict {
        operating_region_containment: pred(true, 0.5),
        obstacle_clearance: pred(safety_ok, if safety_ok { 0.4 } else { -0.05 }),
        mission_completion_true_pose: pred(mission_ok, if mission_ok { 20.0 } else { -1.0 }),
    };
    Manifest {
        schema: MANIFEST_SCHEMA.into(),
        run_id: run_id.into(),
        kind,
        harness_only: kind == RunKind::Canary,
        scenario_name: "t".into(),
        scenario_hash: "h".into(),
        seed: 1,
        provenance: Provenance {
            git_commit: "c".into(),
            git_dirty: false,
            crate_versions: BTreeMap::new(),
        },
        cell,
        faults,
        self_report: if kind == RunKind::Canary {
            SelfReport::None
        } else {
            SelfReport::Success
        },
        self_report_at_s: Some(20.0),
        judgement: breakbench_oracle::expect::RunJudgement::from_invariants(&verdict),
        verdict,
        contacts: vec![],
        final_goal_distance_m: if mission_ok { 0.1 } else { 2.5 },
        margins: BTreeMap::new(),
        isolation: Some(IsolationRecord { passed: true }),
        trace_file: format!("traces/{run_id}.csv"),
        trace_sha256: String::new(),
        provenance_sha256: None,
        recording_sha256: None,
        recording_mode: None,
        sim_time_s: 60.0,
        wall_time_s: 0.0,
        graph: None,
        detection: None,
    }
}

/// 2 × 2 grid × 5 repeats: mission fails in every run at odom_bias 0.4
/// and in none at 0; safety never violated. 7 nominal runs (all fine),
/// one canary (clearance violated, no self-report).
pub(super) fn corpus() -> Vec<Manifest> {
    let mut ms = Vec::new();
    for lat in [0.0, 0.8] {
        for bias in [0.0, 0.4] {
            for r in 0..5 {
                let id = format!("grid_{lat}_{bias}_r{r}");
                ms.push(manifest(
                    &id,
                    RunKind::Grid,
                    &[("latency_s", lat), ("odom_bias", bias)],
                    true,
                    bias == 0.0,
                ));
            }
        }
    }
    for i in 0..7 {
        ms.push(manifest(
            &format!("nominal_{i:03}"),
            RunKind::Nominal,
            &[("latency_s", 0.0), ("odom_bias", 0.0)],
            true,
            true,
        ));
    }
    ms.push(manifest("canary_000", RunKind::Canary, &[], false, false));
    ms
}

/// The scan-loss resilience test with a second copy of its test, named
/// `a<b&c` with requirement `REQ-<X>&"Y"` (the report must escape both).
pub(super) fn test_scenario() -> Scenario {
    let mut s = Scenario::load(Path::new(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/scenarios/tests/scan_loss_at_obstacle.yaml"
    )))
    .unwrap();
    let mut b = s.file.tests[0].clone();
    b.name = "a<b&c".into();
    b.requirement = "REQ-<X>&\"Y\"".into();
    s.file.tests.push(b);
    s
}

/// An expectation result decided at `decided_at_s`, anchored at `anchor_s`.
fn result(
    name: &str,
    role: Option<Role>,
    satisfied: bool,
    anchor_s: Option<f64>,
    decided_at_s: f64,
) -> ExpectationResult {
    ExpectationResult {
        name: name.into(),
        kind: if name.ends_with(FALSE_ALARM_SUFFIX) {
            "never"
        } else {
            "within"
        }
        .into(),
        role,
        satisfied,
        decided_at_s,
        margin: 0.0,
        margin_unit: MarginUnit::Seconds,
        first_violation: (!satisfied).then_some(ViolationSample {
            t_s: decided_at_s,
            value: 0.0,
        }),
        reason: "hand-made".into(),
        anchor_s,
        anchor_fault: anchor_s.map(|_| "scan_loss".into()),
        undecidable: None,
    }
}

/// A run of test `test`: a fault run (scan_loss triggered at 14.9 s,
/// applied at 15 s, cleared at 18 s; 60 s of sim time) or a baseline.
fn resilience_run(
    run_id: &str,
    test: &str,
    requirement: &str,
    baseline: bool,
    class: VerdictClass,
    results: Vec<ExpectationResult>,
) -> Manifest {
    let kind = if baseline {
        RunKind::Baseline
    } else {
        RunKind::Test
    };
    let mut m = manifest(run_id, kind, &[], true, true);
    m.harness_only = false;
    let names: &[&str] = if baseline { &[] } else { &["scan_loss"] };
    let mut tl = Timeline::new(names);
    if !baseline {
        let at = |sim_s: f64| Stamp {
            sim_s,
            host_s: Some(sim_s / 1000.0),
        };
        tl.note("scan_loss", FaultEvent::Trigger, at(14.9));
        tl.note("scan_loss", FaultEvent::Requested, at(14.9));
        tl.note("scan_loss", FaultEvent::Applied, at(15.0));
        tl.note("scan_loss", FaultEvent::Cleared, at(18.0));
    }
    let judged: Vec<ExpectationResult> = results
        .iter()
        .filter(|r| !r.name.ends_with(FALSE_ALARM_SUFFIX))
        .cloned()
        .collect();
    tl.record_expectations(&judged);
    m.judgement = RunJudgement {
        verdict_class: ClassifiedVerdict {
            class,
            reason: format!("hand-made {}", class.name()),
        },
        test: Some(TestInfo {
            test: test.into(),
            requirement: requirement.into(),
            hazard: "HAZ-COLLISION-OBSTACLE".into(),
            baseline,
        }),
        timeline: Some(tl),
        expectations: results,
    };
    m
}

/// Two tests of [`test_scenario`]. `scan_loss_at_obstacle`: one fault run,
/// pass (stops 0.6 s, diagnostics 0.2 s after applied, resumes 0.14 s after
/// the clear), one baseline without a false alarm. `a<b&c`: a fail (stops
/// violated at its 16 s deadline), an invalid run (not counted), and two
/// baselines, the first with a false alarm of `diagnostics_error`.
pub(super) fn test_manifests() -> Vec<Manifest> {
    let (a, b) = ("scan_loss_at_obstacle", "a<b&c");
    let (ra, rb) = ("REQ-NAV-STALE-SENSOR", "REQ-<X>&\"Y\"");
    let d = Some(Role::Detection);
    let probe = format!("diagnostics_error{FALSE_ALARM_SUFFIX}");
    let fault_results = |stops: (bool, f64), diag: f64, resumes: f64| {
        vec![
            result("stops", Some(Role::Reaction), stops.0, Some(15.0), stops.1),
            result("diagnostics_error", d, true, Some(15.0), diag),
            result("resumes", Some(Role::Recovery), true, Some(18.0), resumes),
        ]
    };
    let base = |fired: bool| vec![result(&probe, None, !fired, None, 30.0)];
    vec![
        resilience_run(
            &format!("test_{a}_r0"),
            a,
            ra,
            false,
            VerdictClass::Pass,
            fault_results((true, 15.6), 15.2, 18.14),
        ),
        resilience_run(
            &format!("baseline_{a}_r0"),
            a,
            ra,
            true,
            VerdictClass::Pass,
            base(false),
        ),
        resilience_run(
            &format!("test_{b}_r0"),
            b,
            rb,
            false,
            VerdictClass::Fail,
            fault_results((false, 16.0), 15.3, 18.2),
        ),
        resilience_run(
            &format!("test_{b}_r1"),
            b,
            rb,
            false,
            VerdictClass::Invalid,
            fault_results((true, 15.5), 15.1, 18.1),
        ),
        resilience_run(
            &format!("baseline_{b}_r0"),
            b,
            rb,
            true,
            VerdictClass::Pass,
            base(true),
        ),
        resilience_run(
            &format!("baseline_{b}_r1"),
            b,
            rb,
            true,
            VerdictClass::Pass,
            base(false),
        ),
    ]
}
