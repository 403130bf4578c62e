//! The executor seam of the campaign engine: what runs one planned run and
//! returns its manifest and trace. The engine ([`super::runner`]) does the
//! rest (plan, resume, atomic writes, summary, report, JUnit) the same way
//! for every executor.
//!
//! * [`InProcess`]: plant, fault stages, navigator and oracle in this
//!   process on one sim clock ([`super::run::execute`]).
//! * [`super::graph::GraphExecutor`]: each run on a ROS 2 graph of child
//!   processes (`breakbench campaign --graph <launch config>`).

use super::manifest::Provenance;
use super::run::{RecordMode, RunOutput, RunSpec};
use super::{CampaignError, Scenario};

/// Executes one run of a campaign's plan.
///
/// Implementations are shared by the engine's worker threads (`--jobs N`
/// calls [`Executor::execute`] from N threads at once).
pub trait Executor: Sync {
    /// Runs `spec` of `scenario` and returns its manifest (trace hash left
    /// for the engine to fill in) and its ground-truth trace as CSV.
    ///
    /// # Errors
    /// Only errors that make the whole campaign impossible (a configuration
    /// error); a run that went wrong on its own is a manifest (for a graph:
    /// an `invalid` one), never an error.
    fn execute(
        &self,
        scenario: &Scenario,
        spec: &RunSpec,
        provenance: &Provenance,
    ) -> Result<RunOutput, CampaignError>;

    /// True when this executor's manifests carry a graph record
    /// ([`super::manifest::GraphRecord`]); a manifest made by the other kind
    /// of executor is not reused on resume.
    fn on_graph(&self) -> bool;

    /// Refuses, before anything runs or is written, a scenario this
    /// executor would not run as written (a silent approximation would be a
    /// wrong result). Default: everything is supported.
    ///
    /// # Errors
    /// [`CampaignError::Unsupported`] naming the scenario field.
    fn supports(&self, _scenario: &Scenario) -> Result<(), CampaignError> {
        Ok(())
    }

    /// True when each run's output carries its per-message provenance
    /// ([`RunOutput::provenance_csv`]), written as
    /// `provenance/<run_id>.csv`; a stored run without that file is then
    /// not reused on resume. Default: false.
    fn records_provenance(&self) -> bool {
        false
    }

    /// The policy of each run's MCAP recording ([`RunOutput::recording`],
    /// `recordings/<run_id>.mcap`); a stored run recorded otherwise (or
    /// not) is then not reused on resume. Default: none.
    fn record_mode(&self) -> RecordMode {
        RecordMode::None
    }
}

/// The in-process executor ([`super::run::execute_with`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct InProcess {
    /// Record which fault touched each message of every run
    /// (`breakbench campaign --record-provenance`, REQ-FAULT-PROVENANCE).
    pub record_provenance: bool,
    /// Each run's MCAP recording and its policy (REQ-REC-MCAP,
    /// REQ-REC-POLICY; the command's `--record`).
    pub record_mcap: RecordMode,
}

impl Executor for InProcess {
    fn execute(
        &self,
        scenario: &Scenario,
        spec: &RunSpec,
        provenance: &Provenance,
    ) -> Result<RunOutput, CampaignError> {
        let records = super::run::RunRecords {
            provenance: self.record_provenance,
            mcap: self.record_mcap,
        };
        super::run::execute_with(scenario, spec, provenance, records)
    }

    fn on_graph(&self) -> bool {
        false
    }

    fn records_provenance(&self) -> bool {
        self.record_provenance
    }

    fn record_mode(&self) -> RecordMode {
        self.record_mcap
    }
}
