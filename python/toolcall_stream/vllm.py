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
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
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

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: Optional[_native.Parser] = None

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        parser = _native.Parser(self.format_name, _tools(request), ids="random")
        message = parser.parse(model_output).fields()
        calls = [
            ToolCall(id=call["id"], function=FunctionCall(name=call["name"], arguments=call["arguments"]))
            for call in message["tool_calls"]
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=message.get("content")
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
        # vLLM makes a parser per request: its first delta starts the stream.
        if self._stream is None:
            self._stream = _native.Parser(self.format_name, _tools(request), ids="random")
        return self._delta(self._stream.feed(delta_text))

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The end of the stream: text held back, a call cut off."""
        if self._stream is None:
            return None
        return self._delta(self._stream.finish())

    def _delta(self, events: List[Dict[str, Any]]) -> Optional[DeltaMessage]:
        content: List[str] = []
        calls: Dict[int, Any] = {}
        for event in events:
            kind = event["type"]
            if kind == "content":
                content.append(event["text"])
            elif kind == "tool_call_start":
                index = event["index"]
                calls[index] = DeltaToolCall(
                    index=index,
                    id=event["id"],
                    type="function",
                    function=DeltaFunctionCall(name=event["name"], arguments=""),
                )
                # What vLLM's serving layer reads to append arguments a
                # parser did not stream: ours streams them all.
                self.prev_tool_call_arr.append({"name": event["name"], "arguments": ""})
                self.streamed_args_for_tool.append("")
            elif kind == "arguments_delta":
                index, delta = event["index"], event["delta"]
                call = calls.get(index)
                if call is None:
                    call = calls[index] = DeltaToolCall(
                        index=index, function=DeltaFunctionCall(arguments="")
                    )
                call.function.arguments += delta
                self.prev_tool_call_arr[index]["arguments"] += delta
                self.streamed_args_for_tool[index] += delta
        if not content and not calls:
            return None
        return DeltaMessage(
            content="".join(content) or None, tool_calls=[calls[i] for i in sorted(calls)]
        )


def _register() -> None:
    for name in formats() + ["auto"]:
        cls = type(
            f"Toolcall_{name}_ToolParser",
            (_ToolcallParser,),
            {"format_name": name, "__module__": __name__},
        )
        ToolParserManager.register_module(f"toolcall_{name}", force=True, module=cls)


_register()
