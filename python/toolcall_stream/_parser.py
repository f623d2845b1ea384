"""The parser and the whole-output functions; :mod:`toolcall_stream` is
their public home."""

from typing import Any, Dict, List, Optional, Union

from . import _native
from ._events import Event, Message, ParameterEnd

_from_dict = Event.from_dict


class Parser:
    """A streaming parser for one model output.

    ``format`` is a vLLM ``--tool-call-parser`` name (``qwen3_coder``,
    ``glm47``, ``hermes``, ``kimi_k2``, ..., or ``auto``); ``tools`` is the
    request's OpenAI ``tools`` (a list, or its JSON text), which types the
    values. Keyword options: ``reasoning`` (``off``, ``on``, ``started``),
    ``strict``, ``value_termination`` (``lookahead``, ``vllm``), ``typing``
    (``schema``, ``infer``, ``strings``), ``ids`` (``vllm``, ``openai``,
    ``sequential``) and ``seed``, ``retain_arguments``,
    ``incomplete_calls_as_content``, ``unknown_tools_as_content``,
    ``calls_in_code_blocks``, ``calls_in_reasoning``, ``watch_foreign_formats``,
    ``python_literals``, ``hold_text_after_wrapper`` (the crate's
    ``ParserBuilder`` documents each).

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
        and returns the events it made. After :meth:`finish` (or
        :meth:`parse`) it raises :class:`StreamFinishedError` until
        :meth:`reset`."""
        return [_from_dict(e) for e in self._native.feed(data)]

    def finish(self) -> List[Event]:
        """Ends the stream: held text is decided, an open call ends. A
        second ``finish`` raises :class:`StreamFinishedError`, as ``feed``
        does:

        >>> p = Parser("hermes")
        >>> p.finish() + p.feed("hi")
        Traceback (most recent call last):
        ...
        toolcall_stream.StreamFinishedError: the stream is finished: call reset() to parse another
        >>> p.reset()
        >>> p.feed("hi")
        [Content(text='hi')]
        """
        return [_from_dict(e) for e in self._native.finish()]

    def parse(self, text: Union[str, bytes]) -> Message:
        """Parses a whole output (the same engine, fed once, from the start
        whatever was fed before); the stream is finished after it."""
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
        """Starts over for a new stream, keeping the options (also after
        :meth:`finish`)."""
        self._native.reset()


def parse(format: str, text: Union[str, bytes], tools: Any = None, **options: Any) -> Message:
    """Parses a whole output in ``format`` (see :class:`Parser`)."""
    return Parser(format, tools, **options).parse(text)


def constraint(
    format: str,
    tools: Any,
    mode: str = "required",
    parallel: bool = True,
    reasoning: bool = False,
    dialect: str = "lark",
) -> str:
    """The grammar of exactly the calls ``format`` reads, to ``tools``, in
    llguidance's Lark dialect, for a server's constrained decoder
    (docs/constraints.md). ``mode`` is ``"lazy"`` (``tool_choice: "auto"``),
    ``"required"`` or ``"named:NAME"``; ``parallel=False`` allows one call;
    ``reasoning=True`` allows a reasoning block first. ``dialect`` is
    ``"lark"`` (llguidance's), ``"structural-tag"`` (xgrammar's, as JSON)
    or ``"gbnf"`` (llama.cpp's). ``ValueError`` for a name not among the
    tools, or calls required where no tool is declared or none can be
    written (a required parameter no value satisfies).

    >>> tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    ...     "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    >>> '"<function=get_weather>"' in constraint("qwen3_coder", tools)
    True
    """
    return _native.constraint(format, tools, mode, parallel, reasoning, dialect)


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
