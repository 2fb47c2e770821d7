"""The SDKs' own stream helpers against streaming_json's adapters, on the SDKs' own event objects.

What is measured. Each tool call of a workload (``bench/workloads.py``) is streamed as each API's events
(``bench/events.py``: Anthropic, OpenAI Chat and Responses, Gemini, Cohere, Bedrock, Ollama), one event per token
piece (Ollama sends a call whole: its text chunks, a token each, then the call), and every contender reads every event
of its API and makes the partial arguments available after each:

- ``anthropic-helper``: ``anthropic.lib.streaming._messages.accumulate_event``, the function behind
  ``client.messages.stream()``, which re-parses the whole argument buffer with jiter on every ``input_json_delta``;
- ``openai-helper``: ``ChatCompletionStreamState.handle_chunk``, behind ``client.chat.completions.stream()``, given the
  tool as a strict function tool, so that it re-parses ``parsed_arguments`` with jiter on every chunk;
- ours: each API's adapter (``AnthropicToolCalls``, ``OpenAIChatToolCalls``, ``OpenAIResponsesToolCalls``,
  ``GeminiToolCalls``, ``CohereToolCalls``, ``BedrockToolCalls``, ``OllamaToolCalls``; ``feed(event)``), on the SDK's
  objects (``sdk``; Bedrock's are boto3's dicts) and on the same events as plain dicts (``dicts``);
- ``parser-<api>-<shape>``: a ``ToolCallArgumentsStream`` fed the pieces of the same events, after the same events
  were built; ``parser``: fed the pieces back to back. Our adapter's overhead per event is (adapter time - time of its
  parser baseline) / events;
- ``floor-<api>-<shape>``: the parser fed each piece read straight out of its event along the path known in advance,
  with no check: what reading these events costs any reader (an SDK chunk is a chain of objects to walk). Our
  adapter's cost per event is (adapter time - floor time) / events: the target, at most 1 us, on every API and shape,
  judged on the full sizes. For Gemini and Ollama the floor reads the field and appends the text our adapter writes
  for the event (``pieces_of``), and Ollama's floor looks into every chunk for calls;
- ``build-<api>-<shape>``: building the events themselves, as below: what the client spends on each event before any
  reader sees it (timed in every round of prebuilt events, in the helpers' rounds of fresh ones).

How. Events are built from the data of their server-sent events as the SDK's client builds them (``json.loads``, then
for SDK objects ``bench/events.py``'s ``sdk_builder``: ``construct_type`` for openai, anthropic and cohere, with no
validation, as their ``Stream`` does; google-genai's validated model; ollama's ``ChatResponse``), untimed, in one of two
ways (``--events``):

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

from bench import events as event_streams
from bench import harness, workloads
from bench.harness import Contender, Result
from streaming_json import ToolCallArgumentsStream
from streaming_json.integrations import (
    AnthropicToolCalls,
    BedrockToolCalls,
    CohereToolCalls,
    GeminiToolCalls,
    OllamaToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)

PACKAGES = ("anthropic", "openai", "google-genai", "cohere", "ollama", "pydantic", "jiter")
MARKDOWN = True

TOOL_NAME = event_streams.TOOL_NAME
Events = Iterable[tuple[Any, Optional[str]]]  # each event read, with the piece it carries (None: no piece)
Reader = Callable[["Streams", Events], tuple[float, Any]]  # -> (seconds spent reading, the final arguments)
# The tool as the OpenAI helper is given it: strict, so that it parses the arguments on every chunk.
STRICT_TOOL = {
    "type": "function",
    "function": {"name": TOOL_NAME, "strict": True, "parameters": {"type": "object", "properties": {}}},
}


# --- Events (bench/events.py builds every API's) ---------------------------------------------------------------


def pieces_of(api: str, events: list[dict[str, Any]]) -> list[Optional[str]]:
    """The piece of argument text each event carries (None: none), as the parser baselines and the floors append it.
    For Gemini and Ollama, whose events carry no argument text (Gemini's fragments are decoded values, Ollama's
    arguments an object), the text our adapter writes for the event, read off the adapter itself on the dicts, so that
    the parser does the same work in every contender."""
    if api in ("gemini", "ollama"):
        calls, pieces, length = ACCUMULATORS[api](), [], 0
        for event in events:
            calls.feed(event)
            text = calls.calls[0].text if calls.calls else ""
            if api == "ollama" or "partialArgs" in event["candidates"][0]["content"]["parts"][0]["functionCall"]:
                pieces.append(text[length:] or None)
            elif text[length:]:  # Gemini's closing brace, on the end, which has no fragment: with the last fragment
                last = max(i for i, piece in enumerate(pieces) if piece is not None)
                pieces[last] = f"{pieces[last]}{text[length:]}"
                pieces.append(None)
            else:
                pieces.append(None)
            length = len(text)
        return pieces
    found = []
    for event in events:
        try:
            found.append(eval(FLOOR_READS[api, "dicts"], {}, {"event": event, "piece": None}))
        except (LookupError, TypeError):
            found.append(None)
    return found


@dataclass
class Streams:
    """One workload's call, as each API's events (the data of their server-sent events), and the pieces."""

    text: str
    pieces: list[str]
    events: dict[str, list[str]]
    event_pieces: dict[str, list[Optional[str]]]  # per API, the piece each event carries (None: no piece)


def streams(workload: workloads.Workload) -> Streams:
    (call,) = workload.calls
    data, event_pieces = {}, {}
    for api in event_streams.APIS:
        api_events = event_streams.api_events(api, call.pieces)
        data[api] = [json.dumps(event, ensure_ascii=False) for event in api_events]
        event_pieces[api] = pieces_of(api, api_events)
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
    # Gemini and Ollama: the field read, and the text our adapter writes for the event appended (the same text, so
    # the same parser work: pieces_of).
    ("gemini", "sdk"): "(event.candidates[0].content.parts[0].function_call.partial_args[0].string_value, piece)[1]",
    ("gemini", "dicts"): '(event["candidates"][0]["content"]["parts"][0]["functionCall"]["partialArgs"][0]'
    '.get("stringValue"), piece)[1]',
    ("cohere", "sdk"): "event.delta.message.tool_calls.function.arguments",
    ("cohere", "dicts"): 'event["delta"]["message"]["tool_calls"]["function"]["arguments"]',
    ("bedrock", "dicts"): 'event["contentBlockDelta"]["delta"]["toolUse"]["input"]',
    ("ollama", "sdk"): "(event.message.tool_calls[0].function.arguments, piece)[1]",
    ("ollama", "dicts"): '(event["message"]["tool_calls"][0]["function"]["arguments"], piece)[1]',
}
# Whether an event carries a piece, as the floor tells it: the piece's presence, known in advance, except for Ollama,
# whose every chunk any reader must look into (its text chunks, one a token, carry no call).
FLOOR_CARRIES = {
    ("ollama", "sdk"): "event.message.tool_calls is not None",
    ("ollama", "dicts"): 'event["message"].get("tool_calls") is not None',
}
FLOOR_SOURCE = """
def run(stream, events):
    arguments = ToolCallArgumentsStream()
    append = arguments.append
    elapsed = 0.0
    for event, piece in events:
        start = perf_counter()
        if {carries}:
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
    carries = FLOOR_CARRIES.get((api, shape), "piece is not None")
    exec(FLOOR_SOURCE.format(read=read or FLOOR_READS[api, shape], carries=carries), namespace)
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

ACCUMULATORS: dict[str, Any] = {
    "anthropic": AnthropicToolCalls,
    "chat": OpenAIChatToolCalls,
    "responses": OpenAIResponsesToolCalls,
    "gemini": GeminiToolCalls,
    "cohere": CohereToolCalls,
    "bedrock": BedrockToolCalls,
    "ollama": OllamaToolCalls,
}
SHAPES = ("sdk", "dicts")
# Every API's events in each shape they come in (Bedrock's: boto3's dicts alone).
READINGS = [(api, shape) for api in ACCUMULATORS for shape in event_streams.SHAPES[api]]


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
    for api, shape in READINGS:
        found.append(reading(f"{api}-{shape}", run_ours(ACCUMULATORS[api], api), api, shape))
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
    building = {f"build-{api}-{shape}": Result() for api, shape in READINGS}

    def round_case(round_number: int) -> Round:
        gc.unfreeze()  # the last round's events: freed once nothing holds them
        built: dict[tuple[str, str], list[tuple[Any, Optional[str]]]] = {}
        if prebuilt or round_number < repeats:
            for api, shape in READINGS:
                gc.collect()
                start = perf_counter()
                events_built = list(fresh_events(stream, api, build[shape][api]))
                building[f"build-{api}-{shape}"].times.append(perf_counter() - start)
                if prebuilt:
                    built[shape, api] = events_built
                del events_built
        # The round's events live all round: out of the collector's reach (gc.freeze), the collection before each
        # contender does not walk them (millions of objects at 100 KB: seconds a collection), nor does one that the
        # readers' allocations set off while timed.
        gc.freeze()
        return Round(stream, build, built if prebuilt else None)

    try:
        results = harness.measure(
            contenders,
            rounds=max(repeats, fast_repeats),
            cap=cap,
            expected=json.loads(stream.text),
            check_every_run=True,  # a helper could change the objects it shares with the others
            round_case=round_case,
        )
    finally:
        gc.unfreeze()
    return {**results, **building}


# --- Report ---------------------------------------------------------------------------------------------------------

TITLES = {"write-20": "write-file, 20 KB", "write-100": "write-file, 100 KB", "edit-100": "edit, 100 KB"}
# The targets: on the 100 KB write-file call, at least 25x faster than the Anthropic helper, 100x than the OpenAI one;
# on every call, at most 1 us per event over the floor (OVER_FLOOR_TARGET_NS).
HELPER_TARGETS = (("anthropic-helper", "anthropic-sdk", 25.0), ("openai-helper", "chat-sdk", 100.0))
TARGET_CALL = "write-100"
OVER_FLOOR_TARGET_NS = 1000.0  # our adapters' cost per event over the floor of reading the event


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
        "\nOur adapters' cost per event over the floor of reading the event: (adapter time - floor time) / events, ns,"
        " on SDK objects / on dicts (target: at most 1,000 ns); the floor is the parser fed each event's piece read"
        " straight along its known path, with no check (Bedrock's events are boto3's dicts)"
    )
    rows = []
    for key, stream, results in done:
        row = [TITLES[key]]
        for api in ACCUMULATORS:
            cells = []
            for shape in SHAPES:
                if shape not in event_streams.SHAPES[api]:
                    cells.append("-")
                    continue
                ours, floor = results[f"{api}-{shape}"], results[f"floor-{api}-{shape}"]
                if ours.median is None or floor.median is None:
                    cells.append(ours.status or floor.status or "-")
                    continue
                over = (ours.median - floor.median) / len(stream.events[api]) * 1e9
                verdict = targets.judge(over, "<=", OVER_FLOOR_TARGET_NS) if judge else ""
                cells.append(f"{over:,.0f}" + (" MISS" if "MISS" in verdict else ""))
            row.append(" / ".join(cells))
        rows.append(row)
    out.append(session.table(["call", *[event_streams.TITLES[api] for api in ACCUMULATORS]], rows))

    out.append(
        "\nThe same on top of the parser: (adapter time - parser time on the same events' pieces) / events, ns, SDK"
        " objects / dicts; in brackets, the share of it that reading the piece straight out of the event costs any"
        " reader (floor - parser). Parser alone: the pieces back to back"
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
                if shape not in event_streams.SHAPES[api]:
                    cells.append("-")
                    continue
                ours, baseline = results[f"{api}-{shape}"], results[f"parser-{api}-{shape}"].median
                floor = results[f"floor-{api}-{shape}"].median
                if ours.median is None or baseline is None:
                    cells.append(ours.status or "-")
                    continue
                overhead = (ours.median - baseline) / len(stream.events[api]) * 1e9
                reading = "" if floor is None else f" ({ns_per(floor - baseline, len(stream.events[api]))})"
                cells.append(f"{overhead:,.0f}{reading}")
            row.append(" / ".join(cells))
        rows.append(row)
    headers = ["call", "parser alone", "per piece", *[event_streams.TITLES[api] for api in ACCUMULATORS]]
    out.append(session.table(headers, rows))

    out.append(
        "\nWhat the client spends building each event before any reader sees it, ns: the event's data through"
        " json.loads, then the SDK's own way (construct_type, google-genai's validated model, ollama's ChatResponse)"
        " / json.loads alone (dicts)"
    )
    rows = []
    for key, stream, results in done:
        row = [TITLES[key]]
        for api in ACCUMULATORS:
            row.append(
                " / ".join(
                    ns_per(results[f"build-{api}-{shape}"].median, len(stream.events[api]))
                    if (api, shape) in READINGS
                    else "-"
                    for shape in SHAPES
                )
            )
        rows.append(row)
    out.append(session.table(["call", *[event_streams.TITLES[api] for api in ACCUMULATORS]], rows))

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
    parser.add_argument("--calls", help=f"the calls to run, comma-separated (default all: {','.join(TITLES)})")
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
        build = event_streams.builders()
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
    for key in args.calls.split(",") if args.calls else TITLES:
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
