//! The error type of `breakbench up`.

use std::path::PathBuf;

/// Errors of `breakbench up`.
#[derive(Debug, thiserror::Error)]
pub enum SupervisorError {
    #[error(transparent)]
    Config(#[from] kraken_interfaces::ConfigError),
    #[error("{path}: {message}")]
    ParamsFile { path: PathBuf, message: String },
    #[error("--set {0:?}: expected node.param=value with a node of the launch config")]
    BadSet(String),
    #[error("--set {set:?}: no node '{node}' in the launch config (nodes: {nodes})")]
    UnknownSetNode {
        set: String,
        node: String,
        nodes: String,
    },
    #[error("--set {set:?}: node '{node}' has no parameter '{param}' in its section of {params_file} (a typo? known: {known})")]
    UnknownSetParam {
        set: String,
        node: String,
        param: String,
        params_file: PathBuf,
        known: String,
    },
    #[error("executable '{executable}' of package '{package}' not found; tried: {tried}")]
    NotFound {
        package: String,
        executable: String,
        tried: String,
    },
    #[error("starting {name} ({path}): {source}")]
    Spawn {
        name: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
    #[error("--scenario given, but no node of {} has `after_scenario: true` (the scenario would never run)", .config.display())]
    NoScenarioNode { config: PathBuf },
    #[error("--scenario {}: no such file", .0.display())]
    NoScenarioFile(PathBuf),
    /// An external stack's program is neither a file nor on `PATH`.
    #[error("program {program:?} of the command template not found ({looked})")]
    ProgramNotFound { program: String, looked: String },
    /// A topic or service name of an external stack that is not absolute.
    #[error("{flag} {name:?}: expected an absolute ROS name (/...)")]
    BadName { flag: &'static str, name: String },
    /// `--keep-running` with a start template that takes a run's value
    /// (`{seed}`, `{run_id}`, `{out}`: those go to the reset), or without a
    /// reset rule (REQ-GRAPH-RESET).
    #[error("--keep-running: {0}")]
    KeepRunning(String),
    /// A `--simulator` file that cannot be read or is malformed (issue 29).
    #[error("--simulator {}: {message}", .path.display())]
    Simulator { path: PathBuf, message: String },
    /// An external stack's command or reset template is malformed.
    #[error("{flag} {template:?}: {error}")]
    Template {
        flag: &'static str,
        template: String,
        error: super::template::TemplateError,
    },
}
