#!/usr/bin/env python3
"""The vLLM plugin's speed against vLLM's built-in parser, in one run of
vLLM's own harness (../shared/peers/vllm/oracle.py): the same ~200 KB
tool-dense Qwen3-Coder transcript (the oracle's), 4-character deltas as the
serving layer sends them, then at 2x and 4x the size for the per-byte trend.

    VENV/bin/python scripts/bench_vllm_plugin.py   # VENV: ../shared/peers/vllm/setup.sh, plus this wheel
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "peers", "vllm"))

import oracle  # noqa: E402

import toolcall_stream.vllm  # noqa: E402,F401  (registers toolcall_<format>)

oracle.PARSER_NAMES["toolcall_qwen3_coder"] = "toolcall_qwen3_coder"


def main():
    base = oracle.bench_transcript()
    rows = []
    for factor in (1, 2, 4):
        text = base * factor
        for name in ("qwen3_coder", "toolcall_qwen3_coder"):
            r = oracle.run_bench(name, chunk=4, repeats=3, text=text)
            rows.append(r)
            print(json.dumps({k: r[k] for k in (
                "parser", "bytes", "tool_calls_nonstream", "tool_calls_stream_check",
                "stream_seconds_best", "stream_parser_only_seconds_best",
                "stream_MB_per_s", "stream_parser_only_MB_per_s")}))
    for factor, (vllm, ours) in zip((1, 2, 4), zip(rows[0::2], rows[1::2])):
        ratio = vllm["stream_parser_only_seconds_best"] / ours["stream_parser_only_seconds_best"]
        print(f"{factor}x ({ours['bytes']} bytes): ours {ratio:.0f}x faster per delta "
              f"(parser only; {ours['stream_parser_only_MB_per_s']} MB/s vs "
              f"{vllm['stream_parser_only_MB_per_s']} MB/s)")


if __name__ == "__main__":
    main()
