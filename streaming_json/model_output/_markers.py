"""Finding markers in text that arrives in pieces: the first one in a piece, and where the piece's end could be the
start of one (held back until the next piece says).

Each search is ``str.find`` in C: once a marker for the first occurrence, and once a marker's first character for
the end of the piece, which almost never holds one; so a piece costs a few scans of it, not a loop over its
characters in Python.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["Markers"]


class Markers:
    """A set of markers to look for, e.g. a format's end-of-call and start-of-call markers."""

    __slots__ = ("markers", "_by_first", "_longest")

    def __init__(self, *markers: Optional[str]) -> None:
        # Longest first, so that a marker that begins another is not found in its place.
        self.markers = tuple(sorted({marker for marker in markers if marker}, key=len, reverse=True))
        self._by_first: dict[str, tuple[str, ...]] = {}
        for marker in self.markers:
            self._by_first[marker[0]] = (*self._by_first.get(marker[0], ()), marker)
        self._longest = max((len(marker) for marker in self.markers), default=0)

    def __bool__(self) -> bool:
        return bool(self.markers)

    def find(self, text: str, start: int = 0) -> tuple[int, str]:
        """The first marker in ``text[start:]``: its position and itself, or ``(-1, "")``."""
        found, which = -1, ""
        for marker in self.markers:
            position = text.find(marker, start, found + len(marker) if found >= 0 else len(text))
            if position >= 0 and (found < 0 or position < found):
                found, which = position, marker
        return found, which

    def held_from(self, text: str, start: int = 0) -> int:
        """Where the end of ``text`` (from ``start``) could begin a marker that the next piece completes: the
        position of the longest such beginning, or ``len(text)``. Call it on text that holds no whole marker."""
        length = len(text)
        window = max(start, length - self._longest + 1)
        best = length
        for first, markers in self._by_first.items():
            position = text.find(first, window)
            while 0 <= position < best:
                tail = text[position:]
                if any(marker.startswith(tail) for marker in markers):
                    best = position
                    break
                position = text.find(first, position + 1)
        return best
