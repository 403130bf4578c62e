//! The bridge's `simulation_interfaces` services (issue 29,
//! REQ-SIMIF-SERVE): `<service_prefix>/reset_simulation`, `step_simulation`,
//! `get_simulation_state`, `set_simulation_state`, `get_entity_state`,
//! `get_entities`, `get_simulator_features` (prefix default `~`, the node's
//! name). The answers and the state machine are the library's
//! ([`breakbench_sim_bridge::simif`]); this file only converts.

use anyhow::{Context, Result};
use breakbench_ros::{
    GetEntitiesSrv, GetEntityStateSrv, GetSimulationStateSrv, GetSimulatorFeaturesSrv, RequestId,
    ResetSimulationSrv, RosNode, RosServer, RosService, SetSimulationStateSrv, StepSimulationSrv,
};
use breakbench_sim_bridge::simif::{self, SimState, Transition};
use breakbench_sim_bridge::Plant;
use kraken_interfaces::simif::{GetSimulatorFeaturesResponse, ResultResponse, SimResult};

use super::bridge::Bridge;

/// The seven servers.
pub(super) struct SimifIo {
    reset: RosServer<ResetSimulationSrv>,
    step: RosServer<StepSimulationSrv>,
    get_state: RosServer<GetSimulationStateSrv>,
    set_state: RosServer<SetSimulationStateSrv>,
    entity_state: RosServer<GetEntityStateSrv>,
    entities: RosServer<GetEntitiesSrv>,
    features: RosServer<GetSimulatorFeaturesSrv>,
}

impl SimifIo {
    /// The servers under `prefix` (`~` or a namespace such as `/sim`).
    ///
    /// # Errors
    /// A service cannot be created (a bad name, a DDS error).
    pub fn new(node: &mut RosNode, prefix: &str) -> Result<Self> {
        let n = |s: &str| format!("{}/{s}", prefix.trim_end_matches('/'));
        let [r, st, gs, ss, es, e, f] = simif::SERVICES;
        Ok(Self {
            reset: node.server(&n(r)).with_context(|| n(r))?,
            step: node.server(&n(st)).with_context(|| n(st))?,
            get_state: node.server(&n(gs)).with_context(|| n(gs))?,
            set_state: node.server(&n(ss)).with_context(|| n(ss))?,
            entity_state: node.server(&n(es)).with_context(|| n(es))?,
            entities: node.server(&n(e)).with_context(|| n(e))?,
            features: node.server(&n(f)).with_context(|| n(f))?,
        })
    }
}

/// What a call asks of the run.
pub(super) enum SimEvent {
    /// Nothing for the run loop.
    None,
    /// The plant was rebuilt (ResetSimulation, SetSimulationState STOPPED):
    /// wait for the graph (and the start) again, step from sim time 0.
    Rebuilt,
}

fn answer<S: RosService>(srv: &RosServer<S>, id: RequestId, resp: S::Response, what: &str) {
    if let Err(e) = srv.send_response(id, resp) {
        tracing::warn!("{what}: response not sent: {e}");
    }
}

fn take<S: RosService>(srv: &RosServer<S>, what: &str) -> Option<(RequestId, S::Request)> {
    match srv.receive_request() {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("{what}: bad request {e}");
            None
        }
    }
}

impl Bridge<'_> {
    /// Answers every `simulation_interfaces` call received. A StepSimulation
    /// that is accepted is kept in `pending_step` and answered once its
    /// steps are made (the run loop).
    ///
    /// # Errors
    /// The plant cannot be rebuilt.
    pub(super) fn serve_simif(&mut self) -> Result<SimEvent> {
        let mut ev = SimEvent::None;
        let io = &self.io.simif;
        while let Some((id, _)) = take(&io.features, "get_simulator_features") {
            let resp = GetSimulatorFeaturesResponse {
                features: simif::features(),
            };
            answer(&io.features, id, resp, "get_simulator_features");
        }
        while let Some((id, _)) = take(&io.get_state, "get_simulation_state") {
            answer(
                &io.get_state,
                id,
                self.ctl.get_state(),
                "get_simulation_state",
            );
        }
        while let Some((id, req)) = take(&io.entity_state, "get_entity_state") {
            let p = &self.plant;
            let resp = self
                .ctl
                .entity_state(&req.entity, p.now(), &p.true_pose(), p.true_twist());
            answer(&io.entity_state, id, resp, "get_entity_state");
        }
        while let Some((id, req)) = take(&io.entities, "get_entities") {
            answer(
                &io.entities,
                id,
                self.ctl.entities(&req.filters),
                "get_entities",
            );
        }
        while let Some((id, req)) = take(&self.io.simif.step, "step_simulation") {
            self.on_step_call(id, req.steps);
        }
        while let Some((id, req)) = take(&self.io.simif.set_state, "set_simulation_state") {
            let (result, what) = self.ctl.set_state(req.state.state);
            tracing::info!(
                target_state = req.state.state,
                ?what,
                "set_simulation_state: {}",
                result.error_message
            );
            match what {
                Transition::Start => self.start_called = true,
                Transition::Stop => {
                    self.rebuild("set_simulation_state STOPPED")?;
                    self.start_called = false;
                    ev = SimEvent::Rebuilt;
                }
                Transition::Switch | Transition::None => {}
            }
            if self.ctl.state() != SimState::Paused {
                self.fail_pending_step("the simulation left the paused state");
            }
            answer(
                &self.io.simif.set_state,
                id,
                ResultResponse { result },
                "set_simulation_state",
            );
        }
        while let Some((id, req)) = take(&self.io.simif.reset, "reset_simulation") {
            let result = match self.ctl.reset(req.scope) {
                Ok(()) => {
                    self.rebuild("reset_simulation")?;
                    self.start_called = self.ctl.state() != SimState::Stopped;
                    ev = SimEvent::Rebuilt;
                    SimResult::ok()
                }
                Err(e) => e,
            };
            answer(
                &self.io.simif.reset,
                id,
                ResultResponse { result },
                "reset_simulation",
            );
        }
        Ok(ev)
    }

    /// A StepSimulation call: refused unless paused and none is pending;
    /// 0 steps is answered at once.
    fn on_step_call(&mut self, id: RequestId, steps: u64) {
        let refused = match self.ctl.step(steps) {
            Err(e) => Some(e),
            Ok(_) if self.pending_step.is_some() => Some(SimResult::err(
                SimResult::RESULT_OPERATION_FAILED,
                "another StepSimulation is in progress",
            )),
            Ok(0) => Some(SimResult::ok()),
            Ok(n) => {
                self.pending_step = Some((id, n));
                None
            }
        };
        if let Some(result) = refused {
            answer(
                &self.io.simif.step,
                id,
                ResultResponse { result },
                "step_simulation",
            );
        }
    }

    /// Answers the pending StepSimulation with `RESULT_OPERATION_FAILED`.
    pub(super) fn fail_pending_step(&mut self, why: &str) {
        if let Some((id, left)) = self.pending_step.take() {
            let result = SimResult::err(
                SimResult::RESULT_OPERATION_FAILED,
                format!("{why} with {left} steps left"),
            );
            answer(
                &self.io.simif.step,
                id,
                ResultResponse { result },
                "step_simulation",
            );
        }
    }

    /// One step of the pending StepSimulation made: answers it after its last.
    pub(super) fn stepped_for_call(&mut self) {
        if let Some((id, left)) = self.pending_step.as_mut() {
            *left -= 1;
            if *left == 0 {
                let id = *id;
                self.pending_step = None;
                let resp = ResultResponse {
                    result: SimResult::ok(),
                };
                answer(&self.io.simif.step, id, resp, "step_simulation");
            }
        }
    }

    /// A fresh plant from the run's seed (sim time 0, the robot at its
    /// start pose); a pending step call fails.
    ///
    /// # Errors
    /// The plant cannot be built (a file changed since start-up).
    fn rebuild(&mut self, why: &str) -> Result<()> {
        self.fail_pending_step(why);
        self.plant = Plant::new(
            &self.world,
            &self.robot,
            self.run_seed,
            &self.robot.sensor_channels(),
        )
        .with_context(|| format!("{why}: plant not rebuilt"))?;
        tracing::info!(seed = self.run_seed, "{why}: plant reset; sim time 0");
        Ok(())
    }
}
