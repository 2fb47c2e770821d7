"""Ollama's native chat API (``/api/chat``): tool calls from the chunks of the ``ollama`` client's
``chat(..., stream=True)`` (``ChatResponse`` objects, sync or ``AsyncClient``), or from the chunks' dicts as the API
streams them (one JSON object a line).

Ollama sends each call whole: a chunk's ``message.tool_calls`` holds calls complete with their arguments (a JSON
object, not text), and several chunks may each hold some. The chunks in between carry the message's text
(``content``) and reasoning (``thinking``), which change no call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._fields import get_field, get_items, get_text
from ._tool_calls import LiveToolCall, ToolCallAccumulator, unique

__all__ = ["OllamaToolCalls"]


class OllamaToolCalls(ToolCallAccumulator[int]):
    """Tool calls from Ollama ``/api/chat`` stream chunks (the ``ollama`` client's ``ChatResponse`` objects or dicts).

    Each call in a chunk's ``message.tool_calls`` comes whole, so it starts and ends in that chunk: ``feed()``
    returns it done, its arguments read strictly (``function.arguments``: an object, or text where a server sends
    text). Calls are keyed by their number in the message, from 0; ``id`` is the call's ``id`` where the server gives
    one (Ollama's recent releases; the ``ollama`` client's objects keep none), else None, and a call whose id was
    read already is not read again. A stream that ends early (no chunk with ``done``) loses no call it carried: none
    is ever open. Arguments that hold several whole JSON objects back to back become that many calls
    (``LiveToolCall.repair``), as in every adapter.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ids: set[str] = set()  # every call id read, for a server that sends a call again
        self._count = 0  # the calls the message started

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk; return the calls it changed."""
        # The fast path: a chunk of text or reasoning, which carries no call. Any other shape: the general path.
        try:
            if type(chunk) is dict:
                tool_calls = chunk["message"].get("tool_calls")
            else:  # the client's objects: the field out of each one's instance dict (see _fields)
                fields_of = self._fields_of
                tool_calls = fields_of(fields_of(chunk)["message"])["tool_calls"]
        except (AttributeError, LookupError, TypeError):
            return self._feed(chunk)
        if tool_calls is None:
            return []
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> list[LiveToolCall]:
        """The general path: any shape of chunk."""
        changed: list[LiveToolCall] = []
        for tool_call in get_items(get_field(chunk, "message"), "tool_calls"):
            call_id = get_text(tool_call, "id") or None
            if call_id is not None:
                if call_id in self._ids:
                    continue  # sent again
                self._ids.add(call_id)
            function = get_field(tool_call, "function")
            key, self._count = self._count, self._count + 1
            started = self._start(key, call_id, get_text(function, "name") or None)
            started[-1]._replace(_arguments_text(get_field(function, "arguments")))
            changed.extend(started)
            changed.extend(self._finish_open([key]))
        return unique(changed)


def _arguments_text(arguments: Any) -> str:
    """A call's arguments as JSON text: an object as JSON, text as it is; blank (read as ``{}``) where absent. A value
    that is no JSON (an odd event's) gives its ``repr``, which the strict parse reports as malformed."""
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    try:
        return json.dumps(dict(arguments) if isinstance(arguments, Mapping) else arguments, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(arguments)
