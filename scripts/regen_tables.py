#!/usr/bin/env python3
"""Regenerates, in place, every recovery table of README.md and docs/**/*.md
(after `cargo build`): each table's format is read from its rows' fixture
links, and its rows are printed again by scripts/recovery_table.py, with links
relative to the page, so a change in what the parser does shows up as a diff
to review. tests/readme/ checks the tables of the same pages against the
parser.

Usage: python3 scripts/regen_tables.py [PAGE ...]   (default: every page)
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = "| case | input (⏎ = newline) | tool calls and content | diagnostics |"


def table(fmt, names, up):
    """The rows, their fixture links relative to a page `up` folders below the root."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts/recovery_table.py"), "--format", fmt, *names],
        check=True, capture_output=True, text=True,
    ).stdout
    return out.replace("](tests/fixtures", "](" + "../" * up + "tests/fixtures").splitlines()


def regen(page):
    page = page.resolve()
    up = len(page.relative_to(ROOT).parts) - 1
    lines = page.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i] != HEADER:
            out.append(lines[i])
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        # The rows the table has (a page may leave some fixtures out).
        rows = [re.search(r"tests/fixtures/([^/]+)/([^)]+)\.txt", row) for row in lines[i:end]]
        rows = [m for m in rows if m]
        if rows:
            out.extend(table(rows[0].group(1), [m.group(2) for m in rows], up))
        else:
            out.extend(lines[i:end])
        i = end
    page.write_text("\n".join(out) + "\n")


pages = [pathlib.Path(p) for p in sys.argv[1:]] or [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
for page in pages:
    regen(page)
