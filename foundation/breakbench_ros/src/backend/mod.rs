//! The middleware behind [`crate::entities`] and [`crate::RosNode`].
//!
//! Two backends, chosen at build time: ros2-client 0.12 on rustdds 0.15
//! (pure Rust, the default) and rclrs 0.8 on rcl (cargo feature `rclrs`;
//! needs an ament prefix, see `scripts/rclrs_prefix.sh`). Only this folder
//! names either middleware (`tests/backend_seam.rs`). Both provide the same
//! names: `RosNode` and its methods, the entity types, `RequestId`, and the
//! inherent methods of [`crate::Publisher`], [`crate::Subscription`],
//! [`crate::RosServer`] and [`crate::RosClient`] (see the crate README,
//! "Backends").

#[cfg(not(feature = "rclrs"))]
mod ros2_client;
#[cfg(not(feature = "rclrs"))]
pub(crate) use self::ros2_client::{Client, Publisher, RequestId, Server, Subscription};
#[cfg(not(feature = "rclrs"))]
pub(crate) use self::ros2_client::{LogLayer, LOG_DIRECTIVE};
#[cfg(not(feature = "rclrs"))]
pub use self::ros2_client::{RosNode, LOSSLESS_MESSAGE_BYTES};

#[cfg(feature = "rclrs")]
mod rclrs;
#[cfg(feature = "rclrs")]
pub use self::rclrs::RosNode;
#[cfg(feature = "rclrs")]
pub(crate) use self::rclrs::{Client, Publisher, RequestId, RosoutLayer, Server, Subscription};
#[cfg(feature = "rclrs")]
pub use self::rclrs_log::LOSSLESS_MESSAGE_BYTES;
#[cfg(feature = "rclrs")]
pub(crate) use self::rclrs_log::{LogLayer, LOG_DIRECTIVE};

/// What the rclrs backend has in place of the ros2-client backend's log
/// layer and message-size limit.
#[cfg(feature = "rclrs")]
mod rclrs_log {
    /// No middleware line to let through: the directive repeats the default.
    pub(crate) const LOG_DIRECTIVE: &str = "rustdds=error";

    /// A layer that changes nothing. Incompatible QoS is not logged on this
    /// backend yet (rcl reports it only to event handlers, which rclrs 0.8
    /// does not expose).
    pub(crate) struct LogLayer;

    impl LogLayer {
        pub(crate) fn new(_default_filter: bool) -> Self {
            Self
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for LogLayer {}

    /// No limit was measured on rcl with Fast DDS (6.2 MB images at 10 Hz:
    /// 50 of 50 delivered to a default rclpy subscriber), so the size guard
    /// never warns.
    pub const LOSSLESS_MESSAGE_BYTES: usize = usize::MAX;
}
