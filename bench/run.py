"""Side-by-side benchmark: streaming_json against the other ways to show a partial JSON value while it streams.

What is measured. Every contender gets the same pieces of each workload (see ``workloads.py``) one at a time and
makes the current partial value available after every piece, as a live UI needs:

- ours, the compiled core (``streaming_json._core``, when it imports) and the pure backend (``streaming_json._pure``):
  ``append(piece)`` then ``snapshot()`` per piece;
- jiter, pydantic-core, partial-json-parser, json-repair (``stream_stable=True``): re-parse the whole buffer after
  every piece, as the OpenAI and Anthropic SDKs do with jiter today;
- jsonriver: incremental; its async generator is driven synchronously, one piece pushed at a time;
- ijson (yajl2_c backend): incremental parse events only, no partial value; pieces pushed as UTF-8 bytes;
- floors: ``json.loads`` and ``orjson.loads`` of the whole text once, and the "call floor": a Python loop over the
  pieces making two no-op C calls per piece (``len(piece)``, ``id(piece)``) plus one ``orjson.loads`` of the text.

How. After one untimed warm-up run of every contender on small samples, each repeat runs every contender once on
the workload, in rotating order, after ``gc.collect()``; the table shows the median wall time (``perf_counter``).
A contender is not repeated once its runs on a workload add up to more than the cap (10 s); a peer still running
after the cap is stopped, shown as "> 10 s (x% done)" (the share of pieces it was fed) and not run again on that
workload or a larger one of its series. After a contender's first run its final value(s) are compared with
``json.loads`` of the text; a difference is shown as MISMATCH instead of a time. Peak memory of our two backends
is measured in a separate, untimed run under ``tracemalloc``. The exit status is 1 when one of our backends gives a
wrong value or raises, else 0.

    python bench/run.py [--quick] [--repeats N] [--only 1,5,7] [--cap SECONDS] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import statistics
import sys
import tracemalloc
import types
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from time import perf_counter
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's streaming_json, and workloads.py

import workloads  # noqa: E402 - found through the sys.path line above
from workloads import Call, Workload  # noqa: E402 - found through the sys.path line above

ORDER = ["1", "2", "3", "4", "5", "6", "1x4", "1x16", "5x4", "5x16", "8"]
SERIES = {"1": ["1", "1x4", "1x16"], "5": ["5", "5x4", "5x16"]}  # workload 7: scaling


class Stopped(Exception):
    """A contender passed the cap; ``pieces_done`` pieces had been fed."""

    def __init__(self, pieces_done: int) -> None:
        self.pieces_done = pieces_done


Runner = Callable[[list[Call], float], list]  # (calls, deadline) -> the final value (or events) of each call


@dataclass
class Contender:
    name: str
    run: Optional[Runner]  # None where the package is missing
    missing: str = ""  # why ``run`` is None
    ours: bool = False
    capped: bool = True  # stopped at the cap (peers); ours and the floors always run to the end
    to_values: Callable[[list], list] = lambda finals: finals


# --- Contenders: each feeds every piece and keeps the current value ------------------------------------------------


def stream_ours(parser_class: Any) -> Runner:
    def run(calls: list[Call], deadline: float) -> list:
        finals, done = [], 0
        for call in calls:
            parser = parser_class()
            append, snapshot = parser.append, parser.snapshot
            value = None
            for batch in call.batches:
                for piece in batch:
                    append(piece)
                    value = snapshot()
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done)
            finals.append(value)
        return finals

    return run


def call_floor(loads: Callable[[str], Any]) -> Runner:
    """The least a Python loop over the pieces can cost: two no-op C calls per piece, then one fast parse."""

    def run(calls: list[Call], deadline: float) -> list:
        first, second = len, id
        finals, done = [], 0
        for call in calls:
            for batch in call.batches:
                for piece in batch:
                    first(piece)
                    second(piece)
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done)
            finals.append(loads(call.text))
        return finals

    return run


def whole_text(loads: Callable[[str], Any]) -> Runner:
    def run(calls: list[Call], deadline: float) -> list:
        return [loads(call.text) for call in calls]

    return run


def reparse(parse: Callable[[str], Any]) -> Runner:
    """Re-parse the whole buffer after every piece; text that is not yet a value (e.g. "") keeps the last one."""

    def run(calls: list[Call], deadline: float) -> list:
        finals, done = [], 0
        for call in calls:
            buffer, value = "", None
            for piece in call.pieces:
                buffer += piece
                try:  # noqa: SIM105 - timed: a try costs nothing here, contextlib.suppress would add to the peer's time
                    value = parse(buffer)
                except ValueError:
                    pass
                done += 1
                if perf_counter() > deadline:
                    raise Stopped(done)
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


def stream_jsonriver(parse: Any) -> Runner:
    def run(calls: list[Call], deadline: float) -> list:
        finals, done = [], 0
        for call in calls:
            feed = JsonriverFeed(parse)
            push = feed.push
            for batch in call.batches:
                for piece in batch:
                    push(piece)
                    value = feed.value  # noqa: F841 - the live value, as a UI would read it
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done)
            feed.push(None)
            finals.append(feed.value)
        return finals

    return run


def stream_ijson_events(backend: Any, sendable_list: Any) -> Runner:
    def run(calls: list[Call], deadline: float) -> list:
        finals, done = [], 0
        for call in calls:
            events = sendable_list()
            parser = backend.basic_parse_coro(events, use_float=True)
            send = parser.send
            for batch in call.byte_batches:
                for piece in batch:
                    send(piece)
                done += len(batch)
                if perf_counter() > deadline:
                    raise Stopped(done)
            parser.close()
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


def contender(name: str, make: Callable[[], Contender], missing: str = "not installed") -> Contender:
    try:
        return make()
    except Exception as error:  # ImportError, or a module that fails while importing (a stale build)
        return Contender(name, None, missing=f"{missing}: {type(error).__name__}: {error}")


def make_contenders() -> list[Contender]:
    def ours(module: str, name: str) -> Contender:
        return Contender(name, stream_ours(import_module(module).StreamingJsonParser), ours=True, capped=False)

    def jiter() -> Contender:
        from jiter import from_json

        return Contender("jiter", reparse(lambda buffer: from_json(buffer.encode(), partial_mode="trailing-strings")))

    def pydantic() -> Contender:
        from pydantic_core import from_json

        return Contender("pydantic", reparse(lambda buffer: from_json(buffer, allow_partial="trailing-strings")))

    def partial_json() -> Contender:
        from partial_json_parser import loads

        return Contender("partial-json", reparse(loads))

    def json_repair() -> Contender:
        from json_repair import repair_json

        return Contender(
            "json-repair", reparse(lambda buffer: repair_json(buffer, return_objects=True, stream_stable=True))
        )

    def jsonriver() -> Contender:
        from jsonriver import parse

        return Contender("jsonriver", stream_jsonriver(parse))

    def ijson() -> Contender:
        import ijson
        from ijson.common import ObjectBuilder
        from ijson.utils import sendable_list

        backend = ijson.get_backend("yajl2_c")
        return Contender("ijson-c", stream_ijson_events(backend, sendable_list), to_values=ijson_values(ObjectBuilder))

    def orjson_loads() -> Contender:
        from orjson import loads

        return Contender("orjson", whole_text(loads), capped=False)

    def floor() -> Contender:
        from orjson import loads

        return Contender("call-floor", call_floor(loads), capped=False)

    return [
        contender("cython", lambda: ours("streaming_json._core", "cython"), missing="not built"),
        contender("pure", lambda: ours("streaming_json._pure", "pure")),
        contender("jiter", jiter),
        contender("pydantic", pydantic),
        contender("partial-json", partial_json),
        contender("json-repair", json_repair),
        contender("jsonriver", jsonriver),
        contender("ijson-c", ijson),
        Contender("json.loads", whole_text(json.loads), capped=False),
        contender("orjson", orjson_loads),
        contender("call-floor", floor),
    ]


# --- Measuring ------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    times: list[float] = field(default_factory=list)
    status: str = ""  # "", "n/a", "stopped", "skipped", "MISMATCH", "ERROR"
    detail: str = ""

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.times) if self.times and not self.status else None


def measure(
    workload: Workload, contenders: list[Contender], repeats: int, cap: float, stopped_before: set[str]
) -> dict[str, Result]:
    """Run every contender ``repeats`` times, interleaved in rotating order."""
    expected = [json.loads(call.text) for call in workload.calls]
    results: dict[str, Result] = {}
    for c in contenders:
        if c.run is None:
            results[c.name] = Result(status="n/a", detail=c.missing)
        elif c.name in stopped_before:
            results[c.name] = Result(status="skipped", detail=f"> {cap:g} s at a smaller size")
        else:
            results[c.name] = Result()
    active = [c for c in contenders if not results[c.name].status]
    for repeat in range(repeats):
        shift = repeat % max(len(active), 1)
        for c in active[shift:] + active[:shift]:
            result = results[c.name]
            if result.status:
                continue
            gc.collect()
            start = perf_counter()
            try:
                finals = c.run(workload.calls, start + cap if c.capped else float("inf"))  # type: ignore[misc]
            except Stopped as stop:
                result.status = "stopped"
                result.detail = f"> {cap:g} s ({100 * stop.pieces_done / workload.pieces:.0f}% done)"
                continue
            except Exception as error:  # a contender that breaks is reported, not fatal
                result.status, result.detail = "ERROR", f"{type(error).__name__}: {error}"[:200]
                continue
            elapsed = perf_counter() - start
            if not result.times and c.to_values(finals) != expected:
                result.status, result.detail = "MISMATCH", "final value differs from json.loads(text)"
                continue
            result.times.append(elapsed)
            if sum(result.times) > cap:
                active.remove(c)  # a slow contender gets fewer repeats: about one cap of time per workload
    return results


def warm_up(contenders: list[Contender]) -> None:
    """One untimed run of every contender on small samples: imports, caches and code paths warm before timing."""
    samples = [workloads.build("3", 0.02), workloads.build("5", 0.01)]
    for c in contenders:
        for sample in samples:
            if c.run is not None:
                with contextlib.suppress(Exception):  # reported when measured
                    c.run(sample.calls, float("inf"))


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
    gc.collect()
    tracemalloc.start()
    try:
        c.run(workload.calls, float("inf"))  # type: ignore[misc]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- Reporting ------------------------------------------------------------------------------------------------------


def format_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError


def time_cell(result: Result) -> str:
    if result.median is not None:
        return format_time(result.median)
    return result.detail if result.status in ("stopped", "skipped") else result.status


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, ["-" * w for w in widths], *rows]:
        cells = [str(cell).ljust(w) if i == 0 else str(cell).rjust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def ratio(slow: Result, fast: Result, cap: float) -> tuple[Optional[float], bool]:
    """slow / fast, and whether it is only a lower bound (``slow`` was stopped at the cap)."""
    if fast.median is None or fast.median == 0:
        return None, False
    if slow.median is not None:
        return slow.median / fast.median, False
    if slow.status == "stopped":
        return cap / fast.median, True
    return None, False


# Ratio columns: (header, slower, faster, target test, the workloads the target applies to).
RATIOS = [
    ("cython/floor", "cython", "call-floor", ("<=", 4.0), {"1", "2", "3", "5", "6"}),
    ("pure/floor", "pure", "call-floor", None, set()),
    ("cython/json.loads", "cython", "json.loads", ("<=", 1.5), {"4"}),
    ("jiter/cython", "jiter", "cython", (">=", 30.0), {"1"}),
    ("jsonriver/cython", "jsonriver", "cython", (">=", 20.0), set(ORDER)),
    ("jsonriver/pure", "jsonriver", "pure", (">=", 2.0), set(ORDER)),
]


def ratio_cell(value: Optional[float], bound: bool, target: Any, applies: bool, tally: list[int]) -> str:
    if value is None:
        return "-"
    text = (">" if bound else "") + (f"{value:.2f}x" if value < 10 else f"{value:.0f}x")
    if target and applies:
        op, limit = target
        ok = value <= limit if op == "<=" else value >= limit
        if bound and not (ok and op == ">="):
            verdict = "?"  # a lower bound that does not settle the target
        else:
            verdict = "ok" if ok else "MISS"
            tally[0 if ok else 1] += 1
        text += f" {verdict} ({op}{limit:g})"
    return text


def report(
    done: list[tuple[Workload, dict[str, Result], dict[str, Any]]], contenders: list[Contender], cap: float
) -> str:
    names = [c.name for c in contenders]
    out = []

    out.append("Workloads")
    rows = [[w.key, w.title, f"{w.chars:,}", f"{w.pieces:,}"] for w, _, _ in done]
    out.append(table(["key", "what", "chars", "pieces"], rows))

    out.append("\nMedian time per workload (every contender makes the partial value available after every piece)")
    rows = [[w.key] + [time_cell(results[n]) for n in names] for w, results, _ in done]
    out.append(table(["key", *names], rows))
    notes = {f"{c.name}: n/a ({c.missing})" for c in contenders if c.run is None}
    for w, results, _ in done:
        for n in names:
            if results[n].status in ("MISMATCH", "ERROR"):
                notes.add(f"!! {n} on workload {w.key}: {results[n].status}: {results[n].detail}")
    out.extend(sorted(notes))

    out.append(
        "\nRatios (time / time; 'ok'/'MISS' against the targets; '>' a lower bound where the slower one hit the cap,"
        " '?' where that bound does not settle the target)"
    )
    tally = [0, 0]
    rows = []
    for w, results, _ in done:
        row = [w.key]
        for _, slow, fast, target, applies in RATIOS:
            value, bound = ratio(results[slow], results[fast], cap)
            row.append(ratio_cell(value, bound, target, w.key in applies, tally))
        rows.append(row)
    out.append(table(["key", *[r[0] for r in RATIOS]], rows))

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
                cells.append(f"{median / w.chars * 1e9:.1f}" if median is not None else time_cell(results[n]))
            first, last = by_key[present[0]][1][n].median, by_key[present[-1]][1][n].median
            growth = "-"
            if first and last:
                per_char = (last / by_key[present[-1]][0].chars) / (first / by_key[present[0]][0].chars)
                growth = f"{per_char:.2f}x"
                if n in ("cython", "pure") and len(present) == 3:
                    ok = per_char <= 1.3
                    tally[0 if ok else 1] += 1
                    growth += f" {'ok' if ok else 'MISS'} (<=1.3)"
            if any(by_key[k][1][n].status != "n/a" for k in present):
                rows.append([n, *cells, growth])
        speedups = []
        for k in present:
            value, bound = ratio(by_key[k][1]["jiter"], by_key[k][1]["cython"], cap)
            speedups.append(ratio_cell(value, bound, None, False, tally))
        rows.append(["jiter/cython", *speedups, ""])
        out.append(table(["contender", *present, "last/first per char"], rows))

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
    out.append(table(headers, rows))

    out.append(f"\nTargets: {tally[0]} ok, {tally[1]} missed")
    return "\n".join(out)


def environment(contenders: list[Contender]) -> dict[str, Any]:
    packages = {}
    for name in ("jiter", "pydantic-core", "partial-json-parser", "json-repair", "jsonriver", "ijson", "orjson"):
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "packages": packages,
        "missing": {c.name: c.missing for c in contenders if c.run is None},
    }


# --- Main -----------------------------------------------------------------------------------------------------------


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


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 1 repeat, 0.5 s cap: a smoke test")
    parser.add_argument("--repeats", type=int, help="runs per contender and workload (default 5, quick 1)")
    parser.add_argument("--only", help="comma-separated workloads: 1-6, 7 (scaling), 8 (real corpus), or 1x4 etc.")
    parser.add_argument("--cap", type=float, help="seconds before a contender is stopped (default 10, quick 0.5)")
    parser.add_argument("--json", type=Path, help="write the raw results to this file")
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 5)
    cap = args.cap or (0.5 if args.quick else 10.0)
    scale = 0.125 if args.quick else 1.0

    contenders = make_contenders()
    warm_up(contenders)
    env = environment(contenders)
    print(f"Python {env['python']} on {env['platform']}, {env['cpus']} CPUs; {repeats} repeats, cap {cap:g} s"
          + (", quick sizes" if args.quick else ""), flush=True)  # fmt: skip
    done, skipped, stopped_in_series = [], [], {base: set() for base in SERIES}
    for key in selected_keys(args.only):
        workload = workloads.build(key, scale)
        if workload is None:
            skipped.append(f"workload {key} skipped: no corpus at {workloads.CORPUS}")
            continue
        print(f"  running {key}: {workload.title} ...", file=sys.stderr, flush=True)
        series = stopped_in_series.get(key.partition("x")[0], set())
        results = measure(workload, contenders, repeats, cap, series)
        series.update(n for n, r in results.items() if r.status in ("stopped", "skipped"))
        memory: dict[str, Any] = {"value_deep_size": deep_size([json.loads(call.text) for call in workload.calls])}
        for c in contenders:
            if c.ours and results[c.name].median is not None:
                memory[c.name] = peak_memory(c, workload)
        done.append((workload, results, memory))

    print(report(done, contenders, cap))
    for line in skipped:
        print(line)
    if args.json:
        raw = {
            "environment": env,
            "repeats": repeats,
            "cap_seconds": cap,
            "scale": scale,
            "workloads": {
                w.key: {
                    "title": w.title, "chars": w.chars, "utf8_bytes": w.utf8_bytes, "pieces": w.pieces,
                    "results": {n: {"times": r.times, "median": r.median, "status": r.status, "detail": r.detail}
                                for n, r in results.items()},
                    "memory": memory,
                }
                for w, results, memory in done
            },
        }  # fmt: skip
        args.json.write_text(json.dumps(raw, indent=2))
    ours_failed = any(
        results[c.name].status in ("MISMATCH", "ERROR") for _, results, _ in done for c in contenders if c.ours
    )
    return 1 if ours_failed else 0


if __name__ == "__main__":
    sys.exit(main())
