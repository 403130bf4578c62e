//! The checks of [`ChannelsConfig::parse`](super::ChannelsConfig::parse)
//! past the YAML: each channel's type, then each channel against the file's
//! limits and the channels declared before it (the first error in file
//! order wins), then the split into typed and dynamic channels.

use serde::Deserialize;

use super::{
    check_channel_name, check_hold_limits, check_topic_name, semantic, ChanType, ChannelConfig,
    ChannelsConfig, DynamicChannelConfig, QosConfig, RawChannel, RawChannelsConfig, Relay,
    Resolver,
};
use crate::{FaultError, MsgKind};

/// Where the checked text came from: the file's path and text (for the
/// line of an error).
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub(super) path: &'a str,
    pub(super) text: &'a str,
}

impl Source<'_> {
    /// A [`FaultError::Config`] at `field` with `message`.
    fn err(&self, field: String, message: String) -> FaultError {
        semantic(self.path, self.text, field, message)
    }
}

/// Every channel's type, in file order: a typed kind unless `relay: raw`,
/// else resolved by `resolve`. Errors: an unknown type (at
/// `channels[i].type`), a refused fault field (at
/// `channels[i].fault_fields[k]`), `relay: typed` on another type.
pub(super) fn channel_types(
    raw: &RawChannelsConfig,
    src: Source<'_>,
    resolve: &mut Resolver<'_>,
) -> Result<Vec<ChanType>, FaultError> {
    let mut types = Vec::with_capacity(raw.channels.len());
    for (i, c) in raw.channels.iter().enumerate() {
        types.push(channel_type(i, c, src, resolve)?);
    }
    Ok(types)
}

fn channel_type(
    i: usize,
    c: &RawChannel,
    src: Source<'_>,
    resolve: &mut Resolver<'_>,
) -> Result<ChanType, FaultError> {
    let typed = <MsgKind as Deserialize>::deserialize(serde::de::value::StrDeserializer::<
        serde::de::value::Error,
    >::new(&c.kind));
    let dynamic = |resolve: &mut Resolver<'_>| match resolve(&c.kind, &c.fault_fields) {
        Ok(n) => Ok(ChanType::Dynamic(n)),
        Err((None, m)) => Err(src.err(format!("channels[{i}].type"), m)),
        Err((Some(k), m)) => Err(src.err(format!("channels[{i}].fault_fields[{k}]"), m)),
    };
    match (typed, c.relay) {
        (Ok(k), None | Some(Relay::Typed)) => Ok(ChanType::Typed(k)),
        (Ok(_), Some(Relay::Raw)) | (Err(_), None | Some(Relay::Raw)) => dynamic(resolve),
        (Err(_), Some(Relay::Typed)) => {
            // Report an unknown type first, then the relay.
            dynamic(resolve)?;
            Err(src.err(
                format!("channels[{i}].relay"),
                format!(
                    "'typed' needs one of the four typed kinds (sensor_msgs/msg/NavSatFix, \
                     sensor_msgs/msg/Imu, nav_msgs/msg/Odometry, sensor_msgs/msg/LaserScan); \
                     '{}' is relayed raw",
                    c.kind
                ),
            ))
        }
    }
}

/// The file-wide checks, then every channel's in file order. Errors: see
/// [`ChannelsConfig::parse`](super::ChannelsConfig::parse).
pub(super) fn check_channels(
    cfg: &RawChannelsConfig,
    types: &[ChanType],
    src: Source<'_>,
) -> Result<(), FaultError> {
    if cfg.channels.is_empty() {
        return Err(src.err(
            "channels".into(),
            "declares no channel: the injector would relay nothing".into(),
        ));
    }
    check_hold_limits(src.path, src.text, "hold_limits", &cfg.hold_limits)?;
    for i in 0..cfg.channels.len() {
        check_identity(cfg, i, src)?;
        check_topics(cfg, i, src)?;
        check_kind(cfg, types, i, src)?;
    }
    Ok(())
}

/// Channel `i`'s hold limits, name (unique, valid) and topics (not empty,
/// valid ROS 2 names).
fn check_identity(cfg: &RawChannelsConfig, i: usize, src: Source<'_>) -> Result<(), FaultError> {
    let c = &cfg.channels[i];
    let at = |f: &str| format!("channels[{i}].{f}");
    if c.hold_limits.is_some() {
        let h = ChannelsConfig {
            hold_limits: cfg.hold_limits,
            channels: Vec::new(),
            dynamic_channels: Vec::new(),
        }
        .limits_with(c.hold_limits);
        check_hold_limits(src.path, src.text, &at("hold_limits"), &h)?;
    }
    if let Some(first) = cfg.channels[..i].iter().position(|o| o.name == c.name) {
        return Err(src.err(
            at("name"),
            format!(
                "duplicate channel name '{}' (first declared as channels[{first}])",
                c.name
            ),
        ));
    }
    check_channel_name(&c.name).map_err(|m| src.err(at("name"), m))?;
    if c.input_topic.is_empty() || c.output_topic.is_empty() {
        return Err(src.err(at("input_topic"), "topics must not be empty".into()));
    }
    for (key, topic) in [
        ("input_topic", &c.input_topic),
        ("output_topic", &c.output_topic),
    ] {
        if let Err(m) = check_topic_name(topic) {
            return Err(src.err(at(key), m));
        }
    }
    Ok(())
}

/// Channel `i`'s topics against the channels declared before it, and its
/// input against its output.
fn check_topics(cfg: &RawChannelsConfig, i: usize, src: Source<'_>) -> Result<(), FaultError> {
    let c = &cfg.channels[i];
    let at = |f: &str| format!("channels[{i}].{f}");
    // Another channel's topics, declared earlier: an output shared
    // with another channel's output would merge two streams; an output
    // that is another channel's input would feed one fault into
    // another (a loop through the injector).
    for (j, o) in cfg.channels[..i].iter().enumerate() {
        let clash = if c.output_topic == o.output_topic {
            Some(("output_topic", "output_topic"))
        } else if c.output_topic == o.input_topic {
            Some(("output_topic", "input_topic"))
        } else if c.input_topic == o.output_topic {
            Some(("input_topic", "output_topic"))
        } else {
            None
        };
        if let Some((mine, theirs)) = clash {
            let topic = if mine == "output_topic" {
                &c.output_topic
            } else {
                &c.input_topic
            };
            return Err(src.err(
                at(mine),
                format!(
                    "'{topic}' is also channels[{j}] ('{}').{theirs}: each channel needs \
                     its own output, distinct from every input",
                    o.name
                ),
            ));
        }
    }
    if c.input_topic == c.output_topic {
        return Err(src.err(
            at("output_topic"),
            format!(
                "equals input_topic '{}': the injector would feed itself",
                c.input_topic
            ),
        ));
    }
    Ok(())
}

/// Channel `i`'s QoS depth, its type against earlier channels on the same
/// input, and the options that need a kind of channel (`fault_fields`:
/// raw; `tf_keepalive`: typed odometry, with its rate in range).
fn check_kind(
    cfg: &RawChannelsConfig,
    types: &[ChanType],
    i: usize,
    src: Source<'_>,
) -> Result<(), FaultError> {
    let c = &cfg.channels[i];
    let at = |f: &str| format!("channels[{i}].{f}");
    if !(1..=QosConfig::MAX_DEPTH).contains(&c.qos.depth) {
        return Err(src.err(
            at("qos.depth"),
            format!(
                "must be in [1, {}], got {}",
                QosConfig::MAX_DEPTH,
                c.qos.depth
            ),
        ));
    }
    if let Some(d) = c.qos.output.and_then(|o| o.depth) {
        if !(1..=QosConfig::MAX_DEPTH).contains(&d) {
            return Err(src.err(
                at("qos.output.depth"),
                format!("must be in [1, {}], got {d}", QosConfig::MAX_DEPTH),
            ));
        }
    }
    // One input topic carries one type: a second subscription of
    // another type on it never matches (DDS reports it only as a
    // transport error at run time).
    if let Some(j) = (0..i).find(|&j| {
        cfg.channels[j].input_topic == c.input_topic && types[j].name() != types[i].name()
    }) {
        return Err(src.err(
            at("input_topic"),
            format!(
                "'{}' is also channels[{j}] ('{}').input_topic with type {}; this channel \
                 is {}: a topic carries one message type",
                c.input_topic,
                cfg.channels[j].name,
                types[j].name(),
                types[i].name()
            ),
        ));
    }
    if !c.fault_fields.is_empty() && matches!(types[i], ChanType::Typed(_)) {
        return Err(src.err(
            at("fault_fields"),
            format!(
                "only raw channels take fault_fields; the typed modes of {} act on \
                 their own fields (FaultSpec.msg); add relay: raw to fault these paths",
                types[i].name()
            ),
        ));
    }
    if let Some(k) = &c.tf_keepalive {
        if !matches!(types[i], ChanType::Typed(MsgKind::Odometry)) {
            return Err(src.err(
                at("tf_keepalive"),
                format!(
                    "only typed odometry channels carry a transform; this one is {}{}",
                    types[i].name(),
                    if c.relay == Some(Relay::Raw) {
                        " (relay: raw)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if !(1e-3..=1e3).contains(&k.tf_rate_hz) {
            return Err(src.err(
                at("tf_keepalive.tf_rate_hz"),
                format!("must be in [0.001, 1000] Hz, got {}", k.tf_rate_hz),
            ));
        }
    }
    Ok(())
}

/// The checked channels split into typed and dynamic ones (each dynamic
/// channel keeps its `index` in the file).
pub(super) fn split_channels(cfg: RawChannelsConfig, types: Vec<ChanType>) -> ChannelsConfig {
    let mut out = ChannelsConfig {
        hold_limits: cfg.hold_limits,
        channels: Vec::new(),
        dynamic_channels: Vec::new(),
    };
    for (index, (c, t)) in cfg.channels.into_iter().zip(types).enumerate() {
        match t {
            ChanType::Typed(kind) => out.channels.push(ChannelConfig {
                name: c.name,
                kind,
                input_topic: c.input_topic,
                output_topic: c.output_topic,
                qos: c.qos,
                tf_keepalive: c.tf_keepalive,
                hold_limits: c.hold_limits,
            }),
            ChanType::Dynamic(type_name) => out.dynamic_channels.push(DynamicChannelConfig {
                name: c.name,
                type_name,
                input_topic: c.input_topic,
                output_topic: c.output_topic,
                qos: c.qos,
                hold_limits: c.hold_limits,
                index,
                fault_fields: c.fault_fields,
            }),
        }
    }
    out
}
