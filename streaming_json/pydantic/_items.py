"""``iter_models`` and ``aiter_models``: the completed elements of an array, each validated once as soon as it is
complete; nothing else of the document is copied or validated."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Callable, Optional, TypeVar, overload

from .._backend import StreamingJsonParser
from .._shared import Path, Piece
from ._nodes import dumps
from ._plan import adapter

__all__ = ["iter_models", "aiter_models"]

T = TypeVar("T")
ErrorCallback = Callable[[Path, BaseException], Any]


class _Items:
    """The completed elements of the array at ``path``, validated as ``item_type``."""

    __slots__ = ("parser", "path", "depth", "adapter", "on_error")

    def __init__(self, item_type: Any, path: Path, on_error: Optional[ErrorCallback], parser_class: Any) -> None:
        parser_class = parser_class if parser_class is not None else StreamingJsonParser
        self.parser = parser_class(changes=False, done_events=True)
        self.path = tuple(path)
        self.depth = len(self.path) + 1
        self.adapter = adapter(item_type)
        self.on_error = on_error

    def read(self, piece: Piece) -> list[Any]:
        found = []
        for event in self.parser.append(piece):
            path = event.path
            if len(path) == self.depth and type(path[-1]) is int and path[:-1] == self.path:
                validator = self.adapter.validator
                try:
                    found.append(validator.validate_python(event.value))
                    continue
                except Exception:
                    pass
                try:  # strict types take what JSON gives only from JSON text
                    found.append(validator.validate_json(dumps(event.value)))
                except Exception as error:
                    if self.on_error is not None:
                        self.on_error(path, error)
        return found


@overload
def iter_models(
    pieces: Iterable[Piece],
    item_type: type[T],
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> Iterator[T]: ...


@overload
def iter_models(
    pieces: Iterable[Piece],
    item_type: Any,
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> Iterator[Any]: ...


def iter_models(
    pieces: Iterable[Piece],
    item_type: Any,
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> Iterator[Any]:
    """Each element of the array at ``path`` as a validated ``item_type``, once, as soon as it is complete.

    ``pieces`` is any iterable of ``str`` or of UTF-8 bytes-like pieces; ``path`` a tuple of JSON keys and indices
    (``()``: the root is the array). An element that fails validation is skipped and ``on_error(path, error)`` is
    called, if given. Each element is validated once; nothing else of the document is copied or validated.
    """
    items = _Items(item_type, path, on_error, parser_class)
    for piece in pieces:
        yield from items.read(piece)


@overload
def aiter_models(
    pieces: AsyncIterable[Piece],
    item_type: type[T],
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> AsyncIterator[T]: ...


@overload
def aiter_models(
    pieces: AsyncIterable[Piece],
    item_type: Any,
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> AsyncIterator[Any]: ...


async def aiter_models(
    pieces: AsyncIterable[Piece],
    item_type: Any,
    path: Path = (),
    on_error: Optional[ErrorCallback] = None,
    *,
    parser_class: Any = None,
) -> AsyncIterator[Any]:
    """:func:`iter_models` over an async iterable of pieces."""
    items = _Items(item_type, path, on_error, parser_class)
    async for piece in pieces:
        for item in items.read(piece):
            yield item
