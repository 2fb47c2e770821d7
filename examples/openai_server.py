"""An OpenAI-compatible Chat Completions endpoint in front of a model, streaming its tool calls as they are written.

The model here is a recording: the server replays a raw model output (the text a model generates, special tokens
and all, e.g. ``<tool_call>{"name": ...}</tool_call>``) a few characters at a time, as a model emits tokens. A real
server puts its model's token stream where ``replay`` is; everything else is what it would do: feed each piece to a
``ModelOutputStream`` and send the deltas ``openai_chat_deltas`` makes of the events, as server-sent chunks.

Run it, then point any OpenAI client at it::

    python examples/openai_server.py --format hermes --replay output.txt --port 8000
    # client = openai.OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="unused")

Needs Starlette and uvicorn (``pip install starlette uvicorn``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any, Callable, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streaming_json.model_output import FORMATS, ModelOutputStream, openai_chat_deltas

SAMPLE_OUTPUT = (
    "I'll read the file first.<tool_call>\n"
    '{"name": "read", "arguments": {"path": "README.md", "limit": 200}}\n'
    "</tool_call>"
)


def replay(text: str, piece_size: int = 4, delay: float = 0.0) -> Callable[[dict[str, Any]], AsyncIterator[str]]:
    """A stand-in model: whatever the request, it writes ``text``, ``piece_size`` characters at a time."""

    async def generate(request: dict[str, Any]) -> AsyncIterator[str]:
        for start in range(0, len(text), piece_size):
            if delay:
                await asyncio.sleep(delay)
            yield text[start : start + piece_size]

    return generate


def create_app(
    model: Callable[[dict[str, Any]], AsyncIterator[str]],
    format: str,
    *,
    model_name: str = "replayed-model",
    **stream_options: Any,
) -> Starlette:
    """The app: ``POST /v1/chat/completions``, streaming (``"stream": true``) or not. ``stream_options`` go to each
    request's ``ModelOutputStream`` (``reasoning=``, ...); the request's tools are the ones it accepts, and their
    schemas type the parameters of the formats that write them as text (Qwen3-Coder, GLM, ...)."""

    async def chat_completions(request: Request) -> Response:
        body = await request.json()
        tools = [tool for tool in body.get("tools") or [] if tool.get("type") == "function"]
        stream = ModelOutputStream(format, tools=tools or None, **stream_options)
        completion_id = f"chatcmpl-{time.time_ns():x}"
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: Optional[str] = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
            data = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model_name,
                "choices": [choice],
            }
            return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"

        if not body.get("stream"):
            return JSONResponse(await _whole_completion(model(body), stream, completion_id, created, model_name))

        async def chunks() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            async for piece in model(body):
                for delta in openai_chat_deltas(stream.feed(piece)):
                    yield chunk(delta)
            for delta in openai_chat_deltas(stream.finish()):
                yield chunk(delta)
            yield chunk({}, "tool_calls" if stream.calls else "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", chat_completions, methods=["POST"])])


async def _whole_completion(
    pieces: AsyncIterator[str], stream: ModelOutputStream, completion_id: str, created: int, model_name: str
) -> dict[str, Any]:
    """A non-streaming answer: the same events, gathered into one message."""
    events: list[Any] = []
    async for piece in pieces:
        events += stream.feed(piece)
    events += stream.finish()
    content = "".join(event.text for event in events if event.kind == "content")
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        if event.kind == "start":
            calls[event.index] = {"id": event.id, "type": "function", "function": {"name": event.name, "arguments": ""}}
        elif event.kind == "arguments":
            calls[event.index]["function"]["arguments"] += event.text
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model_name,
        "choices": [choice],
    }


def main(argv: Optional[Iterable[str]] = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--format", default="hermes", choices=sorted(FORMATS), help="the model's tool-call format")
    parser.add_argument("--replay", metavar="FILE", help="the raw model output to replay (default: a sample)")
    parser.add_argument("--piece-size", type=int, default=4, help="characters a piece (default: 4)")
    parser.add_argument("--delay", type=float, default=0.01, help="seconds between pieces (default: 0.01)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(list(argv) if argv is not None else None)
    text = SAMPLE_OUTPUT
    if args.replay:
        with open(args.replay, encoding="utf-8") as file:
            text = file.read()
    app = create_app(replay(text, args.piece_size, args.delay), args.format)
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
