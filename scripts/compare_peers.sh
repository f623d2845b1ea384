#!/usr/bin/env bash
# Speed next to the parsers users run today, on the same transcripts, in one
# run: toolcall-stream, SGLang's Rust parser (crates.io `tool-parser`,
# QwenXmlParser) and vLLM's `qwen3_coder` (Python, from the PyPI package,
# through ../shared/peers/vllm). All three are fed 4-byte pieces (vLLM: 4
# characters, as its harness does).
#
#   bash scripts/compare_peers.sh            # from the repository root
#   COMPARE_SKIP_VLLM=1 bash scripts/compare_peers.sh
#   VLLM_VENV=DIR VLLM_REPEATS=N ...         # where vLLM's virtualenv is (made if missing)
#
# The peers crate (peers/) is built apart from the main crate so that SGLang's
# dependencies never enter its build. Takes about two minutes, most of it
# vLLM and SGLang on the single 200 KB value.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=target/peers
mkdir -p "$out"
export CARGO_TARGET_DIR="$root/target/peers-build"

echo "== building peers/ (toolcall-stream and SGLang's tool-parser, release)" >&2
cargo build --quiet --release --manifest-path peers/Cargo.toml
bin="$CARGO_TARGET_DIR/release/toolcall-peers"
"$bin" dump "$out"

echo "== toolcall-stream and SGLang" >&2
"$bin" measure "$out" > "$out/rust.jsonl"

if [ "${COMPARE_SKIP_VLLM:-0}" != 1 ]; then
  harness="$root/../shared/peers/vllm"
  if [ ! -f "$harness/oracle.py" ]; then
    echo "compare_peers: vLLM's harness is not at $harness (set COMPARE_SKIP_VLLM=1 to skip vLLM)" >&2
    exit 2
  fi
  venv=${VLLM_VENV:-$root/target/vllm-venv}
  if [ ! -x "$venv/bin/python" ]; then
    echo "== making vLLM's virtualenv in $venv (once)" >&2
    bash "$harness/setup.sh" "$venv" >&2
  fi
  for name in mixed large_value; do
    echo "== vLLM on $name" >&2
    (cd "$harness" && "$venv/bin/python" oracle.py --bench --bench-input "$root/$out/$name.txt" \
      --bench-tools "$root/$out/tools.json" --bench-repeats "${VLLM_REPEATS:-3}") > "$out/vllm-$name.json"
  done
fi

python3 - "$out" <<'PY'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
rust = [json.loads(line) for line in (out / "rust.jsonl").read_text().splitlines()]
rows = {}
for r in rust:
    rows.setdefault(r["transcript"], {"bytes": r["bytes"]})[r["parser"]] = r
    if not r["agrees"]:
        print(f"warning: {r['parser']} found {r['calls']} calls in {r['transcript']}, "
              f"expected {r['expected_calls']}", file=sys.stderr)
for name, row in rows.items():
    path = out / f"vllm-{name}.json"
    if path.exists():
        v = json.loads(path.read_text())
        # Median of the runs, as for the others; "as served" keeps the
        # serving layer's previous_text + delta bookkeeping.
        row["vllm"] = {"mb_per_s": v["bytes"] / 1e6 / statistics.median(v["stream_seconds_all"]),
                       "calls": v["tool_calls_stream_check"]}
        if v["tool_calls_stream_check"] != row["toolcall-stream"]["expected_calls"]:
            print(f"warning: vLLM found {v['tool_calls_stream_check']} calls in {name}", file=sys.stderr)
def fmt(x):
    return f"{x:,.3f}" if x < 1 else f"{x:,.1f}"
print("| transcript (4-byte pieces) | toolcall-stream MB/s | SGLang MB/s | vLLM MB/s | × SGLang | × vLLM |")
print("|---|---:|---:|---:|---:|---:|")
for name, row in rows.items():
    ours = row["toolcall-stream"]["mb_per_s"]
    sgl = row["sglang"]["mb_per_s"]
    vllm = row.get("vllm", {}).get("mb_per_s")
    print(f"| {name} ({row['bytes'] / 1e3:,.0f} KB) | {fmt(ours)} | {fmt(sgl)} | "
          f"{fmt(vllm) if vllm else '—'} | {ours / sgl:,.0f} | {f'{ours / vllm:,.0f}' if vllm else '—'} |")
PY
