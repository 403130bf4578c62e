//! The small FFI of our own to rcl, rmw and rcutils (Jazzy ABI, the layouts
//! of rclrs 0.8's `rcl_bindings_generated_jazzy.rs`): serialized
//! publish/take, services and clients on C messages, graph queries,
//! incompatible-QoS events, and the
//! `rcl_node_init` hook that hands us the node rclrs creates.
//!
//! rclrs 0.8 keeps its `rcl_node_t` private (`NodeHandle` is `pub(crate)`)
//! and has no serialized publish/take in its public API. Every entity here
//! is created on rclrs' own node: [`rcl_node_init`] below is linked in
//! front of librcl's (the executable's definition wins over the shared
//! library's), forwards to librcl's through `dlsym(RTLD_NEXT)` and records
//! the node's address for [`take_last_node`]. rclrs initialises the node in
//! place inside its `Arc<NodeHandle>`, so the address stays valid for as
//! long as the rclrs `Node` lives.
//!
//! The symbols are in the prefix's librcl/librmw/librcutils, which rclrs'
//! build script already links.

#![allow(non_camel_case_types)]

use std::cell::Cell;
use std::ffi::{c_char, c_void};

/// `rcl_ret_t` / `rmw_ret_t`.
pub type Ret = i32;
pub const RET_OK: Ret = 0;
pub const RET_SUBSCRIPTION_TAKE_FAILED: Ret = 401;
pub const RET_CLIENT_TAKE_FAILED: Ret = 501;
pub const RET_SERVICE_TAKE_FAILED: Ret = 601;

/// `rmw_time_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RmwTime {
    pub sec: u64,
    pub nsec: u64,
}

/// `rmw_qos_profile_t` (enums are C `int`s).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct QosProfile {
    pub history: u32,
    pub depth: usize,
    pub reliability: u32,
    pub durability: u32,
    pub deadline: RmwTime,
    pub lifespan: RmwTime,
    pub liveliness: u32,
    pub liveliness_lease_duration: RmwTime,
    pub avoid_ros_namespace_conventions: bool,
}
pub const HISTORY_KEEP_LAST: u32 = 1;
pub const RELIABILITY_RELIABLE: u32 = 1;
pub const RELIABILITY_BEST_EFFORT: u32 = 2;
pub const DURABILITY_TRANSIENT_LOCAL: u32 = 1;
pub const DURABILITY_VOLATILE: u32 = 2;

/// `rcutils_allocator_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Allocator {
    pub allocate: *const c_void,
    pub deallocate: *const c_void,
    pub reallocate: *const c_void,
    pub zero_allocate: *const c_void,
    pub state: *mut c_void,
}

/// `rcl_publisher_options_t`.
#[repr(C)]
pub struct PublisherOptions {
    pub qos: QosProfile,
    pub allocator: Allocator,
    pub rmw_publisher_options: RmwPublisherOptions,
    pub disable_loaned_message: bool,
}

/// `rmw_publisher_options_t`.
#[repr(C)]
pub struct RmwPublisherOptions {
    pub rmw_specific_publisher_payload: *mut c_void,
    pub require_unique_network_flow_endpoints: u32,
}

/// `rcl_subscription_options_t`.
#[repr(C)]
pub struct SubscriptionOptions {
    pub qos: QosProfile,
    pub allocator: Allocator,
    pub rmw_subscription_options: RmwSubscriptionOptions,
    pub disable_loaned_message: bool,
}

/// `rmw_subscription_options_t`.
#[repr(C)]
pub struct RmwSubscriptionOptions {
    pub rmw_specific_subscription_payload: *mut c_void,
    pub ignore_local_publications: bool,
    pub require_unique_network_flow_endpoints: u32,
    pub content_filter_options: *mut c_void,
}

/// `rcl_service_options_t` and `rcl_client_options_t`.
#[repr(C)]
pub struct ServiceOptions {
    pub qos: QosProfile,
    pub allocator: Allocator,
}

/// `rcl_{publisher,subscription,service,client}_t`: one pointer each.
#[repr(C)]
pub struct Handle {
    pub impl_: *mut c_void,
}

/// `rcl_event_t`: one pointer (rcl reads only it, so a copy may be passed).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Event {
    pub impl_: *mut c_void,
}
/// `RCL_PUBLISHER_OFFERED_INCOMPATIBLE_QOS` (`rcl_publisher_event_type_t`).
pub const PUBLISHER_OFFERED_INCOMPATIBLE_QOS: u32 = 2;
/// `RCL_SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS` (`rcl_subscription_event_type_t`).
pub const SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS: u32 = 2;

/// `rmw_qos_incompatible_event_status_t` (`last_policy_kind`: an
/// `rmw_qos_policy_kind_t`, a bit: 2 durability, 16 reliability, ...).
#[repr(C)]
pub struct QosIncompatibleStatus {
    pub total_count: i32,
    pub total_count_change: i32,
    pub last_policy_kind: u32,
}

/// `rcl_node_t`.
#[repr(C)]
pub struct RclNode {
    pub context: *mut c_void,
    pub impl_: *mut c_void,
}

/// `rcutils_uint8_array_t` = `rmw_serialized_message_t`.
#[repr(C)]
pub struct Uint8Array {
    pub buffer: *mut u8,
    pub buffer_length: usize,
    pub buffer_capacity: usize,
    pub allocator: Allocator,
}

/// `rmw_request_id_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RmwRequestId {
    pub writer_guid: [u8; 16],
    pub sequence_number: i64,
}

/// `rcutils_string_array_t`.
#[repr(C)]
pub struct StringArray {
    pub size: usize,
    pub data: *mut *mut c_char,
    pub allocator: Allocator,
}

/// `rmw_names_and_types_t`.
#[repr(C)]
pub struct NamesAndTypes {
    pub names: StringArray,
    pub types: *mut StringArray,
}

/// `rosidl_message_type_support_t` (Jazzy: with the type-description hooks).
#[repr(C)]
pub struct MessageTypeSupport {
    pub typesupport_identifier: *const c_char,
    pub data: *const c_void,
    pub func: Option<
        unsafe extern "C" fn(*const MessageTypeSupport, *const c_char) -> *const MessageTypeSupport,
    >,
    pub get_type_hash_func: *const c_void,
    pub get_type_description_func: *const c_void,
    pub get_type_description_sources_func: *const c_void,
}

/// `rosidl_service_type_support_t` (Jazzy), the fields read here.
#[repr(C)]
pub struct ServiceTypeSupport {
    pub typesupport_identifier: *const c_char,
    pub data: *const c_void,
    pub func: *const c_void,
    pub request_typesupport: *const MessageTypeSupport,
    pub response_typesupport: *const MessageTypeSupport,
}

/// `rosidl_typesupport_introspection_c__MessageMembers` (Jazzy), the fields
/// read here: the C struct's size and its init/fini functions.
#[repr(C)]
pub struct MessageMembers {
    pub message_namespace: *const c_char,
    pub message_name: *const c_char,
    pub member_count: u32,
    pub size_of: usize,
    pub has_any_key_member: bool,
    pub members: *const c_void,
    pub init_function: Option<unsafe extern "C" fn(*mut c_void, u32)>,
    pub fini_function: Option<unsafe extern "C" fn(*mut c_void)>,
}
/// `ROSIDL_RUNTIME_C_MSG_INIT_ALL`.
pub const MSG_INIT_ALL: u32 = 0;

/// `rcl_event_callback_t`.
pub type EventCallback = Option<unsafe extern "C" fn(user_data: *const c_void, n: usize)>;

unsafe extern "C" {
    pub fn rcutils_get_default_allocator() -> Allocator;
    pub fn rcutils_get_error_string() -> ErrorString;
    pub fn rcutils_reset_error();
    pub fn rcutils_uint8_array_fini(a: *mut Uint8Array) -> Ret;

    pub fn rcl_publisher_get_default_options() -> PublisherOptions;
    pub fn rcl_publisher_init(
        p: *mut Handle,
        node: *const RclNode,
        ts: *const MessageTypeSupport,
        topic: *const c_char,
        o: *const PublisherOptions,
    ) -> Ret;
    pub fn rcl_publisher_fini(p: *mut Handle, node: *mut RclNode) -> Ret;
    pub fn rcl_publish_serialized_message(
        p: *const Handle,
        m: *const Uint8Array,
        allocation: *mut c_void,
    ) -> Ret;
    pub fn rcl_publisher_get_subscription_count(p: *const Handle, n: *mut usize) -> Ret;

    pub fn rcl_subscription_get_default_options() -> SubscriptionOptions;
    pub fn rcl_subscription_init(
        s: *mut Handle,
        node: *const RclNode,
        ts: *const MessageTypeSupport,
        topic: *const c_char,
        o: *const SubscriptionOptions,
    ) -> Ret;
    pub fn rcl_subscription_fini(s: *mut Handle, node: *mut RclNode) -> Ret;
    pub fn rcl_take_serialized_message(
        s: *const Handle,
        m: *mut Uint8Array,
        info: *mut c_void,
        allocation: *mut c_void,
    ) -> Ret;
    pub fn rcl_subscription_get_publisher_count(s: *const Handle, n: *mut usize) -> Ret;
    pub fn rcl_subscription_set_on_new_message_callback(
        s: *const Handle,
        cb: EventCallback,
        user_data: *const c_void,
    ) -> Ret;

    pub fn rcl_service_get_default_options() -> ServiceOptions;
    pub fn rcl_service_init(
        s: *mut Handle,
        node: *const RclNode,
        ts: *const ServiceTypeSupport,
        name: *const c_char,
        o: *const ServiceOptions,
    ) -> Ret;
    pub fn rcl_service_fini(s: *mut Handle, node: *mut RclNode) -> Ret;
    pub fn rcl_take_request(s: *const Handle, id: *mut RmwRequestId, req: *mut c_void) -> Ret;
    pub fn rcl_send_response(s: *const Handle, id: *mut RmwRequestId, resp: *mut c_void) -> Ret;
    pub fn rcl_service_set_on_new_request_callback(
        s: *const Handle,
        cb: EventCallback,
        user_data: *const c_void,
    ) -> Ret;

    pub fn rcl_client_get_default_options() -> ServiceOptions;
    pub fn rcl_client_init(
        c: *mut Handle,
        node: *const RclNode,
        ts: *const ServiceTypeSupport,
        name: *const c_char,
        o: *const ServiceOptions,
    ) -> Ret;
    pub fn rcl_client_fini(c: *mut Handle, node: *mut RclNode) -> Ret;
    pub fn rcl_send_request(c: *const Handle, req: *const c_void, seq: *mut i64) -> Ret;
    pub fn rcl_take_response(c: *const Handle, id: *mut RmwRequestId, resp: *mut c_void) -> Ret;
    pub fn rcl_client_set_on_new_response_callback(
        c: *const Handle,
        cb: EventCallback,
        user_data: *const c_void,
    ) -> Ret;
    pub fn rcl_service_server_is_available(
        node: *const RclNode,
        c: *const Handle,
        available: *mut bool,
    ) -> Ret;

    pub fn rcl_publisher_event_init(e: *mut Event, p: *const Handle, kind: u32) -> Ret;
    pub fn rcl_subscription_event_init(e: *mut Event, s: *const Handle, kind: u32) -> Ret;
    pub fn rcl_event_set_callback(
        e: *const Event,
        cb: EventCallback,
        user_data: *const c_void,
    ) -> Ret;
    pub fn rcl_take_event(e: *const Event, info: *mut c_void) -> Ret;
    pub fn rcl_event_fini(e: *mut Event) -> Ret;

    pub fn rcl_count_publishers(node: *const RclNode, topic: *const c_char, n: *mut usize) -> Ret;
    pub fn rcl_get_topic_names_and_types(
        node: *const RclNode,
        allocator: *mut Allocator,
        no_demangle: bool,
        out: *mut NamesAndTypes,
    ) -> Ret;
    pub fn rmw_names_and_types_fini(nt: *mut NamesAndTypes) -> Ret;

    pub fn rmw_serialize(
        msg: *const c_void,
        ts: *const MessageTypeSupport,
        out: *mut Uint8Array,
    ) -> Ret;
    pub fn rmw_deserialize(
        inp: *const Uint8Array,
        ts: *const MessageTypeSupport,
        msg: *mut c_void,
    ) -> Ret;
}

#[cfg(breakbench_link_python)]
unsafe extern "C" {
    /// libpython's; only its address is taken (see `build.rs`).
    pub fn Py_IsInitialized() -> i32;
}

/// `rcutils_error_string_t`.
#[repr(C)]
pub struct ErrorString {
    pub str_: [c_char; 1024],
}

/// rcl's current error text (then reset), for an error message.
pub fn last_error() -> String {
    // SAFETY: both are thread-local reads/writes of rcutils' error state.
    unsafe {
        let e = rcutils_get_error_string();
        rcutils_reset_error();
        std::ffi::CStr::from_ptr(e.str_.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}

/// An empty serialized message using rcutils' default allocator (rmw
/// grows it as needed); free it with [`rcutils_uint8_array_fini`].
pub fn empty_array() -> Uint8Array {
    Uint8Array {
        buffer: std::ptr::null_mut(),
        buffer_length: 0,
        buffer_capacity: 0,
        // SAFETY: no preconditions.
        allocator: unsafe { rcutils_get_default_allocator() },
    }
}

thread_local! {
    /// The node the last successful `rcl_node_init` on this thread made.
    static LAST_NODE: Cell<*mut RclNode> = const { Cell::new(std::ptr::null_mut()) };
}

/// The `rcl_node_t` the last `rcl_node_init` on this thread initialised
/// (rclrs' node, when called right after `Executor::create_node`), reset to null.
pub fn take_last_node() -> *mut RclNode {
    LAST_NODE.with(|c| c.replace(std::ptr::null_mut()))
}

type NodeInit = unsafe extern "C" fn(
    *mut RclNode,
    *const c_char,
    *const c_char,
    *mut c_void,
    *const c_void,
) -> Ret;

/// Linked in front of librcl's `rcl_node_init` (see the module doc):
/// forwards every call to it unchanged and records the node on success.
///
/// # Safety
/// As librcl's `rcl_node_init`.
#[no_mangle]
pub unsafe extern "C" fn rcl_node_init(
    node: *mut RclNode,
    name: *const c_char,
    namespace: *const c_char,
    context: *mut c_void,
    options: *const c_void,
) -> Ret {
    static REAL: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let real = *REAL.get_or_init(|| {
        // SAFETY: a symbol lookup with a NUL-terminated name.
        unsafe { libc::dlsym(libc::RTLD_NEXT, c"rcl_node_init".as_ptr()) as usize }
    });
    if real == 0 {
        return 1; // RCL_RET_ERROR: librcl is not loaded
    }
    // SAFETY: `real` is librcl's rcl_node_init, whose signature this is.
    let f: NodeInit = unsafe { std::mem::transmute::<usize, NodeInit>(real) };
    // SAFETY: the caller's arguments, unchanged.
    let ret = unsafe { f(node, name, namespace, context, options) };
    if ret == RET_OK {
        LAST_NODE.with(|c| c.set(node));
    }
    ret
}
