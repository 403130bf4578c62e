//! The oracle's only robot-state input: ground-truth pose samples.

use kraken_interfaces::ros::Odometry;
use serde::{Deserialize, Serialize};

/// One ground-truth pose of the robot's base, as published on `/oracle/odom`
/// (`nav_msgs/Odometry`, frame `world`; REP-103 units).
///
/// * `t_s`: the message's header stamp in seconds of sim time. The plant's
///   clock starts at 0 at the start of the run, so `t_s` is also the time since
///   the run started, which is what `mission_timeout_s` is measured against.
/// * `x_m`, `y_m`: position of the footprint centre in the world frame, metres.
/// * `yaw_rad`: heading, radians, counter-clockwise from +x. The footprint is a
///   disc, so no invariant depends on it; it is kept for plots and must still
///   be finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoseSample {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
}

impl PoseSample {
    /// Builds a sample from a ground-truth odometry message (`/oracle/odom`):
    /// stamp from `header.stamp`, position from `pose.pose.position`, yaw
    /// from the orientation quaternion (`Quaternion::yaw`, in (-pi, pi]).
    /// The twist and the covariances are ignored.
    pub fn from_odometry(msg: &Odometry) -> Self {
        let p = &msg.pose.pose;
        Self {
            t_s: msg.header.stamp.as_secs_f64(),
            x_m: p.position.x,
            y_m: p.position.y,
            yaw_rad: p.orientation.yaw(),
        }
    }

    /// The name of the first non-finite field, if any.
    pub(crate) fn first_non_finite_field(&self) -> Option<&'static str> {
        [
            ("t_s", self.t_s),
            ("x_m", self.x_m),
            ("y_m", self.y_m),
            ("yaw_rad", self.yaw_rad),
        ]
        .into_iter()
        .find(|(_, v)| !v.is_finite())
        .map(|(n, _)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_interfaces::ros::{Quaternion, Time};

    #[test]
    fn from_odometry_takes_stamp_position_and_yaw() {
        let mut m = Odometry::default();
        m.header.stamp = Time {
            sec: 12,
            nanosec: 500_000_000,
        };
        m.pose.pose.position.x = 3.25;
        m.pose.pose.position.y = -0.5;
        m.pose.pose.orientation = Quaternion::from_yaw(0.75);
        let s = PoseSample::from_odometry(&m);
        assert_eq!(s.t_s, 12.5);
        assert_eq!((s.x_m, s.y_m), (3.25, -0.5));
        assert!((s.yaw_rad - 0.75).abs() < 1e-15);
    }
}
