"""The tool-call adapters, fed recorded event sequences written in the documented shapes of each API: as plain dicts,
attribute objects, slotted objects and, where the SDK is installed, the SDK's own models; one event at a time, as
sync and async streams, and through the SDKs' own stream managers."""

from __future__ import annotations

import asyncio
import json
import platform
from types import ModuleType
from typing import Any, Callable

import pytest

from streaming_json.integrations import (
    AnthropicToolCalls,
    LiveToolCall,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)
from streaming_json.integrations._fields import instance_dict_reader

from .messages import not_valid_json
from .sdk_events import (
    RecordedAsyncStream,
    RecordedStream,
    Shaper,
    anthropic_models,
    anthropic_text_delta,
    arguments_delta,
    arguments_done,
    as_attributes,
    as_slotted,
    async_iterable,
    block_start,
    block_stop,
    chat_chunk,
    finish_choice,
    item_added,
    item_done,
    json_delta,
    message_end,
    message_start,
    numbered,
    openai_chat_models,
    openai_responses_models,
    response_event,
    shapes,
    tool_delta,
    tool_use_start,
)


def feed_all(accumulator: Any, events: list[Any]) -> list[list[LiveToolCall]]:
    return [accumulator.feed(event) for event in events]


def malformed_error_for(text: str) -> Callable[[str | None], bool]:
    """The check of a call's error for malformed ``text``: the json module's reason, then the text."""
    return lambda error: error == not_valid_json(text)


# --- OpenAI Chat Completions ------------------------------------------------------------------------------------


PARALLEL_CHAT_CHUNKS = [
    chat_chunk({"index": 0, "delta": {"role": "assistant", "content": None}, "finish_reason": None}),
    chat_chunk(tool_delta(0, "", id="call_weather", name="get_weather")),
    chat_chunk(tool_delta(0, '{"city": "Par')),
    chat_chunk(tool_delta(1, "", id="call_time", name="get_time")),
    chat_chunk(tool_delta(1, '{"timezone": "Europe/')),
    chat_chunk(tool_delta(0, 'is", "unit": "celsius"}')),
    chat_chunk(tool_delta(1, 'Paris"}')),
    chat_chunk(finish_choice()),
    {**chat_chunk(), "usage": {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120}},
]


@shapes(openai_chat_models)
def test_chat_parallel_calls_stream_side_by_side(backend: ModuleType, shape: Shaper) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    changed = feed_all(calls, shape(PARALLEL_CHAT_CHUNKS))
    weather, time = calls.calls
    assert [len(each) for each in changed] == [0, 1, 1, 1, 1, 1, 1, 2, 0]
    assert changed[2] == [weather] and changed[4] == [time] and changed[7] == [weather, time]
    assert (weather.id, weather.name, weather.key) == ("call_weather", "get_weather", (0, 0))
    assert (time.id, time.name, time.key) == ("call_time", "get_time", (0, 1))
    assert weather.done and time.done
    assert weather.arguments == {"city": "Paris", "unit": "celsius"} and weather.error is None
    assert time.arguments == {"timezone": "Europe/Paris"} and time.error is None
    assert time.text == '{"timezone": "Europe/Paris"}'


def test_chat_arguments_are_live_while_the_call_streams(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    (weather,) = calls.feed(chat_chunk(tool_delta(0, '{"city": "Par', id="call_1", name="get_weather")))
    assert weather.arguments == {"city": "Par"} and not weather.done and weather.result is None
    calls.feed(chat_chunk(tool_delta(0, 'is", "days": 3')))
    assert weather.arguments == {"city": "Paris", "days": 3}


def test_chat_choices_finish_separately(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"q": "a"}', id="call_a", name="search", choice=0)))
    calls.feed(chat_chunk(tool_delta(0, '{"q": "b"}', id="call_b", name="search", choice=1)))
    assert calls.feed(chat_chunk(finish_choice(choice=1))) == [calls.calls[1]]
    first, second = calls.calls
    assert not first.done and second.done and second.arguments == {"q": "b"}
    assert calls.feed(chat_chunk(finish_choice(choice=0))) == [first]
    assert first.arguments == {"q": "a"} and calls.finish() == []


def test_chat_a_new_id_at_the_same_index_is_a_new_call(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"path": "a.txt"}', id="call_1", name="read")))
    changed = calls.feed(chat_chunk(tool_delta(0, '{"path": "b.txt"}', id="call_2", name="read")))
    first, second = calls.calls
    assert changed == [first, second]
    assert first.done and first.arguments == {"path": "a.txt"}
    assert not second.done and second.arguments == {"path": "b.txt"}


def test_chat_a_repeated_id_continues_the_call(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"path": ', id="call_1", name="read")))
    calls.feed(chat_chunk(tool_delta(0, '"a.txt"}', id="call_1", name="read")))
    (call,) = calls.calls
    assert call.arguments == {"path": "a.txt"} and call.name == "read"


def test_chat_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"city": "Paris", "unit": celsius}'
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, text, id="call_1", name="get_weather")))
    (call,) = calls.feed(chat_chunk(finish_choice()))
    assert call.done and call.arguments == {}
    assert malformed_error_for(text)(call.error)
    assert call.result is not None and call.result.error == call.error


def test_chat_reads_the_streaming_helpers_chunk_events(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    event = {"type": "chunk", "chunk": chat_chunk(tool_delta(0, '{"n": 1}', id="call_1", name="count"))}
    (call,) = calls.feed(event)
    assert call.arguments == {"n": 1}
    assert calls.feed({"type": "content.delta", "delta": "hi"}) == []


# --- OpenAI Responses -------------------------------------------------------------------------------------------


PARALLEL_RESPONSES_EVENTS = numbered(
    [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []},
        },
        item_added(1, "fc_1", "call_weather", "get_weather"),
        arguments_delta(1, "fc_1", '{"city": '),
        item_added(2, "fc_2", "call_time", "get_time"),
        arguments_delta(2, "fc_2", '{"timezone": "Asia/'),
        arguments_delta(1, "fc_1", '"Tokyo"}'),
        arguments_done(1, "fc_1", '{"city": "Tokyo"}'),
        item_done(1, "fc_1", "call_weather", "get_weather", '{"city": "Tokyo"}'),
        arguments_delta(2, "fc_2", 'Tokyo"}'),
        item_done(2, "fc_2", "call_time", "get_time", '{"timezone": "Asia/Tokyo"}'),
    ]
)


@shapes(openai_responses_models)
def test_responses_parallel_calls_stream_side_by_side(backend: ModuleType, shape: Shaper) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    changed = feed_all(calls, shape(PARALLEL_RESPONSES_EVENTS))
    weather, time = calls.calls
    assert changed == [[], [weather], [weather], [time], [time], [weather], [weather], [], [time], [time]]
    assert (weather.id, weather.name, weather.key) == ("call_weather", "get_weather", 1)
    assert (time.id, time.name, time.key) == ("call_time", "get_time", 2)
    assert weather.done and weather.arguments == {"city": "Tokyo"} and weather.error is None
    assert time.done and time.arguments == {"timezone": "Asia/Tokyo"} and time.error is None


def test_responses_arguments_are_live_while_the_call_streams(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "write"))
    (call,) = calls.feed(arguments_delta(0, "fc_1", '{"path": "notes.md", "content": "# To'))
    assert call.arguments == {"path": "notes.md", "content": "# To"} and not call.done


def test_responses_done_text_that_continues_the_stream_is_appended(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "stre'))
    (call,) = calls.feed(arguments_done(0, "fc_1", '{"query": "streaming json"}'))  # a lost delta, made up for
    assert call.done and call.arguments == {"query": "streaming json"}
    assert call.text == '{"query": "streaming json"}'


def test_responses_done_text_that_does_not_continue_the_stream_starts_over(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "garbled'))
    (call,) = calls.feed(arguments_done(0, "fc_1", '{"query": "streaming json", "limit": 5}'))
    assert call.arguments == {"query": "streaming json", "limit": 5}
    assert call.text == '{"query": "streaming json", "limit": 5}'


def test_responses_item_done_alone_ends_the_call(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    (call,) = calls.feed(item_done(0, "fc_1", "call_1", "search", '{"query": "x"}'))
    assert call.done and call.arguments == {"query": "x"}


def test_responses_a_stream_joined_late_still_reads_the_call(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    (call,) = calls.feed(arguments_delta(3, "fc_9", '{"a": 1'))
    assert (call.id, call.name, call.arguments) == (None, None, {"a": 1})
    calls.feed({**arguments_done(3, "fc_9", '{"a": 1}'), "name": "late"})
    assert call.done and call.name == "late" and call.arguments == {"a": 1}


def test_responses_a_new_item_at_an_open_index_ends_the_call_there(backend: ModuleType) -> None:
    """The call's end events were lost: the item that takes its place ends it, and ``finish`` leaves no call open."""
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(arguments_delta(0, "fc_1", '{"a": 1}'))  # joined late: no output_item.added for it
    changed = calls.feed(item_added(0, "fc_2", "call_2", "write"))
    first, second = calls.calls
    assert changed == [first, second]
    assert first.done and first.arguments == {"a": 1} and not second.done
    calls.feed(arguments_delta(0, "fc_2", '{"b": 2}'))
    assert calls.feed(response_event("completed", "completed")) == [second]
    assert second.done and second.arguments == {"b": 2} and calls.finish() == []


def test_responses_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"query": "x",}'
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", text))
    (call,) = calls.feed(arguments_done(0, "fc_1", text))
    assert call.done and call.arguments == {} and malformed_error_for(text)(call.error)


def test_responses_the_end_of_the_response_ends_open_calls(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "cut off'))
    (call,) = calls.feed({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete"}})
    assert call.done and call.arguments == {} and call.problem is not None and call.problem.kind == "incomplete"
    assert (
        call.error
        == 'Tool call arguments are incomplete: the response is incomplete.\nReceived arguments: {"query": "cut off'
    )


# --- Anthropic Messages -----------------------------------------------------------------------------------------


ANTHROPIC_EVENTS = [
    message_start(),
    block_start(0, {"type": "text", "text": ""}),
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me check both."}},
    block_stop(0),
    tool_use_start(1, "toolu_weather", "get_weather"),
    json_delta(1, ""),
    json_delta(1, '{"location": "San Fra'),
    json_delta(1, 'ncisco, CA", "unit": "fahrenheit"}'),
    block_stop(1),
    tool_use_start(2, "toolu_time", "get_time"),
    json_delta(2, '{"timezone": '),
    json_delta(2, '"America/Los_Angeles"}'),
    block_stop(2),
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 89},
    },
    {"type": "message_stop"},
]


@shapes(anthropic_models)
def test_anthropic_tool_use_blocks_become_calls(backend: ModuleType, shape: Shaper) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    changed = feed_all(calls, shape(ANTHROPIC_EVENTS))
    weather, time = calls.calls
    # By event number: the text block, the empty first delta and the message events change no call.
    changed_by = {4: [weather], 6: [weather], 7: [weather], 8: [weather], 9: [time], 10: [time], 11: [time], 12: [time]}
    assert changed == [changed_by.get(number, []) for number in range(len(ANTHROPIC_EVENTS))]
    assert (weather.id, weather.name, weather.key) == ("toolu_weather", "get_weather", 1)
    assert (time.id, time.name, time.key) == ("toolu_time", "get_time", 2)
    assert weather.arguments == {"location": "San Francisco, CA", "unit": "fahrenheit"} and weather.error is None
    assert time.arguments == {"timezone": "America/Los_Angeles"} and time.error is None


def test_anthropic_arguments_are_live_while_the_block_streams(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "write"))
    (call,) = calls.feed(json_delta(0, '{"path": "a.py", "content": "import o'))
    assert call.arguments == {"path": "a.py", "content": "import o"} and not call.done


def test_anthropic_interleaved_blocks_keep_apart(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    feed_all(
        calls,
        [
            tool_use_start(0, "toolu_a", "read"),
            tool_use_start(1, "toolu_b", "read"),
            json_delta(1, '{"path": "b'),
            json_delta(0, '{"path": "a'),
            json_delta(0, '.txt"}'),
            json_delta(1, '.txt"}'),
            block_stop(1),
            block_stop(0),
        ],
    )
    assert [call.arguments for call in calls.calls] == [{"path": "a.txt"}, {"path": "b.txt"}]


def test_anthropic_server_tool_use_is_not_a_client_call(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    server_block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    events = [block_start(0, server_block), json_delta(0, '{"query": "w"}'), block_stop(0), {"type": "message_stop"}]
    assert feed_all(calls, events) == [[], [], [], []]
    assert calls.calls == []


def test_anthropic_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"path": "a.txt" "mode": "w"}'
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "write"))
    calls.feed(json_delta(0, text))
    (call,) = calls.feed(block_stop(0))
    assert call.done and call.arguments == {} and malformed_error_for(text)(call.error)


def test_anthropic_a_new_block_at_an_open_index_ends_the_call_there(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "read"))
    calls.feed(json_delta(0, '{"path": "a.txt"}'))
    changed = calls.feed(tool_use_start(0, "toolu_2", "read"))  # the first block's stop was lost
    first, second = calls.calls
    assert changed == [first, second]
    assert first.done and first.arguments == {"path": "a.txt"} and not second.done
    assert calls.feed({"type": "message_stop"}) == [second] and second.done


def test_anthropic_message_stop_ends_a_block_left_open(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "noop"))
    (call,) = calls.feed({"type": "message_stop"})
    assert call.done and call.arguments == {} and call.error is None  # no arguments at all: an empty object


# --- Defaults ---------------------------------------------------------------------------------------------------


def test_the_package_stream_is_the_default() -> None:
    calls = AnthropicToolCalls()
    calls.feed(tool_use_start(0, "toolu_1", "echo"))
    calls.feed(json_delta(0, json.dumps({"text": "héllo"})))
    (call,) = calls.feed(block_stop(0))
    assert call.arguments == {"text": "héllo"}
    assert repr(call) == "LiveToolCall(id='toolu_1', name='echo', arguments={'text': 'héllo'}, done)"


# --- Streams ----------------------------------------------------------------------------------------------------

# Each API's recorded stream, cut off before the events that end its calls, so that only finish() ends them.
CUT_OFF_STREAMS = {
    "openai-chat": (OpenAIChatToolCalls, PARALLEL_CHAT_CHUNKS[:7], openai_chat_models),
    "openai-responses": (OpenAIResponsesToolCalls, PARALLEL_RESPONSES_EVENTS[:6], openai_responses_models),
    "anthropic": (AnthropicToolCalls, [*ANTHROPIC_EVENTS[:8], *ANTHROPIC_EVENTS[9:11]], anthropic_models),
}

Seen = tuple[Any, Any, bool]  # (key, arguments, done) when a call was yielded


def seen(call: LiveToolCall) -> Seen:
    return (call.key, call.arguments, call.done)


def fed_one_by_one(accumulator: Any, events: list[Any]) -> list[Seen]:
    changed = [seen(call) for event in events for call in accumulator.feed(event)]
    return changed + [seen(call) for call in accumulator.finish()]


@pytest.mark.parametrize("api", sorted(CUT_OFF_STREAMS))
@pytest.mark.parametrize("shape", ["dicts", "attributes", "sdk-models"])
def test_stream_yields_each_change_then_ends_open_calls(backend: ModuleType, api: str, shape: str) -> None:
    accumulator_class, events, sdk_models = CUT_OFF_STREAMS[api]
    shaped = {"dicts": events, "attributes": [as_attributes(e) for e in events], "sdk-models": None}[shape]
    if shaped is None:
        shaped = sdk_models(events)
    expected = fed_one_by_one(accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream), shaped)
    accumulator = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    streamed = [seen(call) for call in accumulator.stream(iter(shaped))]
    assert streamed == expected
    assert len(accumulator.calls) == 2 and all(call.done for call in accumulator.calls)
    assert [entry[2] for entry in streamed[-2:]] == [True, True]  # the calls the stream left open, ended at its end
    assert accumulator.finish() == []


@pytest.mark.parametrize("api", sorted(CUT_OFF_STREAMS))
def test_astream_reads_an_async_iterable_as_stream_reads_an_iterable(backend: ModuleType, api: str) -> None:
    accumulator_class, events, _ = CUT_OFF_STREAMS[api]
    expected = fed_one_by_one(accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream), events)

    async def read() -> list[Seen]:
        accumulator = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
        return [seen(call) async for call in accumulator.astream(async_iterable(events))]

    assert asyncio.run(read()) == expected


def test_a_stream_left_early_ends_no_call(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    stream = calls.stream(ANTHROPIC_EVENTS)
    first = next(call for call in stream if call.name == "get_weather")
    stream.close()  # the reader stopped: the calls are not ended as if the stream were complete
    assert not first.done and first.result is None


class Manager:
    """A stream manager as the SDKs' ``.stream()`` methods return: a context manager, not itself iterable."""

    def __init__(self, events: list[Any]) -> None:
        self.stream = RecordedStream(events)
        self.exited = False

    def __enter__(self) -> RecordedStream:
        return self.stream

    def __exit__(self, *exc_info: Any) -> None:
        self.exited = True


def test_stream_enters_and_closes_a_stream_manager(backend: ModuleType) -> None:
    manager = Manager(ANTHROPIC_EVENTS)
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    names = [call.name for call in calls.stream(manager)]
    assert manager.exited and names.count("get_weather") == 4  # started, two pieces, ended
    assert [call.arguments for call in calls.calls] == [
        {"location": "San Francisco, CA", "unit": "fahrenheit"},
        {"timezone": "America/Los_Angeles"},
    ]


# The SDKs' own stream managers, over recorded raw streams: their extra events (the Anthropic helper's input_json and
# text events, the OpenAI chat helper's content and arguments events) repeat the raw deltas and must not count twice.


def anthropic_manager(events: list[dict[str, Any]], asynchronous: bool = False) -> tuple[Any, Any]:
    streaming = pytest.importorskip("anthropic.lib.streaming")
    from anthropic import NOT_GIVEN

    if asynchronous:
        raw = RecordedAsyncStream(anthropic_models(events))

        async def request() -> Any:
            return raw

        return streaming.AsyncMessageStreamManager(request(), output_format=NOT_GIVEN), raw
    raw_stream = RecordedStream(anthropic_models(events))
    return streaming.MessageStreamManager(lambda: raw_stream, output_format=NOT_GIVEN), raw_stream


def openai_chat_manager(chunks: list[dict[str, Any]], asynchronous: bool = False) -> tuple[Any, Any]:
    streaming = pytest.importorskip("openai.lib.streaming.chat")
    from openai import omit

    if asynchronous:
        raw = RecordedAsyncStream(openai_chat_models(chunks))

        async def request() -> Any:
            return raw

        manager = streaming.AsyncChatCompletionStreamManager(request(), response_format=omit, input_tools=omit)
        return manager, raw
    raw_stream = RecordedStream(openai_chat_models(chunks))
    manager = streaming.ChatCompletionStreamManager(lambda: raw_stream, response_format=omit, input_tools=omit)
    return manager, raw_stream


def openai_responses_manager(events: list[dict[str, Any]], asynchronous: bool = False) -> tuple[Any, Any]:
    streaming = pytest.importorskip("openai.lib.streaming.responses")
    from openai import omit

    options = {"text_format": omit, "input_tools": omit, "starting_after": None}
    if asynchronous:
        raw = RecordedAsyncStream(openai_responses_models(events))

        async def request() -> Any:
            return raw

        return streaming.AsyncResponseStreamManager(request(), **options), raw
    raw_stream = RecordedStream(openai_responses_models(events))
    return streaming.ResponseStreamManager(lambda: raw_stream, **options), raw_stream


WEATHER = {"location": "San Francisco, CA", "unit": "fahrenheit"}
MANAGED_STREAMS = {
    "anthropic": (
        AnthropicToolCalls,
        anthropic_manager,
        [
            message_start(),
            block_start(0, {"type": "text", "text": ""}),
            anthropic_text_delta(0, "Checking."),
            block_stop(0),
            tool_use_start(1, "toolu_1", "get_weather"),
            json_delta(1, '{"location": "San Fra'),
            json_delta(1, 'ncisco, CA", "unit": "fahrenheit"}'),
            block_stop(1),
            *message_end(),
        ],
    ),
    "openai-chat": (
        OpenAIChatToolCalls,
        openai_chat_manager,
        [
            chat_chunk({"index": 0, "delta": {"role": "assistant", "content": "Checking."}, "finish_reason": None}),
            chat_chunk(tool_delta(0, "", id="call_1", name="get_weather")),
            chat_chunk(tool_delta(0, '{"location": "San Fra')),
            chat_chunk(tool_delta(0, 'ncisco, CA", "unit": "fahrenheit"}')),
            chat_chunk(finish_choice()),
        ],
    ),
    "openai-responses": (
        OpenAIResponsesToolCalls,
        openai_responses_manager,
        numbered(
            [
                response_event("created", "in_progress"),
                item_added(0, "fc_1", "call_1", "get_weather"),
                arguments_delta(0, "fc_1", '{"location": "San Fra'),
                arguments_delta(0, "fc_1", 'ncisco, CA", "unit": "fahrenheit"}'),
                arguments_done(0, "fc_1", json.dumps(WEATHER)),
                item_done(0, "fc_1", "call_1", "get_weather", json.dumps(WEATHER)),
                response_event("completed", "completed"),
            ]
        ),
    ),
}


@pytest.mark.parametrize("api", sorted(MANAGED_STREAMS))
def test_stream_reads_the_sdks_stream_manager(backend: ModuleType, api: str) -> None:
    accumulator_class, make_manager, events = MANAGED_STREAMS[api]
    manager, raw_stream = make_manager(events)
    calls = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    yielded = [(call.arguments, call.done) for call in calls.stream(manager)]
    (call,) = calls.calls
    assert call.name == "get_weather" and call.done and call.arguments == WEATHER and call.error is None
    assert call.text == '{"location": "San Francisco, CA", "unit": "fahrenheit"}'  # each piece read once
    assert ({"location": "San Fra"}, False) in yielded and yielded[-1] == (WEATHER, True)
    assert raw_stream.closed


@pytest.mark.parametrize("api", sorted(MANAGED_STREAMS))
def test_astream_reads_the_sdks_async_stream_manager(backend: ModuleType, api: str) -> None:
    accumulator_class, make_manager, events = MANAGED_STREAMS[api]
    manager, raw_stream = make_manager(events, asynchronous=True)

    async def read() -> list[Any]:
        calls = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
        yielded = [call.arguments async for call in calls.astream(manager)]
        assert [call.text for call in calls.calls] == [json.dumps(WEATHER)]
        return yielded

    yielded = asyncio.run(read())
    assert yielded[-1] == WEATHER and {"location": "San Fra"} in yielded
    assert raw_stream.closed


# --- Never raising ----------------------------------------------------------------------------------------------

MALFORMED = '{"path": "a.txt" "mode": w, "lines": [1, 2'


def malformed_stream(api: str) -> list[dict[str, Any]]:
    pieces = [MALFORMED[i : i + 5] for i in range(0, len(MALFORMED), 5)]
    if api == "openai-chat":
        first, *rest = pieces
        return [
            chat_chunk(tool_delta(0, first, id="call_1", name="write")),
            *[chat_chunk(tool_delta(0, piece)) for piece in rest],
            chat_chunk(finish_choice()),
        ]
    if api == "openai-responses":
        return numbered(
            [
                item_added(0, "fc_1", "call_1", "write"),
                *[arguments_delta(0, "fc_1", piece) for piece in pieces],
                arguments_done(0, "fc_1", MALFORMED),
            ]
        )
    return [tool_use_start(0, "toolu_1", "write"), *[json_delta(0, piece) for piece in pieces], block_stop(0)]


@pytest.mark.parametrize("api", sorted(CUT_OFF_STREAMS))
@shapes(lambda events: events)  # the SDK models of each API are built in the test
def test_malformed_arguments_never_raise_mid_stream(backend: ModuleType, api: str, shape: Shaper) -> None:
    accumulator_class, _, sdk_models = CUT_OFF_STREAMS[api]
    events = malformed_stream(api)
    shaped = shape(events) if shape(events) is not events else sdk_models(events)
    calls = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    partials = [call.arguments for call in calls.stream(shaped)]
    assert {"path": "a.txt"} in partials  # read leniently while streaming
    (call,) = calls.calls
    assert call.done and call.arguments == {} and malformed_error_for(MALFORMED)(call.error)


ODD_EVENTS: list[Any] = [
    None,
    42,
    "data: [DONE]",
    {},
    {"type": None},
    {"type": "content_block_delta"},
    {"type": "content_block_delta", "index": 0, "delta": None},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 7}},
    {"type": "content_block_start", "index": 0, "content_block": None},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": None},
    {"type": "response.function_call_arguments.delta", "delta": ["a"]},
    {"type": "response.output_item.done", "output_index": 0, "item": None},
    {"choices": None},
    {"choices": [None]},
    {"choices": [{"index": 0, "delta": None, "finish_reason": None}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [None]}, "finish_reason": None}]},
    {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": {"a": 1}}}]}}]},
    {"type": "chunk", "chunk": None},
]


@pytest.mark.parametrize("accumulator_class", [OpenAIChatToolCalls, OpenAIResponsesToolCalls, AnthropicToolCalls])
@pytest.mark.parametrize(
    "shape", [lambda event: event, as_attributes, as_slotted], ids=["dicts", "attributes", "slotted"]
)
def test_odd_events_never_raise(backend: ModuleType, accumulator_class: Any, shape: Callable[[Any], Any]) -> None:
    calls = accumulator_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    for event in ODD_EVENTS:
        assert isinstance(calls.feed(shape(event)), list)
    calls.finish()
    assert all(call.done and isinstance(call.arguments, dict) for call in calls.calls)


# --- Speed: no pydantic __getattr__ ------------------------------------------------------------------------------


@pytest.mark.parametrize("api", sorted(MANAGED_STREAMS))
@pytest.mark.parametrize("how", ["create", "manager"])
def test_sdk_events_are_read_without_pydantics_getattr(
    backend: ModuleType, api: str, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking a pydantic model for a field it lacks runs BaseModel.__getattr__ and raises inside (microseconds, more
    than the parser's work on a piece): the adapters must never do it, for the raw events of ``create(stream=True)``
    and for the stream helpers' own events."""
    pydantic = pytest.importorskip("pydantic")
    accumulator_class, make_manager, events = MANAGED_STREAMS[api]
    source = make_manager(events)[0] if how == "manager" else CUT_OFF_STREAMS[api][2](events)
    reading = [False]
    asked: list[str] = []
    original = pydantic.BaseModel.__getattr__

    def counting_getattr(self: Any, name: str) -> Any:
        if reading[0]:
            asked.append(f"{type(self).__name__}.{name}")
        return original(self, name)

    monkeypatch.setattr(pydantic.BaseModel, "__getattr__", counting_getattr)

    class Observed(accumulator_class):  # type: ignore[misc, valid-type]
        def feed(self, event: Any) -> list[LiveToolCall]:
            reading[0] = True
            try:
                return super().feed(event)  # type: ignore[no-any-return]
            finally:
                reading[0] = False

    calls = Observed(arguments_stream_class=backend.ToolCallArgumentsStream)
    list(calls.stream(source))
    assert calls.calls[0].arguments == WEATHER
    assert asked == []


@pytest.mark.parametrize("api", sorted(CUT_OFF_STREAMS))
@pytest.mark.parametrize("shape", ["dicts", "sdk-models"])
def test_argument_deltas_take_the_fast_path(backend: ModuleType, api: str, shape: str) -> None:
    """Every arguments delta after a call's first event is read by ``feed``'s fast path, not the general one, on
    dicts and on the SDKs' models: a change to the common shape would otherwise only show as a slowdown. (On objects,
    the fast path reads the fields every SDK model has; objects that leave some out, or keep no instance dict, take
    the general path.)"""
    accumulator_class, _, sdk_models = CUT_OFF_STREAMS[api]
    events = malformed_stream(api)
    shaped = events if shape == "dicts" else sdk_models(events)
    general: list[Any] = []

    class Observed(accumulator_class):  # type: ignore[misc, valid-type]
        def _feed(self, event: Any) -> Any:
            general.append(event)
            return super()._feed(event)

    calls = Observed(arguments_stream_class=backend.ToolCallArgumentsStream)
    strays = [None, "data: [DONE]", 42]  # read first, they must not turn the fast path off for the rest
    list(calls.stream([*strays, *shaped]))
    assert calls.calls[0].text == MALFORMED
    assert general == [*strays, shaped[0], shaped[-1]]  # the strays, the call's start and its end


def test_instance_dict_reader_reads_one_class_family_and_refuses_the_rest() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Point(pydantic.BaseModel):
        x: int

    class Label(pydantic.BaseModel):
        text: str

    fields_of = instance_dict_reader(Point(x=1))
    assert fields_of(Label(text="a")) == {"text": "a"}  # every model: pydantic's BaseModel gives the dict
    try:  # another class's object: CPython's descriptor refuses it, PyPy's reads its dict
        assert fields_of(as_attributes({"x": 1})) == {"x": 1}
        assert platform.python_implementation() != "CPython"
    except TypeError:
        assert platform.python_implementation() == "CPython"
    assert instance_dict_reader(as_attributes({"x": 1}))(as_attributes({"y": 2})) == {"y": 2}
    slotted = as_slotted({"x": 1})
    with pytest.raises(TypeError):
        instance_dict_reader(slotted)(slotted)
