//! The fault_injector's service handlers: `~/set_fault_stack`,
//! `~/clear_fault_stage`, `~/set_fault`, `~/clear_faults` and `~/reset`.
//! Each answers its request (the reply's `message` bounded,
//! [`bounded_reply`]) and logs the outcome; the loop then publishes the
//! status.

use std::time::Duration;

use breakbench_ros::{RequestId, RosServer, RosService};
use kraken_interfaces::ros::TriggerResponse;
use kraken_interfaces::{
    mode_name, ClearFaultStageRequest, ClearFaultStageResponse, ResetRunRequest, ResetRunResponse,
    SetFaultRequest, SetFaultResponse, SetFaultStackRequest, SetFaultStackResponse,
};

use super::relay::FaultNode;
use super::state::{bounded_reply, stack_of, unknown_channel, Faults};
use super::LOG_TARGET;

/// Sends `resp` to request `id` of `srv`; a failure is logged as
/// "`what`: response not sent".
fn reply<S: RosService>(srv: &RosServer<S>, id: RequestId, resp: S::Response, what: &str) {
    if let Err(e) = srv.send_response(id, resp) {
        tracing::warn!(target: LOG_TARGET, "{what}: response not sent: {e}");
    }
}

impl FaultNode<'_> {
    /// `~/set_fault_stack`: sets (or, `append`, extends) the stack of a
    /// dynamic or typed channel from `stack_yaml`.
    pub(super) fn on_set_stack(&mut self, id: RequestId, req: SetFaultStackRequest, now: Duration) {
        let f = &mut self.f;
        let resp = match stack_of(&mut f.dyns, &mut f.typed.stacks, &req.channel) {
            Some(d) => match d.set_stack(&req.stack_yaml, req.append, now) {
                Ok(ids) => SetFaultStackResponse {
                    success: true,
                    message: format!(
                        "channel '{}': {} stage(s): {}",
                        d.name,
                        ids.len(),
                        d.stack().describe().join("; ")
                    ),
                    ids,
                },
                Err(e) => SetFaultStackResponse {
                    success: false,
                    message: format!("channel '{}': {e}", d.name),
                    ids: d.ids(),
                },
            },
            None => SetFaultStackResponse {
                success: false,
                message: unknown_channel(&req.channel, &self.names, &f.dyns),
                ids: Vec::new(),
            },
        };
        if resp.success {
            tracing::info!(target: LOG_TARGET, "set_fault_stack: {}", resp.message);
        } else {
            tracing::warn!(target: LOG_TARGET, "set_fault_stack rejected: {}", resp.message);
        }
        let resp = SetFaultStackResponse {
            message: bounded_reply(resp.message),
            ..resp
        };
        reply(&self.srv.stack, id, resp, "set_fault_stack");
    }

    /// `~/clear_fault_stage`: removes stage `id` from a channel's stack.
    pub(super) fn on_clear_stage(
        &mut self,
        id: RequestId,
        req: ClearFaultStageRequest,
        now: Duration,
    ) {
        let f = &mut self.f;
        let resp = match stack_of(&mut f.dyns, &mut f.typed.stacks, &req.channel) {
            Some(d) => match d.clear_stage(req.id, now) {
                Ok(()) => ClearFaultStageResponse {
                    success: true,
                    message: format!(
                        "channel '{}': stage {} cleared; ids now {:?}",
                        d.name,
                        req.id,
                        d.ids()
                    ),
                },
                Err(e) => ClearFaultStageResponse {
                    success: false,
                    message: e,
                },
            },
            None => ClearFaultStageResponse {
                success: false,
                message: unknown_channel(&req.channel, &self.names, &f.dyns),
            },
        };
        if resp.success {
            tracing::info!(target: LOG_TARGET, "clear_fault_stage: {}", resp.message);
        } else {
            tracing::warn!(target: LOG_TARGET, "clear_fault_stage rejected: {}", resp.message);
        }
        let resp = ClearFaultStageResponse {
            message: bounded_reply(resp.message),
            ..resp
        };
        reply(&self.srv.stage, id, resp, "clear_fault_stage");
    }

    /// `~/set_fault`: one typed mode replaces a typed channel's faults (its
    /// stack included), or becomes stages on a raw channel's fault_fields.
    pub(super) fn on_set_fault(&mut self, id: RequestId, req: SetFaultRequest, now: Duration) {
        let spec = req.fault;
        let f = &mut self.f;
        let set = match self.names.iter().position(|n| *n == spec.channel) {
            // Seed 001's meaning: one fault replaces the
            // channel's faults, its stack included.
            Some(k) => f
                .injector
                .set_fault_seeded(&spec, now, &mut f.rngs[k])
                .map(|()| f.typed.stacks[k].stack_mut().clear_all(now))
                .map_err(anyhow::Error::from),
            // A raw channel: the typed mode as stages on its
            // fault_fields (kraken_faults::spec_stages).
            None => match f.dyns.iter_mut().find(|d| d.name == spec.channel) {
                Some(d) => d.set_fault(&spec, now).map_err(Into::into),
                // Unknown channel: the injector's error names it.
                None => f.injector.set_fault(&spec, now).map_err(Into::into),
            },
        };
        let resp = match set {
            Ok(()) => {
                let msg = format!(
                    "set {} on channel '{}'",
                    mode_name(spec.mode).unwrap_or("?"),
                    spec.channel
                );
                tracing::info!(target: LOG_TARGET, "{msg}");
                SetFaultResponse {
                    success: true,
                    message: msg,
                }
            }
            Err(e) => {
                tracing::warn!(target: LOG_TARGET, "set_fault rejected: {e}");
                SetFaultResponse {
                    success: false,
                    message: e.to_string(),
                }
            }
        };
        let resp = SetFaultResponse {
            message: bounded_reply(resp.message),
            ..resp
        };
        reply(&self.srv.set, id, resp, "set_fault");
    }

    /// `~/clear_faults`: every typed fault and every stack cleared.
    pub(super) fn on_clear_faults(&mut self, id: RequestId, now: Duration) {
        self.f.injector.clear_faults_at(now);
        for d in &mut self.f.dyns {
            d.clear_all(now);
        }
        for t in &mut self.f.typed.stacks {
            t.stack_mut().clear_all(now);
        }
        tracing::info!(target: LOG_TARGET, "cleared all faults");
        let resp = TriggerResponse {
            success: true,
            message: "all faults cleared".into(),
        };
        reply(&self.srv.clear, id, resp, "clear_faults");
    }

    /// `~/reset`: the next run of a kept-running graph.
    pub(super) fn on_reset(&mut self, id: RequestId, req: ResetRunRequest) {
        // The next run of a kept-running graph: every channel
        // and stack as at start-up (messages held by a fault
        // are dropped: they belong to the previous run), every
        // random stream from the run's seed (REQ-GRAPH-SEED),
        // sim time back to "none yet".
        let resp = match Faults::new(&self.cfg, &self.reg, req.seed) {
            Ok(f) => {
                self.f = f;
                if let Some(s) = &self.sim {
                    s.reset();
                }
                tracing::info!(
                    target: LOG_TARGET,
                    run_id = %req.run_id,
                    seed = req.seed,
                    "reset: every fault cleared, streams re-seeded"
                );
                ResetRunResponse {
                    success: true,
                    message: format!(
                        "every fault cleared, channels as at start-up, streams from seed {}, for run {}",
                        req.seed, req.run_id
                    ),
                }
            }
            Err(e) => ResetRunResponse {
                success: false,
                message: bounded_reply(format!("{e:#}")),
            },
        };
        reply(&self.srv.reset, id, resp, "reset");
    }
}
