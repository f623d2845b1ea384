"""A stand-in for torch: xgrammar imports it, the string checks never use it."""
__version__ = "2.0.0"


class _Anything:
    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    value = type(name, (), {}) if name[:1].isupper() else _Anything()
    globals()[name] = value
    return value
