"""The events of a model's output: immutable values, compared by kind and fields, that unpack as tuples."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, Optional, Union

__all__ = ["ContentDelta", "ReasoningDelta", "ToolCallStart", "ArgumentsDelta", "ToolCallEnd", "ModelOutputEvent"]


class _Event(tuple):  # type: ignore[type-arg]  # a mixin of the events' NamedTuples
    """Equality and hashing by kind and fields: two kinds with the same fields (content and reasoning text) differ,
    and an event is not equal to the plain tuple of its fields."""

    __slots__ = ()
    kind: str

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((self.kind, *self))


class _ContentFields(NamedTuple):
    text: str


# The calls' ``index`` field hides tuple's ``index()`` method, as the events' shape asks.
class _StartFields(NamedTuple):
    index: int  # type: ignore[assignment]
    id: str
    name: str


class _ArgumentsFields(NamedTuple):
    index: int  # type: ignore[assignment]
    text: str


class _EndFields(NamedTuple):
    index: int  # type: ignore[assignment]
    arguments: dict[str, Any]
    error: Optional[str]
    repairs: tuple[tuple[tuple[Any, ...], str], ...] = ()


class ContentDelta(_Event, _ContentFields):
    """``kind == "content"``: the next piece of the model's text outside tool calls, markers removed."""

    __slots__ = ()
    kind: Literal["content"] = "content"


class ReasoningDelta(_Event, _ContentFields):
    """``kind == "reasoning"``: the next piece of the text of the model's reasoning block, markers removed."""

    __slots__ = ()
    kind: Literal["reasoning"] = "reasoning"


class ToolCallStart(_Event, _StartFields):
    """``kind == "start"``: a tool call begins, once per call, with its whole name; ``index`` counts the calls of the
    output from 0; ``id`` is the model's own where the format carries one, else a fresh one."""

    __slots__ = ()
    kind: Literal["start"] = "start"


class ArgumentsDelta(_Event, _ArgumentsFields):
    """``kind == "arguments"``: the next piece of a call's argument text, verbatim: a call's pieces join to exactly
    the JSON the model wrote (for a format that writes it as a JSON string, that string's content)."""

    __slots__ = ()
    kind: Literal["arguments"] = "arguments"


class ToolCallEnd(_Event, _EndFields):
    """``kind == "end"``: the call is over: its arguments from one strict parse of their text and None, or ``{}``
    and a message saying what was wrong (malformed, cut off, not an object, an unknown tool), which ends with
    ``Received arguments:`` and the text. ``repairs``: ``(path, kind)`` for each value of a format that writes
    arguments as text that was read as its schema's type only after one well-known unwrapping (``(("count",),
    "string_to_int")`` for ``"42"``, ``"escaped_json"`` for an array written as ``[{\\"id\\": 1}]``); ``()`` for a call
    read as written."""

    __slots__ = ()
    kind: Literal["end"] = "end"


ModelOutputEvent = Union[ContentDelta, ReasoningDelta, ToolCallStart, ArgumentsDelta, ToolCallEnd]
"""Any of the five events: tell them apart by ``kind`` (a type checker narrows the union by it)."""
