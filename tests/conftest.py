"""One suite, every backend: tests that take the ``backend`` fixture run once per backend present.

``STREAMING_JSON_PURE_PYTHON=1`` limits the run to the pure backend, as it limits the package. Set
``STREAMING_JSON_REQUIRE_COMPILED=1`` (as ``make test`` does) to fail instead of skipping when the compiled core is
missing, so that a broken build cannot pass as a pure-only run.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

import streaming_json

BACKEND_MODULES = {"python": "streaming_json._pure", "cython": "streaming_json._core"}


def _load(name: str) -> ModuleType | None:
    if name == "cython" and streaming_json.BACKEND != "cython":
        if os.environ.get("STREAMING_JSON_REQUIRE_COMPILED") == "1":
            raise RuntimeError("the compiled core is required but streaming_json.BACKEND is 'python'")
        return None
    return importlib.import_module(BACKEND_MODULES[name])


AVAILABLE_BACKENDS = {name: module for name in BACKEND_MODULES if (module := _load(name)) is not None}


@pytest.fixture(params=sorted(AVAILABLE_BACKENDS), ids=lambda name: f"backend={name}")
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test: ``StreamingJsonParser``, ``ToolCallArgumentsStream`` and the change types."""
    return AVAILABLE_BACKENDS[request.param]
