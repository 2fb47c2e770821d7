"""Types and constants shared by both backends.

The reading rules live in the backends; this module holds what they must agree on: the ``MISSING`` sentinel, the
result tuples of the tool-call helpers, and the numbers of the cost model.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

__all__ = [
    "MISSING",
    "MissingType",
    "ToolCallReplace",
    "ToolCallResult",
    "REPORT_DEPTH_LIMIT",
    "PENDING_NUMBER_DISPLAY_LIMIT",
    "FREE_COPY_COST",
    "CREDIT_PER_APPEND",
    "CREDIT_PER_CHAR",
    "STRING_CHARS_PER_COST",
]


class MissingType:
    """The type of :data:`MISSING`: the value of a parser that has read no value yet."""

    __slots__ = ()
    _instance: Optional["MissingType"] = None

    def __new__(cls) -> "MissingType":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "streaming_json.MISSING"

    def __reduce__(self) -> str:
        return "MISSING"

    def __copy__(self) -> "MissingType":
        return self

    def __deepcopy__(self, memo: Any) -> "MissingType":
        return self


MISSING = MissingType()
"""Returned by ``snapshot()`` before a value starts (falsy, a singleton, compare with ``is``)."""


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


# A container nested more than this many levels deep is reported as one ``set`` when it closes.
REPORT_DEPTH_LIMIT = 32

# A pending (unterminated) number shows in snapshots only while its text is at most this long, so that showing it
# costs O(1) per snapshot however many digits arrive.
PENDING_NUMBER_DISPLAY_LIMIT = 64

# The copy-credit rule, in units of one member or element copied. A snapshot whose open path costs at most
# FREE_COPY_COST is always fresh: 256 members plus a 4,096-character open string fit. A costlier one is fresh while
# the credit earned by appends (CREDIT_PER_APPEND per call plus CREDIT_PER_CHAR per character) pays for it;
# otherwise the previous snapshot is returned. Measured on CPython 3.11: copying one list element or dict member
# costs about as much as copying 16 characters of a str.
STRING_CHARS_PER_COST = 16
FREE_COPY_COST = 256 + 4096 // STRING_CHARS_PER_COST
CREDIT_PER_APPEND = 32
CREDIT_PER_CHAR = 4
