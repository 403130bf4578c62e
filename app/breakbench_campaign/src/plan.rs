//! The plan of a campaign: its runs (grid cells × repeats, the nominal
//! fault-free set, the canary), their ids and their seeds, computed from the
//! scenario alone, so a resumed or analysed campaign recomputes the same plan;
//! and its [`Shard`]s, the disjoint slices `breakbench campaign --shard K/N`
//! executes on separate machines.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::manifest::RunKind;
use super::run::RunSpec;
use super::scenario::{Scenario, ScenarioFile};
use super::CampaignError;

/// Run seeds come from the seed tree ([`kraken_interfaces::seed`]).
pub use kraken_interfaces::seed::derive_seed;

pub(crate) use super::scenario::fmt_value;

/// The run id of nominal run `i` of `runs`: `nominal_` and the index padded
/// to at least 3 digits and to the width of `runs - 1`, so that the ids sort
/// in index order (the spread-convergence criterion reads the nominal runs in
/// run-id order: its "first n - window" are the lowest indices).
pub fn nominal_run_id(i: usize, runs: usize) -> String {
    let width = runs.saturating_sub(1).to_string().len().max(3);
    format!("nominal_{i:0width$}")
}

/// The run-id key of grid cell `cell`: each fault axis' name and value,
/// then each navigator axis' name and label, joined by `_`
/// (`latency_s0.4_odom_bias0.2`).
pub fn grid_key(s: &ScenarioFile, cell: &BTreeMap<String, f64>) -> String {
    s.axes
        .iter()
        .map(|a| format!("{}{}", a.name, fmt_value(cell[&a.name])))
        .chain(
            s.navigator_axes
                .iter()
                .map(|a| format!("{}_{}", a.name, a.values[cell[&a.name] as usize])),
        )
        .collect::<Vec<_>>()
        .join("_")
}

/// Every run of the scenario, in plan order: the grid (repeat r of every cell
/// shares seed `derive_seed(seed, "repeat-r")`, so cells are compared on common
/// random numbers), the nominal set, the canary, then each resilience test's
/// baseline and fault runs.
pub fn plan(s: &Scenario) -> Vec<RunSpec> {
    plan_file(&s.file)
}

/// [`plan`] from the scenario file alone (as campaign.json stores it): the
/// plan depends on nothing else.
pub fn plan_file(s: &ScenarioFile) -> Vec<RunSpec> {
    let mut runs = Vec::new();
    plan_each(s, |r| runs.push(r));
    runs
}

/// [`plan_file`] one run at a time, in plan order, without the whole plan
/// in memory (REQ-SCALE-STREAM).
pub fn plan_each(s: &ScenarioFile, mut each: impl FnMut(RunSpec)) {
    // No axes (a scenario of resilience tests only): no fault grid.
    let cells = if s.axes.is_empty() {
        Vec::new()
    } else {
        s.cells()
    };
    for cell in cells {
        let key = grid_key(s, &cell);
        for r in 0..s.repeats {
            each(
                RunSpec::new(
                    format!("grid_{key}_r{r}"),
                    RunKind::Grid,
                    derive_seed(s.seed, &format!("repeat-{r}")),
                    r,
                )
                .with_cell(s, &cell),
            );
        }
    }
    let zero: BTreeMap<String, f64> = s.axes.iter().map(|a| (a.name.clone(), 0.0)).collect();
    // One nominal set per navigator variant (the same seeds for every
    // variant: common random numbers); its run ids carry the variant.
    for key in s.variant_keys() {
        let mut cell = zero.clone();
        let mut prefix = String::new();
        for (a, i) in s.navigator_axes.iter().zip(&key) {
            cell.insert(a.name.clone(), *i as f64);
            prefix.push_str(&format!("{}_{}_", a.name, a.values[*i]));
        }
        for i in 0..s.nominal.runs {
            let id = nominal_run_id(i, s.nominal.runs);
            let run_id = if prefix.is_empty() {
                id
            } else {
                id.replacen("nominal_", &format!("nominal_{prefix}"), 1)
            };
            let seed = derive_seed(s.seed, &format!("nominal-{i}"));
            each(RunSpec::new(run_id, RunKind::Nominal, seed, i).with_cell(s, &cell));
        }
    }
    if s.canary.is_some() {
        each(RunSpec::new(
            "canary_000".into(),
            RunKind::Canary,
            derive_seed(s.seed, "canary-0"),
            0,
        ));
    }
    // Resilience tests: repeat r of test t is a fault run and, unless the
    // test opts out, its baseline, both seeded derive_seed(seed, "test-t-r").
    // A phase-swept test has one fault run per phase and repeat (the same
    // seed for every phase) and one baseline per repeat.
    for t in &s.tests {
        // Phase k is `_p<k>` zero-padded to the width of steps - 1, so that
        // ids sort in phase order (the value is the run's cell).
        let phases: Vec<Option<(String, f64)>> = match &t.phase_sweep {
            Some(ps) => {
                let width = (ps.steps - 1).to_string().len();
                ps.phases()
                    .into_iter()
                    .enumerate()
                    .map(|(k, p)| Some((format!("p{k:0width$}"), p)))
                    .collect()
            }
            None => vec![None],
        };
        for r in 0..s.repeats {
            let seed = derive_seed(s.seed, &format!("test-{}-{r}", t.name));
            if t.baseline {
                each(RunSpec {
                    test: Some(t.name.clone()),
                    ..RunSpec::new(
                        format!("baseline_{}_r{r}", t.name),
                        RunKind::Baseline,
                        seed,
                        r,
                    )
                });
            }
            for phase in &phases {
                let (run_id, phase_s) = match phase {
                    Some((k, p)) => (format!("test_{}_{k}_r{r}", t.name), Some(*p)),
                    None => (format!("test_{}_r{r}", t.name), None),
                };
                each(RunSpec {
                    phase_s,
                    test: Some(t.name.clone()),
                    ..RunSpec::new(run_id, RunKind::Test, seed, r)
                });
            }
        }
    }
}

/// The environment variables `--shard auto/N` reads the shard index from, in
/// order: a Kubernetes Indexed Job's pod index, then a Slurm array task id.
pub const SHARD_INDEX_VARS: [&str; 2] = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"];

/// Slice `index` (0-based) of `count` disjoint slices of a plan.
///
/// The rule: the run at plan position `i` (0-based, in [`plan`] order)
/// belongs to slice `i mod count`. Plan order walks the grid cell by cell,
/// repeat by repeat, then the nominal set and the canary, so every slice gets
/// a mix of cells and of fault severities, and the slices differ in size by at
/// most one run. The slices of `count` are disjoint and their union is the
/// plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// In `0..count`.
    pub index: usize,
    /// At least 1.
    pub count: usize,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether the run at plan position `i` belongs to this slice.
    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index
    }

    /// The runs of `runs` (a plan, in plan order) in this slice, in plan order.
    pub fn slice<'a>(&self, runs: &'a [RunSpec]) -> Vec<&'a RunSpec> {
        runs.iter()
            .enumerate()
            .filter(|(i, _)| self.contains(*i))
            .map(|(_, r)| r)
            .collect()
    }

    /// How many of `total` plan positions fall in this slice.
    pub fn len_of(&self, total: u64) -> u64 {
        let (k, n) = (self.index as u64, self.count as u64);
        if k >= total {
            0
        } else {
            (total - k).div_ceil(n)
        }
    }

    /// Parses `--shard`: `K/N` (K in `0..N`, N at least 1), or `auto/N`, which
    /// takes K from the first of [`SHARD_INDEX_VARS`] that `env` (a variable
    /// lookup, `std::env::var(..).ok()` in the binary) finds set.
    ///
    /// # Errors
    /// [`CampaignError::Shard`] naming the text, or the variable and its value,
    /// that is not a shard: not `K/N`, N = 0, K not an integer in `0..N`,
    /// `auto` with neither variable set, or both set to different values.
    pub fn parse(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<Self, CampaignError> {
        let bad = |m: String| CampaignError::Shard(m);
        let (k, n) = spec.split_once('/').ok_or_else(|| {
            bad(format!(
                "--shard {spec:?}: expected K/N (slice K, 0-based, of N) or auto/N"
            ))
        })?;
        let count: usize = n.trim().parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
            bad(format!(
                "--shard {spec:?}: N = {n:?} must be an integer of at least 1"
            ))
        })?;
        let in_range = |v: &str, what: &str| -> Result<usize, CampaignError> {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|k| *k < count)
                .ok_or_else(|| {
                    bad(format!(
                        "{what} = {v:?}: the shard index must be an integer in 0..={} (0-based, for N = {count})",
                        count - 1
                    ))
                })
        };
        let index = if k.trim() == "auto" {
            let set: Vec<(&str, String)> = SHARD_INDEX_VARS
                .iter()
                .filter_map(|v| env(v).map(|x| (*v, x)))
                .collect();
            match set.as_slice() {
                [] => {
                    return Err(bad(format!(
                        "--shard {spec:?}: neither {} nor {} is set (a Kubernetes Indexed Job or a Slurm array sets one); give the index as K/N",
                        SHARD_INDEX_VARS[0], SHARD_INDEX_VARS[1]
                    )))
                }
                [(var, v)] => in_range(v, &format!("--shard {spec:?}: {var}"))?,
                [(va, a), (vb, b), ..] => {
                    if a.trim() != b.trim() {
                        return Err(bad(format!(
                            "--shard {spec:?}: {va} = {a:?} and {vb} = {b:?} disagree; unset one or give the index as K/N"
                        )));
                    }
                    in_range(a, &format!("--shard {spec:?}: {va}"))?
                }
            }
        } else {
            in_range(k, &format!("--shard {spec:?}: K"))?
        };
        Ok(Self { index, count })
    }
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
