"""Checks tests/schema_ladder/cases.json against vLLM 0.33's own ladder.

For every row, vLLM's `extract_types_from_schema` + `coerce_to_schema_type`
must give the same JSON value as the row's `json` (compared as values:
we keep an object's spacing, vLLM re-serializes), or, where the row names a
deliberate difference, exactly the row's `vllm`. Rows with `python_literals`
are checked against `ast.literal_eval` instead (vLLM has no such option).
Rows with `infer` are checked against seed 000's `_convert_type`.

    VENV/bin/python tests/schema_ladder/check_vllm.py ../shared/peers/vllm
(VENV from `bash ../shared/peers/vllm/setup.sh VENV`.)
"""

import ast
import json
import os
import sys

sys.path.insert(0, os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "../shared/peers/vllm"))
import vllm_boot  # noqa: E402

vllm_boot.boot()
from vllm.tool_parsers.utils import coerce_to_schema_type, extract_types_from_schema  # noqa: E402


def dumps(value):
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except ValueError as e:
        return f"<invalid JSON: {e}>"


def seed_convert_type(value):
    # Seed 000, Phase 4 `_convert_type`, as the seed writes it.
    value = value.strip()
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        pass
    if value.lower() in ["true", "false"]:
        return value.lower() == "true"
    return value


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rows = json.load(open(os.path.join(here, "cases.json"), encoding="utf-8"))
    failures = 0
    differences = 0
    for i, row in enumerate(rows):
        ours = dumps(json.loads(row["json"]))
        if row.get("infer"):
            theirs = dumps(seed_convert_type(row["text"]))
        elif row.get("python_literals") and row["outcome"] == "lenient":
            theirs = dumps(ast.literal_eval(row["text"].strip()))
        else:
            theirs = dumps(coerce_to_schema_type(row["text"], extract_types_from_schema(row["schema"])))
        expected = row.get("vllm")
        if expected is not None:
            differences += 1
            if expected == "invalid JSON":
                ok = theirs.startswith("<invalid JSON")
            else:
                ok = theirs == dumps(json.loads(expected)) and theirs != ours
        else:
            ok = theirs == ours
        if not ok:
            failures += 1
            print(f"row {i}: {json.dumps(row, ensure_ascii=False)}\n  vLLM/oracle gives {theirs}\n  ours {ours}")
    print(f"{len(rows)} rows, {differences} deliberate differences, {failures} mismatches")
    sys.exit(1 if failures else 0)


main()
