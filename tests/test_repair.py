"""``repair_json``, ``parse_json_with_repair`` and ``parse_tool_call_arguments`` on their own (the spec README).

The one property tying them to the streaming parser: inside a string, the parser reads malformed text exactly as a
strict parse of the repaired text reads it (raw control characters kept, invalid escapes literal).
"""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import parse_json_with_repair, parse_tool_call_arguments, repair_json

from .messages import json_reason, not_an_object, not_valid_json
from .strategies import examples, json_texts

# --- repair_json ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw,escaped",
    [("\b", "\\b"), ("\f", "\\f"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")],
    ids=["b", "f", "n", "r", "t"],
)
def test_control_characters_with_a_name_are_escaped_by_name(raw: str, escaped: str) -> None:
    assert repair_json(f'"a{raw}b"') == f'"a{escaped}b"'


@pytest.mark.parametrize("code", [c for c in range(0x20) if chr(c) not in "\b\f\n\r\t"])
def test_other_control_characters_are_escaped_as_u00xx(code: int) -> None:
    repaired = repair_json(f'"<{chr(code)}>"')
    assert re.fullmatch(r'"<\\u00[0-9a-fA-F]{2}>"', repaired), repaired
    assert json.loads(repaired) == f"<{chr(code)}>"


def test_characters_that_need_no_escape_are_left_alone() -> None:
    text = '"\x7f\x80\u2028\u2029\ufeff\U0001f600 \u00e9"'
    assert repair_json(text) == text


@pytest.mark.parametrize(
    "text,repaired",
    [
        ('"a\\d"', '"a\\\\d"'),
        ('"\\x41"', '"\\\\x41"'),
        ('"it\\\'s"', '"it\\\\\'s"'),
        ('"\\u12"', '"\\\\u12"'),
        ('"\\u12G4"', '"\\\\u12G4"'),
        ('"\\U0041"', '"\\\\U0041"'),
        ('"\\\U0001f600"', '"\\\\\U0001f600"'),
        ('"\\\n"', '"\\\\\\n"'),  # a backslash before a raw newline: both repaired
    ],
)
def test_a_backslash_that_starts_no_valid_escape_is_doubled(text: str, repaired: str) -> None:
    assert repair_json(text) == repaired
    json.loads(repaired)


@pytest.mark.parametrize("escape", ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\uD83D"])
def test_valid_escapes_are_kept(escape: str) -> None:
    text = f'"a{escape}b"'
    assert repair_json(text) == text


@pytest.mark.parametrize("text", ['"abc\\', '{"a": "b\\', "\\"], ids=["string", "member", "alone"])
def test_a_lone_backslash_at_the_very_end_becomes_two(text: str) -> None:
    if text == "\\":  # outside any string: unchanged
        assert repair_json(text) == text
    else:
        assert repair_json(text) == text + "\\"


@pytest.mark.parametrize(
    "text",
    ["", "{a: 1}", "[1, 2,]", "{\x01\n\t}", "\\d \\u12 \\", "NaN", "[Infinity, -Infinity]", "\x00", "{'a': 'b'}"],
)
def test_text_outside_strings_is_unchanged(text: str) -> None:
    assert repair_json(text) == text


def test_only_strings_are_repaired() -> None:
    assert repair_json('{\x01"a\x01": [\x01 "b\\d" \\d]}') == '{\x01"a\\u0001": [\x01 "b\\\\d" \\d]}'


@examples(300)
@given(st.text())
def test_repair_is_idempotent(text: str) -> None:
    once = repair_json(text)
    assert repair_json(once) == once


@examples(200)
@given(st.text(st.characters(exclude_characters='"')))
def test_text_without_strings_is_unchanged(text: str) -> None:
    assert repair_json(text) == text


@examples(200)
@given(json_texts())
def test_valid_json_is_unchanged(text: str) -> None:
    assert repair_json(text) == text


_STRING_CONTENT = st.lists(
    st.one_of(
        st.characters(exclude_characters='"'),
        st.sampled_from(
            ["\\", "\\u", "\\u00", "\\ud83d", "\\ude00", "\\n", "\\x", "\x00", "\n", "\x1f", "\\\\", "\ud800", "\udfff"]
        ),
    ),
).map("".join)


@examples(300)
@given(_STRING_CONTENT)
def test_the_parser_reads_a_malformed_string_as_its_repair_parses(backend: ModuleType, content: str) -> None:
    # A space before the closing quote: a backslash at the end of the content cannot escape it.
    text = '"' + content + ' "'
    expected = json.loads(repair_json(text))
    parser = backend.StreamingJsonParser()
    parser.append(text)
    assert parser.snapshot() == expected
    parser = backend.StreamingJsonParser()
    for char in text:
        parser.append(char)
    assert parser.snapshot() == expected


# --- parse_json_with_repair ----------------------------------------------------------------------------------------


def test_valid_json_parses_strictly() -> None:
    assert parse_json_with_repair('{"a": [1, 2.5, "x", true, null]}') == {"a": [1, 2.5, "x", True, None]}


def test_repair_is_used_where_the_strict_parse_fails() -> None:
    assert parse_json_with_repair('{"path": "C:\\dir\\sub", "text": "a\nb\tc"}') == {
        "path": "C:\\dir\\sub",
        "text": "a\nb\tc",
    }


@pytest.mark.parametrize(
    "text,message",
    [
        ("NaN", "NaN is not valid JSON"),
        ("[Infinity]", "Infinity is not valid JSON"),
        ('{"a": -Infinity}', "-Infinity is not valid JSON"),
        # The repaired text (the newline escaped) fails on NaN; the error is the original text's: the raw newline,
        # in the json module's words (PyPy's differ from CPython's).
        ('{"a": "\n", "b": NaN}', None),
    ],
)
def test_nan_and_infinity_are_rejected(text: str, message: Optional[str]) -> None:
    with pytest.raises(ValueError) as raised:
        parse_json_with_repair(text)
    assert str(raised.value) == (message or json_reason(text))


@pytest.mark.parametrize("text", ["{", "[1,]", "{a: 1}", '{"a": 1} x', "", "'s'", '"a\nb" 1'])
def test_text_that_no_repair_fixes_raises_the_first_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        parse_json_with_repair(text)
    # The strict parse of the original text, with the json module's decoder as the library uses it (PyPy's
    # json.loads has a faster decoder of its own that words its errors differently).
    with pytest.raises(json.JSONDecodeError) as original:
        json.JSONDecoder().decode(text)
    assert str(raised.value) == str(original.value)


def test_integers_beyond_the_digit_limit_read_as_floats() -> None:
    assert parse_json_with_repair("[" + "9" * 5000 + "]") == [float("9" * 5000)]


# --- parse_tool_call_arguments -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "\n\t \r\n"])
def test_blank_arguments_are_empty_with_no_error(text: str) -> None:
    assert parse_tool_call_arguments(text) == ({}, None)


def test_an_object_is_the_arguments() -> None:
    assert parse_tool_call_arguments(' {"command": "ls\n"} ') == ({"command": "ls\n"}, None)


@pytest.mark.parametrize(
    "text,problem",
    [
        ("[1, 2]", "an array"),
        ('"ls"', "a string"),
        ("42", "a number"),
        ("-1.5e3", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ],
)
def test_a_value_that_is_not_an_object_is_an_error(text: str, problem: str) -> None:
    assert parse_tool_call_arguments(text) == ({}, not_an_object(text, problem))


@pytest.mark.parametrize(
    "text,reason",
    [
        ('{"a": 1', None),
        ('{"a": NaN}', "NaN is not valid JSON"),
        ("{'a': 1}", None),
        ('{"a": 1}}', None),
        ("[" * 100_000 + "]" * 100_000, None),  # the decoder's RecursionError
        ('{"a": Infinity}', "Infinity is not valid JSON"),
        ("\x00", None),
    ],
    ids=["unterminated", "nan", "single-quotes", "extra-closer", "deep", "infinity", "nul"],
)
def test_malformed_arguments_are_an_error_naming_the_problem(text: str, reason: Optional[str]) -> None:
    """The error gives the json module's reason (or names the constant JSON lacks), then the text."""
    assert parse_tool_call_arguments(text) == ({}, not_valid_json(text, reason))


@pytest.mark.parametrize("text", ["\u00a0", "\ufeff", "\x1c"])
def test_only_json_whitespace_is_blank(text: str) -> None:
    assert parse_tool_call_arguments(text) == ({}, not_valid_json(text))
