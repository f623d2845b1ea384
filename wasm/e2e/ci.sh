#!/usr/bin/env bash
# The WebAssembly package end to end, after the Rust builds (target/debug/
# toolcall and target/release/toolcall): builds wasm/pkg, installs the
# pinned npm packages from the lockfile, checks the types with tsc, then
# runs the demo in headless Chromium against the Rust parse, and the
# budgets (target/e2e/demo.png, target/e2e/budgets.json).
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== wasm: build wasm/pkg"
bash wasm/build.sh

echo "== wasm: npm ci (wasm/e2e)"
(cd wasm/e2e && npm ci --no-audit --no-fund --loglevel=error)

echo "== wasm: tsc --noEmit (wasm/e2e/example.ts against pkg/index.d.ts)"
(cd wasm/e2e && ./node_modules/.bin/tsc --noEmit -p .)

echo "== wasm: the demo in headless Chromium, and the budgets"
node wasm/e2e/run.mjs
