"""Cohere's Chat API v2: tool calls (``tool-call-start`` with a single ``tool_calls`` object, ``tool-call-delta``,
``tool-call-end``) and structured output (``content-delta``, under a JSON ``response_format``), from the events of
``client.v2.chat_stream(...)`` (the SDK's objects) or their dicts, as the server-sent events carry them."""

from __future__ import annotations

from typing import Any, Optional

from ._fields import get_field, get_key, get_text
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit

__all__ = ["CohereToolCalls", "CohereStructuredOutput"]

# The finish reasons that end a message as the model meant it.
_DONE = frozenset(("COMPLETE", "STOP_SEQUENCE", "TOOL_CALL"))
_LIMIT = "MAX_TOKENS"


def _message(event: Any) -> Any:
    return get_field(get_field(event, "delta"), "message")


def _stop_reason(event: Any) -> Optional[str]:
    """Why a ``message-end`` cut the message off (``MAX_TOKENS``, ``ERROR``, ``TIMEOUT``); None where it did not."""
    finish_reason = get_text(get_field(event, "delta"), "finish_reason")
    if finish_reason is None or finish_reason in _DONE:
        return None
    if finish_reason == _LIMIT:
        return at_length_limit(f"finish_reason {finish_reason!r}")
    return f"the provider stopped the message (finish_reason {finish_reason!r})"


class CohereToolCalls(ToolCallAccumulator[Any]):
    """Tool calls from Cohere v2 chat stream events (the SDK's objects or dicts).

    A call starts with ``tool-call-start`` (``delta.message.tool_calls``: one call, its ``id`` and
    ``function.name``), grows with ``tool-call-delta`` events (``delta.message.tool_calls.function.arguments``) and
    ends with ``tool-call-end``. Calls are keyed by the event's ``index``. ``message-end`` ends any call still open;
    its ``finish_reason`` ``MAX_TOKENS`` (or ``ERROR``, ``TIMEOUT``) marks the call being written ``incomplete``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_block: Any = None  # the last call's index, or None where content came after it

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        try:  # the fast path: a tool-call-delta
            if type(event) is dict:
                if event["type"] != "tool-call-delta":
                    return self._feed(event)
                text = event["delta"]["message"]["tool_calls"]["function"]["arguments"]
                call = self._open[event["index"]]
            else:  # an SDK event: the same, out of each model's instance dict (see _fields)
                fields_of = self._fields_of
                fields = fields_of(event)
                if fields["type"] != "tool-call-delta":
                    return self._feed(event)
                message = fields_of(fields_of(fields["delta"])["message"])
                text = fields_of(fields_of(message["tool_calls"])["function"])["arguments"]
                call = self._open[fields["index"]]
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        if type(text) is str:
            if not text:
                return []
            call.arguments = call._append_piece(text)
            return [call]
        return self._feed(event)

    def _feed(self, event: Any) -> list[LiveToolCall]:
        """The general path: every kind of event."""
        kind = get_text(event, "type")
        if kind == "tool-call-delta":
            call = self._open.get(get_key(event, "index"))
            function = get_field(get_field(_message(event), "tool_calls"), "function")
            return [call] if call is not None and call._append(get_field(function, "arguments", "")) else []
        if kind == "tool-call-start":
            index = get_key(event, "index")
            self._last_block = index
            tool_call = get_field(_message(event), "tool_calls")
            function = get_field(tool_call, "function")
            changed = self._start(index, get_text(tool_call, "id") or None, get_text(function, "name") or None)
            changed[-1]._append(get_field(function, "arguments", ""))
            return changed
        if kind == "tool-call-end":
            return self._finish_open([get_key(event, "index")])
        if kind == "content-start":
            self._last_block = None
        elif kind == "message-end":
            reason = _stop_reason(event)
            if reason is None:
                return self._end_open()
            return self._stopped_early(list(self._open), reason, self._last_block)
        return []


class CohereStructuredOutput(StructuredOutput):
    """Structured output from Cohere v2 chat stream events: the text of the message's ``content-delta`` events
    (``delta.message.content.text``; thinking skipped), under ``response_format={"type": "json_object", "json_schema":
    ...}``.

    ``feed(event)`` returns the value so far (``MISSING`` until it starts); ``message-end`` ends the output with one
    strict parse (``result``, ``error``, ``problem``; ``MAX_TOKENS``: an output that does not parse is
    ``incomplete``). ``model=`` gives typed values, as for the other APIs.
    """

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: a content-delta with text
            if type(event) is dict:
                if event["type"] != "content-delta":
                    return self._feed(event)
                text = event["delta"]["message"]["content"]["text"]
            else:
                fields_of = self._fields_of
                fields = fields_of(event)
                if fields["type"] != "content-delta":
                    return self._feed(event)
                text = fields_of(fields_of(fields_of(fields["delta"])["message"])["content"])["text"]
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        return self._append(text) if type(text) is str else self._feed(event)

    def _feed(self, event: Any) -> Any:
        kind = get_text(event, "type")
        if kind in ("content-delta", "content-start"):
            text = get_field(get_field(_message(event), "content"), "text")
            if isinstance(text, str):
                self._append(text)
        elif kind == "message-end":
            reason = _stop_reason(event)
            if reason is None:
                self.finish()
            else:
                self._stopped_early(reason)
        return self.value
