#!/usr/bin/env python3
"""Interop phase 17 (issue 26, REQ-REC-REPLAY): `breakbench replay --publish`
into a real rclpy subscriber.

Subscribes /odom_raw (nav_msgs/Odometry, reliable, as recorded) and /clock
(best effort, matching any clock publisher), prints `ready`, then collects
until no /odom_raw message came for 3 s after the first (or TIMEOUT_S).
Checks: the messages decode with the real rosidl types, their stamps rise
strictly, and the last /clock equals the last message's stamp (the player
publishes /clock at each message's log time, which is its sim time).
Prints `replay_peer: N messages` and exits 0, else 1 with the reason.

Usage: rclpy_replay_peer.py TIMEOUT_S
"""
import sys
import time

import rclpy
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock


def ns(t):
    return t.sec * 1_000_000_000 + t.nanosec


def main():
    timeout = float(sys.argv[1])
    rclpy.init()
    node = Node("replay_peer")
    got, clock = [], [None]
    reliable = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST,
                          reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.VOLATILE)
    best_effort = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                             reliability=ReliabilityPolicy.BEST_EFFORT)
    node.create_subscription(Clock, "/clock", lambda m: clock.__setitem__(0, ns(m.clock)), best_effort)
    node.create_subscription(Odometry, "/odom_raw", lambda m: got.append((time.time(), ns(m.header.stamp))), reliable)
    print("ready", flush=True)
    end = time.time() + timeout
    while time.time() < end:
        rclpy.spin_once(node, timeout_sec=0.1)
        if got and time.time() - got[-1][0] > 3.0:
            break
    # the last /clock may follow the last message on its own topic
    for _ in range(20):
        rclpy.spin_once(node, timeout_sec=0.05)
    stamps = [s for _, s in got]
    if not stamps:
        print("replay_peer: no /odom_raw message", flush=True)
        return 1
    if any(b <= a for a, b in zip(stamps, stamps[1:])):
        print("replay_peer: stamps do not rise strictly", flush=True)
        return 1
    if clock[0] != stamps[-1]:
        print(f"replay_peer: last /clock {clock[0]} != last stamp {stamps[-1]}", flush=True)
        return 1
    print(f"replay_peer: {len(stamps)} messages", flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
