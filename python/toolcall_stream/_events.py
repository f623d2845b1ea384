"""The event, message and diagnostic classes; :mod:`toolcall_stream.events`
is their public home."""

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, List, NamedTuple, Optional, Type

from ._native import Message as _NativeMessage

__all__ = [
    "Event",
    "Content",
    "Reasoning",
    "ToolCallStart",
    "ParameterStart",
    "ParameterDelta",
    "ParameterEnd",
    "ArgumentsDelta",
    "ToolCallEnd",
    "Diagnostic",
    "Span",
    "ToolCall",
    "Message",
]

# The field ParameterEnd leaves out of its JSON form when there is none.
_ABSENT: Any = object()


class Span(NamedTuple):
    """Where in the input: byte offsets from the stream's start."""

    start: int
    end: int


class Event:
    """The base of every event kind."""

    type: ClassVar[str] = ""
    _kinds: ClassVar[Dict[str, Type["Event"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Event._kinds[cls.type] = cls

    @staticmethod
    def from_dict(fields: Dict[str, Any]) -> "Event":
        """The event of a JSON-form dict (``{"type": ..., ...}``)."""
        fields = dict(fields)
        kind = Event._kinds.get(fields.pop("type", None))
        if kind is None:
            raise ValueError(f"not an event: {fields!r}")
        return kind._of(fields)

    @classmethod
    def _of(cls, fields: Dict[str, Any]) -> "Event":
        return cls(**fields)

    def to_dict(self) -> Dict[str, Any]:
        """The event's JSON form, as ``toolcall stream`` prints it."""
        out: Dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is _ABSENT or (value is None and f.name == "arguments"):
                continue
            out[f.name] = value._asdict() if isinstance(value, Span) else value
        return out


@dataclass(frozen=True)
class Content(Event):
    """Text that is not a call: show it."""

    type: ClassVar[str] = "content"
    text: str


@dataclass(frozen=True)
class Reasoning(Event):
    """The model's reasoning, when ``reasoning`` splits it out."""

    type: ClassVar[str] = "reasoning"
    text: str


@dataclass(frozen=True)
class ToolCallStart(Event):
    """A call began: its index, id and function name."""

    type: ClassVar[str] = "tool_call_start"
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ParameterStart(Event):
    """A parameter of call ``index`` began (formats that name them)."""

    type: ClassVar[str] = "parameter_start"
    index: int
    name: str


@dataclass(frozen=True)
class ParameterDelta(Event):
    """Raw text of the current parameter's value."""

    type: ClassVar[str] = "parameter_delta"
    index: int
    text: str


@dataclass(frozen=True)
class ParameterEnd(Event):
    """A parameter ended; ``value`` is its typed value as a Python value
    (absent when the parameter was streamed without a copy)."""

    type: ClassVar[str] = "parameter_end"
    index: int
    name: str
    value: Any = field(default=_ABSENT, repr=False)

    @property
    def has_value(self) -> bool:
        """Whether the event carries the value."""
        return self.value is not _ABSENT


@dataclass(frozen=True)
class ArgumentsDelta(Event):
    """A fragment of call ``index``'s arguments JSON: the fragments of a call
    join to its arguments, valid JSON."""

    type: ClassVar[str] = "arguments_delta"
    index: int
    delta: str


@dataclass(frozen=True)
class ToolCallEnd(Event):
    """A call ended: ``complete`` is ``False`` when it was cut off (do not
    run it); ``arguments`` is the whole JSON, when kept."""

    type: ClassVar[str] = "tool_call_end"
    index: int
    arguments: Optional[str] = None
    complete: bool = True


@dataclass(frozen=True)
class Diagnostic(Event):
    """A lenient recovery or something worth knowing: ``kind`` (a
    snake_case name), a sentence, and where."""

    type: ClassVar[str] = "diagnostic"
    index: Optional[int]
    kind: str
    message: str
    span: Span

    @classmethod
    def _of(cls, fields: Dict[str, Any]) -> "Diagnostic":
        span = fields["span"]
        return cls(
            index=fields.get("index"),
            kind=fields["kind"],
            message=fields["message"],
            span=Span(span["start"], span["end"]),
        )


@dataclass(frozen=True)
class ToolCall:
    """One call of a message. ``arguments`` is JSON text; ``args`` is it as
    Python values."""

    index: int
    id: str
    name: str
    arguments: str
    complete: bool

    @property
    def args(self) -> Dict[str, Any]:
        """The arguments as Python values."""
        args: Dict[str, Any] = json.loads(self.arguments)
        return args

    def to_dict(self) -> Dict[str, Any]:
        """OpenAI's shape: ``{"id", "type": "function", "function": {"name",
        "arguments"}}``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Message:
    """A whole output parsed: content (``None`` when there is none, or only
    whitespace around calls), reasoning, the calls and the diagnostics."""

    content: Optional[str]
    reasoning: Optional[str]
    tool_calls: List[ToolCall]
    diagnostics: List[Diagnostic]
    _native: Optional[_NativeMessage] = field(default=None, repr=False, compare=False)

    @staticmethod
    def _from_native(native: _NativeMessage) -> "Message":
        f = native.fields()
        return Message(
            content=f["content"],
            reasoning=f["reasoning"],
            tool_calls=[ToolCall(**c) for c in f["tool_calls"]],
            diagnostics=[Diagnostic._of(d) for d in f["diagnostics"]],
            _native=native,
        )

    def to_dict(self) -> Dict[str, Any]:
        """The JSON form ``toolcall parse`` prints: ``content``, ``reasoning``
        (when any), ``tool_calls`` in OpenAI's shape, ``diagnostics``."""
        if self._native is not None:
            return self._native.to_dict()
        out: Dict[str, Any] = {"content": self.content}
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        out["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        for d in out["diagnostics"]:
            del d["type"]
        return out

    def to_chat_completion(
        self,
        model: str = "toolcall",
        *,
        cut_off: bool = False,
        id: Optional[str] = None,
        created: Optional[int] = None,
    ) -> Dict[str, Any]:
        """The message as an OpenAI ``chat.completion`` dict: content without
        the layout whitespace next to calls, ``finish_reason`` ``length``
        when ``cut_off``, else ``tool_calls`` when a call is complete, else
        ``stop``."""
        if self._native is None:
            raise ValueError("only a parsed message makes a chat.completion")
        return self._native.to_chat_completion(model, cut_off=cut_off, id=id, created=created)

