"""What a stream costs in memory: the peak while a long string streams in one-character pieces, and one idle parser.

Two figures for each backend (the compiled core, the pure one) and for ``ModelOutputStream`` over each, measured
with ``tracemalloc`` (every allocation through Python's allocators: objects, and the core's own buffers, which it
takes with ``PyMem_*``) in this process:

- **peak**: a string of 1 MiB (ASCII) read one character a piece, a snapshot after every piece, each snapshot held
  until the next replaces it (as a view shows one value at a time); the peak of traced memory from the parser's
  making to a fresh snapshot at the end, against the text's UTF-8 size (a snapshot the copy credit has not paid for
  yet is the last one again, as the core's rule says). The text and its pieces are made before tracing. For
  ``ModelOutputStream``: the same string as a Hermes call's ``content`` argument, each piece's events dropped after
  the piece (a server sends them on), against the output's size.
- **idle**: what one parser holds mid-string, made and fed ``{"a": "xy`` (the append's result dropped): the traced
  memory it keeps alive (its object, its open path, its buffers, and the changes list it keeps to reuse), in bytes;
  then the same after one snapshot (the snapshot dropped; the parser keeps its last one, and its records of what it
  showed). A first parser is made and fed first, untraced, so that what the module keeps for every parser (the
  compiled core's cache of key strings, its free list of change objects) is not counted. For ``ModelOutputStream``:
  a Hermes stream fed ``<tool_call>\\n{"name": "write", "arguments": {"path": "a.py", "content": "xy``: mid-call.

Targets (issue 42): peak at most 3x the text, idle at most 1 KB, for the parser on both backends.
``tests/test_memory.py`` holds both backends to the same bounds with these functions.

    python -m bench memory [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
from types import ModuleType
from typing import Any, Callable

from bench import harness

try:
    import tracemalloc
except ImportError:  # PyPy has no tracemalloc: the suite is CPython's (python -m bench memory says so there)
    tracemalloc = None  # type: ignore[assignment]

PACKAGES = ()
MARKDOWN = True

PEAK_TEXT_CHARS = 1 << 20  # the string's length: 1 MiB
PEAK_LIMIT = 3.0  # the peak, at most this many times the text
IDLE_LIMIT = 1024  # an idle parser mid-string, at most this many bytes

IDLE_PARSER_TEXT = '{"a": "xy'
IDLE_STREAM_TEXT = '<tool_call>\n{"name": "write", "arguments": {"path": "a.py", "content": "xy'
STREAM_OPENING = '<tool_call>\n{"name": "write", "arguments": {"content": "'


def long_string(chars: int) -> str:
    """The open string of the peak figure: a quote and ``chars`` ASCII characters."""
    return '"' + "abcdefgh" * (chars // 8)


def parser_peak(backend: ModuleType, chars: int = PEAK_TEXT_CHARS) -> float:
    """The peak of traced memory while a parser reads ``long_string(chars)`` a character a piece, a snapshot after
    each, against the text's UTF-8 size."""
    text = long_string(chars)
    pieces = list(text)
    gc.collect()
    tracemalloc.start()
    try:
        parser = backend.StreamingJsonParser()
        append, snapshot = parser.append, parser.snapshot
        shown = None
        for piece in pieces:
            append(piece)
            shown = snapshot()  # held until the next one replaces it (while unpaid, it is the last one again)
        shown = snapshot(fresh=True)  # the end of the stream: the whole string
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shown == text[1:], "the last snapshot shows the whole string"
    return peak / len(text.encode())


def stream_peak(backend: ModuleType, chars: int = PEAK_TEXT_CHARS) -> float:
    """The same string as a Hermes call's argument, a character a piece through ``ModelOutputStream`` over the
    backend's parser, each piece's events dropped; the peak against the output's UTF-8 size."""
    from streaming_json.model_output import ModelOutputStream

    text = STREAM_OPENING + long_string(chars)[1:]
    pieces = list(text)
    gc.collect()
    tracemalloc.start()
    try:
        stream = ModelOutputStream("hermes", parser_class=backend.StreamingJsonParser)
        feed = stream.feed
        for piece in pieces:
            feed(piece)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / len(text.encode())


def idle_bytes(make: Callable[[], Any]) -> tuple[int, int]:
    """What the object ``make()`` returns (made and fed, its results dropped) keeps alive: traced bytes, and the
    same after one ``snapshot()`` where it has one (the snapshot dropped), else the same figure again. ``make`` runs
    once untraced first, so that what a module keeps for every instance is not counted.

    Each figure is the traced memory with the object alive less the same once it is deleted, so that what anything
    else in the process allocates and keeps meanwhile (a test runner's I/O thread, a module's cache growing) is not
    counted; the least of three tries."""
    make()
    tries = []
    for _ in range(3):
        gc.collect()
        tracemalloc.start()
        try:
            made = make()
            gc.collect()
            alive = tracemalloc.get_traced_memory()[0]
            if hasattr(made, "snapshot"):
                made.snapshot()
                gc.collect()
            alive_after_snapshot = tracemalloc.get_traced_memory()[0]
            del made
            gc.collect()
            gone = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        tries.append((alive - gone, alive_after_snapshot - gone))
    return min(idle for idle, _ in tries), min(shown for _, shown in tries)


def idle_parser(backend: ModuleType) -> tuple[int, int]:
    def make() -> Any:
        parser = backend.StreamingJsonParser()
        parser.append(IDLE_PARSER_TEXT)
        return parser

    return idle_bytes(make)


def idle_stream(backend: ModuleType) -> tuple[int, int]:
    from streaming_json.model_output import ModelOutputStream

    def make() -> Any:
        stream = ModelOutputStream("hermes", parser_class=backend.StreamingJsonParser)
        stream.feed(IDLE_STREAM_TEXT)
        return stream

    return idle_bytes(make)


def backends() -> dict[str, ModuleType]:
    from streaming_json import _pure

    found: dict[str, ModuleType] = {}
    try:
        from streaming_json import _core

        found["cython"] = _core
    except ImportError:
        pass
    found["pure"] = _pure
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(session: harness.Session) -> int:
    if tracemalloc is None:
        print("python -m bench memory measures with tracemalloc, which this Python lacks (PyPy): run it on CPython")
        return 1
    chars = PEAK_TEXT_CHARS // 16 if session.args.quick else PEAK_TEXT_CHARS
    print(harness.environment_line(session.env))
    targets = harness.Targets()
    rows, raw = [], {}
    for name, backend in backends().items():
        session.progress(f"{name}: peak, idle")
        peak = parser_peak(backend, chars)
        idle, idle_shown = idle_parser(backend)
        session.progress(f"{name}: ModelOutputStream")
        stream = stream_peak(backend, chars)
        stream_idle, _ = idle_stream(backend)
        quick = session.args.quick  # (smaller: the targets are judged at full size only)
        rows.append([
            name,
            f"{peak:.2f}x" + ("" if quick else targets.judge(peak, "<=", PEAK_LIMIT)),
            f"{idle:,} B" + ("" if quick else targets.judge(idle, "<=", IDLE_LIMIT)),
            f"{idle_shown:,} B",
            f"{stream:.2f}x",
            f"{stream_idle:,} B",
        ])  # fmt: skip
        raw[name] = {"peak": peak, "idle": idle, "idle_after_snapshot": idle_shown, "stream_peak": stream,
                     "stream_idle": stream_idle}  # fmt: skip
    print(f"A {chars:,}-character string in 1-character pieces, a snapshot after each (peak, against the text); "
          f"one parser or stream idle mid-string (tracemalloc)")  # fmt: skip
    print(session.table(
        ["backend", "peak / text", "idle parser", "idle, after a snapshot", "ModelOutputStream peak / output",
         "ModelOutputStream idle mid-call"],
        rows,
    ))  # fmt: skip
    if not session.args.quick:
        print(targets.summary())
    session.raw.update({"chars": chars, "figures": raw})
    return 0
