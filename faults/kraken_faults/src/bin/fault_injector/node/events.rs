//! The fault_injector's event streams: every channel's input, every service
//! request and the clock topic, as one [`Event`] type for the node's loop.

use breakbench_ros::{RawCdr, RequestId, RosServer, RosService, Subscription};
use futures::stream::{LocalBoxStream, StreamExt};
use kraken_faults::SensorMsg;
use kraken_interfaces::ros::{Clock, Imu, LaserScan, NavSatFix, Odometry};
use kraken_interfaces::{
    ClearFaultStageRequest, ResetRunRequest, SetFaultRequest, SetFaultStackRequest,
};

use super::wiring::{Inputs, Services};
use super::LOG_TARGET;

/// A typed channel's input subscription.
pub(super) enum ChanSub {
    NavSatFix(Subscription<NavSatFix>),
    Imu(Subscription<Imu>),
    Odometry(Subscription<Odometry>),
    LaserScan(Subscription<LaserScan>),
}

/// One thing the node's loop handles; channel indices are positions in
/// `channels` (typed) or `dynamic_channels` (raw) of channels.yaml.
// Inputs are the hot path: moved once into the injector, no extra allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Event {
    Input(usize, SensorMsg),
    DynInput(usize, RawCdr),
    SetFault(RequestId, SetFaultRequest),
    SetStack(RequestId, SetFaultStackRequest),
    ClearStage(RequestId, ClearFaultStageRequest),
    ClearFaults(RequestId),
    Reset(RequestId, ResetRunRequest),
    Clock(Clock),
}

fn input_stream<M, F>(sub: &Subscription<M>, idx: usize, wrap: F) -> LocalBoxStream<'_, Event>
where
    M: serde::de::DeserializeOwned + 'static,
    F: Fn(M) -> SensorMsg + 'static,
{
    sub.async_stream()
        .filter_map(move |r| {
            let ev = match r {
                Ok(m) => Some(Event::Input(idx, wrap(m))),
                Err(e) => {
                    tracing::warn!(target: LOG_TARGET, "channel #{idx}: receive error {e}");
                    None
                }
            };
            std::future::ready(ev)
        })
        .boxed_local()
}

impl ChanSub {
    fn stream(&self, idx: usize) -> LocalBoxStream<'_, Event> {
        match self {
            ChanSub::NavSatFix(s) => input_stream(s, idx, SensorMsg::NavSatFix),
            ChanSub::Imu(s) => input_stream(s, idx, SensorMsg::Imu),
            ChanSub::Odometry(s) => input_stream(s, idx, SensorMsg::Odometry),
            ChanSub::LaserScan(s) => input_stream(s, idx, SensorMsg::LaserScan),
        }
    }
}

/// Dynamic channel `i`'s raw input.
fn dyn_input_stream(sub: &Subscription<RawCdr>, i: usize) -> LocalBoxStream<'_, Event> {
    sub.async_stream()
        .filter_map(move |r| {
            std::future::ready(match r {
                Ok(m) => Some(Event::DynInput(i, m)),
                Err(e) => {
                    tracing::warn!(target: LOG_TARGET, "dynamic channel #{i}: receive error {e}");
                    None
                }
            })
        })
        .boxed_local()
}

/// Requests of service `srv` as events (`wrap`); a request that does not
/// decode is logged as "`what`: bad request" and skipped.
fn requests<'a, S, F>(
    srv: &'a RosServer<S>,
    what: &'static str,
    wrap: F,
) -> LocalBoxStream<'a, Event>
where
    S: RosService,
    F: Fn(RequestId, S::Request) -> Event + 'static,
{
    srv.receive_request_stream()
        .filter_map(move |r| {
            std::future::ready(match r {
                Ok((id, req)) => Some(wrap(id, req)),
                Err(e) => {
                    tracing::warn!(target: LOG_TARGET, "{what}: bad request {e}");
                    None
                }
            })
        })
        .boxed_local()
}

/// Every event source, in the node's order: typed inputs, raw inputs,
/// `~/set_fault_stack`, `~/clear_fault_stage`, `~/set_fault`, `~/reset`,
/// `~/clear_faults`, then the clock subscription (sim time on a topic that
/// is no channel's input).
pub(super) fn streams<'a>(inputs: &'a Inputs, srv: &'a Services) -> Vec<LocalBoxStream<'a, Event>> {
    let mut streams: Vec<LocalBoxStream<'a, Event>> = inputs
        .subs
        .iter()
        .enumerate()
        .map(|(i, s)| s.stream(i))
        .collect();
    for (i, s) in inputs.dyn_subs.iter().enumerate() {
        streams.push(dyn_input_stream(s, i));
    }
    streams.push(requests(&srv.stack, "set_fault_stack", Event::SetStack));
    streams.push(requests(&srv.stage, "clear_fault_stage", Event::ClearStage));
    streams.push(requests(&srv.set, "set_fault", Event::SetFault));
    streams.push(requests(&srv.reset, "reset", Event::Reset));
    streams.push(requests(&srv.clear, "clear_faults", |id, _| {
        Event::ClearFaults(id)
    }));
    if let Some((sub, _)) = &inputs.clock_sub {
        streams.push(
            sub.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(Event::Clock)))
                .boxed_local(),
        );
    }
    streams
}
