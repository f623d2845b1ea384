#!/usr/bin/env python3
"""Instructions per byte for every bench input, under callgrind, written into docs/performance.md.

    python3 scripts/callgrind_table.py            # all inputs (about an hour on 2 cores)
    python3 scripts/callgrind_table.py --only tool_dense_hermes,tool_dense --print   # a few, to the terminal

It writes the bench inputs (`TOOLCALL_BENCH_DUMP`), builds `examples/profile.rs` with the bench
profile, runs it under `valgrind --tool=callgrind` on each 1 MiB input (three passes, `feed_with`),
in 4-byte chunks and whole, and replaces the table between the `callgrind-table` markers of
docs/performance.md. Instruction counts do not move with the machine's load, so the table is the
same on any x86-64 machine for the same build; the commit it was made at is written under it.
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
START = "<!-- callgrind-table:start (scripts/callgrind_table.py writes this table) -->"
END = "<!-- callgrind-table:end -->"
PROFILE = ROOT / "target" / "release" / "examples" / "profile"

# Inputs read by a format other than the one their name says.
FORMAT_OF = {
    "prose": "qwen3_coder",
    "code": "qwen3_coder",
    "large_value": "qwen3_coder",
    "tool_dense": "qwen3_coder",
    "tool_dense_glm": "glm45",
}


def xml_inputs():
    """The inputs held to the XML goal (within 25% of Qwen3-Coder): benches/parse.rs's XML_INPUTS, and GLM.

    Compared without underscores and case, so `Format::PoolsideV1` matches `tool_dense_poolside_v1`.
    """
    source = (ROOT / "benches" / "parse.rs").read_text()
    block = re.search(r"const XML_INPUTS[^=]*= \[(.*?)\n\];", source, re.S)
    variants = {v.lower() for v in re.findall(r"Format::(\w+)", block.group(1))} if block else set()
    return variants | {"qwen3coder", "glm45"}


def is_xml(fmt, xml):
    return fmt.replace("_", "").replace("-", "").lower() in xml


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, check=True, **kw)


def instructions(path, chunk, fmt):
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
             str(PROFILE), str(path), str(chunk), "push", fmt],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for line in pathlib.Path(out.name).read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in callgrind's output for {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", default=os.environ.get("TOOLCALL_BENCH_DUMP", "/tmp/toolcall-bench-inputs"),
                    help="where the bench inputs are written (default %(default)s)")
    ap.add_argument("--only", help="comma-separated input names (without -1MiB)")
    ap.add_argument("--print", action="store_true", help="print the table instead of writing docs/performance.md")
    args = ap.parse_args()

    dump = pathlib.Path(args.dump)
    env = dict(os.environ, TOOLCALL_BENCH_DUMP=str(dump), CARGO_PROFILE_BENCH_DEBUG="line-tables-only")
    run(["cargo", "bench", "--bench", "parse", "--", "--list"], env=env, stdout=subprocess.DEVNULL)
    run(["cargo", "build", "--profile", "bench", "--example", "profile"], env=env)

    names = sorted(p.name[: -len("-1MiB.txt")] for p in dump.glob("*-1MiB.txt"))
    if args.only:
        wanted = set(args.only.split(","))
        names = [n for n in names if n in wanted]
    base_order = ["tool_dense", "tool_dense_glm", "prose", "code", "large_value"]
    names = [n for n in base_order if n in names] + [n for n in names if n not in base_order]

    xml = xml_inputs()
    rows = []
    for name in names:
        path = dump / f"{name}-1MiB.txt"
        fmt = FORMAT_OF.get(name, name[len("tool_dense_"):] if name.startswith("tool_dense_") else "qwen3_coder")
        size = path.stat().st_size
        four = instructions(path, 4, fmt) / (3 * size)
        whole = instructions(path, 0, fmt) / (3 * size)
        rows.append((name, fmt, size, four, whole))
        print(f"{name:32} {fmt:18} {four:7.1f} {whole:6.1f}", file=sys.stderr)

    reference = next((r[3] for r in rows if r[0] == "tool_dense"), None)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    lines = [
        "| input | format | bytes | chunks of 4 | × `tool_dense` | goal | whole |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, fmt, size, four, whole in rows:
        ratio = f"{four / reference:.2f}" if reference and name.startswith("tool_dense") else ""
        goal = "" if not name.startswith("tool_dense") else ("1.25" if is_xml(fmt, xml) else "2.00")
        lines.append(f"| `{name}` | `{fmt}` | {size:,} | {four:.1f} | {ratio} | {goal} | {whole:.1f} |")
    lines.append("")
    valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    lines.append(f"Made by `python3 scripts/callgrind_table.py` at commit `{commit}` ({valgrind}, x86-64).")
    table = "\n".join(lines)

    if args.print:
        print(table)
        return
    text = DOC.read_text()
    if START not in text or END not in text:
        sys.exit(f"{DOC} has no {START} … {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{table}\n{END}{tail}")


if __name__ == "__main__":
    main()
