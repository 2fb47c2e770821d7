"""The raw path: the server-sent events of a streaming response, read straight into the dicts the adapters' fast paths
take, with no SDK object built.

Most of what a client spends on a streamed event is the SDK's own building of its models (``construct_type``), before
any reader sees the event: 17 to 170 µs an event against 2.5 to 6.4 µs for ``json.loads`` of its data
(``docs/performance.md``). :func:`sse_events` decodes the stream itself (the ``data:`` lines of each event, joined;
comments, ``event:``, ``id:`` and ``retry:`` lines skipped; ``data: [DONE]`` skipped) and hands each event's data on
as ``loads`` (``json.loads``) reads it.

What it reads: the response of an SDK's ``with_streaming_response.create(..., stream=True)`` (entered and closed
here, or the response inside its ``with``), an ``httpx`` response, or any iterable (or async iterable) of ``bytes``
chunks cut anywhere (``iter_bytes()``) or of ``str`` lines (``iter_lines()``, terminators optional). Lines end with
``\\n``, ``\\r\\n`` or ``\\r``, as the SSE specification says; bytes are UTF-8 (a character cut between two chunks is
joined). An event whose data is not JSON comes as its text; an event left without its blank line at the end of the
stream is read too.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, Callable, Optional

__all__ = ["ServerSentEvents", "sse_events"]

_DONE = "[DONE]"  # the end marker of Chat Completions streams (and of those that copy them)


def sse_events(source: Any, *, loads: Callable[[str], Any] = json.loads) -> ServerSentEvents:
    """The data of each server-sent event of ``source``, as ``loads`` reads it (dicts, for the adapters' fast paths):
    iterate over it (``for``), or ``async for`` over an async source. ``source``: a streaming response (``with
    client.chat.completions.with_streaming_response.create(..., stream=True) as response``, or the manager itself,
    which is entered and closed here), an ``httpx`` response, or an iterable (or async iterable) of ``bytes`` chunks or
    ``str`` lines. ``loads``: e.g. ``orjson.loads``."""
    return ServerSentEvents(source, loads)


class ServerSentEvents:
    """The events of one stream (:func:`sse_events`): an iterable and an async iterable of each event's data, read
    once. The adapters' ``stream()`` and ``astream()`` take it as they take an SDK's stream."""

    def __init__(self, source: Any, loads: Callable[[str], Any] = json.loads) -> None:
        self.source = source
        """What the events are read from."""
        self._loads = loads

    def __iter__(self) -> Iterator[Any]:
        source = self.source
        if _is_manager(source, "__enter__"):
            with source as response:
                yield from _events(_chunks(response), self._loads)
        else:
            yield from _events(_chunks(source), self._loads)

    async def __aiter__(self) -> AsyncIterator[Any]:
        source = self.source
        if _is_manager(source, "__aenter__"):
            async with source as response:
                async for event in _aevents(_achunks(response), self._loads):
                    yield event
        else:
            async for event in _aevents(_achunks(source), self._loads):
                yield event


def _is_manager(source: Any, enter: str) -> bool:
    """Whether ``source`` is a context manager to enter for the response (``with_streaming_response.create()``
    gives one), rather than the response or the chunks themselves."""
    return hasattr(source, enter) and not any(
        hasattr(source, name) for name in ("iter_bytes", "aiter_bytes", "__iter__", "__aiter__")
    )


def _chunks(source: Any) -> Iterable[Any]:
    iter_bytes = getattr(source, "iter_bytes", None)
    if iter_bytes is not None:
        return iter_bytes()  # type: ignore[no-any-return]
    return source  # type: ignore[no-any-return]


def _achunks(source: Any) -> Any:
    for name in ("aiter_bytes", "iter_bytes"):  # httpx's async response; the SDKs' async responses
        method = getattr(source, name, None)
        if method is not None:
            return method()
    return source


class _Reader:
    """The decoder's state between two chunks: the line not yet ended, and the data of the event not yet ended."""

    __slots__ = ("decode", "rest", "data", "loads")

    def __init__(self, loads: Callable[[str], Any]) -> None:
        self.decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self.rest = ""
        self.data: Optional[str] = None
        self.loads = loads

    def read(self, item: Any) -> list[Any]:
        """The events that ``item`` (a chunk of bytes, or a line) ends."""
        if isinstance(item, str):
            # A line, with or without its terminator (a bytes chunk's unended line before it ends first).
            text, self.rest = self.rest + item, ""
            if not text:
                return self._lines([""])
            lines = _split(text)
            last = lines.pop()
            if last:
                lines.append(last)
            elif not lines:
                lines = [""]
            return self._lines(lines)
        text = self.rest + self.decode(bytes(item))
        held = ""
        if text.endswith("\r"):  # the "\n" of its "\r\n" may begin the next chunk
            text, held = text[:-1], "\r"
        lines = _split(text)
        self.rest = lines.pop() + held
        return self._lines(lines)

    def end(self) -> list[Any]:
        """The events the end of the stream ends: the last line, and the last event even without its blank line."""
        text = self.rest + self.decode(b"", True)
        self.rest = ""
        events = self._lines(_split(text)) if text else []
        if self.data is not None:
            events += self._lines([""])
        return events

    def _lines(self, lines: list[str]) -> list[Any]:
        events = []
        data = self.data
        for line in lines:
            if not line:
                if data is not None:
                    if data != _DONE:
                        try:
                            events.append(self.loads(data))
                        except ValueError:
                            events.append(data)
                    data = None
            elif line.startswith("data"):
                if line.startswith("data:"):
                    value = line[6:] if line.startswith("data: ") else line[5:]
                elif line == "data":
                    value = ""
                else:  # a field named otherwise ("database:")
                    continue
                data = value if data is None else f"{data}\n{value}"
            # other fields (event, id, retry) and comments (":") are not needed: the data says what it is
        self.data = data
        return events


def _split(text: str) -> list[str]:
    """``text`` split into lines at ``\\n``, ``\\r\\n`` and ``\\r``; the last item is the rest after the last end."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _events(chunks: Iterable[Any], loads: Callable[[str], Any]) -> Iterator[Any]:
    if hasattr(chunks, "__aiter__") and not hasattr(chunks, "__iter__"):
        raise TypeError("an async source: read it with `async for` (or an adapter's astream())")
    reader = _Reader(loads)
    read = reader.read
    for chunk in chunks:
        yield from read(chunk)
    yield from reader.end()


async def _aevents(chunks: Any, loads: Callable[[str], Any]) -> AsyncIterator[Any]:
    reader = _Reader(loads)
    read = reader.read
    if hasattr(chunks, "__aiter__"):
        async for chunk in chunks:
            for event in read(chunk):
                yield event
    else:
        for chunk in chunks:
            for event in read(chunk):
                yield event
    for event in reader.end():
        yield event
