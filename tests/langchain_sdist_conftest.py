"""The ``conftest.py`` of a temporary copy of LangChain's own parser tests (``tests/langchain_sdist.py`` copies it
there; it is not one of this suite's modules): async tests run in an event loop of their own, every test's outcome is
written to the JSON file ``STREAMING_JSON_OUTCOMES`` names, and, where ``STREAMING_JSON_REBIND=1``, LangChain's
parser names are rebound to this library's drop-ins before any test module imports them, so that LangChain's tests
run against ours unchanged.

LangChain's own ``conftest.py`` is not copied: it adds checks of LangChain's internals (blockbuster, pytest-mock)
that none of the parser tests needs.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from typing import Any

import pytest

# Where each drop-in replaces LangChain's name: the modules LangChain's tests import the parsers from.
REBOUND = {
    "langchain_core.output_parsers": (
        "JsonOutputParser",
        "SimpleJsonOutputParser",
        "JsonOutputToolsParser",
        "JsonOutputKeyToolsParser",
        "PydanticToolsParser",
    ),
    "langchain_core.output_parsers.json": ("JsonOutputParser", "SimpleJsonOutputParser"),
    "langchain_core.output_parsers.openai_tools": (
        "JsonOutputToolsParser",
        "JsonOutputKeyToolsParser",
        "PydanticToolsParser",
    ),
}


def _rebind() -> None:
    import importlib

    from streaming_json.integrations import langchain as ours

    for module_name, names in REBOUND.items():
        module = importlib.import_module(module_name)
        for name in names:
            setattr(module, name, getattr(ours, name))


if os.environ.get("STREAMING_JSON_REBIND") == "1":
    _rebind()

_outcomes: dict[str, str] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    """Run an ``async def`` test to its end in a new event loop (LangChain's run under pytest-asyncio's auto mode)."""
    function = pyfuncitem.obj
    if not inspect.iscoroutinefunction(function):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(function(**arguments))
    return True


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A test's outcome: failed if any phase failed, skipped if set-up skipped it, else passed."""
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.skipped:
        _outcomes.setdefault(report.nodeid, "skipped")
    elif report.when == "call":
        _outcomes.setdefault(report.nodeid, "passed")


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("STREAMING_JSON_OUTCOMES")
    if path:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(_outcomes, file, indent=1, sort_keys=True)
