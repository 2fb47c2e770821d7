"""``StreamingJsonParser(items_at=path).append_items(piece)``: the elements of the array at a path, each once, in the
piece that finished it (issue 33: what ``iter_items`` reads, with no change object and no path an item).

- Piece by piece, on valid and malformed text cut anywhere, as str or bytes, it returns exactly the values of the
  done events a parser with ``done_events=True`` gives for the elements of that array (with a key never matching an
  index), the very objects later snapshots hold; both backends give the same.
- On valid documents, the items are those of ``json.loads``' array at the path; a repeated key's new array's elements
  follow; deeper than the reporting limit works as well.
- What it returned is never changed by the next piece; elements finished in a piece read by ``append()`` are not
  returned later; a parser made without ``items_at``, or an ``items_at`` that is no path, is refused at once.
"""

from __future__ import annotations

import json
from pathlib import Path as FilePath
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json._shared import REPORT_DEPTH_LIMIT

from .backends import AVAILABLE_BACKENDS
from .jsonvalues import identical_json
from .strategies import cut_randomly, examples, json_texts, json_values, pieces_of, random_pieces

CORPUS = FilePath(__file__).parent / "data" / "JSONTestSuite" / "test_parsing"
ALL_FILES = sorted(path.name for path in CORPUS.iterdir())
PATHS: list[tuple[Any, ...]] = [(), ("results",), (0,), ("a", 1), ("0",), ("results", "x")]


def _done_items(backend: ModuleType, pieces: list[Any], path: tuple[Any, ...]) -> list[list[Any]]:
    """Piece by piece, the values of the done events of the elements of the array at ``path`` (the rule
    ``append_items`` must give)."""
    parser = backend.StreamingJsonParser(changes=False, done_events=True)
    found = []
    for piece in pieces:
        found.append(
            [
                event.value
                for event in parser.append(piece)
                if len(event.path) == len(path) + 1
                and type(event.path[-1]) is int
                and all(a == b and type(a) is type(b) for a, b in zip(event.path, path))
            ]
        )
    return found


def _items(backend: ModuleType, pieces: list[Any], path: tuple[Any, ...]) -> list[list[Any]]:
    parser = backend.StreamingJsonParser(changes=False, items_at=path)
    return [list(parser.append_items(piece)) for piece in pieces]


def _same(left: list[list[Any]], right: list[list[Any]]) -> bool:
    """The same values, piece by piece: compared as JSON text, which tells 1, 1.0 and True apart (and, unlike a
    recursive comparison, takes the suite's 500 nested arrays)."""
    return json.dumps(left) == json.dumps(right)


@examples(200)
@given(st.one_of(random_pieces(), json_texts().flatmap(pieces_of)), st.sampled_from(PATHS))
def test_the_items_are_the_done_events_of_the_array_piece_by_piece(
    backend: ModuleType, pieces: list[Any], path: tuple[Any, ...]
) -> None:
    assert _same(_items(backend, pieces, path), _done_items(backend, pieces, path))


@pytest.mark.parametrize("name", ALL_FILES)
def test_jsontestsuite_files_cut_anywhere(backend: ModuleType, name: str) -> None:
    """Every file of the suite, valid or not, in pieces of 3 bytes: the done events' items, on both backends."""
    data = (CORPUS / name).read_bytes()
    pieces = [data[start : start + 3] for start in range(0, len(data), 3)]
    expected = _done_items(backend, pieces, ())
    assert _same(_items(backend, pieces, ()), expected)
    for other in AVAILABLE_BACKENDS.values():
        assert _same(_items(other, pieces, ()), expected)


@examples(100)
@given(st.lists(json_values(max_leaves=6), max_size=8), st.data())
def test_valid_documents_give_json_loads_items(backend: ModuleType, items: list[Any], data: Any) -> None:
    text = json.dumps({"before": [1, 2], "results": items, "after": {"results": [3]}})
    pieces = data.draw(pieces_of(text))
    parser = backend.StreamingJsonParser(changes=False, items_at=("results",))
    found = [item for piece in pieces for item in parser.append_items(piece)]
    assert len(found) == len(items) and all(identical_json(a, b) for a, b in zip(found, json.loads(text)["results"]))
    final = parser.snapshot(fresh=True)["results"]
    assert all(a is b for a, b in zip(found, final))  # the very objects the value holds


def test_a_repeated_key_replaces_the_array_and_its_elements_follow(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser(changes=False, items_at=("a",))
    text = '{"a": [1, 2], "b": [9], "a": {"x": [5]}, "a": [3]}'
    assert [item for char in text for item in parser.append_items(char)] == [1, 2, 3]


def test_a_key_is_never_an_index(backend: ModuleType) -> None:
    text = '[[1], {"0": [2]}, [[3]]]'
    assert backend.StreamingJsonParser(changes=False, items_at=(1, "0")).append_items(text) == [2]
    assert backend.StreamingJsonParser(changes=False, items_at=("1",)).append_items(text) == []
    assert backend.StreamingJsonParser(changes=False, items_at=(2, 0)).append_items(text) == [3]


def test_deeper_than_the_reporting_limit(backend: ModuleType) -> None:
    depth = REPORT_DEPTH_LIMIT + 5
    text = '{"k": ' * depth + "[1, [2], {}]" + "}" * depth
    parser = backend.StreamingJsonParser(changes=False, items_at=("k",) * depth)
    assert [item for piece in cut_randomly(text, 3, 1, 9) for item in parser.append_items(piece)] == [1, [2], {}]


def test_what_it_returned_never_changes(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser(changes=False, items_at=())
    first = parser.append_items("[1, 2, ")
    assert first == [1, 2]
    second = parser.append_items("3, 4, ")
    assert first == [1, 2] and second == [3, 4] and second is not first
    del first, second
    assert parser.append_items("5]") == [5]


def test_elements_finished_by_append_are_not_returned_later(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser(changes=False, items_at=())
    assert parser.append("[1, 2, ") == []
    assert parser.append_items("3]") == [3]
    assert parser.snapshot() == [1, 2, 3]


def test_with_changes_the_piece_is_read_as_append_reads_it(backend: ModuleType) -> None:
    """The changes of a piece read by append_items are not returned, and the value is the same as append's."""
    text = '{"results": [{"id": 1}, "two", 3], "next": null}'
    by_items = backend.StreamingJsonParser(items_at=("results",))
    by_append = backend.StreamingJsonParser()
    for piece in cut_randomly(text, 1, 1, 4):
        by_items.append_items(piece)
        by_append.append(piece)
        assert by_items.snapshot() == by_append.snapshot()


def test_bytes_pieces(backend: ModuleType) -> None:
    data = '{"results": ["é", "€", "😀"]}'.encode()
    parser = backend.StreamingJsonParser(changes=False, items_at=("results",))
    assert [item for start in range(len(data)) for item in parser.append_items(data[start : start + 1])] == [
        "é",
        "€",
        "😀",
    ]


@pytest.mark.parametrize(
    ("items_at", "error"),
    [("results", TypeError), (b"x", TypeError), ((True,), TypeError), ((1.0,), TypeError), ((-1,), ValueError)],
)
def test_an_items_at_that_is_no_path_is_refused(backend: ModuleType, items_at: Any, error: type) -> None:
    with pytest.raises(error):
        backend.StreamingJsonParser(items_at=items_at)


def test_append_items_needs_items_at(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser(changes=False)
    with pytest.raises(ValueError, match="items_at"):
        parser.append_items("[1]")
    assert parser.append("[1]") == []  # the parser was not used: refused before reading
    assert parser.snapshot() == [1]
