"""The SDKs' own stream helpers against streaming_json's adapters, on the SDKs' own event objects.

What is measured. Each tool call of a workload (``bench/workloads.py``) is streamed as one API's events, one event per
token piece, and every contender reads every event and makes the partial arguments available after each:

- ``anthropic-helper``: ``anthropic.lib.streaming._messages.accumulate_event``, the function behind
  ``client.messages.stream()``, which re-parses the whole argument buffer with jiter on every ``input_json_delta``;
- ``openai-helper``: ``ChatCompletionStreamState.handle_chunk``, behind ``client.chat.completions.stream()``, given the
  tool as a strict function tool, so that it re-parses ``parsed_arguments`` with jiter on every chunk;
- ours: ``AnthropicToolCalls``, ``OpenAIChatToolCalls`` and ``OpenAIResponsesToolCalls`` (``feed(event)``), on the
  SDK's objects (``sdk``) and on the same events as plain dicts (``dicts``);
- ``parser-<api>-<shape>``: a ``ToolCallArgumentsStream`` fed the pieces of the same events, after the same events
  were built; ``parser``: fed the pieces back to back. Our adapter's overhead per event is (adapter time - time of its
  parser baseline) / events;
- ``floor-<api>-<shape>``: the parser fed each piece read straight out of its event along the path known in advance,
  with no check: what reading these events costs any reader (an SDK chunk is a chain of objects to walk);
- ``build-<api>-<shape>``: building the events themselves, as below: what the client spends on each event before any
  reader sees it (timed in every round of prebuilt events, in the helpers' rounds of fresh ones).

How. Events are built from the data of their server-sent events (``json.loads``, then for SDK objects the SDK's
``construct_type``, as its ``Stream`` does; no validation), untimed, in one of two ways (``--events``):

- ``prebuilt`` (the default): each round builds every API's events once per shape, up front, and every contender
  reads the same objects, as the issue that set the targets measured them;
- ``fresh``: each event is built just before it is read, as a client reads a stream, so the reading code runs after
  the SDK's own code, with what that leaves in the caches. Every contender, the parser included, costs more per
  event this way (the parser's time per piece triples or more).

Each read is timed alone (two timer calls an event, paid alike by every contender, the parser baselines included):
the readers return ``harness.Timed``. The harness runs the rounds, every contender once per round in rotating order,
after ``gc.collect()``: the SDK helpers in the first 3 rounds (not repeated once their runs add up to more than the
cap, 30 s), ours and the parsers in all 9; medians of wall time (``perf_counter``). After every run a contender's
final arguments are compared with ``json.loads`` of the text (MISMATCH otherwise), since contenders read the same
objects. The exit status is 1 when one of ours gives a wrong value. Run it where the SDKs' newest releases are (the
test extra: ``make bench`` runs it in ``.venv``).

    python -m bench sdk [--quick] [--events prebuilt|fresh] [--repeats N] [--fast-repeats N] [--cap S] [--json out]
"""

from __future__ import annotations

import argparse
import gc
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable, Optional

from bench import harness, workloads
from bench.harness import Contender, Result
from streaming_json import ToolCallArgumentsStream
from streaming_json.integrations import (
    AnthropicToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)

PACKAGES = ("anthropic", "openai", "pydantic", "jiter")
MARKDOWN = True

TOOL_NAME = "write_file"
Events = Iterable[tuple[Any, Optional[str]]]  # each event read, with the piece it carries (None: no piece)
Reader = Callable[["Streams", Events], tuple[float, Any]]  # -> (seconds spent reading, the final arguments)
# The tool as the OpenAI helper is given it: strict, so that it parses the arguments on every chunk.
STRICT_TOOL = {
    "type": "function",
    "function": {"name": TOOL_NAME, "strict": True, "parameters": {"type": "object", "properties": {}}},
}


# --- Events ---------------------------------------------------------------------------------------------------------


def anthropic_events(pieces: list[str]) -> list[dict[str, Any]]:
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_bench", "name": TOOL_NAME, "input": {}}
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *[
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}
            for piece in pieces
        ],
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": len(pieces)}},
        {"type": "message_stop"},
    ]  # fmt: skip


def chat_events(pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish_reason: Optional[str] = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1718000000,
            "model": "gpt-4.1-2025-04-14",
            "system_fingerprint": "fp_bench",
            "choices": [choice],
        }

    first = {"index": 0, "id": "call_bench", "type": "function", "function": {"name": TOOL_NAME, "arguments": ""}}
    return [
        chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
        *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces],
        chunk({}, "tool_calls"),
    ]


def responses_events(pieces: list[str]) -> list[dict[str, Any]]:
    text = "".join(pieces)
    item = {"type": "function_call", "id": "fc_bench", "call_id": "call_bench", "name": TOOL_NAME, "arguments": ""}
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress"}},
        *[
            {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_bench", "delta": piece}
            for piece in pieces
        ],
        {"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_bench", "arguments": text},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**item, "arguments": text, "status": "completed"}},
    ]  # fmt: skip
    return [{**event, "sequence_number": number} for number, event in enumerate(events, start=1)]


def builders() -> dict[str, dict[str, Callable[[str], Any]]]:
    """Per shape and API, how a client turns the data of a server-sent event into the event it reads: ``json.loads``
    for dicts; ``json.loads`` then the SDK's ``construct_type`` (no validation) for SDK objects, as the SDKs' ``Stream``
    does."""
    from anthropic._models import construct_type as anthropic_construct
    from anthropic.types import RawMessageStreamEvent
    from openai._models import construct_type as openai_construct
    from openai.types.chat import ChatCompletionChunk
    from openai.types.responses import ResponseStreamEvent

    loads = json.loads
    return {
        "dicts": {"anthropic": loads, "chat": loads, "responses": loads},
        "sdk": {
            "anthropic": lambda data: anthropic_construct(type_=RawMessageStreamEvent, value=loads(data)),
            "chat": lambda data: openai_construct(type_=ChatCompletionChunk, value=loads(data)),
            "responses": lambda data: openai_construct(type_=ResponseStreamEvent, value=loads(data)),
        },
    }


@dataclass
class Streams:
    """One workload's call, as each API's events (the data of their server-sent events), and the pieces."""

    text: str
    pieces: list[str]
    events: dict[str, list[str]]
    event_pieces: dict[str, list[Optional[str]]]  # per API, the piece each event carries (None: no piece)


def streams(workload: workloads.Workload) -> Streams:
    (call,) = workload.calls
    events = {
        "anthropic": anthropic_events(call.pieces),
        "chat": chat_events(call.pieces),
        "responses": responses_events(call.pieces),
    }
    # Every API's stream is: some events before the first piece, one event a piece, some events after the last.
    event_pieces = {}
    for api, api_events in events.items():
        before = {"anthropic": 2, "chat": 1, "responses": 1}[api]
        after = len(api_events) - before - len(call.pieces)
        event_pieces[api] = [None] * before + list(call.pieces) + [None] * after
    data = {api: [json.dumps(event, ensure_ascii=False) for event in api_events] for api, api_events in events.items()}
    return Streams(call.text, call.pieces, data, event_pieces)


def fresh_events(stream: Streams, api: str, build: Callable[[str], Any]) -> Iterator[tuple[Any, Optional[str]]]:
    """Each event of the API, built from its data just before it is read, as a client reads a stream, with the piece
    it carries."""
    for data, piece in zip(stream.events[api], stream.event_pieces[api]):
        yield build(data), piece


# --- Readers: each returns (seconds spent reading events, the final arguments) ------------------------------------
# Each event is timed alone (two timer calls, paid alike by every contender, the parser baselines included), so that
# building the next event, untimed, runs between two reads as it does in a client.


def run_parser(api: str) -> Reader:
    """The parser alone on the pieces, each appended after the API's event that carries it was built (untimed): the
    baseline of our adapter's overhead on the same events."""

    def run(stream: Streams, events: Events) -> tuple[float, Any]:
        arguments = ToolCallArgumentsStream()
        append = arguments.append
        elapsed = 0.0
        for _, piece in events:
            start = perf_counter()
            if piece is not None:
                append(piece)
            elapsed += perf_counter() - start
        start = perf_counter()
        result = arguments.finish()
        elapsed += perf_counter() - start
        return elapsed, result.arguments

    return run


def run_parser_alone(stream: Streams, events: Events) -> tuple[float, Any]:
    """The parser fed the pieces back to back: what reading them costs with nothing in between."""
    arguments = ToolCallArgumentsStream()
    append = arguments.append
    start = perf_counter()
    for piece in stream.pieces:
        append(piece)
    result = arguments.finish()
    return perf_counter() - start, result.arguments


# The least reading an event can cost: its piece read along the path known in advance, with no check at all. The
# loop is compiled from the path's expression so that the read is inline, as in the adapters, not a call.
FLOOR_READS = {
    ("anthropic", "sdk"): "event.delta.partial_json",
    ("anthropic", "dicts"): 'event["delta"]["partial_json"]',
    ("chat", "sdk"): "event.choices[0].delta.tool_calls[0].function.arguments",
    ("chat", "dicts"): 'event["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]',
    ("responses", "sdk"): "event.delta",
    ("responses", "dicts"): 'event["delta"]',
}
FLOOR_SOURCE = """
def run(stream, events):
    arguments = ToolCallArgumentsStream()
    append = arguments.append
    elapsed = 0.0
    for event, piece in events:
        start = perf_counter()
        if piece is not None:
            append({read})
        elapsed += perf_counter() - start
    start = perf_counter()
    result = arguments.finish()
    elapsed += perf_counter() - start
    return elapsed, result.arguments
"""


def run_floor(api: str, shape: str, read: Optional[str] = None, **names: Any) -> Reader:
    """The parser fed each piece read straight out of its event (``FLOOR_READS``): what any reader of these events
    pays. Our adapter's own logic is what it costs beyond this. ``read`` replaces the read expression (``names`` are
    the names it uses): ``python -m bench instructions --walks`` counts each way of reading an SDK model."""
    namespace: dict[str, Any] = {"ToolCallArgumentsStream": ToolCallArgumentsStream, "perf_counter": perf_counter}
    namespace.update(names)
    exec(FLOOR_SOURCE.format(api=api, read=read or FLOOR_READS[api, shape]), namespace)
    return namespace["run"]  # type: ignore[return-value]


def run_ours(accumulator_class: Any, api: str) -> Reader:
    def run(stream: Streams, events: Events) -> tuple[float, Any]:
        calls = accumulator_class()
        feed = calls.feed
        elapsed = 0.0
        for event, _ in events:
            start = perf_counter()
            feed(event)
            elapsed += perf_counter() - start
        start = perf_counter()
        calls.finish()
        elapsed += perf_counter() - start
        (call,) = calls.calls
        return elapsed, call.arguments

    return run


def run_anthropic_helper(stream: Streams, events: Events) -> tuple[float, Any]:
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot, json_bufs, elapsed = None, {}, 0.0
    for event, _ in events:
        start = perf_counter()
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
        elapsed += perf_counter() - start
    return elapsed, snapshot.content[0].input  # type: ignore[union-attr]


def run_openai_helper(stream: Streams, events: Events) -> tuple[float, Any]:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: Any = ChatCompletionStreamState(input_tools=[STRICT_TOOL])
    handle_chunk = state.handle_chunk
    elapsed = 0.0
    for chunk, _ in events:
        start = perf_counter()
        handle_chunk(chunk)
        elapsed += perf_counter() - start
    start = perf_counter()
    completion = state.get_final_completion()
    elapsed += perf_counter() - start
    return elapsed, completion.choices[0].message.tool_calls[0].function.parsed_arguments


# --- Contenders ----------------------------------------------------------------------------------------------------

ACCUMULATORS = {"anthropic": AnthropicToolCalls, "chat": OpenAIChatToolCalls, "responses": OpenAIResponsesToolCalls}
SHAPES = ("sdk", "dicts")


@dataclass
class Round:
    """What every contender reads in one round: the call, and its events built up front (``built``, by shape and
    API) or, where ``built`` is None, each built just before it is read."""

    stream: Streams
    build: dict[str, dict[str, Callable[[str], Any]]]
    built: Optional[dict[tuple[str, str], list[tuple[Any, Optional[str]]]]] = None

    def events(self, api: str, shape: str) -> Events:
        if self.built is not None:
            return self.built[shape, api]
        return fresh_events(self.stream, api, self.build[shape][api])


def reading(name: str, reader: Reader, api: str, shape: str, ours: bool = True) -> Contender:
    """A contender that reads the round's events of its API and shape with ``reader``, which times each read."""

    def run(case: Round, deadline: float) -> harness.Timed:
        return harness.Timed(*reader(case.stream, case.events(api, shape)))

    # The helpers: 3 rounds, not repeated past the cap; ours, the parsers and the floors: 9 rounds, all run.
    return Contender(name, run, ours=ours, capped=False, budgeted=not ours, tags={"api": api, "shape": shape})


def make_contenders(repeats: int, fast_repeats: int) -> list[Contender]:
    found = [
        reading("parser", run_parser_alone, "chat", "dicts"),
        reading("anthropic-helper", run_anthropic_helper, "anthropic", "sdk", ours=False),
        reading("openai-helper", run_openai_helper, "chat", "sdk", ours=False),
    ]
    for api, accumulator in ACCUMULATORS.items():
        for shape in SHAPES:
            found.append(reading(f"{api}-{shape}", run_ours(accumulator, api), api, shape))
            found.append(reading(f"parser-{api}-{shape}", run_parser(api), api, shape))
            found.append(reading(f"floor-{api}-{shape}", run_floor(api, shape), api, shape))
    for c in found:
        c.rounds = fast_repeats if c.ours else repeats
    return found


def measure(
    contenders: list[Contender],
    stream: Streams,
    repeats: int,
    fast_repeats: int,
    cap: float,
    build: Any,
    prebuilt: bool,
) -> dict[str, Result]:
    """The harness's rounds, with the events of each round built first: every round of prebuilt events, and the
    helpers' rounds of fresh ones, time what building them costs (``build-<api>-<shape>``)."""
    building = {f"build-{api}-{shape}": Result() for api in ACCUMULATORS for shape in SHAPES}

    def round_case(round_number: int) -> Round:
        built: dict[tuple[str, str], list[tuple[Any, Optional[str]]]] = {}
        if prebuilt or round_number < repeats:
            for api in ACCUMULATORS:
                for shape in SHAPES:
                    gc.collect()
                    start = perf_counter()
                    events_built = list(fresh_events(stream, api, build[shape][api]))
                    building[f"build-{api}-{shape}"].times.append(perf_counter() - start)
                    if prebuilt:
                        built[shape, api] = events_built
                    del events_built
        return Round(stream, build, built if prebuilt else None)

    results = harness.measure(
        contenders,
        rounds=max(repeats, fast_repeats),
        cap=cap,
        expected=json.loads(stream.text),
        check_every_run=True,  # a helper could change the objects it shares with the others
        round_case=round_case,
    )
    return {**results, **building}


# --- Report ---------------------------------------------------------------------------------------------------------

TITLES = {"write-20": "write-file, 20 KB", "write-100": "write-file, 100 KB", "edit-100": "edit, 100 KB"}
# The targets, on the 100 KB write-file call: at least 25x faster than the Anthropic helper, 100x than the OpenAI one.
HELPER_TARGETS = (("anthropic-helper", "anthropic-sdk", 25.0), ("openai-helper", "chat-sdk", 100.0))
TARGET_CALL = "write-100"
OVERHEAD_TARGET_NS = 1000.0  # our adapters' overhead per event over the parser


def ns_per(seconds: Optional[float], count: int) -> str:
    return "-" if seconds is None else f"{seconds / count * 1e9:,.0f}"


def report(
    session: harness.Session,
    done: list[tuple[str, Streams, dict[str, Result]]],
    contenders: list[Contender],
    judge: bool,
    prebuilt: bool,
) -> str:
    """The tables (``judge``: whether the targets apply, at the full sizes)."""
    out, targets = [], harness.Targets()
    how = "built up front, the same objects for every contender" if prebuilt else "each built just before it is read"
    out.append(f"\nTool-call arguments through each SDK's own helper and through ours, on SDK event objects ({how})")
    rows = []
    for key, stream, results in done:
        row = [TITLES[key], f"{len(stream.events['anthropic']):,}"]
        for helper, ours, least in HELPER_TARGETS:
            value, _ = harness.ratio(results[helper], results[ours])
            text = harness.format_ratio(value)
            if judge and key == TARGET_CALL:
                if value is None:  # no ratio: the helper or ours failed
                    targets.missed += 1
                    text += f" MISS (>={least:g})"
                else:
                    text += targets.judge(value, ">=", least)
            row += [results[helper].cell(), results[ours].cell(), text]
        rows.append(row)
    headers = ["call", "events", "Anthropic helper", "ours", "helper/ours", "OpenAI helper", "ours", "helper/ours"]
    out.append(session.table(headers, rows))

    out.append(
        "\nOur adapters' overhead per event on top of the parser: (adapter time - parser time on the same events'"
        " pieces) / events, ns, on SDK objects / on dicts (target: at most 1,000 ns); in brackets, the share of it"
        " that reading the piece straight out of the event costs any reader (floor - parser). Parser alone: the"
        " pieces back to back"
    )
    rows = []
    for key, stream, results in done:
        parser = results["parser"].median
        row = [
            TITLES[key],
            results["parser"].cell(),
            "-" if parser is None else f"{ns_per(parser, len(stream.pieces))} ns",
        ]
        for api in ACCUMULATORS:
            cells = []
            for shape in SHAPES:
                ours, baseline = results[f"{api}-{shape}"], results[f"parser-{api}-{shape}"].median
                floor = results[f"floor-{api}-{shape}"].median
                if ours.median is None or baseline is None:
                    cells.append(ours.status or "-")
                    continue
                overhead = (ours.median - baseline) / len(stream.events[api]) * 1e9
                verdict = targets.judge(overhead, "<=", OVERHEAD_TARGET_NS) if judge else ""
                reading = "" if floor is None else f" ({ns_per(floor - baseline, len(stream.events[api]))})"
                cells.append(f"{overhead:.0f}{reading}" + (" MISS" if "MISS" in verdict else ""))
            row.append(" / ".join(cells))
        rows.append(row)
    headers = ["call", "parser alone", "per piece", "Anthropic", "OpenAI Chat", "OpenAI Responses"]
    out.append(session.table(headers, rows))

    out.append(
        "\nWhat the client spends building each event before any reader sees it, ns: the event's data through"
        " json.loads, then the SDK's construct_type (as its Stream does) / json.loads alone (dicts)"
    )
    rows = []
    for key, stream, results in done:
        row = [TITLES[key]]
        for api in ACCUMULATORS:
            row.append(
                " / ".join(ns_per(results[f"build-{api}-{shape}"].median, len(stream.events[api])) for shape in SHAPES)
            )
        rows.append(row)
    out.append(session.table(["call", "Anthropic", "OpenAI Chat", "OpenAI Responses"], rows))

    out.append("\nAll times (median wall time)")
    rows = [[c.name, *[results[c.name].cell() for _, _, results in done]] for c in contenders]
    out.append(session.table(["contender", *[TITLES[key] for key, _, _ in done]], rows))
    for key, _, results in done:
        for name, result in results.items():
            if result.detail:
                out.append(f"{key} {name}: {result.detail}")
    out.append("\n" + (targets.summary() if judge else "Targets not judged: they apply to the full sizes"))
    return "\n".join(out)


# --- Suite ----------------------------------------------------------------------------------------------------------


def build_workload(key: str, scale: float) -> workloads.Workload:
    if key == "write-20":
        return workloads.write_file(1, scale)
    if key == "write-100":
        return workloads.write_file(5, scale)
    return workloads.edit_call(scale)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, help="rounds of each SDK helper per call (default 3, quick 1)")
    parser.add_argument("--fast-repeats", type=int, help="rounds of ours and the parsers per call (default 9, quick 3)")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds of a helper's runs before it is not repeated")
    parser.add_argument(
        "--events",
        choices=("prebuilt", "fresh"),
        default="prebuilt",
        help="prebuilt: every contender reads the same event objects, built up front (the default, as the issue"
        " measured); fresh: each event is built just before it is read, as a client reads a stream",
    )


def run(session: harness.Session) -> int:
    args = session.args
    repeats = args.repeats or (1 if args.quick else 3)
    fast_repeats = args.fast_repeats or (3 if args.quick else 9)
    scale = 0.125 if args.quick else 1.0
    prebuilt = args.events == "prebuilt"
    try:
        build = builders()
    except ImportError as error:
        print(f"the sdk suite needs the SDKs (pip install -e '.[test]'): {error}")
        return 2
    print(harness.environment_line(session.env), flush=True)
    print(
        f"{args.events} events; helpers {repeats} rounds, ours {fast_repeats}" + (", quick sizes" if args.quick else "")
    )
    contenders = make_contenders(repeats, fast_repeats)
    harness.warm_up(contenders, [Round(streams(workloads.write_file(1, 0.05)), build)])  # imports, first calls, caches
    done = []
    for key in TITLES:
        stream = streams(build_workload(key, scale))
        session.progress(f"running {TITLES[key]} ({len(stream.pieces):,} pieces) ...")
        done.append((key, stream, measure(contenders, stream, repeats, fast_repeats, args.cap, build, prebuilt)))
    print(report(session, done, contenders, judge=not args.quick, prebuilt=prebuilt))
    session.raw.update(
        {
            "events": args.events,
            "rounds": {"helpers": repeats, "ours": fast_repeats},
            "scale": scale,
            "calls": {
                key: {
                    "chars": len(stream.text),
                    "pieces": len(stream.pieces),
                    "events": {api: len(events) for api, events in stream.events.items()},
                    "results": {name: result.to_json() for name, result in results.items()},
                }
                for key, stream, results in done
            },
        }
    )
    return 1 if harness.failed([results for _, _, results in done], contenders) else 0
