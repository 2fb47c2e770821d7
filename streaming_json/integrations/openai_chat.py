"""OpenAI Chat Completions: tool calls (``choices[].delta.tool_calls[]``) and structured output (``delta.content``).

Also the chunks of the many providers that speak the same protocol, and the ``ChunkEvent`` objects of the SDK's
``client.chat.completions.stream()`` helper (its other events repeat what the chunks carry and are skipped).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ._fields import get_field, get_items, get_key, get_text
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit, unique

__all__ = ["OpenAIChatToolCalls", "OpenAIChatStructuredOutput"]

# The finish reason that says the choice was cut off at the length limit, not done.
_LIMIT = "length"


class OpenAIChatToolCalls(ToolCallAccumulator[tuple[int, int]]):
    """Tool calls from OpenAI Chat Completions chunks (``ChatCompletionChunk`` objects or dicts).

    A call is keyed by ``(choice index, tool call index)``, so parallel calls and ``n > 1`` choices stream side by
    side, whatever index a provider starts at. A call ends when the choice's next call starts (a new index, or a new
    id at its index), as the OpenAI SDK's ``ChatCompletionStreamState`` ends it (its
    ``tool_calls.function.arguments.done`` event), where its text is a whole JSON value; one that is not (blank, cut,
    or a provider interleaving its calls' pieces) stays open for its pieces still to come. The choice's
    ``finish_reason`` ends the rest (``"length"``: the call being written is ``incomplete``); :meth:`finish` at the
    end of the stream marks any still open ``incomplete`` (:meth:`stream` calls it): on a dropped stream, the last
    call. The chunk events of the SDK's ``chat.completions.stream()`` helper are read too.

    The shapes of the providers that speak the protocol are read as the SDK's helper reads OpenAI's: an id and a name
    on the first chunk of a call only, or repeated on every chunk, or empty (``""``) on the continuation chunks
    (DashScope, Qwen, DeepSeek); the first chunk with ``"arguments": ""`` or the whole arguments at once; indices from
    1 (LiteLLM); LiteLLM's own ``ModelResponseStream`` objects. A new non-empty id at an index is a new call. A
    call's arguments that hold several whole JSON objects back to back (every parallel call at index 0 with no new
    id: Ollama's OpenAI endpoint, Groq) are that many calls, and whole arguments sent again as pieces are read once
    (``LiveToolCall.repair`` says so).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The call the last chunk continued, and its key's two parts: the next chunk most likely continues it too, and
        # comparing two ints costs less than building a key to look up (see feed).
        self._last: Optional[LiveToolCall] = None
        self._last_choice: Any = None
        self._last_index: Any = None

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk; return the calls it changed."""
        # The fast path: one choice whose delta carries text, or one piece of one call's arguments. Any other shape
        # raises here or fails a check below, and goes to the general path. An SDK chunk is a chain of pydantic
        # models: each one's fields are read out of its instance dict (see _fields).
        try:
            if type(chunk) is dict:
                (choice,) = chunk["choices"]
                tool_calls = choice["delta"].get("tool_calls")
                finish_reason = choice.get("finish_reason")
                if tool_calls is not None:
                    (tool_call,) = tool_calls
                    function = tool_call["function"]
                    choice_index, index = choice.get("index", 0), tool_call["index"]
                    call_id, name, text = tool_call.get("id"), function.get("name"), function["arguments"]
            else:
                fields_of = self._fields_of
                fields = fields_of(chunk)
                choices: Any = fields.get("choices")  # an SDK helper event has no such field (None: a TypeError below)
                if choices is None:
                    kind = fields.get("type")
                    if kind == "chunk":  # the streaming helper's ChunkEvent wraps the chunk
                        return self.feed(fields["chunk"])
                    if isinstance(kind, str):  # its other events repeat what the chunks carry
                        return []
                (choice,) = choices
                choice = fields_of(choice)
                tool_calls = fields_of(choice["delta"])["tool_calls"]
                finish_reason = choice["finish_reason"]
                if tool_calls is not None:
                    (tool_call,) = tool_calls
                    tool_call = fields_of(tool_call)
                    function = fields_of(tool_call["function"])
                    choice_index, index = choice["index"], tool_call["index"]
                    call_id, name, text = tool_call["id"], function["name"], function["arguments"]
        except (AttributeError, LookupError, TypeError, ValueError):
            return self._feed(chunk)
        if finish_reason is None:
            if tool_calls is None:
                return []  # text, a refusal or the role: no call changed
            call = self._last
            if call is None or call.done or index != self._last_index or choice_index != self._last_choice:
                try:
                    call = self._open.get((choice_index, index))
                except TypeError:  # an index that cannot key a call: the general path reads it as absent
                    call = None
                if call is None:
                    return self._feed(chunk)
                self._last, self._last_choice, self._last_index = call, choice_index, index
            # An id or name that is absent or empty continues the open call at the index: DashScope, Qwen and
            # DeepSeek endpoints send "" on every continuation chunk. (Only a new, non-empty id starts a new call.)
            continues = (not call_id or call_id == call.id) and (not name or call.name is not None)
            if continues and type(text) is str:
                if not text:
                    return []
                call.arguments = call._append_piece(text)
                return [call]
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> list[LiveToolCall]:
        """The general path: any shape of chunk."""
        if get_text(chunk, "type") == "chunk":
            chunk = get_field(chunk, "chunk")
        changed: list[LiveToolCall] = []
        for choice in get_items(chunk, "choices"):
            choice_index = get_key(choice, "index", 0)
            for tool_call in get_items(get_field(choice, "delta"), "tool_calls"):
                changed.extend(self._read_tool_call(choice_index, tool_call))
            finish_reason = get_field(choice, "finish_reason")
            if finish_reason is not None:
                keys = [key for key in self._open if key[0] == choice_index]
                if finish_reason == _LIMIT:
                    changed.extend(self._stopped_early(keys, at_length_limit(f"finish_reason {finish_reason!r}")))
                else:
                    changed.extend(self._finish_open(keys))
        return unique(changed)

    def _read_tool_call(self, choice_index: int, tool_call: Any) -> list[LiveToolCall]:
        key = (choice_index, get_key(tool_call, "index", 0))
        call_id = get_text(tool_call, "id") or None  # "" is no id: it continues the call at the index (see feed)
        function = get_field(tool_call, "function")
        name = get_text(function, "name") or None
        changed = []
        call = self._open.get(key)
        # Some providers give every parallel call the same index; a new id at an index is a new call.
        if call is not None and call_id is not None and call.id is not None and call_id != call.id:
            call = None  # _start ends the call at the index
        if call is None:
            # A new index ends the choice's call before it, where that call's text is whole (see _end_superseded)
            changed.extend(self._end_superseded([other for other in self._open if other[0] == choice_index]))
            changed.extend(self._start(key, call_id, name))
            call = changed[-1]
        elif (call_id is not None and call.id is None) or (name is not None and call.name is None):
            call.id = call.id or call_id
            self._named(call, name)
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

    def __init__(
        self,
        model: Any = None,
        *,
        choice: int = 0,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        super().__init__(model, parser_class=parser_class, stable=stable, coerce=coerce)
        self.choice = choice
        """The index of the choice read (with ``n > 1``)."""

    def feed(self, chunk: Any) -> Any:
        """Read one chunk; return the value so far."""
        try:  # the fast path: one choice whose delta carries a piece of text (see OpenAIChatToolCalls.feed)
            if type(chunk) is dict:
                (choice,) = chunk["choices"]
                delta = choice["delta"]
                text, refusal = delta.get("content"), delta.get("refusal")
                index, finish_reason = choice.get("index", 0), choice.get("finish_reason")
            else:
                fields_of = self._fields_of
                fields = fields_of(chunk)
                choices: Any = fields.get("choices")
                if choices is None:
                    kind = fields.get("type")
                    if kind == "chunk":
                        return self.feed(fields["chunk"])
                    if isinstance(kind, str):
                        return self.value
                (choice,) = choices
                choice = fields_of(choice)
                delta = fields_of(choice["delta"])
                text, refusal = delta["content"], delta["refusal"]
                index, finish_reason = choice["index"], choice["finish_reason"]
        except (AttributeError, LookupError, TypeError, ValueError):
            return self._feed(chunk)
        if type(text) is str and refusal is None and finish_reason is None and index == self.choice:
            return self._append(text)
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> Any:
        if get_text(chunk, "type") == "chunk":
            chunk = get_field(chunk, "chunk")
        for choice in get_items(chunk, "choices"):
            if get_field(choice, "index", 0) != self.choice:
                continue
            delta = get_field(choice, "delta")
            self._append_refusal(get_field(delta, "refusal"))
            text = get_field(delta, "content")
            if isinstance(text, str):
                self._append(text)
            finish_reason = get_field(choice, "finish_reason")
            if finish_reason == _LIMIT:
                self._stopped_early(at_length_limit(f"finish_reason {finish_reason!r}"))
            elif finish_reason is not None:
                self.finish()
        return self.value
