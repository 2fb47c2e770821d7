"""Side by side: streaming_json against the other ways to show a partial JSON value while it streams.

What is measured. Every contender gets the same pieces of each workload (``bench/workloads.py``) one at a time and
makes the current partial value available after every piece, as a live UI needs:

- ours, the compiled core (``streaming_json._core``, when it imports) and the pure backend (``streaming_json._pure``):
  ``append(piece)`` then ``snapshot()`` per piece;
- jiter, pydantic-core, partial-json-parser, json-repair (``stream_stable=True``): re-parse the whole buffer after
  every piece, as the OpenAI and Anthropic SDKs do with jiter today;
- jsonriver: incremental; its async generator is driven synchronously, one piece pushed at a time;
- ijson (yajl2_c backend): incremental parse events only, no partial value; pieces pushed as UTF-8 bytes;
- floors: ``json.loads`` and ``orjson.loads`` of the whole text once, and the "call floor": a Python loop over the
  pieces making two no-op C calls per piece (``len(piece)``, ``id(piece)``) plus one ``orjson.loads`` of the text.

How. After one untimed warm-up run of every contender on small samples, the harness runs 5 interleaved rounds on
each workload (wall time, medians) with a cap of 10 s: a peer still running after the cap is stopped and not run
again on that workload or on a larger one of its series (workload 7). A timed run keeps nothing of its output alive
(each call's value is dropped when the next call starts); every contender's final values come from one more run,
untimed, before the rounds, and are compared with ``json.loads`` of the text (MISMATCH otherwise). Peak memory of
our two backends is measured in a separate, untimed run under ``tracemalloc`` (on CPython). The exit status is 1
when one of our backends gives a wrong value or raises, else 0.

    python -m bench peers [--quick] [--repeats N] [--only 1,5,7] [--cap SECONDS] [--clock wall|cpu] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import types
from importlib import import_module
from time import perf_counter
from typing import Any, Callable, Optional

from bench import harness, workloads
from bench.harness import Contender, Result, Stopped, contender
from bench.workloads import Workload

PACKAGES = ("jiter", "pydantic-core", "partial-json-parser", "json-repair", "jsonriver", "ijson", "orjson")
MARKDOWN = False

# Peak memory needs tracemalloc and sys.getsizeof, which PyPy has not: there the time tables alone are printed.
MEMORY_MEASURED = platform.python_implementation() == "CPython"
ORDER = ["1", "2", "3", "4", "5", "6", "1x4", "1x16", "5x4", "5x16", "8"]
SERIES = {"1": ["1", "1x4", "1x16"], "5": ["5", "5x4", "5x16"]}  # workload 7: scaling


# --- Contenders: each feeds every piece of the workload's calls and keeps the current value -------------------------
#
# Each runner is made twice (``keep``): to time, keeping no call's final value once the next call starts, and to
# check, keeping every call's final value.


def stream_ours(parser_class: Any, keep: bool) -> harness.Runner:
    def run(workload: Workload, deadline: float) -> list:
        finals, done = [], 0
        for call in workload.calls:
            parser = parser_class()
            append, snapshot = parser.append, parser.snapshot
            value = None
            for batch in call.batches:
                for piece in batch:
                    append(piece)
                    value = snapshot()
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done, workload.pieces)
            if keep:
                finals.append(value)
        return finals

    return run


def call_floor(loads: Callable[[str], Any], keep: bool) -> harness.Runner:
    """The least a Python loop over the pieces can cost: two no-op C calls per piece, then one fast parse."""

    def run(workload: Workload, deadline: float) -> list:
        first, second = len, id
        finals, done = [], 0
        for call in workload.calls:
            for batch in call.batches:
                for piece in batch:
                    first(piece)
                    second(piece)
                done += len(batch)
                if perf_counter() > deadline:  # never true (a floor runs to the end), but timed as ours is
                    raise Stopped(done, workload.pieces)
            value = loads(call.text)  # parsed in every run; kept only in the checking one
            if keep:
                finals.append(value)
        return finals

    return run


def whole_text(loads: Callable[[str], Any], keep: bool) -> harness.Runner:
    def run(workload: Workload, deadline: float) -> list:
        if keep:
            return [loads(call.text) for call in workload.calls]
        for call in workload.calls:
            loads(call.text)
        return []

    return run


def reparse(parse: Callable[[str], Any], keep: bool) -> harness.Runner:
    """Re-parse the whole buffer after every piece; text that is not yet a value (e.g. "") keeps the last one."""

    def run(workload: Workload, deadline: float) -> list:
        finals, done = [], 0
        for call in workload.calls:
            buffer, value = "", None
            for piece in call.pieces:
                buffer += piece
                try:  # noqa: SIM105 - timed: a try costs nothing here, contextlib.suppress would add to the peer's time
                    value = parse(buffer)
                except ValueError:
                    pass
                done += 1
                if perf_counter() > deadline:
                    raise Stopped(done, workload.pieces)
            if keep:
                finals.append(value)
        return finals

    return run


@types.coroutine
def _next_piece() -> Any:
    return (yield)  # suspends the whole coroutine chain until the driver sends the next piece


class _PushedPieces:
    """An async iterator of str whose pieces are pushed by the driver of the coroutine that awaits it."""

    def __aiter__(self) -> _PushedPieces:
        return self

    async def __anext__(self) -> str:
        piece = await _next_piece()
        if piece is None:
            raise StopAsyncIteration
        return piece


class JsonriverFeed:
    """Push pieces into ``jsonriver.parse`` without an event loop; ``value`` is the latest value it yielded."""

    def __init__(self, parse: Any) -> None:
        self._values = parse(_PushedPieces())
        self._step = self._values.__anext__()
        self.value: Any = None
        self.push(None)  # run to the first wait for a piece

    def push(self, piece: Optional[str]) -> None:
        """Feed one piece (None: the end of the text) and run the parser until it waits for more."""
        while True:
            try:
                self._step.send(piece)
                return
            except StopIteration as yielded:  # the generator yielded a value: start waiting for the next one
                self.value = yielded.value
                self._step = self._values.__anext__()
                piece = None
            except StopAsyncIteration:
                return


def stream_jsonriver(parse: Any, keep: bool) -> harness.Runner:
    def run(workload: Workload, deadline: float) -> list:
        finals, done = [], 0
        for call in workload.calls:
            feed = JsonriverFeed(parse)
            push = feed.push
            for batch in call.batches:
                for piece in batch:
                    push(piece)
                    value = feed.value  # noqa: F841 - the live value, as a UI would read it
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done, workload.pieces)
            feed.push(None)
            if keep:
                finals.append(feed.value)
        return finals

    return run


def stream_ijson_events(backend: Any, sendable_list: Any, keep: bool) -> harness.Runner:
    def run(workload: Workload, deadline: float) -> list:
        finals, done = [], 0
        for call in workload.calls:
            events = sendable_list()
            parser = backend.basic_parse_coro(events, use_float=True)
            send = parser.send
            for batch in call.byte_batches:
                for piece in batch:
                    send(piece)
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done, workload.pieces)
            parser.close()
            if keep:
                finals.append(events)
        return finals

    return run


def ijson_values(object_builder: Any) -> Callable[[list], list]:
    """Build each call's value from its events (after timing), to check them."""

    def to_values(finals: list) -> list:
        values = []
        for events in finals:
            builder = object_builder()
            for event, value in events:
                builder.event(event, value)
            values.append(builder.value)
        return values

    return to_values


def make_contenders() -> list[Contender]:
    def timed(name: str, make: Callable[[bool], harness.Runner], **options: Any) -> Contender:
        """A contender timed keeping nothing (``make(False)``), its values checked in a run of ``make(True)``."""
        return Contender(name, make(False), check=make(True), **options)

    def ours(module: str, name: str) -> Contender:
        parser_class = import_module(module).StreamingJsonParser
        return timed(name, lambda keep: stream_ours(parser_class, keep), ours=True, capped=False)

    def floor(name: str, make: Callable[[bool], harness.Runner]) -> Contender:
        return timed(name, make, capped=False)

    def jiter() -> Contender:
        from jiter import from_json

        return timed(
            "jiter",
            lambda keep: reparse(lambda buffer: from_json(buffer.encode(), partial_mode="trailing-strings"), keep),
        )

    def pydantic() -> Contender:
        from pydantic_core import from_json

        return timed(
            "pydantic", lambda keep: reparse(lambda buffer: from_json(buffer, allow_partial="trailing-strings"), keep)
        )

    def partial_json() -> Contender:
        from partial_json_parser import loads

        return timed("partial-json", lambda keep: reparse(loads, keep))

    def json_repair() -> Contender:
        from json_repair import repair_json

        def parse(buffer: str) -> Any:
            return repair_json(buffer, return_objects=True, stream_stable=True)

        return timed("json-repair", lambda keep: reparse(parse, keep))

    def jsonriver() -> Contender:
        from jsonriver import parse

        return timed("jsonriver", lambda keep: stream_jsonriver(parse, keep))

    def ijson() -> Contender:
        import ijson
        from ijson.common import ObjectBuilder
        from ijson.utils import sendable_list

        backend = ijson.get_backend("yajl2_c")
        return timed(
            "ijson-c",
            lambda keep: stream_ijson_events(backend, sendable_list, keep),
            to_value=ijson_values(ObjectBuilder),
        )

    def orjson_loads() -> Contender:
        from orjson import loads

        return floor("orjson", lambda keep: whole_text(loads, keep))

    def orjson_floor() -> Contender:
        from orjson import loads

        return floor("call-floor", lambda keep: call_floor(loads, keep))

    return [
        contender("cython", lambda: ours("streaming_json._core", "cython"), missing="not built"),
        contender("pure", lambda: ours("streaming_json._pure", "pure")),
        contender("jiter", jiter),
        contender("pydantic", pydantic),
        contender("partial-json", partial_json),
        contender("json-repair", json_repair),
        contender("jsonriver", jsonriver),
        contender("ijson-c", ijson),
        floor("json.loads", lambda keep: whole_text(json.loads, keep)),
        contender("orjson", orjson_loads),
        contender("call-floor", orjson_floor),
    ]


# --- Memory ---------------------------------------------------------------------------------------------------------


def deep_size(value: Any) -> int:
    """sys.getsizeof of the value and everything it holds, each distinct object counted once."""
    seen: set[int] = set()
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def peak_memory(c: Contender, workload: Workload) -> int:
    """Peak bytes allocated (tracemalloc) while streaming the workload, snapshots and final values included."""
    import tracemalloc  # not on PyPy (MEMORY_MEASURED)

    gc.collect()
    tracemalloc.start()
    try:
        (c.check or c.run)(workload, float("inf"))  # type: ignore[misc]  # the run that keeps the final values
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- Targets and report ---------------------------------------------------------------------------------------------

# Ratio columns: (header, slower, faster, target (op, limit) or None, the workloads the target applies to).
RATIOS = [
    ("cython/floor", "cython", "call-floor", ("<=", 4.0), {"1", "2", "3", "5", "6"}),
    ("pure/floor", "pure", "call-floor", None, set()),
    ("cython/json.loads", "cython", "json.loads", ("<=", 1.5), {"4"}),
    ("jiter/cython", "jiter", "cython", (">=", 30.0), {"1"}),
    ("jsonriver/cython", "jsonriver", "cython", (">=", 20.0), set(ORDER)),
    ("jsonriver/pure", "jsonriver", "pure", (">=", 2.0), set(ORDER)),
]
FLAT_SCALING = 1.3  # our time per character at 16x within this factor of 1x


def report(
    session: harness.Session,
    done: list[tuple[Workload, dict[str, Result], dict[str, Any]]],
    contenders: list[Contender],
    cap: float,
) -> str:
    names = [c.name for c in contenders]
    targets = harness.Targets()
    out = ["Workloads"]
    rows = [[w.key, w.title, f"{w.chars:,}", f"{w.pieces:,}"] for w, _, _ in done]
    out.append(session.table(["key", "what", "chars", "pieces"], rows))

    out.append("\nMedian time per workload (every contender makes the partial value available after every piece)")
    out.append(session.table(["key", *names], [[w.key] + [results[n].cell() for n in names] for w, results, _ in done]))
    notes = {f"{c.name}: n/a ({c.missing})" for c in contenders if c.run is None}
    for w, results, _ in done:
        for n in names:
            if results[n].failed:
                notes.add(f"!! {n} on workload {w.key}: {results[n].status}: {results[n].detail}")
    out.extend(sorted(notes))

    out.append(
        "\nRatios (time / time; 'ok'/'MISS' against the targets; '>' a lower bound where the slower one hit the cap,"
        " '?' where that bound does not settle the target)"
    )
    rows = []
    for w, results, _ in done:
        row = [w.key]
        for _, slow, fast, target, applies in RATIOS:
            value, bound = harness.ratio(results[slow], results[fast], cap)
            text = harness.format_ratio(value, bound)
            if target and w.key in applies:
                text += targets.judge(value, *target, bound=bound)
            row.append(text)
        rows.append(row)
    out.append(session.table(["key", *[r[0] for r in RATIOS]], rows))

    by_key = {w.key: (w, results) for w, results, _ in done}
    for base, keys in SERIES.items():
        present = [k for k in keys if k in by_key]
        if len(present) < 2:
            continue
        out.append(f"\nScaling of workload {base} (workload 7): ns per character; time per character should stay flat")
        rows = []
        for n in names:
            cells = []
            for k in present:
                w, results = by_key[k]
                median = results[n].median
                cells.append(f"{median / w.chars * 1e9:.1f}" if median is not None else results[n].cell())
            first, last = by_key[present[0]][1][n].median, by_key[present[-1]][1][n].median
            growth = "-"
            if first and last:
                per_char = (last / by_key[present[-1]][0].chars) / (first / by_key[present[0]][0].chars)
                growth = f"{per_char:.2f}x"
                if n in ("cython", "pure") and len(present) == 3:
                    growth += targets.judge(per_char, "<=", FLAT_SCALING)
            if any(by_key[k][1][n].status != "n/a" for k in present):
                rows.append([n, *cells, growth])
        speedups = [harness.format_ratio(*harness.ratio(by_key[k][1]["jiter"], by_key[k][1]["cython"], cap))
                    for k in present]  # fmt: skip
        rows.append(["jiter/cython", *speedups, ""])
        out.append(session.table(["contender", *present, "last/first per char"], rows))

    if not MEMORY_MEASURED:
        out.append(f"\nPeak memory: not measured on {platform.python_implementation()} (no tracemalloc, no getsizeof)")
        out.append("\n" + targets.summary())
        return "\n".join(out)
    out.append(
        "\nPeak memory (tracemalloc, one untimed run, final values included) against the JSON text's UTF-8 size"
        " and the final value's deep sys.getsizeof (each object once)"
    )
    rows = []
    for w, _, memory in done:
        row = [w.key, f"{w.utf8_bytes / 1e3:,.0f} KB", f"{memory['value_deep_size'] / 1e3:,.0f} KB"]
        for n in ("cython", "pure"):
            peak = memory.get(n)
            row += (
                [f"{peak / 1e3:,.0f} KB", f"{peak / w.utf8_bytes:.1f}x", f"{peak / memory['value_deep_size']:.1f}x"]
                if peak
                else ["-", "-", "-"]
            )
        rows.append(row)
    headers = ["key", "text", "value", "cython peak", "/text", "/value", "pure peak", "/text", "/value"]
    out.append(session.table(headers, rows))
    out.append("\n" + targets.summary())
    return "\n".join(out)


# --- Suite ----------------------------------------------------------------------------------------------------------


def selected_keys(only: Optional[str]) -> list[str]:
    if not only:
        return ORDER
    wanted = set()
    for key in only.split(","):
        key = key.strip()
        if key == "7":
            wanted.update(SERIES["1"] + SERIES["5"])
        elif key in ORDER:
            wanted.add(key)
        else:
            raise SystemExit(f"unknown workload {key!r}: choose from 1-8 or {', '.join(ORDER)}")
    return [k for k in ORDER if k in wanted]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, help="rounds per workload (default 5, quick 1)")
    parser.add_argument("--only", help="comma-separated workloads: 1-6, 7 (scaling), 8 (real corpus), or 1x4 etc.")
    parser.add_argument("--cap", type=float, help="seconds before a peer is stopped (default 10, quick 0.5)")
    parser.add_argument("--clock", choices=harness.CLOCKS, default="wall", help="wall time (default) or CPU time")


def run(session: harness.Session) -> int:
    args = session.args
    repeats = args.repeats or (1 if args.quick else 5)
    cap = args.cap or (0.5 if args.quick else 10.0)
    scale = 0.125 if args.quick else 1.0
    keys = selected_keys(args.only)

    contenders = make_contenders()
    harness.warm_up(contenders, [workloads.build("3", 0.02), workloads.build("5", 0.01)])
    print(harness.environment_line(session.env), flush=True)
    print(f"{repeats} rounds, cap {cap:g} s, {args.clock} time" + (", quick sizes" if args.quick else ""), flush=True)
    done, skipped = [], []
    stopped_in_series: dict[str, dict[str, str]] = {base: {} for base in SERIES}
    for key in keys:
        workload = workloads.build(key, scale)
        if workload is None:
            skipped.append(f"workload {key} skipped: no corpus at {workloads.CORPUS}")
            continue
        session.progress(f"running {key}: {workload.title} ...")
        series = stopped_in_series.get(key.partition("x")[0], {})
        results = harness.measure(
            contenders,
            workload,
            rounds=repeats,
            cap=cap,
            expected=[json.loads(call.text) for call in workload.calls],
            clock=harness.CLOCKS[args.clock],
            skip=series,
        )
        series.update({n: f"> {cap:g} s at a smaller size" for n, r in results.items() if r.status == "stopped"})
        memory: dict[str, Any] = {}
        if MEMORY_MEASURED:
            memory["value_deep_size"] = deep_size([json.loads(call.text) for call in workload.calls])
            for c in contenders:
                if c.ours and results[c.name].median is not None:
                    memory[c.name] = peak_memory(c, workload)
        done.append((workload, results, memory))

    print(report(session, done, contenders, cap))
    for line in skipped:
        print(line)
    session.raw.update(
        {
            "missing": {c.name: c.missing for c in contenders if c.run is None},
            "rounds": repeats,
            "cap_seconds": cap,
            "scale": scale,
            "workloads": {
                w.key: {
                    "title": w.title,
                    "chars": w.chars,
                    "utf8_bytes": w.utf8_bytes,
                    "pieces": w.pieces,
                    "results": {n: r.to_json() for n, r in results.items()},
                    "memory": memory,
                }
                for w, results, memory in done
            },
        }
    )
    return 1 if harness.failed([results for _, results, _ in done], contenders) else 0
