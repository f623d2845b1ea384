"""An SGLang tool-call detector plugin: every format of toolcall-stream as an
SGLang ``BaseFormatDetector``, registered as ``toolcall_<format>`` in
``FunctionCallParser.ToolCallParserEnum``.

Installing the package declares it an SGLang general plugin (the
``sglang.srt.plugins`` entry point), which ``sglang serve`` and
``python -m sglang.launch_server`` load before they parse their arguments:

    sglang serve --model-path Qwen/Qwen3-Coder-30B-A3B-Instruct \\
        --tool-call-parser toolcall_qwen3_coder

Streaming feeds only each step's new text to one parser per request (SGLang
makes a detector per request); it never re-reads a buffer. Values are typed
from the request's tools.
"""

from typing import Any, Dict, List, Optional

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from . import _native, formats


def _tools(tools: Any) -> Optional[List[Dict[str, Any]]]:
    if not tools:
        return None
    return [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else t for t in tools]


class _ToolcallDetector(BaseFormatDetector):
    """One format's detector; subclassed per format by :func:`register`."""

    format_name = "qwen3_coder"

    def __init__(self) -> None:
        super().__init__()
        self._stream: Optional[_native.Parser] = None

    def _parse(self, text: str, tools: Any) -> Dict[str, Any]:
        return _native.Parser(self.format_name, _tools(tools), ids="vllm").parse(text).fields()

    def has_tool_call(self, text: str) -> bool:
        # SGLang takes the detector's content only when this says yes: so
        # yes whenever the parse took anything out of the text, a call or
        # markup it dropped. Typing needs no tools to tell.
        message = self._parse(text, None)
        return bool(message["tool_calls"]) or (message.get("content") or "") != text

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        message = self._parse(text, tools)
        calls = [
            ToolCallItem(
                tool_index=index,
                name=call["name"],
                parameters=call["arguments"],
            )
            for index, call in enumerate(message["tool_calls"])
        ]
        return StreamingParseResult(normal_text=message.get("content") or "", calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        if self._stream is None:
            self._stream = _native.Parser(self.format_name, _tools(tools), ids="vllm")
        return self._result(self._stream.feed(new_text))

    def finish(self, tools: Any) -> StreamingParseResult:
        """The end of the stream (SGLang's ``parse_stream_end``): text held
        back, a call cut off."""
        if self._stream is None:
            return StreamingParseResult()
        # The stream is over: a later increment starts another, a second
        # finish has nothing to send.
        stream, self._stream = self._stream, None
        return self._result(stream.finish())

    def _result(self, events: List[Dict[str, Any]]) -> StreamingParseResult:
        content: List[str] = []
        calls: List[ToolCallItem] = []
        for event in events:
            kind = event["type"]
            if kind == "content":
                content.append(event["text"])
            elif kind == "tool_call_start":
                # The name once, in the call's first item, as SGLang's own
                # detectors send it: the serving layer gives that chunk the id.
                index = event["index"]
                calls.append(ToolCallItem(tool_index=index, name=event["name"], parameters=""))
            elif kind == "arguments_delta":
                # SGLang sends a chunk per item: a call's fragments of one
                # step go out as one.
                index, delta = event["index"], event["delta"]
                if calls and calls[-1].tool_index == index:
                    calls[-1].parameters += delta
                else:
                    calls.append(ToolCallItem(tool_index=index, parameters=delta))
        # prev_tool_call_arr stays empty: SGLang's serving layer would append
        # the arguments it says were not streamed, and ours streams them all.
        return StreamingParseResult(normal_text="".join(content), calls=calls)

    def supports_structural_tag(self) -> bool:
        # The formats' markup lives in the Rust library: no structural tag,
        # so tool_choice "required" or a named tool takes SGLang's JSON path.
        return False

    def structure_info(self) -> Any:
        raise NotImplementedError("toolcall-stream detectors give no structural tag")


def register() -> None:
    """Adds every format (and ``auto``) to SGLang's parser map as
    ``toolcall_<format>``; the ``sglang.srt.plugins`` entry point."""
    for name in formats() + ["auto"]:
        cls = type(
            f"Toolcall_{name}_Detector",
            (_ToolcallDetector,),
            {"format_name": name, "__module__": __name__},
        )
        FunctionCallParser.ToolCallParserEnum[f"toolcall_{name}"] = cls


register()
