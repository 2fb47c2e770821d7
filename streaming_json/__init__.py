"""Incremental, tolerant parsing of JSON text that arrives in pieces, such as streamed LLM tool-call arguments.

``StreamingJsonParser.append()`` reads each piece once and returns the changes it made; ``snapshot()`` returns an
immutable value of the text so far. ``ToolCallArgumentsStream`` wraps a parser for one tool call. The compiled core
(``BACKEND == "cython"``) is used where it was built; the pure-Python backend otherwise, or when the environment
variable ``STREAMING_JSON_PURE_PYTHON=1`` is set at import.
"""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING

from ._repair import parse_json_with_repair, parse_tool_call_arguments, repair_json
from ._types import MISSING, MissingType, ToolCallReplace, ToolCallResult
from ._version import __version__ as __version__

if TYPE_CHECKING:  # both backends have one interface; type checkers read the pure one
    from ._pure import AppendChange, JsonChange, SetChange, StreamingJsonParser, ToolCallArgumentsStream

    BACKEND: str
elif _os.environ.get("STREAMING_JSON_PURE_PYTHON", "") not in ("", "0"):
    from ._pure import AppendChange, JsonChange, SetChange, StreamingJsonParser, ToolCallArgumentsStream

    BACKEND = "python"
else:
    try:
        from ._core import AppendChange, JsonChange, SetChange, StreamingJsonParser, ToolCallArgumentsStream
    except ImportError:  # no compiled core on this platform: the pure-Python twin behaves the same
        from ._pure import AppendChange, JsonChange, SetChange, StreamingJsonParser, ToolCallArgumentsStream

        BACKEND = "python"
    else:
        BACKEND = "cython"

__all__ = [
    "BACKEND",
    "MISSING",
    "MissingType",
    "StreamingJsonParser",
    "ToolCallArgumentsStream",
    "JsonChange",
    "SetChange",
    "AppendChange",
    "ToolCallReplace",
    "ToolCallResult",
    "repair_json",
    "parse_json_with_repair",
    "parse_tool_call_arguments",
]
