//! The `fault_injector`'s own clock under `use_sim_time`
//! (REQ-FAULT-TF-CLOCK): which topic it follows ([`clock_source`]: never a
//! channel's faulted output) and the time a serialized
//! `rosgraph_msgs/msg/Clock` carries ([`clock_of`]).

use std::sync::Arc;

use breakbench_msgs::{ResolvedType, TypeRegistry};

use crate::config::ChannelsConfig;

/// The type of `/clock`.
pub const CLOCK_TYPE: &str = "rosgraph_msgs/msg/Clock";

/// Where the injector's own clock comes from under `use_sim_time`
/// ([`clock_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockSource {
    /// The topic as written (to subscribe; the node resolves it).
    pub topic: String,
    /// The topic resolved (namespace, remapping).
    pub resolved: String,
    /// The dynamic channel (index in `dynamic_channels`) of type
    /// [`CLOCK_TYPE`] whose input is this topic: the node reads its clock
    /// from that channel's input messages, before they enter its stack, and
    /// opens no second subscription.
    pub channel: Option<usize>,
}

/// The topic the injector's own clock follows under `use_sim_time`
/// (REQ-FAULT-TF-CLOCK): `clock_topic` (the node parameter) when given;
/// else, when a dynamic channel of type `rosgraph_msgs/msg/Clock` publishes
/// on `/clock` (resolved), that channel's input topic (the unfaulted clock);
/// else `/clock`. `resolve` is the node's name resolution (namespace,
/// `--ros-args` remapping).
///
/// # Errors
/// `clock_topic` resolves to a channel's output topic: the injector would
/// follow its own faulted output (the message names the channel and its
/// input topic).
pub fn clock_source(
    cfg: &ChannelsConfig,
    clock_topic: Option<&str>,
    resolve: impl Fn(&str) -> String,
) -> Result<ClockSource, String> {
    let clock = resolve("/clock");
    let topic = match clock_topic {
        Some(t) => t.to_string(),
        None => cfg
            .dynamic_channels
            .iter()
            .find(|c| c.type_name == CLOCK_TYPE && resolve(&c.output_topic) == clock)
            .map_or_else(|| "/clock".to_string(), |c| c.input_topic.clone()),
    };
    let resolved = resolve(&topic);
    let outputs = cfg
        .channels
        .iter()
        .map(|c| (&c.name, &c.input_topic, &c.output_topic))
        .chain(
            cfg.dynamic_channels
                .iter()
                .map(|c| (&c.name, &c.input_topic, &c.output_topic)),
        );
    for (name, input, output) in outputs {
        if resolve(output) == resolved {
            return Err(format!(
                "parameter 'clock_topic' = '{topic}' is the output of channel '{name}': the \
                 injector's clock would follow its own faulted output (use the channel's input \
                 '{input}')"
            ));
        }
    }
    let channel = cfg
        .dynamic_channels
        .iter()
        .position(|c| c.type_name == CLOCK_TYPE && resolve(&c.input_topic) == resolved);
    Ok(ClockSource {
        topic,
        resolved,
        channel,
    })
}

/// The time a serialized `rosgraph_msgs/msg/Clock` (header + body) carries,
/// as `(sec, nanosec)`; `None` when the bytes do not decode as one.
pub fn clock_of(bytes: &[u8]) -> Option<(i32, u32)> {
    thread_local! {
        static TY: Option<Arc<ResolvedType>> = TypeRegistry::builtin().resolve(CLOCK_TYPE).ok();
    }
    let ty = TY.with(|t| t.clone())?;
    let v = breakbench_msgs::decode(&ty, bytes).ok()?;
    let c = v.field("clock")?;
    match (c.field("sec")?, c.field("nanosec")?) {
        (breakbench_msgs::Value::I32(s), breakbench_msgs::Value::U32(n)) => Some((*s, *n)),
        _ => None,
    }
}
