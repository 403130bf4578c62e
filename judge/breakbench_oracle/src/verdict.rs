//! The three invariants, evaluated over the ground-truth pose stream and the
//! world only, and recorded separately (never folded into one score).
//!
//! Nothing in this module takes the robot's self-report or any robot-estimate
//! type: the only inputs are [`World`] and [`PoseSample`]s. That is the
//! structural half of verdict isolation; [`crate::isolation`] is the checked
//! half.
//!
//! Definitions (`r` = `footprint_radius_m`, `p` = the sample's centre):
//!
//! * `operating_region_containment`: region margin
//!   `m(p) = sd_region(p) - r`, where `sd_region` is the distance from `p` to
//!   the polygon boundary, positive inside and negative outside. The whole
//!   footprint disc is inside the polygon iff `m(p) >= 0`. Violated at the
//!   first sample with `m < 0`. `value` = the minimum margin over all samples.
//! * `obstacle_clearance`: clearance `c(p) = min_obstacles sd_box(p) - r`,
//!   where `sd_box` is the distance from `p` to the box (negative inside). The
//!   footprint touches a box iff `c <= 0`. Violated at the first sample with
//!   `c < clearance_threshold_m` (contact included, since the threshold is
//!   `>= 0`); a sample with `c == clearance_threshold_m` is not a violation.
//!   Walls are not obstacles. `value` = the minimum clearance over all
//!   samples ([`NO_OBSTACLE_CLEARANCE_M`] if the world has no obstacle).
//! * `mission_completion_true_pose`: holds iff some sample with
//!   `t_s <= mission_timeout_s` has its centre in the closed goal disc,
//!   `|p - goal.center_m| <= goal.radius_m`. One such sample is enough.
//!   `value` = time of the first sample in the goal disc, even one after the
//!   timeout (then the predicate still fails), or [`GOAL_NEVER_ENTERED`].
//!
//! Decision times (`decided_at_s`): a violated safety predicate is decided at
//! its first violating sample, a held one at the end of the stream. The
//! mission is decided at the first entering sample (held), at
//! `mission_timeout_s` if the stream goes past the timeout without entry, or
//! at the end of the stream if the stream stops before the timeout.
//!
//! Every sample counts, including the first: a run that starts outside the
//! region or in contact is violated at its first sample.

use serde::{Deserialize, Serialize};

use crate::error::OracleError;
use crate::pose::PoseSample;
use breakbench_world::geometry::{BoxShape, RegionShape};
use breakbench_world::world::{GoalRegion, World};

/// `value` of `obstacle_clearance` when the world has no obstacle (the
/// largest finite `f64`, so that the verdict stays valid JSON).
pub const NO_OBSTACLE_CLEARANCE_M: f64 = f64::MAX;

/// `value` of `mission_completion_true_pose` when no sample was ever in the
/// goal disc (a negative time, which a real entry time cannot be).
pub const GOAL_NEVER_ENTERED: f64 = -1.0;

/// The result of one invariant over one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredicateResult {
    /// `true` if the invariant held over the run.
    pub holds: bool,
    /// Sim time at which the result was decided, seconds (see the module docs).
    pub decided_at_s: f64,
    /// Region: minimum region margin, metres. Clearance: minimum clearance,
    /// metres. Mission: time of the first goal entry, seconds, or
    /// [`GOAL_NEVER_ENTERED`].
    pub value: f64,
}

/// Each invariant's signed margin over one run, positive where it holds
/// with room to spare, negative where it was violated (REQ-STAT-MARGIN):
/// the same values as the invariant expectations' `margin`
/// ([`crate::expect`]), computed here once for both.
///
/// The manifest records them under `margins` by invariant name, metres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Margins {
    /// `operating_region_containment`: the least region margin
    /// `sd_region(p) - r` over the run, m (negative: the footprint left the region).
    pub region_m: f64,
    /// `obstacle_clearance`: the least clearance minus the world's
    /// `clearance_threshold_m`, m (negative: violated); `None` in a world
    /// without obstacles (nothing to come close to).
    pub clearance_m: Option<f64>,
    /// `mission_completion_true_pose`: goal radius minus the least distance
    /// of the true pose from the goal centre over the run, m (>= 0: the goal
    /// disc was entered, possibly after the timeout, so a positive margin
    /// with a failed mission means it came too late).
    pub goal_m: f64,
}

impl Margins {
    /// Invariant name → margin, m, for each defined margin (the manifest's
    /// `margins`).
    pub fn to_map(&self) -> std::collections::BTreeMap<String, f64> {
        let mut m = std::collections::BTreeMap::new();
        m.insert("operating_region_containment".into(), self.region_m);
        if let Some(c) = self.clearance_m {
            m.insert("obstacle_clearance".into(), c);
        }
        m.insert("mission_completion_true_pose".into(), self.goal_m);
        m
    }
}

/// The oracle's verdict on one run: three predicates, kept separate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    pub operating_region_containment: PredicateResult,
    pub obstacle_clearance: PredicateResult,
    pub mission_completion_true_pose: PredicateResult,
}

impl Verdict {
    /// A safety-invariant violation: the operating region was left or the
    /// obstacle clearance went below the threshold.
    pub fn safety_violation(&self) -> bool {
        !self.operating_region_containment.holds || !self.obstacle_clearance.holds
    }

    /// A mission failure: the true pose did not enter the goal region before
    /// the timeout.
    pub fn mission_failure(&self) -> bool {
        !self.mission_completion_true_pose.holds
    }
}

/// Streaming evaluator of the three invariants: feed ground-truth samples in
/// time order, ask for the verdict at any point. `verdict()` treats the
/// samples fed so far as the whole stream, so the live oracle node and the
/// batch [`judge`] give the same answer on the same samples.
#[derive(Clone)]
pub struct Monitor {
    region: RegionShape,
    obstacles: Vec<BoxShape>,
    goal: GoalRegion,
    radius_m: f64,
    threshold_m: f64,
    timeout_s: f64,

    samples: u64,
    last_t_s: f64,
    region_min_margin_m: f64,
    region_violated_at_s: Option<f64>,
    clearance_min_m: f64,
    clearance_violated_at_s: Option<f64>,
    goal_first_entry_s: Option<f64>,
    /// Least distance of the true pose from the goal centre so far, m.
    goal_min_dist_m: f64,
    passed_timeout: bool,
    /// The last sample whose region distance was computed, `(x, y, sd)`.
    region_anchor: Option<[f64; 3]>,
    /// Per obstacle, the last sample whose distance was computed.
    obstacle_anchors: Vec<Option<[f64; 3]>>,
}

/// Rounding allowance of the Lipschitz skip (see [`Monitor::feed`]), metres:
/// `1e-9 + 1e-12 * (|x| + |y|)`, a million times the `f64` rounding of the
/// distances and of the bound at the sample's coordinates.
fn skip_slack_m(x: f64, y: f64) -> f64 {
    1e-9 + 1e-12 * (x.abs() + y.abs())
}

/// A lower bound of the signed distance at `(x, y)` from the one computed at
/// `anchor` (signed distances to a fixed shape are 1-Lipschitz), less the
/// rounding allowance; `-inf` without an anchor.
fn distance_lower_bound(anchor: Option<[f64; 3]>, x: f64, y: f64) -> f64 {
    match anchor {
        Some([ax, ay, sd]) => {
            let (dx, dy) = (x - ax, y - ay);
            sd - (dx * dx + dy * dy).sqrt() - skip_slack_m(x, y)
        }
        None => f64::NEG_INFINITY,
    }
}

impl Monitor {
    /// A monitor for `world`, which should come from [`World::load`] or
    /// [`World::parse`] (validated). With an unvalidated, degenerate region
    /// (fewer than 3 vertices) every sample is a region violation.
    pub fn new(world: &World) -> Self {
        Self {
            region: RegionShape::new(&world.operating_region_m),
            obstacles: world.obstacles.iter().map(BoxShape::new).collect(),
            goal: world.goal,
            radius_m: world.footprint_radius_m,
            threshold_m: world.clearance_threshold_m,
            timeout_s: world.mission_timeout_s,
            samples: 0,
            last_t_s: f64::NEG_INFINITY,
            region_min_margin_m: f64::MAX,
            region_violated_at_s: None,
            clearance_min_m: NO_OBSTACLE_CLEARANCE_M,
            clearance_violated_at_s: None,
            goal_first_entry_s: None,
            goal_min_dist_m: f64::MAX,
            passed_timeout: false,
            region_anchor: None,
            obstacle_anchors: vec![None; world.obstacles.len()],
        }
    }

    /// Number of samples accepted so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Feeds the next ground-truth sample.
    ///
    /// # Errors
    /// [`OracleError::NonFiniteSample`] if a field is NaN or infinite,
    /// [`OracleError::TimeWentBackwards`] if `t_s` is below the previous
    /// sample's. A refused sample leaves the monitor unchanged.
    pub fn feed(&mut self, s: &PoseSample) -> Result<(), OracleError> {
        if let Some(field) = s.first_non_finite_field() {
            return Err(OracleError::NonFiniteSample {
                index: self.samples,
                t_s: s.t_s,
                field,
            });
        }
        if s.t_s < self.last_t_s {
            return Err(OracleError::TimeWentBackwards {
                index: self.samples,
                t_s: s.t_s,
                previous_t_s: self.last_t_s,
            });
        }
        self.samples += 1;
        self.last_t_s = s.t_s;

        // A distance is only computed when it can matter: when the Lipschitz
        // lower bound from the last computed sample (minus the rounding
        // allowance) does not already put the margin above both the running
        // minimum and the violation limit, where it could change neither.
        // Skipping it leaves every recorded value as computing it would.

        // operating_region_containment
        let lb = distance_lower_bound(self.region_anchor, s.x_m, s.y_m) - self.radius_m;
        if !(lb > self.region_min_margin_m && lb >= 0.0) {
            let sd = self.region.signed_distance_m(s.x_m, s.y_m);
            self.region_anchor = Some([s.x_m, s.y_m, sd]);
            let margin = sd - self.radius_m;
            self.region_min_margin_m = self.region_min_margin_m.min(margin);
            if margin < 0.0 && self.region_violated_at_s.is_none() {
                self.region_violated_at_s = Some(s.t_s);
            }
        }

        // obstacle_clearance
        for (b, anchor) in self.obstacles.iter().zip(&mut self.obstacle_anchors) {
            let lb = distance_lower_bound(*anchor, s.x_m, s.y_m) - self.radius_m;
            if lb > self.clearance_min_m && lb >= self.threshold_m {
                continue;
            }
            let sd = b.signed_distance_m(s.x_m, s.y_m);
            *anchor = Some([s.x_m, s.y_m, sd]);
            let c = sd - self.radius_m;
            self.clearance_min_m = self.clearance_min_m.min(c);
            if c < self.threshold_m && self.clearance_violated_at_s.is_none() {
                self.clearance_violated_at_s = Some(s.t_s);
            }
        }

        // mission_completion_true_pose (closed disc; squared distances avoid a sqrt)
        if s.t_s > self.timeout_s {
            self.passed_timeout = true;
        }
        let dx = s.x_m - self.goal.center_m[0];
        let dy = s.y_m - self.goal.center_m[1];
        if self.goal_first_entry_s.is_none()
            && dx * dx + dy * dy <= self.goal.radius_m * self.goal.radius_m
        {
            self.goal_first_entry_s = Some(s.t_s);
        }
        self.goal_min_dist_m = self.goal_min_dist_m.min(dx.hypot(dy));
        Ok(())
    }

    /// The invariants' margins over the samples fed so far ([`Margins`]);
    /// `None` before the first sample.
    pub fn margins(&self) -> Option<Margins> {
        (self.samples > 0).then(|| Margins {
            region_m: self.region_min_margin_m,
            clearance_m: (!self.obstacles.is_empty())
                .then_some(self.clearance_min_m - self.threshold_m),
            goal_m: self.goal.radius_m - self.goal_min_dist_m,
        })
    }

    /// The verdict over the samples fed so far (see the module docs).
    ///
    /// # Errors
    /// [`OracleError::EmptyStream`] if no sample has been fed.
    pub fn verdict(&self) -> Result<Verdict, OracleError> {
        if self.samples == 0 {
            return Err(OracleError::EmptyStream);
        }
        let end = self.last_t_s;
        let safety = |violated_at: Option<f64>, value: f64| PredicateResult {
            holds: violated_at.is_none(),
            decided_at_s: violated_at.unwrap_or(end),
            value,
        };
        let mission = match self.goal_first_entry_s {
            Some(t) if t <= self.timeout_s => PredicateResult {
                holds: true,
                decided_at_s: t,
                value: t,
            },
            entry => PredicateResult {
                holds: false,
                decided_at_s: if self.passed_timeout {
                    self.timeout_s
                } else {
                    end
                },
                value: entry.unwrap_or(GOAL_NEVER_ENTERED),
            },
        };
        Ok(Verdict {
            operating_region_containment: safety(
                self.region_violated_at_s,
                self.region_min_margin_m,
            ),
            obstacle_clearance: safety(self.clearance_violated_at_s, self.clearance_min_m),
            mission_completion_true_pose: mission,
        })
    }
}

/// Judges a whole recorded run: feeds `poses` (time order) to a fresh
/// [`Monitor`] and returns its verdict.
///
/// # Errors
/// As [`Monitor::feed`] (the first bad sample) and [`Monitor::verdict`]
/// (no sample).
pub fn judge(world: &World, poses: &[PoseSample]) -> Result<Verdict, OracleError> {
    judge_with_margins(world, poses).map(|(v, _)| v)
}

/// As [`judge`], with the invariants' [`Margins`] from the same monitor.
///
/// # Errors
/// As [`judge`].
pub fn judge_with_margins(
    world: &World,
    poses: &[PoseSample],
) -> Result<(Verdict, Margins), OracleError> {
    let mut m = Monitor::new(world);
    for p in poses {
        m.feed(p)?;
    }
    let v = m.verdict()?;
    let margins = m.margins().ok_or(OracleError::EmptyStream)?;
    Ok((v, margins))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// No sample: no margins; no obstacle: no clearance margin.
    #[test]
    fn margins_need_a_sample_and_an_obstacle() {
        let mut world = World::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/corridor.yaml"
        )))
        .unwrap();
        world.obstacles.clear();
        let mut m = Monitor::new(&world);
        assert_eq!(m.margins(), None);
        let g = world.goal.center_m;
        m.feed(&PoseSample {
            t_s: 0.0,
            x_m: g[0] + 0.25,
            y_m: g[1],
            yaw_rad: 0.0,
        })
        .unwrap();
        let mg = m.margins().unwrap();
        assert_eq!(mg.clearance_m, None);
        assert_eq!(mg.goal_m, world.goal.radius_m - 0.25);
        assert!(!mg.to_map().contains_key("obstacle_clearance"));
        let (v, mg2) =
            judge_with_margins(&world, &[]).map_or((None, None), |(v, m)| (Some(v), Some(m)));
        assert_eq!((v, mg2), (None, None), "an empty stream has neither");
    }

    /// The skip never changes a verdict: random walks through the corridor
    /// (in and out of the region, into and past the box, with jumps) judged
    /// by the monitor and by evaluating every distance of every sample.
    #[test]
    fn skipped_distances_never_change_the_verdict() {
        let world = World::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/corridor.yaml"
        )))
        .unwrap();
        let region = RegionShape::new(&world.operating_region_m);
        let boxes: Vec<BoxShape> = world.obstacles.iter().map(BoxShape::new).collect();
        let r = world.footprint_radius_m;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut skipped_some = false;
        for walk in 0..300 {
            let (mut x, mut y) = (rng.random_range(0.3..11.7), rng.random_range(-0.8..0.8));
            let step = [0.002, 0.008, 0.05][walk % 3];
            let poses: Vec<PoseSample> = (0..1500)
                .map(|i| {
                    x += rng.random_range(-step..step) + 0.3 * step;
                    y += rng.random_range(-step..step);
                    if rng.random_range(0.0..1.0) < 0.002 {
                        y = rng.random_range(-1.2..1.2);
                    }
                    PoseSample {
                        t_s: f64::from(i) * 0.02,
                        x_m: x,
                        y_m: y,
                        yaw_rad: 0.0,
                    }
                })
                .collect();
            let mut m = Monitor::new(&world);
            let mut computed = 0;
            for p in &poses {
                m.feed(p).unwrap();
                computed += usize::from(m.region_anchor.is_some_and(|a| a[0] == p.x_m));
            }
            skipped_some |= computed < poses.len();
            let got = m.verdict().unwrap();
            // Every distance of every sample.
            let margins: Vec<f64> = poses
                .iter()
                .map(|p| region.signed_distance_m(p.x_m, p.y_m) - r)
                .collect();
            let clear: Vec<f64> = poses
                .iter()
                .map(|p| boxes[0].signed_distance_m(p.x_m, p.y_m) - r)
                .collect();
            let min = |v: &[f64]| v.iter().fold(f64::MAX, |a, b| a.min(*b));
            let first = |v: &[f64], lim: f64| v.iter().position(|c| *c < lim).map(|i| poses[i].t_s);
            let end = poses.last().unwrap().t_s;
            let rc = &got.operating_region_containment;
            assert_eq!(rc.value.to_bits(), min(&margins).to_bits(), "walk {walk}");
            assert_eq!(rc.decided_at_s, first(&margins, 0.0).unwrap_or(end));
            assert_eq!(rc.holds, first(&margins, 0.0).is_none());
            let oc = &got.obstacle_clearance;
            assert_eq!(oc.value.to_bits(), min(&clear).to_bits(), "walk {walk}");
            let th = world.clearance_threshold_m;
            assert_eq!(oc.decided_at_s, first(&clear, th).unwrap_or(end));
            assert_eq!(oc.holds, first(&clear, th).is_none());
            // REQ-STAT-MARGIN: the margins are the same minima, the
            // clearance less its threshold, the goal's radius less the
            // least distance to its centre
            let mg = m.margins().unwrap();
            assert_eq!(mg.region_m.to_bits(), min(&margins).to_bits());
            assert_eq!(mg.clearance_m, Some(min(&clear) - th));
            let g = world.goal;
            let dist: Vec<f64> = poses
                .iter()
                .map(|p| (p.x_m - g.center_m[0]).hypot(p.y_m - g.center_m[1]))
                .collect();
            assert_eq!(mg.goal_m, g.radius_m - min(&dist));
            assert_eq!(mg.goal_m >= 0.0, dist.iter().any(|d| *d <= g.radius_m));
            let map = mg.to_map();
            assert_eq!(map.len(), 3);
            assert_eq!(map["obstacle_clearance"], min(&clear) - th);
        }
        assert!(skipped_some, "the walks exercise the skip");
    }
}
