"""Completed values from JSON text: from pieces, each element of an array, or each value at a path pattern, once,
as soon as it is complete; from complete text, the documents it holds.

A layer above the parser: it makes no snapshot and copies nothing. The items of the array at a path of keys and
indices come from the parser itself (``StreamingJsonParser(changes=False, items_at=path).append_items``): an item
costs what reading it does and one list append, with no event and no path. A pattern with ``ANY`` in it is matched
against the parser's done events (``StreamingJsonParser(changes=False, done_events=True)``), at O(1) a done event
beyond parsing (a comparison of the event's path). The parser reports no deeper than the pattern
(``report_depth``): what lies inside a matched value comes whole with it, with no event of its own. Values nested
deeper than the parser can report (``REPORT_DEPTH_LIMIT``) come with the done event of the container at the limit;
they are found by walking that container once.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ._backend import DoneChange, StreamingJsonDocuments, StreamingJsonParser
from ._shared import REPORT_DEPTH_LIMIT, Key, Path, PathArgument, Piece, checked_path, is_items_step

__all__ = ["ANY", "iter_items", "iter_values", "aiter_items", "aiter_values", "split_documents"]

ANY = "*"
"""In a pattern, matches any one key or index."""


class _Selector:
    """Matches done events against a pattern: a tuple of keys, indices and ``ANY``; ``items_only`` also asks that
    the last step be an array index."""

    __slots__ = ("_pattern", "_length", "_prefix", "_rest", "_depth", "_items_only", "_parser")

    def __init__(self, pattern: Path, items_only: bool = False) -> None:
        self._pattern = pattern
        self._length = len(self._pattern)
        # The steps up to the first ANY are compared as one tuple; the rest step by step.
        wildcard = self._pattern.index(ANY) if ANY in self._pattern else self._length
        self._prefix = self._pattern[:wildcard]
        self._rest = [(index, step) for index, step in enumerate(self._pattern) if index > wildcard and step != ANY]
        self._depth = min(self._length, REPORT_DEPTH_LIMIT)
        self._items_only = items_only
        self._parser = StreamingJsonParser(changes=False, done_events=True, report_depth=self._depth)

    def _matches(self, path: Path) -> bool:
        """Whether ``path``, as long as the pattern, matches it (index 1 is not key "1")."""
        if path[: len(self._prefix)] != self._prefix:
            return False
        for index, step in self._rest:
            key = path[index]
            if key != step or type(key) is not type(step):
                return False
        return not self._items_only or type(path[-1]) is int

    def read(self, piece: Piece) -> list[tuple[Path, Any]]:
        """The matches completed by ``piece``, in document order."""
        found: list[tuple[Path, Any]] = []
        length = self._length
        events: list[DoneChange] = self._parser.append(piece)  # type: ignore[assignment]  # changes=False: done only
        for event in events:
            path = event.path
            if len(path) == length:
                if self._matches(path):
                    found.append((path, event.value))
            elif len(path) == self._depth and length > self._depth:
                self._search_below(path, event.value, found)
        return found

    def _search_below(self, path: Path, value: Any, found: list[tuple[Path, Any]]) -> None:
        """Matches inside a container reported whole at the depth limit, children before parents as done events
        come."""
        if any(step != key and step != ANY for step, key in zip(self._pattern, path)):
            return
        # Depth-first without recursion (the container may be nested deeply); every match is at the pattern's depth,
        # so visiting in document order gives them in the order their done events would have come.
        stack: list[tuple[Path, Any]] = [(path, value)]
        while stack:
            where, item = stack.pop()
            if len(where) == self._length:
                if self._matches(where):
                    found.append((where, item))
                continue
            step = self._pattern[len(where)]
            if isinstance(item, dict):
                children: list[tuple[Key, Any]] = list(item.items())
            elif isinstance(item, list):
                children = list(enumerate(item))
            else:
                continue
            for key, child in reversed(children):
                if step == ANY or (step == key and type(step) is type(key)):
                    stack.append(((*where, key), child))


def iter_values(pieces: Iterable[Piece], pattern: PathArgument) -> Iterator[tuple[Path, Any]]:
    """Yield ``(path, value)`` for every completed value whose path matches ``pattern``, as soon as it completes.

    ``pattern`` is a tuple (or list) of keys and indices in which ``"*"`` (``ANY``) matches any one key or index, such
    as ``("edits", "*", "new_text")``; anything else (a str: ``"edits"`` for ``("edits",)``) raises ``TypeError``.
    ``pieces`` is any iterable of str, or of UTF-8 bytes-like pieces. Values come in the order they complete (a
    container after its contents) and are the parser's final values, never changed after.
    """
    return _values(pieces, _Selector(checked_path(pattern, "pattern")))  # checked now, not at the first item


def _values(pieces: Iterable[Piece], selector: _Selector) -> Iterator[tuple[Path, Any]]:
    for piece in pieces:
        yield from selector.read(piece)


def _parser_finds(path: Path) -> bool:
    """Whether the parser finds the array at ``path`` itself (``items_at``): str keys and int indices from 0, no
    ``ANY``. Otherwise the items are matched against done events (an ``ANY`` in ``path`` matches any one step)."""
    return all(is_items_step(step) and step != ANY for step in path)


def _items(pieces: Iterable[Piece], path: Path) -> Iterator[Any]:
    append_items = StreamingJsonParser(changes=False, items_at=path).append_items
    for piece in pieces:
        yield from append_items(piece)


def _matched_items(pieces: Iterable[Piece], path: Path) -> Iterator[Any]:
    selector = _Selector((*path, ANY), items_only=True)
    for piece in pieces:
        for _, value in selector.read(piece):
            yield value


def iter_items(pieces: Iterable[Piece], path: PathArgument = ()) -> Iterator[Any]:
    """Yield each element of the array at ``path`` once, as soon as it is complete, in order.

    ``path`` is a tuple (or list) of keys and indices from the root (``()``: the root array); anything else (a str:
    ``"results"`` for ``("results",)``) raises ``TypeError``. A missing path or a value that is not an array yields
    nothing; where a repeated key replaces the array, the new array's elements follow.
    """
    # The generator itself is returned: an item passes through one generator, not two (``yield from``).
    steps = checked_path(path, "path")
    return _items(pieces, steps) if _parser_finds(steps) else _matched_items(pieces, steps)


def aiter_values(pieces: AsyncIterable[Piece], pattern: PathArgument) -> AsyncIterator[tuple[Path, Any]]:
    """:func:`iter_values` over an async iterable of pieces, such as an SDK's async stream of text deltas."""
    return _avalues(pieces, _Selector(checked_path(pattern, "pattern")))  # checked now, not at the first item


async def _avalues(pieces: AsyncIterable[Piece], selector: _Selector) -> AsyncIterator[tuple[Path, Any]]:
    async for piece in pieces:
        for match in selector.read(piece):
            yield match


def aiter_items(pieces: AsyncIterable[Piece], path: PathArgument = ()) -> AsyncIterator[Any]:
    """:func:`iter_items` over an async iterable of pieces."""
    return _aitems(pieces, checked_path(path, "path"))  # checked now, not at the first item


async def _aitems(pieces: AsyncIterable[Piece], steps: Path) -> AsyncIterator[Any]:
    if _parser_finds(steps):
        append_items = StreamingJsonParser(changes=False, items_at=steps).append_items
        async for piece in pieces:
            for value in append_items(piece):
                yield value
        return
    selector = _Selector((*steps, ANY), items_only=True)
    async for piece in pieces:
        for _, value in selector.read(piece):
            yield value


def split_documents(text: str) -> list[Any]:
    """The JSON documents in complete text, in order: for a provider that concatenated several argument objects
    (``'{"a": 1}{"b": 2}'``), or any text of several values with or without whitespace between them.

    Read as :class:`~streaming_json.StreamingJsonDocuments` reads a stream, leniently, never raising: text between
    documents that starts no value is skipped, and an unterminated last document is not returned.
    """
    documents = StreamingJsonDocuments()
    return documents.append(text) + documents.finish()
