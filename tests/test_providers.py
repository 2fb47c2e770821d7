"""Gemini, Bedrock and Cohere, event by event (dicts in the APIs' own shapes): what each event changes, how each API
ends its calls and its output, its length stops, and Gemini's ``partial_args`` fragments in and out of order."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from streaming_json.integrations import (
    BedrockStructuredOutput,
    BedrockToolCalls,
    CohereStructuredOutput,
    CohereToolCalls,
    GeminiStructuredOutput,
    GeminiToolCalls,
)
from streaming_json.integrations._paths import parse_path

from . import provider_streams as streams
from .provider_streams import gemini_chunk


def gemini_calls(backend: ModuleType, **options: Any) -> GeminiToolCalls:
    return GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream, **options)


def fragment_chunk(*fragments: dict[str, Any], going_on: bool = True, **call: Any) -> dict[str, Any]:
    function_call: dict[str, Any] = {**call, "partialArgs": list(fragments)}
    if going_on:
        function_call["willContinue"] = True
    return gemini_chunk({"functionCall": function_call})


def text(path: str, value: str, going_on: bool = False) -> dict[str, Any]:
    return {"jsonPath": path, "stringValue": value, **({"willContinue": True} if going_on else {})}


# --- Gemini: fragments at JSON paths ------------------------------------------------------------------------------


def test_gemini_fragments_stream_as_partial_arguments(backend: ModuleType) -> None:
    calls = gemini_calls(backend)
    shown = []
    for chunk in [
        gemini_chunk({"functionCall": {"id": "fc_1", "name": "write", "willContinue": True}}),
        fragment_chunk(text("$.path", "app.py")),
        fragment_chunk(text("$.content", 'print("hi', going_on=True)),
        fragment_chunk(text("$.content", '")\n', going_on=True)),
        fragment_chunk(text("$.content", "")),
        fragment_chunk({"jsonPath": "$.mode", "numberValue": 420.0}, {"jsonPath": "$.force", "boolValue": False}),
        fragment_chunk(
            {"jsonPath": "$.tags[0]", "stringValue": "a"}, {"jsonPath": "$.tags[1].b", "nullValue": "NULL_VALUE"}
        ),
        gemini_chunk({"functionCall": {}}),
    ]:
        shown += [dict(call.arguments) for call in calls.feed(chunk)]
    (call,) = calls.calls
    assert shown[1:4] == [
        {"path": "app.py"},
        {"path": "app.py", "content": 'print("hi'},
        {"path": "app.py", "content": 'print("hi")\n'},
    ]
    final = {"path": "app.py", "content": 'print("hi")\n', "mode": 420, "force": False, "tags": ["a", {"b": None}]}
    assert call.done and call.error is None and call.arguments == final and shown[-1] == final
    assert call.text == json.dumps(final, ensure_ascii=False) and (call.id, call.name) == ("fc_1", "write")


def test_gemini_fragments_out_of_order_still_give_the_arguments(backend: ModuleType) -> None:
    """A member written again, an index past the next element: the arguments become a value, which later fragments
    change (a string piece extends the string at its path, as in order)."""
    calls = gemini_calls(backend)
    for chunk in [
        gemini_chunk({"functionCall": {"name": "edit", "willContinue": True}}),
        fragment_chunk(text("$.old", "a")),
        fragment_chunk(text("$.new", "b")),
        fragment_chunk(text("$.old", "c")),
        fragment_chunk({"jsonPath": "$.lines[2]", "numberValue": 3}),
        gemini_chunk({"functionCall": {}}, "STOP"),
    ]:
        calls.feed(chunk)
    (call,) = calls.calls
    assert call.error is None and call.arguments == {"old": "ac", "new": "b", "lines": [None, None, 3]}


def test_gemini_whole_args_in_a_streamed_call_are_its_arguments(backend: ModuleType) -> None:
    calls = gemini_calls(backend)
    calls.feed(gemini_chunk({"functionCall": {"name": "read", "willContinue": True}}))
    calls.feed(fragment_chunk(text("$.path", "a", going_on=True)))
    calls.feed(gemini_chunk({"functionCall": {"args": {"path": "a.txt", "lines": []}}}))
    (call,) = calls.calls
    assert call.done and call.arguments == {"path": "a.txt", "lines": []}


@pytest.mark.parametrize(
    "path,steps",
    [("$.a.b[0]", ("a", "b", 0)), ("$['a b']['it\\'s'][\"q\"]", ("a b", "it's", "q")), ("$.é[10]", ("é", 10))],
)
def test_json_paths(path: str, steps: tuple[Any, ...]) -> None:
    assert parse_path(path) == steps
    assert parse_path(streams.json_path(steps)) == steps


@pytest.mark.parametrize("path", ["a.b", "$.", "$[x]", "$['a"])
def test_a_fragment_at_an_unreadable_path_makes_the_call_malformed(backend: ModuleType, path: str) -> None:
    calls = gemini_calls(backend)
    calls.feed(gemini_chunk({"functionCall": {"name": "read", "willContinue": True}}))
    calls.feed(fragment_chunk(text("$.path", "a.txt")))
    calls.feed(fragment_chunk(text(path, "x")))
    (call,) = calls.feed(gemini_chunk({"functionCall": {}}))
    assert call.done and call.arguments == {} and call.problem is not None and call.problem.kind == "malformed"
    assert call.error is not None and repr(path) in call.error


def test_gemini_a_number_that_is_no_json_makes_the_call_malformed(backend: ModuleType) -> None:
    calls = gemini_calls(backend)
    calls.feed(gemini_chunk({"functionCall": {"name": "f", "willContinue": True}}))
    calls.feed(fragment_chunk({"jsonPath": "$.x", "numberValue": float("inf")}, going_on=False))
    (call,) = calls.calls
    assert call.problem is not None and call.problem.kind == "malformed"


def test_gemini_calls_end_with_the_candidate(backend: ModuleType) -> None:
    """``STOP`` ends an open call as written; ``MAX_TOKENS`` cuts it; the stream ending cuts it too."""
    for reason, kind in [("STOP", None), ("MAX_TOKENS", "incomplete"), ("SAFETY", "incomplete"), (None, "incomplete")]:
        calls = gemini_calls(backend)
        calls.feed(gemini_chunk({"functionCall": {"name": "read", "willContinue": True}}))
        calls.feed(fragment_chunk(text("$.path", "a.txt")))
        if reason is not None:
            calls.feed(gemini_chunk(None, reason))
        calls.finish()
        (call,) = calls.calls
        assert call.done and (call.problem.kind if call.problem else None) == kind, reason
        assert call.arguments == ({"path": "a.txt"} if kind is None else {})


def test_gemini_a_part_of_another_call_starts_it(backend: ModuleType) -> None:
    """Its end marker lost, the streamed call ends where a part names another tool (or gives another id)."""
    calls = gemini_calls(backend)
    calls.feed(gemini_chunk({"functionCall": {"id": "a", "name": "read", "willContinue": True}}))
    calls.feed(fragment_chunk(text("$.path", "a.txt")))
    calls.feed(gemini_chunk({"functionCall": {"id": "b", "name": "read", "args": {"path": "b.txt"}}}))
    first, second = calls.calls
    assert (first.done, first.arguments, second.done, second.arguments) == (
        True,
        {"path": "a.txt"},
        True,
        {"path": "b.txt"},
    )
    assert [call.key for call in calls.calls] == [(0, 0), (0, 1)]


def test_gemini_parallel_whole_calls_in_one_chunk_and_thoughts_skipped(backend: ModuleType) -> None:
    chunk = gemini_chunk({"text": "Let me think", "thought": True})
    chunk["candidates"][0]["content"]["parts"] += [
        {"functionCall": {"name": "read", "args": {"path": "a"}}},
        {"functionCall": {"name": "read", "args": {"path": "b"}}, "thoughtSignature": "c2ln"},
    ]
    calls = gemini_calls(backend)
    assert [call.arguments for call in calls.feed(chunk)] == [{"path": "a"}, {"path": "b"}]


def test_gemini_typed_calls(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Read(pydantic.BaseModel):
        path: str

    calls = gemini_calls(backend, parser_class=backend.StreamingJsonParser, models={"read": Read})
    calls.feed(gemini_chunk({"functionCall": {"name": "read", "willContinue": True}}))
    calls.feed(fragment_chunk(text("$.path", "a.t", going_on=True)))
    (call,) = calls.calls
    assert call.parsed is not None and call.parsed.path == "a.t"
    calls.feed(fragment_chunk(text("$.path", "xt"), going_on=False))
    assert call.parsed == Read(path="a.txt")


def test_gemini_structured_output_reads_its_candidate_and_skips_thoughts(backend: ModuleType) -> None:
    output = GeminiStructuredOutput(parser_class=backend.StreamingJsonParser, candidate=1)
    chunk = gemini_chunk({"text": '{"a": 1}'})
    other = {"content": {"parts": [{"text": "plan", "thought": True}, {"text": '{"b": '}]}, "index": 1}
    chunk["candidates"].append(other)
    assert output.feed(chunk) == {}
    last = {"candidates": [{"content": {"parts": [{"text": "2}"}]}, "index": 1, "finishReason": "STOP"}]}
    assert output.feed(last) == {"b": 2} and output.done and output.problem is None
    cut = GeminiStructuredOutput(parser_class=backend.StreamingJsonParser)
    cut.feed(gemini_chunk({"text": '{"b": "x'}, "MAX_TOKENS"))
    assert cut.problem is not None and cut.problem.kind == "incomplete"


# --- Bedrock ------------------------------------------------------------------------------------------------------


def bedrock_calls(backend: ModuleType) -> BedrockToolCalls:
    return BedrockToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)


def test_bedrock_skips_text_reasoning_and_server_tool_uses(backend: ModuleType) -> None:
    calls = bedrock_calls(backend)
    events = streams.as_boto3(
        [
            ("contentBlockDelta", {"delta": {"reasoningContent": {"text": "hm"}}, "contentBlockIndex": 0}),
            (
                "contentBlockStart",
                {
                    "start": {"toolUse": {"toolUseId": "s", "name": "web", "type": "server_tool_use"}},
                    "contentBlockIndex": 1,
                },
            ),
            ("contentBlockDelta", {"delta": {"toolUse": {"input": '{"q": 1}'}}, "contentBlockIndex": 1}),
            ("contentBlockStop", {"contentBlockIndex": 1}),
            ("contentBlockStart", {"start": {"toolUse": {"toolUseId": "t", "name": "read"}}, "contentBlockIndex": 2}),
            ("contentBlockDelta", {"delta": {"toolUse": {"input": '{"path": "a"}'}}, "contentBlockIndex": 2}),
            ("contentBlockStop", {"contentBlockIndex": 2}),
            ("messageStop", {"stopReason": "tool_use"}),
        ]
    )
    for event in events:
        calls.feed(event)
    assert [(call.id, call.name, call.arguments) for call in calls.calls] == [("t", "read", {"path": "a"})]


@pytest.mark.parametrize("stop_reason", ["max_tokens", "guardrail_intervened"])
def test_bedrock_an_early_stop_cuts_the_call_being_written(backend: ModuleType, stop_reason: str) -> None:
    """A call cut right after its header: its block stops with no input, then the message stops early."""
    calls = bedrock_calls(backend)
    events = [
        ("contentBlockStart", {"start": {"toolUse": {"toolUseId": "t1", "name": "read"}}, "contentBlockIndex": 0}),
        ("contentBlockDelta", {"delta": {"toolUse": {"input": '{"path": "a"}'}}, "contentBlockIndex": 0}),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        ("contentBlockStart", {"start": {"toolUse": {"toolUseId": "t2", "name": "read"}}, "contentBlockIndex": 1}),
        ("contentBlockStop", {"contentBlockIndex": 1}),
        ("messageStop", {"stopReason": stop_reason}),
    ]
    for event in streams.as_boto3(events):
        calls.feed(event)
    first, second = calls.calls
    assert first.problem is None and first.arguments == {"path": "a"}
    assert second.problem is not None and second.problem.kind == "incomplete" and stop_reason in second.problem.detail
    output = BedrockStructuredOutput(parser_class=backend.StreamingJsonParser)
    for event in streams.as_boto3(
        [("contentBlockDelta", {"delta": {"text": '{"a": '}, "contentBlockIndex": 0}), events[-1]]
    ):
        output.feed(event)
    assert output.problem is not None and output.problem.kind == "incomplete"


# --- Cohere -------------------------------------------------------------------------------------------------------


def test_cohere_a_call_with_its_arguments_in_the_start_event(backend: ModuleType) -> None:
    calls = CohereToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    tool_call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}}
    calls.feed({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": tool_call}}})
    (call,) = calls.feed({"type": "tool-call-end", "index": 0})
    assert (call.id, call.name, call.arguments, call.done) == ("c1", "read", {"path": "a"}, True)


@pytest.mark.parametrize("finish_reason,cut", [("MAX_TOKENS", True), ("ERROR", True), ("COMPLETE", False)])
def test_cohere_an_early_finish_cuts_the_call_being_written(backend: ModuleType, finish_reason: str, cut: bool) -> None:
    calls = CohereToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    events = streams.cohere_stream([("read", '{"path": "a"}')], 1)[:-2]  # without its tool-call-end and message-end
    for event in [*events, streams.cohere_end(finish_reason)]:
        calls.feed(event)
    (call,) = calls.calls
    assert call.done and (call.problem is not None) == cut and (call.arguments == {}) == cut


def test_cohere_content_after_the_last_call_leaves_it_alone_at_a_length_stop(backend: ModuleType) -> None:
    calls = CohereToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    output = CohereStructuredOutput(parser_class=backend.StreamingJsonParser)
    events = streams.cohere_stream([("read", '{"path": "a"}')], 1)[:-1] + streams.cohere_text_stream('{"x": [1', 1)[:-1]
    for event in [*events, streams.cohere_end("MAX_TOKENS")]:
        calls.feed(event)
        output.feed(event)
    assert calls.calls[0].problem is None and calls.calls[0].arguments == {"path": "a"}
    assert output.problem is not None and output.problem.kind == "incomplete"
