//! The node's teardown phase, and the one rustdds error it makes harmless.
//!
//! rustdds 0.15 removes a dropped reader or writer by sending its GUID to the
//! participant's event loop over a channel of 4 entries, giving up after
//! 20 ms with `ERROR Cannot remove Reader {guid} : TrySendError::Full(..)` (or `Writer`).
//! A node that drops many endpoints at once when it stops (the EKF node and
//! the plant have a dozen) fills that channel, and under load the event loop
//! does not drain it in time. Once a node is tearing down, this loss is
//! harmless: the participant is deleted right after, and its deletion removes
//! every endpoint it still has from every peer (DDSI-RTPS 2.5 §8.5.3, SPDP
//! participant removal). So, once [`begin`] was called (by
//! [`crate::Shutdown::request`], a SIGINT/SIGTERM, or the drop of a
//! [`crate::RosNode`]), exactly that event is dropped and counted
//! ([`dropped`]). The same error while the node runs still prints, and so
//! does the `TrySendError::Disconnected(..)` variant (a participant gone too early).
//! REQ-LOG-HEALTHY-QUIET.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static TEARING_DOWN: AtomicBool = AtomicBool::new(false);
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Marks the process as tearing down (idempotent, never undone).
pub fn begin() {
    TEARING_DOWN.store(true, Ordering::Release);
}

/// True once [`begin`] was called.
pub fn is_tearing_down() -> bool {
    TEARING_DOWN.load(Ordering::Acquire)
}

/// How many teardown removal errors were dropped so far.
pub fn dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

/// True for rustdds' `Cannot remove Reader/Writer <guid> : TrySendError::Full(..)`.
pub(crate) fn is_removal_full(message: &str) -> bool {
    (message.starts_with("Cannot remove Reader ") || message.starts_with("Cannot remove Writer "))
        && message.ends_with(" : TrySendError::Full(..)")
}

/// Decides one ERROR event: false (drop it, counted) for a
/// removal-channel-full error during teardown, true otherwise. (rustdds logs
/// through `log`; bridged events carry the target `log`, so the text alone,
/// which only rustdds writes, identifies it.)
pub(crate) fn keep(message: &str) -> bool {
    if is_tearing_down() && is_removal_full(message) {
        DROPPED.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_full_removal_error_during_teardown_is_dropped() {
        let full = "Cannot remove Reader GUID {0112d4ff6c80164a596b6553 EntityId {[0, 0, 18] Reader}} : TrySendError::Full(..)";
        let writer =
            "Cannot remove Writer GUID {01 EntityId {[0, 0, 3] Writer}} : TrySendError::Full(..)";
        let gone = "Cannot remove Reader GUID {01 EntityId {[0, 0, 18] Reader}} : TrySendError::Disconnected(..)";
        assert!(is_removal_full(full) && is_removal_full(writer));
        assert!(!is_removal_full(gone));
        // Tests share the process-wide flag: check the running state first.
        if !is_tearing_down() {
            assert!(keep(full), "running: printed");
        }
        begin();
        let before = dropped();
        assert!(!keep(full));
        assert!(!keep(writer));
        assert_eq!(dropped(), before + 2);
        assert!(keep(gone), "Disconnected still printed");
    }
}
