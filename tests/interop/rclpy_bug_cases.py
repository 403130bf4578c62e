"""Interop phase 13: the shipped bug-case scenarios through the node.

The injector runs with faults/kraken_faults/config/channels_any_type.yaml
(AMENT_PREFIX_PATH=faults/kraken_faults/tests/ament for the custom type). This rclpy
node (Fast DDS) publishes at 20 Hz on /scan_raw (LaserScan, 360 beams),
/imu/data_raw (Imu), /odom_raw (Odometry) and /transition_event_raw
(lifecycle_msgs/TransitionEvent, not a built-in type of the injector), each
message numbered (header.stamp.nanosec, TransitionEvent.timestamp), and runs
the kraken_scenario binary on the files of faults/kraken_faults/scenarios/bugs/:
313, 325 and 7607 at once (their own channels), then 2506, 3276 and 426 one
after the other (all on `scan`, each replacing the stack). It asserts the
exact values that reach it:
  * 2506: header.stamp.sec == -1, every other field as sent;
  * 3276: range_max == 0.0 and all 360 ranges 0.0, every other field as sent;
  * 426: ranges and intensities of 359, 360, 359, ... elements on consecutive
    scans (the first elements as sent), every other field as sent;
  * 313: orientation x = y = z = w = 0.0, every other field as sent;
  * 325: orientation exactly (0, 0.08715574274765817, 0, 0.9961946980917455)
    on consecutive messages from the first faulted one, then the sent
    (level) orientation again, every other field as sent;
  * 7607: one run of consecutive messages missing, none for at least 4.9 s
    (the 5 s window, minus the last message's delivery time), then every
    message again, unchanged; ~/stack_status's withheld count equals the
    number missing.
Then the one-message cases (issue 24, message windows): nav2 #2506 (one
scan stamped sec -1), robot_localization #882 (one odometry at x = 1e12),
nav2 #591 (one at x = 1.0001644e256): exactly one message of each run is
faulted, exactly, every other one as sent.
Then ~/set_fault (seed 001's call, mode healthy, through a kraken_scenario
set_fault step) on imu replaces its faults, the stack included: orientations
arrive as sent again and ~/stack_status lists no stage for imu. (No
kraken_interfaces Python types needed: every call goes through kraken_scenario.)

Usage: rclpy_bug_cases.py <kraken_scenario binary> <scenarios/bugs dir>
"""

import os
import subprocess
import sys
import tempfile
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import TransitionEvent
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, LaserScan

FAILED = []
Q_Y, Q_W = 0.08715574274765817, 0.9961946980917455


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} bug_cases: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


def f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Peer(Node):
    def __init__(self):
        super().__init__("bug_cases_peer")
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        self.seq = 0
        self.sent = {k: {} for k in ("scan", "imu", "odom", "ev")}
        self.got = {k: [] for k in ("scan", "imu", "odom", "ev")}
        self.pubs = {
            "scan": self.create_publisher(LaserScan, "/scan_raw", qos),
            "imu": self.create_publisher(Imu, "/imu/data_raw", qos),
            "odom": self.create_publisher(Odometry, "/odom_raw", qos),
            "ev": self.create_publisher(TransitionEvent, "/transition_event_raw", qos),
        }
        for key, ty, topic in (("scan", LaserScan, "/scan"), ("imu", Imu, "/imu/data"),
                               ("odom", Odometry, "/odom"), ("ev", TransitionEvent, "/transition_event")):
            self.create_subscription(ty, topic, lambda m, k=key: self.got[k].append((time.monotonic(), m)), qos)
        self.status = []
        self.create_subscription(DiagnosticArray, "/fault_injector/stack_status", self.status.append, 10)
        self.create_timer(0.05, self.tick)

    def tick(self):
        self.seq += 1
        n = self.seq
        s = LaserScan()
        s.header.stamp.sec, s.header.stamp.nanosec, s.header.frame_id = 12, n, "laser"
        s.angle_min, s.angle_max, s.angle_increment = -3.14159, 3.14159, 0.017453
        s.range_min, s.range_max = 0.1, 30.0
        s.ranges = [1.0 + i * 0.01 for i in range(360)]
        s.intensities = [100.0] * 360
        i = Imu()
        i.header.stamp.sec, i.header.stamp.nanosec, i.header.frame_id = 7, n, "imu"
        i.orientation.w = 1.0
        i.angular_velocity.z = 0.3
        i.linear_acceleration.z = 9.81
        o = Odometry()
        o.header.stamp.sec, o.header.stamp.nanosec, o.header.frame_id = 7, n, "odom"
        o.child_frame_id = "base_link"
        o.pose.pose.position.x = 2.0
        o.pose.pose.orientation.w = 1.0
        o.twist.twist.linear.x = 0.5
        e = TransitionEvent()
        e.timestamp = n
        e.transition.id, e.transition.label = 3, "activate"
        e.start_state.id, e.start_state.label = 2, "inactive"
        e.goal_state.id, e.goal_state.label = 3, "active"
        for key, m in (("scan", s), ("imu", i), ("odom", o), ("ev", e)):
            self.sent[key][n] = m
            self.pubs[key].publish(m)

    def spin_for(self, s):
        end = time.monotonic() + s
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.01)

    def run_scenarios(self, binary, files):
        """Runs kraken_scenario on each file at once, spinning meanwhile;
        returns (index into got['scan'] at the start, exit codes)."""
        procs = [subprocess.Popen([binary, f], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for f in files]
        while any(p.poll() is None for p in procs):
            rclpy.spin_once(self, timeout_sec=0.01)
        codes = []
        for f, p in zip(files, procs):
            out = p.stdout.read()
            print(f"--- kraken_scenario {os.path.basename(f)} (exit {p.returncode})\n{out.rstrip()}", flush=True)
            codes.append(p.returncode)
        return codes


def seq_of(key, m):
    return m.timestamp if key == "ev" else m.header.stamp.nanosec


def scan_rest_equal(s, r, ranges=True, range_max=True, stamp=True):
    return ((not stamp or (r.header.stamp.sec == s.header.stamp.sec and r.header.stamp.nanosec == s.header.stamp.nanosec))
            and r.header.frame_id == s.header.frame_id
            and r.angle_min == f32(s.angle_min) and r.angle_max == f32(s.angle_max)
            and r.angle_increment == f32(s.angle_increment)
            and r.range_min == f32(s.range_min)
            and (not range_max or r.range_max == f32(s.range_max))
            and (not ranges or (list(r.ranges) == [f32(x) for x in s.ranges]
                                and list(r.intensities) == [f32(x) for x in s.intensities])))


def p2506(s, r):
    return (r.header.stamp.sec == -1 and r.header.stamp.nanosec == s.header.stamp.nanosec
            and scan_rest_equal(s, r, stamp=False))


def p3276(s, r):
    return (r.range_max == 0.0 and len(r.ranges) == 360 and all(x == 0.0 for x in r.ranges)
            and list(r.intensities) == [f32(x) for x in s.intensities]
            and scan_rest_equal(s, r, ranges=False, range_max=False))


def p426(s, r):
    n = len(r.ranges)
    return (n in (359, 360) and len(r.intensities) == n
            and list(r.ranges) == [f32(x) for x in s.ranges[:n]]
            and list(r.intensities) == [f32(x) for x in s.intensities[:n]]
            and scan_rest_equal(s, r, ranges=False))


def after_first(pairs, pred):
    """The messages from the first one `pred` holds for on."""
    for k, (s, r) in enumerate(pairs):
        if pred(s, r):
            return pairs[k:]
    return []


def main():
    binary, bugs = sys.argv[1], sys.argv[2]
    rclpy.init()
    p = Peer()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not all(p.got.values()):
        p.spin_for(0.1)
    check("relay matched on scan, imu, odom and the custom type",
          all(p.got.values()), str({k: len(v) for k, v in p.got.items()}))

    def pairs(key, since=0, until=None):
        got = p.got[key][since:until]
        return [(p.sent[key][seq_of(key, r)], r) for _, r in got]

    # 313, 325, 7607 at once (own channels).
    codes = p.run_scenarios(binary, [os.path.join(bugs, f) for f in (
        "robot_localization_313_imu_orientation_zeros.yaml",
        "robot_localization_325_odom_pitched_at_startup.yaml",
        "autoware_7607_custom_msg_missing_5s.yaml")])
    check("kraken_scenario ran 313, 325, 7607 (exit 0)", codes == [0, 0, 0], str(codes))

    # Scan cases one after the other, each replacing the stack.
    marks = []
    for f in ("nav2_2506_scan_stamp_sec_minus_one.yaml", "nav2_3276_range_max_zero_all_ranges_zero.yaml",
              "slam_toolbox_426_beam_count_changes.yaml"):
        start = len(p.got["scan"])
        codes = p.run_scenarios(binary, [os.path.join(bugs, f)])
        p.spin_for(0.5)
        marks.append((f, start, codes))
    for f, _, codes in marks:
        check(f"kraken_scenario ran {f} (exit 0)", codes == [0], str(codes))
    p.spin_for(0.5)

    # 2506 and 3276: from the first faulted message until the next scenario
    # started, every scan is exactly faulted.
    for (f, start, _), (_, nxt, _), pred in zip(marks, marks[1:], (p2506, p3276)):
        tail = after_first(pairs("scan", start, nxt), pred)
        bad = [r.header.stamp.nanosec for s, r in tail if not pred(s, r)]
        check(f"{f}: exact values on every scan from the first faulted one",
              len(tail) >= 5 and not bad, f"{len(tail)} faulted, wrong: {bad[:5]}")
    # 426: from the first 359-beam scan, lengths alternate 359, 360, ... on
    # consecutive scans.
    f, start, _ = marks[2]
    sc = pairs("scan", start)
    first = next((k for k, (s, r) in enumerate(sc) if len(r.ranges) == 359), None)
    tail = sc[first:] if first is not None else []
    lens = [len(r.ranges) for _, r in tail]
    seqs = [r.header.stamp.nanosec for _, r in tail]
    ok = (len(tail) >= 6 and all(p426(s, r) for s, r in tail)
          and lens == [359 if k % 2 == 0 else 360 for k in range(len(lens))]
          and seqs == list(range(seqs[0], seqs[0] + len(seqs))))
    check(f"{f}: beam counts alternate 359/360 on consecutive scans, the rest as sent", ok, str(lens[:8]))

    # 313.
    im = pairs("imu")
    tail = after_first(im, lambda s, r: r.orientation.w == 0.0)
    ok = len(tail) >= 5 and all(
        (r.orientation.x, r.orientation.y, r.orientation.z, r.orientation.w) == (0.0, 0.0, 0.0, 0.0)
        and r.angular_velocity.z == s.angular_velocity.z and r.linear_acceleration.z == s.linear_acceleration.z
        and r.header.stamp.nanosec == s.header.stamp.nanosec and r.header.frame_id == "imu"
        for s, r in tail)
    check("robot_localization #313: orientation x=y=z=w=0.0, the rest as sent", ok, f"{len(tail)} faulted")

    # 325.
    od = pairs("odom")
    tail = after_first(od, lambda s, r: r.pose.pose.orientation.w != 1.0)
    pitched = 0
    while pitched < len(tail):
        q = tail[pitched][1].pose.pose.orientation
        if (q.x, q.y, q.z, q.w) != (0.0, Q_Y, 0.0, Q_W):
            break
        pitched += 1
    level = tail[pitched:]
    rest_ok = all(r.pose.pose.position.x == 2.0 and r.twist.twist.linear.x == 0.5
                  and r.header.stamp.nanosec == s.header.stamp.nanosec for s, r in tail)
    level_ok = len(level) >= 5 and all(
        (r.pose.pose.orientation.x, r.pose.pose.orientation.y, r.pose.pose.orientation.z,
         r.pose.pose.orientation.w) == (0.0, 0.0, 0.0, 1.0) for _, r in level)
    check("robot_localization #325: pitched quaternion exactly, then level again",
          pitched >= 20 and level_ok and rest_ok, f"{pitched} pitched, {len(level)} level after")

    # 7607.
    ev = p.got["ev"]
    seqs = [m.timestamp for _, m in ev]
    gaps = [(k, seqs[k + 1] - seqs[k] - 1) for k in range(len(seqs) - 1) if seqs[k + 1] != seqs[k] + 1]
    ok = len(gaps) == 1
    detail = f"gaps (index, missing): {gaps[:5]}"
    if ok:
        k, missing = gaps[0]
        silent = ev[k + 1][0] - ev[k][0]
        after = ev[k + 1:]
        same = all(m.transition.label == "activate" and m.goal_state.label == "active"
                   and m.start_state.id == 2 for _, m in after)
        ok = silent >= 4.9 and len(after) >= 5 and same
        detail += f"; silent {silent:.3f} s, {len(after)} after"
        st = [s for a in p.status for s in a.status if s.hardware_id == "transition_event"]
        kv = {x.key: x.value for x in st[-1].values} if st else {}
        ok = ok and kv.get("stage0.withheld") == str(missing) and kv.get("type") == "lifecycle_msgs/msg/TransitionEvent"
        detail += f"; status withheld {kv.get('stage0.withheld')} vs {missing} missing"
    check("autoware #7607: the custom message missing for 5 s, then again unchanged", ok, detail)

    # ~/stack_status lists the typed imu channel: typed fault, then its stage.
    st = [s for a in p.status for s in a.status if s.hardware_id == "imu"]
    kv = {x.key: x.value for x in st[-1].values} if st else {}
    check("stack_status: imu's typed fault then its stage",
          kv.get("typed_fault") == "healthy" and kv.get("stage0.fault") == "0: set orientation"
          and int(kv.get("stage0.changed", "0")) >= 5, str({k: v for k, v in kv.items() if "fault" in k}))

    # Seed 001's set_fault replaces imu's faults, its stack included.
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as tf:
        tf.write("name: heal_imu\nsteps:\n  - {label: heal, action: set_fault, channel: imu, mode: healthy, at_s: 0.0}\n")
    codes = p.run_scenarios(binary, [tf.name])
    os.unlink(tf.name)
    check("set_fault healthy on imu accepted", codes == [0], str(codes))
    p.spin_for(0.3)
    n0 = len(p.got["imu"])
    p.status.clear()
    p.spin_for(1.5)
    after = [r for _, r in p.got["imu"][n0:]]
    check("after set_fault: imu orientation as sent again",
          len(after) >= 5 and all(r.orientation.w == 1.0 for r in after), f"{len(after)} messages")
    st = [s for a in p.status for s in a.status if s.hardware_id == "imu"]
    kv = {x.key: x.value for x in st[-1].values} if st else {}
    check("after set_fault: stack_status lists no stage for imu",
          bool(kv) and kv.get("stage_ids") == "[]" and "stage0.id" not in kv
          and kv.get("cleared0.fault") == "set orientation", str(kv.get("stage_ids")))

    # Issue 24: message windows. Exactly one message of the stream (the 5th
    # after the stack is set) is faulted, exactly; every other one as sent.
    # The scan and odom stacks of the cases above cleared first (an empty stack).
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as tf:
        tf.write("name: clear\nsteps:\n"
                 "  - {label: s, action: set_fault_stack, channel: scan, at_s: 0.0, stack: []}\n"
                 "  - {label: o, action: set_fault_stack, channel: odom, at_s: 0.0, stack: []}\n")
    codes = p.run_scenarios(binary, [tf.name])
    os.unlink(tf.name)
    check("empty stacks on scan and odom accepted", codes == [0], str(codes))
    p.spin_for(0.5)
    one = []
    for key, f in (("scan", "nav2_2506_one_scan_negative_stamp.yaml"),
                   ("odom", "robot_localization_882_one_odom_x_1e12.yaml"),
                   ("odom", "nav2_591_one_odom_x_1e256.yaml")):
        start = len(p.got[key])
        codes = p.run_scenarios(binary, [os.path.join(bugs, f)])
        p.spin_for(0.5)
        one.append((key, f, pairs(key, start), codes))
    for key, f, got, codes in one:
        if key == "scan":
            hit = lambda s, r: p2506(s, r)
            same = lambda s, r: scan_rest_equal(s, r)
        else:
            want = 1e12 if "882" in f else 1.0001644e256
            hit = lambda s, r, w=want: (r.pose.pose.position.x == w and r.twist.twist.linear.x == 0.5
                                        and r.header.stamp.nanosec == s.header.stamp.nanosec
                                        and r.pose.pose.orientation.w == 1.0)
            same = lambda s, r: (r.pose.pose.position.x == 2.0 and r.pose.pose.orientation.w == 1.0
                                 and r.header.stamp.nanosec == s.header.stamp.nanosec)
        hits = [k for k, (s, r) in enumerate(got) if hit(s, r)]
        others_bad = [k for k, (s, r) in enumerate(got) if k not in hits and not same(s, r)]
        check(f"{f}: exactly one message faulted, exactly; the other {len(got) - 1} as sent",
              codes == [0] and len(hits) == 1 and not others_bad and len(got) >= 10,
              f"exit {codes}, {len(got)} received, hits at {hits}, wrong {others_bad[:5]}")

    p.destroy_node()
    rclpy.shutdown()
    print(f"bug_cases: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
