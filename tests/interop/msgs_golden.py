#!/usr/bin/env python3
"""Golden CDR cases from the real peer for breakbench_msgs (REQ-MSG-CDR).

For every built-in type of breakbench_msgs that the ROS 2 Jazzy wheels in
this venv provide, make several values with the rclpy-generated classes
(two random ones and three edge ones: NaN, +-Inf, -0.0, subnormals, max/min
integers, empty and long sequences, empty, long and non-ASCII strings),
serialise each with rclpy.serialization.serialize_message, and write

    OUT/<pkg>.<Type>.<case>.cdr    the bytes (4-byte header + body)
    OUT/<pkg>.<Type>.<case>.json   {"type": "pkg/msg/Type", "value": ...}

The JSON value is what rclpy reads back from those bytes
(deserialize_message), so float32 values are the rounded ones on the wire.
Floats are strings of Python's repr (exact and round-trip safe; "nan",
"inf", "-inf"); octets are integers; messages are objects in field order.
OUT/skipped.json lists the built-in types the venv lacks, with the reason.

foundation/breakbench_msgs/tests/golden.rs (BREAKBENCH_MSGS_GOLDEN_DIR=OUT) decodes
each case to the same values and re-encodes it to the same bytes, padding
masked.

Usage: python3 tests/interop/msgs_golden.py OUT_DIR
(the built-in types are read from foundation/breakbench_msgs/src/builtin.rs, the
generated table of scripts/gen_msgs_builtin.py)
"""
import importlib
import json
import math
import os
import random
import re
import struct
import sys
import zlib

from rclpy.serialization import deserialize_message, serialize_message
from rosidl_parser import definition as d

INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "uint8": (0, 2**8 - 1), "char": (0, 255), "octet": (0, 255),
    "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
    "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1),
}
F32_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
F32_TINY = struct.unpack("<f", struct.pack("<I", 0x00000001))[0]
TEXT = "ünïcødé ✓ 日本語 "


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Gen:
    def __init__(self, case, seed):
        self.case = case
        self.rng = random.Random(seed)
        self.i = 0  # running counter: edge values cycle through their list

    def nxt(self):
        self.i += 1
        return self.i

    def float(self, single):
        c = self.case
        big = F32_MAX if single else 1.7976931348623157e308
        tiny = F32_TINY if single else 5e-324
        if c == "edge_hi":
            return [math.inf, big, tiny][self.nxt() % 3]
        if c == "edge_lo":
            return [math.nan, -math.inf, -big][self.nxt() % 3]
        if c == "edge_mix":
            return [math.nan, math.inf, -math.inf, -0.0, tiny, -tiny, 0.1][self.nxt() % 7]
        x = self.rng.uniform(-1e4, 1e4) * 10 ** self.rng.randint(-6, 3)
        return f32(x) if single else x

    def int(self, kind):
        lo, hi = INT_RANGES[kind]
        if self.case == "edge_hi":
            return hi
        if self.case == "edge_lo":
            return lo
        if self.case == "edge_mix":
            return [lo, hi, 0, 1, -1 if lo < 0 else 2][self.nxt() % 5]
        return self.rng.randint(lo, hi)

    def string(self, maximum=None):
        c = self.case
        if c == "edge_lo":
            s = ""
        elif c == "edge_hi":
            s = TEXT * 40  # ~800 bytes of UTF-8
        elif c == "edge_mix":
            s = ["", "a", "ab", "abc", TEXT][self.nxt() % 5]
        else:
            n = self.rng.randint(0, 12)
            s = "".join(self.rng.choice("abcxyz_/ 0123é") for _ in range(n))
        if maximum is not None:
            # The bound counts bytes of UTF-8 (rosidl checks characters;
            # keep both within it).
            while len(s.encode()) > maximum:
                s = s[:-1]
        return s

    def seq_len(self, maximum, elem_is_msg):
        c = self.case
        if c == "edge_lo":
            n = 0
        elif c == "edge_hi":
            n = 3 if elem_is_msg else 1000
        elif c == "edge_mix":
            n = 7 if not elem_is_msg else 2
        else:
            n = self.rng.randint(0, 3 if elem_is_msg else 20)
        return n if maximum is None else min(n, maximum)


def make_basic(g, t):
    n = t.typename
    if n == "boolean":
        if g.case in ("edge_hi",):
            return True
        if g.case == "edge_lo":
            return False
        return g.rng.random() < 0.5 if g.case.startswith("random") else bool(g.nxt() % 2)
    if n == "float":
        return g.float(True)
    if n == "double":
        return g.float(False)
    if n == "octet":
        return bytes([g.int("octet")])
    if n == "char":
        return chr(g.int("char"))
    return g.int(n)


def make(g, t):
    if isinstance(t, d.BasicType):
        return make_basic(g, t)
    if isinstance(t, d.UnboundedString):
        return g.string()
    if isinstance(t, d.BoundedString):
        return g.string(t.maximum_size)
    if isinstance(t, (d.UnboundedWString, d.BoundedWString)):
        return g.string(getattr(t, "maximum_size", None))
    if isinstance(t, d.NamespacedType):
        return make_msg(g, t.namespaces[0], t.name)
    if isinstance(t, d.Array):
        return [make(g, t.value_type) for _ in range(t.size)]
    if isinstance(t, (d.UnboundedSequence, d.BoundedSequence)):
        maximum = getattr(t, "maximum_size", None)
        n = g.seq_len(maximum, isinstance(t.value_type, d.NamespacedType))
        return [make(g, t.value_type) for _ in range(n)]
    raise TypeError(f"unhandled slot type {t!r}")


def msg_class(pkg, name):
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def make_msg(g, pkg, name):
    cls = msg_class(pkg, name)
    m = cls()
    for field, t in zip(cls.__slots__, cls.SLOT_TYPES):
        setattr(m, field.lstrip("_"), make(g, t))
    return m


def to_json(x, t):
    if isinstance(t, d.BasicType):
        n = t.typename
        if n in ("float", "double"):
            return repr(float(x))
        if n == "boolean":
            return bool(x)
        if isinstance(x, bytes):
            return x[0]
        if isinstance(x, str):
            return ord(x)
        return int(x)
    if isinstance(t, (d.UnboundedString, d.BoundedString, d.UnboundedWString, d.BoundedWString)):
        return str(x)
    if isinstance(t, d.NamespacedType):
        return msg_json(x)
    if isinstance(t, (d.Array, d.UnboundedSequence, d.BoundedSequence)):
        if isinstance(x, bytes):
            return list(x)
        return [to_json(e, t.value_type) for e in x]
    raise TypeError(f"unhandled slot type {t!r}")


def msg_json(m):
    cls = type(m)
    return {f.lstrip("_"): to_json(getattr(m, f.lstrip("_")), t)
            for f, t in zip(cls.__slots__, cls.SLOT_TYPES)}


CASES = ["random_a", "random_b", "edge_hi", "edge_lo", "edge_mix"]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    builtin = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "foundation", "breakbench_msgs", "src", "builtin.rs")
    types = [f"{p}/msg/{n}" for p, n in
             re.findall(r'^\s*\("([a-z0-9_]+)", "([A-Za-z0-9]+)",', open(builtin).read(), re.M)]
    assert len(types) > 100, f"{builtin}: found only {len(types)} types"
    skipped = {}
    n_cases = n_types = 0
    for full in types:
        pkg, _, name = full.split("/")
        try:
            cls = msg_class(pkg, name)
        except (ImportError, AttributeError) as e:
            skipped[full] = f"not in this venv: {e}"
            continue
        n_types += 1
        for ci, case in enumerate(CASES):
            g = Gen(case, seed=zlib.crc32(f"{full}/{case}".encode()))
            m = make_msg(g, pkg, name)
            data = serialize_message(m)
            back = deserialize_message(data, cls)
            stem = os.path.join(out, f"{pkg}.{name}.{case}")
            with open(stem + ".cdr", "wb") as fh:
                fh.write(data)
            with open(stem + ".json", "w", encoding="utf-8") as fh:
                json.dump({"type": full, "value": msg_json(back)}, fh, ensure_ascii=False)
            n_cases += 1
    with open(os.path.join(out, "skipped.json"), "w") as fh:
        json.dump(skipped, fh, indent=1, sort_keys=True)
    print(f"msgs_golden: {n_cases} values of {n_types} types written to {out}; "
          f"skipped {len(skipped)} type(s): {sorted(skipped)}")


if __name__ == "__main__":
    main()
