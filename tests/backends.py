"""The backends under test, for the ``backend`` fixture and for the tests that compare backends side by side.

``STREAMING_JSON_PURE_PYTHON=1`` limits the run to the pure backend, as it limits the package. Where
``STREAMING_JSON_REQUIRE_COMPILED=1`` (``make test`` sets it), ``conftest.py`` stops the run before any test when
the compiled core is not in use, so that a broken build cannot pass as a pure-only run.
"""

from __future__ import annotations

import importlib
import os
import platform
from types import ModuleType
from typing import Optional

import pytest

import streaming_json

BACKEND_MODULES = {"python": "streaming_json._pure", "cython": "streaming_json._core"}

IMPLEMENTATION = platform.python_implementation()
CPYTHON = IMPLEMENTATION == "CPython"

BUILD_HINT = (
    "Build it: `make clean && make test`, or `pip install -e .` with a C compiler and Cython installed "
    "(`pip install -e . -v` shows why a build fell back to the pure backend)."
)


def _why_no_compiled_core() -> Optional[str]:
    """Why the package does not use the compiled core, or None where it does."""
    if streaming_json.BACKEND == "cython":
        return None
    if os.environ.get("STREAMING_JSON_PURE_PYTHON", "") not in ("", "0"):
        return "STREAMING_JSON_PURE_PYTHON is set"
    if not CPYTHON:
        return f"{IMPLEMENTATION} installs the pure-Python backend only"
    try:
        importlib.import_module(BACKEND_MODULES["cython"])
    except ImportError as error:
        return f"{BACKEND_MODULES['cython']} does not import: {error}"
    return "the package chose the pure-Python backend"


NO_COMPILED_CORE = _why_no_compiled_core()

AVAILABLE_BACKENDS: dict[str, ModuleType] = {
    name: importlib.import_module(module)
    for name, module in BACKEND_MODULES.items()
    if name == "python" or NO_COMPILED_CORE is None
}

needs_both_backends = pytest.mark.skipif(
    len(AVAILABLE_BACKENDS) < 2, reason=f"one backend present ({NO_COMPILED_CORE}): nothing to compare"
)


def is_compiled(backend: ModuleType) -> bool:
    return backend.__name__ == BACKEND_MODULES["cython"]


def cpython_only(reason: str) -> pytest.MarkDecorator:
    """Skip a check that needs CPython itself (an API or a behaviour other interpreters lack); say which."""
    return pytest.mark.skipif(not CPYTHON, reason=f"CPython only: {reason}")
