//! A recording's channels with the QoS their messages were offered with
//! ([`recording_channels`]), read back from the `offered_qos_profiles`
//! metadata rosbag2 writes (bag format 9) and [`crate::Recording`] writes:
//! what a player needs to publish each topic as it was published
//! (REQ-REC-REPLAY, `breakbench replay --publish`).

use crate::{OfferedQos, RecordsError};

/// One channel of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedChannel {
    /// The topic, as on the graph.
    pub topic: String,
    /// Its type, `pkg/msg/Type` (the channel's schema name).
    pub type_name: String,
    /// The first offered profile; ROS 2's default publisher QoS when the
    /// channel has none (a file of another writer).
    pub qos: OfferedQos,
}

impl OfferedQos {
    /// The first profile of an `offered_qos_profiles` value (a YAML
    /// sequence of mappings, keys `history`, `depth`, `reliability`,
    /// `durability`, ...; rosbag2 also writes the enum numbers: reliability
    /// 1 reliable, 2 best effort; durability 1 transient local, 2
    /// volatile). Keys absent keep [`OfferedQos::DEFAULT`]'s values.
    ///
    /// # Errors
    /// The value of a key is not one of those above: the key and the value.
    pub fn from_yaml(text: &str) -> Result<Self, String> {
        let mut q = Self::DEFAULT;
        let mut profiles = 0;
        for line in text.lines() {
            let l = line.trim_start();
            if let Some(rest) = l.strip_prefix("- ") {
                profiles += 1;
                if profiles > 1 {
                    break;
                }
                q = Self::DEFAULT;
                q.apply(rest.trim())?;
            } else if profiles == 1 && line.starts_with("  ") && !line.starts_with("    ") {
                q.apply(l.trim())?;
            }
        }
        Ok(q)
    }

    /// One `key: value` line of a profile.
    fn apply(&mut self, kv: &str) -> Result<(), String> {
        let Some((k, v)) = kv.split_once(':') else {
            return Ok(());
        };
        let v = v.trim();
        let bad = || format!("offered_qos_profiles: {k}: '{v}' is not a value rosbag2 writes");
        match k.trim() {
            "depth" => self.depth = v.parse().map_err(|_| bad())?,
            "reliability" => {
                self.reliable = match v {
                    "reliable" | "1" => true,
                    "best_effort" | "2" => false,
                    "system_default" | "0" => true,
                    _ => return Err(bad()),
                }
            }
            "durability" => {
                self.transient_local = match v {
                    "transient_local" | "1" => true,
                    "volatile" | "2" => false,
                    "system_default" | "0" => false,
                    _ => return Err(bad()),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The recording's channels in channel-id order, from its summary section.
///
/// # Errors
/// [`RecordsError::Mcap`] for bytes that are not a valid MCAP file;
/// [`RecordsError::Recording`] for a channel whose `offered_qos_profiles`
/// does not parse (naming the topic).
pub fn recording_channels(bytes: &[u8]) -> Result<Vec<RecordedChannel>, RecordsError> {
    let summary = mcap::Summary::read(bytes)?.unwrap_or_default();
    let mut ids: Vec<&u16> = summary.channels.keys().collect();
    ids.sort();
    ids.into_iter()
        .map(|id| {
            let c = &summary.channels[id];
            let qos = match c.metadata.get("offered_qos_profiles") {
                Some(y) => OfferedQos::from_yaml(y)
                    .map_err(|e| RecordsError::Recording(format!("channel {}: {e}", c.topic)))?,
                None => OfferedQos::DEFAULT,
            };
            Ok(RecordedChannel {
                topic: c.topic.clone(),
                type_name: c.schema.as_ref().map_or(String::new(), |s| s.name.clone()),
                qos,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`OfferedQos::yaml`] writes reads back the same, for each
    /// combination; rosbag2's enum numbers read too; a value rosbag2 never
    /// writes is an error.
    #[test]
    fn offered_qos_reads_back_what_rosbag2_writes() {
        for reliable in [true, false] {
            for transient_local in [true, false] {
                let q = OfferedQos {
                    reliable,
                    transient_local,
                    depth: 7,
                };
                assert_eq!(OfferedQos::from_yaml(&q.yaml()).unwrap(), q);
            }
        }
        let numbers = "- history: 1\n  depth: 1\n  reliability: 2\n  durability: 1\n  deadline:\n    sec: 0\n    nsec: 0\n";
        assert_eq!(
            OfferedQos::from_yaml(numbers).unwrap(),
            OfferedQos {
                reliable: false,
                transient_local: true,
                depth: 1
            }
        );
        let e = OfferedQos::from_yaml("- reliability: sometimes\n").unwrap_err();
        assert!(e.contains("reliability: 'sometimes'"), "{e}");
    }

    /// A file's channels come back in id order with their QoS.
    #[test]
    fn a_recordings_channels_carry_their_offered_qos() {
        let mut r = crate::Recording::new().unwrap();
        let s = "string data\n";
        let a = r
            .channel(
                "/scan_raw",
                "std_msgs/msg/String",
                s,
                OfferedQos::SENSOR_DATA,
            )
            .unwrap();
        let b = r
            .channel(
                "/events",
                "std_msgs/msg/String",
                s,
                OfferedQos {
                    transient_local: true,
                    depth: 1000,
                    ..OfferedQos::DEFAULT
                },
            )
            .unwrap();
        r.write(a, 1, &[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        r.write(b, 2, &[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        let ch = recording_channels(&r.finish().unwrap()).unwrap();
        assert_eq!(ch.len(), 2);
        assert_eq!(
            (ch[0].topic.as_str(), ch[0].qos),
            ("/scan_raw", OfferedQos::SENSOR_DATA)
        );
        assert_eq!(ch[1].qos.depth, 1000);
        assert!(ch[1].qos.transient_local && ch[1].qos.reliable);
        assert_eq!(ch[1].type_name, "std_msgs/msg/String");
    }
}
