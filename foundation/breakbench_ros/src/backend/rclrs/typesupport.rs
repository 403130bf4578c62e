//! Type supports looked up at run time by type name, and C messages built
//! from CDR bytes (services).
//!
//! A message type `pkg/msg/Type` is `lib<pkg>__rosidl_typesupport_c.so`'s
//! `rosidl_typesupport_c__get_message_type_support_handle__<pkg>__msg__<Type>`,
//! a service `pkg/srv/Srv` its `..._get_service_type_support_handle__<pkg>__srv__<Srv>`
//! (found on `LD_LIBRARY_PATH`, as rcl and rclpy find them). Libraries stay
//! loaded for the life of the process.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

use super::ffi::{self, MessageMembers, MessageTypeSupport, ServiceTypeSupport, Uint8Array};
use crate::RosError;

/// A type support handle: a static object inside a loaded library.
#[derive(Clone, Copy)]
pub struct MsgTs(pub *const MessageTypeSupport);
// SAFETY: a pointer to an immutable static of a library that is never unloaded.
unsafe impl Send for MsgTs {}
// SAFETY: as above.
unsafe impl Sync for MsgTs {}

/// A service type support with its request and response message supports
/// and their C layouts.
#[derive(Clone, Copy)]
pub struct SrvTs {
    pub service: *const ServiceTypeSupport,
    pub request: (MsgTs, &'static MessageMembers),
    pub response: (MsgTs, &'static MessageMembers),
}
// SAFETY: pointers to immutable statics of libraries never unloaded.
unsafe impl Send for SrvTs {}
// SAFETY: as above.
unsafe impl Sync for SrvTs {}

fn libraries() -> &'static Mutex<HashMap<String, Arc<libloading::Library>>> {
    static L: OnceLock<Mutex<HashMap<String, Arc<libloading::Library>>>> = OnceLock::new();
    L.get_or_init(Default::default)
}

fn ts_error(ty: &str, message: String) -> RosError {
    RosError::Name {
        name: ty.to_string(),
        message,
    }
}

/// Calls `symbol()` of `lib<pkg>__rosidl_typesupport_c.so` (no arguments,
/// returns the handle).
fn handle(pkg: &str, symbol: &str, ty: &str) -> Result<*const c_void, RosError> {
    let file = format!("lib{pkg}__rosidl_typesupport_c.so");
    let lib = {
        let mut map = libraries().lock().unwrap_or_else(|p| p.into_inner());
        match map.get(&file) {
            Some(l) => l.clone(),
            None => {
                // SAFETY: loading a rosidl typesupport library runs no
                // initialisers beyond its C++ statics.
                let l = unsafe { libloading::Library::new(&file) }.map_err(|e| {
                    ts_error(
                        ty,
                        format!(
                            "no type support ({e}): is {pkg} in the prefix on LD_LIBRARY_PATH?"
                        ),
                    )
                })?;
                let l = Arc::new(l);
                map.insert(file.clone(), l.clone());
                l
            }
        }
    };
    // SAFETY: rosidl's handle getters take no arguments and return a pointer to a static.
    unsafe {
        let f: libloading::Symbol<unsafe extern "C" fn() -> *const c_void> = lib
            .get(symbol.as_bytes())
            .map_err(|e| ts_error(ty, format!("{file}: {e}")))?;
        Ok(f())
    }
}

/// `(package, kind, name)` of `pkg/msg/Type`, `pkg/Type` or `pkg/srv/Srv`.
pub fn split_type<'a>(type_name: &'a str, kind: &str) -> Result<(&'a str, &'a str), RosError> {
    let parts: Vec<&str> = type_name.split('/').collect();
    match parts.as_slice() {
        [p, k, t] if *k == kind && !p.is_empty() && !t.is_empty() => Ok((p, t)),
        [p, t] if !p.is_empty() && !t.is_empty() => Ok((p, t)),
        _ => Err(ts_error(
            type_name,
            format!("a type name is pkg/{kind}/Type"),
        )),
    }
}

/// The type support of the message type `pkg`/`name` (`msg` interface).
///
/// # Errors
/// [`RosError::Name`] when the library or the symbol is missing.
pub fn message(pkg: &str, name: &str) -> Result<MsgTs, RosError> {
    let sym = format!("rosidl_typesupport_c__get_message_type_support_handle__{pkg}__msg__{name}");
    Ok(MsgTs(
        handle(pkg, &sym, &format!("{pkg}/msg/{name}"))?.cast(),
    ))
}

/// The introspection members (C size, init, fini) of a message type support.
fn members(ts: MsgTs, ty: &str) -> Result<&'static MessageMembers, RosError> {
    // SAFETY: `ts` is a valid typesupport_c handle; its `func` dispatches to
    // the introspection library (loaded by rosidl_typesupport_c on demand).
    unsafe {
        let f = (*ts.0)
            .func
            .ok_or_else(|| ts_error(ty, "type support has no dispatch".into()))?;
        let intro = f(ts.0, c"rosidl_typesupport_introspection_c".as_ptr());
        if intro.is_null() || (*intro).data.is_null() {
            ffi::rcutils_reset_error();
            return Err(ts_error(ty, "no introspection type support".into()));
        }
        Ok(&*((*intro).data as *const MessageMembers))
    }
}

/// The type support of the service type `pkg`/`name` and of its request
/// and response messages.
///
/// # Errors
/// [`RosError::Name`] when a library, symbol or introspection is missing.
pub fn service(pkg: &str, name: &str) -> Result<SrvTs, RosError> {
    let ty = format!("{pkg}/srv/{name}");
    let sym = format!("rosidl_typesupport_c__get_service_type_support_handle__{pkg}__srv__{name}");
    let service: *const ServiceTypeSupport = handle(pkg, &sym, &ty)?.cast();
    let part = |suffix: &str, field: *const MessageTypeSupport| {
        let ts = if field.is_null() {
            let s = format!(
                "rosidl_typesupport_c__get_message_type_support_handle__{pkg}__srv__{name}_{suffix}"
            );
            MsgTs(handle(pkg, &s, &ty)?.cast())
        } else {
            MsgTs(field)
        };
        Ok::<_, RosError>((ts, members(ts, &ty)?))
    };
    // SAFETY: a valid service type support handle.
    let (req, resp) = unsafe {
        (
            (*service).request_typesupport,
            (*service).response_typesupport,
        )
    };
    Ok(SrvTs {
        service,
        request: part("Request", req)?,
        response: part("Response", resp)?,
    })
}

/// A C message of one type, initialised, finalised on drop.
pub struct CMessage {
    ptr: *mut c_void,
    layout: std::alloc::Layout,
    members: &'static MessageMembers,
}

impl CMessage {
    /// A default-initialised C message of `members`' type.
    pub fn new(members: &'static MessageMembers) -> Self {
        let layout = std::alloc::Layout::from_size_align(members.size_of.max(1), 16)
            .expect("a C struct's size");
        // SAFETY: a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<c_void>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        if let Some(init) = members.init_function {
            // SAFETY: `ptr` is zeroed storage of the struct's size.
            unsafe { init(ptr, ffi::MSG_INIT_ALL) };
        }
        Self {
            ptr,
            layout,
            members,
        }
    }

    /// The C struct.
    pub fn ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// The message's CDR bytes (4-byte encapsulation header + body).
    ///
    /// # Errors
    /// [`RosError::Receive`] when rmw cannot serialize it.
    pub fn to_cdr(&self, ts: MsgTs) -> Result<Vec<u8>, RosError> {
        let mut a = ffi::empty_array();
        // SAFETY: a valid message of `ts`' type; `a` is an owned, empty array.
        unsafe {
            let ret = ffi::rmw_serialize(self.ptr, ts.0, &mut a);
            let out = if ret == ffi::RET_OK && !a.buffer.is_null() {
                Ok(std::slice::from_raw_parts(a.buffer, a.buffer_length).to_vec())
            } else {
                Err(RosError::Receive(format!(
                    "rmw_serialize: {}",
                    ffi::last_error()
                )))
            };
            ffi::rcutils_uint8_array_fini(&mut a);
            out
        }
    }

    /// A C message of `members`' type holding `cdr` (header + body).
    ///
    /// # Errors
    /// [`RosError::Send`] when rmw cannot deserialize the bytes.
    pub fn from_cdr(
        ts: MsgTs,
        members: &'static MessageMembers,
        cdr: &[u8],
    ) -> Result<Self, RosError> {
        let m = Self::new(members);
        let a = Uint8Array {
            buffer: cdr.as_ptr().cast_mut(),
            buffer_length: cdr.len(),
            buffer_capacity: cdr.len(),
            allocator: ffi::empty_array().allocator,
        };
        // SAFETY: `a` borrows `cdr` read-only for the call; `m` is a valid message.
        let ret = unsafe { ffi::rmw_deserialize(&a, ts.0, m.ptr) };
        if ret != ffi::RET_OK {
            return Err(RosError::Send(format!(
                "rmw_deserialize: {}",
                ffi::last_error()
            )));
        }
        Ok(m)
    }
}

impl Drop for CMessage {
    fn drop(&mut self) {
        // SAFETY: initialised by `new`, finalised and freed once.
        unsafe {
            if let Some(fini) = self.members.fini_function {
                fini(self.ptr);
            }
            std::alloc::dealloc(self.ptr.cast(), self.layout);
        }
    }
}
