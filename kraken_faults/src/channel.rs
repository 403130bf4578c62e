//! Channels: a fault stage plus the queue that releases its output on time.

use std::collections::BTreeMap;
use std::time::Duration;

use kraken_interfaces::FaultSpec;

use crate::{build_stage, FaultError, FaultRng, FaultStage, MsgKind, SensorMsg};

/// Messages held until their release time, released in (time, arrival) order.
#[derive(Default)]
pub struct DelayQueue {
    items: BTreeMap<(Duration, u64), (Duration, SensorMsg)>,
    seq: u64,
}

impl DelayQueue {
    /// Holds `msg`, received at `received`, until `release`.
    pub fn push(&mut self, release: Duration, received: Duration, msg: SensorMsg) {
        self.items.insert((release, self.seq), (received, msg));
        self.seq += 1;
    }
    /// Removes and returns every message due at or before `now`, oldest
    /// release first, each with the time it was received.
    pub fn pop_due(&mut self, now: Duration) -> Vec<(Duration, SensorMsg)> {
        let mut out = Vec::new();
        while let Some(entry) = self.items.first_entry() {
            if entry.key().0 > now {
                break;
            }
            out.push(entry.remove());
        }
        out
    }
    /// Number of messages held.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// What a channel delivered, measured at the apply site.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChannelStats {
    /// Messages received from the sensor.
    pub messages_in: u64,
    /// Messages released to the consumer.
    pub messages_out: u64,
    /// Sum of (release time - receive time) over released messages, seconds.
    pub latency_sum_s: f64,
    /// Largest release latency, seconds.
    pub latency_max_s: f64,
    /// Odometry only: sum of out_x / in_x over faulted outputs whose input
    /// had |x| >= 1e-3 m, and how many there were.
    pub ratio_x_sum: f64,
    pub ratio_x_n: u64,
}

impl ChannelStats {
    /// Mean delivered latency in seconds, or `None` before the first release.
    pub fn mean_latency_s(&self) -> Option<f64> {
        (self.messages_out > 0).then(|| self.latency_sum_s / self.messages_out as f64)
    }
    /// Mean delivered out_x / in_x, or `None` when no sample qualified.
    pub fn mean_ratio_x(&self) -> Option<f64> {
        (self.ratio_x_n > 0).then(|| self.ratio_x_sum / self.ratio_x_n as f64)
    }
}

struct ActiveFault {
    spec: FaultSpec,
    stage: Box<dyn FaultStage>,
    requested: Duration,
    first_applied: Option<Duration>,
}

/// One named channel: its message type, its current fault and its queue.
pub struct Channel {
    name: String,
    kind: MsgKind,
    fault: Option<ActiveFault>,
    queue: DelayQueue,
    stats: ChannelStats,
}

impl Channel {
    /// A healthy channel.
    pub fn new(name: impl Into<String>, kind: MsgKind) -> Self {
        Self { name: name.into(), kind, fault: None, queue: DelayQueue::default(), stats: ChannelStats::default() }
    }
    /// The channel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The channel's message type.
    pub fn kind(&self) -> MsgKind {
        self.kind
    }
    /// Delivery statistics since the channel was created.
    pub fn stats(&self) -> &ChannelStats {
        &self.stats
    }
    /// The fault currently set, if any.
    pub fn fault(&self) -> Option<&FaultSpec> {
        self.fault.as_ref().map(|f| &f.spec)
    }
    /// When the current fault first touched a message, if it has.
    pub fn first_applied(&self) -> Option<Duration> {
        self.fault.as_ref().and_then(|f| f.first_applied)
    }

    /// Sets `spec` on this channel at `now`, replacing any previous fault.
    /// `healthy` clears. On error the channel is unchanged.
    pub fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), FaultError> {
        if spec.mode == FaultSpec::HEALTHY {
            self.fault = None;
            return Ok(());
        }
        let stage = build_stage(spec, &self.name, self.kind)?;
        self.fault = Some(ActiveFault { spec: spec.clone(), stage, requested: now, first_applied: None });
        Ok(())
    }

    /// Removes the fault. Messages already queued are still released on time.
    pub fn clear(&mut self) {
        self.fault = None;
    }

    /// Feeds one sensor message received at `now` through the fault.
    pub fn push(&mut self, msg: SensorMsg, now: Duration, rng: &mut FaultRng) {
        self.stats.messages_in += 1;
        if let Some(f) = &self.fault {
            if f.spec.duration_s > 0.0 && now >= f.requested + Duration::from_secs_f64(f.spec.duration_s) {
                self.fault = None;
            }
        }
        let Some(fault) = self.fault.as_mut() else {
            self.queue.push(now, now, msg);
            return;
        };
        let in_x = match &msg {
            SensorMsg::Odometry(o) => Some(o.pose.pose.position.x),
            _ => None,
        };
        let outputs = fault.stage.apply(msg, now, rng);
        fault.first_applied.get_or_insert(now);
        for (delay, out) in outputs {
            if let (Some(ix), SensorMsg::Odometry(o)) = (in_x, &out) {
                if ix.abs() >= 1e-3 {
                    self.stats.ratio_x_sum += o.pose.pose.position.x / ix;
                    self.stats.ratio_x_n += 1;
                }
            }
            self.queue.push(now + delay, now, out);
        }
    }

    /// Releases every message due at `now`.
    pub fn poll(&mut self, now: Duration) -> Vec<SensorMsg> {
        let due = self.queue.pop_due(now);
        let mut out = Vec::with_capacity(due.len());
        for (received, msg) in due {
            let lat = (now - received).as_secs_f64();
            self.stats.messages_out += 1;
            self.stats.latency_sum_s += lat;
            self.stats.latency_max_s = self.stats.latency_max_s.max(lat);
            out.push(msg);
        }
        out
    }
}

/// A set of named channels, in declaration order.
#[derive(Default)]
pub struct Injector {
    channels: Vec<Channel>,
}

impl Injector {
    /// An injector over `channels`.
    pub fn new(channels: Vec<Channel>) -> Self {
        Self { channels }
    }
    /// The channel named `name`.
    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name == name)
    }
    /// The channel named `name`, or [`FaultError::UnknownChannel`].
    pub fn channel_mut(&mut self, name: &str) -> Result<&mut Channel, FaultError> {
        self.channels
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| FaultError::UnknownChannel(name.to_string()))
    }
    /// All channels in declaration order.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }
    /// Sets a fault on the channel `spec.channel`; other channels are untouched.
    pub fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), FaultError> {
        self.channel_mut(&spec.channel)?.set_fault(spec, now)
    }
    /// Clears every channel's fault.
    pub fn clear_faults(&mut self) {
        for c in &mut self.channels {
            c.clear();
        }
    }
}
