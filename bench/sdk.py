"""The SDKs' own stream helpers against streaming_json's adapters, on the SDKs' own event objects.

What is measured. Each tool call of a workload (see ``workloads.py``) is streamed as one API's events, one event per
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

Each read is timed alone (two timer calls an event, paid alike by every contender, the parser baselines included).
Each round runs every contender once per workload, in rotating order, after ``gc.collect()``: the SDK helpers in the
first 3 rounds (not repeated once their runs add up to more than the cap, 30 s), ours and the parsers in all 9. The
tables show median wall times (``perf_counter``). After every run a contender's final arguments are compared with
``json.loads`` of the text (MISMATCH otherwise). The exit status is 1 when one of ours gives a wrong value.

    python bench/sdk.py [--quick] [--events prebuilt|fresh] [--repeats N] [--cap SECONDS] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from time import perf_counter
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's streaming_json, and workloads.py

import workloads  # noqa: E402

from streaming_json import BACKEND, ToolCallArgumentsStream  # noqa: E402
from streaming_json.integrations import (  # noqa: E402
    AnthropicToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)

TOOL_NAME = "write_file"
Events = Iterable[tuple[Any, Optional[str]]]  # each event read, with the piece it carries (None: no piece)
Runner = Callable[["Streams", Events], tuple[float, Any]]
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


# --- Contenders: each returns (seconds spent reading events, the final arguments) ---------------------------------
# Each event is timed alone (two timer calls, paid alike by every contender, the parser baselines included), so that
# building the next event, untimed, runs between two reads as it does in a client.


def run_parser(api: str) -> Runner:
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


def run_floor(api: str, shape: str, read: Optional[str] = None, **names: Any) -> Runner:
    """The parser fed each piece read straight out of its event (``FLOOR_READS``): what any reader of these events
    pays. Our adapter's own logic is what it costs beyond this. ``read`` replaces the read expression (``names`` are
    the names it uses): ``bench/instructions.py --walks`` counts each way of reading an SDK model."""
    namespace: dict[str, Any] = {"ToolCallArgumentsStream": ToolCallArgumentsStream, "perf_counter": perf_counter}
    namespace.update(names)
    exec(FLOOR_SOURCE.format(api=api, read=read or FLOOR_READS[api, shape]), namespace)
    return namespace["run"]  # type: ignore[return-value]


def run_ours(accumulator_class: Any, api: str) -> Runner:
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


@dataclass
class Contender:
    name: str
    run: Runner
    shape: str  # "sdk" or "dicts": how its events are built
    api: str
    ours: bool = True


ACCUMULATORS = {"anthropic": AnthropicToolCalls, "chat": OpenAIChatToolCalls, "responses": OpenAIResponsesToolCalls}
CONTENDERS = [
    Contender("parser", run_parser_alone, "dicts", "chat"),
    Contender("anthropic-helper", run_anthropic_helper, "sdk", "anthropic", ours=False),
    Contender("openai-helper", run_openai_helper, "sdk", "chat", ours=False),
    *[
        contender
        for api, accumulator in ACCUMULATORS.items()
        for shape in ("sdk", "dicts")
        for contender in (
            Contender(f"{api}-{shape}", run_ours(accumulator, api), shape, api),
            Contender(f"parser-{api}-{shape}", run_parser(api), shape, api),
            Contender(f"floor-{api}-{shape}", run_floor(api, shape), shape, api),
        )
    ],
]


# --- Measuring ------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    times: list[float] = field(default_factory=list)
    status: str = ""  # "", "MISMATCH", "ERROR"
    detail: str = ""

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.times) if self.times and not self.status else None


def measure(
    stream: Streams, repeats: int, fast_repeats: int, cap: float, build: dict[str, dict[str, Any]], prebuilt: bool
) -> dict[str, Result]:
    """Rounds of every contender in rotating order: ours and the parser in all ``fast_repeats`` rounds (their runs
    are short, so a preemption weighs on one of them), the helpers in the first ``repeats`` (and not past ``cap``).

    ``prebuilt``: each round builds every API's events once per shape, up front, and gives every contender the same
    objects; otherwise each contender reads events built one by one just before it reads them."""
    expected = json.loads(stream.text)
    results = {c.name: Result() for c in CONTENDERS}
    results.update({f"build-{api}-{shape}": Result() for api in ACCUMULATORS for shape in ("sdk", "dicts")})
    for round_number in range(max(repeats, fast_repeats)):
        shift = round_number % len(CONTENDERS)
        built: dict[tuple[str, str], list[tuple[Any, Optional[str]]]] = {}
        # Every round of prebuilt events, and the helpers' rounds of fresh ones: what building the events costs.
        if prebuilt or round_number < repeats:
            for api in ACCUMULATORS:
                for shape in ("sdk", "dicts"):
                    gc.collect()
                    start = perf_counter()
                    events_built = list(fresh_events(stream, api, build[shape][api]))
                    results[f"build-{api}-{shape}"].times.append(perf_counter() - start)
                    if prebuilt:
                        built[shape, api] = events_built
                    del events_built
        for contender in CONTENDERS[shift:] + CONTENDERS[:shift]:
            result = results[contender.name]
            if result.status:
                continue
            if contender.ours and round_number >= fast_repeats:
                continue
            if not contender.ours and (round_number >= repeats or sum(result.times) > cap):
                continue
            events: Events
            if prebuilt:
                events = built[contender.shape, contender.api]
            else:
                events = fresh_events(stream, contender.api, build[contender.shape][contender.api])
            gc.collect()
            try:
                elapsed, arguments = contender.run(stream, events)
            except Exception as error:  # a helper that raises is reported, not fatal
                result.status, result.detail = "ERROR", f"{type(error).__name__}: {error}"[:200]
                continue
            if arguments != expected:  # every run: a helper could change the objects it shares with the others
                result.status = "MISMATCH"
                continue
            result.times.append(elapsed)
    return results


# --- Report ---------------------------------------------------------------------------------------------------------


def seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.2f} s"


def cell(result: Result) -> str:
    return result.status or seconds(result.median)


def report(done: list[tuple[str, Streams, dict[str, Result]]], judge: bool, prebuilt: bool) -> tuple[str, int]:
    """The tables, and how many targets were missed (``judge``: whether the targets apply, at the full sizes)."""
    out, missed = [], 0
    how = "built up front, the same objects for every contender" if prebuilt else "each built just before it is read"
    out.append(f"\nTool-call arguments through each SDK's own helper and through ours, on SDK event objects ({how})")
    rows = []
    for key, stream, results in done:
        cells = []
        for helper, ours, bound in (("anthropic-helper", "anthropic-sdk", 25), ("openai-helper", "chat-sdk", 100)):
            value = ratio(results[helper], results[ours])
            text = "-" if value is None else f"{value:.0f}x"
            if judge and key == "write-100":  # the targets: at least 25x the Anthropic helper, 100x the OpenAI helper
                ok = value is not None and value >= bound
                missed += not ok
                text += f" {'ok' if ok else 'MISS'} (>={bound}x)"
            cells.append(text)
        anthropic_cell, openai_cell = cells
        rows.append(
            [
                TITLES[key],
                f"{len(stream.events['anthropic']):,}",
                cell(results["anthropic-helper"]),
                cell(results["anthropic-sdk"]),
                anthropic_cell,
                cell(results["openai-helper"]),
                cell(results["chat-sdk"]),
                openai_cell,
            ]
        )
    headers = ["call", "events", "Anthropic helper", "ours", "helper/ours", "OpenAI helper", "ours", "helper/ours"]
    out.append(table(headers, rows))

    out.append(
        "\nOur adapters' overhead per event on top of the parser: (adapter time - parser time on the same events'"
        " pieces) / events, ns, on SDK objects / on dicts (target: at most 1,000 ns); in brackets, the share of it"
        " that reading the piece straight out of the event costs any reader (floor - parser). Parser alone: the"
        " pieces back to back"
    )
    rows = []
    for key, stream, results in done:
        parser = results["parser"].median
        row = [TITLES[key], seconds(parser), f"{parser / len(stream.pieces) * 1e9:.0f} ns" if parser else "-"]
        for api in ACCUMULATORS:
            cells = []
            for shape in ("sdk", "dicts"):
                ours, baseline = results[f"{api}-{shape}"], results[f"parser-{api}-{shape}"].median
                floor = results[f"floor-{api}-{shape}"].median
                if ours.median is None or baseline is None:
                    cells.append(ours.status or "-")
                    continue
                overhead = (ours.median - baseline) / len(stream.events[api]) * 1e9
                ok = overhead <= 1000 or not judge
                missed += not ok
                reading = "" if floor is None else f" ({(floor - baseline) / len(stream.events[api]) * 1e9:.0f})"
                cells.append(f"{overhead:.0f}{reading}" + ("" if ok else " MISS"))
            row.append(" / ".join(cells))
        rows.append(row)
    headers = ["call", "parser alone", "per piece", "Anthropic", "OpenAI Chat", "OpenAI Responses"]
    out.append(table(headers, rows))

    out.append(
        "\nWhat the client spends building each event before any reader sees it, ns: the event's data through"
        " json.loads, then the SDK's construct_type (as its Stream does) / json.loads alone (dicts)"
    )
    rows = []
    for key, stream, results in done:
        row = [TITLES[key]]
        for api in ACCUMULATORS:
            cells = []
            for shape in ("sdk", "dicts"):
                built = results[f"build-{api}-{shape}"].median
                cells.append("-" if built is None else f"{built / len(stream.events[api]) * 1e9:,.0f}")
            row.append(" / ".join(cells))
        rows.append(row)
    out.append(table(["call", "Anthropic", "OpenAI Chat", "OpenAI Responses"], rows))

    out.append("\nAll times (median wall time)")
    rows = [[c.name, *[cell(results[c.name]) for _, _, results in done]] for c in CONTENDERS]
    out.append(table(["contender", *[TITLES[key] for key, _, _ in done]], rows))
    for key, _, results in done:
        for name, result in results.items():
            if result.detail:
                out.append(f"{key} {name}: {result.detail}")
    if judge:
        out.append(f"\nTargets: {'all met' if not missed else f'{missed} missed'}")
    else:
        out.append("\nTargets not judged: they apply to the full sizes")
    return "\n".join(out), missed


def ratio(slow: Result, fast: Result) -> Optional[float]:
    if slow.median is None or fast.median is None:
        return None
    return slow.median / fast.median


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- Main -----------------------------------------------------------------------------------------------------------

TITLES = {"write-20": "write-file, 20 KB", "write-100": "write-file, 100 KB", "edit-100": "edit, 100 KB"}


def build_workload(key: str, scale: float) -> workloads.Workload:
    if key == "write-20":
        return workloads.write_file(1, scale)
    if key == "write-100":
        return workloads.write_file(5, scale)
    return workloads.edit_call(scale)


def environment() -> dict[str, Any]:
    packages = {}
    for name in ("anthropic", "openai", "pydantic", "jiter"):
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {"python": sys.version.split()[0], "platform": platform.platform(), "backend": BACKEND, **packages}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="an eighth of the sizes, 1 repeat: a smoke test")
    parser.add_argument("--repeats", type=int, help="runs of each SDK helper per workload (default 3, quick 1)")
    parser.add_argument(
        "--fast-repeats", type=int, help="runs of ours and the parser per workload (default 9, quick 3)"
    )
    parser.add_argument("--cap", type=float, default=30.0, help="seconds of a helper's runs before it is not repeated")
    parser.add_argument(
        "--events",
        choices=("prebuilt", "fresh"),
        default="prebuilt",
        help="prebuilt: every contender reads the same event objects, built up front (the default, as the issue"
        " measured); fresh: each event is built just before it is read, as a client reads a stream",
    )
    parser.add_argument("--json", type=Path, help="write the raw results to this file")
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    fast_repeats = args.fast_repeats or (3 if args.quick else 9)
    scale = 0.125 if args.quick else 1.0
    try:
        build = builders()
    except ImportError as error:
        print(f"bench/sdk.py needs the SDKs (pip install -e '.[bench]'): {error}", file=sys.stderr)
        return 2
    env = environment()
    print(
        f"Python {env['python']} on {env['platform']}, backend {env['backend']}; anthropic {env['anthropic']}, "
        f"openai {env['openai']}, jiter {env['jiter']}; {args.events} events; helpers {repeats} runs, ours"
        f" {fast_repeats}" + (", quick sizes" if args.quick else ""),
        flush=True,
    )
    warm_up = streams(workloads.write_file(1, 0.05))
    for contender in CONTENDERS:  # imports, first calls and caches, untimed
        contender.run(warm_up, fresh_events(warm_up, contender.api, build[contender.shape][contender.api]))
    done = []
    for key in TITLES:
        stream = streams(build_workload(key, scale))
        print(f"  running {TITLES[key]} ({len(stream.pieces):,} pieces) ...", file=sys.stderr, flush=True)
        done.append((key, stream, measure(stream, repeats, fast_repeats, args.cap, build, args.events == "prebuilt")))
    text, _ = report(done, judge=not args.quick, prebuilt=args.events == "prebuilt")
    print(text)
    if args.json:
        raw = {
            "environment": env,
            "events": args.events,
            "repeats": repeats,
            "fast_repeats": fast_repeats,
            "scale": scale,
            "calls": {
                key: {
                    "chars": len(stream.text),
                    "pieces": len(stream.pieces),
                    "events": {api: len(events) for api, events in stream.events.items()},
                    "results": {
                        n: {"times": r.times, "status": r.status, "detail": r.detail} for n, r in results.items()
                    },
                }
                for key, stream, results in done
            },
        }
        args.json.write_text(json.dumps(raw, indent=2))
    ours_failed = any(results[c.name].status for _, _, results in done for c in CONTENDERS if c.ours)
    return 1 if ours_failed else 0


if __name__ == "__main__":
    sys.exit(main())
