"""The adapters read the streams the SDKs' own clients hand out: ``create(stream=True)`` and the stream managers,
over recorded server-sent events (``sse_replay``), on both backends."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from streaming_json.integrations import OpenAIChatToolCalls

from .sdk_events import chat_chunk, finish_choice
from .sse_replay import openai_client, sse_body

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}},
    },
}


def dashscope_tool_delta(index: int, arguments: str, id: str, name: str) -> dict[str, Any]:
    """A tool-call delta as DashScope, Qwen and DeepSeek endpoints send it: ``id`` and ``name`` present on every
    chunk, and empty on the continuation chunks."""
    tool_call = {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"index": 0, "delta": {"tool_calls": [tool_call]}, "finish_reason": None}


EMPTY_ID_CHUNKS = [
    chat_chunk({"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}),
    chat_chunk(dashscope_tool_delta(0, "", "call_0a1b", "get_weather")),
    chat_chunk(dashscope_tool_delta(0, '{"city": "Hang', "", "")),
    chat_chunk(dashscope_tool_delta(0, 'zhou", "unit": "celsius"}', "", "")),
    chat_chunk(dashscope_tool_delta(1, '{"city": "Bei', "call_2c3d", "get_weather")),
    chat_chunk(dashscope_tool_delta(1, 'jing"}', "", "")),
    chat_chunk(finish_choice()),
]


def sdk_helper_calls(body: bytes) -> list[tuple[str, str, str]]:
    """The calls as the SDK's own helper accumulates them: (id, name, arguments text)."""
    client = openai_client(body)
    with client.chat.completions.stream(model="qwen-plus", messages=[], tools=[WEATHER_TOOL]) as stream:
        for _ in stream:
            pass
        completion = stream.get_final_completion()
    tool_calls = completion.choices[0].message.tool_calls or []
    return [(call.id, call.function.name, call.function.arguments) for call in tool_calls]


@pytest.mark.parametrize("source", ["create", "stream-manager"])
def test_chat_empty_ids_on_continuation_chunks_continue_the_call(backend: ModuleType, source: str) -> None:
    body = sse_body(EMPTY_ID_CHUNKS, done_marker=True)
    expected = [
        ("call_0a1b", "get_weather", '{"city": "Hangzhou", "unit": "celsius"}'),
        ("call_2c3d", "get_weather", '{"city": "Beijing"}'),
    ]
    assert sdk_helper_calls(body) == expected  # the SDK's own helper reads these streams so
    client = openai_client(body)
    if source == "create":
        events: Any = client.chat.completions.create(model="qwen-plus", messages=[], tools=[WEATHER_TOOL], stream=True)
    else:
        events = client.chat.completions.stream(model="qwen-plus", messages=[], tools=[WEATHER_TOOL])
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for _ in calls.stream(events):
        pass
    assert [(call.id, call.name, call.text) for call in calls.calls] == expected
    assert [call.arguments for call in calls.calls] == [{"city": "Hangzhou", "unit": "celsius"}, {"city": "Beijing"}]
    assert all(call.done and call.error is None for call in calls.calls)


def test_chat_empty_ids_as_dicts_continue_the_call(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for chunk in EMPTY_ID_CHUNKS:
        calls.feed(chunk)
    assert [(call.id, call.name, call.arguments) for call in calls.calls] == [
        ("call_0a1b", "get_weather", {"city": "Hangzhou", "unit": "celsius"}),
        ("call_2c3d", "get_weather", {"city": "Beijing"}),
    ]
