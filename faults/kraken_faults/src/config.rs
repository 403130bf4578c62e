//! `channels.yaml`: the named channels an [`crate::Injector`] hosts.
//!
//! ```yaml
//! channels:
//!   - name: gnss
//!     type: sensor_msgs/msg/NavSatFix
//!     input_topic: /gnss/fix_raw
//!     output_topic: /gnss/fix
//!     qos: {reliability: best_effort, depth: 10}
//!   - name: wheel
//!     type: nav_msgs/msg/Odometry
//!     input_topic: /wheel/odom_raw
//!     output_topic: /wheel/odom
//!     qos: {reliability: reliable, depth: 10}
//!     tf_keepalive: {tf_rate_hz: 20.0}
//! ```
//!
//! Channels are a list (file order = status order). Unknown keys, unknown
//! message types, duplicate keys and duplicate channel names are errors that
//! name the file, the line and the field.
//!
//! A channel's `type` is one of the four typed kinds ([`MsgKind`]: the
//! classic fault modes of `~/set_fault`) or any other message type with a
//! definition ([`breakbench_msgs::TypeRegistry`]: the built-in types plus
//! `share/<pkg>/msg/*.msg` under `AMENT_PREFIX_PATH`): a *dynamic* channel
//! ([`DynamicChannelConfig`], in [`ChannelsConfig::dynamic_channels`]),
//! relayed as raw CDR through a [`crate::field::FaultStack`]
//! (REQ-FAULT-ANY-TYPE).
//!
//! `relay: raw` ([`Relay::Raw`]) makes a channel of one of the four typed
//! kinds a dynamic channel too: the same message type relayed as raw CDR
//! through a fault stack (`~/set_fault_stack`) instead of the typed codec and
//! the classic modes (`~/set_fault`). It exists so the two paths can be
//! compared on the same type and wire bytes (`fault_injector_bench --mode
//! any`, `config/bench_any_type.yaml`); the default `relay: typed` keeps the
//! typed path. On any other type `relay: raw` is what happens anyway and
//! `relay: typed` is an error.

use std::path::Path;

use serde::{Deserialize, Serialize};

use breakbench_msgs::TypeRegistry;

use crate::{FaultError, MsgKind};

mod check;

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelsConfig {
    /// Caps of every channel's hold queue unless the channel overrides them.
    #[serde(default)]
    pub hold_limits: HoldLimits,
    /// The channels of the four typed kinds, in declaration order; names are
    /// unique (across both lists).
    pub channels: Vec<ChannelConfig>,
    /// The channels of any other message type (in the file they are in the
    /// same `channels` list), in declaration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic_channels: Vec<DynamicChannelConfig>,
}

/// A channel of a message type known only at run time: relayed as raw
/// serialized bytes through a [`crate::field::FaultStack`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicChannelConfig {
    /// Channel name (unique across the file).
    pub name: String,
    /// The full ROS 2 type name, `pkg/msg/Type` (normalised).
    #[serde(rename = "type")]
    pub type_name: String,
    /// Topic the injector subscribes.
    pub input_topic: String,
    /// Topic the injector publishes the faulted stream on.
    pub output_topic: String,
    /// QoS of both ends.
    pub qos: QosConfig,
    /// This channel's hold-queue caps, overriding the file's `hold_limits`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_limits: Option<HoldLimitsOverride>,
    /// Position in the file's `channels` list.
    #[serde(default)]
    pub index: usize,
    /// The numeric field paths `~/set_fault`'s typed data modes act on
    /// (e.g. `[linear.x, angular.z]` for `/cmd_vel`:
    /// [`crate::spec_stages`]); empty: only timing and loss modes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fault_fields: Vec<String>,
}

/// The file as written: `type` still a string.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChannelsConfig {
    #[serde(default)]
    hold_limits: HoldLimits,
    channels: Vec<RawChannel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChannel {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    input_topic: String,
    output_topic: String,
    qos: QosConfig,
    #[serde(default)]
    tf_keepalive: Option<TfKeepaliveConfig>,
    #[serde(default)]
    hold_limits: Option<HoldLimitsOverride>,
    #[serde(default)]
    relay: Option<Relay>,
    #[serde(default)]
    fault_fields: Vec<String>,
}

/// How a channel relays its messages (`relay:` in channels.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relay {
    /// Decoded into the typed message and faulted by the classic modes
    /// (`~/set_fault`); only the four typed kinds. Default for them.
    Typed,
    /// Raw CDR bytes through a fault stack (`~/set_fault_stack`): a dynamic
    /// channel whatever the type. Default (and the only choice) for any
    /// other type.
    Raw,
}

/// `(type, fault_fields)` → the normalised type name, or the reason with
/// the index of the refused field path (`None`: the type itself).
type Resolver<'a> = dyn FnMut(&str, &[String]) -> Result<String, (Option<usize>, String)> + 'a;

/// A channel's type as resolved from its `type` string.
enum ChanType {
    Typed(MsgKind),
    Dynamic(String),
}

impl ChanType {
    fn name(&self) -> &str {
        match self {
            ChanType::Typed(k) => k.ros_type(),
            ChanType::Dynamic(n) => n,
        }
    }
}

/// What a full hold queue does with one more message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverflowPolicy {
    /// Drop the held message due first (for a delay: the oldest received),
    /// count it in `messages_dropped_overflow`, log WARN once per burst.
    #[default]
    DropOldest,
}

/// Caps of a channel's hold queue (the messages a delay, jitter or reorder
/// fault holds, and those due now but not yet released).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldLimits {
    /// Most messages held at once, >= 1 (default 10,000).
    #[serde(default = "default_max_held_messages")]
    pub max_held_messages: u32,
    /// Most bytes held at once ([`crate::SensorMsg::estimated_bytes`] per
    /// message plus the queue entry), >= 65,536 (default 64 MiB).
    #[serde(default = "default_max_held_bytes")]
    pub max_held_bytes: u64,
    /// What happens on overflow.
    #[serde(default)]
    pub overflow: OverflowPolicy,
}

fn default_max_held_messages() -> u32 {
    HoldLimits::DEFAULT.max_held_messages
}

fn default_max_held_bytes() -> u64 {
    HoldLimits::DEFAULT.max_held_bytes
}

impl HoldLimits {
    /// 10,000 messages, 64 MiB, drop the oldest.
    pub const DEFAULT: HoldLimits = HoldLimits {
        max_held_messages: 10_000,
        max_held_bytes: 64 * 1024 * 1024,
        overflow: OverflowPolicy::DropOldest,
    };
    /// Smallest accepted `max_held_bytes`.
    pub const MIN_BYTES: u64 = 65_536;
}

impl Default for HoldLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A channel's override of some of the file's [`HoldLimits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldLimitsOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_held_messages: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_held_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<OverflowPolicy>,
}

/// One subscription/publication pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// Channel name used in `FaultSpec.channel` (e.g. `gnss`).
    pub name: String,
    /// ROS 2 message type, e.g. `sensor_msgs/msg/NavSatFix`.
    #[serde(rename = "type")]
    pub kind: MsgKind,
    /// Topic the raw sensor publishes on (the injector subscribes).
    pub input_topic: String,
    /// Topic the injector publishes the faulted stream on.
    pub output_topic: String,
    /// QoS of both ends.
    pub qos: QosConfig,
    /// Odometry channels only: keep broadcasting the last odom→base_link
    /// transform during a dropout (REQ-FAULT-DROPOUT-WHEEL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tf_keepalive: Option<TfKeepaliveConfig>,
    /// This channel's hold-queue caps, overriding the file's `hold_limits`
    /// field by field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_limits: Option<HoldLimitsOverride>,
}

impl ChannelsConfig {
    /// The hold-queue caps of channel `c`: the file's, overridden by the
    /// channel's own.
    pub fn hold_limits_of(&self, c: &ChannelConfig) -> HoldLimits {
        self.limits_with(c.hold_limits)
    }

    /// The hold-queue caps of dynamic channel `c`.
    pub fn dynamic_hold_limits_of(&self, c: &DynamicChannelConfig) -> HoldLimits {
        self.limits_with(c.hold_limits)
    }

    fn limits_with(&self, o: Option<HoldLimitsOverride>) -> HoldLimits {
        let d = self.hold_limits;
        let o = o.unwrap_or_default();
        HoldLimits {
            max_held_messages: o.max_held_messages.unwrap_or(d.max_held_messages),
            max_held_bytes: o.max_held_bytes.unwrap_or(d.max_held_bytes),
            overflow: o.overflow.unwrap_or(d.overflow),
        }
    }
}

/// DDS reliability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reliability {
    /// Sensor-data QoS (REP-2003 / `SensorDataQoS`).
    BestEffort,
    Reliable,
}

/// QoS of a channel: the input's reliability and KEEP_LAST history depth,
/// and optionally the output's own QoS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QosConfig {
    /// The subscription's reliability (best effort matches every writer).
    pub reliability: Reliability,
    /// KEEP_LAST depth, in [1, [`QosConfig::MAX_DEPTH`]].
    pub depth: u32,
    /// The publication's QoS. Absent: reliable, volatile, KEEP_LAST(max(depth,
    /// 10)), which every reader matches. Given, a QoS mismatch can itself be
    /// injected: a `best_effort` output never meets a reliable subscriber,
    /// a `volatile` one never meets a transient-local subscriber (the DDS
    /// request/offered rule; VINS-Fusion-ROS2 #10 is the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputQosConfig>,
}

/// The QoS a channel publishes with (`qos.output` in channels.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputQosConfig {
    /// Reliable (default) or best effort.
    #[serde(default = "reliable")]
    pub reliability: Reliability,
    /// Volatile (default) or transient-local.
    #[serde(default)]
    pub durability: Durability,
    /// KEEP_LAST depth, in [1, [`QosConfig::MAX_DEPTH`]]; absent: the
    /// input's depth, at least 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

fn reliable() -> Reliability {
    Reliability::Reliable
}

/// DDS durability of a channel's output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Only samples published after a reader matched.
    #[default]
    Volatile,
    /// The writer keeps its last `depth` samples for late-joining readers.
    TransientLocal,
}

impl QosConfig {
    /// Largest KEEP_LAST depth a channel may ask for: 100,000 messages
    /// (10 s of a 10 kHz IMU); DDS keeps up to `depth` samples per reader
    /// and writer, so 4e9 would let one file exhaust memory.
    pub const MAX_DEPTH: u32 = 100_000;
}

/// The TF keep-alive of an odometry channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfKeepaliveConfig {
    /// Broadcast rate of the kept-alive transform, Hz (> 0).
    pub tf_rate_hz: f64,
}

/// A channel name as channels files and kraken step files accept it:
/// non-empty, at most `FaultSpec::MAX_CHANNEL_NAME_LEN` (64) bytes.
///
/// # Errors
/// The reason (the name itself is not echoed: it may be long).
pub fn check_channel_name(name: &str) -> Result<(), String> {
    let limit = kraken_interfaces::FaultSpec::MAX_CHANNEL_NAME_LEN;
    if name.is_empty() {
        Err("must not be empty".into())
    } else if name.len() > limit {
        Err(format!(
            "is {} bytes long; a channel name is at most {limit} bytes (FaultSpec.channel)",
            name.len()
        ))
    } else {
        Ok(())
    }
}

/// Checks `name` against the ROS 2 topic name rules (design article "Topic
/// and Service name mapping to DDS", section "ROS 2 Topic and Service Name
/// Constraints"): not empty; only alphanumerics, `_`, `/`, `~` and balanced
/// `{}` substitutions; `~` only as the first character and then followed by
/// `/` or nothing; no `//`, no `__`; not ending with `/`; no token (the parts
/// between `/`) starting with a digit. Returns the reason when invalid.
pub fn check_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("must not be empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "_/~{}".contains(*c)))
    {
        return Err(format!(
            "'{name}' contains {c:?}: a ROS topic name holds only alphanumerics, '_', '/', '~' and '{{}}'"
        ));
    }
    if name.len() > 1 && name.ends_with('/') {
        return Err(format!("'{name}' must not end with '/'"));
    }
    if name == "/" {
        return Err("'/' is not a topic name".into());
    }
    if name.contains("//") {
        return Err(format!("'{name}' must not contain '//'"));
    }
    if name.contains("__") {
        return Err(format!("'{name}' must not contain '__'"));
    }
    if name[1..].contains('~')
        || (name.starts_with('~') && name.len() > 1 && !name.starts_with("~/"))
    {
        return Err(format!(
            "'{name}': '~' may only be the first character, followed by '/'"
        ));
    }
    let mut depth = 0;
    for c in name.chars() {
        match c {
            '{' if depth == 0 => depth = 1,
            '}' if depth == 1 => depth = 0,
            '{' | '}' => return Err(format!("'{name}' has unbalanced or nested '{{}}'")),
            '/' if depth == 1 => return Err(format!("'{name}' has '/' inside '{{}}'")),
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("'{name}' has unbalanced or nested '{{}}'"));
    }
    if let Some(t) = name
        .split('/')
        .find(|t| t.starts_with(|c: char| c.is_ascii_digit()))
    {
        return Err(format!("'{name}': token '{t}' starts with a digit"));
    }
    Ok(())
}

/// A semantic error about `field`, placed at the field's line and column in
/// `text` ([`kraken_interfaces::ConfigError::located`]).
pub(crate) fn semantic(path: &str, text: &str, field: String, message: String) -> FaultError {
    kraken_interfaces::ConfigError::semantic(path, &field, message)
        .located(text)
        .into()
}

fn check_hold_limits(path: &str, text: &str, at: &str, h: &HoldLimits) -> Result<(), FaultError> {
    if h.max_held_messages == 0 {
        return Err(semantic(
            path,
            text,
            format!("{at}.max_held_messages"),
            "must be >= 1".into(),
        ));
    }
    if h.max_held_bytes < HoldLimits::MIN_BYTES {
        return Err(semantic(
            path,
            text,
            format!("{at}.max_held_bytes"),
            format!(
                "must be >= {} bytes, got {}",
                HoldLimits::MIN_BYTES,
                h.max_held_bytes
            ),
        ));
    }
    Ok(())
}

impl ChannelsConfig {
    /// Parses channels.yaml `text` read from `path`.
    ///
    /// # Errors
    /// [`FaultError::Config`] naming file, line and field for: YAML syntax,
    /// unknown keys, a message type that is neither a typed kind nor known to
    /// the registry (`channels[i].type`), duplicate keys, a duplicate
    /// channel name (line of the second occurrence), an empty name, a topic
    /// longer than `FaultSpec::MAX_CHANNEL_NAME_LEN` bytes, a topic
    /// that is not a valid ROS 2 topic name ([`check_topic_name`]; line of
    /// the topic), input_topic == output_topic, an output_topic equal to
    /// another channel's input or output topic (exact string comparison; line
    /// of the later channel's topic), two channels of different types on
    /// one input_topic, depth outside [1, [`QosConfig::MAX_DEPTH`]],
    /// `tf_keepalive` on a
    /// non-odometry channel or a `tf_rate_hz` outside [0.001, 1000] Hz,
    /// `max_held_messages` 0 or `max_held_bytes` below
    /// [`HoldLimits::MIN_BYTES`] (file-wide or per channel), `relay: typed`
    /// on a type that is not one of the four typed kinds.
    ///
    /// A `type` that is not one of the four typed kinds is looked up in the
    /// built-in types and `AMENT_PREFIX_PATH` (loaded only then); see
    /// [`ChannelsConfig::parse_with`].
    pub fn parse(text: &str, path: &str) -> Result<Self, FaultError> {
        let mut reg: Option<TypeRegistry> = None;
        Self::parse_inner(text, path, &mut |name, fields| {
            if reg.is_none() {
                reg = Some(TypeRegistry::with_ament_prefix_path().map_err(|e| {
                    (
                        None,
                        format!("cannot load the message definitions of AMENT_PREFIX_PATH: {e}"),
                    )
                })?);
            }
            resolve_checked(reg.as_ref().expect("set above"), name, fields)
        })
    }

    /// As [`ChannelsConfig::parse`], looking dynamic types up in `reg`.
    ///
    /// # Errors
    /// As [`ChannelsConfig::parse`]; a type neither typed nor in `reg` is
    /// an error at the channel's `type` naming the type.
    pub fn parse_with(text: &str, path: &str, reg: &TypeRegistry) -> Result<Self, FaultError> {
        Self::parse_inner(text, path, &mut |name, fields| {
            resolve_checked(reg, name, fields)
        })
    }

    /// `resolve(type, fault_fields)`: the normalised type name, or the
    /// reason with the index of the refused field path (`None`: the type).
    fn parse_inner(text: &str, path: &str, resolve: &mut Resolver<'_>) -> Result<Self, FaultError> {
        let raw: RawChannelsConfig = kraken_interfaces::config::parse_yaml(text, path)?;
        let src = check::Source { path, text };
        let types = check::channel_types(&raw, src, resolve)?;
        check::check_channels(&raw, &types, src)?;
        Ok(check::split_channels(raw, types))
    }

    /// Reads and parses the file at `path`.
    ///
    /// # Errors
    /// [`FaultError::Io`] when it cannot be read, else as [`ChannelsConfig::parse`].
    pub fn load(path: &Path) -> Result<Self, FaultError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| FaultError::Io {
            path: p.clone(),
            source,
        })?;
        Self::parse(&text, &p)
    }

    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&ChannelConfig> {
        self.channels.iter().find(|c| c.name == name)
    }

    /// The dynamic channel named `name`.
    pub fn dynamic_channel(&self, name: &str) -> Option<&DynamicChannelConfig> {
        self.dynamic_channels.iter().find(|c| c.name == name)
    }
}

/// [`resolve_name`], then each of `fields` checked as a numeric field path
/// of the type (a `scale` field fault builds on it), at most
/// [`crate::dynamic::MAX_STAGES`] of them, none twice.
fn resolve_checked(
    reg: &TypeRegistry,
    name: &str,
    fields: &[String],
) -> Result<String, (Option<usize>, String)> {
    let t = resolve_name(reg, name).map_err(|m| (None, m))?;
    if fields.len() > crate::dynamic::MAX_STAGES {
        return Err((
            Some(crate::dynamic::MAX_STAGES),
            format!(
                "{} paths: at most {} (one stage each)",
                fields.len(),
                crate::dynamic::MAX_STAGES
            ),
        ));
    }
    for (k, f) in fields.iter().enumerate() {
        if fields[..k].contains(f) {
            return Err((Some(k), format!("'{f}' is listed twice")));
        }
        let mut spec = crate::field::FieldFaultSpec::new(f, crate::field::FieldMode::Scale);
        spec.scale_factor = Some(1.0);
        crate::field::FieldFault::build(&spec, reg, &t).map_err(|e| {
            (
                Some(k),
                format!("not a numeric field path of {t} (the typed data modes scale, bias, ... act on it): {e}"),
            )
        })?;
    }
    Ok(t)
}

/// `name` resolved in `reg` (nested types included) to its normalised
/// `pkg/msg/Type`, or the reason it is not a usable channel type.
fn resolve_name(reg: &TypeRegistry, name: &str) -> Result<String, String> {
    match reg.resolve(name) {
        Ok(t) => Ok(t.name.to_string()),
        Err(e) => Err(format!(
            "'{name}' is not a message type with a definition (the typed kinds \
             sensor_msgs/msg/NavSatFix, sensor_msgs/msg/Imu, nav_msgs/msg/Odometry, \
             sensor_msgs/msg/LaserScan, the built-in types, or share/<pkg>/msg/*.msg \
             on AMENT_PREFIX_PATH): {e}"
        )),
    }
}
