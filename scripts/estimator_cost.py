#!/usr/bin/env python3
"""The estimator's cost in a callgrind profile (REQ-EST-PERF).

Usage: scripts/estimator_cost.py RAW.callgrind EST.callgrind

RAW is `valgrind --tool=callgrind target/release/breakbench bench --runs 4
scenarios/corridor_study.yaml` (the corridor run, raw wheel odometry), EST the
same on scenarios/studies/corridor_estimator_study.yaml (the navigator on the
EKF). Prints, in instructions (Ir):

* both totals and their ratio (the whole GNSS/IMU stack against the corridor
  run);
* the estimator's own cost in EST: every call of the navigator's stack
  (`breakbench_navigator::stack`, the only in-process user of the EKF) into
  the `breakbench_estimator` crate, inclusive (what it calls, e.g. libm,
  counts), plus estimator code inlined into the stack; and that cost as a
  share of the RAW total (the issue's "the estimator adds at most 25 % to the
  in-process run time of the corridor run");
* the plant's IMU and GNSS models (`breakbench_sim_bridge::sensors`), the
  sensors the estimator needs, which a raw-odometry run does not simulate
  (calls from `breakbench_sim_bridge::plant`).

Call costs come from `callgrind_annotate --tree=caller` (run from `/`: in a
directory where it finds the sources it lists no callers), where each call
edge is listed once, under its callee.
"""
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(<|\*)\s+(.*)$")


def total(path):
    out = subprocess.run(["callgrind_annotate", path], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^\s*([\d,]+)\s+\([^)]*\)\s+PROGRAM TOTALS", out, re.M)
    return int(m.group(1).replace(",", ""))


def split(entry):
    """'file:function (Nx) [obj]' -> (file, function)."""
    entry = re.sub(r"\s+\[[^\]]*\]$", "", entry.strip())
    entry = re.sub(r"\s+\(\d[\d,]*x\)$", "", entry)
    file, _, fn = entry.partition(":")
    return file, fn


def inside(fn, crate):
    return fn.startswith(crate + "::") or fn.startswith("<" + crate + "::")


def calls_into(path, callee, caller, caller_src, src_dir):
    """Inclusive cost of the calls from functions whose name contains
    `caller` (or whose code is in the file `caller_src`) into functions of the module path `callee`, plus the exclusive
    cost of `callee`'s code (files under `src_dir`) inlined into those
    callers; and the same per callee function. Calls among `callee`'s own
    functions (or through the generic std functions it calls) are inside
    those costs, so nothing is counted twice."""
    out = subprocess.run(
        ["callgrind_annotate", "--tree=caller", "--threshold=100", os.path.abspath(path)],
        capture_output=True, text=True, check=True, cwd="/",
    ).stdout
    cost, callers, by_fn = 0, [], {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            callers = [] if not line.strip() else callers
            continue
        n, kind, entry = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        file, fn = split(entry)
        if kind == "<":
            callers.append((n, file, fn))
            continue
        if inside(fn, callee):
            c = sum(c for c, f_file, f in callers if caller in f or caller_src in f_file)
        elif src_dir in file and caller in fn:
            c, fn = n, f"(inlined into) {fn}"
        else:
            c = 0
        cost += c
        by_fn[fn] = by_fn.get(fn, 0) + c
        callers = []
    return cost, by_fn


def main():
    raw, est = sys.argv[1], sys.argv[2]
    t_raw, t_est = total(raw), total(est)
    own, by_fn = calls_into(
        est, "breakbench_estimator", "breakbench_navigator::stack", "/robot/breakbench_navigator/src/stack.rs", "/robot/breakbench_estimator/src/"
    )
    sensors, _ = calls_into(
        est, "breakbench_sim_bridge::sensors", "breakbench_sim_bridge::plant", "/robot/breakbench_sim_bridge/src/plant.rs",
        "/robot/breakbench_sim_bridge/src/sensors.rs"
    )
    m = 1e6
    print(f"corridor run (raw wheel odometry):     {t_raw / m:8.1f} M Ir")
    print(f"corridor run on the estimator:         {t_est / m:8.1f} M Ir  ({t_est / t_raw:.2f}x)")
    print(f"  the estimator's own code:            {own / m:8.1f} M Ir  ({100 * own / t_raw:.1f} % of the corridor run)")
    print(f"  the plant's IMU and GNSS models:     {sensors / m:8.1f} M Ir  ({100 * sensors / t_raw:.1f} %)")
    for fn, c in sorted(by_fn.items(), key=lambda kv: -kv[1])[:8]:
        print(f"    {c / m:8.1f} M Ir  {fn}")
    rest = t_est - t_raw - own - sensors
    print(f"  the rest (relay of the two sensors through the injector, traces, diagnostics): {rest / m:.1f} M Ir ({100 * rest / t_raw:.1f} %)")


if __name__ == "__main__":
    main()
