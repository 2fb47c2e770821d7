"""The Vercel AI SDK's UI message stream (AI SDK 5 and later: what ``useChat`` and ``readUIMessageStream`` read): a
tool call as ``tool-input-start``, ``tool-input-delta`` (the argument text, as the provider streamed it) and
``tool-input-available`` (the strict arguments; ``tool-input-error`` where they are malformed, cut off or invalid); a
document as a ``data-NAME`` part with a fixed ``id``, which the SDK's client replaces with each new value (the
protocol's reconciliation sends the value whole: set a flush interval on a large one). ``start``, ``finish`` and
``[DONE]`` frame the message, with the header ``x-vercel-ai-ui-message-stream: v1``.
"""

from __future__ import annotations

from typing import Any, Optional

from .._json_patch import apply_patch
from ._events import PatchEvent
from ._wire import sse_message, to_json

__all__ = ["UIMessageWire", "ui_message_chunks"]


class UIMessageWire:
    """The AI SDK's UI message stream as server-sent events. ``message_id``: the assistant message's id (the SDK makes
    one where it is None); ``data_name``: a document's part type is ``data-`` and this; ``data_id``: the part's id,
    which the client reconciles on."""

    headers = {"x-vercel-ai-ui-message-stream": "v1"}

    def __init__(self, *, message_id: Optional[str] = None, data_name: str = "object", data_id: str = "object") -> None:
        self.message_id = message_id
        self.data_type = f"data-{data_name}"
        self.data_id = data_id
        self._names: dict[str, str] = {}
        self._texts: dict[str, list[str]] = {}
        self._value: Any = None

    def opening(self) -> list[str]:
        start: dict[str, Any] = {"type": "start"}
        if self.message_id is not None:
            start["messageId"] = self.message_id
        return [sse_message(to_json(start))]

    def closing(self) -> list[str]:
        return [sse_message(to_json({"type": "finish"})), sse_message("[DONE]")]

    def failure(self, error: BaseException) -> list[str]:
        return [sse_message(to_json({"type": "error", "errorText": f"{type(error).__name__}: {error}"}))]

    def render(self, event: PatchEvent) -> list[str]:
        return [sse_message(to_json(chunk)) for chunk in self.chunks(event, copy=False)]

    def chunks(self, event: PatchEvent, copy: bool = True) -> list[dict[str, Any]]:
        """The UI message chunks (dicts) of one op event. A document's part holds its value so far, which later
        events change in place unless ``copy`` (a caller that writes each chunk at once needs no copy)."""
        if event.id is not None:
            return self._tool_call_chunks(event)
        if event.kind == "ops":
            self._value = apply_patch(self._value, event.ops)
            data = apply_patch(None, [{"op": "add", "path": "", "value": self._value}]) if copy else self._value
            return [{"type": self.data_type, "id": self.data_id, "data": data}]
        if event.kind == "end" and event.error is not None:
            return [{"type": "error", "errorText": event.error}]
        if event.kind == "end" and not event.shown:
            self._value = event.value
            return [{"type": self.data_type, "id": self.data_id, "data": self._value}]
        return []

    def _tool_call_chunks(self, event: PatchEvent) -> list[dict[str, Any]]:
        call_id = event.id
        assert call_id is not None
        if event.kind == "start":
            self._names[call_id] = event.name or ""
            return [{"type": "tool-input-start", "toolCallId": call_id, "toolName": event.name or ""}]
        name = self._names.get(call_id, "")
        if event.kind == "ops":
            if not event.text:
                return []
            return [{"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": event.text}]
        if event.error is not None:
            return [
                {
                    "type": "tool-input-error",
                    "toolCallId": call_id,
                    "toolName": name,
                    "input": event.value,
                    "errorText": event.error,
                }
            ]
        return [{"type": "tool-input-available", "toolCallId": call_id, "toolName": name, "input": event.value}]


def ui_message_chunks(events: Any, **options: Any) -> Any:
    """The UI message chunks (dicts) of an op stream, without the message's framing: ``options`` as for
    :class:`UIMessageWire`."""
    wire = UIMessageWire(**options)
    for event in events:
        yield from wire.chunks(event)
