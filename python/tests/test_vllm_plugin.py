"""The vLLM plugin inside vLLM's own code, without a GPU: loaded through
`ToolParserManager` and driven as the serving layer drives a parser, on
every public conformance case of every format this crate has. Runs where
vLLM's tool parsers import (the venv `../shared/peers/vllm/setup.sh`
makes, with this wheel installed); skipped elsewhere."""

import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PEER = ROOT.parent / "shared" / "peers" / "vllm"

try:
    sys.path.insert(0, str(PEER))
    import vllm_boot  # noqa: E402

    vllm_boot.boot()
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager

    import toolcall_stream.vllm  # noqa: F401  (registers the parsers)
except Exception as e:  # noqa: BLE001
    if os.environ.get("CI"):
        raise  # CI installs vLLM: the plugin must be proven there
    pytest.skip(f"vLLM's tool parsers do not import here: {e}", allow_module_level=True)

from toolcall_stream import formats, parse  # noqa: E402


class Tokenizer:
    """The parsers read nothing of the tokenizer but its vocabulary."""

    def get_vocab(self):
        return {}


def request(tools):
    kw = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    if tools:
        kw["tools"] = tools
    return ChatCompletionRequest(**kw)


def streamed(name, text, tools, size):
    """The serving layer's loop: `size`-character deltas, then the flush."""
    req = request(tools)
    parser = ToolParserManager.get_tool_parser(f"toolcall_{name}")(Tokenizer(), req.tools)
    content, calls, prev = [], {}, ""
    deltas = [text[i:i + size] for i in range(0, len(text), size)]
    results = []
    for delta in deltas:
        cur = prev + delta
        results.append(parser.extract_tool_calls_streaming(prev, cur, delta, [], [], [], req))
        prev = cur
    results.append(parser.finish_streaming())
    for res in results:
        if res is None:
            continue
        if res.content:
            content.append(res.content)
        for tc in res.tool_calls:
            slot = calls.setdefault(tc.index, {"name": None, "arguments": ""})
            if tc.function and tc.function.name:
                slot["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                slot["arguments"] += tc.function.arguments
    return "".join(content) or None, [calls[i] for i in sorted(calls)]


def cases():
    corpus = json.loads((ROOT / "tests" / "conformance" / "corpus.json").read_text())
    known = set(formats())
    return [c for c in corpus if c["parser"] in known or c["parser"] == "qwen3_xml"]


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_the_plugin_reassembles_to_our_parse(case):
    name = "qwen3_coder" if case["parser"] == "qwen3_xml" else case["parser"]
    tools = case.get("tools") or None
    ours = parse(name, case["text"], tools, ids="sequential")
    want_calls = [{"name": c.name, "arguments": c.arguments} for c in ours.tool_calls]
    whole = ToolParserManager.get_tool_parser(f"toolcall_{name}")(Tokenizer(), None)
    info = whole.extract_tool_calls(case["text"], request(tools))
    assert [{"name": c.function.name, "arguments": c.function.arguments}
            for c in info.tool_calls] == want_calls
    assert info.content == ours.content
    for size in (1, 3, 7):
        content, calls = streamed(name, case["text"], tools, size)
        assert calls == want_calls, size
        # Layout whitespace around calls may fall on either side of a delta.
        assert (content or "").strip() == (ours.content or "").strip(), size
