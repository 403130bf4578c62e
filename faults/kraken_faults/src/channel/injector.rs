//! [`Injector`]: the named channels of a run, and each channel's random
//! stream ([`channel_rng`]).

use std::time::Duration;

use kraken_interfaces::{FaultSpec, FaultStatus};

use super::{to_time, Channel};
use crate::config::ChannelsConfig;
use crate::{DynChannel, FaultError, FaultRng, SensorMsg};

/// The fault generator of channel `name` in a run seeded `seed`: the seed
/// tree's stream of that name ([`kraken_interfaces::seed::named_stream`]).
/// Each channel draws from its own stream, so adding, removing or reordering
/// channels leaves every other channel's draws unchanged.
pub fn channel_rng(seed: u64, name: &str) -> FaultRng {
    kraken_interfaces::seed::named_stream(seed, name)
}

/// The ChaCha stream id of a channel ([`kraken_interfaces::seed::stream_id`]).
pub fn channel_stream(name: &str) -> u64 {
    kraken_interfaces::seed::stream_id(name)
}

/// A set of named channels, in declaration order: the typed ones, then
/// raw ones of any type ([`DynChannel`]; in-process, the actuator channel
/// `cmd_vel`) whose typed faults are stages on their `fault_fields`.
pub struct Injector {
    channels: Vec<Channel>,
    raw: Vec<DynChannel>,
    /// Names of channels declared in the same file but hosted outside this
    /// injector (the node's dynamic channels): they count for the
    /// channel-name length check.
    other_names: Vec<String>,
    enabled: bool,
}

impl Default for Injector {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Injector {
    /// An injector over `channels`, enabled.
    pub fn new(channels: Vec<Channel>) -> Self {
        Self {
            channels,
            raw: Vec::new(),
            other_names: Vec::new(),
            enabled: true,
        }
    }
    /// This injector with the raw channel `c` added after the others.
    pub fn with_raw_channel(mut self, c: DynChannel) -> Self {
        self.raw.push(c);
        self
    }
    /// The raw channel named `name`.
    pub fn raw_channel(&self, name: &str) -> Option<&DynChannel> {
        self.raw.iter().find(|c| c.name == name)
    }
    /// The raw channel named `name`, mutably.
    pub fn raw_channel_mut(&mut self, name: &str) -> Option<&mut DynChannel> {
        self.raw.iter_mut().find(|c| c.name == name)
    }
    /// The raw channels, in the order they were added.
    pub fn raw_channels(&self) -> impl Iterator<Item = &DynChannel> + Clone {
        self.raw.iter()
    }
    /// The raw channels, mutably, in the order they were added.
    pub fn raw_channels_mut(&mut self) -> impl Iterator<Item = &mut DynChannel> {
        self.raw.iter_mut()
    }
    /// Clears the fault of channel `name` (typed or raw) at `now`.
    ///
    /// # Errors
    /// [`FaultError::UnknownChannel`] / [`FaultError::ChannelNameTooLong`].
    pub fn clear_channel_at(&mut self, name: &str, now: Duration) -> Result<(), FaultError> {
        if let Some(r) = self.raw_channel_mut(name) {
            r.clear_all(now);
            return Ok(());
        }
        self.channel_mut(name)?.clear_at(now);
        Ok(())
    }
    /// One healthy channel per entry of `cfg`, in file order, with its
    /// `tf_keepalive` setting and hold-queue caps.
    /// The file's dynamic channels are not hosted here, but their names are
    /// declared names for [`Injector::max_channel_name_len`].
    pub fn from_config(cfg: &ChannelsConfig) -> Self {
        let mut inj = Self::new(
            cfg.channels
                .iter()
                .map(|c| {
                    Channel::new(c.name.clone(), c.kind)
                        .with_tf_keepalive(c.tf_keepalive.clone())
                        .with_hold_limits(cfg.hold_limits_of(c))
                })
                .collect(),
        );
        inj.other_names = cfg
            .dynamic_channels
            .iter()
            .map(|c| c.name.clone())
            .collect();
        inj
    }
    /// Enables or disables fault injection (the production guard). Disabling
    /// clears every fault at `now`; while disabled `set_fault` is refused and
    /// every channel is a bit-exact passthrough.
    pub fn set_enabled(&mut self, enabled: bool, now: Duration) {
        if !enabled {
            self.clear_faults_at(now);
        }
        self.enabled = enabled;
    }
    /// Whether fault injection is enabled.
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name == name)
    }
    /// Length in bytes of the longest declared channel name (typed, raw and
    /// the file's dynamic channels): a request naming a longer channel is
    /// refused without a lookup
    /// ([`FaultError::ChannelNameTooLong`]).
    pub fn max_channel_name_len(&self) -> usize {
        self.channels
            .iter()
            .map(|c| c.name.len())
            .chain(self.raw.iter().map(|c| c.name.len()))
            .chain(self.other_names.iter().map(String::len))
            .max()
            .unwrap_or(0)
    }
    /// The channel named `name`, or [`FaultError::ChannelNameTooLong`] /
    /// [`FaultError::UnknownChannel`].
    pub fn channel_mut(&mut self, name: &str) -> Result<&mut Channel, FaultError> {
        let max = self.max_channel_name_len();
        if name.len() > max {
            return Err(FaultError::ChannelNameTooLong {
                len: name.len(),
                max,
            });
        }
        self.channels
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| FaultError::UnknownChannel(name.to_string()))
    }
    /// All channels in declaration order.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }
    /// All channels in declaration order, mutably.
    pub fn channels_mut(&mut self) -> &mut [Channel] {
        &mut self.channels
    }
    /// Sets a fault on the channel `spec.channel`; other channels are untouched.
    ///
    /// # Errors
    /// [`FaultError::Disabled`] when injection is disabled,
    /// [`FaultError::UnknownChannel`], and those of [`Channel::set_fault`].
    pub fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), FaultError> {
        if !self.enabled {
            return Err(FaultError::Disabled);
        }
        if let Some(r) = self.raw_channel_mut(&spec.channel) {
            return r.set_fault(spec, now);
        }
        self.channel_mut(&spec.channel)?.set_fault(spec, now)
    }
    /// As [`Injector::set_fault`], drawing an intermittent random phase now.
    pub fn set_fault_seeded(
        &mut self,
        spec: &FaultSpec,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Result<(), FaultError> {
        if !self.enabled {
            return Err(FaultError::Disabled);
        }
        if let Some(r) = self.raw_channel_mut(&spec.channel) {
            return r.set_fault(spec, now);
        }
        self.channel_mut(&spec.channel)?
            .set_fault_seeded(spec, now, rng)
    }
    /// Clears every channel's fault, each recording the latest time it has
    /// seen (see [`Channel::clear`]; prefer [`Injector::clear_faults_at`]).
    pub fn clear_faults(&mut self) {
        for c in &mut self.channels {
            c.clear();
        }
    }
    /// Clears every channel's fault, recording `now` as the clear time.
    pub fn clear_faults_at(&mut self, now: Duration) {
        for c in &mut self.channels {
            c.clear_at(now);
        }
        for r in &mut self.raw {
            r.clear_all(now);
        }
    }
    /// Feeds `msg` into channel `name` (see [`Channel::push`]).
    ///
    /// # Errors
    /// [`FaultError::UnknownChannel`]; [`FaultError::WrongKind`] when the
    /// message type is not the channel's.
    pub fn push(
        &mut self,
        name: &str,
        msg: SensorMsg,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Result<(), FaultError> {
        let c = self.channel_mut(name)?;
        if msg.kind() != c.kind {
            return Err(FaultError::WrongKind {
                channel: name.to_string(),
                expected: c.kind.ros_type(),
                got: msg.kind().ros_type(),
            });
        }
        c.push(msg, now, rng);
        Ok(())
    }
    /// Releases channel `name`'s messages due at `now`.
    ///
    /// # Errors
    /// [`FaultError::UnknownChannel`].
    pub fn poll(&mut self, name: &str, now: Duration) -> Result<Vec<SensorMsg>, FaultError> {
        Ok(self.channel_mut(name)?.poll(now))
    }
    /// `kraken_interfaces/msg/FaultStatus` at `now`: one entry per channel in
    /// declaration order (typed, then raw: [`DynChannel::fault_status`]).
    pub fn status(&self, now: Duration) -> FaultStatus {
        FaultStatus {
            stamp: to_time(now),
            enabled: self.enabled,
            channels: self
                .channels
                .iter()
                .map(|c| c.status(now))
                .chain(self.raw.iter().map(|r| r.fault_status(now)))
                .collect(),
        }
    }
}
