"""pytest-benchmark timings of the project's own parsers on the benchmark workloads (at a quarter of their size).

Each round streams a workload through a fresh parser, ``append(piece)`` then ``snapshot()`` per piece, for each
backend: the pure one always, the compiled core where it imports. Not part of the main suite (testpaths=tests):

    .venv/bin/python -m pytest bench/test_bench.py --benchmark-enable
"""

from __future__ import annotations

import json
from importlib import import_module
from typing import Any

import pytest

from bench import workloads

SCALE = 0.25
KEYS = ["1", "2", "3", "4", "5", "6", "8"]


def backend(name: str) -> Any:
    try:
        return import_module(f"streaming_json.{name}").StreamingJsonParser
    except Exception as error:  # not built, or a stale build that fails while importing
        pytest.skip(f"streaming_json.{name} does not import: {type(error).__name__}: {error}")


def stream(parser_class: Any, calls: list[workloads.Call]) -> list[Any]:
    finals = []
    for call in calls:
        parser = parser_class()
        append, snapshot = parser.append, parser.snapshot
        value = None
        for piece in call.pieces:
            append(piece)
            value = snapshot()
        finals.append(value)
    return finals


@pytest.fixture(scope="module", params=KEYS)
def workload(request: pytest.FixtureRequest) -> workloads.Workload:
    built = workloads.build(request.param, SCALE)
    if built is None:
        pytest.skip(f"no corpus at {workloads.CORPUS}")
    return built


@pytest.mark.parametrize("module", ["_core", "_pure"])
def test_stream(benchmark: Any, module: str, workload: workloads.Workload) -> None:
    parser_class = backend(module)
    benchmark.extra_info.update(chars=workload.chars, pieces=workload.pieces)
    finals = benchmark(stream, parser_class, workload.calls)
    assert finals == [json.loads(call.text) for call in workload.calls]
