#!/usr/bin/env bash
# The reference's checks of sampled designs (REQ-STAT-SAMPLED) and rare
# events (REQ-STAT-RARE) in tests/reference/check_summary.py fail on a wrong
# figure: tampered copies of correct summary.json files must make it exit 1
# naming each: (1) a design point moved, the design's seed changed, s*
# taken elsewhere than at the other axis' reference; (2) the
# rare-event P-hat off by 1e-6 (relative), its se and effective runs off.
#
# usage: scripts/tamper_designs.sh SAMPLED_DIR RARE_DIR
#   (campaigns of tests/data/sampled_study.yaml and tests/data/rare_study.yaml)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="$ROOT/.venv-ref/bin/python3"
SAMPLED="$1"; RARE="$2"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
"$PY" - "$SAMPLED/summary.json" "$RARE/summary.json" "$TMP" <<'PY'
import copy, json, sys
sampled, rare, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
s = copy.deepcopy(sampled)
s["design"]["points"][2]["latency_s"] += 0.01
s["design"]["seed"] += 1
m = next(m for m in s["dose_response"] if m["status"] == "fitted")
m["s_star"][0]["at"]["odom_bias"] = 0.005
json.dump(s, open(f"{tmp}/points.json", "w"))
s = copy.deepcopy(rare)
s["rare_event"]["p"] *= 1 + 1e-6
s["rare_event"]["se"] *= 1 + 1e-6
s["rare_event"]["effective_runs"] += 0.01
json.dump(s, open(f"{tmp}/rare.json", "w"))
PY
check() {
  local case="$1" dir="$2"; shift 2
  local rc=0
  "$PY" "$ROOT/tests/reference/check_summary.py" "$dir" --summary "$TMP/$case.json" > "$TMP/$case.out" 2>&1 || rc=$?
  [[ $rc == 1 ]] || { echo "tamper_designs: $case: exit $rc, not 1"; cat "$TMP/$case.out"; exit 1; }
  for pat in "$@"; do
    grep -q "^MISMATCH .*$pat" "$TMP/$case.out" \
      || { echo "tamper_designs: $case: no mismatch for '$pat'"; cat "$TMP/$case.out"; exit 1; }
  done
  echo "tamper_designs: $case: $(grep -c '^MISMATCH' "$TMP/$case.out") mismatch(es), each tampered figure caught"
}
check points "$SAMPLED" "design.seed: summary 4 vs scenario 3" "design.points: 20 points, not the summary's 20 cells in order" \
  "s\* latency_s at {'odom_bias': 0.0}: got latency_s at {'odom_bias': 0.005}"
check rare "$RARE" "rare_event p:" "rare_event se:" "rare_event effective_runs:"
