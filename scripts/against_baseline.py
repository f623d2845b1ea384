#!/usr/bin/env python3
"""Main against an older commit, in one run: wall-clock MB/s through `feed_with` (an SSE server's
call: fixed-size chunks, values typed by the request's tools, arguments not retained) and, with
--callgrind, instructions per byte. The ratio is the measure; absolute figures move with the machine.

    python3 scripts/against_baseline.py                      # against 5f64f85, the three-format engine
    python3 scripts/against_baseline.py --baseline REV --rounds 3 --callgrind

The same harness, examples/throughput.rs, is built in both trees (the baseline's in a git worktree
under target/baseline/, with its own target dir); both read the same input files, written by
examples/bench_inputs.rs. Rounds alternate which build runs first; each cell is the best round, each
round the best of five passes.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
HARNESS = "examples/throughput.rs"

# (row, input file, chunk size (0: whole), format): the four rows.
ROWS = [
    ("Qwen3-Coder tool-dense 10 MB, 4-byte chunks", "tool_dense-10MB.txt", 4, "qwen3_coder"),
    ("the same, one-shot", "tool_dense-10MB.txt", 0, "qwen3_coder"),
    ("content only (no call) 10 MB, one-shot", "prose-10MB.txt", 0, "qwen3_coder"),
    ("GLM-4.5 0.8 MB, 4-byte chunks", "tool_dense_glm-0.8MB.txt", 4, "glm45"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(tree, target_dir, baseline=False):
    env = dict(os.environ)
    if baseline:
        env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " --cfg baseline").strip()
    run(["cargo", "build", "--quiet", "--profile", "bench", "--example", "throughput",
         "--target-dir", str(target_dir)], cwd=tree, env=env)
    return target_dir / "release" / "examples" / "throughput"


def baseline_tree(rev):
    tree = ROOT / "target" / "baseline" / rev
    if not tree.exists():
        run(["git", "worktree", "add", "--detach", "--force", str(tree), rev], cwd=ROOT,
            capture_output=True)
    shutil.copy(ROOT / HARNESS, tree / HARNESS)
    return tree


def throughput(binary, inputs, row, flags=()):
    _, name, chunk, fmt = row
    out = run([str(binary), *flags, str(inputs / name), str(chunk), fmt,
               str(inputs / "tools.json"), "5"], capture_output=True).stdout.split()
    return float(out[0]), int(out[1])


def instructions(binary, inputs, row, flags=()):
    _, name, chunk, fmt = row
    size = (inputs / name).stat().st_size
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
             "--collect-atstart=no", "--toggle-collect=*throughput*pass*",
             str(binary), *flags, str(inputs / name), str(chunk), fmt,
             str(inputs / "tools.json"), "1"],
            capture_output=True)
        for line in pathlib.Path(out.name).read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1]) / size
    raise RuntimeError("no totals in callgrind's output")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="5f64f85")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true", help="add instructions per byte")
    args = ap.parse_args()

    rev = run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT,
              capture_output=True).stdout.strip()
    head = run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True).stdout.strip()
    if run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
           capture_output=True).stdout.strip():
        head += " with uncommitted changes"
    inputs = ROOT / "target" / "baseline" / "inputs"
    run(["cargo", "run", "--quiet", "--release", "--example", "bench_inputs", "--", str(inputs)],
        cwd=ROOT)
    main_binary = build(ROOT, ROOT / "target")
    # (label, binary, flags): main also with the foreign-format watch off.
    builds = [
        (rev, build(baseline_tree(rev), ROOT / "target" / "baseline" / "target", baseline=True), ()),
        ("main", main_binary, ()),
        ("main, watch off", main_binary, ("--no-watch",)),
    ]
    best = {(label, row[0]): 0.0 for label, _, _ in builds for row in ROWS}
    for round_ in range(args.rounds):
        order = builds if round_ % 2 == 0 else list(reversed(builds))
        for row in ROWS:
            for label, binary, flags in order:
                mbs, _ = throughput(binary, inputs, row, flags)
                best[label, row[0]] = max(best[label, row[0]], mbs)
    labels = [label for label, _, _ in builds]
    print(f"main is {head}; {args.rounds} rounds, best of five passes each\n")
    print("| input | " + " | ".join(labels) + " | " +
          " | ".join(f"{label} / {rev}" for label in labels[1:]) + " |")
    print("|---" * (2 * len(labels)) + "|")
    for row in ROWS:
        cells = [best[label, row[0]] for label in labels]
        print(f"| {row[0]} | " + " | ".join(f"{c:,.0f} MB/s" for c in cells) + " | " +
              " | ".join(f"{c / cells[0]:.2f}" for c in cells[1:]) + " |")
    if args.callgrind:
        print("\ninstructions per byte (callgrind)\n")
        print("| input | " + " | ".join(labels) + " | " +
              " | ".join(f"{label} / {rev}" for label in labels[1:]) + " |")
        print("|---" * (2 * len(labels)) + "|")
        for row in ROWS:
            cells = [instructions(binary, inputs, row, flags) for _, binary, flags in builds]
            print(f"| {row[0]} | " + " | ".join(f"{c:.2f}" for c in cells) + " | " +
                  " | ".join(f"{c / cells[0]:.2f}" for c in cells[1:]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
