//! The ROS 2 environment a node honours: `ROS_DOMAIN_ID` and `RMW_IMPLEMENTATION`.
//!
//! ros2-client ignores both variables (it fixes the domain to 0 unless told and
//! the service mapping in code), so every Breakbench node reads them here.

use crate::RosError;

/// Highest `ROS_DOMAIN_ID` ROS 2 accepts (the RTPS port formula overflows above it:
/// <https://docs.ros.org/en/jazzy/Concepts/Intermediate/About-Domain-ID.html>).
pub const MAX_DOMAIN_ID: u16 = 232;

/// The RMW implementation whose wire behaviour we must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rmw {
    /// `rmw_fastrtps_cpp` (ROS 2 Jazzy's default): services use the "enhanced"
    /// mapping (request id in the RTPS inline QoS / related sample identity).
    FastRtps,
    /// `rmw_cyclonedds_cpp`: service payloads start with `{uint64 guid; int64 seq}`.
    CycloneDds,
}

impl Rmw {
    /// The `RMW_IMPLEMENTATION` value for this RMW.
    pub fn name(self) -> &'static str {
        match self {
            Rmw::FastRtps => "rmw_fastrtps_cpp",
            Rmw::CycloneDds => "rmw_cyclonedds_cpp",
        }
    }
}

/// The ROS 2 environment of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RosEnv {
    /// DDS domain, 0..=232.
    pub domain_id: u16,
    /// RMW whose service mapping we use.
    pub rmw: Rmw,
}

impl RosEnv {
    /// Reads `ROS_DOMAIN_ID` (unset or empty: 0) and `RMW_IMPLEMENTATION`
    /// (unset or empty: `rmw_fastrtps_cpp`) from the process environment.
    ///
    /// Errors: [`RosError::DomainId`] for a value that is not an integer in
    /// 0..=232, [`RosError::Rmw`] for any RMW other than the two supported.
    pub fn from_env() -> Result<Self, RosError> {
        let d = std::env::var("ROS_DOMAIN_ID").ok();
        let r = std::env::var("RMW_IMPLEMENTATION").ok();
        Self::from_vars(d.as_deref(), r.as_deref())
    }

    /// [`Self::from_env`] on given values (`None` = unset).
    pub fn from_vars(domain_id: Option<&str>, rmw: Option<&str>) -> Result<Self, RosError> {
        let domain_id = match domain_id.map(str::trim) {
            None | Some("") => 0,
            Some(v) => {
                let n: i64 = v.parse().map_err(|_| RosError::DomainId {
                    value: v.to_string(),
                    reason: "not an integer".into(),
                })?;
                if !(0..=MAX_DOMAIN_ID as i64).contains(&n) {
                    return Err(RosError::DomainId {
                        value: v.to_string(),
                        reason: "out of range".into(),
                    });
                }
                n as u16
            }
        };
        let rmw = match rmw.map(str::trim) {
            None | Some("") | Some("rmw_fastrtps_cpp") | Some("rmw_fastrtps_dynamic_cpp") => {
                Rmw::FastRtps
            }
            Some("rmw_cyclonedds_cpp") => Rmw::CycloneDds,
            Some(other) => return Err(RosError::Rmw(other.to_string())),
        };
        Ok(Self { domain_id, rmw })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_domain_0_and_fast_dds() {
        let e = RosEnv::from_vars(None, None).unwrap();
        assert_eq!(
            e,
            RosEnv {
                domain_id: 0,
                rmw: Rmw::FastRtps
            }
        );
        assert_eq!(RosEnv::from_vars(Some(""), Some("")).unwrap(), e);
    }

    #[test]
    fn domain_id_bounds() {
        assert_eq!(RosEnv::from_vars(Some("232"), None).unwrap().domain_id, 232);
        assert_eq!(RosEnv::from_vars(Some(" 17 "), None).unwrap().domain_id, 17);
        for bad in ["233", "-1", "abc", "1.5"] {
            let err = RosEnv::from_vars(Some(bad), None).unwrap_err();
            assert!(matches!(err, RosError::DomainId { .. }), "{bad}: {err}");
            assert!(err.to_string().contains(bad));
        }
    }

    #[test]
    fn rmw_is_read_from_the_environment() {
        let c = RosEnv::from_vars(None, Some("rmw_cyclonedds_cpp")).unwrap();
        assert_eq!(c.rmw, Rmw::CycloneDds);
        let f = RosEnv::from_vars(None, Some("rmw_fastrtps_cpp")).unwrap();
        assert_eq!(f.rmw, Rmw::FastRtps);
        let err = RosEnv::from_vars(None, Some("rmw_zenoh_cpp")).unwrap_err();
        assert!(err.to_string().contains("rmw_zenoh_cpp"), "{err}");
    }
}
