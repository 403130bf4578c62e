"""Latency and loss of sensor_msgs/Imu through a fault_injector, against the
direct rclpy -> rclpy path, for scripts/bench_backends.sh (issue 27; a
benchmark, not a test).

Two processes of this file, inside a loopback-only network namespace:

  sub  an rclpy node subscribed to the injector's input /imu/data_raw (the
       direct path) and to its output /imu/data (best effort, KEEP_LAST 1000:
       the QoS of the shipped imu channel); records the wall time
       (time.time_ns) each message arrives on each path;
  pub  an rclpy publisher on /imu/data_raw (best effort, KEEP_LAST 1000) that
       stamps every message with its wall publish time (header.stamp, a unique
       key) and runs the phases of --phases (RATE_HZ:SECONDS, e.g.
       1000:10,2000:3): at RATE_HZ, messages go out in batches every 1 ms.

Per phase the sub prints one JSON line: sent, delivered per path, latency
percentiles per path (arrival - stamp, µs, nearest rank) and the paired
added latency (injector arrival - direct arrival of the same message, µs).
The publisher and the subscriber are the same rclpy processes for both
paths, so "added" is what the injector adds between the two.

Usage (the script does this):
  injector_latency.py sub --dir D --out FILE
  injector_latency.py pub --dir D --phases 1000:10,2000:3,...
"""

import argparse
import json
import math
import os
import struct
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Imu

QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT)


def pct(xs, q):
    """Nearest-rank percentile q (0..100) of the sorted list xs."""
    if not xs:
        return None
    return xs[max(0, min(len(xs) - 1, math.ceil(q / 100 * len(xs)) - 1))]


def sub(args):
    rclpy.init()
    node = Node("latency_sub")
    arrivals = {"direct": {}, "injector": {}}

    subs = {path: node.create_subscription(Imu, topic, lambda _: None, QOS, raw=True)
            for path, topic in (("direct", "/imu/data_raw"), ("injector", "/imu/data"))}
    open(os.path.join(args.dir, "SUB_READY"), "w").close()
    done = os.path.join(args.dir, "sent.json")
    deadline = time.time() + 600
    end = None
    # A take loop instead of an executor (its wait set per message costs more
    # than a 5 kHz stream leaves): raw CDR, no deserialisation; the stamp is
    # header.stamp.sec (int32) and .nanosec (uint32) after the 4-byte
    # encapsulation header, little endian.
    while time.time() < deadline and (end is None or time.time() < end):
        idle = True
        for path, sub in subs.items():
            store = arrivals[path]
            while True:
                with sub.handle:
                    got = sub.handle.take_message(sub.msg_type, sub.raw)
                if got is None:
                    break
                idle = False
                sec, nsec = struct.unpack_from("<iI", got[0], 4)
                store[sec * 1_000_000_000 + nsec] = time.time_ns()
        if idle:
            time.sleep(0.00005)
            if end is None and os.path.exists(done):
                end = time.time() + 1.0  # the last messages in flight
    phases = json.load(open(done))
    results = []
    for ph in phases:
        keys = ph["keys"]
        row = {"rate_hz": ph["rate_hz"], "seconds": ph["seconds"], "sent": len(keys)}
        for path, store in arrivals.items():
            lat = sorted((store[k] - k) / 1000 for k in keys if k in store)
            row[path] = {"delivered": len(lat), "lost": len(keys) - len(lat),
                         "p50_us": pct(lat, 50), "p99_us": pct(lat, 99), "max_us": lat[-1] if lat else None}
        paired = sorted((arrivals["injector"][k] - arrivals["direct"][k]) / 1000
                        for k in keys if k in arrivals["injector"] and k in arrivals["direct"])
        row["added"] = {"pairs": len(paired), "p50_us": pct(paired, 50), "p99_us": pct(paired, 99)}
        results.append(row)
        print(json.dumps(row), flush=True)
    with open(args.out, "w") as f:
        json.dump(results, f)
    node.destroy_node()
    rclpy.shutdown()


def pub(args):
    rclpy.init()
    node = Node("latency_pub")
    p = node.create_publisher(Imu, "/imu/data_raw", QOS)
    ready = os.path.join(args.dir, "SUB_READY")
    deadline = time.time() + 60
    while not os.path.exists(ready) and time.time() < deadline:
        time.sleep(0.05)
    # both subscribers (the sub's direct one and the injector's) matched, then a settle
    while p.get_subscription_count() < 2 and time.time() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
    if p.get_subscription_count() < 2:
        print(f"pub: only {p.get_subscription_count()} subscriptions matched /imu/data_raw", file=sys.stderr)
        sys.exit(1)
    time.sleep(args.settle_s)
    msg = Imu()
    msg.header.frame_id = "imu"
    msg.orientation.w = 1.0
    msg.linear_acceleration.z = 9.80665
    phases = []
    for spec in args.phases.split(","):
        rate, secs = float(spec.split(":")[0]), float(spec.split(":")[1])
        per_tick = max(1, round(rate / 1000))
        tick_s = per_tick / rate
        keys = []
        last = 0
        t0 = time.perf_counter()
        n_ticks = int(round(secs / tick_s))
        for i in range(n_ticks):
            target = t0 + i * tick_s
            while True:
                d = target - time.perf_counter()
                if d <= 0:
                    break
                if d > 0.0003:
                    time.sleep(d - 0.0002)
            for _ in range(per_tick):
                now = max(time.time_ns(), last + 1)  # a unique key
                last = now
                msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(now, 1_000_000_000)
                p.publish(msg)
                keys.append(now)
        achieved = len(keys) / (time.perf_counter() - t0)
        phases.append({"rate_hz": rate, "seconds": secs, "achieved_hz": round(achieved, 1), "keys": keys})
        print(f"pub: {len(keys)} messages at {rate:.0f} Hz (achieved {achieved:.0f} Hz)", flush=True)
        time.sleep(args.settle_s)
    with open(os.path.join(args.dir, "sent.json.tmp"), "w") as f:
        json.dump(phases, f)
    os.rename(os.path.join(args.dir, "sent.json.tmp"), os.path.join(args.dir, "sent.json"))
    node.destroy_node()
    rclpy.shutdown()


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("role", choices=["pub", "sub"])
    a.add_argument("--dir", required=True)
    a.add_argument("--out")
    a.add_argument("--phases", default="1000:10,2000:3,5000:3,10000:3")
    a.add_argument("--settle-s", type=float, default=1.0)
    args = a.parse_args()
    (sub if args.role == "sub" else pub)(args)


if __name__ == "__main__":
    main()
