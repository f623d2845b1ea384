"""The OpenAI layer from Python: chunks and server-sent events equal to
what `toolcall stream --openai` writes, the Rewriter over an upstream's
chunks (dicts and SSE alike), and whole completions."""

import json
import pathlib
import subprocess
import warnings

import pytest

from toolcall_stream import Diagnostic, StreamFinishedError, parse
from toolcall_stream.openai import ChunkStream, Rewriter, rewrite_completion

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CLI = ROOT / "target" / "debug" / "toolcall"


def sse_data(body):
    """The `data:` payloads of a server-sent-event body."""
    text = body.decode() if isinstance(body, bytes) else body
    return [line[len("data: "):] for line in text.split("\n") if line.startswith("data: ")]


def without_meta(chunk):
    """A chunk without the response's random id and time."""
    return {k: v for k, v in chunk.items() if k not in ("id", "created")}


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm47", "hermes", "openai", "kimi_k2"])
def test_chunks_equal_the_clis_on_every_fixture(fmt):
    if not CLI.exists():
        pytest.skip("build the CLI first (cargo build -p toolcall-cli)")
    checked = 0
    for path in sorted((FIXTURES / fmt).glob("*.txt")):
        if "." in path.stem or path.with_name(path.stem + ".tools.json").exists():
            continue  # fixtures run with other options, seen in test_api
        data = path.read_bytes()
        cli = subprocess.run(
            [str(CLI), "stream", "--openai", "--format", fmt, "--sequential-ids", "--model", "m",
             "--chunk-size", "5", str(path)],
            check=True, capture_output=True,
        ).stdout
        want = sse_data(cli)
        stream = ChunkStream(fmt, model="m", ids="sequential")
        sse = ChunkStream(fmt, model="m", ids="sequential")
        chunks, body = [], b""
        for at in range(0, len(data), 5):
            chunks += stream.feed(data[at:at + 5])
            body += sse.feed_sse(data[at:at + 5])
        chunks += stream.finish()
        body += sse.finish_sse()
        assert want[-1] == "[DONE]" and sse_data(body)[-1] == "[DONE]"
        assert [without_meta(c) for c in chunks] == [without_meta(json.loads(d)) for d in want[:-1]]
        assert [without_meta(json.loads(d)) for d in sse_data(body)[:-1]] == \
            [without_meta(c) for c in chunks]
        checked += 1
    assert checked > 5


def test_a_finished_stream_says_so_and_diagnostics_are_taken():
    stream = ChunkStream("qwen3_coder", model="m", id="chatcmpl-x", created=5)
    stream.feed("<tool_call>\n<function=ls>\n")
    (last,) = stream.finish(cut_off=True)
    assert last["id"] == "chatcmpl-x" and last["created"] == 5
    assert last["choices"][0]["finish_reason"] == "length"
    (diagnostic,) = stream.take_diagnostics()
    assert isinstance(diagnostic, Diagnostic) and diagnostic.kind == "truncated"
    assert diagnostic.index == 0 and diagnostic.message
    assert diagnostic.span.end == len("<tool_call>\n<function=ls>\n")
    assert stream.take_diagnostics() == []
    with pytest.raises(StreamFinishedError, match="finished: make a new ChunkStream"):
        stream.feed("more")
    with pytest.raises(StreamFinishedError):
        stream.finish()


def upstream(text, finish=None, index=0):
    return {"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "system_fingerprint": "fp", "choices": [
                {"index": index, "delta": {"content": text}, "finish_reason": finish}]}


def reassemble(chunks):
    content, calls, finish = "", {}, None
    for chunk in chunks:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(tc["index"], {"name": None, "arguments": ""})
                slot["name"] = tc.get("function", {}).get("name") or slot["name"]
                slot["arguments"] += tc.get("function", {}).get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return content, [calls[i] for i in sorted(calls)], finish


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_the_rewriter_fixes_an_upstreams_chunks_as_dicts_and_as_sse(size):
    text = (FIXTURES / "qwen3_coder" / "content_around_calls.txt").read_text()
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    ups = [upstream(p) for p in pieces] + [upstream("", "stop")]
    as_dicts, as_sse = Rewriter("qwen3_coder"), Rewriter("qwen3_coder")
    out, body = [], b""
    for up in ups:
        out += as_dicts.push(up)
        body += as_sse.push_sse(json.dumps(up).encode())
    out += as_dicts.finish()
    body += as_sse.push_sse("[DONE]")
    assert sse_data(body)[-1] == "[DONE]"
    from_sse = [json.loads(d) for d in sse_data(body)[:-1]]
    want = parse("qwen3_coder", text)
    for chunks in (out, from_sse):
        content, calls, finish = reassemble(chunks)
        assert calls == [{"name": c.name, "arguments": c.arguments} for c in want.tool_calls]
        # Without the layout whitespace next to calls, as a completion has it.
        assert content == want.to_chat_completion()["choices"][0]["message"]["content"]
        assert finish == "tool_calls"
        assert all(c["id"] == "chatcmpl-up" and c.get("system_fingerprint") == "fp" for c in chunks)
    assert as_dicts.calls == as_sse.calls == len(want.tool_calls)


def test_the_rewriter_passes_errors_and_reports_cuts():
    rewriter = Rewriter("qwen3_coder", incomplete_calls_as_content=True)
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    assert rewriter.push(error) == [error]
    assert sse_data(rewriter.push_sse(json.dumps(error))) == [json.dumps(error)]
    # The call is held until it ends (incomplete_calls_as_content).
    out = rewriter.push(upstream("On it.\n<tool_call>\n<function=ls>\n"))
    assert reassemble(out)[1] == []
    out += rewriter.finish_cut()
    content, calls, finish = reassemble(out)
    assert finish == "length" and calls == []
    assert content.startswith("On it.") and "<function=ls>" in content
    assert rewriter.calls == 0
    taken = rewriter.take_diagnostics()
    assert all(isinstance(d, Diagnostic) for d in taken)
    (truncated,) = [d for d in taken if d.kind == "truncated"]
    assert "`ls`" in truncated.message  # the call went out as content: no index
    text = "On it.\n<tool_call>\n<function=ls>\n"
    assert truncated.span.end == len(text), truncated
    assert rewriter.take_diagnostics() == []
    with pytest.raises(ValueError, match="chat.completion.chunk"):
        Rewriter().push({"choices": "no"})
    with pytest.raises(ValueError):
        Rewriter().push_sse(b"{not json")


def test_a_whole_completion_is_rewritten():
    text = "Sure.\n<tool_call>\n<function=ls>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>"
    completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                  "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": text}}]}
    for given in (completion, json.dumps(completion)):
        out = rewrite_completion("qwen3_coder", given)
        choice = out["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert choice["message"]["content"] == "Sure."
        assert choice["message"]["tool_calls"][0]["function"] == {"name": "ls",
                                                                  "arguments": '{"path": "/"}'}
        assert out["usage"] == completion["usage"]
    with pytest.raises(ValueError, match="chat.completion"):
        rewrite_completion("qwen3_coder", {"nope": 1})


def test_rewrite_completion_takes_the_format_first_and_warns_on_the_old_order():
    text = "<tool_call>\n<function=ls>\n</function>\n</tool_call>"
    completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": text}}]}
    hermes = {**completion, "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": '<tool_call>{"name": "ls", "arguments": {}}</tool_call>'}}]}

    def name(out):
        return out["choices"][0]["message"]["tool_calls"][0]["function"]["name"]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the format-first forms warn of nothing
        assert name(rewrite_completion("qwen3_coder", completion)) == "ls"
        assert name(rewrite_completion("hermes", json.dumps(hermes), None)) == "ls"
        assert name(rewrite_completion(format="hermes", completion=hermes)) == "ls"
        assert name(rewrite_completion("qwen3_coder", completion=completion, ids="sequential")) == "ls"
    # The completion first still works, with the format it names.
    for call in (lambda: rewrite_completion(hermes, format="hermes"),
                 lambda: rewrite_completion(json.dumps(hermes), "hermes"),
                 lambda: rewrite_completion(json.dumps(hermes).encode(), "hermes", None),
                 lambda: rewrite_completion(completion)):  # qwen3_coder when not given
        with pytest.warns(DeprecationWarning, match="format first"):
            assert name(call()) == "ls"
    with pytest.raises(TypeError, match="missing its completion"):
        rewrite_completion("hermes")
    with pytest.raises(TypeError, match="twice"), pytest.warns(DeprecationWarning):
        rewrite_completion(completion, "hermes", format="hermes")
