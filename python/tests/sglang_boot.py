"""Import SGLang's tool-call parsers without torch, numpy or a GPU.

The installed `sglang` wheel (installed with ``--no-deps``, plus
`python/requirements-sglang.txt`) is used as-is; only import-time
machinery the parsers never run is kept out, the way
``../shared/peers/vllm/vllm_boot.py`` does it for vLLM:

* ``sglang/__init__.py`` (the frontend language, transformers patches) is
  bypassed by a bare package whose ``__path__`` is the installed directory;
* the modules in STUBS, when not installed, are inert stand-ins: SGLang's
  ``sglang/utils.py`` imports numpy, requests, IPython, ... at the top for
  helpers the parsers do not call, and xgrammar (which needs torch) for
  the constrained-decoding structural tags, which these tests do not build.

Nothing from SGLang is copied here; this only arranges ``sys.modules``.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

STUBS = ("numpy", "pybase64", "requests", "IPython", "tqdm", "torch", "PIL", "xgrammar")


class _Anything:
    """Stands for any class of a stubbed module: takes any arguments, and
    pydantic models that name it in a field validate it as ``Any``."""

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema

        return core_schema.any_schema()


class _Stub(types.ModuleType):
    """A module whose every attribute is an :class:`_Anything` class."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (_Anything,), {})
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        top = fullname.split(".")[0]
        if top not in STUBS or _installed(top):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


def _installed(top):
    return any(
        f.find_spec(top, None) is not None
        for f in sys.meta_path
        if not isinstance(f, _StubFinder) and hasattr(f, "find_spec")
    )


def boot() -> str:
    """Prepares ``sys.modules``; returns the installed SGLang's version."""
    if "sglang" not in sys.modules:
        spec = importlib.util.find_spec("sglang")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("sglang is not installed in this interpreter")
        path = list(spec.submodule_search_locations)
        pkg = types.ModuleType("sglang")
        pkg.__path__ = path
        pkg.__spec__ = importlib.machinery.ModuleSpec("sglang", None, is_package=True)
        pkg.__spec__.submodule_search_locations = path
        sys.modules["sglang"] = pkg
        sys.meta_path.insert(0, _StubFinder())
    from sglang.version import __version__

    return __version__
