"""Interop peer: a channel of any message type (REQ-FAULT-ANY-TYPE).

The injector runs with tests/interop/any_type_channels.yaml: channel
`sonar` relays sensor_msgs/msg/Range /sonar_raw -> /sonar as raw CDR. This
rclpy node (Fast DDS) publishes Range messages and checks, on /sonar:
  1. with no stack, every field arrives unchanged;
  2. after ~/set_fault_stack [{field: {path: range, mode: set, value: nan}}]
     (called from rclpy), `range` is exactly NaN and every other field is
     unchanged;
  3. after appending a drop stage with probability 1.0 (append: true),
     nothing arrives;
  4. after ~/clear_fault_stage of the drop stage's id, delivery resumes
     (still NaN: the field stage stays);
  5. a bad stack (unknown path) is refused and changes nothing; ~/set_fault
     on the dynamic channel is refused with a pointer to ~/set_fault_stack;
  6. ~/stack_status (diagnostic_msgs/DiagnosticArray) lists the channel's
     stages with their ids and counts;
  7. a replacing stack with a 0.3 s delay holds each message that long (the
     node's hold queue on the wall clock), and an empty stack_yaml clears it;
  8. channel `sonar_be` publishes best effort (`qos.output`, an injected QoS
     mismatch): a best-effort subscriber gets its messages, a reliable one
     gets none and is told why (an incompatible-QoS event, RELIABILITY); and
     the reverse on its (reliable) input: a best-effort publisher on
     /sonar_be_raw is told RELIABILITY too (the injector's own WARN for each
     side is checked by scripts/interop.sh).

With `--sim` (injector under `-p use_sim_time:=true`) it publishes
rosgraph_msgs/Clock itself (from 100 s, 10 ms steps at 100 Hz, pausable) and
checks that a 0.5 s delay stage counts sim time: nothing leaves while the
clock is paused, the message leaves once sim time passed 0.5 s, and
~/stack_status is stamped with sim time.
"""

import math
import struct
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Range
from diagnostic_msgs.msg import DiagnosticArray
from kraken_interfaces.msg import FaultSpec
from kraken_interfaces.srv import ClearFaultStage, SetFault, SetFaultStack

FAILED = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} any_type: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


class Peer(Node):
    def __init__(self):
        super().__init__("any_type_peer")
        qos = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
        self.pub = self.create_publisher(Range, "/sonar_raw", qos)
        self.got = []
        self.create_subscription(Range, "/sonar", self.got.append, qos)
        self.status = []
        self.create_subscription(DiagnosticArray, "/fault_injector/stack_status", self.status.append, 10)
        self.set_stack = self.create_client(SetFaultStack, "/fault_injector/set_fault_stack")
        self.clear_stage = self.create_client(ClearFaultStage, "/fault_injector/clear_fault_stage")
        self.set_fault = self.create_client(SetFault, "/fault_injector/set_fault")
        self.seq = 0

    def spin_for(self, s):
        end = time.monotonic() + s
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.02)

    def call(self, client, req, timeout=10.0):
        if not client.wait_for_service(timeout_sec=timeout):
            raise RuntimeError(f"service {client.srv_name} not available")
        fut = client.call_async(req)
        end = time.monotonic() + timeout
        while not fut.done() and time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.05)
        if not fut.done():
            raise RuntimeError(f"{client.srv_name}: no response")
        return fut.result()

    def sample(self):
        self.seq += 1
        m = Range()
        m.header.stamp.sec = 100 + self.seq
        m.header.stamp.nanosec = 123456789
        m.header.frame_id = "sonar_link"
        m.radiation_type = Range.INFRARED
        m.field_of_view = 0.26
        m.min_range = 0.02
        m.max_range = 4.0
        m.range = 1.25 + 0.001 * self.seq
        m.variance = 0.0004
        return m

    def burst(self, n=10, wait=1.0):
        """Publishes n samples; returns (sent, received on /sonar of those).

        Only this burst's messages count (by their unique stamps): a message
        of the warm-up or of an earlier burst that arrives late (seen in CI:
        a reliable writer matched late resends its history, 27 warm-up
        samples arrived during the first burst) is not this burst's result.
        A duplicate of a burst message still counts, and fails the checks.
        """
        self.got.clear()
        sent = []
        for _ in range(n):
            m = self.sample()
            sent.append(m)
            self.pub.publish(m)
            self.spin_for(0.02)
        self.spin_for(wait)
        secs = {m.header.stamp.sec for m in sent}
        return sent, [m for m in self.got if m.header.stamp.sec in secs]


def f32(x):
    """x as the float32 the wire carries (a sent rclpy message keeps the double)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same_but_range(a, b):
    """Every field but `range` equal; a is the sent message, b the received one."""
    return (
        a.header.stamp.sec == b.header.stamp.sec
        and a.header.stamp.nanosec == b.header.stamp.nanosec
        and a.header.frame_id == b.header.frame_id
        and a.radiation_type == b.radiation_type
        and f32(a.field_of_view) == b.field_of_view
        and f32(a.min_range) == b.min_range
        and f32(a.max_range) == b.max_range
        and f32(a.variance) == b.variance
    )


def main():
    rclpy.init()
    p = Peer()
    # Wait for the relay to match both ends.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        p.pub.publish(p.sample())
        p.spin_for(0.1)
        if p.got:
            break
    check("relay matched (a Range arrives on /sonar)", bool(p.got))

    sent, got = p.burst()
    by_stamp = {m.header.stamp.sec: m for m in got}
    ok = len(got) == len(sent) and all(
        s.header.stamp.sec in by_stamp
        and same_but_range(s, by_stamp[s.header.stamp.sec])
        and by_stamp[s.header.stamp.sec].range == f32(s.range)
        for s in sent
    )
    check("no stack: every field unchanged", ok, f"{len(got)}/{len(sent)}")

    r = p.call(p.set_stack, SetFaultStack.Request(
        channel="sonar", stack_yaml="[{fault: {field: {path: range, mode: set, value: nan}}}]", append=False))
    check("set_fault_stack field set nan accepted", r.success and len(r.ids) == 1, r.message)
    field_id = r.ids[0] if r.ids else 0
    sent, got = p.burst()
    by_stamp = {m.header.stamp.sec: m for m in got}
    ok = len(got) == len(sent) and all(
        s.header.stamp.sec in by_stamp
        and math.isnan(by_stamp[s.header.stamp.sec].range)
        and same_but_range(s, by_stamp[s.header.stamp.sec])
        for s in sent
    )
    check("range is NaN, all other fields unchanged", ok, f"{len(got)}/{len(sent)}")

    r = p.call(p.set_stack, SetFaultStack.Request(
        channel="sonar", stack_yaml="- fault: {drop: {probability: 1.0}}", append=True))
    check("append drop p=1 accepted, two ids", r.success and len(r.ids) == 2 and r.ids[0] == field_id, f"{r.message} {list(r.ids)}")
    drop_id = r.ids[-1] if r.ids else 0
    sent, got = p.burst()
    check("drop p=1: nothing arrives", len(got) == 0, f"{len(got)} arrived")

    bad = p.call(p.set_stack, SetFaultStack.Request(
        channel="sonar", stack_yaml="[{fault: {field: {path: no_such_field, mode: set, value: 1}}}]", append=False))
    check("unknown path refused, ids unchanged",
          not bad.success and "no_such_field" in bad.message and list(bad.ids) == [field_id, drop_id], bad.message)
    # A typed data mode on a raw channel that declares no fault_fields (the
    # paths ~/set_fault's modes act on, REQ-FAULT-ACTUATOR) is refused, and
    # the stack stays as it was.
    spec = FaultSpec(channel="sonar", mode=FaultSpec.SCALE, scale_factor=0.5)
    sf = p.call(p.set_fault, SetFault.Request(fault=spec))
    check("set_fault scale on a raw channel without fault_fields refused",
          not sf.success and "fault_fields" in sf.message and "set_fault_stack" in sf.message, sf.message)

    c = p.call(p.clear_stage, ClearFaultStage.Request(channel="sonar", id=drop_id))
    check("clear_fault_stage by id", c.success, c.message)
    c2 = p.call(p.clear_stage, ClearFaultStage.Request(channel="sonar", id=drop_id))
    check("clearing it again is refused", not c2.success, c2.message)
    sent, got = p.burst()
    check("delivery restored (still NaN)", len(got) == len(sent) and all(math.isnan(m.range) for m in got),
          f"{len(got)}/{len(sent)}")

    p.status.clear()
    p.spin_for(2.5)
    st = [s for a in p.status for s in a.status if s.hardware_id == "sonar"]
    kv = {k.key: k.value for k in st[-1].values} if st else {}
    check("stack_status lists the stage with id and counts",
          kv.get("stage0.id") == str(field_id) and int(kv.get("stage0.changed", "0")) >= 20
          and kv.get("cleared0.id") == str(drop_id) and int(kv.get("cleared0.withheld", "0")) == 10
          and kv.get("stage0.active") == "true" and kv.get("type") == "sensor_msgs/msg/Range",
          str({k: v for k, v in kv.items() if k.startswith(("stage0", "cleared0", "type"))}))

    r = p.call(p.set_stack, SetFaultStack.Request(
        channel="sonar", stack_yaml="[{fault: {delay: {delay_s: 0.3}}}]", append=False))
    check("replace with delay 0.3 s: one new id", r.success and len(r.ids) == 1 and r.ids[0] > drop_id, f"{r.message} {list(r.ids)}")
    lat = []
    for _ in range(3):
        p.got.clear()
        t0 = time.monotonic()
        m = p.sample()
        p.pub.publish(m)
        while not p.got and time.monotonic() - t0 < 3.0:
            rclpy.spin_once(p, timeout_sec=0.005)
        if p.got:
            lat.append(time.monotonic() - t0)
            ok_fields = p.got[0].range == f32(m.range) and same_but_range(m, p.got[0])
    check("delay 0.3 s: held 0.3..0.6 s, unchanged",
          len(lat) == 3 and all(0.29 <= x < 0.6 for x in lat) and ok_fields, f"latencies {[round(x, 3) for x in lat]}")
    r = p.call(p.set_stack, SetFaultStack.Request(channel="sonar", stack_yaml="", append=False))
    check("empty stack_yaml clears the stack", r.success and len(r.ids) == 0, r.message)
    qos_mismatch(p)

    p.destroy_node()
    rclpy.shutdown()
    print(f"any_type: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


def qos_mismatch(p):
    """Check 8: the injected QoS mismatch of channel sonar_be."""
    from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
    from rclpy.qos import QoSPolicyKind
    reliable, best_effort, events, offered = [], [], [], []
    pub = p.create_publisher(Range, "/sonar_be_raw", QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    # Never published on: only offered to the injector's reliable input, which refuses it.
    p.create_publisher(Range, "/sonar_be_raw", QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT),
                       event_callbacks=PublisherEventCallbacks(incompatible_qos=offered.append))
    p.create_subscription(Range, "/sonar_be", reliable.append,
                          QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE),
                          event_callbacks=SubscriptionEventCallbacks(incompatible_qos=events.append))
    p.create_subscription(Range, "/sonar_be", best_effort.append,
                          QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT))
    end = time.monotonic() + 20
    while time.monotonic() < end and not best_effort:
        pub.publish(p.sample())
        p.spin_for(0.1)
    best_effort.clear()
    for _ in range(20):
        pub.publish(p.sample())
        p.spin_for(0.05)
    p.spin_for(0.5)
    check("qos.output best_effort: a best-effort subscriber gets the stream", len(best_effort) >= 15, f"{len(best_effort)} of 20")
    check("qos.output best_effort: a reliable subscriber gets nothing", not reliable, f"{len(reliable)} arrived")
    kinds = [e.last_policy_kind for e in events]
    check("qos.output best_effort: the reliable subscriber's incompatible-QoS event names RELIABILITY",
          QoSPolicyKind.RELIABILITY in kinds, str(kinds))
    kinds = [e.last_policy_kind for e in offered]
    check("a best-effort publisher into the reliable input /sonar_be_raw is told RELIABILITY",
          QoSPolicyKind.RELIABILITY in kinds, str(kinds))


def sim_main():
    rclpy.init()
    p = Peer()
    state = {"ns": 100 * 10**9, "paused": False}
    clock_pub = p.create_publisher(Clock, "/clock", 10)

    def tick():
        if not state["paused"]:
            state["ns"] += 10_000_000
        m = Clock()
        m.clock.sec, m.clock.nanosec = divmod(state["ns"], 10**9)
        clock_pub.publish(m)

    p.create_timer(0.01, tick)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not p.got:
        p.pub.publish(p.sample())
        p.spin_for(0.1)
    check("sim: relay matched", bool(p.got))
    r = p.call(p.set_stack, SetFaultStack.Request(
        channel="sonar", stack_yaml="[{fault: {delay: {delay_s: 0.5}}}]", append=False))
    check("sim: delay 0.5 s accepted", r.success, r.message)
    p.spin_for(0.3)
    p.got.clear()
    state["paused"] = True
    p.spin_for(0.1)
    t_pub = state["ns"]
    p.pub.publish(p.sample())
    p.spin_for(1.0)
    check("sim: nothing leaves while the clock is paused (1 s wall)", not p.got, f"{len(p.got)} arrived")
    state["paused"] = False
    end = time.monotonic() + 5
    while not p.got and time.monotonic() < end:
        rclpy.spin_once(p, timeout_sec=0.005)
    waited = (state["ns"] - t_pub) / 1e9
    check("sim: released after 0.5 s of sim time", len(p.got) == 1 and 0.5 <= waited < 0.8, f"{len(p.got)} after {waited:.2f} sim s")
    p.status.clear()
    p.spin_for(1.5)
    stamps = [a.header.stamp.sec + a.header.stamp.nanosec / 1e9 for a in p.status]
    check("sim: stack_status stamped with sim time", bool(stamps) and all(100 < t < 1000 for t in stamps), str(stamps[:3]))
    p.destroy_node()
    rclpy.shutdown()
    print(f"any_type: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    if "--sim" in sys.argv:
        sim_main()
    else:
        main()
