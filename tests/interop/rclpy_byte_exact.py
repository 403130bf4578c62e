"""Byte-exact relay of an any-type channel (issue 27; REQ-FAULT-ANY-TYPE):
rclpy publishes 20 serialized sensor_msgs/Range samples (rclpy's own
serialize_message bytes, each with a different range and frame_id length,
published as bytes) on /sonar_raw; a raw rclpy subscription on /sonar (the
injector's dynamic channel of tests/interop/any_type_channels.yaml, no fault
set) must get every sample with exactly the bytes sent. Exit 1 otherwise.

Run by scripts/interop.sh (phase 11) inside the loopback netns, injector running.
"""

import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import Range


def main():
    rclpy.init()
    node = Node("byte_exact_peer")
    qos = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
    pub = node.create_publisher(Range, "/sonar_raw", qos)
    got = []
    node.create_subscription(Range, "/sonar", got.append, qos, raw=True)
    end = time.time() + 20
    while time.time() < end and (pub.get_subscription_count() < 1 or node.count_publishers("/sonar") < 1):
        rclpy.spin_once(node, timeout_sec=0.1)
    time.sleep(1.0)
    sent = []
    for i in range(20):
        m = Range()
        m.header.stamp.sec, m.header.stamp.nanosec = 100 + i, 7 * i
        m.header.frame_id = "sonar" + "x" * i  # every length mod 4
        m.radiation_type = i % 2
        m.field_of_view, m.min_range, m.max_range, m.range = 0.5, 0.02, 4.0, 0.1 * i
        b = serialize_message(m)
        sent.append(bytes(b))
        pub.publish(b)
        t = time.time() + 0.05
        while time.time() < t:
            rclpy.spin_once(node, timeout_sec=0.01)
    end = time.time() + 3
    while time.time() < end and len(got) < len(sent):
        rclpy.spin_once(node, timeout_sec=0.1)
    got = [bytes(g) for g in got]
    exact = sum(1 for s in sent if s in got)
    ok = len(got) == len(sent) and exact == len(sent)
    detail = f"{exact}/{len(sent)} exact, {len(got)} received"
    if not ok and got:
        s0 = next((s for s in sent if len(s) == len(got[0])), sent[0])
        detail += f"; first received {got[0].hex()} vs sent {s0.hex()}"
    print(f"{'PASS' if ok else 'FAIL'} byte_exact: untouched any-type channel relays the bytes unchanged ({detail})", flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
