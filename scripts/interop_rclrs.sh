#!/usr/bin/env bash
# The interop phases against real rclpy (Fast DDS) with the rclrs variant of
# the fault injector (issue 27): makes the prefix (scripts/rclrs_prefix.sh),
# builds `kraken_faults --features rclrs`, copies its binaries to
# target/rclrs-bin (so a default build does not overwrite them) and runs
# scripts/interop.sh on them inside its loopback-only network namespace.
# Phases: 1 (production guard), 2 (rclpy peer: faulted values field by field,
# set_fault from rclpy), 11 (any-type channel, byte-exact relay, fault stack)
# by default; INTEROP_PHASES overrides. Needs root for unshare -n.
# Usage: scripts/interop_rclrs.sh [PREFIX]   (default <repo>/target/rclrs-prefix)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:-$ROOT/target/rclrs-prefix}")"
start=$(date +%s)
"$ROOT/scripts/rclrs_prefix.sh" "$PREFIX"
PROFILE="${CARGO_PROFILE:-dev}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ "$PROFILE" == dev ]]; then OUT="$TARGET_DIR/debug"; else OUT="$TARGET_DIR/$PROFILE"; fi
(
  # shellcheck source=rclrs_env.sh
  source "$ROOT/scripts/rclrs_env.sh" "$PREFIX"
  cd "$ROOT" && cargo build ${CARGO_JOBS:+-j "$CARGO_JOBS"} --profile "$PROFILE" -p kraken_faults --features rclrs --bins
)
BIN="$TARGET_DIR/rclrs-bin"
mkdir -p "$BIN"
cp "$OUT"/fault_injector "$OUT"/kraken_scenario "$BIN"/
echo "interop_rclrs: prefix + rclrs build took $(( $(date +%s) - start )) s"
INTEROP_BIN="$BIN" INTEROP_RCLRS_PREFIX="$PREFIX" INTEROP_PHASES="${INTEROP_PHASES:-1 2 11}" \
  INTEROP_DOMAIN_BASE="${INTEROP_DOMAIN_BASE:-140}" exec "$ROOT/scripts/interop.sh"
