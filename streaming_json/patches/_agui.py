"""AG-UI's events (the Agent-User Interaction protocol): a tool call as ``TOOL_CALL_START``, ``TOOL_CALL_ARGS`` (the
argument text, as the provider streamed it) and ``TOOL_CALL_END``; a document (structured output, a typed stream) as
the agent's state, ``STATE_SNAPSHOT`` then ``STATE_DELTA`` with RFC 6902 operations (AG-UI's clients apply them with
``fast-json-patch``, which knows no ``append``: a grown string is a ``replace`` of the whole string, so set a flush
interval on a long one). Written as AG-UI's own encoder writes them: ``data:`` lines of camelCase JSON.

The events are plain dicts; the tests validate every one with the ``ag-ui-protocol`` package's models, which this
module does not need.
"""

from __future__ import annotations

from typing import Any, Optional

from .._json_patch import JsonPatchOp, StrictOps
from ._events import PatchEvent
from ._wire import problem_json, sse_message, to_json

__all__ = ["AGUIWire", "agui_events", "PROBLEM_EVENT"]

PROBLEM_EVENT = "streaming_json.problem"
"""The name of the ``CUSTOM`` event that says why a value ended in error."""


class AGUIWire:
    """AG-UI's events as server-sent events. ``thread_id`` and ``run_id``: the run's (from the client's
    ``RunAgentInput``), which wrap the events in ``RUN_STARTED`` and ``RUN_FINISHED`` (a failed source ends with
    ``RUN_ERROR``); without them the events are written alone, for a run the server writes around them.
    ``state_path``: the JSON Pointer under which a document's value sits in the agent's state (``""``: the state is
    the value; else its parent must exist in the client's state)."""

    headers: dict[str, str] = {}

    def __init__(self, *, thread_id: Optional[str] = None, run_id: Optional[str] = None, state_path: str = "") -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.state_path = state_path
        self._strict = StrictOps()

    def opening(self) -> list[str]:
        if self.thread_id is None or self.run_id is None:
            return []
        return [self._message({"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id})]

    def closing(self) -> list[str]:
        if self.thread_id is None or self.run_id is None:
            return []
        return [self._message({"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id})]

    def failure(self, error: BaseException) -> list[str]:
        return [self._message({"type": "RUN_ERROR", "message": f"{type(error).__name__}: {error}"})]

    def render(self, event: PatchEvent) -> list[str]:
        return [self._message(data) for data in self.events(event)]

    def events(self, event: PatchEvent) -> list[dict[str, Any]]:
        """The AG-UI events (dicts) of one op event. A value that ends in error is followed by a ``CUSTOM`` event
        named ``streaming_json.problem`` (``value``: ``toolCallId``, ``error``, ``problem``): AG-UI has no event of
        its own for it, and ``RUN_ERROR`` would end the run."""
        if event.id is not None:
            events = self._tool_call_events(event)
        elif event.kind == "ops":
            events = self._state_events(self._strict.ops(event.ops))
        elif event.kind == "end" and event.error is None and not event.shown:
            root = {"op": "replace" if self.state_path else "add", "path": "", "value": event.value}
            events = self._state_events([root])
        else:
            events = []
        if event.kind == "end" and event.error is not None:
            problem = {"toolCallId": event.id, "error": event.error, "problem": problem_json(event.problem)}
            events.append({"type": "CUSTOM", "name": PROBLEM_EVENT, "value": problem})
        return events

    def _tool_call_events(self, event: PatchEvent) -> list[dict[str, Any]]:
        if event.kind == "start":
            return [{"type": "TOOL_CALL_START", "toolCallId": event.id, "toolCallName": event.name or ""}]
        if event.kind == "ops":
            return [{"type": "TOOL_CALL_ARGS", "toolCallId": event.id, "delta": event.text}] if event.text else []
        return [{"type": "TOOL_CALL_END", "toolCallId": event.id}]

    def _state_events(self, ops: list[JsonPatchOp]) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        delta: list[JsonPatchOp] = []
        prefix = self.state_path
        for op in ops:
            if not op["path"] and not prefix and op["op"] in ("add", "replace"):
                if delta:
                    events.append({"type": "STATE_DELTA", "delta": delta})
                    delta = []
                events.append({"type": "STATE_SNAPSHOT", "snapshot": op["value"]})
            else:
                delta.append({**op, "path": prefix + op["path"]} if prefix else op)
        if delta:
            events.append({"type": "STATE_DELTA", "delta": delta})
        return events

    @staticmethod
    def _message(data: dict[str, Any]) -> str:
        return sse_message(to_json({key: value for key, value in data.items() if value is not None}))


def agui_events(events: Any, **options: Any) -> Any:
    """The AG-UI events (dicts) of an op stream, for a server that writes them with AG-UI's own encoder or its
    framework's: ``options`` as for :class:`AGUIWire`."""
    wire = AGUIWire(**options)
    for event in events:
        yield from wire.events(event)
