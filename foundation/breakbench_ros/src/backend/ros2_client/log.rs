//! What this backend's middleware logs, made fit for a node's log: an
//! incompatible QoS said once (REQ-FAULT-QOS), and no warning that
//! `ROS_DISTRO` is unset.
//!
//! ros2-client 0.12 warns `ROS_DISTRO is not set; ros2-client was built
//! for 'jazzy'` at every start in a shell without ROS sourced. A pure-Rust
//! node needs no ROS installation, so that is no fault of the run; the line
//! is dropped (a *different* ROS_DISTRO is still reported by ros2-client).
//!
//! A writer of this node and a remote reader that requests more than the
//! writer offers (a reliable reader of a best-effort output, a
//! transient-local reader of a volatile one) never match: the reader gets
//! nothing. rustdds 0.15 says so only in its own log, at WARN, every time
//! the reader's discovery data is seen again:
//! `update_reader_proxy - QoS mismatch Reliability topic="rt/sonar_be"`
//! (the policy, then the DDS topic: `rt/` + the ROS topic). ros2-client
//! gives no status event for it (its spinner consumes the participant's
//! status stream). [`QosMismatchOnce`] passes that line once per (policy,
//! topic) and drops its repeats; with the default log filter it also keeps
//! rustdds' other writer warnings out, as `rustdds=error` did (the filter
//! enables the writer's warnings, [`DIRECTIVE`], only for this line). A reader of
//! this node whose remote writer offers less (a reliable input channel fed
//! by a best-effort publisher) gets no log line from rustdds at all.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// The directive the default node filter adds so that rustdds' writer
/// warnings reach [`QosMismatchOnce`] at all.
pub(crate) const DIRECTIVE: &str = "rustdds::rtps::writer=warn";

/// The log layer of this backend: see the module docs.
/// (Named for its main job; it also drops the unset-ROS_DISTRO warning.)
pub(crate) struct QosMismatchOnce {
    /// True when the default filter is in use: rustdds' other writer
    /// warnings (which only [`DIRECTIVE`] let through) are dropped.
    only_mismatch: bool,
    seen: Mutex<BTreeSet<(String, String)>>,
}

impl QosMismatchOnce {
    /// The layer; `default_filter` says whether `RUST_LOG` was unset (or
    /// invalid), i.e. whether [`DIRECTIVE`] is the only reason rustdds'
    /// writer warnings are enabled.
    pub(crate) fn new(default_filter: bool) -> Self {
        Self {
            only_mismatch: default_filter,
            seen: Mutex::new(BTreeSet::new()),
        }
    }

    /// Whether one WARN event of `target` with `message` is printed.
    fn keep(&self, target: &str, message: &str) -> bool {
        if target == DISTRO_TARGET {
            return !message.starts_with("ROS_DISTRO is not set");
        }
        if target != WRITER_TARGET {
            return true;
        }
        match parse_mismatch(message) {
            Some(key) => self
                .seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(key),
            None => !self.only_mismatch,
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for QosMismatchOnce {
    fn event_enabled(
        &self,
        event: &tracing::Event<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        if *event.metadata().level() != tracing::Level::WARN {
            return true;
        }
        let mut v = TargetAndMessage::default();
        event.record(&mut v);
        let target = v.log_target.as_deref().unwrap_or(event.metadata().target());
        self.keep(target, &v.message)
    }
}

/// The module rustdds' writer logs from.
const WRITER_TARGET: &str = "rustdds::rtps::writer";

/// The module ros2-client checks `ROS_DISTRO` in.
const DISTRO_TARGET: &str = "ros2_client::distributions";

/// An event's `message`, and for an event bridged from `log` (rustdds logs
/// through `log`; the bridged event's own target is `log`) its
/// `log.target`.
#[derive(Default)]
struct TargetAndMessage {
    message: String,
    log_target: Option<String>,
}

impl tracing::field::Visit for TargetAndMessage {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "log.target" {
            self.log_target = Some(value.to_string());
        }
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        }
    }
}

/// `(policy, DDS topic)` of rustdds' writer-side QoS mismatch line, e.g.
/// `("Reliability", "rt/sonar_be")`; None for any other text.
fn parse_mismatch(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("update_reader_proxy - QoS mismatch ")?;
    let (policy, topic) = rest.split_once(" topic=")?;
    Some((policy.to_string(), topic.trim_matches('"').to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"update_reader_proxy - QoS mismatch Reliability topic="rt/sonar_be""#;

    #[test]
    fn a_mismatch_is_parsed_and_kept_once_per_policy_and_topic() {
        assert_eq!(
            parse_mismatch(LINE),
            Some(("Reliability".into(), "rt/sonar_be".into()))
        );
        assert_eq!(parse_mismatch("update_reader_proxy - matched"), None);
        let layer = QosMismatchOnce::new(true);
        assert!(layer.keep(WRITER_TARGET, LINE));
        assert!(!layer.keep(WRITER_TARGET, LINE), "a repeat is dropped");
        assert!(layer.keep(WRITER_TARGET, &LINE.replace("Reliability", "Durability")));
        assert!(layer.keep(WRITER_TARGET, &LINE.replace("sonar_be", "imu")));
    }

    #[test]
    fn other_writer_warnings_pass_only_when_the_user_chose_the_filter() {
        let other = "send_message_to_readers: No locators for GUID {01}";
        assert!(!QosMismatchOnce::new(true).keep(WRITER_TARGET, other));
        assert!(QosMismatchOnce::new(false).keep(WRITER_TARGET, other));
        assert!(QosMismatchOnce::new(true).keep("fault_injector", "a node's own warning"));
        assert!(QosMismatchOnce::new(true).keep("fault_injector", LINE));
    }

    #[test]
    fn only_the_unset_ros_distro_warning_is_dropped() {
        let l = QosMismatchOnce::new(true);
        assert!(!l.keep(
            DISTRO_TARGET,
            "ROS_DISTRO is not set; ros2-client was built for 'jazzy'."
        ));
        assert!(l.keep(
            DISTRO_TARGET,
            "ROS_DISTRO='rolling'; ros2-client was built for 'jazzy'. Assuming compatible"
        ));
    }
}
