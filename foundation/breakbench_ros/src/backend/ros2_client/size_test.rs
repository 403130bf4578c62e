//! DDS test of the ros2-client backend's size guard (a unit test, not a
//! `tests/` file: every test target adds its path to `cargo metadata`, which
//! colcon reads under a 64 KiB line limit, `tests/repository/colcon_layout.rs`).
//!
//! A raw publisher whose messages exceed `LOSSLESS_MESSAGE_BYTES` (what the
//! backend was measured to deliver, issue 27) logs exactly one WARN naming
//! the topic, the message's size and the limit; a message at the limit logs
//! nothing, and every message is still published. About 1 s (one DDS
//! participant, no peer).
//!
//! The DDS traffic stays in a loopback-only network namespace: the test
//! re-runs its own binary under `scripts/netns.sh` (`BREAKBENCH_NETNS_CHILD=1`
//! marks the inner run), on a `ROS_DOMAIN_ID` of its own.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::{RawCdr, Rmw, RosArgs, RosEnv, RosNode, LOSSLESS_MESSAGE_BYTES};
use tracing_subscriber::layer::SubscriberExt;

const DOMAIN: u16 = 119;

fn in_netns(test: &str) -> bool {
    if std::env::var_os("BREAKBENCH_NETNS_CHILD").is_some() {
        return false;
    }
    let netns = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/netns.sh");
    let out = Command::new(netns)
        .arg(std::env::current_exe().expect("test exe"))
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env("BREAKBENCH_NETNS_CHILD", "1")
        .output()
        .expect("scripts/netns.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "inner run failed:\n{text}");
    assert!(text.contains("1 passed"), "inner run ran no test:\n{text}");
    true
}

/// Collects the text of every WARN event of `breakbench_ros`.
struct Warnings(Arc<Mutex<Vec<String>>>);

struct Text(String);

impl tracing::field::Visit for Text {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(&self, e: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let m = e.metadata();
        if *m.level() == tracing::Level::WARN && m.target().starts_with("breakbench_ros") {
            let mut t = Text(String::new());
            e.record(&mut t);
            self.0.lock().unwrap().push(t.0);
        }
    }
}

#[test]
fn oversized_raw_messages_warn_once_per_topic() {
    if in_netns("backend::ros2_client::size_test::oversized_raw_messages_warn_once_per_topic") {
        return;
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let _log = tracing::subscriber::set_default(
        tracing_subscriber::registry().with(Warnings(seen.clone())),
    );
    let (args, _) = RosArgs::parse(Vec::<String>::new(), "size_probe").expect("args");
    let env = RosEnv {
        domain_id: DOMAIN,
        rmw: Rmw::FastRtps,
    };
    let mut node = RosNode::new(env, args).expect("node");
    let qos = crate::qos::publish();
    let cloud = node
        .raw_publisher("/size_probe/cloud", "sensor_msgs/msg/PointCloud2", qos)
        .expect("raw publisher");
    let other = node
        .raw_publisher("size_probe/other", "sensor_msgs/msg/Image", qos)
        .expect("raw publisher");
    let msg = |len: usize| RawCdr(vec![0u8; len]);

    cloud.publish(msg(100)).expect("publish");
    cloud.publish(msg(LOSSLESS_MESSAGE_BYTES)).expect("publish");
    assert!(seen.lock().unwrap().is_empty(), "at the limit: no warning");

    let big = LOSSLESS_MESSAGE_BYTES + 1;
    for _ in 0..3 {
        cloud
            .publish(msg(big))
            .expect("oversized messages are still published");
    }
    cloud.publish(msg(2 * big)).expect("publish");
    other.publish(msg(big + 7)).expect("publish");
    let w = seen.lock().unwrap().clone();
    assert_eq!(w.len(), 2, "one WARN per topic, not per message: {w:#?}");
    assert!(
        w[0].starts_with(&format!(
            "topic /size_probe/cloud: a message of {big} bytes exceeds {LOSSLESS_MESSAGE_BYTES} bytes"
        )),
        "{}",
        w[0]
    );
    assert!(w[0].contains("rclrs backend"), "{}", w[0]);
    assert!(
        w[1].starts_with(&format!(
            "topic /size_probe/other: a message of {} bytes",
            big + 7
        )),
        "relative name resolved: {}",
        w[1]
    );
    drop((cloud, other));
}
