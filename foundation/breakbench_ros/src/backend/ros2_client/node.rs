//! [`RosNode`] on ros2-client: a node set up from the environment and the
//! command line, and the factory of every entity.

use ros2_client::{Context, Name, Node, NodeName, NodeOptions};

use super::{context, parameter_value, profile, service_mapping, service_type_name, type_name};
use crate::qos::{self, Qos};
use crate::{
    NodeClock, Publisher, RawCdr, RosArgs, RosClient, RosEnv, RosError, RosServer, RosService,
    RosType, SimClock, SizeGuard, Subscription, Undecoded,
};
use kraken_interfaces::ros::Clock;

/// A ROS 2 node with its environment, arguments and clock.
///
/// Every topic or service name given to its methods is expanded (namespace,
/// `~/`) and remapped by the `--ros-args` rules before use.
pub struct RosNode {
    /// The ros2-client node. Dropped by `RosNode`'s `Drop`, before the
    /// other fields.
    node: std::mem::ManuallyDrop<Node>,
    /// `ROS_DOMAIN_ID` / `RMW_IMPLEMENTATION`.
    pub env: RosEnv,
    /// Parsed `--ros-args`.
    pub args: RosArgs,
    /// Wall time, or sim time when the `use_sim_time` parameter is true.
    pub clock: NodeClock,
    /// Disconnected once the spinner thread has dropped its spinner.
    spinner_exit: Option<std::sync::mpsc::Receiver<()>>,
    /// The node's context, dropped last. `Node` drops its own context
    /// handle before its rosout and parameter-event writers, and the spinner
    /// holds the parameter services; were the participant to stop before
    /// they go, rustdds would log `ERROR Cannot remove Reader/Writer ...
    /// Disconnected` for each of them at every clean shutdown.
    _context: Context,
}

impl Drop for RosNode {
    /// Drops the node (which tells its spinner to stop), waits up to 2 s
    /// for the spinner thread to let go of its entities, then the context.
    fn drop(&mut self) {
        crate::teardown::begin();
        // SAFETY: `self.node` is dropped exactly once, here, and never used after.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.node) };
        if let Some(rx) = self.spinner_exit.take() {
            let _ = rx.recv_timeout(std::time::Duration::from_secs(2));
        }
        if crate::teardown::dropped() > 0 {
            tracing::debug!(
                "teardown: {} rustdds endpoint-removal errors dropped (participant deleted next)",
                crate::teardown::dropped()
            );
        }
    }
}

fn dds<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> RosError + '_ {
    move |e| RosError::Dds(format!("{what}: {e:?}"))
}

impl RosNode {
    /// Creates the context (on `env.domain_id`) and the node named by `args`,
    /// declaring every parameter from `args` so `ros2 param` can read them.
    /// Under `use_sim_time: true` the clock is a [`SimClock`] fed by
    /// [`Self::clock_subscription`].
    pub fn new(env: RosEnv, args: RosArgs) -> Result<Self, RosError> {
        let ctx = context(&env)?;
        let name = NodeName::new(&args.namespace, &args.node_name).map_err(|e| RosError::Name {
            name: args.fully_qualified_name(),
            message: format!("{e:?}"),
        })?;
        let mut opts = NodeOptions::new().enable_rosout(true);
        for (k, v) in &args.params {
            opts = opts.declare_parameter(k, parameter_value(v));
        }
        let use_sim_time = args.param_bool("use_sim_time", false)?;
        let node = ctx.new_node(name, opts).map_err(dds("node"))?;
        let clock = if use_sim_time {
            NodeClock::Sim(SimClock::default())
        } else {
            NodeClock::Wall
        };
        Ok(Self {
            node: std::mem::ManuallyDrop::new(node),
            env,
            args,
            clock,
            spinner_exit: None,
            _context: ctx,
        })
    }

    /// The absolute, remapped form of `name`, as a ros2-client [`Name`].
    fn name(&self, name: &str) -> Result<Name, RosError> {
        let resolved = self.args.resolve(name);
        Name::parse(&resolved).map_err(|e| RosError::Name {
            name: resolved.clone(),
            message: format!("{e:?}"),
        })
    }

    /// A publisher of `T` on `topic` with `qos` (usually [`qos::publish`]).
    pub fn publisher<T: RosType>(
        &mut self,
        topic: &str,
        qos: Qos,
    ) -> Result<Publisher<T>, RosError> {
        let (n, qos) = (self.name(topic)?, profile(qos));
        let t = self
            .node
            .create_topic(&n, type_name::<T>(), &qos)
            .map_err(dds("topic"))?;
        let dds = self
            .node
            .create_publisher(&t, Some(qos))
            .map_err(dds("publisher"))?;
        let inner = super::Publisher { dds, size: None };
        Ok(Publisher { inner })
    }

    /// A subscription to `T` on `topic` with `qos` (usually [`qos::subscribe`]).
    pub fn subscription<T: RosType>(
        &mut self,
        topic: &str,
        qos: Qos,
    ) -> Result<Subscription<T>, RosError> {
        let (n, qos) = (self.name(topic)?, profile(qos));
        let t = self
            .node
            .create_topic(&n, type_name::<T>(), &qos)
            .map_err(dds("topic"))?;
        let inner = self
            .node
            .create_subscription(&t, Some(qos))
            .map_err(dds("subscription"))?;
        Ok(Subscription { inner })
    }

    /// How many publishers on `topic` (an absolute ROS name, not remapped)
    /// discovery has found so far, on any participant of the domain.
    pub fn publisher_count(&self, topic: &str) -> usize {
        self.node.publisher_count(topic)
    }

    /// The ROS type of the publishers discovered on `topic` (absolute ROS
    /// name), as `(package, type)` from the DDS type name
    /// `<pkg>::msg::dds_::<Type>_`; `None` while no publisher was
    /// discovered or when its DDS type name is not a ROS 2 message type.
    pub fn discovered_type(&self, topic: &str) -> Option<(String, String)> {
        // The node only matters for relative names; `self.name` expanded those.
        let node = NodeName::new("/", "breakbench").ok()?;
        let dds_name = self.name(topic).ok()?.to_dds_name("rt", &node, "");
        self._context
            .domain_participant()
            .discovered_writers()
            .iter()
            .filter(|w| w.publication_topic_data.topic_name == dds_name)
            .find_map(|w| ros_type_of_dds(&w.publication_topic_data.type_name))
    }

    /// The publishers discovered on `topic` (absolute ROS name) so far, on
    /// any participant of the domain, in discovery order: each one's ROS
    /// type (from the DDS type name `<pkg>::msg::dds_::<Type>_`) and offered
    /// reliability and durability (the DDS defaults, reliable and volatile,
    /// when its discovery data leaves them out). A writer whose DDS type is
    /// not a ROS 2 message type is left out. What `ros2 bag record` reads
    /// to subscribe as each publisher offers (REQ-REC-GRAPH).
    pub fn discovered_publishers(&self, topic: &str) -> Vec<crate::DiscoveredPublisher> {
        use ros2_client::dds::rustdds::policy;
        let Some(node) = NodeName::new("/", "breakbench").ok() else {
            return Vec::new();
        };
        let Ok(name) = self.name(topic) else {
            return Vec::new();
        };
        let dds_name = name.to_dds_name("rt", &node, "");
        self._context
            .domain_participant()
            .discovered_writers()
            .iter()
            .filter(|w| w.publication_topic_data.topic_name == dds_name)
            .filter_map(|w| {
                let d = &w.publication_topic_data;
                let ros_type = ros_type_of_dds(&d.type_name)?;
                let reliability = match d.reliability {
                    Some(policy::Reliability::BestEffort) => qos::Reliability::BestEffort,
                    _ => qos::Reliability::Reliable,
                };
                let durability = match d.durability {
                    Some(policy::Durability::Volatile) | None => qos::Durability::Volatile,
                    Some(_) => qos::Durability::TransientLocal,
                };
                Some(crate::DiscoveredPublisher {
                    ros_type,
                    qos: Some(Qos {
                        reliability,
                        durability,
                        depth: qos::PUBLISH_DEPTH,
                    }),
                })
            })
            .collect()
    }

    /// A subscription to `topic` of the ROS type `(package, type)` whose
    /// messages are not decoded: each sample arrives as [`Undecoded`].
    /// For a readiness check on a topic of any type.
    pub fn undecoded_subscription(
        &mut self,
        topic: &str,
        ros_type: &(String, String),
        qos: Qos,
    ) -> Result<Subscription<Undecoded>, RosError> {
        let (n, qos) = (self.name(topic)?, profile(qos));
        let t = self
            .node
            .create_topic(
                &n,
                ros2_client::MessageTypeName::new(&ros_type.0, &ros_type.1),
                &qos,
            )
            .map_err(dds("topic"))?;
        let inner = self
            .node
            .create_subscription(&t, Some(qos))
            .map_err(dds("subscription"))?;
        Ok(Subscription { inner })
    }

    /// A subscription to `topic` of the ROS type `type_name`
    /// (`pkg/msg/Type`) whose samples arrive as their serialized bytes
    /// ([`crate::RawCdr`]: header + body, never decoded).
    ///
    /// # Errors
    /// [`RosError::Name`] for a type name that is not `pkg/msg/Type` or
    /// `pkg/Type`, else as [`Self::subscription`].
    pub fn raw_subscription(
        &mut self,
        topic: &str,
        type_name: &str,
        qos: Qos,
    ) -> Result<Subscription<RawCdr>, RosError> {
        let qos = profile(qos);
        let t = self.raw_topic(topic, type_name, &qos)?;
        let inner = self
            .node
            .create_subscription(&t, Some(qos))
            .map_err(dds("subscription"))?;
        Ok(Subscription { inner })
    }

    /// A publisher on `topic` of the ROS type `type_name` (`pkg/msg/Type`)
    /// that sends [`crate::RawCdr`] bytes as they are. Its first message
    /// larger than [`super::LOSSLESS_MESSAGE_BYTES`] logs one WARN
    /// ([`crate::SizeGuard`]).
    ///
    /// # Errors
    /// As [`Self::raw_subscription`].
    pub fn raw_publisher(
        &mut self,
        topic: &str,
        type_name: &str,
        qos: Qos,
    ) -> Result<Publisher<RawCdr>, RosError> {
        let qos = profile(qos);
        let t = self.raw_topic(topic, type_name, &qos)?;
        let dds = self
            .node
            .create_publisher(&t, Some(qos))
            .map_err(dds("publisher"))?;
        let guard = SizeGuard::new(
            self.args.resolve(topic),
            Some(super::LOSSLESS_MESSAGE_BYTES),
        );
        let size: fn(&RawCdr) -> usize = |m| m.0.len();
        let inner = super::Publisher {
            dds,
            size: Some((guard, size)),
        };
        Ok(Publisher { inner })
    }

    fn raw_topic(
        &mut self,
        topic: &str,
        type_name: &str,
        qos: &ros2_client::QosProfile,
    ) -> Result<ros2_client::dds::rustdds::Topic, RosError> {
        let parts: Vec<&str> = type_name.split('/').collect();
        let (pkg, ty) = match parts.as_slice() {
            [p, "msg", t] | [p, t] if !p.is_empty() && !t.is_empty() => (*p, *t),
            _ => {
                return Err(RosError::Name {
                    name: type_name.to_string(),
                    message: "a message type is pkg/msg/Type".into(),
                })
            }
        };
        let n = self.name(topic)?;
        self.node
            .create_topic(&n, ros2_client::MessageTypeName::new(pkg, ty), qos)
            .map_err(dds("topic"))
    }

    /// A service server for `S` on `service`, with the mapping of the RMW in use.
    pub fn server<S: RosService>(&mut self, service: &str) -> Result<RosServer<S>, RosError> {
        let n = self.name(service)?;
        let inner = self
            .node
            .create_server(
                service_mapping(self.env.rmw),
                &n,
                &service_type_name::<S>(),
                profile(qos::service()),
                profile(qos::service()),
            )
            .map_err(dds("service server"))?;
        Ok(RosServer { inner })
    }

    /// A service client for `S` on `service`, with the mapping of the RMW in use.
    pub fn client<S: RosService>(&mut self, service: &str) -> Result<RosClient<S>, RosError> {
        let n = self.name(service)?;
        let inner = self
            .node
            .create_client(
                service_mapping(self.env.rmw),
                &n,
                &service_type_name::<S>(),
                profile(qos::service()),
                profile(qos::service()),
            )
            .map_err(dds("service client"))?;
        Ok(RosClient { inner })
    }

    /// Whether `client`'s service is reachable right now: its request writer
    /// has matched a server's request reader and its response reader a
    /// server's response writer. One non-blocking look at the match tables
    /// the spinner keeps (needs [`Self::spawn_spinner`] running).
    ///
    /// Poll this rather than awaiting ros2-client's `Client::wait_for_service`:
    /// that future only re-checks on a graph event delivered through a
    /// bounded(8) channel filled with `try_send`, so on a loaded machine the
    /// match event can be dropped and the wait never ends although the
    /// service is there (measured: a 20 s CI timeout in `tests/e2e_graph.rs`).
    pub fn service_ready<S: RosService>(&self, client: &RosClient<S>) -> bool {
        use futures::FutureExt;
        // The wait future reads the match tables when first polled and is
        // `Ready` at once if both ends are matched; otherwise it is dropped.
        client
            .inner
            .wait_for_service(&self.node)
            .now_or_never()
            .is_some()
    }

    /// Whether `publisher` has at least one matched subscription: one
    /// non-blocking look at the node's match tables, like
    /// [`Self::service_ready`]. Unlike ros2-client's `get_subscription_count`
    /// it does not log an error while no subscription has matched yet.
    pub fn has_subscriber<M: serde::Serialize>(&self, publisher: &Publisher<M>) -> bool {
        use futures::FutureExt;
        publisher
            .inner
            .dds
            .wait_for_subscription(&self.node)
            .now_or_never()
            .is_some()
    }

    /// Whether `subscription` has at least one matched publisher (as
    /// [`Self::has_subscriber`]).
    pub fn has_publisher<M: 'static>(&self, subscription: &Subscription<M>) -> bool {
        use futures::FutureExt;
        subscription
            .inner
            .wait_for_publisher(&self.node)
            .now_or_never()
            .is_some()
    }

    /// Under `use_sim_time`: the `/clock` (rosgraph_msgs/Clock) subscription
    /// whose messages the caller passes to [`SimClock::update`]; `None` on wall time.
    pub fn clock_subscription(
        &mut self,
    ) -> Result<Option<(Subscription<Clock>, SimClock)>, RosError> {
        self.clock_subscription_on("/clock")
    }

    /// As [`Self::clock_subscription`], on `topic` (resolved and remapped
    /// like every name) instead of `/clock`: a node that republishes
    /// `/clock` itself (the fault injector) follows its unfaulted input.
    pub fn clock_subscription_on(
        &mut self,
        topic: &str,
    ) -> Result<Option<(Subscription<Clock>, SimClock)>, RosError> {
        let NodeClock::Sim(c) = self.clock.clone() else {
            return Ok(None);
        };
        let sub = self.subscription::<Clock>(topic, qos::clock())?;
        Ok(Some((sub, c)))
    }

    /// Starts the node's spinner on a thread of its own. The node shows in
    /// `ros2 node list` (via `ros_discovery_info`) and answers parameter
    /// services only while the spinner runs.
    pub fn spawn_spinner(&mut self) -> Result<std::thread::JoinHandle<()>, RosError> {
        let spinner = self.node.spinner().map_err(dds("spinner"))?;
        let (exited, exit) = std::sync::mpsc::channel::<()>();
        self.spinner_exit = Some(exit);
        std::thread::Builder::new()
            .name("ros-spinner".into())
            .spawn(move || {
                if let Err(e) = futures::executor::block_on(spinner.spin()) {
                    tracing::error!("spinner stopped: {e:?}");
                }
                drop(exited);
            })
            .map_err(|e| RosError::Dds(format!("spinner thread: {e}")))
    }
}

/// `(package, type)` of a ROS 2 message's DDS type name
/// `<pkg>::msg::dds_::<Type>_` (the rosidl DDS mangling, as ros2-client's
/// `MessageTypeName::dds_msg_type` writes it).
fn ros_type_of_dds(dds_type: &str) -> Option<(String, String)> {
    let (pkg, rest) = dds_type.split_once("::msg::dds_::")?;
    let name = rest.strip_suffix('_')?;
    (!pkg.is_empty() && !name.is_empty() && !name.contains(':'))
        .then(|| (pkg.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::ros_type_of_dds;

    #[test]
    fn dds_type_names_map_to_ros_types() {
        assert_eq!(
            ros_type_of_dds("nav_msgs::msg::dds_::Odometry_"),
            Some(("nav_msgs".into(), "Odometry".into()))
        );
        assert_eq!(
            ros_type_of_dds("kraken_interfaces::msg::dds_::FaultStatus_"),
            Some(("kraken_interfaces".into(), "FaultStatus".into()))
        );
        // Not a ROS 2 message type (a service request, a bare DDS type).
        assert_eq!(
            ros_type_of_dds("std_srvs::srv::dds_::Trigger_Request_"),
            None
        );
        assert_eq!(ros_type_of_dds("Odometry"), None);
        assert_eq!(ros_type_of_dds("nav_msgs::msg::dds_::_"), None);
    }
}
