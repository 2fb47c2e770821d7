"""End to end through the SDKs' real clients: CPU per event of a whole streamed tool call, from the request to the
final arguments, the SDK's own stream with its helper against ``create(stream=True)`` with our adapter against the
raw path (``sse_events``) with our adapter. Our adapters' cost per event over the floor of reading the event, on every
API's prebuilt events, is the sdk suite's (``python -m bench sdk``).

What is measured. Each write-file call of ``bench/workloads.py`` (20 KB and 100 KB of Python, one
token piece an event) is served as each API's server-sent events by an ``httpx.MockTransport`` (the same bytes for
every contender, no network), to the SDK's own client, made once, up front. Per API, three contenders read the whole
stream as a user would and make the partial arguments available after every event:

- ``helper``: the SDK's stream manager, iterated (``client.chat.completions.stream(...)`` with the tool strict, so
  that its helper parses the arguments on every chunk; ``client.responses.stream(...)``; ``client.messages.stream()``,
  whose helper re-parses the arguments with jiter on every delta), then its final message;
- ``create``: ``create(..., stream=True)`` read by our adapter's ``stream()``;
- ``raw``: ``with_streaming_response.create(..., stream=True)`` read by ``sse_events`` into dicts, and our adapter.

Gemini (``google-genai``'s ``generate_content_stream``, its fragments) and Cohere (``chat_stream``) have no helper that
accumulates a call: ``create`` and ``raw`` only. The time is CPU time of this process (``process_time``: the client's
and the transport's work included, the moments another process held the core left out), per event of the stream, the
median of the rounds (interleaved, rotating order). Targets, on both calls: the raw path at least 10x less CPU per
event than the OpenAI SDK's own Chat stream with its helper, at least 3x than Anthropic's.

    python -m bench clients [--quick] [--rounds N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from time import process_time
from typing import Any

from bench import harness, workloads
from bench.events import api_events, sse_bytes
from bench.harness import Contender, Result
from bench.suites import sdk
from streaming_json.integrations import (
    AnthropicToolCalls,
    CohereToolCalls,
    GeminiToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
    sse_events,
)

PACKAGES = ("openai", "anthropic", "google-genai", "cohere", "boto3", "httpx", "httpx2", "pydantic", "jiter")
MARKDOWN = True

TITLES = {"write-20": "write-file, 20 KB", "write-100": "write-file, 100 KB"}
E2E_APIS = ("chat", "responses", "anthropic", "gemini", "cohere")
HELPER_TARGETS = {"chat": 10.0, "anthropic": 3.0}  # helper / raw, at least
ACCUMULATORS: dict[str, Any] = {
    "chat": OpenAIChatToolCalls,
    "responses": OpenAIResponsesToolCalls,
    "anthropic": AnthropicToolCalls,
    "gemini": GeminiToolCalls,
    "cohere": CohereToolCalls,
}


# --- End to end: the clients ----------------------------------------------------------------------------------------


def _transport(module: Any, body: bytes) -> Any:
    def answer(request: Any) -> Any:
        return module.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return module.MockTransport(answer)


def _httpx2() -> Any:
    try:
        import httpx2

        return httpx2
    except ImportError:  # the SDKs' releases before httpx2
        import httpx

        return httpx


def clients(api: str, body: bytes) -> Any:
    """The SDK's client for ``api``, every response ``body``."""
    if api in ("chat", "responses"):
        import openai

        httpx = _httpx2()
        return openai.OpenAI(
            api_key="bench",
            base_url="http://replay.test/v1",
            http_client=httpx.Client(transport=_transport(httpx, body)),
        )
    if api == "anthropic":
        import anthropic

        httpx = _httpx2()
        return anthropic.Anthropic(
            api_key="bench", base_url="http://replay.test", http_client=httpx.Client(transport=_transport(httpx, body))
        )
    if api == "gemini":
        from google import genai

        httpx = _httpx2()
        options = genai.types.HttpOptions(
            base_url="http://replay.test", httpx_client=httpx.Client(transport=_transport(httpx, body))
        )
        return genai.Client(api_key="bench", http_options=options)
    import cohere
    import httpx as classic_httpx

    return cohere.ClientV2(
        api_key="bench",
        base_url="http://replay.test",
        httpx_client=classic_httpx.Client(transport=_transport(classic_httpx, body)),
    )


STRICT_TOOL = sdk.STRICT_TOOL
MESSAGES = [{"role": "user", "content": "Write the module"}]


def request(api: str, client: Any, way: str) -> Any:
    """The events of one request: ``way`` is ``helper`` (the SDK's stream manager), ``create`` or ``raw``."""
    if api == "chat":
        completions = client.chat.completions
        if way == "helper":
            return completions.stream(model="gpt-5", messages=MESSAGES, tools=[STRICT_TOOL])
        if way == "create":
            return completions.create(model="gpt-5", messages=MESSAGES, tools=[STRICT_TOOL], stream=True)
        return sse_events(completions.with_streaming_response.create(model="gpt-5", messages=MESSAGES, stream=True))
    if api == "responses":
        if way == "helper":
            return client.responses.stream(model="gpt-5", input="Write the module")
        if way == "create":
            return client.responses.create(model="gpt-5", input="Write the module", stream=True)
        return sse_events(client.responses.with_streaming_response.create(model="gpt-5", input="Go", stream=True))
    if api == "anthropic":
        arguments: dict[str, Any] = {"model": "claude-sonnet-5", "max_tokens": 64000, "messages": MESSAGES}
        if way == "helper":
            return client.messages.stream(**arguments)
        if way == "create":
            return client.messages.create(**arguments, stream=True)
        return sse_events(client.messages.with_streaming_response.create(**arguments, stream=True))
    if api == "gemini":
        if way == "create":
            return client.models.generate_content_stream(model="gemini-3-pro", contents="Write the module")
        raise harness.NotApplicable("raw Gemini is read from the HTTP client (see raw_gemini)")
    if way == "create":
        return client.chat_stream(model="command-a", messages=MESSAGES)
    raise harness.NotApplicable("raw Cohere goes through with_raw_response (see raw_cohere)")


def helper_arguments(api: str, manager: Any) -> Any:
    """Iterate the SDK's stream manager (each event its helper built, the partial arguments it parsed); the final
    arguments."""
    with manager as stream:
        for _ in stream:
            pass
        if api == "chat":
            return stream.get_final_completion().choices[0].message.tool_calls[0].function.parsed_arguments
        if api == "responses":
            return json.loads(
                next(item for item in stream.get_final_response().output if item.type == "function_call").arguments
            )
        return stream.get_final_message().content[0].input


def ours_arguments(api: str, events: Any) -> Any:
    calls = ACCUMULATORS[api]()
    for _ in calls.stream(events):
        pass
    (call,) = calls.calls
    return call.arguments


def raw_events(api: str, client: Any, body: bytes) -> Any:
    if api == "gemini":  # the request google-genai makes, read from the HTTP client's streaming response
        httpx = _httpx2()
        http = httpx.Client(transport=_transport(httpx, body))
        url = "http://replay.test/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse"
        return sse_events(http.stream("POST", url, json={"contents": [{"parts": [{"text": "Write the module"}]}]}))
    if api == "cohere":

        class Raw:  # the response inside with_raw_response's context, read by sse_events
            def __enter__(self) -> Any:
                self.manager = client.v2.with_raw_response.chat_stream(model="command-a", messages=MESSAGES)
                return sse_events(self.manager.__enter__().response)

            def __exit__(self, *exc_info: Any) -> None:
                self.manager.__exit__(*exc_info)

        return Raw()
    return request(api, client, "raw")


@dataclass
class Stream:
    """One call as one API's stream: its bytes, how many events, and the client serving them."""

    api: str
    body: bytes
    events: int
    client: Any


def e2e_contender(api: str, way: str) -> Contender:
    def run(stream: dict[str, Stream], deadline: float) -> harness.Timed:
        served = stream[api]
        start = process_time()
        if way == "helper":
            value = helper_arguments(api, request(api, served.client, "helper"))
        elif way == "create":
            value = ours_arguments(api, request(api, served.client, "create"))
        else:
            value = ours_arguments(api, raw_events(api, served.client, served.body))
        return harness.Timed(process_time() - start, value)

    return Contender(
        f"{api}-{way}", run, ours=way != "helper", capped=False, budgeted=way == "helper", tags={"api": api, "way": way}
    )


def e2e_contenders() -> list[Contender]:
    found = []
    for api in E2E_APIS:
        for way in ("helper", "create", "raw") if api in ("chat", "responses", "anthropic") else ("create", "raw"):
            found.append(harness.contender(f"{api}-{way}", lambda api=api, way=way: _checked(e2e_contender(api, way))))
    return found


def _checked(contender: Contender) -> Contender:
    """The contender, once its SDK imports (a missing SDK makes it n/a)."""
    module = {
        "chat": "openai",
        "responses": "openai",
        "anthropic": "anthropic",
        "gemini": "google.genai",
        "cohere": "cohere",
    }
    __import__(module[contender.tags["api"]])
    return contender


# --- Report ---------------------------------------------------------------------------------------------------------


def us_per(result: Result, events: int) -> str:
    return "-" if result.median is None else f"{result.median / events * 1e6:,.2f}"


def report(session: harness.Session, e2e: list[tuple[str, dict[str, Stream], dict[str, Result]]], judge: bool) -> str:
    out, targets = [], harness.Targets()
    out.append(
        "\nEnd to end through the SDK's own client over a MockTransport: CPU per event (us, process_time, median), the"
        " SDK's stream manager with its helper / create(stream=True) with our adapter / the raw path (sse_events) with"
        " our adapter; ratios of CPU per event"
    )
    rows = []
    for key, streams, results in e2e:
        for api in E2E_APIS:
            events = streams[api].events
            helper, create, raw = (
                results.get(f"{api}-{way}", Result(status="n/a")) for way in ("helper", "create", "raw")
            )
            helper_raw, _ = harness.ratio(helper, raw)
            create_raw, _ = harness.ratio(create, raw)
            helper_create, _ = harness.ratio(helper, create)
            cell = harness.format_ratio(helper_raw)
            if judge and api in HELPER_TARGETS:
                if helper_raw is None:
                    targets.missed += 1
                    cell += f" MISS (>={HELPER_TARGETS[api]:g})"
                else:
                    cell += targets.judge(helper_raw, ">=", HELPER_TARGETS[api])
            times = [us_per(helper, events), us_per(create, events), us_per(raw, events)]
            ratios = [cell, harness.format_ratio(helper_create), harness.format_ratio(create_raw)]
            rows.append([TITLES[key], api, f"{events:,}", *times, *ratios])
    headers = [
        "call",
        "API",
        "events",
        "helper",
        "create + ours",
        "raw + ours",
        "helper / raw",
        "helper / create",
        "create / raw",
    ]
    out.append(session.table(headers, rows))

    for _, _, results in e2e:
        for name, result in results.items():
            if result.detail:
                out.append(f"{name}: {result.detail}")
    out.append("\n" + (targets.summary() if judge else "Targets not judged: they apply to the full sizes"))
    return "\n".join(out)


# --- Suite ----------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, help="rounds of every contender (default 3, quick 1)")


def run(session: harness.Session) -> int:
    args = session.args
    rounds = args.rounds or (1 if args.quick else 3)
    scale = 0.125 if args.quick else 1.0
    print(harness.environment_line(session.env), flush=True)
    e2e_found = e2e_contenders()
    e2e = []
    for key, multiple in (("write-20", 1), ("write-100", 5)):
        (call,) = workloads.write_file(multiple, scale).calls
        expected = json.loads(call.text)
        streams = {}
        for api in E2E_APIS:
            events = api_events(api, call.pieces)
            body = sse_bytes(api, events)
            try:
                client = clients(api, body)
            except ImportError:
                client = None
            streams[api] = Stream(api, body, len(events), client)
        session.progress(f"end to end, {TITLES[key]} ({len(call.pieces):,} pieces) ...")
        found = harness.measure(e2e_found, streams, rounds=rounds, expected=expected, clock=process_time)
        e2e.append((key, streams, found))
    print(report(session, e2e, judge=not args.quick))
    session.raw.update(
        {
            "rounds": rounds,
            "scale": scale,
            "e2e": {
                key: {
                    "events": {api: served.events for api, served in streams.items()},
                    "results": {name: result.to_json() for name, result in results.items()},
                }
                for key, streams, results in e2e
            },
        }
    )
    return 1 if harness.failed([r for _, _, r in e2e], e2e_found) else 0
