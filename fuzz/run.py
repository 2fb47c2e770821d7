"""The long fuzz run (``make fuzz``): malformed and valid JSON, cut at random, through every backend.

Default mode: a seeded ``random`` generator (no hypothesis, so it can run for hours) makes random JSON documents,
damages most of them (deleted, inserted and swapped characters, truncation, raw control characters, invalid escapes,
lone surrogates raw and escaped, NaN and Infinity words, stray closers, text after the root, invalid UTF-8 bytes), and
cuts each into random pieces, as ``str`` or as UTF-8 ``bytes``. Every input is fed to a new parser of every backend
side by side (``tests.strategies.run_lockstep``), checking after each piece that

- no ``append()`` or ``snapshot()`` raises;
- every backend returned the same changes (kind, path, value or text, with exact types) and the same snapshot;

and at the end that the final snapshot equals that of one parser given the whole text in one piece (the reading does
not depend on the cut). A failing input is written to ``fuzz/crashes/`` as JSON (``--replay FILE`` runs it again) and
the run exits non-zero. Progress (inputs so far) is printed every minute.

``--atheris`` mode: coverage-guided fuzzing with atheris (libFuzzer). The data provider's bytes choose the form and
the cuts, and the rest is the text; the same lockstep check runs on it. Instrumented are the Python modules (the pure
backend, the shared machinery); the compiled core is covered too when it was built with
``CFLAGS=-fsanitize=fuzzer-no-link`` (see fuzz/README.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
CRASHES = Path(__file__).resolve().parent / "crashes"
sys.path.insert(0, str(ROOT))


def _backends() -> dict[str, ModuleType]:
    import streaming_json
    from streaming_json import _pure

    backends: dict[str, ModuleType] = {"python": _pure}
    if streaming_json.BACKEND == "cython":
        from streaming_json import _core

        backends["cython"] = _core
    return backends


# --- Random documents ----------------------------------------------------------------------------------------------

_CHARS = 'ab z09"\\/\b\f\n\r\t\x00\x01\x1f\x7f\u00e9\u2028\ufeff\u4e2d\U0001f600\U0010ffff'
_KEYS = ["a", "b", "key", "", "\u00e9", "a\nb", '"q"', "\\"]
_BAD_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80", b"\xf0\x9f"]


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randint(0, 9 if depth else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 7, rng.randint(-(10**6), 10**6), rng.randint(-(2**70), 2**70)])
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 5e-324, rng.uniform(-1e9, 1e9), rng.random()])
    if kind in (3, 4, 5):
        return "".join(rng.choice(_CHARS) for _ in range(rng.choice([0, 1, 3, 8, 30])))
    if kind in (6, 7):
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 5))]
    return {rng.choice(_KEYS) + str(rng.randint(0, 9)): random_value(rng, depth - 1) for _ in range(rng.randint(0, 5))}


def random_document(rng: random.Random) -> str:
    if rng.random() < 0.02:  # a deep one now and then (deeper than the report limit of 32)
        depth = rng.randint(30, 300)
        return "".join(rng.choice(["[", '{"a":', "[1,"]) for _ in range(depth)) + "0" + "]" * depth
    value = random_value(rng, rng.randint(0, 5))
    return json.dumps(
        value,
        indent=rng.choice([None, None, 0, 2, "\t"]),
        ensure_ascii=rng.random() < 0.5,
        separators=rng.choice([(",", ":"), (", ", ": "), (" ,", " : ")]),
    )


def mutate(rng: random.Random, text: str) -> str:
    from tests.strategies import damage

    return damage(text, rng.choice([0, 1, 1, 2, 3, 6]), rng.randint, rng.choice)


def random_input(rng: random.Random) -> tuple[str, list[Any]]:
    """A text and its pieces (str, or bytes with invalid UTF-8 now and then): ``(form, pieces)``."""
    text = random_document(rng)
    if rng.random() < 0.8:
        text = mutate(rng, text)
    if rng.random() < 0.5:
        form = "str"
        data: Any = text
    else:
        form = "bytes"
        data = text.encode("utf-8", "surrogatepass")
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            position = rng.randint(0, len(data))
            data = data[:position] + rng.choice(_BAD_UTF8) + data[position:]
    if not data:
        return form, [data]
    style = rng.randint(0, 3)
    if style == 0:
        cuts = list(range(1, len(data)))  # one unit a piece
    elif style == 1:
        cuts = []  # whole
    else:
        cuts = sorted(rng.randint(0, len(data)) for _ in range(rng.randint(1, max(1, len(data) // 2))))
    pieces = []
    start = 0
    for cut in cuts + [len(data)]:
        pieces.append(data[start:cut])
        start = cut
    return form, pieces


# --- Checks --------------------------------------------------------------------------------------------------------


def check(backends: dict[str, ModuleType], pieces: list[Any]) -> Optional[str]:
    """None where every check passes; else what failed."""
    from tests.strategies import run_lockstep

    result = run_lockstep(backends, pieces, settle=True, options={"done_events": True})
    if result.problem is not None:
        return result.problem
    return check_whole_text(backends, pieces, result.finals) or check_beyond_one_root(backends, pieces)


def check_beyond_one_root(backends: dict[str, ModuleType], pieces: list[Any]) -> Optional[str]:
    """The same input read for JSON in prose, and as several documents in each mode: every backend alike, and the
    documents of the pieces those of the text in one piece."""
    from tests.strategies import identical_deep, run_documents_lockstep, run_lockstep

    prose = run_lockstep(backends, pieces, options={"prose": True, "done_events": True})
    if prose.problem is not None:
        return f"prose: {prose.problem}"
    whole = pieces[0][:0].join(pieces)
    for mode in ({}, {"lines": True}, {"prose": True}, {"lines": True, "prose": True}):
        result = run_documents_lockstep(backends, pieces, **mode)
        if result.problem is not None:
            return f"documents {mode}: {result.problem}"
        one_piece = run_documents_lockstep(backends, [whole], **mode)
        for name in backends:
            cut, uncut = result.finals[name], one_piece.finals[name]
            if len(cut) != len(uncut) or not all(map(identical_deep, cut, uncut)):
                return f"documents {mode}, {name}: in pieces {cut!r}, in one piece {uncut!r}"[:2000]
    return None


def check_whole_text(backends: dict[str, ModuleType], pieces: list[Any], finals: dict[str, Any]) -> Optional[str]:
    """The final snapshot of the pieces is that of the text in one piece."""
    from tests.strategies import same_snapshot

    whole = pieces[0][:0].join(pieces)
    for name, backend in backends.items():
        parser = backend.StreamingJsonParser()
        try:
            parser.append(whole)
            expected = parser.snapshot()
        except Exception as error:
            return f"{name} raised {error!r} on the text in one piece"
        if not same_snapshot(finals[name], expected):
            return f"{name}: read in pieces {finals[name]!r}, in one piece {expected!r}"[:2000]
    return None


def save_crash(form: str, pieces: list[Any], problem: str) -> Path:
    CRASHES.mkdir(exist_ok=True)
    encoded = [piece.hex() if form == "bytes" else piece for piece in pieces]
    record = {"form": form, "pieces": encoded, "problem": problem}
    data = json.dumps(record, ensure_ascii=True, indent=1)
    path = CRASHES / f"crash-{hashlib.sha1(data.encode()).hexdigest()[:16]}.json"
    path.write_text(data)
    return path


def load_crash(path: Path) -> tuple[str, list[Any]]:
    record = json.loads(path.read_text())
    pieces = [bytes.fromhex(piece) for piece in record["pieces"]] if record["form"] == "bytes" else record["pieces"]
    return record["form"], pieces


# --- Modes ---------------------------------------------------------------------------------------------------------


def run_random(minutes: float, seed: int, max_failures: int) -> int:
    backends = _backends()
    if len(backends) < 2:
        print("only the pure backend is present: checking for exceptions and cut independence, not differences")
    print(f"fuzzing {', '.join(backends)} for {minutes:g} minutes, seed {seed}", flush=True)
    rng = random.Random(seed)
    start = time.monotonic()
    deadline = start + minutes * 60
    next_report = start + 60
    inputs = failures = 0
    while time.monotonic() < deadline:
        form, pieces = random_input(rng)
        problem = check(backends, pieces)
        inputs += 1
        if problem is not None:
            failures += 1
            path = save_crash(form, pieces, problem)
            print(f"FAILURE {failures}: {problem[:500]}\n  input written to {path}", flush=True)
            if failures >= max_failures:
                break
        if time.monotonic() >= next_report:
            elapsed = (time.monotonic() - start) / 60
            print(f"{elapsed:5.1f} min: {inputs} inputs, {failures} failures", flush=True)
            next_report += 60
    print(f"done: {inputs} inputs, {failures} failures", flush=True)
    return 1 if failures else 0


def run_replay(paths: list[str]) -> int:
    backends = _backends()
    failed = 0
    for name in paths:
        form, pieces = load_crash(Path(name))
        problem = check(backends, pieces)
        print(f"{name}: {'ok' if problem is None else problem}")
        failed += problem is not None
    return 1 if failed else 0


def run_atheris(minutes: float, extra: list[str]) -> int:
    try:
        import atheris
    except ImportError:
        print("atheris is not installed: pip install atheris", file=sys.stderr)
        return 2
    # Imported for their side effect: atheris instruments the code of modules imported inside this block.
    with atheris.instrument_imports():
        import streaming_json  # noqa: F401 - imported to be instrumented
        import tests.strategies  # noqa: F401 - imported to be instrumented
        from streaming_json import _pure  # noqa: F401 - imported to be instrumented
    backends = _backends()
    if len(backends) < 2:
        print("warning: the compiled core is not built; fuzzing the pure backend alone", file=sys.stderr)

    def test_one_input(data: bytes) -> None:
        provider = atheris.FuzzedDataProvider(data)
        as_bytes = provider.ConsumeBool()
        cuts = sorted(provider.ConsumeIntInRange(0, 512) for _ in range(provider.ConsumeIntInRange(0, 12)))
        payload: Any = (
            provider.ConsumeBytes(provider.remaining_bytes())
            if as_bytes
            else provider.ConsumeUnicodeNoSurrogates(provider.remaining_bytes())
            if provider.ConsumeBool()
            else provider.ConsumeUnicode(provider.remaining_bytes())
        )
        pieces = []
        start = 0
        for cut in cuts + [len(payload)]:
            cut = max(start, min(cut, len(payload)))
            pieces.append(payload[start:cut])
            start = cut
        problem = check(backends, pieces)
        if problem is not None:
            path = save_crash("bytes" if as_bytes else "str", pieces, problem)
            raise AssertionError(f"{problem[:500]} (input written to {path})")

    CRASHES.mkdir(exist_ok=True)
    argv = [sys.argv[0], f"-max_total_time={int(minutes * 60)}", f"-artifact_prefix={CRASHES}/", *extra]
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()  # exits the process: non-zero on a failure
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=float(os.environ.get("FUZZ_MINUTES", "60")))
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock, printed)")
    parser.add_argument("--max-failures", type=int, default=10, help="stop after this many failing inputs")
    parser.add_argument("--atheris", action="store_true", help="coverage-guided fuzzing with atheris")
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="run saved crash files again")
    args, extra = parser.parse_known_args(argv)
    if args.replay:
        return run_replay(args.replay)
    if args.atheris:
        return run_atheris(args.minutes, extra)
    if extra:
        parser.error(f"unrecognised arguments: {' '.join(extra)}")
    seed = args.seed if args.seed is not None else int(time.time())
    return run_random(args.minutes, seed, args.max_failures)


if __name__ == "__main__":
    sys.exit(main())
