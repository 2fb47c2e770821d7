"""Typed streaming costs per piece what the open path and the open string cost, not the document (issue 11).

A ``list[Record]`` document of 2,000 and of 16,000 records streams in token-sized pieces with a partial value after
every piece, then ``finish()``; the time per character at 16,000 must stay within 2.5 times that at 2,000. An
implementation that rebuilds or re-validates what is already complete on every piece costs 8 times as much per
character at the larger size and fails.

Robust on a loaded machine: the garbage collector runs as it would for a user (collected before each run, not
disabled), sizes are timed interleaved, each as the minimum of several runs, and the larger size is re-run before a
failure is reported.
"""

from __future__ import annotations

import gc
import json
import random
import time
from types import ModuleType
from typing import Any, Optional

import pytest

pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

from pydantic import BaseModel, TypeAdapter

from streaming_json.pydantic import ModelStream

from .strategies import cut_randomly

SMALL, LARGE = 2_000, 16_000
MAX_RATIO = 2.5


class Record(BaseModel):
    id: int
    name: str
    score: float
    active: bool
    parent: Optional[int] = None
    tags: list[str]
    note: Optional[str] = None


def _document(count: int) -> str:
    rng = random.Random(count)
    names = ["Zoë Ångström", "Łukasz", "山田 太郎", "Ada Lovelace", 'say "hi"\n']
    records = []
    for index in range(count):
        record: dict[str, Any] = {
            "id": index,
            "name": rng.choice(names),
            "score": round(rng.uniform(-1000, 1000), 4),
            "active": rng.random() < 0.5,
            "parent": rng.randrange(index + 1) if rng.random() < 0.3 else None,
            "tags": rng.sample(["alpha", "beta", "naïve", "🚀 launch", "ok"], rng.randint(0, 3)),
        }
        if rng.random() < 0.2:
            record["note"] = "a note"
        records.append(record)
    return json.dumps(records, ensure_ascii=False)


def _seconds(backend: ModuleType, pieces: list[str], expected_length: int) -> float:
    gc.collect()
    start = time.perf_counter()
    stream = ModelStream(list[Record], parser_class=backend.StreamingJsonParser)
    append = stream.append
    for piece in pieces:
        append(piece)
    result = stream.finish()
    elapsed = time.perf_counter() - start
    assert len(result.value or ()) == expected_length and len(stream.value) == expected_length
    return elapsed


@pytest.mark.slow  # timing: run once, on the build under test
def test_time_per_character_stays_flat_as_the_list_grows(backend: ModuleType) -> None:
    texts = {count: _document(count) for count in (SMALL, LARGE)}
    pieces = {count: cut_randomly(text, seed=count, shortest=2, longest=6) for count, text in texts.items()}
    small_text = texts[SMALL]
    assert TypeAdapter(list[Record]).validate_json(small_text)[-1].id == SMALL - 1
    small = large = float("inf")
    for attempt in range(4):
        for _ in range(2):  # the small size is cheap: two runs for one of the large size, interleaved
            small = min(small, _seconds(backend, pieces[SMALL], SMALL) / len(texts[SMALL]))
        large = min(large, _seconds(backend, pieces[LARGE], LARGE) / len(texts[LARGE]))
        if attempt >= 1 and large <= MAX_RATIO * small:
            break
    assert large <= MAX_RATIO * small, (
        f"{small * 1e9:.0f} ns a character at {SMALL:,} records, {large * 1e9:.0f} ns at {LARGE:,} "
        f"({large / small:.2f}x)"
    )
