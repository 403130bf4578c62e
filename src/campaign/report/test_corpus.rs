//! The synthetic corpus of the report's tests: a 2 × 2 grid of the corridor
//! study × 5 repeats, 7 nominal runs and one canary.

use std::collections::BTreeMap;
use std::path::Path;

use breakbench_oracle::{PredicateResult, Verdict};
use kraken_interfaces::SelfReport;

use crate::campaign::manifest::{
    FaultRecord, IsolationRecord, Manifest, Provenance, RunKind, MANIFEST_SCHEMA,
};
use crate::campaign::scenario::Scenario;

pub(super) fn scenario() -> Scenario {
    let mut s = Scenario::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
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
        isolation: Some(IsolationRecord { passed: true }),
        trace_file: format!("traces/{run_id}.csv"),
        trace_sha256: String::new(),
        sim_time_s: 60.0,
        wall_time_s: 0.0,
        graph: None,
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
