//! Shared ROS 2 plumbing for Breakbench nodes, on ros2-client 0.12 / rustdds 0.15.
//!
//! * [`RosEnv`]: `ROS_DOMAIN_ID` (0..=232, default 0) and `RMW_IMPLEMENTATION`
//!   (`rmw_fastrtps_cpp` default → [`ros2_client::ServiceMapping::Enhanced`],
//!   `rmw_cyclonedds_cpp` → `Cyclone`); ros2-client reads neither.
//! * [`RosArgs`]: the `--ros-args` subset `ros2 run`/`ros2 launch` pass
//!   (remaps, `__node`, `__ns`, `-p`, `--params-file`), typed parameters.
//! * [`qos`]: presets that match real peers (publish reliable/volatile/keep-last 10,
//!   subscribe best effort).
//! * [`SimClock`]/[`NodeClock`]: `use_sim_time` from our own `rosgraph_msgs/Clock`
//!   subscription (ros2-client's subscribes the wrong type).
//! * [`RosType`]/[`RosService`]: ROS type names of the kraken_interfaces types;
//!   [`Msg`] lets them through ros2-client services.
//! * [`RosNode`]: a node built from all of the above.
//!
//! Measured pitfalls behind these choices: `shared/notes/ros2-interop.md`.

pub mod args;
pub mod clock;
pub mod env;
pub mod error;
pub mod node;
pub mod qos;
pub mod types;

pub use args::{ParamValue, Remap, RosArgs};
pub use clock::{to_stamp, NodeClock, SimClock};
pub use env::{Rmw, RosEnv, MAX_DOMAIN_ID};
pub use error::RosError;
pub use node::{RosClient, RosNode, RosServer};
pub use types::{Msg, RosService, RosType, SetFaultSrv, TriggerSrv};

/// Re-export of the ros2-client version these helpers are built on.
pub use ros2_client;

/// The default `RUST_LOG` filter of the Breakbench nodes: our own `info`,
/// rustdds only errors, ros2-client warnings.
pub const NODE_LOG_FILTER: &str = "info,rustdds=error,ros2_client=warn";

/// Installs the `tracing` subscriber every node uses: formatted lines on
/// stderr (stdout stays free for a node's own output), filtered by
/// `RUST_LOG` when set and valid, else by `default_filter` (usually
/// [`NODE_LOG_FILTER`]). Call once, first thing in `main`.
pub fn init_logging(default_filter: &str) {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .with_writer(std::io::stderr)
        .init();
}

/// If the command line asks for help (`-h` or `--help` before any
/// `--ros-args`), prints `about`, the common ROS-arguments usage of `node`
/// and where its parameters are documented (`readme`), then exits 0.
/// Node binaries call it first thing in `main`.
pub fn exit_on_help(node: &str, about: &str, readme: &str) {
    let asked = std::env::args()
        .skip(1)
        .take_while(|a| a != "--ros-args")
        .any(|a| a == "-h" || a == "--help");
    if asked {
        use std::io::Write;
        // A closed pipe (`--help | head`) is not an error worth a panic.
        let _ = writeln!(
            std::io::stdout(),
            "{node}: {about}\n\n\
             usage: {node} [--ros-args [-p NAME:=VALUE]... [-r FROM:=TO]... [--params-file FILE]]\n\n\
             ROS_DOMAIN_ID, RMW_IMPLEMENTATION (rmw_fastrtps_cpp | rmw_cyclonedds_cpp) and\n\
             RUST_LOG are read from the environment. Parameters, topics and services\n\
             (with defaults and units): {readme}"
        );
        std::process::exit(0);
    }
}
