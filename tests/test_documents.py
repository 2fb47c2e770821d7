"""Several documents in one stream, JSON Lines, and JSON inside prose (issue 12), on every backend.

- Generated documents joined with every kind of separator (none, spaces, newlines, CRLF), cut anywhere as str or
  bytes: ``append`` and ``finish`` give exactly the ``json.loads`` values, and every snapshot shows the document being
  read as far as it was read (``MISSING`` between documents).
- JSON Lines: empty lines, CRLF, a truncated line in the middle, a raw newline in a string, a last line without a
  newline; the skipped lines are counted and numbered.
- Prose: quotes, apostrophes and brackets in the prose and in the JSON's strings, backticks and fences inside string
  values, several fenced blocks, no fence, commentary after; one character at a time and cut anywhere.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import MISSING, split_documents

from .jsonvalues import identical_json
from .strategies import cut_randomly, examples, json_values, split_at

SEPARATORS = ["", " ", "\n", "\r\n", "  \t\n\n"]


def _is_word(text: str) -> bool:
    """A number or literal: two of them need a separator, or they read as one word."""
    return text[:1] not in ('"', "[", "{")


@st.composite
def _joined_documents(draw: st.DrawFn) -> tuple[list[Any], str, list[int]]:
    """Documents, their text joined with random separators, and where each document starts in it."""
    values = draw(st.lists(json_values(max_leaves=8), min_size=1, max_size=6))
    text, starts = "", []
    for value in values:
        doc = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, None, 1])))
        separator = draw(st.sampled_from(SEPARATORS)) if text else ""
        if text and not separator and _is_word(doc) and _is_word(json.dumps(values[len(starts) - 1])):
            separator = " "
        text += separator
        starts.append(len(text))
        text += doc
    text += draw(st.sampled_from(SEPARATORS))
    return values, text, starts


def _one_piece_value(backend: ModuleType, text: str) -> Any:
    parser = backend.StreamingJsonParser(stable=True)  # a document stream reads stably by default
    parser.append(text)
    return parser.snapshot()


@examples(150)
@given(_joined_documents(), st.data())
def test_documents_joined_any_way_cut_anywhere(backend: ModuleType, joined: Any, data: st.DataObject) -> None:
    values, text, starts = joined
    as_bytes = data.draw(st.booleans())
    raw: Any = text.encode("utf-8") if as_bytes else text
    pieces = split_at(raw, data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    documents = backend.StreamingJsonDocuments()
    got: list[Any] = []
    read = b"" if as_bytes else ""
    for piece in pieces:
        got += documents.append(piece)
        assert documents.count == len(got)
        read += piece
        consumed = len(read.decode("utf-8", "ignore")) if as_bytes else len(read)
        # The document being read, as far as it was read.
        start = starts[len(got)] if len(got) < len(starts) else len(text)
        expected = _one_piece_value(backend, text[start:consumed]) if consumed > start else MISSING
        snapshot = documents.snapshot()
        assert snapshot is MISSING if expected is MISSING else identical_json(snapshot, expected), (read, snapshot)
    got += documents.finish()
    assert documents.count == len(got) == len(values)
    assert all(identical_json(a, b) for a, b in zip(got, values)), (got, values)


def test_the_forms_of_several_documents(backend: ModuleType) -> None:
    for text, expected in [
        ('{"a":1}{"b":2}', [{"a": 1}, {"b": 2}]),
        ("[1] [2]", [[1], [2]]),
        ("1 2 3", [1, 2, 3]),
        ('"x""y"', ["x", "y"]),
        ('{"a": 1}\n{"a": 1}', [{"a": 1}, {"a": 1}]),  # a proxy that resends the object
        ("words ] } , : between [1] and [2] end", [[1], [2]]),  # text that starts no value is skipped
    ]:
        for pieces in ([text], list(text)):
            documents = backend.StreamingJsonDocuments()
            got = [doc for piece in pieces for doc in documents.append(piece)] + documents.finish()
            assert got == expected, (text, pieces)


def test_finish(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments()
    assert documents.append('[1] 2 {"a": "unterminated') == [[1], 2]
    assert documents.finish() == []  # an unterminated document is not complete
    assert documents.snapshot() == {"a": "unterminated"}  # but its value so far stays
    assert documents.finish() == [] and documents.count == 2
    with pytest.raises(ValueError, match=r"^append\(\) after finish\(\): the stream has ended$"):
        documents.append("more")
    pending = backend.StreamingJsonDocuments()
    assert pending.append("[1] -12.5e3") == [[1]]
    assert pending.snapshot() == -12500.0
    assert pending.finish() == [-12500.0] and pending.count == 2
    assert pending.snapshot() is MISSING


# --- JSON Lines ---------------------------------------------------------------------------------------------------

LINES = (
    '{"id": 1, "text": "one"}\n'
    "\n"  # an empty line
    '{"id": 2, "text": "two"}\r\n'  # CRLF
    '{"id": 3, "text": "trunc\n'  # a truncated line: the raw newline ends it
    '{"id": 4, "text": "a"} trailing text\n'  # text after the document on its line is ignored
    '[5, {"nested": [true, null]}]\n'
    "6\n"
    '{"id": 7, "unterminated": [1, 2\n'
    '"eight"'  # the last line, without a newline
)
LINES_VALUES = [
    {"id": 1, "text": "one"},
    {"id": 2, "text": "two"},
    {"id": 4, "text": "a"},
    [5, {"nested": [True, None]}],
    6,
    "eight",
]


@pytest.mark.parametrize("cut", ["whole", "one character", "random", "bytes"])
def test_json_lines(backend: ModuleType, cut: str) -> None:
    if cut == "whole":
        pieces: list[Any] = [LINES]
    elif cut == "one character":
        pieces = list(LINES)
    elif cut == "random":
        pieces = cut_randomly(LINES, seed=12, shortest=1, longest=9)
    else:
        data = LINES.encode()
        pieces = [data[i : i + 5] for i in range(0, len(data), 5)]
    documents = backend.StreamingJsonDocuments(lines=True)
    got = [doc for piece in pieces for doc in documents.append(piece)]
    assert got == LINES_VALUES  # each as soon as its root value ends, the last line's too
    assert documents.finish() == []
    assert documents.count == 6
    assert documents.skipped_lines == 3 and documents.skipped == [2, 4, 8]


def test_json_lines_unfinished_last_line(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments(lines=True)
    assert documents.append('1\n{"a": [1, 2') == [1]
    assert documents.snapshot() == {"a": [1, 2]}
    assert documents.finish() == []
    assert documents.snapshot() == {"a": [1, 2]}  # its partial value stays
    assert documents.skipped_lines == 1 and documents.skipped == [2]


def test_json_lines_number_at_the_end_of_a_line(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments(lines=True)
    assert documents.append("1") == []
    assert documents.append("2\n3") == [12]
    assert documents.finish() == [3] and documents.skipped_lines == 0
    trailing = backend.StreamingJsonDocuments(lines=True)
    assert trailing.append("1\n2\n") == [1, 2]
    assert trailing.finish() == [] and trailing.skipped_lines == 0  # no line after the last newline


def test_json_lines_keeps_the_last_100_skipped(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments(lines=True)
    documents.append("[\n" * 250 + "7\n")
    assert documents.finish() == [] and documents.count == 1
    assert documents.skipped_lines == 250 and documents.skipped == list(range(151, 251))


# --- Prose ----------------------------------------------------------------------------------------------------------

PROSE = [
    (
        'Sure! I think "a" is [the best] and it\'s {name}. Here you go:\n```json\n'
        '{"path": "notes.md", "content": "Use ```python\\nprint(1)\\n``` and [brackets] {braces} \\"quotes\\""}\n'
        "```\nLet me know if you need anything else!",
        [{"path": "notes.md", "content": 'Use ```python\nprint(1)\n``` and [brackets] {braces} "quotes"'}],
    ),
    (
        'First:\n```\n[1, 2, {"a": "it\'s"}]\n```\nSecond:\n```json\n{"b": ["`", "```"]}\n```\nDone.',
        [[1, 2, {"a": "it's"}], {"b": ["`", "```"]}],
    ),
    ('No fence at all: {"x": {"y": []}} and then some words, 42, "a string", true.', [{"x": {"y": []}}]),
    ("Nothing here but [sic] and {placeholders} and 3 numbers.", []),
    ('Empty ones count: {} and [] and [ ] and {"k": null}', [{}, [], [], {"k": None}]),
    ("Flags [true, false] and [ null] but not [the end], [nullable] or [fals", [[True, False], [None]]),
]


@pytest.mark.parametrize("index", range(len(PROSE)))
@pytest.mark.parametrize("cut", ["whole", "one character", "random", "bytes"])
def test_prose(backend: ModuleType, index: int, cut: str) -> None:
    text, expected = PROSE[index]
    if cut == "whole":
        pieces: list[Any] = [text]
    elif cut == "one character":
        pieces = list(text)
    elif cut == "random":
        pieces = cut_randomly(text, seed=index, shortest=1, longest=7)
    else:
        data = text.encode()
        pieces = [data[i : i + 3] for i in range(0, len(data), 3)]
    documents = backend.StreamingJsonDocuments(prose=True)
    got = [doc for piece in pieces for doc in documents.append(piece)] + documents.finish()
    assert got == expected
    # One document: the first object or array, with its changes and snapshots.
    parser = backend.StreamingJsonParser(prose=True)
    for piece in pieces:
        parser.append(piece)
    assert parser.snapshot() == (expected[0] if expected else MISSING)


def test_prose_parser_streams_its_document(backend: ModuleType) -> None:
    text = 'I think "a" is it:\n```json\n{"a": "b", "c": [1'
    parser = backend.StreamingJsonParser(prose=True)
    snapshots = []
    for char in text:
        parser.append(char)
        snapshots.append(parser.snapshot())
    assert snapshots[text.index("{") + 1] == {}  # shown once the character after the brace says JSON starts
    assert all(snapshot is MISSING for snapshot in snapshots[: text.index("{") + 1])
    assert snapshots[-1] == {"a": "b", "c": [1]}


def test_prose_in_json_lines(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments(lines=True, prose=True)
    got = documents.append('log: {"a": 1} ok\nno json here\nerror [1, {"b": 2}] done\n')
    assert got == [{"a": 1}, [1, {"b": 2}]] and documents.skipped == [2]


# --- Complete text --------------------------------------------------------------------------------------------------


def test_split_documents() -> None:
    assert split_documents('{"a": 1}{"b": 2}') == [{"a": 1}, {"b": 2}]
    assert split_documents('{"a": 1}\n{"a": 1}\n') == [{"a": 1}, {"a": 1}]
    assert split_documents("1 2 3") == [1, 2, 3]
    assert split_documents('{"a": 1} {"b": ') == [{"a": 1}]  # an unterminated last document is not returned
    assert split_documents("") == []
