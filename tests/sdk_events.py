"""Stream events of the three APIs, in their documented shapes, for the adapter tests: builders of dict events, the
same events as attribute objects, slotted objects and the SDKs' own models, and stand-ins for the SDKs' raw streams
so that their stream managers run with no network."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import pytest

# --- Shapes ---------------------------------------------------------------------------------------------------------


def as_attributes(value: Any) -> Any:
    """A dict event as nested attribute objects, as an SDK without pydantic would hand it out."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: as_attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_attributes(item) for item in value]
    return value


_slotted_classes: dict[tuple[str, ...], type] = {}


def as_slotted(value: Any) -> Any:
    """A dict event as nested objects without an instance dict (``__slots__``): only ``getattr`` reads them."""
    if isinstance(value, dict):
        keys = tuple(value)
        cls = _slotted_classes.get(keys)
        if cls is None:
            cls = _slotted_classes[keys] = type("SlottedEvent", (), {"__slots__": keys})
        obj = cls()
        for key, item in value.items():
            setattr(obj, key, as_slotted(item))
        return obj
    if isinstance(value, list):
        return [as_slotted(item) for item in value]
    return value


def openai_chat_models(chunks: list[dict[str, Any]]) -> list[Any]:
    chat = pytest.importorskip("openai.types.chat")
    return [chat.ChatCompletionChunk.model_validate(chunk) for chunk in chunks]


def openai_responses_models(events: list[dict[str, Any]]) -> list[Any]:
    """The Responses events as the SDK's models (lifecycle events, which hold a whole response, unvalidated)."""
    responses = pytest.importorskip("openai.types.responses")
    classes = {
        "response.output_item.added": responses.ResponseOutputItemAddedEvent,
        "response.output_item.done": responses.ResponseOutputItemDoneEvent,
        "response.output_text.delta": responses.ResponseTextDeltaEvent,
        "response.output_text.done": responses.ResponseTextDoneEvent,
        "response.content_part.added": responses.ResponseContentPartAddedEvent,
        "response.refusal.delta": responses.ResponseRefusalDeltaEvent,
        "response.function_call_arguments.delta": responses.ResponseFunctionCallArgumentsDeltaEvent,
        "response.function_call_arguments.done": responses.ResponseFunctionCallArgumentsDoneEvent,
    }
    lifecycle = {
        "response.created": responses.ResponseCreatedEvent,
        "response.completed": responses.ResponseCompletedEvent,
        "response.incomplete": responses.ResponseIncompleteEvent,
    }
    models = []
    for event in events:
        kind = event["type"]
        if kind in lifecycle:
            response = responses.Response.model_construct(**event["response"])
            models.append(lifecycle[kind].model_construct(**{**event, "response": response}))
        else:
            models.append(classes[kind].model_validate(event))
    return models


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
    """Parametrise a test over four shapes of the same events."""
    return pytest.mark.parametrize(
        "shape",
        [
            lambda events: events,
            lambda events: [as_attributes(event) for event in events],
            lambda events: [as_slotted(event) for event in events],
            sdk_models,
        ],
        ids=["dicts", "attributes", "slotted", "sdk-models"],
    )


# --- OpenAI Chat Completions ----------------------------------------------------------------------------------------


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


def content_delta(text: str, choice: int = 0, role: bool = False) -> dict[str, Any]:
    delta = {"role": "assistant", "content": text} if role else {"content": text}
    return {"index": choice, "delta": delta, "finish_reason": None}


def refusal_delta(text: str, choice: int = 0) -> dict[str, Any]:
    return {"index": choice, "delta": {"refusal": text}, "finish_reason": None}


def finish_choice(choice: int = 0, reason: str = "tool_calls") -> dict[str, Any]:
    return {"index": choice, "delta": {}, "finish_reason": reason}


# --- OpenAI Responses -----------------------------------------------------------------------------------------------


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": number} for number, event in enumerate(events, start=1)]


def response_object(status: str, output: list[Any] | None = None) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1718000000,
        "model": "gpt-4.1",
        "status": status,
        "output": output or [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def response_event(kind: str, status: str, output: list[Any] | None = None) -> dict[str, Any]:
    return {"type": f"response.{kind}", "response": response_object(status, output)}


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


def message_added(index: int, item_id: str = "msg_1") -> dict[str, Any]:
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def message_item(text: str, item_id: str = "msg_1") -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": []}
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": [part]}


def message_done(index: int, text: str, item_id: str = "msg_1") -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": message_item(text, item_id)}


def part_added(index: int, part: int = 0, item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "response.content_part.added",
        "output_index": index,
        "content_index": part,
        "item_id": item_id,
        "part": {"type": "output_text", "text": "", "annotations": []},
    }


def text_delta(index: int, delta: str, part: int = 0, item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "output_index": index,
        "content_index": part,
        "item_id": item_id,
        "delta": delta,
        "logprobs": [],
    }


def text_done(index: int, text: str, part: int = 0, item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "response.output_text.done",
        "output_index": index,
        "content_index": part,
        "item_id": item_id,
        "text": text,
        "logprobs": [],
    }


# --- Anthropic Messages ---------------------------------------------------------------------------------------------


def message_start() -> dict[str, Any]:
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 412, "output_tokens": 2},
    }
    return {"type": "message_start", "message": message}


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def tool_use_start(index: int, id: str, name: str) -> dict[str, Any]:
    return block_start(index, {"type": "tool_use", "id": id, "name": name, "input": {}})


def json_delta(index: int, partial_json: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": partial_json}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def anthropic_text_delta(index: int, text: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_end(stop_reason: str = "tool_use") -> list[dict[str, Any]]:
    delta = {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}}
    return [{**delta, "usage": {"output_tokens": 89}}, {"type": "message_stop"}]


# --- Stand-ins for the SDKs' raw streams ------------------------------------------------------------------------------


class RecordedStream:
    """What the SDKs' stream helpers need of a raw ``Stream``: its events, ``response`` and ``close()``."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(close=self.close, headers={})
        self.closed = False

    def __iter__(self) -> Any:
        return iter(self.events)

    def close(self) -> None:
        self.closed = True


class RecordedAsyncStream:
    """The same for the SDKs' ``AsyncStream``."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(aclose=self.close, headers={})
        self.closed = False

    async def __aiter__(self) -> Any:
        for event in self.events:
            yield event

    async def close(self) -> None:
        self.closed = True


async def async_iterable(events: list[Any]) -> Any:
    """The events as an async generator, as ``await client....create(..., stream=True)`` gives them."""
    for event in events:
        yield event
