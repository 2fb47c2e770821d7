"""Incremental, tolerant parsing of JSON text that arrives in pieces, such as streamed LLM tool-call arguments.

``StreamingJsonParser.append()`` reads each piece once and returns the changes it made; ``snapshot()`` returns an
immutable value of the text so far. ``ToolCallArgumentsStream`` wraps a parser for one tool call. The compiled core
(``BACKEND == "cython"``) is used where it was built; the pure-Python backend otherwise, or when the environment
variable ``STREAMING_JSON_PURE_PYTHON=1`` is set at import.
"""

from __future__ import annotations

import os as _os
from types import ModuleType
from typing import TYPE_CHECKING

from ._completed import ANY, aiter_items, aiter_values, iter_items, iter_values
from ._repair import parse_json_with_repair, parse_tool_call_arguments, repair_json, split_documents
from ._types import MISSING, MissingType, ToolCallReplace, ToolCallResult
from ._version import __version__ as __version__


def _select_backend() -> ModuleType:
    """The compiled core where it was built, the pure-Python twin (which behaves the same) otherwise or on demand."""
    if _os.environ.get("STREAMING_JSON_PURE_PYTHON", "") in ("", "0"):
        try:
            from . import _core

            return _core
        except ImportError:  # no compiled core on this platform
            pass
    from . import _pure

    return _pure


if TYPE_CHECKING:  # both backends have one interface; type checkers read the pure one
    from . import _pure as _backend
else:
    _backend = _select_backend()

BACKEND: str = "cython" if _backend.__name__.endswith("._core") else "python"
StreamingJsonParser = _backend.StreamingJsonParser
StreamingJsonDocuments = _backend.StreamingJsonDocuments
ToolCallArgumentsStream = _backend.ToolCallArgumentsStream
JsonChange = _backend.JsonChange
SetChange = _backend.SetChange
AppendChange = _backend.AppendChange
DoneChange = _backend.DoneChange
SourceChange = _backend.SourceChange

__all__ = [
    "BACKEND",
    "MISSING",
    "MissingType",
    "StreamingJsonParser",
    "StreamingJsonDocuments",
    "ToolCallArgumentsStream",
    "JsonChange",
    "SetChange",
    "AppendChange",
    "DoneChange",
    "SourceChange",
    "ToolCallReplace",
    "ToolCallResult",
    "repair_json",
    "parse_json_with_repair",
    "parse_tool_call_arguments",
    "split_documents",
    "iter_items",
    "iter_values",
    "aiter_items",
    "aiter_values",
    "ANY",
]
