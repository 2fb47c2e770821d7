"""End to end through the SDKs' real clients: CPU per event of a whole streamed tool call, from the request to the
final arguments, the SDK's own stream with its helper against ``create(stream=True)`` with our adapter against the
raw path (``sse_events``) with our adapter; and our adapters' cost per event over the floor of reading the event.

What is measured (the first table). Each write-file call of ``bench/workloads.py`` (20 KB and 100 KB of Python, one
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

The second table: issue 13's figure, restated. Each API's events are built up front (the SDK's objects as its client
builds them, and dicts); ``ours`` is the adapter's ``feed`` on each, ``floor`` the parser fed each event's piece read
straight along its known path (the sdk suite's floor: what reading the event's fields costs any reader, the walk that
``python -m bench instructions --walks`` counts). The figure is (ours - floor) / events; the target is at most 1 us on
every API, SDK objects and dicts.

    python -m bench clients [--quick] [--rounds N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from time import process_time
from typing import Any, Callable, Optional

from bench import harness, workloads
from bench.harness import Contender, Result
from bench.suites import sdk
from streaming_json import ToolCallArgumentsStream
from streaming_json.integrations import (
    AnthropicToolCalls,
    BedrockToolCalls,
    CohereToolCalls,
    GeminiToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
    sse_events,
)

PACKAGES = ("openai", "anthropic", "google-genai", "cohere", "boto3", "httpx", "httpx2", "pydantic", "jiter")
MARKDOWN = True

TOOL_NAME = sdk.TOOL_NAME
TITLES = {"write-20": "write-file, 20 KB", "write-100": "write-file, 100 KB"}
E2E_APIS = ("chat", "responses", "anthropic", "gemini", "cohere")
HELPER_TARGETS = {"chat": 10.0, "anthropic": 3.0}  # helper / raw, at least
FLOOR_TARGET_NS = 1000.0
ACCUMULATORS: dict[str, Any] = {
    "chat": OpenAIChatToolCalls,
    "responses": OpenAIResponsesToolCalls,
    "anthropic": AnthropicToolCalls,
    "gemini": GeminiToolCalls,
    "cohere": CohereToolCalls,
    "bedrock": BedrockToolCalls,
}


# --- Events of the three other APIs (the sdk suite builds Chat's, Responses' and Anthropic's) ----------------------


def gemini_events(pieces: list[str]) -> list[dict[str, Any]]:
    """A write-file call as Gemini streams it with ``stream_function_call_arguments``: a part that names the call, the
    path, the content a fragment a piece (``willContinue``), the flag, and the end."""
    value = json.loads("".join(pieces))

    def chunk(function_call: dict[str, Any], finish_reason: Optional[str] = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"functionCall": function_call}], "role": "model"}}
        candidate["index"] = 0
        if finish_reason is not None:
            candidate["finishReason"] = finish_reason
        return {"candidates": [candidate], "modelVersion": "gemini-3-pro", "responseId": "resp_bench"}

    # The content, decoded, in pieces as long as the call's own pieces: a fragment a token.
    text = value["content"]
    content_pieces, position = [], 0
    for piece in pieces:
        if position >= len(text):
            break
        content_pieces.append(text[position : position + len(piece)])
        position += len(piece)
    if position < len(text):
        content_pieces.append(text[position:])
    events = [chunk({"id": "fc_bench", "name": TOOL_NAME, "willContinue": True})]
    events.append(chunk({"partialArgs": [{"jsonPath": "$.path", "stringValue": value["path"]}], "willContinue": True}))
    for number, piece in enumerate(content_pieces):
        fragment: dict[str, Any] = {"jsonPath": "$.content", "stringValue": piece}
        if number < len(content_pieces) - 1:
            fragment["willContinue"] = True
        events.append(chunk({"partialArgs": [fragment], "willContinue": True}))
    events.append(
        chunk({"partialArgs": [{"jsonPath": "$.overwrite", "boolValue": value["overwrite"]}], "willContinue": True})
    )
    events.append(chunk({}, "STOP"))
    return events


def cohere_events(pieces: list[str]) -> list[dict[str, Any]]:
    tool_call = {"id": "call_bench", "type": "function", "function": {"name": TOOL_NAME, "arguments": ""}}
    events: list[dict[str, Any]] = [
        {"type": "message-start", "id": "msg_bench", "delta": {"message": {"role": "assistant"}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": tool_call}}},
    ]
    for piece in pieces:
        delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
        events.append({"type": "tool-call-delta", "index": 0, "delta": delta})
    events.append({"type": "tool-call-end", "index": 0})
    usage = {"billed_units": {"input_tokens": 1000, "output_tokens": len(pieces)}}
    events.append({"type": "message-end", "id": "msg_bench", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}})
    return events


def bedrock_events(pieces: list[str]) -> list[dict[str, Any]]:
    start = {"start": {"toolUse": {"toolUseId": "tooluse_bench", "name": TOOL_NAME}}, "contentBlockIndex": 0}
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}, {"contentBlockStart": start}]
    for piece in pieces:
        events.append({"contentBlockDelta": {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": 0}})
    events += [{"contentBlockStop": {"contentBlockIndex": 0}}, {"messageStop": {"stopReason": "tool_use"}}]
    return events


def responses_events(pieces: list[str]) -> list[dict[str, Any]]:
    """The sdk suite's Responses events, between the response's ``created`` and ``completed`` (the SDK's stream
    manager wants both)."""
    response = {"id": "resp_bench", "object": "response", "created_at": 1718000000, "model": "gpt-5", "output": [],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip
    events = sdk.responses_events(pieces)
    created = {"type": "response.created", "response": {**response, "status": "in_progress"}, "sequence_number": 0}
    done_item = events[-1]["item"]
    completed = {"type": "response.completed", "response": {**response, "status": "completed", "output": [done_item]}}
    return [created, *events, {**completed, "sequence_number": len(events) + 1}]


def api_events(api: str, pieces: list[str]) -> list[dict[str, Any]]:
    builders: dict[str, Callable[[list[str]], list[dict[str, Any]]]] = {
        "chat": sdk.chat_events,
        "responses": responses_events,
        "anthropic": sdk.anthropic_events,
        "gemini": gemini_events,
        "cohere": cohere_events,
        "bedrock": bedrock_events,
    }
    return builders[api](pieces)


def sse_bytes(api: str, events: list[dict[str, Any]]) -> bytes:
    """The events as their API's server sends them: ``event:`` lines where it names them, Chat's ``[DONE]``."""
    named = api in ("responses", "anthropic", "cohere")
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if api == "chat":
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


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


# --- Over the floor: prebuilt events -------------------------------------------------------------------------------

GEMINI_DICT_READ = (
    '(event["candidates"][0]["content"]["parts"][0]["functionCall"]["partialArgs"][0].get("stringValue"), piece)[1]'
)
FLOOR_READS = {
    **sdk.FLOOR_READS,
    # Gemini: the field read, and the text our adapter writes for the event appended (the same text, so the same
    # parser work: pieces_of).
    ("gemini", "sdk"): "(event.candidates[0].content.parts[0].function_call.partial_args[0].string_value, piece)[1]",
    ("gemini", "dicts"): GEMINI_DICT_READ,
    ("cohere", "sdk"): "event.delta.message.tool_calls.function.arguments",
    ("cohere", "dicts"): 'event["delta"]["message"]["tool_calls"]["function"]["arguments"]',
    ("bedrock", "dicts"): 'event["contentBlockDelta"]["delta"]["toolUse"]["input"]',
}
FLOOR_APIS = {"chat": ("sdk", "dicts"), "responses": ("sdk", "dicts"), "anthropic": ("sdk", "dicts"),
              "gemini": ("sdk", "dicts"), "cohere": ("sdk", "dicts"), "bedrock": ("dicts",)}  # fmt: skip


def sdk_objects(api: str, events: list[dict[str, Any]]) -> list[Any]:
    """The events as the SDK's client builds them: ``construct_type`` (openai, anthropic, cohere: no validation),
    ``GenerateContentResponse`` validated (google-genai)."""
    if api in ("chat", "responses", "anthropic"):
        build = sdk.builders()["sdk"][api]
        return [build(json.dumps(event)) for event in events]
    if api == "gemini":
        from google.genai import types

        return [types.GenerateContentResponse._from_response(response=event, kwargs={}) for event in events]
    from cohere.core.unchecked_base_model import construct_type
    from cohere.v2.types import V2ChatStreamResponse

    return [construct_type(type_=V2ChatStreamResponse, object_=event) for event in events]


def pieces_of(api: str, events: list[dict[str, Any]]) -> list[Optional[str]]:
    """The piece of argument text each event carries (None: none); for Gemini, the text our adapter writes for it
    (the fragments' JSON text), read off the adapter itself on the dicts."""
    if api == "gemini":
        calls, pieces, length = GeminiToolCalls(), [], 0
        for event in events:
            calls.feed(event)
            text = calls.calls[0].text if calls.calls else ""
            function_call = event["candidates"][0]["content"]["parts"][0]["functionCall"]
            if "partialArgs" in function_call or not text[length:]:
                pieces.append(text[length:] or None)
            else:  # the end's closing brace, on an event with no fragment to read: with the last fragment's text
                last = max(i for i, piece in enumerate(pieces) if piece is not None)
                pieces[last] = f"{pieces[last]}{text[length:]}"
                pieces.append(None)
            length = len(text)
        return pieces
    found = []
    for event in events:
        try:
            found.append(eval(FLOOR_READS[api, "dicts"], {}, {"event": event}))
        except (LookupError, TypeError):
            found.append(None)
    return found


# The floor's loop, compiled with the read inline (as in the adapters, not a call), timed whole: the events are built
# up front, so nothing runs between two reads, and CPU time of the loop leaves out another process's turns.
FLOOR_LOOP = """
def run(events):
    arguments = ToolCallArgumentsStream()
    append = arguments.append
    start = process_time()
    for event, piece in events:
        if piece is not None:
            append({read})
    result = arguments.finish()
    return process_time() - start, result.arguments
"""


def floor_reader(api: str, shape: str) -> Callable[[list[tuple[Any, Optional[str]]]], tuple[float, Any]]:
    namespace: dict[str, Any] = {"ToolCallArgumentsStream": ToolCallArgumentsStream, "process_time": process_time}
    exec(FLOOR_LOOP.format(read=FLOOR_READS[api, shape]), namespace)
    return namespace["run"]  # type: ignore[no-any-return]


def ours_reader(api: str) -> Callable[[list[tuple[Any, Optional[str]]]], tuple[float, Any]]:
    def run(events: list[tuple[Any, Optional[str]]]) -> tuple[float, Any]:
        calls = ACCUMULATORS[api]()
        feed = calls.feed
        start = process_time()
        for event, _ in events:
            feed(event)
        calls.finish()
        elapsed = process_time() - start
        (call,) = calls.calls
        return elapsed, call.arguments

    return run


def floor_contenders() -> list[Contender]:
    found = []
    for api, shapes in FLOOR_APIS.items():
        for shape in shapes:
            for kind, reader in (("ours", ours_reader(api)), ("floor", floor_reader(api, shape))):

                def run(case: Any, deadline: float, reader: Any = reader, api: str = api, shape: str = shape) -> Any:
                    return harness.Timed(*reader(case[api, shape]))

                tags = {"api": api, "shape": shape}
                found.append(
                    Contender(f"{kind}-{api}-{shape}", run, ours=True, capped=False, budgeted=False, tags=tags)
                )
    return found


def prebuilt(call: workloads.Call) -> dict[tuple[str, str], Any]:
    case = {}
    for api, shapes in FLOOR_APIS.items():
        events = api_events(api, call.pieces)
        pieces = pieces_of(api, events)
        for shape in shapes:
            objects = events if shape == "dicts" else sdk_objects(api, events)
            case[api, shape] = list(zip(objects, pieces))
    return case


# --- Report ---------------------------------------------------------------------------------------------------------


def us_per(result: Result, events: int) -> str:
    return "-" if result.median is None else f"{result.median / events * 1e6:,.2f}"


def report(session: harness.Session, e2e: list[tuple[str, dict[str, Stream], dict[str, Result]]],
           floors: list[tuple[str, Any, dict[str, Result]]], judge: bool) -> str:  # fmt: skip
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

    out.append(
        "\nOur adapters' cost per event over the floor of reading the event (issue 13's figure): (ours - floor) /"
        " events, ns, on SDK objects / on dicts, events built up front (target: at most 1,000 ns)"
    )
    rows = []
    for key, case, results in floors:
        row = [TITLES[key]]
        for api, shapes in FLOOR_APIS.items():
            cells = []
            for shape in ("sdk", "dicts"):
                if shape not in shapes:
                    cells.append("-")
                    continue
                ours, floor = results[f"ours-{api}-{shape}"].median, results[f"floor-{api}-{shape}"].median
                if ours is None or floor is None:
                    cells.append(results[f"ours-{api}-{shape}"].status or results[f"floor-{api}-{shape}"].status or "-")
                    continue
                over = (ours - floor) / len(case[api, shape]) * 1e9
                verdict = targets.judge(over, "<=", FLOOR_TARGET_NS) if judge else ""
                cells.append(f"{over:,.0f}" + (" MISS" if "MISS" in verdict else ""))
            row.append(" / ".join(cells))
        rows.append(row)
    out.append(session.table(["call", *FLOOR_APIS], rows))
    for _, _, results in [*e2e, *floors]:
        for name, result in results.items():
            if result.detail:
                out.append(f"{name}: {result.detail}")
    out.append("\n" + (targets.summary() if judge else "Targets not judged: they apply to the full sizes"))
    return "\n".join(out)


# --- Suite ----------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", default="e2e,floor", help="the tables to measure: e2e, floor or both (default)")
    parser.add_argument("--rounds", type=int, help="rounds of every contender (default 3, quick 1)")
    parser.add_argument("--floor-rounds", type=int, help="rounds of the over-the-floor table (default 9, quick 3)")


def run(session: harness.Session) -> int:
    args = session.args
    rounds = args.rounds or (1 if args.quick else 3)
    floor_rounds = args.floor_rounds or (3 if args.quick else 9)
    scale = 0.125 if args.quick else 1.0
    print(harness.environment_line(session.env), flush=True)
    e2e_found = e2e_contenders()
    floor_found = floor_contenders()
    e2e, floors = [], []
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
        tables = args.tables.split(",")
        if "e2e" in tables:
            session.progress(f"end to end, {TITLES[key]} ({len(call.pieces):,} pieces) ...")
            found = harness.measure(e2e_found, streams, rounds=rounds, expected=expected, clock=process_time)
            e2e.append((key, streams, found))
        if "floor" in tables:
            session.progress(f"over the floor, {TITLES[key]} ...")
            case = prebuilt(call)
            found = harness.measure(floor_found, case, rounds=floor_rounds, expected=expected, check_every_run=True)
            floors.append((key, case, found))
    print(report(session, e2e, floors, judge=not args.quick))
    session.raw.update(
        {
            "rounds": {"e2e": rounds, "floor": floor_rounds},
            "scale": scale,
            "e2e": {
                key: {
                    "events": {api: served.events for api, served in streams.items()},
                    "results": {name: result.to_json() for name, result in results.items()},
                }
                for key, streams, results in e2e
            },
            "floor": {key: {name: result.to_json() for name, result in results.items()} for key, _, results in floors},
        }
    )
    return 1 if harness.failed([r for _, _, r in e2e] + [r for _, _, r in floors], e2e_found + floor_found) else 0
