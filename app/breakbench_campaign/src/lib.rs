//! The campaign engine.
//!
//! A campaign is a scenario file (`scenarios/corridor_study.yaml`) expanded
//! into runs: a grid of cells (one value per fault axis) × repeats, a nominal
//! fault-free set, and the positive canary. Each run is executed in-process on
//! the sim clock, judged by the oracle from ground truth only, and written as
//! a manifest. The summary is computed from the manifests alone, so a
//! campaign cut into shards ([`plan::Shard`], one machine each) and merged
//! ([`merge`]) has the summary of the unsharded campaign.

pub mod atomic;
pub mod budget;
pub mod claim;
pub mod compact_plan;
pub mod design;
pub mod dose;
pub mod error;
pub mod executor;
pub mod glm;
pub mod graph;
pub mod ledger;
pub mod load;
pub mod manifest;
pub mod margin_stats;
pub mod markup;
pub mod merge;
pub mod merge_out;
pub mod names;
pub mod orchestrate;
pub mod outputs;
pub mod parallel;
pub mod plan;
pub mod reachability;
pub mod replay;
pub mod report;
pub mod resilience_run;
pub mod resilience_summary;
pub mod run;
pub mod run_digest;
pub mod run_spec;
pub mod runner;
pub mod sanity;
pub mod scenario;
pub mod search;
pub mod stats;
pub mod store;
pub mod summary;
pub mod summary_stream;
pub mod trace;
pub mod verify;

pub use budget::{default_record_mode, Budget, Estimate};
pub use error::CampaignError;
pub use manifest::Manifest;
pub use scenario::resilience;
pub use scenario::Scenario;
pub use summary::Summary;
