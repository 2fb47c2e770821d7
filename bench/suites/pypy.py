"""The pure backend on PyPy against the compiled core on CPython, on the LLM workloads (issue 9).

What is measured. Each contender streams every call of a workload through a fresh parser, ``append(piece)`` then
``snapshot()`` per piece, as a live UI does (the loop of the peers suite), and its final value is checked against
``json.loads``. Contenders:

- ``cpython compiled``: the compiled core (``streaming_json._core``) on the CPython running this suite;
- ``pypy pure``: the pure backend (``streaming_json._pure``) on PyPy (``--pypy``, default ``pypy3``);
- ``cpython pure``: the pure backend on this CPython, for scale (``--no-cpython-pure`` leaves it out).

Warm-up policy. Every (contender, workload) pair runs in a fresh process (``python -m bench pypy --child``, from the
repository root, so that PyPy imports this checkout's streaming_json), so that the first run is truly cold: on PyPy it
includes tracing and compiling the JIT's loops, which a short-lived process (a CLI, a worker that parses one tool
call) pays in full. The process then runs the workload again and again; "warm" is the median of the last ``--runs``
runs after ``--warmup`` runs (default 20 on PyPy, where ``w3`` needs about 15 to settle; 3 on CPython, which has no
JIT), the state of a long-lived server. "runs to warm" is the first run within 10 % of that median.

The texts are generated once, here, and handed to every child, so that the two interpreters read the same
characters (``bench/workloads.py`` takes its Python source from the running interpreter's standard library). Times
are CPU time of the child (``process_time``, after ``gc.collect()``), since this machine is shared; the children of a
workload run one after another, the contenders in rotating order.

    python -m bench pypy [--quick] [--pypy PATH] [--only 1,3] [--runs N] [--warmup N] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import process_time
from typing import Any

from bench import harness, workloads
from bench.replay_child import replay  # a new parser per call, append then snapshot after every piece

PACKAGES = ()
MARKDOWN = True

KEYS = ["1", "2", "3", "4", "5", "6", "8"]
WARM_WITHIN = 1.10  # "runs to warm": the first run within this factor of the warm median


# --- Child: one contender, one workload, one process ------------------------------------------------------------


def child(backend: str, pieces_file: Path, warmup: int, runs: int) -> dict[str, Any]:
    if backend == "compiled":
        from streaming_json import _core as module
    else:
        from streaming_json import _pure as module  # type: ignore[no-redef]
    calls = json.loads(pieces_file.read_text(encoding="utf-8"))
    expected = [json.loads("".join(pieces)) for pieces in calls]
    times = []
    for index in range(warmup + runs):
        gc.collect()
        start = process_time()
        finals = replay(module.StreamingJsonParser, calls)
        times.append(process_time() - start)
        if index == 0 and finals != expected:
            implementation = platform.python_implementation()
            raise SystemExit(f"{backend} on {implementation}: the final values differ from json.loads")
    return {"implementation": platform.python_implementation(), "times": times}


# --- Parent: the workloads, the children, the table --------------------------------------------------------------


def _summary(times: list[float], warmup: int) -> dict[str, Any]:
    warm = statistics.median(times[warmup:])
    to_warm = next(index + 1 for index, t in enumerate(times) if t <= warm * WARM_WITHIN)
    return {"cold": times[0], "warm": warm, "runs_to_warm": to_warm, "times": times}


def _run_child(interpreter: str, backend: str, pieces_file: Path, warmup: int, runs: int) -> dict[str, Any]:
    command = [interpreter, "-m", "bench", "pypy", "--child", backend, "--pieces", str(pieces_file)]
    command += ["--warmup", str(warmup), "--runs", str(runs)]
    result: dict[str, Any] = harness.child_json(command)
    result.update(_summary(result["times"], warmup))
    return result


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pypy", default="pypy3", help="the PyPy interpreter (default: pypy3)")
    parser.add_argument("--only", help="comma-separated workloads (default: 1,2,3,4,5,6,8; quick: 1,3)")
    parser.add_argument("--runs", type=int, help="measured runs after the warm-up (default 9, quick 3)")
    parser.add_argument("--warmup", type=int, help="warm-up runs on PyPy (default 20, quick 5)")
    parser.add_argument("--cpython-warmup", type=int, default=3, help="warm-up runs on CPython (default 3)")
    parser.add_argument("--no-cpython-pure", action="store_true", help="leave out the pure backend on CPython")
    parser.add_argument("--child", choices=["pure", "compiled"], help=argparse.SUPPRESS)
    parser.add_argument("--pieces", type=Path, help=argparse.SUPPRESS)


def run(session: harness.Session) -> int:
    args = session.args
    if args.child:  # the parent gives every number
        print(json.dumps(child(args.child, args.pieces, args.warmup, args.runs)))
        return 0
    runs = args.runs if args.runs is not None else (3 if args.quick else 9)
    warmup = args.warmup if args.warmup is not None else (5 if args.quick else 20)
    if platform.python_implementation() != "CPython":
        raise SystemExit("run the pypy suite with CPython (it starts PyPy itself)")
    pypy_version = subprocess.run(
        [args.pypy, "-c", "import sys; print(sys.version.replace(chr(10), ' '))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(harness.environment_line(session.env))
    print(f"PyPy: {pypy_version}")
    print(f"warm-up: {warmup} runs on PyPy, {args.cpython_warmup} on CPython; warm = median of {runs} runs")
    contenders = [
        ("cpython compiled", sys.executable, "compiled", args.cpython_warmup),
        ("pypy pure", args.pypy, "pure", warmup),
    ]
    if not args.no_cpython_pure:
        contenders.append(("cpython pure", sys.executable, "pure", args.cpython_warmup))

    keys = args.only.split(",") if args.only else (["1", "3"] if args.quick else KEYS)
    scale = 0.125 if args.quick else 1.0
    rows, raw = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for turn, key in enumerate(keys):
            workload = workloads.build(key, scale)
            if workload is None:
                print(f"workload {key} skipped: no corpus at {workloads.CORPUS}")
                continue
            pieces_file = Path(folder) / f"{key}.json"
            pieces_file.write_text(json.dumps([call.pieces for call in workload.calls]), encoding="utf-8")
            session.progress(f"running {key}: {workload.title} ...")
            results = {}
            rotation = turn % len(contenders)
            for name, interpreter, backend, its_warmup in contenders[rotation:] + contenders[:rotation]:
                results[name] = _run_child(interpreter, backend, pieces_file, its_warmup, runs)
            raw[key] = {"title": workload.title, "chars": workload.chars, "results": results}
            compiled, pypy = results["cpython compiled"], results["pypy pure"]
            row = [
                f"{key} {workload.title}",
                _ms(compiled["cold"]),
                _ms(compiled["warm"]),
                _ms(pypy["cold"]),
                _ms(pypy["warm"]),
                str(pypy["runs_to_warm"]),
                f"{pypy['cold'] / compiled['cold']:.1f}x",
                f"{pypy['warm'] / compiled['warm']:.2f}x",
            ]
            if "cpython pure" in results:
                row.append(_ms(results["cpython pure"]["warm"]))
            rows.append(row)
    headers = ["workload", "compiled cold, ms", "compiled warm, ms", "PyPy pure cold, ms", "PyPy pure warm, ms"]
    headers += ["runs to warm"]
    headers += ["PyPy / compiled, cold", "PyPy / compiled, warm"]
    if not args.no_cpython_pure:
        headers.append("CPython pure, ms")
    print(session.table(headers, rows))
    session.raw.update({"pypy": pypy_version, "runs": runs, "workloads": raw})
    return 0
