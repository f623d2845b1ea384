#!/usr/bin/env bash
# Copies the shared conformance material (../shared/conformance/, beside the
# repository) into tests/conformance/, which is what the tests read, and
# records the copies' checksums. Optional: only needed to take in new cases.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
from=${CONFORMANCE_SOURCE:-$root/../shared/conformance}
to=$root/tests/conformance
for name in corpus.json expected.json; do
  if [ ! -f "$from/$name" ]; then
    echo "refresh_conformance: $from/$name not found (set CONFORMANCE_SOURCE=DIR)" >&2
    exit 2
  fi
done
for name in corpus.json expected.json; do
  if cmp -s "$from/$name" "$to/$name"; then
    echo "$name: unchanged"
  else
    cp "$from/$name" "$to/$name"
    echo "$name: updated"
  fi
done
(cd "$to" && sha256sum corpus.json expected.json > SHA256SUMS)
echo "now run: cargo test --test conformance"
