#!/usr/bin/env python3
"""Writes the browser package's measured figures into docs/performance.md,
between its `wasm-figures` marker comments, from the budgets file the browser
test writes (`bash wasm/e2e/ci.sh` makes target/e2e/budgets.json): the
.wasm's size, and the engine's throughput inside the browser against the
native build's, with the commit and the machine they were measured on.

Usage: python3 scripts/wasm_figures.py [BUDGETS_JSON]
       python3 scripts/wasm_figures.py --check   (the page's figures are well formed; no file needed)
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs/performance.md"
BEGIN = "<!-- wasm-figures:begin: python3 scripts/wasm_figures.py writes this part -->"
END = "<!-- wasm-figures:end -->"


def grouped(n):
    return f"{n:,}"


def machine(measured):
    kind = "virtual machine" if measured.get("virtual") else "machine"
    return f"a {measured['cores']}-core {measured['cpu']} {kind}"


def figures(budgets):
    measured = budgets["measured"]
    wasm = budgets["wasm"]
    lines = [
        f"One run of `bash wasm/e2e/ci.sh` at commit `{measured['commit']}` on {machine(measured)},\n"
        f"{measured['date']}.",
        "",
        f"**Size.** With every format, the `.wasm` is {grouped(wasm['bytes'])} bytes, "
        f"{grouped(wasm['gzipped'])} gzipped\n(`zlib` level 9); the browser test fails above "
        f"{grouped(wasm['gzipped_budget'])} gzipped.",
        "",
        "**Throughput.** At 4-byte pieces, on a 1 MB transcript made by repeating a bundled one:",
        "",
        "| format | native | engine inside wasm | native over wasm | JS API, per 4-byte piece | JS API, 4 KiB pieces |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in budgets["throughput"].items():
        lines.append(
            f"| {name} | {row['native_mb_per_s']:.0f} MB/s | {row['wasm_engine_mb_per_s']:.0f} MB/s "
            f"| {row['native_over_engine']:.1f}x | {row['js_api_mb_per_s']:.1f} MB/s "
            f"| {row['js_api_4kib_pieces_mb_per_s']:.1f} MB/s |"
        )
    return "\n".join(lines)


def block(text):
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        sys.exit(f"{PAGE}: the markers {BEGIN!r} and {END!r} are missing")
    return start + len(BEGIN), end


def main(args):
    text = PAGE.read_text()
    start, end = block(text)
    if args == ["--check"]:
        part = text[start:end]
        if not re.search(r"at commit `[0-9a-f]{7,}", part) or "| format |" not in part:
            sys.exit(f"{PAGE}: the wasm figures lack a commit or the throughput table")
        return
    source = pathlib.Path(args[0]) if args else ROOT / "target/e2e/budgets.json"
    if not source.is_file():
        sys.exit(f"{source}: not found (run `bash wasm/e2e/ci.sh` first)")
    new = text[:start] + "\n" + figures(json.loads(source.read_text())) + "\n" + text[end:]
    PAGE.write_text(new)
    print(f"{PAGE.relative_to(ROOT)}: wasm figures from {source}")


if __name__ == "__main__":
    main(sys.argv[1:])
