//! The fault_injector node's fault state and relays: every channel's
//! faults and random streams ([`Faults`], also what `~/reset` rebuilds from
//! the run's seed, REQ-GRAPH-SEED), the typed channels' publishers and the
//! release of what the channels let through, QoS, service-reply bounds and
//! heap trimming.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use breakbench_msgs::TypeRegistry;
use breakbench_ros::qos::{self, Qos};
use breakbench_ros::{Publisher, RawCdr};
use kraken_faults::{
    channel_rng, ChannelsConfig, Durability, DynChannel, FaultRng, Injector, QosConfig,
    Reliability, SensorMsg, TypedStack,
};
use kraken_interfaces::ros::{Imu, LaserScan, NavSatFix, Odometry};

pub(super) enum ChanPub {
    NavSatFix(Publisher<NavSatFix>),
    Imu(Publisher<Imu>),
    Odometry(Publisher<Odometry>),
    LaserScan(Publisher<LaserScan>),
}

impl ChanPub {
    pub(super) fn publish(&self, msg: SensorMsg) -> Result<(), String> {
        let r = match (self, msg) {
            (ChanPub::NavSatFix(p), SensorMsg::NavSatFix(m)) => {
                p.publish(m).map_err(|e| e.to_string())
            }
            (ChanPub::Imu(p), SensorMsg::Imu(m)) => p.publish(m).map_err(|e| e.to_string()),
            (ChanPub::Odometry(p), SensorMsg::Odometry(m)) => {
                p.publish(m).map_err(|e| e.to_string())
            }
            (ChanPub::LaserScan(p), SensorMsg::LaserScan(m)) => {
                p.publish(m).map_err(|e| e.to_string())
            }
            (_, m) => Err(format!(
                "channel released a {} message",
                m.kind().ros_type()
            )),
        };
        r
    }
}

/// Gives freed heap memory back to the OS after the hold queues drain.
///
/// The queues free their messages at once, but glibc keeps freed pages in
/// its arenas (a drained 64 MiB queue of 1 MB scans left the RSS at its peak).
/// When the bytes held by all channels have fallen to at most half of their
/// peak since the last trim, and by at least [`HeapTrim::MIN_DROP`],
/// `malloc_trim(0)` returns the free pages (all arenas).
#[derive(Default)]
pub(super) struct HeapTrim {
    peak: u64,
}

impl HeapTrim {
    const MIN_DROP: u64 = 8 * 1024 * 1024;
    pub(super) fn after(&mut self, held: u64) {
        self.peak = self.peak.max(held);
        if self.peak - held >= Self::MIN_DROP && held <= self.peak / 2 {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            // SAFETY: malloc_trim only releases free memory of the allocator.
            unsafe {
                libc::malloc_trim(0);
            }
            tracing::debug!("heap trimmed: held {held} bytes, peak {}", self.peak);
            self.peak = held;
        }
    }
}

/// Longest `message` a service reply carries, bytes. rustdds 0.15 fails to
/// encode a reply sample of about 64 KiB and more (its reliable writer then
/// keeps resending a malformed sample and the calling client's later replies
/// never arrive; a debug build panics its event loop). Requests are checked
/// before anything is echoed; this bound makes it hold for every reply.
const MAX_REPLY_MESSAGE_BYTES: usize = 1024;

/// `message` cut to [`MAX_REPLY_MESSAGE_BYTES`] at a char boundary, marked
/// with a trailing "…".
pub(super) fn bounded_reply(message: String) -> String {
    if message.len() <= MAX_REPLY_MESSAGE_BYTES {
        return message;
    }
    let mut end = MAX_REPLY_MESSAGE_BYTES - '…'.len_utf8();
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

/// Input QoS (the declared reliability: best effort matches every writer,
/// reliable gives lossless delivery from reliable writers) and output QoS
/// (by default reliable, which matches best-effort and reliable readers;
/// `qos.output` sets it, to inject a QoS mismatch).
pub(super) fn channel_qos(q: &QosConfig) -> (Qos, Qos) {
    let depth = q.depth as usize;
    let sub_qos = match q.reliability {
        Reliability::BestEffort => qos::subscribe(depth),
        Reliability::Reliable => qos::publish().depth(depth),
    };
    let mut pub_qos = qos::publish().depth(depth.max(qos::PUBLISH_DEPTH));
    if let Some(o) = q.output {
        if o.reliability == Reliability::BestEffort {
            pub_qos.reliability = qos::Reliability::BestEffort;
        }
        if o.durability == Durability::TransientLocal {
            pub_qos = pub_qos.transient_local();
        }
        if let Some(d) = o.depth {
            pub_qos = pub_qos.depth(d as usize);
        }
    }
    (sub_qos, pub_qos)
}

/// The fault stack of channel `name`: a dynamic channel's, or a typed
/// channel's (run after its typed fault).
pub(super) fn stack_of<'a>(
    dyns: &'a mut [DynChannel],
    typed: &'a mut [TypedStack],
    name: &str,
) -> Option<&'a mut DynChannel> {
    match dyns.iter_mut().find(|d| d.name == name) {
        Some(d) => Some(d),
        None => typed
            .iter_mut()
            .map(TypedStack::stack_mut)
            .find(|d| d.name == name),
    }
}

pub(super) fn unknown_channel(name: &str, typed: &[String], dyns: &[DynChannel]) -> String {
    let known: Vec<&str> = typed
        .iter()
        .map(String::as_str)
        .chain(dyns.iter().map(|d| d.name.as_str()))
        .collect();
    format!("unknown channel '{name}' (channels: {known:?})")
}

/// The typed channels' stacks and their random streams.
/// Every channel's fault state and random streams, as at start-up (also
/// what `~/reset` goes back to).
pub(super) struct Faults {
    pub(super) injector: Injector,
    /// One fault stream per typed channel, from the seed and the channel
    /// name (as in-process: adding a channel changes no other channel's draws).
    pub(super) rngs: Vec<FaultRng>,
    /// Typed channels' stacks (after the typed fault), each on its own
    /// random stream `<name>/stack` (the typed fault's draws do not move).
    pub(super) typed: TypedStacks,
    pub(super) dyns: Vec<DynChannel>,
    pub(super) dyn_rngs: Vec<FaultRng>,
}

impl Faults {
    pub(super) fn new(cfg: &ChannelsConfig, reg: &Arc<TypeRegistry>, seed: u64) -> Result<Self> {
        let mut typed = TypedStacks {
            stacks: Vec::new(),
            rngs: Vec::new(),
        };
        for c in &cfg.channels {
            typed.stacks.push(
                TypedStack::new(&c.name, c.kind, reg.clone(), cfg.hold_limits_of(c))
                    .map_err(|e| anyhow::anyhow!("channel {}: {e}", c.name))?,
            );
            typed
                .rngs
                .push(channel_rng(seed, &format!("{}/stack", c.name)));
        }
        let mut dyns = Vec::new();
        for c in &cfg.dynamic_channels {
            dyns.push(
                DynChannel::new(c, reg.clone(), cfg.dynamic_hold_limits_of(c))
                    .map_err(|e| anyhow::anyhow!("channel {}: {e}", c.name))?,
            );
        }
        Ok(Self {
            injector: Injector::from_config(cfg),
            rngs: cfg
                .channels
                .iter()
                .map(|c| channel_rng(seed, &c.name))
                .collect(),
            typed,
            dyns,
            dyn_rngs: cfg
                .dynamic_channels
                .iter()
                .map(|c| channel_rng(seed, &c.name))
                .collect(),
        })
    }
}

pub(super) struct TypedStacks {
    pub(super) stacks: Vec<TypedStack>,
    pub(super) rngs: Vec<FaultRng>,
}

pub(super) fn release_dyn(d: &mut DynChannel, p: &Publisher<RawCdr>, now: Duration) {
    warn_overflow(d);
    let errors = (d.decode_errors, d.encode_errors);
    for m in d.poll(now) {
        if let Err(e) = p.publish(RawCdr(m)) {
            tracing::warn!("channel {}: publish failed: {e}", d.name);
        }
    }
    if (d.decode_errors, d.encode_errors) != errors {
        tracing::warn!(
            "channel {}: {}",
            d.name,
            d.last_error.as_deref().unwrap_or("codec error")
        );
    }
}

/// A stack's hold-queue overflow: WARN once per burst (the first drop after
/// a release without one).
pub(super) fn warn_overflow(d: &mut DynChannel) {
    if d.dropped_overflow != d.overflow_seen {
        if !d.overflow_burst {
            tracing::warn!(
                "channel {}: hold queue full, dropping the held message due first \
                 ({} dropped so far; hold_limits in channels.yaml)",
                d.name,
                d.dropped_overflow
            );
        }
        d.overflow_burst = true;
        d.overflow_seen = d.dropped_overflow;
    } else {
        d.overflow_burst = false;
    }
}

/// Publishes what typed channel `i` releases at `now`: its typed fault's
/// output through its stack (by value while no stage is active).
pub(super) fn release(
    injector: &mut Injector,
    pubs: &[ChanPub],
    names: &[String],
    typed: &mut TypedStacks,
    i: usize,
    now: Duration,
) {
    let out = match injector.poll(&names[i], now) {
        Ok(o) => o,
        Err(e) => {
            tracing::warn!("channel {}: {e}", names[i]);
            return;
        }
    };
    let (stack, rng) = (&mut typed.stacks[i], &mut typed.rngs[i]);
    warn_overflow(stack.stack_mut());
    let errors = stack.stack().encode_errors;
    for m in stack.relay(out, now, rng) {
        if let Err(e) = pubs[i].publish(m) {
            tracing::warn!("channel {}: publish failed: {e}", names[i]);
        }
    }
    if stack.stack().encode_errors != errors {
        tracing::warn!(
            "channel {}: stack output withheld: {}",
            names[i],
            stack.stack().last_error.as_deref().unwrap_or("codec error")
        );
    }
}
