"""Each API's stream of one workload call, in one place for the suites that read it (``sdk``, ``clients``,
``instructions``): the events as dicts (what the API's server sends, one event a token piece), their server-sent
data, and how each SDK's client builds its objects from that data.

The seven APIs our adapters read (``APIS``): Anthropic Messages, OpenAI Chat Completions and Responses, Gemini
(``partial_args`` fragments), Cohere v2, Bedrock ConverseStream and Ollama's ``/api/chat``. Each SDK's objects are built
as its client builds them: ``json.loads`` of the event's data, then the openai and anthropic SDKs' ``construct_type``
(no validation, as their ``Stream`` does), cohere's own ``construct_type``, google-genai's validated
``GenerateContentResponse._from_response``, the ollama client's ``ChatResponse(**chunk)``; boto3's events are dicts.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

TOOL_NAME = "write_file"
APIS = ("anthropic", "chat", "responses", "gemini", "cohere", "bedrock", "ollama")
TITLES = {
    "anthropic": "Anthropic",
    "chat": "OpenAI Chat",
    "responses": "OpenAI Responses",
    "gemini": "Gemini",
    "cohere": "Cohere",
    "bedrock": "Bedrock",
    "ollama": "Ollama",
}
# The shapes each API's events come in: its SDK's objects and plain dicts; boto3 gives Bedrock's as dicts.
SHAPES = {api: ("dicts",) if api == "bedrock" else ("sdk", "dicts") for api in APIS}
Event = dict[str, Any]


def anthropic_events(pieces: list[str]) -> list[Event]:
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_bench", "name": TOOL_NAME, "input": {}}
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *[
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}
            for piece in pieces
        ],
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": len(pieces)}},
        {"type": "message_stop"},
    ]  # fmt: skip


def chat_events(pieces: list[str]) -> list[Event]:
    def chunk(delta: dict[str, Any], finish_reason: Optional[str] = None) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1718000000,
            "model": "gpt-4.1-2025-04-14",
            "system_fingerprint": "fp_bench",
            "choices": [choice],
        }

    first = {"index": 0, "id": "call_bench", "type": "function", "function": {"name": TOOL_NAME, "arguments": ""}}
    return [
        chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
        *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces],
        chunk({}, "tool_calls"),
    ]


def responses_events(pieces: list[str]) -> list[Event]:
    """From the response's ``created`` to its ``completed`` (the SDK's stream manager wants both)."""
    text = "".join(pieces)
    response = {"id": "resp_bench", "object": "response", "created_at": 1718000000, "model": "gpt-5", "output": [],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip
    item = {"type": "function_call", "id": "fc_bench", "call_id": "call_bench", "name": TOOL_NAME, "arguments": ""}
    done_item = {**item, "arguments": text, "status": "completed"}
    events: list[Event] = [
        {"type": "response.created", "response": {**response, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress"}},
        *[
            {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_bench", "delta": piece}
            for piece in pieces
        ],
        {"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_bench", "arguments": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [done_item]}},
    ]  # fmt: skip
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def gemini_events(pieces: list[str]) -> list[Event]:
    """The call as Gemini streams it with ``stream_function_call_arguments``: a part that names the call, then each
    value of the arguments at its JSON path, in order, a string's text in fragments as long as the call's own pieces
    (a fragment a token, ``willContinue`` on all but its last), any other value in one fragment; then the end."""

    def chunk(function_call: dict[str, Any], finish_reason: Optional[str] = None) -> Event:
        candidate: dict[str, Any] = {"content": {"parts": [{"functionCall": function_call}], "role": "model"}}
        candidate["index"] = 0
        if finish_reason is not None:
            candidate["finishReason"] = finish_reason
        return {"candidates": [candidate], "modelVersion": "gemini-3-pro", "responseId": "resp_bench"}

    lengths = iter([len(piece) for piece in pieces])

    def fragments(value: Any, path: str) -> list[dict[str, Any]]:
        if isinstance(value, dict):
            return [fragment for key, item in value.items() for fragment in fragments(item, f"{path}.{key}")]
        if isinstance(value, list):
            return [fragment for index, item in enumerate(value) for fragment in fragments(item, f"{path}[{index}]")]
        if isinstance(value, bool):
            return [{"jsonPath": path, "boolValue": value}]
        if value is None:
            return [{"jsonPath": path, "nullValue": None}]
        if not isinstance(value, str):
            return [{"jsonPath": path, "numberValue": value}]
        found, position = [], 0
        while position < len(value) or not found:
            length = next(lengths, 1)
            found.append({"jsonPath": path, "stringValue": value[position : position + length], "willContinue": True})
            position += length
        del found[-1]["willContinue"]
        return found

    events = [chunk({"id": "fc_bench", "name": TOOL_NAME, "willContinue": True})]
    for fragment in fragments(json.loads("".join(pieces)), "$"):
        events.append(chunk({"partialArgs": [fragment], "willContinue": True}))
    events.append(chunk({}, "STOP"))
    return events


def cohere_events(pieces: list[str]) -> list[Event]:
    tool_call = {"id": "call_bench", "type": "function", "function": {"name": TOOL_NAME, "arguments": ""}}
    events: list[Event] = [
        {"type": "message-start", "id": "msg_bench", "delta": {"message": {"role": "assistant"}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": tool_call}}},
    ]
    for piece in pieces:
        delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
        events.append({"type": "tool-call-delta", "index": 0, "delta": delta})
    events.append({"type": "tool-call-end", "index": 0})
    usage = {"billed_units": {"input_tokens": 1000, "output_tokens": len(pieces)}}
    events.append({"type": "message-end", "id": "msg_bench", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}})
    return events


def bedrock_events(pieces: list[str]) -> list[Event]:
    start = {"start": {"toolUse": {"toolUseId": "tooluse_bench", "name": TOOL_NAME}}, "contentBlockIndex": 0}
    events: list[Event] = [{"messageStart": {"role": "assistant"}}, {"contentBlockStart": start}]
    for piece in pieces:
        events.append({"contentBlockDelta": {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": 0}})
    events += [{"contentBlockStop": {"contentBlockIndex": 0}}, {"messageStop": {"stopReason": "tool_use"}}]
    return events


def ollama_events(pieces: list[str]) -> list[Event]:
    """Ollama sends a call whole, once its server has parsed it out of the model's tokens, and no chunk while the model
    writes it: the stream is the model's text before the call, a chunk a token (the call's pieces, as text: as many
    tokens as the call), then the call in one chunk (its arguments an object), then the ``done`` chunk."""

    def chunk(message: dict[str, Any], **fields: Any) -> Event:
        return {"model": "qwen3", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": False, **fields}

    function = {"name": TOOL_NAME, "arguments": json.loads("".join(pieces))}
    return [
        *[chunk({"role": "assistant", "content": piece}) for piece in pieces],
        chunk({"role": "assistant", "content": "", "tool_calls": [{"function": function}]}),
        chunk({"role": "assistant", "content": ""}, done=True, done_reason="stop", eval_count=len(pieces) + 1),
    ]


EVENTS: dict[str, Callable[[list[str]], list[Event]]] = {
    "anthropic": anthropic_events,
    "chat": chat_events,
    "responses": responses_events,
    "gemini": gemini_events,
    "cohere": cohere_events,
    "bedrock": bedrock_events,
    "ollama": ollama_events,
}


def api_events(api: str, pieces: list[str]) -> list[Event]:
    """The call's events as ``api``'s server sends them, as dicts: one event a piece, and those around them."""
    return EVENTS[api](pieces)


def sse_bytes(api: str, events: list[Event]) -> bytes:
    """The events as their API's server sends them: server-sent events with ``event:`` lines where it names them and
    Chat's ``[DONE]``; Ollama's, a JSON object a line."""
    if api == "ollama":
        return "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in events).encode()
    named = api in ("responses", "anthropic", "cohere")
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if api == "chat":
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def sdk_builder(api: str) -> Callable[[str], Any]:
    """How ``api``'s SDK client turns the data of one event into the object it yields (ImportError: the SDK is
    missing)."""
    loads = json.loads
    if api in ("chat", "responses"):
        from openai._models import construct_type as openai_construct
        from openai.types.chat import ChatCompletionChunk
        from openai.types.responses import ResponseStreamEvent

        type_ = ChatCompletionChunk if api == "chat" else ResponseStreamEvent
        return lambda data: openai_construct(type_=type_, value=loads(data))
    if api == "anthropic":
        from anthropic._models import construct_type as anthropic_construct
        from anthropic.types import RawMessageStreamEvent

        return lambda data: anthropic_construct(type_=RawMessageStreamEvent, value=loads(data))
    if api == "gemini":
        from google.genai.types import GenerateContentResponse

        from_response = GenerateContentResponse._from_response
        return lambda data: from_response(response=loads(data), kwargs={})
    if api == "cohere":
        from cohere.core.unchecked_base_model import construct_type as cohere_construct
        from cohere.v2.types import V2ChatStreamResponse

        return lambda data: cohere_construct(type_=V2ChatStreamResponse, object_=loads(data))
    if api == "ollama":
        from ollama import ChatResponse

        return lambda data: ChatResponse(**loads(data))
    return loads  # boto3's events are dicts


def builders() -> dict[str, dict[str, Callable[[str], Any]]]:
    """Per shape and API (``SHAPES``), how a client turns the data of an event into the event it reads: ``json.loads``
    for dicts, the SDK's own way for its objects (``sdk_builder``)."""
    return {
        "dicts": dict.fromkeys(APIS, json.loads),
        "sdk": {api: sdk_builder(api) for api in APIS if "sdk" in SHAPES[api]},
    }
