"""The events of a model's output in the shapes that servers send: OpenAI Chat Completions deltas, OpenAI Responses
API events, Anthropic Messages events.

Each renderer passes the argument text through as it came: the concatenation of a call's rendered deltas is exactly
the text of its :class:`ArgumentsDelta` events. They render only what the model's output holds; the server adds its
own framing (the chunk's ``id`` and ``model``, ``response.created``, ``message_start``, usage, the stop reason).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, Callable, Optional

from ._events import ArgumentsDelta, ContentDelta, ModelOutputEvent, ReasoningDelta, ToolCallEnd, ToolCallStart

__all__ = ["openai_chat_deltas", "OpenAIResponsesEvents", "AnthropicMessagesEvents"]


def openai_chat_deltas(events: Iterable[ModelOutputEvent]) -> list[dict[str, Any]]:
    """The Chat Completions ``delta`` objects of the events, one each, for a server to send as
    ``{"choices": [{"index": 0, "delta": delta}]}``.

    Content is ``{"content": text}``, reasoning ``{"reasoning_content": text}``; a call's first delta is
    ``{"tool_calls": [{"index", "id", "type": "function", "function": {"name", "arguments": ""}}]}`` and each piece of
    its arguments ``{"tool_calls": [{"index", "function": {"arguments": text}}]}``. A call's end has no delta: the
    server ends the stream with ``finish_reason`` ``"tool_calls"`` where the output held calls.
    """
    deltas: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, ArgumentsDelta):
            deltas.append({"tool_calls": [{"index": event.index, "function": {"arguments": event.text}}]})
        elif isinstance(event, ContentDelta):
            deltas.append({"content": event.text})
        elif isinstance(event, ToolCallStart):
            function = {"name": event.name, "arguments": ""}
            call = {"index": event.index, "id": event.id, "type": "function", "function": function}
            deltas.append({"tool_calls": [call]})
        elif isinstance(event, ReasoningDelta):
            deltas.append({"reasoning_content": event.text})
    return deltas


def _fresh_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


class _Blocks:
    """What the two stateful renderers share: the output item (or content block) open now, the text of the open
    calls' arguments, and how events are numbered."""

    def __init__(self, new_id: Optional[Callable[[str], str]], first_index: int) -> None:
        self._new_id = new_id or _fresh_id
        self._next_index = first_index
        self._open: Optional[tuple[str, int, str]] = None  # (kind: "content" or "reasoning", index, id)
        self._calls: dict[int, tuple[int, str, str, str, list[str]]] = {}  # call index -> its item and arguments

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index


class OpenAIResponsesEvents(_Blocks):
    """The events of a model's output as OpenAI Responses API stream events (dicts), for ``/v1/responses``.

    ``render(events)`` returns the events for a piece's events, ``finish()`` those that close what is still open.
    Text goes into a ``message`` output item (``response.output_text.delta``), reasoning into a ``reasoning`` item
    (``response.reasoning_text.delta``), and each call into a ``function_call`` item:
    ``response.output_item.added``, ``response.function_call_arguments.delta`` for each piece,
    ``response.function_call_arguments.done`` and ``response.output_item.done`` with the whole arguments. Every event
    has a ``sequence_number``; ``next_sequence_number`` is the next one, for the server's own events.
    ``first_output_index`` is the first item's ``output_index``; ``new_id(prefix)`` makes item ids (by default
    ``msg_``, ``rs_`` and ``fc_`` and 24 hex digits).
    """

    def __init__(
        self,
        *,
        first_output_index: int = 0,
        first_sequence_number: int = 0,
        new_id: Optional[Callable[[str], str]] = None,
    ) -> None:
        super().__init__(new_id, first_output_index)
        self.next_sequence_number = first_sequence_number
        """The sequence number of the next event."""
        self._out: list[dict[str, Any]] = []
        self._texts: list[str] = []  # the open text item's text so far

    def render(self, events: Iterable[ModelOutputEvent]) -> list[dict[str, Any]]:
        """The Responses API events of the model's output events."""
        out: list[dict[str, Any]] = []
        self._out = out
        for event in events:
            if isinstance(event, ArgumentsDelta):
                output_index, item_id, _, _, chunks = self._calls[event.index]
                chunks.append(event.text)
                self._emit(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=output_index,
                    delta=event.text,
                )
            elif isinstance(event, (ContentDelta, ReasoningDelta)):
                self._text(event.kind, event.text)
            elif isinstance(event, ToolCallStart):
                self._close_text()
                output_index, item_id = self._take_index(), self._new_id("fc")
                self._calls[event.index] = (output_index, item_id, event.id, event.name, [])
                item = self._call_item(item_id, event.id, event.name, "", "in_progress")
                self._emit("response.output_item.added", output_index=output_index, item=item)
            elif isinstance(event, ToolCallEnd):
                self._end_call(event.index)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """The events that close what is still open (the text item; calls the output left open)."""
        out: list[dict[str, Any]] = []
        self._out = out
        self._close_text()
        for index in list(self._calls):
            self._end_call(index)
        return out

    def _emit(self, kind: str, **fields: Any) -> None:
        self._out.append({"type": kind, "sequence_number": self.next_sequence_number, **fields})
        self.next_sequence_number += 1

    @staticmethod
    def _call_item(item_id: str, call_id: str, name: str, arguments: str, status: str) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
            "status": status,
        }

    def _text(self, kind: str, text: str) -> None:
        if self._open is None or self._open[0] != kind:
            self._close_text()
            output_index = self._take_index()
            if kind == "content":
                item_id = self._new_id("msg")
                item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
                part = {"type": "output_text", "text": "", "annotations": []}
            else:
                item_id = self._new_id("rs")
                item = {"type": "reasoning", "id": item_id, "summary": [], "content": []}
                part = {"type": "reasoning_text", "text": ""}
            self._open = (kind, output_index, item_id)
            self._texts = []
            self._emit("response.output_item.added", output_index=output_index, item=item)
            self._emit(
                "response.content_part.added", item_id=item_id, output_index=output_index, content_index=0, part=part
            )
        _, output_index, item_id = self._open
        self._texts.append(text)
        if kind == "content":
            self._emit(
                "response.output_text.delta",
                item_id=item_id,
                output_index=output_index,
                content_index=0,
                delta=text,
                logprobs=[],
            )
        else:
            self._emit(
                "response.reasoning_text.delta", item_id=item_id, output_index=output_index, content_index=0, delta=text
            )

    def _close_text(self) -> None:
        if self._open is None:
            return
        kind, output_index, item_id = self._open
        self._open = None
        text = "".join(self._texts)
        where = {"item_id": item_id, "output_index": output_index, "content_index": 0}
        if kind == "content":
            part = {"type": "output_text", "text": text, "annotations": []}
            self._emit("response.output_text.done", **where, text=text, logprobs=[])
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": [part]}
        else:
            part = {"type": "reasoning_text", "text": text}
            self._emit("response.reasoning_text.done", **where, text=text)
            item = {"type": "reasoning", "id": item_id, "summary": [], "content": [part]}
        self._emit("response.content_part.done", **where, part=part)
        self._emit("response.output_item.done", output_index=output_index, item=item)

    def _end_call(self, index: int) -> None:
        call = self._calls.pop(index, None)
        if call is None:
            return
        output_index, item_id, call_id, name, chunks = call
        arguments = "".join(chunks)
        self._emit(
            "response.function_call_arguments.done", item_id=item_id, output_index=output_index, arguments=arguments
        )
        item = self._call_item(item_id, call_id, name, arguments, "completed")
        self._emit("response.output_item.done", output_index=output_index, item=item)


class AnthropicMessagesEvents(_Blocks):
    """The events of a model's output as Anthropic Messages stream events (dicts), for ``/v1/messages``.

    ``render(events)`` returns the events for a piece's events, ``finish()`` those that close what is still open.
    Text is a ``text`` content block (``text_delta``), reasoning a ``thinking`` block (``thinking_delta``), each call
    a ``tool_use`` block: ``content_block_start`` with its id and name, an ``input_json_delta`` for each piece of its
    arguments, ``content_block_stop``. ``first_index`` is the first block's index; the server sends
    ``message_start`` before and ``message_delta`` (``stop_reason`` ``"tool_use"`` where there were calls) and
    ``message_stop`` after.
    """

    def __init__(self, *, first_index: int = 0) -> None:
        super().__init__(None, first_index)
        self._out: list[dict[str, Any]] = []

    def render(self, events: Iterable[ModelOutputEvent]) -> list[dict[str, Any]]:
        """The Messages events of the model's output events."""
        out: list[dict[str, Any]] = []
        self._out = out
        for event in events:
            if isinstance(event, ArgumentsDelta):
                block = self._calls[event.index][0]
                delta = {"type": "input_json_delta", "partial_json": event.text}
                out.append({"type": "content_block_delta", "index": block, "delta": delta})
            elif isinstance(event, (ContentDelta, ReasoningDelta)):
                self._text(event.kind, event.text)
            elif isinstance(event, ToolCallStart):
                self._close_text()
                block = self._take_index()
                self._calls[event.index] = (block, "", event.id, event.name, [])
                content_block = {"type": "tool_use", "id": event.id, "name": event.name, "input": {}}
                out.append({"type": "content_block_start", "index": block, "content_block": content_block})
            elif isinstance(event, ToolCallEnd):
                self._end_call(event.index)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """The events that close what is still open (the text block; calls the output left open)."""
        out: list[dict[str, Any]] = []
        self._out = out
        self._close_text()
        for index in list(self._calls):
            self._end_call(index)
        return out

    def _text(self, kind: str, text: str) -> None:
        if self._open is None or self._open[0] != kind:
            self._close_text()
            block = self._take_index()
            self._open = (kind, block, "")
            if kind == "content":
                content_block: dict[str, Any] = {"type": "text", "text": ""}
            else:
                content_block = {"type": "thinking", "thinking": "", "signature": ""}
            self._out.append({"type": "content_block_start", "index": block, "content_block": content_block})
        block = self._open[1]
        delta = (
            {"type": "text_delta", "text": text} if kind == "content" else {"type": "thinking_delta", "thinking": text}
        )
        self._out.append({"type": "content_block_delta", "index": block, "delta": delta})

    def _close_text(self) -> None:
        if self._open is not None:
            self._out.append({"type": "content_block_stop", "index": self._open[1]})
            self._open = None

    def _end_call(self, index: int) -> None:
        call = self._calls.pop(index, None)
        if call is not None:
            self._out.append({"type": "content_block_stop", "index": call[0]})
