//! A campaign's plan held in about 45 bytes a run (REQ-SCALE-STREAM), for
//! `breakbench merge`: a planned [`RunSpec`] holds its run id and its cell
//! as two maps (several hundred bytes), but the runs of one cell differ
//! only in id, seed and repeat. [`CompactPlan`] keeps each distinct rest
//! (the run's *shape*: kind, faults, variant, phase, test) once, and per run
//! its shape, seed and repeat (16 bytes), its id in one text of all the ids
//! (the id and a `\n`, and its end: 4 bytes) and its position sorted by id
//! (4 bytes). The shards' campaign.json name the plan by its [`PlanRef`]
//! (REQ-SCALE-MERGE), the digest of that same text.

use std::collections::BTreeMap;

use super::plan::plan_each;
use super::run::RunSpec;
use super::scenario::ScenarioFile;
use super::store::PlanRef;

/// The plan of a campaign, compact (module docs).
pub struct CompactPlan {
    /// Per plan position: index into `shapes`, seed, repeat.
    runs: Vec<(u32, u64, u32)>,
    /// The distinct shapes: run specs with an empty id, seed 0, repeat 0.
    shapes: Vec<RunSpec>,
    /// Every run id followed by `\n`, in plan order.
    ids: String,
    /// Per plan position, the end of its id in `ids` (before its `\n`).
    ends: Vec<u32>,
    /// Plan positions ordered by run id, for [`CompactPlan::position`].
    by_id: Vec<u32>,
}

impl CompactPlan {
    /// The plan of the scenario `file`, made one run at a time
    /// ([`plan_each`]: the whole plan is never in memory).
    ///
    /// # Panics
    /// If the ids take 4 GiB or more (about 10^8 runs).
    pub fn new(file: &ScenarioFile) -> Self {
        // A counting pass first: every vector made at its final size, no
        // doubling (REQ-SCALE-FLAT: the growth slack and the copies were a
        // third of the plan's peak).
        let (mut n, mut text) = (0usize, 0usize);
        plan_each(file, |r| {
            n += 1;
            text += r.run_id.len() + 1;
        });
        let mut shape_of: BTreeMap<String, u32> = BTreeMap::new();
        let mut shapes = Vec::new();
        let mut runs = Vec::with_capacity(n);
        let mut ids = String::with_capacity(text);
        let mut ends = Vec::with_capacity(n);
        plan_each(file, |mut r| {
            ids.push_str(&r.run_id);
            ends.push(u32::try_from(ids.len()).expect("run ids under 4 GiB"));
            ids.push('\n');
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
        let mut plan = CompactPlan {
            runs,
            shapes,
            ids,
            ends,
            by_id: Vec::new(),
        };
        let mut by_id: Vec<u32> = (0..plan.runs.len() as u32).collect();
        by_id.sort_unstable_by(|a, b| plan.id(*a as usize).cmp(plan.id(*b as usize)));
        plan.by_id = by_id;
        plan
    }

    /// The number of planned runs.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether nothing is planned.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The id of the run at plan position `i` (`i < len()`).
    pub fn id(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        };
        &self.ids[start..self.ends[i] as usize]
    }

    /// The run ids in plan order.
    pub fn ids(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.id(i))
    }

    /// The plan's reference, as a shard's campaign.json records it.
    pub fn plan_ref(&self) -> PlanRef {
        PlanRef::of_text(self.len(), &self.ids)
    }

    /// The plan position of run `id`, `None` if it is not planned.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id
            .binary_search_by(|p| self.id(*p as usize).cmp(id))
            .ok()
            .map(|k| self.by_id[k] as usize)
    }

    /// The planned run at position `i`: equal to the [`RunSpec`] the plan
    /// made.
    pub fn spec(&self, i: usize) -> RunSpec {
        let (shape, seed, repeat) = self.runs[i];
        let mut r = self.shapes[shape as usize].clone();
        r.run_id = self.id(i).to_string();
        r.seed = seed;
        r.repeat = repeat as usize;
        r
    }

    /// The plan positions ordered by run id.
    pub fn by_id(&self) -> &[u32] {
        &self.by_id
    }

    /// The number of distinct shapes (cells, variants, tests, phases).
    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }
}
