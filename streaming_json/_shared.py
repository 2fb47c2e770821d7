"""What every floor of the package agrees on: the aliases, the sentinels, the result tuples of the tool-call helpers,
the problems a program can act on (``JsonProblem``, ``JsonParseError``), the messages both backends raise with, the
rule "the text so far, continued or restarted", and the numbers of the cost model.

The reading rules live in the backends; this module is the lowest floor, imported by every other and importing none
of them (``tests/test_layers.py``).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal, NamedTuple, Optional, Union

__all__ = [
    "Key",
    "Path",
    "Piece",
    "MISSING",
    "MissingType",
    "ABSENT",
    "ToolCallReplace",
    "ToolCallResult",
    "WithProblem",
    "JsonProblem",
    "ProblemKind",
    "JsonParseError",
    "continuation",
    "CHANGE_IS_ABSTRACT",
    "STR_AFTER_BYTES",
    "APPEND_AFTER_FINISH",
    "REPLACE_AFTER_FINISH",
    "not_str",
    "not_text",
    "bytes_after_str",
    "bad_report_depth",
    "REPORT_DEPTH_LIMIT",
    "PENDING_NUMBER_DISPLAY_LIMIT",
    "FREE_MEMBERS",
    "FREE_STRING_CHARS",
    "CREDIT_PER_APPEND",
    "CREDIT_PER_CHAR",
    "STRING_CHARS_PER_COST",
    "SKIPPED_LINES_KEPT",
    "CONTAINER_COPY_COST",
    "PROSE_CONTINUES_AFTER_BRACE",
    "PROSE_CONTINUES_AFTER_BRACKET",
    "checked_source_paths",
    "checked_path",
    "PathArgument",
]

Key = Union[str, int]
"""A member's key or an array element's index."""
Path = tuple[Key, ...]
"""Where a value is, from the root: keys and indices."""
PathArgument = Union[tuple[Key, ...], list[Any]]
"""A path or pattern as a caller gives it: a tuple or list of keys and indices (a str is refused: it is one key, not
a path, and its characters would read as one key each)."""
Piece = Union[str, bytes, bytearray, memoryview]
"""A piece of JSON text: ``str``, or UTF-8 bytes-like."""


class MissingType:
    """The type of :data:`MISSING`: the value of a parser that has read no value yet."""

    __slots__ = ()
    _instance: Optional[MissingType] = None

    def __new__(cls) -> MissingType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "streaming_json.MISSING"

    def __reduce__(self) -> str:
        return "MISSING"

    def __copy__(self) -> MissingType:
        return self

    def __deepcopy__(self, memo: Any) -> MissingType:
        return self


MISSING = MissingType()
"""Returned by ``snapshot()`` before a value starts (falsy, a singleton, compare with ``is``)."""


class _Absent:
    """The type of :data:`ABSENT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
"""Private to the package: "no value here" (a parser's value not started, a partial value with nothing to show yet, an
event's missing field). It never reaches a user, so no value the package is given can be it. ``MISSING`` cannot play
this part: users hold it and can hand it back (a validator may return it, an event may carry it), and a layer would
take that value for "absent"."""


class ToolCallReplace(NamedTuple):
    """Result of :meth:`ToolCallArgumentsStream.replace`."""

    delta: Optional[str]
    """The piece that continued the text so far, or ``None`` where the stream started over."""
    arguments: dict[str, Any]
    """The partial arguments of the new text."""


ProblemKind = Literal["incomplete", "malformed", "not_object", "invalid"]
"""What was wrong with a text: ``"incomplete"`` (it ended inside a value, or the stream or the provider stopped before
the value did), ``"malformed"`` (it is not JSON), ``"not_object"`` (tool-call arguments that are JSON but not an
object), ``"invalid"`` (JSON that does not validate against a tool's or an output's declared type)."""


class JsonProblem(NamedTuple):
    """What was wrong with a text, for a program to act on: retry a cut-off stream, send a malformed call back to the
    model. ``error`` messages say the same for people (and models)."""

    kind: ProblemKind
    """``"incomplete"``, ``"malformed"``, ``"not_object"`` or ``"invalid"`` (:data:`ProblemKind`)."""
    offset: int
    """Where reading failed, in characters from the start of the text: the first character that cannot continue
    JSON (``"malformed"``), the end of the text (``"incomplete"``), the start of the value (``"not_object"``,
    ``"invalid"``)."""
    line: int
    """The line of ``offset``, from 1."""
    column: int
    """The column of ``offset`` in its line, from 1 (as ``json.JSONDecodeError.colno``)."""
    detail: str
    """What the reader found there, e.g. ``"Expecting ',' delimiter"`` or ``"the stream ended before the call did"``."""

    @classmethod
    def at(cls, text: str, kind: ProblemKind, offset: int, detail: str) -> JsonProblem:
        """The problem of ``kind`` at ``offset`` of ``text``, with its line and column."""
        line = text.count("\n", 0, offset) + 1
        return cls(kind, offset, line, offset - text.rfind("\n", 0, offset), detail)


class JsonParseError(json.JSONDecodeError):
    """Raised by :func:`~streaming_json.parse_json_with_repair` where the text does not parse: a ``ValueError`` (and a
    ``json.JSONDecodeError``, whose message, ``pos``, ``lineno`` and ``colno`` are the original text's error), with
    ``problem``, the :class:`JsonProblem` a program acts on."""

    problem: JsonProblem
    """What was wrong, and where."""

    def __init__(self, message: str, doc: str, pos: int, problem: JsonProblem, formatted: Optional[str] = None) -> None:
        super().__init__(message, doc, pos)
        if formatted is not None:  # a message that is not json's own ("NaN is not valid JSON") is kept as it was
            self.args = (formatted,)
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.msg, self.doc, self.pos, self.problem, self.args[0])


class WithProblem(tuple):  # type: ignore[type-arg]
    """A result pair that also carries ``problem`` (an attribute, not a third member: ``value, error = result`` and
    comparisons with plain pairs go on working). The first base of a result class, before its ``NamedTuple``."""

    problem: Optional[JsonProblem] = None
    """None, or what was wrong and where (``kind``, ``offset``, ``line``, ``column``), for a program to act on."""

    def __new__(cls, first: Any, error: Optional[str], problem: Optional[JsonProblem] = None) -> Any:
        result = super().__new__(cls, first, error)  # type: ignore[call-arg]  # the NamedTuple's __new__
        result.problem = problem
        return result

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, problem={self.problem!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WithProblem) and self.problem != other.problem:
            return False
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def _replace(self, **changes: Any) -> Any:
        problem = changes.pop("problem", self.problem)
        return type(self)(*super()._replace(**changes), problem)  # type: ignore[misc, call-arg]


class _ToolCallResultFields(NamedTuple):
    arguments: dict[str, Any]
    """The parsed arguments; ``{}`` where the text was malformed, cut off or not an object."""
    error: Optional[str]
    """``None``, or a message naming the problem and ending with ``Received arguments:`` and the text."""


class ToolCallResult(WithProblem, _ToolCallResultFields):
    """Result of :meth:`ToolCallArgumentsStream.finish` and :func:`parse_tool_call_arguments`: the pair
    ``(arguments, error)`` (unpack it as ``arguments, error = result``), and ``problem``, None or the
    :class:`JsonProblem` that ``error`` describes."""

    def __new__(
        cls, arguments: dict[str, Any], error: Optional[str], problem: Optional[JsonProblem] = None
    ) -> ToolCallResult:
        return super().__new__(cls, arguments, error, problem)  # type: ignore[no-any-return]


def continuation(held: str, text: str) -> Optional[str]:
    """The rest of ``text`` after ``held``, where ``text`` continues the text held so far; None where it does not, and
    the reader starts over with ``text`` (a provider's complete text so far wins over lost or garbled pieces)."""
    return text[len(held) :] if text.startswith(held) else None


# --- Messages both backends raise with ----------------------------------------------------------------------------

CHANGE_IS_ABSTRACT = "JsonChange is abstract: use SetChange, AppendChange, DoneChange or SourceChange"
STR_AFTER_BYTES = "this parser reads bytes; append() got str"
APPEND_AFTER_FINISH = "append() after finish(): the stream has ended"
REPLACE_AFTER_FINISH = "replace() after finish(): the stream has ended"


def not_str(name: str, value: Any) -> str:
    return f"{name} must be str, not {type(value).__name__}"


def not_text(text: Any) -> str:
    return f"append() takes str or bytes-like UTF-8, not {type(text).__name__}"


def bytes_after_str(text: Any) -> str:
    return f"this parser reads str; append() got {type(text).__name__}"


def bad_report_depth(depth: Any) -> str:
    return f"report_depth must be an int from 0 to {REPORT_DEPTH_LIMIT}, not {depth!r}"


# A container nested more than this many levels deep is reported as one ``set`` when it closes.
REPORT_DEPTH_LIMIT = 32

# A pending (unterminated) number shows in snapshots only while its text is at most this long, so that showing it
# costs O(1) per snapshot however many digits arrive.
PENDING_NUMBER_DISPLAY_LIMIT = 64

# The copy-credit rule. Copying the open path into a snapshot costs, in units of one member or element copied, its
# members and elements, plus CONTAINER_COPY_COST for each of its containers, plus the open string's length divided by
# STRING_CHARS_PER_COST. (Measured with `python -m bench snapshot_cost`, allocation, deallocation and the GC's share
# included: on CPython 3.11 a member costs 2.5 to 5 ns, a container 70 to 120 ns, about 20 to 34 members; a character
# under 1/64 of a member.) While the open path holds at most FREE_MEMBERS members and elements and the open string at
# most FREE_STRING_CHARS characters, every snapshot is fresh. Beyond that a snapshot is fresh while the credit earned by
# appends pays for it; otherwise the previous one is returned. An append earns CREDIT_PER_APPEND, CREDIT_PER_CHAR a
# character, and CONTAINER_COPY_COST for each container it opened: reading a container costs about what copying one
# does, so a piece that opens many pays for showing them, and the credit stays linear in the text.
STRING_CHARS_PER_COST = 64
CONTAINER_COPY_COST = 32
FREE_MEMBERS = 256
FREE_STRING_CHARS = 4096
CREDIT_PER_APPEND = 8
CREDIT_PER_CHAR = 2

# JSON Lines: how many of the latest skipped lines' numbers a document stream keeps.
SKIPPED_LINES_KEPT = 100

# Prose: a ``{`` or ``[`` starts a document only where the next non-blank character can continue JSON there, so that
# "[sic]" or "{name}" in the prose around a document do not start one. After a ``[``, a literal (``true``, ``false``,
# ``null``) counts only when it is whole and a blank, ``,`` or ``]`` ends it, so that "[the best]" does not either.
PROSE_CONTINUES_AFTER_BRACE = '"}'
PROSE_CONTINUES_AFTER_BRACKET = '{["]-0123456789'


_checked_paths: dict[Any, tuple[tuple[Union[str, int], ...], ...]] = {}


NO_ITEMS_AT = "append_items() reads the items of the array at items_at: make the parser with items_at=PATH"


def checked_path(path: Any, name: str) -> Path:
    """``path`` (the argument ``name``) as a tuple; ``TypeError`` where it is not a tuple or a list (a str where a
    path belongs, ``"results"`` for ``("results",)``, would read as seven one-letter keys and match nothing)."""
    if type(path) is tuple:
        return path
    if isinstance(path, (tuple, list)):
        return tuple(path)
    hint = f": ({path!r},) is the path of one key" if isinstance(path, str) else ""
    raise TypeError(f"{name} must be a tuple or list of keys and indices, not {type(path).__name__}{hint}")


def checked_items_path(path: Any) -> tuple[Union[str, int], ...]:
    """A parser's ``items_at`` as a tuple of str keys and int indices (at least 0) from the root; refused where it
    is not one. Both backends check it here."""
    if isinstance(path, (str, bytes)):
        raise TypeError("items_at must be a path (a tuple of keys and indices), not a string")
    checked = tuple(path)
    for step in checked:
        if type(step) is not str and type(step) is not int:
            raise TypeError(f"items_at's steps are str keys and int indices, not {type(step).__name__}")
        if not is_items_step(step):
            raise ValueError(f"items_at's indices are from 0 up, not {step}")
    return checked


def is_items_step(step: Any) -> bool:
    """Whether ``items_at`` takes ``step``: a str key, or an int index from 0 (that fits a C index)."""
    return type(step) is str or type(step) is int and 0 <= step < sys.maxsize


def checked_source_paths(patterns: Any, prose: bool) -> tuple[tuple[Union[str, int], ...], ...]:
    """A parser's ``source_paths`` as tuples of keys, indices and ``"*"`` (any one step); refused where they could not
    be honoured. Both backends check them here. A layer that makes a parser per call passes the same tuple each time:
    its check is remembered (a few of them)."""
    if type(patterns) is tuple and not prose:
        try:
            known = _checked_paths.get(patterns)
        except TypeError:  # a path that is a list: not remembered
            return _checked_source_paths(patterns, prose)
        if known is not None:
            return known
        checked = _checked_source_paths(patterns, prose)
        if len(_checked_paths) < 64:
            _checked_paths[patterns] = checked
        return checked
    return _checked_source_paths(patterns, prose)


def _checked_source_paths(patterns: Any, prose: bool) -> tuple[tuple[Union[str, int], ...], ...]:
    if isinstance(patterns, (str, bytes)):
        raise TypeError("source_paths must be an iterable of paths (tuples), not a string")
    checked = tuple(patterns)
    if not all(isinstance(pattern, (tuple, list)) for pattern in checked):
        raise TypeError("source_paths must be an iterable of paths: tuples of str keys and int indices")
    checked = tuple(tuple(pattern) for pattern in checked)
    for pattern in checked:
        if len(pattern) > REPORT_DEPTH_LIMIT:
            raise ValueError(f"a source path has at most {REPORT_DEPTH_LIMIT} steps, not {len(pattern)}")
        for step in pattern:
            if type(step) is not str and type(step) is not int:
                raise TypeError(f"a source path's steps are str keys and int indices, not {type(step).__name__}")
    if checked and prose:
        # In prose the root's first character is read only once the next one says JSON starts there.
        raise ValueError("source_paths cannot be combined with prose=True")
    return checked
