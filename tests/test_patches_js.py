"""The JavaScript client (``streaming_json/static/patches.js``) on the op streams the Python tests read: the fixtures
are written here, each stream's server-sent events and what Python's ``apply_patch`` holds after every event, and
Node's own test runner (``node --test tests/js/``) reads them through ``readFetch``, cut into random chunks. And its
cost per piece, flat as the value grows (the patches bench suite's client figure, in Node)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from streaming_json.patches import AGUIWire, PatchEvent, UIMessageWire, apply_patch, iter_sse

from .patch_streams import corpus_stream, replay, streams

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
# Where `make test` installs the protocols' own JavaScript clients (tests/js/package.json).
NODE_MODULES = ROOT / ".venv" / "node"

needs_node = pytest.mark.skipif(
    NODE is None and not os.environ.get("CI"), reason="node is not installed (CI installs it: .ci/run)"
)


def _run_node(fixtures: Path, *files: str) -> subprocess.CompletedProcess[str]:
    assert NODE is not None, "node is not installed: the JavaScript client's tests need it (.ci/run installs it)"
    return subprocess.run(
        [NODE, "--test", *files],
        cwd=ROOT,
        env={**os.environ, "STREAMING_JSON_FIXTURES": str(fixtures), "STREAMING_JSON_NODE_MODULES": str(NODE_MODULES)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _write(fixtures: Path, name: str, sse: str, expected: dict[str, object], steps: bool = True) -> None:
    if not steps:
        expected = {**expected, "steps": None}
    (fixtures / f"{name}.json").write_text(json.dumps({"sse": sse, **expected}), encoding="utf-8")


@needs_node
def test_the_javascript_client_ends_as_python_on_every_stream(backend: ModuleType, tmp_path: Path) -> None:
    found = streams(backend)
    for name, events in found.items():
        expected = replay(events)
        _write(tmp_path, name, "".join(iter_sse(events)), expected)
        # Every event of each flush interval merged into one: the merged operations build the same values.
        clock = itertools.count().__next__  # a clock that ticks once an event: 3 events to an interval
        merged = "".join(iter_sse(events, flush_interval=3, clock=clock))
        _write(tmp_path, f"{name}_coalesced", merged, expected, steps=False)
    _passes(_run_node(tmp_path, "tests/js/patches.test.mjs"), len(found) * 2 + 1 + 3)


@needs_node
@pytest.mark.slow
def test_the_javascript_client_ends_as_python_on_the_whole_corpus(backend: ModuleType, tmp_path: Path) -> None:
    corpus = corpus_stream(backend)
    sse = "".join(iter_sse(corpus, flush_interval=1e9))
    _write(tmp_path, "corpus_coalesced", sse, replay(corpus, steps_too=False), steps=False)
    _passes(_run_node(tmp_path, "tests/js/patches.test.mjs"), 1 + 1 + 3)


def _client_expectations(events: list[PatchEvent]) -> dict[str, Any]:
    """What a protocol's client must end with, from our op events: each call (in the order they started) with its
    name, the provider's text, the strict input and the error; the document's value as its operations built it (the
    last one before an error), and its error."""
    calls: dict[str, dict[str, Any]] = {}
    document: Any = None
    document_error = None
    for event in events:
        if event.id is None:
            if event.kind == "ops" and event.ops:
                document = apply_patch(document, event.ops)
            elif event.kind == "end" and event.error is not None:
                document_error = event.error
            elif event.kind == "end" and not event.shown:
                document = event.value
        elif event.kind == "start":
            calls[event.id] = {"id": event.id, "name": event.name, "text": ""}
        elif event.kind == "ops":
            calls[event.id]["text"] += event.text
        else:
            calls[event.id].update(input=event.value, error=event.error)
    return {"calls": list(calls.values()), "document": document, "document_error": document_error}


@needs_node
def test_the_ai_sdks_and_ag_uis_own_clients_end_with_our_tool_inputs_and_values(
    backend: ModuleType, tmp_path: Path
) -> None:
    """Our UI message stream read by the ``ai`` package's own transport and ``readUIMessageStream``, our AG-UI events
    by ``@ag-ui/client``'s ``HttpAgent``: every stream (calls that end well, in error and cut off, documents strict and
    with ``append``, one malformed) ends in their clients with our tool inputs, errors and document values."""
    if not (NODE_MODULES / "node_modules" / "ai").is_dir():
        message = f"the protocols' JavaScript clients are not installed in {NODE_MODULES} (make test installs them)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    found = streams(backend)
    for folder in ("ai-sdk", "ag-ui"):
        (tmp_path / folder).mkdir()
    for name, events in found.items():
        expected = _client_expectations(events)
        for suffix, interval in (("", 0.0), ("_coalesced", 3.0)):  # each event alone; 3 events to a batch
            clock = itertools.count().__next__
            options: dict[str, Any] = {"flush_interval": interval, "clock": clock}
            ui_messages = "".join(iter_sse(events, wire=UIMessageWire(message_id="m1", data_name="answer"), **options))
            agui = "".join(iter_sse(events, wire=AGUIWire(thread_id="t1", run_id="r1"), **options))
            for folder, sse in (("ai-sdk", ui_messages), ("ag-ui", agui)):
                fixture = json.dumps({"sse": sse, "expected": expected})
                (tmp_path / folder / f"{name}{suffix}.json").write_text(fixture, "utf-8")
    _passes(_run_node(tmp_path, "tests/js/sdk_clients.test.mjs"), len(found) * 4)


def _passes(result: subprocess.CompletedProcess[str], tests: int) -> None:
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert f"# pass {tests}\n" in result.stdout and "# fail 0\n" in result.stdout, result.stdout[-3000:]


@needs_node
@pytest.mark.timing
def test_the_javascript_client_applies_a_piece_at_1_mb_as_fast_as_at_64_kb(tmp_path: Path) -> None:
    """The bench's client figure (``python -m bench patches``) in Node, applyPatch alone: a string that grows piece by
    piece and an array of records, each past 1 MB, cost as much a piece at 1 MB as at 64 KB (within 1.5x), where a
    client that copied the string or the open path on each piece would cost 16 times as much. About the client: the
    op streams are the default backend's (both backends give the same operations, tested above)."""
    from bench.suites.patches import CLIENT_FLAT, client_cases, client_fixture, node_client

    for title, text, pieces in client_cases():
        fixture = tmp_path / "fixture.json"
        fixture.write_text(json.dumps(client_fixture(text, pieces), ensure_ascii=False), encoding="utf-8")
        measured = node_client(fixture, 3, ("apply",))
        assert measured["final_ok"], f"{title}: the client ended with another value"
        small, large = measured["apply"]["64 KB"], measured["apply"]["1 MB"]
        assert large <= CLIENT_FLAT * small, f"{title}: {large:,.0f} ns a piece at 1 MB, {small:,.0f} ns at 64 KB"
