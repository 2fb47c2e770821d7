"""One suite, every backend: tests that take the ``backend`` fixture run once per backend present (see
``backends.py``, which tests import; nothing is imported from here)."""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType

import pytest

from .backends import AVAILABLE_BACKENDS, BUILD_HINT, CPYTHON, IMPLEMENTATION, NO_COMPILED_CORE

# The servers' tier (tests/servers/: vLLM and SGLang themselves) runs in their environment, `make test-servers`.
collect_ignore = [] if importlib.util.find_spec("vllm") and importlib.util.find_spec("sglang") else ["servers"]


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("STREAMING_JSON_REQUIRE_COMPILED") == "1" and NO_COMPILED_CORE is not None:
        raise pytest.UsageError(
            f"the compiled core is required (STREAMING_JSON_REQUIRE_COMPILED=1) but not in use: {NO_COMPILED_CORE}. "
            + BUILD_HINT
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CPYTHON:
        return
    # Under a JIT the time a character at a timing test's sizes depends on warm-up and the GC's nursery as much as on
    # the work (PyPy: 3.6x to 4.1x growth on linear workloads): the timing tests hold CPython's times to linearity.
    skip = pytest.mark.skip(reason=f"timing tests run on CPython: {IMPLEMENTATION}'s JIT and GC skew their sizes")
    for item in items:
        if item.get_closest_marker("timing") is not None:
            item.add_marker(skip)


# Session-scoped: a backend is a module, with no state for a test to reset, so one instance serves every test and
# hypothesis has no function-scoped fixture to warn about.
@pytest.fixture(scope="session", params=sorted(AVAILABLE_BACKENDS), ids=lambda name: f"backend={name}")
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test: ``StreamingJsonParser``, ``ToolCallArgumentsStream`` and the change types."""
    return AVAILABLE_BACKENDS[request.param]
