"""A page where tool calls fill in live: a file's path, then its content growing, then a table of records appearing
row by row, as a model writes them.

The model is a recording (``recordings/chat_write_file.sse``: a Chat Completions stream of a real ``write`` call from
the project's corpus, and a call listing the tests in that file, in token pieces, as OpenAI's API sends them). The
server reads it with the real ``openai`` client (over an ``httpx`` transport that replays the recording, a few
chunks at a time), turns the calls into JSON Patch operations with ``ToolCallPatches`` and sends them as server-sent
events with ``sse_response``; the page applies them with ``patches.js``. A real server puts its client's
``create(..., stream=True)`` where ``recorded_client`` is; the endpoint is the same three lines::

    events = await client.chat.completions.create(model=..., messages=..., tools=..., stream=True)
    return sse_response(ToolCallPatches(OpenAIChatToolCalls).astream(events))

Run it (``make run-web``), then open http://127.0.0.1:8001/::

    python examples/web_app.py --port 8001 --delay 0.01

Needs Starlette, uvicorn and openai (``pip install 'streaming-json[web]' uvicorn openai``).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Optional

import httpx
import openai
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from streaming_json.integrations import OpenAIChatToolCalls
from streaming_json.patches import ToolCallPatches, sse_response, static_path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recordings" / "chat_write_file.sse"
PAGE = HERE / "web" / "index.html"


def recorded_client(recording: bytes, delay: float, chunks_at_once: int = 4) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client whose every response is ``recording``, sent ``chunks_at_once`` events every
    ``delay`` seconds (a model's pace)."""
    events = [event + b"\n\n" for event in recording.split(b"\n\n") if event]

    async def body() -> AsyncIterator[bytes]:
        for start in range(0, len(events), chunks_at_once):
            if delay:
                await asyncio.sleep(delay)
            yield b"".join(events[start : start + chunks_at_once])

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    http_client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    return openai.AsyncOpenAI(api_key="recorded", base_url="http://recording.invalid/v1", http_client=http_client)


def create_app(recording: Optional[bytes] = None, *, delay: float = 0.01, flush_interval: float = 0.05) -> Starlette:
    """The app: the page at ``/``, ``patches.js`` under ``/static/``, the op stream at ``/write`` (``?delay=``
    seconds between a few of the recording's chunks, ``?flush=`` the flush interval)."""
    recorded = recording if recording is not None else RECORDING.read_bytes()

    async def page(request: Request) -> Response:
        return FileResponse(PAGE)

    async def write(request: Request) -> Response:
        pace = float(request.query_params.get("delay", delay))
        client = recorded_client(recorded, pace)
        events: Any = await client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "user", "content": "Write the truncated-text test, then list its tests."}],
            tools=[
                {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object"}}},
                {"type": "function", "function": {"name": "record_tests", "parameters": {"type": "object"}}},
            ],
            stream=True,
        )
        flush = float(request.query_params.get("flush", flush_interval))
        return sse_response(ToolCallPatches(OpenAIChatToolCalls).astream(events), flush_interval=flush)

    return Starlette(
        routes=[
            Route("/", page),
            Route("/write", write),
            Mount("/static", StaticFiles(directory=static_path()), name="static"),
        ]
    )


def main(argv: Optional[list[str]] = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--delay", type=float, default=0.01, help="seconds between a few of the recording's chunks")
    arguments = parser.parse_args(argv)
    print(f"open http://{arguments.host}:{arguments.port}/")
    uvicorn.run(create_app(delay=arguments.delay), host=arguments.host, port=arguments.port, log_level="warning")


if __name__ == "__main__":
    main()
