"""Launch test of corridor.launch.py, run by the real ROS 2 `launch_test`.

    launch_test tests/launch/test_corridor_launch.py --junit-xml out.xml

(inside scripts/netns.sh, with the ROS venv's `launch_test` on PATH and the
colcon install sourced; scripts/ros2cli_test.sh does all of that). The
installed `breakbench` launch file is found with ament_index, as
`ros2 launch breakbench corridor.launch.py` finds it, and included with its
default arguments: the healthy corridor run.

Active test (while the graph runs), with an rclpy subscriber (Fast DDS):
- the oracle publishes its verdict: a final /oracle/status with done = true at
  the mission timeout (60 s of sim time), 3000 ground-truth samples (50 Hz),
  no safety violation and the mission complete;
- the oracle then exits by itself.

Post-shutdown tests:
- the four nodes (fault_injector, simple_navigator, oracle, sim_bridge)
  started, each printed its ready/starting line, and every process exited
  with code 0 (the long-running ones on launch's SIGINT);
- the launch was shut down by the launch file's own rule, "oracle finished";
- no process printed an ERROR or WARN line;
- the launch file starts the same graph as `breakbench up
  launch/corridor.graph.yaml` (read from each process's real command line):
  the same executables from the same packages, the same node names, the same
  remaps in the same order, the graph's parameters file given first to every
  node, and every `*_file` parameter of it overridden with an absolute path
  to an existing file.

launch_testing ends the launch as soon as the active tests return, and counts
a launch that ends before them as a failure. The corridor launch ends itself
when the oracle exits, so the launch description holds its shutdown (an
OnShutdown coroutine, at most SHUTDOWN_HOLD_S) until the active tests have
returned: the order of the two is then fixed, not a race.
"""

import asyncio
import json
import os
import re
import threading
import time
import unittest

import launch
import launch_testing
import launch_testing.actions
import launch_testing.asserts
import pytest
import rclpy
import rclpy.executors
import yaml
from ament_index_python.packages import get_package_share_directory
from launch.actions import IncludeLaunchDescription, OpaqueCoroutine, RegisterEventHandler
from launch.event_handlers import OnProcessStart, OnShutdown
from launch.launch_description_sources import PythonLaunchDescriptionSource
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

NODES = {"fault_injector", "simple_navigator", "oracle", "sim_bridge"}
MISSION_TIMEOUT_S = 60.0
SAMPLES = 3000  # 50 Hz ground truth over the 60 s mission
VERDICT_TIMEOUT_S = 200.0  # wall; a healthy run gives its verdict after ~62 s
# The hold outlasts the active test's own wait, so a verdict that never
# arrives fails that test instead of ending the launch under it (launch_test
# then exited 134: its test thread was still in rclpy when Python exited).
SHUTDOWN_HOLD_S = VERDICT_TIMEOUT_S + 15.0
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BAD = re.compile(r"\b(ERROR|WARN|WARNING)\b")

# Shared between the launch (main thread) and the tests (launch_testing's
# test thread), filled by the event handlers of generate_test_description.
ACTIVE_TESTS_DONE = threading.Event()
SHUTDOWN_REASONS = []
COMMANDS = {}  # node name -> its command line
OVERRIDES = {}  # node name -> parameters given beside the graph's file


def node_name(process_name):
    """launch_ros names processes after the executable: "fault_injector-1"."""
    return process_name.rsplit("-", 1)[0]


def on_start(event, _ctx):
    name = node_name(event.action.process_details["name"])
    COMMANDS[name] = list(event.cmd)
    # launch_ros writes the dict parameters to a temporary file that exists
    # while the process starts: read them now.
    files = [a for k, a in zip(event.cmd, event.cmd[1:]) if k == "--params-file"]
    OVERRIDES[name] = {}
    for f in files[1:]:
        with open(f) as fh:
            for section in (yaml.safe_load(fh) or {}).values():
                OVERRIDES[name].update(section.get("ros__parameters", {}))


def test_thread_alive():
    """launch_testing runs the active tests on a thread of this name."""
    return any(t.name == "test_runner_thread" and t.is_alive() for t in threading.enumerate())


def on_shutdown(event, _ctx):
    SHUTDOWN_REASONS.append(event.reason)

    async def hold(_context):
        # Until the active tests are done and launch_testing's test thread
        # (a daemon thread, which prints the results and then calls the
        # launch's shutdown) has ended: a daemon thread still writing while
        # the interpreter exits makes Python abort (exit 134, seen in CI).
        deadline = time.monotonic() + SHUTDOWN_HOLD_S
        while time.monotonic() < deadline and (not ACTIVE_TESTS_DONE.is_set() or test_thread_alive()):
            await asyncio.sleep(0.05)

    return [OpaqueCoroutine(coroutine=hold)]


@pytest.mark.launch_test
def generate_test_description():
    share = get_package_share_directory("breakbench")
    launch_file = os.path.join(share, "launch", "corridor.launch.py")
    return launch.LaunchDescription(
        [
            RegisterEventHandler(OnProcessStart(on_start=on_start)),
            RegisterEventHandler(OnShutdown(on_shutdown=on_shutdown)),
            IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file)),
            launch_testing.actions.ReadyToTest(),
        ]
    ), {"share": share}


class TestVerdict(unittest.TestCase):
    """While the graph runs: the oracle's verdict reaches an rclpy peer."""

    @classmethod
    def setUpClass(cls):
        cls.context = rclpy.Context()
        rclpy.init(context=cls.context)
        cls.node = rclpy.create_node("corridor_launch_test", context=cls.context)
        cls.status = []
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        cls.node.create_subscription(String, "/oracle/status", lambda m: cls.status.append(json.loads(m.data)), qos)

    @classmethod
    def tearDownClass(cls):
        cls.node.destroy_node()
        rclpy.shutdown(context=cls.context)
        ACTIVE_TESTS_DONE.set()

    def test_oracle_publishes_its_verdict_and_exits(self, proc_info):
        executor = rclpy.executors.SingleThreadedExecutor(context=self.context)
        executor.add_node(self.node)
        deadline = time.monotonic() + VERDICT_TIMEOUT_S
        while not any(s.get("done") for s in self.status) and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        executor.remove_node(self.node)
        executor.shutdown()
        final = [s for s in self.status if s.get("done")]
        print(f"/oracle/status: {len(self.status)} messages, {len(final)} with done (the test stops at the first; the oracle repeats it for 1 s)")
        publishers = self.node.get_publishers_info_by_topic("/oracle/status")
        self.assertTrue(
            final,
            f"/oracle/status carried no verdict within {VERDICT_TIMEOUT_S} s "
            f"({len(self.status)} status messages; publishers seen: {[p.node_name for p in publishers]})",
        )
        f = final[-1]
        self.assertEqual((f.get("t_s"), f.get("samples")), (MISSION_TIMEOUT_S, SAMPLES), "the verdict's time and samples")
        self.assertEqual(
            (f.get("safety_violation"), f.get("mission_failure")),
            (False, False),
            "healthy run: no safety violation, mission complete",
        )
        proc_info.assertWaitForShutdown(process="oracle", timeout=10)


@launch_testing.post_shutdown_test()
class TestAfterShutdown(unittest.TestCase):
    """After the launch: exit codes, output, and the graph it started."""

    def test_every_node_started_and_exited_0(self, proc_info):
        self.assertEqual({node_name(n) for n in proc_info.process_names()}, NODES)
        launch_testing.asserts.assertExitCodes(proc_info, allowable_exit_codes=[0])

    def test_the_launch_ended_when_the_oracle_finished(self):
        self.assertEqual(SHUTDOWN_REASONS[:1], ["oracle finished"])

    def test_every_node_printed_ready_and_no_error_or_warn(self, proc_output):
        text = {}
        for io in proc_output:  # chunks in arrival order; a line may span two
            name = node_name(io.process_name)
            text[name] = text.get(name, b"") + io.text
        ready, bad = set(), []
        for name, out in sorted(text.items()):
            for line in out.decode(errors="replace").splitlines():
                line = ANSI.sub("", line)
                if re.search(r"\b(ready|starting)\b", line):
                    ready.add(name)
                if BAD.search(line):
                    bad.append(f"[{name}] {line}")
        self.assertEqual(ready, NODES, "a ready/starting line from every node")
        self.assertEqual(bad, [], "no ERROR or WARN line")

    def test_the_same_graph_as_corridor_graph_yaml(self, share):
        with open(os.path.join(share, "launch", "corridor.graph.yaml")) as f:
            graph = yaml.safe_load(f)
        params_file = os.path.join(share, graph["params_file"])
        with open(params_file) as f:
            params = yaml.safe_load(f)
        for node in graph["nodes"]:
            name = node["name"]
            with self.subTest(node=name):
                self.same_node(node, COMMANDS.get(name, []), params_file, params)

    def same_node(self, node, cmd, params_file, params):
        name = node["name"]
        want_exe = os.path.join("lib", node["package"], node["executable"])
        self.assertTrue(cmd and cmd[0].endswith(os.sep + want_exe), f"{name}: executable {want_exe} (got {cmd[:1]})")
        args = cmd[cmd.index("--ros-args") + 1:] if "--ros-args" in cmd else []
        pairs = list(zip(args, args[1:]))
        self.assertIn(f"__node:={name}", [v for k, v in pairs if k == "-r"], f"{name}: node name")
        remaps = [v for k, v in pairs if k == "-r" and not v.startswith("__")]
        self.assertEqual(remaps, node.get("remaps", []), f"{name}: remaps")
        files = [v for k, v in pairs if k == "--params-file"]
        self.assertTrue(files, f"{name}: no --params-file")
        self.assertEqual(os.path.realpath(files[0]), os.path.realpath(params_file), f"{name}: first parameters file")
        section = (params.get(name) or {}).get("ros__parameters", {})
        for key in sorted(k for k in section if k.endswith("_file")):
            v = str(OVERRIDES.get(name, {}).get(key, ""))
            self.assertTrue(os.path.isabs(v) and os.path.isfile(v), f"{name}: {key} passed as an absolute path to a file (got {v!r})")
