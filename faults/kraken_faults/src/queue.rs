//! The hold queue of a channel: messages held until their release time.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::SensorMsg;

type QueueKey = (Duration, u64);
type QueueItem = (Duration, SensorMsg);

/// Estimated bytes one held message costs: [`SensorMsg::estimated_bytes`]
/// plus its key and receive time in the map (the B-tree's node overhead,
/// about 1/11 of a node per entry, is not counted).
pub fn held_bytes(msg: &SensorMsg) -> u64 {
    (msg.estimated_bytes() + std::mem::size_of::<QueueKey>() + std::mem::size_of::<Duration>())
        as u64
}

/// Messages held until their release time, released in (time, arrival) order.
///
/// Memory: a B-tree of owned messages; released or dropped messages free
/// their buffers and emptied nodes at once, so memory follows what is held
/// (no high-water allocation is kept). [`DelayQueue::bytes`] tracks the
/// estimate [`held_bytes`] of what is held.
#[derive(Default)]
pub struct DelayQueue {
    items: BTreeMap<QueueKey, QueueItem>,
    seq: u64,
    bytes: u64,
}

impl DelayQueue {
    /// Holds `msg`, received at `received`, until `release`.
    pub fn push(&mut self, release: Duration, received: Duration, msg: SensorMsg) {
        self.bytes += held_bytes(&msg);
        self.items.insert((release, self.seq), (received, msg));
        self.seq += 1;
    }
    /// Estimated bytes held ([`held_bytes`] summed).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Drops held messages, the one due first each time, until at most
    /// `max_messages` messages and `max_bytes` bytes are held (the newest
    /// message always stays, even if alone it exceeds `max_bytes`). Returns
    /// how many were dropped.
    pub fn enforce(&mut self, max_messages: usize, max_bytes: u64) -> usize {
        let mut dropped = 0;
        while self.items.len() > 1 && (self.items.len() > max_messages || self.bytes > max_bytes) {
            if let Some((_, (_, m))) = self.items.pop_first() {
                self.bytes = self.bytes.saturating_sub(held_bytes(&m));
                dropped += 1;
            }
        }
        dropped
    }
    /// Removes and returns every message due at or before `now`, oldest
    /// release first, each with the time it was received.
    pub fn pop_due(&mut self, now: Duration) -> Vec<(Duration, SensorMsg)> {
        let mut out = Vec::new();
        while let Some(entry) = self.items.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let item = entry.remove();
            self.bytes = self.bytes.saturating_sub(held_bytes(&item.1));
            out.push(item);
        }
        out
    }
    /// Removes every message due strictly after `t` (what a fault is still
    /// holding at `t`) and returns how many there were. Messages due at or
    /// before `t` stay, to be released by the next [`DelayQueue::pop_due`].
    pub fn drop_after(&mut self, t: Duration) -> usize {
        // Keys are (release, seq); everything from (t, u64::MAX) on is later.
        let later = self.items.split_off(&(t, u64::MAX));
        for (_, m) in later.values() {
            self.bytes = self.bytes.saturating_sub(held_bytes(m));
        }
        later.len()
    }
    /// Release time of the earliest held message, if any.
    pub fn next_release(&self) -> Option<Duration> {
        self.items.first_key_value().map(|(k, _)| k.0)
    }
    /// Number of messages held.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
