//! The ROS entities a node holds: [`Publisher`], [`Subscription`],
//! [`RosServer`], [`RosClient`] and a request's [`RequestId`].
//!
//! They are Breakbench's own types: a node names only these, and the
//! backend (`backend/ros2_client.rs` today) implements their methods over
//! its own entities. Each wraps exactly one backend entity, so dropping a
//! wrapper drops that entity; a node keeps the rule that every entity is
//! dropped before its [`crate::RosNode`].
//!
//! Receiving is pull-based (`take`, `async_take`, `async_stream`): a
//! callback-based backend (rclrs) implements it by pushing from its
//! callbacks into a queue the wrapper drains.

use crate::{backend, RosService};

/// A publisher of `T` (a [`crate::RosType`], or [`crate::RawCdr`] for a
/// type known only at run time). Made by [`crate::RosNode::publisher`].
pub struct Publisher<T: serde::Serialize> {
    pub(crate) inner: backend::Publisher<T>,
}

/// A subscription delivering `T` (a [`crate::RosType`], [`crate::RawCdr`],
/// or [`crate::Undecoded`]). Made by [`crate::RosNode::subscription`].
pub struct Subscription<T> {
    pub(crate) inner: backend::Subscription<T>,
}

/// A service server for `S`. Made by [`crate::RosNode::server`].
pub struct RosServer<S: RosService> {
    pub(crate) inner: backend::Server<S>,
}

/// A service client for `S`. Made by [`crate::RosNode::client`].
pub struct RosClient<S: RosService> {
    pub(crate) inner: backend::Client<S>,
}

/// Identifies one received request, to send its reply
/// ([`RosServer::send_response`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestId(pub(crate) backend::RequestId);
