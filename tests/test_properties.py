"""Properties of valid JSON documents cut anywhere (hypothesis), on every backend.

For any document ``json.dumps`` writes (random indent, separators, ``ensure_ascii``), cut into any pieces (empty ones
included), as ``str`` or as UTF-8 ``bytes`` cut at any byte offset:

- the final snapshot is exactly ``json.loads(text)`` (same types, same key order);
- no snapshot or change value returned earlier has changed by the end;
- a writer that applies the changes to its own copy ends with the final value, and after every piece holds the
  snapshot minus the number or literal still pending (those are reported when they end); for documents nested more
  than 32 deep the deep containers come as one ``set`` and the final copy still matches;
- every snapshot is fresh: it equals the snapshot of a new parser given the same text in one piece;
- a snapshot kept never changes whichever others were dropped (the compiled core grows the str of a dropped snapshot
  in place for the next one: what nobody holds may be reused, what somebody holds never changes).
"""

from __future__ import annotations

import codecs
import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import MISSING

from .jsonvalues import deep_copy, identical_json, text_copy
from .strategies import (
    REPORT_DEPTH,
    apply_changes,
    deep_json_values,
    examples,
    json_texts,
    json_values,
    pieces_of,
    scan_prefix,
    value_depth,
    without_pending_word,
)


def _one_piece_snapshot(backend: ModuleType, text: str) -> Any:
    parser = backend.StreamingJsonParser()
    parser.append(text)
    return parser.snapshot()


def _stream(backend: ModuleType, text: str, pieces: list[Any], check_every_piece: bool) -> None:
    """Feed ``pieces`` (which join to ``text``, as str or UTF-8 bytes) and check every property above."""
    expected = json.loads(text)
    parser = backend.StreamingJsonParser()
    applied: Any = MISSING
    returned: list[tuple[Any, Any]] = []  # (object returned, deep copy taken when returned)
    decoder = codecs.getincrementaldecoder("utf-8")()
    prefix = ""
    for number, piece in enumerate(pieces):
        changes = parser.append(piece)
        for change in changes:
            value = change.value if change.kind == "set" else change.text
            returned.append((value, deep_copy(value)))
            applied = apply_changes(applied, change)
        snapshot = parser.snapshot()
        returned.append((snapshot, deep_copy(snapshot)))
        prefix += decoder.decode(piece) if isinstance(piece, bytes) else piece
        if not check_every_piece:
            continue
        where = f"after piece {number} ({piece!r}), text so far {prefix!r}"
        fresh = _one_piece_snapshot(backend, prefix)
        assert identical_json(snapshot, fresh) if fresh is not MISSING else snapshot is MISSING, (
            f"{where}: stale snapshot {snapshot!r}, the text so far reads {fresh!r}"
        )
        writer = without_pending_word(snapshot, scan_prefix(prefix))
        assert (applied is MISSING) if writer is MISSING else identical_json(applied, writer), (
            f"{where}: applied changes give {applied!r}, snapshot without its pending word is {writer!r}"
        )
    final = parser.snapshot()
    assert identical_json(final, expected), f"final snapshot {final!r}, json.loads gives {expected!r}"
    if scan_prefix(prefix).in_word:
        # A root number or literal at the very end is pending: it is reported once whitespace ends it.
        assert applied is MISSING, applied
        for change in parser.append(b" " if isinstance(pieces[0], bytes) else " "):
            applied = apply_changes(applied, change)
        assert identical_json(parser.snapshot(), expected)
    assert identical_json(applied, expected), f"applied changes give {applied!r}, json.loads gives {expected!r}"
    for value, copy in returned:
        assert (value is MISSING and copy is MISSING) or identical_json(value, copy), (
            f"a returned value changed: {copy!r} became {value!r}"
        )


@st.composite
def _documents_and_pieces(draw: st.DrawFn, values: Any = None) -> tuple[str, list[Any]]:
    text = draw(json_texts(values))
    # A lone surrogate cannot be UTF-8: such a document is only fed as str.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text, draw(pieces_of(text, allow_bytes=False))
    return text, draw(pieces_of(text))


@examples(300)
@given(_documents_and_pieces())
def test_any_document_cut_anywhere(backend: ModuleType, document: tuple[str, list[Any]]) -> None:
    text, pieces = document
    _stream(backend, text, pieces, check_every_piece=value_depth(json.loads(text)) <= REPORT_DEPTH)


@examples(200)
@given(_documents_and_pieces(), st.data())
def test_kept_snapshots_never_change_whichever_were_dropped(
    backend: ModuleType, document: tuple[str, list[Any]], data: st.DataObject
) -> None:
    text, pieces = document
    parser = backend.StreamingJsonParser(changes=data.draw(st.booleans(), "changes"))
    kept: list[tuple[Any, Any]] = []
    prefix = ""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for piece in pieces:
        parser.append(piece)
        prefix += decoder.decode(piece) if isinstance(piece, bytes) else piece
        snapshot = parser.snapshot()
        fresh = _one_piece_snapshot(backend, prefix)
        assert identical_json(snapshot, fresh) if fresh is not MISSING else snapshot is MISSING, (prefix, snapshot)
        # Keep the snapshot, a part of it, or nothing: dropped ones are the ones the core may grow for the next.
        keep = data.draw(st.sampled_from(["nothing", "whole", "string"]), "keep")
        if keep == "whole":
            kept.append((snapshot, deep_copy(snapshot)))
        elif keep == "string":
            kept.extend((value, text_copy(value)) for value in _strings_in(snapshot))
        del snapshot
    assert identical_json(parser.snapshot(fresh=True), json.loads(text))
    for value, copy in kept:
        assert identical_json(value, copy), f"a kept value changed: {copy!r} became {value!r}"


def _strings_in(value: Any) -> list[str]:
    """The strs in a snapshot, the open string's included (the last one in document order)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


# Lone surrogates, raw and escaped, in str input: json.loads keeps them as lone code points, and so must we.
_SURROGATE_STRINGS = st.text(st.one_of(st.characters(), st.sampled_from("\ud800\udbff\udc00\udfff\ud83d\ude00")))


@examples(100)
@given(_documents_and_pieces(st.recursive(_SURROGATE_STRINGS, lambda c: st.lists(c, max_size=4), max_leaves=6)))
def test_lone_surrogates_in_str_input(backend: ModuleType, document: tuple[str, list[Any]]) -> None:
    text, pieces = document
    if any(isinstance(piece, bytes) for piece in pieces):
        pieces = [text[: len(text) // 2], text[len(text) // 2 :]]
    _stream(backend, text, pieces, check_every_piece=True)


@examples(40)
@given(_documents_and_pieces(deep_json_values()))
def test_documents_deeper_than_the_report_limit(backend: ModuleType, document: tuple[str, list[Any]]) -> None:
    """Containers below depth 32 come as one ``set`` when they close: the applied copy still ends at the value."""
    text, pieces = document
    assert value_depth(json.loads(text)) > REPORT_DEPTH
    _stream(backend, text, pieces, check_every_piece=False)


@examples(100)
@given(json_texts(json_values(max_leaves=10)))
def test_one_character_a_piece(backend: ModuleType, text: str) -> None:
    _stream(backend, text, list(text), check_every_piece=True)


def test_deep_container_is_one_set_when_it_closes(backend: ModuleType) -> None:
    text = "[" * (REPORT_DEPTH + 1) + '1, "x"' + "]" * (REPORT_DEPTH + 1)
    parser = backend.StreamingJsonParser()
    changes = [change for char in text for change in parser.append(char)]
    sets = [change for change in changes if change.kind == "set"]
    # One empty container at each reported level, then the deepest container whole when it closes.
    assert [len(change.path) for change in sets] == list(range(REPORT_DEPTH + 1)) + [REPORT_DEPTH]
    assert identical_json(sets[-1].value, [1, "x"])
    assert all(len(change.path) <= REPORT_DEPTH for change in changes)


def test_scan_prefix_helper() -> None:
    state = scan_prefix('{"a": [1, "x\\"", {"b": tr')
    assert state.in_word and not state.in_string and state.started == [1, 3, 0]
    assert without_pending_word({"a": [1, 'x"', {"b": True}]}, state) == {"a": [1, 'x"', {}]}
    assert without_pending_word({"a": [1, 'x"', {}]}, scan_prefix('{"a": [1, "x\\"", {"b": -')) == {"a": [1, 'x"', {}]}
    assert without_pending_word(12, scan_prefix("12")) is MISSING


# Surrogate escapes at every cut (the conformance vectors never cut after a high-surrogate escape): a high surrogate
# is held until the next character shows whether a low-surrogate escape follows; the pair joins, anything else leaves
# it a lone code point, as json.loads reads it. Where json.loads rejects the text, the lenient reading is given.
_SURROGATE_CASES = {
    '"\\ud83d\\ude00"': "\U0001f600",
    '"\\ud83d\ude00"': "\ud83d\ude00",  # an escaped high surrogate, then a raw low one: two code points
    '"\ud83d\\ude00"': "\ud83d\ude00",
    '"\\ud83d\\ud83d\\ude00"': "\ud83d\U0001f600",
    '"\\ud83d\\n"': "\ud83d\n",
    '"\\ude00\\ud83d"': "\ude00\ud83d",
    '"\\ud83d\\\\"': "\ud83d\\",
    '"\\ud83d\\u00"': "\ud83d\\u00",  # an incomplete escape stays literal text
    '"\\ud83d\\u"': "\ud83d\\u",
    '"\\ud83d"': "\ud83d",
    '"\\uD83D\\uDE00"': "\U0001f600",
}


@pytest.mark.parametrize("text", list(_SURROGATE_CASES))
def test_surrogate_escapes_cut_anywhere(backend: ModuleType, text: str) -> None:
    expected = _SURROGATE_CASES[text]
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            parser = backend.StreamingJsonParser()
            applied: Any = MISSING
            for piece in (text[:first], text[first:second], text[second:]):
                for change in parser.append(piece):
                    applied = apply_changes(applied, change)
                assert applied is MISSING or parser.snapshot() == applied
            assert parser.snapshot() == expected and applied == expected, (first, second)
