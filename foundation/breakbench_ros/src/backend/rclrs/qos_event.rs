//! Incompatible-QoS events of the rclrs backend (REQ-FAULT-QOS): a remote
//! subscription that requests more than one of our outputs offers (a
//! reliable reader of a best-effort output, a transient-local reader of a
//! volatile one), or a remote publisher that offers less than one of our
//! inputs requests, never matches it. rmw tells each side through an
//! "incompatible QoS" event (`RCL_PUBLISHER_OFFERED_INCOMPATIBLE_QOS`,
//! `RCL_SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS`), which rclrs 0.8 does not
//! expose: [`Watch`] makes the event on our own rcl handle
//! (`rcl_publisher_event_init` / `rcl_subscription_event_init`) and logs a
//! WARN naming the topic and the policy, once per (topic, side, policy) for
//! the life of the process (the event fires again for every new
//! mismatched peer; rclcpp logs each, we say it once).
//!
//! rmw calls the event's callback (`rcl_event_set_callback`) from its own
//! listener thread while holding the event's lock, so the event cannot be
//! taken there (`rcl_take_event` takes the same lock): the callback only
//! sends the watch's id to one thread per process (`qos-events`, started
//! with the first watch), which takes the event (`rcl_take_event`, an
//! `rmw_qos_incompatible_event_status_t`) and logs. A watch is removed from
//! the registry (under its lock, so never while that thread takes it) and
//! finalised before its publisher or subscription is.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_void;
use std::sync::{mpsc, Mutex, OnceLock};

use super::ffi;

/// Which of our entities an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Side {
    /// Our publisher (an output); a remote subscription requests more.
    Output,
    /// Our subscription (an input); a remote publisher offers less.
    Input,
}

struct Registered {
    event: ffi::Event,
    topic: String,
    side: Side,
}
// SAFETY: the rcl event is used only under the registry's lock.
unsafe impl Send for Registered {}

/// The events being watched, by id.
static REGISTRY: Mutex<BTreeMap<u64, Registered>> = Mutex::new(BTreeMap::new());
/// The `qos-events` thread's inbox (the ids whose event fired).
static INBOX: OnceLock<Mutex<mpsc::Sender<u64>>> = OnceLock::new();
/// The (topic, side, policy) already logged.
static SAID: Mutex<BTreeSet<(String, Side, &'static str)>> = Mutex::new(BTreeSet::new());
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The name ROS 2 tools give `rmw_qos_policy_kind_t` (as rclcpp's
/// `qos_policy_name_from_kind`, upper case); `"UNKNOWN"` for any other value.
pub(super) fn policy_name(kind: u32) -> &'static str {
    match kind {
        2 => "DURABILITY",
        4 => "DEADLINE",
        8 => "LIVELINESS",
        16 => "RELIABILITY",
        32 => "HISTORY",
        64 => "LIFESPAN",
        128 => "DEPTH",
        256 => "LIVELINESS_LEASE_DURATION",
        512 => "AVOID_ROS_NAMESPACE_CONVENTIONS",
        _ => "UNKNOWN",
    }
}

/// The WARN line for an incompatible peer on `topic` (REQ-FAULT-QOS).
pub(super) fn message(topic: &str, side: Side, policy: &str) -> String {
    match side {
        Side::Output => format!(
            "topic {topic}: a subscription requests a QoS this output does not offer \
             (incompatible QoS policy {policy}); it receives nothing from this node"
        ),
        Side::Input => format!(
            "topic {topic}: a publisher offers a QoS this input does not accept \
             (incompatible QoS policy {policy}); nothing it publishes is received"
        ),
    }
}

/// Whether (topic, side, policy) is said for the first time (then remembered).
fn first_time(topic: &str, side: Side, policy: &'static str) -> bool {
    lock(&SAID).insert((topic.to_string(), side, policy))
}

unsafe extern "C" fn on_event(user_data: *const c_void, _n: usize) {
    if let Some(tx) = INBOX.get() {
        let _ = lock(tx).send(user_data as usize as u64);
    }
}

/// Takes the event of watch `id` (if still registered) and logs it once.
fn take_and_log(id: u64) {
    let reg = lock(&REGISTRY);
    let Some(r) = reg.get(&id) else { return };
    let mut st = ffi::QosIncompatibleStatus {
        total_count: 0,
        total_count_change: 0,
        last_policy_kind: 0,
    };
    // SAFETY: a live event (finalised only after removal under this lock)
    // and the status struct its type reports.
    let ret = unsafe {
        ffi::rcl_take_event(
            &r.event,
            (&mut st as *mut ffi::QosIncompatibleStatus).cast(),
        )
    };
    if ret != ffi::RET_OK {
        tracing::debug!("rcl_take_event on {}: {}", r.topic, ffi::last_error());
        return;
    }
    if st.total_count_change > 0 {
        let policy = policy_name(st.last_policy_kind);
        if first_time(&r.topic, r.side, policy) {
            tracing::warn!(target: "breakbench_ros::qos", "{}", message(&r.topic, r.side, policy));
        }
    }
}

fn inbox() -> &'static Mutex<mpsc::Sender<u64>> {
    INBOX.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<u64>();
        let spawned = std::thread::Builder::new()
            .name("qos-events".into())
            .spawn(move || {
                for id in rx {
                    take_and_log(id);
                }
            });
        if let Err(e) = spawned {
            tracing::debug!("qos-events thread: {e}");
        }
        Mutex::new(tx)
    })
}

/// The incompatible-QoS event of one of our publishers or subscriptions,
/// logged as described in the module doc. Drop it before its entity.
pub(super) struct Watch {
    id: u64,
}

impl Watch {
    /// Watches `handle` (a publisher for [`Side::Output`], a subscription
    /// for [`Side::Input`]) on `topic` (the resolved name, for the log).
    /// `None` (said at DEBUG) when the RMW has no such event.
    pub(super) fn new(handle: &ffi::Handle, side: Side, topic: &str) -> Option<Self> {
        let mut event = ffi::Event {
            impl_: std::ptr::null_mut(),
        };
        // SAFETY: a zero-initialised event on a valid entity of the named kind.
        let ret = unsafe {
            match side {
                Side::Output => ffi::rcl_publisher_event_init(
                    &mut event,
                    handle,
                    ffi::PUBLISHER_OFFERED_INCOMPATIBLE_QOS,
                ),
                Side::Input => ffi::rcl_subscription_event_init(
                    &mut event,
                    handle,
                    ffi::SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS,
                ),
            }
        };
        if ret != ffi::RET_OK {
            tracing::debug!("incompatible-QoS event on {topic}: {}", ffi::last_error());
            return None;
        }
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        inbox();
        let topic = topic.to_string();
        lock(&REGISTRY).insert(id, Registered { event, topic, side });
        // SAFETY: a copy of the registered event (rcl reads only its `impl`
        // pointer, valid until `drop`, which clears the callback first); the
        // user data is the id, not an address.
        let ret = unsafe {
            ffi::rcl_event_set_callback(&event, Some(on_event), id as usize as *const c_void)
        };
        if ret != ffi::RET_OK {
            tracing::debug!("incompatible-QoS event callback: {}", ffi::last_error());
        }
        Some(Self { id })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let Some(ev) = lock(&REGISTRY).get(&self.id).map(|r| r.event) else {
            return;
        };
        // SAFETY: the event is still registered (only this drop removes it);
        // clearing the callback waits for a running one (rmw's event lock),
        // and is done without holding the registry's lock (the qos-events
        // thread holds it while it takes the event under rmw's lock).
        unsafe { ffi::rcl_event_set_callback(&ev, None, std::ptr::null()) };
        if let Some(mut r) = lock(&REGISTRY).remove(&self.id) {
            // SAFETY: removed under the lock, so no take is running; finalised once.
            if unsafe { ffi::rcl_event_fini(&mut r.event) } != ffi::RET_OK {
                tracing::debug!("rcl_event_fini: {}", ffi::last_error());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_are_named_as_ros_2_tools_name_them() {
        assert_eq!(policy_name(16), "RELIABILITY");
        assert_eq!(policy_name(2), "DURABILITY");
        assert_eq!(policy_name(128), "DEPTH");
        assert_eq!(policy_name(3), "UNKNOWN");
    }

    #[test]
    fn the_line_names_topic_and_policy_and_is_said_once() {
        let m = message("/sonar_be", Side::Output, "RELIABILITY");
        assert!(
            m.starts_with("topic /sonar_be: a subscription requests"),
            "{m}"
        );
        assert!(m.contains("incompatible QoS policy RELIABILITY"), "{m}");
        let m = message("/sonar_be_raw", Side::Input, "DURABILITY");
        assert!(
            m.contains("a publisher offers") && m.contains("policy DURABILITY"),
            "{m}"
        );
        assert!(first_time("/t_once", Side::Input, "RELIABILITY"));
        assert!(!first_time("/t_once", Side::Input, "RELIABILITY"));
        assert!(first_time("/t_once", Side::Output, "RELIABILITY"));
        assert!(first_time("/t_once", Side::Input, "DURABILITY"));
    }
}
