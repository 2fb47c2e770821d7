"""Typed streaming costs per piece what the open path and the open string cost, not the document (issue 11).

A ``list[Record]`` document of 2,000 and of 16,000 records streams in token-sized pieces with a partial value after
every piece; the time per character at 16,000 must stay within 2.5 times that at 2,000. An implementation that
rebuilds or re-validates what is already complete on every piece costs 8 times as much per character at the larger
size and fails (shown below with a stream that takes a fresh snapshot after every piece). Timed as the core's
linearity tests are (``timing.py``): CPU time of this process with the garbage collector's work in, sizes in turns.
"""

from __future__ import annotations

import functools
import json
import random
from types import ModuleType
from typing import Any, Optional

import pytest

pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

import pydantic
from pydantic import BaseModel, TypeAdapter

import streaming_json
from streaming_json.pydantic import ModelStream

from .strategies import cut_randomly
from .timing import per_character_growth

# At half these sizes a typed layer that rebuilds the open list's partial value for every completed member, however
# long the list (the guard in ModelStream.append removed), grows 1.7x and passes; at these it grows 3x and fails.
SMALL, LARGE = 2_000, 16_000
_PYDANTIC = tuple(int(part) for part in pydantic.VERSION.split(".")[:2])
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


class _Typed:
    """A ``ModelStream`` where ``timing`` expects a parser: ``append`` per piece (the partial value), no snapshot."""

    def __init__(self, parser_class: Any, revalidate: bool = False) -> None:
        self.stream: ModelStream[Any] = ModelStream(list[Record], parser_class=parser_class)
        self.append = self._revalidating_append if revalidate else self.stream.append
        self.text = ""

    def snapshot(self) -> None:
        return None

    def _revalidating_append(self, piece: str) -> Any:
        """The stream, plus what re-validating the text so far after every piece costs (pydantic's partial mode)."""
        self.text += piece
        _ADAPTER.validate_json(self.text, experimental_allow_partial="trailing-strings")
        return self.stream.append(piece)


_ADAPTER = TypeAdapter(list[Record])


def _texts(*counts: int) -> dict[int, list[str]]:
    return {count: cut_randomly(_document(count), seed=count, shortest=2, longest=6) for count in counts}


@pytest.mark.slow  # timing: run once, on the build under test
@pytest.mark.timing
def test_time_per_character_stays_flat_as_the_list_grows(backend: ModuleType) -> None:
    pieces = _texts(SMALL, LARGE)
    stream = _Typed(backend.StreamingJsonParser)
    for piece in pieces[SMALL]:
        stream.append(piece)
    assert stream.stream.value == _ADAPTER.validate_json("".join(pieces[SMALL]))  # the work is done
    growth = per_character_growth(lambda: _Typed(backend.StreamingJsonParser), pieces[SMALL], pieces[LARGE], MAX_RATIO)
    assert growth <= MAX_RATIO, f"a character costs {growth:.2f}x as much at {LARGE:,} records as at {SMALL:,}"


@pytest.mark.slow
@pytest.mark.timing
@pytest.mark.skipif(
    pydantic.VERSION < "2.10", reason="partial validation (the re-validating stream) needs pydantic 2.10"
)
def test_the_timing_catches_work_that_grows_with_the_document() -> None:
    """Re-validating the text so far on every piece fails the same limit (at 12 and 96 records: at the sizes above
    such a stream would run for minutes). It grows about 6x there (7x at 25 and 200 records, four times the time): a
    failing check times all its rounds, so the sizes are the smallest that fail by a wide margin."""
    pieces = _texts(12, 96)
    make = functools.partial(_Typed, streaming_json.StreamingJsonParser, True)
    growth = per_character_growth(make, pieces[12], pieces[96], MAX_RATIO)
    assert growth > MAX_RATIO, f"re-validating the records read after every piece grew only {growth:.2f}x"
