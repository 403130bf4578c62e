//! The middleware behind [`crate::entities`] and [`crate::RosNode`].
//!
//! One backend today: ros2-client 0.12 on rustdds 0.15 (pure Rust). A
//! second one (rclrs, behind a cargo feature) provides the same names:
//! the entity types, `RequestId`, and the inherent methods of
//! [`crate::Publisher`], [`crate::Subscription`], [`crate::RosServer`] and
//! [`crate::RosClient`] (see the crate README, "Backends").

mod ros2_client;

pub(crate) use self::ros2_client::{profile, service_type_name, type_name};
pub(crate) use self::ros2_client::{Client, Publisher, RequestId, Server, Subscription};
