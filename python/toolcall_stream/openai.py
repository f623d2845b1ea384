"""The OpenAI layer: a model's text as ``chat.completion.chunk`` dicts or
server-sent events, and an OpenAI-compatible server's responses with the
tool calls in their text fixed.

A model's text, streamed as a server would send it:

>>> from toolcall_stream.openai import ChunkStream
>>> stream = ChunkStream("qwen3_coder", model="qwen3", id="chatcmpl-1", created=0, ids="sequential")
>>> chunks = stream.feed("Sure.<tool_call>\\n<function=ls>\\n")
>>> chunks[0]["choices"][0]["delta"]
{'role': 'assistant', 'content': 'Sure.', 'tool_calls': [{'index': 0, 'id': 'call_0', 'type': 'function', 'function': {'name': 'ls', 'arguments': ''}}]}
>>> chunks = stream.feed("<parameter=path>\\n/\\n</parameter>\\n</function>\\n</tool_call>")
>>> chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
{'arguments': '{"path": "/"}'}
>>> stream.finish()[0]["choices"][0]["finish_reason"]
'tool_calls'
>>> stream.finish_sse()
Traceback (most recent call last):
...
ValueError: the stream is finished

An upstream server's chunks, rewritten (``push_sse``/``finish_sse`` give
the bytes to send):

>>> from toolcall_stream.openai import Rewriter
>>> rewriter = Rewriter("qwen3_coder")
>>> def upstream(text, finish=None):
...     return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
...             "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
>>> out = rewriter.push(upstream("<tool_call>\\n<function=ls>\\n"))
>>> out += rewriter.push(upstream("</function>\\n</tool_call>", "stop"))
>>> out += rewriter.finish()
>>> calls = [t for c in out for t in c["choices"][0]["delta"].get("tool_calls", [])]
>>> calls[0]["function"]["name"], "".join(t["function"]["arguments"] for t in calls)
('ls', '{}')
>>> out[-1]["choices"][0]["finish_reason"]
'tool_calls'
>>> rewriter.calls
1
"""

from typing import Any, Dict, List, Union

from . import _native

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

    def take_diagnostics(self) -> List[Dict[str, Any]]:
        """The diagnostic events since the last call, as dicts."""
        return self._native.take_diagnostics()


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

    def take_diagnostics(self) -> List[str]:
        """The kinds of the diagnostics since the last call."""
        return self._native.take_diagnostics()


def rewrite_completion(
    completion: Union[Chunk, str, bytes], format: str = "qwen3_coder", tools: Any = None, **options: Any
) -> Chunk:
    """A whole ``chat.completion`` with the tool calls in each choice's
    text made ``tool_calls``.

    >>> completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
    ...     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
    ...         "content": "<tool_call>\\n<function=ls>\\n</function>\\n</tool_call>"}}]}
    >>> choice = rewrite_completion(completion)["choices"][0]
    >>> choice["finish_reason"], choice["message"]["tool_calls"][0]["function"]["name"]
    ('tool_calls', 'ls')
    """
    return _native.rewrite_completion(completion, format, tools, **options)
