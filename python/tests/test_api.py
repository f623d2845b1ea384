"""The Python API over the crate's parser: events, messages, options,
errors, and the same events at every split as the Rust parser gives."""

import doctest
import json
import pathlib
import subprocess

import pytest

import toolcall_stream
from toolcall_stream import Event, Parser, format_for_model, formats, parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def test_the_docstrings_examples_run():
    failures, tried = doctest.testmod(toolcall_stream, optionflags=doctest.ELLIPSIS)
    assert tried > 5
    assert failures == 0


def test_a_call_streams_and_ends():
    parser = Parser("qwen3_coder", ids="sequential")
    events = parser.feed("Sure.<tool_call>\n<function=get_weather>\n<parameter=city>\nPar")
    assert parser.partial_call() == {
        "index": 0,
        "id": "call_0",
        "name": "get_weather",
        "arguments": '{"city": "Par"}',
    }
    events += parser.feed("is\n</parameter>\n</function>\n</tool_call>")
    events += parser.finish()
    assert events[0] == Event({"type": "content", "text": "Sure."})
    end = events[-1]
    assert end.type == "tool_call_end"
    assert json.loads(end.arguments) == {"city": "Paris"}
    assert end.complete is True
    assert "".join(e.delta for e in events if e.type == "arguments_delta") == end.arguments


def test_typed_values_come_from_the_tools():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}}}}]
    text = "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>"
    for given in (tools, json.dumps(tools)):
        message = parse("qwen3_coder", text, tools=given)
        assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"n": 3}
    events = Parser("qwen3_coder", tools).feed(text)
    assert [e.value for e in events if e.type == "parameter_end"] == [3]


def test_bytes_may_split_a_character():
    parser = Parser("qwen3_coder")
    data = "Ação".encode()
    events = parser.feed(data[:2]) + parser.feed(data[2:]) + parser.finish()
    assert "".join(e.text for e in events if e.type == "content") == "Ação"


def test_errors_are_value_errors_with_the_librarys_message():
    with pytest.raises(ValueError, match="unknown format \"qwen9\"; known formats: qwen3_coder"):
        Parser("qwen9")
    with pytest.raises(ValueError, match="reasoning"):
        Parser("hermes", reasoning="sometimes")
    with pytest.raises(ValueError):
        Parser("hermes", tools="not json")
    with pytest.raises(TypeError):
        Parser().feed(3)
    with pytest.raises(ValueError):
        format_for_model("my-model")
    assert format_for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct") == "qwen3_coder"
    assert "kimi_k3" in formats()


def test_a_rust_panic_is_a_python_exception_not_an_abort():
    with pytest.raises(BaseException, match="on purpose") as raised:
        toolcall_stream._native._panic_for_tests()
    assert type(raised.value).__name__ == "PanicException"
    # The interpreter goes on.
    assert parse("hermes", "hi")["content"] == "hi"


def rust_events(fmt, path, size):
    """What `toolcall stream` prints for a fixture fed in `size`-byte chunks."""
    out = subprocess.run(
        [str(ROOT / "target" / "debug" / "toolcall"), "stream", "--format", fmt,
         "--sequential-ids", "--chunk-size", str(size), str(path)],
        check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm47", "hermes", "kimi_k3", "step3"])
def test_events_equal_the_rust_parsers_on_every_fixture(fmt):
    if not (ROOT / "target" / "debug" / "toolcall").exists():
        pytest.skip("build the CLI first (cargo build -p toolcall-cli)")
    checked = 0
    for path in sorted((FIXTURES / fmt).glob("*.txt")):
        if path.stem.count(".") or (path.with_suffix("").name + ".tools.json") in {
                p.name for p in path.parent.iterdir()}:
            continue  # fixtures run with other options or tools
        data = path.read_bytes()
        for size in (1, 5, 1 << 20):
            parser = Parser(fmt, ids="sequential")
            events = []
            for at in range(0, len(data), size):
                events += [e.to_dict() for e in parser.feed(data[at:at + size])]
            events += [e.to_dict() for e in parser.finish()]
            assert events == rust_events(fmt, path, size), f"{path.name} at {size}"
        checked += 1
    assert checked > 10
