"""Our structural tags through xgrammar (the grammar engine vLLM and SGLang hand them to): for every format of the
registry, the tag compiles; a grammar compiled from it accepts the real calls written as the format writes them
(``required``: the calls alone; ``auto``: with the prose around them) and rejects a call that breaks it (an argument
of the wrong type for a strict tool, a tool the request does not offer, a call cut off). And the servers' own code
asks our parsers for them: vLLM's ``DelegatingParser.adjust_request`` and SGLang's
``FunctionCallParser.get_structure_constraint``, for ``tool_choice="required"`` and a named tool, give xgrammar our
tag (no JSON-schema fallback), whose grammar accepts the real calls, which the same parsers then read back."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
import xgrammar
from sglang.srt.entrypoints.openai.protocol import Tool, ToolChoice
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager
from xgrammar.testing import _is_grammar_accept_string

from streaming_json.model_output import FORMATS
from streaming_json.model_output import vllm as ours
from streaming_json.model_output._structural_tags import structural_tag
from streaming_json.model_output.sglang import register
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

from .outputs import tokenizer

register()

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


# --- In the servers' own code --------------------------------------------------------------------------------------


def strict(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**tool, "function": {**tool["function"], "strict": True}} for tool in tools]


def choices(format_name: str) -> list[tuple[Any, list[tuple[str, str]], str]]:
    """``required`` with a group of real calls, and a named tool with one call of it: (tool_choice, calls, the
    choice our tag is built for)."""
    group = next(group for group in groups(format_name) if len(group) > 1 or FORMATS[format_name].channels)
    named = {"type": "function", "function": {"name": group[0][0]}}
    return [("required", group, "required"), (named, group[:1], "forced")]


def expected_calls(format_name: str, calls: list[tuple[str, str]]) -> list[tuple[str, Any]]:
    _, events = write_output(format_name, calls)
    names = [event.name for event in events if event.kind == "start"]
    return list(zip(names, [event.arguments for event in events if event.kind == "end"]))


@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_vllms_serving_layer_constrains_forced_choices_with_our_tag(format_name: str) -> None:
    parser_class = ParserManager.get_parser(
        tool_parser_name=ours.PREFIX + format_name,
        reasoning_parser_name=None,
        enable_auto_tools=True,
        tokenizer=tokenizer(),
    )
    for tool_choice, calls, choice in choices(format_name):
        tools = strict(tools_for(calls))
        request = ChatCompletionRequest(
            model="m", messages=[{"role": "user", "content": "Go."}], tools=tools, tool_choice=tool_choice
        )
        parser = parser_class(tokenizer(), request.tools)
        request = parser.adjust_request(request)
        assert request.structured_outputs is not None and request.structured_outputs.json is None
        given = request.structured_outputs.structural_tag
        ours_tag = structural_tag(FORMATS[format_name], specs(tools), choice)
        assert json.loads(given) == xgrammar.StructuralTag.model_validate(ours_tag).model_dump()
        text, _ = write_output(format_name, calls)
        assert _is_grammar_accept_string(xgrammar.Grammar.from_structural_tag(given), text), text
        _, _, read = parser.parse(text, request, enable_auto_tools=True)
        assert [(call.name, json.loads(call.arguments)) for call in read or []] == expected_calls(format_name, calls)


@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_sglangs_function_call_parser_constrains_forced_choices_with_our_tag(format_name: str) -> None:
    for tool_choice, calls, choice in choices(format_name):
        tools = strict(tools_for(calls))
        parser = FunctionCallParser([Tool.model_validate(tool) for tool in tools], "streaming_json_" + format_name)
        sglang_choice = tool_choice if isinstance(tool_choice, str) else ToolChoice.model_validate(tool_choice)
        constraint = parser.get_structure_constraint(sglang_choice)
        assert constraint is not None and constraint[0] == "structural_tag"
        ours_tag = structural_tag(FORMATS[format_name], specs(tools), choice)
        assert constraint[1].model_dump() == xgrammar.StructuralTag.model_validate(ours_tag).model_dump()
        text, _ = write_output(format_name, calls)
        grammar_of_tag = xgrammar.Grammar.from_structural_tag(constraint[1].model_dump_json())
        assert _is_grammar_accept_string(grammar_of_tag, text), text
        assert parser.owns_tool_format()  # SGLang reads the constrained output with our detector
        _, items = parser.parse_non_stream(text)
        assert [(item.name, json.loads(item.parameters)) for item in items] == expected_calls(format_name, calls)
