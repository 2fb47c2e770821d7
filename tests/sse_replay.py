"""The SDKs' own clients over recorded traffic: server-sent-event bytes replayed through an ``httpx.MockTransport``,
so that the client's own decoding, event building and stream managers run as they do for a user, with no network."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

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
