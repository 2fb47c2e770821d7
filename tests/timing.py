"""Timing that noise cannot tip: how the cost of a character grows with the size of the text.

Times are CPU time of this process (``time.process_time``), so other processes on a busy machine cannot add to them.
The two sizes are timed in turns and each keeps its best time, so a slow moment hits both sizes alike or neither; a
ratio over the limit must hold in every round to count.

The garbage collector's work on what the stream allocates is ours and stays in, but its *schedule* must not decide the
result. CPython runs a full collection whenever the objects that survived into the old generation reach a quarter of
those the last one found: total collector work is linear, yet which sizes land on how many full collections is a step
function of the size and of everything else alive in the process (a test run holds millions of objects). Measured on
``"[" * n + "]" * n``, pure backend: one full collection at n = 31,250, seven at n = 250,000, 50 against 370 ns a
character, enough to push a linear parser past the limit. So each timed stream runs with automatic collection off and
ends with one full collection, inside the timed region, over what the stream left (live and garbage alike); the rest
of the process is frozen out of it (``gc.freeze``), so the pass costs the same whatever ran before.

The process is frozen once per check, not once per timed stream: a full collection of a test run's heap takes about
160 ms (280,000 objects once the whole suite is collected), and a check times a dozen streams or more, so freezing per
stream spent some 2 s of each timing test outside the timed region.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

ROUNDS = 8  # timing rounds at most, each timing both sizes (a passing check stops at the first good one)
SMALL_SECONDS = 0.1  # a fast small size is timed in a loop of about this long (at most 10 runs)


@contextmanager
def frozen_process() -> Iterator[None]:
    """The process's objects so far frozen out of the collector, and automatic collection off, for a check."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def stream_seconds(make_parser: Callable[[], Any], pieces: list[Any]) -> float:
    """CPU seconds to append every piece to a new parser with a snapshot after each, plus one full collection of
    everything that left (see the module comment). Run inside :func:`frozen_process`."""
    gc.collect()  # what the last stream left: only objects made since the freeze
    parser = make_parser()
    append = parser.append
    snapshot = parser.snapshot
    start = time.process_time()
    for piece in pieces:
        append(piece)
        snapshot()
    gc.collect()
    return time.process_time() - start


def per_character_growth(make_parser: Callable[[], Any], small: list[Any], large: list[Any], limit: float) -> float:
    """How many times more a character costs in ``large`` than in ``small`` (each a text's pieces): the best time of
    each over rounds taken in turns, stopping at the first round that shows the growth within ``limit``."""
    with frozen_process():
        return _growth(make_parser, small, large, limit)


def _growth(make_parser: Callable[[], Any], small: list[Any], large: list[Any], limit: float) -> float:
    small_chars, large_chars = sum(map(len, small)), sum(map(len, large))
    first = stream_seconds(make_parser, small)
    repeats = min(10, max(1, math.ceil(SMALL_SECONDS / max(first, 1e-6))))
    best_small = best_large = float("inf")
    growth = float("inf")
    for _ in range(ROUNDS):
        best_small = min(best_small, first, min(stream_seconds(make_parser, small) for _ in range(repeats)))
        best_large = min(best_large, stream_seconds(make_parser, large))
        growth = (best_large / large_chars) / (best_small / small_chars)
        if growth <= limit:
            break
    return growth
