#!/usr/bin/env python3
"""Every run recording of a campaign read by readers nobody here wrote
(REQ-REC-MCAP, REQ-REC-EVENTS, REQ-REC-POLICY; issue 26).

For each manifest of each campaign directory given that names a recording
(recordings/<run_id>.mcap, its sha256 in the manifest):

- the Python `mcap` library with `mcap-ros2-support` decodes every message
  of every channel from the file's own ros2msg schemas (the count per
  channel equals the file's statistics record); header profile `ros2`,
  every channel `cdr` with an `offered_qos_profiles` entry;
- `rosbags` opens the raw .mcap, registers the file's types from its
  schemas in an empty typestore and deserializes every message;
- the values agree with the manifest: the last ground-truth pose
  (/oracle/odom) is at the recorded final goal distance from the goal of
  the attached resolved scenario; the events (/breakbench/events) are
  exactly the manifest's timeline (trigger, requested, applied, cleared of
  each fault), expectation decisions, invariant decisions and verdict
  class, each logged at its own stamp; the breakbench_run and
  breakbench_recording metadata name the run, its policy and counts that
  add up.

Usage: check_recordings.py [--full-every K] CAMPAIGN_DIR [CAMPAIGN_DIR ...]
(pinned wheels: tests/reference/requirements.txt). With --full-every K,
every K-th `full` recording (in run-id order) is read, and every `events`
one: pure-Python decoding of a 60 s full corridor run takes about 1 s of
CPU. Exit 1 on the first disagreement, naming the file.
"""
import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

TRUTH = "/oracle/odom"
EVENTS = "/breakbench/events"
KINDS = {0: "trigger", 1: "requested", 2: "applied", 3: "cleared", 4: "expectation", 5: "verdict"}
INVARIANTS = ["operating_region_containment", "obstacle_clearance", "mission_completion_true_pose"]


def ns(t_s):
    """Sim seconds as whole nanoseconds, rounded half away from zero (as the writer)."""
    return int(math.floor(t_s * 1e9 + 0.5))


def fail(path, msg):
    print(f"check_recordings: {path}: {msg}", file=sys.stderr)
    sys.exit(1)


def expected_events(m):
    """(ns, kind, name, outcome) of every event the manifest records."""
    out = []
    for f in (m.get("timeline") or {}).get("faults", []):
        for k, key in ((0, "t_trigger"), (1, "t_requested"), (2, "t_applied"), (3, "t_cleared")):
            if f.get(key) is not None:
                out.append((ns(f[key]["sim_s"]), k, f["fault"], ""))
    for e in m.get("expectations", []):
        out.append((ns(e["decided_at_s"]), 4, e["name"], "satisfied" if e["satisfied"] else "violated"))
    for inv in INVARIANTS:
        p = m["verdict"][inv]
        out.append((ns(p["decided_at_s"]), 5, inv, "holds" if p["holds"] else "violated"))
    out.append((ns(m["sim_time_s"]), 5, "verdict_class", m["verdict_class"]["class"]))
    return sorted(out)


def read_mcap(path):
    """Every message decoded by mcap + mcap-ros2-support; the file's records."""
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        header = reader.get_header()
        summary = reader.get_summary()
        counts, truth, events = {}, None, []
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=True):
            counts[channel.topic] = counts.get(channel.topic, 0) + 1
            if channel.topic == TRUTH:
                truth = decoded.pose.pose.position
            elif channel.topic == EVENTS:
                stamp = decoded.stamp.sec * 10**9 + decoded.stamp.nanosec
                if stamp != message.log_time:
                    fail(path, f"event {decoded.name} stamped {stamp} ns, logged at {message.log_time} ns")
                events.append((stamp, decoded.kind, decoded.name, decoded.outcome))
        metadata = {r.name: dict(r.metadata) for r in reader.iter_metadata()}
        attachments = {a.name: a.data for a in reader.iter_attachments()}
    if header.profile != "ros2":
        fail(path, f"profile {header.profile!r}, not ros2")
    for ch in summary.channels.values():
        schema = summary.schemas[ch.schema_id]
        if ch.message_encoding != "cdr" or schema.encoding != "ros2msg":
            fail(path, f"{ch.topic}: {ch.message_encoding}/{schema.encoding}, not cdr/ros2msg")
        if "reliability:" not in ch.metadata.get("offered_qos_profiles", ""):
            fail(path, f"{ch.topic}: no offered_qos_profiles")
    stats = {summary.channels[c].topic: n for c, n in summary.statistics.channel_message_counts.items()}
    if {t: n for t, n in stats.items() if n} != counts:
        fail(path, f"decoded per topic {counts}, the statistics say {stats}")
    return counts, truth, sorted(events), metadata, attachments


def read_rosbags(path):
    """Every message deserialized by rosbags with the file's own types."""
    store = get_typestore(Stores.EMPTY)
    counts, truth = {}, None
    with Reader(path) as reader:
        types = {}
        for c in reader.connections:
            types.update(get_types_from_msg(c.msgdef.data, c.msgtype))
        store.register(types)
        for c, _t, raw in reader.messages():
            msg = store.deserialize_cdr(raw, c.msgtype)
            counts[c.topic] = counts.get(c.topic, 0) + 1
            if c.topic == TRUTH:
                truth = msg.pose.pose.position
    return counts, truth


def check_run(out, m):
    path = out / "recordings" / f"{m['run_id']}.mcap"
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != m["recording_sha256"]:
        fail(path, "sha256 differs from the manifest's recording_sha256")
    counts, truth, events, meta, att = read_mcap(path)
    run = meta.get("breakbench_run", {})
    if run.get("run_id") != m["run_id"] or run.get("seed") != str(m["seed"]):
        fail(path, f"breakbench_run {run} names another run")
    rec = meta.get("breakbench_recording", {})
    mode = m.get("recording_mode", "full")
    written = sum(counts.values())
    if rec.get("mode") != mode or int(rec["messages_written"]) != written:
        fail(path, f"breakbench_recording {rec}: mode {mode}, {written} messages read")
    if int(rec["messages_offered"]) != written + int(rec["messages_not_kept"]):
        fail(path, f"breakbench_recording {rec}: offered != written + not kept")
    scenario = json.loads(att["scenario.json"])
    if scenario["run"]["run_id"] != m["run_id"] or scenario["scenario_hash"] != m["scenario_hash"]:
        fail(path, "scenario.json is another run's")
    goal = scenario["world"]["goal"]["center_m"]
    dist = math.hypot(truth.x - goal[0], truth.y - goal[1])
    if abs(dist - m["final_goal_distance_m"]) > 1e-9:
        fail(path, f"last {TRUTH} is {dist} m from the goal, the manifest says {m['final_goal_distance_m']}")
    want = expected_events(m)
    if events != want:
        fail(path, f"events {events} differ from the manifest's {want}")
    rb_counts, rb_truth = read_rosbags(path)
    if rb_counts != counts or (rb_truth.x, rb_truth.y) != (truth.x, truth.y):
        fail(path, f"rosbags read {rb_counts}, mcap {counts}")
    return written, len(data), mode


def main(dirs, full_every):
    for d in map(Path, dirs):
        n = msgs = size = full = 0
        modes = set()
        for mf in sorted((d / "manifests").glob("*.json")):
            m = json.loads(mf.read_text())
            if not m.get("recording_sha256"):
                continue
            if m.get("recording_mode", "full") == "full":
                full += 1
                if (full - 1) % full_every:
                    continue
            w, b, mode = check_run(d, m)
            n, msgs, size = n + 1, msgs + w, size + b
            modes.add(mode)
        if n == 0:
            fail(d, "no recording to check")
        print(f"check_recordings: {d}: {n} recordings ({'/'.join(sorted(modes))}), {msgs} messages "
              f"decoded by mcap-ros2-support and rosbags, {size // n} bytes per run; last ground-truth "
              f"pose, events and metadata agree with the manifests")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full-every", type=int, default=1, metavar="K")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    main(a.dirs, max(1, a.full_every))
