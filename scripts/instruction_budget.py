#!/usr/bin/env python3
"""The instruction budget: instructions per byte of the inputs a regression would hurt most, under
callgrind, against the baseline committed in benches/instructions.json. Fails when a row grows more
than the baseline's tolerance (5%). Run by CI; instruction counts do not move with the machine's load,
so the check cannot fail by chance, only by a change that costs more.

    python3 scripts/instruction_budget.py            # build, measure, compare (about 5 minutes)
    python3 scripts/instruction_budget.py --update   # measure and write the baseline (after a change that
                                                     # costs more on purpose, or wins: say why in the commit)

Each row feeds a 1 MiB bench input made by `examples/profile.rs` (`@NAME`) three times through one
reused parser with `feed_with`, in the row's chunk size (0: whole), and divides callgrind's total by
three times the input's size. Only the passes are counted (`passes` in the harness), not making the
input; the first pass's one-time costs (compiling the marker sets) are in, the same on every run.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = ROOT / "benches" / "instructions.json"
PROFILE = ROOT / "target" / "release" / "examples" / "profile"

# (row, generated input, chunk size): content only, whole (the watch for other formats' calls
# runs over all of it), and the tool-dense sessions in 4-byte chunks (an SSE server's call) and whole.
ROWS = [
    ("prose, whole", "prose", 0),
    ("tool_dense, 4-byte chunks", "tool_dense", 4),
    ("tool_dense, whole", "tool_dense", 0),
    ("tool_dense_glm, 4-byte chunks", "tool_dense_glm", 4),
]


def measure(name, chunk):
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
             "--collect-atstart=no", "--toggle-collect=*passes*",
             str(PROFILE), f"@{name}", str(chunk), "push"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        )
        size = int(re.search(r"(\d+) bytes", done.stdout).group(1))
        for line in pathlib.Path(out.name).read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1]) / (3 * size)
    raise RuntimeError(f"no totals in callgrind's output for @{name}")


def commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="write the measured figures as the baseline")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--quiet", "--profile", "bench", "--example", "profile"],
                   cwd=ROOT, check=True)
    measured = {row: round(measure(name, chunk), 3) for row, name, chunk in ROWS}
    if args.update:
        BASELINE.write_text(json.dumps(
            {"commit": commit(), "tolerance": 0.05, "instructions_per_byte": measured}, indent=2) + "\n")
        print(f"wrote {BASELINE.relative_to(ROOT)}")
        for row, value in measured.items():
            print(f"  {row}: {value}")
        return 0
    baseline = json.loads(BASELINE.read_text())
    tolerance = baseline["tolerance"]
    grew = []
    print(f"instructions per byte, against {BASELINE.relative_to(ROOT)} (commit {baseline['commit']}):")
    for row, value in measured.items():
        base = baseline["instructions_per_byte"].get(row)
        if base is None:
            grew.append(f"{row}: no baseline (run with --update)")
            continue
        ratio = value / base
        verdict = "over budget" if ratio > 1 + tolerance else ("won: update the baseline" if ratio < 1 - tolerance else "ok")
        print(f"  {row}: {value} (baseline {base}, {ratio:.3f}x) {verdict}")
        if ratio > 1 + tolerance:
            grew.append(f"{row}: {value} instructions a byte, {ratio:.3f}x the baseline's {base}")
    if grew:
        print("the instruction budget is exceeded (more than "
              f"{tolerance:.0%} over the baseline):\n  " + "\n  ".join(grew), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
