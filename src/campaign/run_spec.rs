//! A run's identity, typed: what the plan decided about one run, carried to
//! the executors (in-process and graph) and to the manifest without being
//! parsed back from the run id (issue 25, "typed runs").

use std::collections::BTreeMap;

use super::manifest::RunKind;
use super::resilience::PHASE_KEY;
use super::scenario::ScenarioFile;

/// What to run: one entry of the plan ([`super::plan::plan`]).
///
/// The manifest records the run's cell as one map (fault axes, navigator
/// axes by value index, the phase of a phase-swept test: [`RunSpec::cell`]);
/// here each part has its own field and type.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// `grid_<cell>_r<repeat>`, `nominal_<i>`, `canary_000`,
    /// `baseline_<test>_r<repeat>`, `test_<test>[_p<k>]_r<repeat>`,
    /// `search_<name>_r<repeat>`.
    pub run_id: String,
    pub kind: RunKind,
    pub seed: u64,
    /// The repeat index: `r` of a grid, test, baseline or search run, the
    /// index `i` of a nominal run, 0 for the canary.
    pub repeat: usize,
    /// Fault axis name → its value in the axis' unit (grid and search runs:
    /// every axis; nominal runs: every axis at 0; empty for the canary and
    /// resilience-test runs).
    pub faults: BTreeMap<String, f64>,
    /// Navigator axis name → index into its `values` (grid, search and
    /// nominal runs of a scenario with navigator axes; empty otherwise).
    pub variant: BTreeMap<String, usize>,
    /// The phase offset, s, of a phase-swept resilience-test fault run.
    pub phase_s: Option<f64>,
    /// The resilience test (`tests[].name`) of a test or baseline run.
    pub test: Option<String>,
}

impl RunSpec {
    /// A run of no test with no fault, variant or phase (the canary's shape);
    /// the plan fills in the rest.
    pub fn new(run_id: String, kind: RunKind, seed: u64, repeat: usize) -> Self {
        RunSpec {
            run_id,
            kind,
            seed,
            repeat,
            faults: BTreeMap::new(),
            variant: BTreeMap::new(),
            phase_s: None,
            test: None,
        }
    }

    /// This run with the cell `cell` (as [`ScenarioFile::cells`] gives it:
    /// fault axes by value, navigator axes by index) split into its typed
    /// parts by the file's axis declarations.
    pub fn with_cell(mut self, file: &ScenarioFile, cell: &BTreeMap<String, f64>) -> Self {
        for a in &file.axes {
            if let Some(v) = cell.get(&a.name) {
                self.faults.insert(a.name.clone(), *v);
            }
        }
        for a in &file.navigator_axes {
            if let Some(i) = cell.get(&a.name) {
                self.variant.insert(a.name.clone(), *i as usize);
            }
        }
        self
    }

    /// The cell as the manifest records it: fault axis → value, navigator
    /// axis → value index, [`PHASE_KEY`] → phase offset.
    pub fn cell(&self) -> BTreeMap<String, f64> {
        let mut cell = self.faults.clone();
        cell.extend(self.variant.iter().map(|(k, i)| (k.clone(), *i as f64)));
        if let Some(p) = self.phase_s {
            cell.insert(PHASE_KEY.to_string(), p);
        }
        cell
    }

    /// The navigator variant key (one value index per navigator axis, in
    /// declaration order, 0 where the run has none), as
    /// [`ScenarioFile::variant_keys`] lists them.
    pub fn variant_key(&self, file: &ScenarioFile) -> Vec<usize> {
        file.navigator_axes
            .iter()
            .map(|a| self.variant.get(&a.name).copied().unwrap_or(0))
            .collect()
    }

    /// The baseline run paired with this resilience-test fault run: the same
    /// test, seed and repeat, no fault, no phase.
    pub fn baseline(&self, test: &str) -> Self {
        RunSpec {
            run_id: format!("baseline_{test}_r{}", self.repeat),
            kind: RunKind::Baseline,
            faults: BTreeMap::new(),
            variant: BTreeMap::new(),
            phase_s: None,
            ..self.clone()
        }
    }
}
