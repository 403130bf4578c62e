"""simulation_interfaces client for sim_bridge (issue 29): a real ROS 2 Jazzy
rclpy node (Fast DDS) with the simulation_interfaces types built by the real
rosidl generators (scripts/build_simif.sh).

sim_bridge runs alone with start_service true (stopped until started),
real_time_factor 1, seed 1, services under /sim_bridge. This node:
- GetSimulatorFeatures lists exactly the bridge's features;
- GetSimulationState is STOPPED; StepSimulation while stopped fails
  (RESULT_OPERATION_FAILED); ResetSimulation SCOPE_TIME alone is
  RESULT_FEATURE_UNSUPPORTED, SCOPE_ALL is OK;
- SetSimulationState PAUSED starts the run paused; once /clock = 0 arrives it
  publishes /cmd_vel (v, w) and, 1 s later, calls StepSimulation(n);
- GetEntityState("robot"): stamp n * 10 ms, frame world, pose equal to the
  in-process plant's (argv, from tests/plant.rs's simif_expect line) to 1e-9;
  GetEntityState("nobody") is RESULT_NOT_FOUND; GetEntities lists "robot";
- StepSimulation while PLAYING fails; SetSimulationState PLAYING twice gives
  ALREADY_IN_TARGET_STATE on the second;
- ResetSimulation: back to STOPPED (the launch state), sim time 0, the
  robot at its start pose (1, 0, 0).
Usage: rclpy_simif.py N V W T_NS X Y YAW. Exit 0 when every check passes.
"""

import math
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy
from geometry_msgs.msg import Twist, Vector3
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import LaserScan
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (GetEntities, GetEntityState, GetSimulationState,
                                       GetSimulatorFeatures, ResetSimulation,
                                       SetSimulationState, StepSimulation)

FAILED = []
PREFIX = "/sim_bridge"


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILED.append(what)


class Client(Node):
    def __init__(self):
        super().__init__("simif_client")
        rel = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         history=HistoryPolicy.KEEP_LAST)
        be = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT,
                        history=HistoryPolicy.KEEP_LAST)
        self.clocks = []
        # The bridge steps once /oracle/odom, /scan and /odom have subscribers.
        self.create_subscription(Odometry, "/oracle/odom", lambda m: None, rel)
        self.create_subscription(LaserScan, "/scan", lambda m: None, be)
        self.create_subscription(Odometry, "/odom", lambda m: None, rel)
        self.create_subscription(Clock, "/clock", self.clocks.append, be)
        self.cmd = self.create_publisher(Twist, "/cmd_vel", rel)
        self.cli = {}
        for name, ty in [("reset_simulation", ResetSimulation), ("step_simulation", StepSimulation),
                         ("get_simulation_state", GetSimulationState),
                         ("set_simulation_state", SetSimulationState),
                         ("get_entity_state", GetEntityState), ("get_entities", GetEntities),
                         ("get_simulator_features", GetSimulatorFeatures)]:
            self.cli[name] = (self.create_client(ty, f"{PREFIX}/{name}"), ty)

    def call(self, name, timeout_s=30.0, **fields):
        cli, ty = self.cli[name]
        if not cli.wait_for_service(timeout_sec=timeout_s):
            raise RuntimeError(f"{PREFIX}/{name}: no server")
        req = ty.Request()
        for k, v in fields.items():
            setattr(req, k, v)
        fut = cli.call_async(req)
        rclpy.spin_until_future_complete(self, fut, timeout_sec=timeout_s)
        if not fut.done():
            raise RuntimeError(f"{PREFIX}/{name}: no answer in {timeout_s} s")
        return fut.result()

    def spin_for(self, s):
        end = time.monotonic() + s
        while time.monotonic() < end:
            rclpy.spin_once(self, timeout_sec=0.05)

    def state(self):
        return self.call("get_simulation_state").state.state

    def set_state(self, s):
        return self.call("set_simulation_state", state=SimulationState(state=s)).result.result


def main():
    n, v, w = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    t_ns, x, y, yaw = int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
    rclpy.init()
    c = Client()
    feats = sorted(c.call("get_simulator_features").features.features)
    want = sorted([SimulatorFeatures.ENTITY_STATE_GETTING, SimulatorFeatures.SIMULATION_RESET,
                   SimulatorFeatures.SIMULATION_STATE_GETTING, SimulatorFeatures.SIMULATION_STATE_SETTING,
                   SimulatorFeatures.SIMULATION_STATE_PAUSE, SimulatorFeatures.STEP_SIMULATION_SINGLE,
                   SimulatorFeatures.STEP_SIMULATION_MULTIPLE])
    check(feats == want, f"GetSimulatorFeatures {feats}")
    check(c.state() == SimulationState.STATE_STOPPED, "STOPPED before the start")
    r = c.call("step_simulation", steps=5).result
    check(r.result == Result.RESULT_OPERATION_FAILED, f"StepSimulation while stopped: {r.result} {r.error_message!r}")
    r = c.call("reset_simulation", scope=ResetSimulation.Request.SCOPE_TIME).result
    check(r.result == Result.RESULT_FEATURE_UNSUPPORTED, f"ResetSimulation SCOPE_TIME alone: {r.result}")
    r = c.call("reset_simulation", scope=ResetSimulation.Request.SCOPE_ALL).result
    check(r.result == Result.RESULT_OK, f"ResetSimulation SCOPE_ALL: {r.result} {r.error_message!r}")
    check(c.set_state(SimulationState.STATE_PAUSED) == Result.RESULT_OK, "SetSimulationState PAUSED (start paused)")
    end = time.monotonic() + 60
    while not c.clocks and time.monotonic() < end:
        rclpy.spin_once(c, timeout_sec=0.1)
    check(bool(c.clocks) and c.clocks[0].clock.sec == 0 and c.clocks[0].clock.nanosec == 0,
          "stepping armed: /clock = 0 published, paused")
    c.cmd.publish(Twist(linear=Vector3(x=v), angular=Vector3(z=w)))
    c.spin_for(1.0)
    r = c.call("step_simulation", steps=n).result
    check(r.result == Result.RESULT_OK, f"StepSimulation({n}): {r.result} {r.error_message!r}")
    resp = c.call("get_entity_state", entity="robot")
    s = resp.state
    got_ns = s.header.stamp.sec * 1_000_000_000 + s.header.stamp.nanosec
    q = s.pose.orientation
    got_yaw = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
    check(resp.result.result == Result.RESULT_OK and s.header.frame_id == "world" and got_ns == t_ns,
          f"GetEntityState robot: result {resp.result.result}, frame {s.header.frame_id!r}, stamp {got_ns} ns (want {t_ns})")
    err = max(abs(s.pose.position.x - x), abs(s.pose.position.y - y), abs(got_yaw - yaw))
    check(err <= 1e-9, f"pose after {n} steps ({s.pose.position.x!r}, {s.pose.position.y!r}, {got_yaw!r}) "
          f"equals the in-process plant's ({x!r}, {y!r}, {yaw!r}): max error {err:.3e}")
    check(abs(s.twist.angular.z - w) < 1e-12 and abs(math.hypot(s.twist.linear.x, s.twist.linear.y) - v) < 1e-12,
          f"twist |v| {math.hypot(s.twist.linear.x, s.twist.linear.y)!r}, w {s.twist.angular.z!r}")
    check(c.call("get_entity_state", entity="nobody").result.result == Result.RESULT_NOT_FOUND,
          "GetEntityState of an unknown entity: RESULT_NOT_FOUND")
    ents = c.call("get_entities")
    check(ents.result.result == Result.RESULT_OK and list(ents.entities) == ["robot"], f"GetEntities {list(ents.entities)}")
    check(c.set_state(SimulationState.STATE_PLAYING) == Result.RESULT_OK, "SetSimulationState PLAYING")
    check(c.set_state(SimulationState.STATE_PLAYING) == SetSimulationState.Response.ALREADY_IN_TARGET_STATE,
          "PLAYING again: ALREADY_IN_TARGET_STATE")
    r = c.call("step_simulation", steps=1).result
    check(r.result == Result.RESULT_OPERATION_FAILED, f"StepSimulation while playing: {r.result}")
    r = c.call("reset_simulation", scope=ResetSimulation.Request.SCOPE_DEFAULT).result
    check(r.result == Result.RESULT_OK, "ResetSimulation SCOPE_DEFAULT")
    check(c.state() == SimulationState.STATE_STOPPED, "STOPPED after the reset (start_service: true)")
    s = c.call("get_entity_state", entity="robot").state
    check((s.header.stamp.sec, s.header.stamp.nanosec, s.pose.position.x, s.pose.position.y) == (0, 0, 1.0, 0.0),
          f"after the reset: sim time 0, robot at the start (1, 0): {s.pose.position.x}, {s.pose.position.y}")
    c.destroy_node()
    rclpy.shutdown()
    if FAILED:
        print(f"rclpy_simif: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print("rclpy_simif: all checks passed")


if __name__ == "__main__":
    main()
