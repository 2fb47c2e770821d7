"""Tool calls out of a model's raw output (``streaming_json.model_output``), over the 845 real calls written as each
model family writes them: the events do not depend on how the text was cut, the argument deltas join to exactly the
text the model wrote, nothing emitted is taken back, and bad output never raises."""

from __future__ import annotations

import json
import random
from functools import partial
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json.model_output import (
    FORMATS,
    ArgumentsDelta,
    ContentDelta,
    ModelOutputStream,
    ReasoningDelta,
    ToolCallEnd,
    ToolCallFormat,
    ToolCallStart,
)

from .model_outputs import (
    ALIASES,
    FORMAT_NAMES,
    PROSE_AFTER,
    PROSE_BEFORE,
    REAL_CALLS,
    arguments_styles,
    call_id,
    merged,
    read_all,
    write_output,
)
from .strategies import cut_randomly, examples, split_at

PROSE = [
    "Let me look.",
    "I'll check <b>that</b> [first]: {name} is a <tool",  # markers' beginnings that are no markers
    "Sure! 😀 Voilà — résumé: `<|tool` ",
    "\n\n",
]


def stream_of(backend: ModuleType, format_name: str, **options: Any) -> Any:
    return partial(
        ModelOutputStream, format_name, new_call_id=call_id, parser_class=backend.StreamingJsonParser, **options
    )


def cuts_of(text: str, seed: int) -> dict[str, list[str]]:
    """The ways a server hands the text over: whole, a character at a time, token pieces, wide pieces (speculative
    decoding, a stream interval: an end marker and the next call's start in one piece)."""
    return {
        "whole": [text],
        "characters": list(text),
        "tokens": cut_randomly(text, seed, 1, 6),
        "wide": cut_randomly(text, seed, 20, 400),
    }


@pytest.mark.slow  # the whole corpus: make test runs it, make test-fast skips it
@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_real_calls_stream_exactly_however_cut(backend: ModuleType, format_name: str) -> None:
    """Every real call, in every format, with prose around, one to three at a time: the same events for every cut,
    the argument deltas joining to the arguments as written."""
    rng = random.Random(format_name)
    make = stream_of(backend, format_name)
    position = 0
    while position < len(REAL_CALLS):
        count = rng.randint(1, 3)
        calls = [
            (name, rng.choice(arguments_styles(arguments)))
            for name, arguments in REAL_CALLS[position : position + count]
        ]
        position += count
        before = rng.choice(PROSE) if PROSE_BEFORE[format_name] and rng.random() < 0.7 else ""
        after = rng.choice(PROSE[:3]) if PROSE_AFTER[format_name] and rng.random() < 0.5 else ""
        text, expected = write_output(format_name, calls, before, after)
        for cut, pieces in cuts_of(text, position).items():
            if cut == "characters" and position % 23:
                continue  # a character at a time is slow: every 23rd group
            assert merged(read_all(make, pieces)) == expected, (cut, text[:300])


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_argument_text_is_never_late_by_more_than_a_marker(backend: ModuleType, format_name: str) -> None:
    """Append-only and prompt: after every character, the call's argument text so far is a prefix of what the model
    wrote, and at most a marker's length behind what was read."""
    longest_marker = max(len(marker) for marker in _markers(FORMATS[format_name]))
    for name, arguments in REAL_CALLS[:40]:
        text, expected = write_output(format_name, [(name, arguments)], "Hi. " if PROSE_BEFORE[format_name] else "")
        start = text.index(arguments)
        stream = stream_of(backend, format_name)()
        sent = ""
        for position, char in enumerate(text, start=1):
            for event in stream.feed(char):
                if event.kind == "arguments":
                    sent += event.text
            assert arguments.startswith(sent)
            read = min(max(position - start, 0), len(arguments))
            assert len(sent) >= read - longest_marker, (position, sent[-20:])
        assert sent == arguments


def _markers(format: ToolCallFormat) -> list[str]:
    found = [*format.section_begin, *format.section_end, format.call_begin, format.call_end, format.header_end]
    return [marker for marker in found if marker] or [" "]


@examples(60)
@given(
    st.sampled_from(FORMAT_NAMES),
    st.lists(st.integers(0, len(REAL_CALLS) - 1), min_size=1, max_size=3),
    st.integers(0, 4),
    st.sampled_from(PROSE),
    st.sampled_from(PROSE[:3]),
    st.data(),
)
def test_any_cut_gives_the_same_events(
    backend: ModuleType, format_name: str, picks: list[int], style: int, before: str, after: str, data: Any
) -> None:
    calls = [(REAL_CALLS[pick][0], arguments_styles(REAL_CALLS[pick][1])[style]) for pick in picks]
    text, expected = write_output(
        format_name, calls, before if PROSE_BEFORE[format_name] else "", after if PROSE_AFTER[format_name] else ""
    )
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30))
    assert merged(read_all(stream_of(backend, format_name), split_at(text, cuts))) == expected
    # As UTF-8 bytes cut anywhere, characters split across pieces.
    data_bytes = text.encode("utf-8")
    byte_cuts = data.draw(st.lists(st.integers(0, len(data_bytes)), max_size=30))
    assert merged(read_all(stream_of(backend, format_name), split_at(data_bytes, byte_cuts))) == expected


def test_reasoning_is_its_own_text_and_starts_no_call(backend: ModuleType) -> None:
    name, arguments = REAL_CALLS[0]
    think = "The user wants a file. I could write <tool_call>{...}</tool_call> but first "
    text, expected = write_output("hermes", [(name, arguments)], "Reading it.", think=think)
    make = stream_of(backend, "hermes", reasoning=("<think>", "</think>"))
    for pieces in cuts_of(text, 1).values():
        assert merged(read_all(make, pieces)) == expected
    # DeepSeek R1's template opens the block before the output starts.
    opened = stream_of(backend, "deepseek_v3", reasoning=("<think>", "</think>"), reasoning_open=True)
    events = merged(read_all(opened, list("thinking...</think>The answer.")))
    assert events == [ReasoningDelta("thinking..."), ContentDelta("The answer.")]


def test_markers_in_json_strings_are_text(backend: ModuleType) -> None:
    arguments = '{"html": "<tool_call>x</tool_call>", "note": "[TOOL_CALLS] <|tool_call_end|>"}'
    for format_name in FORMAT_NAMES:
        text, expected = write_output(format_name, [("write", arguments)])
        for pieces in cuts_of(text, 3).values():
            assert merged(read_all(stream_of(backend, format_name), pieces)) == expected, format_name


def test_arguments_before_the_name_wait_for_it(backend: ModuleType) -> None:
    text = '<tool_call>{"arguments": {"path": "a.py"}, "name": "read"}</tool_call>'
    expected = [
        ToolCallStart(0, "call_0", "read"),
        ArgumentsDelta(0, '{"path": "a.py"}'),
        ToolCallEnd(0, {"path": "a.py"}, None),
    ]
    for pieces in cuts_of(text, 4).values():
        assert merged(read_all(stream_of(backend, "hermes"), pieces)) == expected


def test_the_arguments_key_and_nothing_after_it(backend: ModuleType) -> None:
    """vLLM streamed ``{"arguments": {"name": "inner"}, "name": "f"}`` as a call to ``inner``, and the text after the
    arguments (``, "id": 3``) as arguments."""
    text = '<tool_call>{"arguments": {"name": "inner"}, "name": "f", "id": 3}</tool_call>'
    events = merged(read_all(stream_of(backend, "hermes"), list(text)))
    assert events == [
        ToolCallStart(0, "call_0", "f"),
        ArgumentsDelta(0, '{"name": "inner"}'),
        ToolCallEnd(0, {"name": "inner"}, None),
    ]


def test_arguments_as_a_json_string_give_its_content(backend: ModuleType) -> None:
    inner = '{"city": "Paris", "q": "a \\"quoted\\" word"}'
    text = '<tool_call>{"name": "search", "arguments": ' + json.dumps(inner) + "}</tool_call>"
    for pieces in cuts_of(text, 5).values():
        assert merged(read_all(stream_of(backend, "hermes"), pieces)) == [
            ToolCallStart(0, "call_0", "search"),
            ArgumentsDelta(0, inner),
            ToolCallEnd(0, json.loads(inner), None),
        ]


def test_numbers_and_escapes_pass_through_as_written(backend: ModuleType) -> None:
    """Re-serialising parsers cut a 9-digit integer, wrote 108.2 as 108.02, 1e-3 as 0.001, and escaped to ASCII."""
    arguments = '{"id": 123456789, "price": 108.2, "eps": 1e-3, "big": 12345678901234567890, "text": "é\\u00e9"}'
    text, expected = write_output("hermes", [("f", arguments)])
    assert merged(read_all(stream_of(backend, "hermes"), list(text))) == expected


def test_a_call_with_no_arguments_gets_an_empty_object(backend: ModuleType) -> None:
    for format_name, text in [
        ("hermes", '<tool_call>{"name": "now"}</tool_call>'),
        (
            "kimi_k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.now:0<|tool_call_argument_begin|>"
            "<|tool_call_end|><|tool_calls_section_end|>",
        ),
    ]:
        events = merged(read_all(stream_of(backend, format_name), [text]))
        assert [event.kind for event in events] == ["start", "arguments", "end"]
        assert events[1].text == "{}" and events[2].arguments == {} and events[2].error is None


def test_a_cut_off_call_ends_with_an_error_never_repaired(backend: ModuleType) -> None:
    for format_name in FORMAT_NAMES:
        text, _ = write_output(format_name, [("write", '{"path": "a.py", "content": "print(1)"}')])
        cut = text[: text.index("print")]
        events = merged(read_all(stream_of(backend, format_name), list(cut)))
        end = events[-1]
        assert end.kind == "end" and end.arguments == {}, format_name
        assert end.error.startswith("Tool call arguments are incomplete") and end.error.endswith(
            'Received arguments: {"path": "a.py", "content": "'
        ), (format_name, end.error)


def test_an_end_marker_before_the_json_ends_the_call(backend: ModuleType) -> None:
    """A marker outside any JSON string ends a call whose JSON is not complete; the next call is still read."""
    text = (
        '<tool_call>{"name": "a", "arguments": {"x": 1}</tool_call> then '
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    events = merged(read_all(stream_of(backend, "hermes"), list(text)))
    assert [event.kind for event in events] == ["start", "arguments", "end", "content", "start", "arguments", "end"]
    assert "</tool_call> came before they were complete" in events[2].error
    assert events[3] == ContentDelta(" then ") and events[6] == ToolCallEnd(1, {}, None)


def test_unknown_tools_and_nameless_calls_end_with_an_error(backend: ModuleType) -> None:
    text = '<tool_call>{"name": "rm", "arguments": {}}</tool_call><tool_call>{"arguments": {"a": 1}}</tool_call>'
    events = merged(read_all(stream_of(backend, "hermes", tools=["read", "write"]), [text]))
    assert events[0] == ToolCallStart(0, "call_0", "rm")
    assert events[2].error.startswith("Tool call to an unknown tool 'rm' (the tools are: read, write)")
    assert events[3] == ToolCallStart(1, "call_1", "")
    assert events[5].error.startswith("Tool call has no name") and events[5].arguments == {}


def test_malformed_arguments_end_with_the_parse_error(backend: ModuleType) -> None:
    text = '[TOOL_CALLS]f[ARGS]{"a": 1,, "b": tru}'
    events = merged(read_all(stream_of(backend, "mistral_v11"), list(text)))
    assert events[1] == ArgumentsDelta(0, '{"a": 1,, "b": tru}')
    assert events[2].arguments == {} and "not valid JSON" in events[2].error


def test_an_alias_is_its_formats_other_name() -> None:
    """(So that each format's tests read the real corpus for its aliases too: the same data, nothing of its own.)"""
    for alias, name in ALIASES.items():
        assert FORMATS[alias] is FORMATS[name] and alias in FORMATS[name].aliases, alias


@pytest.mark.parametrize("format_name", ["mistral", "mistral_v11"])
def test_mistral_reads_every_spelling_mixed(backend: ModuleType, format_name: str) -> None:
    """Mistral's models write [TOOL_CALLS] then a JSON array of calls (tokenizers before v11), NAME[ARGS]{...} or
    NAME{...} (v11 on; [CALL_ID] in some): one format, under both names, reads them all, one after another."""
    text = (
        'Sure! [TOOL_CALLS]get_weather[ARGS]{"city": "Tokyo"}[TOOL_CALLS]get_time{"zone": "JST"}'
        '[TOOL_CALLS]now[CALL_ID]a1b2c3d4e[ARGS]{}[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, '
        '{"name": "b", "arguments": "{\\"y\\": 2}"}][TOOL_CALLS]{"name": "c", "arguments": {}} Done.'
    )
    expected = [
        ContentDelta("Sure! "),
        ToolCallStart(0, "call_0", "get_weather"),
        ArgumentsDelta(0, '{"city": "Tokyo"}'),
        ToolCallEnd(0, {"city": "Tokyo"}, None),
        ToolCallStart(1, "call_1", "get_time"),
        ArgumentsDelta(1, '{"zone": "JST"}'),
        ToolCallEnd(1, {"zone": "JST"}, None),
        ToolCallStart(2, "a1b2c3d4e", "now"),
        ArgumentsDelta(2, "{}"),
        ToolCallEnd(2, {}, None),
        ToolCallStart(3, "call_3", "a"),
        ArgumentsDelta(3, '{"x": 1}'),
        ToolCallEnd(3, {"x": 1}, None),
        ToolCallStart(4, "call_4", "b"),
        ArgumentsDelta(4, '{"y": 2}'),
        ToolCallEnd(4, {"y": 2}, None),
        ToolCallStart(5, "call_5", "c"),
        ArgumentsDelta(5, "{}"),
        ToolCallEnd(5, {}, None),
        ContentDelta(" Done."),
    ]
    for pieces in cuts_of(text, 7).values():
        assert merged(read_all(stream_of(backend, format_name), pieces)) == expected


def test_text_that_could_begin_a_marker_is_held_only_until_it_cannot(backend: ModuleType) -> None:
    stream = stream_of(backend, "hermes")()
    assert stream.feed("a <tool") == [ContentDelta("a ")]
    assert stream.feed("> b") == [ContentDelta("<tool> b")]
    assert stream.feed("<tool_c") == []
    assert stream.finish() == [ContentDelta("<tool_c")]


def test_a_format_of_your_own_is_data(backend: ModuleType) -> None:
    """A user-defined format: calls in <function=NAME>...</function> blocks, the arguments alone after the name."""
    import re

    functions = ToolCallFormat(
        "functions",
        "arguments",
        call_begin="<function=",
        header_end=">",
        call_end="</function>",
        header=re.compile(r"(?P<name>[\w.-]+)"),
    )
    text = 'On it. <function=get_weather>{"city": "Paris"}</function><function=now></function>'
    events = merged(
        read_all(
            partial(ModelOutputStream, functions, new_call_id=call_id, parser_class=backend.StreamingJsonParser),
            list(text),
        )
    )
    assert events == [
        ContentDelta("On it. "),
        ToolCallStart(0, "call_0", "get_weather"),
        ArgumentsDelta(0, '{"city": "Paris"}'),
        ToolCallEnd(0, {"city": "Paris"}, None),
        ToolCallStart(1, "call_1", "now"),
        ArgumentsDelta(1, "{}"),
        ToolCallEnd(1, {}, None),
    ]


GARBAGE = [
    "<tool_call>",
    "</tool_call>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|tool_call|>",
    "<|python_tag|>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    ",",
    ":",
    "<think>",
    "</think>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    '{"name": "f", "arguments": {',
    "```json",
    "```",
    "\ud800",
    "x",
    " ",
    "\n",
    "é",
    "1e5",
    "null",
    ";",
]


@examples(300)
@given(
    st.sampled_from(FORMAT_NAMES),
    st.lists(st.sampled_from(GARBAGE), max_size=40),
    st.lists(st.integers(0, 400), max_size=10),
    st.booleans(),
)
def test_bad_output_never_raises_and_every_call_ends_once(
    backend: ModuleType, format_name: str, parts: list[str], cuts: list[int], as_bytes: bool
) -> None:
    text = "".join(parts)
    data: Any = text.encode("utf-8", "surrogatepass") if as_bytes else text
    stream = stream_of(backend, format_name, reasoning=("<think>", "</think>"))()
    events = [event for piece in split_at(data, cuts) for event in stream.feed(piece)] + stream.finish()
    started = [event.index for event in events if event.kind == "start"]
    ended = [event.index for event in events if event.kind == "end"]
    assert started == ended == list(range(len(started))) == list(range(stream.calls))
    open_call = None
    for event in events:  # a call's events come between its start and its end, one call at a time
        if event.kind == "start":
            assert open_call is None
            open_call = event.index
        elif event.kind == "arguments":
            assert event.index == open_call and event.text
        elif event.kind == "end":
            assert event.index == open_call
            if event.error is None:
                assert json.loads(_arguments_of(events, event.index)) == event.arguments
            else:
                assert event.arguments == {} and "Received arguments: " in event.error
            open_call = None
        else:
            assert event.text


def _arguments_of(events: list[Any], index: int) -> str:
    return "".join(event.text for event in events if event.kind == "arguments" and event.index == index) or "{}"


def test_the_stream_refuses_what_is_not_output(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown format 'gpt'"):
        ModelOutputStream("gpt")
    with pytest.raises(TypeError):
        ModelOutputStream(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reasoning"):
        ModelOutputStream("hermes", reasoning_open=True)
    stream = ModelOutputStream("hermes")
    with pytest.raises(TypeError):
        stream.feed(3)  # type: ignore[arg-type]
    stream.finish()
    with pytest.raises(ValueError, match="after finish"):
        stream.feed("x")
    assert stream.finish() == []
    with pytest.raises(ValueError):
        ToolCallFormat("bad", "call")  # no way for calls to start
    with pytest.raises(ValueError):
        ToolCallFormat("bad", "arguments", call_begin="<f>")  # arguments alone need a header


def test_fresh_call_ids_are_unique() -> None:
    stream = ModelOutputStream("hermes")
    events = stream.feed('<tool_call>{"name": "a"}</tool_call>' * 50)
    ids = [event.id for event in events if event.kind == "start"]
    assert len(set(ids)) == 50 and all(len(call) == 29 and call.startswith("call_") for call in ids)
