//! `stepping: step_simulation` and `ground_truth: get_entity_state`
//! (issue 29, REQ-SIMIF-STEP, REQ-SIMIF-TRUTH): the campaign owns the
//! simulator's time through the standard's StepSimulation.

use breakbench_oracle::verdict::Verdict;

use super::{external_parity_with, Stack};
use crate::common::tmp;

/// The simulator owned by the campaign (issue 29): `stepping:
/// step_simulation` (REQ-SIMIF-STEP), our bridge free-running
/// (`real_time_factor` 1, so it keeps no lock-step of its own) and launched
/// stopped, then PAUSED and advanced only by the campaign's StepSimulation
/// calls in the in-process lock-step schedule: the in-process verdicts, k,
/// and every invariant decided within one control period (0.05 s) of the
/// in-process time. Then the same with `ground_truth: get_entity_state`
/// (REQ-SIMIF-TRUTH) and the bridge's `/oracle/odom` off
/// (`publish_truth=false`): the oracle judges from the GetEntityState
/// answers the stepper publishes, with the same results.
#[test]
fn the_campaign_steps_the_simulator_through_step_simulation() {
    let dir = tmp("simstep_cfg");
    let base = "simulator: simulation_interfaces\nservice_prefix: /sim_bridge\nentity: robot\nstepping: step_simulation\n";
    let topic = dir.join("step_topic.yaml");
    std::fs::write(&topic, base).unwrap();
    let entity = dir.join("step_entity.yaml");
    std::fs::write(&entity, format!("{base}ground_truth: get_entity_state\n")).unwrap();
    let free = "--set sim_bridge.real_time_factor=1.0";
    let topic = topic.display().to_string();
    external_parity_with(
        "simstep",
        &["--simulator", &topic],
        "181",
        &Stack {
            sets: free,
            truth_topic_ready: true,
            decided_within_s: Some(0.05),
        },
    );
    let entity = entity.display().to_string();
    external_parity_with(
        "simtruth",
        &["--simulator", &entity],
        "184",
        &Stack {
            sets: &format!("{free} --set sim_bridge.publish_truth=false"),
            truth_topic_ready: false,
            decided_within_s: Some(0.05),
        },
    );
}

/// Pushes onto `diffs` each invariant of run `run_id` whose `holds`
/// differs between the external verdict `a` and the in-process `b`, or
/// whose `decided_at_s` differs by more than `tol` s.
pub fn decided_within(run_id: &str, a: &Verdict, b: &Verdict, tol: f64, diffs: &mut Vec<String>) {
    for (name, x, y) in [
        (
            "operating_region_containment",
            a.operating_region_containment,
            b.operating_region_containment,
        ),
        (
            "obstacle_clearance",
            a.obstacle_clearance,
            b.obstacle_clearance,
        ),
        (
            "mission_completion_true_pose",
            a.mission_completion_true_pose,
            b.mission_completion_true_pose,
        ),
    ] {
        eprintln!(
            "{:32} {name}: decided at {:.3} s external / {:.3} s in-process, holds {} / {}",
            run_id, x.decided_at_s, y.decided_at_s, x.holds, y.holds
        );
        if (x.decided_at_s - y.decided_at_s).abs() > tol || x.holds != y.holds {
            diffs.push(format!(
                "{} {name}: decided at {} s (holds {}) vs in-process {} s (holds {}), tolerance {tol} s",
                run_id, x.decided_at_s, x.holds, y.decided_at_s, y.holds
            ));
        }
    }
}
