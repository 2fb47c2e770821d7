"""The SDK adapters, fed recorded event sequences written in the documented shapes of each API: as plain dicts, as
attribute objects and, where the SDK is installed, as the SDK's own models."""

from __future__ import annotations

import json
from types import ModuleType, SimpleNamespace
from typing import Any, Callable

import pytest

from streaming_json.integrations import (
    AnthropicToolCalls,
    LiveToolCall,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)

# --- Event shapes -----------------------------------------------------------------------------------------------


def as_attributes(value: Any) -> Any:
    """A dict event as nested attribute objects, as an SDK without pydantic would hand it out."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: as_attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_attributes(item) for item in value]
    return value


def openai_chat_models(chunks: list[dict[str, Any]]) -> list[Any]:
    chat = pytest.importorskip("openai.types.chat")
    return [chat.ChatCompletionChunk.model_validate(chunk) for chunk in chunks]


def openai_responses_models(events: list[dict[str, Any]]) -> list[Any]:
    responses = pytest.importorskip("openai.types.responses")
    classes = {
        "response.output_item.added": responses.ResponseOutputItemAddedEvent,
        "response.output_item.done": responses.ResponseOutputItemDoneEvent,
        "response.output_text.delta": responses.ResponseTextDeltaEvent,
        "response.function_call_arguments.delta": responses.ResponseFunctionCallArgumentsDeltaEvent,
        "response.function_call_arguments.done": responses.ResponseFunctionCallArgumentsDoneEvent,
    }
    return [classes[event["type"]].model_validate(event) for event in events]


def anthropic_models(events: list[dict[str, Any]]) -> list[Any]:
    types = pytest.importorskip("anthropic.types")
    classes = {
        "message_start": types.RawMessageStartEvent,
        "content_block_start": types.RawContentBlockStartEvent,
        "content_block_delta": types.RawContentBlockDeltaEvent,
        "content_block_stop": types.RawContentBlockStopEvent,
        "message_delta": types.RawMessageDeltaEvent,
        "message_stop": types.RawMessageStopEvent,
    }
    return [classes[event["type"]].model_validate(event) for event in events]


Shaper = Callable[[list[dict[str, Any]]], list[Any]]


def shapes(sdk_models: Shaper) -> pytest.MarkDecorator:
    """Parametrise a test over the three shapes of the same events."""
    return pytest.mark.parametrize(
        "shape",
        [lambda events: events, lambda events: [as_attributes(event) for event in events], sdk_models],
        ids=["dicts", "attributes", "sdk-models"],
    )


def feed_all(accumulator: Any, events: list[Any]) -> list[list[LiveToolCall]]:
    return [accumulator.feed(event) for event in events]


def malformed_error_for(text: str) -> Callable[[str | None], bool]:
    return lambda error: error is not None and error.endswith(f"Received arguments: {text}")


# --- OpenAI Chat Completions ------------------------------------------------------------------------------------


def chat_chunk(*choices: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9x",
        "object": "chat.completion.chunk",
        "created": 1718000000,
        "model": "gpt-4o-2024-08-06",
        "choices": list(choices),
    }


def tool_delta(
    index: int, arguments: str, id: str | None = None, name: str | None = None, choice: int = 0
) -> dict[str, Any]:
    tool_call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if id is not None:
        tool_call.update(id=id, type="function")
        tool_call["function"]["name"] = name
    return {"index": choice, "delta": {"tool_calls": [tool_call]}, "finish_reason": None}


def finish_choice(choice: int = 0, reason: str = "tool_calls") -> dict[str, Any]:
    return {"index": choice, "delta": {}, "finish_reason": reason}


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
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
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
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    (weather,) = calls.feed(chat_chunk(tool_delta(0, '{"city": "Par', id="call_1", name="get_weather")))
    assert weather.arguments == {"city": "Par"} and not weather.done and weather.result is None
    calls.feed(chat_chunk(tool_delta(0, 'is", "days": 3')))
    assert weather.arguments == {"city": "Paris", "days": 3}


def test_chat_choices_finish_separately(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"q": "a"}', id="call_a", name="search", choice=0)))
    calls.feed(chat_chunk(tool_delta(0, '{"q": "b"}', id="call_b", name="search", choice=1)))
    assert calls.feed(chat_chunk(finish_choice(choice=1))) == [calls.calls[1]]
    first, second = calls.calls
    assert not first.done and second.done and second.arguments == {"q": "b"}
    assert calls.finish() == [first]
    assert first.arguments == {"q": "a"} and calls.finish() == []


def test_chat_a_new_id_at_the_same_index_is_a_new_call(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"path": "a.txt"}', id="call_1", name="read")))
    changed = calls.feed(chat_chunk(tool_delta(0, '{"path": "b.txt"}', id="call_2", name="read")))
    first, second = calls.calls
    assert changed == [first, second]
    assert first.done and first.arguments == {"path": "a.txt"}
    assert not second.done and second.arguments == {"path": "b.txt"}


def test_chat_a_repeated_id_continues_the_call(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"path": ', id="call_1", name="read")))
    calls.feed(chat_chunk(tool_delta(0, '"a.txt"}', id="call_1", name="read")))
    (call,) = calls.calls
    assert call.arguments == {"path": "a.txt"} and call.name == "read"


def test_chat_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"city": "Paris", "unit": celsius}'
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, text, id="call_1", name="get_weather")))
    (call,) = calls.feed(chat_chunk(finish_choice()))
    assert call.done and call.arguments == {}
    assert malformed_error_for(text)(call.error)
    assert call.result is not None and call.result.error == call.error


def test_chat_reads_the_streaming_helpers_chunk_events(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    event = {"type": "chunk", "chunk": chat_chunk(tool_delta(0, '{"n": 1}', id="call_1", name="count"))}
    (call,) = calls.feed(event)
    assert call.arguments == {"n": 1}
    assert calls.feed({"type": "content.delta", "delta": "hi"}) == []


# --- OpenAI Responses -------------------------------------------------------------------------------------------


def item_added(index: int, item_id: str, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": arguments}
    return {"type": "response.output_item.added", "output_index": index, "item": {**item, "status": "in_progress"}}


def arguments_delta(index: int, item_id: str, delta: str) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.delta", "output_index": index, "item_id": item_id, "delta": delta}


def arguments_done(index: int, item_id: str, arguments: str) -> dict[str, Any]:
    event_type = "response.function_call_arguments.done"
    return {"type": event_type, "output_index": index, "item_id": item_id, "arguments": arguments}


def item_done(index: int, item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": arguments}
    return {"type": "response.output_item.done", "output_index": index, "item": {**item, "status": "completed"}}


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": number} for number, event in enumerate(events, start=1)]


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
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    changed = feed_all(calls, shape(PARALLEL_RESPONSES_EVENTS))
    weather, time = calls.calls
    assert changed == [[], [weather], [weather], [time], [time], [weather], [weather], [], [time], [time]]
    assert (weather.id, weather.name, weather.key) == ("call_weather", "get_weather", 1)
    assert (time.id, time.name, time.key) == ("call_time", "get_time", 2)
    assert weather.done and weather.arguments == {"city": "Tokyo"} and weather.error is None
    assert time.done and time.arguments == {"timezone": "Asia/Tokyo"} and time.error is None


def test_responses_arguments_are_live_while_the_call_streams(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "write"))
    (call,) = calls.feed(arguments_delta(0, "fc_1", '{"path": "notes.md", "content": "# To'))
    assert call.arguments == {"path": "notes.md", "content": "# To"} and not call.done


def test_responses_done_text_that_continues_the_stream_is_appended(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "stre'))
    (call,) = calls.feed(arguments_done(0, "fc_1", '{"query": "streaming json"}'))  # a lost delta, made up for
    assert call.done and call.arguments == {"query": "streaming json"}
    assert call.text == '{"query": "streaming json"}'


def test_responses_done_text_that_does_not_continue_the_stream_starts_over(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "garbled'))
    (call,) = calls.feed(arguments_done(0, "fc_1", '{"query": "streaming json", "limit": 5}'))
    assert call.arguments == {"query": "streaming json", "limit": 5}
    assert call.text == '{"query": "streaming json", "limit": 5}'


def test_responses_item_done_alone_ends_the_call(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    (call,) = calls.feed(item_done(0, "fc_1", "call_1", "search", '{"query": "x"}'))
    assert call.done and call.arguments == {"query": "x"}


def test_responses_a_stream_joined_late_still_reads_the_call(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    (call,) = calls.feed(arguments_delta(3, "fc_9", '{"a": 1'))
    assert (call.id, call.name, call.arguments) == (None, None, {"a": 1})
    calls.feed({**arguments_done(3, "fc_9", '{"a": 1}'), "name": "late"})
    assert call.done and call.name == "late" and call.arguments == {"a": 1}


def test_responses_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"query": "x",}'
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", text))
    (call,) = calls.feed(arguments_done(0, "fc_1", text))
    assert call.done and call.arguments == {} and malformed_error_for(text)(call.error)


def test_responses_the_end_of_the_response_ends_open_calls(backend: ModuleType) -> None:
    calls = OpenAIResponsesToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(item_added(0, "fc_1", "call_1", "search"))
    calls.feed(arguments_delta(0, "fc_1", '{"query": "cut off'))
    (call,) = calls.feed({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete"}})
    assert call.done and call.arguments == {} and malformed_error_for('{"query": "cut off')(call.error)


# --- Anthropic Messages -----------------------------------------------------------------------------------------


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def tool_use_start(index: int, id: str, name: str) -> dict[str, Any]:
    return block_start(index, {"type": "tool_use", "id": id, "name": name, "input": {}})


def json_delta(index: int, partial_json: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": partial_json}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


ANTHROPIC_EVENTS = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 412, "output_tokens": 2},
        },
    },
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
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
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
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "write"))
    (call,) = calls.feed(json_delta(0, '{"path": "a.py", "content": "import o'))
    assert call.arguments == {"path": "a.py", "content": "import o"} and not call.done


def test_anthropic_interleaved_blocks_keep_apart(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
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
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    server_block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    events = [block_start(0, server_block), json_delta(0, '{"query": "w"}'), block_stop(0), {"type": "message_stop"}]
    assert feed_all(calls, events) == [[], [], [], []]
    assert calls.calls == []


def test_anthropic_malformed_arguments_end_with_an_error(backend: ModuleType) -> None:
    text = '{"path": "a.txt" "mode": "w"}'
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
    calls.feed(tool_use_start(0, "toolu_1", "write"))
    calls.feed(json_delta(0, text))
    (call,) = calls.feed(block_stop(0))
    assert call.done and call.arguments == {} and malformed_error_for(text)(call.error)


def test_anthropic_message_stop_ends_a_block_left_open(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(stream_factory=backend.ToolCallArgumentsStream)
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
