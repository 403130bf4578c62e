//! breakbench_records: the campaign's records, written alike by the
//! in-process campaign (the `breakbench` package) and the live oracle node
//! (breakbench_oracle's `oracle`).
//!
//! * [`manifest`]: [`Manifest`] (`manifests/<run_id>.json`) with [`RunKind`],
//!   [`FaultRecord`], [`Provenance`]; generic over the verdict type, so this
//!   crate does not depend on the oracle that produces it (the campaign and
//!   the node fill it with `breakbench_oracle::Verdict`).
//! * [`trace`]: the trace file `traces/<run_id>.csv` ([`trace::TraceWriter`],
//!   [`trace::parse_trace`]).
//! * [`recording`]: the run's MCAP recording ([`Recording`]), as ROS 2
//!   tools open it (the MCAP `ros2` profile).
//! * [`write`]: the one atomic writer ([`write_atomic`], [`write_json_atomic`]),
//!   [`sha256_hex`] (the manifest's `trace_sha256`) and the one definition of
//!   [`scenario_hash`].

pub mod channels;
pub mod error;
pub mod manifest;
pub mod recording;
pub mod trace;
pub mod write;

pub use channels::{recording_channels, RecordedChannel};
pub use error::RecordsError;
pub use manifest::{
    ContactRecord, DetectionRecord, FaultRecord, GraphRecord, IsolationRecord, Manifest,
    Provenance, RunKind, MANIFEST_SCHEMA,
};
pub use recording::{
    chunk_bytes, read_recording, recording_topics, OfferedQos, RecordedMessage, Recording,
    RecordingContents,
};
pub use write::{scenario_hash, sha256_hex, write_atomic, write_json_atomic};
