"""Interop peer for the whole corridor graph: a real ROS 2 Jazzy rclpy node
(Fast DDS) watches `breakbench up launch/corridor.graph.yaml` (lock-step,
nominal) from outside and checks what the oracle and the navigator publish:

- /oracle/status (std_msgs/String): JSON with samples, t_s, done,
  safety_violation, mission_failure and the three predicates; the last one
  has done = true at t_s = 60.0 (the world's mission timeout) after 3000
  samples (50 Hz), no safety violation, mission complete;
- /navigator/self_report (std_msgs/String): "success".
Started before the graph; exit 0 when every check passes.
"""

import json
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

FAILED = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILED.append(what)


def main():
    rclpy.init()
    n = Node("oracle_status_peer")
    rel = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    status, reports = [], []
    n.create_subscription(String, "/oracle/status", lambda m: status.append(json.loads(m.data)), rel)
    n.create_subscription(String, "/navigator/self_report", lambda m: reports.append(m.data), rel)
    t0 = time.monotonic()
    while time.monotonic() - t0 < float(sys.argv[1] if len(sys.argv) > 1 else 120):
        rclpy.spin_once(n, timeout_sec=0.05)
        if status and status[-1].get("done"):
            break
    # callbacks already queued (the self-report) are taken before judging
    t1 = time.monotonic()
    while time.monotonic() - t1 < 0.5:
        rclpy.spin_once(n, timeout_sec=0.05)
    check(bool(status), f"/oracle/status received ({len(status)} messages)")
    if not status:
        return 1
    last = status[-1]
    check(last.get("done") is True and last.get("t_s") == 60.0 and last.get("samples") == 3000,
          f"final status: done at t_s 60.0 after 3000 samples (got {last.get('done')}, {last.get('t_s')}, {last.get('samples')})")
    check(last.get("safety_violation") is False and last.get("mission_failure") is False,
          f"final status: no safety violation, mission complete (got {last.get('safety_violation')}, {last.get('mission_failure')})")
    v = last.get("verdict") or {}
    check(set(v) == {"operating_region_containment", "obstacle_clearance", "mission_completion_true_pose"}
          and all(set(p) == {"holds", "decided_at_s", "value"} for p in v.values()),
          "final status carries the three predicates with holds/decided_at_s/value")
    ts = [s["t_s"] for s in status]
    check(ts == sorted(ts) and len(status) >= 10, f"status every second of sim time, in order ({len(status)} messages)")
    check("success" in reports, f"/navigator/self_report says success (got {sorted(set(reports))})")
    n.destroy_node()
    rclpy.shutdown()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
