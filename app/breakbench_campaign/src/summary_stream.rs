//! summary.json and junit.xml of a campaign's runs computed as their
//! manifests arrive in run-id order, in memory flat in the number of runs
//! (REQ-SCALE-FLAT): a [`SummaryStream`] digests each manifest into a
//! [`RunSet`] and, whenever every grid cell it holds runs of is complete,
//! folds those digests into the summary ([`SummaryFold`]) and junit.xml's
//! run cases ([`JunitRuns`]) and drops them. A cell's runs are contiguous
//! in run-id order (`grid_<cell>_r<repeat>`: the cells' prefixes differ
//! before the `_r`), so at most one cell's digests are held; were they not,
//! the digests would be held until their cells complete, the same bytes.
//! The computation is [`super::summary::Summary::of_runs`]' (one batch of
//! every run), so the bytes are the same.

use std::path::Path;

use super::manifest::{Manifest, RunKind};
use super::outputs::JunitRuns;
use super::run_digest::RunSet;
use super::scenario::ScenarioFile;
use super::summary::{Summary, SummaryFold};
use super::CampaignError;

/// The summary of runs added in run-id order (module docs).
pub struct SummaryStream<'a> {
    file: &'a ScenarioFile,
    runs: RunSet,
    fold: SummaryFold,
    junit: Option<JunitRuns>,
    /// Per scenario cell, its planned grid runs not yet added.
    remaining: Vec<u64>,
    /// Per scenario cell, whether a run of it was added.
    started: Vec<bool>,
    /// Cells with runs added and some not yet.
    open: usize,
    /// The run id added last.
    last: Option<String>,
    /// The most digests held at once.
    peak: usize,
}

impl<'a> SummaryStream<'a> {
    /// A stream of the runs of the scenario `file` (all of its plan are to
    /// be added), junit.xml's run cases written to the new file
    /// `junit_cases`, if given, as they are folded.
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn new(file: &'a ScenarioFile, junit_cases: Option<&Path>) -> Result<Self, CampaignError> {
        let runs = RunSet::new(file);
        let remaining = runs.planned_per_cell(file);
        Ok(SummaryStream {
            file,
            started: vec![false; remaining.len()],
            remaining,
            runs,
            fold: SummaryFold::new(file),
            junit: junit_cases.map(JunitRuns::create).transpose()?,
            open: 0,
            last: None,
            peak: 0,
        })
    }

    /// Adds run `m`, its run id after the last one added.
    ///
    /// # Errors
    /// [`CampaignError::Merge`] if its run id is not after the last one
    /// added, or its cell has more grid runs than the plan files under it.
    pub fn add(&mut self, m: &Manifest) -> Result<(), CampaignError> {
        if self.last.as_deref().is_some_and(|l| l >= m.run_id.as_str()) {
            return Err(CampaignError::Merge(format!(
                "run {} added after run {}: the summary is folded in run-id order",
                m.run_id,
                self.last.as_deref().unwrap_or_default()
            )));
        }
        self.last = Some(m.run_id.clone());
        self.runs.add(self.file, m);
        self.peak = self.peak.max(self.runs.digests().len());
        let cell = self
            .runs
            .last()
            .filter(|d| d.kind == RunKind::Grid)
            .and_then(|d| d.cell);
        if let Some(c) = cell.map(|c| c as usize) {
            if self.remaining[c] == 0 {
                return Err(CampaignError::Merge(format!(
                    "run {}: more grid runs of its cell than the plan has",
                    m.run_id
                )));
            }
            if !self.started[c] {
                self.started[c] = true;
                self.open += 1;
            }
            self.remaining[c] -= 1;
            if self.remaining[c] == 0 {
                self.open -= 1;
            }
        }
        if self.open == 0 {
            self.flush();
        }
        Ok(())
    }

    /// The most digests held at once so far (at most one cell's runs and
    /// the other runs beside it when the cells are contiguous in run-id
    /// order).
    pub fn peak_held(&self) -> usize {
        self.peak
    }

    /// Folds the digests held (whole cells) and drops them.
    fn flush(&mut self) {
        let ds = self.runs.digests();
        if ds.is_empty() {
            return;
        }
        if let Some(j) = &mut self.junit {
            j.add(ds);
        }
        self.fold.add(self.file, ds, self.runs.margin_names());
        self.runs.clear_digests();
    }

    /// The summary of the runs added (the scenario's hash `hash`), junit.xml
    /// written to the new file `junit` (not atomic: for a staging
    /// directory) if the stream was given a file of run cases, and the run set of the manifests kept whole (sorted; no
    /// digest), for the report and the harness checks.
    ///
    /// # Errors
    /// I/O errors with their path.
    pub fn finish(mut self, hash: &str, junit: &Path) -> Result<(Summary, RunSet), CampaignError> {
        // Cells with runs missing (none once a merge checked the run set).
        self.flush();
        self.runs.sort();
        let summary = self.fold.finish(self.file, hash, self.runs.kept());
        if let Some(j) = self.junit {
            j.finish(junit, &summary)?;
        }
        Ok((summary, self.runs))
    }
}
