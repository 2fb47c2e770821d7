"""The weights of the copy-credit rule (``streaming_json._types``), and what a deep open path costs.

A fresh snapshot copies the open path: every open container, every member and element they hold, and the open
string. This suite measures what each costs the compiled core, in nanoseconds, as the slope of the time of one
append-and-fresh-snapshot against the size of the open path: a wide container (members), a deep one (containers,
one member each), a long open string (characters). Allocation, deallocation and the cyclic GC's share are included,
since a snapshot's copies are collected later at the user's expense. The weights in ``_types`` are these slopes
relative to one member. Each figure is the best of 7 repeats of 3,000 rounds (wall time, ``perf_counter_ns``): the
least the machine let it cost.

It also reads ``'[' * 524288`` in 1-character pieces with a snapshot after every piece and prints the time a
character: the worst case of the rule, a path that only grows (the issue's bar: under 1.5 us).

    python -m bench snapshot_cost [--quick] [--pure] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import time
from types import ModuleType
from typing import Callable

from bench import harness

PACKAGES = ()
MARKDOWN = False

SIZES = (8, 256)  # the slope between these sizes: large enough to rise above the call, small enough for the caches
ROUNDS = 3000
REPEATS = 7
DEPTH = 524288

OPEN_PATHS: dict[str, Callable[[int], str]] = {
    # Each ends in an open string, which every round extends, so that every round builds a fresh copy.
    "array element": lambda n: "[" + "1," * n + '"',
    "object member": lambda n: "{" + "".join(f'"k{i}":1,' for i in range(n)) + '"s":"',
    "array container": lambda n: "[" * n + '"',
    "object container": lambda n: '{"a":' * n + '"',
    "string character": lambda n: '"' + "x" * (64 * n),
}


def _ns_per_round(backend: ModuleType, text: str, rounds: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        parser = backend.StreamingJsonParser(changes=False)
        parser.append(text)
        start = time.perf_counter_ns()
        for _ in range(rounds):
            parser.append("x")
            parser.snapshot(fresh=True)
        best = min(best, (time.perf_counter_ns() - start) / rounds)
    return best


def measure(backend: ModuleType, rounds: int = ROUNDS, repeats: int = REPEATS) -> dict[str, float]:
    """Nanoseconds a fresh snapshot pays for one more of each part of the open path."""
    small, large = SIZES
    slopes = {}
    for name, make in OPEN_PATHS.items():
        units = (large - small) * (64 if name == "string character" else 1)
        per_round = [_ns_per_round(backend, make(size), rounds, repeats) for size in (large, small)]
        slopes[name] = (per_round[0] - per_round[1]) / units
    # A deep container holds one member, whose copy is not the container's own cost.
    slopes["array container"] -= slopes["array element"]
    slopes["object container"] -= slopes["object member"]
    return slopes


def deep_path_ns_per_char(backend: ModuleType, depth: int = DEPTH) -> float:
    """Nanoseconds a character for ``'[' * depth`` in 1-character pieces with a snapshot after each (best of 3)."""
    best = float("inf")
    for _ in range(3):
        gc.collect()
        parser = backend.StreamingJsonParser()
        append, snapshot = parser.append, parser.snapshot
        start = time.perf_counter_ns()
        for _ in range(depth):
            append("[")
            snapshot()
        best = min(best, (time.perf_counter_ns() - start) / depth)
    return best


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pure", action="store_true", help="measure the pure-Python backend")


def run(session: harness.Session) -> int:
    args = session.args
    if args.pure:
        from streaming_json import _pure as backend
    else:
        from streaming_json import _core as backend  # type: ignore[no-redef]
    rounds, repeats, depth = (300, 2, DEPTH // 8) if args.quick else (ROUNDS, REPEATS, DEPTH)
    print(harness.environment_line(session.env))
    slopes = measure(backend, rounds, repeats)
    member = (slopes["array element"] + slopes["object member"]) / 2
    print(f"{backend.__name__}: one member is {member:.2f} ns")
    print(session.table(["part of the open path", "ns", "members"], [
        [name, f"{value:.3f}", f"{value / member:.3f}"] for name, value in slopes.items()
    ]))  # fmt: skip
    deep = deep_path_ns_per_char(backend, depth)
    print(f"'[' * {depth}, 1-character pieces, a snapshot after each: {deep:.0f} ns a character")
    session.raw.update(
        {"backend": backend.__name__, "slopes_ns": slopes, "member_ns": member, "deep_ns_per_char": deep}
    )
    return 0
