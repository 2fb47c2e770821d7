"""The SDKs' own clients over recorded traffic: server-sent-event bytes replayed through an ``httpx.MockTransport``,
so that the client's own decoding, event building and stream managers run as they do for a user, with no network;
boto3's over a server on 127.0.0.1 that sends AWS event-stream messages."""

from __future__ import annotations

import binascii
import json
import struct
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import pytest


def sse_body(events: Iterable[Any], *, named: bool = False, done_marker: bool = False) -> bytes:
    """The bytes of a server-sent-event stream carrying ``events`` (dicts, as JSON) one event each. ``named`` writes
    each event's ``type`` as its ``event:`` line (Anthropic and the Responses API do); ``done_marker`` ends with
    ``data: [DONE]`` (Chat Completions does)."""
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if done_marker:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def httpx_module() -> Any:
    """The HTTP client library the installed SDKs are built on (``httpx``, or its successor ``httpx2``)."""
    for name in ("httpx2", "httpx"):
        try:
            return __import__(name)
        except ImportError:
            continue
    pytest.skip("no httpx installed")


def replaying_transport(body: bytes) -> Any:
    """A mock transport that answers every request with ``body`` as an event stream."""
    httpx = httpx_module()

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx.MockTransport(answer)


def openai_client(body: bytes, *, asynchronous: bool = False) -> Any:
    """An ``openai.OpenAI`` (or ``AsyncOpenAI``) client whose every response is ``body``."""
    openai = pytest.importorskip("openai")
    httpx = httpx_module()
    transport = replaying_transport(body)
    if asynchronous:
        http_client = httpx.AsyncClient(transport=transport)
        return openai.AsyncOpenAI(api_key="test", base_url="http://replay.test/v1", http_client=http_client)
    http_client = httpx.Client(transport=transport)
    return openai.OpenAI(api_key="test", base_url="http://replay.test/v1", http_client=http_client)


def anthropic_client(body: bytes, *, asynchronous: bool = False) -> Any:
    """An ``anthropic.Anthropic`` (or ``AsyncAnthropic``) client whose every response is ``body``."""
    anthropic = pytest.importorskip("anthropic")
    httpx = httpx_module()
    transport = replaying_transport(body)
    if asynchronous:
        http_client = httpx.AsyncClient(transport=transport)
        return anthropic.AsyncAnthropic(api_key="test", base_url="http://replay.test", http_client=http_client)
    http_client = httpx.Client(transport=transport)
    return anthropic.Anthropic(api_key="test", base_url="http://replay.test", http_client=http_client)


def gemini_client(body: bytes) -> Any:
    """A ``google.genai.Client`` (Gemini API, ``client.aio`` for async) whose every response is ``body``; it takes an
    ``httpx2`` client (or an ``httpx`` one, on the releases before it)."""
    genai = pytest.importorskip("google.genai")
    httpx = httpx_module()
    options = genai.types.HttpOptions(
        base_url="http://replay.test",
        httpx_client=httpx.Client(transport=replaying_transport(body)),
        httpx_async_client=httpx.AsyncClient(transport=replaying_transport(body)),
    )
    return genai.Client(api_key="test", http_options=options)


def cohere_client(body: bytes, *, asynchronous: bool = False) -> Any:
    """A ``cohere.ClientV2`` (or ``AsyncClientV2``) whose every response is ``body``: it is built on ``httpx``."""
    cohere = pytest.importorskip("cohere")
    httpx = pytest.importorskip("httpx")

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(answer)
    if asynchronous:
        return cohere.AsyncClientV2(
            api_key="test", base_url="http://replay.test", httpx_client=httpx.AsyncClient(transport=transport)
        )
    return cohere.ClientV2(
        api_key="test", base_url="http://replay.test", httpx_client=httpx.Client(transport=transport)
    )


# --- AWS event streams (Bedrock) ---------------------------------------------------------------------------------


def event_stream_message(event_type: str, payload: Any) -> bytes:
    """One message of the AWS event-stream encoding (``application/vnd.amazon.eventstream``), as Bedrock's
    ``ConverseStream`` sends each event: a prelude (total and headers length, its CRC32), the ``:event-type``,
    ``:content-type`` and ``:message-type`` headers (strings), the JSON payload, the message's CRC32."""
    headers = b""
    for name, value in ((":event-type", event_type), (":content-type", "application/json"), (":message-type", "event")):
        encoded_name, encoded_value = name.encode(), value.encode()
        headers += struct.pack("!B", len(encoded_name)) + encoded_name
        headers += struct.pack("!BH", 7, len(encoded_value)) + encoded_value  # 7: a string header
    body = json.dumps(payload, ensure_ascii=False).encode()
    prelude = struct.pack("!II", 12 + len(headers) + len(body) + 4, len(headers))
    message = prelude + struct.pack("!I", binascii.crc32(prelude)) + headers + body
    return message + struct.pack("!I", binascii.crc32(message))


class LocalServer:
    """An HTTP server on 127.0.0.1, on a thread of its own while the ``with`` block runs, that answers every POST with
    ``answer(path, request_body) -> (content_type, body)``; ``address`` is its base URL."""

    def __init__(self, answer: Callable[[str, bytes], tuple[str, bytes]]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                content_type, body = answer(self.path, self.rfile.read(int(self.headers.get("content-length", 0))))
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # no request lines on stderr
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self: _Server) -> _Server:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


_Server = TypeVar("_Server", bound=LocalServer)


class EventStreamServer(LocalServer):
    """A server on 127.0.0.1 that answers every request with ``body`` as an AWS event stream: boto3's own client (its
    signing, its HTTP stack, its event-stream decoder and parser) reads it as it reads Bedrock."""

    def __init__(self, body: bytes) -> None:
        super().__init__(lambda path, request: ("application/vnd.amazon.eventstream", body))

    def bedrock_client(self) -> Any:
        """A boto3 ``bedrock-runtime`` client pointed at this server (test credentials, no network)."""
        boto3 = pytest.importorskip("boto3")
        return boto3.client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=self.address,
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )
