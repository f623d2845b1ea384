"""Streamed LLM output to OpenAI-compatible tool calls, as it arrives.

The Rust crate ``toolcall-stream``'s parser, for Python. Feed the model's
text as it streams; get events (content, tool calls starting, argument
fragments, the end of each call, diagnostics) that are the same at every
split of the text.

>>> from toolcall_stream import Parser
>>> parser = Parser("qwen3_coder", ids="sequential")
>>> events = parser.feed("Sure.<tool_call>\\n<function=get_weather>\\n<parameter=city>\\nParis\\n")
>>> events += parser.feed("</parameter>\\n</function>\\n</tool_call>")
>>> events += parser.finish()
>>> [e.type for e in events][:3]
['content', 'tool_call_start', 'parameter_start']
>>> events[-1].arguments
'{"city": "Paris"}'
>>> call = parse("glm47", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>")["tool_calls"][0]
>>> call["function"]["name"], call["function"]["arguments"]
('f', '{"a": "1"}')
"""

from typing import Any, Dict, List, Optional, Union

from . import _native

__all__ = ["Event", "Parser", "parse", "formats", "format_for_model"]


class Event:
    """One event: its ``type`` and fields as attributes (``event.text``,
    ``event.index``, ``event.delta``, ...), ``to_dict()`` for the JSON form.

    >>> Event({"type": "content", "text": "hi"})
    Event(type='content', text='hi')
    """

    __slots__ = ("_fields",)

    def __init__(self, fields: Dict[str, Any]) -> None:
        # The type first, as the JSON form writes it.
        self._fields = {"type": fields.get("type"), **fields}

    def __getattr__(self, name: str) -> Any:
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_dict(self) -> Dict[str, Any]:
        """The event as a dict, ready for ``json.dumps``."""
        return dict(self._fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self._fields == other._fields

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"Event({fields})"


class Parser:
    """A streaming parser for one model output.

    ``format`` is a vLLM ``--tool-call-parser`` name (``qwen3_coder``,
    ``glm47``, ``hermes``, ``kimi_k2``, ..., or ``auto``); ``tools`` is the
    request's OpenAI ``tools`` (a list, or its JSON text), which types the
    values. Keyword options: ``reasoning`` (``off``, ``on``, ``started``),
    ``strict``, ``value_termination`` (``lookahead``, ``vllm``), ``typing``
    (``schema``, ``infer``, ``strings``), ``ids`` (``random``, ``openai``,
    ``sequential``) and ``seed``, ``retain_arguments``.

    A bad option raises ``ValueError`` with the library's message:

    >>> Parser("qwen9")
    Traceback (most recent call last):
    ...
    ValueError: unknown format "qwen9"; known formats: ...
    """

    def __init__(self, format: str = "qwen3_coder", tools: Any = None, **options: Any) -> None:
        self._native = _native.Parser(format, tools, **options)

    def feed(self, data: Union[str, bytes]) -> List[Event]:
        """Feeds a chunk (``str``, or ``bytes`` that may split a character)
        and returns the events it made."""
        return [Event(e) for e in self._native.feed(data)]

    def finish(self) -> List[Event]:
        """Ends the stream: held text is decided, an open call ends."""
        return [Event(e) for e in self._native.finish()]

    def parse(self, text: Union[str, bytes]) -> Dict[str, Any]:
        """Parses a whole output: ``{"content", "tool_calls", "diagnostics"}``
        (and ``reasoning`` when split), in OpenAI's message shape."""
        return self._native.parse(text)

    def partial_call(self) -> Optional[Dict[str, Any]]:
        """The call being read (``index``, ``id``, ``name``, ``arguments``
        that always parse as a JSON object), or ``None``."""
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


def parse(format: str, text: Union[str, bytes], tools: Any = None, **options: Any) -> Dict[str, Any]:
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
