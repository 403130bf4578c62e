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
//! (`breakbench_msgs::encode_serde`).

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use breakbench_msgs::{encode_serde, TypeRegistry};
use breakbench_records::{OfferedQos, Recording};
use kraken_faults::{MsgKind, SensorMsg};
use kraken_interfaces::ros::{Odometry, Twist};

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

/// The built-in message definitions (for the schemas), parsed once.
fn registry() -> &'static TypeRegistry {
    static REG: OnceLock<TypeRegistry> = OnceLock::new();
    REG.get_or_init(TypeRegistry::builtin)
}

/// A run's recording while it runs.
pub(super) struct RunRecorder {
    rec: Recording,
    /// Channel id per topic.
    ids: BTreeMap<&'static str, u16>,
}

/// The recording error as the campaign's.
fn rec_err(e: impl std::fmt::Display) -> CampaignError {
    CampaignError::Recording(e.to_string())
}

impl RunRecorder {
    /// The channels of a run whose controller takes `inputs` (channel name
    /// and type, the plant's sensors).
    ///
    /// # Errors
    /// [`CampaignError::Recording`]: an input with no topic in
    /// [`SENSOR_TOPICS`], or the writer's refusal.
    pub(super) fn new(inputs: &[(&'static str, MsgKind)]) -> Result<Self, CampaignError> {
        let mut r = Self {
            rec: Recording::new().map_err(rec_err)?,
            ids: BTreeMap::new(),
        };
        r.add(TRUTH_TOPIC, "nav_msgs/msg/Odometry", OfferedQos::DEFAULT)?;
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
        r.add(
            COMMANDED_TOPIC,
            "geometry_msgs/msg/Twist",
            OfferedQos::DEFAULT,
        )?;
        r.add(
            DELIVERED_TOPIC,
            "geometry_msgs/msg/Twist",
            OfferedQos::DEFAULT,
        )?;
        Ok(r)
    }

    fn add(&mut self, topic: &'static str, ty: &str, qos: OfferedQos) -> Result<(), CampaignError> {
        let schema = registry().ros2msg_schema(ty).map_err(rec_err)?;
        let id = self.rec.channel(topic, ty, &schema, qos).map_err(rec_err)?;
        self.ids.insert(topic, id);
        Ok(())
    }

    fn put<T: serde::Serialize>(
        &mut self,
        topic: &str,
        ty: &str,
        now: Duration,
        msg: &T,
    ) -> Result<(), CampaignError> {
        let id = self.ids[topic];
        let cdr = encode_serde(ty, msg).map_err(rec_err)?;
        let ns = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        self.rec.write(id, ns, &cdr).map_err(rec_err)
    }

    /// The ground truth at `now`.
    pub(super) fn truth(&mut self, now: Duration, m: &Odometry) -> Result<(), CampaignError> {
        self.put(TRUTH_TOPIC, "nav_msgs/msg/Odometry", now, m)
    }

    /// Sensor channel `name`'s message at `now`: as the plant emitted it
    /// (`delivered` false) or as the injector delivered it.
    pub(super) fn sensor(
        &mut self,
        name: &str,
        delivered: bool,
        now: Duration,
        m: &SensorMsg,
    ) -> Result<(), CampaignError> {
        let Some((_, input, output, _)) = SENSOR_TOPICS.iter().find(|t| t.0 == name) else {
            return Err(rec_err(format!("sensor channel '{name}' has no topic")));
        };
        let topic = if delivered { *output } else { *input };
        let ty = m.kind().ros_type();
        match m {
            SensorMsg::LaserScan(x) => self.put(topic, ty, now, x),
            SensorMsg::Odometry(x) => self.put(topic, ty, now, x),
            SensorMsg::NavSatFix(x) => self.put(topic, ty, now, x),
            SensorMsg::Imu(x) => self.put(topic, ty, now, x),
        }
    }

    /// A command at `now`: as the controller gave it (`delivered` false) or
    /// as the actuator channel delivered it.
    pub(super) fn twist(
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
        self.put(topic, "geometry_msgs/msg/Twist", now, t)
    }

    /// The file's bytes, with a `breakbench_run` metadata record of `meta`.
    ///
    /// # Errors
    /// [`CampaignError::Recording`].
    pub(super) fn finish(
        mut self,
        meta: BTreeMap<String, String>,
    ) -> Result<Vec<u8>, CampaignError> {
        self.rec.metadata("breakbench_run", meta).map_err(rec_err)?;
        self.rec.finish().map_err(rec_err)
    }
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
