"""Interop peer: hostile requests against fault_injector through the real
service path (ROS 2 Jazzy rclpy on Fast DDS, rosidl-generated
kraken_interfaces types).

Checks, one line each (exit 1 if any failed):
  * the garbage call {channel: imu|gnss, mode: GARBAGE, garbage_min: -1e308,
    garbage_max: 1e308} is refused (or harmless), and the node keeps relaying
    Imu messages with finite values;
  * a set_fault whose `channel` is 70 kB (and 200 kB) long is refused, the reply
    does not echo it, and the SAME client's next call is answered;
  * ~/status still answers and reports no contained stage panic.

Run by scripts/interop.sh inside a private network namespace, with
ROS_DOMAIN_ID set and the injector already started.
"""

import math
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Imu
from kraken_interfaces.msg import FaultSpec, FaultStatus
from kraken_interfaces.srv import SetFault

FAILED = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} hostile: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


class Peer(Node):
    def __init__(self):
        super().__init__("interop_hostile_rclpy")
        rel = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
        self.imu_pub = self.create_publisher(Imu, "/imu/data_raw", qos_profile_sensor_data)
        self.imu_out = []
        self.status = []
        self.create_subscription(Imu, "/imu/data", self.imu_out.append, rel)
        self.create_subscription(FaultStatus, "/fault_injector/status", self.status.append, qos_profile_sensor_data)
        # One client for every call: the stall was per client.
        self.set_cli = self.create_client(SetFault, "/fault_injector/set_fault")

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.01)

    def call(self, req, timeout=10.0):
        fut = self.set_cli.call_async(req)
        end = time.monotonic() + timeout
        while not fut.done() and time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.02)
        return fut.result() if fut.done() else None

    def set_fault(self, **kw):
        req = SetFault.Request()
        for k, v in kw.items():
            setattr(req.fault, k, v)
        return self.call(req)

    def imu(self, seq):
        m = Imu()
        m.header.frame_id = "imu_link"
        m.header.stamp.sec = 3000 + seq
        m.orientation.w = 1.0
        m.angular_velocity.z = 0.125
        m.linear_acceleration.x = 0.5
        return m

    def relay(self, n=40, rate_hz=50.0):
        """Publishes n Imu messages and returns what came out."""
        self.imu_out.clear()
        for i in range(n):
            self.imu_pub.publish(self.imu(i))
            self.spin_for(1.0 / rate_hz)
        self.spin_for(0.3)
        return list(self.imu_out)


def finite_imu(m):
    vals = [m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w,
            m.angular_velocity.x, m.angular_velocity.y, m.angular_velocity.z,
            m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z]
    vals += list(m.orientation_covariance) + list(m.angular_velocity_covariance)
    vals += list(m.linear_acceleration_covariance)
    return all(math.isfinite(v) for v in vals)


def main():
    rclpy.init()
    p = Peer()
    ok = p.set_cli.wait_for_service(timeout_sec=30.0)
    check("service /fault_injector/set_fault discovered", ok)
    if not ok:
        sys.exit(1)
    out = []
    deadline = time.monotonic() + 20.0
    while not out and time.monotonic() < deadline:
        out = p.relay(10)
    check("healthy imu relayed before the hostile calls", len(out) > 0)

    # 1. The garbage call that used to kill the node on the next Imu message.
    for ch in ["imu", "gnss"]:
        r = p.set_fault(channel=ch, mode=FaultSpec.GARBAGE, garbage_min=-1.0e308, garbage_max=1.0e308)
        check(f"garbage -1e308..1e308 on {ch} answered", r is not None, "" if r else "no response")
        if r is not None:
            check(f"garbage -1e308..1e308 on {ch} refused naming garbage_max",
                  not r.success and "garbage_max" in r.message, r.message)
    out = p.relay(40)
    check("node keeps relaying imu after the garbage calls", len(out) >= 20, f"received {len(out)} of 40")
    check("relayed imu values are finite", out and all(finite_imu(m) for m in out))

    # An accepted garbage fault with allow_non_finite false: finite values only.
    r = p.set_fault(channel="imu", mode=FaultSpec.GARBAGE, garbage_min=-8.0e307, garbage_max=8.0e307)
    check("widest finite garbage span accepted", r is not None and r.success, r.message if r else "no response")
    out = p.relay(40)
    check("garbage imu relayed with finite values (allow_non_finite false)",
          len(out) >= 20 and all(finite_imu(m) for m in out), f"received {len(out)}")
    r = p.set_fault(channel="imu", mode=FaultSpec.HEALTHY)
    check("imu back to healthy", r is not None and r.success)

    # 2. Oversized channel strings: refused, not echoed, and the same client
    # is answered afterwards.
    for size in [70_000, 200_000]:
        t0 = time.monotonic()
        req = SetFault.Request()
        req.fault.channel = "x" * size
        req.fault.mode = FaultSpec.DROPOUT
        r = p.call(req, timeout=20.0)
        dt = time.monotonic() - t0
        check(f"{size // 1000} kB channel answered", r is not None, f"{'answered' if r else 'no response'} in {dt:.1f} s")
        if r is not None:
            check(f"{size // 1000} kB channel refused with a short message",
                  not r.success and len(r.message) < 300 and "x" * 100 not in r.message,
                  f"{len(r.message)} bytes: {r.message[:120]}")
        r = p.set_fault(channel="imu", mode=FaultSpec.HEALTHY)
        check(f"same client's next call answered after the {size // 1000} kB one", r is not None and r.success,
              r.message if r else "no response")

    # 3. Status still answers; no stage panic was contained (nothing panicked).
    p.status.clear()
    p.spin_for(1.5)
    st = p.status[-1] if p.status else None
    check("status still published", st is not None)
    if st is not None:
        panics = {c.channel: c.stage_panics for c in st.channels}
        check("status: no contained stage panic", all(v == 0 for v in panics.values()), str(panics))
    out = p.relay(20)
    check("imu still relayed at the end", len(out) >= 10, f"received {len(out)} of 20")

    p.destroy_node()
    rclpy.shutdown()
    print(f"rclpy hostile peer: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
