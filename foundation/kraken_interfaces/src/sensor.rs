//! The sensor messages a Breakbench channel carries, typed: what the plant
//! produces, the fault library changes and the navigator and estimator
//! consume. They live here, in the lowest layer, so the robot under test and
//! the judge need no fault crate to speak of them.

use crate::ros::{Header, Imu, LaserScan, NavSatFix, Odometry};
use serde::{Deserialize, Serialize};

/// The pseudo-field group "whether and when a message is delivered" (loss,
/// hold, duplication, order): what every consumer of a channel sees. Fault
/// modes list it among the fields they change; consumers among those they read.
pub const DELIVERY: &str = "delivery";

/// The ROS 2 message type of a channel, as written in channels.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MsgKind {
    #[serde(rename = "sensor_msgs/msg/NavSatFix", alias = "sensor_msgs/NavSatFix")]
    NavSatFix,
    #[serde(rename = "sensor_msgs/msg/Imu", alias = "sensor_msgs/Imu")]
    Imu,
    #[serde(rename = "nav_msgs/msg/Odometry", alias = "nav_msgs/Odometry")]
    Odometry,
    #[serde(rename = "sensor_msgs/msg/LaserScan", alias = "sensor_msgs/LaserScan")]
    LaserScan,
}

impl MsgKind {
    /// Every kind, in declaration order.
    pub const ALL: [MsgKind; 4] = [
        MsgKind::NavSatFix,
        MsgKind::Imu,
        MsgKind::Odometry,
        MsgKind::LaserScan,
    ];

    /// The ROS 2 type name, e.g. `sensor_msgs/msg/NavSatFix`.
    pub fn ros_type(self) -> &'static str {
        match self {
            MsgKind::NavSatFix => "sensor_msgs/msg/NavSatFix",
            MsgKind::Imu => "sensor_msgs/msg/Imu",
            MsgKind::Odometry => "nav_msgs/msg/Odometry",
            MsgKind::LaserScan => "sensor_msgs/msg/LaserScan",
        }
    }
}

/// One message on a channel.
///
/// Variants hold the messages by value (Odometry is 736 bytes, the others
/// less): boxing would cost an allocation per message on the relay path and
/// change the variant API hosts match on.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum SensorMsg {
    NavSatFix(NavSatFix),
    Imu(Imu),
    Odometry(Odometry),
    LaserScan(LaserScan),
}

impl SensorMsg {
    /// The message's type.
    pub fn kind(&self) -> MsgKind {
        match self {
            SensorMsg::NavSatFix(_) => MsgKind::NavSatFix,
            SensorMsg::Imu(_) => MsgKind::Imu,
            SensorMsg::Odometry(_) => MsgKind::Odometry,
            SensorMsg::LaserScan(_) => MsgKind::LaserScan,
        }
    }
    /// The message's header.
    pub fn header(&self) -> &Header {
        match self {
            SensorMsg::NavSatFix(m) => &m.header,
            SensorMsg::Imu(m) => &m.header,
            SensorMsg::Odometry(m) => &m.header,
            SensorMsg::LaserScan(m) => &m.header,
        }
    }
    /// The message's header, mutably.
    pub fn header_mut(&mut self) -> &mut Header {
        match self {
            SensorMsg::NavSatFix(m) => &mut m.header,
            SensorMsg::Imu(m) => &mut m.header,
            SensorMsg::Odometry(m) => &mut m.header,
            SensorMsg::LaserScan(m) => &mut m.header,
        }
    }
}

impl SensorMsg {
    /// Estimated memory of the message while a channel holds it, bytes: the
    /// enum's fixed size (`size_of::<SensorMsg>()`, 752 on x86-64) plus the
    /// heap buffers it owns by capacity (frame ids; Odometry's
    /// child_frame_id; LaserScan `ranges` and `intensities` × 4 bytes). The
    /// allocator's per-allocation overhead is not counted. Used for the hold
    /// queue's `max_held_bytes` cap.
    pub fn estimated_bytes(&self) -> usize {
        let fixed = std::mem::size_of::<SensorMsg>() + self.header().frame_id.capacity();
        fixed
            + match self {
                SensorMsg::Odometry(o) => o.child_frame_id.capacity(),
                SensorMsg::LaserScan(l) => {
                    (l.ranges.capacity() + l.intensities.capacity()) * std::mem::size_of::<f32>()
                }
                SensorMsg::NavSatFix(_) | SensorMsg::Imu(_) => 0,
            }
    }
}

impl SensorMsg {
    /// Whether `self == self` is false under the derived `PartialEq` (some
    /// compared float is NaN). Same answer as the self-compare; a LaserScan's
    /// range buffers are scanned lane-wise instead of compared pairwise.
    #[allow(clippy::eq_op)]
    pub fn self_unequal(&self) -> bool {
        match self {
            SensorMsg::LaserScan(l) => {
                // Destructured so a new field fails to compile here; the
                // header holds no float (never unequal to itself).
                let LaserScan {
                    header: _,
                    angle_min,
                    angle_max,
                    angle_increment,
                    time_increment,
                    scan_time,
                    range_min,
                    range_max,
                    ranges,
                    intensities,
                } = l;
                let any_nan = |v: &[f32]| v.iter().fold(false, |acc, x| acc | x.is_nan());
                [
                    *angle_min,
                    *angle_max,
                    *angle_increment,
                    *time_increment,
                    *scan_time,
                    *range_min,
                    *range_max,
                ]
                .iter()
                .any(|x| x.is_nan())
                    || any_nan(ranges)
                    || any_nan(intensities)
            }
            m => m != m,
        }
    }
}
