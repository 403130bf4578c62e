//! The rclrs 0.8 backend (cargo feature `rclrs`): the entity types behind
//! the wrappers of [`crate::entities`] and their methods, on a native rcl
//! node (any RMW the install has; the wheel prefix is Fast DDS only).
//!
//! rclrs owns the context, the node (its parameters, answered by
//! `ros2 param`, its `/rosout` publisher and time source) and the executor
//! spun by [`RosNode::spawn_spinner`]. Topics and services are ours, made
//! on that same rcl node through a small FFI ([`ffi`]):
//!
//! * every topic, typed or of a type named at run time, is a byte relay:
//!   `rcl_publish_serialized_message` / `rcl_take_serialized_message` with
//!   the type support looked up by type name ([`typesupport`]). A typed
//!   message is our serde struct encoded to CDR by breakbench_msgs
//!   (`encode_serde`/`decode_serde`), a [`crate::RawCdr`] is its bytes as
//!   they are (header included, so the relay is byte-exact), an
//!   [`crate::Undecoded`] sample is taken and not read. No generated Rust
//!   message crate is needed by a node.
//! * services and clients use rcl's typed calls (rcl has no serialized
//!   request/response API) on C messages laid out by the introspection type
//!   support, filled from and read into CDR by `rmw_deserialize` /
//!   `rmw_serialize`: the same serde structs, any service type.
//! * receiving is pull-based like the other backend: `take` reads the rmw
//!   queue (the subscription's KEEP_LAST depth) directly; the async forms
//!   wait on an event the middleware's "new message/request/response"
//!   callback (`rcl_*_set_on_new_*_callback`) notifies. No extra thread,
//!   no copy besides the one out of rmw's buffer.

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::sync::Mutex;

use futures::stream::{FusedStream, StreamExt};
use serde::{de::DeserializeOwned, Serialize};

use crate::entities::RequestId as Id;
use crate::qos::{Durability, Qos, Reliability};
use crate::{RosClient, RosError, RosServer, RosService, RosType};

mod ffi;
mod node;
mod qos_event;
mod rosout;
mod typesupport;
pub use node::RosNode;
pub(crate) use rosout::RosoutLayer;

use typesupport::{CMessage, MsgTs, SrvTs};

pub(crate) type RequestId = ffi::RmwRequestId;

/// The rcl node the entities are made on, kept alive by every entity (the
/// rclrs `Node` owns the `rcl_node_t` at `ptr`).
#[derive(Clone)]
pub(crate) struct NodeRef {
    ptr: *mut ffi::RclNode,
    _node: rclrs::Node,
}
// SAFETY: rcl's entity functions may be called from any thread; the node
// outlives every user through the `rclrs::Node` held next to the pointer.
unsafe impl Send for NodeRef {}
// SAFETY: as above.
unsafe impl Sync for NodeRef {}

/// One rcl publisher, subscription, service or client, with the event its
/// "new data" callback notifies. Boxed: the callback's user data is the
/// event's address.
struct Entity {
    handle: Mutex<ffi::Handle>,
    event: event_listener::Event,
    kind: Kind,
    node: NodeRef,
    /// A publisher's or subscription's incompatible-QoS event (REQ-FAULT-QOS).
    qos_event: Option<qos_event::Watch>,
}
// SAFETY: the rcl handle is only used under its mutex (publish: rcl's
// publish is thread-safe) and finalised once, on drop.
unsafe impl Send for Entity {}
// SAFETY: as above.
unsafe impl Sync for Entity {}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Publisher,
    Subscription,
    Service,
    Client,
}

unsafe extern "C" fn notify(user_data: *const c_void, _n: usize) {
    // SAFETY: registered with the address of a boxed entity's event, and
    // unregistered before that box is dropped.
    unsafe { (*(user_data as *const event_listener::Event)).notify(usize::MAX) };
}

impl Entity {
    /// Boxes `handle` (initialised by rcl) and registers the callback that
    /// wakes waiters when data arrives (not for publishers).
    fn new(handle: ffi::Handle, kind: Kind, node: NodeRef) -> Result<Box<Self>, RosError> {
        let e = Box::new(Self {
            handle: Mutex::new(handle),
            event: event_listener::Event::new(),
            kind,
            node,
            qos_event: None,
        });
        let user = (&e.event as *const event_listener::Event).cast::<c_void>();
        let h = e.lock();
        // SAFETY: a valid entity; `user` lives as long as the box, and the
        // callback is cleared in `drop` before the box goes.
        let ret = unsafe {
            match kind {
                Kind::Publisher => ffi::RET_OK,
                Kind::Subscription => {
                    ffi::rcl_subscription_set_on_new_message_callback(&*h, Some(notify), user)
                }
                Kind::Service => {
                    ffi::rcl_service_set_on_new_request_callback(&*h, Some(notify), user)
                }
                Kind::Client => {
                    ffi::rcl_client_set_on_new_response_callback(&*h, Some(notify), user)
                }
            }
        };
        drop(h);
        if ret != ffi::RET_OK {
            return Err(RosError::Dds(format!(
                "new-data callback: {}",
                ffi::last_error()
            )));
        }
        Ok(e)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ffi::Handle> {
        self.handle.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Entity {
    fn drop(&mut self) {
        // The event goes before its publisher or subscription.
        drop(self.qos_event.take());
        let node = self.node.ptr;
        let h = self.handle.get_mut().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the callback is cleared first, then the entity finalised
        // once on its (still alive) node.
        unsafe {
            let ret = match self.kind {
                Kind::Publisher => ffi::rcl_publisher_fini(h, node),
                Kind::Subscription => {
                    ffi::rcl_subscription_set_on_new_message_callback(h, None, std::ptr::null());
                    ffi::rcl_subscription_fini(h, node)
                }
                Kind::Service => {
                    ffi::rcl_service_set_on_new_request_callback(h, None, std::ptr::null());
                    ffi::rcl_service_fini(h, node)
                }
                Kind::Client => {
                    ffi::rcl_client_set_on_new_response_callback(h, None, std::ptr::null());
                    ffi::rcl_client_fini(h, node)
                }
            };
            if ret != ffi::RET_OK {
                tracing::debug!("rcl entity fini: {}", ffi::last_error());
            }
        }
    }
}

/// rmw's profile of `q`: rcl's defaults (`base`) with `q`'s reliability,
/// durability and KEEP_LAST depth.
fn profile(mut base: ffi::QosProfile, q: Qos) -> ffi::QosProfile {
    base.history = ffi::HISTORY_KEEP_LAST;
    base.depth = q.depth;
    base.reliability = match q.reliability {
        Reliability::Reliable => ffi::RELIABILITY_RELIABLE,
        Reliability::BestEffort => ffi::RELIABILITY_BEST_EFFORT,
    };
    base.durability = match q.durability {
        Durability::Volatile => ffi::DURABILITY_VOLATILE,
        Durability::TransientLocal => ffi::DURABILITY_TRANSIENT_LOCAL,
    };
    base
}

fn c_name(name: &str) -> Result<CString, RosError> {
    CString::new(name).map_err(|_| RosError::Name {
        name: name.into(),
        message: "contains NUL".into(),
    })
}

/// Encodes a message to the CDR bytes that go on the wire.
type Encode<T> = fn(T) -> Result<Vec<u8>, RosError>;
/// Decodes a taken sample's CDR bytes.
type Decode<T> = fn(Vec<u8>) -> Result<T, RosError>;

/// Our serde struct `T` as CDR (breakbench_msgs' encoder).
pub(crate) fn encode_typed<T: RosType>(m: T) -> Result<Vec<u8>, RosError> {
    breakbench_msgs::encode_serde(T::NAME, &m).map_err(|e| RosError::Send(e.to_string()))
}

/// CDR as our serde struct `T` (breakbench_msgs' decoder).
pub(crate) fn decode_typed<T: RosType>(b: Vec<u8>) -> Result<T, RosError> {
    breakbench_msgs::decode_serde(T::NAME, &b).map_err(|e| RosError::Receive(e.to_string()))
}

/// A publisher: serialized publish of `encode(m)`.
pub(crate) struct Publisher<T> {
    ent: Box<Entity>,
    encode: Encode<T>,
}

impl<T> Publisher<T> {
    fn new(
        node: &NodeRef,
        ts: MsgTs,
        topic: &str,
        q: Qos,
        encode: Encode<T>,
    ) -> Result<Self, RosError> {
        let name = c_name(topic)?;
        let mut h = ffi::Handle {
            impl_: std::ptr::null_mut(),
        };
        // SAFETY: a zero-initialised publisher, a live node, a valid type support.
        let ret = unsafe {
            let mut o = ffi::rcl_publisher_get_default_options();
            o.qos = profile(o.qos, q);
            ffi::rcl_publisher_init(&mut h, node.ptr, ts.0, name.as_ptr(), &o)
        };
        if ret != ffi::RET_OK {
            return Err(RosError::Dds(format!(
                "publisher {topic}: {}",
                ffi::last_error()
            )));
        }
        let mut ent = Entity::new(h, Kind::Publisher, node.clone())?;
        let watch = qos_event::Watch::new(&ent.lock(), qos_event::Side::Output, topic);
        ent.qos_event = watch;
        Ok(Self { ent, encode })
    }
}

/// A subscription: serialized take, then `decode`.
pub(crate) struct Subscription<T> {
    ent: Box<Entity>,
    /// rmw's buffer for taken samples, reused (grown by rmw as needed).
    buf: Mutex<SerializedBuf>,
    decode: Decode<T>,
}

struct SerializedBuf(ffi::Uint8Array);
// SAFETY: an owned heap buffer, used under its mutex.
unsafe impl Send for SerializedBuf {}
impl Drop for SerializedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated by rcutils' default allocator (or null), freed once.
        unsafe { ffi::rcutils_uint8_array_fini(&mut self.0) };
    }
}

impl<T> Subscription<T> {
    fn new(
        node: &NodeRef,
        ts: MsgTs,
        topic: &str,
        q: Qos,
        decode: Decode<T>,
    ) -> Result<Self, RosError> {
        let name = c_name(topic)?;
        let mut h = ffi::Handle {
            impl_: std::ptr::null_mut(),
        };
        // SAFETY: a zero-initialised subscription, a live node, a valid type support.
        let ret = unsafe {
            let mut o = ffi::rcl_subscription_get_default_options();
            o.qos = profile(o.qos, q);
            ffi::rcl_subscription_init(&mut h, node.ptr, ts.0, name.as_ptr(), &o)
        };
        if ret != ffi::RET_OK {
            return Err(RosError::Dds(format!(
                "subscription {topic}: {}",
                ffi::last_error()
            )));
        }
        let mut ent = Entity::new(h, Kind::Subscription, node.clone())?;
        let watch = qos_event::Watch::new(&ent.lock(), qos_event::Side::Input, topic);
        ent.qos_event = watch;
        Ok(Self {
            ent,
            buf: Mutex::new(SerializedBuf(ffi::empty_array())),
            decode,
        })
    }

    /// The next sample's bytes (header + body), if one is waiting.
    fn take_bytes(&self) -> Result<Option<Vec<u8>>, RosError> {
        let h = self.ent.lock();
        let mut buf = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        let a = &mut buf.0;
        // SAFETY: a valid subscription and an owned serialized-message buffer.
        let ret = unsafe {
            ffi::rcl_take_serialized_message(&*h, a, std::ptr::null_mut(), std::ptr::null_mut())
        };
        match ret {
            ffi::RET_OK if a.buffer.is_null() => Ok(Some(Vec::new())),
            // SAFETY: rmw wrote `buffer_length` bytes into `buffer`.
            ffi::RET_OK => Ok(Some(
                unsafe { std::slice::from_raw_parts(a.buffer, a.buffer_length) }.to_vec(),
            )),
            ffi::RET_SUBSCRIPTION_TAKE_FAILED => Ok(None),
            _ => Err(RosError::Receive(format!("take: {}", ffi::last_error()))),
        }
    }
}

impl<T: Serialize + std::fmt::Debug> crate::Publisher<T> {
    /// Publishes `m` (encoded to CDR, then handed to rmw as serialized bytes).
    ///
    /// # Errors
    /// [`RosError::Send`] when `m` cannot be encoded or rcl refuses it.
    pub fn publish(&self, m: T) -> Result<(), RosError> {
        let bytes = (self.inner.encode)(m)?;
        let a = ffi::Uint8Array {
            buffer: bytes.as_ptr().cast_mut(),
            buffer_length: bytes.len(),
            buffer_capacity: bytes.len(),
            allocator: ffi::empty_array().allocator,
        };
        let h = self.inner.ent.lock();
        // SAFETY: a valid publisher; `a` borrows `bytes` read-only for the call.
        let ret = unsafe { ffi::rcl_publish_serialized_message(&*h, &a, std::ptr::null_mut()) };
        if ret != ffi::RET_OK {
            return Err(RosError::Send(format!("publish: {}", ffi::last_error())));
        }
        Ok(())
    }
}

impl<T: DeserializeOwned + 'static> crate::Subscription<T> {
    /// The next received message, if one is waiting (never blocks).
    ///
    /// # Errors
    /// [`RosError::Receive`] when a sample cannot be taken or decoded.
    pub fn take(&self) -> Result<Option<T>, RosError> {
        match self.inner.take_bytes()? {
            Some(b) => (self.inner.decode)(b).map(Some),
            None => Ok(None),
        }
    }

    /// Waits for the next message.
    ///
    /// # Errors
    /// As [`Self::take`].
    pub async fn async_take(&self) -> Result<T, RosError> {
        loop {
            if let Some(m) = self.take()? {
                return Ok(m);
            }
            let l = self.inner.ent.event.listen();
            if let Some(m) = self.take()? {
                return Ok(m);
            }
            l.await;
        }
    }

    /// Every message as it arrives (an item per sample; a sample that
    /// cannot be read is an `Err` item, the stream goes on).
    pub fn async_stream(&self) -> impl FusedStream<Item = Result<T, RosError>> + '_ {
        futures::stream::unfold(self, |s| async move { Some((s.async_take().await, s)) }).fuse()
    }
}

/// A service server on C messages (see the module doc).
pub(crate) struct Server<S: RosService> {
    ent: Box<Entity>,
    ts: SrvTs,
    _s: PhantomData<fn() -> S>,
}

/// A service client on C messages, with the replies taken for other calls.
pub(crate) struct Client<S: RosService> {
    ent: Box<Entity>,
    ts: SrvTs,
    replies: Mutex<HashMap<i64, Vec<u8>>>,
    _s: PhantomData<fn() -> S>,
}

/// `rcl_service_init` or `rcl_client_init` of `S` on `name`, default QoS.
fn service_entity<S: RosService>(
    node: &NodeRef,
    name: &str,
    kind: Kind,
) -> Result<(Box<Entity>, SrvTs), RosError> {
    let ts = typesupport::service(S::PACKAGE, S::NAME)?;
    let n = c_name(name)?;
    let mut h = ffi::Handle {
        impl_: std::ptr::null_mut(),
    };
    // SAFETY: a zero-initialised handle, a live node, a valid service type support.
    let ret = unsafe {
        if kind == Kind::Service {
            let o = ffi::rcl_service_get_default_options();
            ffi::rcl_service_init(&mut h, node.ptr, ts.service, n.as_ptr(), &o)
        } else {
            let o = ffi::rcl_client_get_default_options();
            ffi::rcl_client_init(&mut h, node.ptr, ts.service, n.as_ptr(), &o)
        }
    };
    if ret != ffi::RET_OK {
        return Err(RosError::Dds(format!(
            "service {name}: {}",
            ffi::last_error()
        )));
    }
    Ok((Entity::new(h, kind, node.clone())?, ts))
}

impl<S: RosService> Server<S> {
    fn new(node: &NodeRef, name: &str) -> Result<Self, RosError> {
        let (ent, ts) = service_entity::<S>(node, name, Kind::Service)?;
        Ok(Self {
            ent,
            ts,
            _s: PhantomData,
        })
    }
}

impl<S: RosService> Client<S> {
    fn new(node: &NodeRef, name: &str) -> Result<Self, RosError> {
        let (ent, ts) = service_entity::<S>(node, name, Kind::Client)?;
        Ok(Self {
            ent,
            ts,
            replies: Mutex::new(HashMap::new()),
            _s: PhantomData,
        })
    }

    /// Takes every waiting reply into `replies`; true if any arrived.
    fn drain(&self) -> Result<bool, RosError> {
        let (ts, members) = self.ts.response;
        let h = self.ent.lock();
        let mut any = false;
        loop {
            let m = CMessage::new(members);
            let mut id = ffi::RmwRequestId {
                writer_guid: [0; 16],
                sequence_number: 0,
            };
            // SAFETY: a valid client and a message of its response type.
            match unsafe { ffi::rcl_take_response(&*h, &mut id, m.ptr()) } {
                ffi::RET_OK => {
                    let b = m.to_cdr(ts).map_err(|e| RosError::Call(e.to_string()))?;
                    self.replies
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id.sequence_number, b);
                    any = true;
                }
                ffi::RET_CLIENT_TAKE_FAILED => return Ok(any),
                _ => {
                    return Err(RosError::Call(format!(
                        "take response: {}",
                        ffi::last_error()
                    )))
                }
            }
        }
    }
}

impl<S: RosService> RosServer<S> {
    /// The next request, if one is waiting (never blocks).
    ///
    /// # Errors
    /// [`RosError::Receive`] when a request cannot be taken or decoded.
    pub fn receive_request(&self) -> Result<Option<(Id, S::Request)>, RosError> {
        let (ts, members) = self.inner.ts.request;
        let m = CMessage::new(members);
        let mut id = ffi::RmwRequestId {
            writer_guid: [0; 16],
            sequence_number: 0,
        };
        let ret = {
            let h = self.inner.ent.lock();
            // SAFETY: a valid service and a message of its request type.
            unsafe { ffi::rcl_take_request(&*h, &mut id, m.ptr()) }
        };
        match ret {
            ffi::RET_OK => {
                let b = m.to_cdr(ts)?;
                let req = breakbench_msgs::decode_serde(S::NAME, &b)
                    .map_err(|e| RosError::Receive(e.to_string()))?;
                Ok(Some((Id(id), req)))
            }
            ffi::RET_SERVICE_TAKE_FAILED => Ok(None),
            _ => Err(RosError::Receive(format!(
                "take request: {}",
                ffi::last_error()
            ))),
        }
    }

    async fn next_request(&self) -> Result<(Id, S::Request), RosError> {
        loop {
            if let Some(r) = self.receive_request()? {
                return Ok(r);
            }
            let l = self.inner.ent.event.listen();
            if let Some(r) = self.receive_request()? {
                return Ok(r);
            }
            l.await;
        }
    }

    /// Every request as it arrives (a request that cannot be read is an
    /// `Err` item, the stream goes on).
    pub fn receive_request_stream(
        &self,
    ) -> impl FusedStream<Item = Result<(Id, S::Request), RosError>> + '_ {
        futures::stream::unfold(self, |s| async move { Some((s.next_request().await, s)) }).fuse()
    }

    /// Replies `resp` to the request `id`.
    ///
    /// # Errors
    /// [`RosError::Send`] when the reply cannot be encoded or rcl refuses it.
    pub fn send_response(&self, id: Id, resp: S::Response) -> Result<(), RosError> {
        let (ts, members) = self.inner.ts.response;
        let b = breakbench_msgs::encode_serde(S::NAME, &resp)
            .map_err(|e| RosError::Send(e.to_string()))?;
        let m = CMessage::from_cdr(ts, members, &b)?;
        let mut rid = id.0;
        let h = self.inner.ent.lock();
        // SAFETY: a valid service, a request id it produced, a response message.
        let ret = unsafe { ffi::rcl_send_response(&*h, &mut rid, m.ptr()) };
        if ret != ffi::RET_OK {
            return Err(RosError::Send(format!(
                "send response: {}",
                ffi::last_error()
            )));
        }
        Ok(())
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
        let c = &self.inner;
        let (ts, members) = c.ts.request;
        let b = breakbench_msgs::encode_serde(S::NAME, &req)
            .map_err(|e| RosError::Call(e.to_string()))?;
        let m = CMessage::from_cdr(ts, members, &b).map_err(|e| RosError::Call(e.to_string()))?;
        let mut seq = 0i64;
        {
            let h = c.ent.lock();
            // SAFETY: a valid client and a message of its request type.
            if unsafe { ffi::rcl_send_request(&*h, m.ptr(), &mut seq) } != ffi::RET_OK {
                return Err(RosError::Call(format!(
                    "send request: {}",
                    ffi::last_error()
                )));
            }
        }
        drop(m);
        loop {
            let l = c.ent.event.listen();
            let got = c.drain()?;
            let mine = c
                .replies
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&seq);
            if let Some(b) = mine {
                if got {
                    // Other callers' replies may have been taken here.
                    c.ent.event.notify(usize::MAX);
                }
                return breakbench_msgs::decode_serde(S::NAME, &b)
                    .map_err(|e| RosError::Call(e.to_string()));
            }
            if got {
                c.ent.event.notify(usize::MAX);
            }
            l.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_maps_to_rmw() {
        let base = ffi::QosProfile {
            history: 0,
            depth: 0,
            reliability: 0,
            durability: 0,
            deadline: ffi::RmwTime { sec: 0, nsec: 0 },
            lifespan: ffi::RmwTime { sec: 0, nsec: 0 },
            liveliness: 0,
            liveliness_lease_duration: ffi::RmwTime { sec: 0, nsec: 0 },
            avoid_ros_namespace_conventions: false,
        };
        let p = profile(base, crate::qos::rosout());
        assert_eq!((p.history, p.depth), (ffi::HISTORY_KEEP_LAST, 1000));
        assert_eq!(p.reliability, ffi::RELIABILITY_RELIABLE);
        assert_eq!(p.durability, ffi::DURABILITY_TRANSIENT_LOCAL);
        let s = profile(base, crate::qos::subscribe(5));
        assert_eq!(
            (s.reliability, s.durability, s.depth),
            (ffi::RELIABILITY_BEST_EFFORT, ffi::DURABILITY_VOLATILE, 5)
        );
    }
}
