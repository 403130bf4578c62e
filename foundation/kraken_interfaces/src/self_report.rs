//! The controller's self-report: what the navigator said about its own run.
//!
//! It lives here, beside the message types every crate already depends on, so
//! that the controller (which reports it) and the oracle and campaign (which
//! store it beside the verdict and compare the two) share one type without
//! the controller depending on the oracle.

use serde::{Deserialize, Serialize};

/// What the navigator said about its own run. Stored beside the verdict and
/// compared with it (confusion matrices); never an input to it. Serialised in
/// lowercase (`"success"`, `"failure"`, `"none"`), as in manifests.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_report_serializes_lowercase() {
        let s =
            serde_json::to_string(&[SelfReport::Success, SelfReport::Failure, SelfReport::None])
                .unwrap();
        assert_eq!(s, r#"["success","failure","none"]"#);
        let back: SelfReport = serde_json::from_str(r#""failure""#).unwrap();
        assert_eq!(back, SelfReport::Failure);
        assert!(serde_json::from_str::<SelfReport>(r#""Success""#).is_err());
    }
}
