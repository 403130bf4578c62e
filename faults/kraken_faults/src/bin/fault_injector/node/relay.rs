//! The fault_injector node's state ([`FaultNode`]) and its relay handlers:
//! each input message, the clock, and the periodic work after every event
//! (release of due messages, the TF keep-alive, `~/status` and
//! `~/stack_status`). The service handlers are in `services.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use breakbench_msgs::TypeRegistry;
use breakbench_ros::{NodeClock, RawCdr, RosNode, SimClock};
use kraken_faults::{ChannelsConfig, SensorMsg};
use kraken_interfaces::ros::{Clock, DiagnosticArray, Header, TFMessage, Time};
use kraken_interfaces::FaultStatus;

use super::events::Event;
use super::state::{release, release_dyn, Faults, HeapTrim};
use super::wiring::{Outputs, Services};
use super::Params;
use super::LOG_TARGET;

/// What the loop does after an event.
pub(super) enum Then {
    /// Wait for the next event: an input arrived before the deadline
    /// (under a continuous input stream the timer never wins the select, so
    /// the periodic work runs only when it is due).
    Wait,
    /// Run [`FaultNode::periodic`]; `changed`: a service changed a fault.
    Periodic { changed: bool },
}

/// A channel's status fields whose change publishes the status at once
/// (mode, active, requested, first applied, cleared; not the counters).
type StatusKey = (u8, bool, Time, Time, Time);

/// When the periodic work is next due (wall clock).
struct Timers {
    /// Per typed channel, the TF keep-alive period (odometry channels with
    /// `tf_keepalive`), else `None`.
    keepalive_period: Vec<Option<Duration>>,
    next_keepalive: Vec<Instant>,
    /// 1 / `status_rate_hz`.
    status_period: Duration,
    next_status: Instant,
    /// The [`StatusKey`] of every channel at the last status published.
    last_status_key: Vec<StatusKey>,
    /// Fault-state changes are checked every 20 ms.
    next_change_check: Instant,
    trim: HeapTrim,
}

/// The running node: its fault state, outputs, clock and timers. One
/// handler per event; `'s` is the services' lifetime (their request
/// streams borrow them too).
pub(super) struct FaultNode<'s> {
    pub(super) srv: &'s Services,
    pub(super) out: Outputs,
    /// channels.yaml, resolved (what `~/reset` rebuilds from).
    pub(super) cfg: ChannelsConfig,
    pub(super) reg: Arc<TypeRegistry>,
    /// Every channel's faults and random streams.
    pub(super) f: Faults,
    /// Typed channels' names, in `channels` order.
    pub(super) names: Vec<String>,
    pub(super) clock: NodeClock,
    /// The sim clock under `use_sim_time`.
    pub(super) sim: Option<SimClock>,
    /// The dynamic channel whose input is the node's clock source.
    clock_channel: Option<usize>,
    /// The node's fully qualified name (the stack status's `name` prefix).
    node_fqn: String,
    timers: Timers,
}

impl<'s> FaultNode<'s> {
    pub(super) fn new(
        node: &RosNode,
        srv: &'s Services,
        out: Outputs,
        f: Faults,
        reg: Arc<TypeRegistry>,
        p: Params,
    ) -> Self {
        let cfg = p.cfg;
        let names: Vec<String> = cfg.channels.iter().map(|c| c.name.clone()).collect();
        let keepalive_period: Vec<Option<Duration>> = cfg
            .channels
            .iter()
            .map(|c| {
                c.tf_keepalive
                    .as_ref()
                    .map(|k| Duration::from_secs_f64(1.0 / k.tf_rate_hz))
            })
            .collect();
        let timers = Timers {
            keepalive_period,
            next_keepalive: vec![Instant::now(); names.len()],
            status_period: Duration::from_secs_f64(1.0 / p.status_rate_hz),
            next_status: Instant::now(),
            last_status_key: Vec::new(),
            next_change_check: Instant::now(),
            trim: HeapTrim::default(),
        };
        let sim = match &node.clock {
            NodeClock::Sim(c) => Some(c.clone()),
            NodeClock::Wall => None,
        };
        Self {
            srv,
            out,
            cfg,
            reg,
            f,
            names,
            clock: node.clock.clone(),
            sim,
            clock_channel: p.clock_src.channel,
            node_fqn: node.args.fully_qualified_name(),
            timers,
        }
    }

    /// When the loop must wake at the latest, given the wall time `wall`:
    /// the next status or change check, the next keep-alive of a channel in
    /// its fault, and (wall clock only) the earliest held message's release.
    pub(super) fn deadline(&self, wall: Instant) -> Instant {
        let t = &self.timers;
        let mut deadline = t.next_status.min(t.next_change_check);
        for (i, p) in t.keepalive_period.iter().enumerate() {
            if p.is_some() && self.f.injector.channels()[i].is_active(self.clock.now()) {
                deadline = deadline.min(t.next_keepalive[i]);
            }
        }
        if matches!(self.clock, NodeClock::Wall) {
            let now = self.clock.now();
            if let Some(next) = self
                .f
                .injector
                .channels()
                .iter()
                .filter_map(|c| c.next_release())
                .chain(self.f.dyns.iter().filter_map(|d| d.next_release()))
                .chain(self.f.typed.stacks.iter().filter_map(|t| t.next_release()))
                .min()
            {
                deadline = deadline.min(wall + next.saturating_sub(now));
            }
        }
        deadline
    }

    /// Handles one event (`None`: the timer fired) at the node's clock's
    /// now; `deadline` is the loop's wake-up time for this round.
    pub(super) fn handle(&mut self, ev: Option<Event>, deadline: Instant) -> Then {
        let now = self.clock.now();
        match ev {
            Some(Event::Input(i, msg)) => {
                self.on_input(i, msg, now);
                return self.after_input(deadline);
            }
            Some(Event::DynInput(i, m)) => {
                self.on_dyn_input(i, m, now);
                return self.after_input(deadline);
            }
            Some(Event::SetStack(id, req)) => self.on_set_stack(id, req, now),
            Some(Event::ClearStage(id, req)) => self.on_clear_stage(id, req, now),
            Some(Event::SetFault(id, req)) => self.on_set_fault(id, req, now),
            Some(Event::ClearFaults(id)) => self.on_clear_faults(id, now),
            Some(Event::Reset(id, req)) => self.on_reset(id, req),
            Some(Event::Clock(c)) => {
                self.on_clock(&c);
                return Then::Periodic { changed: false };
            }
            None => return Then::Periodic { changed: false },
        }
        Then::Periodic { changed: true }
    }

    fn after_input(&self, deadline: Instant) -> Then {
        if Instant::now() < deadline {
            Then::Wait
        } else {
            Then::Periodic { changed: false }
        }
    }

    /// A typed channel's input: into its fault, then what it releases now.
    fn on_input(&mut self, i: usize, msg: SensorMsg, now: Duration) {
        let f = &mut self.f;
        if let Err(e) = f.injector.push(&self.names[i], msg, now, &mut f.rngs[i]) {
            tracing::warn!(target: LOG_TARGET, "channel {}: {e}", self.names[i]);
        }
        release(
            &mut f.injector,
            &self.out.pubs,
            &self.names,
            &mut f.typed,
            i,
            now,
        );
    }

    /// A dynamic channel's input: the node's clock first when it is the
    /// clock channel (under sim time), then into its stack, then what the
    /// stack releases now.
    fn on_dyn_input(&mut self, i: usize, m: RawCdr, now: Duration) {
        // The raw clock moves the node's clock before its
        // message enters the channel's stack.
        let now = match (&self.sim, self.clock_channel == Some(i)) {
            (Some(s), true) => {
                match kraken_faults::clock_of(&m.0) {
                    Some((sec, nanosec)) => s.update(&Clock {
                        clock: kraken_interfaces::ros::Time { sec, nanosec },
                    }),
                    None => tracing::warn!(
                        target: LOG_TARGET,
                        "channel {}: a message that is not a rosgraph_msgs/msg/Clock",
                        self.f.dyns[i].name
                    ),
                }
                self.clock.now()
            }
            _ => now,
        };
        let f = &mut self.f;
        f.dyns[i].push(m.0, now, &mut f.dyn_rngs[i]);
        release_dyn(&mut f.dyns[i], &self.out.dyn_pubs[i], now);
    }

    /// A message of the clock subscription (sim time only).
    fn on_clock(&mut self, c: &Clock) {
        if let Some(s) = &self.sim {
            s.update(c);
        }
    }

    /// After every event but an early input: release what is due on every
    /// channel, the TF keep-alive, the status.
    pub(super) fn periodic(&mut self, changed: bool) {
        let now = self.clock.now();
        for i in 0..self.names.len() {
            release(
                &mut self.f.injector,
                &self.out.pubs,
                &self.names,
                &mut self.f.typed,
                i,
                now,
            );
        }
        for (d, p) in self.f.dyns.iter_mut().zip(&self.out.dyn_pubs) {
            release_dyn(d, p, now);
        }
        let wall = Instant::now();
        self.keepalive(now, wall);
        self.status(now, wall, changed);
    }

    /// TF keep-alive of odometry channels in dropout, each at its period.
    fn keepalive(&mut self, now: Duration, wall: Instant) {
        let Some(tf) = &self.out.tf else { return };
        let t = &mut self.timers;
        for (i, p) in t.keepalive_period.iter().enumerate() {
            let Some(p) = p else { continue };
            if wall < t.next_keepalive[i] {
                continue;
            }
            if let Some(tr) = self.f.injector.channels()[i].keepalive_transform(now) {
                if let Err(e) = tf.publish(TFMessage {
                    transforms: vec![tr],
                }) {
                    tracing::warn!(target: LOG_TARGET, "/tf keep-alive: {e}");
                }
            }
            t.next_keepalive[i] = wall + *p;
        }
    }

    /// Status: periodically, and when a fault's state changes (checked
    /// every 20 ms, ignoring the message counters); then the heap trim.
    fn status(&mut self, now: Duration, wall: Instant, changed: bool) {
        let due = wall >= self.timers.next_status;
        if !(changed || due || wall >= self.timers.next_change_check) {
            return;
        }
        // Typed channels, then the raw ones (their `~/set_fault`
        // fault, e.g. on the actuator channel cmd_vel).
        let mut st = self.f.injector.status(now);
        st.channels
            .extend(self.f.dyns.iter().map(|d| d.fault_status(now)));
        let held: u64 = st.channels.iter().map(|c| c.bytes_held).sum();
        let key: Vec<StatusKey> = st
            .channels
            .iter()
            .map(|c| {
                (
                    c.fault.mode,
                    c.active,
                    c.requested,
                    c.first_applied,
                    c.cleared,
                )
            })
            .collect();
        if changed || due || key != self.timers.last_status_key {
            self.publish_status(st, now);
            self.timers.last_status_key = key;
            self.timers.next_status = wall + self.timers.status_period;
        }
        self.timers.next_change_check = wall + Duration::from_millis(20);
        self.timers.trim.after(held);
    }

    /// Publishes `st` on `~/status` and every channel's stack on
    /// `~/stack_status`.
    fn publish_status(&self, st: FaultStatus, now: Duration) {
        if let Err(e) = self.out.status.publish(st) {
            tracing::warn!(target: LOG_TARGET, "status: {e}");
        }
        // Typed channels first (typed fault, then stages), then
        // the dynamic ones.
        let arr = DiagnosticArray {
            header: Header {
                stamp: breakbench_ros::to_stamp(now),
                frame_id: String::new(),
            },
            status: self
                .f
                .typed
                .stacks
                .iter()
                .zip(self.f.injector.channels())
                .map(|(t, c)| t.status(now, &self.node_fqn, c))
                .chain(self.f.dyns.iter().map(|d| d.status(now, &self.node_fqn)))
                .collect(),
        };
        if let Err(e) = self.out.stack_status.publish(arr) {
            tracing::warn!(target: LOG_TARGET, "stack_status: {e}");
        }
    }
}
