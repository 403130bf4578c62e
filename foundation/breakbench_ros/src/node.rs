//! [`RosNode`] (the backend's: a node from the environment and the command
//! line, and the factory of every entity), [`Undecoded`] and
//! [`DiscoveredPublisher`].

pub use crate::backend::RosNode;

/// A message whose bytes are not decoded: the sample is received (it
/// counts as delivered) and nothing is read from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Undecoded;

impl<'de> serde::Deserialize<'de> for Undecoded {
    fn deserialize<D: serde::Deserializer<'de>>(_d: D) -> Result<Undecoded, D::Error> {
        Ok(Undecoded)
    }
}

/// A publisher found by discovery on a topic
/// ([`RosNode::discovered_publishers`]): its ROS message type and the QoS
/// it offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredPublisher {
    /// `(package, type)`, e.g. `("nav_msgs", "Odometry")`.
    pub ros_type: (String, String),
    /// Reliability and durability as the publisher offers them; the
    /// KEEP_LAST depth is ROS 2's default publisher depth
    /// ([`crate::qos::PUBLISH_DEPTH`]): DDS discovery does not carry a
    /// writer's history. `None` when the backend does not read the offered
    /// QoS (rclrs).
    pub qos: Option<crate::Qos>,
}
