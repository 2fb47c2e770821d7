"""Which core the package uses: the compiled one where it was built, the pure-Python twin (which behaves the same)
otherwise, or where the environment variable ``STREAMING_JSON_PURE_PYTHON=1`` asks for it at import.

The one place the choice is made (as propcache's ``_helpers``): the layers above import the core's classes from here,
and the package's ``__init__`` re-exports them.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING


def _select() -> ModuleType:
    if os.environ.get("STREAMING_JSON_PURE_PYTHON", "") in ("", "0"):
        try:
            from . import _core

            return _core
        except ImportError:  # no compiled core on this platform
            pass
    from . import _pure

    return _pure


if TYPE_CHECKING:  # both cores have one interface; type checkers read the pure one
    from . import _pure as _selected
else:
    _selected = _select()

BACKEND: str = "cython" if _selected.__name__.endswith("._core") else "python"
"""The core in use: ``"cython"`` (compiled) or ``"python"``."""
StreamingJsonParser = _selected.StreamingJsonParser
StreamingJsonDocuments = _selected.StreamingJsonDocuments
ToolCallArgumentsStream = _selected.ToolCallArgumentsStream
JsonChange = _selected.JsonChange
SetChange = _selected.SetChange
AppendChange = _selected.AppendChange
DoneChange = _selected.DoneChange
SourceChange = _selected.SourceChange
