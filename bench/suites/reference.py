"""The compiled core against the reference it ports: the TypeScript module on V8, and against the core as it was.

What is measured. Every contender replays each workload's pieces (``bench/workloads.py``: the peers' workloads, the
real corpus first), a new parser per call, ``append(piece)`` then ``snapshot()`` after every piece:

- ours: the compiled core and the pure backend, each with the reference's reading and with ``stable=True``, and the
  compiled core with ``changes=False`` (snapshots only, as the typed layer and ``iter_items``' callers read);
  each in a process of its own (``bench/replay_child.py``), warmed up on the case and timing its own runs, as the
  reference does: a contender timed in a heap that holds every workload pays more for the garbage collector's full
  passes, which would make the comparison with the reference's fresh process unfair;
- the reference: ``@earendil-works/pi-ai`` 1.6.0 from npm (its ``utils/streaming-json.js``), run under Node by
  ``bench/reference.mjs``, which warms V8 up on the case and times its own runs (wall time, the median of 5);
  ``make bench`` installs it into ``.venv-bench/node`` (``--reference-dir`` points elsewhere);
- with ``--baseline DIR``, a checkout of an earlier commit (built in place: ``python setup.py build_ext --inplace``):
  its two backends run in a child process (``PYTHONPATH=DIR``), timed as the reference is, so that "no workload
  slower than before" is measured in the same run;
- the floor: ``json.loads`` of the whole text once.

How. Wall time (a Node process's CPU time would count V8's background threads, which compile and collect beside the main
one), interleaved rounds: each round starts every contender's child once, which warms up on the case (3 runs and
half a second at least: V8 optimises on a background thread) and
reports the best of 5 timed runs; a cell is the median of the rounds' bests. On a shared machine the best of several
runs is the one least disturbed by the other processes. Fairly: a timed run keeps nothing of its output alive (each
call's last snapshot is dropped when the next call starts), in every contender alike; the final values come from one
more run of each child, untimed, and are compared with ``json.loads`` of the text (MISMATCH otherwise; the reference's
JavaScript numbers compare equal to Python's). Keeping every call's final value while timing slowed V8 itself (its
collector walked the kept results: 25-35 ms instead of 15-17 ms on the real corpus) and not CPython, which made the
reference look slower than it is. The floor targets are judged apart: each round, a fresh child times the contender and
``json.loads`` alternately, run by run (``bench/replay_child.py``), and the target is the median of those pairs' ratios
over the rounds, since the machine's speed drifted by up to 1.75x between processes started seconds apart (the ratios of
the separately timed cells are still shown). Targets (issues 23 and 33): the compiled core at or below the reference on
every workload, the real corpus included (issue 33's moonshot there: 0.7), bulk reading (workload 4, 1.2 MB of records
in 4 KB pieces) within 1.4x of one ``json.loads``, and within 1.1x with ``changes=False``, and no workload slower than
the baseline.

    python -m bench reference [--quick] [--rounds N] [--only 8,4] [--baseline DIR] [--reference-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from importlib import import_module
from pathlib import Path
from typing import Any

from bench import harness, workloads
from bench.harness import ROOT, Contender, Timed, contender
from bench.workloads import Workload

PACKAGES = ()
MARKDOWN = True
ORDER = ["8", "1", "2", "3", "4", "5", "6"]
REFERENCE_DIR = ROOT / ".venv-bench" / "node"
REFERENCE_PACKAGE = "@earendil-works/pi-ai@1.6.0"
CHILD_RUNS = 5
WARMUP_SECONDS = 0.5  # and at least 3 runs, every child alike (why: bench/reference.mjs)
# The floor targets (bulk reading against one json.loads) are judged on each contender paired with json.loads in one
# child process, PAIRS alternating runs of each a round: bench/replay_child.py says why.
PAIRS = 15
FLOOR_KEYS = {"4"}
FLOOR_TARGETS = [
    # (header, the child contender, limit)
    ("cython/json.loads", "cython", 1.4),
    ("changes=False/json.loads", "cython-no-changes", 1.1),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default: 5)")
    parser.add_argument("--only", help="comma-separated workload keys (default: all)")
    parser.add_argument("--baseline", type=Path, help="a built checkout of an earlier commit, timed beside ours")
    parser.add_argument("--reference-dir", type=Path, default=REFERENCE_DIR, help="where the npm package is installed")


# --- Contenders -----------------------------------------------------------------------------------------------------


class CaseFiles:
    """Each workload's pieces written once to a JSON file that the child contenders read."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="streaming-json-reference-"))
        self.paths: dict[str, Path] = {}

    def path(self, workload: Workload, warmup: int) -> Path:
        if workload.key not in self.paths:
            path = self.directory / f"workload-{workload.key}.json"
            calls = [call.pieces for call in workload.calls]
            case = {
                "calls": calls,
                "warmup": warmup,
                "warmup_seconds": WARMUP_SECONDS,
                "runs": CHILD_RUNS,
                "pairs": PAIRS,
            }
            path.write_text(json.dumps(case), encoding="utf-8")
            self.paths[workload.key] = path
        return self.paths[workload.key]

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def node_reference(files: CaseFiles, reference_dir: Path) -> harness.Runner:
    def run(workload: Workload, deadline: float) -> Timed:
        case = files.path(workload, warmup=3)
        out = harness.child_json(["node", str(ROOT / "bench" / "reference.mjs"), str(case), str(reference_dir)])
        return Timed(out["seconds"], out["finals"])

    return run


def run_child(checkout: Path, case: Path, *names: str) -> Any:
    """What bench/replay_child.py printed, run on the checkout's streaming_json: the contender ``names[0]``, paired
    with the floor ``names[1]`` where given."""
    environment = {**os.environ, "PYTHONPATH": str(checkout), "STREAMING_JSON_PURE_PYTHON": "0"}
    script = str(ROOT / "bench" / "replay_child.py")
    return harness.child_json([sys.executable, script, str(case), *names], env=environment)


def child(files: CaseFiles, checkout: Path, name: str) -> harness.Runner:
    """A contender timed in a process of its own (bench/replay_child.py), on the checkout's streaming_json."""

    def run(workload: Workload, deadline: float) -> Timed:
        out = run_child(checkout, files.path(workload, warmup=3), name)
        return Timed(out["seconds"], out["finals"])

    return run


def paired_floors(files: CaseFiles, workload: Workload, rounds: int, expected: Any) -> dict[str, harness.Result]:
    """Each floor target's contender paired with json.loads: a fresh child a round (the targets interleaved), each
    reporting the median of its pairs' ratios; a result's "times" are those ratios, by header."""
    results = {header: harness.Result() for header, _, _ in FLOOR_TARGETS}
    case = files.path(workload, warmup=3)
    for _ in range(rounds):
        for header, name, _ in FLOOR_TARGETS:
            result = results[header]
            if result.status:
                continue
            try:
                out = run_child(ROOT, case, name, "json.loads")
            except Exception as error:  # reported, as the harness reports a contender that breaks
                result.status, result.detail = "ERROR", f"{type(error).__name__}: {error}"[:200]
                continue
            if out["finals"] != expected:
                result.status, result.detail = "MISMATCH", "its final value differs from the expected one"
                continue
            result.times.append(out["ratio"])
    return results


def make_contenders(args: argparse.Namespace, files: CaseFiles) -> list[Contender]:
    def ours(name: str, child_name: str) -> Contender:
        import_module("streaming_json._core" if name.startswith("cython") else "streaming_json._pure")
        return Contender(name, child(files, ROOT, child_name), ours=True, capped=False)

    def reference() -> Contender:
        if shutil.which("node") is None:
            raise ImportError("no node on PATH")
        if not (args.reference_dir / "node_modules" / "@earendil-works" / "pi-ai").is_dir():
            raise ImportError(f"npm install --prefix {args.reference_dir} {REFERENCE_PACKAGE} (make bench does)")
        return Contender("reference", node_reference(files, args.reference_dir), capped=False)

    contenders = [
        contender("cython", lambda: ours("cython", "cython"), missing="not built"),
        contender("cython stable", lambda: ours("cython stable", "cython-stable"), missing="not built"),
        contender(
            "cython changes=False", lambda: ours("cython changes=False", "cython-no-changes"), missing="not built"
        ),
        contender("pure", lambda: ours("pure", "pure")),
        contender("pure stable", lambda: ours("pure stable", "pure-stable")),
        contender("reference", reference),
        Contender("json.loads", child(files, ROOT, "json.loads"), capped=False),
    ]
    if args.baseline is not None:
        for backend in ("cython", "pure"):
            contenders.append(
                Contender(f"{backend} (base)", child(files, args.baseline.resolve(), backend), capped=False)
            )
    return contenders


def reference_versions(reference_dir: Path) -> str:
    """Node's version and the reference package's, for the environment line."""
    manifest = reference_dir / "node_modules" / "@earendil-works" / "pi-ai" / "package.json"
    if shutil.which("node") is None or not manifest.exists():
        return "; reference: not installed"
    node = harness.child_json(["node", "-e", "console.log(JSON.stringify(process.version))"])
    return f"; node {node}, {REFERENCE_PACKAGE.rsplit('@', 1)[0]} {json.loads(manifest.read_text())['version']}"


# --- Targets and report ---------------------------------------------------------------------------------------------

RATIOS = [
    # (header, slower, faster, target (op, limit) or None, the workloads the target applies to)
    ("cython/reference", "cython", "reference", ("<=", 1.0), {"8", "1", "2", "3", "4", "5", "6"}),
    ("cython stable/reference", "cython stable", "reference", None, set()),
    # Against json.loads timed apart: shown; the targets are judged paired (FLOOR_TARGETS).
    ("cython/json.loads", "cython", "json.loads", None, set()),
    ("changes=False/json.loads", "cython changes=False", "json.loads", None, set()),
    ("cython stable/cython", "cython stable", "cython", None, set()),
    ("cython/base", "cython", "cython (base)", ("<=", 1.05), set(ORDER)),
    ("pure/base", "pure", "pure (base)", ("<=", 1.05), set(ORDER)),
    ("pure stable/pure (base)", "pure stable", "pure (base)", None, set()),
]


def run(session: harness.Session) -> int:
    args = session.args
    scale = 0.1 if args.quick else 1.0
    rounds = 1 if args.quick else args.rounds
    keys = args.only.split(",") if args.only else ORDER
    files = CaseFiles()
    try:
        contenders = make_contenders(args, files)
        names = [c.name for c in contenders]
        print(harness.environment_line(session.env) + reference_versions(args.reference_dir))
        done = []
        floors: list[tuple[Workload, dict[str, harness.Result]]] = []
        for key in keys:
            workload = workloads.build(key, scale)
            if workload is None:
                continue
            session.progress(f"workload {key}: {workload.title}")
            expected = [json.loads(call.text) for call in workload.calls]
            results = harness.measure(contenders, workload, rounds=rounds, expected=expected)
            done.append((workload, results))
            session.raw[key] = {name: results[name].to_json() for name in names}
            if key in FLOOR_KEYS and "cython" in names and results["cython"].status != "n/a":
                session.progress(f"workload {key}: paired with json.loads")
                paired = paired_floors(files, workload, rounds, expected)
                floors.append((workload, paired))
                session.raw[key]["paired with json.loads"] = {h: r.to_json() for h, r in paired.items()}
    finally:
        files.remove()
    targets = harness.Targets()
    print(
        session.table(
            ["key", "what", "chars", "pieces"], [[w.key, w.title, f"{w.chars:,}", f"{w.pieces:,}"] for w, _ in done]
        )
    )
    print("\nMedian time per workload (append, then snapshot after every piece; no output kept while timed)")
    print(session.table(["key", *names], [[w.key] + [r[n].cell() for n in names] for w, r in done]))
    for c in contenders:
        if c.run is None:
            print(f"{c.name}: n/a ({c.missing})")
    print("\nRatios ('ok'/'MISS' against the targets)")
    present = [entry for entry in RATIOS if entry[1] in names and entry[2] in names]
    rows = []
    for w, results in done:
        row = [w.key]
        for _, slow, fast, target, applies in present:
            value, bound = harness.ratio(results[slow], results[fast])
            text = harness.format_ratio(value, bound)
            if target and w.key in applies:
                text += targets.judge(value, *target, bound=bound)
            row.append(text)
        rows.append(row)
    print(session.table(["key", *[entry[0] for entry in present]], rows))
    if floors:
        print(
            f"\nAgainst json.loads in one process: each round a fresh child alternates the two, {PAIRS} runs each;"
            " the median of its pairs' ratios, then the median over the rounds"
        )
        rows = []
        for w, paired in floors:
            row = [w.key]
            for header, _, limit in FLOOR_TARGETS:
                result = paired[header]
                if result.median is None:
                    row.append(result.cell())
                else:
                    row.append(harness.format_ratio(result.median) + targets.judge(result.median, "<=", limit))
            rows.append(row)
        print(session.table(["key", *[header for header, _, _ in FLOOR_TARGETS]], rows))
    print(targets.summary())
    broken = any(result.failed for _, paired in floors for result in paired.values())
    return 1 if broken or harness.failed([r for _, r in done], contenders) else 0
