"""The end of a call, as each API defines it, on streams dropped anywhere, through the real clients.

A stream of one, two and three real calls is cut after chunk after chunk (where a call starts, right after, in its
middle, right before the next, before the end of the message) and replayed through each SDK's own client. What each
adapter ended must be what the SDK or framework itself ends on the same bytes: the OpenAI SDK's
``ChatCompletionStreamState`` (its ``tool_calls.function.arguments.done`` events, through
``client.chat.completions.stream()``), the Responses helper's ``response.function_call_arguments.done``, Anthropic's
``content_block_stop``, Gemini's whole ``function_call`` parts and ``will_continue``, Bedrock's ``contentBlockStop``,
Cohere's ``tool-call-end``, Ollama's whole calls, LangChain's message at its end, pydantic-ai's ``PartEndEvent``.
Every call the API ended is done and read strictly; only a call still open when the stream dropped is
``incomplete``: on a dropped stream, the last one at most.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Callable

import pytest

from streaming_json.integrations import (
    AnthropicToolCalls,
    BedrockToolCalls,
    CohereToolCalls,
    GeminiToolCalls,
    LiveToolCall,
    OllamaToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)
from streaming_json.integrations._tool_calls import STREAM_ENDED

from . import provider_streams as streams
from .frameworks import FRAMEWORKS
from .model_outputs import REAL_CALLS
from .sse_replay import (
    EventStreamServer,
    LocalServer,
    anthropic_client,
    cohere_client,
    event_stream_message,
    gemini_client,
    httpx_module,
    openai_client,
    replaying_transport,
    sse_body,
)

SEED = 5
# Short real calls (a few dozen pieces each), so that every cut of a stream costs little through a client.
SHORT = [call for call in REAL_CALLS if 40 <= len(call[1]) <= 90 and call[1].count("{") == 1][:3]
STREAMS = {count: SHORT[:count] for count in (1, 2, 3)}

Finished = list[tuple[Any, Any]]  # (name, arguments) of each call the SDK or framework ended, in order


def cut_points(length: int, starts: Sequence[int]) -> list[int]:
    """Where to cut a stream of ``length`` events whose calls start at ``starts``: of three calls, at each call's
    start (the one before it whole, this one not begun), right after it and in its middle; of fewer, in the last
    call; before the end of the message, and not at all."""
    points = {length, length - 1}
    bounds = [*starts, length - 1]
    for number, (start, stop) in enumerate(zip(bounds, bounds[1:])):
        if len(starts) == 3 or number == len(starts) - 1:
            points.update((start, start + 1, (start + stop) // 2))
    return sorted(point for point in points if 0 < point <= length)


def cases(case: Callable[[int], tuple[list[Any], list[int]]]) -> list[tuple[int, int]]:
    """``(count, cut)`` for each stream of one to three calls and each of its cut points (``case(count)``: its events
    and where its calls start)."""
    return [(count, cut) for count in STREAMS for cut in cut_points(len(case(count)[0]), case(count)[1])]


def check_ends(calls: Any, finished: Finished, *, dropped: bool) -> None:
    """Our calls end as the SDK's own notion says: those it ended (in order, with their arguments) done and read
    strictly, the rest (the last one at most, on a dropped stream) ``incomplete``, the stream having ended first."""
    ours: list[LiveToolCall] = calls.calls
    assert all(call.done for call in ours)
    ended = [call for call in ours if not (call.problem is not None and call.problem.detail == STREAM_ENDED)]
    assert [(call.name, call.arguments) for call in ended] == finished
    assert all(call.problem is None and call.repair is None for call in ended)
    assert ended == ours[: len(ended)]  # the calls ended are those before the one being written
    assert len(ours) - len(ended) <= (1 if dropped else 0)


def read(accumulator: Any, events: Any, asynchronous: bool = False) -> Any:
    async def read_async() -> None:
        source = await events if asyncio.iscoroutine(events) else events
        async for _ in accumulator.astream(source):
            pass

    if asynchronous:
        asyncio.run(read_async())
    else:
        for _ in accumulator.stream(events):
            pass
    return accumulator


def value(text: str) -> Any:
    return json.loads(text) if text.strip() else {}


# --- OpenAI Chat Completions: a new index ends the call before it -------------------------------------------------

CHAT_REQUEST: dict[str, Any] = {"model": "gpt-5", "messages": [{"role": "user", "content": "Go"}]}


def chat_starts(chunks: Sequence[Any]) -> list[int]:
    return [
        number
        for number, chunk in enumerate(chunks)
        if any(tool.get("id") for tool in chunk["choices"][0]["delta"].get("tool_calls") or [])
    ]


def chat_case(count: int) -> tuple[list[Any], list[int]]:
    chunks = streams.chat_stream(STREAMS[count], SEED)
    return chunks, chat_starts(chunks)


def chat_cases() -> list[tuple[int, int]]:
    return cases(chat_case)


def chat_body(count: int, cut: int) -> bytes:
    chunks = streams.chat_stream(STREAMS[count], SEED)
    return sse_body(chunks[:cut], done_marker=cut == len(chunks))


def sdk_chat_done(body: bytes, tools: Any) -> Finished:
    """What the OpenAI SDK's own ``ChatCompletionStreamState`` ends: its ``tool_calls.function.arguments.done``
    events, through the client's ``chat.completions.stream()``."""
    finished = []
    with openai_client(body).chat.completions.stream(**CHAT_REQUEST, tools=tools) as stream:
        for event in stream:
            if event.type == "tool_calls.function.arguments.done":
                finished.append((event.name, value(event.arguments)))
    return finished


@pytest.mark.parametrize("count,cut", chat_cases())
def test_chat_calls_end_as_the_sdks_stream_state_ends_them(backend: ModuleType, count: int, cut: int) -> None:
    body = chat_body(count, cut)
    tools = streams.chat_tools(STREAMS[count])
    finished = sdk_chat_done(body, tools)
    dropped = cut < len(streams.chat_stream(STREAMS[count], SEED))
    for asynchronous in (False, True) if count == 3 else (False,):
        calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
        client = openai_client(body, asynchronous=asynchronous)
        read(calls, client.chat.completions.create(**CHAT_REQUEST, tools=tools, stream=True), asynchronous)
        check_ends(calls, finished, dropped=dropped)


def test_a_new_index_ends_the_call_before_it_at_once(backend: ModuleType) -> None:
    """The feed() that reads call N+1's first chunk reports call N done, as the SDK's helper fires its done event
    then; a call not whole when the next starts (a provider interleaving its calls' pieces) stays open for them."""
    from .sdk_events import chat_chunk, finish_choice, tool_delta

    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    calls.feed(chat_chunk(tool_delta(0, '{"path": "a.txt"}', id="call_1", name="read")))
    first, second = calls.feed(chat_chunk(tool_delta(1, '{"path": ', id="call_2", name="read")))
    assert first.done and first.problem is None and first.arguments == {"path": "a.txt"} and not second.done
    interleaved = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    for chunk in [
        chat_chunk(tool_delta(0, "", id="call_1", name="read")),
        chat_chunk(tool_delta(1, "", id="call_2", name="read")),
        chat_chunk(tool_delta(0, '{"path": "a.txt"}')),
        chat_chunk(tool_delta(1, '{"path": "b.txt"}')),
        chat_chunk(finish_choice()),
    ]:
        interleaved.feed(chunk)
    assert [(call.id, call.arguments, call.problem) for call in interleaved.calls] == [
        ("call_1", {"path": "a.txt"}, None),
        ("call_2", {"path": "b.txt"}, None),
    ]


@pytest.mark.slow  # importing litellm takes seconds
def test_litellm_objects_end_as_the_sdks_stream_state_ends_them(
    backend: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM's ``ModelResponseStream`` objects of a dropped stream: the calls the SDK's ``ChatCompletionStreamState``
    ends on the same chunks; and what LiteLLM's own ``stream_chunk_builder`` makes of the whole stream."""
    import warnings

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        litellm = pytest.importorskip("litellm")
        from litellm.types.utils import ModelResponseStream
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    for calls in STREAMS.values():
        chunks = streams.chat_stream(calls, SEED)
        for cut in cut_points(len(chunks), chat_starts(chunks)):
            state = ChatCompletionStreamState()
            finished = [
                (event.name, value(event.arguments))
                for chunk in chunks[:cut]
                for event in state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
                if event.type == "tool_calls.function.arguments.done"
            ]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                objects = [ModelResponseStream(**chunk) for chunk in chunks[:cut]]
            ours = read(OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), objects)
            check_ends(ours, finished, dropped=cut < len(chunks))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = litellm.stream_chunk_builder([ModelResponseStream(**chunk) for chunk in chunks])
        tool_calls = built.choices[0].message.tool_calls
        assert [(call.function.name, call.function.arguments) for call in tool_calls] == [
            (call.name, call.text) for call in ours.calls
        ]


# --- OpenAI Responses, Anthropic: each call ends with its own event -----------------------------------------------


def responses_case(count: int) -> tuple[list[Any], list[int]]:
    events = streams.responses_stream(STREAMS[count], SEED)
    return events, [n for n, event in enumerate(events) if event["type"] == "response.output_item.added"]


@pytest.mark.parametrize("count,cut", cases(responses_case))
def test_responses_calls_end_as_the_sdks_helper_ends_them(backend: ModuleType, count: int, cut: int) -> None:
    events = responses_case(count)[0]
    body = sse_body(events[:cut], named=True)
    finished, names = [], {}
    with openai_client(body).responses.stream(model="gpt-5", input="Go") as stream:
        for event in stream:
            if event.type == "response.output_item.added":
                names[event.item.id] = event.item.name
            elif event.type == "response.function_call_arguments.done":
                finished.append((names[event.item_id], value(event.arguments)))
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    read(calls, openai_client(body).responses.create(model="gpt-5", input="Go", stream=True))
    check_ends(calls, finished, dropped=cut < len(events))


def anthropic_case(count: int) -> tuple[list[Any], list[int]]:
    events = streams.anthropic_stream(STREAMS[count], SEED)
    return events, [n for n, event in enumerate(events) if event["type"] == "content_block_start"]


@pytest.mark.parametrize("count,cut", cases(anthropic_case))
def test_anthropic_calls_end_as_the_sdks_helper_ends_them(backend: ModuleType, count: int, cut: int) -> None:
    events = anthropic_case(count)[0]
    body = sse_body(events[:cut], named=True)
    request: dict[str, Any] = {
        "model": "claude-sonnet-5",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Go"}],
    }
    finished = []
    with anthropic_client(body).messages.stream(**request) as stream:
        for event in stream:
            if event.type == "content_block_stop" and event.content_block.type == "tool_use":
                finished.append((event.content_block.name, event.content_block.input))
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    read(calls, anthropic_client(body).messages.create(**request, stream=True))
    check_ends(calls, finished, dropped=cut < len(events))


# --- Gemini, Bedrock, Cohere: the API's own end of a call (their SDKs keep no calls) ------------------------------


def gemini_case(count: int, partial: bool) -> tuple[list[Any], list[int]]:
    chunks = streams.gemini_stream(STREAMS[count], SEED, partial=partial)
    starts = [n for n, chunk in enumerate(chunks) if "name" in str(chunk)]
    return chunks, starts


GEMINI_CASES = [
    (count, partial, cut)
    for count in STREAMS
    for partial in (True, False)
    for cut in cut_points(len(gemini_case(count, partial)[0]), gemini_case(count, partial)[1])
]


@pytest.mark.parametrize("count,partial,cut", GEMINI_CASES)
def test_gemini_calls_end_as_the_api_ends_them(backend: ModuleType, count: int, partial: bool, cut: int) -> None:
    """A whole ``function_call`` (``args``) ends in its part; a streamed one (``partial_args``) at the part whose
    ``will_continue`` is false or absent: read off the genai client's own objects."""
    chunks = gemini_case(count, partial)[0]
    body = sse_body(chunks[:cut])
    request: dict[str, Any] = {"model": "gemini-3-pro", "contents": "Go"}
    expected = iter(json.loads(arguments) for _, arguments in STREAMS[count])
    finished, name = [], None
    for chunk in gemini_client(body).models.generate_content_stream(**request):
        for part in chunk.candidates[0].content.parts or []:
            function_call = part.function_call
            if function_call is None:
                continue
            name = function_call.name or name
            if function_call.args is not None and not function_call.will_continue:
                finished.append((function_call.name, function_call.args))
                next(expected)
            elif function_call.partial_args is None and not function_call.will_continue:
                finished.append((name, next(expected)))
    calls = GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    read(calls, gemini_client(body).models.generate_content_stream(**request))
    check_ends(calls, finished, dropped=cut < len(chunks))


def api_rule(
    events: Sequence[Any], kind_of: Callable[[Any], str], name_of: Callable[[Any], Any], piece_of: Callable[[Any], Any]
) -> Finished:
    """The calls an API's own rule ends in ``events``: a start (``kind_of(event) == "start"``, the name), pieces,
    an end."""
    finished, name, text = [], None, ""
    for event in events:
        kind = kind_of(event)
        if kind == "start":
            name, text = name_of(event), ""
        elif kind == "piece":
            text += piece_of(event)
        elif kind == "end" and name is not None:
            finished.append((name, value(text)))
            name = None
    return finished


def bedrock_kind(event: dict[str, Any]) -> str:
    if "toolUse" in str(event.get("contentBlockStart", "")):
        return "start"
    if "toolUse" in event.get("contentBlockDelta", {}).get("delta", {}):
        return "piece"
    return "end" if "contentBlockStop" in event else ""


class BedrockReplay(EventStreamServer):
    """One server on 127.0.0.1 and one boto3 client for every test here (a boto3 client costs a third of a second to
    build), each request answered with the event stream the test sets."""

    def __init__(self) -> None:
        LocalServer.__init__(self, lambda path, request: ("application/vnd.amazon.eventstream", self._answer))
        self._answer = b""

    def converse_stream(self, events: Sequence[tuple[str, Any]]) -> list[Any]:
        """boto3's events for a stream that sends ``events`` and stops."""
        self._answer = b"".join(event_stream_message(kind, payload) for kind, payload in events)
        if not hasattr(self, "client"):
            self.client = self.bedrock_client()
        response = self.client.converse_stream(
            modelId="anthropic.claude-sonnet-5", messages=[{"role": "user", "content": [{"text": "Go"}]}]
        )
        return list(response["stream"])


@functools.cache
def bedrock_server() -> BedrockReplay:
    server = BedrockReplay()
    server.__enter__()  # a daemon thread, for the whole session
    return server


def bedrock_case(count: int) -> tuple[list[Any], list[int]]:
    events = streams.bedrock_stream(STREAMS[count], SEED)
    return events, [n for n, (kind, _) in enumerate(events) if kind == "contentBlockStart"]


@pytest.mark.parametrize("count,cut", cases(bedrock_case))
def test_bedrock_calls_end_as_the_api_ends_them(backend: ModuleType, count: int, cut: int) -> None:
    """boto3's own client, over a server on 127.0.0.1 whose event stream stops after ``cut`` messages: a tool use
    ends with its ``contentBlockStop``."""
    events = bedrock_case(count)[0]
    received = bedrock_server().converse_stream(events[:cut])
    finished = api_rule(
        received,
        bedrock_kind,
        lambda event: event["contentBlockStart"]["start"]["toolUse"]["name"],
        lambda event: event["contentBlockDelta"]["delta"]["toolUse"]["input"],
    )
    calls = read(BedrockToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), received)
    check_ends(calls, finished, dropped=cut < len(events))


def cohere_case(count: int) -> tuple[list[Any], list[int]]:
    events = streams.cohere_stream(STREAMS[count], SEED)
    return events, [n for n, event in enumerate(events) if event["type"] == "tool-call-start"]


@pytest.mark.parametrize("count,cut", cases(cohere_case))
def test_cohere_calls_end_as_the_api_ends_them(backend: ModuleType, count: int, cut: int) -> None:
    """The cohere client's own events: a call ends with its ``tool-call-end``."""
    events = cohere_case(count)[0]
    body = "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events[:cut]).encode()
    request: dict[str, Any] = {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Go"}]}
    received = list(cohere_client(body).chat_stream(**request))
    kinds = {"tool-call-start": "start", "tool-call-delta": "piece", "tool-call-end": "end"}
    finished = api_rule(
        received,
        lambda event: kinds.get(event.type, ""),
        lambda event: event.delta.message.tool_calls.function.name,
        lambda event: event.delta.message.tool_calls.function.arguments,
    )
    calls = read(CohereToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), received)
    check_ends(calls, finished, dropped=cut < len(events))


# --- Ollama's native API: whole calls -------------------------------------------------------------------------------


def ollama_chunks(groups: Sequence[Sequence[tuple[str, str]]], *, ids: bool = False, done: bool = True) -> list[Any]:
    """An ``/api/chat`` stream: some text, then one chunk per group of whole calls (the arguments as objects, with
    an ``id`` each where ``ids``, as Ollama's recent releases send), then the ``done`` chunk."""

    def chunk(message: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return {"model": "qwen3", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": False, **fields}

    chunks = [chunk({"role": "assistant", "content": piece}) for piece in ("Let ", "me ", "look.")]
    number = 0
    for group in groups:
        tool_calls = []
        for name, arguments in group:
            function = {"index": number, "name": name, "arguments": json.loads(arguments)}
            tool_calls.append({"id": f"call_{number:03d}", "function": function} if ids else {"function": function})
            number += 1
        chunks.append(chunk({"role": "assistant", "content": "", "tool_calls": tool_calls}))
    if done:
        chunks.append(chunk({"role": "assistant", "content": ""}, done=True, done_reason="stop", eval_count=42))
    return chunks


def ollama_client(chunks: Sequence[Any], *, asynchronous: bool = False) -> Any:
    """An ``ollama.Client`` (or ``AsyncClient``) whose every response is ``chunks`` as JSON lines."""
    ollama = pytest.importorskip("ollama")
    httpx = pytest.importorskip("httpx")  # the ollama client is built on httpx
    body = "".join(json.dumps(chunk) + "\n" for chunk in chunks).encode()

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=body)

    if asynchronous:
        return ollama.AsyncClient(host="http://replay.test", transport=httpx.MockTransport(answer))
    return ollama.Client(host="http://replay.test", transport=httpx.MockTransport(answer))


OLLAMA_GROUPS = [[SHORT[0], SHORT[1]], [SHORT[2]]]  # two chunks with calls: two calls, then one


@pytest.mark.parametrize("cut", list(range(1, len(ollama_chunks(OLLAMA_GROUPS)) + 1)))
def test_ollama_calls_end_in_their_chunk(backend: ModuleType, cut: int) -> None:
    """Through the ollama client's own ``chat(stream=True)``: each call of a chunk's ``message.tool_calls`` comes
    whole, and ends there; a stream that stops early leaves no call open."""
    chunks = ollama_chunks(OLLAMA_GROUPS)[:cut]
    finished = [
        (tool_call.function.name, dict(tool_call.function.arguments))
        for part in ollama_client(chunks).chat(model="qwen3", messages=[{"role": "user", "content": "Go"}], stream=True)
        for tool_call in part.message.tool_calls or []
    ]
    calls = OllamaToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    request = {"model": "qwen3", "messages": [{"role": "user", "content": "Go"}], "stream": True}
    assert calls.finish() == []
    read(calls, ollama_client(chunks).chat(**request))
    check_ends(calls, finished, dropped=False)
    ours_async = OllamaToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    read(ours_async, ollama_client(chunks, asynchronous=True).chat(**request), asynchronous=True)
    check_ends(ours_async, finished, dropped=False)


# --- Frameworks: LangChain's message and pydantic-ai's parts end every call, the last one too ----------------------

FRAMEWORK_CASES = [(count, cut) for count, cut in chat_cases() if count > 1]


def check_as_read(calls: Any, theirs: Sequence[tuple[Any, str]]) -> None:
    """The framework ends every call it streamed (it cannot tell a dropped stream): so do we, each read strictly, a
    call whose text was cut ``incomplete`` by its text where the framework shows a valid-looking value."""
    assert [(call.name, call.text) for call in calls.calls] == list(theirs)
    for call in calls.calls:
        assert call.done
        whole = not call.text.strip() or _parses(call.text)
        assert (call.problem is None) == whole and (whole or call.problem.detail != STREAM_ENDED)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@FRAMEWORKS
@pytest.mark.parametrize("count,cut", FRAMEWORK_CASES)
def test_langchain_calls_end_as_langchains_message_does(backend: ModuleType, count: int, cut: int) -> None:
    """``ChatOpenAI.stream()`` over the openai client replaying a dropped stream: LangChain ends the message with its
    ``chunk_position="last"`` chunk all the same; the sum of its chunks holds every call, the last one parsed
    partially. Ours end the same calls, those before the last as the next one's start ended them."""
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI

    from streaming_json.integrations import LangChainToolCalls

    httpx = httpx_module()  # the openai client's own
    model = ChatOpenAI(
        model="gpt-5",
        api_key="test",  # type: ignore[arg-type]
        base_url="http://replay.test/v1",
        http_client=httpx.Client(transport=replaying_transport(chat_body(count, cut))),
    )
    chunks = list(model.bind_tools(streams.chat_tools(STREAMS[count])).stream("Go"))
    assert chunks[-1].chunk_position == "last"
    whole = sum(chunks[1:], chunks[0])
    theirs = [(call["name"], call["args"]) for call in whole.tool_calls + whole.invalid_tool_calls]
    calls = read(LangChainToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), chunks)
    check_as_read(calls, [(chunk["name"], chunk["args"]) for chunk in whole.tool_call_chunks])
    for call, (name, arguments) in zip(calls.calls, theirs):
        if call.problem is None:
            assert (call.name, call.arguments) == (name, arguments)


@FRAMEWORKS
@pytest.mark.parametrize("count,cut", FRAMEWORK_CASES)
def test_pydantic_ai_calls_end_as_its_part_ends_do(backend: ModuleType, count: int, cut: int) -> None:
    """pydantic-ai's OpenAI model over the openai client replaying a dropped stream: pydantic-ai ends each part when
    the next starts and the last when the stream ends (``PartEndEvent``), dropped or not. Ours end the same calls at
    the same events, each read strictly."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.direct import model_request_stream
    from pydantic_ai.messages import ModelRequest, PartEndEvent
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.tools import ToolDefinition

    from streaming_json.integrations import PydanticAIToolCalls

    body = chat_body(count, cut)
    tools = [
        ToolDefinition(name=name, parameters_json_schema={"type": "object", "additionalProperties": True})
        for name in sorted({name for name, _ in STREAMS[count]})
    ]

    async def events() -> list[Any]:
        model = OpenAIChatModel("gpt-5", provider=OpenAIProvider(openai_client=openai_client(body, asynchronous=True)))
        parameters = ModelRequestParameters(function_tools=tools)
        messages = [ModelRequest.user_text_prompt("Go")]
        async with model_request_stream(model, messages, model_request_parameters=parameters) as stream:
            return [event async for event in stream]

    received = asyncio.run(events())
    ended = [event.part for event in received if isinstance(event, PartEndEvent)]
    calls = PydanticAIToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    done_at = {id(call): number for number, event in enumerate(received) for call in calls.feed(event) if call.done}
    calls.finish()
    theirs = [(part.tool_name, part.args) for part in ended if part.part_kind == "tool-call"]
    check_as_read(calls, theirs)
    part_ends = [number for number, event in enumerate(received) if isinstance(event, PartEndEvent)]
    assert sorted(done_at.values()) == part_ends[len(part_ends) - len(theirs) :]  # each at its part's end
