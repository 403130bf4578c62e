//! The error type of breakbench_ros.

/// Errors from the ROS 2 environment, command line and DDS entity creation.
#[derive(Debug, thiserror::Error)]
pub enum RosError {
    /// `ROS_DOMAIN_ID` is not an integer in 0..=232.
    #[error("ROS_DOMAIN_ID={value:?} is invalid: {reason} (valid: an integer in 0..=232)")]
    DomainId { value: String, reason: String },
    /// `RMW_IMPLEMENTATION` names an RMW this node cannot speak.
    #[error("RMW_IMPLEMENTATION={0:?} is not supported: use rmw_fastrtps_cpp (default) or rmw_cyclonedds_cpp")]
    Rmw(String),
    /// A `--ros-args` command line that does not parse.
    #[error("bad --ros-args: {0}")]
    Args(String),
    /// A parameters file that cannot be read or parsed.
    #[error("{path}: {message}")]
    ParamsFile { path: String, message: String },
    /// A node parameter with the wrong type or value.
    #[error("parameter '{name}': {message}")]
    Param { name: String, message: String },
    /// A topic, service or node name that is not a valid ROS 2 name.
    #[error("invalid ROS name '{name}': {message}")]
    Name { name: String, message: String },
    /// DDS entity creation failed (context, node, topic, reader, writer, service).
    #[error("DDS: {0}")]
    Dds(String),
    /// A publish or a service reply that the middleware refused; the text is
    /// the backend's own description (printed as it was before the seam).
    #[error("{0}")]
    Send(String),
    /// A sample or a request that could not be received or decoded; the
    /// text is the backend's own description.
    #[error("{0}")]
    Receive(String),
    /// A service call that failed (request not sent, or no reply decoded);
    /// the text is the backend's own description.
    #[error("{0}")]
    Call(String),
    /// The SIGINT/SIGTERM handlers could not be installed.
    #[error("signal handling: {0}")]
    Signal(String),
}
