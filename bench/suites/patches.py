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

And the client's side: ``patches.js`` applying the op stream of a 1.1 MB write call and of 1.1 MB of records, one
event a piece, in Node and in headless Chromium (``bench/apply_patches.mjs``, served to the page from 127.0.0.1): the
time per piece (per event: a piece that changed the value) while the text goes from 64 KB to 128 KB and from 1 MB
to 1 MB + 64 KB, applyPatch alone and the page's LiveValues.handle (JSON.parse, then applyPatch): the best of the
rounds (at least 3) after a warm-up round, Node's CPU time and the page's wall clock. Target: the time per piece at
1 MB within 1.5x of that at 64 KB. Chromium needs Debian's ``chromium`` and ``chromium-driver`` and selenium (the bench
extra).

    python -m bench patches [--quick] [--rounds N] [--no-client]
"""

from __future__ import annotations

import argparse
import bisect
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

from bench import harness, workloads
from bench.harness import Contender, Stopped
from streaming_json import StreamingJsonParser
from streaming_json.patches import PatchEvent, PatchStream, PatchWire, apply_patch, coalesce, iter_sse

PACKAGES = ("jsonpatch", "jsoncurrent", "selenium")
MARKDOWN = True
ROUNDS = 5
CAP = 20.0  # seconds: (b) and (c) grow with the square of the text
COALESCED = 4  # pieces a flush interval
# The client's windows: the pieces that take the text through 64 KB from each start, and the target (issue 31).
CLIENT_WINDOWS = {"64 KB": 1 << 16, "1 MB": 1 << 20}
CLIENT_SPAN = 1 << 16
CLIENT_FLAT = 1.5  # at most: the time per piece at 1 MB over the time per piece at 64 KB

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
    one_batch = "".join(iter_sse(events, flush_interval=float("inf")))  # the first event, then the rest merged
    assert apply_patch(None, coalesce([op for event in events for op in event.ops])) == expected
    state: Any = None
    parser = StreamingJsonParser(changes=False)
    for piece in pieces:
        parser.append(piece)
    state = jsonpatch.apply_patch(None, jsonpatch.make_patch(None, parser.snapshot(fresh=True)).patch)
    assert state == expected
    return {
        "coalesced": _utf8(coalesced),
        "one batch": _utf8(one_batch),
        "openai": sum(_utf8(_CHUNK % json.dumps(piece)) for piece in pieces),
        "text": _utf8(text),
    }


def _per_stream(calls: list[workloads.Call], run: Callable[[list[str], float], int]) -> Callable[[Any, float], int]:
    def runner(case: Any, deadline: float) -> int:
        return sum(run(call.pieces, deadline) for call in calls)

    return runner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, help=f"rounds per workload (default {ROUNDS}, quick 1)")
    parser.add_argument("--no-client", action="store_true", help="leave out the JavaScript client's figure")


def run(session: harness.Session) -> int:
    args = session.args
    rounds = args.rounds or (1 if args.quick else ROUNDS)
    scale = 0.1 if args.quick else 1.0
    print(harness.environment_line(session.env))
    print(f"{rounds} rounds, medians of CPU time, bytes exact" + (", quick sizes" if args.quick else ""))
    print()
    records = _records(int(2000 * 270 * scale))
    cases = [
        workloads.build("8", 0.25 * scale if args.quick else 1.0),
        workloads.write_file(5, scale),  # 100 KB of Python
        workloads.Workload("R", "2,000-record shape", records.calls),
    ]
    byte_rows, cpu_rows = [], []
    measured: dict[str, Any] = {}
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
        unfinished: dict[str, str] = {}  # why a contender has no bytes: stopped at the bytes run's cap
        for contender in contenders:  # the untimed run: bytes, with a longer cap than the timed runs
            if contender.run is not None:
                try:
                    sizes[contender.name] = contender.run(None, harness.perf_counter() + 6 * CAP)
                except Stopped as stop:
                    sizes[contender.name] = None
                    unfinished[contender.name] = f"> {6 * CAP:g} s ({100 * stop.done / max(stop.total, 1):.0f}% done)"
        extra = [_checked(call.pieces, call.text) for call in calls]
        sizes.update({key: sum(item[key] for item in extra) for key in ("coalesced", "one batch", "openai", "text")})
        results = harness.measure(contenders, rounds=rounds, cap=CAP, check=False, clock=harness.CLOCKS["cpu"])
        title = f"{case.title} ({sizes['text'] // 1000} KB, {sum(len(c.pieces) for c in calls)} pieces)"
        ours_bytes = sizes["(a) ours"]
        byte_rows.append(
            [title, _kb(sizes["text"]), _kb(ours_bytes), _kb(sizes["coalesced"]), _kb(sizes["one batch"])]
            + [_kb(sizes["openai"])]
            + [
                unfinished.get(name) or f"{_kb(sizes.get(name))} ({_times(sizes.get(name), ours_bytes)})"
                for name in [c.name for c in contenders[1:]]
            ]
        )
        ours_time = results["(a) ours"].median
        pieces = sum(len(c.pieces) for c in calls)
        per_piece = "-" if ours_time is None else harness.format_time(ours_time / pieces)
        cpu_rows.append(
            [title, results["(a) ours"].cell(), per_piece]
            + [f"{results[c.name].cell()} ({_times(results[c.name].median, ours_time)})" for c in contenders[1:]]
        )
        session.raw[case.key] = {"bytes": sizes, "cpu": {name: result.to_json() for name, result in results.items()}}
        measured["write" if case.key.startswith("1") else case.key] = (title, sizes, results)
    names = ["(b) snapshots", "(c) jsonpatch.make_patch", "(d) jsoncurrent"]
    headers = ["bytes", "text", "(a) ours", "ours, coalesced x4", "ours, one batch", "OpenAI's chunks", *names]
    print(session.table(headers, byte_rows))
    print()
    print(session.table(["server CPU, whole stream", "(a) ours", "ours a piece", *names], cpu_rows))
    print()
    print(target_table(session, measured, scale, judge=not args.quick))
    if args.no_client:
        return 0
    print()
    lines, wrong = client_table(session, max(rounds, 3))
    print("\n".join(lines))
    return 1 if wrong else 0


def bytes_per_text_byte(workload: workloads.Workload) -> float:
    """Our bytes (one event a piece) over the text's, untimed: the same per byte at any size where they are linear."""
    return sum(ours(call.pieces, float("inf")) for call in workload.calls) / workload.utf8_bytes


def target_table(session: harness.Session, measured: dict[str, Any], scale: float, judge: bool) -> str:
    """Issue 31's targets, each with its value and verdict (judged at the full sizes only). ``measured``: each case's
    title, bytes and CPU results, the write call's under ``"write"``."""
    targets = harness.Targets()
    rows: list[list[str]] = []

    def row(target: str, case: str, value: Optional[float], op: str, limit: float, bound: bool = False) -> None:
        verdict = targets.judge(value, op, limit, bound) if judge else ""
        rows.append([target, case, "-" if value is None else f"{harness.format_ratio(value, bound)}{verdict}"])

    small = scale / 10
    for name, large, smaller in (
        ("write call", workloads.write_file(5, scale), workloads.write_file(5, small)),
        ("records", _records(int(2000 * 270 * scale)), _records(int(2000 * 270 * small))),
    ):
        ratio = bytes_per_text_byte(large) / bytes_per_text_byte(smaller)
        row("bytes linear: ours per text byte, at 10x the size", name, ratio, "<=", 1.1)
    for title, sizes, results in measured.values():
        ours_bytes = sizes["(a) ours"]
        row("bytes at most OpenAI's chunks: theirs / ours", title, sizes["openai"] / ours_bytes, ">=", 1)
        row("coalesced near the text: one batch / text", title, sizes["one batch"] / sizes["text"], "<=", 1.25)
        theirs = sizes.get("(d) jsoncurrent")
        row("bytes ahead of jsoncurrent: (d) / ours", title, theirs and theirs / ours_bytes, ">=", 1)
        value, bound = harness.ratio(results["(d) jsoncurrent"], results["(a) ours"], CAP)
        row("CPU ahead of jsoncurrent: (d) / ours", title, value, ">=", 1, bound)
    title, sizes, results = measured["write"]
    snapshot_bytes = sizes.get("(b) snapshots")
    fewer = snapshot_bytes and snapshot_bytes / sizes["(a) ours"]
    row("bytes: snapshots / ours, the 100 KB call", title, fewer, ">=", 100)
    value, bound = harness.ratio(results["(c) jsonpatch.make_patch"], results["(a) ours"], CAP)
    row("CPU: jsonpatch.make_patch / ours, the 100 KB call", title, value, ">=", 100, bound)
    summary = targets.summary() if judge else "Targets not judged: they apply to the full sizes"
    return session.table(["target (issue 31)", "case", "value"], rows) + "\n" + summary


def _records(size: int) -> workloads.Workload:
    text = workloads.structured_output(size, seed=5)
    return workloads.Workload(
        "R", f"{len(text) // 1000} KB of records", [workloads.Call(text, workloads.token_pieces(text, 5))]
    )


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


# --- The client: patches.js applying the ops as the value grows ----------------------------------------------------


def client_cases() -> list[tuple[str, str, list[str]]]:
    """(title, text, pieces) of the client's two streams, each past 1 MB + 64 KB: one string growing (the write call's
    content, ``append`` operations) and an array of records growing (``add`` operations, deeper paths)."""
    write = workloads.write_file(56, 1.0).calls[0]
    records = workloads.structured_output(1_150_000, seed=6)
    return [
        (f"write-file call, {_kb(_utf8(write.text))}", write.text, write.pieces),
        (f"records, {_kb(_utf8(records))}", records, workloads.token_pieces(records, 6)),
    ]


def client_fixture(text: str, pieces: list[str]) -> dict[str, Any]:
    """What ``bench/apply_patches.mjs`` reads: our server-sent events of the pieces (one a piece that changed the
    value), the events that take the text through each window, and the final value."""
    parser, patches, wire = StreamingJsonParser(), PatchStream(), PatchWire()
    messages: list[str] = []
    offsets: list[int] = []  # the text's UTF-8 size after each event's piece
    read = 0
    for piece in pieces:
        read += _utf8(piece)
        ops = patches.ops(parser.append(piece))
        if ops:
            messages += wire.render(PatchEvent.changed(None, ops, piece))
            offsets.append(read)
    assert read >= max(CLIENT_WINDOWS.values()) + CLIENT_SPAN, "the text is shorter than the last window"
    windows = {
        name: [bisect.bisect_left(offsets, start), bisect.bisect_left(offsets, start + CLIENT_SPAN)]
        for name, start in CLIENT_WINDOWS.items()
    }
    return {"sse": "".join(messages), "windows": windows, "final": json.loads(text)}


READINGS = ("apply", "handle")


def node_client(fixture: Path, rounds: int, readings: tuple[str, ...] = READINGS) -> dict[str, Any]:
    """``bench/apply_patches.mjs`` in Node on the fixture file."""
    script = str(harness.ROOT / "bench" / "apply_patches.mjs")
    measured: dict[str, Any] = harness.child_json(["node", script, str(fixture), str(rounds), ",".join(readings)])
    return measured


_PAGE = """<!doctype html><meta charset="utf-8"><title>apply_patches</title>
<script type="module">
import { measure } from "/bench/apply_patches.mjs";
fetch("/fixture.json")
  .then((response) => response.json())
  .then((fixture) => measure(fixture, ROUNDS, READINGS))
  .then((measured) => { window.__measured = measured; })
  .catch((error) => { window.__measured = { error: String(error) }; });
</script>"""


def chromium_client(fixture: Path, rounds: int, readings: tuple[str, ...] = READINGS) -> dict[str, Any]:
    """``bench/apply_patches.mjs`` in headless Chromium, imported by a page served from 127.0.0.1."""
    from bench.chromium import headless_chromium, serve

    page = _PAGE.replace("ROUNDS", str(rounds)).replace("READINGS", json.dumps(list(readings)))
    files = {
        "/": page.encode(),
        "/bench/apply_patches.mjs": (harness.ROOT / "bench" / "apply_patches.mjs").read_bytes(),
        "/streaming_json/static/patches.js": (harness.ROOT / "streaming_json" / "static" / "patches.js").read_bytes(),
        "/fixture.json": fixture.read_bytes(),
    }
    with serve(files) as url, tempfile.TemporaryDirectory() as profile:
        browser = headless_chromium(Path(profile))
        try:
            browser.get(url + "/")
            deadline = harness.perf_counter() + 900
            # Polled: the page measures on its main thread, which answers once it is done.
            while (measured := browser.execute_script("return window.__measured || null")) is None:
                if harness.perf_counter() > deadline:
                    raise RuntimeError("the page did not finish measuring in 15 minutes")
                time.sleep(0.5)
        finally:
            browser.quit()
    if "error" in measured:
        raise RuntimeError(f"the page failed: {measured['error']}")
    return measured


def _runtimes() -> list[tuple[str, Callable[[Path, int], dict[str, Any]], str]]:
    """(name, runner, why it is missing or "") for Node and Chromium."""
    from bench import chromium

    found: list[tuple[str, Callable[[Path, int], dict[str, Any]], str]] = []
    found.append(("Node " + _node_version(), node_client, "" if shutil.which("node") else "no node on PATH"))
    missing = ""
    if not chromium.installed():
        missing = "apt-get install chromium chromium-driver"
    elif harness.package_version("selenium") is None:
        missing = "selenium is not installed (the bench extra has it)"
    found.append(("headless Chromium", chromium_client, missing))
    return found


def _node_version() -> str:
    if shutil.which("node") is None:
        return ""
    version: str = harness.child_json(["node", "-e", "console.log(JSON.stringify(process.version))"])
    return version


def client_table(session: harness.Session, rounds: int) -> tuple[list[str], bool]:
    """The client's table (runtime, stream, reading: ns per piece in each window, the ratio against the target) and
    its targets' tally; and whether a run ended with another value than the stream's."""
    targets = harness.Targets()
    rows = []
    wrong = False
    with tempfile.TemporaryDirectory() as folder:
        fixtures = []
        for number, (title, text, pieces) in enumerate(client_cases()):
            path = Path(folder) / f"fixture-{number}.json"
            path.write_text(json.dumps(client_fixture(text, pieces), ensure_ascii=False), encoding="utf-8")
            fixtures.append((title, path))
        for runtime, runner, missing in _runtimes():
            for title, path in fixtures:
                if missing:
                    rows.append([runtime, title, "-", "n/a", "n/a", missing])
                    continue
                measured = runner(path, rounds)
                session.raw.setdefault("client", {})[f"{runtime}: {title}"] = measured
                wrong = wrong or not measured["final_ok"]
                for reading, label in (("apply", "applyPatch"), ("handle", "LiveValues.handle")):
                    small, large = measured[reading]["64 KB"], measured[reading]["1 MB"]
                    flat = large / small
                    cell = f"{flat:.2f}x{targets.judge(flat, '<=', CLIENT_FLAT)}"
                    if not measured["final_ok"]:
                        cell += " MISMATCH"
                    rows.append([runtime, title, label, f"{small:,.0f} ns", f"{large:,.0f} ns", cell])
    headers = ["client, per piece", "stream", "reading", "text at 64 KB", "text at 1 MB", "1 MB / 64 KB"]
    return [session.table(headers, rows), targets.summary()], wrong
