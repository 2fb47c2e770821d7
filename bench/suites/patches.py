"""Live values to a browser (issue 31): bytes on the wire and server CPU per stream for four ways to send a value
that grows piece by piece, on the real corpus, a 100 KB write call and 2,000 records, in token pieces.

- (a) ours: ``PatchStream`` operations of each piece's changes, written as this package's server-sent events
  (``PatchWire``), one event a piece; and the same events coalesced four pieces at a time (a flush interval at a
  model's pace: bytes only);
- (b) the whole snapshot re-sent each piece (``json.dumps`` of ``snapshot()``, one event a piece);
- (c) ``jsonpatch.make_patch`` of consecutive snapshots, what LangChain's ``JsonOutputParser(diff=True)`` does;
- (d) jsoncurrent's ``Emitter`` on the same pieces (``completions=False``, its leanest),
  each patch as its wire format's JSON.

Also the size of OpenAI's own Chat chunks for the same pieces (a real chunk's envelope around each piece), the
target's yardstick. Bytes are exact (UTF-8, counted in an untimed run that also checks ours and (c) end with the
document's value); CPU is this process's time (``process_time``), the median of the rounds, (b) to (d) capped.

    python -m bench patches [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable

from bench import harness, workloads
from bench.harness import Contender, Stopped
from streaming_json import StreamingJsonParser
from streaming_json.patches import PatchEvent, PatchStream, PatchWire, apply_patch, coalesce, iter_sse

PACKAGES = ("jsonpatch", "jsoncurrent")
MARKDOWN = True
ROUNDS = 5
CAP = 20.0  # seconds: (b) and (c) grow with the square of the text
COALESCED = 4  # pieces a flush interval

# A Chat Completions chunk as OpenAI's API sends it, around one piece of a call's arguments.
_CHUNK = (
    'data: {"id":"chatcmpl-CvY2o8fJ3kWq1bH7tNa2Lm9sX4eZd","object":"chat.completion.chunk","created":1764610000,'
    '"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_c5d7e4b1a2","choices":[{"index":0,'
    '"delta":{"tool_calls":[{"index":0,"function":{"arguments":%s}}]},"logprobs":null,"finish_reason":null}]}\n\n'
)


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def ours(pieces: list[str], deadline: float) -> int:
    """Bytes of (a): each piece's operations as one ``ops`` event."""
    parser, patches, wire = StreamingJsonParser(), PatchStream(), PatchWire()
    append, ops_of, render = parser.append, patches.ops, wire.render
    total = 0
    for piece in pieces:
        ops = ops_of(append(piece))
        if ops:
            for message in render(PatchEvent.changed(None, ops, piece)):
                total += _utf8(message)
    return total


def snapshots(pieces: list[str], deadline: float) -> int:
    """Bytes of (b): the snapshot after each piece, whole."""
    parser = StreamingJsonParser(changes=False)
    append, snapshot = parser.append, parser.snapshot
    total = 0
    for number, piece in enumerate(pieces):
        append(piece)
        total += _utf8(f"data: {json.dumps(snapshot(), ensure_ascii=False, separators=(',', ':'))}\n\n")
        if number % 256 == 0 and harness.perf_counter() > deadline:
            raise Stopped(number, len(pieces))
    return total


def make_patches(pieces: list[str], deadline: float) -> int:
    """Bytes of (c): ``jsonpatch.make_patch`` of the snapshot before and after each piece."""
    import jsonpatch  # type: ignore[import-untyped]

    parser = StreamingJsonParser(changes=False)
    append, snapshot = parser.append, parser.snapshot
    previous: Any = None
    total = 0
    for number, piece in enumerate(pieces):
        append(piece)
        current = snapshot()
        operations = jsonpatch.make_patch(previous, current).patch
        if operations:
            total += _utf8(f"data: {json.dumps(operations, ensure_ascii=False, separators=(',', ':'))}\n\n")
        previous = current
        if number % 256 == 0 and harness.perf_counter() > deadline:
            raise Stopped(number, len(pieces))
    return total


def jsoncurrent_emitter(pieces: list[str], deadline: float) -> int:
    """Bytes of (d): jsoncurrent's patches of each piece."""
    from jsoncurrent import Emitter  # type: ignore[import-not-found]

    emitter = Emitter(completions=False)
    written = [0]

    def patch(chunk: Any) -> None:  # its wire format (0.3.0's chunks have no to_json, which its README names)
        data = json.dumps({"path": chunk.path, "value": chunk.value, "op": chunk.op}, ensure_ascii=False)
        written[0] += _utf8(f"data: {data}\n\n")

    emitter.on("patch", patch)
    for number, piece in enumerate(pieces):
        emitter.write(piece)
        if number % 256 == 0 and harness.perf_counter() > deadline:
            raise Stopped(number, len(pieces))
    emitter.flush()
    return written[0]


def _checked(pieces: list[str], text: str) -> dict[str, int]:
    """The untimed run: every contender's bytes; ours and (c) rebuilt and compared with the document."""
    import jsonpatch

    expected = json.loads(text)
    parser, patches = StreamingJsonParser(), PatchStream()
    events, built = [], None
    for piece in pieces:
        ops = patches.ops(parser.append(piece))
        if ops:
            built = apply_patch(built, ops)
            events.append(PatchEvent.changed(None, ops, piece))
    assert built == expected, "ours ended with another value"
    clock = iter(range(10**9))
    coalesced = "".join(iter_sse(events, flush_interval=COALESCED, clock=lambda: float(next(clock))))
    assert apply_patch(None, coalesce([op for event in events for op in event.ops])) == expected
    state: Any = None
    parser = StreamingJsonParser(changes=False)
    for piece in pieces:
        parser.append(piece)
    state = jsonpatch.apply_patch(None, jsonpatch.make_patch(None, parser.snapshot(fresh=True)).patch)
    assert state == expected
    return {
        "coalesced": _utf8(coalesced),
        "openai": sum(_utf8(_CHUNK % json.dumps(piece)) for piece in pieces),
        "text": _utf8(text),
    }


def _per_stream(calls: list[workloads.Call], run: Callable[[list[str], float], int]) -> Callable[[Any, float], int]:
    def runner(case: Any, deadline: float) -> int:
        return sum(run(call.pieces, deadline) for call in calls)

    return runner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, help=f"rounds per workload (default {ROUNDS}, quick 1)")


def run(session: harness.Session) -> int:
    args = session.args
    rounds = args.rounds or (1 if args.quick else ROUNDS)
    scale = 0.1 if args.quick else 1.0
    print(harness.environment_line(session.env))
    print(f"{rounds} rounds, medians of CPU time, bytes exact" + (", quick sizes" if args.quick else ""))
    print()
    records_text = workloads.structured_output(int(2000 * 270 * scale), seed=5)
    cases = [
        workloads.build("8", 0.25 * scale if args.quick else 1.0),
        workloads.write_file(5, scale),  # 100 KB of Python
        workloads.Workload(
            "R", "2,000 records", [workloads.Call(records_text, workloads.token_pieces(records_text, 5))]
        ),
    ]
    byte_rows, cpu_rows = [], []
    for case in cases:
        assert case is not None
        calls = case.calls
        contenders = [
            Contender("(a) ours", _per_stream(calls, ours), ours=True, capped=False, budgeted=False),
            Contender("(b) snapshots", _per_stream(calls, snapshots)),
            Contender("(c) jsonpatch.make_patch", _per_stream(calls, make_patches)),
            harness.contender("(d) jsoncurrent", lambda calls=calls: _jsoncurrent(calls)),
        ]
        sizes: dict[str, Any] = {}
        for contender in contenders:  # the untimed run: bytes, with a longer cap than the timed runs
            if contender.run is not None:
                try:
                    sizes[contender.name] = contender.run(None, harness.perf_counter() + 6 * CAP)
                except Stopped:
                    sizes[contender.name] = None
        extra = [_checked(call.pieces, call.text) for call in calls]
        sizes.update({key: sum(item[key] for item in extra) for key in ("coalesced", "openai", "text")})
        results = harness.measure(contenders, rounds=rounds, cap=CAP, check=False, clock=harness.CLOCKS["cpu"])
        title = f"{case.title} ({sizes['text'] // 1000} KB, {sum(len(c.pieces) for c in calls)} pieces)"
        ours_bytes = sizes["(a) ours"]
        byte_rows.append(
            [title, _kb(sizes["text"]), _kb(ours_bytes), _kb(sizes["coalesced"]), _kb(sizes["openai"])]
            + [
                f"{_kb(sizes.get(name))} ({_times(sizes.get(name), ours_bytes)})"
                for name in [c.name for c in contenders[1:]]
            ]
        )
        ours_time = results["(a) ours"].median
        cpu_rows.append(
            [title, results["(a) ours"].cell()]
            + [f"{results[c.name].cell()} ({_times(results[c.name].median, ours_time)})" for c in contenders[1:]]
        )
        session.raw[case.key] = {"bytes": sizes, "cpu": {name: result.to_json() for name, result in results.items()}}
    names = ["(b) snapshots", "(c) jsonpatch.make_patch", "(d) jsoncurrent"]
    print(session.table(["bytes", "text", "(a) ours", "ours, coalesced x4", "OpenAI's chunks", *names], byte_rows))
    print()
    print(session.table(["server CPU, whole stream", "(a) ours", *names], cpu_rows))
    return 0


def _jsoncurrent(calls: list[workloads.Call]) -> Contender:
    import jsoncurrent  # noqa: F401  # not installed: the contender is missing

    return Contender("(d) jsoncurrent", _per_stream(calls, jsoncurrent_emitter))


def _kb(size: Any) -> str:
    if size is None:
        return "-"
    return f"{size / 1e6:,.2f} MB" if size >= 1e6 else f"{size / 1e3:,.1f} KB"


def _times(other: Any, ours: Any) -> str:
    if other is None or not ours:
        return "-"
    return f"{other / ours:,.1f}x ours"
