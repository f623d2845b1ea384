#!/usr/bin/env python3
"""vLLM's own Kimi K3 parser over this crate's kimi_k3 fixtures.

The shared conformance corpus has no Kimi K3 case, so this runs vLLM 0.33's
`kimi_k3` tool parser (through the oracle in ../shared/peers/vllm, whose
venv setup.sh makes) over every tests/fixtures/kimi_k3/*.txt, whole and in
1-, 3- and 7-character deltas, and writes what it made to
tests/kimi_k3_vllm/expected.json, which tests/kimi_k3_vllm.rs compares with
this crate's parse.

    VENV/bin/python scripts/kimi_k3_vllm.py      # from the repository root
"""

import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "..", "shared", "peers", "vllm")
sys.path.insert(0, PEER)

import oracle  # noqa: E402

oracle.PARSER_NAMES["kimi_k3"] = "kimi_k3"


def main():
    cases = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/kimi_k3/*.txt"))):
        name = os.path.basename(path)[: -len(".txt")]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        tools_path = path[: -len(".txt")] + ".tools.json"
        tools = []
        if os.path.exists(tools_path):
            with open(tools_path, encoding="utf-8") as f:
                tools = json.load(f)
        cases.append({"id": name, "parser": "kimi_k3", "text": text, "tools": tools})
    out = {"vllm": oracle.VLLM_VERSION, "cases": {}}
    for case in cases:
        out["cases"][case["id"]] = oracle.run_case(case)
    target = os.path.join(ROOT, "tests/kimi_k3_vllm/expected.json")
    with open(target, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(cases)} cases -> {target}")


if __name__ == "__main__":
    main()
