"""The type stubs and annotations: mypy --strict accepts the package and a
user's script written against it, and rejects a misuse."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

if importlib.util.find_spec("mypy") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI installs mypy: the stubs must be checked there")
    pytest.skip("mypy is not installed", allow_module_level=True)

USER = pathlib.Path(__file__).with_name("typed_usage.py")


def mypy(*args):
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *args],
                          capture_output=True, text=True)


def test_mypy_strict_accepts_the_package_and_its_use():
    done = mypy("-m", "toolcall_stream", "-m", "toolcall_stream.events", "-m", "toolcall_stream.openai")
    assert done.returncode == 0, done.stdout + done.stderr
    done = mypy(str(USER))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_typed_script_runs():
    done = subprocess.run([sys.executable, "-W", "error", str(USER)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_rejects_a_misuse(tmp_path):
    script = tmp_path / "wrong.py"
    script.write_text("from toolcall_stream import parse\nn: int = parse('hermes', 'hi').content\n")
    done = mypy(str(script))
    assert done.returncode != 0 and "incompatible types" in done.stdout.lower(), done.stdout


def test_mypy_rejects_the_old_diagnostics_and_a_missing_completion(tmp_path):
    script = tmp_path / "wrong.py"
    script.write_text(
        "from toolcall_stream.openai import Rewriter, rewrite_completion\n"
        "kinds: list[str] = Rewriter('hermes').take_diagnostics()\n"
        "rewrite_completion('hermes')\n"
    )
    done = mypy(str(script))
    assert done.returncode != 0, done.stdout
    assert "wrong.py:2: error" in done.stdout and "wrong.py:3: error" in done.stdout, done.stdout
