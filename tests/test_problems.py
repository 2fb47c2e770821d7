"""Errors a program can act on: ``JsonProblem`` (``incomplete``, ``malformed``, ``not_object``, ``invalid``, with
where) on ``ToolCallResult``, ``LiveToolCall`` and structured output's result, ``JsonParseError`` from
``parse_json_with_repair``; streams that end without the API's own end, and the providers' length stops, leave their
open calls ``incomplete``; both backends give the same problems."""

from __future__ import annotations

import copy
import json
import pickle
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import (
    JsonParseError,
    JsonProblem,
    ToolCallResult,
    parse_json_with_repair,
    parse_tool_call_arguments,
)
from streaming_json.integrations import (
    AnthropicStructuredOutput,
    AnthropicToolCalls,
    OpenAIChatStructuredOutput,
    OpenAIChatToolCalls,
    OpenAIResponsesStructuredOutput,
    OpenAIResponsesToolCalls,
    StructuredOutputResult,
)

from .sdk_events import (
    anthropic_text_delta,
    block_start,
    block_stop,
    chat_chunk,
    content_delta,
    finish_choice,
    item_added,
    json_delta,
    message_end,
    message_start,
    response_event,
    text_delta,
    tool_delta,
    tool_use_start,
)
from .sdk_events import arguments_delta as responses_arguments_delta
from .strategies import examples, json_texts


def problem_of(text: str) -> JsonProblem:
    with pytest.raises(JsonParseError) as raised:
        parse_json_with_repair(text)
    return raised.value.problem


# --- Incomplete or malformed ------------------------------------------------------------------------------------------


@examples(150)
@given(json_texts(), st.data())
def test_a_cut_off_document_is_incomplete_at_its_end(text: str, data: st.DataObject) -> None:
    """Every prefix of a JSON text that does not parse is ``incomplete``: a call cut off is never called malformed."""
    cut = data.draw(st.integers(0, len(text)))
    prefix = text[:cut]
    try:
        parse_json_with_repair(prefix)
    except JsonParseError as error:
        line = prefix.count("\n") + 1
        assert error.problem == JsonProblem(
            "incomplete", len(prefix), line, len(prefix) - prefix.rfind("\n"), "the text ended inside a value"
        )


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "x',  # inside a string
        '{"a": "x\\',  # after a backslash
        '{"a": "\\u00e',  # inside a \u escape
        '{"a": "\\u00e9',  # after a whole \u escape, before the quote
        '{"a": tr',  # inside a literal
        '{"a": -',  # a minus
        '{"a": 1.',  # a dot
        '{"a": 1e+',  # an exponent
        '{"a": [1, ',
        '{"a"',
        "",
        "  ",
        '{"code": "line\nbreak',  # a raw newline, which the repair escapes, in a string cut off
    ],
)
def test_incomplete_texts(text: str) -> None:
    problem = problem_of(text)
    assert (problem.kind, problem.offset) == ("incomplete", len(text))


def as_this_json_says(text: str, offset: int, detail: str) -> tuple[str, int, str]:
    """A trailing comma's case as the running ``json`` words it: CPython 3.13's names the trailing comma and points at
    it (``Illegal trailing comma before end of object``), where earlier versions (and PyPy's) point past it; the
    problem keeps json's message and position, whichever they are."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg.startswith("Illegal trailing comma"):
            return text, error.pos, error.msg
    return text, offset, detail


@pytest.mark.parametrize(
    "text,offset,detail",
    [
        ('{"a": 1}x', 8, "Extra data"),
        ('{"a" 1}', 5, "Expecting ':' delimiter"),
        ("[1 2]", 3, "Expecting ',' delimiter"),
        as_this_json_says('{"a": 1,}', 8, "Expecting property name enclosed in double quotes"),
        as_this_json_says("[1,]", 3, "Expecting value"),
        ('{"a": tx}', 6, "Expecting value"),
        ("tru ", 0, "Expecting value"),  # a literal cut off is incomplete; one followed by a blank is not
        ('{"a": 1.e5}', 7, "Expecting ',' delimiter"),
        ("[1, 2-", 5, "Expecting ',' delimiter"),
        ("01", 1, "Extra data"),
        ('{"a": NaN}', 6, "NaN is not valid JSON"),
        ('{"k": "x", "a": -Infinity}', 16, "-Infinity is not valid JSON"),
        ('{"NaN": "Infinity", "b": NaN}', 25, "NaN is not valid JSON"),  # not inside the strings
    ],
)
def test_malformed_texts_at_their_first_bad_character(text: str, offset: int, detail: str) -> None:
    assert problem_of(text) == JsonProblem("malformed", offset, 1, offset + 1, detail)


def test_a_repaired_string_does_not_move_the_offset() -> None:
    """A raw newline inside a string is repaired (two characters in the repair): the offset, line and column of
    what is wrong after it are those of the text as received."""
    text = '{"k": "x\ny", "a" 1}'
    assert problem_of(text) == JsonProblem("malformed", 17, 2, 9, "Expecting ':' delimiter")


def test_the_error_keeps_json_s_message_and_position() -> None:
    text = '{"a": 1 "b": 2}'
    with pytest.raises(JsonParseError) as raised:
        parse_json_with_repair(text)
    error = raised.value
    assert isinstance(error, ValueError) and isinstance(error, json.JSONDecodeError)
    # json's own words (PyPy's json words this error otherwise where no hook is given: a literal, not json.loads(text))
    assert str(error) == "Expecting ',' delimiter: line 1 column 9 (char 8)"
    assert (error.msg, error.pos, error.lineno, error.colno) == ("Expecting ',' delimiter", 8, 1, 9)
    assert error.problem == JsonProblem("malformed", 8, 1, 9, "Expecting ',' delimiter")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.problem) == (str(error), error.problem)
    with pytest.raises(JsonParseError, match=r"^NaN is not valid JSON$"):  # a message that is not json's own
        parse_json_with_repair("NaN")


# --- ToolCallResult and the argument streams -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,kind,offset",
    [
        ('{"query": "test"', "incomplete", 16),  # Vercel AI #3953: no prefix reads as valid
        ('{"query": "test",', "incomplete", 17),
        ('{"query": "x",}', "malformed", as_this_json_says('{"query": "x",}', 14, "")[1]),
        ("[1, 2]", "not_object", 0),
        ('  "text"', "not_object", 2),
        ("null", "not_object", 0),
    ],
)
def test_both_backends_give_the_same_problems(backend: ModuleType, text: str, kind: str, offset: int) -> None:
    stream = backend.ToolCallArgumentsStream()
    for char in text:
        stream.append(char)
    result = stream.finish()
    assert result == parse_tool_call_arguments(text)
    assert result.arguments == {} and result.error is not None and result.error.endswith(f"Received arguments: {text}")
    assert result.problem is not None and (result.problem.kind, result.problem.offset) == (kind, offset)


def test_a_tool_call_result_is_still_the_pair_it_was() -> None:
    result = parse_tool_call_arguments("[1]")
    arguments, error = result  # unpacking, as before
    assert (arguments, error) == (result.arguments, result.error) == (result[0], result[1]) and len(result) == 2
    assert result == ({}, error) and result.problem is not None and result.problem.kind == "not_object"
    assert result != ToolCallResult({}, error)  # the same pair with another problem
    assert ToolCallResult({"a": 1}, None) == ToolCallResult({"a": 1}, None) and ToolCallResult({}, None).problem is None
    for again in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
        assert again == result and again.problem == result.problem
    assert result._replace(error="other") == ToolCallResult({}, "other", result.problem)
    assert repr(ToolCallResult({}, None)) == "ToolCallResult(arguments={}, error=None, problem=None)"
    assert parse_tool_call_arguments(" ").problem is None  # blank arguments: a tool without parameters


# --- Streams that end before the API ends them ----------------------------------------------------------------------


def chat_calls(backend: ModuleType, *choices: dict[str, Any]) -> OpenAIChatToolCalls:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for choice in choices:
        calls.feed(chat_chunk(choice))
    return calls


@pytest.mark.parametrize("text", ["", '{"q": "a"}', '{"q": "a'])
def test_a_call_the_stream_left_open_is_incomplete_whatever_its_text(backend: ModuleType, text: str) -> None:
    """A dropped connection: the call was never ended by the API, so it never looks valid, blank arguments (a call
    cut right after its header) and text that happens to parse included."""
    calls = chat_calls(backend, tool_delta(0, "", id="call_1", name="search"), tool_delta(0, text))
    (call,) = calls.finish()
    assert call.done and call.arguments == {} and call.problem is not None
    assert call.problem == JsonProblem(
        "incomplete", len(text), 1, len(text) + 1, "the stream ended before the call did"
    )
    assert (
        call.error
        == f"Tool call arguments are incomplete: the stream ended before the call did.\nReceived arguments: {text}"
    )


def test_a_call_the_api_ended_is_read_strictly(backend: ModuleType) -> None:
    calls = chat_calls(backend, tool_delta(0, '{"q": "a', id="call_1", name="search"), finish_choice())
    (call,) = calls.calls
    assert call.problem is not None and call.problem.kind == "incomplete"  # cut off, though the API ended it
    assert call.problem.detail == "the text ended inside a value" and call.error.startswith(
        "Tool call arguments are not"
    )
    done = chat_calls(backend, tool_delta(0, "", id="call_1", name="ping"), finish_choice())
    assert done.calls[0].problem is None and done.calls[0].arguments == {}  # blank: a tool without parameters


def test_stream_ends_what_the_events_left_open_as_incomplete(backend: ModuleType) -> None:
    events = [chat_chunk(tool_delta(0, '{"q": "a"}', id="call_1", name="search"))]
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    last = list(calls.stream(events))[-1]
    assert last.done and last.problem is not None and last.problem.kind == "incomplete"


# --- Length stops ---------------------------------------------------------------------------------------------------


def test_chat_length_stop_cuts_the_call_being_written(backend: ModuleType) -> None:
    calls = chat_calls(
        backend,
        tool_delta(0, '{"path": "a.txt"}', id="call_1", name="read"),
        tool_delta(1, '{"path": "b.t', id="call_2", name="read"),
        finish_choice(reason="length"),
    )
    first, second = calls.calls
    assert first.done and first.problem is None and first.arguments == {"path": "a.txt"}  # ended before the limit
    assert second.done and second.problem is not None and second.problem.kind == "incomplete"
    assert second.problem.detail == "the provider stopped at its length limit (finish_reason 'length')"


def test_anthropic_max_tokens_cuts_the_last_call_even_after_its_block_stopped(backend: ModuleType) -> None:
    """Cut right after its header: the block stops with blank arguments, then the message says max_tokens."""
    events = [message_start(), tool_use_start(0, "toolu_1", "write_file"), block_stop(0), *message_end("max_tokens")]
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    yielded = list(calls.stream(events))
    (call,) = calls.calls
    assert yielded[-1] is call and call.arguments == {} and call.problem is not None
    assert call.problem.detail == "the provider stopped at its length limit (stop_reason 'max_tokens')"


def test_anthropic_max_tokens_after_text_leaves_earlier_calls_alone(backend: ModuleType) -> None:
    events = [
        message_start(),
        tool_use_start(0, "toolu_1", "search"),
        json_delta(0, '{"q": "a"}'),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        anthropic_text_delta(1, "and then"),
        block_stop(1),
        *message_end("max_tokens"),
    ]
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for event in events:
        calls.feed(event)
    assert calls.calls[0].problem is None and calls.calls[0].arguments == {"q": "a"}


def test_responses_incomplete_cuts_the_call_being_written(backend: ModuleType) -> None:
    incomplete = response_event("incomplete", "incomplete")
    incomplete["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for event in [
        item_added(0, "fc_1", "call_1", "search"),
        responses_arguments_delta(0, "fc_1", '{"q": '),
        incomplete,
    ]:
        calls.feed(event)
    (call,) = calls.calls
    assert call.problem is not None and call.problem.kind == "incomplete"
    assert (
        call.problem.detail
        == "the provider stopped at its length limit (incomplete_details.reason 'max_output_tokens')"
    )


@pytest.mark.parametrize("api", ["chat", "anthropic", "responses"])
def test_structured_output_at_a_length_stop(backend: ModuleType, api: str) -> None:
    """What does not parse is incomplete (the strict parse's own reason kept where it says so); a value that was
    complete before the limit (blanks after it) is the value."""
    for text, kind in [('{"name": "Ada', "incomplete"), ('{"name": "Ada"}\n\n\n', None), ('{"name": x', "incomplete")]:
        if api == "chat":
            output: Any = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
            events = [chat_chunk(content_delta(text)), chat_chunk(finish_choice(reason="length"))]
        elif api == "anthropic":
            output = AnthropicStructuredOutput(parser_class=backend.StreamingJsonParser)
            events = [message_start(), block_start(0, {"type": "text", "text": ""}), anthropic_text_delta(0, text)]
            events += [block_stop(0), *message_end("max_tokens")]
        else:
            output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
            incomplete = response_event("incomplete", "incomplete")
            incomplete["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
            events = [text_delta(0, text), incomplete]
        for event in events:
            output.feed(event)
        assert output.done
        if kind is None:
            assert output.problem is None and output.value == {"name": "Ada"}
        else:
            assert output.problem is not None and output.problem.kind == kind and output.error is not None


# --- Structured output -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,kind,offset",
    [('{"a": [1, 2', "incomplete", 11), ('{"a": [1 2]}', "malformed", 9), ("", "incomplete", 0)],
)
def test_structured_output_problems(backend: ModuleType, text: str, kind: str, offset: int) -> None:
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    output.feed(chat_chunk(content_delta(text)))
    result = output.finish()
    assert isinstance(result, StructuredOutputResult) and result.value is None and result.error is not None
    assert result.problem is not None and (result.problem.kind, result.problem.offset) == (kind, offset)
    value, error = result  # still the pair it was
    assert (value, error) == (None, output.error) and output.problem == result.problem


@pytest.mark.parametrize("last_piece_completes", [True, False])
def test_stream_yields_the_final_value_once(backend: ModuleType, last_piece_completes: bool) -> None:
    pieces = ['{"name": "Ada', '", "born": 1815}'] if last_piece_completes else ['{"name": "Ada", "born": 1815', "}"]
    events = [chat_chunk(content_delta(piece)) for piece in pieces] + [chat_chunk(finish_choice(reason="stop"))]
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    values = list(output.stream(events))
    # One value an event that changed it (the pending number shows as it reads, then the closing brace completes it),
    # and not the strict parse's equal copy after them: the result holds the value last shown.
    if last_piece_completes:
        assert values == [{"name": "Ada"}, {"name": "Ada", "born": 1815}]
    else:
        assert values == [{"name": "Ada", "born": 1815}] * 2
    assert output.error is None and output.result is not None
    assert values[-1] is output.result.value is output.value


# --- Typed ---------------------------------------------------------------------------------------------------------


def test_a_typed_call_that_does_not_validate_is_invalid(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Search(pydantic.BaseModel):
        q: str

    calls = OpenAIChatToolCalls(models={"search": Search}, parser_class=backend.StreamingJsonParser)
    for choice in [tool_delta(0, ' {"q": 1}', id="call_1", name="search"), finish_choice()]:
        calls.feed(chat_chunk(choice))
    (call,) = calls.calls
    assert call.parsed is None and call.problem == JsonProblem("invalid", 1, 1, 2, "does not validate")
    cut = OpenAIChatToolCalls(models={"search": Search}, parser_class=backend.StreamingJsonParser)
    cut.feed(chat_chunk(tool_delta(0, '{"q": "a', id="call_1", name="search")))
    (call,) = cut.finish()
    assert call.parsed is None and call.problem is not None and call.problem.kind == "incomplete"


def test_typed_structured_output_problems(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Person(pydantic.BaseModel):
        name: str

    for text, kind in [('{"name": 1}', "invalid"), ('{"name": "A', "incomplete"), ('{"name" "A"}', "malformed")]:
        output = OpenAIChatStructuredOutput(Person, parser_class=backend.StreamingJsonParser)
        output.feed(chat_chunk(content_delta(text)))
        output.feed(chat_chunk(finish_choice(reason="stop")))
        assert output.problem is not None and output.problem.kind == kind, text


def test_responses_failed_cuts_every_open_call(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for event in [
        item_added(0, "fc_1", "call_1", "search"),
        responses_arguments_delta(0, "fc_1", '{"q": "a"}'),
        item_added(1, "fc_2", "call_2", "search"),
        response_event("failed", "failed"),
    ]:
        calls.feed(event)
    assert [(call.done, call.problem.kind if call.problem else None) for call in calls.calls] == [
        (True, "incomplete"),
        (True, "incomplete"),
    ]
    assert all(call.problem is not None and call.problem.detail == "the response failed" for call in calls.calls)


def test_anthropic_context_window_stop_is_a_length_stop(backend: ModuleType) -> None:
    events = [message_start(), tool_use_start(0, "toolu_1", "write_file"), json_delta(0, '{"path": "a'), block_stop(0)]
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for event in [*events, *message_end("model_context_window_exceeded")]:
        calls.feed(event)
    (call,) = calls.calls
    assert call.problem is not None and "model_context_window_exceeded" in call.problem.detail
