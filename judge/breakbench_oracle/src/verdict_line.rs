//! The oracle node's verdict line: the one line it prints on stdout once a
//! run is judged, and that `breakbench up` reads back as the run's result.
//!
//! ```text
//! oracle: verdict safety_violation=<bool> mission_failure=<bool> self_report=<name> samples=<n> manifest=<path>
//! ```
//!
//! Keys in this order, separated by one space; `manifest` comes last and
//! takes the rest of the line, so the path may contain spaces.
//! Requirement: REQ-ORACLE-VERDICT-LINE (`docs/requirements.md`).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::OracleError;

/// What every verdict line starts with.
pub const VERDICT_PREFIX: &str = "oracle: verdict ";

/// The keys before `manifest`, in the order they are printed.
const KEYS: [&str; 4] = [
    "safety_violation",
    "mission_failure",
    "self_report",
    "samples",
];

/// A parsed verdict line (see the module docs). [`fmt::Display`] prints it,
/// [`FromStr`] reads it back; the two round-trip.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictLine {
    /// A safety invariant was violated (region left or clearance too small).
    pub safety_violation: bool,
    /// The true pose did not reach the goal region before the timeout.
    pub mission_failure: bool,
    /// The navigator's self-report as its serde name (`success`, `failure`,
    /// `none`), stored beside the verdict, never an input to it.
    pub self_report: String,
    /// Ground-truth pose samples judged.
    pub samples: u64,
    /// The run's manifest file.
    pub manifest: PathBuf,
}

impl fmt::Display for VerdictLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{VERDICT_PREFIX}safety_violation={} mission_failure={} self_report={} samples={} manifest={}",
            self.safety_violation,
            self.mission_failure,
            self.self_report,
            self.samples,
            self.manifest.display()
        )
    }
}

impl FromStr for VerdictLine {
    type Err = OracleError;

    /// Parses a verdict line (surrounding whitespace ignored).
    ///
    /// # Errors
    /// [`OracleError::VerdictLine`] naming what is wrong: no
    /// `oracle: verdict ` prefix, no `manifest=`, a key missing, unknown or
    /// out of order, or a value that is not a bool / an unsigned integer /
    /// a non-empty name.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let bad = |reason: String| OracleError::VerdictLine {
            line: line.to_string(),
            reason,
        };
        let rest = line
            .trim()
            .strip_prefix(VERDICT_PREFIX)
            .ok_or_else(|| bad(format!("does not start with {VERDICT_PREFIX:?}")))?;
        let (head, manifest) = rest
            .split_once(" manifest=")
            .ok_or_else(|| bad("no ' manifest=<path>' at the end".into()))?;
        if manifest.is_empty() {
            return Err(bad("empty manifest path".into()));
        }
        let parts: Vec<&str> = head.split(' ').collect();
        if parts.len() != KEYS.len() {
            return Err(bad(format!(
                "expected {} before manifest, found {} field(s)",
                KEYS.join(", "),
                parts.len()
            )));
        }
        let mut values = [""; 4];
        for ((slot, key), part) in values.iter_mut().zip(KEYS).zip(&parts) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("{part:?} is not key=value")))?;
            if k != key {
                return Err(bad(format!("expected key '{key}', found '{k}'")));
            }
            *slot = v;
        }
        let flag = |key: &str, v: &str| {
            v.parse::<bool>()
                .map_err(|_| bad(format!("{key}={v:?}: expected true or false")))
        };
        if values[2].is_empty() {
            return Err(bad("self_report is empty".into()));
        }
        Ok(Self {
            safety_violation: flag(KEYS[0], values[0])?,
            mission_failure: flag(KEYS[1], values[1])?,
            self_report: values[2].to_string(),
            samples: values[3].parse().map_err(|_| {
                bad(format!(
                    "samples={:?}: expected an unsigned integer",
                    values[3]
                ))
            })?,
            manifest: PathBuf::from(manifest),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_line_round_trip() {
        let text = "oracle: verdict safety_violation=false mission_failure=true self_report=success samples=3000 manifest=/tmp/a b/m.json";
        let v: VerdictLine = text.parse().unwrap();
        assert!(!v.safety_violation && v.mission_failure);
        assert_eq!(v.self_report, "success");
        assert_eq!(v.samples, 3000);
        assert_eq!(v.manifest, PathBuf::from("/tmp/a b/m.json"));
        assert_eq!(v.to_string(), text);
        for v in [
            VerdictLine {
                safety_violation: true,
                mission_failure: false,
                self_report: "none".into(),
                samples: 0,
                manifest: PathBuf::from("runs/x/manifests/nominal_000.json"),
            },
            VerdictLine {
                safety_violation: false,
                mission_failure: false,
                self_report: "failure".into(),
                samples: u64::MAX,
                manifest: PathBuf::from("/a dir/with manifest=in it.json"),
            },
        ] {
            assert_eq!(v.to_string().parse::<VerdictLine>().unwrap(), v);
        }
        // Surrounding whitespace (a line end) is ignored.
        assert_eq!(
            format!("  {text}\n")
                .parse::<VerdictLine>()
                .unwrap()
                .samples,
            3000
        );
    }

    #[test]
    fn malformed_verdict_lines_say_why() {
        let reason = |line: &str| match line.parse::<VerdictLine>() {
            Err(OracleError::VerdictLine { reason, .. }) => reason,
            other => panic!("{line}: {other:?}"),
        };
        assert!(reason("oracle: verdict safety_violation=maybe").contains("manifest"));
        assert_eq!(
            reason("oracle: verdict safety_violation=maybe mission_failure=true self_report=success samples=1 manifest=m"),
            "safety_violation=\"maybe\": expected true or false"
        );
        assert_eq!(
            reason("oracle: verdict safety_violation=true mission_failure=true self_report=success samples=-1 manifest=m"),
            "samples=\"-1\": expected an unsigned integer"
        );
        assert_eq!(
            reason("oracle: verdict mission_failure=true safety_violation=true self_report=success samples=1 manifest=m"),
            "expected key 'safety_violation', found 'mission_failure'"
        );
        assert!(reason("oracle: verdict safety_violation=true mission_failure=true self_report=success samples=1 extra=2 manifest=m").contains("found 5 field(s)"));
        assert!(reason("[oracle] started").contains("does not start with"));
        assert_eq!(
            reason("oracle: verdict safety_violation=true mission_failure=true self_report= samples=1 manifest=m"),
            "self_report is empty"
        );
        let e = "oracle: verdict x".parse::<VerdictLine>().unwrap_err();
        assert!(
            e.to_string()
                .starts_with("verdict line \"oracle: verdict x\": "),
            "{e}"
        );
    }
}
