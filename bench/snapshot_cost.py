"""Measure the weights of the copy-credit rule (``streaming_json._types``), and what a deep open path costs.

A fresh snapshot copies the open path: every open container, every member and element they hold, and the open
string. This script measures what each costs the compiled core, in nanoseconds, as the slope of the time of one
append-and-fresh-snapshot against the size of the open path: a wide container (members), a deep one (containers,
one member each), a long open string (characters). Allocation, deallocation and the cyclic GC's share are included,
since a snapshot's copies are collected later at the user's expense. The weights in ``_types`` are these slopes
relative to one member.

It also reads ``'[' * 524288`` in 1-character pieces with a snapshot after every piece and prints the time a
character: the worst case of the rule, a path that only grows (the issue's bar: under 1.5 us).

Run: ``python bench/snapshot_cost.py`` (``--pure`` for the pure-Python backend).
"""

from __future__ import annotations

import argparse
import gc
import time
from types import ModuleType
from typing import Callable

SIZES = (8, 256)  # the slope between these sizes: large enough to rise above the call, small enough for the caches
ROUNDS = 3000
REPEATS = 7

OPEN_PATHS: dict[str, Callable[[int], str]] = {
    # Each ends in an open string, which every round extends, so that every round builds a fresh copy.
    "array element": lambda n: "[" + "1," * n + '"',
    "object member": lambda n: "{" + "".join(f'"k{i}":1,' for i in range(n)) + '"s":"',
    "array container": lambda n: "[" * n + '"',
    "object container": lambda n: '{"a":' * n + '"',
    "string character": lambda n: '"' + "x" * (64 * n),
}


def _ns_per_round(backend: ModuleType, text: str) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        parser = backend.StreamingJsonParser(changes=False)
        parser.append(text)
        start = time.perf_counter_ns()
        for _ in range(ROUNDS):
            parser.append("x")
            parser.snapshot(fresh=True)
        best = min(best, (time.perf_counter_ns() - start) / ROUNDS)
    return best


def measure(backend: ModuleType) -> dict[str, float]:
    """Nanoseconds a fresh snapshot pays for one more of each part of the open path."""
    small, large = SIZES
    slopes = {}
    for name, make in OPEN_PATHS.items():
        units = (large - small) * (64 if name == "string character" else 1)
        slopes[name] = (_ns_per_round(backend, make(large)) - _ns_per_round(backend, make(small))) / units
    # A deep container holds one member, whose copy is not the container's own cost.
    slopes["array container"] -= slopes["array element"]
    slopes["object container"] -= slopes["object member"]
    return slopes


def deep_path_ns_per_char(backend: ModuleType, depth: int = 524288) -> float:
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Measure the copy-credit weights.")
    parser.add_argument("--pure", action="store_true", help="measure the pure-Python backend")
    args = parser.parse_args()
    if args.pure:
        from streaming_json import _pure as backend
    else:
        from streaming_json import _core as backend  # type: ignore[no-redef]
    slopes = measure(backend)
    member = (slopes["array element"] + slopes["object member"]) / 2
    print(f"{backend.__name__}: one member is {member:.2f} ns")
    for name, value in slopes.items():
        print(f"{name:>17}: {value:8.3f} ns = {value / member:8.3f} members")
    print(
        f"'[' * 524288, 1-character pieces, a snapshot after each: {deep_path_ns_per_char(backend):.0f} ns a character"
    )


if __name__ == "__main__":
    main()
