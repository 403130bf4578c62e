//! The error type of the campaign engine.

use breakbench_records::RecordsError;
use kraken_interfaces::ConfigError;

/// Errors of the campaign engine.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// A scenario, world, robot or navigator file is malformed.
    #[error(transparent)]
    Config(Box<ConfigError>),
    /// A fault in the scenario cannot be set (unknown channel, unsupported mode, bad parameter).
    #[error("{path}: field '{field}': {error}")]
    Fault {
        path: String,
        field: String,
        error: Box<kraken_faults::FaultError>,
    },
    /// The in-process injector refused a request (a harness bug: scenarios are validated on load).
    #[error("injector: {0}")]
    Injector(Box<kraken_faults::FaultError>),
    /// The oracle could not judge the pose stream (empty, non-monotonic or non-finite).
    #[error("oracle: {0}")]
    Oracle(#[from] breakbench_oracle::OracleError),
    /// The estimator stack could not be built.
    #[error("estimator stack: {0}")]
    Stack(#[from] breakbench_navigator::stack::StackError),
    /// The plant rejected its configuration.
    #[error("plant: {0}")]
    Sim(Box<breakbench_sim_bridge::SimError>),
    /// Reading or writing campaign files failed.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A manifest or summary file is not valid JSON of the expected shape.
    #[error("{path}: {source}")]
    Json {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    /// The output directory holds results of a different scenario (its
    /// campaign.json has another scenario hash).
    #[error("{dir} holds results of scenario '{held_name}' (hash {held_hash}), not of {scenario} (hash {hash}): use another --out directory")]
    OtherScenario {
        dir: String,
        held_name: String,
        /// First 12 hex digits of the hash in campaign.json.
        held_hash: String,
        scenario: String,
        /// First 12 hex digits of the loaded scenario's hash.
        hash: String,
    },
    /// The `--out` directory is not one a campaign or search may write: not
    /// empty and holding no Breakbench results, or not a directory
    /// ([`super::claim`], REQ-OUTPUT-CLAIM). Nothing was written.
    #[error(
        "--out {dir}: {why}: give a new or empty directory, or one of this scenario's campaigns"
    )]
    NotOurs { dir: String, why: String },
    /// A path the campaign would write is longer than the system allows
    /// (REQ-OUTPUT-PATHS); nothing was written.
    #[error("{0}")]
    OutPath(String),
    /// Another campaign holds the output directory's lock.
    #[error("{dir} is in use by another campaign (lock {lock})")]
    Locked { dir: String, lock: String },
    /// A manifest in the directory does not belong to the run it is filed
    /// under (scenario hash, run id, kind, seed or cell differ from the plan):
    /// a copied or misplaced manifest. `analyze` refuses the directory;
    /// `run_campaign` reruns the run.
    #[error("{path}: {problem} (a copied or misplaced manifest)")]
    ForeignManifest { path: String, problem: String },
    /// A stored run's evidence does not match its record
    /// (REQ-CAMPAIGN-EVIDENCE): a manifest whose sha256 is not its ledger
    /// line's, one with an unknown field or without a ledger line
    /// (`analyze`), a trace or provenance record missing or with another
    /// sha256 than its manifest's, a ledger line that is not one. `path`
    /// names the file (and line). Resume, `analyze` and `merge` refuse the
    /// directory; nothing is rewritten.
    #[error("{path}: {problem}")]
    Evidence { path: String, problem: String },
    /// An axis of a loaded scenario no longer builds a FaultSpec (a harness
    /// bug: scenarios are validated on load).
    #[error("axis {axis}: {message}")]
    Axis { axis: String, message: String },
    /// A controller input cannot be wired to the plant: the plant simulates
    /// no sensor of that name, or emits another message type on it.
    #[error("controller input '{channel}' ({wanted}) cannot be wired to the plant, which has {plant} on it")]
    Wiring {
        channel: String,
        wanted: String,
        plant: String,
    },
    /// The plan exceeds the resource budget (runs, simulated steps, lidar rays
    /// or bytes written); nothing was run.
    #[error("{0}")]
    OverBudget(String),
    /// A `--shard` value (or the environment variable it reads) is not a
    /// shard, or a directory holds another shard's runs.
    #[error("{0}")]
    Shard(String),
    /// `breakbench merge` refused its shard directories (another scenario
    /// hash or build, a missing or duplicated run, not a shard directory);
    /// nothing was written.
    #[error("merge refused: {0}")]
    Merge(String),
    /// `breakbench analyze` on a campaign directory that lacks manifests of
    /// planned runs (an interrupted campaign): its summary would read as the
    /// whole campaign's.
    #[error("{dir}: {missing} of {planned} planned runs have no manifest (first: {first}): resume the campaign with the same `breakbench campaign` command, then analyze")]
    Incomplete {
        dir: String,
        missing: usize,
        planned: usize,
        first: String,
    },

    /// The graph executor's launch config cannot be run (bad config, params
    /// file, `--graph-set`, missing executable): nothing ran.
    #[error("graph {config}: {source}")]
    Graph {
        config: String,
        #[source]
        source: Box<breakbench_supervisor::SupervisorError>,
    },

    /// Graph executor options that cannot work together (named in the message).
    #[error("{0}")]
    GraphOptions(String),

    /// The executor cannot run what the scenario asks for (named with the
    /// scenario field); nothing was run or written.
    #[error("{scenario}: field '{field}': unsupported by the {executor} executor: {why}")]
    Unsupported {
        scenario: String,
        field: String,
        executor: &'static str,
        why: String,
    },

    /// A run's recording could not be written (the MCAP writer's refusal).
    #[error("recording: {0}")]
    Recording(String),
}

impl CampaignError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}

impl From<ConfigError> for CampaignError {
    fn from(e: ConfigError) -> Self {
        Self::Config(Box::new(e))
    }
}

impl From<kraken_faults::FaultError> for CampaignError {
    fn from(e: kraken_faults::FaultError) -> Self {
        Self::Injector(Box::new(e))
    }
}

impl From<breakbench_sim_bridge::SimError> for CampaignError {
    fn from(e: breakbench_sim_bridge::SimError) -> Self {
        Self::Sim(Box::new(e))
    }
}

/// A records error (write, hash) as the campaign's: I/O and JSON errors keep
/// their path and cause.
impl From<RecordsError> for CampaignError {
    fn from(e: RecordsError) -> Self {
        match e {
            RecordsError::Io { path, source } => CampaignError::io(path, source),
            RecordsError::Json { path, source } => CampaignError::Json {
                path: path.display().to_string(),
                source,
            },
            RecordsError::Mcap(e) => CampaignError::Recording(e.to_string()),
            RecordsError::Recording(e) => CampaignError::Recording(e),
        }
    }
}
