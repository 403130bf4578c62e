//! [`RosNode`] on rclrs: the context, node and executor are rclrs'; every
//! topic and service is made on its rcl node through [`super::ffi`].

use std::ffi::CStr;

use rclrs::{CreateBasicExecutor, IntoNodeOptions};

use super::{
    c_name, decode_typed, encode_typed, ffi, typesupport, Client, NodeRef, Publisher as P, Server,
    Subscription as S,
};
use crate::args::ParamValue;
use crate::qos::{self, Qos};
use crate::{
    NodeClock, Publisher, RawCdr, RosArgs, RosClient, RosEnv, RosError, RosServer, RosService,
    RosType, SimClock, Subscription, Undecoded,
};
use kraken_interfaces::ros::Clock;

/// A ROS 2 node with its environment, arguments and clock.
///
/// Every topic or service name given to its methods is expanded (namespace,
/// `~/`) and remapped by the `--ros-args` rules before use (by
/// [`RosArgs::resolve`]; rcl is given no remapping rules of its own, so no
/// name is remapped twice).
pub struct RosNode {
    node: NodeRef,
    /// The parameters declared from `args`, kept so they stay declared.
    _params: Vec<rclrs::MandatoryParameter<rclrs::ParameterValue>>,
    /// The executor, until [`Self::spawn_spinner`] moves it to its thread.
    executor: Option<rclrs::Executor>,
    commands: std::sync::Arc<rclrs::ExecutorCommands>,
    /// `ROS_DOMAIN_ID` / `RMW_IMPLEMENTATION`.
    pub env: RosEnv,
    /// Parsed `--ros-args`.
    pub args: RosArgs,
    /// Wall time, or sim time when the `use_sim_time` parameter is true.
    pub clock: NodeClock,
    /// Disconnected once the spinner thread has stopped spinning.
    spinner_exit: Option<std::sync::mpsc::Receiver<()>>,
    _context: rclrs::Context,
}

impl Drop for RosNode {
    /// Stops the spinner and waits up to 2 s for it; the rcl node goes with
    /// the last entity that holds it.
    fn drop(&mut self) {
        self.commands.halt_spinning();
        if let Some(rx) = self.spinner_exit.take() {
            let _ = rx.recv_timeout(std::time::Duration::from_secs(2));
        }
    }
}

fn rcl<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> RosError + '_ {
    move |e| RosError::Dds(format!("{what}: {e}"))
}

/// rclrs' value of `v`.
fn parameter_value(v: &ParamValue) -> rclrs::ParameterValue {
    use rclrs::ParameterValue as R;
    let s = |s: &String| std::sync::Arc::<str>::from(s.as_str());
    match v {
        ParamValue::Bool(b) => R::Bool(*b),
        ParamValue::Integer(i) => R::Integer(*i),
        ParamValue::Double(d) => R::Double(*d),
        ParamValue::String(v) => R::String(s(v)),
        ParamValue::BoolArray(v) => R::BoolArray(v.as_slice().into()),
        ParamValue::IntegerArray(v) => R::IntegerArray(v.as_slice().into()),
        ParamValue::DoubleArray(v) => R::DoubleArray(v.as_slice().into()),
        ParamValue::StringArray(v) => R::StringArray(v.iter().map(s).collect()),
    }
}

impl RosNode {
    /// Creates the context (on `env.domain_id`) and the node named by `args`,
    /// declaring every parameter from `args` so `ros2 param` can read them
    /// (`use_sim_time` is rclrs' own, given to it as an override). Under
    /// `use_sim_time: true` the clock is a [`SimClock`] fed by
    /// [`Self::clock_subscription`].
    ///
    /// # Errors
    /// [`RosError::Dds`] when rcl cannot make the context or the node,
    /// [`RosError::Param`] for a parameter rclrs refuses.
    pub fn new(env: RosEnv, args: RosArgs) -> Result<Self, RosError> {
        let use_sim_time = args.param_bool("use_sim_time", false)?;
        let mut ctx_args = vec!["breakbench".to_string()];
        if use_sim_time {
            ctx_args.extend(["--ros-args", "-p", "use_sim_time:=true"].map(String::from));
        }
        let opts = rclrs::InitOptions::new().with_domain_id(Some(usize::from(env.domain_id)));
        let ctx = rclrs::Context::new(ctx_args, opts).map_err(rcl("context"))?;
        let executor = ctx.create_basic_executor();
        let _ = ffi::take_last_node();
        // Keep the hook linked in (see ffi's module doc).
        std::hint::black_box(ffi::rcl_node_init as *const () as usize);
        // Keep libpython linked: the wheels' librcl needs it (build.rs).
        #[cfg(breakbench_link_python)]
        std::hint::black_box(ffi::Py_IsInitialized as *const () as usize);
        let node = executor
            .create_node(args.node_name.as_str().namespace(args.namespace.as_str()))
            .map_err(|e| RosError::Name {
                name: args.fully_qualified_name(),
                message: e.to_string(),
            })?;
        let ptr = ffi::take_last_node();
        if ptr.is_null() {
            return Err(RosError::Dds(
                "rclrs made a node without our rcl_node_init hook".into(),
            ));
        }
        // Opt-in: the nodes that report on /rosout publish their own Log
        // lines (navigator, ekf_node); forwarding every tracing line too
        // would add to and duplicate them (measured: interop phase 9).
        if std::env::var_os(super::rosout::ENABLE_VAR).is_some_and(|v| v == "1") {
            super::rosout::install(node.logger().name());
        }
        let mut params = Vec::new();
        for (k, v) in args.params.iter().filter(|(k, _)| *k != "use_sim_time") {
            let p = node
                .declare_parameter::<rclrs::ParameterValue>(k.as_str())
                .default(parameter_value(v))
                .mandatory()
                .map_err(|e| RosError::Param {
                    name: k.clone(),
                    message: format!("{e:?}"),
                })?;
            params.push(p);
        }
        let clock = if use_sim_time {
            NodeClock::Sim(SimClock::default())
        } else {
            NodeClock::Wall
        };
        Ok(Self {
            node: NodeRef { ptr, _node: node },
            _params: params,
            commands: executor.commands().clone(),
            executor: Some(executor),
            env,
            args,
            clock,
            spinner_exit: None,
            _context: ctx,
        })
    }

    /// The absolute, remapped form of `name`.
    fn name(&self, name: &str) -> String {
        self.args.resolve(name)
    }

    /// A publisher of `T` on `topic` with `qos` (usually [`qos::publish`]).
    ///
    /// # Errors
    /// [`RosError::Name`] when `T`'s type support is missing, [`RosError::Dds`]
    /// when rcl refuses the topic or QoS.
    pub fn publisher<T: RosType>(
        &mut self,
        topic: &str,
        qos: Qos,
    ) -> Result<Publisher<T>, RosError> {
        let ts = typesupport::message(T::PACKAGE, T::NAME)?;
        let inner = P::new(&self.node, ts, &self.name(topic), qos, encode_typed::<T>)?;
        Ok(Publisher { inner })
    }

    /// A subscription to `T` on `topic` with `qos` (usually [`qos::subscribe`]).
    ///
    /// # Errors
    /// As [`Self::publisher`].
    pub fn subscription<T: RosType>(
        &mut self,
        topic: &str,
        qos: Qos,
    ) -> Result<Subscription<T>, RosError> {
        let ts = typesupport::message(T::PACKAGE, T::NAME)?;
        let inner = S::new(&self.node, ts, &self.name(topic), qos, decode_typed::<T>)?;
        Ok(Subscription { inner })
    }

    /// How many publishers on `topic` (an absolute ROS name, not remapped)
    /// discovery has found so far, on any node of the domain.
    pub fn publisher_count(&self, topic: &str) -> usize {
        let (Ok(t), mut n) = (c_name(topic), 0usize) else {
            return 0;
        };
        // SAFETY: a live node, a NUL-terminated name.
        if unsafe { ffi::rcl_count_publishers(self.node.ptr, t.as_ptr(), &mut n) } != ffi::RET_OK {
            ffi::last_error();
            return 0;
        }
        n
    }

    /// The publishers discovered on `topic`: on this backend one entry per
    /// publisher counted, each with the topic's type
    /// ([`Self::discovered_type`]) and no QoS (not read from rcl here).
    pub fn discovered_publishers(&self, topic: &str) -> Vec<crate::DiscoveredPublisher> {
        let Some(ros_type) = self.discovered_type(topic) else {
            return Vec::new();
        };
        let n = self.publisher_count(&self.name(topic));
        (0..n)
            .map(|_| crate::DiscoveredPublisher {
                ros_type: ros_type.clone(),
                qos: None,
            })
            .collect()
    }

    /// The ROS type of the publishers discovered on `topic` (absolute ROS
    /// name, remapped), as `(package, type)`; `None` while no publisher was
    /// discovered or when the graph's type is not a `pkg/msg/Type`.
    pub fn discovered_type(&self, topic: &str) -> Option<(String, String)> {
        let name = self.name(topic);
        if self.publisher_count(&name) == 0 {
            return None;
        }
        // SAFETY: a zero-initialised names-and-types, finalised below.
        unsafe {
            let mut nt: ffi::NamesAndTypes = std::mem::zeroed();
            let mut alloc = ffi::rcutils_get_default_allocator();
            if ffi::rcl_get_topic_names_and_types(self.node.ptr, &mut alloc, false, &mut nt)
                != ffi::RET_OK
            {
                ffi::last_error();
                return None;
            }
            let mut found = None;
            for i in 0..nt.names.size {
                let n = CStr::from_ptr(*nt.names.data.add(i));
                let types = &*nt.types.add(i);
                if n.to_bytes() == name.as_bytes() && types.size > 0 {
                    let t = CStr::from_ptr(*types.data).to_string_lossy().into_owned();
                    found = typesupport::split_type(&t, "msg")
                        .ok()
                        .map(|(p, t)| (p.to_string(), t.to_string()));
                    break;
                }
            }
            ffi::rmw_names_and_types_fini(&mut nt);
            found
        }
    }

    /// A subscription to `topic` of the ROS type `(package, type)` whose
    /// messages are not decoded: each sample arrives as [`Undecoded`].
    ///
    /// # Errors
    /// As [`Self::publisher`].
    pub fn undecoded_subscription(
        &mut self,
        topic: &str,
        ros_type: &(String, String),
        qos: Qos,
    ) -> Result<Subscription<Undecoded>, RosError> {
        let ts = typesupport::message(&ros_type.0, &ros_type.1)?;
        let inner = S::new(&self.node, ts, &self.name(topic), qos, |_| Ok(Undecoded))?;
        Ok(Subscription { inner })
    }

    /// A subscription to `topic` of the ROS type `type_name`
    /// (`pkg/msg/Type`) whose samples arrive as their serialized bytes
    /// ([`crate::RawCdr`]: header + body exactly as rmw received them).
    ///
    /// # Errors
    /// [`RosError::Name`] for a type name that is not `pkg/msg/Type` or
    /// `pkg/Type` or has no type support, else as [`Self::subscription`].
    pub fn raw_subscription(
        &mut self,
        topic: &str,
        type_name: &str,
        qos: Qos,
    ) -> Result<Subscription<RawCdr>, RosError> {
        let (pkg, ty) = typesupport::split_type(type_name, "msg")?;
        let ts = typesupport::message(pkg, ty)?;
        let inner = S::new(&self.node, ts, &self.name(topic), qos, |b| Ok(RawCdr(b)))?;
        Ok(Subscription { inner })
    }

    /// A publisher on `topic` of the ROS type `type_name` (`pkg/msg/Type`)
    /// that sends [`crate::RawCdr`] bytes as they are (header included).
    ///
    /// # Errors
    /// As [`Self::raw_subscription`].
    pub fn raw_publisher(
        &mut self,
        topic: &str,
        type_name: &str,
        qos: Qos,
    ) -> Result<Publisher<RawCdr>, RosError> {
        let (pkg, ty) = typesupport::split_type(type_name, "msg")?;
        let ts = typesupport::message(pkg, ty)?;
        let inner = P::new(&self.node, ts, &self.name(topic), qos, |m: RawCdr| Ok(m.0))?;
        Ok(Publisher { inner })
    }

    /// A service server for `S` on `service` (rcl's service QoS).
    ///
    /// # Errors
    /// [`RosError::Name`] when `S`'s type support is missing, [`RosError::Dds`]
    /// when rcl refuses the service.
    pub fn server<Sv: RosService>(&mut self, service: &str) -> Result<RosServer<Sv>, RosError> {
        let inner = Server::new(&self.node, &self.name(service))?;
        Ok(RosServer { inner })
    }

    /// A service client for `S` on `service` (rcl's service QoS).
    ///
    /// # Errors
    /// As [`Self::server`].
    pub fn client<Sv: RosService>(&mut self, service: &str) -> Result<RosClient<Sv>, RosError> {
        let inner = Client::new(&self.node, &self.name(service))?;
        Ok(RosClient { inner })
    }

    /// Whether `client`'s service is reachable right now (rcl's
    /// `rcl_service_server_is_available`: a server's request reader and
    /// response writer both matched). Non-blocking.
    pub fn service_ready<Sv: RosService>(&self, client: &RosClient<Sv>) -> bool {
        let mut ok = false;
        let h = client.inner.ent.lock();
        // SAFETY: a live node and a valid client of it.
        let ret = unsafe { ffi::rcl_service_server_is_available(self.node.ptr, &*h, &mut ok) };
        if ret != ffi::RET_OK {
            ffi::last_error();
        }
        ret == ffi::RET_OK && ok
    }

    /// Whether `publisher` has at least one matched subscription (non-blocking).
    pub fn has_subscriber<M: serde::Serialize>(&self, publisher: &Publisher<M>) -> bool {
        let mut n = 0usize;
        let h = publisher.inner.ent.lock();
        // SAFETY: a valid publisher.
        unsafe { ffi::rcl_publisher_get_subscription_count(&*h, &mut n) == ffi::RET_OK && n > 0 }
    }

    /// Whether `subscription` has at least one matched publisher (non-blocking).
    pub fn has_publisher<M: 'static>(&self, subscription: &Subscription<M>) -> bool {
        let mut n = 0usize;
        let h = subscription.inner.ent.lock();
        // SAFETY: a valid subscription.
        unsafe { ffi::rcl_subscription_get_publisher_count(&*h, &mut n) == ffi::RET_OK && n > 0 }
    }

    /// Under `use_sim_time`: the `/clock` (rosgraph_msgs/Clock) subscription
    /// whose messages the caller passes to [`SimClock::update`]; `None` on wall time.
    ///
    /// # Errors
    /// As [`Self::subscription`].
    pub fn clock_subscription(
        &mut self,
    ) -> Result<Option<(Subscription<Clock>, SimClock)>, RosError> {
        self.clock_subscription_on("/clock")
    }

    /// As [`Self::clock_subscription`], on `topic` (resolved and remapped
    /// like every name) instead of `/clock`.
    ///
    /// # Errors
    /// As [`Self::subscription`].
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

    /// Starts the rclrs executor on a thread of its own: the node answers
    /// parameter services (and rclrs' time source runs) only while it spins.
    /// Topics and services made here do not need it.
    ///
    /// # Errors
    /// [`RosError::Dds`] when called twice or the thread cannot start.
    pub fn spawn_spinner(&mut self) -> Result<std::thread::JoinHandle<()>, RosError> {
        let mut executor = self
            .executor
            .take()
            .ok_or_else(|| RosError::Dds("spinner: already spinning".into()))?;
        let (exited, exit) = std::sync::mpsc::channel::<()>();
        self.spinner_exit = Some(exit);
        std::thread::Builder::new()
            .name("ros-spinner".into())
            .spawn(move || {
                for e in executor.spin(rclrs::SpinOptions::default()) {
                    tracing::error!("spinner: {e}");
                }
                drop(exited);
            })
            .map_err(|e| RosError::Dds(format!("spinner thread: {e}")))
    }
}
