//! The kept-running stack of a job slot (`--keep-running`, REQ-GRAPH-RESET):
//! started once, reset between runs, stopped after a failed run and on drop.

use super::{
    kill_marked, readiness_to_verdict, run_reset_cmd, stack_env, ExternalRun, ReadinessCheck,
};
use crate::supervise::{catch_signals, check_running, Fail, Supervisor};
use crate::{Stage, SupervisorError, UpOutcome, VerdictLine, EXIT_ERROR};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// The kept-running stack of one job slot (`--keep-running`, see the module
/// docs): started by the first [`run_kept`] on the slot, stopped after a
/// failed run, by [`Self::stop`] and on drop.
#[derive(Default)]
pub struct KeptStack {
    /// The supervisor owning the stack (child 0) and each run's helpers,
    /// the stack's marker token, and its keeper thread.
    sup: Option<(Supervisor, String, Keeper)>,
    /// How many times the stack command was started on this slot.
    pub starts: usize,
}

/// The thread that started a kept stack, alive until the stack is stopped.
/// Every child gets SIGKILL when the *thread* that forked it ends
/// (`PR_SET_PDEATHSIG`, so that nothing outlives a killed campaign); a
/// campaign's worker thread ends before the campaign stops its kept stacks,
/// so the stack is forked by a thread of its own.
struct Keeper {
    hold: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Keeper {
    /// Starts `argv` as child `stack` of `sup` from a keeper thread.
    fn spawn(
        sup: Supervisor,
        argv: Vec<String>,
        env: BTreeMap<String, String>,
    ) -> (Supervisor, Result<usize, SupervisorError>, Keeper) {
        let (tx, rx) = std::sync::mpsc::channel();
        let (hold, held) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let mut sup = sup;
            let r = sup.spawn("stack", Path::new(&argv[0]), &argv[1..], &env);
            let _ = tx.send((sup, r));
            // Until the stack was stopped (the sender is dropped).
            let _ = held.recv();
        });
        let (sup, r) = rx.recv().expect("the keeper thread sends before it waits");
        (
            sup,
            r,
            Keeper {
                hold: Some(hold),
                thread: Some(thread),
            },
        )
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.hold.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl KeptStack {
    /// Stops the stack (SIGINT, SIGTERM, SIGKILL to its process group, as a
    /// per-run stack), then kills every process still carrying its marker:
    /// what was left (`name pid`), empty when nothing was running.
    pub fn stop(&mut self) -> Vec<String> {
        let Some((mut sup, token, keeper)) = self.sup.take() else {
            return Vec::new();
        };
        sup.shutdown();
        drop(keeper);
        if std::env::var_os("BB_DEBUG_KEPT").is_some() {
            sup.report_tail(0);
        }
        let mut left = sup.leftover();
        left.extend(kill_marked(&token));
        left
    }
}

impl Drop for KeptStack {
    fn drop(&mut self) {
        let left = self.stop();
        if !left.is_empty() {
            eprintln!(
                "[up] processes left after the kept-running stack's shutdown: {}",
                left.join(", ")
            );
        }
    }
}

/// One run on the slot's kept-running stack `kept` (started first when it
/// is not running), states `reset` to `collect` (see the module docs). A
/// failed run stops the stack; its leftovers are the outcome's.
///
/// # Errors
/// None once the inputs were checked; failures are in the [`UpOutcome`] as
/// for [`run`].
pub fn run_kept(r: &ExternalRun, kept: &mut KeptStack) -> UpOutcome {
    catch_signals();
    let t0 = Instant::now();
    // A stack that exited between runs (e.g. an oracle without
    // `keep_running`, which ends `ros2 launch` after its verdict) is started
    // again for this run, with a warning: the run has not begun.
    let mut exited_between = Vec::new();
    if let Some((sup, _, _)) = kept.sup.as_mut() {
        sup.pump(Duration::ZERO);
        if let Some(s) = sup.procs[0].exited {
            eprintln!(
                "[up] the kept-running stack on ROS_DOMAIN_ID {} exited ({s}) between runs; starting it again for run {} (does it stay up after a verdict? our corridor.launch.py needs keep_running:=true)",
                r.vars.domain_id, r.vars.run_id
            );
            exited_between = kept.stop();
        }
    }
    let token = match &kept.sup {
        Some((_, token, _)) => token.clone(),
        None => format!(
            "{}-{}-kept{}",
            std::process::id(),
            r.vars.domain_id,
            kept.starts
        ),
    };
    let env = stack_env(r.vars.domain_id, &token);
    if kept.sup.is_none() {
        let sup = Supervisor::new(r.quiet, r.ready_timeout, true);
        kept.starts += 1;
        let (sup, spawned, keeper) =
            Keeper::spawn(sup, r.stack.command.expand(&r.vars), env.clone());
        if let Err(e) = spawned {
            drop((sup, keeper));
            return UpOutcome {
                exit_code: EXIT_ERROR,
                verdict: None,
                error: Some(e.to_string()),
                wall_s: t0.elapsed().as_secs_f64(),
                stage: Stage::Start,
                leftover: exited_between
                    .into_iter()
                    .chain(kill_marked(&token))
                    .collect(),
            };
        }
        kept.sup = Some((sup, token, keeper));
    }
    let (sup, _, _) = kept.sup.as_mut().expect("started above");
    let result = reset_to_verdict(sup, r, &env, t0).map_err(|e| (e, sup.stage));
    // A broken stack must not poison the next run: stopped, and the next
    // run starts a fresh one.
    let mut leftover = exited_between;
    if result.is_err() {
        leftover.extend(kept.stop());
    }
    let wall_s = t0.elapsed().as_secs_f64();
    match result {
        Ok(v) => UpOutcome {
            exit_code: if v.safety_violation || v.mission_failure {
                crate::EXIT_VERDICT_FAIL
            } else {
                crate::EXIT_PASS
            },
            verdict: Some(v),
            error: None,
            wall_s,
            stage: Stage::Collect,
            leftover,
        },
        Err(((code, e), stage)) => UpOutcome {
            exit_code: code,
            verdict: None,
            error: Some(e),
            wall_s,
            stage,
            leftover,
        },
    }
}

/// States `reset` to `collect` of one run on a running kept stack (child 0
/// of `sup`).
fn reset_to_verdict(
    sup: &mut Supervisor,
    r: &ExternalRun,
    env: &BTreeMap<String, String>,
    t0: Instant,
) -> Result<VerdictLine, Fail> {
    const STACK: usize = 0;
    sup.stage = Stage::Reset;
    check_running(sup, t0, r.timeout, None)?;
    if let Some(sim) = &r.stack.simulator {
        // The reset rule `simulation_interfaces`: the simulator first.
        let a = vec!["--simif-reset".to_string(), sim.service_prefix.clone()];
        let ready = ReadinessCheck {
            r,
            env,
            t0,
            stack: STACK,
        };
        ready.call(sup, a, &mut None)?;
    }
    if !r.stack.reset_services.is_empty() {
        let mut a: Vec<String> = r
            .stack
            .reset_services
            .iter()
            .flat_map(|s| ["--call-reset".to_string(), s.clone()])
            .collect();
        a.extend([
            "--seed".to_string(),
            r.vars.seed.to_string(),
            "--run-id".to_string(),
            r.vars.run_id.clone(),
            "--out".to_string(),
            r.vars.out.display().to_string(),
        ]);
        let ready = ReadinessCheck {
            r,
            env,
            t0,
            stack: STACK,
        };
        ready.call(sup, a, &mut None)?;
    }
    if let Some(t) = &r.stack.reset {
        run_reset_cmd(sup, t, &r.vars, env, r.ready_timeout).map_err(|e| (EXIT_ERROR, e))?;
    }
    readiness_to_verdict(sup, r, env, STACK, t0)
}
