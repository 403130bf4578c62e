//! The middleware behind [`crate::entities`] and [`crate::RosNode`].
//!
//! One backend today: ros2-client 0.12 on rustdds 0.15 (pure Rust); it is
//! the only part of the crate that names ros2-client
//! (`tests/backend_seam.rs`). A second one (rclrs, behind a cargo feature)
//! provides the same names: `RosNode` and its methods, the entity types,
//! `RequestId`, and the inherent methods of
//! [`crate::Publisher`], [`crate::Subscription`], [`crate::RosServer`] and
//! [`crate::RosClient`] (see the crate README, "Backends").

mod ros2_client;

pub(crate) use self::ros2_client::{Client, Publisher, RequestId, Server, Subscription};
pub(crate) use self::ros2_client::{LogLayer, LOG_DIRECTIVE};
pub use self::ros2_client::{RosNode, LOSSLESS_MESSAGE_BYTES};
