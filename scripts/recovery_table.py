#!/usr/bin/env python3
"""Prints the README's recovery table from the fixtures, through the CLI.

Usage: cargo build && python3 scripts/recovery_table.py [FIXTURE_NAME ...]
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "qwen3_coder"
BINARY = ROOT / "target" / "debug" / "toolcall"


def cell(text, limit=170):
    text = text.replace("\n", "⏎")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def row(name):
    path = FIXTURES / f"{name}.txt"
    mode = "vllm" if name.endswith(".vllm") else "lookahead"
    out = subprocess.run(
        [BINARY, "parse", "--sequential-ids", "--value-termination", mode, path],
        check=True, capture_output=True,
    ).stdout
    message = json.loads(out)
    parts = [
        f"`{c['function']['name']}` {cell(c['function']['arguments'], 120)}"
        for c in message["tool_calls"]
    ]
    if message["content"] is not None:
        parts.append("content " + cell(json.dumps(message["content"], ensure_ascii=False)[1:-1], 80))
    kinds = sorted({d["kind"] for d in message["diagnostics"]})
    text = path.read_bytes().decode("utf-8", "replace")
    return "| [`{}`](tests/fixtures/qwen3_coder/{}.txt) | {} | {} | {} |".format(
        name, name, cell(text), "; ".join(parts) or "—",
        ", ".join(f"`{k}`" for k in kinds) or "—",
    )


names = sys.argv[1:] or sorted(p.stem for p in FIXTURES.glob("*.txt"))
print("| case | input (⏎ = newline) | tool calls and content | diagnostics |")
print("|---|---|---|---|")
for name in names:
    print(row(name))
