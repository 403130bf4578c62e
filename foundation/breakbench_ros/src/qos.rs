//! QoS presets that match real ROS 2 peers (measured, `shared/notes/ros2-interop.md`).

use ros2_client::{
    qos::{Durability, History, WhenFull},
    QosProfile,
};

/// Depth of [`publish`]'s history (KEEP_LAST).
pub const PUBLISH_DEPTH: usize = 10;

/// Publishers: RELIABLE + VOLATILE + KEEP_LAST(10). A reliable writer matches
/// both best-effort (SensorDataQoS) and reliable readers (DDS request/offered rule).
pub fn publish() -> QosProfile {
    QosProfile::publisher_default()
        .reliability_reliable(WhenFull::DEFAULT)
        .durability(Durability::Volatile)
        .history(History::KeepLast {
            depth: PUBLISH_DEPTH,
        })
}

/// Subscriptions: BEST_EFFORT + VOLATILE + KEEP_LAST(`depth`), so that both
/// best-effort and reliable writers match. Use a deeper queue on high-rate
/// channels (the input side absorbs rustdds' periodic writer stalls).
pub fn subscribe(depth: usize) -> QosProfile {
    QosProfile::subscription_default()
        .reliability_best_effort()
        .history(History::KeepLast { depth })
}

/// `/clock`: best effort, depth 1 (what Nav2 and rclcpp's time source use).
pub fn clock() -> QosProfile {
    subscribe(1)
}

/// Service request and reply topics: reliable, volatile, keep-last 10 (rmw's
/// `rmw_qos_profile_services_default`).
pub fn service() -> QosProfile {
    publish()
}

/// rcl's `/rosout` history depth (`rcl_qos_profile_rosout_default`, rcl's
/// `logging_rosout.h`).
pub const ROSOUT_DEPTH: usize = 1000;

/// A node's own `/rosout` publisher (`rcl_interfaces/msg/Log`): reliable,
/// TRANSIENT_LOCAL, KEEP_LAST([`ROSOUT_DEPTH`]), rcl's rosout profile, so
/// that a late `ros2 topic echo /rosout` or recorder still gets the lines.
pub fn rosout() -> QosProfile {
    publish()
        .durability(Durability::TransientLocal)
        .history(History::KeepLast {
            depth: ROSOUT_DEPTH,
        })
}
