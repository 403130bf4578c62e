"""Launch test of corridor.launch.py with the real ROS 2 Jazzy launch system.

Runs the installed `breakbench` launch file (found with ament_index after
`source install/setup.bash`, as `ros2 launch breakbench corridor.launch.py`
does) in a `launch.LaunchService`, with event handlers on every process, and
an rclpy subscriber (Fast DDS) on /oracle/status. Checks, for the healthy
run with default arguments:

- the four nodes (fault_injector, simple_navigator, oracle, sim_bridge) start;
- the oracle publishes its verdict: a final /oracle/status with done = true at
  the mission timeout (60 s of sim time), 3000 ground-truth samples, no
  safety violation and the mission complete;
- the launch ends by itself (the oracle's exit shuts it down) and every
  process exits with code 0 (the long-running ones on launch's SIGINT);
- no process prints an ERROR or WARN line;
- the launch file starts the same graph as `breakbench up
  launch/corridor.graph.yaml` (read from each process's real command line):
  the same executables from the same packages, the same node names, the same
  remaps in the same order, the graph's parameters file given first to every
  node, and every `*_file` parameter of it overridden with an absolute path
  to an existing file.

Run (inside scripts/netns.sh, with the ROS venv's python and the install
sourced): `python3 tests/launch/test_corridor_launch.py`; scripts/launch_test.sh
does all of that. Prints one PASS/FAIL line per check and `N passed, N failed`;
exit code 0 only if every check passed.
"""

import json
import os
import re
import sys
import threading
import time

import yaml

import launch
from launch.actions import IncludeLaunchDescription, RegisterEventHandler
from launch.event_handlers import OnProcessExit, OnProcessIO, OnProcessStart
from launch.launch_description_sources import PythonLaunchDescriptionSource
from ament_index_python.packages import get_package_share_directory

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

NODES = {"fault_injector", "simple_navigator", "oracle", "sim_bridge"}
MISSION_TIMEOUT_S = 60.0
SAMPLES = 3000  # 50 Hz ground truth over the 60 s mission
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BAD = re.compile(r"\b(ERROR|WARN|WARNING)\b")


class StatusWatcher:
    """rclpy node on its own thread collecting /oracle/status (JSON strings)."""

    def __init__(self):
        rclpy.init()
        self.node = Node("corridor_launch_test")
        self.status = []
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        self.node.create_subscription(String, "/oracle/status", lambda m: self.status.append(json.loads(m.data)), qos)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self):
        while not self.stop.is_set():
            rclpy.spin_once(self.node, timeout_sec=0.05)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        self.node.destroy_node()
        rclpy.shutdown()


def same_graph(share, cmds, overrides, check):
    """The launched command lines against launch/corridor.graph.yaml."""
    with open(os.path.join(share, "launch", "corridor.graph.yaml")) as f:
        graph = yaml.safe_load(f)
    params_file = os.path.join(share, graph["params_file"])
    with open(params_file) as f:
        params = yaml.safe_load(f)
    for node in graph["nodes"]:
        name, cmd = node["name"], cmds.get(node["name"], [])
        exe = cmd[0] if cmd else ""
        want_exe = os.path.join("lib", node["package"], node["executable"])
        check(exe.endswith(os.sep + want_exe), f"{name}: executable {want_exe} (got {exe})")
        args = cmd[cmd.index("--ros-args") + 1:] if "--ros-args" in cmd else []
        pairs = list(zip(args, args[1:]))
        remaps = [v for k, v in pairs if k == "-r" and not v.startswith("__")]
        check(f"__node:={name}" in [v for k, v in pairs if k == "-r"], f"{name}: node name {name}")
        check(remaps == node.get("remaps", []), f"{name}: remaps {node.get('remaps', [])} (got {remaps})")
        files = [v for k, v in pairs if k == "--params-file"]
        check(bool(files) and os.path.realpath(files[0]) == os.path.realpath(params_file),
              f"{name}: {graph['params_file']} is its first parameters file (got {files[:1]})")
        section = (params.get(name) or {}).get("ros__parameters", {})
        for key in sorted(k for k in section if k.endswith("_file")):
            v = str(overrides.get(name, {}).get(key, ""))
            check(os.path.isabs(v) and os.path.isfile(v), f"{name}: {key} passed as an absolute path to a file (got {v!r})")


def main():
    share = get_package_share_directory("breakbench")
    launch_file = os.path.join(share, "launch", "corridor.launch.py")
    started, exits, lines, cmds, overrides = {}, {}, [], {}, {}

    def name_of(event):
        # launch_ros names processes after the executable: "fault_injector-1".
        return event.action.process_details["name"].rsplit("-", 1)[0]

    def on_start(event, _ctx):
        name = name_of(event)
        started[name] = event.pid
        cmd = list(event.cmd)
        cmds[name] = cmd
        # launch_ros writes the dict parameters to a temporary file that
        # exists while the process starts: read them now.
        files = [cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "--params-file"]
        overrides[name] = {}
        for f in files[1:]:
            with open(f) as fh:
                for section in (yaml.safe_load(fh) or {}).values():
                    overrides[name].update(section.get("ros__parameters", {}))

    def on_io(event):
        for line in event.text.decode(errors="replace").splitlines():
            lines.append((name_of(event), ANSI.sub("", line)))

    def on_exit(event, _ctx):
        exits[name_of(event)] = event.returncode

    ld = launch.LaunchDescription(
        [
            RegisterEventHandler(OnProcessStart(on_start=on_start)),
            RegisterEventHandler(OnProcessIO(on_stdout=on_io, on_stderr=on_io)),
            RegisterEventHandler(OnProcessExit(on_exit=on_exit)),
            IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file)),
        ]
    )
    watcher = StatusWatcher()
    t0 = time.monotonic()
    service = launch.LaunchService(argv=[])
    service.include_launch_description(ld)
    # Guard against a hung graph: a healthy run ends by itself after ~65 s.
    timer = threading.Timer(240.0, service.shutdown)
    timer.start()
    rc = service.run()
    timer.cancel()
    wall = time.monotonic() - t0
    time.sleep(0.5)
    watcher.close()

    results = []

    def check(ok, what):
        results.append(ok)
        print(("PASS " if ok else "FAIL ") + what, flush=True)

    print(f"launch_test: {launch_file}: LaunchService.run() = {rc} after {wall:.1f} s")
    for name, text in lines:
        print(f"  [{name}] {text}")
    check(rc == 0, f"the launch service returned 0 (got {rc})")
    check(set(started) == NODES, f"the four nodes started (got {sorted(started)})")
    check(wall < 230.0, f"the launch ended by itself when the oracle finished ({wall:.1f} s)")
    check(set(exits) == NODES and all(c == 0 for c in exits.values()), f"every process exited with code 0 (got {exits})")
    ready = {n for n, t in lines if re.search(r"\b(ready|starting)\b", t)}
    check(ready == NODES, f"every node's output was captured (a ready/starting line from {sorted(ready)})")
    bad = [f"[{n}] {t}" for n, t in lines if BAD.search(t)]
    check(not bad, "no ERROR or WARN line" + ("".join("\n    " + b for b in bad[:20]) if bad else ""))
    final = [s for s in watcher.status if s.get("done")]
    check(bool(final), f"/oracle/status carried the verdict ({len(watcher.status)} status messages)")
    if final:
        f = final[-1]
        check(
            f.get("t_s") == MISSION_TIMEOUT_S and f.get("samples") == SAMPLES,
            f"the verdict is at t_s = {MISSION_TIMEOUT_S} after {SAMPLES} samples (got {f.get('t_s')}, {f.get('samples')})",
        )
        check(
            f.get("safety_violation") is False and f.get("mission_failure") is False,
            f"healthy run: no safety violation, mission complete (got {f.get('safety_violation')}, {f.get('mission_failure')})",
        )
    same_graph(share, cmds, overrides, check)
    passed, failed = sum(results), len(results) - sum(results)
    print(f"launch_test: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
