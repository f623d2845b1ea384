#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from every format's test fixtures
# (tests/fixtures/<format>/*.txt) and the example transcripts
# (examples/transcripts/<format>.txt).
#
# Each target reads its own input layout (see the header of each file in
# fuzz_targets/ and `Header` in fuzz_targets/common/mod.rs), so the seeds
# get the header bytes their target expects, picking the seed's format:
#   feed        header byte, then the text (and a tight-limits variant)
#   split       header byte, count k, k chunk lengths, then the text
#   no_markers  the text as is (the target runs every format)
#   features    feature byte (format in bits 0-1, tools, strict, …; see
#               fuzz_targets/features.rs), count k, k chunk lengths, text
# The header byte is the format's bits (qwen3_coder 0x00, glm45 0x04,
# glm47 0x08, hermes 0x0c) plus the value termination (+0 lookahead,
# +1 vllm).
#
# Usage: fuzz/seed.sh        (from anywhere; existing corpus files are kept)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
corpus="$here/corpus"
mkdir -p "$corpus/feed" "$corpus/split" "$corpus/no_markers" "$corpus/features"

# The header's format bits (bits 2-3, bit 1 clear), in octal for printf.
format_bits() {
    case "$1" in
        qwen3_coder) echo 0 ;;
        glm45) echo 4 ;;
        glm47) echo 10 ;;
        hermes) echo 14 ;;
        *) return 1 ;;
    esac
}

shopt -s nullglob
count=0
for file in "$root"/tests/fixtures/*/*.txt "$root"/examples/transcripts/*.txt; do
    dir="$(basename "$(dirname "$file")")"
    if [ "$dir" = transcripts ]; then
        format="$(basename "$file" .txt)"
    else
        format="$dir"
    fi
    if ! bits="$(format_bits "$format")"; then
        echo "seed.sh: no header for format '$format' ($file); skipped" >&2
        continue
    fi
    lookahead="$(printf '\\%03o' "$((8#$bits))")"
    vllm="$(printf '\\%03o' "$((8#$bits + 1))")"
    name="$dir-$(basename "$file" .txt)"
    # Fixtures named *.vllm.txt are meant for vllm value termination, but
    # every seed is worth running in both modes.
    { printf "$lookahead"; cat "$file"; } >"$corpus/feed/$name.lookahead"
    { printf "$vllm"; cat "$file"; } >"$corpus/feed/$name.vllm"
    # Tight limits (max_calls 1, max_parameters 2, names of 4 bytes, a
    # look-ahead of 9): Qwen3-Coder's are in its one header byte, another
    # format's (GLM, Hermes) in a second byte (bit 4 of the first).
    if [ "$format" = qwen3_coder ]; then
        tight='\146'
    else
        tight="$(printf '\\%03o\\144' "$((8#$bits + 8#20))")"
    fi
    { printf "$tight"; cat "$file"; } >"$corpus/feed/$name.tight"
    # split: single bytes; a 1,7,3 cycle; 4-byte (token-sized) chunks.
    { printf "$lookahead\\000"; cat "$file"; } >"$corpus/split/$name.bytes"
    { printf "$vllm\\003\\001\\007\\003"; cat "$file"; } >"$corpus/split/$name.1-7-3"
    { printf "$lookahead\\001\\004"; cat "$file"; } >"$corpus/split/$name.4"
    cp "$file" "$corpus/no_markers/$name.txt"
    # features: typed (0x08), typed + strict (0x18), every call rejected
    # (0x20), in 4-byte chunks.
    case "$format" in glm45) f=1 ;; glm47) f=2 ;; hermes) f=3 ;; *) f=0 ;; esac
    for feature in 8 24 32; do
        byte="$(printf '\\%03o' "$((feature + f))")"
        { printf "$byte\\001\\004"; cat "$file"; } >"$corpus/features/$name.$feature"
    done
    count=$((count + 1))
done
echo "seeded $count inputs into $corpus/{feed,split,no_markers,features}"
