//! The per-run manifest. The record types live in `breakbench_records`, so
//! that the in-process campaign and the live `oracle` node write the same
//! format through the same writer; here the manifest holds the oracle's
//! [`Verdict`].

use breakbench_oracle::expect::RunJudgement;
use breakbench_oracle::Verdict;

pub use breakbench_records::manifest::{
    ContactRecord, DetectionRecord, FaultRecord, GraphRecord, IsolationRecord, Provenance, RunKind,
    MANIFEST_SCHEMA,
};

/// One run's manifest, with the oracle's verdict and judgement.
pub type Manifest = breakbench_records::Manifest<Verdict, RunJudgement>;
