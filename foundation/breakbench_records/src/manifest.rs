//! The per-run manifest: everything needed to interpret, audit and re-judge
//! one run (`<out>/manifests/<run_id>.json`).

use std::collections::BTreeMap;

use kraken_interfaces::SelfReport;
use serde::{Deserialize, Serialize};

/// Manifest schema identifier; bump on incompatible change.
pub const MANIFEST_SCHEMA: &str = "breakbench.manifest/1";

/// What a run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// A grid cell run (fault axes at the cell's values).
    Grid,
    /// A fault-free run of the nominal set.
    Nominal,
    /// The positive canary: harness-only, excluded from corpus counts.
    Canary,
    /// A resilience test's fault run (judged by its expectations).
    Test,
    /// A resilience test's baseline: same seed and mission, no fault.
    Baseline,
}

/// One fault as requested and as delivered, measured at the apply site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRecord {
    /// The scenario axis that set it, or `<test>.<fault>` for a fault of a
    /// resilience test.
    pub axis: String,
    pub channel: String,
    pub mode: String,
    /// FaultSpec parameter and its requested value (offset + axis value).
    pub parameter: String,
    pub requested: f64,
    /// The axis value (what the cell is keyed by).
    pub axis_value: f64,
    /// Name of the delivered measurement (`mean_latency_s`, `mean_ratio_x`).
    pub delivered_metric: String,
    /// The delivered value; `None` if nothing was delivered to measure.
    pub delivered: Option<f64>,
    pub messages_in: u64,
    pub messages_out: u64,
    /// Sim time the fault first touched a message, seconds.
    pub first_applied_s: Option<f64>,
    /// Sim time the fault was cleared or expired during the run, seconds;
    /// `None` when it stayed active to the end (every in-process grid
    /// fault; a resilience test's fault records its clear). Absent in
    /// manifests written before the field existed.
    #[serde(default)]
    pub cleared_s: Option<f64>,
}

/// What a study's declared detection (`detection:` of the scenario) saw in
/// one grid or nominal run: when the controller first published the named
/// `/diagnostics` status at the declared level or above (REQ-STUDY-DETECTION).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectionRecord {
    /// The `/diagnostics` status name watched (`ekf: gnss`).
    pub diagnostic: String,
    /// Sim time of the first rise of the status to the level or above
    /// (from below it: the start-up STALE before any message is not one),
    /// whole run, s;
    /// `None` if it never came (on a nominal run, `Some` is a false positive).
    pub first_s: Option<f64>,
    /// Sim time of the first such status while a fault was active: at or
    /// after the run's earliest fault application (`faults[].first_applied_s`)
    /// and before the earliest clear (`faults[].cleared_s`), s; `None`
    /// without a fault applied or without a detection in that window.
    pub after_fault_s: Option<f64>,
    /// `after_fault_s` minus the earliest `first_applied_s`, s (>= 0).
    pub latency_s: Option<f64>,
}

/// A rigid-contact event of the plant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactRecord {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
    /// What was touched: an obstacle name or `wall[i]`.
    pub with: String,
}

/// Provenance of the build that produced the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub git_commit: String,
    pub git_dirty: bool,
    /// Crate name → version.
    pub crate_versions: BTreeMap<String, String>,
}

/// The result of the verdict isolation check on this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IsolationRecord {
    /// True when forcing the self-report to success and to failure left all
    /// three predicates unchanged.
    pub passed: bool,
}

/// One run's manifest. `V` is the oracle's verdict (the three invariants),
/// `J` its judgement: `verdict_class` and, for a resilience test, `test`,
/// `timeline` and `expectations`, flattened into the top level
/// (`breakbench_oracle::expect::RunJudgement`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest<V, J> {
    pub schema: String,
    pub run_id: String,
    pub kind: RunKind,
    /// Canary runs are harness-only and excluded from corpus counts.
    pub harness_only: bool,
    pub scenario_name: String,
    /// sha256 of the scenario and every file it refers to.
    pub scenario_hash: String,
    pub seed: u64,
    pub provenance: Provenance,
    /// Axis name → value for grid runs; every axis at 0 for nominal runs; empty for the canary.
    pub cell: BTreeMap<String, f64>,
    pub faults: Vec<FaultRecord>,
    /// The navigator's own success flag. Stored, compared, never an input to the verdict.
    pub self_report: SelfReport,
    /// Sim time of the self-report, seconds.
    pub self_report_at_s: Option<f64>,
    /// Each invariant's result with the sim time it was decided.
    pub verdict: V,
    /// The verdict class with its reason, and a test's timeline and
    /// expectation results (top-level keys).
    #[serde(flatten)]
    pub judgement: J,
    /// Rigid-contact events of the plant (for the record; the oracle does not read them).
    pub contacts: Vec<ContactRecord>,
    /// Distance of the true pose from the goal centre at the end, metres.
    pub final_goal_distance_m: f64,
    /// Each invariant's signed margin over the run, m, by invariant name
    /// (`operating_region_containment`, `obstacle_clearance`,
    /// `mission_completion_true_pose`): negative where it was violated, the
    /// oracle's `Margins` (REQ-STAT-MARGIN). Absent in manifests written
    /// before the field existed, and for runs that were not judged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub margins: BTreeMap<String, f64>,
    pub isolation: Option<IsolationRecord>,
    /// Ground-truth trace file (relative to the campaign directory) and its sha256.
    pub trace_file: String,
    pub trace_sha256: String,
    /// sha256 of the run's per-message provenance record
    /// (`provenance/<run_id>.csv`, `campaign --record-provenance`); absent
    /// when the run recorded none (REQ-CAMPAIGN-EVIDENCE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance_sha256: Option<String>,
    /// sha256 of the run's MCAP recording (`recordings/<run_id>.mcap`,
    /// REQ-REC-MCAP); absent when the run recorded none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording_sha256: Option<String>,
    /// The recording policy it was written with (`full` or `events`,
    /// REQ-REC-POLICY); absent when the run recorded none, and in
    /// manifests written before the field existed (those recorded `full`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording_mode: Option<String>,
    pub sim_time_s: f64,
    pub wall_time_s: f64,
    /// How a run executed on a ROS 2 graph went; absent for in-process runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphRecord>,
    /// The study's declared detection, seen in this run (grid and nominal
    /// runs of a scenario with `detection:`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection: Option<DetectionRecord>,
}

/// The record of one run executed on a ROS 2 graph (the graph executor of
/// `breakbench campaign --graph`).
///
/// A run whose graph missed a state's deadline, whose faults were not
/// confirmed applied by the fault injector's status, whose real-time factor
/// fell below the declared floor, or that left a process behind is
/// `invalid` (`invalid_reason` is set): it is not judged, its verdict is
/// not counted, and a resumed campaign runs it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphRecord {
    /// The last state of the run's state machine that was entered
    /// (`start`, `arm`, `observe`, `collect`, `stop`, `reset`, `done`).
    pub state_reached: String,
    /// Why the run is invalid; `None` for a valid run.
    pub invalid_reason: Option<String>,
    /// The `ROS_DOMAIN_ID` the run's graph ran on.
    pub domain_id: u16,
    /// Sim seconds per wall second over the observed run (0 when nothing was observed).
    pub rtf_achieved: f64,
    /// The declared real-time factor floor, if any.
    pub min_rtf: Option<f64>,
    /// Host CPU busy fraction (all cores, 0..1) over the run, from `/proc/stat`.
    pub host_cpu_busy: Option<f64>,
    /// Wall time of the whole run, start to reset, seconds.
    pub wall_time_s: f64,
}

impl GraphRecord {
    /// True when the run is `invalid` (see the type docs).
    pub fn invalid(&self) -> bool {
        self.invalid_reason.is_some()
    }
}

impl<V, J> Manifest<V, J> {
    /// True when the run counts in the corpus (not harness-only).
    pub fn in_corpus(&self) -> bool {
        !self.harness_only
    }
}
