//! Resilience tests on the ROS 2 graph (issue 8, "On the graph"): the three
//! shipped tests (scan_loss_at_obstacle, odom_lost_safe_stop,
//! scan_timestamp_jump; `tests/graph/resilience_tests.yaml`, 1 repeat) run
//! with their baselines in-process and on the corridor graph
//! (`launch/corridor.graph.yaml` + `breakbench_orchestrator`, lock-step,
//! gated) through the campaign's two executors, and must give the same
//! verdict class per run and each expectation's decision time within one
//! control period (0.05 s); the differences are printed. The negative R4
//! variant (`tests/graph/odom_lost_negative.yaml`) must `fail` on the graph.
//!
//! The test re-runs itself inside the loopback-only network namespace
//! (`common::rerun_in_netns`); its graphs use
//! `ROS_DOMAIN_ID` 180. It builds the node binaries it needs.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use breakbench::campaign::executor::Executor;
use breakbench::campaign::graph::{GraphExecutor, GraphOptions, GraphSource};
use breakbench::campaign::manifest::{Manifest, RunKind};
use breakbench::campaign::plan::plan;
use breakbench::campaign::run::{execute, RunSpec};
use breakbench::campaign::Scenario;
use breakbench_oracle::expect::VerdictClass;
use common::{rerun_in_netns, root, tmp};

/// One lock-step control period (navigator control_rate_hz 20), s.
const PERIOD_S: f64 = 0.05;

fn executor(work: &Path) -> GraphExecutor {
    GraphExecutor::new(GraphOptions {
        source: GraphSource::Launch {
            config: root().join("launch/corridor.graph.yaml"),
            share_dir: None,
            sets: Vec::new(),
        },
        domain_base: 180,
        jobs: 1,
        ready_timeout: Duration::from_secs(30),
        run_timeout: Duration::from_secs(600),
        min_rtf: None,
        work_dir: work.to_path_buf(),
        recording: None,
    })
    .unwrap()
}

/// The test and baseline runs of `s`, baselines first.
fn test_runs(s: &Scenario) -> Vec<RunSpec> {
    let mut v: Vec<RunSpec> = plan(s)
        .into_iter()
        .filter(|r| matches!(r.kind, RunKind::Test | RunKind::Baseline))
        .collect();
    v.sort_by_key(|r| (r.kind != RunKind::Baseline, r.run_id.clone()));
    v
}

fn graph_manifest(g: &GraphExecutor, s: &Scenario, spec: &RunSpec) -> Manifest {
    let t0 = Instant::now();
    let m = g
        .execute(s, spec, &breakbench::campaign::runner::provenance())
        .unwrap()
        .manifest;
    let rec = m.graph.as_ref().expect("graph record");
    eprintln!(
        "{}: graph run {:.1} s wall, rtf {:.2}, state {} {}",
        spec.run_id,
        t0.elapsed().as_secs_f64(),
        rec.rtf_achieved,
        rec.state_reached,
        rec.invalid_reason.as_deref().unwrap_or("")
    );
    m
}

#[test]
fn shipped_tests_give_the_in_process_verdicts_and_latencies_on_the_graph() {
    if rerun_in_netns("shipped_tests_give_the_in_process_verdicts_and_latencies_on_the_graph") {
        return;
    }
    let s = Scenario::load(&root().join("tests/graph/resilience_tests.yaml")).unwrap();
    let g = executor(&tmp("tests_work"));
    g.supports(&s).unwrap();
    let prov = breakbench::campaign::runner::provenance();
    let runs = test_runs(&s);
    assert_eq!(runs.len(), 6, "3 tests x (baseline + fault run)");
    let mut failures = Vec::new();
    for spec in &runs {
        let p = execute(&s, spec, &prov).unwrap().manifest;
        let gm = graph_manifest(&g, &s, spec);
        let (pc, gc) = (&p.judgement.verdict_class, &gm.judgement.verdict_class);
        println!(
            "{}: in-process {:?} ({}), graph {:?} ({})",
            spec.run_id, pc.class, pc.reason, gc.class, gc.reason
        );
        assert_eq!(gm.kind, spec.kind);
        if pc.class != gc.class {
            failures.push(format!(
                "{}: verdict class {:?} in-process, {:?} on the graph ({})",
                spec.run_id, pc.class, gc.class, gc.reason
            ));
        }
        // Fault events on both clocks' sim side.
        if let (Some(pt), Some(gt)) = (&p.judgement.timeline, &gm.judgement.timeline) {
            println!(
                "  timeline in-process {}",
                serde_json::to_string(pt).unwrap()
            );
            println!(
                "  timeline graph      {}",
                serde_json::to_string(gt).unwrap()
            );
        }
        for pe in &p.judgement.expectations {
            let Some(ge) = gm.judgement.expectations.iter().find(|e| e.name == pe.name) else {
                failures.push(format!("{}: {} missing on the graph", spec.run_id, pe.name));
                continue;
            };
            let d = ge.decided_at_s - pe.decided_at_s;
            println!(
                "  {:<28} satisfied {} / {}  decided {:8.3} / {:8.3} s  diff {:+.3} s  latency {:?} / {:?}",
                pe.name,
                pe.satisfied,
                ge.satisfied,
                pe.decided_at_s,
                ge.decided_at_s,
                d,
                pe.latency_s(),
                ge.latency_s()
            );
            if pe.satisfied != ge.satisfied {
                failures.push(format!(
                    "{}: {} satisfied {} in-process, {} on the graph",
                    spec.run_id, pe.name, pe.satisfied, ge.satisfied
                ));
            }
            if d.abs() > PERIOD_S + 1e-9 {
                failures.push(format!(
                    "{}: {} decided at {:.3} s in-process, {:.3} s on the graph (more than one control period apart)",
                    spec.run_id, pe.name, pe.decided_at_s, ge.decided_at_s
                ));
            }
            if let (Some(a), Some(b)) = (pe.latency_s(), ge.latency_s()) {
                if (a - b).abs() > PERIOD_S + 1e-9 {
                    failures.push(format!(
                        "{}: {} latency {a:.3} s in-process, {b:.3} s on the graph",
                        spec.run_id, pe.name
                    ));
                }
            }
        }
        if spec.kind == RunKind::Test {
            // Confirmed applied from the injector's status.
            assert!(
                gm.faults.iter().all(|f| f.first_applied_s.is_some()),
                "{}: {:?}",
                spec.run_id,
                gm.faults
            );
            assert!(!gm.faults.is_empty(), "{}: no fault record", spec.run_id);
        }
    }
    assert!(
        failures.is_empty(),
        "graph vs in-process:\n{}",
        failures.join("\n")
    );
}

#[test]
fn negative_r4_variant_fails_on_the_graph() {
    if rerun_in_netns("negative_r4_variant_fails_on_the_graph") {
        return;
    }
    let s = Scenario::load(&root().join("tests/graph/odom_lost_negative.yaml")).unwrap();
    let g = executor(&tmp("negative_work"));
    let runs = test_runs(&s);
    let fault = runs.iter().find(|r| r.kind == RunKind::Test).unwrap();
    // The executor runs the paired baseline itself first.
    let m = graph_manifest(&g, &s, fault);
    println!(
        "{}: {:?} ({})",
        fault.run_id, m.judgement.verdict_class.class, m.judgement.verdict_class.reason
    );
    assert_eq!(m.judgement.verdict_class.class, VerdictClass::Fail);
    let e = m
        .judgement
        .expectations
        .iter()
        .find(|e| e.name == "safe_stop_at_grace_window")
        .unwrap();
    assert!(!e.satisfied, "{e:?}");
}
