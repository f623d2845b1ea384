#!/usr/bin/env bash
# Builds the npm package into wasm/pkg/: the crate for wasm32-unknown-unknown
# (profile `wasm`), bound by wasm-bindgen-cli (its version must equal the
# crate's wasm-bindgen: Cargo.lock), with the JS layer and its types.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet -p toolcall-stream-wasm --target wasm32-unknown-unknown --profile wasm
rm -rf wasm/pkg
wasm-bindgen --target web --no-typescript --out-dir wasm/pkg \
    target/wasm32-unknown-unknown/wasm/toolcall_stream_wasm.wasm
cp wasm/js/index.js wasm/js/index.d.ts wasm/package.json wasm/pkg/
echo "wasm/pkg: $(wc -c < wasm/pkg/toolcall_stream_wasm_bg.wasm) bytes of .wasm," \
    "$(gzip -9 -c wasm/pkg/toolcall_stream_wasm_bg.wasm | wc -c) gzipped"
