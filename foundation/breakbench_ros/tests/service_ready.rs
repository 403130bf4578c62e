//! `RosNode::service_ready` over real DDS: false while no server exists,
//! true once one does (two participants, as two ROS processes would be),
//! and a call made right after it turns true is answered.
//!
//! The DDS traffic stays in a loopback-only network namespace: the test
//! re-runs itself under `scripts/netns.sh` (`BREAKBENCH_NETNS_CHILD=1` marks
//! the inner run), on a `ROS_DOMAIN_ID` of its own.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use breakbench_ros::{Rmw, RosArgs, RosEnv, RosNode, TriggerSrv};
use kraken_interfaces::ros::{TriggerRequest, TriggerResponse};

const DOMAIN: u16 = 117;
const SERVICE: &str = "/service_ready_probe/trigger";

fn node(name: &str) -> RosNode {
    let (args, rest) = RosArgs::parse(Vec::<String>::new(), name).expect("args");
    assert!(rest.is_empty());
    let env = RosEnv {
        domain_id: DOMAIN,
        rmw: Rmw::FastRtps,
    };
    RosNode::new(env, args).expect("node")
}

/// Runs `test` in a loopback-only namespace by re-running this test binary
/// there; returns true in the outer run (the inner one did the work).
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

#[test]
fn service_ready_is_false_without_a_server_and_true_once_one_exists() {
    if in_netns("service_ready_is_false_without_a_server_and_true_once_one_exists") {
        return;
    }
    let mut client_node = node("probe_client");
    let client = client_node.client::<TriggerSrv>(SERVICE).expect("client");
    let _client_spin = client_node.spawn_spinner().expect("spinner");

    // No server anywhere: never ready (give discovery time to be wrong).
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(1500) {
        assert!(
            !client_node.service_ready(&client),
            "ready with no server on the graph"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut server_node = node("probe_server");
    let server = server_node.server::<TriggerSrv>(SERVICE).expect("server");
    let _server_spin = server_node.spawn_spinner().expect("spinner");
    std::thread::spawn(move || loop {
        if let Ok(Some((id, _req))) = server.receive_request() {
            let resp = TriggerResponse {
                success: true,
                message: "probe".into(),
            };
            server.send_response(id, resp).ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    });

    let t1 = Instant::now();
    while !client_node.service_ready(&client) {
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "service not ready 20 s after the server started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    println!("ready after {:.3} s", t1.elapsed().as_secs_f64());

    // The call runs on a thread of its own so that a lost reply fails the
    // test after 10 s instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    let caller = std::thread::spawn(move || {
        let r = futures::executor::block_on(client.call(TriggerRequest::default()));
        tx.send(r).ok();
        client
    });
    let resp = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("no response within 10 s")
        .expect("call");
    // Entities drop before their node.
    drop(caller.join().expect("caller"));
    assert_eq!(
        resp,
        TriggerResponse {
            success: true,
            message: "probe".into()
        }
    );
}

/// `RosNode::has_subscriber` / `has_publisher`: false with nobody on the
/// topic, true in both directions once a publisher and a subscription on
/// another participant match.
#[test]
fn topic_matching_is_false_alone_and_true_once_both_ends_exist() {
    if in_netns("topic_matching_is_false_alone_and_true_once_both_ends_exist") {
        return;
    }
    use breakbench_ros::qos;
    use kraken_interfaces::ros::Odometry;
    const TOPIC: &str = "/match_probe/odom";
    let mut a = node("probe_pub");
    let publisher = a.publisher::<Odometry>(TOPIC, qos::publish()).expect("pub");
    let _a_spin = a.spawn_spinner().expect("spinner");
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(1500) {
        assert!(!a.has_subscriber(&publisher), "matched with nobody there");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut b = node("probe_sub");
    let subscription = b
        .subscription::<Odometry>(TOPIC, qos::subscribe(10))
        .expect("sub");
    let _b_spin = b.spawn_spinner().expect("spinner");
    let t1 = Instant::now();
    while !(a.has_subscriber(&publisher) && b.has_publisher(&subscription)) {
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "not matched 20 s after the subscription started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    println!("matched after {:.3} s", t1.elapsed().as_secs_f64());
}
