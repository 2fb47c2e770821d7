"""The serving loop (issue 30): our vLLM parsers and SGLang detectors as the servers call them, against the servers'
own parsers on the same token streams, and over the floor of what the servers' interfaces cost alone.

vLLM's interface makes every delta a pydantic ``DeltaMessage``; SGLang's a ``StreamingParseResult`` of
``ToolCallItem``\\ s. The floor is building those objects alone: the very messages our parser sent for the stream
(taken from an untimed run), rebuilt delta by delta. Ours over the floor is what the parsing costs on top of the
interface (target: at most 1.5x on every format).

Contenders, per format (the producer suite's token streams: each marker one special token, the rest in pieces of 1
to 6 characters, one token a delta):

- ``floor``: the ``DeltaMessage``\\ s alone, as above;
- ``ours``: our ``ToolParser`` called as ``DelegatingParser`` calls an engine-based parser (``extract_tool_calls_
  streaming`` with the delta alone), ``finish_streaming()`` at the end;
- ``ours-serving``: vLLM's ``DelegatingParser`` over ours, ``parse_delta`` per delta (vLLM's per-delta machinery:
  its stream state, metrics, the end-of-stream patch, included);
- ``vllm-serving``: vLLM's own parser for the format through the same ``DelegatingParser`` (it re-reads the text so
  far on every delta: target, ours >= 20x faster at 20 KB where it rescans);
- ``sglang-floor``, ``sglang-ours`` (SGLang's ``FunctionCallParser`` over our detector, ``parse_stream_chunk`` per
  delta and ``parse_stream_end``), ``sglang`` (its own detector, the same calls).

Workloads: the 845 real calls, one output each with a sentence before (``corpus``); a write-file call holding 20 KB
and 100 KB of Python source. Times: CPU time of this process, medians of interleaved rounds, per delta and per call;
every contender's output checked against the model's calls (``MISMATCH`` otherwise). Environment: the producer's
(``.venv-producer``, ``make bench-producer`` runs this suite after the producer suite).

    .venv-producer/bin/python -m bench serving [--quick] [--rounds N] [--cap S] [--formats hermes,kimi_k2]
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from typing import Any, Callable, Optional

from bench import harness
from bench.harness import Contender
from bench.suites import producer
from bench.suites.producer import Case, FirstRuns, Format, Outcome, PieceTokenizer, outcome

PACKAGES = producer.PACKAGES

PREPARE: list[Callable[[Case], None]] = []  # the floors' untimed set-up of a case: run before it is measured
MARKDOWN = True

ROUNDS = 3
CAP = 30.0


def cases(fmt: Format, scale: float) -> list[Case]:
    calls = producer.real_calls(scale)
    corpus = [
        producer.make_stream(fmt, [call], 1000 + i, before=producer.BEFORE[i % 4] or "Here:")
        for i, call in enumerate(calls)
    ]
    found = [Case("corpus", f"{len(calls)} real calls, one output each", corpus)]
    for label, size in (("20 KB", 20_000), ("100 KB", 100_000)):
        size = int(size * scale)
        stream = producer.make_stream(fmt, [producer.write_call(size)], 7, before="Writing it.")
        found.append(Case(f"write {label}", f"a write-file call, {size // 1000} KB of Python", [stream]))
    return found


def request(fmt: Format) -> Any:
    """The request, with the tools as the producer suite gives them (schemas typing the text formats' values)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="bench",
        messages=[{"role": "user", "content": "Go."}],
        tools=producer.tools_of(fmt),
        tool_choice="auto",
    )


def messages_outcomes(out: list[Optional[list[Any]]]) -> list[Outcome]:
    """DeltaMessages (per stream) as the client reads them."""
    outcomes = []
    for messages in out:
        content: list[str] = []
        names: dict[int, str] = {}
        arguments: dict[int, str] = {}
        for delta in messages or ():
            if delta is None:
                continue
            if delta.content:
                content.append(delta.content)
            for call in delta.tool_calls or ():
                if call.function is not None:
                    if call.function.name:
                        names[call.index] = call.function.name
                    if call.function.arguments:
                        arguments[call.index] = arguments.get(call.index, "") + call.function.arguments
        outcomes.append(outcome(content, names, arguments))
    return outcomes


def results_outcomes(out: list[Optional[list[Any]]]) -> list[Outcome]:
    """SGLang's (normal text, calls) results (per stream) as the client reads them."""
    outcomes = []
    for results in out:
        content: list[str] = []
        names: dict[int, str] = {}
        arguments: dict[int, str] = {}
        for normal_text, calls in results or ():
            if normal_text:
                content.append(normal_text)
            for call in calls:
                if call.name:
                    names[call.tool_index] = call.name
                if call.parameters:
                    arguments[call.tool_index] = arguments.get(call.tool_index, "") + call.parameters
        outcomes.append(outcome(content, names, arguments))
    return outcomes


def compared(fmt: Format, outcomes: Callable[[list[Optional[list[Any]]]], list[Outcome]]) -> Any:
    """``outcomes``, their arguments by value where the format writes them as text (as the producer suite compares
    them: such a format has no argument text to keep, only values)."""
    if not fmt.typed:
        return outcomes
    return lambda out: [producer.canonical_outcome(got) for got in outcomes(out)]


def runner(per_stream: Callable[[Any, Callable[[Any], Any], float], None]) -> Callable[[Case, float], Any]:
    """A contender's run: ``per_stream(stream, keep, deadline)`` for each stream; the first run of a case keeps
    what it sends (read into outcomes untimed), the later ones drop it as a server does once sent."""
    first_runs = FirstRuns()

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        out, first = [], first_runs.first(case)
        for stream in case.streams:
            keep, kept = first_runs.keeper(first)
            per_stream(stream, keep, deadline)
            out.append(kept)
        return out

    return run


def ours_contender(fmt: Format, serving: bool) -> Contender:
    from streaming_json.model_output import vllm as ours

    tokenizer = PieceTokenizer(fmt.special)
    the_request = request(fmt)
    if serving:
        from vllm.parser.parser_manager import ParserManager

        parser_class = ParserManager.get_parser(tool_parser_name=ours.PREFIX + fmt.name, enable_auto_tools=True)
        prompt = [1, 2, 3]

        def per_stream(stream: Any, keep: Callable[[Any], Any], deadline: float) -> None:
            parse_delta = parser_class(tokenizer, the_request.tools).parse_delta
            last = len(stream.pieces) - 1
            for number, (piece, ids) in enumerate(zip(stream.pieces, stream.ids)):
                keep(parse_delta(piece, ids, the_request, prompt, finished=number == last))

        return Contender(
            "ours-serving", runner(per_stream), ours=True, capped=False, to_value=compared(fmt, messages_outcomes)
        )

    tool_parser = ours.TOOL_PARSERS[fmt.name]

    def per_stream_direct(stream: Any, keep: Callable[[Any], Any], deadline: float) -> None:
        parser = tool_parser(tokenizer, the_request.tools)
        extract = parser.extract_tool_calls_streaming
        for piece, ids in zip(stream.pieces, stream.ids):
            keep(extract("", piece, piece, (), ids, ids, the_request))
        keep(parser.finish_streaming())

    return Contender(
        "ours", runner(per_stream_direct), ours=True, capped=False, to_value=compared(fmt, messages_outcomes)
    )


def vllm_contender(fmt: Format) -> Contender:
    own = producer.vllm_contender(fmt)
    return Contender("vllm-serving", own.run, to_value=own.to_value)


def floor_contender(fmt: Format) -> Contender:
    """The DeltaMessages ours sends for each stream, rebuilt alone (their specs read from an untimed run)."""
    from streaming_json.model_output.vllm import DeltaFunctionCall, DeltaMessage, DeltaToolCall

    ours = ours_contender(fmt, serving=False)
    specs: dict[int, tuple[Case, list[list[Any]]]] = {}

    def spec_of(case: Case) -> list[list[Any]]:
        found = specs.get(id(case))
        if found is None or found[0] is not case:
            assert ours.run is not None
            sent = ours.run(Case(case.key, case.title, case.streams), float("inf"))
            streams = []
            for messages in sent:
                stream_specs = []
                for message in messages or ():
                    if message is None:
                        continue
                    calls = [
                        (call.index, call.id, call.type, call.function.name, call.function.arguments)
                        for call in message.tool_calls
                    ]
                    stream_specs.append((message.content, calls))
                streams.append(stream_specs)
            found = specs[id(case)] = (case, streams)
        return found[1]

    PREPARE.append(spec_of)
    first_runs = FirstRuns()

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        streams = spec_of(case)  # made before the case is measured (PREPARE)
        out, first = [], first_runs.first(case)
        for stream_specs in streams:
            keep, kept = first_runs.keeper(first)
            for content, calls in stream_specs:
                if not calls:
                    keep(DeltaMessage(content=content))
                    continue
                built = []
                for index, call_id, kind, name, arguments in calls:
                    function = (
                        DeltaFunctionCall(arguments=arguments)
                        if name is None
                        else DeltaFunctionCall(name=name, arguments=arguments)
                    )
                    if call_id is None:
                        built.append(DeltaToolCall(index=index, function=function))
                    else:
                        built.append(DeltaToolCall(index=index, id=call_id, type=kind, function=function))
                keep(DeltaMessage(content=content, tool_calls=built) if content else DeltaMessage(tool_calls=built))
            out.append(kept)
        return out

    return Contender("floor", run, ours=True, capped=False, to_value=compared(fmt, messages_outcomes))


def sglang_ours_contender(fmt: Format) -> Contender:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    from streaming_json.model_output.sglang import register

    register()
    tools = [Tool.model_validate(tool) for tool in producer.tools_of(fmt)]
    name = "streaming_json_" + fmt.name

    def per_stream(stream: Any, keep: Callable[[Any], Any], deadline: float) -> None:
        parser = FunctionCallParser(tools, name)
        parse = parser.parse_stream_chunk
        for piece in stream.pieces:
            keep(parse(piece))
        keep(parser.parse_stream_end())

    return Contender(
        "sglang-ours", runner(per_stream), ours=True, capped=False, to_value=compared(fmt, results_outcomes)
    )


def sglang_floor_contender(fmt: Format) -> Contender:
    """The StreamingParseResults our detector gives for each stream, rebuilt alone."""
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

    ours = sglang_ours_contender(fmt)
    specs: dict[int, tuple[Case, list[list[Any]]]] = {}
    first_runs = FirstRuns()

    def spec_of(case: Case) -> list[list[Any]]:
        found = specs.get(id(case))
        if found is None or found[0] is not case:
            assert ours.run is not None
            sent = ours.run(Case(case.key, case.title, case.streams), float("inf"))
            streams = [
                [(text, [(c.tool_index, c.name, c.parameters) for c in calls]) for text, calls in results or ()]
                for results in sent
            ]
            found = specs[id(case)] = (case, streams)
        return found[1]

    PREPARE.append(spec_of)

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        out, first = [], first_runs.first(case)
        for stream_specs in spec_of(case):
            keep, kept = first_runs.keeper(first)
            for text, calls in stream_specs:
                items = [
                    ToolCallItem(tool_index=index, name=name, parameters=arguments) for index, name, arguments in calls
                ]
                result = StreamingParseResult(normal_text=text, calls=items)
                keep((result.normal_text, result.calls))
            out.append(kept)
        return out

    return Contender("sglang-floor", run, ours=True, capped=False, to_value=compared(fmt, results_outcomes))


def sglang_contender(fmt: Format) -> Contender:
    own = producer.sglang_contender(fmt)
    return Contender("sglang", own.run, to_value=own.to_value)


def contenders(fmt: Format) -> list[Contender]:
    return [
        harness.contender("floor", lambda: floor_contender(fmt)),
        harness.contender("ours", lambda: ours_contender(fmt, serving=False)),
        harness.contender("ours-serving", lambda: ours_contender(fmt, serving=True)),
        harness.contender("vllm-serving", lambda: vllm_contender(fmt)),
        harness.contender("sglang-floor", lambda: sglang_floor_contender(fmt)),
        harness.contender("sglang-ours", lambda: sglang_ours_contender(fmt)),
        harness.contender("sglang", lambda: sglang_contender(fmt)),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=None, help=f"timed rounds (default {ROUNDS}, 1 with --quick)")
    parser.add_argument("--cap", type=float, default=None, help=f"seconds before a peer is stopped (default {CAP:g})")
    parser.add_argument("--formats", default=None, help="the formats to time, comma-separated (default: all)")


def per(result: harness.Result, count: int, unit: float) -> str:
    return "-" if result.median is None else f"{result.median / count * unit:,.1f}"


def run(session: harness.Session) -> int:
    args = session.args
    scale = 1 / 16 if args.quick else 1.0
    rounds = args.rounds or (1 if args.quick else ROUNDS)
    cap = args.cap or (2.0 if args.quick else CAP)
    logging.disable(logging.CRITICAL)  # the peers log every error they swallow
    every = {**producer.FORMATS, **producer.TEXT_FORMATS}
    formats: Sequence[Format] = list(every.values())
    if args.formats:
        formats = [every[name] for name in args.formats.split(",")]
    print(harness.environment_line(session.env))
    print()
    print(f"CPU time, medians of {rounds} interleaved rounds; peers stopped at {cap:g} s. {producer.load()}")
    print()
    targets = harness.Targets()
    status = 0
    timing_rows, ratio_rows = [], []
    raw: dict[str, Any] = {}
    names = ["floor", "ours", "ours-serving", "vllm-serving", "sglang-floor", "sglang-ours", "sglang"]
    for fmt in formats:
        PREPARE.clear()
        found = contenders(fmt)
        for c in found:
            if c.run is None:
                print(f"- {fmt.name} {c.name}: n/a ({c.missing})")
        for case in cases(fmt, scale):
            session.progress(f"{fmt.name}: {case.key}")
            calls = sum(len(stream.expected.calls) for stream in case.streams)
            for prepare in PREPARE:
                prepare(case)
            r = harness.measure(
                found, case, rounds=rounds, cap=cap, expected=case.expected, clock=harness.CLOCKS["cpu"]
            )
            status |= int(harness.failed([r], found))
            raw[f"{fmt.name} {case.key}"] = {name: r[name].to_json() for name in names}
            timing_rows.append(
                [fmt.name, case.key, f"{case.deltas:,}"]
                + [
                    f"{per(r[n], case.deltas, 1e9)} / {per(r[n], calls, 1e6)}" if r[n].median else r[n].cell()
                    for n in names
                ]
            )
            layer, _ = harness.ratio(r["ours"], r["floor"])
            serving, _ = harness.ratio(r["ours-serving"], r["floor"])
            vllm, vllm_bound = harness.ratio(r["vllm-serving"], r["ours-serving"], cap)
            sglang_layer, _ = harness.ratio(r["sglang-ours"], r["sglang-floor"])
            sglang, sglang_bound = harness.ratio(r["sglang"], r["sglang-ours"], cap)
            layer_cell = harness.format_ratio(layer) + targets.judge(layer, "<=", 1.5)
            sglang_layer_cell = harness.format_ratio(sglang_layer) + targets.judge(sglang_layer, "<=", 1.5)
            vllm_cell = harness.format_ratio(vllm, vllm_bound)
            sglang_cell = harness.format_ratio(sglang, sglang_bound)
            if case.key == "write 20 KB":
                vllm_cell += targets.judge(vllm, ">=", 20, vllm_bound)
                sglang_cell += targets.judge(sglang, ">=", 20, sglang_bound)
            ratio_rows.append(
                [
                    fmt.name,
                    case.key,
                    layer_cell,
                    harness.format_ratio(serving),
                    vllm_cell,
                    sglang_layer_cell,
                    sglang_cell,
                ]
            )
    print("Time per delta (ns) / per call (µs):")
    print()
    print(session.table(["format", "workload", "deltas", *names], timing_rows))
    print()
    print("Ratios (a/b: time of a over time of b on the same deltas):")
    print()
    headers = ["format", "workload", "ours/floor", "ours-serving/floor", "vllm/ours (serving)", "sglang-ours/floor"]
    print(session.table([*headers, "sglang/sglang-ours"], ratio_rows))
    print()
    print(targets.summary())
    session.raw["serving"] = raw
    session.raw["targets"] = {"met": targets.met, "missed": targets.missed}
    return status
