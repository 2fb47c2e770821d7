"""openai-agents, for real: ``Runner.run_streamed(...).stream_events()`` read by the Responses adapters as they are,
with a chat-completions model (the agents SDK's own conversion, whose items' ids are all ``"__fake_id__"``) over the
openai client replaying recorded chunks, and with the SDK's ``ScriptedModel`` streaming ``__fake_id__`` events; real
calls (a sample of the 845) in token pieces, on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest

from . import sdk_events as sse
from .frameworks import FRAMEWORKS, Call, corpus_sample, messages_of, pieces_of
from .sse_replay import httpx_module, sse_body

pytest.importorskip("agents")

import openai
from agents import Agent, FunctionTool, RawResponsesStreamEvent, Runner, set_tracing_disabled
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from agents.testing import ModelStep, ScriptedModel
from pydantic import BaseModel

from streaming_json.integrations import OpenAIResponsesStructuredOutput, OpenAIResponsesToolCalls

pytestmark = FRAMEWORKS
set_tracing_disabled(True)  # no trace export

SAMPLE = corpus_sample(12, seed=5)
MESSAGES = messages_of(SAMPLE, seed=5)
FAKE_ID = "__fake_id__"


def chat_body(calls: Sequence[Call], seed: int) -> bytes:
    chunks = []
    for index, call in enumerate(calls):
        chunks.append(sse.chat_chunk(sse.tool_delta(index, "", id=call.id, name=call.name)))
        chunks += [sse.chat_chunk(sse.tool_delta(index, piece)) for piece in pieces_of(call.text, seed + index)]
    chunks.append(sse.chat_chunk(sse.finish_choice(0, "tool_calls")))
    return sse_body(chunks, done_marker=True)


def text_body(text: str, seed: int) -> bytes:
    chunks = [sse.chat_chunk(sse.content_delta("", role=True))]
    chunks += [sse.chat_chunk(sse.content_delta(piece)) for piece in pieces_of(text, seed)]
    chunks.append(sse.chat_chunk(sse.finish_choice(0, "stop")))
    return sse_body(chunks, done_marker=True)


def chat_model(bodies: list[bytes]) -> Any:
    """The agents SDK's chat-completions model over an ``AsyncOpenAI`` client answering each request with the next
    recorded stream (the last one again after that)."""
    httpx = httpx_module()
    served = iter(bodies)
    last = [bodies[-1]]

    def answer(request: Any) -> Any:
        last[0] = next(served, last[0])
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=last[0])

    client = openai.AsyncOpenAI(
        api_key="test",
        base_url="http://replay.test/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
    )
    return OpenAIChatCompletionsModel(model="gpt-test", openai_client=client)


def tools_for(calls: Sequence[Call]) -> list[Any]:
    def tool(name: str) -> Any:
        async def run(**arguments: Any) -> str:
            return "ok"

        return FunctionTool(
            name=name,
            description=name,
            params_json_schema={"type": "object", "additionalProperties": True},
            on_invoke_tool=lambda context, arguments: run(),
            strict_json_schema=False,
        )

    return [tool(name) for name in sorted({call.name for call in calls})]


def stream_events(agent: Any) -> list[Any]:
    async def run() -> list[Any]:
        result = Runner.run_streamed(agent, "go", max_turns=len(MESSAGES) + 2)
        return [event async for event in result.stream_events()]

    return asyncio.run(run())


def check_calls(calls: list[Any], expected: list[Call]) -> None:
    assert [(c.id, c.name, c.done, c.error) for c in calls] == [(c.id, c.name, True, None) for c in expected]
    assert [c.arguments for c in calls] == [c.arguments for c in expected]


@pytest.fixture(scope="module")
def chat_model_events() -> list[Any]:
    bodies = [chat_body(message, seed=n) for n, message in enumerate(MESSAGES)] + [text_body('"done"', 0)]
    agent = Agent(name="agent", model=chat_model(bodies), tools=tools_for(SAMPLE))
    return stream_events(agent)


def test_chat_completions_model_events_as_they_are(backend: ModuleType, chat_model_events: list[Any]) -> None:
    raw = [event.data for event in chat_model_events if isinstance(event, RawResponsesStreamEvent)]
    deltas = [event for event in raw if event.type == "response.function_call_arguments.delta"]
    assert deltas and {event.item_id for event in deltas} == {FAKE_ID}  # what the SDK gives: one id for all
    tool_calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    list(tool_calls.stream(chat_model_events))  # the agents events themselves
    check_calls(tool_calls.calls, SAMPLE)


def test_scripted_model_with_fake_ids(backend: ModuleType) -> None:
    """The agents SDK's own test model, streaming parallel calls whose events all carry ``__fake_id__``."""
    message = next(message for message in MESSAGES if len(message) > 1)
    events: list[dict[str, Any]] = [sse.response_event("created", "in_progress")]
    for index, call in enumerate(message):
        events.append(sse.item_added(index, FAKE_ID, call.id, call.name))
    for index, call in enumerate(message):  # interleaved: only the output index tells the calls apart
        events += [sse.arguments_delta(index, FAKE_ID, piece) for piece in pieces_of(call.text, index)]
    for index, call in enumerate(message):
        events.append(sse.item_done(index, FAKE_ID, call.id, call.name, call.text))
    output = [
        {
            "type": "function_call",
            "id": FAKE_ID,
            "call_id": c.id,
            "name": c.name,
            "arguments": c.text,
            "status": "completed",
        }
        for c in message
    ]
    events.append(sse.response_event("completed", "completed", output))
    numbered = sse.numbered(events)
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: Any = TypeAdapter(ResponseStreamEvent)
    model = ScriptedModel([ModelStep.stream([adapter.validate_python(event) for event in numbered]), ModelStep()])
    agent = Agent(name="agent", model=model, tools=tools_for(message))
    tool_calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    list(tool_calls.stream(stream_events(agent)))
    check_calls(tool_calls.calls, list(message))


class Arguments(BaseModel):
    path: str


def test_structured_output_of_an_agent(backend: ModuleType) -> None:
    call = next(call for call in SAMPLE if call.name in ("read", "write", "edit"))
    agent = Agent(name="agent", model=chat_model([text_body(call.text, 9)]), output_type=Arguments)
    events = stream_events(agent)
    output = OpenAIResponsesStructuredOutput(Arguments, parser_class=backend.StreamingJsonParser)
    values = list(output.stream(events))
    assert output.error is None and output.result is not None
    assert output.result.value == Arguments(path=call.arguments["path"])
    assert len(values) > 2  # partial values while it streamed (the agents SDK streams none)
