"""A stand-in for transformers: xgrammar imports it, the string checks never use it."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return type(name, (), {})
