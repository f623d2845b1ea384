#!/usr/bin/env bash
# The agent routes' end-to-end tests (cli/tests/e2e_agents.rs), run by .ci/run:
# real clients and agents, every version pinned, installed under target/.
# Needs node/npm (Claude Code's package asks for node >= 22 but its native
# binary runs on 20) and python3; nothing is fetched at test time and the
# agents run offline against the local proxy.
set -euo pipefail
cd "$(dirname "$0")/../.."

CODEX_VERSION=0.171.0
CLAUDE_CODE_VERSION=2.1.332
OPENAI_VERSION=3.54.0          # as pinned in .ci/run
ANTHROPIC_VERSION=2.14.0
OPENAI_AGENTS_VERSION=0.24.0
VENV=target/e2e-venv           # the same virtualenv as the openai e2e test
NPM_DIR=target/e2e-npm

echo "== e2e agents: codex $CODEX_VERSION, claude-code $CLAUDE_CODE_VERSION, anthropic $ANTHROPIC_VERSION, openai-agents $OPENAI_AGENTS_VERSION"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "openai==$OPENAI_VERSION" "anthropic==$ANTHROPIC_VERSION" "openai-agents==$OPENAI_AGENTS_VERSION"
mkdir -p "$NPM_DIR"
[ -f "$NPM_DIR/package.json" ] || echo '{"name": "toolcall-e2e-agents", "private": true}' > "$NPM_DIR/package.json"
npm install --prefix "$NPM_DIR" --no-audit --no-fund --save-exact \
    "@openai/codex@$CODEX_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
"$NPM_DIR/node_modules/.bin/codex" --version
"$NPM_DIR/node_modules/.bin/claude" --version

TOOLCALL_E2E_PYTHON="$VENV/bin/python" \
TOOLCALL_E2E_CODEX="$NPM_DIR/node_modules/.bin/codex" \
TOOLCALL_E2E_CLAUDE="$NPM_DIR/node_modules/.bin/claude" \
    cargo test -p toolcall-cli --test e2e_agents -- --ignored --test-threads 2
