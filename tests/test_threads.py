"""Parsers on several threads at once: each thread's parsers give what the same parsers give on one thread.

The contract (docs/guarantees.md, "Threads"): a parser, a ``ToolCallArgumentsStream`` or a ``ModelOutputStream`` is
used by one thread at a time; many of them run on many threads at once. What they share is the module's: the
compiled core's cache of key strings and its free list of change objects (with the GIL only: a free-threaded build
has none), the constants both backends read. The threads here each read the real tool calls (their keys fall on the
shared cache's entries, their changes are made and dropped on every thread), and the stream layer's whole output
(relay and all); every change, snapshot and event must equal a run on one thread.

Run here on CPython with the GIL, threads switched every microsecond so that they interleave as finely as the
interpreter allows; the compiled core declares itself free-threading compatible (``freethreading_compatible``), where
the same test runs with the threads truly in parallel (a free-threaded build is not on the machine this was written
on).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Callable

from streaming_json.model_output import ModelOutputStream

from .model_outputs import REAL_CALLS, call_id, tools_for, write_output
from .strategies import cut_randomly

THREADS = 6
CALLS = REAL_CALLS[::20]  # 43 calls, about 30 KB: every thread reads all of them


@contextmanager
def fine_switching() -> Iterator[None]:
    """Threads switched as often as the interpreter allows (with the GIL; a free-threaded build runs them at once)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def on_threads(work: Callable[[int], Any], threads: int = THREADS) -> list[Any]:
    """``work(index)`` on each of ``threads`` threads, started together; their results, or the first error."""
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def run(index: int) -> None:
        try:
            start.wait()
            results[index] = work(index)
        except BaseException as error:  # reported below, with the thread's result missing
            errors.append(error)

    workers = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    with fine_switching():
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    if errors:
        raise errors[0]
    return results


def read_calls(backend: ModuleType, seed: int) -> list[Any]:
    """Each call in token pieces through a parser with every kind of report: each piece's changes (as tuples), a
    snapshot after each piece, and the final snapshot; then the same call through ``ToolCallArgumentsStream``."""
    out: list[Any] = []
    for number, (_, arguments) in enumerate(CALLS):
        pieces = cut_randomly(arguments, seed * 10_000 + number, 1, 8)
        parser = backend.StreamingJsonParser(done_events=True, source_paths=[("*",)])
        for piece in pieces:
            out.append(
                [
                    (change.kind, change.path, getattr(change, "value", getattr(change, "text", None)))
                    for change in parser.append(piece)
                ]
            )
            out.append(parser.snapshot())
        out.append(parser.snapshot(fresh=True))
        stream = backend.ToolCallArgumentsStream(stable=True)
        out.extend(stream.append(piece) for piece in pieces)
        out.append(stream.finish())
    return out


def read_outputs(backend: ModuleType, seed: int) -> list[Any]:
    """The calls written as Hermes output, in groups of three with prose around, read by ``ModelOutputStream`` in
    token pieces (its relay's fast paths take most of them): every event."""
    events: list[Any] = []
    for first in range(0, 30, 3):
        calls = CALLS[first : first + 3]
        text, _ = write_output("hermes", calls, "Sure, here: ", "\nDone.\n", "")
        stream = ModelOutputStream(
            "hermes", tools=tools_for(calls), new_call_id=call_id, parser_class=backend.StreamingJsonParser
        )
        for piece in cut_randomly(text, seed * 1_000 + first, 1, 8):
            events.extend(stream.feed(piece))
        events.extend(stream.finish())
    return events


def test_parsers_on_several_threads_give_what_they_give_on_one(backend: ModuleType) -> None:
    alone = [read_calls(backend, seed) for seed in range(THREADS)]
    together = on_threads(lambda index: read_calls(backend, index))
    for seed in range(THREADS):
        assert together[seed] == alone[seed], f"thread {seed}"


def test_model_output_streams_on_several_threads_give_what_they_give_on_one(backend: ModuleType) -> None:
    alone = [read_outputs(backend, seed) for seed in range(THREADS)]
    together = on_threads(lambda index: read_outputs(backend, index))
    for seed in range(THREADS):
        assert together[seed] == alone[seed], f"thread {seed}"
        assert together[seed], "the streams gave events"


def test_threads_that_share_keys_get_each_their_own_values(backend: ModuleType) -> None:
    """The compiled core's key cache is shared by every parser: threads that read the same keys into objects of
    their own, at once, each end with exactly their own document."""
    documents = [
        "["
        + ",".join(f'{{"name": "t{thread}-{item}", "id": {item}, "k{item % 40}": {thread}}}' for item in range(400))
        + "]"
        for thread in range(THREADS)
    ]

    def read(index: int) -> Any:
        parser = backend.StreamingJsonParser()
        text = documents[index]
        for start in range(0, len(text), 5):
            parser.append(text[start : start + 5])
        return parser.snapshot(fresh=True)

    import json

    assert on_threads(read) == [json.loads(document) for document in documents]
