"""Text in a call block that is not a call, as an inference server must read it (issue 30): it is content, never a
nameless call; the block's markers are consumed, never content; and every other character of the output is kept.
vLLM's and SGLang's adapters rely on it: a server cannot take back a call it has sent.

The cases marked ``xfail`` are what ``ModelOutputStream`` does not do yet (the report of issue 30 says the change
each needs); they pass, and must then lose the mark (``xfail_strict``), once it does."""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import pytest

from streaming_json.model_output import ModelOutputStream

from .model_outputs import call_id, merged

KIMI_SECTION, KIMI_SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
KIMI_CALL, KIMI_ARGS, KIMI_CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
MARKERS = ["<tool_call>", "</tool_call>", KIMI_SECTION, KIMI_SECTION_END, KIMI_CALL, KIMI_ARGS, KIMI_CALL_END]


class Case(NamedTuple):
    format_name: str
    text: str
    content: str  # what must come out as content, markers removed
    calls: list[tuple[str, str]]  # (name, argument text) of the calls that must come out
    needs: str  # the change ModelOutputStream needs for it ("" where it reads it so already)


CASES = {
    "prose in a call block": Case(
        "hermes",
        "Hi <tool_call>Sorry, I cannot do that.</tool_call> Bye",
        "Hi Sorry, I cannot do that. Bye",
        [],
        "a call block whose first character after blanks is not { (or [ where arrays of calls are read) is no call: "
        "its text up to the call's end marker is content, the end marker consumed",
    ),
    "text after a call's JSON, in its block": Case(
        "hermes",
        '<tool_call>{"name": "read", "arguments": {"path": "a"}} trailing junk</tool_call>after',
        " trailing junkafter",
        [("read", '{"path": "a"}')],
        "text after a call's JSON before its end marker is content, and the place stays after-the-JSON until the "
        "end marker (consumed) or a stop marker",
    ),
    "text in a section before its first call": Case(
        "kimi_k2",
        f"Reasoning. {KIMI_SECTION} spurious noise {KIMI_CALL}functions.test:0{KIMI_ARGS}"
        f'{{"k": "v"}}{KIMI_CALL_END}{KIMI_SECTION_END} After.',
        "Reasoning.  spurious noise  After.",
        [("test", '{"k": "v"}')],
        "in a section that has an end marker, text that is no call is content and the section stays open: its end "
        "marker is consumed, its later calls read",
    ),
    "a call header that is not the format's": Case(
        "kimi_k2",
        f"Help. {KIMI_SECTION}{KIMI_CALL}functions.invalid.0{KIMI_ARGS}"
        f'{{"city": "Beijing"}}{KIMI_CALL_END}{KIMI_CALL}functions.valid:1{KIMI_ARGS}'
        f'{{"city": "Shanghai"}}{KIMI_CALL_END}{KIMI_SECTION_END}',
        'Help. functions.invalid.0{"city": "Beijing"}',
        [("valid", '{"city": "Shanghai"}')],
        "a header the format's header pattern does not match whole (Kimi K2's needs functions.NAME:IDX, the :IDX "
        "included) is no call: its text and arguments are content, the block's markers consumed",
    ),
    "a call object without a name": Case(
        "llama3_json",
        '{"parameters": {"q": 1}}',
        '{"parameters": {"q": 1}}',
        [],
        "a call object that ends without a name is no call: its JSON text, kept until the name comes, is content",
    ),
    "prose around a whole call": Case(
        "hermes",
        'Hi <tool_call>{"name": "read", "arguments": {}}</tool_call> Bye',
        "Hi  Bye",
        [("read", "{}")],
        "",
    ),
}


def read(backend: ModuleType, case: Case, pieces: list[str]) -> tuple[str, list[tuple[str, str]], list[Any]]:
    stream = ModelOutputStream(case.format_name, new_call_id=call_id, parser_class=backend.StreamingJsonParser)
    events = merged([event for piece in pieces for event in stream.feed(piece)] + stream.finish())
    content = "".join(event.text for event in events if event.kind == "content")
    names = {event.index: event.name for event in events if event.kind == "start"}
    arguments = {event.index: event.text for event in events if event.kind == "arguments"}
    return content, [(names[index], arguments.get(index, "")) for index in sorted(names)], events


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(reason=f"ModelOutputStream: {case.needs}", strict=True))
        if case.needs
        else name
        for name, case in CASES.items()
    ],
)
@pytest.mark.parametrize("cut", ["whole", "characters"])
def test_text_in_a_call_block_that_is_no_call_is_content(backend: ModuleType, name: str, cut: str) -> None:
    case = CASES[name]
    content, calls, events = read(backend, case, [case.text] if cut == "whole" else list(case.text))
    assert all(name for name, _ in calls), "a nameless call"
    assert not any(marker in content for marker in MARKERS), "a marker in the content"
    assert calls == case.calls
    assert content == case.content
