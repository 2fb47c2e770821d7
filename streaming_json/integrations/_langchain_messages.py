"""LangChain and LangGraph: tool calls out of ``AIMessageChunk``'s ``tool_call_chunks``, each piece read once.

LangChain itself rebuilds every call's arguments on every chunk: ``AIMessageChunk``'s validator runs
``parse_partial_json`` (a loop over every character, then pop-a-character-and-retry) on each fragment it is built
with, and ``full = full + chunk`` runs it again on every call's whole text, so a long call costs quadratic time; a cut
stream ends with a valid-looking call. This reader never reads ``chunk.tool_calls`` and never adds chunks: each
fragment's ``args`` goes once into the call's argument stream, and the end of a call is one strict parse.

Imports no LangChain: it reads the chunks' fields (``_fields``), of the objects and of their dict form alike.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any, Optional

from ._fields import get_field, get_items, get_key, get_text
from ._tool_calls import LiveToolCall, ToolCallAccumulator, unique

__all__ = ["LangChainToolCalls", "message_of"]

# LangGraph's stream parts that carry messages: ``stream_mode="messages"`` (a mode's name in a tuple, or the ``type``
# of a ``version="v2"`` part).
_MESSAGES_MODE = "messages"
# The ``type`` of a whole (not streamed) AI message and of its chunk, in their dict form.
_WHOLE_AI_MESSAGE = "ai"


def message_of(item: Any) -> tuple[Any, Hashable]:
    """The message an item of a LangChain or LangGraph stream carries, and the key of the stream it belongs to.

    Reads a message itself (a chunk, a whole message, or their dict form); a ``ChatGenerationChunk`` (``message``);
    LangGraph's ``(message, metadata)`` tuples, keyed by the metadata's ``langgraph_checkpoint_ns`` (the node's task:
    nodes that stream side by side stay apart); with ``subgraphs=True`` or several stream modes, the tuples that wrap
    those (``(namespace, ...)``, ``("messages", ...)``, ``(namespace, "messages", ...)``); and ``version="v2"`` parts
    (``{"type": "messages", "data": (message, metadata)}``). Anything else gives ``(None, None)``.
    """
    stream: Hashable = None
    for _ in range(4):  # the deepest wrapping: (namespace, "messages", (message, metadata))
        if isinstance(item, (tuple, list)):
            if len(item) == 2 and isinstance(item[1], Mapping):  # (message, metadata)
                namespace = item[1].get("langgraph_checkpoint_ns")
                stream = stream if namespace is None else namespace
                item = item[0]
                continue
            if len(item) == 3:  # (namespace, mode, payload)
                item = item[2] if item[1] == _MESSAGES_MODE else None
                continue
            if len(item) == 2:  # (mode, payload) or (namespace, payload)
                if isinstance(item[0], str) and item[0] != _MESSAGES_MODE:
                    return None, None  # another stream mode's part
                item = item[1]
                continue
            return None, None
        if type(item) is dict and item.get("type") == _MESSAGES_MODE and "data" in item:  # a v2 stream part
            item = item["data"]
            continue
        break
    if item is None or isinstance(item, (str, bytes)):
        return None, None
    message = get_field(item, "message")  # a ChatGenerationChunk
    return (item if message is None else message), stream


class LangChainToolCalls(ToolCallAccumulator[Hashable]):
    """Tool calls from LangChain ``AIMessageChunk``\\ s, their dict form, and LangGraph's ``stream_mode="messages"``.

    Reads each chunk's ``tool_call_chunks`` (``name``, ``args``, ``id``, ``index``), the fragments that LangChain's
    chat models stream, never the per-fragment ``tool_calls`` LangChain parses from them and never a sum of chunks.
    A fragment continues the call at its ``index``; without an index, the call with its ``id``; with neither, the
    stream's last call. A new ``id`` at an index is a new call. A call ends when the stream's next call starts (where
    its text is whole: one that is not stays open for its pieces still to come, as a provider that interleaves its
    calls sends them), at the chunk with ``chunk_position == "last"`` (which ``model.stream()`` and ``astream()``
    send last, after a dropped stream too: LangChain cannot tell one), or at :meth:`finish`; each as read, one strict
    parse. A whole ``AIMessage`` (LangGraph streams one that a node returned without streaming) gives its
    ``tool_calls`` as complete calls, and its ``invalid_tool_calls`` as calls whose ``error`` says why; a call id
    already read is not read again.

    Calls are keyed by ``(stream, index)`` (``(stream, id)`` for fragments without an index), where ``stream`` is the
    LangGraph task that streamed the message (its ``langgraph_checkpoint_ns``), or None for a model's own stream.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_key: dict[Hashable, Hashable] = {}  # each stream's last call
        self._ids: set[str] = set()  # every call id read, for the whole messages that repeat streamed calls
        # The call the last chunk continued and where it sits: the next chunk most likely continues it (see feed).
        self._last: Optional[LiveToolCall] = None
        self._last_stream: Hashable = None
        self._last_index: Any = None

    def finish(self) -> list[LiveToolCall]:
        """End the calls still open, as read (one strict parse each): LangChain's chunks carry no end of a call that
        every chat model sends (``chunk_position="last"`` is recent), so the end of the chunks is the end of the
        message. Return them."""
        return self._end_open()

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk (or LangGraph stream part); return the calls it changed."""
        # The fast path: one fragment continuing the call the last chunk continued, in a chunk that does not end the
        # message, as a model or LangGraph streams them. Any other shape raises here or fails a check: the general path.
        try:
            if type(chunk) is tuple:
                message, metadata = chunk  # LangGraph's (message, metadata)
                stream = metadata.get("langgraph_checkpoint_ns")
            else:
                message, stream = chunk, None
            fields = message if type(message) is dict else self._fields_of(message)
            pieces = fields["tool_call_chunks"]
            if fields.get("chunk_position") is None:
                if not pieces:
                    return []  # text, reasoning, usage: no call changed
                (piece,) = pieces
                text, index = piece["args"], piece["index"]
                call = self._last
                if (
                    call is not None
                    and index == self._last_index
                    and stream == self._last_stream
                    and index is not None
                    and not call.done
                    and not piece.get("id")
                    and not piece.get("name")
                    and type(text) is str
                ):
                    if not text:
                        return []
                    call.arguments = call._append_piece(text)
                    return [call]
        except (AttributeError, LookupError, TypeError, ValueError):
            pass
        return self._feed(chunk)

    def _feed(self, item: Any) -> list[LiveToolCall]:
        """The general path: any shape of chunk, message or stream part."""
        message, stream = message_of(item)
        if message is None:
            return []
        changed: list[LiveToolCall] = []
        pieces = get_items(message, "tool_call_chunks")
        if pieces:
            for piece in pieces:
                changed.extend(self._read_piece(stream, piece))
        elif get_text(message, "type") == _WHOLE_AI_MESSAGE:
            changed.extend(self._read_whole_message(stream, message))
        if get_text(message, "chunk_position") == "last":
            changed.extend(self._end_stream(stream))
        return unique(changed)

    def _read_piece(self, stream: Hashable, piece: Any) -> list[LiveToolCall]:
        index = get_key(piece, "index")
        call_id = get_text(piece, "id") or None  # "" is no id: it continues the call (as LangChain's merge reads it)
        name = get_text(piece, "name") or None
        if index is not None:
            key: Hashable = (stream, index)
        elif call_id is not None:
            key = (stream, call_id)
        else:
            key = self._last_key.get(stream, (stream, None))
        changed = []
        call = self._open.get(key)
        if call is not None and call_id is not None and call.id is not None and call_id != call.id:
            call = None  # a new id at an index is a new call
        if call is None:
            # A new call starts: the stream's call before it is over, where its text is whole (see _end_superseded)
            changed.extend(self._end_superseded([other for other in self._open if _in_stream(other, stream)]))
            self._last_key.pop(stream, None)
            changed.extend(self._start(key, call_id, name))
            call = changed[-1]
            if call_id is not None:
                self._ids.add(call_id)
        elif (call_id is not None and call.id is None) or (name is not None and call.name is None):
            call.id = call.id or call_id
            if call_id is not None:
                self._ids.add(call_id)
            self._named(call, name)
            changed.append(call)
        self._last_key[stream] = key
        self._last, self._last_stream, self._last_index = call, stream, index
        arguments = get_field(piece, "args")
        if isinstance(arguments, dict):  # a provider that gives whole arguments: one completed value
            call._replace(json.dumps(arguments, ensure_ascii=False))
            changed.append(call)
        elif call._append(arguments):
            changed.append(call)
        return changed

    def _read_whole_message(self, stream: Hashable, message: Any) -> list[LiveToolCall]:
        """A whole ``AIMessage``: its calls, complete (the valid ones' arguments as JSON, the invalid ones' text)."""
        changed: list[LiveToolCall] = []
        whole = [(call, True) for call in get_items(message, "tool_calls")]
        whole += [(call, False) for call in get_items(message, "invalid_tool_calls")]
        for position, (tool_call, valid) in enumerate(whole):
            call_id = get_text(tool_call, "id") or None
            if call_id is not None and call_id in self._ids:
                continue  # streamed already
            arguments = get_field(tool_call, "args")
            if valid and isinstance(arguments, dict):
                text = json.dumps(arguments, ensure_ascii=False)
            else:
                text = arguments if isinstance(arguments, str) else ""
            key = (stream, call_id if call_id is not None else ("message", get_text(message, "id"), position))
            started = self._start(key, call_id, get_text(tool_call, "name") or None)
            if call_id is not None:
                self._ids.add(call_id)
            started[-1]._replace(text)
            changed.extend(started)
            changed.extend(self._finish_open([key]))
        return changed

    def _end_stream(self, stream: Hashable) -> list[LiveToolCall]:
        self._last_key.pop(stream, None)
        return self._finish_open([key for key in self._open if _in_stream(key, stream)])


def _in_stream(key: Hashable, stream: Hashable) -> bool:
    """Whether the call at ``key`` belongs to ``stream``."""
    return type(key) is tuple and key[0] == stream
