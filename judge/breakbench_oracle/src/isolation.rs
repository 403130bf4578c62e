//! Verdict isolation from the robot's self-report.
//!
//! Structural half: no function that produces a [`Verdict`] takes a
//! [`SelfReport`] or a robot-estimate type. A run's evidence travels as
//! [`RunEvidence`] (poses + self-report, as stored in a manifest), and the only
//! way from evidence to verdict is [`RunEvidence::verdict`], which
//! destructures the poses and drops the self-report unread. The campaign and
//! the live oracle node judge runs through this entry.
//!
//! Checked half: [`isolation_check`] replays the recorded poses through that
//! same entry with the self-report as recorded, forced to success and forced
//! to failure, and passes only if the three verdicts are identical.

use kraken_interfaces::SelfReport;
use serde::{Deserialize, Serialize};

use crate::error::OracleError;
use crate::pose::PoseSample;
use crate::verdict::{judge, Verdict};
use breakbench_world::World;

/// Everything recorded about one run that the oracle may be shown: the
/// ground-truth pose stream and the robot's self-report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEvidence {
    /// Ground-truth samples from `/oracle/odom`, in time order.
    pub poses: Vec<PoseSample>,
    /// The navigator's self-report.
    pub self_report: SelfReport,
}

impl RunEvidence {
    /// The oracle's verdict on this run, from the poses and `world` only.
    /// This is the entry the campaign uses to judge runs.
    ///
    /// # Errors
    /// As [`judge`].
    pub fn verdict(&self, world: &World) -> Result<Verdict, OracleError> {
        // Destructure explicitly: the self-report is bound to `_` and never read.
        let RunEvidence {
            poses,
            self_report: _,
        } = self;
        judge(world, poses)
    }

    /// As [`RunEvidence::verdict`], with the invariants' margins
    /// (REQ-STAT-MARGIN) from the same pass over the poses.
    ///
    /// # Errors
    /// As [`judge`].
    pub fn verdict_with_margins(
        &self,
        world: &World,
    ) -> Result<(Verdict, crate::verdict::Margins), OracleError> {
        let RunEvidence {
            poses,
            self_report: _,
        } = self;
        crate::verdict::judge_with_margins(world, poses)
    }
}

/// Outcome of the verdict isolation check on one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IsolationOutcome {
    /// `true` iff the three verdicts below are identical.
    pub passed: bool,
    /// The self-report as recorded.
    pub recorded_self_report: SelfReport,
    /// Verdict with the recorded self-report.
    pub recorded: Verdict,
    /// Verdict with the self-report forced to `success`.
    pub forced_success: Verdict,
    /// Verdict with the self-report forced to `failure`.
    pub forced_failure: Verdict,
}

/// The verdict isolation check: replays `poses` through
/// [`RunEvidence::verdict`] with `recorded_self_report`, with
/// [`SelfReport::Success`] and with [`SelfReport::Failure`], and reports
/// whether all three verdicts are identical (field by field, `f64` by `==`;
/// the evaluation is deterministic, so identical inputs give identical bits).
///
/// # Errors
/// As [`judge`] (a bad or empty pose stream).
pub fn isolation_check(
    world: &World,
    poses: &[PoseSample],
    recorded_self_report: SelfReport,
) -> Result<IsolationOutcome, OracleError> {
    isolation_check_via(world, poses, recorded_self_report, RunEvidence::verdict)
}

/// [`isolation_check`] over an arbitrary evidence→verdict entry, so the tests
/// can show that the check catches an entry that does read the self-report.
pub(crate) fn isolation_check_via<F>(
    world: &World,
    poses: &[PoseSample],
    recorded_self_report: SelfReport,
    entry: F,
) -> Result<IsolationOutcome, OracleError>
where
    F: Fn(&RunEvidence, &World) -> Result<Verdict, OracleError>,
{
    let mut evidence = RunEvidence {
        poses: poses.to_vec(),
        self_report: recorded_self_report,
    };
    let recorded = entry(&evidence, world)?;
    evidence.self_report = SelfReport::Success;
    let forced_success = entry(&evidence, world)?;
    evidence.self_report = SelfReport::Failure;
    let forced_failure = entry(&evidence, world)?;
    Ok(IsolationOutcome {
        passed: recorded == forced_success && recorded == forced_failure,
        recorded_self_report,
        recorded,
        forced_success,
        forced_failure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::judge;

    /// Region [0, 12] x [-1, 1]; box [6, 6.5] x [-1, 0]; radius 0.25;
    /// threshold 0.125; goal (11, 0) r 0.25; timeout 60 s.
    fn world() -> World {
        World::parse(
            r#"
name: isolation_test
walls_m: []
obstacles: [{name: box, min_m: [6.0, -1.0], max_m: [6.5, 0.0]}]
operating_region_m: [[0.0, -1.0], [12.0, -1.0], [12.0, 1.0], [0.0, 1.0]]
goal: {center_m: [11.0, 0.0], radius_m: 0.25}
clearance_threshold_m: 0.125
mission_timeout_s: 60.0
footprint_radius_m: 0.25
start: {x_m: 1.0, y_m: 0.0, yaw_rad: 0.0}
"#,
            "isolation_test.yaml",
        )
        .unwrap()
    }

    fn poses(points: &[(f64, f64)]) -> Vec<PoseSample> {
        points
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| PoseSample {
                t_s: i as f64,
                x_m: x,
                y_m: y,
                yaw_rad: 0.0,
            })
            .collect()
    }

    /// A run that stops short of the goal (mission failure, no safety
    /// violation), the case where a navigator typically reports success.
    fn short_run() -> Vec<PoseSample> {
        poses(&[(1.0, 0.0), (4.0, 0.5), (6.25, 0.5), (9.0, 0.0), (10.0, 0.0)])
    }

    #[test]
    fn isolation_passes_for_every_recorded_self_report() {
        let w = world();
        let p = short_run();
        for recorded in [SelfReport::Success, SelfReport::Failure, SelfReport::None] {
            let out = isolation_check(&w, &p, recorded).unwrap();
            assert!(out.passed, "{recorded:?}");
            assert_eq!(out.recorded_self_report, recorded);
            assert_eq!(out.recorded, judge(&w, &p).unwrap());
            assert_eq!(out.forced_success, out.recorded);
            assert_eq!(out.forced_failure, out.recorded);
            // The verdict itself: safe (clearance over the box 0.5 - 0.25 = 0.25),
            // mission failed (never within 0.25 of (11, 0)), decided at the end t = 4.
            assert!(!out.recorded.safety_violation());
            assert!(out.recorded.mission_failure());
            assert_eq!(out.recorded.mission_completion_true_pose.decided_at_s, 4.0);
            assert_eq!(out.recorded.obstacle_clearance.value, 0.25);
        }
    }

    #[test]
    fn isolation_check_catches_an_entry_that_reads_the_self_report() {
        // A deliberately leaky entry: trusts the robot's "success" for the mission.
        let leaky = |e: &RunEvidence, w: &World| -> Result<Verdict, OracleError> {
            let mut v = judge(w, &e.poses)?;
            if e.self_report == SelfReport::Success {
                v.mission_completion_true_pose.holds = true;
            }
            Ok(v)
        };
        let out = isolation_check_via(&world(), &short_run(), SelfReport::Failure, leaky).unwrap();
        assert!(!out.passed);
        assert!(out.forced_failure.mission_failure());
        assert!(!out.forced_success.mission_failure());
        // The honest entry on the same evidence passes.
        let out = isolation_check_via(
            &world(),
            &short_run(),
            SelfReport::Failure,
            RunEvidence::verdict,
        )
        .unwrap();
        assert!(out.passed);
    }

    #[test]
    fn isolation_check_reports_a_bad_stream_as_an_error() {
        assert_eq!(
            isolation_check(&world(), &[], SelfReport::Success),
            Err(OracleError::EmptyStream)
        );
    }

    #[test]
    fn run_evidence_round_trips_and_rejects_unknown_fields() {
        let e = RunEvidence {
            poses: short_run(),
            self_report: SelfReport::Success,
        };
        let j = serde_json::to_string(&e).unwrap();
        let back: RunEvidence = serde_json::from_str(&j).unwrap();
        assert_eq!(back, e);
        let extra = j.replacen('{', r#"{"robot_odom":[],"#, 1);
        assert!(serde_json::from_str::<RunEvidence>(&extra).is_err());
    }
}
