"""Amazon Bedrock's Converse API: tool uses (``contentBlockStart.start.toolUse``, ``contentBlockDelta.delta.toolUse
.input``, ``contentBlockStop``) and structured output (``contentBlockDelta.delta.text``, under ``outputConfig``'s
``textFormat``), from the events of ``client.converse_stream(...)["stream"]``: the plain dicts boto3 yields, one key
each (``{"contentBlockDelta": {...}}``)."""

from __future__ import annotations

from typing import Any, Optional

from ._fields import get_field, get_key, get_text
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit

__all__ = ["BedrockToolCalls", "BedrockStructuredOutput"]

# The stop reasons that end a message as the model meant it, and those that say it hit a length limit.
_DONE = frozenset(("end_turn", "tool_use", "stop_sequence"))
_LIMITS = frozenset(("max_tokens", "model_context_window_exceeded"))


def _stop_reason(event: Any) -> Optional[str]:
    """Why a ``messageStop`` cut the message off (a length limit, a guardrail ...); None where it ended as meant."""
    stop_reason = get_text(get_field(event, "messageStop"), "stopReason")
    if stop_reason is None or stop_reason in _DONE:
        return None
    if stop_reason in _LIMITS:
        return at_length_limit(f"stopReason {stop_reason!r}")
    return f"the provider stopped the message (stopReason {stop_reason!r})"


class BedrockToolCalls(ToolCallAccumulator[Optional[int]]):
    """Tool uses from Bedrock ``converse_stream`` events (boto3's dicts, or objects of the same shape).

    A tool use starts with ``contentBlockStart`` (``start.toolUse``: ``toolUseId``, ``name``), grows with
    ``contentBlockDelta`` events whose ``delta.toolUse.input`` is a piece of the argument text, and ends with
    ``contentBlockStop``. Calls are keyed by ``contentBlockIndex``; ``id`` is the ``toolUseId`` to answer with. A
    server tool use (``type: "server_tool_use"``) is not a call for the client and is skipped. ``messageStop`` ends any
    call still open; a ``max_tokens`` stop (or a guardrail's) marks the call being written ``incomplete``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_block: Any = None  # the index of the last content block seen, of any kind

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        try:  # the fast path: a piece of a tool use's input
            if type(event) is dict:
                delta_event = event["contentBlockDelta"]
                text = delta_event["delta"]["toolUse"]["input"]
            else:  # objects of the same shape: the same, out of each one's instance dict (see _fields)
                fields_of = self._fields_of
                delta_event = fields_of(fields_of(event)["contentBlockDelta"])
                text = fields_of(fields_of(delta_event["delta"])["toolUse"])["input"]
            call = self._open[delta_event["contentBlockIndex"]]
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
        delta_event = get_field(event, "contentBlockDelta")
        if delta_event is not None:
            index = get_key(delta_event, "contentBlockIndex")
            self._last_block = index
            call = self._open.get(index)
            tool_use = get_field(get_field(delta_event, "delta"), "toolUse")
            if call is None or tool_use is None:
                return []
            return [call] if call._append(get_field(tool_use, "input", "")) else []
        start_event = get_field(event, "contentBlockStart")
        if start_event is not None:
            index = get_key(start_event, "contentBlockIndex")
            self._last_block = index
            tool_use = get_field(get_field(start_event, "start"), "toolUse")
            if tool_use is None or get_text(tool_use, "type") == "server_tool_use":
                return []
            return self._start(index, get_text(tool_use, "toolUseId"), get_text(tool_use, "name"))
        stop_event = get_field(event, "contentBlockStop")
        if stop_event is not None:
            return self._finish_open([get_key(stop_event, "contentBlockIndex")])
        if get_field(event, "messageStop") is not None:
            reason = _stop_reason(event)
            if reason is None:
                return self._end_open()
            return self._stopped_early(list(self._open), reason, self._last_block)
        return []


class BedrockStructuredOutput(StructuredOutput):
    """Structured output from Bedrock ``converse_stream`` events: the text of the message's text blocks
    (``contentBlockDelta.delta.text``, joined in order; reasoning skipped), as ``outputConfig={"textFormat": {"type":
    "json_schema", ...}}`` makes the model write it.

    ``feed(event)`` returns the value so far (``MISSING`` until it starts); ``messageStop`` ends the output with one
    strict parse (``result``, ``error``, ``problem``; a ``max_tokens`` stop makes an output that does not parse
    ``incomplete``). ``model=`` gives typed values, as for the other APIs.
    """

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: a piece of text
            if type(event) is dict:
                text = event["contentBlockDelta"]["delta"]["text"]
            else:
                fields_of = self._fields_of
                text = fields_of(fields_of(fields_of(event)["contentBlockDelta"])["delta"])["text"]
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        return self._append(text) if type(text) is str else self._feed(event)

    def _feed(self, event: Any) -> Any:
        delta_event = get_field(event, "contentBlockDelta")
        if delta_event is not None:
            text = get_field(get_field(delta_event, "delta"), "text")
            if isinstance(text, str):
                self._append(text)
        elif get_field(event, "messageStop") is not None:
            reason = _stop_reason(event)
            if reason is None:
                self.finish()
            else:
                self._stopped_early(reason)
        return self.value
