#!/usr/bin/env python3
"""Prints the medians of the last `cargo bench --bench parse` run as the
throughput tables of docs/performance.md (MB/s, 10^6 bytes per second).

Reads criterion's results under target/criterion/. Usage, from the repo root:

    cargo bench --bench parse && python3 scripts/bench_table.py
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
COLUMNS = ["one_shot", "chunk/4096", "chunk/64", "chunk/16", "chunk/4", "chunk/1"]
PUSH_COLUMNS = ["push", "push/4096", "push/64", "push/16", "push/4", "push/1"]


def main():
    rows = {}
    for bench in ROOT.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        nanos = estimates["median"]["point_estimate"]
        size = (meta.get("throughput") or {}).get("Bytes")
        if not size:
            continue
        column = meta["function_id"]
        if meta.get("value_str"):
            column += "/" + meta["value_str"]
        rows.setdefault(meta["group_id"], {})[column] = size / nanos * 1e3
    if not rows:
        sys.exit(f"no criterion results under {ROOT}: run `cargo bench --bench parse` first")
    for title, columns in [("`feed` (iterator)", COLUMNS), ("`feed_with` (push)", PUSH_COLUMNS)]:
        print(f"\n{title}, MB/s:\n")
        print("| input | " + " | ".join(c.replace("push/", "chunk/").replace("push", "one_shot") for c in columns) + " |")
        print("|---|" + "---:|" * len(columns))
        for group in sorted(rows, key=order):
            cells = rows[group]
            if group == "parse_fn":
                if columns is COLUMNS:
                    for name, mbps in sorted(cells.items()):
                        print(f"| `parse()` {name} | {mbps:,.0f} |" + " |" * (len(columns) - 1))
                continue
            print(f"| {group} | " + " | ".join(fmt(cells.get(c)) for c in columns) + " |")


def order(group):
    inputs = ["prose", "code", "tool_dense", "tool_dense_glm", "tool_dense_hermes", "large_value", "parse_fn"]
    name, _, size = group.partition("/")
    return (inputs.index(name) if name in inputs else 99, size != "1MiB", group)


def fmt(mbps):
    return "—" if mbps is None else f"{mbps:,.0f}"


if __name__ == "__main__":
    main()
