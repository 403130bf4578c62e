"""Interop peer: remapping, use_sim_time and the /tf keep-alive.

The injector runs with `-r /gnss/fix:=/gnss/fix_remapped -r __ns:=/robot
-p use_sim_time:=true`. This rclpy node publishes rosgraph_msgs/Clock on
/clock (sim time from 100 s, 10 ms steps at 100 Hz, pausable) and checks:
the gnss output arrives on the remapped topic; the status topic lives under
the namespace and is stamped with sim time; a 0.5 s delay fault is counted in
sim time (nothing leaves while the clock is paused); a wheel dropout keeps
the last odom->base_link transform alive on /tf, stamped with sim time.
"""

import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from rosgraph_msgs.msg import Clock
from nav_msgs.msg import Odometry
from sensor_msgs.msg import NavSatFix
from dataclasses import dataclass, field
from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import sequence
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
import os
from kraken_interfaces.msg import FaultSpec, FaultStatus
from kraken_interfaces.srv import SetFault

from dds_types import Header_, Quaternion_, Vector3_  # tests/interop/dds_types.py

FAILED = []

# No tf2_msgs wheel exists on PyPI: /tf is read with Cyclone DDS (same domain).


@dataclass
class Transform_(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3_ = field(default_factory=Vector3_)
    rotation: Quaternion_ = field(default_factory=Quaternion_)


@dataclass
class TransformStamped_(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header_ = field(default_factory=Header_)
    child_frame_id: str = ""
    transform: Transform_ = field(default_factory=Transform_)


@dataclass
class TFMessage_(IdlStruct, typename="tf2_msgs::msg::dds_::TFMessage_"):
    transforms: sequence[TransformStamped_] = field(default_factory=list)


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} simtime: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


class Peer(Node):
    def __init__(self):
        super().__init__("interop_peer_simtime")
        self.sim_ns = 100 * 10**9
        self.paused = False
        self.clock_pub = self.create_publisher(Clock, "/clock", 10)
        self.create_timer(0.01, self.tick)
        self.gnss_pub = self.create_publisher(NavSatFix, "/gnss/fix_raw", 10)
        self.wheel_pub = self.create_publisher(Odometry, "/wheel/odom_raw", 10)
        self.remapped, self.plain, self.status, self.tf = [], [], [], []
        self.create_subscription(NavSatFix, "/gnss/fix_remapped", self.remapped.append, qos_profile_sensor_data)
        self.create_subscription(NavSatFix, "/gnss/fix", self.plain.append, qos_profile_sensor_data)
        self.create_subscription(FaultStatus, "/robot/fault_injector/status", self.status.append, 10)
        dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
        self.tf_reader = DataReader(dp, Topic(dp, "rt/tf", TFMessage_),
                                    qos=Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(100)))
        # ~/set_fault follows __ns like ~/status.
        self.set_cli = self.create_client(SetFault, "/robot/fault_injector/set_fault")

    def tick(self):
        if not self.paused:
            self.sim_ns += 10_000_000
        m = Clock()
        m.clock.sec, m.clock.nanosec = divmod(self.sim_ns, 10**9)
        self.clock_pub.publish(m)

    def sim_s(self):
        return self.sim_ns / 1e9

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.005)
            self.tf.extend(self.tf_reader.take(N=100))

    def set_fault(self, **kw):
        req = SetFault.Request()
        for k, v in kw.items():
            setattr(req.fault, k, v)
        fut = self.set_cli.call_async(req)
        end = time.monotonic() + 10
        while not fut.done() and time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.02)
        return fut.result() if fut.done() else None


def fix(seq):
    m = NavSatFix()
    m.header.frame_id = "gnss"
    m.header.stamp.sec = seq
    m.status.status = 2
    m.latitude = 52.0
    return m


def main():
    rclpy.init()
    p = Peer()
    ok = p.set_cli.wait_for_service(timeout_sec=30.0)
    check("set_fault service found", ok)
    if not ok:
        sys.exit(1)
    # Remapped output.
    got = None
    for i in range(200):
        p.gnss_pub.publish(fix(i))
        p.spin_for(0.05)
        if p.remapped:
            got = p.remapped[-1]
            break
    check("gnss output arrives on the remapped topic /gnss/fix_remapped", got is not None)
    check("nothing on the original /gnss/fix", len(p.plain) == 0, f"{len(p.plain)} messages")
    # Status under the namespace, stamped with sim time.
    p.status.clear()
    p.spin_for(1.5)
    st = p.status[-1] if p.status else None
    stamp = st.stamp.sec + st.stamp.nanosec * 1e-9 if st else -1
    check("status on /robot/fault_injector/status stamped with sim time",
          st is not None and abs(stamp - p.sim_s()) < 1.5, f"stamp={stamp:.3f} sim={p.sim_s():.3f}")

    # Delay counted in sim time.
    r = p.set_fault(channel="gnss", mode=FaultSpec.DELAY, delay_s=0.5)
    check("set_fault gnss delay 0.5 s", r is not None and r.success, r.message if r else "no response")
    p.spin_for(0.2)
    p.paused = True
    p.spin_for(0.2)
    p.remapped.clear()
    p.gnss_pub.publish(fix(9999))
    p.spin_for(1.0)
    held = [m for m in p.remapped if m.header.stamp.sec == 9999]
    check("delayed message held while sim time is paused (1 s wall)", len(held) == 0, f"{len(held)} released")
    t_resume = p.sim_s()
    p.paused = False
    released_at = None
    end = time.monotonic() + 5
    while time.monotonic() < end and released_at is None:
        p.spin_for(0.01)
        if any(m.header.stamp.sec == 9999 for m in p.remapped):
            released_at = p.sim_s()
    check("delayed message released 0.5 s of sim time after it arrived",
          released_at is not None and 0.45 <= released_at - t_resume <= 0.9,
          f"released {None if released_at is None else round(released_at - t_resume, 3)} s after resume")

    # TF keep-alive during wheel dropout.
    odom = Odometry()
    odom.header.frame_id = "odom"
    odom.child_frame_id = "base_link"
    odom.pose.pose.position.x = 1.5
    odom.pose.pose.position.y = -0.25
    odom.pose.pose.orientation.w = 1.0
    for _ in range(5):
        p.wheel_pub.publish(odom)
        p.spin_for(0.05)
    r = p.set_fault(channel="wheel", mode=FaultSpec.DROPOUT)
    check("set_fault wheel dropout", r is not None and r.success, r.message if r else "no response")
    p.wheel_pub.publish(odom)
    p.tf.clear()
    p.spin_for(1.0)
    ts = [t for m in p.tf for t in m.transforms]
    ok = bool(ts) and all(t.header.frame_id == "odom" and t.child_frame_id == "base_link"
                          and t.transform.translation.x == 1.5 and t.transform.translation.y == -0.25 for t in ts)
    last = ts[-1].header.stamp.sec + ts[-1].header.stamp.nanosec * 1e-9 if ts else -1
    check("wheel dropout keeps odom->base_link alive on /tf (about 20 Hz, sim-time stamps)",
          ok and 10 <= len(ts) <= 30 and abs(last - p.sim_s()) < 0.5,
          f"{len(ts)} transforms in 1 s, last stamp {last:.3f}, sim {p.sim_s():.3f}")

    p.destroy_node()
    rclpy.shutdown()
    print(f"simtime peer: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
