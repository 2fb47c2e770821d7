"""A checkpoint's ``response_template`` compiled into the engine's format data (issue 43): transformers' own fallback
templates (Qwen 2/3, Qwen 3.5, Gemma 4) over the 845 real calls written as each family writes them, prose and
reasoning around, cut at random: our :class:`ResponseParser` gives the message transformers' ``parse_response``
gives, and streams each call's argument text before the call closes; what the engine cannot stream is refused by
field and feature."""

from __future__ import annotations

import json
import random
import re
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json.model_output import (
    ArgumentsDelta,
    ModelOutputStream,
    ResponseParser,
    ToolCallEnd,
    ToolCallFormat,
    compile_response_template,
    read_response_template,
)
from streaming_json.model_output._structural_tags import structural_tag

from .model_outputs import REAL_CALLS, tools_for
from .strategies import examples

chat_parsing = pytest.importorskip("transformers.utils.chat_parsing", reason="transformers is a test dependency")
serving = pytest.importorskip("transformers.cli.serving.utils")

FALLBACKS = {types[0]: template for types, template in serving._RESPONSE_TEMPLATE_FALLBACKS.items()}
TEMPLATE_NAMES = ["qwen2", "qwen3_5", "gemma4"]
END_OF_TURN = {"qwen2": "<|im_end|>", "qwen3_5": "<|im_end|>\n<|endoftext|>", "gemma4": "<turn|>"}
THINK = {
    "qwen2": ("<think>", "</think>"),
    "qwen3_5": ("<think>", "</think>"),
    "gemma4": ("<|channel>thought\n", "<channel|>"),
}
_WORD = re.compile(r"\w+")


def _jinja(value: Any) -> str:
    """A parameter's value as Qwen 3.5's chat template writes it: a string as itself, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _gemma(value: Any) -> str:
    """A value as Gemma 4's chat template writes it: strings between <|"|>, keys bare."""
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{_gemma(inner)}" for key, inner in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma(inner) for inner in value) + "]"
    return json.dumps(value)


def write_call(template: str, name: str, arguments: str) -> str:
    if template == "qwen2":
        return f'<tool_call>\n{{"name": {json.dumps(name)}, "arguments": {arguments}}}\n</tool_call>'
    value = json.loads(arguments)
    if template == "qwen3_5":
        parameters = "".join(f"<parameter={key}>\n{_jinja(item)}\n</parameter>\n" for key, item in value.items())
        return f"<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>"
    return f"<|tool_call>call:{name}{_gemma(value)}<tool_call|>"


def _strings_and_keys(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings_and_keys(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings_and_keys(item)]
    return []


def writable(template: str, name: str, arguments: str) -> bool:
    """Whether the template's format can say these arguments: an object, no string holding one of its markers,
    and where keys are written bare (Gemma), keys and name that transformers' ``\\w+`` reads."""
    value = json.loads(arguments)
    if not isinstance(value, dict):
        return False
    format = ToolCallFormat.from_response_template(FALLBACKS[template])
    markers = [format.call_begin, format.call_end, *format.section_end, *format.ignored_markers, *THINK[template]]
    if format.parameters is not None:
        markers += [format.parameters.begin, format.parameters.end]
    if format.literal is not None:
        markers += list(format.literal.quotes)
    texts = _strings_and_keys(value)
    if any(marker and marker in text for text in texts for marker in markers):
        return False
    if template == "gemma4":
        keys = [key for key in texts if not isinstance(key, str) or True]
        return _WORD.fullmatch(name) is not None and all(_WORD.fullmatch(key) for key in _keys(value)) and keys != []
    if template == "qwen3_5":
        return all(key and "\n" not in key and ">" not in key and key == key.strip() for key in value)
    return True


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(key for item in value.values() for key in _keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in _keys(item)]
    return []


def cut(text: str, rng: random.Random) -> list[str]:
    pieces, position = [], 0
    while position < len(text):
        size = rng.randint(1, 31)
        pieces.append(text[position : position + size])
        position += size
    return pieces


def assert_fast_path_agrees_with_transformers(backend: ModuleType, spec: dict[str, Any], text: str, seed: int) -> None:
    """``text`` cut by ``seed`` (a character a piece where it is even): the relay's fast path gives the general path's
    events, and the calls' arguments are transformers' ``parse_response``'s."""
    format = ToolCallFormat.from_response_template(spec)
    rng = random.Random(seed)
    pieces = cut(text, rng) if seed % 2 else list(text)
    fast = ModelOutputStream(format, parser_class=backend.StreamingJsonParser, new_call_id=str)
    general = ModelOutputStream(format, parser_class=backend.StreamingJsonParser, new_call_id=str)
    fast_events = [list(fast.feed(piece)) for piece in pieces] + [fast.finish()]
    general_events = [general._feed_general(piece) for piece in pieces] + [general.finish()]
    assert fast_events == general_events
    ends = [event for events in fast_events for event in events if isinstance(event, ToolCallEnd)]
    expected = chat_parsing.parse_response(text, spec, prefix="")
    assert [end.arguments for end in ends] == [call["function"]["arguments"] for call in expected["tool_calls"]]


def read_message(
    backend: ModuleType, template: Any, pieces: list[str], prefix: str = "", tools: Any = None
) -> tuple[dict[str, Any], list[list[dict[str, Any]]]]:
    parser = ResponseParser(template, prefix=prefix, tools=tools, parser_class=backend.StreamingJsonParser)
    batches = [parser.initial_events, *(parser.feed(piece) for piece in pieces)]
    message, last = parser.finalize()
    return message, [*batches, last]


def outputs(template: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Outputs of this family making the real calls, one or two at a time, prose (and reasoning) around."""
    calls = [(name, arguments) for name, arguments in REAL_CALLS if writable(template, name, arguments)]
    rng = random.Random(template)
    found = []
    index = 0
    while index < len(calls):
        group = calls[index : index + 1 + index % 2]
        index += len(group)
        body = "\n".join(write_call(template, name, arguments) for name, arguments in group)
        before = ["", "Let me look.\n", "Sure: {x} <b>now</b>.\n\n"][index % 3]
        think = f"{THINK[template][0]}I should call {group[0][0]}.{THINK[template][1]}\n" if index % 4 == 1 else ""
        after = "\nDone." if rng.random() < 0.3 else ""
        found.append((think + before + body + after + END_OF_TURN[template], group))
    return found


@pytest.mark.parametrize("template", TEMPLATE_NAMES)
def test_fallback_templates_give_transformers_messages_over_the_real_calls(backend: ModuleType, template: str) -> None:
    spec = FALLBACKS[template]
    compiled = compile_response_template(spec)
    rng = random.Random(7)
    checked = 0
    for text, group in outputs(template):
        tools = tools_for(group) if rng.random() < 0.5 else None
        expected = chat_parsing.parse_response(text, spec, prefix="", tools=tools)
        message, batches = read_message(backend, compiled, cut(text, rng), tools=tools)
        assert message == expected, text
        assert len(message["tool_calls"]) == len(group)
        # Each call's argument text streamed before the piece that closed it, and joins to its arguments.
        for index, (_, arguments) in enumerate(group):
            closed_in = next(
                at
                for at, batch in enumerate(batches)
                for event in batch
                if event["type"] == "region_close" and event.get("index") == index
            )
            chunks = [
                (at, event["arguments"])
                for at, batch in enumerate(batches)
                for event in batch
                if event["type"] == "region_chunk" and event.get("index") == index
            ]
            if len(arguments) > 80:
                assert any(at < closed_in for at, _ in chunks), (template, arguments[:80])
            if tools is None:
                joined = json.loads("".join(text for _, text in chunks))
                assert joined == message["tool_calls"][index]["function"]["arguments"]
        checked += 1
    assert checked > 400


def test_the_compiled_formats(backend: ModuleType) -> None:
    qwen2 = ToolCallFormat.from_response_template(FALLBACKS["qwen2"])
    assert (qwen2.payload, qwen2.call_begin, qwen2.call_end, qwen2.reasoning) == (
        "call",
        "<tool_call>",
        "</tool_call>",
        ("<think>", "</think>"),
    )
    assert qwen2.ignored_markers == ("<|im_end|>", "<|endoftext|>", "<|eot_id|>")
    qwen35 = ToolCallFormat.from_response_template(FALLBACKS["qwen3_5"])
    assert (qwen35.payload, qwen35.section_begin, qwen35.call_begin, qwen35.header_end, qwen35.call_end) == (
        "parameters",
        ("<tool_call>",),
        "<function=",
        ">",
        "</function>",
    )
    assert qwen35.parameters is not None and qwen35.parameters.strip
    gemma = ToolCallFormat.from_response_template(FALLBACKS["gemma4"])
    assert (gemma.payload, gemma.call_begin, gemma.header_end, gemma.literal.quotes) == (  # type: ignore[union-attr]
        "literal",
        "<|tool_call>call:",
        "{",
        ('<|"|>',),
    )
    # ModelOutputStream reads the compiled format like any other: a string value streams, its blanks shed.
    stream = ModelOutputStream(qwen35, parser_class=backend.StreamingJsonParser)
    text = "<tool_call>\n<function=write>\n<parameter=text>\n  two words  \n\n</parameter>\n</function>\n</tool_call>"
    events = [event for char in text for event in stream.feed(char)] + stream.finish()
    deltas = "".join(event.text for event in events if isinstance(event, ArgumentsDelta))
    assert deltas == '{"text": "two words"}'
    assert [event for event in events if isinstance(event, ToolCallEnd)][0].arguments == {"text": "two words"}


def test_a_prompt_ending_inside_the_thinking_block_opens_the_output_there(backend: ModuleType) -> None:
    spec = FALLBACKS["qwen3_5"]
    compiled = compile_response_template(spec)
    prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    output = "The user greets me.\n</think>\n\nHello!<|im_end|>"
    assert compiled.reasoning_open(prompt)
    assert not compiled.reasoning_open(prompt + "\n</think>\n\n")
    expected = chat_parsing.parse_response(output, spec, prefix=prompt)
    assert expected["reasoning_content"] == "The user greets me."
    for size in range(1, 8):
        pieces = [output[at : at + size] for at in range(0, len(output), size)]
        assert read_message(backend, compiled, pieces, prefix=prompt)[0] == expected
    # The closed (default) prefill: the output is content.
    closed = prompt + "\n</think>\n\n"
    assert read_message(backend, compiled, ["Hello!<|im_end|>"], prefix=closed)[0] == chat_parsing.parse_response(
        "Hello!<|im_end|>", spec, prefix=closed
    )
    format = ToolCallFormat.from_response_template(compiled)
    stream = ModelOutputStream(format, reasoning_open=compiled.reasoning_open(prompt))
    assert stream.feed("Thinking</think>Hi")[0].kind == "reasoning"


def test_a_schema_types_the_quoted_strings_of_a_json_template_not_its_bare_values(backend: ModuleType) -> None:
    """transformers casts the strings a call's JSON holds by the tool's schema, never a value JSON decoded: a bare
    null, number or true for a string parameter stays what it is (vLLM's hf parser likewise); the stream given the
    tools and the drop-in read them so (where our gemma4 format types them as raw text, as vLLM's Gemma 4 engine)."""
    spec = FALLBACKS["gemma4"]
    properties = {key: {"type": "string"} for key in ("label", "n", "flag")}
    properties["count"] = {"type": "integer"}
    tools = [{"type": "function", "function": {"name": "configure", "parameters": {"properties": properties}}}]
    text = '<|tool_call>call:configure{label:null,n:3,flag:true,count:<|"|>7<|"|>}<tool_call|><turn|>'
    expected = chat_parsing.parse_response(text, spec, prefix="", tools=tools)
    arguments = {"label": None, "n": 3, "flag": True, "count": 7}
    assert expected["tool_calls"][0]["function"]["arguments"] == arguments
    format = ToolCallFormat.from_response_template(spec)
    for size in (1, 3, len(text)):
        pieces = [text[at : at + size] for at in range(0, len(text), size)]
        assert read_message(backend, spec, pieces, tools=tools)[0] == expected
        stream = ModelOutputStream(format, tools=tools, parser_class=backend.StreamingJsonParser)
        events = [event for piece in pieces for event in stream.feed(piece)] + stream.finish()
        (end,) = [event for event in events if isinstance(event, ToolCallEnd)]
        assert (end.arguments, end.error) == (arguments, None)
    gemma = ModelOutputStream("gemma4", tools=tools, parser_class=backend.StreamingJsonParser)
    (end,) = [event for event in gemma.feed(text) + gemma.finish() if isinstance(event, ToolCallEnd)]
    assert end.arguments == {"label": "null", "n": "3", "flag": "true", "count": 7}


def test_reading_the_template_from_where_it_lives(tmp_path: Any) -> None:
    spec = FALLBACKS["gemma4"]
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"model_max_length": 8192, "response_template": spec}))
    tokenizer = SimpleNamespace(response_template=spec)
    processor = SimpleNamespace(tokenizer=tokenizer)
    for source in (spec, tokenizer, processor, config, str(config), tmp_path):
        assert read_response_template(source) == spec
        assert ToolCallFormat.from_response_template(source) == ToolCallFormat.from_response_template(spec)
    with pytest.raises(ValueError, match="no response_template"):
        read_response_template(SimpleNamespace(response_template=None))


def _with_calls(**field: Any) -> dict[str, Any]:
    calls = {"open": "<tool_call>", "close": "</tool_call>", "repeats": True, "content": "json"}
    calls["transform"] = {"type": "function", "function": "{content}"}
    calls.update(field)
    return {"start_anchor": "<|im_start|>assistant\n", "fields": {"tool_calls": calls, "content": {}}}


@pytest.mark.parametrize(
    ("template", "feature"),
    [
        (_with_calls(content="kv-lines", transform=None), "transform"),
        (_with_calls(content="python-call-list"), "json content|python-call-list|transform"),
        (_with_calls(open_pattern=r"<tool_call>(?=\{)", open=None), "regex beyond literals"),
        (_with_calls(repeats=False), "without 'repeats'"),
        (_with_calls(content_args={"allow_non_json": True}), "content_args"),
        (
            _with_calls(
                open_pattern=r"<function=(?P<name>\w+)>",
                open=None,
                content="xml-inline",
                content_args={"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"},
                transform={"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
            ),
            "tag_pattern",
        ),
    ],
)
def test_what_cannot_be_streamed_is_refused_by_field_and_feature(template: dict[str, Any], feature: str) -> None:
    fields = template["fields"]["tool_calls"]
    for key in [key for key, value in fields.items() if value is None]:
        del fields[key]
    with pytest.raises(ValueError, match=f"field 'tool_calls'.*({feature})"):
        ToolCallFormat.from_response_template(template)


@examples(100)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["path", "content"]), st.text(st.sampled_from([" ", "\n", "\t", "a", '"', "é", "<"]))
        ),
        min_size=1,
        max_size=2,
    ),
    st.integers(0, 10**6),
)
def test_stripped_values_stream_alike_on_the_fast_and_general_paths(
    backend: ModuleType, drawn: list[dict[str, str]], seed: int
) -> None:
    """A value whose blanks the template strips: the relay's fast path holds back its last blanks as the general path
    does, and both give transformers' message."""
    spec = FALLBACKS["qwen3_5"]
    text = "Hi.\n" + "\n".join(write_call("qwen3_5", "write", json.dumps(value)) for value in drawn) + "<|im_end|>"
    assert_fast_path_agrees_with_transformers(backend, spec, text, seed)


# transformers' Qwen3 template (its response-parsing tests' fixture): two markers open a call, </tool_call> alone
# closes it (</function> is text between parameters, which xml-inline passes over), and each value is JSON where its
# text is, else the text ("value_parser": json with allow_non_json).
QWEN3 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>\w+)>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}


def test_qwen3_values_are_json_where_they_parse_and_strings_stream(backend: ModuleType) -> None:
    long_text = "wake up, " * 30
    values = {
        "note": long_text,  # a string from its first letter: streams
        "places": '[{"city": "Paris"}, 1.50]',  # may be JSON: held until it ends, then JSON
        "hour": "007",  # may be JSON until it ends, and is not: the text
        "enabled": "true",
        "story": "true story",  # leaves "true" behind: a string
        "nothing": "null",
    }
    parameters = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in values.items())
    text = f"Let me.\n<tool_call>\n<function=set_alarm>\n{parameters}</function>\n</tool_call>"
    expected = chat_parsing.parse_response(text, QWEN3, prefix="")
    assert expected["tool_calls"][0]["function"]["arguments"]["places"] == [{"city": "Paris"}, 1.5]
    format = ToolCallFormat.from_response_template(QWEN3)
    assert (format.call_begin, format.header_end, format.call_end) == ("<tool_call>", ">", "</tool_call>")
    for size in (1, 4, 31):
        pieces = [text[at : at + size] for at in range(0, len(text), size)]
        message, batches = read_message(backend, QWEN3, pieces)
        assert message == expected
        # The long string's text streamed before its parameter (and so the call) closed.
        fed = 0
        closes_at = text.index("</parameter>", text.index(long_text))
        streamed_before_close = ""
        for piece, batch in zip(pieces, batches[1:]):
            fed += len(piece)
            if fed < closes_at:
                streamed_before_close += "".join(event.get("arguments", "") for event in batch)
        assert json.dumps(long_text.strip())[1:-1][:200] in streamed_before_close
    # The stream alone: the JSON value goes out as the model wrote it, the strings as they come.
    stream = ModelOutputStream(format, parser_class=backend.StreamingJsonParser)
    events = [event for char in text for event in stream.feed(char)] + stream.finish()
    deltas = "".join(event.text for event in events if isinstance(event, ArgumentsDelta))
    assert json.loads(deltas) == expected["tool_calls"][0]["function"]["arguments"]
    assert '"places": [{"city": "Paris"}, 1.50]' in deltas


def _call_list_template(content: str, name_key: str, arguments_key: str, open_: str, close: str) -> dict[str, Any]:
    """A field holding a list of calls, each transformed (``transform_each``): the pythonic list, or Cohere's JSON."""
    function = {"name": "{" + name_key + "}", "arguments": "{" + arguments_key + "}"}
    return {
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {
                "open": open_,
                "close": close,
                "content": content,
                "transform_each": True,
                "transform": {"type": "function", "function": function},
            },
            "content": {"close": "<|im_end|>"},
        },
    }


PYTHON_CALL_LIST = _call_list_template("python-call-list", "name", "arguments", "<tool_calls>", "</tool_calls>")
COHERE_CALL_LIST = _call_list_template("json", "tool_name", "parameters", "<|START_ACTION|>", "<|END_ACTION|>")


@pytest.mark.parametrize("template", [PYTHON_CALL_LIST, COHERE_CALL_LIST], ids=["python-call-list", "cohere"])
def test_a_list_of_calls_streams_each_calls_arguments(backend: ModuleType, template: dict[str, Any]) -> None:
    long_text = "line one\\n" * 40
    field = template["fields"]["tool_calls"]
    if field["content"] == "python-call-list":
        calls = f'[write(path="a.txt", text="{long_text}", lines=[1, 2.5], mode=None), get_time()]'
        say = "Hi <b>there</b>, [x] (y)."
    else:
        first = f'{{"tool_call_id": "0", "tool_name": "write", "parameters": {{"text": "{long_text}", "n": [1]}}}}'
        calls = f'[\n  {first},\n  {{"tool_call_id": "1", "tool_name": "get_time", "parameters": {{}}}}\n]'
        say = "Hi {there}."
    text = f"<think>Two calls.</think>{say}\n{field['open']}{calls}{field['close']}<|im_end|>"
    tools = [{"type": "function", "function": {"name": "write", "parameters": {"type": "object", "properties": {}}}}]
    for use_tools in (None, tools + [{"type": "function", "function": {"name": "get_time"}}]):
        expected = chat_parsing.parse_response(text, template, prefix="", tools=use_tools)
        assert [call["function"]["name"] for call in expected["tool_calls"]] == ["write", "get_time"]
        for size in (1, 5, 29):
            pieces = [text[at : at + size] for at in range(0, len(text), size)]
            message, batches = read_message(backend, template, pieces, tools=use_tools)
            assert message == expected
            # The first call's arguments stream before the piece that closes it.
            closed_in = next(
                at
                for at, batch in enumerate(batches)
                for event in batch
                if event["type"] == "region_close" and event.get("index") == 0
            )
            before = "".join(
                event["arguments"]
                for batch in batches[:closed_in]
                for event in batch
                if event["type"] == "region_chunk" and event.get("index") == 0
            )
            assert "line one\\nline one\\n" in before
    format = ToolCallFormat.from_response_template(template)
    assert format.section_begin == (field["open"],) and format.section_end == (field["close"],)
    # A server's structural tag writes the list's brackets inside the field's markers, as transformers reads it.
    tag = json.dumps(structural_tag(format, [("write", {"type": "object", "properties": {}})]))
    assert '{"type": "const_string", "value": "["}' in tag and '{"type": "const_string", "value": "]"}' in tag


# gpt-oss's tool-call field as transformers' response-parsing tests write it: the name, then any text (.*?) up to
# <|message|>, then the arguments' JSON (their template's content field aside: the answer here is the text outside).
GPT_OSS_CALLS = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start|>assistant",
    "fields": {
        "thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text"},
        "content": {"close": "<|return|>"},
        "tool_calls": {
            "open_pattern": r"<\|channel\|>commentary to=functions\.(?P<name>\w+).*?<\|message\|>",
            "close": "<|call|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}


def test_an_opener_that_skips_text_between_the_name_and_a_marker(backend: ModuleType) -> None:
    format = ToolCallFormat.from_response_template(GPT_OSS_CALLS)
    assert (format.payload, format.call_begin, format.header_end) == (
        "arguments",
        "<|channel|>commentary to=functions.",
        "<|message|>",
    )
    arguments = json.dumps({"location": "San Francisco, CA", "note": "sunny " * 40})
    for end in ("<|call|>", ""):  # the call's end marker, or the output's end
        text = (
            "<|channel|>analysis<|message|>We will call.<|end|>"
            f"<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{arguments}{end}"
        )
        expected = chat_parsing.parse_response(text, GPT_OSS_CALLS, prefix="")
        assert expected["tool_calls"][0]["function"]["name"] == "get_weather"
        for size in (1, 6, 31):
            pieces = [text[at : at + size] for at in range(0, len(text), size)]
            message, batches = read_message(backend, GPT_OSS_CALLS, pieces)
            assert message == expected
            streamed = [
                (at, event["arguments"])
                for at, batch in enumerate(batches)
                for event in batch
                if event["type"] == "region_chunk" and event.get("index") == 0
            ]
            # Before the piece holding the arguments' last character, most of them had streamed.
            last_piece = 1 + (len(text) - len(end) - 1) // size
            assert len("".join(chunk for at, chunk in streamed if at < last_piece)) > len(arguments) - size - 2


def test_every_event_is_the_callers_own_and_a_finalized_parser_refuses_more(backend: ModuleType) -> None:
    """Events kept or edited by the caller stay as they were given: each piece's argument event is a fresh dict, so
    the kept chunks of a call still join to its arguments; after ``finalize()``, ``feed`` raises as transformers'
    does, and text is the only thing it takes."""
    arguments = {"path": "src/app.py", "content": "\n".join(["def f():", "    return 1"] * 20)}
    name = "write"
    for template in ("qwen2", "qwen3_5"):
        text = "I'll write it.\n" + write_call(template, name, json.dumps(arguments)) + END_OF_TURN[template]
        parser = ResponseParser(FALLBACKS[template], prefix="", parser_class=backend.StreamingJsonParser)
        kept = []
        for at in range(len(text)):
            for event in parser.feed(text[at]):
                kept.append(event)
                if event["type"] == "region_chunk" and "arguments" in event:
                    event["note"] = at  # the caller's own mark
        message, _ = parser.finalize()
        chunks = [event for event in kept if event["type"] == "region_chunk" and "arguments" in event]
        assert len(chunks) > len(arguments["content"]) / 2  # the arguments streamed a piece at a time
        assert len({id(event) for event in chunks}) == len(chunks)
        assert json.loads("".join(event["arguments"] for event in chunks)) == arguments
        assert all(event["text"] == event["arguments"] and event["name"] == name for event in chunks)
        assert message["tool_calls"] == [{"type": "function", "function": {"name": name, "arguments": arguments}}]
        with pytest.raises(RuntimeError):
            parser.feed("more")
        with pytest.raises(TypeError):
            ResponseParser(FALLBACKS[template], prefix="").feed(b"bytes")  # type: ignore[arg-type]


# kv-lines (transformers' response-parsing tests' fixture): KEY: VALUE lines after the opener, each line, key and
# value stripped, a line without ":" passed over; values strings (or, with Qwen3's value_parser, JSON where they are).
KV_LINES = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>\w+)>\n",
            "close": "</tool_call>",
            "repeats": True,
            "content": "kv-lines",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close": "<|im_end|>"},
    },
}


@pytest.mark.parametrize("value_parser", [None, {"name": "json", "args": {"allow_non_json": True}}])
def test_kv_lines_stream_each_value(backend: ModuleType, value_parser: Any) -> None:
    template = json.loads(json.dumps(KV_LINES))
    if value_parser is not None:
        template["fields"]["tool_calls"]["content_args"] = {"value_parser": value_parser}
    format = ToolCallFormat.from_response_template(template)
    assert format.parameters is not None and format.parameters.lines
    long_text = "a: b " * 60
    text = (
        "Setting it.\n<tool_call>\n<function=set_alarm>\n  hour : 7\nno separator here\n\n"
        f"label: {long_text}\nenabled: true\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n"
        "</tool_call><|im_end|>"
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": {"hour": {"type": "integer"}}},
            },
        }
        for name in ("set_alarm", "get_time")
    ]
    for use_tools in (None, tools):
        expected = chat_parsing.parse_response(text, template, prefix="", tools=use_tools)
        assert expected["tool_calls"][0]["function"]["arguments"]["label"] == long_text.strip()
        for size in (1, 7, 31):
            pieces = [text[at : at + size] for at in range(0, len(text), size)]
            message, batches = read_message(backend, template, pieces, tools=use_tools)
            assert message == expected
            # The label's text streamed before its line (and so the call) ended.
            line_end = text.index("\nenabled")
            before = "".join(
                event.get("arguments", "")
                for piece_at, batch in zip(range(0, len(text), size), batches[1:])
                if piece_at + size <= line_end
                for event in batch
            )
            assert "a: b a: b a: b" in before


@examples(100)
@given(
    st.sampled_from(["qwen3", "kv-lines"]),
    st.lists(
        st.text(st.sampled_from([" ", "\n", "a", "t", "r", "u", "e", '"', "1", "-", ".", "[", "]", "{", "}", ":"])),
        min_size=1,
        max_size=3,
    ),
    st.integers(0, 10**6),
)
def test_json_or_text_and_line_values_stream_alike_on_the_fast_and_general_paths(
    backend: ModuleType, shape: str, values: list[str], seed: int
) -> None:
    """Values that are JSON where their text is (Qwen3's), and values of kv-lines: the relay's fast path gives the
    general path's events, and both give transformers' arguments."""
    if shape == "qwen3":
        spec = QWEN3
        body = "".join(f"<parameter=p{at}>\n{value}\n</parameter>\n" for at, value in enumerate(values))
        text = f"Hi.\n<tool_call>\n<function=f>\n{body}</function>\n</tool_call>"
    else:
        spec = json.loads(json.dumps(KV_LINES))
        spec["fields"]["tool_calls"]["content_args"] = {
            "value_parser": {"name": "json", "args": {"allow_non_json": True}}
        }
        lines = [value.replace("\n", " ") for value in values]
        body = "".join(f"p{at}: {line}\n" for at, line in enumerate(lines))
        text = f"Hi.\n<tool_call>\n<function=f>\n{body}</tool_call>"
    assert_fast_path_agrees_with_transformers(backend, spec, text, seed)


# ERNIE 4.5's template as transformers' tests write it: the reasoning opens at the start of the text (or after
# <think>), the answer stands between <response> markers, and text outside every field is no part of the message.
ERNIE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "Assistant:",
    "fields": {
        "thinking": {"open_pattern": r"(?:^|<think>\s*)", "close": "</think>", "content": "text"},
        "content": {"open": "<response>\n", "close_pattern": r"\n?</response>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
    },
}
# A content field between anchors of its own, as Cohere's Command A writes its answer, beside Hermes' calls.
RESPONSE_BLOCK = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "fields": {
        "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>"},
        "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
    },
}
_ERNIE_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2]}}\n</tool_call>'


def _same_message_at_every_cut(backend: ModuleType, spec: dict[str, Any], output: str, prefix: str = "") -> None:
    expected = chat_parsing.parse_response(output, spec, prefix=prefix)
    compiled = compile_response_template(spec)
    rng = random.Random(output)
    cuts = [[output[at : at + size] for at in range(0, len(output), size)] for size in range(1, 9)]
    for pieces in [[output], *cuts, *(cut(output, rng) for _ in range(4))]:
        message, batches = read_message(backend, compiled, pieces, prefix=prefix)
        assert message == expected, (pieces, message, expected)
        events = [event for batch in batches for event in batch]
        for index, event in enumerate(events):  # each call's arguments stream before it closes
            if event["type"] == "region_close" and event["field"] == "tool_calls":
                chunks = [e for e in events[:index] if e["type"] == "region_chunk" and e.get("index") == event["index"]]
                assert json.loads("".join(e["arguments"] for e in chunks)) == event["value"]["function"]["arguments"]


@pytest.mark.parametrize(
    ("output", "prefix"),
    [
        ("I should check.\n</think>\n\n" + _ERNIE_CALL + "\n</s>", ""),
        ("Just greet.\n</think>\n\n<response>\nHello! <tool_call> is a tag.\n</response>\n</s>", ""),
        ("<think>At the start, <think> is the block's text.</think>\n<response>\nHi\n</response>", ""),
        ("Thought.</think>stray words<response>\nOne.\n</response> dropped <think>\nMore.</think>", ""),
        ("Cut off in the thinking", ""),
        ("</think>\n\n" + _ERNIE_CALL + "<response>\nLeft open", "User: Hi\nAssistant: <think>Earlier"),
        ("Weather?</think>" + _ERNIE_CALL + _ERNIE_CALL.replace("Paris", "Rome"), "User: Hi\nAssistant:"),
        # Another field's opener at the very start wins over the block's (transformers takes the longer match there).
        ("<response>\nNo thinking today.\n</response>", ""),
        (_ERNIE_CALL + "\n</s>", "User: Hi\nAssistant:"),
        ("Hi\n</response>", "User: Hi\nAssistant:<response>\n"),
        ("<respond>ing is a thought</think><response>\nOK\n</response>", ""),
        ("<resp", ""),
    ],
)
def test_ernie_reasoning_from_the_start_and_the_answer_between_its_markers(
    backend: ModuleType, output: str, prefix: str
) -> None:
    _same_message_at_every_cut(backend, ERNIE, output, prefix)


def test_a_content_field_with_anchors_of_its_own_drops_the_text_outside_every_field(backend: ModuleType) -> None:
    format = ToolCallFormat.from_response_template(RESPONSE_BLOCK)
    assert (format.content_begin, format.content_end) == (("<|START_RESPONSE|>",), ("<|END_RESPONSE|>",))
    for output in [
        "<|START_THINKING|>Plan.<|END_THINKING|>" + _ERNIE_CALL + "<|END_OF_TURN_TOKEN|>",
        "noise <|START_RESPONSE|>The answer: <tool_call> stays text.<|END_RESPONSE|>after<|END_OF_TURN_TOKEN|>",
        "<|START_THINKING|>a<|END_THINKING|>\n<|START_RESPONSE|>Calling." + "<|END_RESPONSE|>\n" + _ERNIE_CALL,
        "<|START_RESPONSE|>Cut off <|START_THINKING|>inside",
    ]:
        _same_message_at_every_cut(backend, RESPONSE_BLOCK, output)
    # The engine alone: the block's text streams as content as it comes (the relay's fast path and the general path
    # alike); outside it, nothing.
    text = "x<|START_RESPONSE|>" + "Long answer, " * 5 + "<|END_RESPONSE|>tail" + _ERNIE_CALL
    pieces = [text[at : at + 3] for at in range(0, len(text), 3)]
    fast = ModelOutputStream(format, parser_class=backend.StreamingJsonParser, new_call_id=str)
    general = ModelOutputStream(format, parser_class=backend.StreamingJsonParser, new_call_id=str)
    fast_events = [list(fast.feed(piece)) for piece in pieces] + [fast.finish()]
    assert fast_events == [general._feed_general(piece) for piece in pieces] + [general.finish()]
    content = "".join(event.text for events in fast_events for event in events if event.kind == "content")
    assert content == "Long answer, " * 5


def test_the_text_fields_compile_to_the_engines_data() -> None:
    ernie = compile_response_template(ERNIE)
    format = ToolCallFormat.from_response_template(ernie)
    assert (format.reasoning, format.content_begin, format.content_end) == (
        ("<think>", "</think>"),
        ("<response>\n",),
        ("</response>",),
    )
    assert ernie.reasoning_at_start
    # The prompt's tail opens the block at its start: it is open unless the tail closes it (and opens none again).
    assert ernie.reasoning_open("User: Hi\nAssistant:")
    assert not ernie.reasoning_open("User: Hi\nAssistant: done</think>\n")
    assert ernie.reasoning_open("User: Hi\nAssistant: done</think><think>again")
    qwen = compile_response_template(FALLBACKS["qwen2"])
    assert not qwen.reasoning_at_start and not qwen.reasoning_open("<|im_start|>assistant\n<think>a</think>")


def _text_fields(**fields: Any) -> dict[str, Any]:
    template = _with_calls()
    template["fields"].pop("content")
    template["fields"].update(fields)
    return template


@pytest.mark.parametrize(
    ("template", "field", "feature"),
    [
        (_text_fields(answer={"open": "<a>", "close": "</a>"}), "answer", "a text field other than the content"),
        (_text_fields(content={"open": "<a>"}, body={}), "body", "a field without an opener beside a content field"),
        (_text_fields(body={}, content={"open": "<a>"}), "content", "a content field with an opener beside a field"),
        (_text_fields(content={"open_pattern": r"<a \w+>"}), "content", "regex beyond literals"),
        (
            _text_fields(content={"open": "<a>", "close_pattern": r"\n?</a>", "content_args": {"strip": False}}),
            "content",
            "blanks in the closer of a text field kept as written",
        ),
        (_text_fields(thinking={"open_pattern": r"(?:<think>|^)", "close": "</think>"}), "thinking", "a group of"),
        (_text_fields(thinking={"open": "<t>", "close": "</t>", "repeats": True, "join": ""}), "thinking", "'join'"),
        (
            _text_fields(thinking={"open": "<t>", "repeats": True, "join": " ", "content_args": {"strip": False}}),
            "thinking",
            "'join' other than",
        ),
        (_text_fields(thinking={"open": "<t>", "close": "</t>", "repeats": True}), "thinking", "without 'join'"),
        (
            _text_fields(thinking={"open_pattern": r"[^<]*<t>", "close": "</t>"}, content={}),
            "thinking",
            "text before the opener's marker",
        ),
        (_text_fields(thinking={"open_pattern": r"<t>[^<]*<u>", "close": "</t>"}), "thinking", "but before its marker"),
        (_text_fields(thinking={"open_pattern": r"[^<]*", "close": "</t>"}), "thinking", "an opener without a marker"),
        (
            {
                "start_anchor": "<|im_start|>assistant\n",
                "fields": {
                    "content": {},
                    "tool_calls": {
                        "open_pattern": "[^<]*<c>",
                        "close": "</c>",
                        "repeats": True,
                        "content": "json",
                        "transform": {"type": "function", "function": "{content}"},
                    },
                },
            },
            "tool_calls",
            "text before the opener's marker",
        ),
    ],
)
def test_text_fields_the_engine_cannot_stream_are_refused_by_name(
    template: dict[str, Any], field: str, feature: str
) -> None:
    with pytest.raises(ValueError, match=f"field '{field}'.*{re.escape(feature)}"):
        compile_response_template(template)


# transformers' Qwen3 template (its response-parsing tests' fixture): two markers open a call, </tool_call> alone
# closes it (</function> is text between parameters, which xml-inline passes over), and each value is JSON where its
# text is, else the text ("value_parser": json with allow_non_json).
QWEN3 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>\w+)>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}


# Inkling's template as transformers' tests write it: each block's header optional before its marker, the thinking
# and the answer kept as written and joined from every block, a call's name and arguments under its JSON's keys.
_INKLING_BLOCK = r"(?:<\|message_model\|>)?[^<]*"
INKLING = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|message_model|>",
    "fields": {
        "thinking": {
            "open_pattern": _INKLING_BLOCK + r"<\|content_thinking\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "join": "",
            "content_args": {"strip": False},
        },
        "content": {
            "open_pattern": _INKLING_BLOCK + r"<\|content_text\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "join": "",
            "content_args": {"strip": False},
        },
        "tool_calls": {
            "open_pattern": _INKLING_BLOCK + r"<\|content_invoke_tool_json\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}},
        },
    },
}


@pytest.mark.parametrize(
    ("output", "prefix"),
    [
        (
            "<|content_thinking|>Consider the weather.<|end_message|><|message_model|><|content_thinking|> Tokyo, "
            "probably.<|end_message|><|message_model|><|content_text|>Checking now.<|end_message|><|message_model|>"
            'get_weather<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Tokyo", "n": [1]}}'
            "<|end_message|><|content_model_end_sampling|>",
            "<|message_system|><|content_text|>Effort: 0.9<|end_message|><|message_model|>",
        ),
        ("<|content_text|> a <|end_message|>x<|content_text|>\nb\n<|end_message|><|content_thinking|>t", ""),
        ("more<|end_message|>author<|content_text|>Answer", "<|message_model|><|content_thinking|>Begun "),
    ],
)
def test_inkling_blocks_join_into_the_thinking_and_the_answer(backend: ModuleType, output: str, prefix: str) -> None:
    compiled = compile_response_template(INKLING)
    assert compiled.joined_fields == ("thinking", "content")
    assert compiled.format_fields["content_begin"] == ("<|content_text|>",)
    assert compiled.format_fields["call_begin"] == "<|content_invoke_tool_json|>"
    _same_message_at_every_cut(backend, INKLING, output, prefix)


# Cohere's and gpt-oss's templates whole, as transformers' tests write them: the answer between markers of its own
# (<|START_RESPONSE|>, <|channel|>final<|message|>), beside the reasoning and the calls; text outside them dropped.
COHERE = {
    **COHERE_CALL_LIST,
    "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "fields": {
        "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>", "content": "text"},
        "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>", "content": "text"},
        "tool_calls": COHERE_CALL_LIST["fields"]["tool_calls"],
    },
}
GPT_OSS = {
    **GPT_OSS_CALLS,
    "fields": {
        "thinking": GPT_OSS_CALLS["fields"]["thinking"],
        "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>", "content": "text"},
        "tool_calls": GPT_OSS_CALLS["fields"]["tool_calls"],
    },
}
_COHERE_ACTION = (
    '<|START_ACTION|>[\n  {"tool_call_id": "0", "tool_name": "set_alarm", "parameters": {"time": "7:00", "days": [1]}}'
    "\n]<|END_ACTION|>"
)
_GPT_OSS_CALL = (
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
    '{"location": "San Francisco, CA"}<|call|>'
)


@pytest.mark.parametrize(
    ("template", "output"),
    [
        (COHERE, "<|START_THINKING|>Set it.<|END_THINKING|>" + _COHERE_ACTION + "<|END_OF_TURN_TOKEN|>"),
        (COHERE, "<|START_RESPONSE|>Done: <|START_ACTION|> is a marker.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>"),
        (COHERE, "stray<|START_THINKING|>a<|END_THINKING|> x <|START_RESPONSE|>Cut off"),
        (GPT_OSS, "<|channel|>analysis<|message|>Check.<|end|>" + _GPT_OSS_CALL),
        (GPT_OSS, "<|channel|>analysis<|message|>t<|end|><|start|>assistant<|channel|>final<|message|>2<|return|>"),
        (GPT_OSS, "<|channel|>final<|message|>It is <b>sunny</b>.<|end|><|start|>assistant"),
    ],
    ids=["cohere-call", "cohere-answer", "cohere-cut", "gpt-oss-call", "gpt-oss-answer", "gpt-oss-end"],
)
def test_cohere_and_gpt_oss_answers_between_markers_of_their_own(
    backend: ModuleType, template: dict[str, Any], output: str
) -> None:
    assert ToolCallFormat.from_response_template(template).content_begin == (template["fields"]["content"]["open"],)
    _same_message_at_every_cut(backend, template, output)


@pytest.mark.parametrize("template", [QWEN3, KV_LINES], ids=["qwen3", "kv-lines"])
def test_an_opener_of_several_literals_that_does_not_match_is_content(backend: ModuleType, template: Any) -> None:
    """Hermes' JSON after <tool_call>, or a name \\w+ does not read, under Qwen3's opener: transformers' regex does
    not match, and the text stays content; so here (the header holds a character the opener cannot)."""
    spec = json.loads(json.dumps(template))
    spec["fields"]["content"] = {"close": "<|im_end|>"}
    for text in (
        'Hi\n<tool_call>\n{"name": "x", "arguments": {"a": "<b>"}}\n</tool_call><|im_end|>',
        "Hi <tool_call> <function=get-x>\n<parameter=a>1</parameter></tool_call> ok",
    ):
        expected = chat_parsing.parse_response(text, spec, prefix="")
        assert "tool_calls" not in expected
        for size in (1, 4, len(text)):
            pieces = [text[at : at + size] for at in range(0, len(text), size)]
            assert read_message(backend, spec, pieces)[0] == expected


# A call between markers whose opener lets a header stand before its marker (Inkling's frames, as transformers'
# response-parsing tests write them: (?:<|message_model|>)?[^<]*<|content_invoke_tool_json|>), its JSON object naming
# the tool and the arguments under keys of its own ({content.name}, {content.args}); text outside the fields dropped.
FRAMED_CALLS = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|message_model|>",
    "fields": {
        "content": {
            "open_pattern": r"(?:<\|message_model\|>)?[^<]*<\|content_text\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "join": "",
            "content_args": {"strip": False},
        },
        "tool_calls": {
            "open_pattern": r"(?:<\|message_model\|>)?[^<]*<\|content_invoke_tool_json\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}},
        },
    },
}


def test_a_framed_call_names_its_tool_and_arguments_under_keys_of_its_own(backend: ModuleType) -> None:
    format = ToolCallFormat.from_response_template(FRAMED_CALLS)
    assert (format.payload, format.call_begin, format.name_keys, format.arguments_keys) == (
        "call",
        "<|content_invoke_tool_json|>",
        ("name",),
        ("args",),
    )
    arguments = {"path": "a.txt", "text": "one line\n" * 30}
    call = json.dumps({"name": "write", "args": arguments})
    text = (
        "assistant<|content_text|>Writing it.<|end_message|>"
        f"<|message_model|>assistant<|content_invoke_tool_json|>{call}<|end_message|>"
    )
    expected = chat_parsing.parse_response(text, FRAMED_CALLS, prefix="")
    assert expected["tool_calls"][0]["function"] == {"name": "write", "arguments": arguments}
    for size in (1, 5, 31):
        pieces = [text[at : at + size] for at in range(0, len(text), size)]
        message, batches = read_message(backend, FRAMED_CALLS, pieces)
        assert message == expected
        closed_in = next(
            at
            for at, batch in enumerate(batches)
            for event in batch
            if event["type"] == "region_close" and event.get("index") == 0
        )
        before = "".join(
            event["arguments"]
            for batch in batches[:closed_in]
            for event in batch
            if event["type"] == "region_chunk" and event.get("index") == 0
        )
        assert "one line\\none line\\n" in before


def _python_value(rng: random.Random, depth: int = 0) -> Any:
    draw = rng.random()
    if depth < 2 and draw < 0.15:
        return [_python_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and draw < 0.3:
        return {f"k{at}": _python_value(rng, depth + 1) for at in range(rng.randint(0, 3))}
    if draw < 0.5:
        chars = ["a", " ", '"', "'", "\\", "\n", "\t", "é", "/", "(", ")", ",", "=", "]", "[", "<"]
        return "".join(rng.choice(chars) for _ in range(rng.randint(0, 8)))
    if draw < 0.65:
        return rng.randint(-(10**6), 10**6)
    if draw < 0.75:
        return rng.choice([1.5, -0.25, 1e10, 2.5e-3])
    return rng.choice([True, False, None])


def _python_literal(rng: random.Random, value: Any, quotes: str) -> str:
    """A value as a model writes it in a Python call: strings in JSON's quotes and escapes or Python's repr,
    True/true, None/null."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=rng.random() < 0.5) if quotes == "json" else repr(value)
    if isinstance(value, bool):
        return rng.choice([str(value), str(value).lower()])
    if value is None:
        return rng.choice(["None", "null"])
    if isinstance(value, list):
        return "[" + ", ".join(_python_literal(rng, item, quotes) for item in value) + "]"
    if isinstance(value, dict):
        pairs = (
            f"{_python_literal(rng, key, quotes)}: {_python_literal(rng, item, quotes)}" for key, item in value.items()
        )
        return "{" + ", ".join(pairs) + "}"
    return json.dumps(value)


def test_python_call_lists_read_as_transformers_reads_them(backend: ModuleType) -> None:
    """Lists of calls written with every kind of value transformers' python-call-list grammar reads (strings in
    either quotes, with escapes; numbers; True/true, None/null; nested lists and dicts), cut at random: the same
    message."""
    rng = random.Random(43)
    compared = 0
    for _ in range(200):
        quotes = rng.choice(["json", "repr"])
        calls = []
        for index in range(rng.randint(1, 2)):
            arguments = {f"a{at}": _python_value(rng) for at in range(rng.randint(0, 3))}
            written = ", ".join(f"{key}={_python_literal(rng, value, quotes)}" for key, value in arguments.items())
            calls.append(f"f{index}({written})")
        text = "Hi\n<tool_calls>[" + ", ".join(calls) + "]</tool_calls><|im_end|>"
        expected = chat_parsing.parse_response(text, PYTHON_CALL_LIST, prefix="")
        message = read_message(backend, PYTHON_CALL_LIST, cut(text, rng))[0]
        assert message == expected, text
        compared += 1
    assert compared == 200
