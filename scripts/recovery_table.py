#!/usr/bin/env python3
"""Prints a recovery table from one format's fixtures, through the CLI, its
links relative to the repository's root (scripts/regen_tables.py rewrites the
tables of docs/ pages in place, with links relative to each page).

Usage: cargo build && python3 scripts/recovery_table.py [--format FORMAT] [FIXTURE_NAME ...]

FORMAT is a directory under tests/fixtures/ and the name given to `toolcall -f`
(`qwen3_coder`, the default, `glm45`, `glm47`). The binary is
`$CARGO_TARGET_DIR/debug/toolcall`, or `target/debug/toolcall` when
CARGO_TARGET_DIR is not set.
"""
import argparse
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
BINARY = TARGET / "debug" / "toolcall"


def visible(c):
    """A newline as ⏎, other control characters as their Unicode pictures (tab ␉, CR ␍…)."""
    if c == "\n":
        return "⏎"
    if ord(c) < 0x20:
        return chr(0x2400 + ord(c))
    return "␡" if c == "\x7f" else c


def cell(text, limit=170):
    text = "".join(map(visible, text))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def row(fmt, name):
    path = ROOT / "tests" / "fixtures" / fmt / f"{name}.txt"
    mode = "vllm" if name.endswith(".vllm") else "lookahead"
    # `.hold` fixtures run with `hold_text_after_wrapper(true)`, as the tests do.
    hold = ["--hold-text-after-wrapper"] if name.endswith(".hold") else []
    # `.strict` fixtures run in strict mode, as the tests do.
    hold += ["--strict"] if name.endswith(".strict") else []
    # A fixture's `NAME.tools.json` is the request's tools, as the tests read it.
    tools = path.with_name(f"{name}.tools.json")
    hold += ["--tools", str(tools)] if tools.exists() else []
    out = subprocess.run(
        [BINARY, "parse", "-f", fmt, "--sequential-ids", "--value-termination", mode, *hold, path],
        check=True, capture_output=True,
    ).stdout
    message = json.loads(out)
    parts = [
        f"`{c['function']['name']}` {cell(c['function']['arguments'], 120)}"
        for c in message["tool_calls"]
    ]
    if message["content"] is not None:
        parts.append("content " + cell(json.dumps(message["content"], ensure_ascii=False)[1:-1], 80))
    if message.get("reasoning") is not None:
        parts.append("reasoning " + cell(json.dumps(message["reasoning"], ensure_ascii=False)[1:-1], 80))
    kinds = sorted({d["kind"] for d in message["diagnostics"]})
    text = path.read_bytes().decode("utf-8", "replace")
    return "| [`{}`](tests/fixtures/{}/{}.txt) | {} | {} | {} |".format(
        name, fmt, name, cell(text), "; ".join(parts) or "—",
        ", ".join(f"`{k}`" for k in kinds) or "—",
    )


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--format", "-f", default="qwen3_coder",
                      help="fixture directory and CLI format (default: qwen3_coder)")
    args.add_argument("names", nargs="*", metavar="FIXTURE_NAME",
                      help="fixtures to print (default: all of the format's, sorted)")
    args = args.parse_args()
    fixtures = ROOT / "tests" / "fixtures" / args.format
    if not fixtures.is_dir():
        raise SystemExit(f"no fixtures for format {args.format!r}: {fixtures} is not a directory")
    if not BINARY.is_file():
        raise SystemExit(f"{BINARY} not found: run `cargo build` first")
    names = args.names or sorted(p.stem for p in fixtures.glob("*.txt"))
    print("| case | input (⏎ = newline) | tool calls and content | diagnostics |")
    print("|---|---|---|---|")
    for name in names:
        print(row(args.format, name))


main()
