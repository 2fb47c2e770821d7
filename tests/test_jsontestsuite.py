"""The JSONTestSuite parsing corpus (issue 5): every file, whole and in pieces, as str and as bytes.

- No file makes either backend raise, whatever the cut: whole, one character (or byte) a piece, or cut at random
  points (seeded by the file name).
- Every ``y_`` file (valid JSON) ends at ``json.loads`` of its text decoded from UTF-8. All 95 are accepted by
  ``json.loads`` and none holds a number beyond what both read alike (``1E400``-style overflow is an ``i_`` file),
  so none is skipped; ``Y_SKIPPED`` would name any that had to be, with the reason.
- Every file, ``n_`` and ``i_`` included, gives the same changes and snapshots on every backend present.

The str form is the file decoded with ``errors="replace"``, as a caller holding text would have it; the bytes form
goes through the parser's own incremental UTF-8 decoder (also with replacement characters).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .backends import AVAILABLE_BACKENDS, needs_both_backends
from .strategies import identical_deep, run_lockstep, split_at

CORPUS = Path(__file__).parent / "data" / "JSONTestSuite" / "test_parsing"
FILES = sorted(path.name for path in CORPUS.iterdir() if path.suffix == ".json")

# y_ files left out of the value check, with the reason (none so far).
Y_SKIPPED: dict[str, str] = {}

CUTS = ["whole", "one unit a piece", "random cuts"]
FORMS = ["str", "bytes"]


def _pieces(name: str, form: str, cut: str) -> list[Any]:
    data: Any = (CORPUS / name).read_bytes()
    if form == "str":
        data = data.decode("utf-8", errors="replace")
    if cut == "whole":
        return [data]
    if cut == "one unit a piece":
        return [data[i : i + 1] for i in range(len(data))]
    rng = random.Random(f"{name}/{form}")
    cuts = [rng.randint(0, len(data)) for _ in range(rng.randint(1, max(1, len(data) // 3)))]
    return split_at(data, cuts)


def test_corpus_is_complete() -> None:
    assert len(FILES) == 318
    assert sum(name.startswith("y_") for name in FILES) == 95


@pytest.mark.parametrize("name", FILES)
def test_no_exception_and_valid_files_end_at_their_value(backend: ModuleType, name: str) -> None:
    expected: Any = None
    check_value = name.startswith("y_") and name not in Y_SKIPPED
    if check_value:
        expected = json.loads((CORPUS / name).read_bytes().decode("utf-8"))
    for form in FORMS:
        for cut in CUTS:
            result = run_lockstep({"backend": backend}, _pieces(name, form, cut))
            assert result.problem is None, f"{form}, {cut}: {result.problem}"
            if check_value:
                final = result.finals["backend"]
                assert identical_deep(final, expected), f"{form}, {cut}: {final!r}, json.loads gives {expected!r}"


@needs_both_backends
@pytest.mark.parametrize("name", FILES)
def test_backends_agree(name: str) -> None:
    for form in FORMS:
        for cut in CUTS:
            result = run_lockstep(AVAILABLE_BACKENDS, _pieces(name, form, cut))
            assert result.problem is None, f"{form}, {cut}: {result.problem}"
