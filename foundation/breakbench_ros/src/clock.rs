//! The node's clock: wall time, or simulated time from `/clock` under `use_sim_time`.
//!
//! ros2-client's own time source subscribes `/clock` with the wrong DDS type
//! (`builtin_interfaces::msg::dds_::Time_`), so a real `rosgraph_msgs/Clock`
//! publisher never matches it. [`SimClock`] is fed by our own subscription of
//! the right type instead (see [`crate::RosNode::clock_subscription`]).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kraken_interfaces::ros::{Clock, Time};

/// Latest simulated time received on `/clock`, shared between threads.
/// Before the first message it reads 0 (as rclcpp does under `use_sim_time`).
#[derive(Debug, Clone, Default)]
pub struct SimClock {
    nanos: Arc<AtomicI64>,
    received: Arc<AtomicBool>,
}

impl SimClock {
    /// Records one `/clock` message. Time never runs backwards here: an older
    /// stamp than the latest is ignored (a restarted simulator needs a restarted
    /// node, or a [`Self::reset`] of this clock).
    pub fn update(&self, msg: &Clock) {
        self.nanos.fetch_max(msg.clock.as_nanos(), Ordering::AcqRel);
        self.received.store(true, Ordering::Release);
    }
    /// Back to "no time yet" (reads 0): a node of a kept-running graph
    /// whose simulator restarted sim time at 0 for the next run
    /// (REQ-GRAPH-RESET). Called by the node's `~/reset` after the plant
    /// was reset (the plant publishes no `/clock` until its next start), so
    /// the first `/clock` after it is the new run's.
    pub fn reset(&self) {
        self.nanos.store(0, Ordering::Release);
        self.received.store(false, Ordering::Release);
    }
    /// True once a `/clock` message arrived.
    pub fn has_time(&self) -> bool {
        self.received.load(Ordering::Acquire)
    }
    /// The latest simulated time since the simulator's epoch.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Acquire).max(0) as u64)
    }
}

/// Where a node's "now" comes from.
#[derive(Debug, Clone)]
pub enum NodeClock {
    /// System time since the UNIX epoch.
    Wall,
    /// Simulated time from `/clock`.
    Sim(SimClock),
}

impl NodeClock {
    /// Now, as a duration since the clock's epoch.
    pub fn now(&self) -> Duration {
        match self {
            NodeClock::Wall => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default(),
            NodeClock::Sim(c) => c.now(),
        }
    }
    /// Now as a ROS stamp.
    pub fn stamp(&self) -> Time {
        to_stamp(self.now())
    }
}

/// A duration since the epoch as a `builtin_interfaces/Time` (saturating at i32 seconds).
pub fn to_stamp(d: Duration) -> Time {
    Time {
        sec: d.as_secs().min(i32::MAX as u64) as i32,
        nanosec: d.subsec_nanos(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_clock_follows_clock_messages_monotonically() {
        let c = SimClock::default();
        assert!(!c.has_time());
        assert_eq!(c.now(), Duration::ZERO);
        c.update(&Clock {
            clock: Time {
                sec: 12,
                nanosec: 500_000_000,
            },
        });
        assert!(c.has_time());
        assert_eq!(
            NodeClock::Sim(c.clone()).now(),
            Duration::from_millis(12_500)
        );
        c.update(&Clock {
            clock: Time {
                sec: 11,
                nanosec: 0,
            },
        });
        assert_eq!(
            c.now(),
            Duration::from_millis(12_500),
            "older stamps are ignored"
        );
        // A reset (the plant restarted sim time for the next run): no time
        // until the next /clock, which may then be older than the old latest.
        c.reset();
        assert!(!c.has_time());
        assert_eq!(c.now(), Duration::ZERO);
        c.update(&Clock {
            clock: Time { sec: 0, nanosec: 7 },
        });
        assert_eq!((c.has_time(), c.now()), (true, Duration::from_nanos(7)));
        assert_eq!(
            to_stamp(Duration::from_nanos(3_000_000_007)),
            Time { sec: 3, nanosec: 7 }
        );
    }
}
