"""Timing that noise cannot tip: how the cost of a character grows with the size of the text.

Times are CPU time of this process (``time.process_time``), so other processes on a busy machine cannot add to them,
while the garbage collector's work, which is ours, stays in. The two sizes are timed in turns and each keeps its best
time, so a slow moment hits both sizes alike or neither; a ratio over the limit must hold in every round to count.
"""

from __future__ import annotations

import gc
import math
import time
from typing import Any, Callable

ROUNDS = 8  # timing rounds at most, each timing both sizes (a passing check stops at the first good one)
SMALL_SECONDS = 0.1  # a fast small size is timed in a loop of about this long (at most 10 runs)


def stream_seconds(make_parser: Callable[[], Any], pieces: list[Any]) -> float:
    """CPU seconds to append every piece to a new parser with a snapshot after each, GC included."""
    gc.collect()
    parser = make_parser()
    append = parser.append
    snapshot = parser.snapshot
    start = time.process_time()
    for piece in pieces:
        append(piece)
        snapshot()
    return time.process_time() - start


def per_character_growth(make_parser: Callable[[], Any], small: list[Any], large: list[Any], limit: float) -> float:
    """How many times more a character costs in ``large`` than in ``small`` (each a text's pieces): the best time of
    each over rounds taken in turns, stopping at the first round that shows the growth within ``limit``."""
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
