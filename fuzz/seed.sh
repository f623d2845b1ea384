#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the test fixtures and example transcripts.
#
# Each target reads its own input layout (see the header of each file in
# fuzz_targets/), so the seeds get the header bytes their target expects:
#   feed        1 byte: value termination (0 lookahead, 1 vllm), then the text
#   split       mode byte, count k, k chunk lengths, then the text
#   no_markers  the text as is
#
# Usage: fuzz/seed.sh        (from anywhere; existing corpus files are kept)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
corpus="$here/corpus"
mkdir -p "$corpus/feed" "$corpus/split" "$corpus/no_markers"

shopt -s nullglob
count=0
for file in "$root"/tests/fixtures/*/*.txt "$root"/examples/transcripts/*.txt; do
    dir="$(basename "$(dirname "$file")")"
    name="$dir-$(basename "$file" .txt)"
    # Fixtures named *.vllm.txt are meant for vllm value termination, but
    # every seed is worth running in both modes.
    { printf '\000'; cat "$file"; } >"$corpus/feed/$name.lookahead"
    { printf '\001'; cat "$file"; } >"$corpus/feed/$name.vllm"
    # split: single bytes; a 1,7,3 cycle; 4-byte (token-sized) chunks.
    { printf '\000\000'; cat "$file"; } >"$corpus/split/$name.bytes"
    { printf '\001\003\001\007\003'; cat "$file"; } >"$corpus/split/$name.1-7-3"
    { printf '\000\001\004'; cat "$file"; } >"$corpus/split/$name.4"
    cp "$file" "$corpus/no_markers/$name.txt"
    count=$((count + 1))
done
echo "seeded $count inputs into $corpus/{feed,split,no_markers}"
