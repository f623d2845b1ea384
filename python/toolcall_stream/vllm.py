"""A vLLM tool-parser plugin: every format of toolcall-stream as a vLLM
``ToolParser``, registered as ``toolcall_<format>``.

    vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -c 'import toolcall_stream.vllm as m; print(m.__file__)')" \\
        --tool-call-parser toolcall_qwen3_coder

Streaming feeds only each step's ``delta_text`` to one parser per request;
it never re-reads ``current_text``. Values are typed from ``request.tools``.
"""

from typing import Any, Dict, List, Optional, Sequence

from vllm.entrypoints.generate.base.protocol import (
    DeltaMessage,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from . import _native, formats


def _tools(request: Any) -> Optional[List[Dict[str, Any]]]:
    tools = getattr(request, "tools", None)
    if not tools:
        return None
    return [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else t for t in tools]


class _ToolcallParser(ToolParser):
    """One format's parser; subclassed per format below."""

    format_name = "qwen3_coder"
    # vLLM's name for a parser that reads only each step's delta: its
    # serving layer then passes deltas without joining the text so far, and
    # calls finish_streaming() at the end of the stream (what was held back,
    # a call cut off). prev_tool_call_arr stays empty: every argument is
    # streamed, so vLLM has nothing to append at the end.
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: Optional[_native.Parser] = None

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        parser = _native.Parser(self.format_name, _tools(request), ids="vllm")
        message = parser.parse(model_output).fields()
        calls = [
            ToolCall(id=call["id"], function=FunctionCall(name=call["name"], arguments=call["arguments"]))
            for call in message["tool_calls"]
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=message["content"]
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[DeltaMessage]:
        stream = self._stream
        if stream is None:
            # vLLM makes a parser per request: its first delta starts the stream.
            stream = self._stream = _native.Parser(self.format_name, _tools(request), ids="vllm")
        folded = stream.feed_delta(delta_text)
        if folded is None:
            return None
        if type(folded) is str:
            return DeltaMessage(content=folded)
        return _delta(folded)

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The end of the stream: text held back, a call cut off."""
        if self._stream is None:
            return None
        # The stream is over: a later delta starts another, a second
        # finish has nothing to send.
        stream, self._stream = self._stream, None
        folded = stream.finish_delta()
        if folded is None:
            return None
        if type(folded) is str:
            return DeltaMessage(content=folded)
        return _delta(folded)


def _delta(folded: Any) -> DeltaMessage:
    """A step's message from its folded events (``Parser.feed_delta``). The
    tool call deltas are OpenAI-shaped dicts, which pydantic validates into
    vLLM's DeltaToolCall in one pass (faster than building each model)."""
    content, reasoning, calls = folded
    return DeltaMessage(content=content, reasoning=reasoning, tool_calls=calls)


def _register() -> None:
    for name in formats() + ["auto"]:
        cls = type(
            f"Toolcall_{name}_ToolParser",
            (_ToolcallParser,),
            {"format_name": name, "__module__": __name__},
        )
        ToolParserManager.register_module(f"toolcall_{name}", force=True, module=cls)


_register()
