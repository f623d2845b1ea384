"""The Python API over the crate's parser: events, messages, options,
errors, and the same events at every split as the Rust parser gives."""

import contextlib
import doctest
import io
import json
import pathlib
import re
import subprocess
import sys
import types

import pytest

import toolcall_stream
from toolcall_stream import (
    ArgumentsDelta,
    Content,
    Event,
    Message,
    ParameterEnd,
    Parser,
    Span,
    StreamFinishedError,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
    format_for_model,
    formats,
    parse,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def test_the_docstrings_examples_run():
    import toolcall_stream._openai
    import toolcall_stream._parser
    import toolcall_stream.events
    import toolcall_stream.openai

    # The public modules' docstrings, and their classes' in the private
    # modules that define them.
    for module in (toolcall_stream, toolcall_stream.events, toolcall_stream.openai,
                   toolcall_stream._parser, toolcall_stream._openai):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tried > 3, module
        assert failures == 0, module


def test_the_python_docs_examples_run():
    failures, tried = doctest.testfile(str(ROOT / "docs" / "python.md"), module_relative=False)
    assert tried > 10
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
    assert events[0] == Content("Sure.")
    assert events[1] == ToolCallStart(index=0, id="call_0", name="get_weather")
    end = events[-1]
    assert isinstance(end, ToolCallEnd) and end.type == "tool_call_end"
    assert json.loads(end.arguments) == {"city": "Paris"}
    assert end.complete is True
    assert "".join(e.delta for e in events if isinstance(e, ArgumentsDelta)) == end.arguments
    # Every event's dict is its JSON form, and reads back as the same event.
    for event in events:
        assert Event.from_dict(event.to_dict()) == event
        assert json.loads(json.dumps(event.to_dict())) == event.to_dict()


def test_events_are_frozen_and_print_their_fields():
    event = ParameterEnd(index=0, name="n", value=3)
    assert repr(event) == "ParameterEnd(index=0, name='n')"
    assert event.to_dict() == {"type": "parameter_end", "index": 0, "name": "n", "value": 3}
    assert not ParameterEnd(index=0, name="n").has_value
    assert "value" not in ParameterEnd(index=0, name="n").to_dict()
    with pytest.raises(Exception):
        event.index = 1  # type: ignore[misc]
    with pytest.raises(ValueError, match="not an event"):
        Event.from_dict({"type": "nope"})


def test_a_message_has_typed_calls_and_diagnostics():
    text = "On it.\n<tool_call>\n<function=ls>\n<parameter=path>\n/tmp\n</parameter>\n"
    message = parse("qwen3_coder", text, ids="sequential")
    assert isinstance(message, Message)
    assert message.content == "On it.\n"
    (call,) = message.tool_calls
    assert call == ToolCall(index=0, id="call_0", name="ls", arguments='{"path": "/tmp"}',
                            complete=False)
    assert call.args == {"path": "/tmp"}
    (diagnostic,) = message.diagnostics
    assert diagnostic.kind == "truncated" and diagnostic.index == 0
    assert isinstance(diagnostic.span, Span) and diagnostic.span.end == len(text)
    # The crate's JSON form, as `toolcall parse` prints it.
    form = message.to_dict()
    assert form["tool_calls"] == [call.to_dict()]
    assert form["diagnostics"][0]["kind"] == "truncated"
    # And OpenAI's chat.completion: a cut-off call still ends as `stop`
    # unless the model was cut off.
    completion = message.to_chat_completion("qwen3", id="chatcmpl-1", created=7)
    assert completion["id"] == "chatcmpl-1" and completion["created"] == 7
    assert completion["object"] == "chat.completion"
    choice = completion["choices"][0]
    assert choice["message"]["content"] == "On it."
    assert choice["finish_reason"] == "stop"
    assert message.to_chat_completion(cut_off=True)["choices"][0]["finish_reason"] == "length"


def test_bytes_may_split_a_character():
    parser = Parser("qwen3_coder")
    data = "Ação".encode()
    events = parser.feed(data[:2]) + parser.feed(data[2:]) + parser.finish()
    assert "".join(e.text for e in events if e.type == "content") == "Ação"


def test_the_foreign_format_watch_can_be_turned_off():
    # A Hermes call under Qwen3-Coder stays content either way.
    text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    watched = Parser("qwen3_coder").parse(text)
    assert [d.kind for d in watched.diagnostics] == ["foreign_format"]
    unwatched = Parser("qwen3_coder", watch_foreign_formats=False).parse(text)
    assert unwatched.diagnostics == []
    assert watched.content == unwatched.content == text


def test_errors_are_value_errors_with_the_librarys_message():
    with pytest.raises(ValueError, match="unknown format \"qwen9\"; known formats: qwen3_coder"):
        Parser("qwen9")
    with pytest.raises(ValueError, match="reasoning"):
        Parser("hermes", reasoning="sometimes")
    with pytest.raises(ValueError):
        Parser("hermes", tools="not json")
    with pytest.raises(TypeError):
        Parser().feed(3)
    with pytest.raises(TypeError, match="unexpected keyword argument \"strikt\""):
        Parser(strikt=True)
    with pytest.raises(ValueError):
        format_for_model("my-model")
    assert format_for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct") == "qwen3_coder"
    assert "kimi_k3" in formats()


def test_constraint_is_the_grammar_of_a_formats_calls():
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}}]
    grammar = toolcall_stream.constraint("glm47", tools)
    assert grammar.startswith("%llguidance {}")
    assert '"get_weather"' in grammar and '"<arg_key>city</arg_key>"' in grammar
    # The parameters in the order the dicts declare them.
    assert grammar.index("<arg_key>city") < grammar.index("<arg_key>days")
    lazy = toolcall_stream.constraint("hermes", json.dumps(tools), mode="lazy", reasoning=True)
    assert 'before[lazy]' in lazy and '"<think>"?' in lazy
    one = toolcall_stream.constraint("qwen3_coder", tools, mode="named:get_weather")
    assert "call_rest: \"\\n\"? func \"\\n\"?" in one
    with pytest.raises(ValueError, match="not among the request's tools"):
        toolcall_stream.constraint("qwen3_coder", tools, mode="named:nope")
    # No value satisfies `mode`: required calls would have no way to end.
    stuck = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"mode": {"enum": []}}, "required": ["mode"]}}}]
    with pytest.raises(ValueError, match="no way to stop"):
        toolcall_stream.constraint("hermes", stuck)
    with pytest.raises(ValueError, match="expected"):
        toolcall_stream.constraint("hermes", tools, mode="sometimes")
    tag = json.loads(toolcall_stream.constraint("glm47", tools, dialect="structural-tag"))
    assert tag["type"] == "structural_tag"
    gbnf = toolcall_stream.constraint("glm47", tools, dialect="gbnf")
    assert gbnf.startswith("root ::= ") and '"<arg_key>city</arg_key>"' in gbnf
    with pytest.raises(ValueError, match="dialect"):
        toolcall_stream.constraint("glm47", tools, dialect="ebnf")


def test_a_rust_panic_is_a_python_exception_not_an_abort():
    with pytest.raises(BaseException, match="on purpose") as raised:
        toolcall_stream._native._panic_for_tests()
    assert type(raised.value).__name__ == "PanicException"
    # The interpreter goes on.
    assert parse("hermes", "hi").content == "hi"


def fixtures():
    """Every fixture, with the options its name asks for (as the Rust
    tests read them): `.vllm`, `.hold`, `.strict`, `NAME.tools.json`."""
    known = set(formats())
    out = []
    for path in sorted(FIXTURES.glob("*/*.txt")):
        fmt = path.parent.name
        if fmt not in known:
            continue
        name = path.stem
        options, flags = {}, []
        if name.endswith(".vllm"):
            options["value_termination"] = "vllm"
            flags += ["--value-termination", "vllm"]
        if name.endswith(".hold"):
            options["hold_text_after_wrapper"] = True
            flags.append("--hold-text-after-wrapper")
        if name.endswith(".strict"):
            options["strict"] = True
            flags.append("--strict")
        tools = path.with_name(name + ".tools.json")
        if tools.exists():
            options["tools"] = tools.read_text()
            flags += ["--tools", str(tools)]
        out.append(pytest.param(fmt, path, options, flags, id=f"{fmt}/{name}"))
    return out


def rust_events(fmt, path, size, flags):
    """What `toolcall stream` prints for a fixture fed in `size`-byte chunks."""
    out = subprocess.run(
        [str(ROOT / "target" / "debug" / "toolcall"), "stream", "--format", fmt,
         "--sequential-ids", "--chunk-size", str(size), *flags, str(path)],
        check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("fmt,path,options,flags", fixtures())
def test_events_equal_the_rust_parsers_on_every_fixture(fmt, path, options, flags):
    if not (ROOT / "target" / "debug" / "toolcall").exists():
        pytest.skip("build the CLI first (cargo build -p toolcall-cli)")
    data = path.read_bytes()
    tools = options.pop("tools", None)
    for size in (1, 7, 1 << 20):
        parser = Parser(fmt, tools, ids="sequential", **options)
        events = []
        for at in range(0, len(data), size):
            events += [e.to_dict() for e in parser.feed(data[at:at + size])]
        events += [e.to_dict() for e in parser.finish()]
        assert events == rust_events(fmt, path, size, flags), f"{path.name} at {size}"


def test_feeding_or_finishing_a_finished_stream_raises_until_reset():
    parser = Parser("qwen3_coder", ids="sequential")
    parser.feed("<tool_call>\n<function=ls>\n")
    assert ToolCallEnd(index=0, arguments="{}", complete=False) in parser.finish()
    for again in (lambda: parser.feed("more text"), lambda: parser.feed(b"more"), parser.finish):
        with pytest.raises(StreamFinishedError, match=r"finished: call reset\(\)"):
            again()
    # A ValueError too, as the OpenAI layer's finished stream raises.
    assert issubclass(StreamFinishedError, ValueError)
    assert StreamFinishedError.__module__ == "toolcall_stream"
    # The plugins' folded forms follow the same rule.
    native = parser._native
    with pytest.raises(StreamFinishedError):
        native.feed_delta("x")
    with pytest.raises(StreamFinishedError):
        native.finish_delta()
    # reset starts the next response, which streams as a first one does.
    parser.reset()
    assert parser.feed("<tool_call>\n<function=ls>\n")[0] == ToolCallStart(index=0, id="call_0",
                                                                           name="ls")
    assert parser.finish()[-1].type == "tool_call_end"
    # parse reads a whole output, which leaves the stream finished too.
    assert parser.parse("hi").content == "hi"
    with pytest.raises(StreamFinishedError):
        parser.feed("hi")
    parser.reset()
    assert parser.feed("hi") == [Content("hi")]


def test_the_version_is_the_packages():
    version = re.search(r'^version = "(.+)"', (ROOT / "python" / "Cargo.toml").read_text(), re.M)
    assert toolcall_stream.__version__ == version.group(1)
    from importlib.metadata import version as installed
    assert installed("toolcall-stream") == toolcall_stream.__version__


def test_the_modules_export_only_their_api():
    import toolcall_stream.events
    import toolcall_stream.openai

    for module in (toolcall_stream, toolcall_stream.events, toolcall_stream.openai):
        public = {name for name, value in vars(module).items()
                  if not name.startswith("_") and not isinstance(value, types.ModuleType)}
        assert public == set(module.__all__), module.__name__
        star: dict = {}
        exec(f"from {module.__name__} import *", star)
        assert set(star) - {"__builtins__"} == set(module.__all__), module.__name__
        for name in ("Any", "Dict", "List", "Optional", "Union", "json", "warnings"):
            assert name not in module.__all__ and not hasattr(module, name), (module, name)


def python_blocks(markdown):
    """The ```python blocks of a Markdown file that are not doctests."""
    blocks = re.findall(r"^```python\n(.*?)^```", markdown, re.M | re.S)
    return [b for b in blocks if not b.startswith(">>>")]


def test_the_readmes_python_example_runs_as_written():
    (example,) = python_blocks((ROOT / "README.md").read_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {"__name__": "__readme__"})
    lines = out.getvalue().splitlines()
    assert lines[0] == "calling get_weather", lines
    assert lines[-1] == '0 done: {"city": "Paris", "days": 3}', lines
    assert "".join(line[2:] for line in lines[1:-1]) == '{"city": "Paris", "days": 3}', lines
