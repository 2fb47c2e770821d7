"""The renderers of a model's output (OpenAI Chat deltas, Responses API events, Anthropic Messages events), sent as
server-sent events and read back by the SDKs' own clients: a client that reads what a server sends ends with exactly
the calls and the content of the model's output."""

from __future__ import annotations

import json
import random
from functools import partial
from types import ModuleType
from typing import Any

import pytest

from streaming_json.model_output import (
    AnthropicMessagesEvents,
    ModelOutputStream,
    OpenAIResponsesEvents,
    openai_chat_deltas,
)

from .backends import cpython_only
from .model_outputs import FORMAT_NAMES, PROSE_AFTER, PROSE_BEFORE, REAL_CALLS, arguments_styles, call_id, write_output
from .sse_replay import anthropic_client, openai_client, sse_body
from .strategies import cut_randomly

pytestmark = cpython_only("the SDKs need jiter, which has no wheel for PyPy 3.9")


# The SDKs build a pydantic model for every chunk (some 100 us each): calls of a few hundred characters keep these
# tests to seconds; the layer itself is tested on all 845 calls, the long ones included, in test_model_output.py.
SHORT_CALLS = [index for index, (_, arguments) in enumerate(REAL_CALLS) if len(arguments) < 600]


def streamed_outputs(
    format_name: str, count: int, seed: int
) -> list[tuple[list[str], str, list[tuple[str, str, str]]]]:
    """Model outputs of real calls, cut into token pieces: (pieces, content, [(id, name, arguments text)])."""
    rng = random.Random(seed)
    outputs = []
    for _ in range(count):
        picks = rng.sample(SHORT_CALLS, rng.randint(1, 3))
        calls = [(REAL_CALLS[pick][0], rng.choice(arguments_styles(REAL_CALLS[pick][1]))) for pick in picks]
        before = "Let me check. " if PROSE_BEFORE[format_name] else ""
        after = " Done." if PROSE_AFTER[format_name] else ""
        text, _ = write_output(format_name, calls, before, after)
        ids = [f"functions.{name}:{i}" if format_name == "kimi_k2" else call_id(i) for i, (name, _) in enumerate(calls)]
        expected = [(own_id, name, arguments) for own_id, (name, arguments) in zip(ids, calls)]
        outputs.append((cut_randomly(text, rng.randint(0, 10**6), 1, 8), before + after, expected))
    return outputs


def model_events(backend: ModuleType, format_name: str, pieces: list[str]) -> list[list[Any]]:
    stream = ModelOutputStream(format_name, new_call_id=call_id, parser_class=backend.StreamingJsonParser)
    return [stream.feed(piece) for piece in pieces] + [stream.finish()]


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_openai_chat_deltas_read_back_by_the_openai_client(backend: ModuleType, format_name: str) -> None:
    """A server sends each delta as a chunk; the real client's stream manager accumulates them."""
    for pieces, content, expected in streamed_outputs(format_name, 5, sum(map(ord, format_name))):
        chunk = partial(dict, id="chatcmpl-1", object="chat.completion.chunk", created=1, model="qwen3")
        chunks = [
            chunk(choices=[{"index": 0, "delta": delta, "finish_reason": None}])
            for events in model_events(backend, format_name, pieces)
            for delta in openai_chat_deltas(events)
        ]
        chunks.append(chunk(choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]))
        client = openai_client(sse_body(chunks, done_marker=True))
        with client.chat.completions.stream(model="qwen3", messages=[]) as stream:
            message = stream.get_final_completion().choices[0].message
        assert (message.content or "") == content
        calls = [(call.id, call.function.name, call.function.arguments) for call in message.tool_calls or []]
        assert calls == expected


def test_openai_chat_deltas_shape() -> None:
    stream = ModelOutputStream("hermes", new_call_id=call_id, reasoning=("<think>", "</think>"))
    events = stream.feed('<think>hm</think>Hi<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    assert openai_chat_deltas(events + stream.finish()) == [
        {"reasoning_content": "hm"},
        {"content": "Hi"},
        {"tool_calls": [{"index": 0, "id": "call_0", "type": "function", "function": {"name": "f", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1}'}}]},
    ]


def numbered_ids(prefix: str, counter: list[int] = [0]) -> str:  # noqa: B006  # a counter across the calls
    counter[0] += 1
    return f"{prefix}_{counter[0]}"


@pytest.mark.parametrize("format_name", ["hermes", "kimi_k2", "mistral"])
def test_responses_events_read_back_by_the_openai_client(backend: ModuleType, format_name: str) -> None:
    """A server sends the events between its own response.created and response.completed; the real client's
    ``responses.stream()`` accumulates each item's text and arguments."""
    for pieces, content, expected in streamed_outputs(format_name, 4, 7):
        renderer = OpenAIResponsesEvents(first_sequence_number=1, new_id=numbered_ids)
        rendered = [event for events in model_events(backend, format_name, pieces) for event in renderer.render(events)]
        rendered += renderer.finish()
        assert [event["sequence_number"] for event in rendered] == list(range(1, len(rendered) + 1))
        items = [event["item"] for event in rendered if event["type"] == "response.output_item.done"]
        base = {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "m",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
        created = {
            "type": "response.created",
            "sequence_number": 0,
            "response": {**base, "status": "in_progress", "output": []},
        }
        completed = {
            "type": "response.completed",
            "sequence_number": len(rendered) + 1,
            "response": {**base, "status": "completed", "output": items},
        }
        client = openai_client(sse_body([created, *rendered, completed], named=True))
        text: dict[str, str] = {}
        arguments: dict[str, str] = {}
        with client.responses.stream(model="m", input="hi") as stream:
            for event in stream:
                if event.type == "response.output_text.delta":
                    text[event.item_id] = event.snapshot
                elif event.type == "response.function_call_arguments.delta":
                    arguments[event.item_id] = event.snapshot
            response = stream.get_final_response()
        assert "".join(text.values()) == content
        calls = [
            (item.call_id, item.name, arguments[item.id]) for item in response.output if item.type == "function_call"
        ]
        assert calls == expected


@pytest.mark.parametrize("format_name", ["hermes", "deepseek_v31", "granite"])
def test_anthropic_events_read_back_by_the_anthropic_client(backend: ModuleType, format_name: str) -> None:
    """A server sends the events between its own message_start and message_delta/message_stop; the real client's
    ``messages.stream()`` builds the message from them."""
    for pieces, content, expected in streamed_outputs(format_name, 4, 11):
        renderer = AnthropicMessagesEvents()
        rendered = [event for events in model_events(backend, format_name, pieces) for event in renderer.render(events)]
        rendered += renderer.finish()
        message = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        end = {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        }
        events = [{"type": "message_start", "message": message}, *rendered, end, {"type": "message_stop"}]
        client = anthropic_client(sse_body(events, named=True))
        with client.messages.stream(model="m", max_tokens=10, messages=[]) as stream:
            final = stream.get_final_message()
        assert "".join(block.text for block in final.content if block.type == "text") == content
        calls = [(block.id, block.name, block.input) for block in final.content if block.type == "tool_use"]
        assert calls == [(own_id, name, json.loads(arguments)) for own_id, name, arguments in expected]
