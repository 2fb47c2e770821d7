"""Completed items and values from pieces (issue 10): ``iter_items``, ``iter_values`` and their async twins.

They yield exactly the elements (or the matching values) of ``json.loads``' result, each once, as soon as it is
complete, whatever the cut, on both backends; they follow the text as read where a repeated key replaces a value;
what is not there yields nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path as FilePath
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import ANY, _completed, aiter_items, aiter_values, iter_items, iter_values

from .jsonvalues import identical_json
from .strategies import cut_randomly, examples, json_texts, json_values, pieces_of

CORPUS = FilePath(__file__).parent / "data" / "JSONTestSuite" / "test_parsing"
VALID_FILES = sorted(path.name for path in CORPUS.iterdir() if path.name.startswith("y_"))


@pytest.fixture(autouse=True)
def _the_backend_under_test(backend: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """These functions read with the parser the package picked (``streaming_json._backend``): run them over each
    backend in turn."""
    monkeypatch.setattr(_completed, "StreamingJsonParser", backend.StreamingJsonParser)


def _matches(value: Any, pattern: tuple[Any, ...], path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, Any]]:
    """The values of ``value`` at ``pattern`` in document order (the expected result, computed on the whole value)."""
    if len(path) == len(pattern):
        yield path, value
        return
    step = pattern[len(path)]
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        if step == ANY or (step == key and type(step) is type(key)):
            yield from _matches(child, pattern, (*path, key))


@st.composite
def _record_lists(draw: st.DrawFn) -> tuple[str, tuple[Any, ...]]:
    """A document with an array somewhere inside it, and the path to that array."""
    items = draw(st.lists(json_values(max_leaves=6), max_size=8))
    path: tuple[Any, ...] = ()
    document: Any = items
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            key = draw(st.sampled_from(["results", "data", "x"]))
            document = {"before": draw(json_values(max_leaves=3)), key: document, "after": [1, {"a": "b"}]}
            path = (key, *path)
        else:
            document = [draw(json_values(max_leaves=3)), document]
            path = (1, *path)
    text = json.dumps(document, indent=draw(st.sampled_from([None, 1])), ensure_ascii=draw(st.booleans()))
    return text, path


@examples(150)
@given(_record_lists(), st.data())
def test_iter_items_yields_each_element_once_complete(document: tuple[str, tuple[Any, ...]], data: Any) -> None:
    text, path = document
    pieces = data.draw(pieces_of(text))
    expected = list(_matches(json.loads(text), path))[0][1]
    items = list(iter_items(pieces, path))
    assert len(items) == len(expected) and all(identical_json(a, b) for a, b in zip(items, expected))


def test_items_come_as_soon_as_they_complete() -> None:
    """Each element is yielded while the rest of the array has not arrived: no waiting for the next one."""
    text = '{"results": [{"id": 1, "tags": ["a"]}, {"id": 2}, 3, "four"], "next": null}'
    read = ""
    seen = []

    def pieces() -> Iterator[str]:
        nonlocal read
        for char in text:
            read += char
            yield char

    for item in iter_items(pieces(), ("results",)):
        seen.append((item, read))
    assert seen == [
        ({"id": 1, "tags": ["a"]}, '{"results": [{"id": 1, "tags": ["a"]}'),
        ({"id": 2}, '{"results": [{"id": 1, "tags": ["a"]}, {"id": 2}'),
        (3, '{"results": [{"id": 1, "tags": ["a"]}, {"id": 2}, 3,'),  # a number ends at the character after it
        ("four", '{"results": [{"id": 1, "tags": ["a"]}, {"id": 2}, 3, "four"'),
    ]


@examples(150)
@given(json_texts(), st.data())
def test_iter_values_yields_every_match(text: str, data: Any) -> None:
    pieces = data.draw(pieces_of(text))
    value = json.loads(text)
    for pattern in [(ANY,), (ANY, ANY), (0,), ("a",), (ANY, 0), ()]:
        expected = list(_matches(value, pattern))
        if pattern == () and text[-1] not in ' \t\n\r"]}':
            expected = []  # a root number or literal with nothing after it is not complete
        got = list(iter_values(pieces, pattern))
        assert [path for path, _ in got] == [path for path, _ in expected], pattern
        assert all(identical_json(a, b) for (_, a), (_, b) in zip(got, expected))


@pytest.mark.parametrize("name", VALID_FILES)
def test_jsontestsuite_valid_files(name: str) -> None:
    text = (CORPUS / name).read_bytes().decode("utf-8")
    if "duplicated_key" in name:
        return  # keys are not unique: the next test is about that
    value = json.loads(text)
    pieces = cut_randomly(text, seed=len(name), shortest=1, longest=4)
    items = list(iter_items(pieces, ()))
    assert identical_json(items, value if isinstance(value, list) else [])
    expected = list(_matches(value, (ANY,)))
    got = list(iter_values([text.encode("utf-8")], (ANY,)))
    assert [path for path, _ in got] == [path for path, _ in expected]


def test_a_repeated_key_replaces_the_array_and_its_elements_follow() -> None:
    text = '{"a": [1, 2], "b": 0, "a": [3]}'
    assert list(iter_items(list(text), ("a",))) == [1, 2, 3]
    assert list(iter_values([text], ("a",))) == [(("a",), [1, 2]), (("a",), [3])]


@pytest.mark.parametrize(
    "text,path",
    [
        ('{"a": {"b": 1}}', ("a",)),  # not an array
        ('{"a": [1]}', ("b",)),  # missing
        ('{"a": [1]}', ("a", 0)),  # an element that is not an array
        ('[[1], {"0": [2]}]', (1, 0)),  # index 0 is not key "0"
        ('{"a": [1, 2', ("a",)[:0] + ("b",)),
        ("not json at all", ()),
    ],
)
def test_what_is_not_there_yields_nothing(text: str, path: tuple[Any, ...]) -> None:
    assert list(iter_items([text], path)) == []


def test_a_key_that_looks_like_an_index_is_a_key() -> None:
    assert list(iter_items(['[[1], {"0": [2]}]'], (1, "0"))) == [2]
    assert list(iter_values(['{"1": 1, "x": [5, 6]}'], (ANY,))) == [(("1",), 1), (("x",), [5, 6])]
    assert list(iter_values(['{"1": 1, "x": [5, 6]}'], ("x", 1))) == [(("x", 1), 6)]


def test_deeper_than_the_report_limit() -> None:
    """Paths below the parser's reporting depth are found inside the container reported whole at the limit."""
    depth = 40
    text = '{"a": ' * depth + '[{"n": 1}, {"n": 2}]' + "}" * depth
    path = ("a",) * depth
    assert list(iter_items(list(text), path)) == [{"n": 1}, {"n": 2}]
    assert [value for _, value in iter_values([text], (*path, ANY, "n"))] == [1, 2]
    assert list(iter_values([text], ("b",) * depth)) == []


def test_edit_list_pattern() -> None:
    text = json.dumps({"edits": [{"old": "a", "new_text": "b"}, {"new_text": "c"}, {"other": 1}]})
    assert list(iter_values(cut_randomly(text, 1, 1, 3), ("edits", ANY, "new_text"))) == [
        (("edits", 0, "new_text"), "b"),
        (("edits", 1, "new_text"), "c"),
    ]


def test_async_twins() -> None:
    text = '{"results": [{"id": 1}, {"id": 2}], "n": 2}'

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(text), 3):
            await asyncio.sleep(0)
            yield text[start : start + 3].encode()

    async def main() -> tuple[list[Any], list[Any]]:
        items = [item async for item in aiter_items(pieces(), ("results",))]
        values = [match async for match in aiter_values(pieces(), ("results", ANY, "id"))]
        return items, values

    items, values = asyncio.run(main())
    assert items == [{"id": 1}, {"id": 2}]
    assert values == [(("results", 0, "id"), 1), (("results", 1, "id"), 2)]


@pytest.mark.parametrize("call", [iter_items, iter_values, aiter_items, aiter_values])
@pytest.mark.parametrize("path", ["results", b"results", 3, None, {"results"}])
def test_a_path_that_is_not_a_tuple_or_list_raises(call: Any, path: Any) -> None:
    """A str where a path belongs (``"results"`` for ``("results",)``) read as seven one-letter keys and yielded
    nothing; now it raises when called, before any piece is read."""
    with pytest.raises(TypeError, match=r"must be a tuple or list of keys and indices, not "):
        call(['{"results": [1, 2]}'], path)
    assert list(iter_items(['{"results": [1, 2]}'], ["results"])) == [1, 2]  # a list is a path


@pytest.mark.slow  # runs mypy
def test_the_type_hints_refuse_a_str_path(tmp_path: Any) -> None:
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (the test extra installs it on CPython)")
    program = tmp_path / "paths.py"
    program.write_text(
        "from streaming_json import iter_items, iter_values, StreamingJsonParser\n"
        "iter_items([], ('results', 0))\n"
        "iter_items([], ['results', 0])\n"
        "iter_values([], ['results', '*'])\n"
        "iter_items([], 'results')\n"
        "iter_values([], 'results')\n"
        "StreamingJsonParser(items_at='results')\n"
    )
    stdout, _, status = api.run(["--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(program)])
    errors = [line for line in stdout.splitlines() if line.startswith(str(program)) and ": error:" in line]
    assert status == 1 and [line[len(str(program)) :].split(":")[1] for line in errors] == ["5", "6", "7"], stdout
