#!/usr/bin/env bash
# End-to-end tests of the ROS graph over DDS (REQ-GRAPH-UP, REQ-GRAPH-MATCHES-IN-PROCESS): `breakbench up
# launch/corridor.graph.yaml` in lock-step on the corridor study's nominal
# cell and odom bias 0.2 cell (fault set through /fault_injector/set_fault),
# compared with the in-process campaign, plus the `breakbench up` unit tests.
# Every graph runs in its own loopback-only network namespace
# (scripts/netns.sh, needs root or user namespaces) on its own ROS_DOMAIN_ID.
# Hard limits: breakbench up --timeout-s 150, 240 s kill per graph.
#
# Usage: scripts/e2e.sh     (also part of `scripts/test.sh` via cargo test --workspace)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
start=$(date +%s)
cargo test --offline -p breakbench --test e2e_graph -- --nocapture
cargo test --offline -p breakbench_supervisor --lib
echo "e2e: passed in $(( $(date +%s) - start )) s"
