"""pydantic-ai, for real: an ``Agent`` over ``FunctionModel(stream_function=...)`` streaming ``DeltaToolCall``\\ s of
real calls (a sample of the 845) in token pieces; its ``run_stream_events()`` read by ``PydanticAIToolCalls`` and
``PydanticAIStructuredOutput``, as the event objects and in their dict form, on both backends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from types import ModuleType
from typing import Any, Optional

import pytest

from .frameworks import FRAMEWORKS, Call, corpus_sample, messages_of, pieces_of
from .test_tool_calls import goes_backwards

pytest.importorskip("pydantic_ai")

from pydantic import BaseModel, ConfigDict, TypeAdapter
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponseStreamEvent, PartDeltaEvent, PartEndEvent, PartStartEvent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from streaming_json import MISSING
from streaming_json.integrations import PydanticAIStructuredOutput, PydanticAIToolCalls

pytestmark = FRAMEWORKS

SAMPLE = corpus_sample(16, seed=7)
MESSAGES = messages_of(SAMPLE, seed=7)


class Arguments(BaseModel):
    """Any call's arguments, as an output type: every member kept."""

    model_config = ConfigDict(extra="allow")


class Record(BaseModel):
    id: int
    name: str
    tags: list[str]
    parent: Optional[int] = None


def streaming(responses: Sequence[Sequence[Call]], seed: int) -> Any:
    """A ``stream_function``: its n-th call streams the n-th list of calls, each in pieces at its own part index,
    the first piece with the call's name and id; after the list, a text answer."""
    remaining = list(responses)

    async def stream(messages: Any, info: AgentInfo) -> AsyncIterator[Any]:
        if not remaining:
            yield "done"
            return
        for index, call in enumerate(remaining.pop(0)):
            yield {index: DeltaToolCall(name=call.name, tool_call_id=call.id)}
            for piece in pieces_of(call.text, seed + index):
                yield {index: DeltaToolCall(json_args=piece)}

    return stream


def run_events(agent: Any) -> list[Any]:
    async def run() -> list[Any]:
        async with agent.run_stream_events("go") as events:
            return [event async for event in events]

    return asyncio.run(run())


def tools_agent(responses: Sequence[Sequence[Call]], seed: int) -> Any:
    agent = Agent(FunctionModel(stream_function=streaming(responses, seed)))
    for name in {call.name for calls in responses for call in calls}:
        agent.tool_plain(name=name)(lambda **arguments: "ok")
    return agent


def test_tool_calls_from_an_agent_run(backend: ModuleType) -> None:
    events = run_events(tools_agent(MESSAGES, seed=1))
    adapter = TypeAdapter(ModelResponseStreamEvent)
    parts = (PartStartEvent, PartDeltaEvent, PartEndEvent)
    as_dicts = [adapter.dump_python(event, mode="json") for event in events if isinstance(event, parts)]
    for shape in (events, as_dicts):
        tool_calls = PydanticAIToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
        seen: dict[int, list[Any]] = {}
        for call in tool_calls.stream(shape):
            seen.setdefault(id(call), []).append(call.arguments)
        expected = [call for message in MESSAGES for call in message]
        assert [(c.id, c.name, c.done, c.error) for c in tool_calls.calls] == [
            (c.id, c.name, True, None) for c in expected
        ]
        assert [c.arguments for c in tool_calls.calls] == [c.arguments for c in expected]
        for call in tool_calls.calls:
            values = seen[id(call)]
            assert all(goes_backwards(a, b) is None for a, b in zip(values, values[1:]))


def test_whole_dict_arguments_and_name_deltas(backend: ModuleType) -> None:
    tool_calls = PydanticAIToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    events: list[Any] = [
        {"event_kind": "part_start", "index": 0, "part": {"part_kind": "tool-call", "tool_name": "re", "args": None}},
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "tool_name_delta": "ad"}},
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "args_delta": {"a": 1}}},
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "args_delta": {"b": 2}}},
        {"event_kind": "part_end", "index": 0, "part": {"part_kind": "tool-call", "tool_name": "read"}},
        {
            "event_kind": "part_start",
            "index": 1,
            "part": {"part_kind": "tool-call", "tool_name": "w", "args": {"x": 1}},
        },
        None,
        {"event_kind": "part_delta"},
        {"event_kind": "part_start", "index": [0]},
    ]
    list(tool_calls.stream(events))
    assert [(c.name, c.arguments, c.done, c.error) for c in tool_calls.calls] == [
        ("read", {"a": 1, "b": 2}, True, None),
        ("w", {"x": 1}, True, None),
    ]


def test_a_cut_call_ends_with_an_error(backend: ModuleType) -> None:
    call = next(call for call in SAMPLE if len(call.text) > 100)
    cut = Call(call.id, call.name, call.text[:60])
    events = run_events(tools_agent([[cut]], seed=2))
    tool_calls = PydanticAIToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    list(tool_calls.stream(events))
    (ours,) = tool_calls.calls
    assert ours.done and ours.arguments == {} and ours.error is not None and ours.error.endswith(cut.text)


def output_agent(output_type: Any, texts: Sequence[str], seed: int) -> Any:
    responses = [[Call(f"out_{n}", "final_result", text)] for n, text in enumerate(texts)]
    return Agent(FunctionModel(stream_function=streaming(responses, seed)), output_type=output_type)


def read_output(
    events: list[Any], output_type: Any, backend: ModuleType
) -> tuple[PydanticAIStructuredOutput, list[Any]]:
    output = PydanticAIStructuredOutput(output_type, parser_class=backend.StreamingJsonParser)
    return output, list(output.stream(events))


def test_structured_output_of_real_calls(backend: ModuleType) -> None:
    for number, call in enumerate(SAMPLE[:6]):
        events = run_events(output_agent(Arguments, [call.text], seed=number))
        output, values = read_output(events, Arguments, backend)
        assert output.error is None and output.result is not None
        assert output.result.value.model_dump() == call.arguments
        assert events[-1].result.output == output.result.value  # the agent's own output
        assert values[-1] is output.result.value and MISSING not in values


def test_structured_output_of_a_wrapped_type_and_a_retry(backend: ModuleType) -> None:
    records = [{"id": n, "name": f"r{n}", "tags": ["a"] * (n % 3), "parent": n - 1 or None} for n in range(40)]
    text = json.dumps({"response": records})
    invalid = json.dumps({"response": [{"id": "not a number", "name": "x", "tags": []}]})
    events = run_events(output_agent(list[Record], [invalid, text], seed=3))  # pydantic-ai retries the invalid one
    output, values = read_output(events, list[Record], backend)
    assert output.error is None
    assert output.result is not None and output.result.value == events[-1].result.output
    assert [record.model_dump() for record in output.result.value] == records
    retried = values.index(MISSING)  # the retry starts the output over
    assert retried and all(isinstance(value, list) for value in values[:retried] + values[retried + 1 :])  # unwrapped
    lengths = [len(value) for value in values[retried + 1 :]]
    assert lengths == sorted(lengths) and lengths[-1] == len(records)


def test_cut_structured_output_is_an_error(backend: ModuleType) -> None:
    output = PydanticAIStructuredOutput(Arguments, parser_class=backend.StreamingJsonParser)
    call = SAMPLE[0]
    events: list[Any] = [
        {"event_kind": "part_start", "index": 0, "part": {"part_kind": "tool-call", "tool_name": "final_result"}},
        *(
            {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "args_delta": piece}}
            for piece in pieces_of(call.text[:-1], 0)
        ),
    ]
    list(output.stream(events))
    assert output.error is not None and output.result is not None and output.result.value is None


def test_pydantic_ai_stream_output_agrees() -> None:
    """pydantic-ai's own ``stream_output`` ends with the value ours ends with (the bench times the two)."""
    call = SAMPLE[1]

    async def theirs() -> Any:
        async with output_agent(Arguments, [call.text], seed=4).run_stream("go") as result:
            outputs = [value async for value in result.stream_output(debounce_by=None)]
        return outputs[-1]

    assert asyncio.run(theirs()).model_dump() == call.arguments
