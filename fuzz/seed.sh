#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from every format's test fixtures
# (tests/fixtures/<format>/*.txt) and the example transcripts
# (examples/transcripts/<format>.txt).
#
# Each target reads its own input layout (see the header of each file in
# fuzz_targets/ and `Header` in fuzz_targets/common/mod.rs), so the seeds
# get the header bytes their target expects, picking the seed's format:
#   feed        header (format byte, mode byte), then the text; in
#               lookahead, vllm and with tight limits
#   split       header, count k, k chunk lengths, then the text
#   no_markers  the text as is (the target runs every format)
#   features    header, options byte (tools, strict, …; see
#               fuzz_targets/features.rs), count k, k chunk lengths, text
# The format byte is the format's index in `Format::ALL` (and `auto`'s,
# after them), printed by `cargo run --example formats` (the default
# toolchain), so a format added to the crate is seeded as soon as it has
# fixtures. Every fixture is seeded twice: under its format's byte and
# under `auto`'s (as `auto-<dir>-<name>`), so that auto reads the output
# of every format. Fixtures with reasoning in them (`think`, `THINK`, and
# every `openai` one, whose analysis channel is reasoning) get more
# seeds, with the mode byte's reasoning bits (2-4): on (\004), started
# (\010), on without calls in reasoning (\024).
#
# Usage: fuzz/seed.sh [FORMAT …]   (from anywhere; existing corpus files
#        are kept). With FORMATs, only their fixtures are seeded; with
#        `auto` among them, every fixture under auto's byte.
#        CORPUS=DIR puts the seeds under DIR/<target>/ (default
#        fuzz/corpus).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
corpus="${CORPUS:-$here/corpus}"
mkdir -p "$corpus/feed" "$corpus/split" "$corpus/no_markers" "$corpus/features"

# "INDEX NAME" per format, in the order of Format::ALL.
formats="$(cargo run --quiet --manifest-path "$here/Cargo.toml" --example formats)"

# The header's format byte for a format name, in octal for printf.
format_byte() {
    local index
    index="$(awk -v name="$1" '$2 == name { print $1 }' <<<"$formats")"
    [ -n "$index" ] || return 1
    printf '\\%03o' "$index"
}

wanted() {
    [ "${#selected[@]}" -eq 0 ] && return 0
    local f
    for f in "${selected[@]}"; do
        [ "$f" = "$1" ] && return 0
    done
    return 1
}

selected=("$@")
for format in "${selected[@]}"; do
    if ! format_byte "$format" >/dev/null; then
        echo "seed.sh: unknown format '$format'; known: $(awk '{ print $2 }' <<<"$formats" | tr '\n' ' ')" >&2
        exit 1
    fi
done

# seed BYTE NAME FILE: every target's seeds of FILE under format byte BYTE.
seed() {
    local byte="$1" name="$2" file="$3" options mode
    # Mode bytes: lookahead \000, vllm \001; tight limits \146 (max_calls
    # 1, max_parameters 2, names of 4 bytes, a look-ahead of 9), lookahead.
    # Fixtures named *.vllm.txt are meant for vllm value termination, but
    # every seed is worth running in both modes.
    { printf "$byte\\000"; cat "$file"; } >"$corpus/feed/$name.lookahead"
    { printf "$byte\\001"; cat "$file"; } >"$corpus/feed/$name.vllm"
    { printf "$byte\\146"; cat "$file"; } >"$corpus/feed/$name.tight"
    # split: single bytes; a 1,7,3 cycle (vllm); 4-byte (token-sized)
    # chunks.
    { printf "$byte\\000\\000"; cat "$file"; } >"$corpus/split/$name.bytes"
    { printf "$byte\\001\\003\\001\\007\\003"; cat "$file"; } >"$corpus/split/$name.1-7-3"
    { printf "$byte\\000\\001\\004"; cat "$file"; } >"$corpus/split/$name.4"
    # no_markers runs every format (auto too): the text once.
    [ "$byte" = "$auto_byte" ] || cp "$file" "$corpus/no_markers/$name.txt"
    # features, in 4-byte chunks, with the options (octal): typed (01),
    # typed + strict (03), every call rejected (04: unknown tools as
    # content, no tools), inferred types with incomplete calls as content
    # and text after the wrapper held (160).
    for options in 001 003 004 160; do
        { printf "$byte\\000\\$options\\001\\004"; cat "$file"; } >"$corpus/features/$name.$options"
    done
    if [ "$format" = openai ] || grep -q -e think -e THINK "$file"; then
        for mode in 004 010 024; do
            { printf "$byte\\$mode"; cat "$file"; } >"$corpus/feed/$name.r$mode"
            { printf "$byte\\$mode\\001\\003"; cat "$file"; } >"$corpus/split/$name.r$mode"
        done
        # typed, reasoning on; tight limits with reasoning on (options
        # bit 7) and incomplete calls as content.
        { printf "$byte\\004\\001\\001\\004"; cat "$file"; } >"$corpus/features/$name.r004"
        { printf "$byte\\146\\240\\001\\002"; cat "$file"; } >"$corpus/features/$name.r240"
    fi
}

auto_byte="$(format_byte auto)"
shopt -s nullglob
count=0
for file in "$root"/tests/fixtures/*/*.txt "$root"/examples/transcripts/*.txt; do
    dir="$(basename "$(dirname "$file")")"
    if [ "$dir" = transcripts ]; then
        format="$(basename "$file" .txt)"
    else
        format="$dir"
    fi
    if ! byte="$(format_byte "$format")"; then
        echo "seed.sh: no format '$format' in Format::ALL ($file); skipped" >&2
        continue
    fi
    name="$dir-$(basename "$file" .txt)"
    if wanted "$format"; then
        seed "$byte" "$name" "$file"
        count=$((count + 1))
    fi
    if wanted auto; then
        seed "$auto_byte" "auto-$name" "$file"
        count=$((count + 1))
    fi
done
echo "seeded $count inputs into $corpus/{feed,split,no_markers,features}"
