//! The `simulation_interfaces` checks of `breakbench_ready` (issue 29,
//! REQ-SIMIF-DRIVE): the simulator's reset (`--simif-reset PREFIX`:
//! ResetSimulation SCOPE_DEFAULT), its robot entity (`--simif-entity
//! PREFIX ENTITY`: GetEntityState answers RESULT_OK) and its start
//! (`--simif-play PREFIX`: SetSimulationState PLAYING answers RESULT_OK).

use anyhow::{bail, Result};
use breakbench_ros::{
    GetEntityStateSrv, ResetSimulationSrv, RosClient, RosNode, RosService, SetSimulationStateSrv,
};
use kraken_interfaces::simif::{
    GetEntityStateRequest, ResetSimulationRequest, SetSimulationStateRequest, SimResult,
    SimulationState,
};

use super::{find_service, with_timeout, Deadline};

/// The clients of the `--simif-*` checks asked for.
#[derive(Default)]
pub(super) struct SimifClients {
    reset: Option<(String, RosClient<ResetSimulationSrv>)>,
    entity: Option<(String, String, RosClient<GetEntityStateSrv>)>,
    play: Option<(String, RosClient<SetSimulationStateSrv>)>,
}

/// The `--simif-*` arguments: (reset prefix, (entity prefix, entity), play prefix).
#[derive(Debug, Default, Clone)]
pub(super) struct SimifArgs {
    pub reset: Option<String>,
    pub entity: Option<(String, String)>,
    pub play: Option<String>,
}

/// The service `name` under `prefix` (`/` is the root).
pub(super) fn join(prefix: &str, name: &str) -> String {
    format!("{}/{name}", prefix.trim_end_matches('/'))
}

impl SimifClients {
    /// The clients of `a` on `node`.
    ///
    /// # Errors
    /// A client cannot be created.
    pub fn new(node: &mut RosNode, a: &SimifArgs) -> Result<Self> {
        let mut c = Self::default();
        if let Some(p) = &a.reset {
            let n = join(p, "reset_simulation");
            c.reset = Some((n.clone(), node.client(&n)?));
        }
        if let Some((p, e)) = &a.entity {
            let n = join(p, "get_entity_state");
            c.entity = Some((n.clone(), e.clone(), node.client(&n)?));
        }
        if let Some(p) = &a.play {
            let n = join(p, "set_simulation_state");
            c.play = Some((n.clone(), node.client(&n)?));
        }
        Ok(c)
    }

    /// ResetSimulation (SCOPE_DEFAULT), when asked.
    ///
    /// # Errors
    /// As [`call`]; a result other than RESULT_OK.
    pub async fn reset(&self, node: &RosNode, dl: &Deadline) -> Result<()> {
        let Some((name, client)) = &self.reset else {
            return Ok(());
        };
        let req = ResetSimulationRequest {
            scope: ResetSimulationRequest::SCOPE_DEFAULT,
        };
        let r = call(node, name, client, req, dl).await?;
        expect_ok(name, &r.result, dl)
    }

    /// GetEntityState of the entity, when asked.
    ///
    /// # Errors
    /// As [`call`]; a result other than RESULT_OK (the entity is unknown).
    pub async fn entity(&self, node: &RosNode, dl: &Deadline) -> Result<()> {
        let Some((name, entity, client)) = &self.entity else {
            return Ok(());
        };
        let req = GetEntityStateRequest {
            entity: entity.clone(),
        };
        let r = call(node, name, client, req, dl).await?;
        expect_ok(&format!("{name} of entity {entity:?}"), &r.result, dl)
    }

    /// SetSimulationState PLAYING, when asked.
    ///
    /// # Errors
    /// As [`call`]; a result other than RESULT_OK (ALREADY_IN_TARGET_STATE:
    /// the simulator was playing before the start, so the run's faults were
    /// not armed at sim time 0).
    pub async fn play(&self, node: &RosNode, dl: &Deadline) -> Result<()> {
        let Some((name, client)) = &self.play else {
            return Ok(());
        };
        let req = SetSimulationStateRequest {
            state: SimulationState {
                state: SimulationState::STATE_PLAYING,
            },
        };
        let r = call(node, name, client, req, dl).await?;
        expect_ok(&format!("{name} PLAYING"), &r.result, dl)
    }
}

/// Calls `client` (service `name`) once found, within the deadline.
///
/// # Errors
/// Not found or not answering before the deadline, a failed call.
async fn call<S: RosService>(
    node: &RosNode,
    name: &str,
    client: &RosClient<S>,
    req: S::Request,
    dl: &Deadline,
) -> Result<S::Response> {
    if find_service(node, client, dl).await.is_none() {
        bail!("service {name} not found within {:.1} s", dl.timeout_s());
    }
    match with_timeout(dl.left(), client.call(req)).await {
        Some(Ok(r)) => Ok(r),
        Some(Err(e)) => bail!("{name}: call failed: {e}"),
        None => bail!("{name}: no answer within {:.1} s", dl.timeout_s()),
    }
}

/// `r` is RESULT_OK (printed as done), else the error naming `what`.
fn expect_ok(what: &str, r: &SimResult, dl: &Deadline) -> Result<()> {
    if r.result == SimResult::RESULT_OK {
        dl.done(&format!("{what} answered RESULT_OK"));
        return Ok(());
    }
    bail!(
        "{what} answered result {} ({}): {:?}",
        r.result,
        result_name(r.result),
        r.error_message
    )
}

/// The name of a simulation_interfaces result code.
pub(super) fn result_name(code: u8) -> &'static str {
    match code {
        SimResult::RESULT_FEATURE_UNSUPPORTED => "RESULT_FEATURE_UNSUPPORTED",
        SimResult::RESULT_OK => "RESULT_OK",
        SimResult::RESULT_NOT_FOUND => "RESULT_NOT_FOUND",
        SimResult::RESULT_INCORRECT_STATE => "RESULT_INCORRECT_STATE",
        SimResult::RESULT_OPERATION_FAILED => "RESULT_OPERATION_FAILED",
        101 => "ALREADY_IN_TARGET_STATE: launch the simulator stopped or paused",
        102 => "STATE_TRANSITION_ERROR",
        103 => "INCORRECT_TRANSITION",
        _ => "unknown",
    }
}
