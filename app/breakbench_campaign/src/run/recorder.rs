//! The in-process run's recording (REQ-REC-MCAP; issue 26): what the robot
//! was given and did, on the topics the graph uses, into one MCAP file per
//! run ([`breakbench_records::Recording`], the MCAP `ros2` profile).
//!
//! Channels: the ground truth `/oracle/odom`; each sensor as it left the
//! plant (the channel's input topic, e.g. `/scan_raw`) and as the injector
//! delivered it (its output topic, `/scan`), with the QoS of
//! `faults/kraken_faults/config/channels.yaml`; the controller's command
//! `/cmd_vel_nav` and what the actuator channel delivered, `/cmd_vel`. Log
//! time is sim time. Messages are the CDR the graph would carry
//! (`breakbench_msgs::encode_serde`), each serialized once: a message a
//! healthy channel passes on unchanged is written on both topics from the
//! same bytes (REQ-REC-COST). The plant's transforms as the bridge node
//! publishes them ([`breakbench_sim_bridge::tf`]): `odom` → `base_link` on
//! `/tf` from each wheel-odometry message as the plant emitted it, and the
//! static sensor frames on `/tf_static` at 0 (kept by every policy), so a
//! viewer can place the scan (REQ-REC-MCAP). The controller's
//! `/diagnostics` (its self-report) and `/rosout` records, each logged at
//! the step it was said in. Besides: `/fault_injector/status` each time
//! the injector's fault state changes (a fault set, applied, toggled,
//! cleared; counters as of that step), the run's events on
//! `/breakbench/events` ([`super::events`], REQ-REC-EVENTS), a
//! `breakbench_run` and a `breakbench_recording` metadata record, and the
//! resolved scenario as the attachment `scenario.json`.
//!
//! The policy ([`RecordMode`], REQ-REC-POLICY): `full` writes every message
//! as the run goes; `events` holds the run's messages (copies, not yet
//! serialized: a message outside every window costs a copy, never an
//! encoding or compression) and at the end serializes and writes those
//! inside the windows `[t - pre_s, t + post_s]` around every event
//! (overlapping windows merged), plus every status and event message; the
//! messages it leaves out are counted per topic in the
//! `breakbench_recording` metadata.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use breakbench_msgs::{encode_serde_into, TypeRegistry};
use breakbench_records::{OfferedQos, Recording};
use kraken_faults::{Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::{DiagnosticArray, Log, Odometry, TFMessage, Twist};
use kraken_interfaces::{FaultStatus, RunEvent};
use serde::{Deserialize, Serialize};

use super::events::{covered, windows};

use crate::CampaignError;

/// The ground truth's topic (the oracle reads it on the graph).
pub const TRUTH_TOPIC: &str = "/oracle/odom";
/// The controller's command, before the actuator channel.
pub const COMMANDED_TOPIC: &str = "/cmd_vel_nav";
/// The command the actuator channel delivered to the base.
pub const DELIVERED_TOPIC: &str = "/cmd_vel";

/// Each plant sensor channel: `(name, input topic, output topic, reliable)`,
/// as `faults/kraken_faults/config/channels.yaml` declares them (a test
/// holds the two equal).
pub const SENSOR_TOPICS: [(&str, &str, &str, bool); 4] = [
    ("scan", "/scan_raw", "/scan", false),
    ("odom", "/odom_raw", "/odom", true),
    ("gnss", "/gnss/fix_raw", "/gnss/fix", false),
    ("imu", "/imu/data_raw", "/imu/data", false),
];

/// The plant's `odom` → `base_link` transform (`tf2_msgs/msg/TFMessage`).
pub const TF_TOPIC: &str = "/tf";
/// The static sensor frames (latched).
pub const TF_STATIC_TOPIC: &str = "/tf_static";
const TF_TYPE: &str = "tf2_msgs/msg/TFMessage";

/// The injector's status topic (the graph's `fault_injector` node's `~/status`).
pub const STATUS_TOPIC: &str = "/fault_injector/status";
/// The run's events (`kraken_interfaces/msg/RunEvent`).
pub const EVENTS_TOPIC: &str = "/breakbench/events";
const STATUS_TYPE: &str = "kraken_interfaces/msg/FaultStatus";
const EVENT_TYPE: &str = "kraken_interfaces/msg/RunEvent";
const TWIST_TYPE: &str = "geometry_msgs/msg/Twist";
/// The controller's self-report (`diagnostic_msgs/msg/DiagnosticArray`).
pub const DIAGNOSTICS_TOPIC: &str = "/diagnostics";
/// The controller's log records (`rcl_interfaces/msg/Log`), as rcl
/// publishes them.
pub const ROSOUT_TOPIC: &str = "/rosout";
const DIAGNOSTICS_TYPE: &str = "diagnostic_msgs/msg/DiagnosticArray";
const LOG_TYPE: &str = "rcl_interfaces/msg/Log";
const ODOM_TYPE: &str = "nav_msgs/msg/Odometry";

/// The message definitions for the schemas (the built-in ones and
/// kraken_interfaces'), parsed once.
fn registry() -> &'static TypeRegistry {
    static REG: OnceLock<std::sync::Arc<TypeRegistry>> = OnceLock::new();
    REG.get_or_init(kraken_faults::dynamic::builtin_registry)
}

/// How much of each run its recording keeps (`breakbench campaign
/// --record`, REQ-REC-POLICY).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordMode {
    /// No recording.
    #[default]
    None,
    /// Every message of the run.
    Full,
    /// The messages inside the windows around the run's events.
    Events,
}

impl RecordMode {
    /// `none`, `full` or `events`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Full => "full",
            Self::Events => "events",
        }
    }
}

/// The window the `events` policy keeps around each event (the scenario's
/// `recording:`), s; see [`RecordMode`].
pub use crate::scenario::RecordingSection as EventWindow;

/// A run's recording while it runs.
pub(crate) struct RunRecorder {
    rec: Recording,
    mode: RecordMode,
    /// Channel id per topic.
    ids: BTreeMap<&'static str, u16>,
    /// Topic per channel id (for the counts).
    topics: BTreeMap<u16, &'static str>,
    /// The encoding buffer, reused.
    buf: Vec<u8>,
    /// Events: each message offered, `(channel, ns, message)`.
    held: Vec<(u16, u64, Held)>,
    /// Events: the status and event messages (always kept), `(channel, ns, cdr)`.
    extra: Vec<(u16, u64, Vec<u8>)>,
    /// The last plant message recorded: its address this step, and its
    /// bytes in `buf` (full) or its index in `held` (events): a healthy
    /// channel delivers that very message.
    last_raw: Option<(usize, usize, usize)>,
    /// The injector's fault state at the last status written.
    status_key: Vec<StatusKey>,
    /// Messages offered per channel.
    seen: BTreeMap<u16, u64>,
}

/// A message the `events` policy holds until it knows the windows. Held
/// inline in one `Vec` (a box per message would cost an allocation each).
#[allow(clippy::large_enum_variant)]
enum Held {
    Sensor(SensorMsg),
    Odometry(Odometry),
    Twist(Twist),
    Tf(TFMessage),
    Diagnostics(DiagnosticArray),
    Log(Log),
    /// The same message as the held one at this index (a healthy
    /// channel's delivery of the plant's message).
    Same(usize),
}

/// What makes a status message due: per channel, the requested fault's
/// mode and time, whether it acts, its first-applied and cleared times.
type StatusKey = (
    Option<(u8, Duration)>,
    bool,
    Option<Duration>,
    Option<Duration>,
);

/// The recording error as the campaign's.
fn rec_err(e: impl std::fmt::Display) -> CampaignError {
    CampaignError::Recording(e.to_string())
}

impl RunRecorder {
    /// The channels of a run whose controller takes `inputs` (channel name
    /// and type, the plant's sensors), recorded by `mode` (`full` or
    /// `events`).
    ///
    /// # Errors
    /// [`CampaignError::Recording`]: an input with no topic in
    /// [`SENSOR_TOPICS`], or the writer's refusal.
    pub(crate) fn new(
        inputs: &[(&'static str, MsgKind)],
        mode: RecordMode,
    ) -> Result<Self, CampaignError> {
        let mut r = Self {
            rec: Recording::new().map_err(rec_err)?,
            mode,
            ids: BTreeMap::new(),
            topics: BTreeMap::new(),
            buf: Vec::new(),
            held: Vec::new(),
            extra: Vec::new(),
            last_raw: None,
            status_key: Vec::new(),
            seen: BTreeMap::new(),
        };
        r.add(TRUTH_TOPIC, ODOM_TYPE, OfferedQos::DEFAULT)?;
        for &(name, kind) in inputs {
            let (_, input, output, reliable) = SENSOR_TOPICS
                .iter()
                .find(|t| t.0 == name)
                .ok_or_else(|| rec_err(format!("sensor channel '{name}' has no topic")))?;
            let qos = if *reliable {
                OfferedQos::DEFAULT
            } else {
                OfferedQos::SENSOR_DATA
            };
            r.add(input, kind.ros_type(), qos)?;
            r.add(output, kind.ros_type(), OfferedQos::DEFAULT)?;
        }
        r.add(COMMANDED_TOPIC, TWIST_TYPE, OfferedQos::DEFAULT)?;
        r.add(DELIVERED_TOPIC, TWIST_TYPE, OfferedQos::DEFAULT)?;
        r.add(STATUS_TOPIC, STATUS_TYPE, OfferedQos::DEFAULT)?;
        r.add(DIAGNOSTICS_TOPIC, DIAGNOSTICS_TYPE, OfferedQos::DEFAULT)?;
        // As rcl offers /rosout: reliable, transient local, depth 1000.
        let rosout = OfferedQos {
            transient_local: true,
            depth: 1000,
            ..OfferedQos::DEFAULT
        };
        r.add(ROSOUT_TOPIC, LOG_TYPE, rosout)?;
        // Events are latched, as a late subscriber on the graph would want them.
        let latched = OfferedQos {
            transient_local: true,
            depth: 1000,
            ..OfferedQos::DEFAULT
        };
        r.add(EVENTS_TOPIC, EVENT_TYPE, latched)?;
        if inputs.iter().any(|i| i.0 == "odom") {
            r.add(TF_TOPIC, TF_TYPE, OfferedQos::DEFAULT)?;
        }
        // As tf2's static broadcaster offers it: reliable, transient local, depth 1.
        let static_qos = OfferedQos {
            transient_local: true,
            depth: 1,
            ..OfferedQos::DEFAULT
        };
        r.add(TF_STATIC_TOPIC, TF_TYPE, static_qos)?;
        let id = r.ids[TF_STATIC_TOPIC];
        r.put_kept(
            id,
            0,
            TF_TYPE,
            &breakbench_sim_bridge::tf::static_sensor_tf(),
        )?;
        Ok(r)
    }

    fn add(&mut self, topic: &'static str, ty: &str, qos: OfferedQos) -> Result<(), CampaignError> {
        let schema = registry().ros2msg_schema(ty).map_err(rec_err)?;
        let id = self.rec.channel(topic, ty, &schema, qos).map_err(rec_err)?;
        self.ids.insert(topic, id);
        self.topics.insert(id, topic);
        Ok(())
    }

    /// Encodes `msg` (of type `ty`) into the buffer (emptied first).
    fn encode<T: Serialize>(&mut self, ty: &str, msg: &T) -> Result<(), CampaignError> {
        self.buf.clear();
        encode_serde_into(ty, msg, &mut self.buf).map_err(rec_err)
    }

    /// Writes the buffer on `channel` at `ns`.
    fn write_buf(&mut self, channel: u16, ns: u64) -> Result<(), CampaignError> {
        self.rec.write(channel, ns, &self.buf).map_err(rec_err)
    }

    /// Full: encodes and writes `msg` on `topic` at `now`. Events: holds
    /// `held()`.
    fn put<T: Serialize>(
        &mut self,
        topic: &str,
        ty: &str,
        now: Duration,
        msg: &T,
        held: impl FnOnce() -> Held,
    ) -> Result<(), CampaignError> {
        let id = self.ids[topic];
        *self.seen.entry(id).or_insert(0) += 1;
        if self.mode == RecordMode::Events {
            self.held.push((id, ns(now), held()));
            return Ok(());
        }
        self.encode(ty, msg)?;
        self.write_buf(id, ns(now))
    }

    /// The ground truth at `now`.
    pub(crate) fn truth(&mut self, now: Duration, m: &Odometry) -> Result<(), CampaignError> {
        self.put(TRUTH_TOPIC, ODOM_TYPE, now, m, || Held::Odometry(m.clone()))
    }

    /// Forgets the last plant message: called before each channel's relay,
    /// so only that channel's delivery of that very message reuses its bytes.
    pub(crate) fn next_channel(&mut self) {
        self.last_raw = None;
    }

    /// Sensor channel `name`'s message at `now`: as the plant emitted it
    /// (`delivered` false) or as the injector delivered it. A delivered
    /// message that is the plant's own (a healthy channel passes it on
    /// borrowed) is written from the bytes already encoded.
    pub(crate) fn sensor(
        &mut self,
        name: &str,
        delivered: bool,
        now: Duration,
        m: &SensorMsg,
    ) -> Result<(), CampaignError> {
        let Some((_, input, output, _)) = SENSOR_TOPICS.iter().find(|t| t.0 == name) else {
            return Err(rec_err(format!("sensor channel '{name}' has no topic")));
        };
        let addr = m as *const SensorMsg as usize;
        let id = self.ids[if delivered { *output } else { *input }];
        *self.seen.entry(id).or_insert(0) += 1;
        let same = self
            .last_raw
            .filter(|r| delivered && r.0 == addr)
            .map(|r| r.1);
        if self.mode == RecordMode::Events {
            let h = match same {
                Some(i) => Held::Same(i),
                None => Held::Sensor(m.clone()),
            };
            if !delivered {
                self.last_raw = Some((addr, self.held.len(), 0));
            }
            self.held.push((id, ns(now), h));
            return if delivered { Ok(()) } else { self.tf(now, m) };
        }
        if same.is_none() {
            encode_sensor(m, &mut self.buf)?;
        }
        if !delivered {
            self.last_raw = Some((addr, 0, 0));
        }
        self.write_buf(id, ns(now))?;
        if !delivered {
            self.tf(now, m)?;
        }
        Ok(())
    }

    /// `/tf` of the plant's own odometry message `m` (the bridge publishes
    /// the same transform with each one); nothing for other messages.
    fn tf(&mut self, now: Duration, m: &SensorMsg) -> Result<(), CampaignError> {
        let SensorMsg::Odometry(o) = m else {
            return Ok(());
        };
        let t = breakbench_sim_bridge::tf::odom_tf(o);
        let id = self.ids[TF_TOPIC];
        *self.seen.entry(id).or_insert(0) += 1;
        if self.mode == RecordMode::Events {
            self.held.push((id, ns(now), Held::Tf(t)));
            return Ok(());
        }
        // Its own buffer: the odometry's bytes stay for its delivery.
        let bytes = breakbench_msgs::encode_serde(TF_TYPE, &t).map_err(rec_err)?;
        self.rec.write(id, ns(now), &bytes).map_err(rec_err)
    }

    /// A command at `now`: as the controller gave it (`delivered` false) or
    /// as the actuator channel delivered it.
    pub(crate) fn twist(
        &mut self,
        delivered: bool,
        now: Duration,
        t: &Twist,
    ) -> Result<(), CampaignError> {
        let topic = if delivered {
            DELIVERED_TOPIC
        } else {
            COMMANDED_TOPIC
        };
        self.put(topic, TWIST_TYPE, now, t, || Held::Twist(*t))
    }

    /// What the controller said at `now`: its `/rosout` records and its
    /// `/diagnostics` arrays (the self-report), oldest first, each logged
    /// at `now` (the step they were published in; their own stamps are in
    /// the messages).
    ///
    /// # Errors
    /// [`CampaignError::Recording`].
    pub(crate) fn controller(
        &mut self,
        now: Duration,
        logs: &[Log],
        diagnostics: &[DiagnosticArray],
    ) -> Result<(), CampaignError> {
        for l in logs {
            self.put(ROSOUT_TOPIC, LOG_TYPE, now, l, || Held::Log(l.clone()))?;
        }
        for d in diagnostics {
            self.put(DIAGNOSTICS_TOPIC, DIAGNOSTICS_TYPE, now, d, || {
                Held::Diagnostics(d.clone())
            })?;
        }
        Ok(())
    }

    /// Records the injector's status at `now` if its fault state changed
    /// since the last one written (the first call always writes).
    ///
    /// # Errors
    /// [`CampaignError::Recording`].
    pub(crate) fn status(
        &mut self,
        injector: &Injector,
        now: Duration,
    ) -> Result<(), CampaignError> {
        // Whether injection is enabled, then each channel's fault state.
        let key = std::iter::once((None, injector.enabled(), None, None))
            .chain(injector.channels().iter().map(|c| {
                (
                    c.record().map(|r| (r.spec.mode, r.requested)),
                    c.is_active(now),
                    c.first_applied(),
                    c.cleared(),
                )
            }))
            .chain(
                injector
                    .raw_channels()
                    .map(|r| (None, r.is_active(now), r.first_applied(), r.last_cleared)),
            );
        if !self.status_key.is_empty() && key.clone().eq(self.status_key.iter().copied()) {
            return Ok(());
        }
        self.status_key = key.collect();
        let st: FaultStatus = injector.status(now);
        let id = self.ids[STATUS_TOPIC];
        self.put_kept(id, ns(now), STATUS_TYPE, &st)
    }

    /// A message every policy keeps (status, events): written at once
    /// (full) or held with the others until the end (events).
    fn put_kept<T: Serialize>(
        &mut self,
        id: u16,
        at: u64,
        ty: &str,
        msg: &T,
    ) -> Result<(), CampaignError> {
        *self.seen.entry(id).or_insert(0) += 1;
        let bytes = breakbench_msgs::encode_serde(ty, msg).map_err(rec_err)?;
        match self.mode {
            RecordMode::Events => {
                self.extra.push((id, at, bytes));
                Ok(())
            }
            _ => self.rec.write(id, at, &bytes).map_err(rec_err),
        }
    }

    /// The file's bytes: the run's `events` (log time ns, sorted), the held
    /// messages the policy keeps (`window`, up to the end `end_ns`), the
    /// metadata record `meta.0` (`breakbench_run`; a replay's
    /// `breakbench_replay`) of `meta.1`, the
    /// `breakbench_recording` record of the policy and its counts, and the
    /// attachment `scenario.json` (`scenario`, logged at 0).
    ///
    /// # Errors
    /// [`CampaignError::Recording`].
    pub(crate) fn finish(
        mut self,
        events: &[(u64, RunEvent)],
        window: EventWindow,
        end_ns: u64,
        meta: (&str, BTreeMap<String, String>),
        scenario: &[u8],
    ) -> Result<Vec<u8>, CampaignError> {
        let ev = self.ids[EVENTS_TOPIC];
        for (t, e) in events {
            self.put_kept(ev, *t, EVENT_TYPE, e)?;
        }
        let times: Vec<u64> = events.iter().map(|e| e.0).collect();
        let w = windows(
            &times,
            super::events::ns_of(window.pre_s),
            super::events::ns_of(window.post_s),
            end_ns,
        );
        let not_kept = self.write_held(&w)?;
        self.rec.metadata(meta.0, meta.1).map_err(rec_err)?;
        let stats = self.statistics(&w, window, &not_kept);
        self.rec
            .metadata("breakbench_recording", stats)
            .map_err(rec_err)?;
        self.rec
            .attach("scenario.json", "application/json", 0, scenario)
            .map_err(rec_err)?;
        self.rec.finish().map_err(rec_err)
    }

    /// Events mode: writes the held messages inside `w` and every status
    /// and event message, in log-time order; returns the count of messages
    /// left out per channel. Full mode: nothing held, nothing left out.
    fn write_held(&mut self, w: &[(u64, u64)]) -> Result<BTreeMap<u16, u64>, CampaignError> {
        let mut not_kept = BTreeMap::new();
        let mut extra = std::mem::take(&mut self.extra);
        extra.sort_by_key(|e| e.1);
        let mut extra = extra.into_iter().peekable();
        let held = std::mem::take(&mut self.held);
        // The held message whose bytes are in `buf`.
        let mut in_buf = None;
        for (i, (ch, t, h)) in held.iter().enumerate() {
            while let Some(e) = extra.next_if(|e| e.1 <= *t) {
                self.rec.write(e.0, e.1, &e.2).map_err(rec_err)?;
            }
            if !covered(w, *t) {
                *not_kept.entry(*ch).or_insert(0u64) += 1;
                continue;
            }
            // A healthy channel's delivery: the plant's message's bytes.
            let (j, h) = match h {
                Held::Same(j) => (*j, &held[*j].2),
                h => (i, h),
            };
            if in_buf != Some(j) {
                match h {
                    Held::Sensor(m) => encode_sensor(m, &mut self.buf)?,
                    Held::Odometry(m) => self.encode(ODOM_TYPE, m)?,
                    Held::Twist(m) => self.encode(TWIST_TYPE, m)?,
                    Held::Tf(m) => self.encode(TF_TYPE, m)?,
                    Held::Diagnostics(m) => self.encode(DIAGNOSTICS_TYPE, m)?,
                    Held::Log(m) => self.encode(LOG_TYPE, m)?,
                    Held::Same(_) => unreachable!("a Same refers to a message of its own"),
                }
                in_buf = Some(j);
            }
            self.write_buf(*ch, *t)?;
        }
        for e in extra {
            self.rec.write(e.0, e.1, &e.2).map_err(rec_err)?;
        }
        Ok(not_kept)
    }

    /// The `breakbench_recording` metadata: the policy, its windows (s),
    /// and the messages offered, written and left out (per topic).
    fn statistics(
        &self,
        w: &[(u64, u64)],
        window: EventWindow,
        not_kept: &BTreeMap<u16, u64>,
    ) -> BTreeMap<String, String> {
        let seen: u64 = self.seen.values().sum();
        let left: u64 = not_kept.values().sum();
        let secs = |ns: u64| format!("{:.9}", ns as f64 * 1e-9);
        let mut m = BTreeMap::from([
            ("mode".to_string(), self.mode.name().to_string()),
            ("messages_offered".to_string(), seen.to_string()),
            ("messages_written".to_string(), (seen - left).to_string()),
            ("messages_not_kept".to_string(), left.to_string()),
        ]);
        if self.mode == RecordMode::Events {
            m.insert("pre_s".into(), window.pre_s.to_string());
            m.insert("post_s".into(), window.post_s.to_string());
            let list: Vec<String> = w
                .iter()
                .map(|(a, b)| format!("{}-{}", secs(*a), secs(*b)))
                .collect();
            m.insert("windows_s".into(), list.join(" "));
        }
        for (ch, n) in not_kept {
            m.insert(format!("not_kept:{}", self.topics[ch]), n.to_string());
        }
        m
    }
}

/// A message of type `ty` (`pkg/msg/Type`) of a recording, decoded from
/// its CDR (the tests and the report read them).
///
/// # Errors
/// [`CampaignError::Recording`] for bytes that are not a `ty` or a type
/// the registry does not know.
pub fn decode<T: serde::de::DeserializeOwned>(ty: &str, cdr: &[u8]) -> Result<T, CampaignError> {
    breakbench_msgs::decode_serde(ty, cdr).map_err(rec_err)
}

/// A `/breakbench/events` message of a recording, decoded (the tests and
/// the report read them).
///
/// # Errors
/// [`CampaignError::Recording`] for bytes that are not a RunEvent.
pub fn decode_event(cdr: &[u8]) -> Result<RunEvent, CampaignError> {
    decode(EVENT_TYPE, cdr)
}

/// A `/fault_injector/status` message of a recording, decoded.
///
/// # Errors
/// [`CampaignError::Recording`] for bytes that are not a FaultStatus.
pub fn decode_status(cdr: &[u8]) -> Result<FaultStatus, CampaignError> {
    decode(STATUS_TYPE, cdr)
}

/// Encodes the sensor message `m` into `buf` (emptied first).
fn encode_sensor(m: &SensorMsg, buf: &mut Vec<u8>) -> Result<(), CampaignError> {
    buf.clear();
    let ty = m.kind().ros_type();
    match m {
        SensorMsg::LaserScan(x) => encode_serde_into(ty, x, buf),
        SensorMsg::Odometry(x) => encode_serde_into(ty, x, buf),
        SensorMsg::NavSatFix(x) => encode_serde_into(ty, x, buf),
        SensorMsg::Imu(x) => encode_serde_into(ty, x, buf),
    }
    .map_err(rec_err)
}

/// `d` in nanoseconds (saturating).
fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the shipped channels file's, topic for topic.
    #[test]
    fn sensor_topics_are_the_shipped_channels_files() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../faults/kraken_faults/config/channels.yaml");
        let cfg = kraken_faults::ChannelsConfig::load(&path).unwrap();
        for (name, input, output, reliable) in SENSOR_TOPICS {
            let c = cfg
                .channels
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name} not in channels.yaml"));
            assert_eq!(
                (c.input_topic.as_str(), c.output_topic.as_str()),
                (input, output)
            );
            assert_eq!(
                c.qos.reliability == kraken_faults::Reliability::Reliable,
                reliable
            );
        }
    }
}
