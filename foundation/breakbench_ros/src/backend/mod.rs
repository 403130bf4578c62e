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
pub use self::ros2_client::RosNode;
#[cfg(not(feature = "rclrs"))]
pub(crate) use self::ros2_client::{Client, Publisher, RequestId, Server, Subscription};

#[cfg(feature = "rclrs")]
mod rclrs;
#[cfg(feature = "rclrs")]
pub use self::rclrs::RosNode;
#[cfg(feature = "rclrs")]
pub(crate) use self::rclrs::{Client, Publisher, RequestId, RosoutLayer, Server, Subscription};
