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

from typing import Any, Dict, List, Optional, Union

from . import _native
from .events import (
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

__all__ = [
    "Parser",
    "parse",
    "formats",
    "format_for_model",
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

_from_dict = Event.from_dict


class Parser:
    """A streaming parser for one model output.

    ``format`` is a vLLM ``--tool-call-parser`` name (``qwen3_coder``,
    ``glm47``, ``hermes``, ``kimi_k2``, ..., or ``auto``); ``tools`` is the
    request's OpenAI ``tools`` (a list, or its JSON text), which types the
    values. Keyword options: ``reasoning`` (``off``, ``on``, ``started``),
    ``strict``, ``value_termination`` (``lookahead``, ``vllm``), ``typing``
    (``schema``, ``infer``, ``strings``), ``ids`` (``random``, ``openai``,
    ``sequential``) and ``seed``, ``retain_arguments``,
    ``incomplete_calls_as_content``, ``unknown_tools_as_content``,
    ``calls_in_code_blocks``, ``calls_in_reasoning``, ``python_literals``,
    ``hold_text_after_wrapper`` (the crate's ``ParserBuilder`` documents each).

    A bad option raises ``ValueError`` with the library's message, an
    unknown one ``TypeError``:

    >>> Parser("qwen9")
    Traceback (most recent call last):
    ...
    ValueError: unknown format "qwen9"; known formats: ...
    >>> Parser(strikt=True)
    Traceback (most recent call last):
    ...
    TypeError: unexpected keyword argument "strikt"; known: ...

    Typed values: with ``tools``, each parameter's value follows its schema.

    >>> tools = [{"type": "function", "function": {"name": "add", "parameters": {
    ...     "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}}}]
    >>> p = Parser("qwen3_coder", tools)
    >>> [e.value for e in p.feed("<tool_call><function=add><parameter=a>1</parameter>"
    ...                          "<parameter=b>1</parameter></function>") if isinstance(e, ParameterEnd)]
    [1, '1']
    """

    def __init__(self, format: str = "qwen3_coder", tools: Any = None, **options: Any) -> None:
        self._native = _native.Parser(format, tools, **options)

    def feed(self, data: Union[str, bytes]) -> List[Event]:
        """Feeds a chunk (``str``, or ``bytes`` that may split a character)
        and returns the events it made."""
        return [_from_dict(e) for e in self._native.feed(data)]

    def finish(self) -> List[Event]:
        """Ends the stream: held text is decided, an open call ends."""
        return [_from_dict(e) for e in self._native.finish()]

    def parse(self, text: Union[str, bytes]) -> Message:
        """Parses a whole output (the same engine, fed once)."""
        return Message._from_native(self._native.parse(text))

    def partial_call(self) -> Optional[Dict[str, Any]]:
        """The call being read, for UIs: ``index``, ``id``, ``name``, and
        ``arguments`` so far as JSON text that always parses; ``None``
        outside a call.

        >>> p = Parser("qwen3_coder", ids="sequential")
        >>> _ = p.feed("<tool_call>\\n<function=write>\\n<parameter=text>\\nhel")
        >>> p.partial_call()
        {'index': 0, 'id': 'call_0', 'name': 'write', 'arguments': '{"text": "hel"}'}
        """
        return self._native.partial_call()

    @property
    def held_back(self) -> int:
        """Bytes held back because they may still start a marker."""
        return self._native.held_back

    @property
    def format(self) -> str:
        """The format's canonical name."""
        return self._native.format

    def reset(self) -> None:
        """Starts over for a new stream, keeping the options."""
        self._native.reset()


def parse(format: str, text: Union[str, bytes], tools: Any = None, **options: Any) -> Message:
    """Parses a whole output in ``format`` (see :class:`Parser`)."""
    return Parser(format, tools, **options).parse(text)


def formats() -> List[str]:
    """Every built-in format's name."""
    return _native.formats()


def format_for_model(model: str) -> str:
    """The format a model's name says it writes
    (``"Qwen/Qwen3-Coder-30B-A3B-Instruct"`` is ``"qwen3_coder"``); ``ValueError``
    when its name says none.

    >>> format_for_model("zai-org/GLM-4.7")
    'glm47'
    """
    return _native.format_for_model(model)
