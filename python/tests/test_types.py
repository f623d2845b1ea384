"""The type stubs and annotations: mypy --strict accepts the package and a
user's script written against it, and rejects a misuse."""

import importlib.util
import os
import subprocess
import sys

import pytest

if importlib.util.find_spec("mypy") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI installs mypy: the stubs must be checked there")
    pytest.skip("mypy is not installed", allow_module_level=True)

USER = '''
from toolcall_stream import ArgumentsDelta, Message, Parser, ToolCallEnd, parse
from toolcall_stream.openai import ChunkStream, Rewriter

parser = Parser("qwen3_coder", ids="sequential")
arguments: str = ""
for event in parser.feed("<tool_call><function=f><parameter=a>1</parameter></function></tool_call>"):
    if isinstance(event, ArgumentsDelta):
        arguments += event.delta
    elif isinstance(event, ToolCallEnd):
        done: bool = event.complete
message: Message = parse("hermes", "hi")
names: list[str] = [call.name for call in message.tool_calls]
body: bytes = ChunkStream("glm47", model="m").feed_sse("hi")
calls: int = Rewriter("qwen3_coder").calls
'''


def mypy(*args):
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *args],
                          capture_output=True, text=True)


def test_mypy_strict_accepts_the_package_and_its_use(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(USER)
    done = mypy("-m", "toolcall_stream", "-m", "toolcall_stream.events", "-m", "toolcall_stream.openai")
    assert done.returncode == 0, done.stdout + done.stderr
    done = mypy(str(script))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_rejects_a_misuse(tmp_path):
    script = tmp_path / "wrong.py"
    script.write_text("from toolcall_stream import parse\nn: int = parse('hermes', 'hi').content\n")
    done = mypy(str(script))
    assert done.returncode != 0 and "incompatible types" in done.stdout.lower(), done.stdout
