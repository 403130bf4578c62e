//! [`RunJudgement`]: what a run's manifest records of its judgement
//! (`verdict_class`, and for a resilience test its `test`, `timeline` and
//! `expectations`), shared by the in-process campaign and the oracle node.

use serde::{Deserialize, Serialize};

use super::class::{ClassifiedVerdict, VerdictClass};
use super::eval::ExpectationResult;
use super::timeline::Timeline;
use crate::verdict::Verdict;

/// The resilience test a run belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestInfo {
    pub test: String,
    pub requirement: String,
    pub hazard: String,
    /// The fault-free baseline run of the test (same seed).
    pub baseline: bool,
}

/// A run's judgement, flattened into its manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunJudgement {
    pub verdict_class: ClassifiedVerdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expectations: Vec<ExpectationResult>,
}

impl RunJudgement {
    /// A run without a test (a study cell, a nominal run, the canary): `pass`
    /// iff all three invariants hold, else `fail` naming the violated ones.
    pub fn from_invariants(v: &Verdict) -> Self {
        let failed: Vec<&str> = [
            (
                "operating_region_containment",
                v.operating_region_containment.holds,
            ),
            ("obstacle_clearance", v.obstacle_clearance.holds),
            (
                "mission_completion_true_pose",
                v.mission_completion_true_pose.holds,
            ),
        ]
        .into_iter()
        .filter(|(_, h)| !h)
        .map(|(n, _)| n)
        .collect();
        let verdict_class = if failed.is_empty() {
            ClassifiedVerdict {
                class: VerdictClass::Pass,
                reason: "all three invariants hold".into(),
            }
        } else {
            ClassifiedVerdict {
                class: VerdictClass::Fail,
                reason: format!("violated: {}", failed.join(", ")),
            }
        };
        Self {
            verdict_class,
            test: None,
            timeline: None,
            expectations: Vec::new(),
        }
    }
}
