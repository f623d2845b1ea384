"""The SGLang plugin inside SGLang's own code, without a GPU: looked up by
name in `FunctionCallParser`'s map and driven as SGLang's serving layer
drives it (`parse_non_stream`; `parse_stream_chunk` then `parse_stream_end`),
on every public conformance case of every format this crate has. Runs where
SGLang's function-call parsers import (`pip install --no-deps sglang` and
`python/requirements-sglang.txt`, see `sglang_boot.py`); skipped elsewhere."""

import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

try:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import sglang_boot  # noqa: E402

    sglang_boot.boot()
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    import toolcall_stream.sglang  # noqa: F401  (registers the detectors)
except Exception as e:  # noqa: BLE001
    if os.environ.get("CI"):
        raise  # CI installs SGLang: the plugin must be proven there
    pytest.skip(f"SGLang's function-call parsers do not import here: {e}", allow_module_level=True)

from toolcall_stream import formats, parse  # noqa: E402


def parser(name, tools):
    """As the serving layer makes one per request: its tools, the name."""
    return FunctionCallParser([Tool(**t) for t in tools or []], f"toolcall_{name}")


def streamed(name, text, tools, size):
    """The serving layer's loop: `size`-character chunks, then the flush."""
    p = parser(name, tools)
    results = [p.parse_stream_chunk(text[i:i + size]) for i in range(0, len(text), size)]
    results.append(p.parse_stream_end())
    content, calls = [], {}
    for normal, items in results:
        content.append(normal)
        for item in items:
            slot = calls.setdefault(item.tool_index, {"name": None, "arguments": ""})
            if item.name:
                assert slot["name"] is None, "a call's name comes once"
                slot["name"] = item.name
            slot["arguments"] += item.parameters
    return "".join(content), [calls[i] for i in sorted(calls)]


def cases():
    corpus = json.loads((ROOT / "tests" / "conformance" / "corpus.json").read_text())
    known = set(formats())
    return [c for c in corpus if c["parser"] in known or c["parser"] == "qwen3_xml"]


def test_every_format_is_registered():
    for name in formats() + ["auto"]:
        assert f"toolcall_{name}" in FunctionCallParser.ToolCallParserEnum


def test_sglang_finds_the_plugin_entry_point():
    """`sglang serve` runs its general plugins before parsing its arguments,
    whose --tool-call-parser choices are then this map's names."""
    from importlib.metadata import entry_points

    from sglang.srt.plugins import GENERAL_PLUGINS_GROUP

    (ep,) = [e for e in entry_points(group=GENERAL_PLUGINS_GROUP) if e.name == "toolcall_stream"]
    assert ep.load() is toolcall_stream.sglang.register


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_the_plugin_reassembles_to_our_parse(case):
    name = "qwen3_coder" if case["parser"] == "qwen3_xml" else case["parser"]
    text, tools = case["text"], case.get("tools") or None
    if not tools:
        # SGLang runs no detector for a request without tools (ours says so:
        # parses_without_tools is False), and leaves the text as content.
        assert parser(name, tools).parse_non_stream(text) == (text, [])
        assert parser(name, tools).parse_stream_chunk(text) == (text, [])
        return
    ours = parse(name, text, tools, ids="sequential")
    want_calls = [{"name": c.name, "arguments": c.arguments} for c in ours.tool_calls]
    normal, items = parser(name, tools).parse_non_stream(text)
    assert [{"name": c.name, "arguments": c.parameters} for c in items] == want_calls
    assert (normal or None) == ours.content
    for size in (1, 3, 7):
        content, calls = streamed(name, text, tools, size)
        if any(d.kind == "rejected_call" for d in ours.diagnostics):
            # A stream has announced the unreadable call (it ends incomplete)
            # where the whole output returns it as content: the kept calls
            # are there, in order (docs/events.md).
            rest = iter(calls)
            assert all(any(call == other for other in rest) for call in want_calls), size
            continue
        assert calls == want_calls, size
        # Layout whitespace around calls may fall on either side of a chunk.
        assert content.strip() == (ours.content or "").strip(), size
