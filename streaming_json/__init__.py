"""Incremental, tolerant parsing of JSON text that arrives in pieces, such as streamed LLM tool-call arguments.

``StreamingJsonParser.append()`` reads each piece once and returns the changes it made; ``snapshot()`` returns an
immutable value of the text so far. ``ToolCallArgumentsStream`` wraps a parser for one tool call. The compiled core
(``BACKEND == "cython"``) is used where it was built; the pure-Python backend otherwise, or when the environment
variable ``STREAMING_JSON_PURE_PYTHON=1`` is set at import.

This module only re-exports: each name is defined on the floor it belongs to (``tests/test_layers.py``).
"""

from __future__ import annotations

from ._backend import (
    BACKEND,
    AppendChange,
    DoneChange,
    JsonChange,
    SetChange,
    SourceChange,
    StreamingJsonDocuments,
    StreamingJsonParser,
    ToolCallArgumentsStream,
)
from ._completed import ANY, aiter_items, aiter_values, iter_items, iter_values, split_documents
from ._repair import parse_json_with_repair, parse_tool_call_arguments, repair_json
from ._shared import MISSING, JsonParseError, JsonProblem, MissingType, ProblemKind, ToolCallReplace, ToolCallResult
from ._version import __version__ as __version__

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
    "JsonProblem",
    "ProblemKind",
    "JsonParseError",
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
