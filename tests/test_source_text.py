"""Source text (``source_paths``, ``SourceChange``), the end of the root (``done``, ``unused_text``) and
``in_string``: what a layer needs to pass a value's text through verbatim and hand on the text after it."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .backends import AVAILABLE_BACKENDS, needs_both_backends
from .strategies import examples, json_texts, json_values, pieces_of, random_pieces, run_lockstep, scan_prefix, split_at

TOOL_CALLS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "llm_tool_calls.jsonl").read_text("utf-8").splitlines()
]


def sources(changes: list[Any]) -> dict[tuple[Any, ...], list[str]]:
    """The source text of each path, one entry a value, checking that each value's pieces end with one ``last``."""
    found: dict[tuple[Any, ...], list[str]] = {}
    open_path: Any = None
    for change in changes:
        if change.kind != "source":
            continue
        if open_path is None:
            found.setdefault(change.path, []).append("")
            open_path = change.path
        assert change.path == open_path, (change, open_path)  # one value at a time
        found[change.path][-1] += change.text
        if change.last:
            open_path = None
    return found


def read(backend: ModuleType, pieces: list[Any], **options: Any) -> tuple[Any, list[Any]]:
    parser = backend.StreamingJsonParser(**options)
    changes = [change for piece in pieces for change in parser.append(piece)]
    return parser, changes


@examples(80)
@given(
    st.data(),
    json_values(),
    json_texts(),
    st.sampled_from(["", "\n</tool_call>", " trailing prose", '; {"next": 1}']),
)
def test_a_values_source_is_its_text_verbatim(
    backend: ModuleType, data: Any, name: Any, arguments: str, tail: str
) -> None:
    """However the text is cut, as str or as bytes, the source pieces of the value at a path join to exactly its
    text (whitespace and escapes as written, nothing re-serialised), and the text after the root is unused."""
    head = '{"name": ' + json.dumps(name) + ', "arguments":'
    text = head + arguments + "}" + tail
    pieces = data.draw(pieces_of(text))
    parser, changes = read(
        backend, pieces, changes=False, done_events=True, report_depth=1, source_paths=[("arguments",)]
    )
    assert sources(changes) == {("arguments",): [arguments.strip(" \t\n\r")]}
    assert parser.done and parser.unused_text == tail
    # Each value's last piece comes before its done event.
    last_source = max(index for index, change in enumerate(changes) if change.kind == "source")
    done_at = [index for index, change in enumerate(changes) if change.kind == "done" and change.path == ("arguments",)]
    assert done_at and last_source < done_at[0]


@examples(50)
@given(st.data(), json_texts())
def test_the_root_source_and_every_member_source(backend: ModuleType, data: Any, text: str) -> None:
    pieces = data.draw(pieces_of(text, allow_bytes=False))
    parser, changes = read(backend, pieces, changes=False, source_paths=[()])
    assert sources(changes) == {(): [text.strip(" \t\n\r")]}
    value = json.loads(text)
    if isinstance(value, (dict, list)):  # a root number only ends at the character after it
        assert parser.done


def test_patterns_match_keys_indices_and_any_step(backend: ModuleType) -> None:
    text = '[{"name": "a", "arguments": {"x" : 1}}, {"arguments": "s\\"q", "name": "b"}, {"arguments": NaN}, 7]'
    _, changes = read(backend, list(text), changes=False, source_paths=[("*", "arguments")])
    assert sources(changes) == {
        (0, "arguments"): ['{"x" : 1}'],
        (1, "arguments"): ['"s\\"q"'],
        (2, "arguments"): ["NaN"],
    }
    # An index is not a key: (0,) matches the first element, ("0",) nothing.
    _, changes = read(backend, [text], changes=False, source_paths=[(0,), ("0",)])
    assert sources(changes) == {(0,): ['{"name": "a", "arguments": {"x" : 1}}']}
    # A value inside a value whose source is reported is not reported again.
    _, changes = read(backend, [text], changes=False, source_paths=[(1,), (1, "name")])
    assert list(sources(changes)) == [(1,)]


def test_keys_and_values_in_invalid_positions_have_no_source(backend: ModuleType) -> None:
    # "arguments" as a key is no value; a value where a key belongs is dropped; a repeated key is a new value.
    text = '{"arguments": 1, 5: 6, "x" "arguments": 7, "arguments": [2]}'
    _, changes = read(backend, [text], changes=False, source_paths=[("arguments",)])
    assert sources(changes) == {("arguments",): ["1", "[2]"]}


def test_malformed_values_are_reported_as_written(backend: ModuleType) -> None:
    """Lenient reading never edits the source: a wrong closer, a missing comma, an unterminated string."""
    for captured, rest in [('{"a": [1, 2}', ""), ('{"a" 1 "b": 2}', "}"), ('"open', "")]:
        text = '{"arguments": ' + captured + rest
        _, changes = read(backend, list(text), changes=False, source_paths=[("arguments",)])
        assert sources(changes) == {("arguments",): [captured]}, text


def test_unused_text_gathers_everything_after_the_root(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser()
    parser.append('{"a": 1} <')
    assert parser.done and parser.unused_text == " <"
    assert parser.append("/tool_call>") == [] and parser.unused_text == " </tool_call>"
    number = backend.StreamingJsonParser()
    number.append("12")
    assert not number.done and number.unused_text == ""
    number.append("3, 4")
    assert number.done and number.unused_text == ", 4" and number.snapshot() == 123
    data = backend.StreamingJsonParser()
    data.append('["é"] é'.encode()[:-1])  # bytes: the unused text is decoded, a split character held
    assert data.unused_text == " "
    data.append("é".encode()[-1:])
    assert data.unused_text == " é"


def test_documents_leave_no_unused_text(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments()
    assert documents.append('{"a": 1} {"b": 2} x') == [{"a": 1}, {"b": 2}]
    prose = backend.StreamingJsonParser(prose=True)
    prose.append('Here: {"a": [true]} and more')
    assert prose.done and prose.unused_text == " and more"


@examples(50)
@given(st.data(), json_texts())
def test_in_string_says_where_a_marker_would_be(backend: ModuleType, data: Any, text: str) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    parser = backend.StreamingJsonParser(changes=False)
    for start, piece in zip([0, *cuts], split_at(text, cuts)):
        parser.append(piece)
        end = start + len(piece)
        assert parser.in_string == scan_prefix(text[:end]).in_string, text[:end]


def test_source_paths_are_checked(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser
    for bad, error in [
        ("arguments", TypeError),
        (["arguments"], TypeError),
        ([("a", 1.5)], TypeError),
        ([("a", True)], TypeError),
        ([("a",) * 33], ValueError),
    ]:
        with pytest.raises(error):
            parser(source_paths=bad)
    with pytest.raises(ValueError, match="prose"):
        parser(prose=True, source_paths=[()])
    assert parser(source_paths=[["a", 0]]).append('{"a": [1]}') == [  # a list is a path too
        backend.SetChange((), {}),
        backend.SetChange(("a",), []),
        backend.SourceChange(("a", 0), "1", last=True),
        backend.SetChange(("a", 0), 1),
    ]


def test_source_change_is_a_value(backend: ModuleType) -> None:
    change = backend.SourceChange(("arguments",), '{"a": ')
    assert change.kind == "source" and change.path == ("arguments",) and change.text == '{"a": ' and not change.last
    assert change == backend.SourceChange(("arguments",), '{"a": ') != backend.AppendChange(("arguments",), '{"a": ')
    assert change != backend.SourceChange(("arguments",), '{"a": ', last=True)
    assert hash(change) == hash(backend.SourceChange(("arguments",), '{"a": '))
    assert pickle.loads(pickle.dumps(change)) == change
    assert repr(change) == "SourceChange(path=('arguments',), text='{\"a\": ')"
    assert repr(backend.SourceChange((), "}", True)) == "SourceChange(path=(), text='}', last=True)"
    with pytest.raises(AttributeError):
        change.text = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        backend.SourceChange(["a"], "x")
    with pytest.raises(TypeError):
        type("Sub", (backend.SourceChange,), {})


@pytest.mark.parametrize("size", [1, 5])
def test_real_tool_calls_pass_through_verbatim(backend: ModuleType, size: int) -> None:
    """The 845 real calls, their arguments written as they came, inside a Hermes-style object, cut into pieces."""
    for call in TOOL_CALLS:
        arguments = call["arguments"]
        text = '{"name": ' + json.dumps(call["name"]) + ', "arguments": ' + arguments + "}\n</tool_call>"
        pieces = [text[start : start + size] for start in range(0, len(text), size)]
        parser, changes = read(
            backend, pieces, changes=False, done_events=True, report_depth=1, source_paths=[("arguments",)]
        )
        assert sources(changes) == {("arguments",): [arguments.strip(" \t\n\r")]}
        assert parser.unused_text == "\n</tool_call>"


@needs_both_backends
@examples(200)
@given(random_pieces(), st.sampled_from([[()], [("*",)], [("*", "*"), ("a",)], [(0, "*", 1)]]))
def test_fuzz_backends_agree_on_source_text(pieces: list[Any], patterns: list[Any]) -> None:
    options = {"done_events": True, "source_paths": patterns}
    result = run_lockstep(AVAILABLE_BACKENDS, pieces, settle=True, options=options)
    assert result.problem is None, result.problem


# --- append_source(): the reported value's text as text ------------------------------------------------------------


def read_both_ways(backend: ModuleType, pieces: list[Any], **options: Any) -> list[Any]:
    """Feed ``pieces`` to one parser by ``append_source()`` and to another by ``append()``, checking after each piece
    that the first returned the piece itself exactly where the second returned one source change that neither begins
    nor ends its value, and the same changes otherwise; the first's results, in order."""
    fast, slow = backend.StreamingJsonParser(**options), backend.StreamingJsonParser(**options)
    results: list[Any] = []
    open_before = False  # a value's source was being reported when the piece came
    for piece in pieces:
        result, changes = fast.append_source(piece), slow.append(piece)
        continues = len(changes) == 1 and changes[0].kind == "source" and not changes[0].last and open_before
        if continues:
            assert type(result) is str and result == changes[0].text, (piece, result, changes)
            assert result is piece or not isinstance(piece, str)  # the piece itself, not a copy
        else:
            assert type(result) is list and result == changes, (piece, result, changes)
        assert (fast.done, fast.unused_text, fast.in_string) == (slow.done, slow.unused_text, slow.in_string)
        sources_seen = [change for change in changes if change.kind == "source"]
        if sources_seen:
            open_before = not sources_seen[-1].last
        results.append(result)
    return results


@examples(80)
@given(st.data(), json_values(), json_texts(), st.sampled_from(["", "\n</tool_call>", '; {"next": 1}']))
def test_append_source_hands_over_a_values_text_where_nothing_else_changes(
    backend: ModuleType, data: Any, name: Any, arguments: str, tail: str
) -> None:
    text = '{"name": ' + json.dumps(name) + ', "arguments":' + arguments + "}" + tail
    pieces = data.draw(pieces_of(text))
    options = {"changes": data.draw(st.booleans(), "changes"), "done_events": True, "report_depth": 1}
    results = read_both_ways(backend, pieces, source_paths=[("arguments",)], **options)
    joined = "".join(
        result if type(result) is str else "".join(c.text for c in result if c.kind == "source") for result in results
    )
    assert joined == arguments.strip(" \t\n\r")


def test_append_source_on_real_calls_in_token_pieces(backend: ModuleType) -> None:
    """The real calls in a Hermes-style object, in 1 to 7 character pieces: exactly the pieces that lie inside the
    arguments, after the one that begins them and before the one that ends them, come as themselves."""
    for number, call in enumerate(TOOL_CALLS[::3]):
        arguments = call["arguments"].strip(" \t\n\r")
        head = '{"name": ' + json.dumps(call["name"]) + ', "arguments": '
        text = head + arguments + "}"
        first, last = len(head), len(head) + len(arguments) - 1  # the arguments' first and last characters
        pieces: list[str] = []
        inside: list[bool] = []
        start = 0
        while start < len(text):
            end = min(len(text), start + 1 + (number + len(pieces)) % 7)
            pieces.append(text[start:end])
            inside.append(first < start and end - 1 < last)
            start = end
        results = read_both_ways(backend, pieces, done_events=True, report_depth=1, source_paths=[("arguments",)])
        assert [type(result) is str for result in results] == inside, call["name"]


def test_append_source_with_bytes_and_without_source_paths(backend: ModuleType) -> None:
    parser = backend.StreamingJsonParser(changes=False, source_paths=[()])
    assert parser.append_source(b'{"a": "\xc3') == [backend.SourceChange((), '{"a": "')]
    assert parser.append_source(b"\xa9t") == "ét"  # the piece as decoded, the incomplete character completed
    assert parser.append_source(b"") == []
    assert parser.append_source(b'"}') == [backend.SourceChange((), '"}', True)] and parser.done
    plain = backend.StreamingJsonParser()
    assert plain.append_source('{"a": 1') == [backend.SetChange((), {})]
    assert plain.append_source("}") == [backend.SetChange(("a",), 1)] and plain.done
