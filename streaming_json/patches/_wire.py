"""Op streams on the wire: server-sent events, coalesced over a flush interval, in one of three shapes.

A writer takes any op stream (the :class:`PatchEvent` iterables and async iterables of ``_sources``) and a wire
shape: ours (:class:`PatchWire`, what ``patches.js`` reads), AG-UI's events (``_agui``) or the Vercel AI SDK's UI
message stream (``_ai_sdk``). With a flush interval it sends at most one message batch per interval: the events that
arrive within it are merged first (the operations of consecutive ``ops`` events of one value joined by
:func:`~streaming_json.patches.coalesce`, their texts joined), so a stream of pieces a few characters long costs
about the text's own size on the wire. The first event after a quiet interval goes at once.

:func:`aiter_sse` (async, for ASGI servers: a sync source is read in a worker thread, and a batch whose interval ends
while the source is quiet is sent then) and :func:`iter_sse` (sync, for WSGI: a batch goes when the next event comes
after its interval, or at the end).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, Callable, Optional, Protocol

from .._json_patch import JsonPatchOp, coalesce
from .._shared import JsonProblem
from ._events import PatchEvent

__all__ = ["Wire", "PatchWire", "iter_sse", "aiter_sse", "sse_message", "to_json", "problem_json"]

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
"""Headers for any event stream: no cache, and no buffering by a proxy in front (nginx reads the second)."""


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)  # a validated pydantic model: its JSON
    if dump is not None:
        return dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _compact_json() -> Callable[[Any], str]:
    """The encoder of :func:`to_json`, made once. ``json.dumps`` with options builds a ``JSONEncoder`` on every call,
    whose ``encode`` builds the C encoder again: a third of an op event's cost. CPython's C encoder (``_json``), made
    here once, is what ``json.dumps`` runs in the end, with the same output: made without circular-reference marks
    (a parser's values have no cycle, and marks kept in one encoder would be shared by threads writing at once).
    Elsewhere (PyPy, or a ``_json`` that takes other arguments) the ``JSONEncoder``'s ``encode``, made once."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_default)
    make = getattr(json.encoder, "c_make_encoder", None)
    try:
        encode = make(None, _default, json.encoder.encode_basestring, None, ":", ",", False, False, True)  # type: ignore[misc]
        if "".join(encode({"a": ["é", 1.5, None]}, 0)) != '{"a":["é",1.5,null]}':  # a list, or a tuple (3.12)
            raise TypeError("not the encoder this expects")
    except TypeError:
        return encoder.encode
    join = "".join

    def compact(value: Any) -> str:
        return join(encode(value, 0))

    return compact


to_json: Callable[[Any], str] = _compact_json()
"""Compact JSON, non-ASCII as is (an SSE stream is UTF-8)."""

_string_json: Callable[[str], str] = json.encoder.encode_basestring
_OP_NAMES = {"add": '{"op":"add","path":', "replace": '{"op":"replace","path":', "append": '{"op":"append","path":'}


def ops_json(ops: list[JsonPatchOp]) -> str:
    """The JSON of a list of operations: what :func:`to_json` writes, each ``add``, ``replace`` or ``append`` with its
    members in the order :class:`PatchStream` makes them (``op``, ``path``, ``value``). Written here around the JSON of
    the path and the value: even the C encoder costs six times as much on so small an object, and there is an op
    event a piece."""
    written = []
    for op in ops:
        try:
            head, path, value = _OP_NAMES[op["op"]], op["path"], op["value"]
        except (KeyError, TypeError):
            head = None
        if head is None or len(op) != 3 or type(path) is not str:
            written.append(to_json(op))
        elif type(value) is str:
            written.append(f'{head}{_string_json(path)},"value":{_string_json(value)}}}')
        else:
            written.append(f'{head}{_string_json(path)},"value":{to_json(value)}}}')
    return f"[{','.join(written)}]"


def sse_message(data: str, event: Optional[str] = None) -> str:
    """One server-sent event: an ``event:`` line where named, the ``data:`` line (the JSON has no line breaks), the
    blank line."""
    if event is None:
        return f"data: {data}\n\n"
    return f"event: {event}\ndata: {data}\n\n"


def problem_json(problem: Optional[JsonProblem]) -> Optional[dict[str, Any]]:
    """A problem as JSON: ``kind``, ``offset``, ``line``, ``column``, ``detail``."""
    return None if problem is None else problem._asdict()


class Wire(Protocol):
    """A wire shape: how an op stream's events are written as server-sent events."""

    headers: dict[str, str]
    """The response's headers beside the event stream's own."""

    def opening(self) -> list[str]:
        """The messages before the first event."""

    def render(self, event: PatchEvent) -> list[str]:
        """The messages of one event."""

    def closing(self) -> list[str]:
        """The messages after the last event."""

    def failure(self, error: BaseException) -> list[str]:
        """The messages that say the source failed (the response then ends)."""


class PatchWire:
    """This package's own shape, which ``patches.js`` reads: ``start`` (``{"id", "name"}``); the operations as
    unnamed events (SSE's ``message``: ``{"id", "ops"}``, or a document's operations as a bare array); ``end``
    (``{"id", "value"?, "error"?, "problem"?}``: ``value`` only where the operations did not build it already); and,
    last, ``done``. A failed source sends ``error`` (``{"error"}``). A document's events have no ``id``."""

    headers: dict[str, str] = {}

    def opening(self) -> list[str]:
        return []

    def render(self, event: PatchEvent) -> list[str]:
        if event.kind == "ops":  # the most frequent event: unnamed (an SSE "message"), a document's ops bare
            if not event.ops:
                return []  # text that changed nothing yet (a key being written)
            ops = ops_json(event.ops)
            if event.id is None:
                return [f"data: {ops}\n\n"]
            return [f'data: {{"id":{_string_json(event.id)},"ops":{ops}}}\n\n']
        data: dict[str, Any] = {} if event.id is None else {"id": event.id}
        if event.kind == "start":
            data["name"] = event.name
        else:
            if not event.shown:
                data["value"] = event.value
            if event.error is not None:
                data["error"] = event.error
                data["problem"] = problem_json(event.problem)
        return [sse_message(to_json(data), event.kind)]

    def closing(self) -> list[str]:
        return [sse_message("{}", "done")]

    def failure(self, error: BaseException) -> list[str]:
        return [sse_message(to_json({"error": f"{type(error).__name__}: {error}"}), "error")]


class _Batch:
    """The events that arrived within one flush interval, merged: consecutive ``ops`` events of one value are one."""

    __slots__ = ("_events", "_ops", "_texts")

    def __init__(self) -> None:
        self._events: list[PatchEvent] = []
        self._ops: list[list[JsonPatchOp]] = []  # the operations of the last event, while it is an ``ops`` event
        self._texts: list[str] = []

    def __bool__(self) -> bool:
        return bool(self._events)

    def add(self, event: PatchEvent) -> None:
        events = self._events
        if event.kind == "ops" and events and events[-1].kind == "ops" and events[-1].id == event.id:
            self._ops.append(event.ops)
            self._texts.append(event.text)
            return
        self._close_run()
        events.append(event)
        if event.kind == "ops":
            self._ops, self._texts = [event.ops], [event.text]

    def _close_run(self) -> None:
        if len(self._ops) > 1:
            last = self._events[-1]
            self._events[-1] = last._replace(
                ops=coalesce([op for ops in self._ops for op in ops]), text="".join(self._texts)
            )
        self._ops, self._texts = [], []

    def take(self) -> list[PatchEvent]:
        self._close_run()
        events, self._events = self._events, []
        return events


def _written(wire: Wire, events: list[PatchEvent]) -> str:
    render = wire.render
    return "".join([message for event in events for message in render(event)])


def _alone(wire: Wire, event: PatchEvent) -> str:
    """The messages of one event that goes at once, unmerged (no batch around it: most events, a piece each)."""
    messages = wire.render(event)
    return messages[0] if len(messages) == 1 else "".join(messages)


def iter_sse(
    events: Iterable[PatchEvent],
    *,
    wire: Optional[Wire] = None,
    flush_interval: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[str]:
    """The server-sent events of an op stream, as text (encode as UTF-8): one string per batch. With
    ``flush_interval`` (seconds), the events that come within an interval of the last batch wait for the next event
    after it (or the end) and go merged."""
    wire = wire if wire is not None else PatchWire()
    opening = "".join(wire.opening())
    if opening:
        yield opening
    batch = _Batch()
    sent = -float("inf")
    try:
        for event in events:
            now = clock()
            if now - sent < flush_interval:
                batch.add(event)
                continue
            if batch:
                batch.add(event)
                yield _written(wire, batch.take())
            else:
                yield _alone(wire, event)
            sent = now
    except Exception as error:
        yield _written(wire, batch.take()) + "".join(wire.failure(error))
        raise
    yield _written(wire, batch.take()) + "".join(wire.closing())


_END = object()


async def aiter_sse(
    events: Any,
    *,
    wire: Optional[Wire] = None,
    flush_interval: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[str]:
    """:func:`iter_sse` for an ASGI server: ``events`` is an async iterable of op events, or a sync one (read in a
    worker thread, so that a blocking SDK stream does not hold the event loop). A batch whose interval ends while the
    source is quiet is sent then, without waiting for the next event."""
    wire = wire if wire is not None else PatchWire()
    opening = "".join(wire.opening())
    if opening:
        yield opening
    if flush_interval <= 0 and hasattr(events, "__aiter__"):  # each event at once: no batch, so no queue to wait on
        try:
            async for event in events:
                yield _alone(wire, event)
        except Exception as error:
            yield "".join(wire.failure(error))
            raise
        yield "".join(wire.closing())
        return
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    producer = asyncio.ensure_future(_produce(events, queue, loop))
    batch = _Batch()
    sent = -float("inf")
    try:
        while True:
            if queue.empty() and batch:
                wait = sent + flush_interval - clock()
                if wait <= 0:
                    yield _written(wire, batch.take())
                    sent = clock()
                    continue
                try:
                    item = await asyncio.wait_for(queue.get(), wait)
                except asyncio.TimeoutError:
                    continue
            else:
                item = await queue.get()
            while True:  # what else has arrived, without waiting
                if item is _END:
                    yield _written(wire, batch.take()) + "".join(wire.closing())
                    return
                if isinstance(item, BaseException):
                    yield _written(wire, batch.take()) + "".join(wire.failure(item))
                    raise item
                batch.add(item)
                if queue.empty() or flush_interval <= 0:
                    break
                item = queue.get_nowait()
            now = clock()
            if now - sent >= flush_interval:
                yield _written(wire, batch.take())
                sent = now
    finally:
        producer.cancel()


async def _produce(events: Any, queue: asyncio.Queue[Any], loop: asyncio.AbstractEventLoop) -> None:
    """Read the source into the queue, then ``_END`` (or the exception it raised)."""
    try:
        if hasattr(events, "__aiter__"):
            async for event in events:
                await queue.put(event)
        else:
            await loop.run_in_executor(None, _drain, events, queue, loop)
    except Exception as error:
        await queue.put(error)
        return
    await queue.put(_END)


def _drain(events: Iterable[Any], queue: asyncio.Queue[Any], loop: asyncio.AbstractEventLoop) -> None:
    put = queue.put_nowait
    for event in events:
        loop.call_soon_threadsafe(put, event)
