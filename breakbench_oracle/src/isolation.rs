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

use serde::{Deserialize, Serialize};

use crate::error::OracleError;
use crate::pose::PoseSample;
use crate::verdict::{judge, Verdict};
use crate::world::World;

/// What the navigator said about its own run. Stored beside the verdict and
/// compared with it (confusion matrices); never an input to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfReport {
    /// The navigator reported reaching the goal.
    Success,
    /// The navigator reported giving up or failing.
    Failure,
    /// The navigator reported nothing (crashed, timed out, never asked).
    None,
}

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
