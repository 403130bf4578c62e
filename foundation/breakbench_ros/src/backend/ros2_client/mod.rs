//! The ros2-client 0.12 / rustdds 0.15 backend: the entity types behind the
//! wrappers of [`crate::entities`], their methods, and [`Qos`] → `QosProfile`.
//!
//! Every method is a direct call of the ros2-client one: no copy, no
//! allocation on the success path (`#[inline]`); an error's text is
//! ros2-client's `Debug` of it (`Display` for a failed call), exactly as
//! the nodes printed it before.

use futures::stream::{FusedStream, StreamExt};
use ros2_client::qos::{Durability as D, History, WhenFull};
use ros2_client::{MessageTypeName, QosProfile, ServiceTypeName};
use serde::{de::DeserializeOwned, Serialize};

use crate::args::ParamValue;
use crate::entities::RequestId as Id;
use crate::env::{Rmw, RosEnv};
use crate::qos::{Durability, Qos, Reliability};
use crate::size_guard::SizeGuard;
use crate::{RosClient, RosError, RosServer, RosService, RosType};

mod log;
mod node;
pub(crate) use log::{QosMismatchOnce as LogLayer, DIRECTIVE as LOG_DIRECTIVE};
pub use node::RosNode;
#[cfg(test)]
mod size_test;

/// Wraps any serde message type so that ros2-client's services accept it
/// (they require its `Message` trait, which foreign types cannot implement
/// here). Serialises exactly as the inner value.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Msg<T>(pub T);

impl<T: Serialize + DeserializeOwned> ros2_client::Message for Msg<T> {}

/// A ros2-client publisher and, on a raw publisher, the guard that warns
/// once when its messages exceed [`LOSSLESS_MESSAGE_BYTES`].
pub(crate) struct Publisher<T: Serialize> {
    pub(crate) dds: ros2_client::Publisher<T>,
    /// The guard and the serialized size of a message (bytes); `None` on a
    /// typed publisher (Breakbench's typed messages are small fixed kinds,
    /// and their size is not known without encoding them twice).
    pub(crate) size: Option<(SizeGuard, MessageBytes<T>)>,
}

/// The serialized size of a message, in bytes.
pub(crate) type MessageBytes<T> = fn(&T) -> usize;

/// The largest serialized message (bytes, CDR header included) this backend
/// was measured to deliver without loss to a default-configured rclpy (Fast
/// DDS) subscriber: sensor_msgs/PointCloud2 with 1 MiB of data at 10 Hz, 50
/// of 50, with the vendored rustdds fix (`vendor/README.md`); 1 MiB plus
/// 4 KiB for the message's other fields. Measured by
/// `scripts/large_messages.sh`, numbers in `docs/large-messages.md`.
pub const LOSSLESS_MESSAGE_BYTES: usize = (1 << 20) + 4096;
pub(crate) type Subscription<T> = ros2_client::Subscription<T>;
pub(crate) type Server<S> =
    ros2_client::Server<Msg<<S as RosService>::Request>, Msg<<S as RosService>::Response>>;
pub(crate) type Client<S> =
    ros2_client::Client<Msg<<S as RosService>::Request>, Msg<<S as RosService>::Response>>;
pub(crate) type RequestId = ros2_client::RmwRequestId;

/// ros2-client's profile of `q`: its defaults (no deadline, no lifespan,
/// automatic liveliness; a full reliable writer blocks the default time)
/// with `q`'s reliability, durability and KEEP_LAST depth.
pub(crate) fn profile(q: Qos) -> QosProfile {
    let base = match q.reliability {
        Reliability::Reliable => {
            QosProfile::subscription_default().reliability_reliable(WhenFull::DEFAULT)
        }
        Reliability::BestEffort => QosProfile::subscription_default().reliability_best_effort(),
    };
    base.durability(match q.durability {
        Durability::Volatile => D::Volatile,
        Durability::TransientLocal => D::TransientLocal,
    })
    .history(History::KeepLast { depth: q.depth })
}

/// The ros2-client type name of `T` (DDS type `<pkg>::msg::dds_::<Name>_`).
pub(crate) fn type_name<T: RosType>() -> MessageTypeName {
    MessageTypeName::new(T::PACKAGE, T::NAME)
}

/// The ros2-client type name of `S` (DDS types
/// `<pkg>::srv::dds_::<Name>_Request_` / `_Response_`).
pub(crate) fn service_type_name<S: RosService>() -> ServiceTypeName {
    ServiceTypeName::new(S::PACKAGE, S::NAME)
}

/// The ros2-client service mapping that interoperates with `rmw`
/// (measured, see `shared/notes/ros2-interop.md`).
pub(crate) fn service_mapping(rmw: Rmw) -> ros2_client::ServiceMapping {
    match rmw {
        Rmw::FastRtps => ros2_client::ServiceMapping::Enhanced,
        Rmw::CycloneDds => ros2_client::ServiceMapping::Cyclone,
    }
}

/// A ros2-client context (one DDS participant) on `env.domain_id`.
pub(crate) fn context(env: &RosEnv) -> Result<ros2_client::Context, RosError> {
    ros2_client::Context::with_options(ros2_client::ContextOptions::new().domain_id(env.domain_id))
        .map_err(|e| RosError::Dds(format!("{e:?}")))
}

/// The ros2-client parameter value of `v` (for `NodeOptions::declare_parameter`).
pub(crate) fn parameter_value(v: &ParamValue) -> ros2_client::parameters::ParameterValue {
    use ros2_client::parameters::ParameterValue as P;
    match v.clone() {
        ParamValue::Bool(b) => P::Boolean(b),
        ParamValue::Integer(i) => P::Integer(i),
        ParamValue::Double(d) => P::Double(d),
        ParamValue::String(s) => P::String(s),
        ParamValue::BoolArray(v) => P::BooleanArray(v),
        ParamValue::IntegerArray(v) => P::IntegerArray(v),
        ParamValue::DoubleArray(v) => P::DoubleArray(v),
        ParamValue::StringArray(v) => P::StringArray(v),
    }
}

fn err<E: std::fmt::Debug>(wrap: fn(String) -> RosError) -> impl FnOnce(E) -> RosError {
    move |e| wrap(format!("{e:?}"))
}

impl<T: Serialize + std::fmt::Debug> crate::Publisher<T> {
    /// Publishes `m` (moved, not copied). (`Debug`: a refused message is
    /// part of the error's text.) On a raw publisher, the first message
    /// larger than [`LOSSLESS_MESSAGE_BYTES`] logs one WARN naming the topic,
    /// its size and that limit ([`SizeGuard`]); it is still published.
    ///
    /// # Errors
    /// [`RosError::Send`] when the writer refuses it.
    #[inline]
    pub fn publish(&self, m: T) -> Result<(), RosError> {
        if let Some((guard, size)) = &self.inner.size {
            guard.check(size(&m));
        }
        self.inner.dds.publish(m).map_err(err(RosError::Send))
    }
}

impl<T: DeserializeOwned + 'static> crate::Subscription<T> {
    /// The next received message, if one is waiting (never blocks).
    ///
    /// # Errors
    /// [`RosError::Receive`] when a sample cannot be read or decoded.
    #[inline]
    pub fn take(&self) -> Result<Option<T>, RosError> {
        match self.inner.take() {
            Ok(m) => Ok(m.map(|(m, _info)| m)),
            Err(e) => Err(err(RosError::Receive)(e)),
        }
    }

    /// Waits for the next message.
    ///
    /// # Errors
    /// As [`Self::take`].
    #[inline]
    pub async fn async_take(&self) -> Result<T, RosError> {
        match self.inner.async_take().await {
            Ok((m, _info)) => Ok(m),
            Err(e) => Err(err(RosError::Receive)(e)),
        }
    }

    /// Every message as it arrives (an item per sample; a sample that
    /// cannot be read is an `Err` item, the stream goes on).
    #[inline]
    pub fn async_stream(&self) -> impl FusedStream<Item = Result<T, RosError>> + '_ {
        self.inner.async_stream().map(|r| match r {
            Ok((m, _info)) => Ok(m),
            Err(e) => Err(err(RosError::Receive)(e)),
        })
    }
}

impl<S: RosService> RosServer<S> {
    /// The next request, if one is waiting (never blocks).
    ///
    /// # Errors
    /// [`RosError::Receive`] when a request cannot be read or decoded.
    #[inline]
    pub fn receive_request(&self) -> Result<Option<(Id, S::Request)>, RosError> {
        match self.inner.receive_request() {
            Ok(r) => Ok(r.map(|(id, Msg(req))| (Id(id), req))),
            Err(e) => Err(err(RosError::Receive)(e)),
        }
    }

    /// Every request as it arrives (a request that cannot be read is an
    /// `Err` item, the stream goes on).
    #[inline]
    pub fn receive_request_stream(
        &self,
    ) -> impl FusedStream<Item = Result<(Id, S::Request), RosError>> + '_ {
        self.inner.receive_request_stream().map(|r| match r {
            Ok((id, Msg(req))) => Ok((Id(id), req)),
            Err(e) => Err(err(RosError::Receive)(e)),
        })
    }

    /// Replies `resp` to the request `id`.
    ///
    /// # Errors
    /// [`RosError::Send`] when the reply writer refuses it.
    #[inline]
    pub fn send_response(&self, id: Id, resp: S::Response) -> Result<(), RosError> {
        self.inner
            .send_response(id.0, Msg(resp))
            .map_err(err(RosError::Send))
    }
}

impl<S: RosService> RosClient<S> {
    /// Sends `req` and waits for its reply (no timeout of its own: wrap it
    /// in one).
    ///
    /// # Errors
    /// [`RosError::Call`] when the request cannot be sent or the reply
    /// cannot be read.
    pub async fn call(&self, req: S::Request) -> Result<S::Response, RosError> {
        match self.inner.async_call_service(Msg(req)).await {
            Ok(Msg(resp)) => Ok(resp),
            // Its `Display` ("Write error: ..." / "Read error: ..."), as
            // the nodes printed a failed call before.
            Err(e) => Err(RosError::Call(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SetFaultSrv, TriggerSrv};
    use kraken_interfaces::ros;
    use ros2_client::ServiceMapping;

    #[test]
    fn rmw_selects_service_mapping() {
        let c = RosEnv::from_vars(None, Some("rmw_cyclonedds_cpp")).unwrap();
        assert!(matches!(service_mapping(c.rmw), ServiceMapping::Cyclone));
        let f = RosEnv::from_vars(None, None).unwrap();
        assert!(matches!(service_mapping(f.rmw), ServiceMapping::Enhanced));
    }

    #[test]
    fn dds_type_names() {
        assert_eq!(
            type_name::<ros::NavSatFix>().dds_msg_type(),
            "sensor_msgs::msg::dds_::NavSatFix_"
        );
        assert_eq!(
            type_name::<ros::Clock>().dds_msg_type(),
            "rosgraph_msgs::msg::dds_::Clock_"
        );
        assert_eq!(
            type_name::<ros::TFMessage>().dds_msg_type(),
            "tf2_msgs::msg::dds_::TFMessage_"
        );
        assert_eq!(
            kraken_interfaces::FaultStatus::ros_name(),
            "kraken_interfaces/msg/FaultStatus"
        );
        assert_eq!(service_type_name::<SetFaultSrv>().type_name(), "SetFault");
        assert_eq!(service_type_name::<TriggerSrv>().package_name(), "std_srvs");
    }
}
