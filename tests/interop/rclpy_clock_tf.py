"""Interop peer, phase 12: /clock and /tf faults (REQ-FAULT-TF-CLOCK).

The injector runs with tests/interop/clock_tf_channels.yaml under
`-p use_sim_time:=true`: channel `clock` relays rosgraph_msgs/Clock
/clock_raw -> /clock, channel `tf` relays tf2_msgs/TFMessage /tf_raw -> /tf,
both as raw CDR through fault stacks. This rclpy node (Fast DDS) owns the raw
clock: sim time from 100 s in 20 ms steps at 50 Hz. Each tick it also
publishes one /tf_raw message holding map->odom and odom->base_link, stamped
with the tick's sim time. No tf2_msgs wheel exists on PyPI, so /tf_raw is
written and /tf read with Cyclone DDS in the same domain (the DDS under
rmw_cyclonedds); /clock, the services and ~/stack_status go through rclpy.

Checks (sim-time values are exact: the injector's clock is the raw clock, so
its decisions fall on the 20 ms grid of the raw stamps):
  A. passthrough: /clock arrives in exact 20 ms steps;
  B. throttle 20 Hz: the passed stamps alternate 60 / 40 ms (2 of every 5),
     20 Hz of sim time; the share of sent ticks that arrive is 0.4 within
     2 messages of the window's edges; the wall rate is printed;
  C. jump back (bias -10 on clock.sec from 0.5 s on): every step is exactly
     +20 ms but one, which is exactly +20 ms - 10 s; the last value + 10 s
     was sent; ~/stack_status stamps (the injector's clock) stay with the
     raw clock, 10 s ahead of its faulted output;
  D. stall (drop p=1 for 1 s from 0.5 s on): every step is 20 ms but one gap
     of exactly 1.04 s (window closed at both ends on the 20 ms grid); the
     stack_status stamps keep advancing while /clock is silent;
  E. tf drop selected on odom->base_link: map->odom still arrives (alone,
     values unchanged), odom->base_link never;
  F. tf delay 0.2 s selected on odom->base_link: it arrives alone, 0.18..0.30
     s of sim time after its stamp (the injector's clock moves in 20 ms raw
     steps and the transform may reach it before or after its tick's clock
     message: 0.18 or 0.20 s; the peer reads its sim time when it takes the
     message, up to a few ticks later under load), map->odom arrives at once;
     the wall delays are printed.
"""

import os
import sys
import time
from dataclasses import dataclass, field

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from diagnostic_msgs.msg import DiagnosticArray
from kraken_interfaces.srv import SetFaultStack
from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import sequence
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

from dds_types import Header_, Quaternion_, Time_, Vector3_  # tests/interop/dds_types.py

FAILED = []
STEP = 20_000_000  # ns per tick
SEC = 1_000_000_000


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
    print(f"{'PASS' if ok else 'FAIL'} clock_tf: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


def tstamp(parent, child, ns, x):
    sec, nsec = divmod(ns, SEC)
    return TransformStamped_(
        header=Header_(stamp=Time_(sec=sec, nanosec=nsec), frame_id=parent),
        child_frame_id=child,
        transform=Transform_(translation=Vector3_(x=x, y=0.5, z=0.0), rotation=Quaternion_(w=1.0)),
    )


class Peer(Node):
    def __init__(self):
        super().__init__("clock_tf_peer")
        q = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        self.ns = 100 * SEC
        self.sent = {}  # raw clock ns -> wall time it was published
        self.clock_pub = self.create_publisher(Clock, "/clock_raw", q)
        self.clock_in = []  # (ns, wall)
        self.create_subscription(Clock, "/clock", self.on_clock, q)
        self.status = []  # (stamp ns, peer sim ns at receipt, {key: value} of the clock channel)
        self.create_subscription(DiagnosticArray, "/fault_injector/stack_status", self.on_status, 10)
        self.set_cli = self.create_client(SetFaultStack, "/fault_injector/set_fault_stack")
        dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
        dq = Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.History.KeepLast(100))
        self.tf_writer = DataWriter(dp, Topic(dp, "rt/tf_raw", TFMessage_), qos=dq)
        self.tf_reader = DataReader(dp, Topic(dp, "rt/tf", TFMessage_), qos=dq)
        self.tf_in = []  # (list of (parent, child, stamp ns, x), wall, peer sim ns)
        self.create_timer(0.02, self.tick)

    def tick(self):
        self.ns += STEP
        m = Clock()
        m.clock.sec, m.clock.nanosec = divmod(self.ns, SEC)
        self.clock_pub.publish(m)
        self.sent[self.ns] = time.monotonic()
        k = (self.ns - 100 * SEC) // STEP
        self.tf_writer.write(TFMessage_(transforms=[
            tstamp("map", "odom", self.ns, 1.0 + k * 1e-3),
            tstamp("odom", "base_link", self.ns, 2.0 + k * 1e-3),
        ]))

    def on_clock(self, m):
        self.clock_in.append((m.clock.sec * SEC + m.clock.nanosec, time.monotonic()))

    def on_status(self, a):
        for s in a.status:
            if s.hardware_id == "clock":
                self.status.append((a.header.stamp.sec * SEC + a.header.stamp.nanosec, self.ns,
                                    {k.key: k.value for k in s.values}))

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.005)
            for m in self.tf_reader.take(N=100):
                ts = [(t.header.frame_id, t.child_frame_id, t.header.stamp.sec * SEC + t.header.stamp.nanosec,
                       t.transform.translation.x) for t in m.transforms]
                self.tf_in.append((ts, time.monotonic(), self.ns))

    def set_stack(self, channel, yaml):
        if not self.set_cli.wait_for_service(timeout_sec=10.0):
            raise RuntimeError("set_fault_stack not available")
        fut = self.set_cli.call_async(SetFaultStack.Request(channel=channel, stack_yaml=yaml, append=False))
        end = time.monotonic() + 10
        while not fut.done() and time.monotonic() < end:
            self.spin_for(0.01)
        if not fut.done():
            raise RuntimeError("set_fault_stack: no response")
        r = fut.result()
        check(f"set_fault_stack {channel} {yaml!r} accepted", r.success, r.message)
        return r


def steps(values):
    return [b - a for a, b in zip(values, values[1:])]


def main():
    rclpy.init()
    p = Peer()
    t0 = time.monotonic()
    deadline = t0 + 30
    while time.monotonic() < deadline and not (p.clock_in and p.tf_in):
        p.spin_for(0.1)
    check("relays matched (/clock and /tf arrive)", bool(p.clock_in and p.tf_in),
          f"{len(p.clock_in)} clock, {len(p.tf_in)} tf after {time.monotonic() - t0:.1f} s")

    # A. Passthrough.
    p.clock_in.clear()
    p.spin_for(1.0)
    vals = [v for v, _ in p.clock_in]
    check("passthrough: /clock in exact 20 ms steps", len(vals) > 20 and set(steps(vals)) == {STEP},
          f"{len(vals)} values, steps {sorted(set(steps(vals)))[:5]}")

    # B. Throttle 20 Hz.
    p.set_stack("clock", "[{fault: {throttle: {rate_hz: 20.0}}}]")
    p.spin_for(0.3)
    p.clock_in.clear()
    sent0, w0 = len(p.sent), time.monotonic()
    p.spin_for(2.0)
    sent_n, wall = len(p.sent) - sent0, time.monotonic() - w0
    vals = [v for v, _ in p.clock_in]
    st = steps(vals)
    alternating = set(st) <= {40_000_000, 60_000_000} and all(a + b == 100_000_000 for a, b in zip(st, st[1:]))
    sim_rate = (len(vals) - 1) / ((vals[-1] - vals[0]) / SEC) if len(vals) > 2 else 0.0
    check("throttle 20 Hz: stamps alternate +60/+40 ms (2 of every 5 ticks): 20 Hz of sim time",
          len(vals) > 10 and alternating and abs(sim_rate - 20.0) < 0.5,
          f"{len(vals)} passed, sim rate {sim_rate:.2f} Hz, steps {sorted(set(st))}")
    check("throttle 20 Hz: 0.4 of the sent ticks arrive (within 2 for the window's edges)",
          abs(len(vals) - 0.4 * sent_n) <= 2,
          f"{len(vals)} of {sent_n} sent; wall {len(vals) / wall:.2f} Hz received, {sent_n / wall:.2f} Hz sent")

    # C. Jump back 10 s from 0.5 s on (permanent).
    p.set_stack("clock", "[{fault: {field: {path: clock.sec, mode: bias, bias: -10}}, window: {at_s: 0.5}}]")
    p.spin_for(0.2)  # what the throttle passed is out of the way; the jump comes at 0.5 s
    p.clock_in.clear()
    p.status.clear()
    p.spin_for(2.0)
    vals = [v for v, _ in p.clock_in]
    st = steps(vals)
    jumps = [s for s in st if s != STEP]
    check("jump back: every step +20 ms but one of exactly +20 ms - 10 s; the last value + 10 s was sent",
          len(vals) > 50 and jumps == [STEP - 10 * SEC] and (vals[-1] + 10 * SEC) in p.sent,
          f"{len(vals)} values, other steps {jumps[:3]}, last {vals[-1] / SEC if vals else None}")
    late = [(s, raw) for s, raw, _ in p.status[-2:]]
    out_last = vals[-1] if vals else 0
    check("jump back: the injector's own clock (stack_status stamps) stays with the raw clock, 10 s ahead of /clock",
          len(late) == 2 and all(abs(s - raw) < SEC // 2 and s - out_last > 9 * SEC for s, raw in late),
          f"stamps {[s / SEC for s, _ in late]}, raw {[r / SEC for _, r in late]}, /clock {out_last / SEC}")

    # D. Stall 1 s from 0.5 s on.
    p.set_stack("clock", "")
    p.spin_for(0.3)
    p.set_stack("clock", "[{fault: {drop: {probability: 1.0}}, window: {at_s: 0.5, duration_s: 1.0}}]")
    p.clock_in.clear()
    p.status.clear()
    p.spin_for(2.5)
    vals = [v for v, _ in p.clock_in]
    st = steps(vals)
    gaps = [s for s in st if s != STEP]
    check("stall: every step 20 ms but one gap of exactly 1.04 s", gaps == [1_040_000_000],
          f"{len(vals)} values, gaps {[g / SEC for g in gaps]}")
    if gaps == [1_040_000_000]:
        k = st.index(1_040_000_000)
        lo, hi = vals[k], vals[k + 1]
        inside = [s for s, _, _ in p.status if lo < s < hi]
        check("stall: stack_status stamps advance while /clock is silent (the injector's clock did not stall)",
              len(inside) >= 2 and inside == sorted(inside) and inside[-1] - inside[0] >= 400_000_000,
              f"{[round(s / SEC, 3) for s in inside]} within ({lo / SEC}, {hi / SEC})")
    kv = p.status[-1][2] if p.status else {}
    check("stall: the stage's window ended (active false) on the raw clock",
          kv.get("stage0.active") == "false" and int(kv.get("stage0.withheld", "0")) == 51,
          str({k: v for k, v in kv.items() if k.startswith("stage0")}))
    p.set_stack("clock", "")

    # E. TF: drop odom->base_link only.
    sel = "select: {sequence: transforms, where: {header.frame_id: odom, child_frame_id: base_link}}"
    p.set_stack("tf", f"[{{fault: {{drop: {{probability: 1.0}}}}, {sel}}}]")
    p.spin_for(0.3)
    p.tf_in.clear()
    p.spin_for(1.0)
    pairs = [(a, b) for ts, _, _ in p.tf_in for a, b, _, _ in ts]
    exact = all(len(ts) == 1 and ts[0][3] == 1.0 + (ts[0][2] - 100 * SEC) // STEP * 1e-3 for ts, _, _ in p.tf_in)
    check("tf drop selected: map->odom arrives alone with its values, odom->base_link never",
          len(p.tf_in) >= 20 and pairs.count(("map", "odom")) == len(p.tf_in)
          and ("odom", "base_link") not in pairs and exact,
          f"{len(p.tf_in)} messages: {sorted(set(pairs))}")

    # F. TF: delay odom->base_link 0.2 s.
    p.set_stack("tf", f"[{{fault: {{delay: {{delay_s: 0.2}}}}, {sel}}}]")
    p.spin_for(0.4)
    p.tf_in.clear()
    p.spin_for(1.5)
    delayed = [(ts[0], w, raw) for ts, w, raw in p.tf_in if [t[:2] for t in ts] == [("odom", "base_link")]]
    direct = [(ts[0], w, raw) for ts, w, raw in p.tf_in if [t[:2] for t in ts] == [("map", "odom")]]
    sim_d = [(raw - t[2]) / SEC for t, _, raw in delayed]
    wall_d = sorted(w - p.sent[t[2]] for t, w, _ in delayed if t[2] in p.sent)
    direct_d = sorted(w - p.sent[t[2]] for t, w, _ in direct if t[2] in p.sent)
    check("tf delay selected: odom->base_link alone, 0.18..0.30 s of sim time after its stamp",
          len(delayed) >= 20 and all(0.18 <= d <= 0.30 for d in sim_d) and len(delayed) + len(direct) == len(p.tf_in),
          f"{len(delayed)} delayed, sim delay {min(sim_d, default=0):.3f}..{max(sim_d, default=0):.3f} s; wall delay "
          f"p50 {wall_d[len(wall_d) // 2] if wall_d else 0:.3f} s, max {max(wall_d, default=0):.3f} s")
    check("tf delay selected: map->odom not delayed (wall p50 < 0.1 s)",
          len(direct) >= 20 and direct_d[len(direct_d) // 2] < 0.1,
          f"{len(direct)} direct, wall p50 {direct_d[len(direct_d) // 2] if direct_d else 0:.3f} s")
    p.set_stack("tf", "")

    p.destroy_node()
    rclpy.shutdown()
    print(f"clock_tf: {len(FAILED)} failed; took {time.monotonic() - t0:.1f} s", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
