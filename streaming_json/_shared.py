"""What every floor of the package agrees on: the aliases, the sentinels, the result tuples of the tool-call helpers,
the messages both backends raise with, the rule "the text so far, continued or restarted", and the numbers of the
cost model.

The reading rules live in the backends; this module is the lowest floor, imported by every other and importing none
of them (``tests/test_layers.py``).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Union

__all__ = [
    "Key",
    "Path",
    "Piece",
    "MISSING",
    "MissingType",
    "ABSENT",
    "ToolCallReplace",
    "ToolCallResult",
    "continuation",
    "CHANGE_IS_ABSTRACT",
    "STR_AFTER_BYTES",
    "APPEND_AFTER_FINISH",
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
]

Key = Union[str, int]
"""A member's key or an array element's index."""
Path = tuple[Key, ...]
"""Where a value is, from the root: keys and indices."""
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


class ToolCallResult(NamedTuple):
    """Result of :meth:`ToolCallArgumentsStream.finish` and :func:`parse_tool_call_arguments`."""

    arguments: dict[str, Any]
    """The parsed arguments; ``{}`` where the text was malformed or not an object."""
    error: Optional[str]
    """``None``, or a message naming the problem and ending with ``Received arguments:`` and the text."""


def continuation(held: str, text: str) -> Optional[str]:
    """The rest of ``text`` after ``held``, where ``text`` continues the text held so far; None where it does not, and
    the reader starts over with ``text`` (a provider's complete text so far wins over lost or garbled pieces)."""
    return text[len(held) :] if text.startswith(held) else None


# --- Messages both backends raise with ----------------------------------------------------------------------------

CHANGE_IS_ABSTRACT = "JsonChange is abstract: use SetChange, AppendChange, DoneChange or SourceChange"
STR_AFTER_BYTES = "this parser reads bytes; append() got str"
APPEND_AFTER_FINISH = "append() after finish(): the stream has ended"


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
