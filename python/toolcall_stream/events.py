"""The parser's events and messages as small typed objects.

Each event kind is a frozen dataclass with its fields as attributes, a
``type`` (its name in the JSON form) and ``to_dict()`` (that JSON form,
ready for ``json.dumps``):

>>> event = Event.from_dict({"type": "tool_call_start", "index": 0, "id": "call_0", "name": "ls"})
>>> event
ToolCallStart(index=0, id='call_0', name='ls')
>>> event.type, event.to_dict()["name"]
('tool_call_start', 'ls')
>>> isinstance(event, ToolCallStart)
True
"""

from ._events import (
    ArgumentsDelta,
    Content,
    Diagnostic,
    Event,
    Message,
    ParameterDelta,
    ParameterEnd,
    ParameterStart,
    Reasoning,
    Span,
    ToolCall,
    ToolCallEnd,
    ToolCallStart,
)

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
