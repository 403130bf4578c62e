//! [`SizeGuard`]: one WARN per publisher whose messages exceed what the
//! backend was measured to deliver (issue 27, `docs/large-messages.md`).
//!
//! A DDS writer accepts a message of any size; whether a default-configured
//! subscriber receives it depends on the backend's UDP transport. Rather than
//! lose such messages silently, a publisher with a guard logs once, naming the
//! topic, the message's size and the backend's measured limit.

use std::sync::atomic::{AtomicBool, Ordering};

/// Watches the serialized size of the messages of one publisher.
#[derive(Debug)]
pub struct SizeGuard {
    topic: String,
    /// Largest serialized message (bytes, CDR header included) the backend
    /// was measured to deliver without loss; `None`: no limit known.
    limit: Option<usize>,
    /// Set by the first message above `limit`: later ones are not logged.
    warned: AtomicBool,
}

impl SizeGuard {
    /// A guard for the publisher on `topic` (resolved ROS name) with the
    /// backend's measured `limit` in bytes (`None`: never warns).
    pub fn new(topic: impl Into<String>, limit: Option<usize>) -> Self {
        Self {
            topic: topic.into(),
            limit,
            warned: AtomicBool::new(false),
        }
    }

    /// Checks one message of `bytes` serialized bytes: the first one above
    /// the limit logs a WARN (topic, size, limit) and returns true; every
    /// other call returns false and logs nothing. Costs one comparison below
    /// the limit and one relaxed atomic load above it.
    pub fn check(&self, bytes: usize) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        if bytes <= limit || self.warned.load(Ordering::Relaxed) {
            return false;
        }
        if self.warned.swap(true, Ordering::Relaxed) {
            return false;
        }
        tracing::warn!(
            "topic {}: a message of {} bytes exceeds {} bytes, the largest the ros2-client/rustdds \
             backend was measured to deliver without loss to a default-configured subscriber; \
             larger messages may be lost on the way out (logged once for this topic). For \
             perception-size streams (point clouds, images) use the rclrs backend \
             (issue 27; docs/large-messages.md)",
            self.topic,
            bytes,
            limit
        );
        true
    }
}

#[cfg(test)]
mod tests {
    use super::SizeGuard;

    #[test]
    fn warns_once_above_the_limit_only() {
        let g = SizeGuard::new("/cloud", Some(1000));
        assert!(!g.check(0));
        assert!(!g.check(1000), "at the limit: delivered, no warning");
        assert!(g.check(1001), "first message above: warns");
        assert!(!g.check(5_000_000), "once per publisher");
        assert!(!g.check(1001));
        let none = SizeGuard::new("/cloud", None);
        assert!(!none.check(usize::MAX), "no known limit: never warns");
    }
}
