//! A campaign's plan held in about 20 bytes a run (REQ-SCALE-STREAM), for
//! `breakbench merge`: a planned [`RunSpec`] holds its run id and its cell
//! as two maps (several hundred bytes), but the runs of one cell differ
//! only in id, seed and repeat. [`CompactPlan`] keeps each distinct rest
//! (the run's *shape*: kind, faults, variant, phase, test) once, and per run
//! its shape, seed and repeat; the ids are campaign.json's run list.

use std::collections::BTreeMap;

use super::plan::plan_each;
use super::run::RunSpec;
use super::scenario::ScenarioFile;

/// The plan of a campaign, compact (module docs).
pub struct CompactPlan {
    /// Per plan position: index into `shapes`, seed, repeat.
    runs: Vec<(u32, u64, u32)>,
    /// The distinct shapes: run specs with an empty id, seed 0, repeat 0.
    shapes: Vec<RunSpec>,
    /// Plan positions ordered by run id, for [`CompactPlan::position`].
    by_id: Vec<u32>,
}

impl CompactPlan {
    /// The plan of the scenario `file`, made one run at a time
    /// ([`plan_each`]: the whole plan is never in memory), if its run ids
    /// are `ids` (campaign.json's run list) in that order; `Err` with the
    /// number of planned runs if not.
    pub fn of(file: &ScenarioFile, ids: &[String]) -> Result<Self, usize> {
        let mut shape_of: BTreeMap<String, u32> = BTreeMap::new();
        let mut shapes = Vec::new();
        let mut runs = Vec::with_capacity(ids.len());
        let mut same = true;
        plan_each(file, |mut r| {
            same &= ids.get(runs.len()) == Some(&r.run_id);
            let (seed, repeat) = (r.seed, r.repeat as u32);
            r.run_id = String::new();
            r.seed = 0;
            r.repeat = 0;
            // Debug prints every field (f64s exactly): equal text, equal shape.
            let key = format!("{r:?}");
            let i = *shape_of.entry(key).or_insert_with(|| {
                shapes.push(r);
                (shapes.len() - 1) as u32
            });
            runs.push((i, seed, repeat));
        });
        if !same || runs.len() != ids.len() {
            return Err(runs.len());
        }
        let mut by_id: Vec<u32> = (0..runs.len() as u32).collect();
        by_id.sort_unstable_by(|a, b| ids[*a as usize].cmp(&ids[*b as usize]));
        Ok(CompactPlan {
            runs,
            shapes,
            by_id,
        })
    }

    /// The number of planned runs.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether nothing is planned.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The plan position of run `id`, `None` if it is not planned; `ids`
    /// as given to [`CompactPlan::new`].
    pub fn position(&self, ids: &[String], id: &str) -> Option<usize> {
        self.by_id
            .binary_search_by(|p| ids[*p as usize].as_str().cmp(id))
            .ok()
            .map(|k| self.by_id[k] as usize)
    }

    /// The planned run at position `i`, whose id is `id`: equal to the
    /// [`RunSpec`] the plan made.
    pub fn spec(&self, i: usize, id: &str) -> RunSpec {
        let (shape, seed, repeat) = self.runs[i];
        let mut r = self.shapes[shape as usize].clone();
        r.run_id = id.to_string();
        r.seed = seed;
        r.repeat = repeat as usize;
        r
    }

    /// The number of distinct shapes (cells, variants, tests, phases).
    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }
}
