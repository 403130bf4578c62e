#!/usr/bin/env python3
"""Every shipped study's summary.json is byte-identical to the recorded one.

    scripts/golden_summaries.py OUT            check OUT/summary.json, OUT-<name>/summary.json
    scripts/golden_summaries.py OUT --update   rewrite tests/golden/summaries.sha256 from them

OUT is the output prefix scripts/test.sh uses (target/test-campaign: the
corridor study in OUT, every other study and test in OUT-<name>). The file
tests/golden/summaries.sha256 lists `<sha256>  <name>` per study ("." is OUT
itself), sorted by name. A refactor that is meant to change no result
(issue 25's renovation) must leave every line true; a change that is meant to
change results updates the file in the same commit and says why.

Exit 0 when every listed summary exists and matches, 1 otherwise (each
difference named).
"""
import hashlib
import pathlib
import sys

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "summaries.sha256"


def summary_path(out: str, name: str) -> pathlib.Path:
    return pathlib.Path(out if name == "." else f"{out}-{name}") / "summary.json"


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load() -> dict:
    want = {}
    for n, line in enumerate(GOLDEN.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            sys.exit(f"{GOLDEN}:{n}: expected '<sha256>  <name>', got {line!r}")
        want[parts[1]] = parts[0]
    return want


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out, update = args[0], "--update" in args[1:]
    if update:
        base = pathlib.Path(out)
        names = ["."] if (base / "summary.json").is_file() else []
        names += sorted(p.parent.name[len(base.name) + 1:] for p in base.parent.glob(f"{base.name}-*/summary.json"))
        lines = [f"{sha256(summary_path(out, n))}  {n}" for n in names]
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text("# scripts/golden_summaries.py --update: sha256 of each shipped study's summary.json\n"
                          + "\n".join(lines) + "\n")
        print(f"golden_summaries: wrote {len(lines)} entries to {GOLDEN}")
        return 0
    bad = []
    want = load()
    for name, digest in sorted(want.items()):
        p = summary_path(out, name)
        if not p.is_file():
            bad.append(f"{p}: missing")
        elif (got := sha256(p)) != digest:
            bad.append(f"{p}: sha256 {got}, recorded {digest}")
    for b in bad:
        print(f"golden_summaries: DIFFERS: {b}", file=sys.stderr)
    if bad:
        return 1
    print(f"golden_summaries: {len(want)} summary.json byte-identical to tests/golden/summaries.sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
