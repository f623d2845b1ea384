// Writes the demo's bundled transcripts (one model output per format, each
// with several calls, one of them writing a long file) and index.json:
// `node wasm/demo/transcripts/make.mjs`. The .txt files are committed; this
// script is how they were made, kept so that they can be made again.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

// The file the code-writing call writes: long enough to watch it grow.
const FILE = `"""A token-bucket rate limiter, one bucket per client key."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class Bucket:
    capacity: float
    rate: float  # tokens added per second
    tokens: float = field(default=0.0)
    updated: float = field(default_factory=time.monotonic)

    def refill(self, now: float) -> None:
        elapsed = max(0.0, now - self.updated)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.updated = now


class RateLimiter:
    """Allows \`capacity\` requests in a burst, then \`rate\` per second.

    >>> limiter = RateLimiter(capacity=2, rate=1.0)
    >>> limiter.allow("a"), limiter.allow("a"), limiter.allow("a")
    (True, True, False)
    """

    def __init__(self, capacity: float, rate: float) -> None:
        if capacity <= 0 or rate <= 0:
            raise ValueError("capacity and rate must be > 0")
        self.capacity = capacity
        self.rate = rate
        self._buckets: dict[str, Bucket] = {}
        self._lock = threading.Lock()

    def allow(self, key: str, cost: float = 1.0) -> bool:
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = Bucket(self.capacity, self.rate, self.capacity, now)
                self._buckets[key] = bucket
            bucket.refill(now)
            if bucket.tokens >= cost:
                bucket.tokens -= cost
                return True
            return False

    def wait_time(self, key: str, cost: float = 1.0) -> float:
        """Seconds until \`allow(key, cost)\` would succeed (0 when it would now)."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                return 0.0
            bucket.refill(time.monotonic())
            missing = cost - bucket.tokens
            return 0.0 if missing <= 0 else missing / self.rate

    def __repr__(self) -> str:
        return f"<RateLimiter capacity={self.capacity} rate={self.rate} keys={len(self._buckets)}>"


if __name__ == "__main__":
    limiter = RateLimiter(capacity=3, rate=0.5)
    for i in range(5):
        print(i, "ok" if limiter.allow("demo") else "wait %.1fs" % limiter.wait_time("demo"))
`;

// The calls every transcript makes, in order.
const CALLS = [
  { name: "search_code", args: { query: "rate limit middleware", max_results: 5 } },
  { name: "write_file", args: { path: "app/ratelimit.py", content: FILE } },
  { name: "run_command", args: { command: "python -m doctest app/ratelimit.py -v", timeout: 60 } },
];

const INTRO = "I'll add a token-bucket rate limiter: first a look at how requests are handled, then the module, then its doctests.";
const OUTRO = "The limiter is in app/ratelimit.py; the doctest run will confirm the burst behaviour.";

/** JSON as the models write it: `", "` and `": "` separators. */
function json(args) {
  return "{" + Object.entries(args).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ") + "}";
}
const text = (v) => (typeof v === "string" ? v : JSON.stringify(v));

const WRITERS = {
  qwen3_coder: () =>
    `${INTRO}\n\n` +
    CALLS.map(
      (c) =>
        `<tool_call>\n<function=${c.name}>\n` +
        Object.entries(c.args).map(([k, v]) => `<parameter=${k}>\n${text(v)}\n</parameter>\n`).join("") +
        `</function>\n</tool_call>\n`,
    ).join("") +
    OUTRO,
  glm47: () =>
    `${INTRO}\n` +
    CALLS.map(
      (c) =>
        `<tool_call>${c.name}` +
        Object.entries(c.args).map(([k, v]) => `<arg_key>${k}</arg_key><arg_value>${text(v)}</arg_value>`).join("") +
        `</tool_call>`,
    ).join(""),
  hermes: () =>
    `${INTRO}\n\n` +
    CALLS.map((c) => `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${json(c.args)}}\n</tool_call>\n`).join("") +
    OUTRO,
  kimi_k2: () =>
    `${INTRO}<|tool_calls_section_begin|>` +
    CALLS.map(
      (c, i) => `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${json(c.args)}<|tool_call_end|>`,
    ).join("") +
    `<|tool_calls_section_end|>`,
  openai: () =>
    `<|channel|>analysis<|message|>The user wants rate limiting. I should look at the request handling, write the module, and run its doctests.<|end|>` +
    `<|start|>assistant<|channel|>commentary<|message|>${INTRO}<|end|>` +
    CALLS.map(
      (c) => `<|start|>assistant<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${json(c.args)}<|call|>`,
    ).join(""),
  deepseek_v31: () =>
    `${INTRO}<｜tool▁calls▁begin｜>` +
    CALLS.map((c) => `<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${json(c.args)}<｜tool▁call▁end｜>`).join("") +
    `<｜tool▁calls▁end｜>`,
  minimax_m2: () =>
    `<think>Search first, then write the module, then run the doctests.</think>\n${INTRO}\n\n<minimax:tool_call>\n` +
    CALLS.map(
      (c) =>
        `<invoke name="${c.name}">\n` +
        Object.entries(c.args).map(([k, v]) => `<parameter name="${k}">${text(v)}</parameter>\n`).join("") +
        `</invoke>\n`,
    ).join("") +
    `</minimax:tool_call>`,
  mistral: () => `${INTRO}\n` + CALLS.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${json(c.args)}`).join(""),
};

const TOOLS = [
  {
    type: "function",
    function: {
      name: "search_code",
      description: "Searches the repository.",
      parameters: {
        type: "object",
        properties: { query: { type: "string" }, max_results: { type: "integer" } },
        required: ["query"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "write_file",
      description: "Writes a file, replacing it.",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "run_command",
      description: "Runs a shell command.",
      parameters: {
        type: "object",
        properties: { command: { type: "string" }, timeout: { type: "integer" } },
        required: ["command"],
      },
    },
  },
];

const TITLES = {
  qwen3_coder: "Qwen3-Coder",
  glm47: "GLM-4.7",
  hermes: "Hermes",
  kimi_k2: "Kimi K2",
  openai: "gpt-oss (Harmony)",
  deepseek_v31: "DeepSeek V3.1",
  minimax_m2: "MiniMax M2",
  mistral: "Mistral",
};

const index = [];
for (const [format, write] of Object.entries(WRITERS)) {
  writeFileSync(join(here, `${format}.txt`), write());
  const entry = { name: format, title: TITLES[format], format, file: `${format}.txt`, tools: "tools.json" };
  // MiniMax M2 thinks first: its reasoning is split from the content.
  if (format === "minimax_m2") entry.options = { reasoning: "on" };
  index.push(entry);
}
// A stream cut off inside the file: the card ends "cut off".
const cut = WRITERS.qwen3_coder();
writeFileSync(join(here, "qwen3_coder_cut_off.txt"), cut.slice(0, cut.indexOf("def wait_time")));
index.push({
  name: "qwen3_coder_cut_off",
  title: "Qwen3-Coder, cut off",
  format: "qwen3_coder",
  file: "qwen3_coder_cut_off.txt",
  tools: "tools.json",
});
writeFileSync(join(here, "tools.json"), JSON.stringify(TOOLS, null, 2) + "\n");
writeFileSync(join(here, "index.json"), JSON.stringify(index, null, 2) + "\n");
