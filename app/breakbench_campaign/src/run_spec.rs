//! A run's identity, typed: what the plan decided about one run, carried to
//! the executors (in-process and graph) and to the manifest without being
//! parsed back from the run id (issue 25, "typed runs").

use std::collections::BTreeMap;

use super::manifest::{Manifest, Provenance, RunKind, MANIFEST_SCHEMA};
use super::resilience::PHASE_KEY;
use super::scenario::{Scenario, ScenarioFile};
use super::trace::trace_file;
use breakbench_navigator::NavigatorConfig;
use breakbench_oracle::expect::RunJudgement;
use breakbench_oracle::Verdict;
use kraken_interfaces::SelfReport;

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

    /// The manifest of this run of `scenario` before its findings: the
    /// run's identity (schema, run id, kind, the canary's harness-only flag,
    /// scenario name and hash, seed, `provenance`, [`Self::cell`], trace file
    /// name) with `judgement` and `verdict`, and nothing found yet (no
    /// faults, self-report, contacts, isolation, detection or graph record;
    /// zero times; no trace or provenance hash). The in-process and the
    /// graph executor fill in what they found with struct update syntax, so
    /// a run's identity is written in one place.
    pub fn manifest(
        &self,
        scenario: &Scenario,
        provenance: &Provenance,
        judgement: RunJudgement,
        verdict: Verdict,
    ) -> Manifest {
        Manifest {
            schema: MANIFEST_SCHEMA.into(),
            run_id: self.run_id.clone(),
            kind: self.kind,
            harness_only: self.kind == RunKind::Canary,
            scenario_name: scenario.file.name.clone(),
            scenario_hash: scenario.hash.clone(),
            seed: self.seed,
            provenance: provenance.clone(),
            cell: self.cell(),
            faults: Vec::new(),
            self_report: SelfReport::None,
            self_report_at_s: None,
            judgement,
            verdict,
            contacts: Vec::new(),
            final_goal_distance_m: 0.0,
            margins: BTreeMap::new(),
            isolation: None,
            trace_file: trace_file(&self.run_id),
            trace_sha256: String::new(),
            provenance_sha256: None,
            recording_sha256: None,
            recording_mode: None,
            sim_time_s: 0.0,
            wall_time_s: 0.0,
            graph: None,
            detection: None,
        }
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

impl Scenario {
    /// The navigator of run `spec`: [`Scenario::navigator_for`] of its
    /// variant.
    pub fn navigator_of(&self, spec: &RunSpec) -> &NavigatorConfig {
        self.variants
            .get(&spec.variant_key(&self.file))
            .unwrap_or(&self.navigator)
    }

    /// The baseline run paired with `spec` (REQ-CAMPAIGN-BASELINE): for a
    /// resilience-test fault run of a test that declares `baseline: true`,
    /// [`RunSpec::baseline`] of its test (the same seed and repeat, no fault);
    /// `None` for every other run. Both executors run it (or reuse its
    /// verdict) before the fault run, so the pairing does not depend on the
    /// order runs finish in.
    pub fn paired_baseline(&self, spec: &RunSpec) -> Option<RunSpec> {
        match (&spec.test, spec.kind) {
            (Some(name), RunKind::Test)
                if self
                    .file
                    .tests
                    .iter()
                    .any(|t| t.name == *name && t.baseline) =>
            {
                Some(spec.baseline(name))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::plan::plan;
    use crate::Scenario;

    fn load(rel: &str) -> Scenario {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
        Scenario::load(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    #[test]
    fn a_grid_run_with_a_navigator_axis_has_typed_parts_and_the_recorded_cell() {
        let s = load("scenarios/studies/gnss_spoof_study.yaml");
        let runs = plan(&s);
        let r = runs
            .iter()
            .find(|r| r.run_id == "grid_ramp_rate_m_s0.5_gating_consistency_r19")
            .expect("planned");
        assert_eq!(r.repeat, 19);
        assert_eq!(r.faults, BTreeMap::from([("ramp_rate_m_s".into(), 0.5)]));
        assert_eq!(r.variant, BTreeMap::from([("gating".into(), 2)]));
        assert_eq!(r.phase_s, None);
        assert_eq!(
            r.cell(),
            BTreeMap::from([("gating".into(), 2.0), ("ramp_rate_m_s".into(), 0.5)])
        );
        assert_eq!(r.variant_key(&s.file), vec![2]);
        let n = runs
            .iter()
            .find(|r| r.run_id == "nominal_gating_none_019")
            .expect("planned");
        assert_eq!((n.kind, n.repeat), (RunKind::Nominal, 19));
        assert_eq!(n.variant_key(&s.file), vec![0]);
        assert_eq!(n.faults, BTreeMap::from([("ramp_rate_m_s".into(), 0.0)]));
    }

    #[test]
    fn every_phase_swept_test_run_pairs_with_the_baseline_of_its_repeat() {
        let s = load("scenarios/tests/scan_loss_phase_sweep.yaml");
        let runs = plan(&s);
        let tests: Vec<&RunSpec> = runs.iter().filter(|r| r.kind == RunKind::Test).collect();
        assert!(tests.len() > 2, "{} test runs", tests.len());
        for t in tests {
            let name = t.test.as_deref().expect("a test run names its test");
            let b = t.baseline(name);
            assert!(
                t.run_id.ends_with(&format!("_r{}", t.repeat)),
                "{}",
                t.run_id
            );
            assert!(t.phase_s.is_some(), "{}", t.run_id);
            assert_eq!(t.cell().get(PHASE_KEY), t.phase_s.as_ref());
            let planned = runs.iter().find(|r| r.run_id == b.run_id);
            assert_eq!(planned, Some(&b), "{}'s baseline", t.run_id);
        }
    }
}
