"""The ``conftest.py`` of a temporary copy of LangChain's own parser tests (``tests/langchain_sdist.py`` copies it
there; it is not one of this suite's modules): async tests run in an event loop of their own, and every test's
outcome is written to the JSON file ``STREAMING_JSON_OUTCOMES`` names. Where ``STREAMING_JSON_REBIND=1``, LangChain's
parser names are rebound to this library's drop-ins before any test module imports them, so that LangChain's tests
run against ours unchanged; the file then also says which tests ran one of ours (a parse or a stream), and every run
says which class each name was bound to and the backend in use.

LangChain's own ``conftest.py`` is not copied: it adds checks of LangChain's internals (blockbuster, pytest-mock)
that none of the parser tests needs.
"""

from __future__ import annotations

import asyncio
import importlib
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


_outcomes: dict[str, str] = {}
_exercised: set[str] = set()  # the tests that ran one of our parsers
_running: list[str] = []  # the test running now


def _noting_use(method: Any) -> Any:
    def noted(*args: Any, **kwargs: Any) -> Any:
        _exercised.update(_running)
        return method(*args, **kwargs)

    return noted


def _rebind() -> None:
    """Rebind the names, once LangChain's own modules that use them have been imported: LangChain's
    ``PydanticOutputParser`` and ``with_structured_output`` stay on LangChain's parsers, as in a program that changed
    its own imports only."""
    import langchain_core.language_models.chat_models
    import langchain_core.output_parsers as parsers

    from streaming_json.integrations import _langchain_parsers
    from streaming_json.integrations import langchain as ours

    for name in parsers.__all__:  # every submodule of LangChain's parsers, imported
        getattr(parsers, name)
    assert langchain_core.language_models.chat_models
    for module_name, names in REBOUND.items():
        module = importlib.import_module(module_name)
        for name in names:
            setattr(module, name, getattr(ours, name))
    # What every parse and stream of ours goes through: noted, for the tests that ran one.
    for owner, method in (
        (_langchain_parsers._ReadsEachChunkOnce, "_transform"),
        (_langchain_parsers._ReadsEachChunkOnce, "_atransform"),
        (ours.JsonOutputParser, "parse_result"),
        (ours.JsonOutputToolsParser, "parse_result"),
        (ours.JsonOutputKeyToolsParser, "parse_result"),
        (ours.PydanticToolsParser, "parse_result"),
    ):
        setattr(owner, method, _noting_use(owner.__dict__[method]))


def _bound() -> dict[str, str]:
    """Which class each of LangChain's names is bound to, by module."""
    bound = {}
    for module_name, names in REBOUND.items():
        module = importlib.import_module(module_name)
        for name in names:
            bound[f"{module_name}.{name}"] = getattr(module, name).__module__
    return bound


if os.environ.get("STREAMING_JSON_REBIND") == "1":
    _rebind()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    """Run an ``async def`` test to its end in a new event loop (LangChain's run under pytest-asyncio's auto mode)."""
    function = pyfuncitem.obj
    if not inspect.iscoroutinefunction(function):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(function(**arguments))
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    _running.append(item.nodeid)
    try:
        return (yield)
    finally:
        _running.remove(item.nodeid)


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
        import streaming_json

        run = {
            "outcomes": _outcomes,
            "exercised": sorted(_exercised),
            "bound": _bound(),
            "backend": streaming_json.BACKEND,
        }
        with open(path, "w", encoding="utf-8") as file:
            json.dump(run, file, indent=1, sort_keys=True)
