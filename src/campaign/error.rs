//! The error type of the campaign engine.

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
    /// The plant rejected its configuration.
    #[error("plant: {0}")]
    Sim(Box<breakbench_sim_bridge::SimError>),
    /// Reading or writing campaign files failed.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    /// A manifest or summary file is not valid JSON of the expected shape.
    #[error("{path}: {error}")]
    Json {
        path: String,
        error: serde_json::Error,
    },
    /// The output directory holds results of a different scenario.
    #[error("{0}")]
    Mismatch(String),
}

impl CampaignError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            error: source,
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
