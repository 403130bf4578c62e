//! The nominal sanity gate (REQ-NOMINAL-GATE): seed 004, "a baseline that
//! fails its own criterion makes the fault runs no test of resilience".
//!
//! Two halves:
//! * at load, [`impossible_nominal`] refuses the configurations under which
//!   no fault-free run can succeed and that are knowable from the files
//!   (a navigator planning for a smaller footprint than the world's robot,
//!   an input timeout not longer than its sensor's period, a `min_free_m`
//!   beyond `lookahead_m`), and [`axis_without_effect`] a navigator axis on
//!   a parameter the declared controller does not read (the world file
//!   itself refuses a start walled off from the goal,
//!   `breakbench_world::geometry::walls_separate`); a clearance threshold
//!   too wide for the gaps is not knowable in general and is left to the
//!   end-of-campaign check, which names `obstacle_clearance`;
//! * at the end of a campaign, [`nominal_gate`] is a harness check: when
//!   **most** (more than half) of the fault-free runs of one group (the
//!   nominal set of one navigator variant, the baselines of one test)
//!   violate a safety invariant or fail the mission, the campaign reports a
//!   failed harness check naming the invariant that failed and its worst
//!   value, writes its results anyway and exits 1 (as the canary, isolation
//!   and self-test checks). "Most", not "any": an occasional fault-free
//!   failure is a measured property of the robot (summary.json counts it);
//!   a majority means the configuration, not the faults, decides the runs.

use std::collections::BTreeMap;
use std::path::Path;

use breakbench_navigator::{NavigatorConfig, PoseSource};
use breakbench_sim_bridge::PlantConfig;
use breakbench_world::World;

use super::manifest::{Manifest, RunKind};
use super::scenario::ScenarioFile;

/// The first field of navigator `nav` under which no run can succeed in
/// `world` with robot `plant`: `(field of the navigator file, message)`.
pub fn impossible_nominal(
    nav: &NavigatorConfig,
    world: &World,
    plant: &PlantConfig,
) -> Option<(&'static str, String)> {
    if nav.footprint_radius_m < world.footprint_radius_m {
        return Some((
            "footprint_radius_m",
            format!(
                "{} m is smaller than the world's robot (footprint_radius_m {} m): the navigator would steer into gaps the robot does not fit, and the oracle judges the world's footprint",
                nav.footprint_radius_m, world.footprint_radius_m
            ),
        ));
    }
    for (field, timeout, what, hz) in [
        (
            "odom_timeout_s",
            nav.odom_timeout_s,
            "odometry.rate_hz",
            plant.odometry.rate_hz,
        ),
        (
            "scan_timeout_s",
            nav.scan_timeout_s,
            "lidar.rate_hz",
            plant.lidar.rate_hz,
        ),
    ] {
        if timeout <= 1.0 / hz {
            return Some((
                field,
                format!(
                    "{timeout} s is not longer than the period {} s of the robot's {what} {hz}: the navigator would declare its input stale between two healthy messages and stop",
                    1.0 / hz
                ),
            ));
        }
    }
    if nav.min_free_m > nav.lookahead_m {
        return Some((
            "min_free_m",
            format!(
                "{} m is beyond lookahead_m {} m: no heading is checked free that far, so none is ever taken until the goal is closer than min_free_m",
                nav.min_free_m, nav.lookahead_m
            ),
        ));
    }
    None
}

/// Why navigator axis `parameter` cannot change the controller declared by
/// `nav`, if it cannot (an estimator parameter under wheel odometry: every
/// variant's runs would be the same runs, doubled).
pub fn axis_without_effect(nav: &NavigatorConfig, parameter: &str) -> Option<String> {
    (parameter.starts_with("estimator_") && nav.pose_source == PoseSource::WheelOdometry).then(|| {
        format!(
            "'{parameter}' is read only with pose_source: estimator, and the navigator drives from wheel_odometry: every variant would repeat the same runs"
        )
    })
}

/// The fault-free runs' invariant failures of one group, for the gate.
#[derive(Default)]
struct Group {
    runs: usize,
    failed: Vec<String>,
    /// Per invariant: failures and the worst value.
    by_invariant: BTreeMap<&'static str, (usize, f64)>,
}

/// The gate's harness-check failures of `manifests` (a campaign's or a
/// shard's); one message per group where most fault-free runs failed.
pub fn nominal_gate(file: &ScenarioFile, out: &Path, manifests: &[Manifest]) -> Vec<String> {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for m in manifests {
        let name = match m.kind {
            RunKind::Nominal => {
                let key = file.variant_of(&m.cell);
                let label = file.variant_label(&key);
                if label.is_empty() {
                    "the nominal set".to_string()
                } else {
                    format!("the nominal set of {label}")
                }
            }
            RunKind::Baseline => match &m.judgement.test {
                Some(t) => format!("the baselines of test '{}'", t.test),
                None => continue,
            },
            _ => continue,
        };
        let g = groups.entry(name).or_default();
        g.runs += 1;
        let v = &m.verdict;
        let checks = [
            (
                "operating_region_containment",
                &v.operating_region_containment,
                true,
            ),
            ("obstacle_clearance", &v.obstacle_clearance, true),
            (
                "mission_completion_true_pose",
                &v.mission_completion_true_pose,
                false,
            ),
        ];
        let mut any = false;
        for (inv, r, min) in checks {
            if !r.holds {
                any = true;
                let e = g.by_invariant.entry(inv).or_insert((0, r.value));
                e.0 += 1;
                e.1 = if min {
                    e.1.min(r.value)
                } else {
                    e.1.max(r.value)
                };
            }
        }
        if any {
            g.failed.push(m.run_id.clone());
        }
    }
    let mut out_msgs = Vec::new();
    for (name, g) in groups {
        if g.failed.len() * 2 <= g.runs {
            continue;
        }
        let causes: Vec<String> = g
            .by_invariant
            .iter()
            .map(|(inv, (n, worst))| match *inv {
                "operating_region_containment" => format!(
                    "operating_region_containment failed in {n} (worst region margin {worst:.3} m: the start, operating_region_m or the walls)"
                ),
                "obstacle_clearance" => format!(
                    "obstacle_clearance failed in {n} (minimum clearance {worst:.3} m: the world's clearance_threshold_m or footprint_radius_m against the gaps)"
                ),
                _ => format!(
                    "mission_completion_true_pose failed in {n} (the goal never entered in time: the navigator's timeouts or thresholds, the start, mission_timeout_s)"
                ),
            })
            .collect();
        out_msgs.push(format!(
            "nominal gate: {} of {} fault-free runs of {name} fail their own invariants ({}; runs {}{}): the configuration fails without faults, so the fault runs are no test of resilience; see their manifests in {}",
            g.failed.len(),
            g.runs,
            causes.join("; "),
            g.failed.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            if g.failed.len() > 3 { ", ..." } else { "" },
            out.join("manifests").display()
        ));
    }
    out_msgs
}
