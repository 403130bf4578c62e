//! `breakbench_ready --simif-step PREFIX ...`: the campaign's stepper of a
//! `stepping: step_simulation` simulator (issue 29, REQ-SIMIF-STEP,
//! REQ-SIMIF-TRUTH; `breakbench campaign --simulator`, docs/simulators.md).
//!
//! ```text
//! breakbench_ready --simif-step /prefix --step-ns N --control-ns N [--command-topic /cmd_vel]
//!                  [--truth-entity ENTITY --truth-ns N] [--timeout-s S]
//! ```
//!
//! After the other checks: subscribes the command topic (reliable, its type
//! from the discovered publisher) and waits until it matched a publisher;
//! with `--truth-entity`, advertises `/oracle/odom` and waits until it has a
//! subscriber (the oracle); sets `<prefix>/set_simulation_state` PAUSED
//! (RESULT_OK: the start; ALREADY_IN_TARGET_STATE is fine: a simulator
//! launched paused). Then, forever (the campaign kills it at the
//! run's verdict), the in-process lock-step schedule
//! ([`breakbench::supervisor::external::StepSchedule`]): `<prefix>/
//! step_simulation` up to the next instant (RESULT_OK); at a ground-truth
//! instant `<prefix>/get_entity_state` of the entity published as
//! nav_msgs/Odometry on `/oracle/odom` (header of the answer, child
//! `base_link`, pose as given, twist turned from the world frame the
//! standard gives into the body frame, zero covariances); at a control
//! instant, exactly one message on the command topic. Each wait is bounded
//! by `--timeout-s` (wall s); a miss or a result other than RESULT_OK is the
//! error (exit 1, `not ready: ...`).

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use breakbench::supervisor::external::StepSchedule;
use breakbench_ros::{
    qos, GetEntityStateSrv, Publisher, RosClient, RosNode, RosService, SetSimulationStateSrv,
    StepSimulationSrv, Subscription, Undecoded,
};
use kraken_interfaces::ros::{Odometry, PoseWithCovariance, Twist, TwistWithCovariance, Vector3};
use kraken_interfaces::simif::{
    EntityState, GetEntityStateRequest, SetSimulationStateRequest, SetSimulationStateResponse,
    SimResult, SimulationState, StepSimulationRequest,
};

use super::simif::{join, result_name};
use super::with_timeout;

/// Depth of the command subscription and of `/oracle/odom` (every sample
/// must arrive; a 60 s mission at 50 Hz is 3000).
const DEPTH: usize = 5000;

/// The `--simif-step` arguments.
#[derive(Debug, Clone)]
pub(super) struct StepArgs {
    pub prefix: String,
    pub step_ns: u64,
    pub control_ns: u64,
    pub command_topic: String,
    /// `(entity, truth period ns)`: ground truth through GetEntityState.
    pub truth: Option<(String, u64)>,
}

/// The stepper's ROS entities.
struct Io {
    step: (String, RosClient<StepSimulationSrv>),
    play: (String, RosClient<SetSimulationStateSrv>),
    entity: (String, RosClient<GetEntityStateSrv>),
    cmd: Subscription<Undecoded>,
    truth: Option<Publisher<Odometry>>,
}

/// Calls `client` (`name`) within `timeout`; the answer.
///
/// # Errors
/// Not answered in time, a failed call.
async fn call<S: RosService>(
    name: &str,
    client: &RosClient<S>,
    req: S::Request,
    timeout: Duration,
) -> Result<S::Response> {
    match with_timeout(timeout, client.call(req)).await {
        Some(Ok(r)) => Ok(r),
        Some(Err(e)) => bail!("{name}: call failed: {e}"),
        None => bail!("{name}: no answer within {:.1} s", timeout.as_secs_f64()),
    }
}

fn ok(what: &str, r: &SimResult) -> Result<()> {
    if r.result == SimResult::RESULT_OK {
        return Ok(());
    }
    bail!(
        "{what} answered result {} ({}): {:?}",
        r.result,
        result_name(r.result),
        r.error_message
    )
}

/// Polls `cond` every 20 ms until true; the error `what` after `timeout`.
fn wait_for(what: &str, timeout: Duration, cond: impl Fn() -> bool) -> Result<()> {
    let t0 = Instant::now();
    while !cond() {
        if t0.elapsed() > timeout {
            bail!("{what} within {:.1} s", timeout.as_secs_f64());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The ground truth of an entity state as the oracle's `/oracle/odom`.
fn odometry(st: &EntityState) -> Odometry {
    let (s, c) = st.pose.orientation.yaw().sin_cos();
    let l = &st.twist.linear;
    Odometry {
        header: st.header.clone(),
        child_frame_id: "base_link".into(),
        pose: PoseWithCovariance {
            pose: st.pose,
            covariance: [0.0; 36],
        },
        twist: TwistWithCovariance {
            twist: Twist {
                linear: Vector3 {
                    x: l.x * c + l.y * s,
                    y: -l.x * s + l.y * c,
                    z: l.z,
                },
                angular: st.twist.angular,
            },
            covariance: [0.0; 36],
        },
    }
}

/// The entities of `a` on `node`, matched (see the module docs).
///
/// # Errors
/// An entity cannot be created; no command publisher, no truth subscriber
/// or no simulator service within `timeout`.
fn setup(node: &mut RosNode, a: &StepArgs, timeout: Duration) -> Result<Io> {
    let n = |s: &str| join(&a.prefix, s);
    let step = (n("step_simulation"), node.client(&n("step_simulation"))?);
    let play = (
        n("set_simulation_state"),
        node.client(&n("set_simulation_state"))?,
    );
    let entity = (n("get_entity_state"), node.client(&n("get_entity_state"))?);
    let t = &a.command_topic;
    let what = format!("no publisher of a ROS 2 message type on {t}");
    wait_for(&what, timeout, || node.discovered_type(t).is_some())?;
    let ty = node.discovered_type(t).context("discovered above")?;
    let cmd = node.undecoded_subscription(t, &ty, qos::publish().depth(DEPTH))?;
    wait_for(&format!("{t}: no matched publisher"), timeout, || {
        node.has_publisher(&cmd)
    })?;
    let truth = match &a.truth {
        Some(_) => {
            let p = node.publisher::<Odometry>("/oracle/odom", qos::publish().depth(DEPTH))?;
            wait_for("/oracle/odom: no subscriber (the oracle)", timeout, || {
                node.has_subscriber(&p)
            })?;
            Some(p)
        }
        None => None,
    };
    wait_for(&format!("{}: service not found", step.0), timeout, || {
        node.service_ready(&step.1)
    })?;
    wait_for(&format!("{}: service not found", play.0), timeout, || {
        node.service_ready(&play.1)
    })?;
    if a.truth.is_some() {
        wait_for(&format!("{}: service not found", entity.0), timeout, || {
            node.service_ready(&entity.1)
        })?;
    }
    Ok(Io {
        step,
        play,
        entity,
        cmd,
        truth,
    })
}

/// Runs the stepper (see the module docs) until killed.
///
/// # Errors
/// As [`setup`]; a call not answered RESULT_OK; no command within
/// `timeout` after a control instant.
pub(super) fn drive(node: &mut RosNode, a: &StepArgs, timeout: Duration) -> Result<()> {
    let io = setup(node, a, timeout)?;
    let truth_ns = a.truth.as_ref().map(|(_, ns)| *ns);
    let mut schedule =
        StepSchedule::new(a.step_ns, a.control_ns, truth_ns).map_err(anyhow::Error::msg)?;
    smol::block_on(async {
        let req = SetSimulationStateRequest {
            state: SimulationState {
                state: SimulationState::STATE_PAUSED,
            },
        };
        let r = call(&io.play.0, &io.play.1, req, timeout).await?;
        // Already paused (Gazebo launched without `-r`): nothing stepped
        // while the faults were armed, which is what the start needs.
        if r.result.result != SetSimulationStateResponse::ALREADY_IN_TARGET_STATE {
            ok(&format!("{} PAUSED", io.play.0), &r.result)?;
        }
        println!(
            "ready: {} PAUSED; stepping by {} (step {} ns, control {} ns, ground truth {})",
            io.play.0,
            io.step.0,
            a.step_ns,
            a.control_ns,
            match &a.truth {
                Some((e, ns)) => format!("from {} of {e:?} every {ns} ns", io.entity.0),
                None => "from the stack's topic".into(),
            }
        );
        loop {
            let c = schedule.next_chunk();
            let req = StepSimulationRequest { steps: c.steps };
            let r = call(&io.step.0, &io.step.1, req, timeout).await?;
            ok(&format!("{} of {} steps", io.step.0, c.steps), &r.result)?;
            if let (true, Some((entity, _)), Some(p)) = (c.truth, &a.truth, &io.truth) {
                let req = GetEntityStateRequest {
                    entity: entity.clone(),
                };
                let r = call(&io.entity.0, &io.entity.1, req, timeout).await?;
                ok(&format!("{} of {entity:?}", io.entity.0), &r.result)?;
                p.publish(odometry(&r.state))
                    .context("/oracle/odom: not published")?;
            }
            if c.control && with_timeout(timeout, io.cmd.async_take()).await.is_none() {
                bail!(
                    "no command on {} within {:.1} s after sim time {:.3} s (does the stack publish one per control period?)",
                    a.command_topic,
                    timeout.as_secs_f64(),
                    c.end_ns as f64 * 1e-9
                );
            }
        }
    })
}
