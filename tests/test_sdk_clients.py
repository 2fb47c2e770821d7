"""Every adapter on the real SDK clients, no network: each SDK's own client over an ``httpx.MockTransport`` replaying
server-sent events built from the real tool calls in token pieces (boto3 over a server on 127.0.0.1 sending AWS event
streams), read as a user reads them: ``create(stream=True)``, the SDKs' stream managers, the async clients and the raw
path (``sse_events`` over ``with_streaming_response``). Every call ends with its id, its name and its exact arguments;
structured output with its exact value. The whole corpus goes through every adapter on dicts, and through the raw path
on bytes cut at random.

The SDKs build a pydantic model for every event, 100 to 200 us each for Chat, Gemini and Cohere: the clients read a
sample of the corpus (``provider_streams.SAMPLE``), a few thousand events per test."""

from __future__ import annotations

import asyncio
import functools
import json
import random
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Callable

import pytest

from streaming_json.integrations import (
    AnthropicStructuredOutput,
    AnthropicToolCalls,
    BedrockStructuredOutput,
    BedrockToolCalls,
    CohereStructuredOutput,
    CohereToolCalls,
    GeminiStructuredOutput,
    GeminiToolCalls,
    OpenAIChatStructuredOutput,
    OpenAIChatToolCalls,
    OpenAIResponsesStructuredOutput,
    OpenAIResponsesToolCalls,
    sse_events,
)

from . import provider_streams as streams
from . import sdk_events as sse
from .model_outputs import REAL_CALLS
from .provider_streams import SAMPLE, STRUCTURED_TEXT
from .sse_replay import (
    EventStreamServer,
    anthropic_client,
    cohere_client,
    event_stream_message,
    gemini_client,
    httpx_module,
    openai_client,
    replaying_transport,
    sse_body,
)

SEED = 21
ARGUMENTS = [arguments for _, arguments in SAMPLE]
EXPECTED = streams.expected_calls(SAMPLE)
VALUE = json.loads(STRUCTURED_TEXT)
SOURCES = ["create", "manager", "raw", "async-create", "async-manager", "async-raw"]


def read(accumulator: Any, events: Any, asynchronous: bool = False) -> Any:
    """Read ``events`` as a user does: ``stream()``, or ``astream()`` in an event loop (``asynchronous``; a coroutine,
    as ``await client...create(..., stream=True)`` awaits, is awaited first)."""

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


def check_calls(calls: Any, *, texts: Sequence[str] = ARGUMENTS, expected: Any = EXPECTED) -> None:
    assert [(call.id, call.name, call.arguments) for call in calls.calls] == expected
    assert all(call.done and call.error is None and call.problem is None for call in calls.calls)
    if texts:
        assert [call.text for call in calls.calls] == list(texts)


def check_output(output: Any) -> None:
    assert output.done and output.error is None and output.problem is None
    assert output.value == VALUE and output.text == STRUCTURED_TEXT


def chat_calls(backend: ModuleType) -> OpenAIChatToolCalls:
    return OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)


# --- OpenAI Chat Completions ------------------------------------------------------------------------------------------


def chat_source(body: bytes, source: str, tools: Any = None) -> Any:
    """The events of ``body`` through the openai client, as ``source`` says."""
    client = openai_client(body, asynchronous=source.startswith("async"))
    completions = client.chat.completions
    request: dict[str, Any] = {"model": "gpt-5", "messages": [{"role": "user", "content": "Go"}]}
    if tools is not None:
        request["tools"] = tools
    kind = source.removeprefix("async-")
    if kind == "create":
        return completions.create(**request, stream=True)
    if kind == "manager":
        return completions.stream(**request)
    return sse_events(completions.with_streaming_response.create(**request, stream=True))


@pytest.mark.parametrize("source", SOURCES)
def test_openai_chat_through_the_openai_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.chat_stream(SAMPLE, SEED), done_marker=True)
    # The async stream manager wants strict tools; with them the SDK's helper parses each call's arguments too.
    tools = streams.chat_tools(SAMPLE, strict=source == "async-manager")
    check_calls(read(chat_calls(backend), chat_source(body, source, tools), source.startswith("async")))


@pytest.mark.parametrize("source", ["create", "raw", "async-raw"])
def test_openai_chat_structured_output_through_the_openai_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.chat_text_stream(STRUCTURED_TEXT, SEED), done_marker=True)
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, chat_source(body, source), source.startswith("async")))


# The shapes of the providers that speak the protocol, through the real client (create and the raw path) and as dicts.
ODD_SHAPES: dict[str, Callable[[], list[Any]]] = {
    # LiteLLM #32759: the first call at index 1 (the SDK's own helper raises IndexError on it)
    "index-from-1": lambda: streams.chat_stream(SAMPLE[:3], SEED, first_index=1),
    # id and name on every chunk (Groq, Together, Fireworks)
    "ids-repeated": lambda: streams.chat_stream(SAMPLE[:3], SEED, repeat_ids=True),
    # the whole arguments in one delta, after an "" one (vLLM, DeepSeek)
    "whole-arguments": lambda: (
        [
            sse.chat_chunk(
                sse.tool_delta(number, part, id=call_id if not part else None, name=name if not part else None)
            )
            for number, (name, arguments) in enumerate(SAMPLE[:3])
            for call_id, part in ((streams.call_id(number), ""), (None, arguments))
        ]
        + [sse.chat_chunk(sse.finish_choice())]
    ),
}


@pytest.mark.parametrize("shape", list(ODD_SHAPES))
@pytest.mark.parametrize("source", ["dicts", "create", "raw"])
def test_openai_compatible_shapes(backend: ModuleType, shape: str, source: str) -> None:
    chunks = ODD_SHAPES[shape]()
    calls = chat_calls(backend)
    if source == "dicts":
        read(calls, chunks)
    else:
        read(calls, chat_source(sse_body(chunks, done_marker=True), source, streams.chat_tools(SAMPLE[:3])))
    check_calls(calls, texts=ARGUMENTS[:3], expected=EXPECTED[:3])


@pytest.mark.parametrize("arguments", ["", None, "absent"])
def test_openai_compatible_empty_arguments(backend: ModuleType, arguments: Any) -> None:
    """A call of a tool without parameters, its arguments "" or null or missing (LiteLLM #5063): ``{}``, no error."""
    first = sse.tool_delta(0, "", id="call_ping", name="ping")
    function = first["delta"]["tool_calls"][0]["function"]
    if arguments == "absent":
        del function["arguments"]
    else:
        function["arguments"] = arguments
    body = sse_body([sse.chat_chunk(first), sse.chat_chunk(sse.finish_choice())], done_marker=True)
    calls = read(chat_calls(backend), chat_source(body, "create"))
    check_calls(calls, texts=[""], expected=[("call_ping", "ping", {})])


@pytest.mark.slow  # importing litellm takes seconds
def test_litellm_model_response_stream_objects(backend: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """LiteLLM's own chunk objects (``ModelResponseStream``, whose choices and deltas keep their fields as pydantic
    extras), with the first call at index 1, as LiteLLM streams some providers' calls."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm fetches its price list at import otherwise
    with warnings.catch_warnings():  # litellm's models warn of its own types (pydantic's ReadOnly qualifier)
        warnings.simplefilter("ignore")
        litellm_types = pytest.importorskip("litellm.types.utils")
        chunks = streams.chat_stream(SAMPLE[:4], SEED, first_index=1)
        objects = [litellm_types.ModelResponseStream(**chunk) for chunk in chunks]
        text_chunks = streams.chat_text_stream(STRUCTURED_TEXT, SEED)
        text_objects = [litellm_types.ModelResponseStream(**chunk) for chunk in text_chunks]
    check_calls(read(chat_calls(backend), objects), texts=ARGUMENTS[:4], expected=EXPECTED[:4])
    output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, text_objects))


def test_the_sdks_chat_helper_raises_where_our_adapter_reads_on(backend: ModuleType) -> None:
    """What README warns of: the SDK's stream manager raises from its helper (IndexError for an index from 1,
    JSONDecodeError for cut arguments of a strict tool), and through our ``stream()``, which reads the manager, the
    exception comes out; ``create(stream=True)`` gives the same events without the helper."""
    body = sse_body(streams.chat_stream(SAMPLE[:2], SEED, first_index=1), done_marker=True)
    with pytest.raises(IndexError):
        read(chat_calls(backend), chat_source(body, "manager", streams.chat_tools(SAMPLE[:2])))
    check_calls(read(chat_calls(backend), chat_source(body, "create")), texts=ARGUMENTS[:2], expected=EXPECTED[:2])
    cut = [("bash", '{"command": "ls')]
    body = sse_body(streams.chat_stream(cut, SEED), done_marker=True)
    with pytest.raises(json.JSONDecodeError):
        read(chat_calls(backend), chat_source(body, "manager", streams.chat_tools(cut, strict=True)))
    (call,) = read(chat_calls(backend), chat_source(body, "create")).calls
    assert call.problem is not None and call.problem.kind == "incomplete"


# --- OpenAI Responses ---------------------------------------------------------------------------------------------


def responses_source(body: bytes, source: str) -> Any:
    client = openai_client(body, asynchronous=source.startswith("async"))
    request: dict[str, Any] = {"model": "gpt-5", "input": "Go"}
    kind = source.removeprefix("async-")
    if kind == "create":
        return client.responses.create(**request, stream=True)
    if kind == "manager":
        return client.responses.stream(**request)
    return sse_events(client.responses.with_streaming_response.create(**request, stream=True))


@pytest.mark.parametrize("source", SOURCES)
def test_openai_responses_through_the_openai_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.responses_stream(SAMPLE, SEED), named=True)
    calls = OpenAIResponsesToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    check_calls(read(calls, responses_source(body, source), source.startswith("async")))


@pytest.mark.parametrize("source", ["create", "manager", "raw"])
def test_openai_responses_structured_output_through_the_openai_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.responses_text_stream(STRUCTURED_TEXT, SEED), named=True)
    output = OpenAIResponsesStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, responses_source(body, source), source.startswith("async")))


# --- Anthropic Messages -------------------------------------------------------------------------------------------


def anthropic_source(body: bytes, source: str) -> Any:
    client = anthropic_client(body, asynchronous=source.startswith("async"))
    request: dict[str, Any] = {
        "model": "claude-sonnet-5",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Go"}],
    }
    kind = source.removeprefix("async-")
    if kind == "create":
        return client.messages.create(**request, stream=True)
    if kind == "manager":
        return client.messages.stream(**request)
    return sse_events(client.messages.with_streaming_response.create(**request, stream=True))


@pytest.mark.parametrize("source", SOURCES)
def test_anthropic_through_the_anthropic_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.anthropic_stream(SAMPLE, SEED), named=True)
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    check_calls(read(calls, anthropic_source(body, source), source.startswith("async")))


@pytest.mark.parametrize("source", ["create", "manager", "raw"])
def test_anthropic_structured_output_through_the_anthropic_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.anthropic_text_stream(STRUCTURED_TEXT, SEED), named=True)
    output = AnthropicStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, anthropic_source(body, source), source.startswith("async")))


# --- Gemini ---------------------------------------------------------------------------------------------------------


def gemini_source(body: bytes, source: str) -> Any:
    """``generate_content_stream`` of the google-genai client (``client.aio`` for async), or the raw path: the same
    request's server-sent events read with ``sse_events`` from the HTTP client's own streaming response."""
    request: dict[str, Any] = {"model": "gemini-3-pro", "contents": "Go"}
    if source == "create":
        return gemini_client(body).models.generate_content_stream(**request)
    if source == "async-create":
        return gemini_client(body).aio.models.generate_content_stream(**request)
    httpx = httpx_module()
    url = "http://replay.test/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse"
    if source == "raw":
        client = httpx.Client(transport=replaying_transport(body))
        return sse_events(client.stream("POST", url, json={"contents": [{"parts": [{"text": "Go"}]}]}))

    class AsyncRequest:  # the async client's stream(), entered by astream()
        async def __aenter__(self) -> Any:
            self.client = httpx.AsyncClient(transport=replaying_transport(body))
            self.manager = self.client.stream("POST", url, json={})
            return await self.manager.__aenter__()

        async def __aexit__(self, *exc_info: Any) -> None:
            await self.manager.__aexit__(*exc_info)
            await self.client.aclose()

    return sse_events(AsyncRequest())


@pytest.mark.parametrize("source", ["create", "async-create", "raw", "async-raw"])
def test_gemini_partial_args_through_the_genai_client(backend: ModuleType, source: str) -> None:
    """``stream_function_call_arguments``: each call's arguments as fragments at JSON paths, a string's in token
    pieces; the text written from them parses to the arguments the model wrote."""
    body = sse_body(streams.gemini_stream(SAMPLE, SEED))
    calls = GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    read(calls, gemini_source(body, source), source.startswith("async"))
    check_calls(calls, texts=[json.dumps(json.loads(text), ensure_ascii=False) for text in ARGUMENTS])


def test_gemini_whole_calls_through_the_genai_client(backend: ModuleType) -> None:
    body = sse_body(streams.gemini_stream(SAMPLE, SEED, partial=False))
    calls = read(GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), gemini_source(body, "create"))
    check_calls(calls, texts=())


@pytest.mark.parametrize("source", ["create", "async-create", "raw"])
def test_gemini_structured_output_through_the_genai_client(backend: ModuleType, source: str) -> None:
    body = sse_body(streams.gemini_text_stream(STRUCTURED_TEXT, SEED))
    output = GeminiStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, gemini_source(body, source), source.startswith("async")))


@pytest.mark.parametrize("naming", ["camelCase", "snake_case"])
def test_gemini_partial_args_as_sdk_objects_built_from_dicts(backend: ModuleType, naming: str) -> None:
    types = pytest.importorskip("google.genai.types")
    chunks = streams.gemini_stream(SAMPLE[:5], SEED)
    if naming == "snake_case":
        chunks = streams.snake_case(chunks)
    objects = [types.GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    calls = read(GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), objects)
    check_calls(calls, texts=(), expected=EXPECTED[:5])
    as_dicts = read(GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), chunks)
    check_calls(as_dicts, texts=[call.text for call in calls.calls], expected=EXPECTED[:5])


# --- Cohere -----------------------------------------------------------------------------------------------------------


def cohere_source(body: bytes, source: str) -> Any:
    client = cohere_client(body, asynchronous=source.startswith("async"))
    request: dict[str, Any] = {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Go"}]}
    if source.endswith("create"):
        return client.chat_stream(**request)
    raw = client.v2.with_raw_response.chat_stream(**request)  # a context manager of the HTTP response

    class Response:  # sse_events reads the response inside it; entered by stream() / astream()
        def __enter__(self) -> Any:
            return sse_events(raw.__enter__().response)

        def __exit__(self, *exc_info: Any) -> None:
            raw.__exit__(*exc_info)

        async def __aenter__(self) -> Any:
            return sse_events((await raw.__aenter__()).response)

        async def __aexit__(self, *exc_info: Any) -> None:
            await raw.__aexit__(*exc_info)

    return Response()


@pytest.mark.parametrize("source", ["create", "async-create", "raw", "async-raw"])
def test_cohere_through_the_cohere_client(backend: ModuleType, source: str) -> None:
    body = "".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in streams.cohere_stream(SAMPLE, SEED)
    )
    calls = CohereToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    check_calls(read(calls, cohere_source(body.encode(), source), source.startswith("async")))


@pytest.mark.parametrize("source", ["create", "raw"])
def test_cohere_structured_output_through_the_cohere_client(backend: ModuleType, source: str) -> None:
    events = streams.cohere_text_stream(STRUCTURED_TEXT, SEED)
    body = "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events).encode()
    output = CohereStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, cohere_source(body, source), source.startswith("async")))


# --- Bedrock ----------------------------------------------------------------------------------------------------------


def bedrock_events(events: Sequence[tuple[str, Any]]) -> Any:
    """The events as boto3's own client reads them from a server: ``converse_stream(...)["stream"]``."""
    body = b"".join(event_stream_message(kind, payload) for kind, payload in events)
    server = EventStreamServer(body)
    with server:
        client = server.bedrock_client()
        response = client.converse_stream(
            modelId="anthropic.claude-sonnet-5", messages=[{"role": "user", "content": [{"text": "Go"}]}]
        )
        return list(response["stream"])  # read while the server runs: boto3 reads the body as it iterates


def test_bedrock_through_boto3(backend: ModuleType) -> None:
    events = bedrock_events(streams.bedrock_stream(SAMPLE, SEED))
    assert events == streams.as_boto3(streams.bedrock_stream(SAMPLE, SEED))  # boto3's dicts, as sent
    calls = read(BedrockToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), events)
    check_calls(calls)
    output = BedrockStructuredOutput(parser_class=backend.StreamingJsonParser)
    check_output(read(output, bedrock_events(streams.bedrock_text_stream(STRUCTURED_TEXT, SEED))))


# --- The whole corpus ---------------------------------------------------------------------------------------------
# Where it is cheap: the adapters on dicts cost about a microsecond an event, the raw path a few more. Gemini's
# fragments, the one adapter that writes its own text, on dicts; the raw path on Anthropic's events as bytes.

CORPUS_EXPECTED = streams.expected_calls(REAL_CALLS)


@functools.cache
def corpus_gemini_chunks() -> list[Any]:
    return streams.gemini_stream(REAL_CALLS, SEED)


@pytest.mark.slow  # the whole corpus: make test runs it, make test-fast skips it
def test_every_real_call_through_gemini_fragments(backend: ModuleType) -> None:
    """Every real call's arguments as ``partial_args`` fragments (strings in token pieces, numbers, booleans and
    nulls at their paths, keys that need brackets): the text written from them parses to the arguments."""
    calls = read(GeminiToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), corpus_gemini_chunks())
    check_calls(calls, texts=(), expected=CORPUS_EXPECTED)


@functools.cache
def corpus_anthropic_chunks() -> list[bytes]:
    """The whole corpus's server-sent events as network chunks of random sizes (a character or a line cut between
    two), with "\r\n" line ends."""
    body = sse_body(streams.anthropic_stream(REAL_CALLS, SEED), named=True).replace(b"\n", b"\r\n")
    rng = random.Random(SEED)
    cuts, position = [], 0
    while position < len(body):
        step = rng.choice((1, 7, 100, 1500, 16384))
        cuts.append(body[position : position + step])
        position += step
    return cuts


@pytest.mark.slow  # the whole corpus: make test runs it, make test-fast skips it
def test_every_real_call_through_the_raw_path_on_bytes_cut_anywhere(backend: ModuleType) -> None:
    calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    check_calls(
        read(calls, sse_events(corpus_anthropic_chunks())),
        texts=[text for _, text in REAL_CALLS],
        expected=CORPUS_EXPECTED,
    )


# --- The raw path's decoding ------------------------------------------------------------------------------------------


def test_sse_events_reads_lines_and_fields_as_the_specification_says() -> None:
    body = (
        ": a comment\n"
        "event: message\nid: 1\nretry: 100\n"
        'data: {"a": 1}\n\n'
        'data: {"b":\ndata: 2}\n\n'  # data on two lines, joined with a newline
        "data:[DONE]\n\n"  # the end marker, with or without the space
        "data: not json\n\n"
        "database: 1\n\n"  # another field, and a blank line with no data: no event
        'data: {"é": "\u2028"}\r\n\r\n'
        'data: {"last": true}'  # no blank line at the end of the stream
    )
    expected = [{"a": 1}, {"b": 2}, "not json", {"é": "\u2028"}, {"last": True}]
    lines = body.split("\n")  # not str.splitlines(), which also ends a line at U+2028
    assert list(sse_events(line + "\n" for line in lines)) == expected  # lines with their ends
    assert list(sse_events(line.rstrip("\r") for line in lines)) == expected  # as iter_lines() gives them
    encoded = body.encode()
    for size in (1, 2, 3, 5, len(encoded)):  # bytes cut anywhere, a character's bytes included
        assert list(sse_events([encoded[i : i + size] for i in range(0, len(encoded), size)])) == expected


def test_sse_events_takes_a_loads_and_reads_async_sources() -> None:
    body = b'data: {"a": 1}\n\ndata: {"b": 2}\n\n'

    async def chunks() -> Any:
        for i in range(0, len(body), 4):
            yield body[i : i + 4]

    async def read_all() -> list[Any]:
        return [event async for event in sse_events(chunks(), loads=lambda data: ("loaded", data))]

    assert asyncio.run(read_all()) == [("loaded", '{"a": 1}'), ("loaded", '{"b": 2}')]
    with pytest.raises(TypeError, match="async for"):
        list(sse_events(chunks()))


def test_sse_events_enters_and_closes_a_manager() -> None:
    """``with_streaming_response.create(...)`` gives a context manager: entered to read, closed at the end."""
    closed = []

    class Response:
        def iter_bytes(self) -> Any:
            yield b'data: {"a": 1}\n\n'

        async def aiter_bytes(self) -> Any:
            yield b'data: {"a": 1}\n\n'

    class Manager:
        def __enter__(self) -> Response:
            return Response()

        def __exit__(self, *exc_info: Any) -> None:
            closed.append("sync")

        async def __aenter__(self) -> Response:
            return Response()

        async def __aexit__(self, *exc_info: Any) -> None:
            closed.append("async")

    assert list(sse_events(Manager())) == [{"a": 1}] and closed == ["sync"]

    async def read_all() -> list[Any]:
        return [event async for event in sse_events(Manager())]

    assert asyncio.run(read_all()) == [{"a": 1}] and closed == ["sync", "async"]
