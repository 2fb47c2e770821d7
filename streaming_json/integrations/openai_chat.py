"""OpenAI Chat Completions: tool calls (``choices[].delta.tool_calls[]``) and structured output (``delta.content``).

Also the chunks of the many providers that speak the same protocol, and the ``ChunkEvent`` objects of the SDK's
``client.chat.completions.stream()`` helper (its other events repeat what the chunks carry and are skipped).
"""

from __future__ import annotations

from typing import Any, Optional

from ._common import NO_FIELDS, LiveToolCall, StructuredOutput, ToolCallAccumulator, get_field, unique

__all__ = ["OpenAIChatToolCalls", "OpenAIChatStructuredOutput"]


def _helper_event(kind: Any) -> bool:
    """Whether a chunk without ``choices`` is one of the streaming helper's own events (they all have a ``type``)."""
    return isinstance(kind, str)


class OpenAIChatToolCalls(ToolCallAccumulator[tuple[int, int]]):
    """Tool calls from OpenAI Chat Completions chunks (``ChatCompletionChunk`` objects or dicts).

    A call is keyed by ``(choice index, tool call index)``, so parallel calls and ``n > 1`` choices stream side by
    side. A choice's calls end with its ``finish_reason``; call :meth:`finish` at the end of the stream for any that
    a provider left open (:meth:`stream` does). The chunk events of the SDK's ``chat.completions.stream()`` helper are
    read too.
    """

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk; return the calls it changed."""
        # The fast path: one choice whose delta carries text, or one piece of an open call's arguments.
        fields = chunk if type(chunk) is dict else getattr(chunk, "__dict__", NO_FIELDS)
        choices = fields.get("choices")
        if type(choices) is list and len(choices) == 1:
            choice = choices[0]
            choice_fields = choice if type(choice) is dict else getattr(choice, "__dict__", NO_FIELDS)
            delta = choice_fields.get("delta")
            if delta is not None and choice_fields.get("finish_reason") is None:
                delta_fields = delta if type(delta) is dict else getattr(delta, "__dict__", NO_FIELDS)
                tool_calls = delta_fields.get("tool_calls")
                if tool_calls is None:
                    if type(delta) is dict or "tool_calls" in delta_fields:
                        return []  # text, a refusal or the role: no call changed
                elif type(tool_calls) is list and len(tool_calls) == 1:
                    tool_call = tool_calls[0]
                    call_fields = tool_call if type(tool_call) is dict else getattr(tool_call, "__dict__", NO_FIELDS)
                    function = call_fields.get("function")
                    function_fields = function if type(function) is dict else getattr(function, "__dict__", NO_FIELDS)
                    text = function_fields.get("arguments")
                    call = self._open.get((choice_fields.get("index", 0), call_fields.get("index", 0)))
                    if call is not None and type(text) is str:
                        call_id = call_fields.get("id")
                        name = function_fields.get("name")
                        if (call_id is None or call_id == call.id) and (name is None or call.name is not None):
                            if not text:
                                return []
                            call.arguments = call._stream.append(text)
                            return [call]
        elif choices is None:
            kind = fields.get("type")
            if kind == "chunk":  # the streaming helper's ChunkEvent wraps the chunk
                return self.feed(fields.get("chunk"))
            if _helper_event(kind):
                return []
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> list[LiveToolCall]:
        """The general path: any shape of chunk."""
        if get_field(chunk, "type") == "chunk":
            chunk = get_field(chunk, "chunk")
        changed: list[LiveToolCall] = []
        for choice in get_field(chunk, "choices", ()):
            choice_index = get_field(choice, "index", 0)
            for tool_call in get_field(get_field(choice, "delta"), "tool_calls", ()):
                changed.extend(self._read_tool_call(choice_index, tool_call))
            if get_field(choice, "finish_reason") is not None:
                changed.extend(self._finish_open([key for key in self._open if key[0] == choice_index]))
        return unique(changed)

    def _read_tool_call(self, choice_index: int, tool_call: Any) -> list[LiveToolCall]:
        key = (choice_index, get_field(tool_call, "index", 0))
        call_id = get_field(tool_call, "id")
        function = get_field(tool_call, "function")
        name = get_field(function, "name")
        changed = []
        call = self._open.get(key)
        # Some providers give every parallel call the same index; a new id at an index is a new call.
        if call is not None and call_id is not None and call.id is not None and call_id != call.id:
            changed.extend(self._finish_open([key]))
            call = None
        if call is None:
            call = self._start(key, call_id, name)
            changed.append(call)
        elif (call_id is not None and call.id is None) or (name is not None and call.name is None):
            call.id = call.id or call_id
            call.name = call.name or name
            changed.append(call)
        if call._append(get_field(function, "arguments", "")):
            changed.append(call)
        return changed


class OpenAIChatStructuredOutput(StructuredOutput):
    """Structured output from OpenAI Chat Completions chunks: the ``delta.content`` of one choice, under a JSON-schema
    ``response_format`` (or JSON mode).

    ``feed(chunk)`` returns the value so far (``MISSING`` until it starts). The choice's ``finish_reason`` ends the
    output with one strict parse (``result``, ``error``); a refusal (``delta.refusal``) is kept in ``refusal`` and
    makes ``error`` say so. With ``model=`` (a pydantic model or any type ``pydantic.TypeAdapter`` takes) the values are
    typed: ``streaming_json.pydantic.ModelStream`` partial values, and a validated instance at the end.
    """

    def __init__(self, model: Any = None, *, choice: int = 0, parser_factory: Optional[Any] = None) -> None:
        super().__init__(model, parser_factory=parser_factory)
        self.choice = choice
        """The index of the choice read (with ``n > 1``)."""

    def feed(self, chunk: Any) -> Any:
        """Read one chunk; return the value so far."""
        fields = chunk if type(chunk) is dict else getattr(chunk, "__dict__", NO_FIELDS)
        choices = fields.get("choices")
        if type(choices) is list and len(choices) == 1:
            choice = choices[0]
            choice_fields = choice if type(choice) is dict else getattr(choice, "__dict__", NO_FIELDS)
            delta = choice_fields.get("delta")
            if delta is not None and choice_fields.get("finish_reason") is None:
                delta_fields = delta if type(delta) is dict else getattr(delta, "__dict__", NO_FIELDS)
                text = delta_fields.get("content")
                if type(text) is str and delta_fields.get("refusal") is None:
                    if choice_fields.get("index", 0) != self.choice:
                        return self.value
                    return self._append(text)
        elif choices is None:
            kind = fields.get("type")
            if kind == "chunk":
                return self.feed(fields.get("chunk"))
            if _helper_event(kind):
                return self.value
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> Any:
        if get_field(chunk, "type") == "chunk":
            chunk = get_field(chunk, "chunk")
        for choice in get_field(chunk, "choices", ()):
            if get_field(choice, "index", 0) != self.choice:
                continue
            delta = get_field(choice, "delta")
            self._append_refusal(get_field(delta, "refusal"))
            text = get_field(delta, "content")
            if isinstance(text, str):
                self._append(text)
            if get_field(choice, "finish_reason") is not None:
                self.finish()
        return self.value
