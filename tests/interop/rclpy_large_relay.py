"""Large messages through the fault injector (issue 27): rclpy publishes
COUNT sensor_msgs/PointCloud2 of SIZE bytes of data at RATE Hz on /cloud_raw
(default QoS: reliable, keep-last 10); a default-configured rclpy subscriber
(reliable, keep-last 10) counts what arrives on /cloud (the injector's
any-type channel, tests/interop/large_channels.yaml) and, as the direct
path, on /cloud_raw. Prints one line: size, sent, delivered via the
injector, delivered direct. Exit 0 always (a measurement, not a check),
2 when the graph never matched.

usage: python3 rclpy_large_relay.py SIZE_BYTES [COUNT=50] [RATE_HZ=10] [DELAY_S]
DELAY_S: first set a delay stage of that many seconds on the channel
(~/set_fault_stack from rclpy), so every message is held that long.
Run inside a loopback-only netns with the injector already running.
"""

import array
import sys
import time

import rclpy
from rclpy.node import Node
from sensor_msgs.msg import PointCloud2, PointField


def main():
    size = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    rclpy.init()
    node = Node("large_relay_peer")
    pub = node.create_publisher(PointCloud2, "/cloud_raw", 10)
    via, direct = set(), set()
    node.create_subscription(PointCloud2, "/cloud", lambda m: via.add(m.header.stamp.sec), 10)
    node.create_subscription(PointCloud2, "/cloud_raw", lambda m: direct.add(m.header.stamp.sec), 10)
    deadline = time.time() + 30
    while time.time() < deadline and (pub.get_subscription_count() < 2 or node.count_publishers("/cloud") < 1):
        rclpy.spin_once(node, timeout_sec=0.1)
    if pub.get_subscription_count() < 2 or node.count_publishers("/cloud") < 1:
        print(f"size={size} graph never matched", flush=True)
        return 2
    if delay > 0:
        from kraken_interfaces.srv import SetFaultStack
        cli = node.create_client(SetFaultStack, "/fault_injector/set_fault_stack")
        cli.wait_for_service(timeout_sec=10)
        fut = cli.call_async(SetFaultStack.Request(
            channel="cloud", stack_yaml=f"[{{fault: {{delay: {{delay_s: {delay}}}}}}}]", append=False))
        rclpy.spin_until_future_complete(node, fut, timeout_sec=10)
        if not (fut.result() and fut.result().success):
            print(f"size={size} delay stage refused: {fut.result()}", flush=True)
            return 2
    time.sleep(1.0)
    msg = PointCloud2()
    msg.header.frame_id = "lidar"
    msg.height, msg.width = 1, size // 16
    msg.fields = [PointField(name=n, offset=4 * i, datatype=PointField.FLOAT32, count=1) for i, n in enumerate("xyz")]
    msg.point_step, msg.row_step = 16, 16 * (size // 16)
    msg.is_dense = True
    msg.data = array.array("B", bytes(16 * (size // 16)))
    period, t0 = 1.0 / rate, time.time()
    for i in range(count):
        msg.header.stamp.sec = i + 1
        pub.publish(msg)
        nxt = t0 + (i + 1) * period
        while time.time() < nxt:
            rclpy.spin_once(node, timeout_sec=max(0.0, nxt - time.time()))
    end = time.time() + 3.0 + delay
    while time.time() < end:
        rclpy.spin_once(node, timeout_sec=0.1)
    print(f"size={size} sent={count} delay={delay} via_injector={len(via)} direct={len(direct)}", flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
