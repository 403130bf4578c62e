//! The nodes' `tracing` lines on `/rosout` through rcl logging (the rclrs
//! backend only): [`RosoutLayer`] hands every event that passes the node's
//! `RUST_LOG` filter to `rcutils_log` under the node's logger name, and the
//! output handler installed by [`install`] sends exactly those to rcl's
//! `/rosout` handler only (the console line is `tracing`'s own, so nothing
//! is printed twice); every other rcutils log call (rcl's, rclrs') goes to
//! the handler that was there before (console, log file, `/rosout`).
//!
//! Opt-in with `BREAKBENCH_RCL_ROSOUT=1` ([`ENABLE_VAR`]): the nodes that
//! report on `/rosout` (simple_navigator, ekf_node) publish their own
//! `rcl_interfaces/Log` lines, identical on both backends; forwarding every
//! `tracing` line as well adds lines under their logger names and repeats
//! their reports (measured: interop phase 9's "a healthy run logs nothing"
//! and its single WARN failed with it on). Moving those reports onto this
//! path, one mechanism for `/rosout`, is a later step of issue 27.

use std::ffi::{c_char, c_void, CString};
use std::sync::{Mutex, OnceLock};

/// `rcutils_log_location_t`.
#[repr(C)]
struct Location {
    function_name: *const c_char,
    file_name: *const c_char,
    line_number: usize,
}

/// The location our forwarded lines carry: the handler recognises them by
/// this address.
struct Loc(Location);
// SAFETY: pointers to static C strings.
unsafe impl Sync for Loc {}
static LOC: Loc = Loc(Location {
    function_name: c"tracing".as_ptr(),
    file_name: c"breakbench_ros".as_ptr(),
    line_number: 0,
});

type Handler =
    unsafe extern "C" fn(*const Location, i32, *const c_char, i64, *const c_char, *mut c_void);

unsafe extern "C" {
    fn rcutils_logging_get_output_handler() -> Option<Handler>;
    fn rcutils_logging_set_output_handler(h: Option<Handler>);
    fn rcl_logging_rosout_output_handler(
        location: *const Location,
        severity: i32,
        name: *const c_char,
        timestamp: i64,
        format: *const c_char,
        args: *mut c_void,
    );
    fn rcutils_log(
        location: *const Location,
        severity: i32,
        name: *const c_char,
        format: *const c_char,
        ...
    );
}

/// The environment variable that turns the forwarding on (value `1`).
pub(crate) const ENABLE_VAR: &str = "BREAKBENCH_RCL_ROSOUT";

/// The node's logger name (rclrs' `Logger::name`, e.g. `fault_injector`).
static LOGGER: OnceLock<CString> = OnceLock::new();
/// The handler before ours, as an address.
static PREVIOUS: OnceLock<usize> = OnceLock::new();
/// rcutils logging is not thread-safe (rclcpp serialises it the same way).
static LOG_LOCK: Mutex<()> = Mutex::new(());

unsafe extern "C" fn handler(
    location: *const Location,
    severity: i32,
    name: *const c_char,
    timestamp: i64,
    format: *const c_char,
    args: *mut c_void,
) {
    // SAFETY: rcutils' arguments, passed on unchanged (the va_list by pointer).
    unsafe {
        if std::ptr::eq(location, &LOC.0) {
            rcl_logging_rosout_output_handler(location, severity, name, timestamp, format, args);
        } else if let Some(&prev) = PREVIOUS.get() {
            if prev != 0 {
                let prev: Handler = std::mem::transmute::<usize, Handler>(prev);
                prev(location, severity, name, timestamp, format, args);
            }
        }
    }
}

/// Sends the `tracing` lines to `/rosout` as `logger` from now on (the
/// first node of the process wins). Call after rcl logging is configured
/// (after the rclrs context exists) and after the node's rosout publisher
/// is made.
pub(crate) fn install(logger: &str) {
    let Ok(name) = CString::new(logger) else {
        return;
    };
    if LOGGER.set(name).is_err() {
        return;
    }
    let _g = LOG_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: reading and replacing rcutils' global handler under our lock.
    unsafe {
        let prev = rcutils_logging_get_output_handler().map_or(0, |h| h as usize);
        let _ = PREVIOUS.set(prev);
        rcutils_logging_set_output_handler(Some(handler));
    }
}

/// The `tracing` layer that forwards to rcl (see the module doc).
pub struct RosoutLayer;

/// The event's message and fields, as the console line shows them.
struct Text(String);

impl tracing::field::Visit for Text {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write;
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for RosoutLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let Some(logger) = LOGGER.get() else {
            return;
        };
        let severity = match *event.metadata().level() {
            tracing::Level::ERROR => 40,
            tracing::Level::WARN => 30,
            tracing::Level::INFO => 20,
            _ => 10,
        };
        let mut t = Text(String::new());
        event.record(&mut t);
        let Ok(msg) = CString::new(t.0.replace('\0', " ")) else {
            return;
        };
        let _g = LOG_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: a "%s" format with one NUL-terminated string argument.
        unsafe {
            rcutils_log(
                &LOC.0,
                severity,
                logger.as_ptr(),
                c"%s".as_ptr(),
                msg.as_ptr(),
            )
        };
    }
}
