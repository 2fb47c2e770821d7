"""``ModelOutputStream.feed``'s fast paths, in pure Python: the twin of the compiled ``_relay.pyx`` (the same
behaviour, one suite for both: a stream takes the compiled relay with the compiled core's parser, this one with any
other).

Most pieces of a model's output continue what the piece before left open and hold no character that could end it.
The stream arms its relay for one of three such places after each piece it reads the general way
(``ModelOutputStream._settle``), and the relay reads the next piece alone where it can:

- ``arguments``: a call's JSON arguments stream as source text. A piece without the one character every stop
  marker begins with goes to the call's parser by ``append_source()``; where the parser hands it back whole (it lay
  inside the arguments and changed nothing else), it is their next text: one ``ArgumentsDelta``. Where the parser
  reports changes instead, they go to the stream (``changes(text, changes)``).
- ``string``: a string value's text, in the formats that write arguments as text. A piece without either of the (at
  most two) characters that can end it goes out as JSON string content, less a trailing newline the format's
  trimming may shed at the value's end (held back in ``trim_held``, which the stream reads too).
- ``content``: plain content. A piece without a character a marker begins with is one ``ContentDelta``.

Any other piece, or any piece while the relay is off, goes to the stream's general path (``general(text)``), which
ends by arming the relay again or turning it off. The relay never decides what a piece means: it only sees that
nothing in the piece could change what the stream already knows.

A relay is its stream's alone, and a stream, like a parser, is used by one thread at a time; the relay keeps no state
outside its instance (the compiled twin's module holds constants only), so streams of their own run on many threads
at once.
"""

from __future__ import annotations

from json.encoder import encode_basestring as _escape
from typing import Any, Callable

from ._events import ArgumentsDelta, ContentDelta

__all__ = ["Relay"]

_OFF, _ARGUMENTS, _STRING, _CONTENT = 0, 1, 2, 3
_new = tuple.__new__  # builds an event without a Python-level __new__


class Relay:
    """One stream's fast paths (see the module documentation). ``general(text)`` is the stream's general path;
    ``changes(text, changes)`` the general path for a piece the parser has read and reported changes of."""

    __slots__ = (
        "trim_held",
        "strip_held",
        "_general",
        "_changes",
        "_mode",
        "_append_source",
        "_stop",
        "_second",
        "_trim",
        "_strip",
        "_firsts",
        "_chunks",
        "_index",
    )

    def __init__(self, general: Callable[[str], list[Any]], changes: Callable[[str, list[Any]], list[Any]]) -> None:
        self.trim_held = False  # a string value's last newline, held back in case the value ends after it
        self.strip_held = ""  # a stripped string value's last blanks, held back until text follows them
        self._strip = False
        self._general = general
        self._changes = changes
        self._mode = _OFF
        self._append_source: Any = None
        self._stop = self._second = self._trim = self._firsts = ""
        self._chunks: list[str] = []
        self._index = -1

    def off(self) -> None:
        """The next piece takes the general path."""
        self._mode = _OFF
        self._append_source = None
        self._chunks = []

    def arguments(self, parser: Any, stop: str, chunks: list[str], index: int) -> None:
        """The next piece may be more of call ``index``'s JSON arguments, read by ``parser``, where it holds no
        ``stop``; their text goes out and onto ``chunks``."""
        self._mode = _ARGUMENTS
        self._append_source = parser.append_source
        self._stop = stop
        self._chunks = chunks
        self._index = index

    def string(self, stop: str, second: str, trim: str, chunks: list[str], index: int, strip: bool = False) -> None:
        """The next piece may be more of a string value's text in call ``index``, where it holds neither ``stop``
        nor ``second``; a last ``trim`` character is held back (``""``: none); with ``strip``, its last blanks are
        (onto ``strip_held``, which goes out before the next text)."""
        self._mode = _STRING
        self._stop = stop
        self._second = second
        self._trim = trim
        self._strip = strip
        self._chunks = chunks
        self._index = index

    def content(self, firsts: str) -> None:
        """The next piece may be plain content, where it holds none of ``firsts``."""
        self._mode = _CONTENT
        self._firsts = firsts

    def feed(self, text: Any) -> list[Any]:
        """The stream's ``feed``: the piece read by a fast path where one takes it, else by the general path."""
        mode = self._mode
        if mode and type(text) is str:
            if mode == _ARGUMENTS:
                if self._stop not in text:
                    found = self._append_source(text)
                    if type(found) is not str:
                        return self._changes(text, found)
                    self._chunks.append(found)
                    return [_new(ArgumentsDelta, (self._index, found))]
            elif mode == _STRING:
                if self._stop not in text and self._second not in text:
                    if self._strip:
                        text = self.strip_held + text
                        kept = text.rstrip()
                        self.strip_held = text[len(kept) :]
                        text = kept
                    trim = self._trim
                    if trim:
                        held = self.trim_held
                        if held:
                            text = trim + text
                        if text[-1:] == trim:
                            text = text[:-1]
                            self.trim_held = True
                        elif held:
                            self.trim_held = False
                    if not text:
                        return []
                    piece = _escape(text)[1:-1]
                    self._chunks.append(piece)
                    return [_new(ArgumentsDelta, (self._index, piece))]
            else:
                for char in self._firsts:
                    if char in text:
                        break
                else:
                    return [_new(ContentDelta, (text,))] if text else []
        return self._general(text)
