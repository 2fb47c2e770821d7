"""``ToolCallArgumentsStream`` on every backend, and the real corpus of 845 Claude tool calls streamed in LLM-token
pieces: each ends at ``json.loads(arguments)`` and its live value never goes backwards."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .jsonvalues import identical_json
from .messages import not_an_object, not_valid_json
from .strategies import cut_randomly, examples, json_texts, json_values, split_at

CALLS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "llm_tool_calls.jsonl").read_text("utf-8").splitlines()
]


# --- The live value never goes backwards ----------------------------------------------------------------------------


def _is_word_value(value: Any) -> bool:
    """A value that may be an unterminated number or literal, which may change or vanish while it is pending."""
    return value is None or isinstance(value, (bool, int, float))


def goes_backwards(old: Any, new: Any) -> Optional[str]:
    """Why ``new`` is not a continuation of ``old`` (None when it is): keys and elements never disappear, strings only
    grow, containers keep their type; only the last member of the open path may be a pending number or literal that
    changes or disappears."""
    stack: list[tuple[Any, Any, bool, str]] = [(old, new, True, "$")]  # (old, new, on the open path, where)
    while stack:
        before, after, open_path, where = stack.pop()
        if isinstance(before, str):
            if not isinstance(after, str) or not after.startswith(before):
                return f"{where}: {before!r} became {after!r}"
        elif isinstance(before, (dict, list)):
            if type(after) is not type(before):
                return f"{where}: {type(before).__name__} became {after!r}"
            slots = list(before) if isinstance(before, dict) else list(range(len(before)))
            for position, slot in enumerate(slots):
                last = position == len(slots) - 1
                present = slot in after if isinstance(after, dict) else slot < len(after)
                if not present:
                    if open_path and last and _is_word_value(before[slot]):
                        continue  # a pending word that turned out not to be one yet ("1." after "1")
                    return f"{where}: {slot!r} disappeared"
                stack.append((before[slot], after[slot], open_path and last, f"{where}[{slot!r}]"))
        elif not (open_path and _is_word_value(after)) and not identical_json(before, after):
            return f"{where}: {before!r} became {after!r}"
    return None


def test_goes_backwards_helper() -> None:
    assert goes_backwards({"a": "x", "b": [1, 2]}, {"a": "xy", "b": [1, 23], "c": ""}) is None
    assert goes_backwards({"a": "x", "b": [1, 2]}, {"a": "x", "b": [1]}) is None  # "2" became "2." and vanished
    assert goes_backwards({"a": "xy"}, {"a": "x"}) is not None
    assert goes_backwards({"a": "x", "b": 1}, {"b": 1}) is not None
    assert goes_backwards({"a": [1, 2], "b": ""}, {"a": [1], "b": ""}) is not None  # not on the open path
    assert goes_backwards({"a": {}}, {"a": []}) is not None


# --- The real corpus ------------------------------------------------------------------------------------------------


def _token_pieces(text: str, seed: int) -> list[str]:
    return cut_randomly(text, seed, shortest=2, longest=6)


def test_corpus_is_complete() -> None:
    assert len(CALLS) == 845
    assert {call["name"] for call in CALLS} == {"bash", "edit", "read", "write"}


def test_every_real_call_streams_to_its_value(backend: ModuleType) -> None:
    for number, call in enumerate(CALLS):
        expected = json.loads(call["arguments"])
        stream = backend.ToolCallArgumentsStream()
        shown: Any = {}
        for piece in _token_pieces(call["arguments"], number):
            arguments = stream.append(piece)
            if arguments is not shown:
                problem = goes_backwards(shown, arguments)
                assert problem is None, (
                    f"call {number} ({call['name']}) went backwards after {stream.text!r}: {problem}"
                )
                shown = arguments
        assert identical_json(shown, expected), f"call {number}: streamed {shown!r}"
        assert stream.text == call["arguments"]
        result = stream.finish()
        assert result.error is None and identical_json(result.arguments, expected), f"call {number}: {result!r}"


def test_every_real_call_in_one_piece_and_by_replace(backend: ModuleType) -> None:
    """Providers that resend the whole text so far: replace() with growing prefixes reports the deltas."""
    for number, call in enumerate(CALLS[:200]):
        text = call["arguments"]
        expected = json.loads(text)
        stream = backend.ToolCallArgumentsStream()
        assert identical_json(stream.append(text), expected)
        stream = backend.ToolCallArgumentsStream()
        sent = ""
        arguments: Any = {}
        cuts = random.Random(number).sample(range(len(text) + 1), min(8, len(text) + 1))
        for piece in split_at(text, cuts):
            delta, arguments = stream.replace(sent + piece)
            assert delta == piece
            sent += piece
        assert identical_json(arguments, expected) and stream.text == text


# --- ToolCallArgumentsStream on its own -----------------------------------------------------------------------------


def test_append_returns_the_same_object_while_unchanged(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    empty = stream.append("")
    assert empty == {}
    assert stream.append("  ") is empty
    first = stream.append('{"path": "a')
    assert first == {"path": "a"} and first is not empty
    assert stream.append("") is first
    assert stream.append("\\") is first  # an escape held back: nothing new to show
    second = stream.append('n", "x')  # a key being read changes nothing shown
    assert second == {"path": "a\n"} and second is not first
    assert stream.append('y"') is second
    assert stream.append(":  ") is second
    third = stream.append("1")
    assert third == {"path": "a\n", "xy": 1} and third is not second
    # Ending the number may build a new, equal object (so did the reference); after that nothing changes.
    closed = stream.append("}")
    assert closed == third
    assert stream.append(" \n") is closed
    assert stream.finish() == ({"path": "a\n", "xy": 1}, None)


def test_text_after_the_root_is_ignored_while_streaming_and_rejected_at_the_end(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    closed = stream.append('{"a": 1} ')
    assert stream.append('{"z": 2}') is closed
    assert stream.finish() == ({}, not_valid_json('{"a": 1} {"z": 2}'))


def test_the_stream_ends_at_finish(backend: ModuleType) -> None:
    """After ``finish()`` the call has ended: ``append`` and ``replace`` raise ``ValueError`` (their text would not
    be in the result; before, a second ``finish()`` reported "Extra data" for it), and ``finish()`` again returns the
    same result."""
    stream = backend.ToolCallArgumentsStream()
    stream.append('{"a": 1}')
    result = stream.finish()
    assert result == ({"a": 1}, None)
    with pytest.raises(ValueError, match=r"^append\(\) after finish\(\): the stream has ended$"):
        stream.append('{"a": 2}')
    with pytest.raises(ValueError, match=r"^append\(\) after finish\(\)"):
        stream.append("")
    with pytest.raises(ValueError, match=r"^replace\(\) after finish\(\): the stream has ended$"):
        stream.replace('{"a": 1}')
    assert stream.finish() is result and stream.text == '{"a": 1}'


def test_returned_arguments_never_change(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    kept = []
    for piece in ['{"a": [1, {"b": "c', 'd"}, ', '"e"], "f": "g', 'h", "i": tr', "ue}"]:
        arguments = stream.append(piece)
        kept.append((arguments, json.loads(json.dumps(arguments))))
    for arguments, copy in kept:
        assert identical_json(arguments, copy)


@pytest.mark.parametrize(
    "text,kind",
    [("[1, 2", None), ('"abc', None), ("42", "a number"), ("true", "a boolean"), ("[]", "an array")]
    + [('"a": 1', None), ("null", "null")],
)
def test_a_root_that_is_not_an_object_shows_no_arguments(backend: ModuleType, text: str, kind: Optional[str]) -> None:
    """No arguments while it streams; at the end, the error says why: the text does not parse (the json module's
    reason), or what it is instead of an object."""
    stream = backend.ToolCallArgumentsStream()
    for char in text:
        assert stream.append(char) == {}
    result = stream.finish()
    assert result.arguments == {}
    assert result.error == (not_valid_json(text) if kind is None else not_an_object(text, kind))


def test_an_object_after_a_non_object_root_is_ignored(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    assert stream.append('[1] {"a": 1}') == {}
    assert stream.finish() == ({}, not_valid_json('[1] {"a": 1}'))  # Extra data: the object is not the root


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1', not_valid_json('{"a": 1')),
        ('{"a": 1,}', not_valid_json('{"a": 1,}')),
        ('{"a": NaN}', not_valid_json('{"a": NaN}', "NaN is not valid JSON")),
        ('{"a": 1} trailing', not_valid_json('{"a": 1} trailing')),
        ("[1]", not_an_object("[1]", "an array")),
    ],
)
def test_malformed_final_text_is_an_error_that_quotes_it(backend: ModuleType, text: str, expected: str) -> None:
    stream = backend.ToolCallArgumentsStream()
    for piece in split_at(text, [2, 5]):
        stream.append(piece)
    assert stream.finish() == ({}, expected)


def test_blank_final_text_is_empty_with_no_error(backend: ModuleType) -> None:
    assert backend.ToolCallArgumentsStream().finish() == ({}, None)
    stream = backend.ToolCallArgumentsStream()
    stream.append(" \n")
    assert stream.finish() == ({}, None)


def test_repairable_final_text_is_repaired(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    text = '{"command": "printf \'a\\tb\n\'", "path": "C:\\Users\\x"}'
    stream.append(text)
    assert stream.finish() == ({"command": "printf 'a\tb\n'", "path": "C:\\Users\\x"}, None)


def test_replace_that_continues_the_text_reports_the_delta(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    delta, arguments = stream.replace('{"a": "b')
    assert delta == '{"a": "b' and arguments == {"a": "b"}
    delta, arguments = stream.replace('{"a": "bcd"')
    assert delta == 'cd"' and arguments == {"a": "bcd"}
    same = stream.replace('{"a": "bcd"')
    assert same.delta == "" and same.arguments is arguments
    assert stream.text == '{"a": "bcd"'


@pytest.mark.parametrize(
    "first,second",
    [
        ('{"a": "bcd', '{"a": "x'),  # the provider rewrote the text
        ('{"a": [1, 2', '{"b"'),
        ('{"a": 1}', ""),  # cleared
        ("[1, 2", '{"k": true'),  # a non-object root, then an object
        ('{"a": "\\u00', '{"a": "z"}'),  # an escape was pending
    ],
)
def test_replace_that_does_not_continue_starts_over(backend: ModuleType, first: str, second: str) -> None:
    stream = backend.ToolCallArgumentsStream()
    stream.append(first[:3])
    stream.append(first[3:])
    result = stream.replace(second)
    assert result.delta is None
    fresh = backend.ToolCallArgumentsStream()
    assert identical_json(result.arguments, fresh.append(second))
    assert stream.text == second
    # It carries on from the new text as a new stream would.
    assert identical_json(stream.append(" "), fresh.append(" "))
    assert stream.finish() == fresh.finish()


def test_append_and_replace_take_only_str(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    for bad in (b"{}", None, 1, ["{"]):
        with pytest.raises(TypeError, match=f"^delta must be str, not {type(bad).__name__}$"):
            stream.append(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=f"^text must be str, not {type(bad).__name__}$"):
            stream.replace(bad)  # type: ignore[arg-type]
    assert stream.append('{"a": 1}') == {"a": 1}


@examples(150)
@given(json_texts(st.dictionaries(st.text(max_size=8), json_values(max_leaves=8), max_size=5)), st.data())
def test_any_object_streams_to_its_value_and_never_goes_backwards(
    backend: ModuleType, text: str, data: st.DataObject
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=20))
    stream = backend.ToolCallArgumentsStream()
    shown: Any = {}
    for piece in split_at(text, cuts):
        arguments = stream.append(piece)
        problem = goes_backwards(shown, arguments)
        assert problem is None, f"after {stream.text!r}: {problem}"
        shown = arguments
    expected = json.loads(text)
    assert identical_json(shown, expected)
    assert stream.finish() == (expected, None)


class _Text(str):
    """A str subclass, as some SDKs hand out."""


def test_str_subclasses_are_text(backend: ModuleType) -> None:
    stream = backend.ToolCallArgumentsStream()
    assert stream.append(_Text('{"a": "b')) == {"a": "b"}
    replaced = stream.replace(_Text('{"a": "bc"}'))
    assert replaced.delta == 'c"}' and replaced.arguments == {"a": "bc"}
    assert stream.finish() == ({"a": "bc"}, None)
    with pytest.raises(TypeError, match="^delta must be str, not bytes$"):
        stream.append(b'{"a": 1}')  # type: ignore[arg-type]
