"""Typed streaming: ``streaming_json.pydantic.ModelStream`` against the other ways to get a typed partial value after
every piece.

Workloads (deterministic, from ``bench/workloads.py``):

- ``W``: the 20 KB write-file tool call of workload 1, as ``WriteFile(path, content, overwrite)``, in token pieces;
- ``R``: a ``list[Record]`` of 2,000 records (ints, a float, a bool, optional fields, a list of tags), in token
  pieces; ``R8``: the same at 16,000 records (time per character should stay flat).

Contenders, each fed every piece and making the typed partial value available after it, then giving the final
validated value:

- ``typed`` (compiled core) and ``typed-pure`` (pure backend): ``ModelStream(type_).append(piece)`` per piece, then
  ``finish()`` (one ``validate_json`` of the whole text);
- ``instructor``: ``Partial[Model].model_from_chunks(pieces)``, which re-parses the buffer with jiter and rebuilds
  the partial model on every piece (it takes a model, so it runs on ``W`` only);
- ``baml``: BAML's own streaming parser (baml-py), ``b.parse_stream.WriteFileCall(buffer)`` on every piece, as its
  runtime calls it on each chunk of a streamed response, then ``b.parse`` of the whole text; the client is generated
  by ``baml-cli generate`` into a scratch directory when the suite starts (``W`` only);
- ``pydantic``: ``TypeAdapter(type_).validate_json(buffer, experimental_allow_partial="trailing-strings")`` on every
  piece (a failure keeps the last value);
- floors: ``untyped``, the compiled parser's ``append`` + ``snapshot()`` per piece (what typing adds to parsing), and
  ``validate_json``, one validation of the whole text.

The harness runs 3 interleaved rounds (wall time, medians). The peers and ``typed-pure`` are stopped once a run
passes the cap (``> cap (x% done)``: the share of pieces it was fed), are not repeated once their runs add up to the
cap, and are not run on ``R8`` once stopped on ``R``. Each contender's final value must equal
``TypeAdapter(type_).validate_json(text)`` (else MISMATCH). Needs the bench extra (pydantic, instructor).

``--shows`` prints instead what each shows per piece for the same schema, streamed for real: a BAML function over an
OpenAI-compatible server on 127.0.0.1 replaying the pieces, instructor's ``create_partial`` and our structured output
over the same server, through the openai client.

    python -m bench typed [--quick] [--repeats N] [--cap SECONDS] [--only W,R,R8] [--clock wall|cpu] [--markdown]
    python -m bench typed --shows
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
from dataclasses import dataclass
from importlib import import_module
from time import perf_counter
from typing import Annotated, Any, Callable, Optional

from pydantic import BaseModel, TypeAdapter

from bench import harness, workloads
from bench.harness import Contender, NotApplicable, Result, Stopped
from streaming_json.pydantic import ModelStream, Stream

PACKAGES = ("pydantic", "pydantic-core", "instructor", "jiter", "baml-py")
MARKDOWN = False


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


def typed(parser_module: str) -> harness.Runner:
    parser_class = import_module(parser_module).StreamingJsonParser

    def run(case: Case, deadline: float) -> Any:
        stream = ModelStream(case.type_, parser_class=parser_class)
        append = stream.append
        for number, piece in enumerate(case.pieces):
            append(piece)
            if not number & 1023 and perf_counter() > deadline:
                raise Stopped(number, len(case.pieces))
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
            raise Stopped(number + 1, len(case.pieces))
    return latest


# --- BAML ---------------------------------------------------------------------------------------------------------

BAML_SOURCE = """
generator target {
  output_type "python/pydantic"
  output_dir "../"
  version "%(version)s"
  default_client_mode "sync"
}

client<llm> Replay {
  provider "openai-generic"
  options {
    base_url env.BENCH_REPLAY_BASE_URL
    api_key "unused"
    model "replay"
  }
}

class WriteFile {
  path string %(path_policy)s
  content string
  overwrite bool
}

function WriteFileCall(request: string) -> WriteFile {
  client Replay
  prompt #"
    {{ request }}
    {{ ctx.output_format }}
  "#
}
"""


def baml_client(path_policy: str = "") -> Any:
    """BAML's generated client for ``WriteFile`` (``path_policy``: a ``@stream`` attribute of its path), generated by
    baml-py's own ``baml-cli generate`` into a scratch directory removed at exit; nothing generated is kept."""
    import atexit
    import importlib.metadata
    import shutil
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    directory = Path(tempfile.mkdtemp(prefix="bench-baml-"))
    atexit.register(shutil.rmtree, directory, True)
    source = directory / "baml_src"
    source.mkdir()
    version = importlib.metadata.version("baml-py")
    (source / "main.baml").write_text(BAML_SOURCE % {"version": version, "path_policy": path_policy})
    cli = Path(sys.executable).parent / "baml-cli"
    subprocess.run([str(cli), "generate", "--from", str(source)], check=True, capture_output=True, timeout=120)
    sys.path.insert(0, str(directory))
    try:
        for name in [name for name in sys.modules if name == "baml_client" or name.startswith("baml_client.")]:
            del sys.modules[name]
        return import_module("baml_client").b
    finally:
        sys.path.remove(str(directory))


def baml_runner() -> harness.Runner:
    client = baml_client()
    parse_stream, parse = client.parse_stream.WriteFileCall, client.parse.WriteFileCall

    def run(case: Case, deadline: float) -> Any:
        if case.type_ is not WriteFile:
            raise NotApplicable("the BAML function returns a WriteFile; the document is a list")
        buffer = ""
        for number, piece in enumerate(case.pieces):
            buffer += piece
            parse_stream(buffer)  # what BAML's runtime does on each chunk: the whole response so far, parsed again
            if not number & 63 and perf_counter() > deadline:
                raise Stopped(number + 1, len(case.pieces))
        return WriteFile(**parse(case.text).model_dump())

    return run


def pydantic_partial(case: Case, deadline: float) -> Any:
    validate = TypeAdapter(case.type_).validate_json
    buffer, value = "", None
    for number, piece in enumerate(case.pieces):
        buffer += piece
        with contextlib.suppress(ValueError):  # a ValidationError: the text so far does not validate even partially
            value = validate(buffer, experimental_allow_partial="trailing-strings")
        if perf_counter() > deadline:
            raise Stopped(number + 1, len(case.pieces))
    return value


def make_contenders() -> list[Contender]:
    def made(name: str, make: Callable[[], harness.Runner]) -> Contender:
        capped = name not in ("typed", "untyped", "validate_json")  # ours on the core, and the floors, run to the end
        ours = name in ("typed", "typed-pure")
        return harness.contender(name, lambda: Contender(name, make(), ours=ours, capped=capped, budgeted=capped))

    return [
        made("typed", lambda: typed("streaming_json._core")),
        made("typed-pure", lambda: typed("streaming_json._pure")),
        made("instructor", lambda: (import_module("instructor"), instructor)[1]),
        made("baml", baml_runner),
        made("pydantic", lambda: pydantic_partial),
        made("untyped", lambda: (import_module("streaming_json._core"), untyped)[1]),
        made("validate_json", lambda: validate_once),
    ]


# Ratio columns: (header, slower, faster, target: (workload key, least ratio) or None)
RATIOS = [
    ("instructor / typed", "instructor", "typed", ("W", 20.0)),
    ("baml / typed", "baml", "typed", ("W", 1.0)),
    ("pydantic / typed", "pydantic", "typed", ("R", 100.0)),
    ("typed / untyped", "typed", "untyped", None),
    ("typed / validate_json", "typed", "validate_json", None),
    ("typed-pure / typed", "typed-pure", "typed", None),
]


def report(
    session: harness.Session, done: list[tuple[Case, dict[str, Result]]], found: list[Contender], cap: float
) -> str:
    names = [c.name for c in found]
    targets = harness.Targets()
    out = ["Workloads"]
    rows = [[case.key, case.title, f"{len(case.text):,}", f"{len(case.pieces):,}"] for case, _ in done]
    out.append(session.table(["key", "what", "chars", "pieces"], rows))
    out.append("\nMedian time (typed partial value after every piece, then the final validated value)")
    out.append(session.table(["key", *names], [[case.key] + [r[n].cell() for n in names] for case, r in done]))
    out.append("\nRatios ('>' a lower bound: the slower one was stopped at the cap)")
    rows = []
    for case, results in done:
        row = [case.key]
        for _, slow, fast, target in RATIOS:
            value, bound = harness.ratio(results[slow], results[fast], cap)
            text = harness.format_ratio(value, bound)
            if target and target[0] == case.key:
                text += targets.judge(value, ">=", target[1], bound=bound)
            row.append(text)
        rows.append(row)
    out.append(session.table(["key", *[r[0] for r in RATIOS]], rows))
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
            if result.failed:
                notes.append(f"!! {name} on {case.key}: {result.status}: {result.detail}")
    out.extend(notes)
    out.append("\n" + targets.summary())
    return "\n".join(out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, help="rounds per workload (default 3, quick 1)")
    parser.add_argument("--cap", type=float, help="seconds before a peer is stopped (default 60, quick 1)")
    parser.add_argument("--only", help="comma-separated workloads: W, R, R8")
    parser.add_argument("--clock", choices=harness.CLOCKS, default="wall", help="wall time (default) or CPU time")
    parser.add_argument("--shows", action="store_true", help="what each shows per piece, streamed for real")


# --- What each shows per piece -------------------------------------------------------------------------------------


class WriteFileDonePath(BaseModel):
    """``WriteFile`` with its path shown only once complete, as BAML's ``@stream.done``."""

    path: Annotated[str, Stream.done()]
    content: str
    overwrite: bool


SHOWS_PIECES = ['{"pa', 'th": "src/', 'app.py", "con', 'tent": "import', ' os\\n", "over', 'write": tr', "ue}"]


def _compact(value: Any) -> str:
    if value is None:
        return "-"
    fields = value.model_dump() if isinstance(value, BaseModel) else dict(value)
    return " ".join(f"{key}={fields.get(key)!r}" for key in ("path", "content", "overwrite"))


def shows() -> str:
    """A table: after each piece, what ours, BAML's function and instructor's ``create_partial`` show."""
    import os

    import instructor as instructor_package
    from openai import OpenAI

    from streaming_json.integrations import OpenAIChatStructuredOutput
    from tests.sdk_events import chat_chunk, content_delta, finish_choice
    from tests.sse_replay import LocalServer, sse_body

    chunks = [chat_chunk(content_delta(piece, role=not number)) for number, piece in enumerate(SHOWS_PIECES)]
    body = sse_body([*chunks, chat_chunk(finish_choice(reason="stop"))], done_marker=True)
    columns: dict[str, list[str]] = {}
    with LocalServer(lambda path, request: ("text/event-stream", body)) as server:
        os.environ["BENCH_REPLAY_BASE_URL"] = server.address
        client = OpenAI(base_url=server.address, api_key="unused", max_retries=0)
        request = {"model": "replay", "messages": [{"role": "user", "content": "write app.py"}]}
        ours = OpenAIChatStructuredOutput(WriteFileDonePath)
        columns["streaming_json (path: Stream.done())"] = [
            _compact(value) for value in ours.stream(client.chat.completions.create(**request, stream=True))
        ]
        baml = baml_client("@stream.done")
        columns["BAML (path @stream.done)"] = [_compact(value) for value in baml.stream.WriteFileCall("write app.py")]
        patched = instructor_package.from_openai(client, mode=instructor_package.Mode.JSON)
        columns["instructor create_partial"] = [
            _compact(value)
            for value in patched.chat.completions.create_partial(response_model=WriteFile, **request)  # type: ignore[arg-type]
        ]
    rows = max(len(values) for values in columns.values())
    out = ["| # | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    for number in range(rows):
        cells = [values[number] if number < len(values) else "" for values in columns.values()]
        out.append(f"| {number + 1} | " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(out)


def run(session: harness.Session) -> int:
    args = session.args
    if args.shows:
        print(shows())
        return 0
    scale = 0.1 if args.quick else 1.0
    repeats = args.repeats or (1 if args.quick else 3)
    cap = args.cap or (1.0 if args.quick else 60.0)
    makers = {
        "W": lambda: write_call(scale),
        "R": lambda: records(int(2000 * scale), "R"),
        "R8": lambda: records(int(16000 * scale), "R8"),
    }
    keys = [k.strip() for k in args.only.split(",")] if args.only else list(makers)
    found = make_contenders()
    harness.warm_up(found, [records(20, "warm")])  # imports, twins and validators built before timing
    print(harness.environment_line(session.env), flush=True)
    print(f"{repeats} rounds, cap {cap:g} s, {args.clock} time" + (", quick sizes" if args.quick else ""), flush=True)
    done = []
    # A contender stopped at the cap is not run on the larger cases after it (it would be stopped sooner still).
    stopped: dict[str, str] = {}
    for key in keys:
        case = makers[key]()
        results = harness.measure(
            found, case, rounds=repeats, cap=cap, expected=case.expected, clock=harness.CLOCKS[args.clock], skip=stopped
        )
        stopped.update({n: f"> {cap:g} s at the smaller size" for n, r in results.items() if r.status == "stopped"})
        done.append((case, results))
        session.progress(f"{key} measured")
    print(report(session, done, found, cap))
    session.raw.update(
        {
            "rounds": repeats,
            "cap_seconds": cap,
            "scale": scale,
            "workloads": {
                case.key: {
                    "title": case.title,
                    "chars": len(case.text),
                    "pieces": len(case.pieces),
                    "results": {n: r.to_json() for n, r in results.items()},
                }
                for case, results in done
            },
        }
    )
    return 1 if harness.failed([results for _, results in done], found) else 0
