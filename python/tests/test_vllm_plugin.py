"""The vLLM plugin inside vLLM's own code, without a GPU: loaded through
`ToolParserManager`, composed by `ParserManager.get_parser` as `vllm serve`
composes it, and driven through the `Parser` calls its serving layer makes
(`parse` for a whole output; `parse_delta` per step with `finished=` on the
last, which flushes), on every public conformance case of every format this
crate has. Runs where vLLM's tool parsers import (the venv
`../shared/peers/vllm/setup.sh` makes, with this wheel installed); skipped
elsewhere, but never under CI."""

import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PEER = ROOT.parent / "shared" / "peers" / "vllm"
CONFORMANCE = ROOT / "tests" / "conformance"

try:
    sys.path.insert(0, str(PEER))
    import vllm_boot  # noqa: E402

    vllm_boot.boot()
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager
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


def served_parser(name, req):
    """The per-request `Parser` `vllm serve --enable-auto-tool-choice
    --tool-call-parser toolcall_<name>` makes."""
    cls = ParserManager.get_parser(tool_parser_name=f"toolcall_{name}", enable_auto_tools=True)
    return cls(Tokenizer(), req.tools)


def whole(name, text, tools):
    req = request(tools)
    _, content, calls = served_parser(name, req).parse(text, req, enable_auto_tools=True)
    return content, [{"name": c.name, "arguments": c.arguments} for c in calls or []]


def streamed(name, text, tools, size):
    """The serving layer's loop: `size`-character deltas, `finished` on the
    last (vLLM then calls the plugin's finish_streaming)."""
    req = request(tools)
    parser = served_parser(name, req)
    content, calls = [], {}
    deltas = [text[i:i + size] for i in range(0, len(text), size)] or [""]
    for at, delta in enumerate(deltas):
        # The serving layer passes the prompt's token ids (here none) with each step.
        res = parser.parse_delta(delta, [], req, prompt_token_ids=[], finished=at == len(deltas) - 1)
        if res is None:
            continue
        if res.content:
            content.append(res.content)
        for tc in res.tool_calls:
            slot = calls.setdefault(tc.index, {"name": None, "arguments": ""})
            assert (tc.id is not None) == (slot["name"] is None and tc.function.name is not None)
            if tc.function and tc.function.name:
                slot["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                slot["arguments"] += tc.function.arguments
    return "".join(content) or None, [calls[i] for i in sorted(calls)]


def cases():
    corpus = json.loads((CONFORMANCE / "corpus.json").read_text())
    known = set(formats())
    return [c for c in corpus if c["parser"] in known or c["parser"] == "qwen3_xml"]


def format_of(case):
    return "qwen3_coder" if case["parser"] == "qwen3_xml" else case["parser"]


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_the_plugin_reassembles_to_our_parse(case):
    name, text = format_of(case), case["text"]
    tools = case.get("tools") or None
    ours = parse(name, text, tools, ids="sequential")
    want_calls = [{"name": c.name, "arguments": c.arguments} for c in ours.tool_calls]
    if not tools:
        # A request without tools is tool_choice "none": vLLM still runs a
        # parser that reads only deltas (engine_based_streaming) and drops
        # the calls it finds, as for its own such parsers.
        want_calls = []
    content, calls = whole(name, text, tools)
    assert calls == want_calls
    assert content == ours.content
    for size in (1, 3, 7):
        content, calls = streamed(name, text, tools, size)
        if rejected_unreadable(ours):
            # A stream has announced the unreadable call (it ends incomplete)
            # where the whole output returns it as content: the kept calls
            # are there, in order (docs/events.md).
            assert is_subsequence(want_calls, calls), size
            continue
        assert calls == want_calls, size
        # Layout whitespace around calls may fall on either side of a delta.
        assert (content or "").strip() == (ours.content or "").strip(), size


def rejected_unreadable(message):
    """Whether the whole output returned a call whose arguments could not
    be read as content."""
    return any(d.kind == "rejected_call" for d in message.diagnostics)


def is_subsequence(wanted, got):
    rest = iter(got)
    return all(any(call == other for other in rest) for call in wanted)


def differences(case, content, calls):
    """How a result differs from vLLM's own parser's (the vendored
    expected.json), compared as tests/conformance/main.rs compares: content
    trimmed, call count, names, arguments as JSON values."""
    want = EXPECTED[case["id"]]["nonstream"] or {}  # null: vLLM's parser raised
    diffs = []
    if (content or "").strip() != (want.get("content") or "").strip():
        diffs.append("content")
    want_calls = want.get("tool_calls") or []
    if len(calls) != len(want_calls):
        diffs.append("call count")
    for got, ref in zip(calls, want_calls):
        if got["name"] != ref["name"]:
            diffs.append("name")
        if json.loads(got["arguments"]) != ref["arguments"]:
            diffs.append("arguments")
    return diffs


EXPECTED = {c["id"]: c for c in json.loads((CONFORMANCE / "expected.json").read_text())["cases"]}
# Tencent Hy's markers carry the checkpoint's suffix (`<tool_call:opensource>`);
# the vendored cases were produced with a vocabulary that has none.
UNSUFFIXED_ORACLE = {"hy_v3", "hy_v4"}
LISTED = {d["id"]: d["reason"] for d in json.loads((CONFORMANCE / "divergences.json").read_text())}


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_each_difference_from_vllms_own_parser_is_listed(case):
    """Through vLLM's serving calls, the plugin differs from vLLM's built-in
    parser exactly on the cases divergences.json lists with a reason."""
    if "reasoning" in (EXPECTED[case["id"]]["nonstream"] or {}):
        pytest.skip("reasoning is vLLM's reasoning parser's job, compared in tests/conformance/main.rs")
    name, tools = format_of(case), case.get("tools") or None
    if not tools:
        pytest.skip("no tools: vLLM serves tool_choice none, calling no parser for calls")
    if case["parser"] in UNSUFFIXED_ORACLE:
        pytest.skip("vLLM read these with an unsuffixed vocabulary: compared in tests/conformance/main.rs, "
                    "with the marker suffix set to match")
    # The whole output, as vLLM's non-streaming result it is compared with.
    content, calls = whole(name, case["text"], tools)
    diffs = differences(case, content, calls)
    if case["id"] in LISTED:
        assert diffs, f"listed but agrees with vLLM now: {LISTED[case['id']]}"
    else:
        assert not diffs, f"differs from vLLM's {case['parser']} parser in {diffs}, not listed"
