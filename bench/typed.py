"""Typed streaming benchmark: ``streaming_json.pydantic.ModelStream`` against the other ways to get a typed partial
value after every piece.

Workloads (deterministic, from ``workloads.py``):

- ``W``: the 20 KB write-file tool call of workload 1, as ``WriteFile(path, content, overwrite)``, in token pieces;
- ``R``: a ``list[Record]`` of 2,000 records (ints, a float, a bool, optional fields, a list of tags), in token
  pieces; ``R8``: the same at 16,000 records (time per character should stay flat).

Contenders, each fed every piece and making the typed partial value available after it, then giving the final
validated value:

- ``typed`` (compiled core) and ``typed-pure`` (pure backend): ``ModelStream(type_).append(piece)`` per piece, then
  ``finish()`` (one ``validate_json`` of the whole text);
- ``instructor``: ``Partial[Model].model_from_chunks(pieces)``, which re-parses the buffer with jiter and rebuilds
  the partial model on every piece (it takes a model, so it runs on ``W`` only);
- ``pydantic``: ``TypeAdapter(type_).validate_json(buffer, experimental_allow_partial="trailing-strings")`` on every
  piece (a failure keeps the last value);
- floors: ``untyped``, the compiled parser's ``append`` + ``snapshot()`` per piece (what typing adds to parsing), and
  ``validate_json``, one validation of the whole text.

Every repeat runs every contender once, in rotating order, after ``gc.collect()``; cells are medians. A contender is
stopped once a run passes the cap (``> cap (x% done)``: the share of pieces it was fed) and is not repeated once its
runs add up to the cap. Each contender's final value must equal ``TypeAdapter(type_).validate_json(text)`` (else
MISMATCH).

    python bench/typed.py [--quick] [--repeats N] [--cap SECONDS] [--only W,R,R8] [--markdown]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import platform
import random
import statistics
import sys
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from time import perf_counter
from typing import Any, Callable, Optional

from pydantic import BaseModel, TypeAdapter

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's streaming_json, and workloads.py

import workloads  # noqa: E402

from streaming_json.pydantic import ModelStream  # noqa: E402


class WriteFile(BaseModel):
    path: str
    content: str
    overwrite: bool


class Record(BaseModel):
    id: int
    name: str
    score: float
    active: bool
    parent: Optional[int] = None
    tags: list[str]
    note: Optional[str] = None


def record(index: int, rng: random.Random) -> dict[str, Any]:
    """About 100 characters of JSON: ints, a float, a bool, an optional int (null in 70%), tags, an optional note
    (absent in 80%)."""
    value: dict[str, Any] = {
        "id": index,
        "name": rng.choice(workloads.NAMES),
        "score": round(rng.uniform(-1000, 1000), 4),
        "active": rng.random() < 0.5,
        "parent": rng.randrange(index + 1) if rng.random() < 0.3 else None,
        "tags": rng.sample(workloads.TAGS, rng.randint(0, 3)),
    }
    if rng.random() < 0.2:
        value["note"] = rng.choice(workloads.NOTES)
    return value


@dataclass
class Case:
    key: str
    title: str
    type_: Any
    text: str
    pieces: list[str]
    expected: Any = None

    def __post_init__(self) -> None:
        self.expected = TypeAdapter(self.type_).validate_json(self.text)


def write_call(scale: float) -> Case:
    call = workloads.write_file(1, scale).calls[0]
    return Case("W", f"write-file call, {len(call.text) // 1000} KB", WriteFile, call.text, call.pieces)


def records(count: int, key: str) -> Case:
    rng = random.Random(11)
    text = json.dumps([record(index, rng) for index in range(count)], ensure_ascii=False)
    title = f"list[Record], {count:,} records, {len(text) // 1000} KB"
    return Case(key, title, list[Record], text, workloads.token_pieces(text, 12))


class Stopped(Exception):
    def __init__(self, done: int) -> None:
        self.done = done


Runner = Callable[[Case, float], Any]  # (case, deadline) -> final value


def typed(parser_module: str) -> Runner:
    parser_class = import_module(parser_module).StreamingJsonParser

    def run(case: Case, deadline: float) -> Any:
        stream = ModelStream(case.type_, parser_class=parser_class)
        append = stream.append
        for number, piece in enumerate(case.pieces):
            append(piece)
            if not number & 1023 and perf_counter() > deadline:
                raise Stopped(number)
        return stream.finish().value

    return run


def untyped(case: Case, deadline: float) -> Any:
    from streaming_json._core import StreamingJsonParser

    parser = StreamingJsonParser()
    append, snapshot = parser.append, parser.snapshot
    for piece in case.pieces:
        append(piece)
        snapshot()
    return TypeAdapter(case.type_).validate_json(case.text)  # (checked like the others; not timed as theirs are)


def validate_once(case: Case, deadline: float) -> Any:
    return TypeAdapter(case.type_).validate_json(case.text)


def instructor(case: Case, deadline: float) -> Any:
    from instructor import Partial

    if not (isinstance(case.type_, type) and issubclass(case.type_, BaseModel)):
        raise NotApplicable("Partial[...] takes a model; the document is a list")
    latest = None
    for number, value in enumerate(Partial[case.type_].model_from_chunks(iter(case.pieces))):  # type: ignore[misc]
        latest = value
        if perf_counter() > deadline:
            raise Stopped(number + 1)
    return latest


def pydantic_partial(case: Case, deadline: float) -> Any:
    validate = TypeAdapter(case.type_).validate_json
    buffer, value = "", None
    for number, piece in enumerate(case.pieces):
        buffer += piece
        with contextlib.suppress(ValueError):  # a ValidationError: the text so far does not validate even partially
            value = validate(buffer, experimental_allow_partial="trailing-strings")
        if perf_counter() > deadline:
            raise Stopped(number + 1)
    return value


class NotApplicable(Exception):
    pass


@dataclass
class Contender:
    name: str
    run: Optional[Runner]
    missing: str = ""
    capped: bool = True


def contenders() -> list[Contender]:
    found = []
    for name, make in (
        ("typed", lambda: typed("streaming_json._core")),
        ("typed-pure", lambda: typed("streaming_json._pure")),
        ("instructor", lambda: (import_module("instructor"), instructor)[1]),
        ("pydantic", lambda: pydantic_partial),
        ("untyped", lambda: (import_module("streaming_json._core"), untyped)[1]),
        ("validate_json", lambda: validate_once),
    ):
        try:
            found.append(Contender(name, make(), capped=name not in ("typed", "untyped", "validate_json")))
        except Exception as error:
            found.append(Contender(name, None, missing=f"{type(error).__name__}: {error}"))
    return found


@dataclass
class Result:
    times: list[float] = field(default_factory=list)
    status: str = ""  # "", "n/a", "stopped", "skipped", "MISMATCH", "ERROR"
    detail: str = ""

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.times) if self.times and not self.status else None


def measure(case: Case, found: list[Contender], repeats: int, cap: float) -> dict[str, Result]:
    results = {c.name: Result() if c.run else Result(status="n/a", detail=c.missing) for c in found}
    active = [c for c in found if c.run is not None]
    for repeat in range(repeats):
        shift = repeat % max(len(active), 1)
        for c in active[shift:] + active[:shift]:
            result = results[c.name]
            if result.status:
                continue
            gc.collect()
            start = perf_counter()
            try:
                final = c.run(case, start + cap if c.capped else float("inf"))  # type: ignore[misc]
            except Stopped as stop:
                share = 100 * stop.done / len(case.pieces)
                result.status, result.detail = "stopped", f"> {cap:g} s ({share:.0f}% done)"
                continue
            except NotApplicable as why:
                result.status, result.detail = "n/a", str(why)
                continue
            except Exception as error:
                result.status, result.detail = "ERROR", f"{type(error).__name__}: {error}"[:200]
                continue
            elapsed = perf_counter() - start
            if not result.times and final != case.expected:
                result.status, result.detail = "MISMATCH", "final value differs from validate_json(text)"
                continue
            result.times.append(elapsed)
            if sum(result.times) > cap and c.capped:
                active.remove(c)
    return results


def format_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError


def cell(result: Result) -> str:
    if result.median is not None:
        return format_time(result.median)
    return result.detail if result.status in ("stopped", "skipped", "n/a") else result.status


def ratio(slow: Result, fast: Result, cap: float) -> str:
    if fast.median is None:
        return "-"
    if slow.median is not None:
        value, bound = slow.median / fast.median, ""
    elif slow.status == "stopped":
        value, bound = cap / fast.median, ">"
    else:
        return "-"
    return bound + (f"{value:.2f}x" if value < 10 else f"{value:.0f}x")


# Ratio columns: (header, slower, faster, target: (workload key, least ratio) or None)
RATIOS = [
    ("instructor / typed", "instructor", "typed", ("W", 20.0)),
    ("pydantic / typed", "pydantic", "typed", ("R", 100.0)),
    ("typed / untyped", "typed", "untyped", None),
    ("typed / validate_json", "typed", "validate_json", None),
    ("typed-pure / typed", "typed-pure", "typed", None),
]


def table(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in [headers, ["-" * w for w in widths], *rows]
    )


def report(done: list[tuple[Case, dict[str, Result]]], found: list[Contender], cap: float, markdown: bool) -> str:
    names = [c.name for c in found]
    out = ["Workloads"]
    rows = [[case.key, case.title, f"{len(case.text):,}", f"{len(case.pieces):,}"] for case, _ in done]
    out.append(table(["key", "what", "chars", "pieces"], rows, markdown))
    out.append("\nMedian time (typed partial value after every piece, then the final validated value)")
    out.append(table(["key", *names], [[case.key] + [cell(r[n]) for n in names] for case, r in done], markdown))
    out.append("\nRatios ('>' a lower bound: the slower one was stopped at the cap)")
    rows = []
    verdicts = []
    for case, results in done:
        row = [case.key]
        for _, slow, fast, target in RATIOS:
            text = ratio(results[slow], results[fast], cap)
            if target and target[0] == case.key and text != "-":
                value = float(text.lstrip(">").rstrip("x"))
                ok = value >= target[1]
                text += f" {'ok' if ok else 'MISS'} (>={target[1]:g})"
                verdicts.append(ok)
            row.append(text)
        rows.append(row)
    out.append(table(["key", *[r[0] for r in RATIOS]], rows, markdown))
    by_key = {case.key: (case, results) for case, results in done}
    if "R" in by_key and "R8" in by_key:
        out.append("\nTime per character, R8 against R (should stay flat)")
        for name in ("typed", "typed-pure", "untyped"):
            small, large = by_key["R"][1][name].median, by_key["R8"][1][name].median
            if small and large:
                growth = (large / len(by_key["R8"][0].text)) / (small / len(by_key["R"][0].text))
                out.append(f"  {name}: {growth:.2f}x")
    notes = sorted({f"{c.name}: n/a ({c.missing})" for c in found if c.run is None and c.missing})
    for case, results in done:
        for name, result in results.items():
            if result.status in ("MISMATCH", "ERROR"):
                notes.append(f"!! {name} on {case.key}: {result.status}: {result.detail}")
    out.extend(notes)
    out.append(f"\nTargets: {sum(verdicts)} ok, {len(verdicts) - sum(verdicts)} missed")
    return "\n".join(out)


def environment() -> str:
    packages = []
    for name in ("pydantic", "pydantic-core", "instructor", "jiter"):
        try:
            packages.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            packages.append(f"{name} missing")
    return f"Python {sys.version.split()[0]}, {platform.platform()}; " + ", ".join(packages)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes, 1 repeat, 1 s cap")
    parser.add_argument("--repeats", type=int, help="runs per contender and workload (default 3)")
    parser.add_argument("--cap", type=float, help="seconds before a contender is stopped (default 60)")
    parser.add_argument("--only", help="comma-separated workloads: W, R, R8")
    parser.add_argument("--markdown", action="store_true", help="tables as markdown")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    repeats = args.repeats or (1 if args.quick else 3)
    cap = args.cap or (1.0 if args.quick else 60.0)
    makers = {
        "W": lambda: write_call(scale),
        "R": lambda: records(int(2000 * scale), "R"),
        "R8": lambda: records(int(16000 * scale), "R8"),
    }
    keys = [k.strip() for k in args.only.split(",")] if args.only else list(makers)
    found = contenders()
    warm = records(20, "warm")
    for c in found:  # imports, twins and validators built before timing
        if c.run is not None:
            with contextlib.suppress(Exception):  # reported when measured
                c.run(warm, float("inf"))
    print(environment(), flush=True)
    done = []
    stopped: set[str] = set()
    for key in keys:
        case = makers[key]()
        # A contender stopped at the cap on R is not run on R8, 8 times larger (it would be stopped sooner still).
        active = [c if c.name not in stopped else Contender(c.name, None, missing="") for c in found]
        results = measure(case, active, repeats, cap)
        for name in stopped:
            results[name] = Result(status="skipped", detail=f"> {cap:g} s at the smaller size")
        stopped.update(name for name, result in results.items() if result.status == "stopped")
        done.append((case, results))
        print(f"{key} measured", file=sys.stderr, flush=True)
    print(report(done, found, cap, args.markdown))
    broken = any(r[n].status in ("MISMATCH", "ERROR") for _, r in done for n in ("typed", "typed-pure"))
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
