//! Channels: a fault stage plus the queue that releases its output on time.

use std::collections::BTreeMap;
use std::time::Duration;

use kraken_interfaces::ros::{Header, Time, Transform, TransformStamped, Vector3};
use kraken_interfaces::{ChannelFaultStatus, FaultSpec, FaultStatus};
use rand::RngExt;

use crate::config::{ChannelsConfig, TfKeepaliveConfig};
use crate::stage::MAX_TIME_S;
use crate::{build_stage, FaultError, FaultRng, FaultStage, MsgKind, Probe, SensorMsg};

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
    /// Removes every message due strictly after `t` (what a fault is still
    /// holding at `t`) and returns how many there were. Messages due at or
    /// before `t` stay, to be released by the next [`DelayQueue::pop_due`].
    pub fn drop_after(&mut self, t: Duration) -> usize {
        // Keys are (release, seq); everything from (t, u64::MAX) on is later.
        let later = self.items.split_off(&(t, u64::MAX));
        later.len()
    }
    /// Release time of the earliest held message, if any.
    pub fn next_release(&self) -> Option<Duration> {
        self.items.first_key_value().map(|(k, _)| k.0)
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
    /// Messages an active fault changed, withheld, delayed or added (an input
    /// whose output is not exactly one identical message released at once).
    pub messages_faulted: u64,
    /// Messages a fault was still holding (delay, jitter, reorder) when it
    /// was cleared, replaced or expired: dropped, never released. Each was
    /// already counted in `messages_faulted` when it entered the fault.
    pub messages_dropped_on_clear: u64,
}

impl ChannelStats {
    /// Mean delivered latency in seconds, or `None` before the first release.
    pub fn mean_latency_s(&self) -> Option<f64> {
        (self.messages_out > 0).then(|| self.latency_sum_s / self.messages_out as f64)
    }
}

/// When a fault acts (seed 004, "Usterki trwałe, przejściowe i
/// intermittent"), measured from the time it was set.
///
/// * permanent: `duration_s = 0`, active until cleared;
/// * transient: `duration_s > 0`, active on [set, set + duration_s]
///   (end inclusive), then the channel reverts to healthy and records the
///   expiry as its `cleared` time;
/// * intermittent: `period_s > 0`, active while
///   `((t - set) + phase) mod period_s < duty_cycle * period_s`, where
///   `phase` is 0, or with `random_phase` a seeded uniform draw in
///   [0, period_s) made once (at `set_fault_seeded`, or at the first message
///   after a plain `set_fault`). Intermittent and transient combine: the
///   pattern repeats until `duration_s` elapses.
#[derive(Debug, Clone, PartialEq)]
pub struct Activation {
    pub set_at: Duration,
    pub duration: Option<Duration>,
    pub period_s: f64,
    pub duty_cycle: f64,
    pub random_phase: bool,
    /// Phase offset in seconds; `None` until drawn when `random_phase`.
    pub phase_s: Option<f64>,
}

impl Activation {
    /// Validates the activation fields of `spec`, set at `now`.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] for a `duration_s`/`period_s` that is
    /// not finite or outside [0, [`MAX_TIME_S`]] s, or a `duty_cycle` outside
    /// (0, 1] when `period_s > 0`.
    pub fn from_spec(spec: &FaultSpec, now: Duration) -> Result<Self, FaultError> {
        let mode = kraken_interfaces::mode_name(spec.mode).unwrap_or("unknown");
        let bad = |field: &'static str, value: f64, reason: &str| FaultError::InvalidParameter {
            mode,
            field,
            value,
            reason: reason.into(),
        };
        let in_range = |v: f64| v.is_finite() && (0.0..=MAX_TIME_S).contains(&v);
        if !in_range(spec.duration_s) {
            return Err(bad(
                "duration_s",
                spec.duration_s,
                &format!("must be finite and in [0, {MAX_TIME_S}] s (0 = until cleared)"),
            ));
        }
        if !in_range(spec.period_s) {
            return Err(bad(
                "period_s",
                spec.period_s,
                &format!("must be finite and in [0, {MAX_TIME_S}] s (0 = not intermittent)"),
            ));
        }
        if spec.period_s > 0.0 && !(spec.duty_cycle > 0.0 && spec.duty_cycle <= 1.0) {
            return Err(bad(
                "duty_cycle",
                spec.duty_cycle,
                "must be in (0, 1] when period_s > 0",
            ));
        }
        Ok(Self {
            set_at: now,
            duration: (spec.duration_s > 0.0).then(|| Duration::from_secs_f64(spec.duration_s)),
            period_s: spec.period_s,
            duty_cycle: spec.duty_cycle,
            random_phase: spec.random_phase && spec.period_s > 0.0,
            phase_s: if spec.random_phase && spec.period_s > 0.0 {
                None
            } else {
                Some(0.0)
            },
        })
    }
    /// Draws the random phase if it is still undrawn.
    pub fn draw_phase(&mut self, rng: &mut FaultRng) {
        if self.phase_s.is_none() {
            self.phase_s = Some(rng.random_range(0.0..self.period_s));
        }
    }
    /// When a transient fault expires, if it does.
    pub fn expires_at(&self) -> Option<Duration> {
        self.duration.map(|d| self.set_at.saturating_add(d))
    }
    /// True when the transient window has passed at `now`.
    pub fn expired(&self, now: Duration) -> bool {
        self.expires_at().is_some_and(|e| now > e)
    }
    /// True when the fault acts at `now` (an undrawn phase counts as 0).
    pub fn is_active(&self, now: Duration) -> bool {
        if now < self.set_at || self.expired(now) {
            return false;
        }
        if self.period_s <= 0.0 {
            return true;
        }
        let t = (now - self.set_at).as_secs_f64() + self.phase_s.unwrap_or(0.0);
        t.rem_euclid(self.period_s) < self.duty_cycle * self.period_s
    }
}

/// The history of the last fault set on a channel (kept after it is cleared,
/// for status).
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRecord {
    /// The spec as requested.
    pub spec: FaultSpec,
    /// When `set_fault` accepted it.
    pub requested: Duration,
    /// When it first acted on a message (the stage saw a message while
    /// active); `None` until then.
    pub first_applied: Option<Duration>,
    /// When it was cleared, replaced or expired; `None` while set.
    pub cleared: Option<Duration>,
}

struct ActiveFault {
    stage: Box<dyn FaultStage>,
    activation: Activation,
}

/// One named channel: its message type, its current fault and its queue.
pub struct Channel {
    name: String,
    kind: MsgKind,
    fault: Option<ActiveFault>,
    record: Option<FaultRecord>,
    queue: DelayQueue,
    stats: ChannelStats,
    last_input: Option<SensorMsg>,
    tf_keepalive: Option<TfKeepaliveConfig>,
    /// Measurers of the delivered stream (see [`crate::probe`]).
    probes: Vec<Box<dyn Probe>>,
    /// Latest clock time the channel has been given (push, poll, set, clear).
    seen: Duration,
}

fn to_time(d: Duration) -> Time {
    Time::from_nanos(d.as_nanos().min(i64::MAX as u128) as i64)
}

/// Equality for the `messages_faulted` counter. A message carrying NaN is
/// never equal to itself under `PartialEq`, so an unchanged NaN message under
/// an active fault counts as faulted (over-counts, never under-counts).
fn bit_eq(a: &SensorMsg, b: &SensorMsg) -> bool {
    a == b
}

impl Channel {
    /// A healthy channel.
    pub fn new(name: impl Into<String>, kind: MsgKind) -> Self {
        Self {
            name: name.into(),
            kind,
            fault: None,
            record: None,
            queue: DelayQueue::default(),
            stats: ChannelStats::default(),
            last_input: None,
            tf_keepalive: None,
            probes: Vec::new(),
            seen: Duration::ZERO,
        }
    }
    /// Adds a probe of the delivered stream (see [`crate::probe`]).
    pub fn with_probe(mut self, probe: Box<dyn Probe>) -> Self {
        self.probes.push(probe);
        self
    }
    /// Adds a probe to an existing channel.
    pub fn add_probe(&mut self, probe: Box<dyn Probe>) {
        self.probes.push(probe);
    }
    /// The probes, in the order added.
    pub fn probes(&self) -> &[Box<dyn Probe>] {
        &self.probes
    }
    /// Enables the odom→base_link keep-alive during dropout (odometry only;
    /// the config loader checks that).
    pub fn with_tf_keepalive(mut self, cfg: Option<TfKeepaliveConfig>) -> Self {
        self.tf_keepalive = cfg;
        self
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
    /// The fault currently set (`None` when healthy, cleared or expired).
    pub fn fault(&self) -> Option<&FaultSpec> {
        self.fault
            .as_ref()
            .and(self.record.as_ref())
            .map(|r| &r.spec)
    }
    /// When the current fault first touched a message, if it has (`None`
    /// when no fault is set).
    pub fn first_applied(&self) -> Option<Duration> {
        self.fault
            .as_ref()
            .and(self.record.as_ref())
            .and_then(|r| r.first_applied)
    }
    /// When the last fault was cleared, replaced or expired (`None` while it
    /// is set or if none was ever set).
    pub fn cleared(&self) -> Option<Duration> {
        self.record.as_ref().and_then(|r| r.cleared)
    }
    /// The last fault's record, kept after it is cleared.
    pub fn record(&self) -> Option<&FaultRecord> {
        self.record.as_ref()
    }
    /// The current fault's activation pattern, if a fault is set.
    pub fn activation(&self) -> Option<&Activation> {
        self.fault.as_ref().map(|f| &f.activation)
    }
    /// True when a fault is set and acts at `now` (false after expiry and in
    /// the off phase of an intermittent fault).
    pub fn is_active(&self, now: Duration) -> bool {
        self.fault
            .as_ref()
            .is_some_and(|f| f.activation.is_active(now))
    }
    /// Odometry channels with a `tf_keepalive`: the last message received
    /// from the sensor (before any fault), for the TF keep-alive during a
    /// dropout. Other channels do not keep a copy (no per-message clone on
    /// the hot path): `None`.
    pub fn last_input(&self) -> Option<&SensorMsg> {
        self.last_input.as_ref()
    }
    /// The keep-alive setting from channels.yaml, if any.
    pub fn tf_keepalive(&self) -> Option<&TfKeepaliveConfig> {
        self.tf_keepalive.as_ref()
    }
    /// During an active dropout on an odometry channel with `tf_keepalive`:
    /// the last received odometry as an odom→base_link transform
    /// (`header.frame_id` → `child_frame_id`, translation = pose position,
    /// rotation = pose orientation) stamped `now`, for the host to broadcast
    /// on `/tf` at `tf_rate_hz` (seed 001: the TF chain must stay alive).
    /// `None` otherwise.
    pub fn keepalive_transform(&self, now: Duration) -> Option<TransformStamped> {
        self.tf_keepalive.as_ref()?;
        let f = self.fault.as_ref()?;
        let spec = &self.record.as_ref()?.spec;
        if spec.mode != FaultSpec::DROPOUT || !f.activation.is_active(now) {
            return None;
        }
        let SensorMsg::Odometry(o) = self.last_input.as_ref()? else {
            return None;
        };
        let p = o.pose.pose.position;
        Some(TransformStamped {
            header: Header {
                stamp: to_time(now),
                frame_id: o.header.frame_id.clone(),
            },
            child_frame_id: o.child_frame_id.clone(),
            transform: Transform {
                translation: Vector3 {
                    x: p.x,
                    y: p.y,
                    z: p.z,
                },
                rotation: o.pose.pose.orientation,
            },
        })
    }

    fn end_record(&mut self, now: Duration) {
        if let Some(r) = self.record.as_mut() {
            if self.fault.is_some() && r.cleared.is_none() {
                r.cleared = Some(now);
            }
        }
    }

    /// Ends the current fault (if any): its record gets `cleared = at`, and
    /// the messages it still holds (due after `drop_after`) are dropped and
    /// counted in [`ChannelStats::messages_dropped_on_clear`].
    fn end_fault(&mut self, at: Duration, drop_after: Duration) {
        if self.fault.is_some() {
            let n = self.queue.drop_after(drop_after);
            self.stats.messages_dropped_on_clear += n as u64;
        }
        self.end_record(at);
        self.fault = None;
    }

    /// Sets `spec` on this channel at `now`, replacing any previous fault
    /// (whose record gets `cleared = now`, and whose held messages are
    /// dropped as by [`Channel::clear_at`]). `healthy` clears. A random phase
    /// is drawn at the first message (see [`Activation`]).
    ///
    /// # Errors
    /// Those of [`build_stage`] and [`Activation::from_spec`]; on error the
    /// channel is unchanged.
    pub fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), FaultError> {
        self.set_fault_inner(spec, now, None)
    }

    /// As [`Channel::set_fault`], drawing an intermittent random phase from
    /// `rng` now.
    pub fn set_fault_seeded(
        &mut self,
        spec: &FaultSpec,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Result<(), FaultError> {
        self.set_fault_inner(spec, now, Some(rng))
    }

    fn set_fault_inner(
        &mut self,
        spec: &FaultSpec,
        now: Duration,
        rng: Option<&mut FaultRng>,
    ) -> Result<(), FaultError> {
        if spec.mode == FaultSpec::HEALTHY {
            self.clear_at(now);
            return Ok(());
        }
        let mut stage = build_stage(spec, &self.name, self.kind)?;
        let mut activation = Activation::from_spec(spec, now)?;
        self.seen = self.seen.max(now);
        if let Some(rng) = rng {
            activation.draw_phase(rng);
        }
        stage.on_set(now);
        self.end_fault(now, now);
        self.fault = Some(ActiveFault { stage, activation });
        self.record = Some(FaultRecord {
            spec: spec.clone(),
            requested: now,
            first_applied: None,
            cleared: None,
        });
        Ok(())
    }

    /// Removes the fault, as [`Channel::clear_at`] at the latest clock time
    /// the channel has been given (by push, poll, set_fault); prefer
    /// [`Channel::clear_at`] when the host knows the time.
    pub fn clear(&mut self) {
        self.clear_at(self.seen);
    }

    /// Removes the fault and records `now` as its clear time. A cleared fault
    /// stops affecting the stream: the messages it still holds (delay,
    /// jitter, reorder; release time after `now`) are dropped, never
    /// released, and counted in [`ChannelStats::messages_dropped_on_clear`]
    /// (they were counted as faulted when they entered the fault). Messages
    /// already due at `now` are released by the next poll. Without a fault
    /// set, nothing is dropped.
    pub fn clear_at(&mut self, now: Duration) {
        self.seen = self.seen.max(now);
        self.end_fault(now, now);
    }

    /// Reverts an expired transient fault to healthy, recording the expiry
    /// time (set + duration_s) as `cleared`. Its held messages due after
    /// `now` are dropped (those due by `now` are released by this poll).
    fn expire(&mut self, now: Duration) {
        if let Some(end) = self
            .fault
            .as_ref()
            .filter(|f| f.activation.expired(now))
            .and_then(|f| f.activation.expires_at())
        {
            self.seen = self.seen.max(now);
            self.end_fault(end, now);
        }
    }

    /// Feeds one sensor message received at `now` through the fault.
    pub fn push(&mut self, msg: SensorMsg, now: Duration, rng: &mut FaultRng) {
        self.ingest(msg, now, rng, None);
    }

    /// [`Channel::push`] of `msg` (if any) then [`Channel::poll`] at `now`,
    /// handing each released message to `deliver` in release order, without
    /// queueing what is due at once: the messages already due are released
    /// first, then the input's zero-delay outputs (or the input itself on a
    /// healthy channel) are passed straight through by reference. Statistics,
    /// probes and order are those of `push` + `poll`.
    pub fn relay(
        &mut self,
        msg: Option<SensorMsg>,
        now: Duration,
        rng: &mut FaultRng,
        mut deliver: impl FnMut(&SensorMsg),
    ) {
        for m in self.poll(now) {
            deliver(&m);
        }
        if let Some(msg) = msg {
            self.ingest(msg, now, rng, Some(&mut deliver));
        }
    }

    /// The message path of [`Channel::push`]; with `direct`, outputs due at
    /// `now` are released to it instead of queued (only valid when nothing
    /// due at or before `now` is still queued).
    fn ingest(
        &mut self,
        msg: SensorMsg,
        now: Duration,
        rng: &mut FaultRng,
        mut direct: Option<&mut dyn FnMut(&SensorMsg)>,
    ) {
        self.stats.messages_in += 1;
        self.seen = self.seen.max(now);
        self.expire(now);
        if self.kind == MsgKind::Odometry && self.tf_keepalive.is_some() {
            self.last_input = Some(msg.clone());
        }
        let active = match self.fault.as_mut() {
            Some(f) => {
                f.activation.draw_phase(rng);
                f.activation.is_active(now)
            }
            None => false,
        };
        if !active {
            match direct {
                Some(deliver) => {
                    self.count_release(0.0);
                    deliver(&msg);
                }
                None => self.queue.push(now, now, msg),
            }
            return;
        }
        let fault = self.fault.as_mut().expect("active implies a fault");
        let input = msg.clone();
        let outputs = fault.stage.apply(msg, now, rng);
        if let Some(r) = self.record.as_mut() {
            r.first_applied.get_or_insert(now);
        }
        let unchanged =
            outputs.len() == 1 && outputs[0].0.is_zero() && bit_eq(&outputs[0].1, &input);
        if !unchanged {
            self.stats.messages_faulted += 1;
        }
        for (delay, out) in outputs {
            for p in &mut self.probes {
                p.on_apply(&input, &out);
            }
            match direct.as_mut() {
                Some(deliver) if delay.is_zero() => {
                    self.count_release(0.0);
                    deliver(&out);
                }
                // Delays are bounded by MAX_HOLD_S; saturate rather than panic
                // should a host clock ever sit near Duration::MAX.
                _ => self.queue.push(now.saturating_add(delay), now, out),
            }
        }
    }

    /// Counts one released message, `lat` seconds after it was received.
    fn count_release(&mut self, lat: f64) {
        self.stats.messages_out += 1;
        self.stats.latency_sum_s += lat;
        self.stats.latency_max_s = self.stats.latency_max_s.max(lat);
        for p in &mut self.probes {
            p.on_release(lat);
        }
    }

    /// Releases every message due at `now`.
    pub fn poll(&mut self, now: Duration) -> Vec<SensorMsg> {
        self.seen = self.seen.max(now);
        self.expire(now);
        let due = self.queue.pop_due(now);
        let mut out = Vec::with_capacity(due.len());
        for (received, msg) in due {
            self.count_release(now.saturating_sub(received).as_secs_f64());
            out.push(msg);
        }
        out
    }

    /// Messages held in the channel's queue.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// When the earliest held message is due (`None` when nothing is held):
    /// the host's next wake-up for [`Channel::poll`].
    pub fn next_release(&self) -> Option<Duration> {
        self.queue.next_release()
    }

    /// The channel's status at `now` (`kraken_interfaces/msg/ChannelFaultStatus`):
    /// the last requested fault (HEALTHY with this channel's name if none),
    /// whether it acts now, and its requested / first_applied / cleared stamps
    /// (zero = not yet). A transient fault past its window reports
    /// `cleared = set + duration_s` even before the next message.
    pub fn status(&self, now: Duration) -> ChannelFaultStatus {
        let zero = Time::default();
        let (fault, requested, first_applied, cleared) = match &self.record {
            Some(r) => {
                let cleared = r.cleared.or_else(|| {
                    self.fault
                        .as_ref()
                        .filter(|f| f.activation.expired(now))
                        .and_then(|f| f.activation.expires_at())
                });
                (
                    r.spec.clone(),
                    to_time(r.requested),
                    r.first_applied.map_or(zero, to_time),
                    cleared.map_or(zero, to_time),
                )
            }
            None => (
                FaultSpec::new(self.name.clone(), FaultSpec::HEALTHY),
                zero,
                zero,
                zero,
            ),
        };
        ChannelFaultStatus {
            channel: self.name.clone(),
            fault,
            active: self.is_active(now),
            requested,
            first_applied,
            cleared,
            messages_in: self.stats.messages_in,
            messages_out: self.stats.messages_out,
            messages_faulted: self.stats.messages_faulted,
        }
    }
}

/// The fault generator of channel `name` in a run seeded `seed`: ChaCha8
/// seeded with `seed` (`seed_from_u64`), on the stream
/// [`channel_stream`]`(name)`. Each channel draws from its own stream, so
/// adding, removing or reordering channels leaves every other channel's
/// draws unchanged.
pub fn channel_rng(seed: u64, name: &str) -> FaultRng {
    use rand::SeedableRng;
    let mut r = FaultRng::seed_from_u64(seed);
    r.set_stream(channel_stream(name));
    r
}

/// The ChaCha stream id of a channel: the 64-bit FNV-1a hash of its name's
/// UTF-8 bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3; Fowler,
/// Noll, Vo, IETF draft-eastlake-fnv). Stable across platforms, Rust
/// versions and builds (unlike `std`'s `DefaultHasher`).
pub fn channel_stream(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A set of named channels, in declaration order.
pub struct Injector {
    channels: Vec<Channel>,
    enabled: bool,
}

impl Default for Injector {
    fn default() -> Self {
        Self {
            channels: Vec::new(),
            enabled: true,
        }
    }
}

impl Injector {
    /// An injector over `channels`, enabled.
    pub fn new(channels: Vec<Channel>) -> Self {
        Self {
            channels,
            enabled: true,
        }
    }
    /// One healthy channel per entry of `cfg`, in file order, with its
    /// `tf_keepalive` setting.
    pub fn from_config(cfg: &ChannelsConfig) -> Self {
        Self::new(
            cfg.channels
                .iter()
                .map(|c| {
                    Channel::new(c.name.clone(), c.kind).with_tf_keepalive(c.tf_keepalive.clone())
                })
                .collect(),
        )
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
    /// declaration order.
    pub fn status(&self, now: Duration) -> FaultStatus {
        FaultStatus {
            stamp: to_time(now),
            enabled: self.enabled,
            channels: self.channels.iter().map(|c| c.status(now)).collect(),
        }
    }
}
