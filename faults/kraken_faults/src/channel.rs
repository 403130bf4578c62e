//! Channels: a fault stage plus the queue that releases its output on time.

use std::borrow::Cow;
use std::time::Duration;

use kraken_interfaces::ros::{Header, Time, Transform, TransformStamped, Vector3};
use kraken_interfaces::{ChannelFaultStatus, FaultSpec};

pub use crate::activation::Activation;
use crate::config::{HoldLimits, OverflowPolicy, TfKeepaliveConfig};
pub use crate::queue::{held_bytes, DelayQueue};
use crate::{build_stage, FaultError, FaultRng, FaultStage, MsgKind, Probe, SensorMsg};

mod injector;

pub use injector::{channel_rng, channel_stream, Injector};

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
    /// Panics contained inside this channel's fault stage (belt and braces:
    /// every parameter is validated at set time). Each cleared the fault and
    /// passed the message on unchanged.
    pub stage_panics: u32,
    /// The last contained panic's message.
    pub stage_error: Option<String>,
    /// Held messages dropped because the hold queue reached its cap
    /// ([`HoldLimits`]), oldest first.
    pub messages_dropped_overflow: u64,
}

impl ChannelStats {
    /// Mean delivered latency in seconds, or `None` before the first release.
    pub fn mean_latency_s(&self) -> Option<f64> {
        (self.messages_out > 0).then(|| self.latency_sum_s / self.messages_out as f64)
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
    limits: HoldLimits,
    /// The queue is dropping messages (a burst); WARN once per burst.
    overflowing: bool,
    /// Per-message provenance, when recorded ([`Channel::record_provenance`]).
    touches: crate::provenance::ProvenanceLog,
}

pub(crate) fn to_time(d: Duration) -> Time {
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
            limits: HoldLimits::DEFAULT,
            overflowing: false,
            touches: Default::default(),
        }
    }
    /// Starts (or stops, discarding what was recorded) recording which fault
    /// touched each message ([`crate::provenance`]).
    pub fn record_provenance(&mut self, on: bool) {
        self.touches.set(on);
    }
    /// The provenance recorded since the last call (empty when not recording).
    pub fn take_touches(&mut self) -> Vec<crate::Touch> {
        self.touches.take()
    }
    /// Records one touched output of input `seq` (see [`crate::provenance`]).
    fn touch(&mut self, seq: u64, now: Duration, output: Option<(usize, Duration)>, changed: bool) {
        if !self.touches.is_on() {
            return;
        }
        let mode = self.record.as_ref().map_or("?", |r| {
            kraken_interfaces::mode_name(r.spec.mode).unwrap_or("?")
        });
        self.touches.push(crate::Touch {
            channel: self.name.clone(),
            seq,
            received: now,
            output: output.map(|o| o.0),
            released: output.map(|o| now.saturating_add(o.1)),
            changed,
            faults: vec![mode.to_string()],
        });
    }
    /// Sets the hold queue's caps (default [`HoldLimits::DEFAULT`]).
    pub fn with_hold_limits(mut self, limits: HoldLimits) -> Self {
        self.limits = limits;
        self
    }
    /// The hold queue's caps.
    pub fn hold_limits(&self) -> &HoldLimits {
        &self.limits
    }
    /// Estimated bytes the hold queue holds now.
    pub fn held_bytes(&self) -> u64 {
        self.queue.bytes()
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
    /// on `/tf` at `tf_rate_hz` (REQ-FAULT-DROPOUT-WHEEL: the TF chain must stay alive).
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
        let stage = build_stage(spec, &self.name, self.kind)?;
        self.install(spec, stage, now, rng)
    }

    /// Sets a caller-built `stage` (a custom fault model) under `spec`'s
    /// activation fields and record, as [`Channel::set_fault`] does for the
    /// built-in modes. The stage runs under the same panic containment.
    ///
    /// # Errors
    /// Those of [`Activation::from_spec`]; on error the channel is unchanged.
    pub fn set_stage(
        &mut self,
        spec: &FaultSpec,
        stage: Box<dyn FaultStage>,
        now: Duration,
    ) -> Result<(), FaultError> {
        self.install(spec, stage, now, None)
    }

    fn install(
        &mut self,
        spec: &FaultSpec,
        mut stage: Box<dyn FaultStage>,
        now: Duration,
        rng: Option<&mut FaultRng>,
    ) -> Result<(), FaultError> {
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
        self.ingest(Cow::Owned(msg), now, rng, None);
    }

    /// [`Channel::push`] of `msg` (if any) then [`Channel::poll`] at `now`,
    /// handing each released message to `deliver` in release order, without
    /// queueing what is due at once: the messages already due are released
    /// first, then the input's zero-delay outputs (or the input itself on a
    /// healthy channel) are passed straight through by reference. Statistics,
    /// probes and order are those of `push` + `poll`. `msg` is borrowed: it
    /// is copied only where the fault keeps or changes it (a hold, a stage's
    /// input), so a healthy channel moves no message at all (the in-process
    /// loop's fast path, REQ-PERF-LOOP).
    pub fn relay(
        &mut self,
        msg: Option<&SensorMsg>,
        now: Duration,
        rng: &mut FaultRng,
        mut deliver: impl FnMut(&SensorMsg),
    ) {
        for m in self.poll(now) {
            deliver(&m);
        }
        if let Some(msg) = msg {
            self.ingest(Cow::Borrowed(msg), now, rng, Some(&mut deliver));
        }
    }

    /// The message path of [`Channel::push`]; with `direct`, outputs due at
    /// `now` are released to it instead of queued (only valid when nothing
    /// due at or before `now` is still queued).
    fn ingest(
        &mut self,
        msg: Cow<'_, SensorMsg>,
        now: Duration,
        rng: &mut FaultRng,
        mut direct: Option<&mut dyn FnMut(&SensorMsg)>,
    ) {
        self.stats.messages_in += 1;
        let seq = self.stats.messages_in - 1;
        self.seen = self.seen.max(now);
        self.expire(now);
        if self.kind == MsgKind::Odometry && self.tf_keepalive.is_some() {
            self.last_input = Some(msg.as_ref().clone());
        }
        let active = match self.fault.as_mut() {
            Some(f) => {
                f.activation.draw_phase(rng);
                f.activation.admit(now)
            }
            None => false,
        };
        // An identity stage would output `[(0, msg)]`: its statistics and
        // probes as below, without the call and the input's copy.
        let identity = active && self.fault.as_ref().is_some_and(|f| f.stage.is_identity());
        if identity {
            if let Some(r) = self.record.as_mut() {
                r.first_applied.get_or_insert(now);
            }
            // Computed once per message (a NaN field makes it unequal to
            // itself, see `SensorMsg::self_unequal`).
            let unequal = msg.self_unequal();
            self.stats.messages_faulted += u64::from(unequal);
            if unequal {
                self.touch(seq, now, Some((0, Duration::ZERO)), true);
            }
            for p in &mut self.probes {
                p.on_apply(&msg, &msg);
            }
        }
        if !active || identity {
            // A message a reorder holds goes out right after this one once
            // the message window is used up (it would wait forever).
            let held = self
                .fault
                .as_mut()
                .filter(|f| !active && f.activation.messages_exhausted())
                .and_then(|f| f.stage.take_held());
            match direct.as_mut() {
                Some(deliver) => {
                    self.count_release(0.0);
                    deliver(&msg);
                    if let Some(h) = held {
                        self.count_release(0.0);
                        deliver(&h);
                    }
                }
                None => {
                    self.hold(now, now, msg.into_owned());
                    if let Some(h) = held {
                        self.hold(now, now, h);
                    }
                }
            }
            return;
        }
        let fault = self.fault.as_mut().expect("active implies a fault");
        // The stage consumes a copy; `input` stays for the comparisons, the
        // probes and a panic's pass-through.
        let input = msg;
        let owned = input.as_ref().clone();
        // Contain a panic inside the stage: this channel's fault is cleared
        // and the message passes on; the other channels are not touched.
        let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fault.stage.apply(owned, now, rng)
        }));
        let outputs = match applied {
            Ok(o) => o,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".into());
                let mode = self.record.as_ref().map_or("?", |r| {
                    kraken_interfaces::mode_name(r.spec.mode).unwrap_or("?")
                });
                tracing::error!(
                    "channel {}: fault stage '{mode}' panicked ({what}); fault cleared, \
                     message passed on unchanged",
                    self.name
                );
                self.stats.stage_panics = self.stats.stage_panics.saturating_add(1);
                self.stats.stage_error = Some(format!("{mode}: {what}"));
                self.end_fault(now, now);
                self.hold(now, now, input.into_owned());
                return;
            }
        };
        let input: &SensorMsg = &input;
        if let Some(r) = self.record.as_mut() {
            r.first_applied.get_or_insert(now);
        }
        let unchanged =
            outputs.len() == 1 && outputs[0].0.is_zero() && bit_eq(&outputs[0].1, input);
        if !unchanged {
            self.stats.messages_faulted += 1;
        }
        if outputs.is_empty() {
            self.touch(seq, now, None, false);
        }
        for (k, (delay, out)) in outputs.into_iter().enumerate() {
            if self.touches.is_on() {
                let changed = !bit_eq(&out, input);
                if k > 0 || changed || !delay.is_zero() {
                    self.touch(seq, now, Some((k, delay)), changed);
                }
            }
            for p in &mut self.probes {
                p.on_apply(input, &out);
            }
            match direct.as_mut() {
                Some(deliver) if delay.is_zero() => {
                    self.count_release(0.0);
                    deliver(&out);
                }
                // Delays are bounded by MAX_HOLD_S; saturate rather than panic
                // should a host clock ever sit near Duration::MAX.
                _ => self.hold(now.saturating_add(delay), now, out),
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

    /// Queues `msg` until `release` and applies the hold caps: on overflow
    /// the message due first is dropped ([`OverflowPolicy::DropOldest`]),
    /// counted, and a WARN logged once per burst (a burst ends at the first
    /// push that does not overflow).
    fn hold(&mut self, release: Duration, received: Duration, msg: SensorMsg) {
        self.queue.push(release, received, msg);
        let OverflowPolicy::DropOldest = self.limits.overflow;
        let n = self.queue.enforce(
            self.limits.max_held_messages as usize,
            self.limits.max_held_bytes,
        );
        if n == 0 {
            self.overflowing = false;
            return;
        }
        self.stats.messages_dropped_overflow += n as u64;
        if !self.overflowing {
            self.overflowing = true;
            tracing::warn!(
                "channel {}: hold queue full ({} messages, {} bytes held; caps {} messages, {} \
                 bytes): dropping the oldest held messages (counted in messages_dropped_overflow; \
                 logged once per burst)",
                self.name,
                self.queue.len(),
                self.queue.bytes(),
                self.limits.max_held_messages,
                self.limits.max_held_bytes
            );
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
        let expired = self
            .fault
            .as_ref()
            .filter(|f| f.activation.expired(now))
            .and_then(|f| f.activation.expires_at());
        let (fault, requested, first_applied, cleared) =
            record_status(self.record.as_ref(), &self.name, expired);
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
            messages_dropped_overflow: self.stats.messages_dropped_overflow,
            messages_held: self.queue.len().min(u32::MAX as usize) as u32,
            bytes_held: self.queue.bytes(),
            stage_panics: self.stats.stage_panics,
            stage_error: self.stats.stage_error.clone().unwrap_or_default(),
        }
    }
}

/// The `fault`, `requested`, `first_applied` and `cleared` fields of a
/// `ChannelFaultStatus` for the fault `record` of channel `channel` (mode
/// HEALTHY and zero times without one); `expired` is the end of its window
/// once past, reported as `cleared` while the record has none. Shared by
/// [`Channel::status`] and [`DynChannel::fault_status`](crate::DynChannel::fault_status).
pub(crate) fn record_status(
    record: Option<&FaultRecord>,
    channel: &str,
    expired: Option<Duration>,
) -> (FaultSpec, Time, Time, Time) {
    let t = |d: Option<Duration>| d.map_or(Time::default(), to_time);
    match record {
        Some(r) => (
            r.spec.clone(),
            to_time(r.requested),
            t(r.first_applied),
            t(r.cleared.or(expired)),
        ),
        None => (
            FaultSpec::new(channel.to_string(), FaultSpec::HEALTHY),
            Time::default(),
            Time::default(),
            Time::default(),
        ),
    }
}
