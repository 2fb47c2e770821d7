"""Done events (issue 10): ``StreamingJsonParser(done_events=True)`` reports each value once, when it is final.

- On every valid document, cut anywhere as str or bytes, the done events are exactly the values of ``json.loads``'
  result in the order they end (children before their container), within the reporting depth; a root number or
  literal with nothing after it gets none. Each value is the very object later snapshots hold at its path.
- Removing the done events from the list gives exactly what a parser without them returns, piece by piece.
- The events do not depend on the cut, on valid or malformed text, and both backends give the same ones.
- A done event comes after every set and append of its value.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path as FilePath
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import _pure

from .jsonvalues import identical_json
from .strategies import (
    REPORT_DEPTH,
    cut_randomly,
    deep_json_values,
    examples,
    json_texts,
    mutated_texts,
    pieces_of,
    split_at,
)

Path = tuple[Any, ...]
CORPUS = FilePath(__file__).parent / "data" / "JSONTestSuite" / "test_parsing"
VALID_FILES = sorted(path.name for path in CORPUS.iterdir() if path.name.startswith("y_"))


def done_events(backend: ModuleType, pieces: list[Any], **options: Any) -> list[tuple[Path, Any]]:
    parser = backend.StreamingJsonParser(done_events=True, **options)
    return [(change.path, change.value) for piece in pieces for change in parser.append(piece) if change.kind == "done"]


class _Members(list):  # type: ignore[type-arg]
    """An object's members as json.loads met them, repeated keys included."""


def _plain(item: Any) -> Any:
    """The value json.loads gives for a parse kept as members (the last of repeated keys wins)."""
    if isinstance(item, _Members):
        return {key: _plain(child) for key, child in item}
    if isinstance(item, list):
        return [_plain(child) for child in item]
    return item


def values_in_completion_order(text: str) -> Iterator[tuple[Path, Any]]:
    """What the done events of a valid ``text`` must be: every value with its path, a container after its contents,
    a value that a repeated key replaced included; nothing below the reporting depth (the container at the limit
    comes whole), and no root number or literal that nothing after it ended."""
    value = json.loads(text, object_pairs_hook=_Members)
    ends_in_word = text[-1:] not in ("", " ", "\t", "\n", "\r", '"', "]", "}")
    stack: list[tuple[Path, Any, bool]] = [((), value, False)]
    while stack:
        path, item, expanded = stack.pop()
        is_container = isinstance(item, list)
        if expanded or not is_container or len(path) >= REPORT_DEPTH:
            if path or not ends_in_word or isinstance(item, (str, list)):
                yield path, _plain(item)
            continue
        stack.append((path, item, True))
        children = item if isinstance(item, _Members) else enumerate(item)
        for key, child in reversed(list(children)):
            stack.append(((*path, key), child, False))


def _at(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


def _check_document(backend: ModuleType, text: str, pieces: list[Any]) -> None:
    parser = backend.StreamingJsonParser(done_events=True)
    changes = [change for piece in pieces for change in parser.append(piece)]
    events = [(change.path, change.value) for change in changes if change.kind == "done"]
    wanted = list(values_in_completion_order(text))
    assert [path for path, _ in events] == [path for path, _ in wanted]
    for (path, value), (_, expected_value) in zip(events, wanted):
        assert identical_json(value, expected_value), f"done at {path}: {value!r}, json.loads has {expected_value!r}"
    # The very objects later snapshots share (where no repeated key replaced them); and no set or append of a value
    # after its done event, but where a repeated key starts it anew.
    final = parser.snapshot(fresh=True)
    if len({path for path, _ in events}) == len(events):
        for path, value in events:
            assert _at(final, path) is value, f"the snapshot holds a different object at {path}"
    finished: set[Path] = set()
    for change in changes:
        if change.kind == "done":
            finished.add(change.path)
        elif change.kind == "set" and change.path in finished:
            finished = {path for path in finished if path[: len(change.path)] != change.path}  # a repeated key
        else:
            assert not any(change.path[: len(done)] == done for done in finished), f"{change} after its done event"


@st.composite
def _documents_and_pieces(draw: st.DrawFn, values: Any = None) -> tuple[str, list[Any]]:
    text = draw(json_texts(values))
    return text, draw(pieces_of(text))


@examples(200)
@given(_documents_and_pieces())
def test_every_value_is_done_once_in_order(backend: ModuleType, document: tuple[str, list[Any]]) -> None:
    _check_document(backend, *document)


@examples(30)
@given(_documents_and_pieces(deep_json_values()))
def test_a_container_at_the_depth_limit_is_done_whole(backend: ModuleType, document: tuple[str, list[Any]]) -> None:
    _check_document(backend, *document)


@pytest.mark.parametrize("name", VALID_FILES)
def test_jsontestsuite_valid_files(backend: ModuleType, name: str) -> None:
    data = (CORPUS / name).read_bytes()
    text = data.decode("utf-8")
    _check_document(backend, text, cut_randomly(text, seed=len(name), shortest=1, longest=5))
    _check_document(backend, text, [data[i : i + 3] for i in range(0, len(data), 3)])


@examples(200)
@given(st.one_of(json_texts(), mutated_texts()), st.data())
def test_done_events_do_not_depend_on_the_cut(text: str, data: st.DataObject) -> None:
    """Any two cuts, as str or bytes, valid or malformed text, on both backends: the same (path, value) events."""
    first, second = data.draw(pieces_of(text)), data.draw(pieces_of(text))
    if any(isinstance(piece, bytes) for piece in first + second):
        try:  # a lone surrogate has no UTF-8 form: such text is compared as str only
            text.encode("utf-8")
        except UnicodeEncodeError:
            first, second = [text], split_at(text, [len(text) // 2])
    reference = done_events(_pure, [text])
    for backend in _backends():
        for pieces in (first, second):
            events = done_events(backend, pieces)
            assert [path for path, _ in events] == [path for path, _ in reference]
            assert all(identical_json(a, b) for (_, a), (_, b) in zip(events, reference))


@examples(150)
@given(st.one_of(json_texts(), mutated_texts()), st.data())
def test_without_done_events_the_changes_are_the_same(backend: ModuleType, text: str, data: st.DataObject) -> None:
    pieces = data.draw(pieces_of(text, allow_bytes=False))
    plain, with_done = backend.StreamingJsonParser(), backend.StreamingJsonParser(done_events=True)
    for piece in pieces:
        expected = plain.append(piece)
        got = [change for change in with_done.append(piece) if change.kind != "done"]
        assert got == expected
        assert identical_json(with_done.snapshot(), plain.snapshot()) or plain.snapshot() is with_done.snapshot()


@pytest.mark.parametrize(
    "text,events",
    [
        ('{"a": 1, "a": [2]}', [(("a",), 1), (("a", 0), 2), (("a",), [2]), ((), {"a": [2]})]),  # a repeated key
        ("[tru, 1e, -, nul]", [((), [])]),  # words that never became values
        ('{1: 2, "b": "c"}', [(("b",), "c"), ((), {"b": "c"})]),  # a value where a key belongs is dropped
        ('{"a" "b", "c": {"d"}}', [(("a",), "b"), (("c",), {}), ((), {"a": "b", "c": {}})]),
        ("[1 2]", [((0,), 1), ((1,), 2), ((), [1, 2])]),  # missing commas are tolerated
        ("[1}", [((0,), 1), ((), [1])]),  # any closer closes the innermost container
        ("12", []),  # a root number with nothing after it is not done
        ("12 ", [((), 12)]),
        ('"x" trailing', [((), "x")]),
        ("nope [1]", [((0,), 1), ((), [1])]),  # an invalid word at the root lets a later value be the root
    ],
)
def test_malformed_text(backend: ModuleType, text: str, events: list[tuple[Path, Any]]) -> None:
    for pieces in ([text], list(text)):
        got = done_events(backend, pieces)
        assert [path for path, _ in got] == [path for path, _ in events]
        assert all(identical_json(a, b) for (_, a), (_, b) in zip(got, events)), got


def test_deep_containers_come_whole(backend: ModuleType) -> None:
    text = "[" * (REPORT_DEPTH + 2) + "1" + "]" * (REPORT_DEPTH + 2)
    events = done_events(backend, list(text))
    assert [len(path) for path, _ in events] == list(range(REPORT_DEPTH, -1, -1))
    assert identical_json(events[0][1], [[1]])


def test_report_depth_reports_shallower(backend: ModuleType) -> None:
    text = '{"results": [{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}], "n": 2}'
    parser = backend.StreamingJsonParser(done_events=True, report_depth=2)
    changes = [change for char in text for change in parser.append(char)]
    assert max(len(change.path) for change in changes) == 2
    done = [(change.path, change.value) for change in changes if change.kind == "done"]
    assert done == [
        (("results", 0), {"id": 1, "tags": ["a"]}),
        (("results", 1), {"id": 2, "tags": []}),
        (("results",), json.loads(text)["results"]),
        (("n",), 2),
        ((), json.loads(text)),
    ]
    for bad in (-1, 33, 1.5, True, "2"):
        with pytest.raises(ValueError) as raised:
            backend.StreamingJsonParser(report_depth=bad)
        assert str(raised.value) == f"report_depth must be an int from 0 to 32, not {bad!r}"


def test_changes_false_returns_only_done_events(backend: ModuleType) -> None:
    text = '{"a": "text", "b": [1, {"c": null}]}'
    quiet = backend.StreamingJsonParser(changes=False)
    assert [change for char in text for change in quiet.append(char)] == []
    assert quiet.snapshot() == json.loads(text)
    done_only = backend.StreamingJsonParser(changes=False, done_events=True)
    kinds = {change.kind for char in text for change in done_only.append(char)}
    assert kinds == {"done"}


def test_done_change_is_a_value(backend: ModuleType) -> None:
    change = backend.DoneChange(("a", 0), {"b": [1]})
    assert change.kind == "done" and change.path == ("a", 0) and change.value == {"b": [1]}
    assert change == backend.DoneChange(("a", 0), {"b": [1]}) != backend.SetChange(("a", 0), {"b": [1]})
    assert hash(backend.DoneChange((), 1)) == hash(backend.DoneChange((), 1))
    assert pickle.loads(pickle.dumps(change)) == change
    assert repr(change) == "DoneChange(path=('a', 0), value={'b': [1]})"
    with pytest.raises(AttributeError):
        change.value = 2  # type: ignore[misc]


def _backends() -> list[ModuleType]:
    import streaming_json

    modules = [_pure]
    if streaming_json.BACKEND == "cython":
        from streaming_json import _core

        modules.append(_core)
    return modules
