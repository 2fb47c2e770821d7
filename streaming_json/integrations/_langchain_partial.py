"""LangChain's reading of partial JSON, and of where a text output's JSON is, made from one backend parser that
reads each piece once; the LangChain drop-ins (``_langchain_parsers``) read with these. Imports no LangChain.

LangChain's reading of partial JSON (``parse_partial_json``: close the open string and containers, then cut the text
back until it parses) is one backend parser's reading (``stable``) with three differences, which
:class:`PartialJson` makes: a literal shows only once whole (``tr`` shows nothing); an open string that ends in an
unterminated ``\\u`` escape is left out whole (its member or element is not shown), and one that ends in a high
surrogate waiting for its low one shows it as it is; in a text output, what LangChain strips off the end of the text
is no part of the value, even inside an open string (:func:`stripped_end`: Unicode whitespace, as ``str.strip()``
removes it, then blanks and backticks). The second is found from
a small tail of the text, the first and third by holding that tail back from the parser until the next piece tells
what it is: no piece is read twice.

A text output's JSON is where ``parse_json_markdown`` finds it (:class:`JsonInText`): the whole text, where it starts
with a JSON value (after Unicode whitespace, then blanks and backticks); else what follows the text's first fence
(```` ``` ````, with ``json`` right after it left out). Both are looked for in the text so far, not in a piece, so a
fence or a value's first characters split across pieces read as whole.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable
from typing import Any, Callable, Optional

from .._backend import StreamingJsonParser
from .._repair import parse_json_with_repair, parse_tool_call_arguments
from .._shared import MISSING, ToolCallReplace, ToolCallResult, continuation

__all__ = [
    "NOT_SHOWN",
    "JsonInText",
    "LangChainArguments",
    "PartialJson",
    "parse_text_output",
    "same_value",
]

_STRIPPED = " \n\r\t`"  # what LangChain strips off both ends of a text output (``_json_strip_chars``)
_FENCE = "```"
_FENCE_LANGUAGE = "json"
_VALUE_STARTS = frozenset('{["0123456789')
_LITERALS = ("true", "false", "null")
_LITERAL_STARTS = frozenset(word[:length] for word in _LITERALS for length in range(1, len(word)))
_LETTERS = string.ascii_letters
_TAIL = 16  # characters of the text fed kept for the escape checks (a longer run of backslashes is counted in full)
_INCOMPLETE_ESCAPE = re.compile(r"(\\+)u[0-9a-fA-F]{0,3}\Z")
_HIGH_SURROGATE = re.compile(r"(\\+)u([dD][89abAB][0-9a-fA-F]{2})\\?\Z")

# --- LangChain's reading of partial JSON ------------------------------------------------------------------------------


def stripped_end(text: str) -> int:
    """How many characters at the end of a text output LangChain's ``JsonOutputParser`` strips off before it parses:
    its ``text.strip()`` (every character ``str.isspace()`` calls whitespace: ``\\xa0``, ``\\u2028``, ``\\u3000``,
    ``\\x1c``...), then ``parse_json_markdown``'s ``strip(" \\n\\r\\t`")``. So ``"x`\\xa0"`` loses both;
    ``"x\\xa0`"`` only its backtick."""
    return len(text) - len(text.rstrip().rstrip(_STRIPPED))


def _is_stripped_char(char: str) -> bool:
    """Whether ``char`` is one that LangChain may strip off the end of a text output."""
    return char in _STRIPPED or char.isspace()


class PartialJson:
    """The value LangChain's ``parse_partial_json`` gives a JSON text that grows, reading each piece once (see the
    module's docstring): ``append`` each piece; it returns the value so far, ``MISSING`` where LangChain's has none.

    ``strip_tail``: the text is a text output's, whose end LangChain strips (:func:`stripped_end`)."""

    __slots__ = (
        "_parser",
        "_strip_tail",
        "_held",
        "_held_blank",
        "_held_only_blanks",
        "_fed",
        "_tail",
        "_open_string",
        "_value",
    )

    def __init__(self, parser_class: Optional[Callable[..., Any]] = None, strip_tail: bool = False) -> None:
        # Changes and done events say which string is open where (a key's string makes none), for the escape checks.
        self._parser: Any = (parser_class or StreamingJsonParser)(changes=True, done_events=True, stable=True)
        self._strip_tail = strip_tail
        self._held: list[str] = []  # the tail held back: the start of a literal, or what LangChain strips off the end
        self._held_blank = False  # the tail held is what LangChain strips off the end
        self._held_only_blanks = False  # ... and holds only blanks and backticks (no other whitespace)
        self._fed: list[str] = []  # the text the parser has read
        self._tail = ""  # its last _TAIL characters
        self._open_string: Optional[tuple[Any, ...]] = None  # the path of the value string the text ends in
        self._value: Any = MISSING

    @property
    def text(self) -> str:
        """The text appended so far."""
        if len(self._fed) > 1:
            self._fed = ["".join(self._fed)]
        return (self._fed[0] if self._fed else "") + "".join(self._held)

    def append(self, piece: str) -> Any:
        if not piece:
            return self._value
        if self._held:
            if self._held_blank and self._still_stripped(piece):  # more of what LangChain strips off the end
                self._held.append(piece)
                self._held_only_blanks = self._held_only_blanks and not piece.strip(_STRIPPED)
                return self._value
            piece = "".join(self._held) + piece
            self._held = []
        literal = _literal_start_length(piece)
        if literal:  # "tr": a literal shows once whole; in a string, it is the string's text
            self._feed(piece[:-literal])
            if self._parser.in_string:
                self._feed(piece[-literal:])
            else:
                self._held, self._held_blank = [piece[-literal:]], False
        elif self._strip_tail and _is_stripped_char(piece[-1]):
            blank = piece[-stripped_end(piece) :]
            self._feed(piece[: len(piece) - len(blank)])
            # Stripped off the end of the text: not (yet) part of an open string, nor read as an error outside one.
            if self._parser.in_string or blank.strip(_STRIPPED):
                self._held, self._held_blank = [blank], True
                self._held_only_blanks = not blank.strip(_STRIPPED)
            else:
                self._feed(blank)
        else:
            self._feed(piece)
        self._value = self._current()
        return self._value

    def _still_stripped(self, piece: str) -> bool:
        """Whether the end held back, then ``piece``, is all stripped off the end of the text (whitespace after
        blanks and backticks, or blanks and backticks after blanks and backticks alone)."""
        rest = piece.rstrip()
        return not rest or (self._held_only_blanks and not rest.strip(_STRIPPED))

    def _feed(self, text: str) -> None:
        if not text:
            return
        changes = self._parser.append(text)
        if changes:
            self._open_string = _open_value_string(changes, self._open_string)
        self._fed.append(text)
        self._tail = (self._tail + text)[-_TAIL:]

    def _current(self) -> Any:
        parser = self._parser
        value = parser.snapshot()
        path = self._open_string
        if path is None or value is MISSING or "\\u" not in self._tail[-7:] or not parser.in_string:
            return value
        if not parser.open_path_is_small:  # the snapshot may lag behind the text: nothing to correct it by
            return value
        match = _INCOMPLETE_ESCAPE.search(self._tail)
        if match is not None and self._escapes(match):
            return _replaced(value, path, MISSING)  # LangChain's parse fails on it, and cuts the string off
        match = _HIGH_SURROGATE.search(self._tail)
        if match is not None and self._escapes(match):
            try:
                text = _at(value, path)
            except (LookupError, TypeError):
                return value
            if type(text) is str:  # the parser holds the surrogate until it sees whether a low one follows
                return _replaced(value, path, text + chr(int(match.group(2), 16)))
        return value

    def _escapes(self, match: re.Match[str]) -> bool:
        """Whether the run of backslashes ``match`` starts with ends in one that starts an escape (an odd run)."""
        run = len(match.group(1))
        if match.start(1) == 0 and len(self._tail) == _TAIL:  # the run may go on before the tail: count it all
            run = _backslashes_before(self._fed, len(self._tail) - match.end(1))
        return run % 2 == 1


def _literal_start_length(text: str) -> int:
    """The length of the start of a literal (``t`` ... ``nul``) that ``text`` ends with, else 0."""
    tail = text[-5:]
    run = len(tail) - len(tail.rstrip(_LETTERS))
    return run if 0 < run < 5 and tail[-run:] in _LITERAL_STARTS else 0


def _open_value_string(changes: Iterable[Any], path: Optional[tuple[Any, ...]]) -> Optional[tuple[Any, ...]]:
    """The path of the value string left open after ``changes`` (``path`` before them), or None: a string value
    shows (``set``) or grows (``append``) until it is done; a key's string makes no change."""
    for change in changes:
        kind = type(change).__name__  # either backend's change types
        if kind == "DoneChange":
            if change.path == path:
                path = None
        elif kind == "AppendChange" or type(getattr(change, "value", None)) is str:
            path = change.path
    return path


def _backslashes_before(pieces: list[str], from_end: int) -> int:
    """How many backslashes the text of ``pieces`` has in a row before its last ``from_end`` characters."""
    count = 0
    for piece in reversed(pieces):
        if from_end >= len(piece):
            from_end -= len(piece)
            continue
        part = piece[: len(piece) - from_end]
        from_end = 0
        kept = part.rstrip("\\")
        count += len(part) - len(kept)
        if kept:
            break
    return count


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """``value`` with its member at ``path`` replaced by ``new``, or left out where ``new`` is ``MISSING``: the
    containers on the way copied (the open path: what a snapshot copies), the rest shared."""
    containers = [value]
    for key in path[:-1]:
        containers.append(containers[-1][key])
    for container, key in zip(reversed(containers), reversed(path)):
        copy: Any = dict(container) if type(container) is dict else list(container)
        if new is MISSING:
            del copy[key]
        else:
            copy[key] = new
        new = copy
    return new


def same_value(a: Any, b: Any) -> bool:
    """Whether two readings of one stream hold equal values (``==``, as LangChain compares them: ``1`` and ``1.0``
    are equal), in time that does not grow with the document: a reading differs from an earlier one only along the
    earlier one's open path (its last member at every depth; the closed members are the same objects), so that path is
    all there is to compare."""
    while a is not b:
        kind = type(a)
        if kind is dict:
            if type(b) is not dict or len(a) != len(b):
                return False
            if not a:
                return True
            (key_a, a), (key_b, b) = next(reversed(a.items())), next(reversed(b.items()))
            if key_a != key_b:
                return False
        elif kind is list:
            if type(b) is not list or len(a) != len(b):
                return False
            if not a:
                return True
            a, b = a[-1], b[-1]
        else:
            return type(b) is not dict and type(b) is not list and bool(a == b)
    return True


# --- Where a text output's JSON is ----------------------------------------------------------------------------------

_WAIT, _FOUND, _NONE = range(3)


def _value_start(head: str) -> int:
    """Whether ``head`` (a text's start, blanks and backticks skipped) starts a value ``parse_partial_json`` parses
    (``_FOUND``), cannot (``_NONE``), or cannot tell yet (``_WAIT``: ``-``, or the start of a literal)."""
    first = head[0]
    if first in _VALUE_STARTS:
        return _FOUND
    if first == "-":
        return _WAIT if len(head) == 1 else _FOUND if head[1] in "0123456789" else _NONE
    for word in _LITERALS:
        if word[0] == first:
            if len(head) < len(word):
                return _WAIT if word.startswith(head) else _NONE
            return _FOUND if head.startswith(word) else _NONE
    return _NONE


class _ValueAtStart:
    """A text that may start with a JSON value, read piece by piece: ``feed`` returns ``(_FOUND, the text from the
    value's start on)``, ``(_NONE, "")`` or ``(_WAIT, "")``. What comes before the value is skipped as LangChain
    strips it: with ``whitespace`` (the whole text output's start), whitespace first (``str.strip()``, in its
    ``JsonOutputParser``), then blanks and backticks (``parse_json_markdown``'s strip, which is all a fenced region's
    start gets)."""

    __slots__ = ("_head", "_whitespace", "state")

    def __init__(self, whitespace: bool = False) -> None:
        self._head = ""  # the text since the first character not skipped, while undecided
        self._whitespace = whitespace  # still skipping whitespace, before the blanks and backticks
        self.state = _WAIT

    def feed(self, piece: str) -> tuple[int, str]:
        if not self._head:
            if self._whitespace:
                piece = piece.lstrip()
                if not piece:
                    return _WAIT, ""
                self._whitespace = False
            piece = piece.lstrip(_STRIPPED)
            if not piece:
                return _WAIT, ""
        head = self._head + piece
        self.state = _value_start(head)
        self._head = head if self.state == _WAIT else ""  # a literal's start or "-": a few characters
        return self.state, head if self.state == _FOUND else ""


class _ValueAfterFence:
    """A text whose JSON follows its first fence, read piece by piece (``feed`` as :class:`_ValueAtStart`'s): the
    fence is looked for across pieces, its ``json`` tag waited for."""

    __slots__ = ("_before", "_tag", "_in_region", "_value")

    def __init__(self) -> None:
        self._before = ""  # the last characters before the fence, which may start it
        self._tag: Optional[str] = None  # the text after the fence while it may be the tag's start
        self._in_region = False
        self._value = _ValueAtStart()

    def feed(self, piece: str) -> tuple[int, str]:
        if self._in_region:
            return self._value.feed(piece)
        if self._tag is None:
            window = self._before + piece
            fence = window.find(_FENCE)
            if fence < 0:
                self._before = window[-(len(_FENCE) - 1) :]
                return _WAIT, ""
            self._tag, piece = "", window[fence + len(_FENCE) :]
        tag = self._tag + piece
        if len(tag) < len(_FENCE_LANGUAGE) and _FENCE_LANGUAGE.startswith(tag):
            self._tag = tag
            return _WAIT, ""
        self._in_region = True
        return self._value.feed(tag[len(_FENCE_LANGUAGE) :] if tag.startswith(_FENCE_LANGUAGE) else tag)


class JsonInText:
    """Where a text output's JSON starts, read piece by piece: ``feed`` returns the text from the JSON's start on once
    it is found (the whole text's value, else the one after its first fence, both looked for in parallel until the
    first is decided), None before, and for every piece where the text has no JSON."""

    __slots__ = ("_at_start", "_after_fence", "_fenced")

    def __init__(self) -> None:
        self._at_start: Optional[_ValueAtStart] = _ValueAtStart(whitespace=True)
        self._after_fence: Optional[_ValueAfterFence] = _ValueAfterFence()
        self._fenced: Optional[str] = None  # the text after the fence from the JSON's start on, while undecided

    def feed(self, piece: str) -> Optional[str]:
        at_start, after_fence = self._at_start, self._after_fence
        if at_start is not None:
            state, found = at_start.feed(piece)
            if state == _FOUND:
                return found
            if state == _NONE:
                self._at_start = None
        if after_fence is None:
            return None
        if self._fenced is not None:  # found after a fence while the text's start was undecided
            self._fenced += piece
        else:
            state, found = after_fence.feed(piece)
            if state == _NONE:
                self._after_fence = None
                return None
            if state == _FOUND:
                self._fenced = found
        return self._fenced if self._at_start is None else None


def _json_text(text: str) -> Optional[str]:
    """The JSON of a complete text output (from the value's start on; the rest is ignored), or None where it has
    none, as ``parse_json_markdown`` finds it."""
    state, found = _ValueAtStart(whitespace=True).feed(text)
    if state != _FOUND:
        state, found = _ValueAfterFence().feed(text)
    return found if state == _FOUND else None


def parse_text_output(text: str) -> Any:
    """One strict parse of the JSON of a complete text output (what ``invoke`` and the end of a stream read): the
    JSON value must be complete and valid; what follows it is not read, as LangChain's parse ignores it. Raises
    ``ValueError`` (``JsonParseError``) where it is cut, malformed, or missing."""
    found = _json_text(text)
    region = "" if found is None else found[: len(found) - stripped_end(found)]
    try:
        return json.JSONDecoder(strict=False).raw_decode(region)[0]
    except ValueError:
        return parse_json_with_repair(region)


# --- A tool call's arguments ------------------------------------------------------------------------------------------

# The arguments of a call LangChain's message does not show: text that is not (yet) an object, such as blanks.
NOT_SHOWN: dict[str, Any] = {}


class LangChainArguments:
    """A call's argument stream (the interface of ``ToolCallArgumentsStream``) whose partial arguments are those
    LangChain's ``AIMessageChunk`` shows in ``tool_calls``: ``parse_partial_json`` of the text so far (``{}`` before any
    text; ``NOT_SHOWN`` while the text is not an object, which LangChain moves to ``invalid_tool_calls``); the end is
    one strict parse, as for any call."""

    __slots__ = ("_parser_class", "_json", "_arguments")

    def __init__(self, parser_class: Optional[Callable[..., Any]] = None, stable: bool = True) -> None:
        self._parser_class = parser_class
        self._start()

    def _start(self) -> None:
        self._json = PartialJson(self._parser_class)
        self._arguments: dict[str, Any] = {}

    @property
    def text(self) -> str:
        return self._json.text

    def append(self, delta: str) -> dict[str, Any]:
        if delta:
            value = self._json.append(delta)
            self._arguments = value if type(value) is dict else NOT_SHOWN
        return self._arguments

    def replace(self, text: str) -> ToolCallReplace:
        delta = continuation(self.text, text)
        if delta is None:
            self._start()
            return ToolCallReplace(None, self.append(text))
        return ToolCallReplace(delta, self.append(delta))

    def finish(self) -> ToolCallResult:
        return parse_tool_call_arguments(self.text)
