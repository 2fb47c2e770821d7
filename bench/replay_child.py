"""Time one case in a process of its own: the reference suite's children (ours, the baseline, the floor).

``python bench/replay_child.py CASE.json CONTENDER``, CONTENDER one of ``cython``, ``cython-stable``, ``pure``,
``pure-stable``, ``json.loads``. Every contender of the suite runs in a fresh process like this one (the reference
runs under Node), so that none is timed in a heap that holds the others' workloads: a large heap makes the garbage
collector's full passes, which the parsers' allocations trigger, cost more. Run as a script with ``PYTHONPATH`` set
to a checkout: a script's own directory, not the repository root, starts ``sys.path``, so that checkout's package is
the one imported (an earlier commit's, for ``--baseline``).

It replays the case as the suite describes (a new parser per call, ``append`` then ``snapshot`` after every piece),
runs it ``warmup`` times untimed, then ``runs`` times timed (wall time), and prints the best time and the final values
as JSON. (Wall time, not CPU time, as the reference is timed: a Node process's CPU time counts V8's background
threads, which compile and collect beside the main one.)
"""

from __future__ import annotations

import json
import sys
from importlib import import_module
from pathlib import Path
from time import perf_counter
from typing import Any, Callable


def replay(make_parser: Callable[[], Any], calls: list[list[str]]) -> list[Any]:
    finals = []
    for pieces in calls:
        parser = make_parser()
        append, snapshot = parser.append, parser.snapshot
        value = None
        for piece in pieces:
            append(piece)
            value = snapshot()
        finals.append(value)
    return finals


def runner(contender: str) -> Callable[[list[list[str]]], list[Any]]:
    if contender == "json.loads":
        return lambda calls: [json.loads("".join(pieces)) for pieces in calls]
    backend, _, stable = contender.partition("-")
    parser_class = import_module({"cython": "streaming_json._core", "pure": "streaming_json._pure"}[backend])
    make = parser_class.StreamingJsonParser
    if stable:
        return lambda calls: replay(lambda: make(stable=True), calls)
    return lambda calls: replay(make, calls)


def main(case_path: str, contender: str) -> None:
    run = runner(contender)
    case = json.loads(Path(case_path).read_text(encoding="utf-8"))
    finals: list[Any] = []
    for _ in range(case["warmup"]):
        finals = run(case["calls"])
    times = []
    for _ in range(case["runs"]):
        start = perf_counter()
        finals = run(case["calls"])
        times.append(perf_counter() - start)
    print(json.dumps({"seconds": min(times), "finals": finals}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
