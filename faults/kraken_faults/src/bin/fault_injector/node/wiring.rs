//! The fault_injector's DDS endpoints, opened in the node's order: per typed
//! channel its input subscription and output publisher, the fault state,
//! per dynamic channel its raw subscription and publisher, `~/status`, `/tf`
//! (only with a TF keep-alive channel), the five services, `~/stack_status`
//! and the clock subscription.

use std::sync::Arc;

use anyhow::Result;
use breakbench_msgs::TypeRegistry;
use breakbench_ros::{
    qos, ClearFaultStageSrv, Publisher, RawCdr, ResetRunSrv, RosNode, RosServer, SetFaultSrv,
    SetFaultStackSrv, SimClock, Subscription, TriggerSrv,
};
use kraken_faults::{ChannelsConfig, ClockSource, MsgKind};
use kraken_interfaces::ros::{Clock, DiagnosticArray, TFMessage};
use kraken_interfaces::FaultStatus;

use super::events::ChanSub;
use super::state::{channel_qos, ChanPub, Faults};
use super::LOG_TARGET;

/// A dynamic channel's raw input.
type RawSub = Subscription<RawCdr>;
/// A dynamic channel's raw output.
type RawPub = Publisher<RawCdr>;

/// What the event streams read (borrowed by them for the node's life).
pub(super) struct Inputs {
    /// Typed channels' inputs, in `channels` order.
    pub(super) subs: Vec<ChanSub>,
    /// Dynamic channels' raw inputs, in `dynamic_channels` order.
    pub(super) dyn_subs: Vec<Subscription<RawCdr>>,
    /// Under sim time, on a clock topic that is no channel's input.
    pub(super) clock_sub: Option<(Subscription<Clock>, SimClock)>,
}

/// The node's services: the streams read their requests, the handlers send
/// the responses.
pub(super) struct Services {
    pub(super) set: RosServer<SetFaultSrv>,
    pub(super) clear: RosServer<TriggerSrv>,
    pub(super) stack: RosServer<SetFaultStackSrv>,
    pub(super) stage: RosServer<ClearFaultStageSrv>,
    pub(super) reset: RosServer<ResetRunSrv>,
}

/// What the node publishes.
pub(super) struct Outputs {
    /// Typed channels' outputs, in `channels` order.
    pub(super) pubs: Vec<ChanPub>,
    /// Dynamic channels' raw outputs, in `dynamic_channels` order.
    pub(super) dyn_pubs: Vec<Publisher<RawCdr>>,
    /// `~/status`.
    pub(super) status: Publisher<FaultStatus>,
    /// `/tf`, when a channel has a TF keep-alive.
    pub(super) tf: Option<Publisher<TFMessage>>,
    /// `~/stack_status`.
    pub(super) stack_status: Publisher<DiagnosticArray>,
}

/// Everything [`open`] makes.
pub(super) struct Wired {
    pub(super) inputs: Inputs,
    pub(super) services: Services,
    pub(super) outputs: Outputs,
    /// Every channel's faults, from `seed`.
    pub(super) faults: Faults,
    /// The message types of the dynamic channels (what `~/reset` rebuilds with).
    pub(super) reg: Arc<TypeRegistry>,
}

/// Opens the node's endpoints for `cfg` (see the module doc for the order)
/// and builds the fault state from `seed`. Errors: a DDS entity not
/// created, a dynamic channel's type not found, a channel's stack invalid.
pub(super) fn open(
    node: &mut RosNode,
    cfg: &ChannelsConfig,
    clock_src: &ClockSource,
    seed: u64,
) -> Result<Wired> {
    let (subs, pubs) = typed_channels(node, cfg)?;
    // Dynamic channels: raw bytes in and out, the type resolved once more
    // (built-in + AMENT_PREFIX_PATH, as the file was checked).
    let reg = Arc::new(if cfg.dynamic_channels.is_empty() {
        TypeRegistry::builtin()
    } else {
        TypeRegistry::with_ament_prefix_path()?
    });
    let faults = Faults::new(cfg, &reg, seed)?;
    let (dyn_subs, dyn_pubs) = dynamic_channels(node, cfg)?;
    let status = node.publisher::<FaultStatus>("~/status", qos::publish())?;
    let tf = if cfg.channels.iter().any(|c| c.tf_keepalive.is_some()) {
        Some(node.publisher::<TFMessage>("/tf", qos::publish())?)
    } else {
        None
    };
    let services = Services {
        set: node.server::<SetFaultSrv>("~/set_fault")?,
        clear: node.server::<TriggerSrv>("~/clear_faults")?,
        stack: node.server::<SetFaultStackSrv>("~/set_fault_stack")?,
        stage: node.server::<ClearFaultStageSrv>("~/clear_fault_stage")?,
        reset: node.server::<ResetRunSrv>("~/reset")?,
    };
    let stack_status = node.publisher::<DiagnosticArray>("~/stack_status", qos::publish())?;
    // A Clock channel's input feeds the clock from its own messages (in
    // order with them); any other clock topic gets a subscription.
    let clock_sub = if clock_src.channel.is_some() {
        None
    } else {
        node.clock_subscription_on(&clock_src.topic)?
    };
    Ok(Wired {
        inputs: Inputs {
            subs,
            dyn_subs,
            clock_sub,
        },
        services,
        outputs: Outputs {
            pubs,
            dyn_pubs,
            status,
            tf,
            stack_status,
        },
        faults,
        reg,
    })
}

/// Per typed channel its input subscription and output publisher (QoS:
/// [`channel_qos`]), logged as "channel".
fn typed_channels(
    node: &mut RosNode,
    cfg: &ChannelsConfig,
) -> Result<(Vec<ChanSub>, Vec<ChanPub>)> {
    let mut subs = Vec::new();
    let mut pubs = Vec::new();
    for c in &cfg.channels {
        let (sub_qos, pub_qos) = channel_qos(&c.qos);
        let (i, o) = (c.input_topic.as_str(), c.output_topic.as_str());
        let (s, p) = match c.kind {
            MsgKind::NavSatFix => (
                ChanSub::NavSatFix(node.subscription(i, sub_qos)?),
                ChanPub::NavSatFix(node.publisher(o, pub_qos)?),
            ),
            MsgKind::Imu => (
                ChanSub::Imu(node.subscription(i, sub_qos)?),
                ChanPub::Imu(node.publisher(o, pub_qos)?),
            ),
            MsgKind::Odometry => (
                ChanSub::Odometry(node.subscription(i, sub_qos)?),
                ChanPub::Odometry(node.publisher(o, pub_qos)?),
            ),
            MsgKind::LaserScan => (
                ChanSub::LaserScan(node.subscription(i, sub_qos)?),
                ChanPub::LaserScan(node.publisher(o, pub_qos)?),
            ),
        };
        tracing::info!(
            target: LOG_TARGET,
            channel = %c.name,
            input = %node.args.resolve(i),
            output = %node.args.resolve(o),
            r#type = c.kind.ros_type(),
            "channel"
        );
        subs.push(s);
        pubs.push(p);
    }
    Ok((subs, pubs))
}

/// Per dynamic channel its raw subscription and publisher of the channel's
/// type, logged as "dynamic channel".
fn dynamic_channels(
    node: &mut RosNode,
    cfg: &ChannelsConfig,
) -> Result<(Vec<RawSub>, Vec<RawPub>)> {
    let mut dyn_subs = Vec::new();
    let mut dyn_pubs = Vec::new();
    for c in &cfg.dynamic_channels {
        let (sub_qos, pub_qos) = channel_qos(&c.qos);
        let (i, o) = (c.input_topic.as_str(), c.output_topic.as_str());
        dyn_subs.push(node.raw_subscription(i, &c.type_name, sub_qos)?);
        dyn_pubs.push(node.raw_publisher(o, &c.type_name, pub_qos)?);
        tracing::info!(
            target: LOG_TARGET,
            channel = %c.name,
            input = %node.args.resolve(i),
            output = %node.args.resolve(o),
            r#type = %c.type_name,
            "dynamic channel"
        );
    }
    Ok((dyn_subs, dyn_pubs))
}
