//! The plan of a campaign: its runs (grid cells × repeats, the nominal
//! fault-free set, the canary), their ids and their seeds, computed from the
//! scenario alone, so a resumed or analysed campaign recomputes the same plan.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::manifest::RunKind;
use super::run::RunSpec;
use super::scenario::{Scenario, ScenarioFile};

/// Derives a run seed from the master seed and a label (first 8 bytes of
/// sha256(master ‖ label), little-endian).
pub fn derive_seed(master: u64, label: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(master.to_le_bytes());
    h.update(label.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

pub(crate) fn fmt_value(v: f64) -> String {
    format!("{v}")
}

/// The run id of nominal run `i` of `runs`: `nominal_` and the index padded
/// to at least 3 digits and to the width of `runs - 1`, so that the ids sort
/// in index order (the spread-convergence criterion reads the nominal runs in
/// run-id order: its "first n - window" are the lowest indices).
pub fn nominal_run_id(i: usize, runs: usize) -> String {
    let width = runs.saturating_sub(1).to_string().len().max(3);
    format!("nominal_{i:0width$}")
}

/// Every run of the scenario, in plan order: the grid (repeat r of every cell
/// shares seed `derive_seed(seed, "repeat-r")`, so cells are compared on common
/// random numbers), the nominal set, then the canary.
pub fn plan(s: &Scenario) -> Vec<RunSpec> {
    plan_file(&s.file)
}

/// [`plan`] from the scenario file alone (as campaign.json stores it): the
/// plan depends on nothing else.
pub fn plan_file(s: &ScenarioFile) -> Vec<RunSpec> {
    let mut runs = Vec::new();
    for cell in s.cells() {
        let key: Vec<String> = s
            .axes
            .iter()
            .map(|a| format!("{}{}", a.name, fmt_value(cell[&a.name])))
            .collect();
        for r in 0..s.repeats {
            runs.push(RunSpec {
                run_id: format!("grid_{}_r{r}", key.join("_")),
                kind: RunKind::Grid,
                seed: derive_seed(s.seed, &format!("repeat-{r}")),
                cell: cell.clone(),
            });
        }
    }
    let zero: BTreeMap<String, f64> = s.axes.iter().map(|a| (a.name.clone(), 0.0)).collect();
    for i in 0..s.nominal.runs {
        runs.push(RunSpec {
            run_id: nominal_run_id(i, s.nominal.runs),
            kind: RunKind::Nominal,
            seed: derive_seed(s.seed, &format!("nominal-{i}")),
            cell: zero.clone(),
        });
    }
    if s.canary.is_some() {
        runs.push(RunSpec {
            run_id: "canary_000".into(),
            kind: RunKind::Canary,
            seed: derive_seed(s.seed, "canary-0"),
            cell: BTreeMap::new(),
        });
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::nominal_run_id;

    #[test]
    fn nominal_run_ids_sort_in_index_order() {
        assert_eq!(nominal_run_id(7, 25), "nominal_007");
        assert_eq!(nominal_run_id(999, 1000), "nominal_999");
        assert_eq!(nominal_run_id(999, 1001), "nominal_0999");
        assert_eq!(nominal_run_id(1000, 1001), "nominal_1000");
        let ids: Vec<String> = (0..1001).map(|i| nominal_run_id(i, 1001)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
