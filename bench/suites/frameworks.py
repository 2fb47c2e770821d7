"""The frameworks' own ways of streaming tool calls and structured output, against our adapters on the same events.

LangChain (``L<size>``: a write-file call of 12.5, 25, 50 and 100 KB, ``bench/workloads.py``, in token pieces, each
piece one prebuilt ``AIMessageChunk`` with one ``tool_call_chunks`` fragment, as LangChain's OpenAI integration
streams them; building the chunks is not timed, and costs LangChain alike for every contender):

- ``langchain-sum``: ``full = full + chunk``, then ``full.tool_calls`` (the documented way), after every chunk;
- ``langchain-parser``: LangChain's ``JsonOutputToolsParser`` in a chain (``RunnableGenerator(chunks) | parser``),
  ``.stream()``;
- ``ours``, ``ours-pure``: ``LangChainToolCalls.feed(chunk)`` after every chunk (compiled core; pure backend);
- ``ours-parser``: ``streaming_json.integrations.langchain.JsonOutputToolsParser`` in the same chain.

pydantic-ai (a real ``Agent`` over ``FunctionModel(stream_function=...)`` yielding one ``DeltaToolCall`` per token
piece of the output tool's arguments): ``P-R``, a ``list[Record]`` of 2,000 records (pydantic-ai wraps it as
``{"response": [...]}``), and ``P-W``, the 20 KB write-file call as ``WriteFile``:

- ``pydantic-ai``: ``agent.run_stream()``, ``stream_output(debounce_by=None)``, which validates the whole arguments
  with ``allow_partial`` on every event;
- ``ours``: ``agent.run_stream_events()``, every event fed to ``PydanticAIStructuredOutput``;
- ``agent-floor``: ``agent.run_stream_events()`` with nothing reading the events: what the agent itself spends per
  event, which every way of reading it pays;
- the reading alone, on the same run's events collected beforehand (untimed), where the agent's own cost per event
  (about 150 us here, ten times ours) does not hide it: ``pydantic-ai-reading``, what ``stream_output`` does per
  event beyond the agent (the arguments so far, ``validator.validate_json(text, allow_partial="trailing-strings")``
  as its output processor calls it, failures skipped), and ``ours-reading``, ``PydanticAIStructuredOutput.feed``.

Every contender's final value must equal ``json.loads`` of the arguments (LangChain) or ``TypeAdapter(type).
validate_json`` of them (pydantic-ai), else MISMATCH. The harness runs 3 interleaved rounds (wall time, medians),
the frameworks' own ways in the first only; they are stopped at the cap (120 s for LangChain, 60 s for pydantic-ai:
``> cap (x% done)``), and LangChain's, once stopped, run again only at the largest size, where the target is.
The table of time per chunk shows whether it stays flat as the call grows. Needs the test extra (the frameworks).

    python -m bench frameworks [--quick] [--repeats N] [--cap SECONDS] [--only L,P] [--markdown]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
from dataclasses import dataclass, field
from importlib import import_module
from time import perf_counter
from typing import Any, Callable, Optional

from bench import harness, workloads
from bench.harness import Contender, Result, Stopped

PACKAGES = ("langchain-core", "pydantic-ai-slim", "pydantic", "pydantic-core")
MARKDOWN = False

LANGCHAIN_SIZES = (0.125, 0.25, 0.5, 1.0)  # of the 100 KB call
CHECK_EVERY = 64  # chunks between two deadline checks


# --- LangChain -------------------------------------------------------------------------------------------------------


@dataclass
class LangChainCase:
    key: str
    title: str
    text: str
    pieces: list[str]
    chunks: list[Any] = field(default_factory=list)
    expected: Any = None

    def __post_init__(self) -> None:
        from langchain_core.messages import AIMessageChunk

        first = AIMessageChunk(
            content="", tool_call_chunks=[{"name": "write_file", "args": "", "id": "c1", "index": 0}]
        )
        rest = [
            AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": piece, "id": None, "index": 0}])
            for piece in self.pieces
        ]
        self.chunks = [first, *rest]
        self.expected = json.loads(self.text)


def langchain_case(size: float, scale: float) -> LangChainCase:
    call = workloads.write_file(5, size * scale).calls[0]
    return LangChainCase(
        f"L{len(call.text) // 1000}", f"write-file call, {len(call.text) // 1000} KB", call.text, call.pieces
    )


def langchain_sum(case: LangChainCase, deadline: float) -> Any:
    full = None
    for number, chunk in enumerate(case.chunks):
        full = chunk if full is None else full + chunk
        full.tool_calls[0]["args"]  # what a UI shows after each chunk
        if not number % CHECK_EVERY and perf_counter() > deadline:
            raise Stopped(number, len(case.chunks))
    return full.tool_calls[0]["args"]  # type: ignore[union-attr]


def ours(core: str) -> harness.Runner:
    from streaming_json.integrations.langchain import LangChainToolCalls

    stream_class = import_module(core).ToolCallArgumentsStream

    def run(case: LangChainCase, deadline: float) -> Any:
        tool_calls = LangChainToolCalls(arguments_stream_class=stream_class)
        feed = tool_calls.feed
        for chunk in case.chunks:
            feed(chunk)  # the changed calls, each with its partial arguments
        tool_calls.finish()
        return tool_calls.calls[0].arguments

    return run


def in_a_chain(parser_class: Callable[[], Any]) -> harness.Runner:
    from langchain_core.runnables import RunnableGenerator

    def run(case: LangChainCase, deadline: float) -> Any:
        def source(_: Any) -> Any:
            yield from case.chunks

        last = None
        for number, output in enumerate((RunnableGenerator(source) | parser_class()).stream(None)):
            last = output
            if not number % CHECK_EVERY and perf_counter() > deadline:
                raise Stopped(number, len(case.chunks))
        return last[0]["args"]  # type: ignore[index]

    return run


def langchain_contenders() -> list[Contender]:
    def theirs() -> harness.Runner:
        from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser

        return in_a_chain(JsonOutputToolsParser)

    def our_parser() -> harness.Runner:
        from streaming_json.integrations.langchain import JsonOutputToolsParser

        return in_a_chain(JsonOutputToolsParser)

    def made(name: str, make: Callable[[], harness.Runner], capped: bool) -> Contender:
        # The frameworks' own ways take seconds to minutes a run: one run each (the first round) says enough.
        rounds = 1 if capped else None
        return harness.contender(
            name,
            lambda: Contender(
                name, make(), ours=name.startswith("ours"), capped=capped, budgeted=capped, rounds=rounds
            ),
        )

    return [
        made("langchain-sum", lambda: langchain_sum, True),
        made("langchain-parser", theirs, True),
        made("ours", lambda: ours("streaming_json._core"), False),
        made("ours-pure", lambda: ours("streaming_json._pure"), False),
        made("ours-parser", our_parser, False),
    ]


# --- pydantic-ai -----------------------------------------------------------------------------------------------------


@dataclass
class PydanticAICase:
    key: str
    title: str
    output_type: Any
    text: str  # the output tool's arguments
    pieces: list[str]
    wrapped: bool = False  # pydantic-ai's {"response": ...} around a type that is not an object
    expected: Any = None
    events: list[Any] = field(default_factory=list)  # one run's model response events, for the readings alone

    def __post_init__(self) -> None:
        from pydantic import TypeAdapter

        inner = json.loads(self.text)
        self.expected = TypeAdapter(self.output_type).validate_python(inner["response"] if self.wrapped else inner)
        self.events = collected_events(self)


def pydantic_ai_cases(scale: float) -> list[PydanticAICase]:
    from pydantic import BaseModel

    class Record(BaseModel):
        id: int
        name: str
        score: float
        active: bool
        parent: Optional[int] = None
        tags: list[str]
        note: Optional[str] = None

    class WriteFile(BaseModel):
        path: str
        content: str
        overwrite: bool

    rng = random.Random(11)
    count = int(2000 * scale)
    records = json.dumps({"response": [workloads.record(index, rng) for index in range(count)]}, ensure_ascii=False)
    write = workloads.write_file(1, scale).calls[0]
    return [
        PydanticAICase(
            "P-R",
            f"list[Record], {count:,} records, {len(records) // 1000} KB",
            list[Record],
            records,
            workloads.token_pieces(records, 12),
            wrapped=True,
        ),
        PydanticAICase("P-W", f"write-file call, {len(write.text) // 1000} KB", WriteFile, write.text, write.pieces),
    ]


def agent_for(case: PydanticAICase) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    async def stream(messages: Any, info: Any) -> Any:
        yield {0: DeltaToolCall(name="final_result", tool_call_id="out_1")}
        for piece in case.pieces:
            yield {0: DeltaToolCall(json_args=piece)}

    return Agent(FunctionModel(stream_function=stream), output_type=case.output_type)


def collected_events(case: PydanticAICase) -> list[Any]:
    from pydantic_ai.messages import PartDeltaEvent, PartEndEvent, PartStartEvent

    async def run() -> list[Any]:
        async with agent_for(case).run_stream_events("go") as events:
            return [
                event async for event in events if isinstance(event, (PartStartEvent, PartDeltaEvent, PartEndEvent))
            ]

    return asyncio.run(run())


def pydantic_ai_reading(case: PydanticAICase, deadline: float) -> Any:
    from pydantic import TypeAdapter, ValidationError
    from typing_extensions import TypedDict

    schema: Any = TypedDict("response", {"response": case.output_type}) if case.wrapped else case.output_type  # type: ignore[operator]
    validate = TypeAdapter(schema).validator.validate_json
    text, value = "", None
    for number, event in enumerate(case.events):
        delta = getattr(getattr(event, "delta", None), "args_delta", None)
        if isinstance(delta, str):
            text += delta
            with contextlib.suppress(ValidationError):  # not even a partial value yet: the last one stays
                value = validate(text or "{}", allow_partial="trailing-strings")
        if not number % CHECK_EVERY and perf_counter() > deadline:
            raise Stopped(number, len(case.events))
    value = validate(text)  # the final validation, strict
    return value["response"] if case.wrapped else value


def ours_reading(case: PydanticAICase, deadline: float) -> Any:
    from streaming_json.integrations.pydantic_ai import PydanticAIStructuredOutput

    output = PydanticAIStructuredOutput(case.output_type)
    feed = output.feed
    for event in case.events:
        feed(event)
    return output.finish().value


def pydantic_ai_stream_output(case: PydanticAICase, deadline: float) -> Any:
    async def run() -> Any:
        last = None
        async with agent_for(case).run_stream("go") as result:
            number = 0
            async for value in result.stream_output(debounce_by=None):
                last = value
                number += 1
                if not number % CHECK_EVERY and perf_counter() > deadline:
                    raise Stopped(number, len(case.pieces))
        return last

    return asyncio.run(run())


def pydantic_ai_ours(case: PydanticAICase, deadline: float) -> Any:
    from streaming_json.integrations.pydantic_ai import PydanticAIStructuredOutput

    async def run() -> Any:
        output = PydanticAIStructuredOutput(case.output_type)
        feed = output.feed
        async with agent_for(case).run_stream_events("go") as events:
            async for event in events:
                feed(event)  # the typed value so far
        return output.finish().value

    return asyncio.run(run())


def agent_floor(case: PydanticAICase, deadline: float) -> Any:
    async def run() -> Any:
        last = None
        async with agent_for(case).run_stream_events("go") as events:
            async for event in events:
                last = event
        return last.result.output  # type: ignore[union-attr]

    return asyncio.run(run())


def pydantic_ai_contenders() -> list[Contender]:
    def made(name: str, make: Callable[[], harness.Runner], capped: bool) -> Contender:
        def build() -> Contender:
            import_module("pydantic_ai")
            return Contender(name, make(), ours=name == "ours", capped=capped, budgeted=capped)

        return harness.contender(name, build)

    return [
        made("pydantic-ai", lambda: pydantic_ai_stream_output, True),
        made("ours", lambda: pydantic_ai_ours, False),
        made("agent-floor", lambda: agent_floor, False),
        made("pydantic-ai-reading", lambda: pydantic_ai_reading, True),
        made("ours-reading", lambda: ours_reading, False),
    ]


# --- The report ------------------------------------------------------------------------------------------------------


def per_chunk(result: Result, chunks: int) -> str:
    return "-" if result.median is None else harness.format_time(result.median / chunks)


def report_langchain(session: harness.Session, done: list[tuple[LangChainCase, dict[str, Result]]], cap: float) -> str:
    names = ["langchain-sum", "langchain-parser", "ours", "ours-pure", "ours-parser"]
    targets = harness.Targets()
    out = ["LangChain: median time per run"]
    rows = [[case.key, f"{len(case.chunks):,}"] + [results[n].cell() for n in names] for case, results in done]
    out.append(session.table(["key", "chunks", *names], rows))
    out.append("\nTime per chunk (flat as the call grows: ours; growing: the frameworks' own)")
    rows = [[case.key] + [per_chunk(results[n], len(case.chunks)) for n in names] for case, results in done]
    out.append(session.table(["key", *names], rows))
    out.append("\nRatios ('>' a lower bound: the slower one was stopped at the cap)")
    ratios = [
        ("langchain-sum / ours", "langchain-sum", "ours", 100.0),
        ("langchain-parser / ours-parser", "langchain-parser", "ours-parser", 100.0),
        ("ours-pure / ours", "ours-pure", "ours", None),
    ]
    rows = []
    largest = done[-1][0].key if done else None
    for case, results in done:
        row = [case.key]
        for _, slow, fast, target in ratios:
            value, bound = harness.ratio(results[slow], results[fast], cap)
            text = harness.format_ratio(value, bound)
            if target is not None and case.key == largest:
                text += targets.judge(value, ">=", target, bound=bound)
            row.append(text)
        rows.append(row)
    out.append(session.table(["key", *[r[0] for r in ratios]], rows))
    out.append(targets.summary())
    return "\n".join(out)


def report_pydantic_ai(
    session: harness.Session, done: list[tuple[PydanticAICase, dict[str, Result]]], cap: float
) -> str:
    names = ["pydantic-ai", "ours", "agent-floor", "pydantic-ai-reading", "ours-reading"]
    targets = harness.Targets()
    out = ["pydantic-ai: median time per run"]
    rows = [
        [case.key, case.title, f"{len(case.pieces):,}"] + [results[n].cell() for n in names] for case, results in done
    ]
    out.append(session.table(["key", "what", "events", *names], rows))
    out.append("\nRatios ('>' a lower bound)")
    rows = []
    for case, results in done:
        whole, whole_bound = harness.ratio(results["pydantic-ai"], results["ours"], cap)
        reading, bound = harness.ratio(results["pydantic-ai-reading"], results["ours-reading"], cap)
        text = harness.format_ratio(reading, bound)
        if case.key == "P-R":
            text += targets.judge(reading, ">=", 50.0, bound=bound)
        floor, _ = harness.ratio(results["ours"], results["agent-floor"], cap)
        rows.append([case.key, harness.format_ratio(whole, whole_bound), text, harness.format_ratio(floor)])
    headers = ["key", "pydantic-ai / ours (whole run)", "reading alone", "ours / agent-floor"]
    out.append(session.table(headers, rows))
    out.append(targets.summary())
    return "\n".join(out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, help="rounds per workload (default 3, quick 1)")
    parser.add_argument(
        "--cap",
        type=float,
        help="seconds before a framework's own way is stopped (default 120 LangChain, 60 pydantic-ai)",
    )
    parser.add_argument("--only", help="L (LangChain), P (pydantic-ai), or both: L,P")


def run(session: harness.Session) -> int:
    args = session.args
    scale = 0.1 if args.quick else 1.0
    repeats = args.repeats or (1 if args.quick else 3)
    cap = args.cap or (2.0 if args.quick else 120.0)
    pydantic_ai_cap = args.cap or (2.0 if args.quick else 60.0)
    only = {key.strip() for key in (args.only or "L,P").split(",")}
    print(harness.environment_line(session.env), flush=True)
    print(f"{repeats} rounds, cap {cap:g} s" + (", quick sizes" if args.quick else ""), flush=True)
    failed = False
    if "L" in only:
        found = langchain_contenders()
        harness.warm_up(found, [langchain_case(0.01, 1.0)])
        done, stopped = [], {}
        for size in LANGCHAIN_SIZES:
            case = langchain_case(size, scale)
            # The case's chunks (tens of thousands of pydantic objects) are frozen out of the collector: a
            # collection during a run would scan them all, a cost that grows with the case for every contender.
            gc.freeze()
            try:
                results = harness.measure(found, case, rounds=repeats, cap=cap, expected=case.expected, skip=stopped)
            finally:
                gc.unfreeze()
            # Stopped at the cap on the size before the largest: not run again until the largest, where the target is.
            stopped = {n: f"> {cap:g} s at a smaller size" for n, r in results.items() if r.status == "stopped"}
            if size == LANGCHAIN_SIZES[-2]:
                stopped = {}
            done.append((case, results))
            session.progress(f"{case.key} measured")
        print(report_langchain(session, done, cap), flush=True)
        failed |= harness.failed([r for _, r in done], found)
        session.raw["langchain"] = {c.key: {n: r.to_json() for n, r in res.items()} for c, res in done}
    if "P" in only:
        found = pydantic_ai_contenders()
        warm = pydantic_ai_cases(0.01)
        harness.warm_up(found, warm)
        done = []
        for case in pydantic_ai_cases(scale):
            gc.freeze()  # the collected events, as for LangChain's chunks
            try:
                results = harness.measure(found, case, rounds=repeats, cap=pydantic_ai_cap, expected=case.expected)
            finally:
                gc.unfreeze()
            done.append((case, results))
            session.progress(f"{case.key} measured")
        print("\n" + report_pydantic_ai(session, done, pydantic_ai_cap), flush=True)
        failed |= harness.failed([r for _, r in done], found)
        session.raw["pydantic_ai"] = {c.key: {n: r.to_json() for n, r in res.items()} for c, res in done}
    return 1 if failed else 0
