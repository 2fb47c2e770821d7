"""Benchmark of the features beyond the reference, each against the floor it must stay near (issues 10 and 12).

- Done events: the compiled parser with ``done_events=True`` against the same parser without them, ``append`` and
  ``snapshot`` after every piece, on every workload of ``run.py`` (bar: at most 10 % more).
- ``iter_items`` over the 1.2 MB records document in 4 KB pieces against one ``json.loads`` of the whole text
  (bar: within 1.5x).
- ``StreamingJsonDocuments(lines=True)`` over a 1.2 MB JSON Lines file of records in 4 KB pieces against
  ``json.loads`` of each line (bar: within 1.5x).
- A 20 KB write-file call inside a markdown fence with prose around it, in token pieces, read by
  ``StreamingJsonParser(prose=True)``, against the plain parser on the bare call (bar: within 10 %).

Timing: every contender of a row runs once a round, in turns, after ``gc.collect()``; the table shows each one's
median over the rounds. Times are CPU time of this process (``process_time``): on a shared machine, wall time also
counts the moments another process held the core, which came and went between runs by a factor of four here.

    python bench/features.py [--rounds N] [--pure]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
from pathlib import Path
from time import process_time
from types import ModuleType
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's streaming_json, and workloads.py

import workloads  # noqa: E402

import streaming_json  # noqa: E402

Task = Callable[[], Any]


def _medians(tasks: dict[str, Task], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in tasks}
    for _ in range(rounds):
        for name, task in tasks.items():
            gc.collect()
            start = process_time()
            task()
            times[name].append(process_time() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def _stream(backend: ModuleType, pieces: list[str], **options: Any) -> Task:
    def run() -> Any:
        parser = backend.StreamingJsonParser(**options)
        append, snapshot = parser.append, parser.snapshot
        for piece in pieces:
            append(piece)
            snapshot()
        return parser.snapshot(fresh=True)

    return run


def _each(backend: ModuleType, calls: list[list[str]], **options: Any) -> Task:
    runs = [_stream(backend, pieces, **options) for pieces in calls]
    return lambda: [run() for run in runs]


def done_event_rows(backend: ModuleType, rounds: int) -> list[list[str]]:
    rows = []
    for key in ["1", "2", "3", "4", "5", "6", "8"]:
        workload = workloads.build(key, 1.0)
        if workload is None:
            continue
        calls = [call.pieces for call in workload.calls]
        without, with_done = _each(backend, calls), _each(backend, calls, done_events=True)
        medians = _medians({"without": without, "with": with_done}, rounds)
        extra = medians["with"] / medians["without"] - 1
        verdict = "ok" if extra <= 0.10 else "miss"
        rows.append(
            [
                f"{key} {workload.title}",
                _ms(medians["without"]),
                _ms(medians["with"]),
                f"{extra:+.1%} ({verdict})",
            ]
        )
    return rows


def jsonl_text(size: int) -> str:
    records = json.loads(workloads.structured_output(size, seed=4))["results"]
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def floor_rows(backend: ModuleType, rounds: int) -> list[list[str]]:
    records = workloads.build("4", 1.0)
    assert records is not None
    text, pieces = records.calls[0].text, records.calls[0].pieces
    lines_text = jsonl_text(1_200_000)
    line_pieces = workloads.fixed_pieces(lines_text, 4096)
    fenced = workloads.build("1", 1.0)
    assert fenced is not None
    call = fenced.calls[0].text
    prose = f"Sure! Here is the file you asked for:\n```json\n{call}\n```\nLet me know if you want changes."
    prose_pieces = workloads.token_pieces(prose, 1)
    call_pieces = workloads.token_pieces(call, 1)

    def items() -> Any:
        return list(streaming_json.iter_items(pieces, ("results",)))

    def documents() -> Any:
        stream = backend.StreamingJsonDocuments(lines=True)
        found = [doc for piece in line_pieces for doc in stream.append(piece)]
        return found + stream.finish()

    expected = json.loads(text)["results"]
    assert items() == expected, "iter_items gave other items than json.loads"
    assert documents() == [json.loads(line) for line in lines_text.splitlines()], "JSON Lines differ"
    medians = _medians(
        {
            "loads": lambda: json.loads(text),
            "items": items,
            "loads per line": lambda: [json.loads(line) for line in lines_text.splitlines()],
            "documents": documents,
            "plain call": _stream(backend, call_pieces),
            "fenced call": _stream(backend, prose_pieces, prose=True),
        },
        rounds,
    )
    rows = []
    for title, ours, floor, bar in [
        (f"iter_items, {len(text) // 1000} KB records in 4 KB pieces", "items", "loads", 1.5),
        (f"JSON Lines, {len(lines_text) // 1000} KB in 4 KB pieces", "documents", "loads per line", 1.5),
        (f"fenced {len(call) // 1000} KB write call in prose, token pieces", "fenced call", "plain call", 1.1),
    ]:
        factor = medians[ours] / medians[floor]
        verdict = "ok" if factor <= bar else "miss"
        rows.append([title, _ms(medians[floor]), _ms(medians[ours]), f"{factor:.2f}x (bar {bar}x: {verdict})"])
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark done events, iter_items, JSON Lines and prose.")
    # 7 rounds left a 1 ms workload's median 10 % off from one run to the next on this shared machine; 41 take 25 s.
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--pure", action="store_true", help="the pure-Python backend instead of the compiled core")
    args = parser.parse_args()
    if args.pure:
        from streaming_json import _pure as backend
    else:
        from streaming_json import _core as backend  # type: ignore[no-redef]
    print(f"backend: {backend.__name__}, {args.rounds} rounds, medians\n")
    print(_table(["workload", "without done events", "with", "extra"], done_event_rows(backend, args.rounds)))
    print()
    print(_table(["what", "floor", "ours", "ours / floor"], floor_rows(backend, args.rounds)))


if __name__ == "__main__":
    main()
