"""The compiled core's instructions a piece, counted by callgrind: every workload of the reference suite, bulk reading
against its floor, and the core's side of the producer layer's event path.

Why instructions. On a shared machine wall times move by 2x from one run to the next; an instruction count moves by
under 0.1 %. It is the measure to decide a change of the core by (the ``reference`` suite's times, on a quiet
machine, are the measure of the targets): a count falls where the work does, though not in proportion to time (a
load that misses the caches counts one). What is counted, each reader in a process of its own under callgrind
(``python -m bench core --child ...``, from the repository root), after an uncounted run of the same reader on the
same case (or on a tenth of the real corpus), with the collector on:

- ``snapshots``: the reference suite's replay, a new parser per call, ``append`` then ``snapshot`` after every
  piece, each snapshot dropped before the next is taken but the last (as a view shows one value at a time);
- ``changes=False``: the same without change objects; ``scan``: ``append`` alone, ``changes=False``;
- ``iter_items`` over workload 4's records, and ``json.loads`` of each call's whole text once: the floor;
- the producer's event path, on the 20 KB write call of the producer suite in Hermes form, its JSON in the token
  deltas a model streams (the producer suite's pieces): ``scan`` of that JSON; ``changes``, the parser the layer
  reads it with (``done_events``, ``report_depth=1``, ``source_paths=[("arguments",)]``), each change looked at;
  ``append_source``, the same parser read through ``append_source()``, a delta's text taken as it comes;
  ``ModelOutputStream``, the whole layer fed the whole output (per piece of the call's JSON: the output's other
  pieces are few).

The table gives instructions a piece (of the workload's pieces) and ratios to the floor named in each row.

``--baseline DIR`` counts a checkout of an earlier commit instead (built in place: ``python setup.py build_ext
--inplace``), its readers where it has them (``append_source`` is new), so that before and after are counted alike.

    python -m bench core [--quick] [--only 8,4,producer] [--baseline DIR] [--json out.json]

Needs valgrind (with its headers) and gcc.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from bench import harness, workloads
from bench.suites.instructions import build_marker, count_child

PACKAGES = ()
MARKDOWN = True

KEYS = ["8", "1", "2", "3", "4", "5", "6"]
REPLAY_READERS = ("snapshots", "changes=False", "scan", "json.loads")
ITEMS_KEY = "4"
PRODUCER_READERS = ("scan", "changes", "append_source", "ModelOutputStream")
WRITE_CALL_CHARS = 20_000


# --- Child: one reader under callgrind ------------------------------------------------------------------------------


def replay_reader(reader: str, key: str) -> tuple[Callable[[list[list[str]]], Any], list[list[str]]]:
    from streaming_json import _core, iter_items

    workload = workloads.build(key, 1.0)
    assert workload is not None
    calls = [call.pieces for call in workload.calls]
    parser_class = _core.StreamingJsonParser

    def snapshots(calls: list[list[str]], **options: Any) -> None:
        for pieces in calls:
            parser = parser_class(**options)
            append, snapshot = parser.append, parser.snapshot
            value = None
            for piece in pieces:
                append(piece)
                value = snapshot()
            del value

    def scan(calls: list[list[str]]) -> None:
        for pieces in calls:
            append = parser_class(changes=False).append
            for piece in pieces:
                append(piece)

    def items(calls: list[list[str]]) -> None:
        for pieces in calls:
            for _ in iter_items(pieces, ("results",)):
                pass

    def loads(calls: list[list[str]]) -> None:
        for pieces in calls:
            json.loads("".join(pieces))

    readers: dict[str, Callable[[list[list[str]]], Any]] = {
        "snapshots": snapshots,
        "changes=False": lambda calls: snapshots(calls, changes=False),
        "scan": scan,
        "iter_items": items,
        "json.loads": loads,
    }
    return readers[reader], calls


def producer_reader(reader: str) -> tuple[Callable[[Any], Any], Any]:
    from bench.suites import producer
    from streaming_json import _core
    from streaming_json.model_output import ModelOutputStream

    stream = producer.make_stream(
        producer.FORMATS["hermes"], [producer.write_call(WRITE_CALL_CHARS)], 1, before="Writing it."
    )
    pieces = stream.json_pieces[0]
    parser_class = _core.StreamingJsonParser
    options: dict[str, Any] = {"done_events": True, "report_depth": 1, "source_paths": [("arguments",)]}

    def scan(pieces: list[str]) -> None:
        append = parser_class(changes=False).append
        for piece in pieces:
            append(piece)

    def changes(pieces: list[str]) -> None:
        append = parser_class(**options).append
        for piece in pieces:
            for change in append(piece):
                if change.kind == "source":
                    change.text  # noqa: B018 - what the layer reads of each change

    def append_source(pieces: list[str]) -> None:
        append_source = parser_class(**options).append_source
        for piece in pieces:
            found = append_source(piece)
            if type(found) is not str:
                for change in found:
                    if change.kind == "source":
                        change.text  # noqa: B018

    def layer(pieces: list[str]) -> None:
        output = ModelOutputStream("hermes")
        for piece in pieces:
            output.feed(piece)
        output.finish()

    readers: dict[str, Callable[[Any], Any]] = {
        "scan": scan,
        "changes": changes,
        "append_source": append_source,
        "ModelOutputStream": layer,
    }
    return readers[reader], stream.pieces if reader == "ModelOutputStream" else pieces


def use_checkout(checkout: str) -> None:
    """Import streaming_json from ``checkout`` from now on (the child has imported this one's already)."""
    for name in [name for name in sys.modules if name == "streaming_json" or name.startswith("streaming_json.")]:
        del sys.modules[name]
    sys.path.insert(0, checkout)
    import streaming_json

    assert streaming_json.__file__.startswith(checkout), streaming_json.__file__


def read(reader: str, key: str, marker: str) -> None:
    """In the child under callgrind: build the case, run the reader once uncounted, count one run."""
    import ctypes

    checkout = os.environ.get("STREAMING_JSON_BENCH_CHECKOUT")
    if checkout:
        use_checkout(checkout)

    if key == "producer":
        run, case = producer_reader(reader)
        warm = case
        pieces = len(producer_reader("scan")[1])
    else:
        run, case = replay_reader(reader, key)
        warm = case[: max(1, len(case) // 10)]
        pieces = sum(len(call) for call in case)
    run(warm)
    collect = ctypes.CDLL(marker)
    gc.collect()
    collect.start()
    run(case)
    collect.stop()
    print(json.dumps({"pieces": pieces}))


# --- Parent ---------------------------------------------------------------------------------------------------------


def jobs(keys: list[str]) -> list[tuple[str, str]]:
    found = []
    for key in keys:
        if key == "producer":
            found += [(reader, key) for reader in PRODUCER_READERS]
            continue
        found += [(reader, key) for reader in REPLAY_READERS]
        if key == ITEMS_KEY:
            found.append(("iter_items", key))
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", help="comma-separated workloads, and 'producer' (default: all)")
    parser.add_argument("--baseline", help="a built checkout of an earlier commit, counted instead of this one")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)


def run(session: harness.Session) -> int:
    args = session.args
    if args.child:
        read(*args.child)
        return 0
    missing = [tool for tool in ("valgrind", "gcc") if shutil.which(tool) is None]
    if missing:
        print(f"the core suite needs {' and '.join(missing)}", file=sys.stderr)
        return 2
    keys = args.only.split(",") if args.only else (["producer", "8", "4"] if args.quick else [*KEYS, "producer"])
    if workloads.build("8", 0.01) is None:
        keys = [key for key in keys if key != "8"]
    todo = jobs(keys)
    if args.baseline:
        os.environ["STREAMING_JSON_BENCH_CHECKOUT"] = os.path.abspath(args.baseline)
        todo = [job for job in todo if job[0] != "append_source"]
    with tempfile.TemporaryDirectory() as folder:
        marker = build_marker(folder)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            futures = {
                job: pool.submit(count_child, ["core", "--child", job[0], job[1], marker], "-".join(job), folder)
                for job in todo
            }
            counted = {job: future.result() for job, future in futures.items()}
    per_piece = {job: total / found["pieces"] for job, (total, found) in counted.items()}
    session.raw.update({" ".join(job): {"instructions": total, **found} for job, (total, found) in counted.items()})
    print(harness.environment_line(session.env))
    print("Instructions a piece, callgrind (the collector on; one uncounted run first)")
    rows = []
    for key in [key for key in keys if key != "producer"]:
        workload = workloads.build(key, 1.0)
        assert workload is not None
        cells = [f"{per_piece[reader, key]:,.0f}" for reader in REPLAY_READERS]
        floor = per_piece["json.loads", key]
        cells.append(f"{per_piece['snapshots', key] / floor:.2f}x")
        cells.append(f"{per_piece['changes=False', key] / floor:.2f}x")
        cells.append(f"{per_piece['iter_items', key] / floor:.2f}x" if ("iter_items", key) in per_piece else "-")
        rows.append([f"{key} {workload.title}", f"{workload.pieces:,}", *cells])
    if rows:
        headers = ["workload", "pieces", *REPLAY_READERS, "snapshots/loads", "changes=False/loads", "iter_items/loads"]
        print(session.table(headers, rows))
    if "producer" in keys:
        scan = per_piece["scan", "producer"]
        pieces = counted["scan", "producer"][1]["pieces"]
        title = f"the {WRITE_CALL_CHARS // 1000} KB Hermes write call, {pieces:,} pieces of JSON"
        print(f"\nThe producer's event path: {title}")
        rows = [[reader, f"{per_piece[reader, 'producer']:,.0f}", f"{per_piece[reader, 'producer'] / scan:.2f}x"]
                for reader in PRODUCER_READERS if (reader, "producer") in per_piece]  # fmt: skip
        print(session.table(["reader", "instructions a piece", "/ scan"], rows))
    return 0
