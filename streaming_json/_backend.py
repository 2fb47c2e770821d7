"""Which core the package uses: the compiled one where it was built, the pure-Python twin (which behaves the same)
otherwise, or where the environment variable ``STREAMING_JSON_PURE_PYTHON=1`` asks for it at import.

Where the install tried to compile the core and could not (setup.py leaves the reason in the package's
``COMPILE_FAILED`` file), the import warns, once a process, that the slower pure backend is in use: pip shows the
build's own warning only with ``-v``. ``STREAMING_JSON_PURE_PYTHON=1`` chooses the pure backend knowingly and silences
it; a wheel built pure on purpose (``STREAMING_JSON_NO_EXTENSIONS=1``, PyPy) carries no such file.

The one place the choice is made (as propcache's ``_helpers``): the layers above import the core's classes from here,
and the package's ``__init__`` re-exports them.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

COMPILE_FAILED_NOTE = Path(__file__).with_name("COMPILE_FAILED")
"""Written by setup.py where the build could not compile the core: the reason, one line."""


def _warn_if_the_build_failed() -> None:
    try:
        reason = COMPILE_FAILED_NOTE.read_text(encoding="utf-8").strip()
    except OSError:  # no such file: the compiled core was not tried (PyPy, a pure wheel) or is missing for a reason
        return
    warnings.warn(
        f"streaming_json: the compiled core could not be built when this package was installed ({reason}), so the "
        "pure-Python backend is in use, which is many times slower (docs/backends.md). Reinstall where a C compiler "
        "and Python's headers are present (`pip install -v` shows the build), or set STREAMING_JSON_PURE_PYTHON=1 to "
        "use the pure backend without this warning.",
        RuntimeWarning,
        stacklevel=1,  # (the import machinery's frames are above: none of them is the user's)
    )


def _select() -> ModuleType:
    if os.environ.get("STREAMING_JSON_PURE_PYTHON", "") in ("", "0"):
        try:
            from . import _core

            return _core
        except ImportError:  # no compiled core on this platform
            _warn_if_the_build_failed()
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
