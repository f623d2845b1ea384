"""A user's script against the package's API, checked by ``mypy --strict``
and run (``test_types.py``): every name and signature here is one the
stubs and annotations must describe."""

import json
from typing import List

import toolcall_stream
from toolcall_stream import (
    ArgumentsDelta,
    Diagnostic,
    Message,
    Parser,
    Span,
    StreamFinishedError,
    ToolCallEnd,
    parse,
)
from toolcall_stream.openai import ChunkStream, Rewriter, rewrite_completion

version: str = toolcall_stream.__version__

parser = Parser("qwen3_coder", ids="sequential")
arguments: str = ""
done = False
for event in parser.feed("<tool_call><function=f><parameter=a>1</parameter></function></tool_call>"):
    if isinstance(event, ArgumentsDelta):
        arguments += event.delta
    elif isinstance(event, ToolCallEnd):
        done = event.complete
parser.finish()
try:
    parser.feed("more")
except StreamFinishedError as finished:
    said: str = str(finished)
parser.reset()
parser.feed("next response")

message: Message = parse("hermes", "hi")
names: List[str] = [call.name for call in message.tool_calls]

stream = ChunkStream("glm47", model="m")
body: bytes = stream.feed_sse("hi") + stream.finish_sse(cut_off=True)
diagnostics: List[Diagnostic] = stream.take_diagnostics()

rewriter = Rewriter("qwen3_coder")
calls: int = rewriter.calls
for diagnostic in rewriter.take_diagnostics():
    where: Span = diagnostic.span
    print(diagnostic.kind, diagnostic.message, where.start, where.end)

completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
              "choices": [{"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": "hi"}}]}
rewritten = rewrite_completion("hermes", completion)
rewritten = rewrite_completion("hermes", json.dumps(completion), None, ids="sequential")
rewritten = rewrite_completion(format="hermes", completion=completion)

assert arguments == '{"a": "1"}' and done and names == [] and version
assert rewritten["choices"][0]["message"]["content"] == "hi"
