"""Time one case in a process of its own: the reference suite's children (ours, the baseline, the floor).

``python bench/replay_child.py CASE.json CONTENDER``, CONTENDER one of ``cython``, ``cython-stable``,
``cython-no-changes`` (``changes=False``: snapshots only), the same three of ``pure``, ``json.loads``, and
``iter-items`` (``streaming_json.iter_items`` over each call's pieces at the case's ``items_at`` path, each item
dropped as the next comes: the features suite's bulk row; its values are each call's items). Every contender of the
reference suite runs in a fresh process like this one (the reference runs under Node), so that none is timed
in a heap that holds the others' workloads: a large heap makes the garbage collector's full passes, which the
parsers' allocations trigger, cost more. Run as a script with ``PYTHONPATH`` set
to a checkout: a script's own directory, not the repository root, starts ``sys.path``, so that checkout's package is
the one imported (an earlier commit's, for ``--baseline``).

It replays the case as the suite describes (a new parser per call, ``append`` then ``snapshot`` after every piece),
runs it untimed at least ``warmup`` times and for at least ``warmup_seconds`` (as ``bench/reference.mjs`` warms
V8 up), then ``runs`` times timed (wall time), then once more untimed to keep the final
values, and prints the best time and those values as JSON. A timed run keeps nothing of its output alive (each call's
last snapshot is dropped when the next call starts), as the reference's runs keep nothing (``bench/reference.mjs``):
what a contender's collector does with a heap of kept results is no part of what is compared. (Wall time, not CPU
time, as the reference is timed: a Node process's CPU time counts V8's background threads, which compile and collect
beside the main one.)

``python bench/replay_child.py CASE.json CONTENDER json.loads`` times the contender paired with its floor in this one
process: after both warm up, the two alternate run by run (in ABBA order, so that neither is always first), the
case's ``pairs`` times each, and the child prints, beside the best times, the median of the pairs' ratios
(contender / floor). On this shared machine the speed of the whole machine drifts: one ``json.loads`` of 1.2 MB took
from 14.5 to 25.6 ms, best of 5, in 16 fresh processes one after another, with the collector off and no time stolen,
and from 14 to 30 ms within one process. Two contenders timed in separate processes seconds apart carry that drift
into their ratio; two runs a few milliseconds apart see the same machine. (Over six processes that each timed the
bulk reader and ``json.loads`` 20 times, the ratio of the two bests ranged 0.98-1.08x, the paired median 1.01-1.04x.)
"""

from __future__ import annotations

import functools
import json
import statistics
import sys
from importlib import import_module
from pathlib import Path
from time import perf_counter
from typing import Any, Callable


def replay_call(make_parser: Callable[[], Any], pieces: list[str]) -> Any:
    """One call's replay: a new parser, ``append`` then ``snapshot`` after every piece; its last snapshot."""
    parser = make_parser()
    append, snapshot = parser.append, parser.snapshot
    value = None
    for piece in pieces:
        append(piece)
        value = snapshot()
    return value


def replay(make_parser: Callable[[], Any], calls: list[list[str]]) -> list[Any]:
    """Every call's replay, keeping each final value (to check them: not what is timed)."""
    return [replay_call(make_parser, pieces) for pieces in calls]


def replay_dropping(make_parser: Callable[[], Any], calls: list[list[str]]) -> int:
    """Every call's replay, as timed: each call's value is dropped when the next starts; returns how many ended with a
    value, which keeps none alive."""
    shown = 0
    for pieces in calls:
        if replay_call(make_parser, pieces) is not None:
            shown += 1
    return shown


def count_items(calls: list[list[str]], path: list[Any]) -> int:
    """Every call's items, as timed: each dropped as the next comes (a consumer that handles them one by one)."""
    from streaming_json import iter_items

    count = 0
    for pieces in calls:
        for _ in iter_items(pieces, path):
            count += 1
    return count


def runners(
    contender: str, case: dict[str, Any]
) -> tuple[Callable[[list[list[str]]], Any], Callable[[list[list[str]]], list[Any]]]:
    """The contender's timed run (keeps nothing) and its checking run (the final values)."""
    if contender == "iter-items":
        from streaming_json import iter_items

        path = case["items_at"]
        return (
            lambda calls: count_items(calls, path),
            lambda calls: [list(iter_items(pieces, path)) for pieces in calls],
        )
    if contender == "json.loads":
        return (
            lambda calls: sum(json.loads("".join(pieces)) is not None for pieces in calls),
            lambda calls: [json.loads("".join(pieces)) for pieces in calls],
        )
    backend, _, variant = contender.partition("-")
    module = import_module({"cython": "streaming_json._core", "pure": "streaming_json._pure"}[backend])
    options = {"": {}, "stable": {"stable": True}, "no-changes": {"changes": False}}[variant]
    make = functools.partial(module.StreamingJsonParser, **options)
    return (lambda calls: replay_dropping(make, calls), lambda calls: replay(make, calls))


def warm_up(case: dict[str, Any], run: Callable[[list[list[str]]], Any], calls: list[list[str]]) -> None:
    """Untimed runs: at least the case's ``warmup`` of them, and for at least its ``warmup_seconds``."""
    end = perf_counter() + case.get("warmup_seconds", 0)
    done = 0
    while done < case["warmup"] or perf_counter() < end:
        run(calls)
        done += 1


def main(case_path: str, contender: str, floor: str | None = None) -> None:
    case = json.loads(Path(case_path).read_text(encoding="utf-8"))
    timed, checked = runners(contender, case)
    calls = case["calls"]
    if floor is not None:
        print(json.dumps({**paired(timed, runners(floor, case)[0], calls, case), "finals": checked(calls)}))
        return
    warm_up(case, timed, calls)
    times = []
    for _ in range(case["runs"]):
        start = perf_counter()
        timed(calls)
        times.append(perf_counter() - start)
    print(json.dumps({"seconds": min(times), "times": sorted(times), "finals": checked(calls)}))


def paired(
    timed: Callable[[list[list[str]]], Any],
    floor: Callable[[list[list[str]]], Any],
    calls: list[list[str]],
    case: dict[str, Any],
) -> dict[str, Any]:
    """The contender and its floor, alternating run by run: both bests, and the median of the pairs' ratios."""
    warm_up(case, timed, calls)
    warm_up(case, floor, calls)
    own, floors = [], []
    for pair in range(case["pairs"]):
        for run, times in ((timed, own), (floor, floors)) if pair % 2 == 0 else ((floor, floors), (timed, own)):
            start = perf_counter()
            run(calls)
            times.append(perf_counter() - start)
    ratios = sorted(mine / theirs for mine, theirs in zip(own, floors))
    return {"seconds": min(own), "floor_seconds": min(floors), "ratio": statistics.median(ratios), "ratios": ratios}


if __name__ == "__main__":
    main(*sys.argv[1:4])
