"""Interop peer for sim_bridge: a real ROS 2 Jazzy rclpy node (Fast DDS).

sim_bridge runs alone (no remaps, real_time_factor 1, seed 1). This node
subscribes /oracle/odom, /scan, /clock (and /odom, /gnss/fix, /imu/data),
decodes them with the generated ROS 2 types and checks the values the
corridor world gives at the start (config/corridor.yaml: start (1, 0, 0),
end wall at x = 12 m; config/robot.yaml: 360 beams from -pi, noise 0.01 m):

- the first /oracle/odom pose is the start pose (1, 0, 0), frame world;
- /scan has 360 beams, frame base_scan; beam 180 (angle 0) reads
  5.8 - 1 = 4.8 m: the box obstacle's face at x = 5.8 m (y in [-1, 0.1])
  hides the end wall (12 - 1 = 11 m); beams 0 (angle -pi), 90 (-pi/2) and
  270 (+pi/2) read 1.0 m (walls x = 0, y = -1, y = +1); +- 0.05 m, 5 sigma
  of the range noise;
- /clock advances;
- /gnss/fix at x = 1 m east of the datum (52.2297, 21.0122): latitude =
  datum, longitude = datum + 1 m / (N cos(lat)) = 21.0122 + 1.46357e-5 deg;
- /imu/data: gravity 9.80665 m/s^2 on z;
- then it publishes /cmd_vel (geometry_msgs/Twist, 0.3 m/s) for 2 s and the
  ground-truth x increases by more than 0.3 m.
Exit 0 when every check passes.
"""

import math
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, LaserScan, NavSatFix

FAILED = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILED.append(what)


class Peer(Node):
    def __init__(self):
        super().__init__("bridge_peer")
        be = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT,
                        history=HistoryPolicy.KEEP_LAST)
        rel = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         history=HistoryPolicy.KEEP_LAST)
        self.truth, self.scans, self.clocks = [], [], []
        self.gnss, self.imu, self.odom = [], [], []
        self.create_subscription(Odometry, "/oracle/odom", self.truth.append, rel)
        self.create_subscription(LaserScan, "/scan", self.scans.append, be)
        self.create_subscription(Clock, "/clock", self.clocks.append, be)
        self.create_subscription(Odometry, "/odom", self.odom.append, rel)
        self.create_subscription(NavSatFix, "/gnss/fix", self.gnss.append, be)
        self.create_subscription(Imu, "/imu/data", self.imu.append, be)
        self.cmd = self.create_publisher(Twist, "/cmd_vel", rel)

    def spin_until(self, cond, timeout_s):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            rclpy.spin_once(self, timeout_sec=0.05)
            if cond():
                return True
        return False


def yaw(q):
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def main():
    rclpy.init()
    n = Peer()
    got = n.spin_until(lambda: n.truth and n.scans and len(n.clocks) >= 2 and n.gnss and n.imu, 60.0)
    check(got, "received /oracle/odom, /scan, /clock, /gnss/fix and /imu/data from sim_bridge")
    if not got:
        return 1
    t = n.truth[0]
    p = t.pose.pose.position
    check(t.header.frame_id == "world" and t.child_frame_id == "base_link",
          f"/oracle/odom frames world -> base_link (got {t.header.frame_id} -> {t.child_frame_id})")
    check(p.x == 1.0 and p.y == 0.0 and abs(yaw(t.pose.pose.orientation)) < 1e-12,
          f"first /oracle/odom pose is the start (1, 0, 0) (got {p.x}, {p.y}, {yaw(t.pose.pose.orientation)})")
    s = n.scans[0]
    check(len(s.ranges) == 360 and s.header.frame_id == "base_scan",
          f"/scan has 360 beams in base_scan (got {len(s.ranges)} in {s.header.frame_id})")
    a180 = s.angle_min + 180 * s.angle_increment
    check(abs(s.angle_min + math.pi) < 1e-6 and abs(a180) < 1e-5,
          f"/scan angle_min = -pi and beam 180 at angle 0 (got {s.angle_min}, {a180})")
    check(abs(s.ranges[180] - 4.8) < 0.05, f"/scan beam at angle 0 reads 4.8 m, the box face (got {s.ranges[180]})")
    walls = [s.ranges[i] for i in (0, 90, 270)]
    check(all(abs(r - 1.0) < 0.05 for r in walls), f"/scan beams at -pi, -pi/2, +pi/2 read 1.0 m, the walls (got {walls})")
    c0 = n.clocks[0].clock.sec + 1e-9 * n.clocks[0].clock.nanosec
    c1 = n.clocks[-1].clock.sec + 1e-9 * n.clocks[-1].clock.nanosec
    check(c1 > c0, f"/clock advances ({c0} -> {c1} s)")
    g = n.gnss[0]
    # 1 m east of the datum: dlon = 1 / (N cos(lat)) rad, N = 6,391,518.75 m at 52.2297 deg (WGS84).
    check(abs(g.latitude - 52.2297) < 1e-9 and abs(g.longitude - 21.0122 - 1.46357e-5) < 1e-9,
          f"/gnss/fix at 1 m east of the datum (got {g.latitude:.10f}, {g.longitude:.10f})")
    check(abs(n.imu[0].linear_acceleration.z - 9.80665) < 1e-12, "/imu/data gravity 9.80665 m/s^2")
    x0 = n.truth[-1].pose.pose.position.x
    tw = Twist()
    tw.linear.x = 0.3
    t0 = time.monotonic()
    while time.monotonic() - t0 < 2.0:
        n.cmd.publish(tw)
        n.spin_until(lambda: False, 0.05)
    n.cmd.publish(Twist())
    n.spin_until(lambda: False, 0.3)
    x1 = n.truth[-1].pose.pose.position.x
    check(x1 - x0 > 0.3, f"/cmd_vel 0.3 m/s for 2 s moves the true pose (x {x0:.3f} -> {x1:.3f} m)")
    n.destroy_node()
    rclpy.shutdown()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
