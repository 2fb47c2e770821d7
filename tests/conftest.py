"""One suite, every backend: tests that take the ``backend`` fixture run once per backend present (see
``backends.py``, which tests import; nothing is imported from here)."""

from __future__ import annotations

import os
from types import ModuleType

import pytest

from .backends import AVAILABLE_BACKENDS, BUILD_HINT, NO_COMPILED_CORE


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("STREAMING_JSON_REQUIRE_COMPILED") == "1" and NO_COMPILED_CORE is not None:
        raise pytest.UsageError(
            f"the compiled core is required (STREAMING_JSON_REQUIRE_COMPILED=1) but not in use: {NO_COMPILED_CORE}. "
            + BUILD_HINT
        )


# Session-scoped: a backend is a module, with no state for a test to reset, so one instance serves every test and
# hypothesis has no function-scoped fixture to warn about.
@pytest.fixture(scope="session", params=sorted(AVAILABLE_BACKENDS), ids=lambda name: f"backend={name}")
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test: ``StreamingJsonParser``, ``ToolCallArgumentsStream`` and the change types."""
    return AVAILABLE_BACKENDS[request.param]
