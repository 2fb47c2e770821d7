"""Whole streams of each API, built from the 845 real tool calls in token pieces, as the providers send them: the
events (dicts, in the API's own naming) that the tests serve to the SDKs' clients as server-sent events (or, for
Bedrock, as AWS event-stream messages), and read back through every source a user has."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Optional

from . import sdk_events as sse
from .model_outputs import REAL_CALLS
from .strategies import cut_randomly

Call = tuple[str, str]  # (tool name, argument text)

# The SDKs build a pydantic model for every event (100 to 200 us each for Chat, Gemini and Cohere): a sample of the
# corpus, a few kB of arguments, keeps each client's test under a second; the whole corpus goes through the adapters
# on dicts and through the raw path, which cost a few microseconds an event.
SAMPLE: list[Call] = [call for number, call in enumerate(REAL_CALLS) if number % 83 == 0 and len(call[1]) <= 2500]
STRUCTURED_TEXT = max((arguments for _, arguments in SAMPLE if len(arguments) < 1200), key=len)


Cutter = Callable[[str], list[str]]


def pieces(text: str, seed: int, cut: Optional[Cutter] = None) -> list[str]:
    """``text`` in token pieces, 2 to 6 characters; or as ``cut`` cuts it (a property test's cuts)."""
    return cut(text) if cut is not None else cut_randomly(text, seed, 2, 6)


def call_id(number: int) -> str:
    return f"call_{number:03d}"


def expected_calls(calls: Sequence[Call]) -> list[tuple[str, str, Any]]:
    """What every reader must end with: (id, name, arguments) per call."""
    return [(call_id(number), name, json.loads(arguments)) for number, (name, arguments) in enumerate(calls)]


# --- OpenAI Chat Completions ------------------------------------------------------------------------------------------


def chat_stream(
    calls: Sequence[Call], seed: int, *, first_index: int = 0, repeat_ids: bool = False, cut: Optional[Cutter] = None
) -> list[Any]:
    """The calls one after another, each at its own index (from ``first_index``): a first chunk with the id, the name
    and ``"arguments": ""``, then a chunk a piece (``repeat_ids``: the id and name on every chunk, as some providers
    send them), then ``finish_reason: "tool_calls"``."""
    chunks = [sse.chat_chunk(sse.content_delta("", role=True))]
    for number, (name, arguments) in enumerate(calls):
        index = first_index + number
        chunks.append(sse.chat_chunk(sse.tool_delta(index, "", id=call_id(number), name=name)))
        for piece in pieces(arguments, seed + number, cut):
            if repeat_ids:
                chunks.append(sse.chat_chunk(sse.tool_delta(index, piece, id=call_id(number), name=name)))
            else:
                chunks.append(sse.chat_chunk(sse.tool_delta(index, piece)))
    chunks.append(sse.chat_chunk(sse.finish_choice(0, "tool_calls")))
    return chunks


def chat_text_stream(text: str, seed: int) -> list[Any]:
    chunks = [sse.chat_chunk(sse.content_delta("", role=True))]
    chunks += [sse.chat_chunk(sse.content_delta(piece)) for piece in pieces(text, seed)]
    return chunks + [sse.chat_chunk(sse.finish_choice(0, "stop"))]


def chat_tools(calls: Sequence[Call], strict: bool = False) -> list[Any]:
    """The tools a request offers for these calls (the SDK's helpers parse the arguments of strict tools)."""
    parameters = {"type": "object", "properties": {}, "additionalProperties": True}
    return [
        {
            "type": "function",
            "function": {"name": name, "parameters": parameters, **({"strict": True} if strict else {})},
        }
        for name in sorted({name for name, _ in calls})
    ]


# --- OpenAI Responses ---------------------------------------------------------------------------------------------


def responses_stream(calls: Sequence[Call], seed: int, cut: Optional[Cutter] = None) -> list[Any]:
    events: list[Any] = [sse.response_event("created", "in_progress")]
    output = []
    for number, (name, arguments) in enumerate(calls):
        item_id = f"fc_{number:03d}"
        events.append(sse.item_added(number, item_id, call_id(number), name))
        events += [sse.arguments_delta(number, item_id, piece) for piece in pieces(arguments, seed + number, cut)]
        events.append(sse.arguments_done(number, item_id, arguments))
        done = sse.item_done(number, item_id, call_id(number), name, arguments)
        events.append(done)
        output.append(done["item"])
    events.append(sse.response_event("completed", "completed", output))
    return sse.numbered(events)


def responses_text_stream(text: str, seed: int) -> list[Any]:
    events = [sse.response_event("created", "in_progress"), sse.message_added(0), sse.part_added(0)]
    events += [sse.text_delta(0, piece) for piece in pieces(text, seed)]
    events += [sse.text_done(0, text), sse.message_done(0, text)]
    events.append(sse.response_event("completed", "completed", [sse.message_item(text)]))
    return sse.numbered(events)


# --- Anthropic Messages -------------------------------------------------------------------------------------------


def anthropic_stream(calls: Sequence[Call], seed: int, cut: Optional[Cutter] = None) -> list[Any]:
    events = [sse.message_start()]
    for number, (name, arguments) in enumerate(calls):
        events.append(sse.tool_use_start(number, call_id(number), name))
        events += [sse.json_delta(number, piece) for piece in pieces(arguments, seed + number, cut)]
        events.append(sse.block_stop(number))
    return events + sse.message_end("tool_use")


def anthropic_text_stream(text: str, seed: int) -> list[Any]:
    events = [sse.message_start(), sse.block_start(0, {"type": "text", "text": ""})]
    events += [sse.anthropic_text_delta(0, piece) for piece in pieces(text, seed)]
    return events + [sse.block_stop(0), *sse.message_end("end_turn")]


# --- Gemini -------------------------------------------------------------------------------------------------------

_SHORTHAND = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def json_path(steps: Sequence[Any]) -> str:
    """A normalized JSON path (RFC 9535): ``.name`` where the name allows it, ``['name']`` otherwise, ``[0]``."""
    path = "$"
    for step in steps:
        if isinstance(step, int):
            path += f"[{step}]"
        elif _SHORTHAND.fullmatch(step):
            path += f".{step}"
        else:
            path += "['" + step.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return path


def gemini_fragments(value: Any, seed: int, steps: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """The ``partialArgs`` fragments of a value, in document order: a string in token pieces (``willContinue`` on all
    but the last), a number, a boolean or null whole."""
    if isinstance(value, dict):
        return [fragment for key, item in value.items() for fragment in gemini_fragments(item, seed, (*steps, key))]
    if isinstance(value, list):
        return [fragment for i, item in enumerate(value) for fragment in gemini_fragments(item, seed, (*steps, i))]
    path = json_path(steps)
    if isinstance(value, str):
        cut = pieces(value, seed + len(steps)) or [""]
        return [
            {"jsonPath": path, "stringValue": piece, **({"willContinue": True} if i < len(cut) - 1 else {})}
            for i, piece in enumerate(cut)
        ]
    if isinstance(value, bool):
        return [{"jsonPath": path, "boolValue": value}]
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    return [{"jsonPath": path, "numberValue": value}]


def gemini_chunk(part: Optional[dict[str, Any]], finish_reason: Optional[str] = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": [part] if part else [], "role": "model"}, "index": 0}
    if finish_reason is None:
        return {"candidates": [candidate], "modelVersion": "gemini-3-pro"}
    candidate["finishReason"] = finish_reason
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-3-pro"}


def gemini_stream(calls: Sequence[Call], seed: int, *, partial: bool = True) -> list[Any]:
    """The calls as Gemini streams them: with ``stream_function_call_arguments`` (``partial``), a part that names the
    call, a part a fragment, and an end part; else each call whole (``args``) in one part."""
    chunks = []
    for number, (name, arguments) in enumerate(calls):
        value = json.loads(arguments)
        if not partial:
            chunks.append(gemini_chunk({"functionCall": {"id": call_id(number), "name": name, "args": value}}))
            continue
        chunks.append(gemini_chunk({"functionCall": {"id": call_id(number), "name": name, "willContinue": True}}))
        for fragment in gemini_fragments(value, seed + number):
            chunks.append(gemini_chunk({"functionCall": {"partialArgs": [fragment], "willContinue": True}}))
        chunks.append(gemini_chunk({"functionCall": {}}))
    return chunks + [gemini_chunk(None, "STOP")]


def gemini_text_stream(text: str, seed: int) -> list[Any]:
    chunks = [gemini_chunk({"text": "Thinking about it.", "thought": True})]
    chunks += [gemini_chunk({"text": piece}) for piece in pieces(text, seed)]
    return chunks + [gemini_chunk(None, "STOP")]


def snake_case(value: Any) -> Any:
    """The chunks as ``model_dump()`` names their fields (snake_case)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower(): snake_case(item) for key, item in value.items()}
    if isinstance(value, list):
        return [snake_case(item) for item in value]
    return value


# --- Bedrock Converse -----------------------------------------------------------------------------------------------


def bedrock_stream(calls: Sequence[Call], seed: int, cut: Optional[Cutter] = None) -> list[tuple[str, dict[str, Any]]]:
    """The calls as Converse streams them: (event type, payload), as boto3 yields ``{type: payload}``. A text block
    first, as Claude writes one before its calls."""
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    events.append(("contentBlockDelta", {"delta": {"text": "Let me do that."}, "contentBlockIndex": 0}))
    events.append(("contentBlockStop", {"contentBlockIndex": 0}))
    for number, (name, arguments) in enumerate(calls, start=1):
        tool_use = {"toolUseId": call_id(number - 1), "name": name}
        events.append(("contentBlockStart", {"start": {"toolUse": tool_use}, "contentBlockIndex": number}))
        for piece in pieces(arguments, seed + number, cut):
            events.append(("contentBlockDelta", {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": number}))
        events.append(("contentBlockStop", {"contentBlockIndex": number}))
    events.append(("messageStop", {"stopReason": "tool_use"}))
    events.append(("metadata", {"usage": {"inputTokens": 100, "outputTokens": 10, "totalTokens": 110}}))
    return events


def bedrock_text_stream(text: str, seed: int) -> list[tuple[str, dict[str, Any]]]:
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    for piece in pieces(text, seed):
        events.append(("contentBlockDelta", {"delta": {"text": piece}, "contentBlockIndex": 0}))
    return events + [("contentBlockStop", {"contentBlockIndex": 0}), ("messageStop", {"stopReason": "end_turn"})]


def as_boto3(events: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{kind: payload} for kind, payload in events]


# --- Cohere v2 ------------------------------------------------------------------------------------------------------


def cohere_stream(calls: Sequence[Call], seed: int, cut: Optional[Cutter] = None) -> list[Any]:
    message = {"role": "assistant", "tool_plan": "", "tool_calls": [], "content": [], "citations": []}
    events: list[Any] = [{"type": "message-start", "id": "msg_cohere", "delta": {"message": message}}]
    events.append({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will do that."}}})
    for number, (name, arguments) in enumerate(calls):
        tool_call = {"id": call_id(number), "type": "function", "function": {"name": name, "arguments": ""}}
        events.append({"type": "tool-call-start", "index": number, "delta": {"message": {"tool_calls": tool_call}}})
        for piece in pieces(arguments, seed + number, cut):
            delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
            events.append({"type": "tool-call-delta", "index": number, "delta": delta})
        events.append({"type": "tool-call-end", "index": number})
    return events + [cohere_end("TOOL_CALL")]


def cohere_end(finish_reason: str) -> dict[str, Any]:
    usage = {"billed_units": {"input_tokens": 100, "output_tokens": 10}, "tokens": {"input_tokens": 100}}
    return {"type": "message-end", "id": "msg_cohere", "delta": {"finish_reason": finish_reason, "usage": usage}}


def cohere_text_stream(text: str, seed: int) -> list[Any]:
    start = {"message": {"content": {"type": "text", "text": ""}}}
    events: list[Any] = [{"type": "content-start", "index": 0, "delta": start}]
    for piece in pieces(text, seed):
        events.append({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": piece}}}})
    return events + [{"type": "content-end", "index": 0}, cohere_end("COMPLETE")]
