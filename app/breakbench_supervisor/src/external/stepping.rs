//! `stepping: step_simulation` (REQ-SIMIF-STEP, REQ-SIMIF-TRUTH): the
//! campaign owns sim time. After arming, the stepper (`breakbench_ready
//! --simif-step`, a ROS 2 helper on the run's domain) sets the simulator
//! PAUSED, then advances it by StepSimulation in the in-process lock-step
//! schedule ([`StepSchedule`]), waiting after each control instant for the
//! stack's one command on the simulator's command topic, and (ground truth
//! `get_entity_state`) publishing GetEntityState as `/oracle/odom` after
//! each ground-truth step. It runs until the run's verdict line, then is
//! killed (also on a kept-running stack, before the next run's reset).

use std::time::Duration;

use super::simulator::{GroundTruth, SimulatorConfig, StepSchedule};
use super::{scan, ReadinessCheck};
use crate::supervise::{check_running, Fail, Supervisor};
use crate::{VerdictLine, EXIT_ERROR};

/// The stepper's arguments for `sim` on schedule `s` (from sim time 0).
pub(super) fn stepper_args(sim: &SimulatorConfig, s: &StepSchedule) -> Vec<String> {
    let mut a = vec![
        "--simif-step".to_string(),
        sim.service_prefix.clone(),
        "--step-ns".into(),
        s.step_ns.to_string(),
        "--control-ns".into(),
        s.control_ns.to_string(),
        "--command-topic".into(),
        sim.command_topic.clone(),
    ];
    if let (GroundTruth::GetEntityState, Some(t)) = (sim.ground_truth, s.truth_ns) {
        a.extend([
            "--truth-entity".into(),
            sim.entity.clone(),
            "--truth-ns".into(),
            t.to_string(),
        ]);
    }
    a
}

/// State `observe` of a stepped run: runs the stepper until the run's
/// verdict line and kills it; the verdict.
///
/// # Errors
/// The stepper failed (its `not ready: ...` line: a StepSimulation not
/// answered RESULT_OK, no command within the ready deadline), the stack
/// exited without a verdict, the run deadline passed.
pub(super) fn drive(
    sup: &mut Supervisor,
    ready: &ReadinessCheck,
    sim: &SimulatorConfig,
    schedule: &StepSchedule,
) -> Result<VerdictLine, Fail> {
    let r = ready.r;
    let mut a = stepper_args(sim, schedule);
    a.extend([
        "--timeout-s".to_string(),
        format!("{}", r.ready_timeout.as_secs_f64()),
    ]);
    let idx = sup
        .spawn("stepper", &r.exes.ready, &a, ready.env)
        .map_err(|e| (EXIT_ERROR, e.to_string()))?;
    sup.procs[idx].one_shot = true;
    let result = observe(sup, ready, idx);
    sup.kill_one(idx);
    result
}

/// Pumps until the run's verdict line, the stepper's or the stack's exit,
/// or the run deadline.
fn observe(sup: &mut Supervisor, ready: &ReadinessCheck, idx: usize) -> Result<VerdictLine, Fail> {
    let run_id = ready.r.vars.run_id.as_str();
    let mut verdict = None;
    loop {
        scan(&sup.pump(Duration::from_millis(50)), run_id, &mut verdict);
        if let Some(v) = verdict.take() {
            return Ok(v);
        }
        let stack = sup.procs[ready.stack].exited;
        let stepper = sup.procs[idx].exited;
        if stack.is_some() || stepper.is_some() {
            // The verdict may still be in the pipe.
            scan(&sup.pump(Duration::from_millis(300)), run_id, &mut verdict);
            if let Some(v) = verdict.take() {
                return Ok(v);
            }
            if let Some(s) = stack {
                sup.report_tail(ready.stack);
                return Err((
                    EXIT_ERROR,
                    format!("the stack exited ({s}) without an oracle verdict line"),
                ));
            }
            let why = sup.procs[idx]
                .tail
                .iter()
                .rev()
                .find_map(|l| l.split_once("not ready: ").map(|(_, w)| w.to_string()))
                .unwrap_or_else(|| format!("the stepper exited ({stepper:?})"));
            sup.report_tail(idx);
            return Err((EXIT_ERROR, format!("stepping: {why}")));
        }
        check_running(sup, ready.t0, ready.r.timeout, Some(ready.stack))?;
    }
}
