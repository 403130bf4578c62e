#!/usr/bin/env bash
# Runs every Breakbench test. This is the test command of README.md and of
# .ci/run. It needs network only to fetch crates and Python wheels; every
# test that speaks DDS runs inside a loopback-only network namespace
# (scripts/netns.sh), so no DDS packet leaves the machine.
#
#  1. Rust: unit and integration tests of the whole workspace.
#  2. The corridor study on the embedded plant, then:
#     - `breakbench analyze --check`: summary.json recomputed from the manifests is byte-identical;
#     - the independent Python reference (statsmodels Wilson) over every cell and both confusion matrices;
#     - determinism: the same study with another --jobs gives a byte-identical summary.json.
#  3. Interop with real ROS 2 peers (rclpy on Fast DDS, Eclipse Cyclone DDS).
#  4. colcon build + colcon test + colcon test-result (scripts/colcon_test.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
step() { printf '\n==== %s\n' "$*"; }

step "python venv for the reference check (.venv-ref: statsmodels)"
if [[ ! -x .venv-ref/bin/python3 ]] || ! .venv-ref/bin/python3 -c 'import statsmodels' 2>/dev/null; then
  python3 -m venv .venv-ref
  .venv-ref/bin/pip install --disable-pip-version-check -q -r tests/reference/requirements.txt
fi

step "build (fetches crates)"
cargo build --workspace --all-targets
cargo build --release --bin breakbench
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
BB="$TARGET_DIR/release/breakbench"

step "cargo test --workspace (inside a loopback-only network namespace)"
scripts/netns.sh cargo test --workspace --offline

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

step "colcon build / colcon test / colcon test-result (real colcon from PyPI; tests in the netns)"
scripts/colcon_test.sh

step "all tests passed"
