"""Our SDK adapters' cost per event over the parser in instructions, counted by callgrind: a figure that a slow or
noisy machine does not change, where the sdk suite's wall times do (they can differ by 2x from one day's machine to
the next).

What is counted. The write-file call (20 KB at ``--scale 1``) is built as each API's events, as the sdk suite builds
them (SDK objects through ``construct_type``, or dicts), all up front. Three of the sdk suite's readers then read
them, each in a process of its own under callgrind (``python -m bench instructions --child ...``, started from the
repository root): ``parser`` (the pieces appended to a ``ToolCallArgumentsStream``), ``floor`` (each piece read
straight out of its event, then appended) and ``ours`` (the API's accumulator, ``feed``). Only the reading is
counted: a marker library, compiled with gcc against valgrind's ``callgrind.h``, switches callgrind's instrumentation
on before it and its collection on and off around it. Each reader reads a prefix of the events first, uncounted, so
that the interpreter has specialised its code, as it has in a long stream. The table gives (reader - parser) /
events.

What it does not count. An instruction is not a nanosecond: a load that misses the caches counts as one, and walking
an SDK chunk's five objects misses them often (see the sdk suite's floor). Use this for what the adapter's own code
costs, and to compare two versions of it; use the sdk suite for time.

    python -m bench instructions [--quick] [--scale S] [--api anthropic|chat|responses ...] [--json out.json]
    python -m bench instructions --walks [--scale S]
    python -m bench instructions --patches [--scale S] [--api ...]

``--patches`` counts instead what ``streaming_json.patches`` adds to each adapter: ``ToolCallPatches`` over the
API's accumulator (the JSON Patch operations of each piece, and the op events), and the same with each op event
written as our server-sent events (``PatchWire``), beside ``ours``.

``--walks`` counts instead what walking an OpenAI Chat chunk (SDK objects) down to its piece costs, with no checks, by
each way Python code can read a pydantic model's fields (``WALKS``): the floor of any plain-Python reader of it.

Needs valgrind (with its headers: Debian's ``valgrind`` package), gcc, and the SDKs (the test extra).
"""

from __future__ import annotations

import argparse
import gc
import json
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from bench import events as event_streams
from bench import harness

PACKAGES = ("anthropic", "openai", "pydantic")
MARKDOWN = True

MARKER_SOURCE = """
#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
void stop(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS; }
"""
READERS = ("parser", "floor", "ours")
PATCH_READERS = ("parser", "ours", "patches", "patches_sse")
APIS = event_streams.APIS
SHAPES = ("sdk", "dicts")
WARM_UP_EVENTS = 200
# Each way Python code can read an SDK model's fields, walking a Chat chunk down to its piece (no checks).
WALKS = {
    "attributes": "event.choices[0].delta.tool_calls[0].function.arguments",
    "__dict__": 'event.__dict__["choices"][0].__dict__["delta"].__dict__["tool_calls"][0].__dict__["function"]'
    '.__dict__["arguments"]',
    "the __dict__ getter": 'get(get(get(get(get(event)["choices"][0])["delta"])["tool_calls"][0])["function"])'
    '["arguments"]',
    "operator.attrgetter": "function_arguments(delta_tool_calls(event.choices[0])[0])",
    "object.__getattribute__": 'oga(oga(oga(oga(oga(event, "choices")[0], "delta"), "tool_calls")[0], "function"),'
    ' "arguments")',
}


# --- Child: one reader under callgrind ------------------------------------------------------------------------------


def run_walk(walk: str, event: object) -> object:
    """The sdk suite's floor reader for Chat SDK objects (``event`` is one of them), with the piece read by one of
    ``WALKS``."""
    from bench.suites import sdk
    from streaming_json.integrations._fields import instance_dict_reader

    return sdk.run_floor(
        "chat",
        "sdk",
        WALKS[walk],
        get=instance_dict_reader(event),
        delta_tool_calls=operator.attrgetter("delta.tool_calls"),
        function_arguments=operator.attrgetter("function.arguments"),
        oga=object.__getattribute__,
    )


def run_patches(accumulator_class: type, sse: bool) -> Callable[..., tuple[float, object]]:
    """``ToolCallPatches`` over the accumulator, feeding each event (and, with ``sse``, writing each op event as our
    server-sent events); the sdk suite's reader contract (the seconds are not timed here: 0)."""
    from streaming_json.patches import PatchWire, ToolCallPatches

    def run(stream: object, events: list[tuple[object, object]]) -> tuple[float, object]:
        patches = ToolCallPatches(accumulator_class)
        feed = patches.feed
        if sse:
            render = PatchWire().render
            for event, _ in events:
                for patch_event in feed(event):
                    render(patch_event)
        else:
            for event, _ in events:
                feed(event)
        patches.finish()
        (call,) = patches.tool_calls.calls
        return 0.0, call.arguments

    return run


def read_events(reader: str, api: str, shape: str, scale: float, marker: str) -> None:
    """In the child process under callgrind: build the events, warm the reader up, count one read of them all."""
    import ctypes

    from bench import workloads
    from bench.suites import sdk

    stream = sdk.streams(workloads.write_file(1, scale))
    build = event_streams.sdk_builder(api) if shape == "sdk" else json.loads  # this API's SDK alone: imports are slow
    events = list(sdk.fresh_events(stream, api, build))
    if reader.startswith("walk:"):
        run = run_walk(reader[len("walk:") :], events[0][0])
    else:
        run = {
            "parser": sdk.run_parser(api),
            "floor": sdk.run_floor(api, shape),
            "ours": sdk.run_ours(sdk.ACCUMULATORS[api], api),
            "patches": run_patches(sdk.ACCUMULATORS[api], sse=False),
            "patches_sse": run_patches(sdk.ACCUMULATORS[api], sse=True),
        }[reader]
    run(stream, events[:WARM_UP_EVENTS])
    collect = ctypes.CDLL(marker)
    gc.collect()
    gc.disable()
    collect.start()
    _, arguments = run(stream, events)
    collect.stop()
    if arguments != json.loads(stream.text):
        sys.exit(f"{reader} read {api} {shape} events wrongly")
    print(json.dumps({"events": len(events)}))


# --- Parent: the children, the table --------------------------------------------------------------------------------


def count_child(argv: list[str], name: str, folder: str) -> tuple[int, Any]:
    """Run ``python -m bench ARGV...`` under callgrind (its collection switched on and off by the marker library the
    child loads); return (instructions counted, the JSON the child printed)."""
    out = Path(folder) / f"{re.sub(r'[^A-Za-z0-9]+', '_', name)}.out"
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no"]
    command += [f"--callgrind-out-file={out}", sys.executable, "-m", "bench", *argv]
    found = harness.child_json(command, env={**os.environ, "PYTHONHASHSEED": "0"})
    totals = [
        int(line.split()[1])
        for path in Path(folder).glob(f"{out.name}*")
        for line in path.read_text().splitlines()
        if line.startswith("totals:")
    ]
    return max(totals), found


def count(reader: str, api: str, shape: str, scale: float, marker: str, folder: str) -> tuple[int, int]:
    """Run one reader under callgrind; return (instructions counted, events read)."""
    argv = ["instructions", "--child", reader, api, shape, str(scale), marker]
    total, read = count_child(argv, f"{reader}-{api}-{shape}", folder)
    return total, int(read["events"])


def build_marker(folder: str) -> str:
    source, library = Path(folder) / "marker.c", Path(folder) / "marker.so"
    source.write_text(MARKER_SOURCE)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(library), str(source)], check=True)
    return str(library)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", type=float, help="of the 20 KB write-file call (default 0.25, quick 0.05)")
    parser.add_argument("--api", action="append", choices=APIS, help="the APIs to count (default: all)")
    parser.add_argument("--walks", action="store_true", help="count walking a Chat chunk by each way of reading it")
    parser.add_argument("--patches", action="store_true", help="count the patches layer over each adapter")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)


def run(session: harness.Session) -> int:
    args = session.args
    if args.child:
        reader, api, shape, scale, marker = args.child
        read_events(reader, api, shape, float(scale), marker)
        return 0
    missing = [tool for tool in ("valgrind", "gcc") if shutil.which(tool) is None]
    if missing:
        print(f"the instructions suite needs {' and '.join(missing)}", file=sys.stderr)
        return 2
    scale = args.scale or (0.05 if args.quick else 0.25)
    apis = args.api or list(APIS)
    if args.walks:
        jobs = [("parser", "chat", "sdk")] + [(f"walk:{walk}", "chat", "sdk") for walk in WALKS]
    elif args.patches:
        jobs = [(reader, api, shape) for api in apis for shape in event_streams.SHAPES[api] for reader in PATCH_READERS]
    else:
        jobs = [(reader, api, shape) for api in apis for shape in event_streams.SHAPES[api] for reader in READERS]
    with tempfile.TemporaryDirectory() as folder:
        marker = build_marker(folder)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            futures = {job: pool.submit(count, *job, scale, marker, folder) for job in jobs}
            counted = {job: future.result() for job, future in futures.items()}
    session.raw.update({"scale": scale, "counts": {" ".join(job): list(found) for job, found in counted.items()}})
    print(harness.environment_line(session.env))
    if args.walks:
        baseline, events = counted["parser", "chat", "sdk"]
        print(
            f"Walking a Chat chunk (SDK objects) to its piece, no checks: instructions per event over the parser, "
            f"callgrind, write-file call at scale {scale} ({events:,} events)"
        )
        rows = [[walk, f"{(counted[f'walk:{walk}', 'chat', 'sdk'][0] - baseline) / events:,.0f}"] for walk in WALKS]
        print(session.table(["read of each model", "instructions"], rows))
        return 0
    if args.patches:
        print(
            f"streaming_json.patches over the adapters: instructions per event over the parser, callgrind, write-file "
            f"call at scale {scale}"
        )
        rows = []
        for api in apis:
            for shape in event_streams.SHAPES[api]:
                baseline, events = counted["parser", api, shape]
                cells = [f"{(counted[reader, api, shape][0] - baseline) / events:,.0f}" for reader in PATCH_READERS[1:]]
                rows.append([api, shape, f"{events:,}", *cells])
        headers = ["API", "shape", "events", "ours (the adapter)", "ToolCallPatches", "ToolCallPatches + PatchWire"]
        print(session.table(headers, rows))
        return 0
    print(f"Instructions per event over the parser, callgrind, write-file call at scale {scale}")
    rows = []
    for api in apis:
        cells = []
        for shape in SHAPES:
            if shape not in event_streams.SHAPES[api]:
                cells += ["-", "-", "-"]
                continue
            baseline, events = counted["parser", api, shape]
            floor, ours = (counted[reader, api, shape][0] for reader in ("floor", "ours"))
            cells += [f"{(floor - baseline) / events:,.0f}", f"{(ours - baseline) / events:,.0f}"]
            cells.append(f"{(ours - floor) / events:,.0f}")
        rows.append([api, f"{events:,}", *cells])
    headers = ["API", "events", "floor, SDK objects", "ours", "ours - floor", "floor, dicts", "ours", "ours - floor"]
    print(session.table(headers, rows))
    return 0
