"""Anthropic Messages: tool calls (``tool_use`` blocks, ``input_json_delta``) and structured output (``text_delta``),
from the raw events of ``client.messages.create(..., stream=True)`` or the events of the SDK's
``client.messages.stream()`` helper (its own ``input_json``, ``text`` ... events repeat the raw deltas and are
skipped)."""

from __future__ import annotations

from typing import Any, Optional

from ._fields import get_field, get_key, get_text
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit

__all__ = ["AnthropicToolCalls", "AnthropicStructuredOutput"]

# The stop reasons that say the model was cut off at a length limit, not done.
_LIMITS = frozenset(("max_tokens", "model_context_window_exceeded"))


def _limit_reason(event: Any) -> Optional[str]:
    """Why a ``message_delta`` says the message stopped at a length limit; None where it did not."""
    stop_reason = get_text(get_field(event, "delta"), "stop_reason")
    return at_length_limit(f"stop_reason {stop_reason!r}") if stop_reason in _LIMITS else None


class AnthropicToolCalls(ToolCallAccumulator[Optional[int]]):
    """Tool calls from Anthropic Messages stream events (the SDK's event objects or dicts).

    A ``tool_use`` content block starts with ``content_block_start``, grows with ``content_block_delta`` events of
    type ``input_json_delta`` (their ``partial_json``) and ends with ``content_block_stop``. Calls are keyed by the
    block ``index``. Other blocks, such as the server's own tool uses, are not tool calls for the client and are
    skipped. ``message_stop`` ends any call still open. Malformed arguments never raise (the SDK's helper raises
    ``ValueError`` mid-stream); ``error`` says what was wrong once the call ends. A ``max_tokens`` stop marks the call
    that was being written ``incomplete``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_block: Any = None  # the index of the last content block started, of any kind

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        # The fast path: a delta event. Any other shape raises here or fails a check below: the general path.
        try:
            if type(event) is dict:
                if event["type"] != "content_block_delta":
                    return self._feed(event)
                delta = event["delta"]
                kind = delta["type"]
                if kind != "input_json_delta":
                    return [] if isinstance(kind, str) else self._feed(event)  # text, thinking: no call changed
                text, call = delta["partial_json"], self._open.get(event["index"])
            else:  # an SDK event: the same, out of each model's instance dict (see _fields)
                fields_of = self._fields_of
                fields = fields_of(event)
                if fields["type"] != "content_block_delta":  # every event of the SDK has a type
                    return self._feed(event)
                delta = fields_of(fields["delta"])
                kind = delta["type"]
                if kind != "input_json_delta":
                    return [] if isinstance(kind, str) else self._feed(event)
                text, call = delta["partial_json"], self._open.get(fields["index"])
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        if call is not None and type(text) is str:
            if not text:
                return []
            call.arguments = call._append_piece(text)
            return [call]
        return self._feed(event)

    def _feed(self, event: Any) -> list[LiveToolCall]:
        """The general path: every kind of event."""
        kind = get_text(event, "type")
        if kind == "content_block_delta":
            delta = get_field(event, "delta")
            call = self._open.get(get_key(event, "index"))
            if call is None or get_text(delta, "type") != "input_json_delta":
                return []
            return [call] if call._append(get_field(delta, "partial_json", "")) else []
        if kind == "content_block_start":
            block = get_field(event, "content_block")
            self._last_block = get_key(event, "index")
            if get_text(block, "type") != "tool_use":
                return []
            return self._start(self._last_block, get_text(block, "id"), get_text(block, "name"))
        if kind == "content_block_stop":
            return self._finish_open([get_key(event, "index")])
        if kind == "message_delta":
            reason = _limit_reason(event)
            return [] if reason is None else self._stopped_early(list(self._open), reason, self._last_block)
        if kind == "message_stop":
            return self._end_open()
        return []


class AnthropicStructuredOutput(StructuredOutput):
    """Structured output from Anthropic Messages stream events: the text of the message's ``text`` blocks
    (``text_delta`` events, joined in order as the SDK's ``get_final_text()`` joins the blocks), as a JSON-schema
    ``output_format`` makes the model write it.

    ``feed(event)`` returns the value so far (``MISSING`` until it starts); ``message_stop`` ends the output with one
    strict parse (``result``, ``error``, ``problem``; a ``max_tokens`` stop makes an output that does not parse
    ``incomplete``). ``model=`` gives typed values, as for the OpenAI accumulators.
    """

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: a delta event (see AnthropicToolCalls.feed)
            if type(event) is dict:
                if event["type"] != "content_block_delta":
                    return self._feed(event)
                delta = event["delta"]
                kind = delta["type"]
                if kind != "text_delta":
                    return self.value if isinstance(kind, str) else self._feed(event)  # tool input, thinking
                text = delta["text"]
            else:  # an SDK event: the same, out of each model's instance dict (see _fields)
                fields_of = self._fields_of
                fields = fields_of(event)
                if fields["type"] != "content_block_delta":
                    return self._feed(event)
                delta = fields_of(fields["delta"])
                kind = delta["type"]
                if kind != "text_delta":
                    return self.value if isinstance(kind, str) else self._feed(event)
                text = delta["text"]
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        return self._append(text) if type(text) is str else self._feed(event)

    def _feed(self, event: Any) -> Any:
        kind = get_text(event, "type")
        if kind == "content_block_delta":
            delta = get_field(event, "delta")
            if get_text(delta, "type") == "text_delta":
                text = get_field(delta, "text")
                if isinstance(text, str):
                    self._append(text)
        elif kind == "content_block_start":
            block = get_field(event, "content_block")
            if get_text(block, "type") == "text":
                text = get_field(block, "text")
                if isinstance(text, str):
                    self._append(text)
        elif kind == "message_delta":
            reason = _limit_reason(event)
            if reason is not None:
                self._stopped_early(reason)
        elif kind == "message_stop":
            self.finish()
        return self.value
