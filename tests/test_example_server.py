"""The example OpenAI-compatible server (``examples/openai_server.py``), run on 127.0.0.1 and read by the real
``openai`` client: the tool calls a client accumulates from the stream are the model's, arguments byte for byte."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from streaming_json.integrations import OpenAIChatToolCalls

from .backends import cpython_only
from .model_outputs import REAL_CALLS, tools_for, write_output

pytestmark = cpython_only("the openai client needs jiter, which has no wheel for PyPy 3.9")

EXAMPLE = Path(__file__).parent.parent / "examples" / "openai_server.py"


def load_example() -> ModuleType:
    pytest.importorskip("starlette")
    spec = importlib.util.spec_from_file_location("openai_server_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start an app on 127.0.0.1 (a free port) with uvicorn in a thread; give its base URL; stop it after."""
    uvicorn = pytest.importorskip("uvicorn")
    servers: list[tuple[Any, threading.Thread]] = []

    def start(app: Any) -> str:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        servers.append((server, thread))
        port = server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=20)


TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in sorted({name for name, _ in REAL_CALLS})
]


@pytest.mark.parametrize("format_name", ["hermes", "kimi_k2"])
def test_the_openai_client_accumulates_the_models_calls(backend: ModuleType, serve: Any, format_name: str) -> None:
    openai = pytest.importorskip("openai")
    example = load_example()
    calls = [REAL_CALLS[3], REAL_CALLS[77], REAL_CALLS[402]]
    text, _ = write_output(format_name, calls, "I'll look at three things first. ")
    app = example.create_app(example.replay(text, piece_size=5), format_name, parser_class=backend.StreamingJsonParser)
    client = openai.OpenAI(base_url=serve(app), api_key="unused")
    # The SDK's own stream manager accumulates the deltas into a completion.
    with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS) as stream:
        completion = stream.get_final_completion()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "I'll look at three things first. "
    got = [(call.function.name, call.function.arguments) for call in choice.message.tool_calls or []]
    assert got == calls  # names, and the arguments exactly as the model wrote them
    ids = [call.id for call in choice.message.tool_calls or []]
    assert len(set(ids)) == 3 and (format_name != "kimi_k2" or ids[0] == f"functions.{calls[0][0]}:0")
    # A consumer of the same endpoint through create(stream=True) and our adapter gets the same calls.
    accumulator = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    chunks = client.chat.completions.create(model="m", messages=[], tools=TOOLS, stream=True)
    for _ in accumulator.stream(chunks):
        pass
    assert [(call.name, call.text) for call in accumulator.calls] == calls
    assert all(call.done and call.error is None for call in accumulator.calls)


def test_the_request_tools_type_the_parameters_of_a_text_format(backend: ModuleType, serve: Any) -> None:
    """Qwen3-Coder writes its values as text: the request's tool definitions type them, as the client reads."""
    openai = pytest.importorskip("openai")
    example = load_example()
    calls = [("get_weather", json.dumps({"zip": "03106", "days": 3, "metric": True}))]
    text, _ = write_output("qwen3_coder", calls, "Checking. ")
    app = example.create_app(
        example.replay(text, piece_size=3), "qwen3_coder", parser_class=backend.StreamingJsonParser
    )
    client = openai.OpenAI(base_url=serve(app), api_key="unused")
    with client.chat.completions.stream(model="m", messages=[], tools=tools_for(calls)) as stream:
        completion = stream.get_final_completion()
    (call,) = completion.choices[0].message.tool_calls or []
    assert (call.function.name, call.function.arguments) == calls[0]


def test_a_non_streaming_request_gets_the_whole_message(backend: ModuleType, serve: Any) -> None:
    openai = pytest.importorskip("openai")
    example = load_example()
    app = example.create_app(example.replay(example.SAMPLE_OUTPUT), "hermes", parser_class=backend.StreamingJsonParser)
    client = openai.OpenAI(base_url=serve(app), api_key="unused")
    completion = client.chat.completions.create(model="m", messages=[], tools=TOOLS)
    message = completion.choices[0].message
    assert message.content == "I'll read the file first."
    (call,) = message.tool_calls or []
    assert call.function.name == "read" and call.function.arguments == '{"path": "README.md", "limit": 200}'


def test_a_call_to_a_tool_the_request_did_not_offer_is_still_sent(backend: ModuleType, serve: Any) -> None:
    """The server passes ``tools`` on; the stream reports the unknown tool in its end event (for logs), and the
    client still sees the call the model made."""
    openai = pytest.importorskip("openai")
    example = load_example()
    app = example.create_app(example.replay(example.SAMPLE_OUTPUT), "hermes", parser_class=backend.StreamingJsonParser)
    client = openai.OpenAI(base_url=serve(app), api_key="unused")
    only_bash = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    with client.chat.completions.stream(model="m", messages=[], tools=only_bash) as stream:
        completion = stream.get_final_completion()
    assert [call.function.name for call in completion.choices[0].message.tool_calls or []] == ["read"]
