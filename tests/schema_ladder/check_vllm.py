"""Checks tests/schema_ladder/cases.json against vLLM 0.33's own ladder.

For every row, vLLM's `extract_types_from_schema` + `coerce_to_schema_type`
must give the same JSON value as the row's `json` (compared as values:
we keep an object's spacing, vLLM re-serializes), or, where the row names a
deliberate difference, exactly the row's `vllm`. Rows with `python_literals`
are checked against `ast.literal_eval` instead (vLLM has no such option).
Rows with `infer` are checked against seed 000's `_convert_type`.

    VENV/bin/python tests/schema_ladder/check_vllm.py ../shared/peers/vllm
(VENV from `bash ../shared/peers/vllm/setup.sh VENV`.)

With `--differential N`, also compares N random texts and type lists (texts
near the ladder's decisions) with our ladder, run through the ignored test
`schema::tests::differential_against_vllm`, and prints every disagreement
not explained by a difference the table documents.
"""

import ast
import json
import os
import random
import subprocess
import sys
import tempfile

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
sys.path.insert(0, os.path.abspath(ARGS[0] if ARGS else "../shared/peers/vllm"))
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
    if "--differential" in sys.argv:
        failures += differential(int(sys.argv[sys.argv.index("--differential") + 1]))
    sys.exit(1 if failures else 0)


TYPE_NAMES = ["null", "integer", "number", "boolean", "object", "array", "string", "int", "bool", "any"]
PIECES = ["0", "1", "7", "-", "+", ".", "e", "E", "_", " ", "\t", "\n", "null", "None", "true", "True", "false",
          "nan", "inf", "Infinity", "[", "]", "{", "}", '"', "'", ":", ",", "a", "x", "1e400", "00", "\u00e9",
          "\u0661"]


def differential(count):
    rng = random.Random(int(os.environ.get("LADDER_DIFF_SEED", "20261123")))
    cases = []
    for _ in range(count):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
        if rng.random() < 0.5:
            cases.append({"text": text, "types": rng.sample(TYPE_NAMES, rng.randint(1, 3))})
        else:
            cases.append({"text": text, "schema": random_schema(rng, 3)})
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        cases_path, ours_path = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(cases_path, "w", encoding="utf-8") as f:
            for case in cases:
                f.write(json.dumps(case, ensure_ascii=False) + "\n")
        env = dict(os.environ, LADDER_DIFF_IN=cases_path, LADDER_DIFF_OUT=ours_path)
        subprocess.run(["cargo", "test", "-q", "--lib", "differential_against_vllm", "--", "--ignored"],
                       cwd=os.path.join(here, "..", ".."), env=env, check=True, stdout=subprocess.DEVNULL)
        ours_lines = open(ours_path, encoding="utf-8").read().split("\n")
    disagreements = {}
    for case, ours in zip(cases, ours_lines):
        types = case["types"] if "types" in case else extract_types_from_schema(case["schema"])
        theirs = dumps(coerce_to_schema_type(case["text"], types))
        ours = json.loads(ours)
        if theirs != dumps(json.loads(ours)):
            kind = explain(case, theirs)
            disagreements.setdefault(kind, []).append((case, theirs, ours))
    unexplained = 0
    for kind, found in sorted(disagreements.items()):
        print(f"{len(found)} x {kind}; e.g. {found[0]}")
        if kind == "unexplained":
            unexplained = len(found)
    print(f"differential: {count} cases, {unexplained} unexplained disagreements")
    return unexplained


ENUM_VALUES = [None, True, 1, 1.5, "a", [], {}]


def random_schema(rng, depth):
    """A schema fragment mixing type, enum and nested anyOf/oneOf/allOf."""
    schema = {}
    if rng.random() < 0.5:
        schema["type"] = rng.choice(TYPE_NAMES) if rng.random() < 0.5 else rng.sample(TYPE_NAMES, 2)
    if rng.random() < 0.2:
        schema["enum"] = rng.sample(ENUM_VALUES, rng.randint(0, 2))
    if depth > 0 and rng.random() < 0.4:
        schema[rng.choice(["anyOf", "oneOf", "allOf"])] = [random_schema(rng, depth - 1)
                                                           for _ in range(rng.randint(1, 3))]
    return schema


def explain(case, theirs):
    """The documented difference a disagreement comes from, if any."""
    types = {t.lower() for t in case.get("types") or extract_types_from_schema(case["schema"])}
    text = case["text"]
    if theirs.startswith("<invalid JSON"):
        return "vLLM writes invalid JSON"
    if ({"object", "array", "dict", "list"} & types) and "string" in types:
        return "object/array step takes only an object/array"
    if any(c.isdigit() and not c.isascii() for c in text):
        return "non-ASCII digits"
    if "number" in types and "e" in text.lower():
        return "whole float: exact decimal digits"
    return "unexplained"


main()
