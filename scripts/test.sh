#!/usr/bin/env bash
# Runs every Breakbench test. This is the test command of README.md and of
# .ci/run. It needs network only to fetch crates and Python wheels; every
# test that speaks DDS runs inside a loopback-only network namespace
# (scripts/netns.sh), so no DDS packet leaves the machine. Every suite runs
# once:
#
#  1. colcon build + colcon test + colcon test-result (scripts/colcon_test.sh):
#     the one run of the Rust tests (unit, integration, doc) of the five
#     ament_cargo packages, plus `cargo fmt --check`, in the netns.
#  2. The Rust tests colcon does not run: kraken_interfaces is an ament_cmake
#     (rosidl) package to colcon, so its cargo tests run here; the benchmarks
#     are compiled (`cargo test` does not build them).
#  3. The corridor study on the embedded plant (the colcon-built binary), then:
#     - `breakbench analyze --check`: summary.json recomputed from the manifests is byte-identical;
#     - the independent Python reference (statsmodels Wilson) over every cell and both confusion matrices;
#     - determinism: the same study with another --jobs gives a byte-identical summary.json.
#  4. Interop with real ROS 2 peers (rclpy on Fast DDS, Eclipse Cyclone DDS).
#  5. The real ROS 2 command line from the colcon install (scripts/ros2cli_test.sh):
#     the launch test of corridor.launch.py, `ros2 launch breakbench corridor.launch.py`
#     and the README's ros2 service/topic/param/node commands against it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
step() { printf '\n==== %s\n' "$*"; }

step "python venv for the reference check (.venv-ref: statsmodels)"
if [[ ! -x .venv-ref/bin/python3 ]] || ! .venv-ref/bin/python3 -c 'import statsmodels' 2>/dev/null; then
  python3 -m venv .venv-ref
  .venv-ref/bin/pip install --disable-pip-version-check -q -r tests/reference/requirements.txt
fi

step "colcon build / colcon test / colcon test-result (real colcon from PyPI; tests in the netns)"
scripts/colcon_test.sh
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
BB="$TARGET_DIR/debug/breakbench"

step "Rust tests colcon does not run: kraken_interfaces (ament_cmake to colcon); benchmarks compile"
scripts/netns.sh cargo test -p kraken_interfaces --offline
cargo build --workspace --benches --offline

step "corridor study, reference checks and determinism"
OUT="$ROOT/target/test-campaign"
rm -rf "$OUT" "$OUT-jobs1"
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT" --jobs 2 --quiet
"$BB" analyze "$OUT" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT"
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT-jobs1" --jobs 1 --quiet
cmp "$OUT/summary.json" "$OUT-jobs1/summary.json"
echo "summary.json byte-identical with --jobs 2 and --jobs 1"

if [[ -x scripts/interop.sh ]]; then
  step "interop with real ROS 2 peers"
  scripts/interop.sh
fi

step "the real ROS 2 command line: launch test, ros2 launch, ros2 service/topic/param/node"
scripts/ros2cli_test.sh

step "all tests passed"
