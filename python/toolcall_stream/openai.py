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
toolcall_stream.StreamFinishedError: the stream is finished: make a new ChunkStream for another

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

from ._openai import ChunkStream, Rewriter, rewrite_completion

__all__ = ["ChunkStream", "Rewriter", "rewrite_completion"]
