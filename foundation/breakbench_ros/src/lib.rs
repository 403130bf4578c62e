//! Shared ROS 2 plumbing for Breakbench nodes, on ros2-client 0.12 / rustdds 0.15
//! (default) or on rclrs 0.8 / rcl (cargo feature `rclrs`, issue 27).
//!
//! The one interface through which every node reaches ROS 2 (issue 25):
//! nodes name only this crate's types, never the middleware's, so the second
//! backend (rclrs) implements this interface instead of rewriting nodes.
//! See the README, "Backends".
//!
//! * [`RosEnv`]: `ROS_DOMAIN_ID` (0..=232, default 0) and `RMW_IMPLEMENTATION`
//!   (`rmw_fastrtps_cpp` default → [`ros2_client::ServiceMapping::Enhanced`],
//!   `rmw_cyclonedds_cpp` → `Cyclone`); ros2-client reads neither.
//! * [`RosArgs`]: the `--ros-args` subset `ros2 run`/`ros2 launch` pass
//!   (remaps, `__node`, `__ns`, `-p`, `--params-file`), typed parameters.
//! * [`qos`]: [`Qos`] (reliability, durability, KEEP_LAST depth) and presets
//!   that match real peers (publish reliable/volatile/keep-last 10,
//!   subscribe best effort).
//! * [`entities`]: [`Publisher`], [`Subscription`] (typed, [`RawCdr`] or
//!   [`Undecoded`]), [`RosServer`] with its [`RequestId`], [`RosClient`].
//! * [`SimClock`]/[`NodeClock`]: `use_sim_time` from our own `rosgraph_msgs/Clock`
//!   subscription (ros2-client's subscribes the wrong type).
//! * [`RosType`]/[`RosService`]: ROS type names of the kraken_interfaces types.
//! * [`RosNode`]: a node built from all of the above.
//! * [`Shutdown`]: SIGINT/SIGTERM request a clean stop; the node's loops
//!   watch it and the process exits 0, as rclcpp nodes do under `ros2 launch`.
//!
//! Measured pitfalls behind these choices: `shared/notes/ros2-interop.md`.

pub mod args;
mod backend;
pub mod clock;
pub mod entities;
pub mod env;
pub mod error;
pub mod node;
pub mod qos;
pub mod raw;
pub mod shutdown;
pub mod size_guard;
pub mod teardown;
pub mod types;

pub use args::{ParamValue, Remap, RosArgs};
/// The largest serialized message the backend in use was measured to
/// deliver without loss to a default-configured subscriber (bytes); a raw
/// publisher's first larger message logs one WARN ([`SizeGuard`]).
pub use backend::LOSSLESS_MESSAGE_BYTES;
pub use clock::{to_stamp, NodeClock, SimClock};
pub use entities::{Publisher, RequestId, RosClient, RosServer, Subscription};
pub use env::{Rmw, RosEnv, MAX_DOMAIN_ID};
pub use error::RosError;
pub use node::{DiscoveredPublisher, RosNode, Undecoded};
pub use qos::Qos;
pub use raw::RawCdr;
pub use shutdown::{Shutdown, ShutdownReason, StopSignal};
pub use size_guard::SizeGuard;
pub use types::{
    ClearFaultStageSrv, ResetRunSrv, RosService, RosType, SetFaultSrv, SetFaultStackSrv, TriggerSrv,
};
pub use types::{
    GetEntitiesSrv, GetEntityStateSrv, GetSimulationStateSrv, GetSimulatorFeaturesSrv,
    ResetSimulationSrv, SetSimulationStateSrv, StepSimulationSrv,
};

/// How every node prints its fatal error: the chain, each cause once,
/// terminal-safe (see [`kraken_interfaces::text::error_chain`]).
pub use kraken_interfaces::text::error_chain;

/// The default `RUST_LOG` filter of the Breakbench nodes: our own `info`,
/// rustdds only errors, ros2-client warnings except its service wrapper's
/// "related_sample_identity missing" (logged at WARN for every request of a
/// ros2-client client, e.g. the orchestrator's and kraken_scenario's
/// `set_fault` calls; the request is served normally).
pub const NODE_LOG_FILTER: &str =
    "info,rustdds=error,ros2_client=warn,ros2_client::service::wrappers=error";

/// The default `RUST_LOG` filter of the command-line tools that talk to a
/// graph (`breakbench_ready`, `kraken_scenario`): warnings and errors of
/// their own, the middleware's errors only.
pub const TOOL_LOG_FILTER: &str = "warn,rustdds=error,ros2_client=error";

/// The default `RUST_LOG` filter of the `breakbench` command line when it is
/// built with ROS 2 (`breakbench replay --publish` joins a graph): its own
/// `info` progress lines, the middleware's errors only.
pub const CLI_LOG_FILTER: &str = "info,rustdds=error,ros2_client=error";

/// Installs the `tracing` subscriber every node uses: formatted lines on
/// stderr (stdout stays free for a node's own output), filtered by
/// `RUST_LOG` when set and valid, else by `default_filter` (usually
/// [`NODE_LOG_FILTER`]). ANSI colour only when `RCUTILS_COLORIZED_OUTPUT=1`,
/// or when it is unset and stderr is a terminal (ROS 2's convention,
/// [`kraken_interfaces::text::log_colour`]; REQ-LOG-COLOUR): a pipe, a CI
/// log or a `ros2 launch` log gets plain text. Call once, first thing in
/// `main`; every node binary does. With the rclrs backend and
/// `BREAKBENCH_RCL_ROSOUT=1`, every line that passes the filter also goes to
/// `/rosout` through rcl logging, under the node's logger name, once its
/// `RosNode` exists.
///
/// Two known-harmless rustdds errors are dropped: see [`ClockTypeClash`]
/// and [`teardown`]. An incompatible QoS between one of the node's writers
/// and a remote reader is printed once per policy and topic, as a WARN
/// (the backend's log layer; REQ-FAULT-QOS).
pub fn init_logging(default_filter: &str) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let (filter, default_in_use) = match tracing_subscriber::EnvFilter::try_from_default_env() {
        Ok(f) => (f, false),
        Err(_) => (
            tracing_subscriber::EnvFilter::new(format!(
                "{default_filter},{}",
                backend::LOG_DIRECTIVE
            )),
            true,
        ),
    };
    // The rclrs backend can also send every line to /rosout through rcl logging.
    #[cfg(feature = "rclrs")]
    let rosout = Some(backend::RosoutLayer);
    #[cfg(not(feature = "rclrs"))]
    let rosout: Option<tracing_subscriber::layer::Identity> = None;
    tracing_subscriber::registry()
        .with(filter)
        .with(rosout)
        .with(ClockTypeClash)
        .with(backend::LogLayer::new(default_in_use))
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(kraken_interfaces::text::log_colour()),
        )
        .init();
}

/// Drops exactly one rustdds log event: `ERROR Inconsistent topic update
/// ... type was: "rosgraph_msgs::msg::dds_::Clock_" new type:
/// "builtin_interfaces::msg::dds_::Time_"` (or the two types the other way
/// round), once per node.
///
/// Cause: ros2-client 0.12's spinner always subscribes `/clock` with the
/// type `builtin_interfaces/Time` (its own time source; `NodeOptions` has no
/// switch for it, and its time is never used here, see [`SimClock`]). A node
/// that also has the correct `rosgraph_msgs/Clock` endpoint on `/clock` (every
/// node under `use_sim_time`, and the plant that publishes the clock) then
/// holds two local topics of one name with two types, and rustdds reports its
/// own participant as inconsistent. Nothing is lost: ros2-client's reader
/// matches no writer, ours matches every real `/clock` publisher (tested
/// against rclpy). Any other inconsistent topic is still logged.
struct ClockTypeClash;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClockTypeClash {
    fn event_enabled(
        &self,
        event: &tracing::Event<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        if *event.metadata().level() != tracing::Level::ERROR {
            return true;
        }
        let mut m = MessageText(String::new());
        event.record(&mut m);
        !is_clock_type_clash(&m.0) && teardown::keep(&m.0)
    }
}

/// The `message` field of an event, formatted.
struct MessageText(String);

impl tracing::field::Visit for MessageText {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// True for rustdds' inconsistent-topic error between `rosgraph_msgs/Clock`
/// and `builtin_interfaces/Time` (see [`ClockTypeClash`]).
fn is_clock_type_clash(message: &str) -> bool {
    message.starts_with("Inconsistent topic update from")
        && message.contains("\"rosgraph_msgs::msg::dds_::Clock_\"")
        && message.contains("\"builtin_interfaces::msg::dds_::Time_\"")
        && message.matches("type").count() == 2
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

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_clock_time_clash_is_dropped() {
        let clash = r#"Inconsistent topic update from GUID {0112d4ff6c80164a596b6553 EntityId::PARTICIPANT}: type was: "rosgraph_msgs::msg::dds_::Clock_" new type: "builtin_interfaces::msg::dds_::Time_""#;
        assert!(super::is_clock_type_clash(clash));
        let reversed = r#"Inconsistent topic update from GUID {01 EntityId::PARTICIPANT}: type was: "builtin_interfaces::msg::dds_::Time_" new type: "rosgraph_msgs::msg::dds_::Clock_""#;
        assert!(super::is_clock_type_clash(reversed));
        let other = r#"Inconsistent topic update from GUID {01 EntityId::PARTICIPANT}: type was: "sensor_msgs::msg::dds_::Imu_" new type: "builtin_interfaces::msg::dds_::Time_""#;
        assert!(!super::is_clock_type_clash(other));
        assert!(!super::is_clock_type_clash(
            "Cannot report participant status: Full"
        ));
    }
}
