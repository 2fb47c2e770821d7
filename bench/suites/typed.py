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
import functools
import json
import random
import statistics
from collections.abc import Iterator
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


def write_call(kilobytes: int, key: str, scale: float) -> Case:
    call = workloads.write_file(1, kilobytes / 20 * scale).calls[0]
    return Case(key, f"write-file call, {len(call.text) // 1000} KB", WriteFile, call.text, call.pieces)


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

# One client for every run: ``WriteFile`` with no attribute (timed, and shown per piece), and the same class with each
# ``@stream`` attribute that baml-py 0.226.3 accepts on one field (shown per piece). Its compiler rejects
# ``@stream.starts_as`` ("Namespace imports (using '.') are not yet supported"), so that policy has no BAML column.
BAML_SOURCE = """
generator target {
  output_type "python/pydantic"
  output_dir "../"
  version "%(version)s"
  default_client_mode "async"
}

client<llm> Replay {
  provider "openai-generic"
  options {
    base_url env.BENCH_REPLAY_BASE_URL
    api_key "unused"
    model "replay"
  }
}
%(classes)s"""

BAML_CLASS = """
class %(name)s {
  path string %(path)s
  content string %(content)s
  overwrite bool
}

function %(name)sCall(request: string) -> %(name)s {
  client Replay
  prompt #"
    {{ request }}
    {{ ctx.output_format }}
  "#
}
"""

# BAML class name -> the attributes of its path and its content
BAML_CLASSES = {
    "WriteFile": ("", ""),
    "DonePath": ("@stream.done", ""),
    "NotNullContent": ("", "@stream.not_null"),
    "StateContent": ("", "@stream.with_state"),
}


def baml_client() -> Any:
    """BAML's generated client (``baml_client``: ``b``, its async client, whose ``parse`` and ``parse_stream`` are
    synchronous), generated by baml-py's own ``baml-cli generate`` into a scratch directory removed at exit; nothing
    generated is kept. The module is generated once per process."""
    import atexit
    import importlib.metadata
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    if "baml_client" in sys.modules:
        return sys.modules["baml_client"]
    os.environ.setdefault("BAML_LOG", "warn")  # not each call's prompt and reply on stderr
    directory = Path(tempfile.mkdtemp(prefix="bench-baml-"))
    atexit.register(shutil.rmtree, directory, True)
    source = directory / "baml_src"
    source.mkdir()
    classes = "".join(
        BAML_CLASS % {"name": name, "path": path, "content": content} for name, (path, content) in BAML_CLASSES.items()
    )
    version = importlib.metadata.version("baml-py")
    (source / "main.baml").write_text(BAML_SOURCE % {"version": version, "classes": classes})
    cli = Path(sys.executable).parent / "baml-cli"
    subprocess.run([str(cli), "generate", "--from", str(source)], check=True, capture_output=True, timeout=120)
    sys.path.insert(0, str(directory))
    try:
        return import_module("baml_client")
    finally:
        sys.path.remove(str(directory))


def baml_runner() -> harness.Runner:
    client = baml_client().b
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
    out.append("\nPer piece (the median over the pieces)")
    rows = [[case.key] + [_per_piece(r[n], case) for n in names] for case, r in done]
    out.append(session.table(["key", *names], rows))
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
    for small_key, large_key in (("W2", "W"), ("W", "W100"), ("R", "R8")):
        if small_key in by_key and large_key in by_key:
            out.append(f"\nTime per character, {large_key} against {small_key} (flat: linear in the text)")
            (small_case, small), (large_case, large) = by_key[small_key], by_key[large_key]
            for name in names:
                if small[name].median and large[name].median:
                    growth = (large[name].median / len(large_case.text)) / (small[name].median / len(small_case.text))
                    out.append(f"  {name}: {growth:.2f}x")
    notes = sorted({f"{c.name}: n/a ({c.missing})" for c in found if c.run is None and c.missing})
    for case, results in done:
        for name, result in results.items():
            if result.failed:
                notes.append(f"!! {name} on {case.key}: {result.status}: {result.detail}")
    out.extend(notes)
    out.append("\n" + targets.summary())
    return "\n".join(out)


def _per_piece(result: Result, case: Case) -> str:
    return harness.format_time(result.median / len(case.pieces)) if result.median is not None else result.cell()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, help="rounds per workload (default 3, quick 1)")
    parser.add_argument("--cap", type=float, help="seconds before a peer is stopped (default 60, quick 1)")
    parser.add_argument("--only", help="comma-separated workloads: W2, W, W100, R, R8")
    parser.add_argument("--clock", choices=harness.CLOCKS, default="wall", help="wall time (default) or CPU time")
    parser.add_argument("--shows", action="store_true", help="what each shows per piece, streamed for real")
    parser.add_argument("--streamed", action="store_true", help="CPU per piece of each client, streamed for real")


# --- Streamed for real: a replayed OpenAI-compatible server ---------------------------------------------------------


def chat_events(pieces: list[str]) -> list[bytes]:
    """The server-sent events of a Chat Completions stream whose content is ``pieces``: one chunk a piece (the role
    on the first), the finish chunk, ``data: [DONE]``."""
    events = []
    for number, piece in enumerate(pieces):
        delta = {"role": "assistant", "content": piece} if not number else {"content": piece}
        events.append({"index": 0, "delta": delta, "finish_reason": None})
    events.append({"index": 0, "delta": {}, "finish_reason": "stop"})
    chunk = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1718000000, "model": "replay"}
    out = [f"data: {json.dumps({**chunk, 'choices': [choice]})}\n\n".encode() for choice in events]
    return [*out, b"data: [DONE]\n\n"]


def _serve(events: list[bytes], port: Any, sent: Any, acked: Any, lockstep: bool, wait: float, pace: float) -> None:
    """The replay server's process: answer every POST with ``events`` as an event stream, chunked, one event a
    chunk. ``sent``: how many events of the current response are on their way. With ``lockstep`` each event after the
    first waits until the client acknowledged the last one (``acked``) or ``wait`` seconds passed, so that what the
    client shows after each event is read before the next arrives."""
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            sent.value = acked.value = 0
            for number, event in enumerate(events):
                if lockstep and number:
                    deadline = time.monotonic() + wait
                    while acked.value < number and time.monotonic() < deadline:
                        time.sleep(0.0005)
                elif pace and number:
                    time.sleep(pace)
                sent.value = number + 1
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:  # a client that closed its connection
            pass

    server = Server(("127.0.0.1", 0), Handler)
    port.value = server.server_address[1]
    server.serve_forever()


class ReplayServer:
    """An OpenAI-compatible server on 127.0.0.1, in a process of its own, replaying ``events`` to every request.

    Its own process, not a thread: baml-py's synchronous client holds the GIL while its runtime waits for the
    response (``SyncFunctionResultStream.done``), so a server thread in the client's process never runs (the request
    goes unanswered until BAML's timeout), and CPU time measured in the client's process is the client's alone."""

    def __init__(self, events: list[bytes], *, lockstep: bool = False, wait: float = 1.0, pace: float = 0.0) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._port, self._sent, self._acked = (context.Value("i", 0, lock=False) for _ in range(3))
        self._process = context.Process(
            target=_serve, args=(events, self._port, self._sent, self._acked, lockstep, wait, pace), daemon=True
        )

    def __enter__(self) -> ReplayServer:
        import time

        self._process.start()
        deadline = time.monotonic() + 60
        while not self._port.value:
            if time.monotonic() > deadline or not self._process.is_alive():
                raise RuntimeError("the replay server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._process.terminate()
        self._process.join(10)

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self._port.value}"

    @property
    def sent(self) -> int:
        """How many events of the current response the server has sent."""
        return int(self._sent.value)

    def acknowledge(self, events: int) -> None:
        """Tell a lockstep server that what ``events`` events show has been read."""
        self._acked.value = events


@functools.cache
def openai_client(address: str) -> Any:
    """The openai client of the server at ``address`` (one per server: its making is not timed)."""
    from openai import OpenAI

    return OpenAI(base_url=address, api_key="unused", max_retries=0)


@functools.cache
def instructor_client(address: str) -> Any:
    import instructor as instructor_package

    return instructor_package.from_openai(openai_client(address), mode=instructor_package.Mode.JSON)


REQUEST = {"model": "replay", "messages": [{"role": "user", "content": "write the file"}]}


def ours_streamed(server: ReplayServer, model: Any = WriteFile) -> Iterator[Any]:
    """Our structured output over the openai client's stream (its chunk objects)."""
    from streaming_json.integrations import OpenAIChatStructuredOutput

    chunks = openai_client(server.address).chat.completions.create(**REQUEST, stream=True)
    yield from OpenAIChatStructuredOutput(model).stream(chunks)


def ours_raw_streamed(server: ReplayServer, model: Any = WriteFile) -> Iterator[Any]:
    """Our structured output over the raw path: the openai client's streaming response read by ``sse_events``, each
    event's data as a dict, with no SDK object built (as BAML's runtime reads the events itself)."""
    from streaming_json.integrations import OpenAIChatStructuredOutput, sse_events

    completions = openai_client(server.address).chat.completions
    response = completions.with_streaming_response.create(**REQUEST, stream=True)
    yield from OpenAIChatStructuredOutput(model).stream(sse_events(response))


def transport_streamed(server: ReplayServer) -> Iterator[Any]:
    """The floor under ours and instructor's: the openai client's streaming response read to the end, its bytes
    dropped (HTTP/1.1 chunks through httpx and h11, the costs any Python client of the server pays per event), then
    the value of the whole text (checked like the others; one validation, as ours gives it)."""
    completions = openai_client(server.address).chat.completions
    with completions.with_streaming_response.create(**REQUEST, stream=True) as response:
        text = []
        for data in sse_events_of(response):
            choice = data["choices"][0]
            text.append(choice["delta"].get("content") or "")
    yield WriteFile.model_validate_json("".join(text))


def sse_events_of(response: Any) -> Any:
    from streaming_json.integrations import sse_events

    return sse_events(response)


def instructor_streamed(server: ReplayServer) -> Iterator[Any]:
    """instructor's ``create_partial`` over the same openai client."""
    client = instructor_client(server.address)
    yield from client.chat.completions.create_partial(response_model=WriteFile, **REQUEST)  # type: ignore[arg-type]


def baml_streamed(server: ReplayServer, function: str = "WriteFileCall") -> Iterator[Any]:
    """BAML's own ``b.stream.<function>``, of its async client (its synchronous client holds the GIL while its
    runtime waits for the response, and its iterator then sees a few partials at most), driven by an event loop of
    its own; the partials as they come, then the final response."""
    import asyncio
    import queue
    import threading

    client = baml_client().b.with_options(env={"BENCH_REPLAY_BASE_URL": server.address})
    values: queue.Queue[Any] = queue.Queue()
    end = object()

    async def read() -> None:
        try:
            stream = getattr(client.stream, function)("write the file")
            async for value in stream:
                values.put(value)
            values.put(await stream.get_final_response())
        finally:
            values.put(end)

    thread = threading.Thread(target=asyncio.run, args=(read(),), daemon=True)
    thread.start()
    while (value := values.get()) is not end:
        yield value
    thread.join()


# --- What each shows per piece -------------------------------------------------------------------------------------


class DonePath(BaseModel):
    """``WriteFile`` with its path shown only once complete (BAML: ``path string @stream.done``)."""

    path: Annotated[str, Stream.done()]
    content: str
    overwrite: bool


class NotNullContent(BaseModel):
    """``WriteFile`` held back until its content has a value (BAML: ``content string @stream.not_null``)."""

    path: str
    content: Annotated[str, Stream.not_null()]
    overwrite: bool


class StateContent(BaseModel):
    """``WriteFile`` with its content wrapped with its state (BAML: ``content string @stream.with_state``)."""

    path: str
    content: Annotated[str, Stream.with_state()]
    overwrite: bool


class StartsAsContent(BaseModel):
    """``WriteFile`` whose content shows a placeholder until it starts (BAML 0.226.3 has no ``@stream.starts_as``)."""

    path: str
    content: Annotated[str, Stream.starts_as("...")]
    overwrite: bool


SHOWS_PIECES = ['{"pa', 'th": "src/', 'app.py", "con', 'tent": "import', ' os\\n", "over', 'write": tr', "ue}"]

# (title, our model, the BAML function of the same policy or None, with instructor's column)
SHOWS = [
    ("no policy", WriteFile, "WriteFileCall", True),
    ("path: `Stream.done()` / `@stream.done`", DonePath, "DonePathCall", False),
    ("content: `Stream.not_null()` / `@stream.not_null`", NotNullContent, "NotNullContentCall", False),
    ("content: `Stream.with_state()` / `@stream.with_state`", StateContent, "StateContentCall", False),
    ('content: `Stream.starts_as("...")` (BAML 0.226.3 rejects `@stream.starts_as`)', StartsAsContent, None, False),
]


def _shown(value: Any) -> str:
    """One value as a cell: each field's value (a state as ``state:value``), ``-`` where the object does not show."""
    if value is None:
        return "-"
    fields = value.model_dump() if isinstance(value, BaseModel) else dict(value)
    cells = []
    for key in ("path", "content", "overwrite"):
        field_value = getattr(value, key, fields.get(key))
        if hasattr(field_value, "state") and hasattr(field_value, "value"):  # ours or BAML's StreamState
            cells.append(f"{key}={str(field_value.state).lower()}:{field_value.value!r}")
        else:
            cells.append(f"{key}={field_value!r}")
    return " ".join(cells)


def watched(server: ReplayServer, values: Iterator[Any]) -> list[str]:
    """What ``values`` (a client reading the lockstep server) shows after each piece: the last value it gave while
    that piece was the last one sent (``·``: none), the pieces' rows, then one for the end of the stream."""
    rows = len(SHOWS_PIECES) + 1
    shown = ["·"] * rows
    for value in values:
        events = server.sent
        shown[min(events, rows) - 1] = _shown(value)
        server.acknowledge(events)
    return shown


def instructor_parser_shows(model: Any) -> list[str]:
    """What instructor's parser (``Partial[Model].model_from_chunks``, which ``create_partial`` runs) gives after
    each piece, read from the pieces themselves: ``create_partial`` over the OpenAI client (instructor 1.17.0) collects
    its partial values in a list and hands them all out once the response has ended."""
    from instructor import Partial

    values = [_shown(value) for value in Partial[model].model_from_chunks(iter(SHOWS_PIECES))]  # type: ignore[misc]
    return [*values, "·"]


def shows() -> str:
    """Markdown tables: for each policy, what ours, BAML's function and instructor's ``create_partial`` show after
    each piece of the same stream, each reading it from the replay server as a user's program does."""
    out = []
    with ReplayServer(chat_events(SHOWS_PIECES), lockstep=True) as server:
        for title, model, function, with_instructor in SHOWS:
            columns = {"streaming_json": watched(server, ours_streamed(server, model))}
            if function is not None:
                columns["BAML"] = watched(server, baml_streamed(server, function))
            if with_instructor:
                columns["instructor `create_partial`"] = watched(server, instructor_streamed(server))
                columns["instructor's parser per piece"] = instructor_parser_shows(model)
            out.append(f"\n{title}\n")
            out.append("| piece | " + " | ".join(columns) + " |")
            out.append("| --- |" + " --- |" * len(columns))
            labels = [f"`{piece}`" for piece in SHOWS_PIECES] + ["(end)"]
            for number, label in enumerate(labels):
                cells = [values[number] for values in columns.values()]
                out.append(f"| {label} | " + " | ".join(f"`{cell}`" if cell != "·" else cell for cell in cells) + " |")
    return "\n".join(out).replace("\\n", "\\\\n").strip()


# --- CPU per piece, streamed for real -------------------------------------------------------------------------------


STREAMED = {
    "ours, SDK chunks": ours_streamed,
    "ours, raw SSE": ours_raw_streamed,
    "instructor": instructor_streamed,
    "BAML": baml_streamed,
    "floor: HTTP + SSE": transport_streamed,
}
# (slower, faster): instructor against ours on the same SDK chunks; BAML, which reads the events itself, against ours
# on the raw path
STREAMED_RATIOS = [("instructor", "ours, SDK chunks"), ("BAML", "ours, raw SSE")]
PACE = 0.001  # seconds between two events: each arrives on its own, as a model's tokens do


def streamed_cpu(sizes: list[int], rounds: int, cap: float) -> str:
    """CPU time of the client's process (all its threads: BAML's runtime reads on threads of its own) per piece,
    each contender reading the whole write-file call from the replay server, one event every ``PACE`` seconds, and
    giving its final value; medians of ``rounds`` interleaved rounds. Paced, because BAML parses what arrived once
    per read of the socket: events sent back to back reach it a few reads in all, which a model's stream never does.
    A contender past ``cap`` seconds of CPU on one size is not run on the larger ones. Each final value is checked
    in a run of its own, untimed, which is also each contender's warm-up on that server."""
    from time import process_time

    names = list(STREAMED)
    rows, stopped = [], set()
    for size in sizes:
        call = workloads.write_file(1, size / 20).calls[0]
        expected = WriteFile.model_validate_json(call.text)
        times: dict[str, list[float]] = {name: [] for name in names}
        with ReplayServer(chat_events(call.pieces), pace=PACE) as server:
            for name in names:
                if name not in stopped:
                    last = None
                    for value in STREAMED[name](server):
                        last = value
                    if last is None or WriteFile.model_validate(last.model_dump()) != expected:
                        raise RuntimeError(f"{name}'s final value differs from the expected one")
            for round_number in range(rounds):
                shift = round_number % len(names)
                for name in names[shift:] + names[:shift]:
                    if name in stopped:
                        continue
                    start = process_time()
                    for _ in STREAMED[name](server):
                        pass
                    times[name].append(process_time() - start)
                    if times[name][-1] > cap:
                        stopped.add(name)
        medians = {name: statistics.median(values) if values else None for name, values in times.items()}
        row = [f"{len(call.text) // 1000} KB", f"{len(call.pieces):,}"]
        for name in names:
            median = medians[name]
            row.append(harness.format_time(median / len(call.pieces)) if median else "not run")
        for slow, fast in STREAMED_RATIOS:
            ratio = medians[slow] and medians[fast] and medians[slow] / medians[fast]
            row.append(harness.format_ratio(ratio or None))
        rows.append(row)
    headers = ["text", "pieces", *[f"{name}, per piece" for name in names]]
    headers += [f"{slow} / {fast}" for slow, fast in STREAMED_RATIOS]
    return harness.table(headers, rows, markdown=True)


def run(session: harness.Session) -> int:
    args = session.args
    if args.shows:
        print(shows())
        return 0
    scale = 0.1 if args.quick else 1.0
    repeats = args.repeats or (1 if args.quick else 3)
    cap = args.cap or (1.0 if args.quick else 60.0)
    if args.streamed:
        print(harness.environment_line(session.env), flush=True)
        print(f"{repeats} rounds, cap {cap:g} s, CPU time of the client's process", flush=True)
        print(streamed_cpu([max(1, round(kb * scale)) for kb in (2, 20, 100)], repeats, cap))
        return 0
    makers = {
        "W2": lambda: write_call(2, "W2", scale),
        "W": lambda: write_call(20, "W", scale),
        "W100": lambda: write_call(100, "W100", scale),
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
