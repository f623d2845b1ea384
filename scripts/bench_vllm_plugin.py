#!/usr/bin/env python3
"""The vLLM plugin's speed against vLLM's built-in parser for the same
format, in one run, inside vLLM 0.33's own code (no GPU): the oracle's
tool-dense Qwen3-Coder transcript (~200 KB, 200 calls; ../shared/peers/vllm),
then at 2x and 4x its size for the per-byte trend, in 4-character deltas.

Two measures per parser, both the best of 3:

- serving: per-request `Parser` from `ParserManager.get_parser` (what
  `vllm serve --tool-call-parser NAME` composes), driven by `parse_delta`
  with `finished=` on the last delta, the call the serving layer makes per
  step. This is what a server pays.
- parser only: the oracle's `run_bench` (`extract_tool_calls_streaming` per
  delta without the text joined so far).

And, for ours, the parsing alone: `Parser.feed_delta` per delta, without
vLLM's DeltaMessage objects, which every parser must build per step (a
pydantic model: about 1.3 us with content, 3 us with a tool call delta,
here), and which bound the end-to-end ratio.

Each run also checks that both parsers find the transcript's 200 calls per
copy. Usage:

    VENV/bin/python scripts/bench_vllm_plugin.py   # VENV: ../shared/peers/vllm/setup.sh, plus this wheel
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "peers", "vllm"))

import oracle  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

import toolcall_stream.vllm  # noqa: E402,F401  (registers toolcall_<format>)
from toolcall_stream import _native  # noqa: E402

oracle.PARSER_NAMES["toolcall_qwen3_coder"] = "toolcall_qwen3_coder"
CHUNK = 4


def serving(name, text):
    """Seconds to stream `text` through the served Parser, and the calls it made."""
    request = oracle.make_request(oracle.BENCH_TOOLS)
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    parser = cls(oracle.tokenizer_for("qwen3_coder"), request.tools)
    deltas = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]
    last = len(deltas) - 1
    started = set()
    t0 = time.perf_counter()
    for at, delta in enumerate(deltas):
        res = parser.parse_delta(delta, [], request, prompt_token_ids=[], finished=at == last)
        if res is not None:
            for call in res.tool_calls:
                if call.id is not None:
                    started.add(call.id)
    return time.perf_counter() - t0, len(started)


def parsing_alone(text):
    """Seconds for our parser's own work on the same deltas."""
    parser = _native.Parser("qwen3_coder", json.dumps(oracle.BENCH_TOOLS))
    deltas = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]
    t0 = time.perf_counter()
    for delta in deltas:
        parser.feed_delta(delta)
    parser.finish_delta()
    return time.perf_counter() - t0, None


def best(f, *args):
    runs = [f(*args) for _ in range(3)]
    return min(r[0] for r in runs), runs[0][1]


def main():
    base = oracle.bench_transcript()
    for factor in (1, 2, 4):
        text = base * factor
        size = len(text.encode())
        deltas = (len(text) + CHUNK - 1) // CHUNK
        row = {"bytes": size, "deltas": deltas}
        for name in ("qwen3_coder", "toolcall_qwen3_coder"):
            seconds, calls = best(serving, name, text)
            assert calls == 200 * factor, (name, calls)
            only = oracle.run_bench(name, chunk=CHUNK, repeats=3, text=text)
            row[name] = {
                "serving_us_per_delta": round(seconds / deltas * 1e6, 2),
                "serving_MB_per_s": round(size / seconds / 1e6, 3),
                "parser_only_us_per_delta": round(
                    only["stream_parser_only_seconds_best"] / deltas * 1e6, 2),
            }
        row["toolcall_qwen3_coder"]["parsing_alone_us_per_delta"] = round(
            best(parsing_alone, text)[0] / deltas * 1e6, 2)
        print(json.dumps(row))
        vllm, ours = row["qwen3_coder"], row["toolcall_qwen3_coder"]
        print(f"{factor}x ({size} bytes, {deltas} deltas): through vLLM's serving calls ours is "
              f"{vllm['serving_us_per_delta'] / ours['serving_us_per_delta']:.1f}x faster "
              f"({ours['serving_us_per_delta']} vs {vllm['serving_us_per_delta']} us per delta); "
              f"parser only {vllm['parser_only_us_per_delta'] / ours['parser_only_us_per_delta']:.1f}x "
              f"({ours['parser_only_us_per_delta']} vs {vllm['parser_only_us_per_delta']} us); "
              f"our parsing alone {ours['parsing_alone_us_per_delta']} us per delta, "
              f"{vllm['parser_only_us_per_delta'] / ours['parsing_alone_us_per_delta']:.0f}x less "
              f"than vLLM's parser only")


if __name__ == "__main__":
    main()
