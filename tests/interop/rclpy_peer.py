"""Interop peer: ROS 2 Jazzy rclpy on Fast DDS against our fault_injector.

Publishes NavSatFix and Imu into the injector's input topics, checks the
faulted output values, and calls /fault_injector/set_fault (the real
rosidl-generated kraken_interfaces/srv/SetFault) and /fault_injector/clear_faults
(std_srvs/srv/Trigger). Prints one line per check; exits 1 if any failed.

Run by scripts/interop.sh inside a private network namespace, with
ROS_DOMAIN_ID set to a domain of its own and the injector already started.
"""

import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Imu, NavSatFix, NavSatStatus
from std_srvs.srv import Trigger
from rcl_interfaces.srv import GetParameters
from kraken_interfaces.msg import FaultSpec, FaultStatus
from kraken_interfaces.srv import SetFault

FAILED = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} rclpy: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


class Peer(Node):
    def __init__(self):
        super().__init__("interop_peer_rclpy")
        rel = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
        self.gnss_pub = self.create_publisher(NavSatFix, "/gnss/fix_raw", rel)
        self.imu_pub = self.create_publisher(Imu, "/imu/data_raw", qos_profile_sensor_data)
        self.gnss_out = []
        self.imu_out = []
        self.status = []
        self.create_subscription(NavSatFix, "/gnss/fix", self.gnss_out.append, qos_profile_sensor_data)
        # A reliable reader: our reliable writer must match it too.
        self.create_subscription(Imu, "/imu/data", self.imu_out.append, rel)
        self.create_subscription(FaultStatus, "/fault_injector/status", self.status.append, qos_profile_sensor_data)
        self.set_cli = self.create_client(SetFault, "/fault_injector/set_fault")
        self.clear_cli = self.create_client(Trigger, "/fault_injector/clear_faults")

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.01)

    def call(self, cli, req, timeout=10.0):
        fut = cli.call_async(req)
        end = time.monotonic() + timeout
        while not fut.done() and time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.02)
        return fut.result() if fut.done() else None

    def set_fault(self, **kw):
        req = SetFault.Request()
        for k, v in kw.items():
            setattr(req.fault, k, v)
        return self.call(self.set_cli, req)

    def fix(self, seq):
        m = NavSatFix()
        m.header.frame_id = "gnss"
        m.header.stamp.sec = 1000 + seq
        m.status.status = NavSatStatus.STATUS_GBAS_FIX
        m.status.service = NavSatStatus.SERVICE_GPS
        m.latitude = 52.2297
        m.longitude = 21.0122
        m.altitude = 110.5
        m.position_covariance = [0.25, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 1.0]
        m.position_covariance_type = NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
        return m

    def imu(self, seq):
        m = Imu()
        m.header.frame_id = "imu_link"
        m.header.stamp.sec = 2000 + seq
        m.orientation.w = 1.0
        m.angular_velocity.z = 0.125
        m.angular_velocity_covariance = [0.25, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.25]
        m.linear_acceleration.x = 0.5
        return m

    def exchange(self, pub, make, out, pred, timeout=10.0, rate_hz=20.0):
        """Publishes make(seq) at rate_hz until a received message satisfies pred; returns it or None."""
        out.clear()
        seq = 0
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pub.publish(make(seq))
            seq += 1
            self.spin_for(1.0 / rate_hz)
            for m in out:
                if pred(m):
                    return m
        return None


def main():
    rclpy.init()
    p = Peer()
    ok = p.set_cli.wait_for_service(timeout_sec=30.0) and p.clear_cli.wait_for_service(timeout_sec=10.0)
    check("services /fault_injector/set_fault and clear_faults discovered", ok)
    if not ok:
        sys.exit(1)
    # The node list comes from ros_discovery_info, which can arrive after the
    # services are matched on a loaded machine: poll for up to 15 s.
    deadline = time.monotonic() + 15.0
    names = []
    while time.monotonic() < deadline:
        names = [n for n, _ in p.get_node_names_and_namespaces()]
        if "fault_injector" in names:
            break
        p.spin_for(0.2)
    check("fault_injector appears in the node list", "fault_injector" in names, f"nodes={names}")

    # Parameters are visible to ros2 param (the driver starts the node with -p seed:=5).
    pc = p.create_client(GetParameters, "/fault_injector/get_parameters")
    r = p.call(pc, GetParameters.Request(names=["seed"])) if pc.wait_for_service(timeout_sec=10.0) else None
    check("ros2 param: /fault_injector seed = 5 via get_parameters",
          r is not None and len(r.values) == 1 and r.values[0].integer_value == 5,
          str(r.values) if r else "no response")

    # Healthy passthrough, bit-exact on the fields we set.
    m = p.exchange(p.gnss_pub, p.fix, p.gnss_out, lambda m: m.header.stamp.sec >= 1000)
    check("healthy gnss passes through", m is not None)
    if m is not None:
        ref = p.fix(m.header.stamp.sec - 1000)
        same = (m.latitude == ref.latitude and m.longitude == ref.longitude and m.altitude == ref.altitude
                and m.status.status == 2 and list(m.position_covariance) == list(ref.position_covariance)
                and m.header.frame_id == "gnss" and m.position_covariance_type == 2)
        check("healthy gnss is bit-exact", same, f"lat={m.latitude} status={m.status.status}")
    m = p.exchange(p.imu_pub, p.imu, p.imu_out, lambda m: m.header.stamp.sec >= 2000)
    check("healthy imu passes through", m is not None and m.angular_velocity_covariance[0] == 0.25
          and m.angular_velocity.z == 0.125)

    # set_fault: imu degrade, covariance x 4, no noise -> 0.25 * 4 = 1.0 exactly.
    r = p.set_fault(channel="imu", mode=FaultSpec.DEGRADE, noise_stddev=0.0, covariance_scale=4.0)
    check("set_fault imu degrade accepted", r is not None and r.success, r.message if r else "no response")
    m = p.exchange(p.imu_pub, p.imu, p.imu_out, lambda m: m.angular_velocity_covariance[0] != 0.25)
    check("imu degrade: angular_velocity_covariance x 4 = 1.0",
          m is not None and list(m.angular_velocity_covariance) == [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]
          and m.angular_velocity.z == 0.125,
          f"cov={list(m.angular_velocity_covariance) if m else None}")

    # gnss dropout: still published, STATUS_NO_FIX (-1), unknown covariance.
    r = p.set_fault(channel="gnss", mode=FaultSpec.DROPOUT)
    check("set_fault gnss dropout accepted", r is not None and r.success, r.message if r else "no response")
    m = p.exchange(p.gnss_pub, p.fix, p.gnss_out, lambda m: m.status.status != 2)
    check("gnss dropout: status -1, covariance type 0 (unknown), covariance 0",
          m is not None and m.status.status == -1 and m.position_covariance_type == 0
          and list(m.position_covariance) == [0.0] * 9 and m.latitude == 52.2297,
          f"status={m.status.status if m else None}")
    # the imu fault is still there: faults on different channels do not overwrite each other
    m = p.exchange(p.imu_pub, p.imu, p.imu_out, lambda m: True)
    check("imu fault untouched by the gnss fault", m is not None and m.angular_velocity_covariance[0] == 1.0)

    # Status reports both faults.
    p.status.clear()
    p.spin_for(1.5)
    st = p.status[-1] if p.status else None
    modes = {c.channel: (c.fault.mode, c.active) for c in st.channels} if st else {}
    check("status: enabled, gnss dropout and imu degrade active",
          st is not None and st.enabled and modes.get("gnss") == (1, True) and modes.get("imu") == (2, True),
          f"{modes}")
    if st is not None:
        g = [c for c in st.channels if c.channel == "gnss"][0]
        check("status: gnss requested and first_applied stamps set",
              g.requested.sec > 0 and (g.first_applied.sec, g.first_applied.nanosec) >= (g.requested.sec, g.requested.nanosec))

    # Negative: unknown channel and unsupported mode are rejected, state unchanged.
    r = p.set_fault(channel="bogus", mode=FaultSpec.DROPOUT)
    check("unknown channel rejected", r is not None and not r.success and "bogus" in r.message,
          r.message if r else "no response")
    r = p.set_fault(channel="gnss", mode=FaultSpec.SLIP, slip_ratio=0.5)
    check("slip on gnss rejected as unsupported", r is not None and not r.success, r.message if r else "no response")
    m = p.exchange(p.gnss_pub, p.fix, p.gnss_out, lambda m: True)
    check("gnss still in dropout after the rejected request", m is not None and m.status.status == -1)

    # Field order of FaultSpec end to end: every field set to a distinct value,
    # decoded by the Rust node, echoed in ~/status, decoded again by rclpy.
    # A field the mode does not read must stay 0 (FaultSpec.msg, issue 24), so
    # the 29 fields are spread over one accepted request per mode; each echo
    # must carry its request's values and 0 elsewhere.
    timing = dict(duration_s=1000.5, period_s=100.25, duty_cycle=0.875, random_phase=True,
                  message_skip=3, message_count=5, message_every=2)
    groups = [
        dict(mode=FaultSpec.DELAY, delay_s=0.05, **timing),
        dict(mode=FaultSpec.DEGRADE, noise_stddev=0.03, covariance_scale=4.5),
        dict(mode=FaultSpec.BIAS_RAMP, bias_rate=0.2),
        dict(mode=FaultSpec.BIAS, bias=1.75, step_at_s=2.5),
        dict(mode=FaultSpec.SLIP, slip_ratio=0.6),
        dict(mode=FaultSpec.SCALE, scale_factor=1.1),
        dict(mode=FaultSpec.STUCK, freeze_stamp=True),
        dict(mode=FaultSpec.GARBAGE, garbage_min=-3.0, garbage_max=3.5, allow_non_finite=True),
        dict(mode=FaultSpec.SATURATION, saturation_limit=9.5),
        dict(mode=FaultSpec.PACKET_LOSS, loss_model=2, loss_probability=0.125, recovery_probability=0.375,
             burst_length=7),
        dict(mode=FaultSpec.JITTER, jitter_s=0.0625),
        dict(mode=FaultSpec.DUPLICATE, probability=0.3),
        dict(mode=FaultSpec.TIMESTAMP_JUMP, timestamp_offset_s=-1.5),
    ]
    names = [n for n in FaultSpec.get_fields_and_field_types() if n not in ("channel", "mode")]
    covered, bad, refused = set(), [], []
    for g in groups:
        r = p.set_fault(channel="odom", **g)
        if r is None or not r.success:
            refused.append((g["mode"], r.message if r else "no response"))
            continue
        echo = None
        end = time.monotonic() + 3.0
        while echo is None and time.monotonic() < end:
            p.status.clear()
            p.spin_for(0.2)
            for st in reversed(p.status):
                e = [c.fault for c in st.channels if c.channel == "odom"]
                if e and e[0].mode == g["mode"]:
                    echo = e[0]
                    break
        want = {n: g.get(n, type(getattr(FaultSpec(), n))()) for n in names}
        bad += [(g["mode"], n) for n, v in want.items() if echo is None or getattr(echo, n) != v]
        covered |= set(g) - {"mode"}
    check("set_fault accepted for every mode's fields", not refused, str(refused))
    check(f"FaultSpec round trip rclpy -> Rust -> rclpy keeps all {len(names) + 2} fields",
          not bad and covered == set(names), f"mismatched: {bad[:8]}, not covered: {set(names) - covered}")
    r = p.set_fault(channel="odom", mode=FaultSpec.DROPOUT, delay_s=0.05)
    check("a field the mode does not read is refused (delay_s on dropout)",
          r is not None and not r.success and "delay_s" in r.message, r.message if r else "no response")

    # clear_faults: everything back to bit-exact.
    r = p.call(p.clear_cli, Trigger.Request())
    check("clear_faults succeeded", r is not None and r.success, r.message if r else "no response")
    m = p.exchange(p.gnss_pub, p.fix, p.gnss_out, lambda m: m.status.status == 2)
    check("gnss healthy again after clear", m is not None and m.position_covariance[0] == 0.25)
    m = p.exchange(p.imu_pub, p.imu, p.imu_out, lambda m: m.angular_velocity_covariance[0] == 0.25)
    check("imu healthy again after clear", m is not None)

    # imu dropout: the topic goes silent.
    r = p.set_fault(channel="imu", mode=FaultSpec.DROPOUT)
    check("set_fault imu dropout accepted", r is not None and r.success)
    p.spin_for(0.3)
    p.imu_out.clear()
    for i in range(40):
        p.imu_pub.publish(p.imu(i))
        p.spin_for(0.025)
    check("imu dropout: nothing published", len(p.imu_out) == 0, f"received {len(p.imu_out)}")
    p.call(p.clear_cli, Trigger.Request())

    p.destroy_node()
    rclpy.shutdown()
    print(f"rclpy peer: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
