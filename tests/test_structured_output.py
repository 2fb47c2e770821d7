"""The structured-output adapters: live values of a JSON output as it streams, one strict parse at the end, never a
raise mid-stream; for each API, each event shape, sync and async streams and the SDKs' own stream managers."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from types import ModuleType, SimpleNamespace
from typing import Any, Callable

import pytest

from streaming_json import MISSING, StreamingJsonParser
from streaming_json.integrations import (
    AnthropicStructuredOutput,
    OpenAIChatStructuredOutput,
    OpenAIResponsesStructuredOutput,
    StructuredOutputResult,
)

from .messages import output_not_valid_json
from .sdk_events import (
    RecordedAsyncStream,
    RecordedStream,
    Shaper,
    anthropic_models,
    anthropic_text_delta,
    as_attributes,
    as_slotted,
    async_iterable,
    block_start,
    block_stop,
    chat_chunk,
    content_delta,
    finish_choice,
    json_delta,
    message_added,
    message_done,
    message_end,
    message_item,
    message_start,
    numbered,
    openai_chat_models,
    openai_responses_models,
    part_added,
    refusal_delta,
    response_event,
    shapes,
    text_delta,
    text_done,
    tool_use_start,
)

DOCUMENT = {
    "title": "Quarterly report — Zürich",
    "items": [{"name": "alpha", "score": 1.5, "tags": ["a", "b"]}, {"name": "beta", "score": -2, "tags": []}],
    "done": True,
    "note": None,
}
TEXT = json.dumps(DOCUMENT, ensure_ascii=False)
PIECES = [TEXT[i : i + 7] for i in range(0, len(TEXT), 7)]


def chat_events(pieces: list[str], reason: str = "stop") -> list[dict[str, Any]]:
    return [
        chat_chunk(content_delta("", role=True)),
        *[chat_chunk(content_delta(piece)) for piece in pieces],
        chat_chunk(finish_choice(reason=reason)),
        {**chat_chunk(), "usage": {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120}},
    ]


def responses_events(pieces: list[str], end: str = "completed") -> list[dict[str, Any]]:
    text = "".join(pieces)
    done = [text_done(0, text), message_done(0, text)] if end == "completed" else []
    return numbered(
        [
            response_event("created", "in_progress"),
            message_added(0),
            part_added(0),
            *[text_delta(0, piece) for piece in pieces],
            *done,
            response_event(end, end, [message_item(text)] if end == "completed" else []),
        ]
    )


def anthropic_events(pieces: list[str], reason: str = "end_turn") -> list[dict[str, Any]]:
    return [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        *[anthropic_text_delta(0, piece) for piece in pieces],
        block_stop(0),
        *message_end(reason),
    ]


# api: (accumulator class, events of pieces, SDK models, the index of the event that ends the output)
APIS: dict[str, tuple[Any, Callable[[list[str]], list[dict[str, Any]]], Shaper, int]] = {
    "openai-chat": (OpenAIChatStructuredOutput, chat_events, openai_chat_models, -2),
    "openai-responses": (OpenAIResponsesStructuredOutput, responses_events, openai_responses_models, -1),
    "anthropic": (AnthropicStructuredOutput, anthropic_events, anthropic_models, -1),
}


def shaped(api: str, shape: str, events: list[dict[str, Any]]) -> list[Any]:
    if shape == "dicts":
        return events
    if shape == "attributes":
        return [as_attributes(event) for event in events]
    if shape == "slotted":
        return [as_slotted(event) for event in events]
    return APIS[api][2](events)


ALL_SHAPES = ["dicts", "attributes", "slotted", "sdk-models"]


def prefix_values(backend: ModuleType, pieces: list[str]) -> list[Any]:
    """The parser's value after each piece: what the adapter must show."""
    parser = backend.StreamingJsonParser()
    values = []
    for piece in pieces:
        parser.append(piece)
        values.append(parser.snapshot())
    return values


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("shape", ALL_SHAPES)
def test_values_are_live_and_the_end_parses_strictly(backend: ModuleType, api: str, shape: str) -> None:
    output_class, make_events, _, end = APIS[api]
    events = shaped(api, shape, make_events(PIECES))
    output = output_class(parser_class=backend.StreamingJsonParser)
    values, done = [], []
    for event in events:
        values.append(output.feed(event))
        done.append(output.done)
    first_piece = values.index(next(value for value in values if value is not MISSING))
    assert all(value is MISSING for value in values[:first_piece])
    assert values[first_piece : first_piece + len(PIECES)] == prefix_values(backend, PIECES)
    assert done.index(True) == len(events) + end  # the API's end of the output ends it
    assert output.done and output.result == StructuredOutputResult(DOCUMENT, None) and output.error is None
    assert output.value == DOCUMENT and output.text == TEXT
    assert output.finish() is output.result  # the same result again


@pytest.mark.parametrize("api", sorted(APIS))
def test_a_cut_off_output_ends_with_an_error_not_a_raise(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, _ = APIS[api]
    half = PIECES[: len(PIECES) // 2]
    cut_text = "".join(half)
    ending = {"openai-chat": "length", "openai-responses": "incomplete", "anthropic": "max_tokens"}[api]
    events = make_events(half, ending) if api != "openai-responses" else responses_events(half, "incomplete")
    output = output_class(parser_class=backend.StreamingJsonParser)
    for event in events:
        output.feed(event)
    assert output.done and output.result is not None and output.result.value is None
    assert output.error == output_not_valid_json(cut_text)
    assert output.value == prefix_values(backend, half)[-1]  # the last partial value stays on show


@pytest.mark.parametrize("api", sorted(APIS))
def test_malformed_output_never_raises(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, _ = APIS[api]
    text = '{"a": [1, 2,, "b": tru, "c": "x\\q"}} trailing'
    output = output_class(parser_class=backend.StreamingJsonParser)
    values = list(output.stream(make_events([text[i : i + 3] for i in range(0, len(text), 3)])))
    assert values and values[-1] is not MISSING
    assert output.result is not None and output.result.value is None
    assert output.error == output_not_valid_json(text)


@pytest.mark.parametrize("api", sorted(APIS))
def test_strings_with_raw_control_characters_are_repaired_as_for_tool_calls(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, _ = APIS[api]
    text = '{"code": "line one\nline\ttwo"}'  # raw newline and tab inside a string: json.loads(strict) rejects it
    output = output_class(parser_class=backend.StreamingJsonParser)
    for event in make_events([text[:9], text[9:]]):
        output.feed(event)
    assert output.result == StructuredOutputResult({"code": "line one\nline\ttwo"}, None)


@pytest.mark.parametrize("api", sorted(APIS))
def test_stream_yields_each_new_value_and_ends_with_the_final_one(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, _ = APIS[api]
    output = output_class(parser_class=backend.StreamingJsonParser)
    values = list(output.stream(iter(make_events(PIECES))))
    assert values[-1] == DOCUMENT and values[-1] is output.value
    assert MISSING not in values
    assert all(before is not after for before, after in zip(values, values[1:]))
    partial = prefix_values(backend, PIECES)
    changed = [value for number, value in enumerate(partial) if number == 0 or value is not partial[number - 1]]
    assert values[: len(changed)] == changed


@pytest.mark.parametrize("api", sorted(APIS))
def test_stream_ends_an_output_the_events_left_open(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, end = APIS[api]
    events = make_events(PIECES)[: len(make_events(PIECES)) + end]  # no ending event
    output = output_class(parser_class=backend.StreamingJsonParser)
    values = list(output.stream(events))
    assert output.done and output.result == (DOCUMENT, None) and values[-1] == DOCUMENT


@pytest.mark.parametrize("api", sorted(APIS))
def test_astream_reads_an_async_iterable(backend: ModuleType, api: str) -> None:
    output_class, make_events, _, _ = APIS[api]
    expected = list(output_class(parser_class=backend.StreamingJsonParser).stream(make_events(PIECES)))

    async def read() -> list[Any]:
        output = output_class(parser_class=backend.StreamingJsonParser)
        return [value async for value in output.astream(async_iterable(make_events(PIECES)))]

    assert asyncio.run(read()) == expected


# --- Per API --------------------------------------------------------------------------------------------------------


@shapes(openai_chat_models)
def test_chat_refusal_is_the_error(backend: ModuleType, shape: Shaper) -> None:
    events = [
        chat_chunk(content_delta("", role=True)),
        chat_chunk(refusal_delta("I can't help ")),
        chat_chunk(refusal_delta("with that.")),
        chat_chunk(finish_choice(reason="stop")),
    ]
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    assert [output.feed(event) for event in shape(events)] == [MISSING] * 4
    assert output.refusal == "I can't help with that."
    assert output.result == StructuredOutputResult(None, "The model refused: I can't help with that.")


def test_chat_reads_the_chosen_choice(backend: ModuleType) -> None:
    output = OpenAIChatStructuredOutput(choice=1, parser_class=backend.StreamingJsonParser)
    output.feed(chat_chunk(content_delta('{"n": 0}', choice=0), content_delta('{"n": 1', choice=1)))
    assert output.value == {"n": 1}
    output.feed(chat_chunk(content_delta("}", choice=1)))
    assert output.feed(chat_chunk(finish_choice(choice=0, reason="stop"))) == {"n": 1} and not output.done
    output.feed(chat_chunk(finish_choice(choice=1, reason="stop")))
    assert output.result == ({"n": 1}, None)


def test_chat_reads_the_streaming_helpers_chunk_events(backend: ModuleType) -> None:
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    assert output.feed({"type": "chunk", "chunk": chat_chunk(content_delta('{"a": "b'))}) == {"a": "b"}
    assert output.feed({"type": "content.delta", "delta": '{"a": "b', "snapshot": '{"a": "b'}) == {"a": "b"}
    assert output.text == '{"a": "b'


@shapes(openai_responses_models)
def test_responses_done_text_makes_up_for_a_lost_delta(backend: ModuleType, shape: Shaper) -> None:
    events = responses_events(PIECES)
    lost = next(i for i, event in enumerate(events) if event.get("delta") == PIECES[3])
    output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
    for event in shape(events[:lost] + events[lost + 1 :]):
        output.feed(event)
    assert output.text == TEXT and output.result == (DOCUMENT, None)


def test_responses_done_text_that_differs_starts_over(backend: ModuleType) -> None:
    output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
    for event in [message_added(0), text_delta(0, '{"garbled": tr'), text_done(0, '{"clean": 1}')]:
        output.feed(event)
    assert output.value == {"clean": 1} and output.text == '{"clean": 1}'
    output.feed(response_event("completed", "completed"))
    assert output.result == ({"clean": 1}, None)


def test_responses_parts_are_joined_in_order(backend: ModuleType) -> None:
    output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
    events = [text_delta(0, '{"a": [1, '), text_done(0, '{"a": [1, '), text_delta(1, "2]}"), text_done(1, "2]}")]
    assert [output.feed(event) for event in events] == [{"a": [1]}, {"a": [1]}, {"a": [1, 2]}, {"a": [1, 2]}]
    assert output.finish() == ({"a": [1, 2]}, None)


@shapes(openai_responses_models)
def test_responses_refusal_is_the_error(backend: ModuleType, shape: Shaper) -> None:
    refusal = {"type": "response.refusal.delta", "output_index": 0, "content_index": 0, "item_id": "msg_1"}
    events = numbered([message_added(0), {**refusal, "delta": "No."}, response_event("completed", "completed")])
    output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
    for event in shape(events):
        output.feed(event)
    assert output.result == (None, "The model refused: No.")


@shapes(anthropic_models)
def test_anthropic_reads_text_blocks_only(backend: ModuleType, shape: Shaper) -> None:
    events = [
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": '{"no": 1}'}},
        block_stop(0),
        block_start(1, {"type": "text", "text": '{"answer": '}),
        anthropic_text_delta(1, '"forty-two"}'),
        block_stop(1),
        tool_use_start(2, "toolu_1", "lookup"),
        json_delta(2, '{"q": "x"}'),
        block_stop(2),
        *message_end(),
    ]
    output = AnthropicStructuredOutput(parser_class=backend.StreamingJsonParser)
    values = [output.feed(event) for event in shape(events)]
    assert values[4] == {} and values[5] == {"answer": "forty-two"}
    assert output.text == '{"answer": "forty-two"}' and output.result == ({"answer": "forty-two"}, None)


# --- The SDKs' stream managers --------------------------------------------------------------------------------------


def manager(api: str, events: list[dict[str, Any]], asynchronous: bool) -> tuple[Any, Any]:
    """The SDK's stream manager for ``api`` over a recorded raw stream of ``events`` (its SDK models)."""
    models = APIS[api][2](events)
    raw = RecordedAsyncStream(models) if asynchronous else RecordedStream(models)

    async def request() -> Any:
        return raw

    api_request: Any = request() if asynchronous else (lambda: raw)
    if api == "anthropic":
        streaming = pytest.importorskip("anthropic.lib.streaming")
        from anthropic import NOT_GIVEN

        manager_class = streaming.AsyncMessageStreamManager if asynchronous else streaming.MessageStreamManager
        return manager_class(api_request, output_format=NOT_GIVEN), raw
    from openai import omit

    if api == "openai-chat":
        chat = pytest.importorskip("openai.lib.streaming.chat")
        manager_class = chat.AsyncChatCompletionStreamManager if asynchronous else chat.ChatCompletionStreamManager
        return manager_class(api_request, response_format=omit, input_tools=omit), raw
    responses = pytest.importorskip("openai.lib.streaming.responses")
    manager_class = responses.AsyncResponseStreamManager if asynchronous else responses.ResponseStreamManager
    return manager_class(api_request, text_format=omit, input_tools=omit, starting_after=None), raw


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_sdks_stream_managers_are_read(backend: ModuleType, api: str, asynchronous: bool) -> None:
    output_class, make_events, _, _ = APIS[api]
    sdk_manager, raw = manager(api, make_events(PIECES), asynchronous)
    output = output_class(parser_class=backend.StreamingJsonParser)
    if asynchronous:

        async def read() -> list[Any]:
            return [value async for value in output.astream(sdk_manager)]

        values = asyncio.run(read())
    else:
        values = list(output.stream(sdk_manager))
    assert output.text == TEXT  # each piece once, though the helpers repeat text deltas in events of their own
    assert values[-1] == DOCUMENT and output.result == (DOCUMENT, None) and raw.closed


# --- Typed values (model=) ------------------------------------------------------------------------------------------


def test_no_sdk_and_no_pydantic_is_imported_without_model() -> None:
    code = (
        "import sys, streaming_json.integrations as i\n"
        "o = i.AnthropicStructuredOutput()\n"
        "o.feed({'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': '[1]'}})\n"
        "assert o.finish() == ([1], None)\n"
        "print(sorted(m for m in ('pydantic', 'openai', 'anthropic', 'streaming_json.pydantic') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


class StandInModelStream:
    """A stand-in with the interface of ``streaming_json.pydantic.ModelStream``: ``append(piece)`` gives None before
    the root starts, then a partial value; ``finish()`` gives a ``ModelResult(value, error)`` with ``message`` (ending
    ``Received arguments:``) and ``message_for(received)``."""

    made: list[StandInModelStream] = []

    def __init__(self, type_: Any, *, parser_class: Any = None, stable: bool = True) -> None:
        self.type_ = type_
        self.parser_class = parser_class
        self.stable = stable
        self.pieces: list[str] = []
        StandInModelStream.made.append(self)

    def append(self, piece: str) -> Any:
        self.pieces.append(piece)
        text = "".join(self.pieces).strip()
        return ("partial", self.type_, text) if text else None

    def finish(self) -> Any:
        text = "".join(self.pieces)
        if text.strip() == TEXT:
            return SimpleNamespace(value=("valid", self.type_), error=None, message=None)
        error = ValueError("invalid")
        message_for = lambda received: f"invalid.\nReceived {received}: {text}"  # noqa: E731
        return SimpleNamespace(value=None, error=error, message=message_for("arguments"), message_for=message_for)


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("valid", [True, False], ids=["valid", "invalid"])
def test_model_gives_the_model_streams_values(monkeypatch: pytest.MonkeyPatch, api: str, valid: bool) -> None:
    """The wiring to the typed-streaming interface: pieces go to one ModelStream(model), in order; its None before
    the root starts reads as MISSING; its result's value and message become the result."""
    monkeypatch.setitem(sys.modules, "streaming_json.pydantic", SimpleNamespace(ModelStream=StandInModelStream))
    StandInModelStream.made.clear()
    output_class, make_events, _, _ = APIS[api]
    pieces = [" ", *PIECES] if valid else [" ", *PIECES[:-1]]
    output = output_class(model=dict)
    values = [output.feed(event) for event in make_events(pieces)]
    (model_stream,) = StandInModelStream.made
    assert model_stream.type_ is dict and "".join(model_stream.pieces) == "".join(pieces)
    assert model_stream.parser_class is StreamingJsonParser  # the package's, where none is given
    assert MISSING in values and ("partial", dict, pieces[1]) in values  # the blank first piece: no value yet
    assert output.done and output.model_result is not None
    if valid:
        assert output.result == (("valid", dict), None) and output.value == ("valid", dict)
    else:
        assert output.result == (None, f"invalid.\nReceived output: {''.join(pieces)}")
        assert output.value == ("partial", dict, "".join(pieces).strip())


def typed_module() -> ModuleType:
    try:
        return importlib.import_module("streaming_json.pydantic")
    except ImportError as error:
        pytest.skip(f"streaming_json.pydantic is not importable here (typed streaming, issue 11): {error}")


@pytest.mark.parametrize("api", sorted(APIS))
def test_model_gives_typed_values(backend: ModuleType, api: str) -> None:
    typed_module()
    from pydantic import BaseModel

    class Item(BaseModel):
        name: str
        score: float
        tags: list[str]

    class Report(BaseModel):
        title: str
        items: list[Item]
        done: bool
        note: Any = None

    output_class, make_events, _, _ = APIS[api]
    output = output_class(model=Report, parser_class=backend.StreamingJsonParser)
    values = list(output.stream(make_events(PIECES)))
    assert isinstance(values[-1], Report) and values[-1] == Report.model_validate_json(TEXT)
    assert output.result == (Report.model_validate_json(TEXT), None)
    assert any(getattr(value, "title", None) == DOCUMENT["title"] for value in values[:-1])  # typed partial values


@pytest.mark.parametrize("api", sorted(APIS))
def test_model_reports_invalid_output_at_the_end(backend: ModuleType, api: str) -> None:
    typed_module()
    from pydantic import BaseModel, ValidationError

    class Scores(BaseModel):
        scores: list[int]

    output_class, make_events, _, _ = APIS[api]
    text = '{"scores": [1, "high", 3]}'
    output = output_class(model=Scores, parser_class=backend.StreamingJsonParser)
    list(output.stream(make_events([text[i : i + 4] for i in range(0, len(text), 4)])))  # no raise mid-stream
    assert output.result is not None and output.result.value is None
    assert output.error is not None and output.error.endswith(f"Received output: {text}")
    assert output.error.startswith("The output does not match Scores (1 error):\n- scores.1: ")  # then pydantic's words
    assert isinstance(output.model_result.error, ValidationError)


ODD_EVENTS: list[Any] = [
    None,
    42,
    {},
    {"type": None},
    {"type": "content_block_delta", "index": 0, "delta": None},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": None}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": 7}},
    {"type": "response.output_text.delta", "output_index": 0, "delta": ["x"]},
    {"type": "response.output_text.done", "output_index": 0, "text": None},
    {"type": "response.refusal.delta", "delta": 3},
    {"choices": None},
    {"choices": [None]},
    {"choices": [{"index": 0, "delta": None, "finish_reason": None}]},
    {"choices": [{"index": 0, "delta": {"content": 5, "refusal": ["no"]}, "finish_reason": None}]},
    {"type": "chunk", "chunk": None},
]


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("shape", ["dicts", "attributes", "slotted"])
def test_odd_events_never_raise(backend: ModuleType, api: str, shape: str) -> None:
    output = APIS[api][0](parser_class=backend.StreamingJsonParser)
    for event in ODD_EVENTS:
        (converted,) = shaped(api, shape, [event]) if isinstance(event, dict) else [event]
        assert output.feed(converted) is MISSING
    assert output.finish().error == output_not_valid_json("") and output.value is MISSING  # no output was read
