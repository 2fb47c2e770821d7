"""Every conformance case (the reference's results on 1,575 cases), on every backend.

Parser cases feed the pieces to one parser and check each ``append()``'s changes and each ``snapshot()``. Tool-call
cases run the ops on one ``ToolCallArgumentsStream``. The comparison rules are those of the vectors' README.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from streaming_json import MISSING

from .jsonvalues import from_vector, same_json
from .messages import is_tool_call_error

VECTORS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "conformance_vectors.jsonl").read_text("utf-8").splitlines()
]


def _change_matches(change: Any, expected: dict[str, Any]) -> bool:
    if change.kind != expected["kind"] or change.path != tuple(expected["path"]):
        return False
    if change.kind == "set":
        return same_json(change.value, from_vector(expected["value"]))
    return change.text == expected["text"]


def _run_parser_case(backend: ModuleType, case: dict[str, Any]) -> None:
    parser = backend.StreamingJsonParser()
    shown: Any = MISSING
    for number, (piece, step) in enumerate(zip(case["pieces"], case["steps"])):
        where = f"step {number}, piece {piece!r}"
        changes = parser.append(piece)
        assert len(changes) == len(step["changes"]) and all(
            _change_matches(change, expected) for change, expected in zip(changes, step["changes"])
        ), f"{where}: changes {changes!r}, expected {step['changes']!r}"
        snapshot = parser.snapshot()
        if step.get("stale"):
            # The reference showed an out-of-date value here (a pending word had turned out invalid); ours shows the
            # value of the text read so far, as a new parser given that text in one piece does.
            fresh = _one_piece(backend, "".join(case["pieces"][: number + 1]))
            assert _same_snapshot(snapshot, fresh), f"{where}: snapshot {snapshot!r}, the text so far gives {fresh!r}"
        elif step.get("missing"):
            assert snapshot is MISSING, f"{where}: expected MISSING, got {snapshot!r}"
        elif "snapshot" in step:
            expected = from_vector(step["snapshot"])
            assert same_json(snapshot, expected), f"{where}: snapshot {snapshot!r}, expected {expected!r}"
        elif shown is MISSING:
            assert snapshot is MISSING, f"{where}: expected no value yet, got {snapshot!r}"
        else:
            assert same_json(snapshot, shown), f"{where}: snapshot {snapshot!r}, expected unchanged {shown!r}"
        shown = snapshot


def _one_piece(backend: ModuleType, text: str) -> Any:
    """The snapshot of a new parser given ``text`` in one piece."""
    parser = backend.StreamingJsonParser()
    parser.append(text)
    return parser.snapshot()


def _same_snapshot(actual: Any, expected: Any) -> bool:
    return actual is MISSING if expected is MISSING else same_json(actual, expected)


def _fresh_arguments(backend: ModuleType, text: str) -> Any:
    value = _one_piece(backend, text)
    return value if isinstance(value, dict) else {}


def _arguments_match(backend: ModuleType, stream: Any, actual: Any, expected: Any, previous: Any) -> bool:
    if same_json(actual, expected):
        return True
    # Where the reference kept showing the previous arguments after a pending word turned out invalid (the
    # staleness its parser cases flag), ours shows the value of the text read so far instead.
    return same_json(expected, previous) and same_json(actual, _fresh_arguments(backend, stream.text))


def _run_tool_call_case(backend: ModuleType, case: dict[str, Any]) -> None:
    stream = backend.ToolCallArgumentsStream(stable=False)  # the reference's reading, which the vectors hold
    previous: Any = {}
    for number, (op, step) in enumerate(zip(case["ops"], case["steps"])):
        where = f"op {number}, {op!r}"
        expected = from_vector(step["arguments"])
        if op[0] == "finish":
            result = stream.finish()
            assert same_json(result.arguments, expected), f"{where}: {result!r}"
            assert (result.error is not None) == step["error"], f"{where}: {result!r}"
            if result.error is not None:
                assert is_tool_call_error(result.error, stream.text), f"{where}: {result.error!r}"
            continue
        if op[0] == "append":
            arguments = stream.append(op[1])
        else:
            replaced = stream.replace(op[1])
            arguments = replaced.arguments
            assert replaced.delta == step.get("delta"), f"{where}: delta {replaced.delta!r}"
        assert _arguments_match(backend, stream, arguments, expected, previous), f"{where}: {arguments!r}"
        previous = expected


@pytest.mark.parametrize("case", VECTORS, ids=[case["name"] for case in VECTORS])
def test_conformance_case(backend: ModuleType, case: dict[str, Any]) -> None:
    if "pieces" in case:
        _run_parser_case(backend, case)
    else:
        _run_tool_call_case(backend, case)


def test_every_vector_is_here() -> None:
    assert len(VECTORS) == 1575
