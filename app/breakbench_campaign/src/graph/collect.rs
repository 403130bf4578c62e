//! What a finished graph left: the oracle's manifest and trace, checked
//! against the plan, or the manifest of an invalid run.

use super::Collected;
use crate::manifest::{GraphRecord, Manifest, Provenance, RunKind, MANIFEST_SCHEMA};
use crate::run::RunSpec;
use crate::trace::trace_file;
use crate::Scenario;
use breakbench_oracle::expect::record::RunJudgement;
use breakbench_oracle::expect::{ClassifiedVerdict, VerdictClass};
use breakbench_oracle::{PredicateResult, Verdict};
use breakbench_supervisor as supervisor;
use std::path::Path;

/// The orchestrator's output file: the run's judgement and fault records.
#[derive(serde::Deserialize)]
pub(super) struct Judged {
    judgement: RunJudgement,
    faults: Vec<crate::manifest::FaultRecord>,
}

/// Reads the oracle's manifest and trace of a finished graph and checks the
/// faults against the plan (see the module docs, states `arm` and `reset`).
pub(super) fn collect(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &Provenance,
    o: &supervisor::UpOutcome,
    judgement: Option<&Path>,
) -> Collected {
    let Some(v) = &o.verdict else {
        let why = o.error.clone().unwrap_or_else(|| "no verdict".into());
        return Err((o.stage.name(), why));
    };
    let bad = |why: String| ("collect", why);
    let text = std::fs::read_to_string(&v.manifest)
        .map_err(|e| bad(format!("{}: {e}", v.manifest.display())))?;
    let mut m: Manifest =
        serde_json::from_str(&text).map_err(|e| bad(format!("{}: {e}", v.manifest.display())))?;
    let dir = v
        .manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let tpath = dir.join(&m.trace_file);
    let trace =
        std::fs::read_to_string(&tpath).map_err(|e| bad(format!("{}: {e}", tpath.display())))?;
    if v.safety_violation != m.verdict.safety_violation()
        || v.mission_failure != m.verdict.mission_failure()
    {
        return Err(bad(format!(
            "the oracle's verdict line ({v}) disagrees with its manifest {}",
            v.manifest.display()
        )));
    }
    // Arm: every axis' fault reported applied by the injector's status, as
    // requested; nothing else.
    let mut faults = Vec::new();
    if spec.kind == RunKind::Grid {
        for axis in &scenario.file.axes {
            let requested = axis.offset + spec.faults[&axis.name];
            let found = m.faults.iter().find(|f| {
                f.channel == axis.channel
                    && f.mode == axis.mode
                    && f.first_applied_s.is_some()
                    && (f.requested - requested).abs() <= 1e-9 * requested.abs().max(1.0)
            });
            let Some(f) = found else {
                return Err((
                    "arm",
                    format!(
                        "fault {} {} {}={requested} (axis {}) not reported applied by /fault_injector/status (the oracle recorded {:?})",
                        axis.channel, axis.mode, axis.parameter, axis.name,
                        m.faults.iter().map(|f| format!("{} {} {}", f.channel, f.mode, f.requested)).collect::<Vec<_>>()
                    ),
                ));
            };
            let mut f = f.clone();
            f.axis = axis.name.clone();
            f.axis_value = spec.faults[&axis.name];
            faults.push(f);
        }
    }
    if let Some(jpath) = judgement {
        // A resilience test: the orchestrator's judgement and fault records;
        // the oracle's record of the injector's status must show the same
        // faults applied (by channel), and none on a baseline.
        let text = std::fs::read_to_string(jpath).map_err(|e| {
            bad(format!(
                "the orchestrator wrote no judgement ({}: {e})",
                jpath.display()
            ))
        })?;
        let j: Judged =
            serde_json::from_str(&text).map_err(|e| bad(format!("{}: {e}", jpath.display())))?;
        let applied = |fs: &[crate::manifest::FaultRecord]| -> Vec<String> {
            let mut v: Vec<String> = fs
                .iter()
                .filter(|f| f.first_applied_s.is_some())
                .map(|f| f.channel.clone())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        if applied(&m.faults) != applied(&j.faults) {
            return Err(bad(format!(
                "the oracle recorded faults applied on {:?} from /fault_injector/status, the orchestrator on {:?}",
                applied(&m.faults),
                applied(&j.faults)
            )));
        }
        faults = j.faults;
        m.judgement = j.judgement;
    } else if faults.len() != m.faults.len() {
        return Err((
            "reset",
            format!(
                "the injector's status reported {} fault(s) applied, the plan sets {}: a fault not cleared by the reset, or set by someone else",
                m.faults.len(),
                faults.len()
            ),
        ));
    }
    m.schema = MANIFEST_SCHEMA.into();
    m.run_id = spec.run_id.clone();
    m.kind = spec.kind;
    m.harness_only = spec.kind == RunKind::Canary;
    m.scenario_name = scenario.file.name.clone();
    m.scenario_hash = scenario.hash.clone();
    m.seed = spec.seed;
    m.provenance = provenance.clone();
    m.cell = spec.cell();
    if spec.kind == RunKind::Grid {
        // The graph sets every axis' fault at sim 0 (its step file, before the clock starts).
        let names: Vec<String> = faults.iter().map(|f| f.axis.clone()).collect();
        m.judgement.timeline = crate::run::grid_timeline(
            &names,
            &vec![0.0; names.len()],
            &vec![Some(0.0); names.len()],
            &faults,
        );
    }
    m.faults = faults;
    m.trace_file = trace_file(&spec.run_id);
    Ok((m, trace))
}

/// The manifest of an invalid run: no evidence, so a verdict that is no
/// judgement (every predicate `holds` at 0 s with value 0) and a final goal
/// distance of 0 m, neither a measurement and never read (the summary and
/// the harness checks skip invalid runs), and the graph record saying why.
pub(super) fn invalid_manifest(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &Provenance,
    record: GraphRecord,
) -> Manifest {
    let none = PredicateResult {
        holds: true,
        decided_at_s: 0.0,
        value: 0.0,
    };
    let judgement = RunJudgement {
        verdict_class: ClassifiedVerdict {
            class: VerdictClass::Invalid,
            reason: format!(
                "graph run stopped in state {}: {}",
                record.state_reached,
                record.invalid_reason.as_deref().unwrap_or("")
            ),
        },
        test: None,
        timeline: None,
        expectations: Vec::new(),
    };
    let verdict = Verdict {
        operating_region_containment: none,
        obstacle_clearance: none,
        mission_completion_true_pose: none,
    };
    Manifest {
        wall_time_s: record.wall_time_s,
        graph: Some(record),
        ..spec.manifest(scenario, provenance, judgement, verdict)
    }
}
