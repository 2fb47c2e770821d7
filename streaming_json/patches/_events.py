"""What the op streams say, whatever they are read from and whatever wire carries them: :class:`PatchEvent`."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, Optional

from .._json_patch import JsonPatchOp
from .._shared import JsonProblem

__all__ = ["PatchEvent", "PatchEventKind"]

_new = tuple.__new__

PatchEventKind = Literal["start", "ops", "end"]


class PatchEvent(NamedTuple):
    """One event of an op stream: a tool call starts (``"start"``), a value changes (``"ops"``), a value ends
    (``"end"``). A document's events (structured output, a typed stream, a text) have ``id`` None; a tool call's carry
    its id, one op stream per call.

    The wire shapes (:func:`~streaming_json.patches.iter_sse`, :func:`~streaming_json.patches.agui_events`,
    :func:`~streaming_json.patches.ui_message_chunks`) render these; a program may read them directly.
    """

    kind: PatchEventKind
    """``"start"``, ``"ops"`` or ``"end"``."""
    id: Optional[str] = None
    """The tool call's id (the provider's, else ``call_N`` by order); None for a document."""
    name: Optional[str] = None
    """The tool's name, on a call's ``start`` (None where the provider had not sent it yet)."""
    ops: list[JsonPatchOp] = []  # a default shared by the events without operations: never changed
    """``ops``: the JSON Patch operations that take the value so far to the new one."""
    text: str = ""
    """``ops``: the raw text those operations were read from (a tool call's argument delta, as AG-UI's
    ``TOOL_CALL_ARGS`` and the AI SDK's ``tool-input-delta`` carry it). Where a provider's complete text did not
    continue the text so far, the value started over and this is the new text whole."""
    value: Any = None
    """``end``: the final value, one strict parse of the complete text (``{}`` for a tool call whose arguments are
    malformed or cut off); None for a document in error."""
    error: Optional[str] = None
    """``end``: None, or why the complete text is malformed, cut off or invalid (a message for people and models)."""
    problem: Optional[JsonProblem] = None
    """``end``: None, or what was wrong, for a program to act on (``kind``: ``incomplete``, ``malformed``,
    ``not_object``, ``invalid``)."""
    shown: bool = False
    """``end``: whether the operations sent already built ``value`` (so a wire may leave it out)."""

    @classmethod
    def started(cls, id: Optional[str], name: Optional[str]) -> PatchEvent:
        """A tool call's start."""
        return cls("start", id, name)

    @classmethod
    def changed(cls, id: Optional[str], ops: list[JsonPatchOp], text: str) -> PatchEvent:
        """Operations, and the text they were read from (one a piece: made without the named tuple's ``__new__``,
        a Python function that fills in the defaults)."""
        return _new(cls, ("ops", id, None, ops, text, None, None, None, False))

    @classmethod
    def ended(
        cls, id: Optional[str], value: Any, error: Optional[str], problem: Optional[JsonProblem], shown: bool
    ) -> PatchEvent:
        """A value's end: the strict result, or the problem."""
        return cls("end", id, None, [], "", value, error, problem, shown)
