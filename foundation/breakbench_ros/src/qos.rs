//! QoS in plain Breakbench terms, and presets that match real ROS 2 peers
//! (measured, `shared/notes/ros2-interop.md`).
//!
//! [`Qos`] is the whole of what a node chooses: reliability, durability and
//! a KEEP_LAST depth. Every other policy (deadline, lifespan, liveliness)
//! stays at the ROS 2 default; the backend translates a [`Qos`] into its
//! own profile (ros2-client's `QosProfile` today, rclrs' `QoSProfile` next).

/// Delivery guarantee of a topic endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reliability {
    /// Retransmit until acknowledged (a writer's KEEP_LAST queue blocks
    /// at most the backend's default time when full).
    Reliable,
    /// Send once; a lost sample is lost.
    BestEffort,
}

/// Whether late-joining readers get samples published before they matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// No: only samples published after the match.
    Volatile,
    /// Yes: the writer keeps its last `depth` samples for late joiners
    /// (`/tf_static`, `/rosout`). A transient-local reader does not match a
    /// volatile writer.
    TransientLocal,
}

/// The QoS of one publisher, subscription or service endpoint: history is
/// always KEEP_LAST(`depth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// Reliable or best effort.
    pub reliability: Reliability,
    /// Volatile or transient-local.
    pub durability: Durability,
    /// KEEP_LAST depth, messages (the writer's or the reader's queue).
    pub depth: usize,
}

impl Qos {
    /// The same QoS with a KEEP_LAST depth of `depth` messages.
    #[must_use]
    pub const fn depth(self, depth: usize) -> Self {
        Self { depth, ..self }
    }
    /// The same QoS, transient-local.
    #[must_use]
    pub const fn transient_local(self) -> Self {
        Self {
            durability: Durability::TransientLocal,
            ..self
        }
    }
}

/// Depth of [`publish`]'s history (KEEP_LAST).
pub const PUBLISH_DEPTH: usize = 10;

/// Publishers: RELIABLE + VOLATILE + KEEP_LAST(10). A reliable writer matches
/// both best-effort (SensorDataQoS) and reliable readers (DDS request/offered rule).
pub const fn publish() -> Qos {
    Qos {
        reliability: Reliability::Reliable,
        durability: Durability::Volatile,
        depth: PUBLISH_DEPTH,
    }
}

/// Subscriptions: BEST_EFFORT + VOLATILE + KEEP_LAST(`depth`), so that both
/// best-effort and reliable writers match. Use a deeper queue on high-rate
/// channels (the input side absorbs rustdds' periodic writer stalls).
pub const fn subscribe(depth: usize) -> Qos {
    Qos {
        reliability: Reliability::BestEffort,
        durability: Durability::Volatile,
        depth,
    }
}

/// `/clock`: best effort, depth 1 (what Nav2 and rclcpp's time source use).
pub const fn clock() -> Qos {
    subscribe(1)
}

/// Service request and reply topics: reliable, volatile, keep-last 10 (rmw's
/// `rmw_qos_profile_services_default`).
pub const fn service() -> Qos {
    publish()
}

/// rcl's `/rosout` history depth (`rcl_qos_profile_rosout_default`, rcl's
/// `logging_rosout.h`).
pub const ROSOUT_DEPTH: usize = 1000;

/// A node's own `/rosout` publisher (`rcl_interfaces/msg/Log`): reliable,
/// TRANSIENT_LOCAL, KEEP_LAST([`ROSOUT_DEPTH`]), rcl's rosout profile, so
/// that a late `ros2 topic echo /rosout` or recorder still gets the lines.
pub const fn rosout() -> Qos {
    publish().transient_local().depth(ROSOUT_DEPTH)
}
