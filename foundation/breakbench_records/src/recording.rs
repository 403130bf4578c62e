//! The run's recording: one MCAP file per run, as ROS 2 tools open it
//! (REQ-REC-MCAP; issue 26).
//!
//! The file follows the MCAP `ros2` profile (mcap.dev, "Profiles: ROS2"):
//! header profile `ros2`; one schema per message type, named
//! `pkg/msg/Type`, encoding `ros2msg`, its data the concatenated `.msg`
//! definitions rosbag2 writes (`breakbench_msgs::TypeRegistry::ros2msg_schema`);
//! one channel per topic, named as on the graph, message encoding `cdr`,
//! with the `offered_qos_profiles` metadata rosbag2 (Jazzy, bag format 9)
//! writes, [`OfferedQos::yaml`]. Chunks are zstd-compressed. Log and
//! publish times are the run's sim time in nanoseconds.
//!
//! The file is built in memory and written once, atomically
//! ([`crate::write_atomic`]); [`Recording::finish_to`] returns its sha256,
//! which the manifest keeps. The bytes depend only on what was written (no
//! wall-clock time in them), so a rerun of the same run gives the same file.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use crate::RecordsError;

/// The QoS a channel's messages were offered with, as rosbag2 records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfferedQos {
    /// Reliable (else best effort).
    pub reliable: bool,
    /// Transient local (else volatile).
    pub transient_local: bool,
    /// KEEP_LAST depth, messages.
    pub depth: usize,
}

impl OfferedQos {
    /// Reliable, volatile, KEEP_LAST(10): ROS 2's default publisher.
    pub const DEFAULT: Self = Self {
        reliable: true,
        transient_local: false,
        depth: 10,
    };

    /// Best effort, volatile, KEEP_LAST(5): ROS 2's sensor-data profile.
    pub const SENSOR_DATA: Self = Self {
        reliable: false,
        transient_local: false,
        depth: 5,
    };

    /// The `offered_qos_profiles` value of one publisher: a YAML sequence of
    /// one profile, the keys and string values of rosbag2_storage's encoder
    /// for bag format 9 (Jazzy); deadline, lifespan and lease duration
    /// infinite (`RMW_DURATION_INFINITE`: 9223372036 s 854775807 ns),
    /// liveliness automatic.
    pub fn yaml(&self) -> String {
        const INF: &str = "\n    sec: 9223372036\n    nsec: 854775807";
        format!(
            "- history: keep_last\n  depth: {}\n  reliability: {}\n  durability: {}\n  \
             deadline:{INF}\n  lifespan:{INF}\n  liveliness: automatic\n  \
             liveliness_lease_duration:{INF}\n  avoid_ros_namespace_conventions: false\n",
            self.depth,
            if self.reliable {
                "reliable"
            } else {
                "best_effort"
            },
            if self.transient_local {
                "transient_local"
            } else {
                "volatile"
            },
        )
    }
}

/// An MCAP recording being written (see the module docs).
pub struct Recording {
    writer: mcap::Writer<Cursor<Vec<u8>>>,
    /// Schema id by type name.
    schemas: BTreeMap<String, u16>,
    /// Messages written per channel (the MCAP sequence numbers).
    sequence: BTreeMap<u16, u32>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("schemas", &self.schemas)
            .finish_non_exhaustive()
    }
}

impl Recording {
    /// An empty recording: profile `ros2`, zstd chunks (level 1, one
    /// thread).
    ///
    /// # Errors
    /// [`RecordsError::Mcap`] (the header could not be written).
    pub fn new() -> Result<Self, RecordsError> {
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library("breakbench")
            .compression(Some(mcap::Compression::Zstd))
            .compression_level(1)
            // One thread: the crate's default spawns a zstd worker per
            // physical core for every file (a campaign already runs one
            // run per core), and zstd's single-threaded frames are the
            // same on every machine.
            .compression_threads(0)
            .create(Cursor::new(Vec::new()))?;
        Ok(Self {
            writer,
            schemas: BTreeMap::new(),
            sequence: BTreeMap::new(),
        })
    }

    /// Adds the channel of `topic` (as on the graph, e.g. `/scan`) carrying
    /// `type_name` (`pkg/msg/Type`) whose `ros2msg` schema is `schema`,
    /// offered with `qos`; returns its id for [`Recording::write`]. The
    /// schema is written once per type.
    ///
    /// # Errors
    /// [`RecordsError::Mcap`].
    pub fn channel(
        &mut self,
        topic: &str,
        type_name: &str,
        schema: &str,
        qos: OfferedQos,
    ) -> Result<u16, RecordsError> {
        let schema_id = match self.schemas.get(type_name) {
            Some(id) => *id,
            None => {
                let id = self
                    .writer
                    .add_schema(type_name, "ros2msg", schema.as_bytes())?;
                self.schemas.insert(type_name.to_string(), id);
                id
            }
        };
        let meta = BTreeMap::from([("offered_qos_profiles".to_string(), qos.yaml())]);
        Ok(self.writer.add_channel(schema_id, topic, "cdr", &meta)?)
    }

    /// Writes one message of `channel`: `cdr` is the serialized message
    /// (4-byte encapsulation header + CDR body), logged and published at
    /// `time_ns` (sim time, ns).
    ///
    /// # Errors
    /// [`RecordsError::Mcap`] (an unknown channel id among them).
    pub fn write(&mut self, channel: u16, time_ns: u64, cdr: &[u8]) -> Result<(), RecordsError> {
        let seq = self.sequence.entry(channel).or_insert(0);
        *seq += 1;
        let header = mcap::records::MessageHeader {
            channel_id: channel,
            sequence: *seq,
            log_time: time_ns,
            publish_time: time_ns,
        };
        Ok(self.writer.write_to_known_channel(&header, cdr)?)
    }

    /// Adds a metadata record `name` of string pairs (in key order).
    ///
    /// # Errors
    /// [`RecordsError::Mcap`].
    pub fn metadata(
        &mut self,
        name: &str,
        values: BTreeMap<String, String>,
    ) -> Result<(), RecordsError> {
        Ok(self.writer.write_metadata(&mcap::records::Metadata {
            name: name.to_string(),
            metadata: values,
        })?)
    }

    /// Attaches a file `name` of `media_type` (e.g. `application/json`)
    /// with `data`, logged at `time_ns`.
    ///
    /// # Errors
    /// [`RecordsError::Mcap`].
    pub fn attach(
        &mut self,
        name: &str,
        media_type: &str,
        time_ns: u64,
        data: &[u8],
    ) -> Result<(), RecordsError> {
        Ok(self.writer.attach(&mcap::Attachment {
            log_time: time_ns,
            create_time: time_ns,
            name: name.to_string(),
            media_type: media_type.to_string(),
            data: std::borrow::Cow::Borrowed(data),
        })?)
    }

    /// Ends the file (summary, footer) and returns its bytes.
    ///
    /// # Errors
    /// [`RecordsError::Mcap`].
    pub fn finish(mut self) -> Result<Vec<u8>, RecordsError> {
        self.writer.finish()?;
        Ok(self.writer.into_inner().into_inner())
    }

    /// [`Recording::finish`], then writes the file to `path` atomically and
    /// returns its sha256 (lower-case hex).
    ///
    /// # Errors
    /// [`RecordsError::Mcap`], [`RecordsError::Io`] naming `path`.
    pub fn finish_to(self, path: &Path) -> Result<String, RecordsError> {
        let bytes = self.finish()?;
        crate::write_atomic(path, &bytes)?;
        Ok(crate::sha256_hex(&bytes))
    }
}

/// The chunks of a recording: `(compressed, uncompressed)` bytes summed
/// over its chunk indexes (the zstd ratio is their quotient).
///
/// # Errors
/// [`RecordsError::Mcap`] for bytes that are not a valid MCAP file.
pub fn chunk_bytes(bytes: &[u8]) -> Result<(u64, u64), RecordsError> {
    let summary = mcap::Summary::read(bytes)?.unwrap_or_default();
    Ok(summary.chunk_indexes.iter().fold((0, 0), |(c, u), i| {
        (c + i.compressed_size, u + i.uncompressed_size)
    }))
}

/// One message of a recording, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMessage {
    /// The topic (the channel's).
    pub topic: String,
    /// Its type, `pkg/msg/Type` (the channel's schema name).
    pub type_name: String,
    /// Log time, ns (the run's sim time).
    pub log_time_ns: u64,
    /// The serialized message (CDR with its 4-byte header).
    pub cdr: Vec<u8>,
}

/// What [`read_recording`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordingContents {
    /// The header's profile (`ros2`).
    pub profile: String,
    /// Every message in log-time order.
    pub messages: Vec<RecordedMessage>,
    /// The metadata records by name.
    pub metadata: BTreeMap<String, BTreeMap<String, String>>,
}

/// The recording's topics in channel-id order (the order its writer added
/// them), from its summary section.
///
/// # Errors
/// [`RecordsError::Mcap`] for bytes that are not a valid MCAP file; a file
/// without a summary section has no topics.
pub fn recording_topics(bytes: &[u8]) -> Result<Vec<String>, RecordsError> {
    let summary = mcap::Summary::read(bytes)?.unwrap_or_default();
    let mut channels: Vec<(u16, String)> = summary
        .channels
        .iter()
        .map(|(id, c)| (*id, c.topic.clone()))
        .collect();
    channels.sort();
    Ok(channels.into_iter().map(|c| c.1).collect())
}

/// Reads a whole recording back (the report and the tests do; a user
/// opens it with any MCAP tool).
///
/// # Errors
/// [`RecordsError::Mcap`] for bytes that are not a valid MCAP file.
pub fn read_recording(bytes: &[u8]) -> Result<RecordingContents, RecordsError> {
    let mut out = RecordingContents::default();
    for rec in mcap::read::LinearReader::new(bytes)? {
        match rec? {
            mcap::records::Record::Header(h) => out.profile = h.profile,
            mcap::records::Record::Metadata(m) => {
                out.metadata.insert(m.name, m.metadata);
            }
            _ => {}
        }
    }
    for m in mcap::MessageStream::new(bytes)? {
        let m = m?;
        out.messages.push(RecordedMessage {
            topic: m.channel.topic.clone(),
            type_name: m
                .channel
                .schema
                .as_ref()
                .map_or(String::new(), |s| s.name.clone()),
            log_time_ns: m.log_time,
            cdr: m.data.into_owned(),
        });
    }
    out.messages.sort_by_key(|m| m.log_time_ns);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small recording: two channels of one type, metadata, an attachment.
    fn sample(dir: &Path, name: &str) -> (std::path::PathBuf, String) {
        let mut r = Recording::new().unwrap();
        let schema = "float32 range\n";
        let a = r
            .channel("/scan_raw", "pkg/msg/T", schema, OfferedQos::SENSOR_DATA)
            .unwrap();
        let b = r
            .channel("/scan", "pkg/msg/T", schema, OfferedQos::DEFAULT)
            .unwrap();
        for k in 0..5u64 {
            let body = [0, 1, 0, 0, k as u8, 0, 0, 0];
            r.write(a, 1_000_000_000 + k * 100_000_000, &body).unwrap();
            if k % 2 == 0 {
                r.write(b, 1_000_000_000 + k * 100_000_000 + 5, &body)
                    .unwrap();
            }
        }
        r.metadata(
            "breakbench_run",
            BTreeMap::from([("run_id".into(), "c0_r1".into())]),
        )
        .unwrap();
        r.attach("manifest.json", "application/json", 7, b"{}")
            .unwrap();
        let path = dir.join(name);
        let sha = r.finish_to(&path).unwrap();
        (path, sha)
    }

    #[test]
    fn the_file_follows_the_ros2_profile_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let (path, sha) = sample(dir.path(), "a.mcap");
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(crate::sha256_hex(&bytes), sha);
        let mut profile = None;
        let mut metadata = Vec::new();
        let mut attachments = Vec::new();
        for rec in mcap::read::LinearReader::new(&bytes).unwrap() {
            match rec.unwrap() {
                mcap::records::Record::Header(h) => profile = Some(h.profile),
                mcap::records::Record::Metadata(m) => metadata.push(m),
                mcap::records::Record::Attachment { header, data, .. } => {
                    attachments.push((header.name, header.media_type, data.to_vec()))
                }
                _ => {}
            }
        }
        assert_eq!(profile.as_deref(), Some("ros2"));
        assert_eq!(metadata.len(), 1);
        assert_eq!(metadata[0].metadata["run_id"], "c0_r1");
        assert_eq!(
            attachments,
            [(
                "manifest.json".to_string(),
                "application/json".to_string(),
                b"{}".to_vec()
            )]
        );
        let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
        assert_eq!(summary.schemas.len(), 1, "one schema per type");
        let schema = summary.schemas.values().next().unwrap();
        assert_eq!(
            (schema.name.as_str(), schema.encoding.as_str()),
            ("pkg/msg/T", "ros2msg")
        );
        assert_eq!(&schema.data[..], b"float32 range\n");
        let mut topics: Vec<(String, String, String)> = summary
            .channels
            .values()
            .map(|c| {
                (
                    c.topic.clone(),
                    c.message_encoding.clone(),
                    c.metadata["offered_qos_profiles"].clone(),
                )
            })
            .collect();
        topics.sort();
        assert_eq!(topics[0].0, "/scan");
        assert_eq!(topics[1].0, "/scan_raw");
        assert!(topics.iter().all(|t| t.1 == "cdr"));
        assert!(topics[0].2.contains("reliability: reliable\n"));
        assert!(topics[1]
            .2
            .contains("reliability: best_effort\n  durability: volatile\n"));
        let got: Vec<(String, u32, u64, Vec<u8>)> = mcap::MessageStream::new(&bytes)
            .unwrap()
            .map(|m| {
                let m = m.unwrap();
                (
                    m.channel.topic.clone(),
                    m.sequence,
                    m.log_time,
                    m.data.to_vec(),
                )
            })
            .collect();
        assert_eq!(got.len(), 8);
        assert_eq!(
            got[0],
            (
                "/scan_raw".into(),
                1,
                1_000_000_000,
                vec![0, 1, 0, 0, 0, 0, 0, 0]
            )
        );
        assert_eq!(got[1].0, "/scan");
        assert_eq!(got[1].1, 1);
        assert_eq!(got[1].2, 1_000_000_005);
        let stats = summary.stats.unwrap();
        assert_eq!((stats.message_count, stats.channel_count), (8, 2));
    }

    #[test]
    fn the_same_recording_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (_, a) = sample(dir.path(), "a.mcap");
        let (_, b) = sample(dir.path(), "b.mcap");
        assert_eq!(a, b);
    }

    #[test]
    fn the_qos_yaml_is_rosbag2s_format_9() {
        let y = OfferedQos {
            reliable: true,
            transient_local: true,
            depth: 1000,
        }
        .yaml();
        assert_eq!(
            y,
            "- history: keep_last\n  depth: 1000\n  reliability: reliable\n  \
             durability: transient_local\n  deadline:\n    sec: 9223372036\n    \
             nsec: 854775807\n  lifespan:\n    sec: 9223372036\n    nsec: 854775807\n  \
             liveliness: automatic\n  liveliness_lease_duration:\n    sec: 9223372036\n    \
             nsec: 854775807\n  avoid_ros_namespace_conventions: false\n"
        );
    }
}
