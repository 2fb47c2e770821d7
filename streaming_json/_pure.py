"""The pure-Python backend: the same state machine as the compiled core, used where no compiler was available.

The parser reads each character once. It keeps the open containers (the "open path") as working objects on a stack
of frames and never returns them: a snapshot copies the open path and shares every completed container and string.
Strings and words (numbers and literals) are scanned in runs with regular expressions so that the per-character work
stays in C where the interpreter allows it.

Reading rules (the spec's lenient reading, in one place):

- A value in a valid position is reported and shown; a value in an invalid position (a non-string where an object
  key belongs, anything inside such a value) is read and dropped.
- A string where an object key belongs is the key; the member appears when its value starts. Missing commas and
  colons are tolerated; extra commas are skipped.
- Any closer closes the innermost open container. Closers outside every container are ignored, as is all text after
  the root value.
- A word is a run of characters up to whitespace or one of ``, : [ ] { } "``. It is a number when it starts with a
  digit or ``-`` and is valid JSON when it ends; ``true``, ``false`` and ``null`` are literals; anything else is
  dropped. While a word is unterminated it shows its value as the spec says.
- A value is done at its end: a string at its closing quote, a number or literal when the character after it
  arrives, a container at its closer. Only values with a reported path get a done event.
- Source text (``source_paths``): a value that starts in a valid position at a path matching one of the patterns is
  reported verbatim, from its first character to its last (a closer, a closing quote, a word's last character), in
  one ``SourceChange`` per piece, the last one marked: exactly the text that was read, whitespace and escapes as
  written, whether the value turns out valid or not. Values inside a value whose source is being reported are not
  reported again. The root value's end is where the parser stops reading: what follows it is ``unused_text``.

Beyond one root (``StreamingJsonDocuments``, and ``prose=True`` for one document):

- Documents: where the root value ends, the next value starts a new document. Text between documents that starts no
  value is skipped, as text before the root always was.
- Lines: a newline, in a string or not, ends the line; its document, if its root value ended on it, is returned, and
  the rest of the line is skipped. A line without a finished document is counted as skipped.
- Prose: before a document, everything is skipped but a ``{`` or ``[`` whose next non-blank character can continue
  JSON (``"`` or ``}`` after ``{``; a value's first character or ``]`` after ``[``, a literal only whole and ended),
  so that ``[sic]``, ``[the best]`` or ``{name}`` in the prose do not start one. Top-level scalars are not
  documents.
"""

from __future__ import annotations

import codecs
import importlib
import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn, Optional, Union, final

from ._repair import parse_tool_call_arguments
from ._shared import (
    ABSENT,
    APPEND_AFTER_FINISH,
    CHANGE_IS_ABSTRACT,
    CONTAINER_COPY_COST,
    CREDIT_PER_APPEND,
    CREDIT_PER_CHAR,
    FREE_MEMBERS,
    FREE_STRING_CHARS,
    MISSING,
    NO_ITEMS_AT,
    PENDING_NUMBER_DISPLAY_LIMIT,
    PROSE_CONTINUES_AFTER_BRACE,
    PROSE_CONTINUES_AFTER_BRACKET,
    REPLACE_AFTER_FINISH,
    REPORT_DEPTH_LIMIT,
    SKIPPED_LINES_KEPT,
    STR_AFTER_BYTES,
    STRING_CHARS_PER_COST,
    Key,
    Path,
    PathArgument,
    Piece,
    ToolCallReplace,
    ToolCallResult,
    bad_report_depth,
    bytes_after_str,
    checked_items_path,
    checked_source_paths,
    not_str,
    not_text,
)

__all__ = [
    "StreamingJsonParser",
    "StreamingJsonDocuments",
    "ToolCallArgumentsStream",
    "JsonChange",
    "SetChange",
    "AppendChange",
    "DoneChange",
    "SourceChange",
]

# --- Change objects -----------------------------------------------------------------------------------------------


class JsonChange:
    """One change that a piece of text made to the value: a :class:`SetChange`, an :class:`AppendChange`, a
    :class:`DoneChange` or a :class:`SourceChange`."""

    __slots__ = ("path",)
    kind: str
    path: Path

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(CHANGE_IS_ABSTRACT)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _fields(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JsonChange):
            return NotImplemented
        return self.kind == other.kind and self._fields() == other._fields()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.kind,) + self._fields())

    def __reduce__(self) -> Any:
        return (type(self), self._fields())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The change kinds are final, as in the compiled core: a parser only ever makes these four.
        for base in cls.__bases__:
            if base is not JsonChange and issubclass(base, JsonChange) and base.__module__ == __name__:
                raise TypeError(f"type '{base.__module__}.{base.__name__}' is not an acceptable base type")
        super().__init_subclass__(**kwargs)


def _checked_path(path: Any) -> Path:
    # As the compiled core's typed constructors check.
    if type(path) is not tuple:
        raise TypeError(f"path must be a tuple, not {type(path).__name__}")
    return path


@final
class SetChange(JsonChange):
    """``kind == "set"``: the value at ``path`` is now ``value`` (a key, an array item or a finished value)."""

    __slots__ = ("value",)
    kind: Literal["set"] = "set"
    value: Any

    def __init__(self, path: Path, value: Any) -> None:
        object.__setattr__(self, "path", _checked_path(path))
        object.__setattr__(self, "value", value)

    def _fields(self) -> tuple[Any, ...]:
        return (self.path, self.value)

    def __repr__(self) -> str:
        return f"SetChange(path={self.path!r}, value={self.value!r})"


@final
class AppendChange(JsonChange):
    """``kind == "append"``: the open string at ``path`` grew by ``text``."""

    __slots__ = ("text",)
    kind: Literal["append"] = "append"
    text: str

    def __init__(self, path: Path, text: str) -> None:
        if type(text) is not str:
            raise TypeError(not_str("text", text))
        object.__setattr__(self, "path", _checked_path(path))
        object.__setattr__(self, "text", text)

    def _fields(self) -> tuple[Any, ...]:
        return (self.path, self.text)

    def __repr__(self) -> str:
        return f"AppendChange(path={self.path!r}, text={self.text!r})"


@final
class DoneChange(JsonChange):
    """``kind == "done"``: the value at ``path`` is complete; ``value`` is the very object later snapshots share."""

    __slots__ = ("value",)
    kind: Literal["done"] = "done"
    value: Any

    def __init__(self, path: Path, value: Any) -> None:
        object.__setattr__(self, "path", _checked_path(path))
        object.__setattr__(self, "value", value)

    def _fields(self) -> tuple[Any, ...]:
        return (self.path, self.value)

    def __repr__(self) -> str:
        return f"DoneChange(path={self.path!r}, value={self.value!r})"


@final
class SourceChange(JsonChange):
    """``kind == "source"``: the next piece of the source text of the value at ``path`` (one of the parser's
    ``source_paths``), exactly as it was read; a value's pieces join to its text from its first character to its
    last, and ``last`` is true on the piece that ends it (empty where only the character after a number or literal
    ended it)."""

    __slots__ = ("text", "last")
    kind: Literal["source"] = "source"
    text: str
    last: bool

    def __init__(self, path: Path, text: str, last: bool = False) -> None:
        if type(text) is not str:
            raise TypeError(f"text must be str, not {type(text).__name__}")
        object.__setattr__(self, "path", _checked_path(path))
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "last", bool(last))

    def _fields(self) -> tuple[Any, ...]:
        return (self.path, self.text, self.last)

    def __repr__(self) -> str:
        last = ", last=True" if self.last else ""
        return f"SourceChange(path={self.path!r}, text={self.text!r}{last})"


# --- Lexical classes ----------------------------------------------------------------------------------------------

_BLANKS = " \t\n\r"  # what the blank runs below are made of
_WHITESPACE_RUN = re.compile(r"[ \t\n\r]*")
# In JSON Lines a newline ends the line wherever it is: these runs stop at it.
_BLANK_RUN_IN_LINE = re.compile(r"[ \t\r]*")
# Prose: where a document may start (and, in JSON Lines, where the line ends); what may follow its bracket.
_PROSE_STOP = re.compile(r"[{\[]")
_PROSE_STOP_IN_LINE = re.compile(r"[{\[\n]")
_ENDS_LITERAL_IN_ARRAY = frozenset(" \t\n\r,]")
_CONTINUES_AFTER = {"{": frozenset(PROSE_CONTINUES_AFTER_BRACE), "[": frozenset(PROSE_CONTINUES_AFTER_BRACKET)}
_WORD_RUN = re.compile(r'[^ \t\n\r,:\[\]{}"]*')
# A number word is read one character at a time by the automaton of JSON's number grammar: its state says what the
# text so far is a prefix of. A word that stops being a prefix of a number shows nothing more until it ends. (An
# automaton, not a regular expression over the text: it carries over between pieces, and on PyPy each regular
# expression call leaves the JIT's trace.)
_NOT_A_NUMBER = -1
_NUMBER_START, _MINUS, _ZERO, _INTEGER, _POINT, _FRACTION, _EXPONENT, _EXPONENT_SIGN, _EXPONENT_DIGITS = range(9)
_DIGITS = "0123456789"
_TO_INTEGER = dict.fromkeys("123456789", _INTEGER)
_TO_POINT_OR_EXPONENT = {".": _POINT, "e": _EXPONENT, "E": _EXPONENT}
_NUMBER_STEPS: tuple[dict[str, int], ...] = (
    {"-": _MINUS, "0": _ZERO, **_TO_INTEGER},  # _NUMBER_START
    {"0": _ZERO, **_TO_INTEGER},  # _MINUS: "-"
    _TO_POINT_OR_EXPONENT,  # _ZERO: "0", "-0"
    {"0": _INTEGER, **_TO_INTEGER, **_TO_POINT_OR_EXPONENT},  # _INTEGER: "12"
    dict.fromkeys(_DIGITS, _FRACTION),  # _POINT: "1."
    {**dict.fromkeys(_DIGITS, _FRACTION), "e": _EXPONENT, "E": _EXPONENT},  # _FRACTION: "1.5"
    {"+": _EXPONENT_SIGN, "-": _EXPONENT_SIGN, **dict.fromkeys(_DIGITS, _EXPONENT_DIGITS)},  # _EXPONENT: "1e"
    dict.fromkeys(_DIGITS, _EXPONENT_DIGITS),  # _EXPONENT_SIGN: "1e+"
    dict.fromkeys(_DIGITS, _EXPONENT_DIGITS),  # _EXPONENT_DIGITS: "1e5"
)
# Where a run of digits leads, from the states where that does not depend on which digits they are.
_AFTER_DIGITS = {
    _INTEGER: _INTEGER,
    _POINT: _FRACTION,
    _FRACTION: _FRACTION,
    _EXPONENT: _EXPONENT_DIGITS,
    _EXPONENT_SIGN: _EXPONENT_DIGITS,
    _EXPONENT_DIGITS: _EXPONENT_DIGITS,
}
_COMPLETE_NUMBER = frozenset((_ZERO, _INTEGER, _FRACTION, _EXPONENT_DIGITS))
# An unterminated number whose exponent has no digits yet shows the value before the exponent.
_BARE_EXPONENT = frozenset((_EXPONENT, _EXPONENT_SIGN))
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {"true": True, "false": False, "null": None}
_LITERAL_BY_FIRST = {"t": "true", "f": "false", "n": "null"}
_LITERAL_MAX_LENGTH = 5

# Modes: what the next character belongs to.
_STRUCTURE, _STRING, _WORD, _DONE, _PROSE, _SKIP_LINE = range(6)
# Phases of an open container.
_EXPECT_KEY, _AFTER_KEY, _EXPECT_VALUE, _AFTER_VALUE = range(4)
# What an open string or word is: a key, a value shown in place, or text read and dropped.
_KEY, _VALUE, _DROPPED = range(3)
# Word kinds, decided by the first character.
_NUMBER_WORD, _LITERAL_WORD, _UNKNOWN_WORD = range(3)

# What a value whose source text is being reported is: how its end is found.
_NO_SOURCE, _SOURCE_CONTAINER, _SOURCE_STRING, _SOURCE_WORD = range(4)

_NOTHING = ABSENT  # "no value" inside the parser; MISSING is only what snapshot() returns
# What a parser holds where it needs no list yet (no string or word open, no text after the root, no piece being
# read): an empty tuple, which costs nothing and takes no item (a list is made where one is needed), so that an idle
# parser holds only what it reads. And the lengths of no source paths.
_NO_LIST: Any = ()
_NO_LENGTHS: frozenset[int] = frozenset()


def _number_value(text: str) -> Any:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    try:
        return int(text)
    except ValueError:  # more digits than int() accepts: read it as json.loads would read a huge float
        return float(text)


def _number_state_after(state: int, run: str) -> int:
    """The state of a number word in ``state`` grown by ``run``."""
    if run.isdigit() and run.isascii():  # the usual run: no loop over its characters
        if state in _AFTER_DIGITS:
            return _AFTER_DIGITS[state]
        if state in (_NUMBER_START, _MINUS) and run[0] != "0":
            return _INTEGER
    for char in run:
        state = _NUMBER_STEPS[state].get(char, _NOT_A_NUMBER)
        if state == _NOT_A_NUMBER:
            break
    return state


def _finished_word_value(kind: int, number_state: int, text: str) -> Any:
    if kind == _NUMBER_WORD:
        return _number_value(text) if number_state in _COMPLETE_NUMBER else _NOTHING
    if kind == _LITERAL_WORD:
        return _LITERALS.get(text, _NOTHING)
    return _NOTHING


def _pending_word_value(kind: int, number_state: int, text: str, stable: bool) -> Any:
    if kind == _NUMBER_WORD:
        if number_state in _COMPLETE_NUMBER:
            return _number_value(text)
        if number_state in _BARE_EXPONENT:
            return _number_value(text[: max(text.rfind("e"), text.rfind("E"))])
        if number_state == _POINT and stable:  # "1." shows 1, as "1" did, until its fraction comes
            return _number_value(text[:-1])
        return _NOTHING
    if kind == _LITERAL_WORD:
        for word, value in _LITERALS.items():
            if word.startswith(text):
                return value
    return _NOTHING


_ON_ITEMS_PATH, _COLLECTS = 1, 2  # a frame's part in ``items_at``


class _Frame:
    """One open container: the working object (never returned), where the next value goes, and its path."""

    __slots__ = ("container", "is_object", "phase", "key", "path", "reported", "items_role")

    def __init__(
        self,
        container: Any,
        is_object: bool,
        path: Optional[Path],
        report_depth: int,
        on_items_path: bool = False,
        collects: bool = False,
    ) -> None:
        self.container = container
        self.is_object = is_object
        self.phase = _EXPECT_KEY if is_object else _EXPECT_VALUE
        self.key: str = ""
        # ``path`` is None below the reporting depth; ``reported`` says whether the container's own children are
        # reported one by one (a container at the limit is reported whole when it closes).
        self.path = path
        self.reported = path is not None and len(path) < report_depth
        # Its part in ``items_at``: _ON_ITEMS_PATH, its path begins it (or is all of it); _COLLECTS, it is the array
        # there, whose finished elements append_items() returns; 0, neither.
        self.items_role = _COLLECTS if collects else (_ON_ITEMS_PATH if on_items_path else 0)

    def child_path(self, slot: Key) -> Optional[Path]:
        return self.path + (slot,) if self.reported else None  # type: ignore[operator]


def _same_json(a: Any, b: Any) -> bool:
    """Whether two readings hold the same JSON value, exactly (``1``, ``1.0`` and ``True`` differ; so does the order
    of members). What is one object in both is not walked: a snapshot shares its closed members with the one before,
    so this walks the open path, and a member a repeated key replaced."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        kind = type(x)
        if kind is not type(y):
            return False
        if kind is dict:
            if len(x) != len(y):
                return False
            for (key_x, value_x), (key_y, value_y) in zip(x.items(), y.items()):
                if key_x != key_y:
                    return False
                if value_x is not value_y:
                    stack.append((value_x, value_y))
        elif kind is list:
            if len(x) != len(y):
                return False
            stack.extend((value_x, value_y) for value_x, value_y in zip(x, y) if value_x is not value_y)
        elif x != y:
            return False
    return True


def _refuse_to_pickle(self: Any) -> NoReturn:
    """``__reduce__`` of the streams: a stream is not a value, and a copy would share its working containers (as the
    compiled core's ``auto_pickle(False)`` refuses)."""
    raise TypeError(f"cannot pickle {type(self).__name__!r} object")


def _matches(pattern: Path, path: list[Union[str, int]]) -> bool:
    """Whether a path matches a pattern of the same length (``"*"`` matches any step; index 1 is not key "1")."""
    for step, slot in zip(pattern, path):
        if step != "*" and (step != slot or type(step) is not type(slot)):
            return False
    return True


def _checked_report_depth(depth: Any) -> int:
    # Past the limit, paths would grow with the nesting and the cost of reporting with them: linearity forbids it.
    if type(depth) is not int or not 0 <= depth <= REPORT_DEPTH_LIMIT:
        raise ValueError(bad_report_depth(depth))
    return depth


def _push_merged(chunks: list[str], chunk: str) -> None:
    """Append ``chunk``, merging equal-sized tails (a binary counter), so that a string read in n pieces is held in
    O(log n) chunks and each character is copied O(log n) times."""
    if not chunks or len(chunks[-1]) > len(chunk):
        chunks.append(chunk)  # the usual case: nothing to merge
        return
    chunk = chunks.pop() + chunk
    while chunks and len(chunks[-1]) <= len(chunk):
        chunk = chunks.pop() + chunk
    chunks.append(chunk)


class StreamingJsonParser:
    """Incremental, tolerant JSON parser: ``append()`` each piece of text, ``snapshot()`` the value so far.

    ``append()`` returns the changes the piece made; ``snapshot()`` returns an immutable value that shares completed
    parts with earlier snapshots. Neither ever raises on any text.

    ``changes=False`` builds no ``set``/``append`` changes (for callers that only want snapshots or done events);
    ``done_events=True`` adds a :class:`DoneChange` for every value a piece completed; ``report_depth`` (at most and
    by default 32) is the depth at which a container is reported whole when it closes, nothing inside it one by one;
    ``prose=True`` reads the first object or array in prose or a markdown fence, skipping the text around it.
    ``source_paths`` (paths of keys and indices, ``"*"`` for any one step) adds a :class:`SourceChange` for each piece
    of the text of a value at a matching path, verbatim; ``items_at`` (a path of keys and indices) lets
    :meth:`append_items` return each finished element of the array there; ``done`` and ``unused_text`` say where the
    root value ended and what followed it, ``in_string`` whether the text so far ends inside a string.

    A parser is used by one thread at a time; parsers of their own run on many threads at once, on a free-threaded
    build too.
    """

    __slots__ = (
        "_emit_changes",
        "_emit_done",
        "_report_depth",
        "_prose",
        "_lines",
        "_blank_run",
        "_prose_bracket",
        "_prose_literal",
        "_documents",
        "_line_number",
        "_line_done",
        "_line_has_text",
        "_skipped_lines",
        "_skipped",
        "_frames",
        "_root_done",
        "_root_value",
        "_mode",
        "_dropped_depth",
        "_string_role",
        "_string_path",
        "_string_reported",
        "_string_chunks",
        "_string_length",
        "_piece_chunks",
        "_escape",
        "_high_surrogate",
        "_word_role",
        "_word_kind",
        "_word_chunks",
        "_word_length",
        "_word_live",
        "_number_state",
        "_changes",
        "_open_members",
        "_credit",
        "_dirty",
        "_last_snapshot",
        "_decoder",
        "_stable",
        "_shown_word",
        "_source_patterns",
        "_source_lengths",
        "_source_waiting",
        "_source_kind",
        "_source_path",
        "_source_depth",
        "_source_from",
        "_source_text_wanted",
        "_unused",
        "_items_at",
        "_items",
        "_items_wanted",
    )

    def __init__(
        self,
        *,
        changes: bool = True,
        done_events: bool = False,
        report_depth: int = REPORT_DEPTH_LIMIT,
        prose: bool = False,
        source_paths: Iterable[Sequence[Union[str, int]]] = (),
        stable: bool = False,
        items_at: Optional[PathArgument] = None,
    ) -> None:
        self._emit_changes = bool(changes)
        # Stable values: once shown, a pending number stays shown until the text replaces it ("1." shows 1).
        self._stable = bool(stable)
        self._shown_word: Any = _NOTHING
        self._emit_done = bool(done_events)
        self._report_depth = _checked_report_depth(report_depth)
        self._prose = bool(prose)
        self._prose_bracket = ""  # in prose, a bracket waiting for the character that decides whether JSON starts
        self._prose_literal = ""  # and, after "[", the start of a literal read so far
        # Documents (set up by StreamingJsonDocuments): a list that finished root values go to, instead of the end of
        # reading; and in JSON Lines, the line count and the lines that gave no document.
        self._documents: Optional[list[Any]] = None
        self._lines = False
        self._blank_run = _WHITESPACE_RUN
        self._line_number = 1
        self._line_done = False
        self._line_has_text = False
        self._skipped_lines = 0
        self._skipped: Optional[deque[int]] = None  # the latest skipped lines' numbers, made at the first one
        self._frames: list[_Frame] = []
        self._root_done = False
        self._root_value: Any = _NOTHING
        self._mode = _PROSE if self._prose else _STRUCTURE
        self._dropped_depth = 0  # open containers inside a dropped value
        # The open string: decoded text of earlier pieces (merged chunks) and of this piece, and a held escape.
        self._string_role = _VALUE
        self._string_path: Optional[Path] = None
        self._string_reported = False
        self._string_chunks: list[str] = _NO_LIST
        self._string_length = 0
        self._piece_chunks: list[str] = _NO_LIST
        self._escape = ""  # an unterminated escape: "\\", "\\u", "\\u1", ...
        self._high_surrogate = ""  # a high-surrogate escape waiting to see whether a low one follows
        # The open word (number or literal).
        self._word_role = _VALUE
        self._word_kind = _UNKNOWN_WORD
        self._word_chunks: list[str] = _NO_LIST
        self._word_length = 0
        self._word_live = False  # the word can still become a number or literal: its characters may change the value
        self._number_state = _NUMBER_START  # where a number word is in the number grammar (while it is live)
        self._changes: list[JsonChange] = _NO_LIST  # the list of the piece being read
        self._open_members = 0  # members and elements held by open containers: the copy cost of the open path
        self._credit = 0
        self._dirty = False
        self._last_snapshot: Any = MISSING
        self._decoder: Any = None  # the input's: None before the first piece, False for str, a decoder for bytes
        # Source text: the patterns, and the value whose text is being reported (from where in this piece).
        self._source_patterns = checked_source_paths(source_paths, self._prose)
        self._source_lengths = (
            frozenset(len(pattern) for pattern in self._source_patterns) if self._source_patterns else _NO_LENGTHS
        )
        self._source_waiting = bool(self._source_patterns)  # patterns, and no value's source being reported
        self._source_kind = _NO_SOURCE
        self._source_path: Path = ()
        self._source_depth = 0
        self._source_from = 0
        self._unused: list[str] = _NO_LIST  # the text after the root value
        self._source_text_wanted = False  # append_source(): the reported value's text as text, not a change
        # items_at: the path of the array whose finished elements append_items() returns (None: no such array), and
        # the elements the piece being read finished, collected while append_items() reads it.
        self._items_at = None if items_at is None else checked_items_path(items_at)
        self._items: list[Any] = _NO_LIST
        self._items_wanted = False

    # --- Public API ---------------------------------------------------------------------------------------------

    __reduce__ = _refuse_to_pickle

    def append(self, text: Piece) -> list[JsonChange]:
        """Read the next piece (``str``, or UTF-8 ``bytes``-like); return the changes it made, in order."""
        changes: list[JsonChange] = []
        self._changes = changes
        self._feed(text)
        self._changes = _NO_LIST  # the caller's, not kept
        return changes

    @property
    def done(self) -> bool:
        """Whether the root value has ended (a number or literal ends at the character after it)."""
        return self._root_done

    @property
    def unused_text(self) -> str:
        """The text after the end of the root value, which the parser does not read: an end marker, prose, the next
        document (as ``zlib``'s ``unused_data``); for bytes input, decoded."""
        if len(self._unused) > 1:
            self._unused = ["".join(self._unused)]
        return self._unused[0] if self._unused else ""

    @property
    def in_string(self) -> bool:
        """Whether the text read so far ends inside a string (a key or a value): a marker searched for in the text
        that follows is part of that string there."""
        return self._mode == _STRING

    def append_source(self, text: Piece) -> Union[str, list[JsonChange]]:
        """Read the next piece as :meth:`append` does. Where the piece lies wholly in the value whose source text is
        being reported (``source_paths``), begun before it, and changed nothing else, return the piece itself (a
        ``str``: that value's next text, verbatim) instead of a change; otherwise return the changes, as
        :meth:`append` would (a ``list``).

        For a layer that relays a value's text as it streams (a tool call's arguments, in a model's output): inside
        that value, a piece costs the scan and nothing more. The piece that begins the value (its path comes with
        its first :class:`SourceChange`), the one that ends it, and one that makes any other change (a done event, a
        set) come as the list; so does a piece that changed nothing (an empty list). ``done``, ``unused_text`` and
        ``in_string`` say, as after :meth:`append`, whether the root value ended, what followed it, and whether the
        text so far ends in a string.
        """
        changes: list[JsonChange] = []
        self._changes = changes
        self._source_text_wanted = True
        try:
            found = self._feed(text)
        finally:
            self._source_text_wanted = False
            self._changes = _NO_LIST
        return changes if found is None else found

    def append_items(self, text: Piece) -> list[Any]:
        """Read the next piece as :meth:`append` does; return the elements of the array at ``items_at`` that it
        finished, in order (a ``list``, empty where it finished none), instead of its changes.

        For a reader of the items one by one (:func:`~streaming_json.iter_items`): an element costs what reading it
        does and one list append, with no change object and no path. The parser is made with ``items_at`` (and, as
        the changes are not returned, ``changes=False``). Where a repeated key replaces the array, the new array's
        elements follow; elements finished in a piece read by :meth:`append` are not returned later.
        """
        if self._items_at is None:
            raise ValueError(NO_ITEMS_AT)
        items: list[Any] = []
        self._items = items
        self._changes = []
        self._items_wanted = True
        try:
            self._feed(text)
        finally:
            self._items_wanted = False
            self._items = self._changes = _NO_LIST
        return items

    def _feed(self, text: Any) -> Optional[str]:
        """Read a piece; changes go to ``self._changes``. The entry point of this backend's own wrappers. Returns
        the piece where ``append_source()`` wants it as text, else None."""
        text = self._decode(text)
        source_was_open = self._source_kind != _NO_SOURCE
        self._credit += CREDIT_PER_APPEND + CREDIT_PER_CHAR * len(text)
        self._read(text)
        if self._mode == _STRING:
            self._flush_string_piece()
        found = None
        if self._source_kind != _NO_SOURCE and len(text) > self._source_from:
            if self._source_text_wanted and source_was_open and not self._changes:
                found = text  # append_source(): the reported value's next text, the piece's only change
            else:
                self._changes.append(SourceChange(self._source_path, text[self._source_from :]))
            self._source_from = 0
        if self._lines and text:
            newline = text.rfind("\n")
            self._line_has_text = newline < len(text) - 1 if newline >= 0 else True
        return found

    def snapshot(self, *, fresh: bool = False) -> Any:
        """The value of the text read so far (``MISSING`` before a value starts); never changes once returned.

        While a fresh copy of a large open path is not yet paid for, the previous snapshot is returned; ``fresh=True``
        pays for it regardless (a copy of the open path), e.g. once when the stream ends.
        """
        if not self._dirty:
            return self._last_snapshot
        if not fresh and (self._open_members > FREE_MEMBERS or self._string_length > FREE_STRING_CHARS):
            cost = (
                self._open_members
                + CONTAINER_COPY_COST * len(self._frames)
                + self._string_length // STRING_CHARS_PER_COST
            )
            if cost > self._credit:
                return self._last_snapshot  # not paid for yet: the preview lags until enough text arrives
            self._credit -= cost
        self._dirty = False
        self._last_snapshot = self._build_snapshot()
        return self._last_snapshot

    @property
    def open_path_is_small(self) -> bool:
        """Whether the open path is small enough to copy for free (the condition ``snapshot()`` tests): at most
        ``FREE_MEMBERS`` (256) members and elements open, and an open string of at most ``FREE_STRING_CHARS``
        (4,096) characters. While it is, every snapshot is fresh, and a layer that walks the open path as a snapshot
        copies it (the typed streams) may walk it as often."""
        return self._open_members <= FREE_MEMBERS and self._string_length <= FREE_STRING_CHARS

    # --- Input --------------------------------------------------------------------------------------------------

    def _decode(self, text: Any) -> str:
        if type(text) is str:
            if self._decoder:
                raise TypeError(STR_AFTER_BYTES)
            self._decoder = False
            return text
        if isinstance(text, (bytes, bytearray, memoryview)):
            if self._decoder is False:
                raise TypeError(bytes_after_str(text))
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            decoded: str = self._decoder.decode(text)
            return decoded
        if isinstance(text, str):  # a str subclass reads as its text
            return self._decode(str(text))
        raise TypeError(not_text(text))

    def _read(self, text: str) -> None:
        position = 0
        length = len(text)
        while position < length:
            mode = self._mode
            if mode == _STRUCTURE:
                position = self._read_structure(text, position, length)
            elif mode == _STRING:
                position = self._read_string(text, position, length)
            elif mode == _WORD:
                position = self._read_word(text, position, length)
            elif mode == _PROSE:
                position = self._read_prose(text, position, length)
            elif mode == _SKIP_LINE:
                newline = text.find("\n", position)
                if newline < 0:
                    return
                self._end_line()
                position = newline + 1
            else:  # after the root value: not read
                if self._unused:
                    self._unused.append(text[position:])
                else:
                    self._unused = [text[position:]]
                return

    # --- Structure ----------------------------------------------------------------------------------------------

    def _skip_blanks(self, text: str, position: int, length: int) -> int:
        """Skip the rest of a blank run. Most runs are one blank (``json.dumps`` writes ", " and ": "): a run goes to
        the regular expression only from its second blank on."""
        if position < length and text[position] in _BLANKS:
            position = self._blank_run.match(text, position).end()  # type: ignore[union-attr]  # a * run always matches
        return position

    def _read_structure(self, text: str, position: int, length: int) -> int:
        # The character is a local of this method, not of _read's loop: on PyPy a local that lives on across the
        # loop's iterations is an object the JIT must allocate for every one of them.
        char = text[position]
        if char == '"':
            if self._source_waiting:
                self._begin_source(_SOURCE_STRING, position)
            self._begin_string()
        elif char == "{" or char == "[":
            if self._source_waiting:
                self._begin_source(_SOURCE_CONTAINER, position)
            self._begin_container(char == "{")
        elif char == "}" or char == "]":
            if self._source_kind == _SOURCE_CONTAINER and self._closes_source():
                self._end_source(text, position + 1)
            self._close_container()
        elif char == ",":
            self._read_comma()
        elif char == ":":
            self._read_colon()
        elif char in _BLANKS:
            if char == "\n" and self._lines:
                self._end_line()
                return position + 1
            return self._skip_blanks(text, position + 1, length)
        else:
            if self._source_waiting:
                self._begin_source(_SOURCE_WORD, position)
            self._begin_word(char)
            return position  # the word reads its first character itself
        return position + 1

    # --- Source text --------------------------------------------------------------------------------------------

    def _begin_source(self, kind: int, position: int) -> None:
        """A value may start here: where its path matches a source pattern, report its text from here on."""
        depth = len(self._frames)
        if depth not in self._source_lengths:
            return
        try:
            frame = self._value_goes_in()
        except LookupError:  # a key, or a value in an invalid position: no path
            return
        # The slot of each open container on the way: its key, or its last element (the top's next one).
        path: list[Union[str, int]] = [f.key if f.is_object else len(f.container) - 1 for f in self._frames]
        if frame is not None and not frame.is_object:
            path[-1] += 1  # type: ignore[operator]
        for pattern in self._source_patterns:
            if len(pattern) == depth and _matches(pattern, path):
                self._source_kind = kind
                self._source_path = tuple(path)
                self._source_depth = depth
                self._source_from = position
                self._source_waiting = False
                return

    def _closes_source(self) -> bool:
        """Whether a closer here closes the container whose source is reported (not one inside it, nor a dropped
        one)."""
        return len(self._frames) == self._source_depth + 1 and not self._dropped_depth

    def _end_source(self, text: str, end: int) -> None:
        """The value whose source was reported ended at ``end`` (exclusive): its last piece, before its done event."""
        self._changes.append(SourceChange(self._source_path, text[self._source_from : end], True))
        self._source_kind = _NO_SOURCE
        self._source_waiting = True

    def _value_goes_in(self) -> Optional[_Frame]:
        """The frame a value starting here belongs to; None at the root; raises LookupError if it is dropped."""
        if self._dropped_depth:
            raise LookupError
        if not self._frames:
            return None
        top = self._frames[-1]
        if top.is_object and (top.phase == _EXPECT_KEY or top.phase == _AFTER_VALUE):
            raise LookupError
        return top

    def _place(self, frame: Optional[_Frame], value: Any) -> Optional[Path]:
        """Put a started value into its slot; return its path, or None where it is not reported."""
        if frame is None:
            self._root_value = value
            # Without changes or done events nothing is reported: no path is ever built.
            return () if self._emit_changes or self._emit_done else None
        container = frame.container
        if frame.is_object:
            size = len(container)
            container[frame.key] = value  # a repeated key keeps its place
            self._open_members += len(container) - size
            return frame.child_path(frame.key)
        container.append(value)
        self._open_members += 1
        return frame.child_path(len(container) - 1)

    def _value_finished(self, frame: Optional[_Frame], value: Any) -> None:
        if frame is not None:
            frame.phase = _AFTER_VALUE
            if self._items_wanted and frame.items_role == _COLLECTS:
                self._items.append(value)
        elif self._documents is not None:
            self._documents.append(self._root_value)
            self._reset_document()
            self._line_done = True
            if self._lines:
                self._mode = _SKIP_LINE  # the rest of the line is not read
        else:
            self._root_done = True
            self._mode = _DONE

    def _report_set(self, path: Path, value: Any) -> None:
        if self._emit_changes:
            self._changes.append(SetChange(path, value))

    def _report_done(self, path: Path, value: Any) -> None:
        if self._emit_done:
            self._changes.append(DoneChange(path, value))

    def _begin_container(self, is_object: bool) -> None:
        try:
            parent = self._value_goes_in()
        except LookupError:
            self._dropped_depth += 1
            return
        container: Any = {} if is_object else []
        self._credit += CONTAINER_COPY_COST  # showing it costs about what reading it did (see _shared)
        path = self._place(parent, container)
        on_items_path = self._items_at is not None and (parent is None or self._child_on_items_path(parent))
        collects = on_items_path and not is_object and len(self._frames) == len(self._items_at)  # type: ignore[arg-type]
        frame = _Frame(container, is_object, path, self._report_depth, on_items_path, collects)
        if path is not None and self._emit_changes:
            self._report_set(path, {} if is_object else [])
        self._frames.append(frame)
        self._dirty = True

    def _child_on_items_path(self, parent: _Frame) -> bool:
        """Whether the value just placed in ``parent`` lies on the path to ``items_at``: the parent does, and the
        value's key or index is the path's next step (a key never matches an index)."""
        depth = len(self._frames) - 1  # the parent's: the number of steps from the root to it
        steps = self._items_at
        if not parent.items_role or depth >= len(steps):  # type: ignore[arg-type]
            return False
        step = steps[depth]  # type: ignore[index]
        if parent.is_object:
            return type(step) is str and step == parent.key
        return type(step) is int and step == len(parent.container) - 1

    def _close_container(self) -> None:
        if self._dropped_depth:
            self._dropped_depth -= 1
            if not self._dropped_depth:
                self._frames[-1].phase = _AFTER_VALUE
            return
        if not self._frames:
            return  # a stray closer before the root value
        frame = self._frames.pop()
        self._open_members -= len(frame.container)
        if frame.path is not None:
            if not frame.reported:
                self._report_set(frame.path, frame.container)  # deep container: reported whole
            self._report_done(frame.path, frame.container)
        self._value_finished(self._frames[-1] if self._frames else None, frame.container)

    def _read_comma(self) -> None:
        if self._frames and not self._dropped_depth:
            top = self._frames[-1]
            top.phase = _EXPECT_KEY if top.is_object else _EXPECT_VALUE

    def _read_colon(self) -> None:
        if self._frames and not self._dropped_depth:
            top = self._frames[-1]
            if top.phase == _AFTER_KEY:
                top.phase = _EXPECT_VALUE

    # --- Strings ------------------------------------------------------------------------------------------------

    def _begin_string(self) -> None:
        self._mode = _STRING
        self._string_chunks = []
        self._piece_chunks = _NO_LIST
        self._string_length = 0
        self._string_reported = False
        self._string_path = None
        top = self._frames[-1] if self._frames else None
        if (
            top is not None
            and not self._dropped_depth
            and top.is_object
            and (top.phase == _EXPECT_KEY or top.phase == _AFTER_VALUE)
        ):
            self._string_role = _KEY
            return
        try:
            frame = self._value_goes_in()
        except LookupError:
            self._string_role = _DROPPED
            return
        self._string_role = _VALUE
        self._string_path = self._place(frame, "")
        self._dirty = True

    def _read_string(self, text: str, position: int, length: int) -> int:
        # Plain text runs to a quote or backslash (or, in JSON Lines, a newline). str.find scans in C on both
        # interpreters; the quote found is kept while escapes come before it, so that each character is scanned once.
        quote = -1
        while position < length:
            if self._escape or self._high_surrogate:
                if self._lines and text[position] == "\n":
                    break
                position = self._read_escape(text, position)
                continue
            if quote < position:
                quote = text.find('"', position)
                if quote < 0:
                    quote = length
            run_end = text.find("\\", position, quote)
            if run_end < 0:
                run_end = quote
            if self._lines:
                newline = text.find("\n", position, run_end)
                if newline >= 0:
                    run_end = newline
            if run_end > position:
                self._add_text(text[position:run_end])
                position = run_end
                if position == length:
                    break
            char = text[position]
            if char == '"':
                if self._source_kind == _SOURCE_STRING:
                    self._end_source(text, position + 1)
                self._close_string()
                return position + 1
            if char == "\n":  # only in JSON Lines: the line ends, and the string with it
                break
            self._escape = "\\"
            position += 1
        if position < length:
            self._end_line()
            return position + 1
        return position

    def _read_escape(self, text: str, position: int) -> int:
        """Read one character of an escape, or the character after a held high surrogate."""
        char = text[position]
        escape = self._escape
        if not escape:  # a high surrogate is held: only an escape can pair it
            if char == "\\":
                self._escape = "\\"
                return position + 1
            self._emit_held_surrogate()
            return position
        if escape == "\\":
            if char == "u":
                self._escape = "\\u"
            else:
                self._escape = ""
                decoded = _SIMPLE_ESCAPES.get(char)
                self._add_text(decoded if decoded is not None else "\\" + char)  # an invalid escape stays literal
            return position + 1
        if char not in _HEX:
            # An incomplete \u escape stays literal text; the character that broke it is read afresh.
            self._escape = ""
            self._add_text(escape)
            return position
        escape += char
        if len(escape) < 6:
            self._escape = escape
            return position + 1
        self._escape = ""
        self._add_code_unit(int(escape[2:], 16))
        return position + 1

    def _add_code_unit(self, unit: int) -> None:
        held = self._high_surrogate
        if held:
            self._high_surrogate = ""
            if 0xDC00 <= unit <= 0xDFFF:
                self._add_text(chr(0x10000 + ((ord(held) - 0xD800) << 10) + (unit - 0xDC00)))
                return
            self._add_text(held)  # a lone high surrogate stays a lone code point
        if 0xD800 <= unit <= 0xDBFF:
            self._high_surrogate = chr(unit)  # held until we see whether a low-surrogate escape follows
        else:
            self._add_text(chr(unit))

    def _emit_held_surrogate(self) -> None:
        held = self._high_surrogate
        self._high_surrogate = ""
        self._add_text(held)

    def _add_text(self, decoded: str) -> None:
        if self._high_surrogate and self._escape == "":
            self._emit_held_surrogate()
        if self._string_role != _DROPPED:
            if self._piece_chunks:
                self._piece_chunks.append(decoded)
            else:
                self._piece_chunks = [decoded]

    def _flush_string_piece(self) -> str:
        """Move this piece's text into the open string and report it; return it."""
        piece = "".join(self._piece_chunks)
        self._piece_chunks = _NO_LIST
        if piece:
            _push_merged(self._string_chunks, piece)
            self._string_length += len(piece)
        if self._string_role == _VALUE:
            path = self._string_path
            if path is not None:
                if not self._string_reported:
                    self._string_reported = True
                    self._report_set(path, piece)
                elif piece and self._emit_changes:
                    self._changes.append(AppendChange(path, piece))
            if piece:
                self._dirty = True
        return piece

    def _close_string(self) -> None:
        self._flush_string_piece()
        value = "".join(self._string_chunks)
        self._string_chunks = []
        self._string_length = 0
        self._mode = _STRUCTURE
        role = self._string_role
        if role == _KEY:
            top = self._frames[-1]
            top.key = value
            top.phase = _AFTER_KEY
        elif role == _VALUE:
            frame = self._frames[-1] if self._frames else None
            if frame is None:
                self._root_value = value
            elif frame.is_object:
                frame.container[frame.key] = value
            else:
                frame.container[-1] = value
            if self._string_path is not None:
                self._report_done(self._string_path, value)
            self._value_finished(frame, value)
        elif not self._dropped_depth:
            self._frames[-1].phase = _AFTER_VALUE

    # --- Words: numbers and literals ----------------------------------------------------------------------------

    def _begin_word(self, first: str) -> None:
        self._mode = _WORD
        self._shown_word = _NOTHING
        self._word_chunks = []
        self._word_length = 0
        self._number_state = _NUMBER_START
        if first == "-" or "0" <= first <= "9":
            self._word_kind = _NUMBER_WORD
        elif first == "t" or first == "f" or first == "n":
            self._word_kind = _LITERAL_WORD
        else:
            self._word_kind = _UNKNOWN_WORD
        self._word_live = self._word_kind != _UNKNOWN_WORD
        try:
            self._value_goes_in()
        except LookupError:
            self._word_role = _DROPPED
        else:
            self._word_role = _VALUE

    def _read_word(self, text: str, position: int, length: int) -> int:
        end = _WORD_RUN.match(text, position).end()  # type: ignore[union-attr]
        if end > position:
            # Keep a number's whole text (its value needs it); a literal's only while it can still be one. Merged
            # chunks: a number read in n tiny pieces is held in O(log n) strings, not n small objects.
            run = text[position:end]
            if self._word_kind == _NUMBER_WORD or self._word_length <= _LITERAL_MAX_LENGTH:
                _push_merged(self._word_chunks, run)
            self._word_length += end - position
            # Only a word that can still be a number or literal changes the value as it grows (the run that ends
            # its chances included); the characters of one that cannot leave the snapshot as it was.
            if self._word_role == _VALUE and self._word_live:
                self._dirty = True
                self._word_live = self._still_live(run)
        if end < length:
            if self._source_kind == _SOURCE_WORD:
                self._end_source(text, end)
            self._end_word()
        return end

    def _still_live(self, run: str) -> bool:
        """Whether the word, grown by ``run``, is still a prefix of a JSON number or of its literal."""
        if self._word_kind == _NUMBER_WORD:
            self._number_state = _number_state_after(self._number_state, run)
            return self._number_state != _NOT_A_NUMBER
        literal = _LITERAL_BY_FIRST[self._word_chunks[0][0]]
        start = self._word_length - len(run)
        return self._word_length <= len(literal) and literal[start : self._word_length] == run

    def _word_text(self) -> str:
        text = "".join(self._word_chunks)
        self._word_chunks = [text]
        return text

    def _end_word(self) -> None:
        self._mode = _STRUCTURE
        role = self._word_role
        if role == _DROPPED:
            if not self._dropped_depth:
                self._frames[-1].phase = _AFTER_VALUE
            return
        frame = self._frames[-1] if self._frames else None
        self._dirty = True
        value = _finished_word_value(self._word_kind, self._number_state, self._word_text())
        if value is _NOTHING:
            if frame is not None:  # a dropped member; at the root, the next value may still start
                frame.phase = _AFTER_VALUE
            return
        path = self._place(frame, value)
        if path is not None:
            self._report_set(path, value)
            self._report_done(path, value)
        self._value_finished(frame, value)

    def _pending_word(self) -> Any:
        if self._mode != _WORD or self._word_role != _VALUE:
            return _NOTHING
        kind = self._word_kind
        if kind == _NUMBER_WORD and self._word_length > PENDING_NUMBER_DISPLAY_LIMIT:
            return self._shown_word  # stable: the value it last showed; else nothing (the cost stays O(1))
        if kind == _LITERAL_WORD and self._word_length > _LITERAL_MAX_LENGTH:
            return _NOTHING
        value = _pending_word_value(kind, self._number_state, self._word_text(), self._stable)
        if self._stable and value is not _NOTHING:
            self._shown_word = value
        return value

    # --- Prose, documents and lines -----------------------------------------------------------------------------

    def _read_prose(self, text: str, position: int, length: int) -> int:
        """Skip prose up to a bracket that starts JSON; read nothing else of it."""
        bracket = self._prose_bracket
        if bracket:
            return self._read_after_bracket(bracket, text, position, length)
        found = (_PROSE_STOP_IN_LINE if self._lines else _PROSE_STOP).search(text, position)
        if found is None:
            return length
        position = found.start()
        if text[position] == "\n":
            self._end_line()
        else:
            self._prose_bracket = text[position]
        return position + 1

    def _read_after_bracket(self, bracket: str, text: str, position: int, length: int) -> int:
        """The characters after a bracket in prose, up to the one that decides whether JSON starts there."""
        literal = self._prose_literal
        if not literal:
            position = self._blank_run.match(text, position).end()  # type: ignore[union-attr]
            if position == length:
                return position
        char = text[position]
        if char == "\n" and self._lines:  # the line ends before the bracket's JSON could start
            self._prose_bracket = self._prose_literal = ""
            self._end_line()
            return position + 1
        if literal:
            word = _LITERAL_BY_FIRST[literal[0]]
            if len(literal) < len(word) and char == word[len(literal)]:
                self._prose_literal = literal + char
                return position + 1
            self._prose_bracket = self._prose_literal = ""
            if len(literal) == len(word) and char in _ENDS_LITERAL_IN_ARRAY:
                self._mode = _STRUCTURE
                self._begin_container(False)
                self._read(word)
            return position  # read again: as JSON after the literal, or as prose
        if bracket == "[" and char in _LITERAL_BY_FIRST:
            self._prose_literal = char
            return position + 1
        self._prose_bracket = ""
        if char in _CONTINUES_AFTER[bracket]:
            self._mode = _STRUCTURE
            self._begin_container(bracket == "{")
        return position  # read again: as JSON after the bracket, or as prose

    def _reset_document(self) -> None:
        """Forget the document being read (O(1) but for dropping its open containers), ready for the next one."""
        self._frames = []
        self._root_done = False
        self._root_value = _NOTHING
        self._dropped_depth = 0
        self._open_members = 0
        self._mode = _PROSE if self._prose else _STRUCTURE
        self._prose_bracket = self._prose_literal = ""
        self._string_chunks = []
        self._piece_chunks = _NO_LIST
        self._string_length = 0
        self._escape = ""
        self._high_surrogate = ""
        self._dirty = False
        self._last_snapshot = MISSING

    def _end_line(self) -> None:
        """A newline in JSON Lines: a line that gave no document is skipped, and what it began is forgotten."""
        if not self._line_done:
            self._skip_line()
            self._reset_document()
        self._mode = _PROSE if self._prose else _STRUCTURE
        self._line_number += 1
        self._line_done = False

    def _end_input(self) -> None:
        """The end of the text: it ends a pending number or literal; in JSON Lines, it ends an unfinished last line
        (counted as skipped, its partial value kept for ``snapshot()``)."""
        if self._mode == _WORD:
            self._end_word()
        if self._lines and self._line_has_text and not self._line_done:
            self._skip_line()
        self._line_has_text = False

    def _skip_line(self) -> None:
        """JSON Lines: the current line gave no document."""
        self._skipped_lines += 1
        if self._skipped is None:
            self._skipped = deque(maxlen=SKIPPED_LINES_KEPT)
        self._skipped.append(self._line_number)

    # --- Snapshots ----------------------------------------------------------------------------------------------

    def _open_string(self) -> Any:
        if self._mode != _STRING or self._string_role != _VALUE:
            return _NOTHING
        text = "".join(self._string_chunks)
        self._string_chunks = [text] if text else []
        return text

    def _build_snapshot(self) -> Any:
        frames = self._frames
        if not frames:
            if self._root_done:
                return self._root_value
            value = self._open_string()
            if value is _NOTHING:
                value = self._pending_word()
            return MISSING if value is _NOTHING else value
        # The innermost open value: a string already holding its slot, or a word not yet placed.
        top = frames[-1]
        child = self._open_string()
        copy = top.container.copy()
        if child is not _NOTHING:
            if top.is_object:
                copy[top.key] = child
            else:
                copy[-1] = child
        else:
            word = self._pending_word()
            if word is not _NOTHING:
                if top.is_object:
                    copy[top.key] = word
                else:
                    copy.append(word)
        for index in range(len(frames) - 2, -1, -1):
            frame = frames[index]
            outer = frame.container.copy()
            if frame.is_object:
                outer[frame.key] = copy
            else:
                outer[-1] = copy
            copy = outer
        return copy


def _compile_loops_apart_on_pypy() -> None:
    """On PyPy, have the JIT compile the reading loop and the snapshot's copy loop as functions of their own.

    PyPy's JIT inlines the functions a traced loop calls. Inlined into the caller's loop over pieces, ``_read`` and
    ``_build_snapshot`` enter their own loops from a different trace for every combination of what a piece holds
    (a key, a number, the end of a string, ...), and the JIT keeps compiling bridges for new combinations. Called as
    functions of their own, each is compiled once, with a bridge per kind of token. Measured with
    ``python -m bench pypy``: structured output in token pieces 3x faster once warm, the real corpus 20 % faster, and
    JIT warm-up shorter.
    """
    try:
        pypyjit = importlib.import_module("pypyjit")  # by name: type checkers on CPython know no such module
    except ImportError:  # not PyPy
        return
    for function in (StreamingJsonParser._read, StreamingJsonParser._build_snapshot):
        pypyjit.dont_trace_here(0, False, function.__code__)  # "do not inline": at the function's first instruction


_compile_loops_apart_on_pypy()


class ToolCallArgumentsStream:
    """The arguments of one streaming tool call: the raw text for the one full parse when the call ends, and a
    :class:`StreamingJsonParser` for the partial arguments in between.

    Built for a UI: the partial arguments read stably by default (``stable=True``: a value once shown stays shown, so
    ``[1, 2.5]`` streams as ``[1]``, ``[1, 2]``, ``[1, 2.5]``, never back to ``[1]``; ``stable=False`` is the
    reference's reading), and ``append`` returns the same object until the arguments change."""

    __slots__ = ("_chunks", "_text", "_parser", "_snapshot", "_arguments", "_stable", "_result")

    def __init__(self, *, stable: bool = True) -> None:
        self._stable = bool(stable)
        self._start("")

    __reduce__ = _refuse_to_pickle

    def _start(self, text: str) -> None:
        self._chunks: list[str] = []
        self._text = ""
        # It shows snapshots: no change objects to discard.
        self._parser = StreamingJsonParser(changes=False, stable=self._stable)
        self._snapshot: Any = MISSING
        self._arguments: dict[str, Any] = {}
        self._result: Optional[ToolCallResult] = None  # once finished

    @property
    def text(self) -> str:
        """The raw argument text received so far."""
        if self._chunks:
            self._chunks.insert(0, self._text)
            self._text = "".join(self._chunks)
            self._chunks = []
        return self._text

    def append(self, delta: str) -> dict[str, Any]:
        """Append a piece of argument text; return the partial arguments: a new object where they changed, else the
        same one.

        Raises ``ValueError`` after :meth:`finish`: the call has ended (its result would not show the piece)."""
        if not isinstance(delta, str):
            raise TypeError(not_str("delta", delta))
        if self._result is not None:
            raise ValueError(APPEND_AFTER_FINISH)
        if delta:
            self._chunks.append(delta)
            self._parser._feed(delta)
        return self._current_arguments()

    def _current_arguments(self) -> dict[str, Any]:
        snapshot = self._parser.snapshot()
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            if isinstance(snapshot, dict):
                # A new snapshot may hold the same value (a number or literal ended, a container closed): the
                # arguments shown stay the same object. Compared while the open path is small (what a snapshot copies
                # anyway), so the comparison costs what the copy did; past that, a new snapshot is shown as new.
                parser = self._parser
                small = parser._open_members <= FREE_MEMBERS and parser._string_length <= FREE_STRING_CHARS
                if not (small and _same_json(self._arguments, snapshot)):
                    self._arguments = snapshot
            elif self._arguments:
                self._arguments = {}  # a root that is not an object shows no arguments
        return self._arguments

    def replace(self, text: str) -> ToolCallReplace:
        """Take the provider's complete argument text so far.

        Where it continues the text so far, the missing piece is appended and returned as ``delta``; otherwise the
        stream starts over with ``text`` and ``delta`` is None. Either way ``arguments`` are the partial arguments.
        Raises ``ValueError`` after :meth:`finish`.
        """
        if not isinstance(text, str):
            raise TypeError(not_str("text", text))
        if self._result is not None:
            raise ValueError(REPLACE_AFTER_FINISH)
        current = self.text
        if text.startswith(current):
            delta = text[len(current) :]
            return ToolCallReplace(delta, self.append(delta))
        self._start("")
        return ToolCallReplace(None, self.append(text))

    def finish(self) -> ToolCallResult:
        """The final arguments: one strict parse of the complete text, which reports malformed arguments (the
        arguments the last ``append`` returned, the same object, where they are the final ones). The call has ended:
        a later :meth:`finish` returns the same result, and :meth:`append` or :meth:`replace` raise ``ValueError``."""
        if self._result is None:
            result = parse_tool_call_arguments(self.text)
            if result.error is None and _same_json(self._arguments, result.arguments):
                result = ToolCallResult(self._arguments, None)
            self._result = result
        return self._result


class StreamingJsonDocuments:
    """Several JSON documents in one stream: concatenated values, JSON Lines, or objects and arrays in prose.

    ``append()`` returns the documents each piece completed, ``finish()`` those the end of input completes (a pending
    number or literal); ``snapshot()`` shows the document being read, or ``MISSING`` between documents. Documents are
    immutable values, shared with snapshots. Reading is lenient, as in :class:`StreamingJsonParser`, and never raises
    on any text.

    ``lines=True`` reads JSON Lines: one document a line, text after it on its line ignored; a line without a
    complete document is counted in ``skipped_lines``. ``prose=True`` finds objects and arrays in prose and markdown
    fences, skipping everything around them.
    """

    __slots__ = ("_parser", "_count", "_finished")

    def __init__(self, *, lines: bool = False, prose: bool = False, stable: bool = True) -> None:
        parser = StreamingJsonParser(changes=False, prose=prose, stable=stable)
        parser._documents = []
        if lines:
            parser._lines = True
            parser._blank_run = _BLANK_RUN_IN_LINE
        self._parser = parser
        self._count = 0
        self._finished = False

    __reduce__ = _refuse_to_pickle

    def append(self, text: Piece) -> list[Any]:
        """Read the next piece (``str``, or UTF-8 ``bytes``-like); return the documents it completed, in order."""
        if self._finished:
            raise ValueError(APPEND_AFTER_FINISH)
        documents: list[Any] = []
        self._parser._documents = documents
        self._parser._feed(text)
        self._count += len(documents)
        return documents

    def finish(self) -> list[Any]:
        """End the input; return the documents that its end completes (a root number or literal still pending).

        An unterminated document is not complete: it is not returned, and ``snapshot()`` keeps showing it.
        """
        if self._finished:
            return []
        self._finished = True
        documents: list[Any] = []
        self._parser._documents = documents
        self._parser._end_input()
        self._count += len(documents)
        return documents

    def snapshot(self, *, fresh: bool = False) -> Any:
        """The partial value of the document being read, ``MISSING`` between documents; as
        :meth:`StreamingJsonParser.snapshot`."""
        return self._parser.snapshot(fresh=fresh)

    @property
    def count(self) -> int:
        """How many documents were completed so far."""
        return self._count

    @property
    def skipped_lines(self) -> int:
        """JSON Lines: how many lines gave no document (empty, incomplete, or no value)."""
        return self._parser._skipped_lines

    @property
    def skipped(self) -> list[int]:
        """JSON Lines: the numbers (from 1) of the latest skipped lines, at most the last 100."""
        return [] if self._parser._skipped is None else list(self._parser._skipped)
