"""The one harness every suite runs through: the contender contract, measurement, tables, ``--json`` and versions.

A suite (``bench/suites/``) holds only its contenders, workloads and targets. It hands the harness:

- ``Contender``\\ s: a name and a runner ``run(case, deadline) -> result``, or no runner and why (``missing``); the
  runner feeds the case's pieces and returns what it ends with (its final value, or ``Timed`` where it times its own
  reads), raises ``Stopped`` when it passes ``deadline`` (``perf_counter``), ``NotApplicable`` when the case is not
  one it can take;
- a case (one workload) to ``measure``, with the value every contender must end with.

The rules of measurement, one place for all suites:

- Interleaved rounds: each round runs every contender once, in an order that rotates by one each round, after the
  value of the one before it was freed and ``gc.collect()``; a cell is the median of the rounds (wall time,
  ``perf_counter``, or CPU time of this process, ``process_time``, which leaves out the moments another process held
  the core on a shared machine).
- The cap, for the peers that re-read the whole buffer and would take hours on the long workloads: a ``capped``
  contender still running ``cap`` seconds after its start is stopped (``> 10 s (x% done)``, the share of pieces it
  was fed), and a ``budgeted`` one is not repeated once its runs add up to more than the cap. Ours and the floors
  run to the end.
- A contender's result is compared with the expected value (after its first run, or every run where contenders
  share objects): ``MISMATCH`` instead of a time where it differs, ``ERROR`` where it raised. A contender that would
  otherwise keep its outputs alive while timed (one final value per call of the real corpus) gives a ``check`` runner:
  its timed runs then keep nothing, and its value comes from one run of ``check``, untimed, before the rounds (a kept
  heap of results slows some contenders' collectors, V8's most: nothing of it belongs in what is compared).

A contender in another interpreter or under a tool runs as a child from the repository root (``child_json``: it
prints JSON). Reports: ``table`` renders aligned text or markdown (``--markdown``), ``ratio`` and ``Targets`` give the
ratios and the verdicts against the targets, ``environment`` the versions line, ``Session.write_json`` the raw
results.
Like msgspec's benchmarks: one contract for every contender, one runner, JSON and versions out.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from time import perf_counter, process_time
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parent.parent  # the repository: `python -m bench` runs from here

CLOCKS: dict[str, Callable[[], float]] = {"wall": perf_counter, "cpu": process_time}


# --- The contender contract ------------------------------------------------------------------------------------------


class Stopped(Exception):
    """Raised by a runner past its deadline: it had been fed ``done`` of the case's ``total`` pieces."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"stopped after {done} of {total} pieces")
        self.done, self.total = done, total


class NotApplicable(Exception):
    """Raised by a runner given a case it cannot take (e.g. a model-only API given a list); the message says why."""


@dataclass(frozen=True)
class Timed:
    """What a runner that times its own reads returns (the SDK suite: each event timed alone, not its building)."""

    seconds: float
    value: Any


Runner = Callable[[Any, float], Any]  # (case, deadline) -> the final value, or Timed(seconds, final value)


def _same(value: Any) -> Any:
    return value


@dataclass
class Contender:
    """One way to do what the suite measures. ``run`` is None where it cannot run here (``missing`` says why)."""

    name: str
    run: Optional[Runner]
    missing: str = ""
    ours: bool = False  # a wrong value or an error of ours fails the suite (exit status 1)
    capped: bool = True  # stopped at the cap; ours and the floors run to the end
    budgeted: bool = True  # not repeated once its runs add up to more than the cap
    rounds: Optional[int] = None  # runs in the first ``rounds`` rounds only (None: in every round)
    to_value: Callable[[Any], Any] = _same  # what ``run`` returned -> the value compared with the expected one
    tags: dict[str, str] = field(default_factory=dict)  # the suite's own data (the SDK suite: api, shape)
    # Where given: the untimed run whose value is checked; ``run`` then keeps nothing of its output, and what it
    # returns is not compared.
    check: Optional[Runner] = None


def contender(name: str, make: Callable[[], Contender], missing: str = "not installed") -> Contender:
    """``make()``, or a contender without a runner where making it fails (a peer not installed, a stale build)."""
    try:
        return make()
    except Exception as error:  # ImportError, or a module that fails while importing
        return Contender(name, None, missing=f"{missing}: {type(error).__name__}: {error}")


# --- Measuring -------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    times: list[float] = field(default_factory=list)
    status: str = ""  # "", "n/a", "stopped", "skipped", "MISMATCH", "ERROR"
    detail: str = ""

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.times) if self.times and not self.status else None

    @property
    def failed(self) -> bool:
        return self.status in ("MISMATCH", "ERROR")

    def cell(self) -> str:
        """The table cell: the median time, else why there is none."""
        if self.median is not None:
            return format_time(self.median)
        return self.detail if self.status in ("stopped", "skipped", "n/a") and self.detail else self.status or "-"

    def to_json(self) -> dict[str, Any]:
        return {"times": self.times, "median": self.median, "status": self.status, "detail": self.detail}


def measure(
    contenders: Sequence[Contender],
    case: Any = None,
    *,
    rounds: int,
    cap: float = float("inf"),
    expected: Any = None,
    check: bool = True,
    check_every_run: bool = False,
    clock: Callable[[], float] = perf_counter,
    skip: Optional[Mapping[str, str]] = None,
    round_case: Optional[Callable[[int], Any]] = None,
) -> dict[str, Result]:
    """Run every contender ``rounds`` times, interleaved in rotating order; the results by contender name.

    ``skip``: contenders not to run on this case, with why (``skipped``: stopped at the cap on a smaller size).
    ``round_case(round)``: the case of each round, where a round builds its own (the SDK suite's event objects);
    else ``case`` in every round. ``check``: compare each result with ``expected``."""
    skip = skip or {}
    results: dict[str, Result] = {}
    for c in contenders:
        if c.run is None:
            results[c.name] = Result(status="n/a", detail=c.missing)
        elif c.name in skip:
            results[c.name] = Result(status="skipped", detail=skip[c.name])
        else:
            results[c.name] = Result()
    if check:
        for c in contenders:
            if c.check is not None and not results[c.name].status:
                results[c.name] = _checked_apart(c, case if round_case is None else round_case(0), expected, cap)
    runnable = [c for c in contenders if not results[c.name].status]
    given_up: set[str] = set()
    returned: Any = None
    for round_number in range(rounds):
        this_case = round_case(round_number) if round_case is not None else case
        shift = round_number % max(len(runnable), 1)
        for c in runnable[shift:] + runnable[:shift]:
            result = results[c.name]
            if result.status or c.name in given_up or (c.rounds is not None and round_number >= c.rounds):
                continue
            # The last contender's value is freed here, before the collection, and not inside the next one's time
            # (the scripts before the harness timed freeing it, a 1.2 MB document's worth, as the next one's).
            returned = None
            gc.collect()
            start, wall_start = clock(), perf_counter()
            try:
                returned = c.run(this_case, wall_start + cap if c.capped else float("inf"))  # type: ignore[misc]
            except Stopped as stop:
                result.status = "stopped"
                result.detail = f"> {cap:g} s ({100 * stop.done / max(stop.total, 1):.0f}% done)"
                continue
            except NotApplicable as why:
                result.status, result.detail = "n/a", str(why)
                continue
            except Exception as error:  # a contender that breaks is reported, not fatal
                result.status, result.detail = "ERROR", f"{type(error).__name__}: {error}"[:200]
                continue
            elapsed = clock() - start
            if isinstance(returned, Timed):
                elapsed, returned = returned.seconds, returned.value
            checked_here = check and c.check is None and (check_every_run or not result.times)
            if checked_here and c.to_value(returned) != expected:
                result.status, result.detail = "MISMATCH", "its final value differs from the expected one"
                continue
            result.times.append(elapsed)
            if c.budgeted and sum(result.times) > cap:
                given_up.add(c.name)  # a slow contender gets fewer rounds: about one cap of time per case
    return results


def _checked_apart(c: Contender, case: Any, expected: Any, cap: float) -> Result:
    """The untimed checking run of a contender that keeps nothing while timed: an empty result, or why it failed (a
    capped one stopped at the cap is not timed either)."""
    gc.collect()
    try:
        value = c.check(case, perf_counter() + cap if c.capped else float("inf"))  # type: ignore[misc]
    except Stopped as stop:
        return Result(status="stopped", detail=f"> {cap:g} s ({100 * stop.done / max(stop.total, 1):.0f}% done)")
    except NotApplicable as why:
        return Result(status="n/a", detail=str(why))
    except Exception as error:
        return Result(status="ERROR", detail=f"{type(error).__name__}: {error}"[:200])
    if isinstance(value, Timed):
        value = value.value
    if c.to_value(value) != expected:
        return Result(status="MISMATCH", detail="its final value differs from the expected one")
    return Result()


def child_json(command: Sequence[str], **options: Any) -> Any:
    """Run a child process from the repository root (where ``python -m bench`` and this checkout's streaming_json
    import, in any interpreter) and return the JSON it printed last: a contender in another interpreter (PyPy, Node)
    or under a tool (callgrind) reports its times and final value this way."""
    done = subprocess.run(list(command), capture_output=True, text=True, check=False, cwd=ROOT, **options)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def warm_up(contenders: Iterable[Contender], samples: Iterable[Any]) -> None:
    """One untimed run of every contender on each small sample: imports, caches and code paths warm before timing."""
    samples = list(samples)
    for c in contenders:
        for sample in samples:
            if c.run is not None:
                with contextlib.suppress(Exception):  # reported when measured
                    c.run(sample, float("inf"))


def failed(results: Iterable[Mapping[str, Result]], contenders: Iterable[Contender]) -> bool:
    """Whether one of ours gave a wrong value or raised (the suite's exit status is then 1)."""
    ours = [c.name for c in contenders if c.ours]
    return any(by_name[name].failed for by_name in results for name in ours if name in by_name)


# --- Reporting -------------------------------------------------------------------------------------------------------


def format_time(seconds: float) -> str:
    """Three significant figures in s, ms or us."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError


def ratio(slow: Result, fast: Result, cap: float = float("inf")) -> tuple[Optional[float], bool]:
    """time(slow) / time(fast), and whether it is only a lower bound (``slow`` was stopped at the cap)."""
    if fast.median is None or fast.median == 0:
        return None, False
    if slow.median is not None:
        return slow.median / fast.median, False
    if slow.status == "stopped":
        return cap / fast.median, True
    return None, False


def format_ratio(value: Optional[float], bound: bool = False) -> str:
    if value is None:
        return "-"
    return (">" if bound else "") + (f"{value:.2f}x" if value < 10 else f"{value:.0f}x")


class Targets:
    """The verdicts against a suite's targets, and their tally."""

    def __init__(self) -> None:
        self.met = self.missed = 0

    def judge(self, value: Optional[float], op: str, limit: float, bound: bool = False) -> str:
        """' ok (>=20)' or ' MISS (>=20)' to append to the cell of ``value``; '?' where a lower bound (the slower one
        stopped at the cap) does not settle the target; '' where there is no value."""
        if value is None:
            return ""
        ok = value <= limit if op == "<=" else value >= limit
        if bound and not (ok and op == ">="):
            return f" ? ({op}{limit:g})"
        self.met += ok
        self.missed += not ok
        return f" {'ok' if ok else 'MISS'} ({op}{limit:g})"

    def summary(self) -> str:
        return f"Targets: {self.met} ok, {self.missed} missed"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], markdown: bool = False) -> str:
    """Aligned text (the first column left, the others right) or a markdown table."""
    rows = [[str(cell) for cell in row] for row in rows]
    headers = [str(header) for header in headers]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, ["-" * w for w in widths], *rows]:
        cells = [cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# --- Environment and the session of one suite ------------------------------------------------------------------------


def package_version(name: str) -> Optional[str]:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def environment(packages: Iterable[str] = ()) -> dict[str, Any]:
    """Python, the machine, streaming_json (version and backend) and the versions of the contenders' packages."""
    try:
        import streaming_json

        ours = {"version": streaming_json.__version__, "backend": streaming_json.BACKEND}
    except Exception as error:  # reported, not fatal: a suite may run ours in another interpreter
        ours = {"version": None, "backend": f"{type(error).__name__}: {error}"}
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "streaming_json": ours,
        "packages": {name: package_version(name) for name in packages},
    }


def environment_line(env: Mapping[str, Any]) -> str:
    ours = env["streaming_json"]
    packages = ", ".join(f"{name} {found or 'missing'}" for name, found in env["packages"].items())
    line = f"{env['implementation']} {env['python']} on {env['platform']}, {env['cpus']} CPUs"
    line += f"; streaming_json {ours['version']}, backend {ours['backend']}"
    return line + (f"; {packages}" if packages else "")


@dataclass
class Session:
    """One run of one suite: its options, what it prints, and what ``--json`` writes."""

    suite: str
    args: argparse.Namespace
    markdown: bool
    env: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict)  # the suite's raw results, written by --json

    def table(self, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
        return table(headers, rows, self.markdown)

    @staticmethod
    def progress(message: str) -> None:
        print(f"  {message}", file=sys.stderr, flush=True)

    def write_json(self) -> None:
        path: Optional[Path] = getattr(self.args, "json", None)
        if path is None:
            return
        options = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(self.args).items() if k != "json"}
        document = {"suite": self.suite, "environment": self.env, "options": options, "results": self.raw}
        path.write_text(json.dumps(document, indent=2, default=str), encoding="utf-8")
