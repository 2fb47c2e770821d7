"""A snapshot somebody keeps never changes; what nobody holds any more may be reused (on every backend).

The compiled core shows the open string in a str made with room to grow, and once the snapshot that showed it is
dropped, grows that very str in place for a later snapshot (``_core.pyx``, ``streaming_json_text_with_room``). These
tests keep some snapshots, or only their strings, drop the others, and check that whatever was kept reads as it did
when it was returned, and that every snapshot, reused or not, reads as a new parser given the same text does: its
text, its hash, its UTF-8 encoding. A str the user interned or had encoded (CPython caches the UTF-8 of a str) is
never grown. The pure backend passes them trivially: it makes every snapshot afresh.
"""

from __future__ import annotations

import ctypes
import json
import sys
from types import ModuleType
from typing import Any

import pytest

from .backends import CPYTHON
from .jsonvalues import deep_copy, identical_json, text_copy

# A string that changes class as it grows: ASCII, then Latin-1, then the BMP, then astral characters.
TEXT = "plain ascii " * 30 + "café " * 30 + "中文 " * 30 + "😀 " * 30


def one_piece_snapshot(backend: ModuleType, text: str) -> Any:
    parser = backend.StreamingJsonParser()
    parser.append(text)
    return parser.snapshot()


def open_string(snapshot: Any) -> str:
    """The open string of ``{"items": [{"text": ...}]}``."""
    text = snapshot["items"][-1]["text"]
    assert type(text) is str
    return text


@pytest.mark.parametrize("keep_every", [1, 2, 3, 7, 0])
def test_kept_snapshots_read_as_they_did_whichever_were_dropped(backend: ModuleType, keep_every: int) -> None:
    document = '{"items": [{"id": 1, "text": ' + json.dumps(TEXT, ensure_ascii=False)
    parser = backend.StreamingJsonParser()
    kept: list[tuple[Any, str]] = []
    kept_strings: list[tuple[str, str]] = []
    for count, char in enumerate(document, 1):
        parser.append(char)
        snapshot = parser.snapshot()
        if '"text": "' not in document[:count]:
            continue
        text = open_string(snapshot)
        assert text == open_string(one_piece_snapshot(backend, document[:count]))
        assert hash(text) == hash(text_copy(text))  # a grown str forgets the hash taken before it grew
        if keep_every and count % keep_every == 0:
            kept.append((snapshot, text_copy(text)))
        elif keep_every and count % keep_every == 1:
            kept_strings.append((text, text_copy(text)))  # the str alone, its snapshot dropped
        del snapshot, text
    for snapshot, text in kept:
        assert open_string(snapshot) == text
    for text, copy in kept_strings:
        assert text == copy


def test_a_string_interned_or_encoded_by_the_user_is_never_grown(
    backend: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An interned str is a key of the interpreter's table of interned strings (a reference CPython 3.11 does not
    # count): grown, it would be lost from that table's reach, which CPython reports when it frees the str.
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    document = '["' + TEXT + '"]'
    parser = backend.StreamingJsonParser()
    interned: list[str] = []
    for count, char in enumerate(document, 1):
        parser.append(char)
        snapshot = parser.snapshot()
        if count < 3:
            continue
        text = snapshot[0] if snapshot else ""
        assert text == json.loads(document[: min(count, len(document) - 2)] + '"]')[0]
        # The UTF-8 encoding (CPython caches it once taken, and encode() reads the cache) and the text agree.
        assert text.encode("utf-8", "surrogatepass") == text_copy(text).encode("utf-8", "surrogatepass")
        if count % 5 == 0:
            interned.append(text_copy(sys.intern(text)))  # only the table of interned strings holds it now
        if count % 5 == 1 and CPYTHON:
            ctypes.pythonapi.PyUnicode_AsUTF8.restype = ctypes.c_char_p
            ctypes.pythonapi.PyUnicode_AsUTF8(ctypes.py_object(text))  # caches its UTF-8 in the str
        del snapshot, text
    del parser
    assert not unraisable, unraisable
    assert all(sys.intern(text_copy(text)) == text for text in interned)


def test_a_snapshot_the_user_changed_and_dropped_changes_nothing_shown_later(backend: ModuleType) -> None:
    document = '{"a": [1, 2], "b": "' + TEXT
    parser = backend.StreamingJsonParser()
    for count, char in enumerate(document, 1):
        parser.append(char)
        snapshot = parser.snapshot()
        if count > len('{"a": [1, 2], "b": "'):
            assert identical_json(snapshot, one_piece_snapshot(backend, document[:count]))
            # The copy of the open object is the user's own now (its completed values are shared, not copied).
            snapshot["b"] = "changed by the user"
            snapshot["c"] = None
        del snapshot


def test_strings_of_several_values_each_grow_from_their_own_text(backend: ModuleType) -> None:
    values = [TEXT[:200], "", TEXT[200:260], "x" * 100, TEXT[-50:]]
    document = json.dumps({"values": values}, ensure_ascii=False)
    parser = backend.StreamingJsonParser(changes=False)
    for count in range(1, len(document) + 1):
        parser.append(document[count - 1])
        assert identical_json(parser.snapshot(), one_piece_snapshot(backend, document[:count]))
    assert parser.snapshot() == {"values": values}


def test_a_list_of_changes_kept_is_never_emptied(backend: ModuleType) -> None:
    # The compiled core empties and returns again the list the last append returned, where nobody holds it.
    parser = backend.StreamingJsonParser()
    kept = parser.append('{"a": "x')
    first = [(change.kind, change.path) for change in kept]
    for piece in ("y", 'z"', ', "b": 1', ', "c": [true', "]}"):
        changes = parser.append(piece)
        assert changes is not kept
        del changes  # dropped: this one may come back, emptied, from the next append
    assert [(change.kind, change.path) for change in kept] == first == [("set", ()), ("set", ("a",))]
    assert [change.kind for change in parser.append(" ")] == []


# Changes a user may make to a snapshot's copies of the open path before dropping it; each must keep the parser from
# showing that copy again (it no longer reads as the text does).
COPY_CHANGES = {
    "a member replaced": lambda snapshot: snapshot.__setitem__("a", []),
    "a member added": lambda snapshot: snapshot["a"][1].__setitem__("c", 1),
    "an item replaced": lambda snapshot: snapshot["a"].__setitem__(0, 2),
    "an item added": lambda snapshot: snapshot["a"].append(5),
    "the open string replaced": lambda snapshot: snapshot["a"][1]["b"].__setitem__(-1, "other"),
    "the open object replaced": lambda snapshot: snapshot["a"].__setitem__(-1, {"b": [True, "x"]}),
    "an item before it replaced": lambda snapshot: snapshot["a"][1]["b"].__setitem__(0, False),
    "the items reversed": lambda snapshot: snapshot["a"][1]["b"].reverse(),
    "a member removed": lambda snapshot: snapshot["a"][1].pop("b"),
    "emptied": lambda snapshot: snapshot.clear(),
}


@pytest.mark.parametrize("change", list(COPY_CHANGES))
def test_copies_the_user_changed_and_dropped_are_never_shown_again(backend: ModuleType, change: str) -> None:
    document = '{"a": [1, {"b": [true, "' + TEXT
    start = len('{"a": [1, {"b": [true, "')
    parser = backend.StreamingJsonParser(changes=False)
    parser.append(document[:start])
    for count in range(start + 1, len(document) + 1):
        parser.append(document[count - 1])
        snapshot = parser.snapshot()
        assert identical_json(snapshot, one_piece_snapshot(backend, document[:count])), count
        COPY_CHANGES[change](snapshot)
        del snapshot


def test_a_copy_the_user_keeps_inside_a_dropped_snapshot_never_changes(backend: ModuleType) -> None:
    document = '{"a": [1, {"b": [true, "' + TEXT
    start = len('{"a": [1, {"b": [true, "')
    parser = backend.StreamingJsonParser(changes=False)
    parser.append(document[:start])
    kept: list[tuple[Any, Any]] = []
    for count in range(start + 1, len(document) + 1):
        parser.append(document[count - 1])
        snapshot = parser.snapshot()
        assert identical_json(snapshot, one_piece_snapshot(backend, document[:count])), count
        part = [snapshot["a"], snapshot["a"][1], snapshot["a"][1]["b"]][count % 3]
        if count % 4 == 0:
            kept.append((part, deep_copy(part)))  # a part kept, the snapshot around it dropped
        del snapshot, part
    for part, copy in kept:
        assert identical_json(part, copy)


@pytest.mark.parametrize("size", range(1, 13))
def test_snapshots_read_fresh_whatever_the_text_between_two_of_them(backend: ModuleType, size: int) -> None:
    # Between two snapshots, strings end and others begin, in the same object or array, or deeper, or shallower.
    document = json.dumps(
        {"a": "xxxx", "b": "yyyy", "c": ["z" * 9, "w" * 5, {"d": "vvvvvv", "e": ["uuuu", "t" * 20]}], "f": "s" * 30},
        ensure_ascii=False,
    )
    parser = backend.StreamingJsonParser(changes=False)
    for end in range(size, len(document) + size, size):
        parser.append(document[end - size : end])
        snapshot = parser.snapshot()
        assert identical_json(snapshot, one_piece_snapshot(backend, document[:end])), document[:end]
        del snapshot


# Pending words (shown before they end, then placed or dropped), repeated keys, containers closing and opening.
WORDS_DOCUMENT = (
    '{"n": [1, 22, 333, -4.5e+6, true, fals, nul, truthy, 7], "a": 1, "a": 123456, "b": tru, "c": [[1, 2], [3, '
    '[4, 5.25]], {"d": -0, "e": [null, 8e-3]}], "f": "text", "f": 99, "g": [1e, 2E+], "h": {"i": 10, "i": 11}}'
)


@pytest.mark.parametrize("size", range(1, 10))
@pytest.mark.parametrize("stable", [False, True])
def test_snapshots_read_fresh_as_words_are_shown_placed_and_dropped(
    backend: ModuleType, size: int, stable: bool
) -> None:
    parser = backend.StreamingJsonParser(changes=False, stable=stable)
    for end in range(size, len(WORDS_DOCUMENT) + size, size):
        parser.append(WORDS_DOCUMENT[end - size : end])
        snapshot = parser.snapshot()
        fresh = backend.StreamingJsonParser(stable=stable)
        if stable:  # a stable parser shows what it showed before: the same pieces, not the text in one
            for start in range(0, min(end, len(WORDS_DOCUMENT)), size):
                fresh.append(WORDS_DOCUMENT[start : min(start + size, end)])
                fresh.snapshot()
        else:
            fresh.append(WORDS_DOCUMENT[:end])
        assert identical_json(snapshot, fresh.snapshot()), WORDS_DOCUMENT[:end]
        del snapshot


@pytest.mark.parametrize(
    "pieces",
    [
        # A snapshot inside an array, one after it (a number placed), then an array opened in its place, empty.
        ['[["x', '"], 1, ', "["],
        ['[["x", ["y', '"]], 1, ', '["', "z"],
        ['{"a": [{"b": "x', '"}], "n": 1, ', '"c": [', "1"],
        ["[[1, 2", "], 3, ", "[", "4"],
        ['[{"a": "x', '"}, 1, ', "{", '"a": "y'],
    ],
)
def test_a_container_closed_and_another_opened_in_its_place(backend: ModuleType, pieces: list[str]) -> None:
    # Then a few more characters, so that each kept snapshot is updated again.
    parser = backend.StreamingJsonParser(changes=False)
    text = ""
    for piece in [*pieces, "w", "v", "u"]:
        parser.append(piece)
        text += piece
        snapshot = parser.snapshot()
        assert identical_json(snapshot, one_piece_snapshot(backend, text)), text
        del snapshot
