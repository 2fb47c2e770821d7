"""The formats today's most-served open models write (``streaming_json.model_output``): Qwen3-Coder, Seed-OSS,
GLM-4.5 to 4.7, MiniMax-M2, DeepSeek V3.2, Gemma 4, gpt-oss's Harmony, pythonic and Llama 4 pythonic calls, over the
845 real calls and generated arguments of every JSON type, their schemas inferred from the values' own types: the
events do not depend on how the text was cut, the argument deltas join to exactly the JSON of the typed values,
string values stream as they are written, nothing emitted is taken back, and bad output never raises."""

from __future__ import annotations

import json
import random
import re
from functools import partial
from types import ModuleType, SimpleNamespace
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
    ToolCallStart,
    openai_chat_deltas,
)

from .backends import cpython_only
from .model_outputs import (
    DSML_SECTIONS,
    NEW_FORMAT_NAMES,
    PROSE_AFTER,
    PROSE_BEFORE,
    REAL_CALLS,
    TEXT_FORMAT_NAMES,
    THINK_MARKERS,
    call_id,
    merged,
    read_all,
    tools_for,
    typed_alike,
    writable,
    write_output,
)
from .strategies import cut_randomly, examples, json_values, split_at

PROSE = ["Let me look.", "I'll check <b>that</b> [first]: {name} is a <tool ", "Sure! 😀 Voilà — résumé: `<|tool` "]


def stream_of(backend: ModuleType, format_name: str, tools: Any = None, **options: Any) -> Any:
    return partial(
        ModelOutputStream,
        format_name,
        tools=tools,
        new_call_id=call_id,
        parser_class=backend.StreamingJsonParser,
        **options,
    )


def markers_of(format_name: str) -> list[str]:
    """Every marker the format's text may hold, longest first (the special tokens a server sees whole)."""
    format = FORMATS[format_name]
    found = [*format.section_begin, *format.section_end, format.call_begin, format.call_end, format.header_end]
    found += [*format.ignored_markers, *(format.reasoning or ())]
    if format.parameters is not None:
        syntax = format.parameters
        found += [syntax.begin, syntax.header_end, syntax.end, syntax.value_begin]
    if format.literal is not None:
        found += list(format.literal.quotes)
    if format.channels is not None:
        found += [*format.channels.message_end, "<|channel|>", "<|constrain|>"]
    return sorted({marker for marker in found if marker}, key=len, reverse=True)


def token_pieces(text: str, format_name: str, seed: int) -> list[str]:
    """``text`` as a server's tokens: every marker one piece, the rest in pieces of 1 to 6 characters."""
    rng = random.Random(seed)
    pattern = re.compile("|".join(re.escape(marker) for marker in markers_of(format_name)))
    pieces: list[str] = []
    position = 0
    for found in [*pattern.finditer(text), None]:
        end = found.start() if found is not None else len(text)
        pieces += cut_randomly(text[position:end], rng.randint(0, 10**6), 1, 6)
        if found is not None:
            pieces.append(found.group())
            position = found.end()
    return pieces


def cuts_of(text: str, format_name: str, seed: int) -> dict[str, list[str]]:
    """The ways a server hands the text over: whole; a character at a time; token pieces with the markers whole or
    cut anywhere; wide pieces holding several calls (speculative decoding, a stream interval)."""
    return {
        "whole": [text],
        "characters": list(text),
        "tokens": token_pieces(text, format_name, seed),
        "split markers": cut_randomly(text, seed, 1, 6),
        "wide": cut_randomly(text, seed, 20, 400),
    }


def sample_output(format_name: str, calls: list[tuple[str, str]], seed: int) -> tuple[str, list[Any]]:
    rng = random.Random(seed)
    before = rng.choice(PROSE) if PROSE_BEFORE[format_name] and rng.random() < 0.7 else ""
    after = rng.choice(PROSE) if PROSE_AFTER[format_name] and rng.random() < 0.5 else ""
    think = "Which file? <tool_ca is <function" if format_name in THINK_MARKERS and rng.random() < 0.3 else ""
    if format_name == "harmony" and rng.random() < 0.3:
        think = "The user wants <|cal it."
    return write_output(format_name, calls, before, after, think)


WRITABLE = {name: [call for call in REAL_CALLS if writable(name, call[1])] for name in NEW_FORMAT_NAMES}


def test_almost_every_real_call_can_be_written_in_every_format() -> None:
    """(The few left out hold a format's own markers in a raw string value: no model can write those.)"""
    for name, calls in WRITABLE.items():
        assert len(calls) >= 830, (name, len(calls))


@pytest.mark.slow  # the whole corpus: make test runs it, make test-fast skips it
@pytest.mark.parametrize("format_name", NEW_FORMAT_NAMES)
def test_real_calls_stream_exactly_however_cut(backend: ModuleType, format_name: str) -> None:
    """Every real call, in every format, with prose and reasoning around, one to three at a time: the same events
    for every cut, the argument deltas joining to the JSON of the typed values."""
    rng = random.Random(format_name)
    calls_left = WRITABLE[format_name]
    position = 0
    while position < len(calls_left):
        count = rng.randint(1, 3)
        calls = calls_left[position : position + count]
        position += count
        text, expected = sample_output(format_name, calls, position)
        make = stream_of(backend, format_name, tools_for(calls))
        for cut, pieces in cuts_of(text, format_name, position).items():
            if cut == "characters" and position % 29:
                continue  # a character at a time is slow: every 29th group
            if cut in ("split markers", "wide") and (position % 2) == (cut == "wide"):
                continue  # markers cut anywhere, or several calls a piece: every other group each
            assert merged(read_all(make, pieces)) == expected, (cut, text[:300])


# Arguments of every JSON type: names as keys (the pythonic formats write keys as Python names), any values.
identifiers = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda key: key not in ("true", "false", "null") and key.isidentifier()
)
arguments_objects = st.dictionaries(identifiers, json_values(max_leaves=8), max_size=5)


@examples(120)
@given(
    st.sampled_from(NEW_FORMAT_NAMES),
    st.lists(st.tuples(st.sampled_from(["read", "write", "f"]), arguments_objects), min_size=1, max_size=3),
    st.integers(0, 10**6),
    st.data(),
)
def test_arguments_of_every_type_stream_exactly_however_cut(
    backend: ModuleType, format_name: str, drawn: list[tuple[str, dict[str, Any]]], seed: int, data: Any
) -> None:
    """Strings (non-ASCII, escapes, markup), numbers, booleans, null, nested objects and arrays: typed by schemas
    inferred from the values, the deltas join to their JSON, for any cut, as str or as UTF-8 bytes."""
    calls = [(name, json.dumps(value, ensure_ascii=False)) for name, value in drawn]
    calls = typed_alike([call for call in calls if writable(format_name, call[1])], format_name)
    if not calls:
        return
    text, expected = sample_output(format_name, calls, seed)
    make = stream_of(backend, format_name, tools_for(calls))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30))
    assert merged(read_all(make, split_at(text, cuts))) == expected
    assert merged(read_all(make, token_pieces(text, format_name, seed))) == expected
    encoded = text.encode("utf-8", "surrogatepass")
    byte_cuts = data.draw(st.lists(st.integers(0, len(encoded)), max_size=30))
    if not re.search("[\ud800-\udfff]", text):  # (a lone surrogate is no UTF-8)
        assert merged(read_all(make, split_at(encoded, byte_cuts))) == expected


def _value_region(format_name: str, text: str, value: str) -> int:
    """Where a string value's own text starts in the output."""
    return text.index(value)


@pytest.mark.parametrize("format_name", TEXT_FORMAT_NAMES)
def test_string_values_stream_as_written_never_late_by_more_than_a_marker(
    backend: ModuleType, format_name: str
) -> None:
    """Append-only and prompt: after every character, the arguments so far are a prefix of their JSON, and a
    string value's text is out up to at most a marker's length (and a newline the trimming may shed) of what was
    read: streamed, not buffered."""
    longest = max(len(marker) for marker in markers_of(format_name)) + 1
    picked = [
        (name, arguments)
        for name, arguments in WRITABLE[format_name]
        if any(
            isinstance(item, str) and len(item) > 40 and repr(item)[1:-1] == item
            for item in json.loads(arguments).values()
        )
    ][:12]
    assert picked
    for name, arguments in picked:
        text, expected = write_output(format_name, [(name, arguments)], "Hi. " if PROSE_BEFORE[format_name] else "")
        value = next(item for item in json.loads(arguments).values() if isinstance(item, str) and len(item) > 40)
        start = _value_region(format_name, text, value)
        whole = expected[-2].text
        stream = stream_of(backend, format_name, tools_for([(name, arguments)]))()
        sent, ends = "", []
        for position, char in enumerate(text, start=1):
            for event in stream.feed(char):
                if event.kind == "arguments":
                    sent += event.text
                ends += [event] if event.kind == "end" else []
            assert whole.startswith(sent), (position, sent[-40:])
            if start < position <= start + len(value):
                read = value[: position - start]
                out = _string_content_out(sent, value)
                assert read.startswith(out) and len(out) >= len(read) - longest, (format_name, position, out[-20:])
        assert ends + [event for event in stream.finish() if event.kind == "end"] == [expected[-1]]
        assert sent == whole


def _string_content_out(sent: str, value: str) -> str:
    """The part of ``value`` the arguments sent so far hold (the value's JSON string content, decoded)."""
    encoded = json.dumps(value, ensure_ascii=False)[1:-1]
    opening = sent.rfind(': "')
    if opening < 0:
        return ""
    content = sent[opening + 3 :]
    if not encoded.startswith(content.rstrip("\\")) and not encoded.startswith(content):
        return ""
    while content:
        try:
            return str(json.loads(f'"{content}"'))
        except ValueError:
            content = content[:-1]
    return ""


@pytest.mark.parametrize("format_name", NEW_FORMAT_NAMES)
def test_a_cut_off_call_ends_with_an_error_never_repaired(backend: ModuleType, format_name: str) -> None:
    """The output ends inside a call, wherever: the call ends with an error saying it is incomplete, ``{}``."""
    calls = [("write", json.dumps({"path": "a.py", "content": "print(1)\n", "mode": 420}))]
    text, expected = write_output(format_name, calls)
    start, end = text.index("write"), text.rindex("420") + 3
    for cut in range(start + 1, end + 1, max(1, (end - start) // 25)):
        events = merged(read_all(stream_of(backend, format_name, tools_for(calls)), [text[:cut]]))
        kinds = [event.kind for event in events]
        if "start" not in kinds:
            continue  # the cut fell in the call's header: there was no call yet (its text is held as content)
        last = events[-1]
        assert last.kind == "end" and last.arguments == {}, (format_name, text[:cut])
        assert last.error.startswith("Tool call arguments are incomplete"), (format_name, text[:cut], last.error)


GARBAGE = [
    *sorted({marker for name in NEW_FORMAT_NAMES for marker in markers_of(name)}),
    "call:",
    "<function=f>",
    "<parameter=a>",
    '<invoke name="f">',
    '<parameter name="a">',
    'name="a" string="false">',
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
    "<|channel|>analysis<|message|>",
    "[f(",
    "a=",
    "'",
    '"',
    "'''",
    "\\",
    "\\x4",
    "\\N{",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    "True",
    "null",
    "1e5",
    "x",
    " ",
    "\n",
    "é",
    "\ud800",
]


@examples(300)
@given(
    st.sampled_from(NEW_FORMAT_NAMES),
    st.lists(st.sampled_from(GARBAGE), max_size=40),
    st.lists(st.integers(0, 400), max_size=10),
    st.booleans(),
    st.booleans(),
)
def test_bad_output_never_raises_and_every_call_ends_once(
    backend: ModuleType, format_name: str, parts: list[str], cuts: list[int], as_bytes: bool, typed: bool
) -> None:
    text = "".join(parts)
    data: Any = text.encode("utf-8", "surrogatepass") if as_bytes else text
    tools = {"f": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}}
    stream = stream_of(backend, format_name, tools if typed else None)()
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
            sent = "".join(e.text for e in events if e.kind == "arguments" and e.index == event.index)
            if event.error is None:
                assert json.loads(sent) == event.arguments
            else:
                assert event.arguments == {} and "Received arguments: " in event.error
            open_call = None
        else:
            assert event.text


@cpython_only("the OpenAI SDK needs jiter, which has no wheel for PyPy 3.9")
@pytest.mark.parametrize("format_name", NEW_FORMAT_NAMES)
def test_the_openai_sdk_accumulates_the_calls_of_a_whole_reading(backend: ModuleType, format_name: str) -> None:
    """The OpenAI SDK's ``ChatCompletionStreamState`` fed ``openai_chat_deltas`` of token pieces ends with the
    content and calls that reading the whole output at once gives."""
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    rng = random.Random(format_name)
    short = [call for call in WRITABLE[format_name] if len(call[1]) < 500]
    for round in range(6):
        calls = rng.sample(short, rng.randint(1, 3))
        text, _ = sample_output(format_name, calls, round)
        make = stream_of(backend, format_name, tools_for(calls))
        whole = read_all(make, [text])
        want_content = "".join(event.text for event in whole if event.kind == "content")
        want_calls = [
            (
                start.id,
                start.name,
                "".join(e.text for e in whole if e.kind == "arguments" and e.index == start.index),
            )
            for start in whole
            if start.kind == "start"
        ]
        state: Any = ChatCompletionStreamState()
        stream = make()
        for piece in [*token_pieces(text, format_name, round), None]:
            events = stream.feed(piece) if piece is not None else stream.finish()
            for delta in openai_chat_deltas(events):
                state.handle_chunk(
                    ChatCompletionChunk.model_validate(
                        {
                            "id": "chatcmpl-1",
                            "object": "chat.completion.chunk",
                            "created": 1,
                            "model": "m",
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                        }
                    )
                )
        message = state.current_completion_snapshot.choices[0].message
        assert (message.content or "") == want_content
        got = [(call.id, call.function.name, call.function.arguments) for call in message.tool_calls or []]
        assert got == want_calls
        for _, _, arguments in got:
            json.loads(arguments)


# --- Typing: a value's text becomes JSON by its schema ------------------------------------------------------------

WEATHER = {
    "get_weather": {
        "type": "object",
        "properties": {
            "zip": {"type": "string"},
            "days": {"type": "integer"},
            "ratio": {"type": "number"},
            "metric": {"type": "boolean"},
            "note": {"type": ["string", "null"]},
            "unit": {"enum": ["c", "f"]},
            "level": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "filters": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "where": {"$ref": "#/$defs/place"},
            "any": {},
        },
        "$defs": {"place": {"type": "object"}},
    }
}


def qwen3_call(**values: str) -> str:
    parameters = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in values.items())
    return f"<tool_call>\n<function=get_weather>\n{parameters}</function>\n</tool_call>"


def read_call(backend: ModuleType, format_name: str, text: str, tools: Any = WEATHER) -> tuple[str, Any, Any]:
    events = merged(read_all(stream_of(backend, format_name, tools), list(text)))
    arguments = "".join(event.text for event in events if event.kind == "arguments")
    end = next(event for event in events if event.kind == "end")
    return arguments, end.arguments, end.error


def test_a_value_is_typed_by_its_schema(backend: ModuleType) -> None:
    text = qwen3_call(
        zip="03106",
        days="30",
        ratio="1.50",
        metric="True",
        note="null",
        unit="c",
        level="None",
        filters='{"max": 1e-3}',
        tags="['a', 'b']",
        where='{"city": "Oslo"}',
        any="30",
        extra="42",
    )
    arguments, value, error = read_call(backend, "qwen3_coder", text)
    assert error is None
    assert value == {
        "zip": "03106",  # a number-looking string typed string stays a string
        "days": 30,
        "ratio": 1.5,
        "metric": True,  # Jinja's True, any case
        "note": None,
        "unit": "c",
        "level": None,  # Python's None for null
        "filters": {"max": 0.001},
        "tags": ["a", "b"],  # a Python literal where JSON fails
        "where": {"city": "Oslo"},  # $ref followed
        "any": "30",  # a schema that says nothing of types: a string
        "extra": "42",  # a parameter the schema does not have: a string, as vLLM reads it
    }
    # Numbers and JSON values as the model wrote them, nothing re-serialised.
    assert '"ratio": 1.50' in arguments and '"filters": {"max": 1e-3}' in arguments
    assert json.loads(arguments) == value


def test_a_value_that_is_none_of_its_types_ends_the_call_with_an_error_naming_it(backend: ModuleType) -> None:
    for name, text in [("days", "thirty"), ("days", "3.5"), ("metric", "yes"), ("filters", "[1]"), ("zip", None)]:
        values = {name: text} if text is not None else {"days": "03106"}
        arguments, value, error = read_call(backend, "qwen3_coder", qwen3_call(**values))
        assert value == {}
        assert error.startswith(f"Tool call parameter {next(iter(values))!r} is not "), error
        json.loads(arguments)  # what was sent is JSON all the same: the value as a string


def test_without_a_schema_every_value_is_a_string(backend: ModuleType) -> None:
    text = qwen3_call(days="30", metric="true", filters="{}")
    for tools in (None, ["get_weather"], {"get_weather": None}):
        _, value, error = read_call(backend, "qwen3_coder", text, tools)
        assert error is None and value == {"days": "30", "metric": "true", "filters": "{}"}


def test_tools_take_every_shape_of_definition(backend: ModuleType) -> None:
    schema = {"type": "object", "properties": {"days": {"type": "integer"}}}
    text = qwen3_call(days="30")
    for tools in (
        [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}],  # Chat Completions
        [{"type": "function", "name": "get_weather", "parameters": schema}],  # Responses
        {"get_weather": schema},
        [SimpleNamespace(type="function", function=SimpleNamespace(name="get_weather", parameters=schema))],
        ["get_weather", {"type": "function", "function": {"name": "get_weather", "parameters": schema}}],
    ):
        _, value, error = read_call(backend, "qwen3_coder", text, tools)
        assert (value, error) == ({"days": 30}, None), tools
    _, value, error = read_call(backend, "qwen3_coder", text, [{"type": "function", "function": {"name": "other"}}])
    assert value == {} and error.startswith("Tool call to an unknown tool 'get_weather' (the tools are: other)")
    with pytest.raises(TypeError):
        ModelOutputStream("qwen3_coder", tools="get_weather")


def test_a_parameter_given_twice_is_an_error(backend: ModuleType) -> None:
    for format_name, text in [
        ("qwen3_coder", "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n"),
        ("glm47", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2"),
        ("pythonic", "[f(a=1, a=2)]"),
        ("gemma4", '<|tool_call>call:f{a:<|"|>x<|"|>,a:2}<tool_call|>'),
    ]:
        text += {"qwen3_coder": "</function>\n</tool_call>", "glm47": "</arg_value></tool_call>"}.get(format_name, "")
        _, value, error = read_call(backend, format_name, text, None)
        assert value == {} and error.startswith("Tool call gives the parameter 'a' twice"), (format_name, error)


@pytest.mark.parametrize(
    ("format_name", "text"),
    [
        ("qwen3_coder", "<tool_call>\n<function=now>\n</function>\n</tool_call>"),
        ("seed_oss", "<seed:tool_call>\n<function=now>\n</function>\n</seed:tool_call>"),
        ("glm47", "<tool_call>now</tool_call>"),  # vLLM #44326 dropped it
        ("glm45", "<tool_call>now\n</tool_call>"),
        ("minimax_m2", '<minimax:tool_call>\n<invoke name="now">\n</invoke>\n</minimax:tool_call>'),
        (
            "deepseek_v32",
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="now">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
        ),
        # A self-closing invoke (SGLang's detector tests; vLLM 0.33's DSML engines read none)
        ("deepseek_v32", '<｜DSML｜function_calls>\n<｜DSML｜invoke name="now"/>\n</｜DSML｜function_calls>'),
        ("deepseek_v4", '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="now"/>\n</｜DSML｜tool_calls>'),
        ("deepseek_v4", '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="now">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>'),
        ("deepseek_v41", '<｜DSML｜ calls>\n<｜DSML｜ invoke name="now"/>\n</｜DSML｜ calls>'),
        ("deepseek_v41", '<｜DSML｜ calls><｜DSML｜ invoke name="now"></｜DSML｜ invoke></｜DSML｜ calls>'),
        ("gemma4", "<|tool_call>call:now{}<tool_call|>"),
        ("harmony", "<|channel|>commentary to=functions.now <|constrain|>json<|message|>{}<|call|>"),
        ("pythonic", "[now()]"),
        ("llama4_pythonic", "<|python_start|>[now()]<|python_end|>"),
    ],
)
def test_a_call_with_no_parameters_gets_an_empty_object(backend: ModuleType, format_name: str, text: str) -> None:
    for pieces in cuts_of(text, format_name, 1).values():
        assert merged(read_all(stream_of(backend, format_name), pieces)) == [
            ToolCallStart(0, "call_0", "now"),
            ArgumentsDelta(0, "{}"),
            ToolCallEnd(0, {}, None),
        ], (format_name, pieces)


def test_deepseek_v32_says_which_values_are_json(backend: ModuleType) -> None:
    dsml = (
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n'
        '<｜DSML｜parameter name="city" string="true">03106</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="eps" string="false">1e-3</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="o">{"a": [1, 2.50]}</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )
    arguments, value, error = read_call(backend, "deepseek_v32", dsml, None)
    assert error is None and value == {"city": "03106", "eps": 0.001, "o": {"a": [1, 2.5]}}
    assert arguments == '{"city": "03106", "eps": 1e-3, "o": {"a": [1, 2.50]}}'
    _, value, error = read_call(backend, "deepseek_v32", dsml.replace("1e-3", "1e-3 x"), None)
    assert value == {} and error.startswith("Tool call parameter 'eps' is not JSON")


def test_a_self_closing_invoke_among_calls_is_a_call_without_arguments(backend: ModuleType) -> None:
    """DeepSeek V3.2 gave no call whole for ``<｜DSML｜invoke name="submit"/>``, and streamed one named
    ``submit"/>``: it is ``submit`` with ``{}``, between calls with arguments, however cut."""
    for format_name, (begin, end, tag) in DSML_SECTIONS.items():
        close = "</" + tag[1:]
        text = (
            f'Done.{begin}\n{tag}invoke name="submit"/>\n{tag}invoke name="f">\n'
            f'{tag}parameter name="a" string="true">x</{tag[1:]}parameter>\n{close}invoke>\n'
            f'{tag}invoke name="submit" />{end} Bye.'
        )
        for pieces in cuts_of(text, format_name, 4).values():
            assert merged(read_all(stream_of(backend, format_name), pieces)) == [
                ContentDelta("Done."),
                ToolCallStart(0, "call_0", "submit"),
                ArgumentsDelta(0, "{}"),
                ToolCallEnd(0, {}, None),
                ToolCallStart(1, "call_1", "f"),
                ArgumentsDelta(1, '{"a": "x"}'),
                ToolCallEnd(1, {"a": "x"}, None),
                ToolCallStart(2, "call_2", "submit"),
                ArgumentsDelta(2, "{}"),
                ToolCallEnd(2, {}, None),
                ContentDelta(" Bye."),
            ], (format_name, pieces)


@pytest.mark.parametrize("opener", ["<｜DSML｜tool_calls>", "<｜DSML｜toolcalls>", "<｜DSML｜tool>", ""])
def test_deepseek_v4_reads_every_opener_seen_in_production(backend: ModuleType, opener: str) -> None:
    """vLLM 0.33's DeepSeek V4 parser: ``<｜DSML｜toolcalls>`` and ``<｜DSML｜tool>`` open the calls too, and an invoke
    with no opener before it is a call; a call inside the reasoning block ends it."""
    text = (
        f'<think>Hm.{opener}<｜DSML｜invoke name="f">\n'
        '<｜DSML｜parameter name="n" string="false">3</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="s" string="true">a "b"</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        + ("</｜DSML｜tool_calls>" if opener else "")
    )
    for pieces in cuts_of(text, "deepseek_v4", 4).values():
        assert merged(read_all(stream_of(backend, "deepseek_v4"), pieces)) == [
            ReasoningDelta("Hm."),
            ToolCallStart(0, "call_0", "f"),
            ArgumentsDelta(0, '{"n": 3, "s": "a \\"b\\""}'),
            ToolCallEnd(0, {"n": 3, "s": 'a "b"'}, None),
        ] + ([] if opener else [ContentDelta("\n")]), (opener, pieces)


def test_a_quoted_number_and_escaped_json_are_read_as_their_schema_says_and_the_repair_said(
    backend: ModuleType,
) -> None:
    """SGLang's GLM detector tests: ``<arg_value>"42"</arg_value>`` for a number and ``[{\\"id\\": \\"1\\"}]`` for an
    array gave an error whole and a string streamed. Read after that one unwrapping, the same however cut, with the
    repair on the call's end; a string parameter keeps the text as written, and text that fits after no unwrapping
    is still an error naming the parameter."""
    tools = {
        "f": {
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "items": {"type": "array"},
                "where": {"type": "object"},
                "note": {"type": "string"},
            },
        }
    }
    for gap in ("", "\n"):  # GLM-4.7, GLM-4.5
        values = {"count": '"42"', "ratio": ' "0.5" ', "items": '[{\\"id\\": \\"1\\"}]', "where": '{\\"a\\": [1]}'}
        values["note"] = '"42"'
        text = (
            f"<tool_call>f{gap}"
            + "".join(
                f"<arg_key>{key}</arg_key>{gap}<arg_value>{value}</arg_value>{gap}" for key, value in values.items()
            )
            + "</tool_call>"
        )
        for pieces in cuts_of(text, "glm47", 3).values():
            events = merged(read_all(stream_of(backend, "glm47", tools), pieces))
            assert events == [
                ToolCallStart(0, "call_0", "f"),
                ArgumentsDelta(
                    0, '{"count": 42, "ratio": 0.5, "items": [{"id": "1"}], "where": {"a": [1]}, "note": "\\"42\\""}'
                ),
                ToolCallEnd(
                    0,
                    {"count": 42, "ratio": 0.5, "items": [{"id": "1"}], "where": {"a": [1]}, "note": '"42"'},
                    None,
                    (
                        (("count",), "string_to_int"),
                        (("ratio",), "string_to_float"),
                        (("items",), "escaped_json"),
                        (("where",), "escaped_json"),
                    ),
                ),
            ], (gap, pieces)
    for bad in ('"4x"', "'42'", '"[1]"', '[{\\"id\\": 1}', '\\"42\\"'):
        text = f"<tool_call>f<arg_key>count</arg_key><arg_value>{bad}</arg_value></tool_call>"
        _, value, error = read_call(backend, "glm47", text, tools)
        assert value == {} and error.startswith("Tool call parameter 'count' is not an integer"), (bad, error)
    as_written = "<tool_call>f<arg_key>count</arg_key><arg_value>42</arg_value></tool_call>"
    assert merged(read_all(stream_of(backend, "glm47", tools), [as_written]))[-1].repairs == ()


def test_kimi_k3_reads_its_channels_and_types_its_arguments_as_the_model_says(backend: ModuleType) -> None:
    """vLLM 0.33's K3 parser: the think channel is reasoning, the response channel's text is content (its markers,
    and the message's end, dropped), ``type="string"`` or no type is the raw text, another type is JSON as written,
    and a string streams as it arrives."""
    text = (
        "<|open|>think<|sep|>Run it.<|close|>think<|sep|><|open|>response<|sep|>On it.<|close|>response<|sep|>"
        '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|>'
        '<|open|>argument key="code" type="string"<|sep|>print("<|open|>")\n<|close|>argument<|sep|>'
        '<|open|>argument key="opts" type="object"<|sep|>{"a": 1.50}<|close|>argument<|sep|>'
        '<|open|>argument key="n" type="integer"<|sep|> 3 <|close|>argument<|sep|>'
        '<|open|>argument key="raw"<|sep|>42<|close|>argument<|sep|>'
        "<|close|>call<|sep|>\n"
        '<|open|>call index="2" tool="now"<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>'
    )
    arguments = '{"code": "print(\\"<|open|>\\")\\n", "opts": {"a": 1.50}, "n": 3, "raw": "42"}'
    for pieces in cuts_of(text, "kimi_k3", 6).values():
        assert merged(read_all(stream_of(backend, "kimi_k3"), pieces)) == [
            ReasoningDelta("Run it."),
            ContentDelta("On it."),
            ToolCallStart(0, "call_0", "python"),
            ArgumentsDelta(0, arguments),
            ToolCallEnd(0, {"code": 'print("<|open|>")\n', "opts": {"a": 1.5}, "n": 3, "raw": "42"}, None),
            ToolCallStart(1, "call_1", "now"),
            ArgumentsDelta(1, "{}"),
            ToolCallEnd(1, {}, None),
        ], pieces
    _, value, error = read_call(backend, "kimi_k3", text.replace(" 3 ", "three"), None)
    assert value == {} and error.startswith("Tool call parameter 'n' is not JSON")


def test_minimax_m3_element_trees_are_typed_by_the_schema(backend: ModuleType) -> None:
    """vLLM 0.33's MiniMax-M3 engine tests: elements nest as objects, ``<item>`` elements are an array where the
    schema says so, a name given twice is a list, an empty element is ``[]`` or ``{}`` where the schema says so, text
    beside elements is ``$text``, a leaf is typed by its schema (a string verbatim); without a schema leaves are
    strings and trees objects. The same however cut."""
    ns = "]<]minimax[>["

    def element(name: str, body: str) -> str:
        return f"{ns}<{name}>{body}{ns}</{name}>"

    tools = {
        "create_order": {
            "type": "object",
            "properties": {
                "user_id": {"type": "integer"},
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "shipping": {"type": "object", "properties": {"zip": {"type": "integer"}}},
                "either": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]},
                "free": {"type": "object"},
                "none": {"type": "array"},
                "empty": {"type": "object"},
            },
        }
    }
    parameters = (
        element("user_id", " 7 ")
        + element("note", "\n  a <b> & c\n")
        + element("tags", element("item", "a") + element("item", "b"))
        + element("shipping", element("zip", "18956"))
        + element("either", element("item", "1") + element("item", "2"))
        + element("free", "hi " + element("t", "x") + element("t", "y") + " there")
        + element("none", "")
        + element("empty", "\n")
    )
    text = f'Checking.\n{ns}<tool_call>\n{ns}<invoke name="create_order">{parameters}{ns}</invoke>\n{ns}</tool_call>'
    value = {
        "user_id": 7,
        "note": "\n  a <b> & c\n",
        "tags": ["a", "b"],
        "shipping": {"zip": 18956},
        "either": [1, 2],
        "free": {"t": ["x", "y"], "$text": "hi  there"},
        "none": [],
        "empty": {},
    }
    for pieces in cuts_of(text, "minimax_m3", 7).values():
        events = merged(read_all(stream_of(backend, "minimax_m3", tools), pieces))
        assert events[0] == ContentDelta("Checking.\n") and events[1] == ToolCallStart(0, "call_0", "create_order")
        assert events[-1] == ToolCallEnd(0, value, None) and json.loads(events[2].text) == value, pieces
    # Without a schema a value streams as a string from its first character that is not blank and no element: an
    # element after text is then an error of the call (vLLM's engine, which streams nothing, makes it "$text").
    untyped = text.replace("hi ", "").replace(" there", "")
    for pieces in cuts_of(untyped, "minimax_m3", 8).values():
        unknown = merged(read_all(stream_of(backend, "minimax_m3", None), pieces))[-1]
        assert unknown.error is None and unknown.arguments["tags"] == {"item": ["a", "b"]}, pieces
        assert unknown.arguments["free"] == {"t": ["x", "y"]} and unknown.arguments["user_id"] == " 7 ", pieces
        assert unknown.arguments["none"] == "" and unknown.arguments["empty"] == "\n", pieces
    _, _, error = read_call(backend, "minimax_m3", text, None)
    assert error.startswith("Tool call parameter 'free' is a string that holds elements")
    for bad in (element("user_id", "x"), f"{ns}<note>a{ns}</other>", element("tags", f"{ns}<item>a{ns}</tags>")):
        _, value, error = read_call(backend, "minimax_m3", text.replace(parameters, bad), tools)
        assert value == {} and error.startswith("Tool call parameter"), (bad, error)


def test_a_glm_value_ends_at_its_end_marker_not_at_a_parameter_marker_inside_it(backend: ModuleType) -> None:
    # (vLLM 0.33's GLM engine test: a file's text holds tag-like text; Qwen3's values still end at a forgotten end)
    code = 'if a < b: print("x")  # </arg_ <arg_key>k</arg_key>\n'
    text = (
        "<tool_call>Write\n<arg_key>path</arg_key><arg_value>a.py</arg_value>\n"
        f"<arg_key>content</arg_key><arg_value>{code}</arg_value>\n</tool_call>"
    )
    arguments, value, error = read_call(backend, "glm47", text, None)
    assert error is None and value == {"path": "a.py", "content": code}
    forgotten = "<tool_call>f<arg_key>a</arg_key><arg_value>1<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>"
    _, value, error = read_call(backend, "glm47", forgotten, None)
    assert error is None and value == {"a": "1<arg_key>b</arg_key><arg_value>2"}
    qwen = "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>"
    _, value, error = read_call(backend, "qwen3_coder", qwen, None)
    assert error is None and value == {"a": "1", "b": "2"}


def test_gemma4_values_by_their_syntax_or_their_schema(backend: ModuleType) -> None:
    text = '<|tool_call>call:f{n:3,s:<|"|>03106<|"|>,b:true,z:null,w:Oslo,o:{a:[1,<|"|>x, y<|"|>],b:{}}}<tool_call|>'
    arguments, value, error = read_call(backend, "gemma4", text, None)
    assert error is None
    assert value == {"n": 3, "s": "03106", "b": True, "z": None, "w": "Oslo", "o": {"a": [1, "x, y"], "b": {}}}
    schema = {"f": {"type": "object", "properties": {"n": {"type": "string"}, "s": {"type": "integer"}}}}
    _, value, error = read_call(backend, "gemma4", text, schema)
    assert error is None and value["n"] == "3" and value["s"] == 3106 or error.startswith("Tool call parameter 's'")


def test_gemma4_end_of_turn_is_no_content(backend: ModuleType) -> None:
    """Gemma's end of turn (and a tool response's opener, <eos>) ends the content and is no part of it: vLLM's Gemma 4
    engine drops them, and the checkpoints' response_template closes the content there (streaming_json_hf)."""
    text = '<|channel>thought\nplan<channel|>Hello<turn|><|tool_call>call:f{a:<|"|>x<turn|><|"|>}<tool_call|><eos>'
    expected = [ReasoningDelta("plan"), ContentDelta("Hello")]
    for pieces in cuts_of(text, "gemma4", 4).values():
        events = merged(read_all(stream_of(backend, "gemma4"), pieces))
        assert events[:2] == expected, pieces
        assert [event.kind for event in events[2:]] == ["start", "arguments", "end"], pieces
        assert events[-1].arguments == {"a": "x<turn|>"} and events[-1].error is None  # a string's text is kept


def test_pythonic_values_are_python_literals(backend: ModuleType) -> None:
    text = (
        "[get_weather(city='Tokyo', days=3, metric=True, note=None, ratio=-1.5, tags=('a', \"b\"), "
        'o={\'k\': [1, {\'x\': False}]}, q=\'it\\\'s \\"q\\" \\n\\t\\x41\\u00e9\\N{BULLET}\', t="""two\nlines""", '
        "r=r'raw\\d'), get_time(zone=\"UTC\")] Done."
    )
    events = merged(read_all(stream_of(backend, "pythonic"), list(text)))
    ends = [event for event in events if event.kind == "end"]
    assert [end.error for end in ends] == [None, None]
    assert ends[0].arguments == {
        "city": "Tokyo",
        "days": 3,
        "metric": True,
        "note": None,
        "ratio": -1.5,
        "tags": ["a", "b"],
        "o": {"k": [1, {"x": False}]},
        "q": 'it\'s "q" \n\tAé•',
        "t": "two\nlines",
        "r": "raw\\d",
    }
    assert ends[1].arguments == {"zone": "UTC"} and events[-1] == ContentDelta(" Done.")
    for pieces in cuts_of(text, "pythonic", 2).values():
        assert merged(read_all(stream_of(backend, "pythonic"), pieces)) == events


def test_text_that_is_no_pythonic_call_is_content(backend: ModuleType) -> None:
    """A pythonic list is calls only as the whole output ("Hello [f(a=1)]" is content, as vLLM reads it; SGLang reads
    the list as calls): the families that write it write the calls alone (Llama 3.2's prompt format: no other text),
    and a bracket in prose read as a call's start could not be taken back. See the docs' formats page."""
    for text in ["[1] See the docs (here).", "[note] done", "[]", "  [ ok", "Hello [f(a=1)]"]:
        for pieces in cuts_of(text, "pythonic", 3).values():
            events = merged(read_all(stream_of(backend, "pythonic"), pieces))
            if text == "[]":
                assert events == []
            else:
                assert events == [ContentDelta(text)], (text, pieces)
    _, value, error = read_call(backend, "pythonic", "[f(1, a=2)]", None)
    assert value == {} and error.startswith("Tool call has a value without a parameter name")


def test_step3_drops_the_wrapper_of_each_call_between_its_calls(backend: ModuleType) -> None:
    """Step-3 wraps each call in <｜tool_call_begin｜>function<｜tool_sep｜>...<｜tool_call_end｜>, and may write a
    <｜tool_sep｜> between two (vLLM 0.33's own test of its parser): none of it is content or breaks the section."""
    text = (
        "Checking.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_sep｜>\n<｜tool_call_begin｜>"
        '<steptml:invoke name="run"><steptml:parameter name="sql">SELECT * FROM t WHERE a < 5</steptml:parameter>'
        '<steptml:parameter name="html"><b>hi</b></steptml:parameter></steptml:invoke><｜tool_call_end｜>'
        "<｜tool_calls_end｜> Done."
    )
    for pieces in cuts_of(text, "step3", 5).values():
        events = merged(read_all(stream_of(backend, "step3"), pieces))
        assert events == [
            ContentDelta("Checking."),
            ToolCallStart(0, "call_0", "get_weather"),
            ArgumentsDelta(0, '{"city": "Tokyo"}'),
            ToolCallEnd(0, {"city": "Tokyo"}, None),
            ToolCallStart(1, "call_1", "run"),
            ArgumentsDelta(1, '{"sql": "SELECT * FROM t WHERE a < 5", "html": "<b>hi</b>"}'),
            ToolCallEnd(1, {"sql": "SELECT * FROM t WHERE a < 5", "html": "<b>hi</b>"}, None),
            ContentDelta(" Done."),
        ], pieces


def test_harmony_channels(backend: ModuleType) -> None:
    text = (
        "<|channel|>analysis<|message|>Need the weather.<|end|>"
        "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
        '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}<|call|>'
        "<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>"
    )
    expected = [
        ReasoningDelta("Need the weather."),
        ContentDelta("Checking."),
        ToolCallStart(0, "call_0", "get_weather"),  # not "get_weather<|channel|>commentary" (vLLM #32587)
        ArgumentsDelta(0, '{"city": "Oslo"}'),
        ToolCallEnd(0, {"city": "Oslo"}, None),
        ContentDelta("It is sunny."),
    ]
    for pieces in cuts_of(text, "harmony", 4).values():
        assert merged(read_all(stream_of(backend, "harmony"), pieces)) == expected


def test_a_harmony_body_whose_header_the_prompt_wrote_streams_at_once(backend: ModuleType) -> None:
    """gpt-oss writes a header first in every message (the role, <|channel|>, a recipient's to=); text where a header
    would stand that begins with none of them is a body whose header the prompt wrote (or a server dropped): content,
    out as it comes, not held to the next <|start|> (SGLang's GptOssDetector streams it too)."""
    stream = stream_of(backend, "harmony")()
    assert stream.feed("Sure, ") == [ContentDelta("Sure, ")]
    assert stream.feed("the weather in Oslo:") == [ContentDelta("the weather in Oslo:")]
    events = stream.feed(
        '<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}'
    )
    assert events[0] == ToolCallStart(0, "call_0", "get_weather")
    text = "Sunny.<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>"
    for pieces in cuts_of(text, "harmony", 6).values():
        assert merged(read_all(stream_of(backend, "harmony"), pieces)) == [ContentDelta("Sunny.Done.")]
    # What may still begin a header waits for the next piece: a header it is.
    stream = stream_of(backend, "harmony")()
    assert stream.feed(" <|chan") == []
    assert stream.feed("nel|>analysis<|message|>Hm") == [ReasoningDelta("Hm")]


@pytest.mark.parametrize(
    "format_name", ["qwen3_coder", "seed_oss", "glm47", "minimax_m2", "deepseek_v4", "deepseek_v41", "gemma4"]
)
def test_a_call_inside_the_reasoning_block_is_a_call(backend: ModuleType, format_name: str) -> None:
    """vLLM #39056: a Qwen3 model that opens a call before ``</think>`` lost it. The call ends the reasoning, as
    vLLM 0.33's engines read it; ``reasoning_open`` reads an output whose template opened the block."""
    calls = [("read", '{"path": "a.py"}')]
    text, expected = write_output(format_name, calls)
    begin, _ = THINK_MARKERS[format_name]
    for open_block in (False, True):
        prefix = "" if open_block else begin
        make = stream_of(backend, format_name, reasoning_open=open_block)
        for pieces in cuts_of(prefix + "Let me read it." + text, format_name, 5).values():
            assert merged(read_all(make, pieces)) == [ReasoningDelta("Let me read it."), *expected]


def test_string_values_pass_through_the_fast_path_the_same_on_both_backends(backend: ModuleType) -> None:
    """A long string value in token pieces: nearly every piece is one event of escaped text, in order."""
    value = 'line one\n\ttab "quote" back\\slash é 😀 ' * 200
    calls = [("write", json.dumps({"content": value}))]
    for format_name in TEXT_FORMAT_NAMES:
        text, expected = write_output(format_name, calls)
        stream = stream_of(backend, format_name, tools_for(calls))()
        pieces = token_pieces(text, format_name, 6)
        per_piece = [stream.feed(piece) for piece in pieces] + [stream.finish()]
        assert merged([event for events in per_piece for event in events]) == expected, format_name
        single = sum(1 for events in per_piece if [event.kind for event in events] == ["arguments"])
        assert single > len(pieces) * 0.8, format_name
