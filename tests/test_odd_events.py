"""Events of any shape are read without raising: hypothesis takes valid streams of each API, with tool calls and
text, and replaces any field at any depth with a value of another type, or drops it. Every accumulator reads every
such stream, as dicts, attribute objects, slotted objects and the SDK's own models built without validation (as the
SDKs' ``Stream`` builds them, so a provider's odd event reaches the adapter as it is). And objects that are no event
at all, read among a valid stream, leave its result as it was: nothing of a valid stream is lost to them."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json.integrations import (
    AnthropicStructuredOutput,
    AnthropicToolCalls,
    BedrockStructuredOutput,
    BedrockToolCalls,
    CohereStructuredOutput,
    CohereToolCalls,
    GeminiStructuredOutput,
    GeminiToolCalls,
    LiveToolCall,
    OpenAIChatStructuredOutput,
    OpenAIChatToolCalls,
    OpenAIResponsesStructuredOutput,
    OpenAIResponsesToolCalls,
    StructuredOutputResult,
)

from .provider_streams import as_boto3, cohere_end, gemini_chunk
from .sdk_events import (
    anthropic_text_delta,
    arguments_delta,
    arguments_done,
    as_attributes,
    as_slotted,
    block_start,
    block_stop,
    chat_chunk,
    content_delta,
    finish_choice,
    item_added,
    item_done,
    json_delta,
    message_added,
    message_done,
    message_end,
    message_start,
    numbered,
    refusal_delta,
    response_event,
    text_delta,
    text_done,
    tool_delta,
    tool_use_start,
)
from .strategies import examples

ARGUMENTS = '{"path": "a.txt", "content": "hi"}'

VALID_STREAMS: dict[str, list[dict[str, Any]]] = {
    "openai-chat": [
        chat_chunk(content_delta("", role=True)),
        chat_chunk(tool_delta(0, "", id="call_1", name="write")),
        chat_chunk(tool_delta(0, ARGUMENTS[:9])),
        chat_chunk(tool_delta(1, ARGUMENTS, id="call_2", name="write")),
        chat_chunk(tool_delta(0, ARGUMENTS[9:])),
        chat_chunk(content_delta('{"a": '), content_delta("[1", choice=1)),
        chat_chunk(refusal_delta("no", choice=1)),
        chat_chunk(content_delta("[1, 2]}")),
        chat_chunk(finish_choice(), finish_choice(1, "stop")),
    ],
    "openai-responses": numbered(
        [
            response_event("created", "in_progress"),
            item_added(0, "fc_1", "call_1", "write"),
            arguments_delta(0, "fc_1", ARGUMENTS[:9]),
            arguments_delta(0, "fc_1", ARGUMENTS[9:]),
            arguments_done(0, "fc_1", ARGUMENTS),
            item_done(0, "fc_1", "call_1", "write", ARGUMENTS),
            message_added(1),
            text_delta(1, '{"a": '),
            text_delta(1, "[1, 2]}"),
            text_done(1, '{"a": [1, 2]}'),
            message_done(1, '{"a": [1, 2]}'),
            response_event("completed", "completed"),
        ]
    ),
    "anthropic": [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        anthropic_text_delta(0, '{"a": '),
        anthropic_text_delta(0, "[1, 2]}"),
        block_stop(0),
        tool_use_start(1, "toolu_1", "write"),
        json_delta(1, ARGUMENTS[:9]),
        json_delta(1, ARGUMENTS[9:]),
        block_stop(1),
        *message_end(),
    ],
    "gemini": [
        gemini_chunk({"text": '{"a": '}),
        gemini_chunk({"functionCall": {"id": "fc_1", "name": "write", "willContinue": True}}),
        gemini_chunk(
            {"functionCall": {"partialArgs": [{"jsonPath": "$.path", "stringValue": "a.txt"}], "willContinue": True}}
        ),
        gemini_chunk(
            {
                "functionCall": {
                    "partialArgs": [{"jsonPath": "$.content", "stringValue": "h", "willContinue": True}],
                    "willContinue": True,
                }
            }
        ),
        gemini_chunk(
            {"functionCall": {"partialArgs": [{"jsonPath": "$.content", "stringValue": "i"}], "willContinue": True}}
        ),
        gemini_chunk({"functionCall": {}}),
        gemini_chunk({"text": "[1, 2]}"}, "STOP"),
    ],
    "bedrock": as_boto3(
        [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"delta": {"text": '{"a": '}, "contentBlockIndex": 0}),
            ("contentBlockDelta", {"delta": {"text": "[1, 2]}"}, "contentBlockIndex": 0}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("contentBlockStart", {"start": {"toolUse": {"toolUseId": "t1", "name": "write"}}, "contentBlockIndex": 1}),
            ("contentBlockDelta", {"delta": {"toolUse": {"input": ARGUMENTS[:9]}}, "contentBlockIndex": 1}),
            ("contentBlockDelta", {"delta": {"toolUse": {"input": ARGUMENTS[9:]}}, "contentBlockIndex": 1}),
            ("contentBlockStop", {"contentBlockIndex": 1}),
            ("messageStop", {"stopReason": "tool_use"}),
        ]
    ),
    "cohere": [
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": '{"a": '}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "[1, 2]}"}}}},
        {"type": "content-end", "index": 0},
        {
            "type": "tool-call-start",
            "index": 0,
            "delta": {
                "message": {
                    "tool_calls": {"id": "c1", "type": "function", "function": {"name": "write", "arguments": ""}}
                }
            },
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": ARGUMENTS[:9]}}}},
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": ARGUMENTS[9:]}}}},
        },
        {"type": "tool-call-end", "index": 0},
        cohere_end("TOOL_CALL"),
    ],
}

ACCUMULATORS: dict[str, tuple[type, type]] = {
    "openai-chat": (OpenAIChatToolCalls, OpenAIChatStructuredOutput),
    "openai-responses": (OpenAIResponsesToolCalls, OpenAIResponsesStructuredOutput),
    "anthropic": (AnthropicToolCalls, AnthropicStructuredOutput),
    "gemini": (GeminiToolCalls, GeminiStructuredOutput),
    "bedrock": (BedrockToolCalls, BedrockStructuredOutput),
    "cohere": (CohereToolCalls, CohereStructuredOutput),
}

# Values of every kind an event's field can wrongly hold: other scalars, the other event strings, unhashable
# containers where an index belongs, containers of the wrong things, and nesting.
_SCALARS = st.sampled_from(
    [None, 0, 1, -1, 2**70, 1.5, float("nan"), True, "", "x", "{", "tool_calls", "function_call", "text_delta",
     "content_block_delta", "input_json_delta", "response.function_call_arguments.delta", "chunk", "stop"]
)  # fmt: skip
ODD_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "index", "delta"]), inner),
    max_leaves=4,
)
_DROP = object()  # a mutation that removes the field


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field and item of an event, by its path."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = []
    for key, item in children:
        found.append((*path, key))
        found.extend(_paths(item, (*path, key)))
    return found


@st.composite
def odd_streams(draw: st.DrawFn, api: str) -> list[Any]:
    """A valid stream with one to four fields replaced by odd values or dropped, and odd events inserted."""
    events: list[Any] = copy.deepcopy(VALID_STREAMS[api])
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(events) - 1))
        paths = _paths(events[position])
        if not paths or draw(st.integers(0, 9)) == 0:
            events.insert(position, draw(ODD_VALUES))  # an event that is not an event at all
            continue
        *parents, key = draw(st.sampled_from(paths))
        container = events[position]
        for step in parents:
            container = container[step]
        value = draw(ODD_VALUES | st.just(_DROP))
        if value is not _DROP:
            container[key] = value
        elif isinstance(container, dict):
            del container[key]
        else:
            container.pop(key)
    return events


def _sdk_models(api: str) -> Callable[[Any], Any]:
    """How the SDK's ``Stream`` turns an event's data into the event read: ``construct_type``, no validation (Cohere's
    ``UncheckedBaseModel`` too). google-genai validates: an event it refuses never reaches a reader; boto3 gives
    dicts."""
    if api == "gemini":
        types = pytest.importorskip("google.genai.types")

        def validated(event: Any) -> Any:
            try:
                return types.GenerateContentResponse.model_validate(event)
            except Exception:  # the SDK raises instead: an odd event of another shape stands in for it
                return as_attributes(event)

        return validated
    if api == "bedrock":
        return lambda event: event
    if api == "cohere":
        unchecked = pytest.importorskip("cohere.core.unchecked_base_model")
        event_type = pytest.importorskip("cohere.v2.types").V2ChatStreamResponse
        return lambda event: unchecked.construct_type(type_=event_type, object_=event)
    if api == "anthropic":
        models = pytest.importorskip("anthropic._models")
        event_type = pytest.importorskip("anthropic.types").RawMessageStreamEvent
    else:
        models = pytest.importorskip("openai._models")
        types = pytest.importorskip("openai.types.chat" if api == "openai-chat" else "openai.types.responses")
        event_type = types.ChatCompletionChunk if api == "openai-chat" else types.ResponseStreamEvent
    return lambda event: models.construct_type(type_=event_type, value=event)


SHAPES: dict[str, Callable[[str], Callable[[Any], Any]]] = {
    "dicts": lambda api: lambda event: event,
    "attributes": lambda api: as_attributes,
    "slotted": lambda api: as_slotted,
    "sdk-models": _sdk_models,
}


# The shapes each API's events come in: Bedrock's are boto3's dicts; Gemini's and Cohere's SDKs build pydantic models.
API_SHAPES = [(api, shape) for api in sorted(VALID_STREAMS) for shape in sorted(SHAPES)]
API_SHAPES = [(api, shape) for api, shape in API_SHAPES if api not in ("gemini", "bedrock", "cohere") or shape in (
    "dicts", "sdk-models" if api != "bedrock" else "dicts")]  # fmt: skip


@pytest.mark.parametrize("api,shape", API_SHAPES)
def test_odd_events_are_read_without_raising(backend: ModuleType, api: str, shape: str) -> None:
    tool_calls_class, output_class = ACCUMULATORS[api]
    convert = SHAPES[shape](api)

    @given(odd_streams(api))
    @examples(60)
    def check(events: list[Any]) -> None:
        converted = [convert(event) for event in events]
        calls = tool_calls_class(arguments_stream_class=backend.ToolCallArgumentsStream)
        output = output_class(parser_class=backend.StreamingJsonParser)
        reported_done: dict[int, bool] = {}  # whether each call was done when last reported
        for event in converted:
            changed = calls.feed(event)
            assert isinstance(changed, list) and all(isinstance(call, LiveToolCall) for call in changed)
            reported_done.update((id(call), call.done) for call in changed)
            output.feed(event)
        reported_done.update((id(call), call.done) for call in calls.finish())
        assert all(call.done and isinstance(call.arguments, dict) for call in calls.calls)
        # A reader of the reports (stream() yields them) sees every call end: none ends unreported.
        assert all(reported_done.get(id(call)) for call in calls.calls)
        assert isinstance(output.finish(), StructuredOutputResult)

    check()


@pytest.mark.parametrize("api", sorted(VALID_STREAMS))
def test_the_valid_streams_read_as_written(backend: ModuleType, api: str) -> None:
    """The streams the odd ones are made from: one call of ``ARGUMENTS`` (two on Chat) and one output."""
    tool_calls_class, output_class = ACCUMULATORS[api]
    calls = tool_calls_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    output = output_class(parser_class=backend.StreamingJsonParser)
    for event in VALID_STREAMS[api]:
        calls.feed(event)
        output.feed(event)
    calls.finish()
    assert [call.arguments for call in calls.calls] == [{"path": "a.txt", "content": "hi"}] * (
        2 if api == "openai-chat" else 1
    )
    assert output.finish() == StructuredOutputResult({"a": [1, 2]}, None)


# Objects that are no event of any API, or events that change nothing (Anthropic's ping, a chunk with no choices, a
# kind of event a newer API version may add): read among a valid stream, they must leave its result as it was.
FOREIGN_EVENTS = (
    _SCALARS
    | st.lists(_SCALARS, max_size=3)
    | st.dictionaries(st.sampled_from(["data", "event", "id", "retry", "usage"]), _SCALARS, max_size=3)
    | st.sampled_from(
        [
            {"type": "ping"},
            {"choices": []},
            {"type": "response.in_progress"},
            {"type": "error.unknown", "index": 0},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}},
        ]
    )
)


def _outcome(tool_calls_class: type, output_class: type, backend: ModuleType, events: list[Any]) -> Any:
    calls = tool_calls_class(arguments_stream_class=backend.ToolCallArgumentsStream)
    output = output_class(parser_class=backend.StreamingJsonParser)
    for event in events:
        calls.feed(event)
        output.feed(event)
    calls.finish()
    finished = [(call.key, call.id, call.name, call.arguments, call.error) for call in calls.calls]
    return finished, output.finish()


@pytest.mark.parametrize("api,shape", API_SHAPES)
def test_foreign_events_change_nothing(backend: ModuleType, api: str, shape: str) -> None:
    tool_calls_class, output_class = ACCUMULATORS[api]
    convert = SHAPES[shape](api)
    valid = [convert(event) for event in VALID_STREAMS[api]]
    expected = _outcome(tool_calls_class, output_class, backend, valid)

    @given(st.lists(st.tuples(st.integers(0, len(valid)), FOREIGN_EVENTS), min_size=1, max_size=6))
    @examples(40)
    def check(insertions: list[tuple[int, Any]]) -> None:
        events = list(valid)
        for position, foreign in sorted(insertions, key=lambda insertion: -insertion[0]):
            events.insert(position, convert(foreign) if isinstance(foreign, dict) else foreign)
        assert _outcome(tool_calls_class, output_class, backend, events) == expected

    check()
