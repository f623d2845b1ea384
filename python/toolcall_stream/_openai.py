"""The OpenAI layer's classes; :mod:`toolcall_stream.openai` is their public
home."""

import warnings
from typing import Any, Dict, List, Mapping, Tuple, Union, cast, overload

from . import _native
from ._events import Diagnostic, Event

__all__ = ["ChunkStream", "Rewriter", "rewrite_completion"]

Chunk = Dict[str, Any]


class ChunkStream:
    """A model's text, fed as it streams, as OpenAI ``chat.completion.chunk``
    dicts (``feed``/``finish``) or server-sent-event bytes
    (``feed_sse``/``finish_sse``, which ends with ``data: [DONE]``).

    ``format``, ``tools`` and the keyword options are :class:`Parser`'s;
    ``model``, ``id`` and ``created`` fill the chunks (a random
    ``chatcmpl-`` id and now by default). Diagnostics have no place in
    OpenAI's chunks: ``take_diagnostics()`` returns them.
    """

    def __init__(self, format: str = "qwen3_coder", tools: Any = None, **options: Any) -> None:
        self._native = _native.ChunkStream(format, tools, **options)

    def feed(self, data: Union[str, bytes]) -> List[Chunk]:
        """A piece of the model's text; the chunk it completed, if any."""
        return self._native.feed(data)

    def finish(self, *, cut_off: bool = False) -> List[Chunk]:
        """The last chunk, with its ``finish_reason`` (``length`` when
        ``cut_off``: the model hit its token limit)."""
        return self._native.finish(cut_off=cut_off)

    def feed_sse(self, data: Union[str, bytes]) -> bytes:
        """``feed``, as server-sent events."""
        return self._native.feed_sse(data)

    def finish_sse(self, *, cut_off: bool = False) -> bytes:
        """``finish``, as server-sent events, then ``data: [DONE]``."""
        return self._native.finish_sse(cut_off=cut_off)

    def take_diagnostics(self) -> List[Diagnostic]:
        """The diagnostics since the last call, as :class:`Diagnostic`
        objects (kind, message, span).

        >>> stream = ChunkStream("qwen3_coder")
        >>> _ = stream.feed("<tool_call>\\n<function=ls>\\n")
        >>> _ = stream.finish(cut_off=True)
        >>> [(d.kind, d.index, d.span) for d in stream.take_diagnostics()]
        [('truncated', 0, Span(start=0, end=26))]
        """
        return _diagnostics(self._native.take_diagnostics())


class Rewriter:
    """An OpenAI-compatible server's streamed response with the tool calls
    its model wrote as text made ``tool_calls``: what ``toolcall proxy``
    does to each stream. One parser per choice; everything else in the
    chunks passes through.

    ``push`` takes a chunk (a dict, or its JSON) and returns the chunks to
    send; ``push_sse`` takes an SSE event's data and returns the bytes to
    send (``[DONE]`` ends the stream). ``finish``/``finish_sse`` at the end
    of the upstream's stream, ``finish_cut`` when it stopped without an end.
    """

    def __init__(self, format: str = "qwen3_coder", tools: Any = None, **options: Any) -> None:
        self._native = _native.Rewriter(format, tools, **options)

    def push(self, chunk: Union[Chunk, str, bytes]) -> List[Chunk]:
        """One upstream chunk; the chunks to send for it (maybe none)."""
        return self._native.push(chunk)

    def push_sse(self, data: Union[str, bytes]) -> bytes:
        """One upstream SSE event's data; the events to send, as bytes."""
        return self._native.push_sse(data)

    def finish(self) -> List[Chunk]:
        """The upstream stream ended: the last chunks."""
        return self._native.finish()

    def finish_sse(self) -> bytes:
        """``finish``, as server-sent events, then ``data: [DONE]``."""
        return self._native.finish_sse()

    def finish_cut(self) -> List[Chunk]:
        """The upstream stream was cut: open choices end as ``length``."""
        return self._native.finish_cut()

    @property
    def calls(self) -> int:
        """Complete tool calls made so far, over all choices."""
        return self._native.calls

    def take_diagnostics(self) -> List[Diagnostic]:
        """The diagnostics since the last call, over all choices, choice by
        choice (kind, message, span: byte offsets into the choice's
        text)."""
        return _diagnostics(self._native.take_diagnostics())


def _diagnostics(taken: List[Dict[str, Any]]) -> List[Diagnostic]:
    return [cast(Diagnostic, Event.from_dict(d)) for d in taken]


Completion = Union[Chunk, str, bytes]


@overload
def rewrite_completion(
    format: str, completion: Completion, tools: Any = None, **options: Any
) -> Chunk: ...


@overload
def rewrite_completion(*, format: str, completion: Completion, tools: Any = None, **options: Any) -> Chunk: ...


@overload
def rewrite_completion(
    completion: Union[Chunk, bytes], format: str = ..., tools: Any = None, **options: Any
) -> Chunk: ...  # the completion first: deprecated


def rewrite_completion(*args: Any, **kwargs: Any) -> Chunk:
    """A whole ``chat.completion`` (a dict, or its JSON text) in ``format``
    with the tool calls in each choice's text made ``tool_calls``. The
    format comes first, as in ``parse(format, text)`` and
    ``Rewriter(format)``:

    >>> completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
    ...     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
    ...         "content": "<tool_call>\\n<function=ls>\\n</function>\\n</tool_call>"}}]}
    >>> choice = rewrite_completion("qwen3_coder", completion)["choices"][0]
    >>> choice["finish_reason"], choice["message"]["tool_calls"][0]["function"]["name"]
    ('tool_calls', 'ls')

    The completion first (``rewrite_completion(completion, format=...)``,
    its format ``qwen3_coder`` when not given) still works, with a
    ``DeprecationWarning``.
    """
    format, completion, tools, options = _rewrite_arguments(args, kwargs)
    return _native.rewrite_completion(format, completion, tools, **options)


def _is_completion(value: Any) -> bool:
    """Whether a first argument is a completion, not a format's name: a
    dict, bytes, or JSON text (an object; no format's name starts with
    ``{``)."""
    if isinstance(value, str):
        return value.lstrip().startswith("{")
    return isinstance(value, (Mapping, bytes, bytearray))


def _rewrite_arguments(
    args: Tuple[Any, ...], kwargs: Dict[str, Any]
) -> Tuple[str, Completion, Any, Dict[str, Any]]:
    """``(format, completion, tools, options)`` of either order's call."""
    rest = list(args)
    if rest and _is_completion(rest[0]):
        warnings.warn(
            "rewrite_completion(completion, format) is deprecated: "
            "pass the format first, rewrite_completion(format, completion)",
            DeprecationWarning,
            stacklevel=3,
        )
        completion = rest.pop(0)
        format = rest.pop(0) if rest else kwargs.pop("format", "qwen3_coder")
    else:
        if rest:
            format = rest.pop(0)
        elif "format" in kwargs:
            format = kwargs.pop("format")
        else:
            raise TypeError("rewrite_completion() missing its format")
        if rest:
            completion = rest.pop(0)
        elif "completion" in kwargs:
            completion = kwargs.pop("completion")
        else:
            raise TypeError("rewrite_completion() missing its completion")
    tools = rest.pop(0) if rest else kwargs.pop("tools", None)
    if rest:
        raise TypeError("rewrite_completion() takes format, completion and tools positionally")
    for name in ("format", "completion"):
        if name in kwargs:
            raise TypeError(f"rewrite_completion() got {name} twice")
    return format, completion, tools, kwargs
