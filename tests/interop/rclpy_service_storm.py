"""Service storm (issue 27): how many replies of N set_fault calls reach an
rclpy client that sends them at up to 1 kHz without waiting.

    rclpy_service_storm.py client N     calls /fault_injector/set_fault N times
    rclpy_service_storm.py server       an rclpy SetFault server (the direct
                                        rclpy -> rclpy path, for comparison)

scripts/service_storm.sh runs both paths in a loopback-only network
namespace and prints one line per path.
"""

import sys
import time

import rclpy
from rclpy.node import Node
from kraken_interfaces.msg import FaultSpec
from kraken_interfaces.srv import SetFault


def client(n_calls):
    node = Node("storm_client")
    cli = node.create_client(SetFault, "/fault_injector/set_fault")
    if not cli.wait_for_service(timeout_sec=20):
        print("storm: service not available", flush=True)
        return 1
    futs = []
    t0 = time.monotonic()
    for i in range(n_calls):
        req = SetFault.Request()
        req.fault.channel = "imu"
        req.fault.mode = FaultSpec.HEALTHY if i % 2 else FaultSpec.DROPOUT
        futs.append(cli.call_async(req))
        due = t0 + (i + 1) / 1000.0
        rclpy.spin_once(node, timeout_sec=0)
        while time.monotonic() < due:
            rclpy.spin_once(node, timeout_sec=max(0.0, due - time.monotonic()))
    sent_s = time.monotonic() - t0
    end = time.monotonic() + 10
    while time.monotonic() < end and not all(f.done() for f in futs):
        rclpy.spin_once(node, timeout_sec=0.05)
    done = sum(f.done() for f in futs)
    print(f"storm: {done} of {n_calls} replies ({n_calls - done} lost); "
          f"calls sent in {sent_s:.1f} s", flush=True)
    return 0


def server():
    node = Node("fault_injector")

    def on_request(_req, resp):
        resp.success = True
        resp.message = "ok"
        return resp

    node.create_service(SetFault, "/fault_injector/set_fault", on_request)
    print("ready:", flush=True)
    try:
        rclpy.spin(node)
    except Exception:  # ExternalShutdownException on SIGINT
        pass
    return 0


if __name__ == "__main__":
    rclpy.init()
    rc = server() if sys.argv[1] == "server" else client(int(sys.argv[2]))
    sys.exit(rc)
