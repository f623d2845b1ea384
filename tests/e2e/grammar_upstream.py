"""A fake OpenAI-compatible upstream that obeys the grammar it is sent, as a
server's constrained decoder would: it samples its answer at random, one
byte at a time, among the bytes the grammar allows, and sends the text raw
(as a server without a tool parser does), streamed or whole.

- `response_format: {"type": "structural_tag", ...}`: compiled by xgrammar.
- `grammar` (the same text in `structured_outputs.grammar` and `ebnf`): Lark
  (`%llguidance` first) by llguidance, else GBNF by xgrammar's EBNF.
- No grammar: the answer is the plain text `unconstrained`.
- A grammar with `tools` and a `tool_choice` other than `"none"`: 400, as
  llama.cpp answers ("Cannot use custom grammar constraints with tools").

The vocabulary is one token per byte and a stop token. The walk is seeded
by the request's `seed`, prefers printable ASCII, now and then spells a
whole literal of the grammar that the grammar accepts there (a marker, a
closer: how a model ends a value), stops when it may past a few hundred
bytes, and after `MAX_BYTES` spells only literals or stops, so that every
walk ends.

Prints `listening on http://127.0.0.1:PORT` first (port 0: the OS picks),
then one JSON line per answer: `{"id", "dialect", "text"}`.

Run with xgrammar (0.2.8, torch stubbed) and llguidance (1.9.1) installed:
    TVM_FFI_DISABLE_TORCH_C_DLPACK=1 PYTHONPATH=constraints-check/stubs \\
        python tests/e2e/grammar_upstream.py
"""

import itertools
import json
import random
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import llguidance
import llguidance.numpy as llg_numpy
import numpy as np
import xgrammar as xgr

STOP = 256
VOCAB = 257
SOFT_BYTES = 200
MAX_BYTES = 2000
PRINTABLE = [*range(32, 127), 10]
# How a JSON value ends, whatever the grammar spells.
JSON_CLOSERS = ['"', "}", "]", ","]

_xgr_compiler = None
_llg_tokenizer = None
_lock = threading.Lock()
_ids = itertools.count(1)


def xgr_compiler():
    global _xgr_compiler
    if _xgr_compiler is None:
        vocab = [bytes([i]) for i in range(256)] + [b"</s>"]
        info = xgr.TokenizerInfo(vocab, xgr.VocabType.RAW, vocab_size=VOCAB, stop_token_ids=[STOP])
        _xgr_compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)
    return _xgr_compiler


class _Bytes:
    """llguidance's view of the byte vocabulary: 0xFF starts a special token."""

    eos_token_id = STOP
    bos_token_id = None
    tokens = [bytes([i]) for i in range(255)] + [b"\xff[unused]", b"\xff[EOS]"]
    special_token_ids = [255, STOP]

    def __call__(self, text):
        return list(text.encode() if isinstance(text, str) else text)


def llg_tokenizer():
    global _llg_tokenizer
    if _llg_tokenizer is None:
        _llg_tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Bytes()), slices=[])
    return _llg_tokenizer


class XgrWalk:
    def __init__(self, grammar):
        self.matcher = xgr.GrammarMatcher(xgr_compiler().compile_grammar(grammar))
        self.mask = np.zeros(xgr.get_bitmask_shape(1, VOCAB), dtype=np.int32)

    def allowed(self):
        self.mask[:] = 0
        self.matcher.fill_next_token_bitmask(self.mask)
        return allowed_of(self.mask[0])

    def accepts(self, literal):
        return self.matcher.fork().accept_string(literal)

    def consume(self, data):
        for byte in data:
            assert self.matcher.accept_token(byte), "a byte the mask allowed was refused"

    def stop(self):
        assert self.matcher.accept_token(STOP)
        return self.matcher.is_terminated()


class LlgWalk:
    def __init__(self, lark):
        self.matcher = llguidance.LLMatcher(llg_tokenizer(), lark, log_level=1)
        if self.matcher.is_error():
            raise ValueError(self.matcher.get_error())
        self.mask = llg_numpy.allocate_token_bitmask(1, VOCAB)

    def allowed(self):
        llg_numpy.fill_next_token_bitmask(self.matcher, self.mask, 0)
        return allowed_of(self.mask[0])

    def accepts(self, literal):
        tokens = list(literal.encode())
        return self.matcher.validate_tokens(tokens) == len(tokens)

    def consume(self, data):
        assert self.matcher.consume_tokens(list(data)), self.matcher.get_error()

    def stop(self):
        self.matcher.consume_token(STOP)
        return not self.matcher.is_error()


def allowed_of(words):
    return [t for t in range(VOCAB) if (int(words[t >> 5]) >> (t & 31)) & 1]


def structural_tag_literals(value, found):
    """The strings a structural tag spells: constants, tag ends, triggers."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("value", "begin", "end") and isinstance(inner, str):
                found.add(inner)
            elif key in ("end", "triggers") and isinstance(inner, list):
                found.update(s for s in inner if isinstance(s, str))
            else:
                structural_tag_literals(inner, found)
    elif isinstance(value, list):
        for inner in value:
            structural_tag_literals(inner, found)
    return found


def quoted_literals(text):
    """The double-quoted strings of a Lark or GBNF grammar (not `%json` lines)."""
    found = set()
    for line in text.splitlines():
        if "%json" in line:
            continue
        for quoted in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
            try:
                found.add(json.loads(f'"{quoted}"'))
            except ValueError:
                pass
    return found


def walk_of(request):
    """The walk under the request's grammar, its dialect and its literals;
    `None` when it carries none."""
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "structural_tag":
        grammar = xgr.Grammar.from_structural_tag(json.dumps(response_format))
        return XgrWalk(grammar), "structural-tag", structural_tag_literals(response_format, set())
    text = request.get("grammar")
    if text is None:
        return None
    copies = [(request.get("structured_outputs") or {}).get("grammar"), request.get("ebnf")]
    if any(copy != text for copy in copies):
        raise ValueError("structured_outputs.grammar, grammar and ebnf differ")
    if text.lstrip().startswith("%llguidance"):
        return LlgWalk(text), "lark", quoted_literals(text)
    return XgrWalk(xgr.Grammar.from_ebnf(text, root_rule_name="root")), "gbnf", quoted_literals(text)


def sample(walk, literals, rng):
    """Bytes the grammar allows, to its end."""
    literals = sorted(l for l in literals | set(JSON_CLOSERS) if l)
    out = bytearray()
    while True:
        allowed = walk.allowed()
        if not allowed:
            raise ValueError(f"nothing allowed after {bytes(out)!r}")
        can_stop = STOP in allowed
        if can_stop and (len(out) > SOFT_BYTES or allowed == [STOP] or rng.random() < 0.01):
            if not walk.stop():
                raise ValueError("the stop token was refused")
            return bytes(out)
        late = len(out) > MAX_BYTES
        if late or rng.random() < 0.3:
            tried = rng.sample(literals, min(len(literals), len(literals) if late else 8))
            spelled = next((l for l in tried if walk.accepts(l)), None)
            if spelled is not None:
                walk.consume(spelled.encode())
                out += spelled.encode()
                continue
            if late and len(out) > 4 * MAX_BYTES:
                raise ValueError(f"the walk does not end: {bytes(out[-200:])!r}")
        printable = [t for t in allowed if t in PRINTABLE]
        choice = rng.choice(printable or [t for t in allowed if t != STOP])
        walk.consume(bytes([choice]))
        out.append(choice)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.endswith("/chat/completions"):
            return self.answer(404, {"error": {"message": "not found", "type": "not_found"}})
        constrained = any(request.get(k) is not None for k in ("grammar", "ebnf", "structured_outputs")) or (
            (request.get("response_format") or {}).get("type") not in (None, "text")
        )
        if constrained and request.get("tools") and request.get("tool_choice", "auto") != "none":
            return self.answer(400, {"error": {"message": "Cannot use custom grammar constraints with tools.",
                                               "type": "invalid_request_error"}})
        try:
            found = walk_of(request)
            if found is None:
                text, dialect = "unconstrained", None
            else:
                walk, dialect, literals = found
                text = sample(walk, literals, random.Random(request.get("seed", 0))).decode(errors="replace")
        except Exception as error:  # the test reads it in the proxy's log
            return self.answer(500, {"error": {"message": f"fake upstream: {error}", "type": "server_error"}})
        ident = f"chatcmpl-fake-{next(_ids)}"
        with _lock:
            print(json.dumps({"id": ident, "dialect": dialect, "text": text}), flush=True)
        base = {"id": ident, "created": 1_700_000_000, "model": request.get("model", "fake")}
        if not request.get("stream"):
            message = {"role": "assistant", "content": text}
            return self.answer(200, {**base, "object": "chat.completion",
                                     "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        pieces = random.Random(len(text))
        at = 0
        while at < len(text):
            step = pieces.randint(1, 7)
            self.event({**base, "object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {"content": text[at:at + step]}, "finish_reason": None}]})
            at += step
        self.event({**base, "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        self.chunk(b"data: [DONE]\n\n")
        self.chunk(b"")

    def event(self, value):
        self.chunk(f"data: {json.dumps(value)}\n\n".encode())

    def chunk(self, data):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def answer(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
