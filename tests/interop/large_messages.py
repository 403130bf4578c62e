"""Large-message sweep (issue 27): what a default rclpy subscriber receives.

Two processes of this file, started by scripts/large_messages.sh inside a
loopback-only network namespace:

  sub  a default-configured rclpy node (create_subscription(..., 10): reliable,
       volatile, KEEP_LAST 10; Fast DDS with its default socket buffers) on
       the output topics (/cloud, /image); counts the messages delivered per
       size and checks every payload byte;
  pub  an rclpy publisher (default QoS, depth 10) of sensor_msgs/PointCloud2
       on the input topic (/cloud_raw) at each size of --sizes, --count
       messages at --rate Hz, then sensor_msgs/Image (--image-count
       1920x1080 rgb8 = 6,220,800 bytes at --image-rate Hz) on /image_raw.
       With --delay-s > 0 it first sets a delay stage of that many seconds on
       both channels (~/set_fault_stack).  For every size it reads the
       namespace's UDP counters (/proc/net/snmp: RcvbufErrors, InErrors)
       before the first message and after the settle time that follows the
       last one.

Payload: message n of size s carries the bytes BASE[off : off + s] with
off = (n * 257) % 65536 (BASE: 7 MiB from a seeded generator), and the frame
id `s<size>n<n>`: a dropped, duplicated, truncated or mixed-up fragment
shows as a payload mismatch.

The sub prints one line per size class (`size sent delivered intact lost
rcvbuf_errors`) and a JSON summary line; it exits 0 when every message of
every size arrived intact (or --allow-loss is given), else 1.

Usage (the script does this):
  large_messages.py sub --dir D [--cloud-topic /cloud] [--image-topic /image]
  large_messages.py pub --dir D [--cloud-topic /cloud_raw] [--image-topic /image_raw]
                        [--sizes 16384,65536,...] [--count 50] [--rate 10]
                        [--image-count 30] [--image-rate 30] [--image-settle-s S] [--delay-s 0]
"""

import argparse
import array
import json
import os
import sys
import time

import numpy as np
import rclpy
from rclpy.node import Node
from sensor_msgs.msg import Image, PointCloud2, PointField

BASE = np.random.default_rng(27).integers(0, 256, 7 * 1024 * 1024 + 65536, dtype=np.uint8).tobytes()
IMAGE_W, IMAGE_H = 1920, 1080
IMAGE_BYTES = IMAGE_W * IMAGE_H * 3  # rgb8: 6,220,800 bytes
DEFAULT_SIZES = [16 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20]


def payload(n, size):
    """Bytes of message n of `size` bytes (see the module docstring)."""
    off = (n * 257) % 65536
    return BASE[off:off + size]


def udp_counters():
    """The namespace's UDP counters from /proc/net/snmp, as {name: int}."""
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Udp:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:])))


def cloud(n, size, stamp):
    """A PointCloud2 of size/16 points (x, y, z, intensity float32) and `size` data bytes."""
    m = PointCloud2()
    m.header.stamp = stamp
    m.header.frame_id = f"s{size}n{n}"
    m.height, m.width = 1, size // 16
    m.fields = [PointField(name=c, offset=4 * i, datatype=PointField.FLOAT32, count=1)
                for i, c in enumerate(["x", "y", "z", "intensity"])]
    m.is_bigendian, m.point_step, m.row_step, m.is_dense = False, 16, size, True
    m.data = array.array("B", payload(n, size))
    return m


def image(n, stamp):
    m = Image()
    m.header.stamp = stamp
    m.header.frame_id = f"s{IMAGE_BYTES}n{n}"
    m.height, m.width, m.encoding, m.is_bigendian, m.step = IMAGE_H, IMAGE_W, "rgb8", 0, IMAGE_W * 3
    m.data = array.array("B", payload(n, IMAGE_BYTES))
    return m


class Sub(Node):
    def __init__(self, a):
        super().__init__("large_messages_sub")
        self.got = {}     # size -> set of n delivered intact
        self.bad = {}     # size -> count of delivered messages with a wrong payload
        self.dups = {}    # size -> duplicate deliveries
        self.ready = os.path.join(a.dir, "READY")
        self.create_subscription(PointCloud2, a.cloud_topic, self.on_msg, 10)
        self.create_subscription(Image, a.image_topic, self.on_msg, 10)

    def on_msg(self, m):
        fid = m.header.frame_id
        if fid == "warmup":
            if not os.path.exists(self.ready):
                open(self.ready, "w").close()
            return
        try:
            size, n = (int(x) for x in fid[1:].split("n"))
        except ValueError:
            self.bad[-1] = self.bad.get(-1, 0) + 1
            return
        data = memoryview(m.data).tobytes()
        seen = self.got.setdefault(size, set())
        if len(data) != size or data != payload(n, size):
            self.bad[size] = self.bad.get(size, 0) + 1
        elif n in seen:
            self.dups[size] = self.dups.get(size, 0) + 1
        else:
            seen.add(n)


class Pub(Node):
    def __init__(self, a):
        super().__init__("large_messages_pub")
        self.cloud = self.create_publisher(PointCloud2, a.cloud_topic, 10)
        self.image = self.create_publisher(Image, a.image_topic, 10)

    def spin_for(self, s):
        end = time.monotonic() + s
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=min(0.01, max(0.0, end - time.monotonic())))

    def set_delay(self, delay_s):
        """Sets a delay stage of delay_s seconds on the channels cloud and image."""
        from kraken_interfaces.srv import SetFaultStack
        cli = self.create_client(SetFaultStack, "/fault_injector/set_fault_stack")
        if not cli.wait_for_service(timeout_sec=20.0):
            raise RuntimeError("/fault_injector/set_fault_stack not available")
        for ch in ("cloud", "image"):
            fut = cli.call_async(SetFaultStack.Request(
                channel=ch, stack_yaml=f"[{{fault: {{delay: {{delay_s: {delay_s}}}}}}}]", append=False))
            end = time.monotonic() + 10
            while not fut.done() and time.monotonic() < end:
                rclpy.spin_once(self, timeout_sec=0.05)
            r = fut.result() if fut.done() else None
            if r is None or not r.success:
                raise RuntimeError(f"set_fault_stack {ch}: {r.message if r else 'no reply'}")
            print(f"pub: delay {delay_s} s set on {ch}", flush=True)

    def run_class(self, pub, make, size, count, rate, settle):
        """Publishes `count` messages of `size` at `rate` Hz; returns the size's record."""
        before = udp_counters()
        period, t0 = 1.0 / rate, time.monotonic()
        for n in range(count):
            pub.publish(make(n, self.get_clock().now().to_msg()))
            self.spin_for(max(0.0, t0 + (n + 1) * period - time.monotonic()))
        late = time.monotonic() - (t0 + count * period)
        self.spin_for(settle)
        after = udp_counters()
        rec = {"size": size, "sent": count, "rate_hz": rate, "late_s": round(late, 3),
               "rcvbuf_errors": after["RcvbufErrors"] - before["RcvbufErrors"],
               "in_errors": after["InErrors"] - before["InErrors"]}
        print(f"pub: {json.dumps(rec)}", flush=True)
        return rec


def run_pub(a):
    node = Pub(a)
    ready = os.path.join(a.dir, "READY")
    if a.delay_s > 0:
        node.set_delay(a.delay_s)
    end = time.monotonic() + 60
    warm = PointCloud2()
    warm.header.frame_id = "warmup"
    while not os.path.exists(ready):
        if time.monotonic() > end:
            print("pub: FAIL the subscriber never received a warm-up message", flush=True)
            return 1
        node.cloud.publish(warm)
        node.spin_for(0.1)
    node.spin_for(1.0 + a.delay_s)  # warm-up stragglers out of the way
    settle = a.settle_s + a.delay_s
    recs = [node.run_class(node.cloud, lambda n, st, s=s: cloud(n, s, st), s, a.count, a.rate, settle)
            for s in a.sizes]
    if a.image_count > 0:
        image_settle = (a.settle_s if a.image_settle_s is None else a.image_settle_s) + a.delay_s
        recs.append(node.run_class(node.image, image, IMAGE_BYTES, a.image_count, a.image_rate, image_settle))
    with open(os.path.join(a.dir, "sent.json.tmp"), "w") as f:
        json.dump(recs, f)
    os.rename(os.path.join(a.dir, "sent.json.tmp"), os.path.join(a.dir, "sent.json"))
    node.destroy_node()
    return 0


def run_sub(a):
    node = Sub(a)
    sent_file = os.path.join(a.dir, "sent.json")
    end = time.monotonic() + a.timeout_s
    while not os.path.exists(sent_file) and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    if not os.path.exists(sent_file):
        print("sub: FAIL no sent.json from the publisher", flush=True)
        return 1
    with open(sent_file) as f:
        recs = json.load(f)
    lossless = True
    print(f"{'size_bytes':>10} {'sent':>5} {'delivered':>9} {'intact':>6} {'lost':>5} {'bad':>4} {'dup':>4} {'rcvbuf_err':>10}")
    for r in recs:
        s = r["size"]
        got = len(node.got.get(s, ()))
        r.update(delivered=got + node.bad.get(s, 0), intact=got, lost=r["sent"] - got,
                 bad=node.bad.get(s, 0), dup=node.dups.get(s, 0))
        lossless &= r["lost"] == 0 and r["bad"] == 0 and r["dup"] == 0
        print(f"{s:>10} {r['sent']:>5} {r['delivered']:>9} {r['intact']:>6} {r['lost']:>5} "
              f"{r['bad']:>4} {r['dup']:>4} {r['rcvbuf_errors']:>10}")
    print("summary " + json.dumps({"lossless": lossless, "classes": recs}), flush=True)
    node.destroy_node()
    return 0 if (lossless or a.allow_loss) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("role", choices=["pub", "sub"])
    p.add_argument("--dir", required=True, help="rendezvous directory (READY, sent.json)")
    p.add_argument("--cloud-topic")
    p.add_argument("--image-topic")
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="PointCloud2 data bytes per class, comma-separated (multiples of 16)")
    p.add_argument("--count", type=int, default=50, help="messages per PointCloud2 size")
    p.add_argument("--rate", type=float, default=10.0, help="PointCloud2 rate, Hz")
    p.add_argument("--image-count", type=int, default=30, help="6 MB images (0: none)")
    p.add_argument("--image-rate", type=float, default=30.0, help="image rate, Hz")
    p.add_argument("--delay-s", type=float, default=0.0, help="delay stage set on the injector, s")
    p.add_argument("--settle-s", type=float, default=2.0, help="wait after each size class, s")
    p.add_argument("--image-settle-s", type=float, default=None,
                   help="wait after the images, s (default: --settle-s); a sample whose fragments a loaded "
                        "receiver dropped arrives after the writer's next heartbeat")
    p.add_argument("--timeout-s", type=float, default=900.0, help="sub: longest wait for the publisher, s")
    p.add_argument("--allow-loss", action="store_true", help="sub: exit 0 even when messages were lost")
    a = p.parse_args()
    a.sizes = [int(x) for x in a.sizes.split(",") if x]
    sub = a.role == "sub"
    a.cloud_topic = a.cloud_topic or ("/cloud" if sub else "/cloud_raw")
    a.image_topic = a.image_topic or ("/image" if sub else "/image_raw")
    rclpy.init()
    try:
        return run_sub(a) if sub else run_pub(a)
    finally:
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main())
