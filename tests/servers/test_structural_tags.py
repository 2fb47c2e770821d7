"""Our structural tags through xgrammar (the grammar engine vLLM and SGLang hand them to): for every format of the
registry, the tag compiles; a grammar compiled from it accepts the real calls written as the format writes them
(``required``: the calls alone; ``auto``: with the prose around them) and rejects a call that breaks it (an argument
of the wrong type for a strict tool, a tool the request does not offer, a call cut off)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
import xgrammar
from xgrammar.testing import _is_grammar_accept_string

from streaming_json.model_output import FORMATS
from streaming_json.model_output._structural_tags import structural_tag
from tests.model_outputs import (
    ALL_FORMAT_NAMES,
    PROSE_AFTER,
    PROSE_BEFORE,
    REAL_CALLS,
    tools_for,
    typed_alike,
    writable,
    write_output,
)

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


def specs(tools: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(tool["function"]["name"], tool["function"]["parameters"]) for tool in tools]


@cache
def grammar(format_name: str, tools_json: str, choice: str) -> Any:
    tag = structural_tag(FORMATS[format_name], [tuple(spec) for spec in json.loads(tools_json)], choice)
    return xgrammar.Grammar.from_structural_tag(json.dumps(tag))


def accepts(format_name: str, tools: list[tuple[str, Any]], text: str, choice: str = "required") -> bool:
    return _is_grammar_accept_string(grammar(format_name, json.dumps(tools), choice), text)


def groups(format_name: str) -> list[list[tuple[str, str]]]:
    """The real calls (object arguments, writable in the format) one to three an output, typed alike."""
    calls = [call for call in REAL_CALLS[::9] if writable(format_name, call[1])]
    found, position = [], 0
    while position < len(calls):
        size = 1 if FORMATS[format_name].channels is not None else 1 + position % 3
        found.append(typed_alike(calls[position : position + size]))
        position += size
    return [group for group in found if group]


@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_every_format_has_a_tag_that_compiles(format_name: str) -> None:
    for choice in ("required", "forced", "auto"):
        tag = structural_tag(
            FORMATS[format_name],
            [("get_weather", WEATHER), ("get_time", True)][: 1 if choice == "forced" else 2],
            choice,
        )
        xgrammar.Grammar.from_structural_tag(json.dumps(tag))


@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_the_tag_accepts_the_real_calls_as_the_format_writes_them(format_name: str) -> None:
    for number, group in enumerate(groups(format_name)):
        tools = specs(tools_for(group))
        text, _ = write_output(format_name, group)
        assert accepts(format_name, tools, text), text
        if number % 5 == 0:
            assert accepts(format_name, [(name, True) for name, _ in tools], text), text
        before = "Let me look. " if PROSE_BEFORE[format_name] else ""
        after = " Done." if PROSE_AFTER[format_name] else ""
        if before or after:
            text, _ = write_output(format_name, group, before=before, after=after)
            assert accepts(format_name, tools, text, "auto"), text


@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_the_tag_rejects_a_malformed_call(format_name: str) -> None:
    tools = [("get_weather", WEATHER)]
    good, _ = write_output(format_name, [("get_weather", '{"city": "Paris", "days": 3}')])
    assert accepts(format_name, tools, good)
    wrong_type, _ = write_output(format_name, [("get_weather", '{"city": "Paris", "days": "many"}')])
    assert not accepts(format_name, tools, wrong_type)
    unknown_tool, _ = write_output(format_name, [("launch", '{"city": "Paris", "days": 3}')])
    assert not accepts(format_name, tools, unknown_tool)
    cut = good.rstrip()[:-1]
    assert not accepts(format_name, tools, cut)
