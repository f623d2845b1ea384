"""Streamed LLM output to OpenAI-compatible tool calls, as it arrives.

The Rust crate ``toolcall-stream``'s parser, for Python. Feed the model's
text as it streams; get events (content, tool calls starting, argument
fragments, the end of each call, diagnostics) that are the same at every
split of the text.

>>> from toolcall_stream import Parser, parse
>>> parser = Parser("qwen3_coder", ids="sequential")
>>> events = parser.feed("Sure.<tool_call>\\n<function=get_weather>\\n<parameter=city>\\nParis\\n")
>>> events += parser.feed("</parameter>\\n</function>\\n</tool_call>")
>>> events += parser.finish()
>>> events[:2]
[Content(text='Sure.'), ToolCallStart(index=0, id='call_0', name='get_weather')]
>>> events[-1]
ToolCallEnd(index=0, arguments='{"city": "Paris"}', complete=True)
>>> call = parse("glm47", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>").tool_calls[0]
>>> call.name, call.args
('f', {'a': '1'})

The OpenAI layer is in :mod:`toolcall_stream.openai`; the vLLM tool-parser
plugin in :mod:`toolcall_stream.vllm`.
"""

from ._events import (
    ArgumentsDelta,
    Content,
    Diagnostic,
    Event,
    Message,
    ParameterDelta,
    ParameterEnd,
    ParameterStart,
    Reasoning,
    Span,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
)
from ._native import StreamFinishedError
from ._native import __version__ as __version__
from ._parser import Parser, constraint, format_for_model, formats, parse

__all__ = [
    "Parser",
    "parse",
    "formats",
    "constraint",
    "format_for_model",
    "StreamFinishedError",
    "Event",
    "Content",
    "Reasoning",
    "ToolCallStart",
    "ParameterStart",
    "ParameterDelta",
    "ParameterEnd",
    "ArgumentsDelta",
    "ToolCallEnd",
    "Diagnostic",
    "Span",
    "ToolCall",
    "Message",
]
