#!/usr/bin/env bash
# `ros2 launch breakbench corridor.launch.py` with rclrs nodes (issue 27), from
# the colcon install (scripts/colcon_test.sh) and the rclrs binaries
# (scripts/rclrs_build.sh), inside a loopback-only network namespace:
#
#   rclrs           every node of the graph on rclrs (fault_injector, sim_bridge,
#                   simple_navigator, oracle)
#   rclrs_injector  the rclrs fault_injector, the other three on ros2-client
#   rclrs_others    the ros2-client fault_injector, the other three on rclrs
#
# How the launch file finds the rclrs binaries: an overlay prefix per
# configuration, put in front of AMENT_PREFIX_PATH, holding for each replaced
# package the ament index marker, its share folder (a link to the colcon
# install's) and lib/<pkg>/<exe>, a wrapper that puts the rclrs prefix's
# libraries on LD_LIBRARY_PATH, notes that it ran, and execs the binary (so
# launch's SIGINT reaches the node). Launch's ExecutableInPackage and
# FindPackageShare resolve through the first prefix that has the package.
#
# For each configuration:
#   1. `ros2 launch breakbench corridor.launch.py real_time_factor:=0` (lock-step)
#      runs to the oracle's verdict: exit 0, the four nodes "finished cleanly",
#      no ERROR or WARN line, the manifest holds a verdict on the three predicates,
#      and exactly the overlay's wrappers ran;
#   2. a one-run campaign (slice 0 of 4 of tests/graph/one_cell.yaml: an odom
#      scale fault, mission failure in-process) with that launch as an external
#      stack (`breakbench campaign --graph-cmd`): the run is done with the
#      in-process run's verdict, the fault applied.
# The verdicts of 1 are equal across the configurations and to the same launch
# with every node on ros2-client (run first, no overlay).
# Then, with every node on rclrs only:
#   3. every cell of tests/graph/scan_loss.yaml (6 runs: scan packet_loss 0.5 in
#      3 repeats on their own seeds, 3 nominal) through `--graph-cmd` on one
#      launch kept running (`--keep-running`: every run begins with the four
#      nodes' ~/reset services, the injector's carrying the run's seed): each
#      run done with the in-process run's verdict and seed, the fault applied.
#      RCLRS_E2E_SHARD=K/N runs slice K of N only (scripts/rclrs_ci.sh: 0/3, one
#      grid run and one nominal run: a faulted run is lock-step at about 2x real
#      time, 35-40 s, the whole file 142 s).
#
# Usage: scripts/rclrs_launch_test.sh
# Env: ROS_VENV (default <repo>/.venv-ros), COLCON_WS (default <repo>/target/ws),
#      RCLRS_PREFIX (default <repo>/target/rclrs-prefix), RCLRS_BIN (default
#      <repo>/target/rclrs/rclrs-bin), RCLRS_LAUNCH_DOMAIN_BASE (default 150),
#      RCLRS_E2E_SHARD (default: every run of 3.).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${ROS_VENV:-$ROOT/.venv-ros}"
WS="${COLCON_WS:-$ROOT/target/ws}"
PREFIX="$(realpath -m "${RCLRS_PREFIX:-$ROOT/target/rclrs-prefix}")"
RBIN="$(realpath -m "${RCLRS_BIN:-$ROOT/target/rclrs/rclrs-bin}")"
die() { echo "rclrs_launch_test: FAIL: $*" >&2; exit 1; }
[[ -x "$VENV/bin/ros2" ]] || die "$VENV/bin/ros2 missing: run scripts/setup_peers.sh"
[[ -f "$WS/install/setup.bash" ]] || die "$WS/install/setup.bash missing: run scripts/colcon_test.sh --build-only first"
for b in fault_injector sim_bridge simple_navigator oracle; do
  [[ -x "$RBIN/$b" ]] || die "$RBIN/$b missing: run scripts/rclrs_build.sh $PREFIX fault_injector sim_bridge simple_navigator oracle"
  # the rclrs variant links librcl; the ros2-client one does not
  readelf -d "$RBIN/$b" | grep -q 'NEEDED.*\[librcl\.so\]' || die "$RBIN/$b does not link librcl: not the rclrs variant"
done
if [[ "${1:-}" != "--inside" ]]; then
  exec "$ROOT/scripts/netns.sh" "$0" --inside
fi
ip -o link | grep -v ': lo:' | grep -q . && die "network namespace has interfaces besides lo"

# The rclrs nodes' libraries (scripts/rclrs_env.sh), for the wrappers only: the
# ros2 CLI and launch keep the venv's.
LDP="$(unset LD_LIBRARY_PATH; source "$ROOT/scripts/rclrs_env.sh" "$PREFIX" && echo "$LD_LIBRARY_PATH")"
# What a ROS 2 machine has after sourcing ROS and the workspace (as scripts/ros2cli_test.sh).
export ROS_DISTRO=jazzy ROS_VERSION=2 RMW_IMPLEMENTATION=rmw_fastrtps_cpp
export PATH="$VENV/bin:$PATH" AMENT_PREFIX_PATH="$VENV"
export LD_LIBRARY_PATH="$VENV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set +u
# shellcheck disable=SC1091
source "$WS/install/setup.bash"
set -u
BASE_APP="$AMENT_PREFIX_PATH"
DOMAIN="${RCLRS_LAUNCH_DOMAIN_BASE:-150}"
BB="$WS/install/breakbench/lib/breakbench/breakbench"
RUN="$(mktemp -d /tmp/rclrs_launch.XXXXXX)"
cd "$RUN"
FAILS=0 PASSES=0
pass() { echo "PASS $*"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
t0=$(date +%s)

# overlay NAME PKG/EXE...: the overlay prefix described above, in $RUN/NAME.
overlay() {
  local o="$RUN/$1" pe pkg exe
  shift
  mkdir -p "$o/share/ament_index/resource_index/packages"
  for pe in "$@"; do
    pkg="${pe%%/*}" exe="${pe##*/}"
    mkdir -p "$o/lib/$pkg"
    : >"$o/share/ament_index/resource_index/packages/$pkg"
    ln -sfn "$WS/install/$pkg/share/$pkg" "$o/share/$pkg"
    cat >"$o/lib/$pkg/$exe" <<EOF
#!/bin/sh
# The rclrs variant of $exe (issue 27; written by scripts/rclrs_launch_test.sh).
echo $exe >>"$o/ran"
LD_LIBRARY_PATH="$LDP\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$RBIN/$exe" "\$@"
EOF
    chmod +x "$o/lib/$pkg/$exe"
  done
}
NODES=(kraken_faults/fault_injector breakbench_sim_bridge/sim_bridge breakbench/simple_navigator breakbench_oracle/oracle)
overlay rclrs "${NODES[@]}"
overlay rclrs_injector kraken_faults/fault_injector
overlay rclrs_others breakbench_sim_bridge/sim_bridge breakbench/simple_navigator breakbench_oracle/oracle

# The in-process run of the external-stack campaign's slice (the reference of every 2.).
"$BB" campaign "$ROOT/tests/graph/one_cell.yaml" --out "$RUN/inproc" --shard 0/4 --quiet >inproc.log 2>&1 \
  || { cat inproc.log; die "in-process campaign of tests/graph/one_cell.yaml"; }

for cfg in ros2_client rclrs rclrs_injector rclrs_others; do
  if [[ "$cfg" == ros2_client ]]; then export AMENT_PREFIX_PATH="$BASE_APP"; else export AMENT_PREFIX_PATH="$RUN/$cfg:$BASE_APP"; fi
  export ROS_DOMAIN_ID=$DOMAIN
  DOMAIN=$((DOMAIN + 1))
  echo "==== rclrs_launch_test: $cfg: ros2 launch breakbench corridor.launch.py real_time_factor:=0 (ROS_DOMAIN_ID=$ROS_DOMAIN_ID)"
  t1=$(date +%s)
  set +e
  timeout 120 ros2 launch breakbench corridor.launch.py real_time_factor:=0 run_id:="$cfg" out_dir:="$RUN/$cfg-out" >"$cfg.log" 2>&1
  rc=$?
  set -e
  sed 's/\x1b\[[0-9;]*m//g' "$cfg.log" >"$cfg.txt"
  echo "rclrs_launch_test: $cfg: ros2 launch exited $rc after $(( $(date +%s) - t1 )) s"
  [[ $rc -eq 0 ]] && pass "$cfg: ros2 launch exit code 0" || { cat "$cfg.txt"; fail "$cfg: ros2 launch exit code $rc"; }
  for n in fault_injector sim_bridge simple_navigator oracle; do
    grep -Eq "^\[INFO\] \[$n-[0-9]+\]: process has finished cleanly" "$cfg.txt" \
      && pass "$cfg: $n: process has finished cleanly" || fail "$cfg: $n did not finish cleanly"
  done
  bad="$(grep -E 'ERROR|WARN' "$cfg.txt" || true)"
  [[ -z "$bad" ]] && pass "$cfg: no ERROR or WARN line in the run" || { fail "$cfg: ERROR/WARN lines:"; echo "$bad"; }
  want="" ran=""
  if [[ "$cfg" != ros2_client ]]; then
    want="$(find "$RUN/$cfg/lib" -type f -printf '%f\n' | sort | tr '\n' ' ')"
    ran="$(sort "$RUN/$cfg/ran" 2>/dev/null | tr '\n' ' ')"
    rm -f "$RUN/$cfg/ran"
  fi
  [[ "$ran" == "$want" ]] && pass "$cfg: the rclrs binaries that ran: '${ran% }'" || fail "$cfg: rclrs binaries that ran: '$ran', want '$want'"
  if "$VENV/bin/python3" - "$RUN/$cfg-out/manifests/$cfg.json" "$RUN/ros2_client-out/manifests/ros2_client.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
holds = {k: v[k]["holds"] for k in sorted(v)}
print("manifest", sys.argv[1], holds)
assert set(v) == {"operating_region_containment", "obstacle_clearance", "mission_completion_true_pose"}, v
ref = json.load(open(sys.argv[2]))["verdict"]
assert holds == {k: ref[k]["holds"] for k in sorted(ref)}, ("the all-ros2-client launch's verdict", ref)
EOF
  then pass "$cfg: the oracle's verdict, the same as the all-ros2-client launch's"; else fail "$cfg: oracle manifest"; fi
  [[ "$cfg" == ros2_client ]] && continue   # its external-stack run is scripts/ros2cli_test.sh's

  echo "==== rclrs_launch_test: $cfg: breakbench campaign --graph-cmd 'ros2 launch breakbench corridor.launch.py ...' (ROS_DOMAIN_ID=$DOMAIN)"
  t1=$(date +%s)
  set +e
  timeout 150 "$BB" campaign "$ROOT/tests/graph/one_cell.yaml" --out "$RUN/$cfg-ext" --shard 0/4 --quiet \
    --graph-cmd 'ros2 launch breakbench corridor.launch.py seed:={seed} run_id:={run_id} out_dir:={out} real_time_factor:=0 start_service:=true' \
    --ready-topic /oracle/odom --ready-message /fault_injector/status --start-service /sim_bridge/start \
    --graph-domain-base "$DOMAIN" >"$cfg-ext.log" 2>&1
  ec=$?
  set -e
  DOMAIN=$((DOMAIN + 1))
  echo "rclrs_launch_test: $cfg: external-stack campaign exited $ec after $(( $(date +%s) - t1 )) s"
  if "$VENV/bin/python3" - "$RUN/$cfg-ext" "$RUN/inproc" <<'EOF'
import glob, json, os, sys
def load(d):
    return {os.path.basename(p): json.load(open(p)) for p in glob.glob(os.path.join(d, "manifests", "*.json"))}
g, p = load(sys.argv[1]), load(sys.argv[2])
assert len(g) == 1 and set(g) == set(p), (sorted(g), sorted(p))
for k, m in g.items():
    rec = m["graph"]
    got = {n: v["holds"] for n, v in m["verdict"].items()}
    print(k, "state", rec["state_reached"], rec.get("invalid_reason"), "verdict", got, "faults", [(f["channel"], f["first_applied_s"]) for f in m["faults"]])
    assert rec["state_reached"] == "done", rec
    assert got == {n: v["holds"] for n, v in p[k]["verdict"].items()}, p[k]["verdict"]
    assert len(m["faults"]) == len(p[k]["faults"]) and all(f["first_applied_s"] is not None for f in m["faults"])
EOF
  then pass "$cfg: external stack: the run is done with the in-process verdict, the fault applied"
  else sed 's/\x1b\[[0-9;]*m//g' "$cfg-ext.log" | tail -30; fail "$cfg: external-stack campaign (exit $ec)"; fi
  ran="$(sort -u "$RUN/$cfg/ran" 2>/dev/null | tr '\n' ' ')"
  [[ "$ran" == "$want" ]] && pass "$cfg: external stack ran the rclrs binaries '${ran% }'" || fail "$cfg: external stack ran '$ran', want '$want'"
done

# 3. Every cell of one more e2e cell file with every node on rclrs:
# tests/graph/scan_loss.yaml (scan packet_loss 0.5 in 3 repeats, each on its own
# seed, and 3 nominal runs; tests/graph_seed.rs checks its draws on the
# ros2-client graph): one launch kept running, reset between the runs; each run
# done, with its in-process run's verdict.
cfg=rclrs
export AMENT_PREFIX_PATH="$RUN/$cfg:$BASE_APP"
echo "==== rclrs_launch_test: $cfg: tests/graph/scan_loss.yaml, every cell on the graph (--graph-cmd, ROS_DOMAIN_ID=$DOMAIN..)"
t1=$(date +%s)
rm -f "$RUN/$cfg/ran"
SHARD=()
[[ -z "${RCLRS_E2E_SHARD:-}" ]] || SHARD=(--shard "$RCLRS_E2E_SHARD")
"$BB" campaign "$ROOT/tests/graph/scan_loss.yaml" --out "$RUN/scan_loss-inproc" "${SHARD[@]}" --quiet >scan_loss-inproc.log 2>&1 \
  || { cat scan_loss-inproc.log; die "in-process campaign of tests/graph/scan_loss.yaml"; }
set +e
timeout 300 "$BB" campaign "$ROOT/tests/graph/scan_loss.yaml" --out "$RUN/scan_loss-$cfg" "${SHARD[@]}" --quiet \
  --graph-cmd 'ros2 launch breakbench corridor.launch.py real_time_factor:=0 start_service:=true keep_running:=true' \
  --ready-topic /oracle/odom --ready-message /fault_injector/status --start-service /sim_bridge/start \
  --graph-domain-base "$DOMAIN" --keep-running --reset-service /sim_bridge/reset --reset-service /fault_injector/reset \
  --reset-service /simple_navigator/reset --reset-service /oracle/reset >"scan_loss-$cfg.log" 2>&1
ec=$?
set -e
echo "rclrs_launch_test: $cfg: tests/graph/scan_loss.yaml on the graph exited $ec after $(( $(date +%s) - t1 )) s"
if "$VENV/bin/python3" - "$RUN/scan_loss-$cfg" "$RUN/scan_loss-inproc" <<'EOF'
import glob, json, os, sys
def load(d):
    return {os.path.basename(p): json.load(open(p)) for p in glob.glob(os.path.join(d, "manifests", "*.json"))}
g, p = load(sys.argv[1]), load(sys.argv[2])
assert set(g) == set(p) and any(k.startswith("grid_") for k in g), (sorted(g), sorted(p))
for k in sorted(g):
    m = g[k]
    got = {n: v["holds"] for n, v in m["verdict"].items()}
    want = {n: v["holds"] for n, v in p[k]["verdict"].items()}
    print(k, m.get("kind"), "seed", m["seed"], "state", m["graph"]["state_reached"], "verdict", got, "in-process", want)
    assert m["graph"]["state_reached"] == "done", m["graph"]
    assert m["seed"] == p[k]["seed"], (m["seed"], p[k]["seed"])
    assert got == want, (k, got, want)
    assert len(m["faults"]) == len(p[k]["faults"]) and all(f["first_applied_s"] is not None for f in m["faults"])
EOF
then pass "$cfg: tests/graph/scan_loss.yaml${SHARD[1]:+ (shard ${SHARD[1]})}: every run on an all-rclrs graph done with its in-process verdict"
else sed 's/\x1b\[[0-9;]*m//g' "scan_loss-$cfg.log" | tail -30; fail "$cfg: tests/graph/scan_loss.yaml on the graph (exit $ec)"; fi
ran="$(sort -u "$RUN/$cfg/ran" 2>/dev/null | tr '\n' ' ')"
want="$(find "$RUN/$cfg/lib" -type f -printf '%f\n' | sort | tr '\n' ' ')"
[[ "$ran" == "$want" ]] && pass "$cfg: scan_loss.yaml ran the rclrs binaries '${ran% }'" || fail "$cfg: scan_loss.yaml ran '$ran', want '$want'"

echo "rclrs_launch_test: $PASSES passed, $FAILS failed ($(( $(date +%s) - t0 )) s; logs in $RUN)"
[[ $FAILS -eq 0 ]]
