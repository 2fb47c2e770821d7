"""The command line: ``python -m streaming_json`` (or ``streaming-json``).

Reads JSON text from standard input as it arrives, or from a file, and prints each new snapshot of the value as one
line of compact JSON, so that the last line is the value of everything read. ``--changes`` prints the changes
instead, one JSON object a line (``--done`` adds done events). ``--documents`` prints each complete document of a
stream of several, one line each; ``--lines`` reads JSON Lines; ``--prose`` finds the JSON in prose or a markdown
fence. ``--model-output FORMAT`` reads a model's raw output (``hermes``, ``qwen3_coder``, ``harmony``, ...: see
``streaming_json.model_output.FORMATS``) and prints the OpenAI Chat Completions deltas an inference server would
stream for it, one a line (``--tools FILE``: the tools' definitions, whose schemas type the parameters).
``--demo`` replays a bundled tool call at token speed with a live preview.

Malformed input is never an error: the output is whatever the tolerant reading made of it, and the exit status is 0.
"""

from __future__ import annotations

import argparse
import codecs
import functools
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import resources
from typing import Any, BinaryIO, Optional

from . import (
    BACKEND,
    MISSING,
    AppendChange,
    DoneChange,
    JsonChange,
    SetChange,
    StreamingJsonDocuments,
    StreamingJsonParser,
    ToolCallArgumentsStream,
    __version__,
)
from .model_output import FORMATS

FORMAT_NAMES = tuple(FORMATS)

CHUNK_SIZE = 65536
DEMO_SEED = 2024  # the demo splits its text the same way on every run
DEMO_PIECE_SIZES = (2, 6)
DEMO_MEAN_DELAY = 0.003  # seconds between pieces at --speed 1: about the pace of a fast model
PREVIEW_LINES = 20
REDRAW_INTERVAL = 1 / 30
PROGRESS_STEPS = 4  # a non-terminal demo reports progress at 25 %, 50 %, 75 % and 100 %
DESCRIBE_LIMIT = 60  # a longer value is described by its size

# Characters that would move the cursor or change the terminal's state if the preview echoed them.
_UNPRINTABLE = {code: "\ufffd" for code in [*range(0x20), 0x7F] if chr(code) not in "\n\t"}


class LineWriter:
    """Lines of text written to a binary stream as UTF-8, whatever the locale: the output is JSON, and JSON text is
    UTF-8."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, text: str) -> None:
        """Write ``text`` as it is."""
        # A lone surrogate (from a "\\ud800" escape) can only sit inside a JSON string, where "\\ud800" is its escape.
        self._stream.write(text.encode("utf-8", "backslashreplace"))

    def line(self, text: str) -> None:
        """Write ``text`` and a newline."""
        self.write(text + "\n")

    def flush(self) -> None:
        """Flush the stream, so that a reader sees the lines now."""
        self._stream.flush()


# --- Reading JSON from a stream ---------------------------------------------------------------------------------


def read_pieces(stream: BinaryIO) -> Iterator[str]:
    """Yield the text of ``stream`` as it arrives, decoded as UTF-8 with invalid bytes read as U+FFFD.

    ``os.read`` returns whatever one read delivers, so a slow pipe is shown piece by piece. The decoding is done here
    rather than by the parser so that a character cut off by the end of input still shows, as U+FFFD.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    descriptor = stream.fileno()
    while True:
        data = os.read(descriptor, CHUNK_SIZE)
        text = decoder.decode(data, final=not data)
        if text:
            yield text
        if not data:
            return


def compact_json(value: Any) -> Optional[str]:
    """``value`` as one line of compact JSON, or None where it is nested too deeply to print."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except RecursionError:
        return None


def _report_too_deep() -> None:
    print("streaming-json: the value is nested too deeply to print", file=sys.stderr)


class SnapshotLines:
    """Prints values as lines of compact JSON, skipping a line equal to the one before: a new snapshot can hold an
    equal value (a ``true`` that showed while pending, then finished)."""

    def __init__(self, output: LineWriter) -> None:
        self._output = output
        self._last_line: Optional[str] = None
        self._too_deep = False

    def show(self, value: Any) -> None:
        """Print ``value`` unless it is ``MISSING`` or prints as the last line did."""
        if value is MISSING or self._too_deep:
            return
        line = compact_json(value)
        if line is None:
            self._too_deep = True  # a value only grows: it will not get shallower
            _report_too_deep()
        elif line != self._last_line:
            self._last_line = line
            self._output.line(line)
            self._output.flush()


def print_snapshots(pieces: Iterable[str], output: LineWriter, prose: bool = False) -> None:
    """Print each new snapshot as a line of compact JSON; the last line is the value of all the text."""
    parser = StreamingJsonParser(changes=False, prose=prose)
    lines = SnapshotLines(output)
    shown: Any = MISSING
    for piece in pieces:
        parser.append(piece)
        snapshot = parser.snapshot()
        if snapshot is not shown:
            shown = snapshot
            lines.show(snapshot)
    # A snapshot may lag behind a long open value (the copy-credit rule): the last line pays for a fresh one.
    lines.show(parser.snapshot(fresh=True))


def change_record(change: JsonChange) -> dict[str, Any]:
    """A change as the JSON object that ``--changes`` prints: ``kind``, ``path`` and ``value`` or ``text``."""
    record: dict[str, Any] = {"kind": change.kind, "path": list(change.path)}
    if isinstance(change, AppendChange):
        record["text"] = change.text
    elif isinstance(change, (SetChange, DoneChange)):
        record["value"] = change.value
    return record


def print_changes(pieces: Iterable[str], output: LineWriter, done: bool = False, prose: bool = False) -> None:
    """Print each change that the text makes, one JSON object a line; with ``done``, done events too."""
    parser = StreamingJsonParser(done_events=done, prose=prose)
    for piece in pieces:
        for change in parser.append(piece):
            line = compact_json(change_record(change))
            if line is None:
                _report_too_deep()
                return
            output.line(line)
        output.flush()


def print_documents(pieces: Iterable[str], output: LineWriter, lines: bool = False, prose: bool = False) -> None:
    """Print each complete document as a line of compact JSON, as soon as it is complete. Skipped JSON Lines are
    reported on standard error at the end, so that standard output stays one document a line."""
    documents = StreamingJsonDocuments(lines=lines, prose=prose)
    for piece in pieces:
        for document in documents.append(piece):
            _print_document(document, output)
        output.flush()
    for document in documents.finish():
        _print_document(document, output)
    output.flush()
    if documents.skipped_lines:
        numbers = ", ".join(map(str, documents.skipped))
        more = " (the last 100)" if documents.skipped_lines > len(documents.skipped) else ""
        print(f"streaming-json: {documents.skipped_lines} lines skipped{more}: {numbers}", file=sys.stderr)


def _print_document(document: Any, output: LineWriter) -> None:
    line = compact_json(document)
    if line is None:
        _report_too_deep()
    else:
        output.line(line)


# --- The demo ---------------------------------------------------------------------------------------------------


def load_sample_tool_call() -> dict[str, Any]:
    """The bundled sample: a ``write`` tool call with a file's ``path`` and ``content``."""
    text = (resources.files("streaming_json") / "data" / "sample_tool_call.json").read_text(encoding="utf-8")
    call: dict[str, Any] = json.loads(text)
    return call


def token_pieces(text: str, rng: random.Random) -> list[str]:
    """Split ``text`` into pieces of a few characters, as a model streams tokens."""
    pieces = []
    position = 0
    while position < len(text):
        size = rng.randint(*DEMO_PIECE_SIZES)
        pieces.append(text[position : position + size])
        position += size
    return pieces


def paced(pieces: Sequence[str], speed: float, rng: random.Random) -> Iterator[str]:
    """Yield the pieces a few milliseconds apart (divided by ``speed``), keeping to a schedule so that sleeping
    late once does not slow down the rest."""
    due = time.perf_counter()
    for piece in pieces:
        due += rng.uniform(0.3, 1.7) * DEMO_MEAN_DELAY / speed
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        yield piece


def member_being_written(arguments: dict[str, Any]) -> tuple[str, Any]:
    """The last member of the partial arguments: the one the text is writing (members arrive in order)."""
    if not arguments:
        return "", None
    key = next(reversed(arguments))
    return key, arguments[key]


def line_count(text: str) -> int:
    """The number of lines of ``text``: a last line counts whether or not it ends with a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def describe(value: Any) -> str:
    """A short description of a value: its compact JSON where that is short and one line, else its size."""
    if isinstance(value, str) and (len(value) > DESCRIBE_LIMIT or "\n" in value):
        return f"{len(value):,} characters, {line_count(value):,} lines"
    shown = compact_json(value) or ""
    return shown if len(shown) <= DESCRIBE_LIMIT else f"{len(shown):,} characters of JSON"


class LivePreview:
    """A bounded region of the terminal, redrawn in place: the member being written and its last lines."""

    def __init__(self, output: LineWriter, title: str, total: int) -> None:
        self._output = output
        self._title = title
        self._total = total
        self._drawn_lines = 0
        self._last_draw = 0.0
        output.write("\x1b[?25l")  # hide the cursor while redrawing; close() shows it again

    def update(self, arguments: dict[str, Any], received: int) -> None:
        """Redraw with the partial ``arguments``: at most ``1 / REDRAW_INTERVAL`` times a second, and at the end."""
        now = time.perf_counter()
        if now - self._last_draw < REDRAW_INTERVAL and received < self._total:
            return
        self._last_draw = now
        self._redraw(self._frame(arguments, received))

    def _frame(self, arguments: dict[str, Any], received: int) -> list[str]:
        size = shutil.get_terminal_size()
        key, value = member_being_written(arguments)
        percent = 100 * received // self._total
        header = f"{self._title} \u25b8 {key or '...'} ({describe(value)}) {percent}%"
        body = value.translate(_UNPRINTABLE).expandtabs().split("\n") if isinstance(value, str) else []
        height = max(1, min(PREVIEW_LINES, size.lines - 3))
        # One column short of the width: a line that fills the last column would wrap on some terminals.
        return [line[: size.columns - 1] for line in [header, *body[-height:]]]

    def _redraw(self, lines: list[str]) -> None:
        up = f"\x1b[{self._drawn_lines}F" if self._drawn_lines else "\r"
        self._output.write(up + "\x1b[J" + "".join(line + "\n" for line in lines))
        self._output.flush()
        self._drawn_lines = len(lines)

    def close(self) -> None:
        """Show the cursor again."""
        self._output.write("\x1b[?25h")
        self._output.flush()


class ProgressLog:
    """Plain progress lines for output that is not a terminal: a line at each quarter of the text."""

    def __init__(self, output: LineWriter, title: str, total: int) -> None:
        self._output = output
        self._title = title
        self._total = total
        self._next_step = 1

    def update(self, arguments: dict[str, Any], received: int) -> None:
        """Print a line when ``received`` characters pass the next quarter of the text."""
        if received * PROGRESS_STEPS < self._next_step * self._total:
            return
        self._next_step = received * PROGRESS_STEPS // self._total + 1
        key, value = member_being_written(arguments)
        percent = 100 * received // self._total
        self._output.line(f"{self._title}: {percent:3d}% of {self._total:,} characters, {key}: {describe(value)}")
        self._output.flush()

    def close(self) -> None:
        """Nothing to restore: plain lines leave the terminal as it was."""


def run_demo(speed: float, output: LineWriter, interactive: bool) -> None:
    """Stream the sample tool call's arguments at token speed through a ``ToolCallArgumentsStream``."""
    call = load_sample_tool_call()
    title = call["name"]
    text = json.dumps(call["arguments"], ensure_ascii=False)
    rng = random.Random(DEMO_SEED)
    pieces = token_pieces(text, rng)
    stream = ToolCallArgumentsStream()
    view = (LivePreview if interactive else ProgressLog)(output, title, len(text))
    started = time.perf_counter()
    received = 0
    try:
        for piece in paced(pieces, speed, rng):
            received += len(piece)
            view.update(stream.append(piece), received)
    finally:
        view.close()
    elapsed = time.perf_counter() - started
    result = stream.finish()
    if result.error is not None:
        output.line(result.error)
    else:
        output.line(f"{title}({', '.join(f'{key}: {describe(value)}' for key, value in result.arguments.items())})")
    output.line(
        f"streamed {len(pieces):,} pieces ({len(text):,} characters) in {elapsed:.1f} s with the {BACKEND} backend"
    )
    output.flush()


# --- Entry point ------------------------------------------------------------------------------------------------


def positive_float(text: str) -> float:
    """An argparse type: a number greater than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0: {text!r}")
    return value


def argument_parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(
        prog="streaming-json",
        description="Read JSON as it arrives and print each new snapshot of the value as one line of compact JSON.",
    )
    parser.add_argument("file", nargs="?", help="the file to read (default: standard input)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--changes", action="store_true", help="print the changes, one JSON object a line")
    mode.add_argument(
        "--documents", action="store_true", help="print each complete document of a stream of several, one a line"
    )
    mode.add_argument("--demo", action="store_true", help="replay a sample tool call at token speed")
    mode.add_argument(
        "--model-output",
        metavar="FORMAT",
        choices=sorted(FORMAT_NAMES),
        help="read a model's raw output and print the OpenAI Chat deltas of its content and tool calls, one a line "
        f"(FORMAT: {', '.join(sorted(FORMAT_NAMES))})",
    )
    parser.add_argument(
        "--reasoning",
        nargs=2,
        metavar=("BEGIN", "END"),
        help="with --model-output: the reasoning block's markers, e.g. '<think>' '</think>' (default: the format's)",
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="with --model-output: a JSON file of the tools' definitions (OpenAI's tools list, or a mapping of name "
        "to JSON Schema): calls to other tools end with an error, and the schemas type the parameters",
    )
    parser.add_argument("--done", action="store_true", help="with --changes: also print done events")
    parser.add_argument("--lines", action="store_true", help="read JSON Lines: one document a line (as --documents)")
    parser.add_argument("--prose", action="store_true", help="find the JSON in prose or a markdown fence")
    parser.add_argument(
        "--speed", type=positive_float, default=1.0, metavar="FACTOR", help="demo speed factor (default: 1)"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} ({BACKEND} backend)")
    return parser


def _silence_stdout() -> None:
    # The reader went away (``| head``). Point stdout at devnull so that the interpreter's final flush cannot
    # raise BrokenPipeError again on the way out.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def read_json(file: Optional[str], printer: Callable[[Iterable[str]], None]) -> None:
    """Give ``printer`` the pieces of ``file``, or of standard input when ``file`` is None or ``-``."""
    if file is None or file == "-":
        printer(read_pieces(sys.stdin.buffer))
        return
    with open(file, "rb") as stream:
        printer(read_pieces(stream))


def print_model_output_deltas(
    pieces: Iterable[str],
    output: LineWriter,
    format: str,
    reasoning: Optional[tuple[str, str]] = None,
    tools: Any = None,
) -> None:
    """Print the OpenAI Chat Completions deltas of a model's raw output, one compact JSON object a line."""
    from .model_output import ModelOutputStream, openai_chat_deltas

    stream = ModelOutputStream(format, reasoning=reasoning, tools=tools)
    for piece in pieces:
        for delta in openai_chat_deltas(stream.feed(piece)):
            output.line(json.dumps(delta, ensure_ascii=False, separators=(",", ":")))
        output.flush()
    for delta in openai_chat_deltas(stream.finish()):
        output.line(json.dumps(delta, ensure_ascii=False, separators=(",", ":")))


def choose_printer(args: argparse.Namespace, output: LineWriter) -> Callable[[Iterable[str]], None]:
    """What to print of the text, as the options say."""
    if args.model_output is not None:
        reasoning = tuple(args.reasoning) if args.reasoning else None
        tools = None
        if args.tools is not None:
            with open(args.tools, encoding="utf-8") as file:
                tools = json.load(file)
        return functools.partial(
            print_model_output_deltas, output=output, format=args.model_output, reasoning=reasoning, tools=tools
        )
    if args.documents or args.lines:
        return functools.partial(print_documents, output=output, lines=args.lines, prose=args.prose)
    if args.changes:
        return functools.partial(print_changes, output=output, done=args.done, prose=args.prose)
    return functools.partial(print_snapshots, output=output, prose=args.prose)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; return the exit status."""
    parser = argument_parser()
    args = parser.parse_args(argv)
    if args.demo and (args.file is not None or args.lines or args.prose):
        parser.error("--demo reads no file and takes no reading options")
    if args.done and not args.changes:
        parser.error("--done goes with --changes")
    if args.lines and args.changes:
        parser.error("--lines prints documents, not changes")
    if args.model_output is not None and (args.lines or args.prose or args.done):
        parser.error("--model-output takes no JSON reading options")
    if args.reasoning and args.model_output is None:
        parser.error("--reasoning goes with --model-output")
    if args.tools and args.model_output is None:
        parser.error("--tools goes with --model-output")
    output = LineWriter(sys.stdout.buffer)
    try:
        if args.demo:
            run_demo(args.speed, output, interactive=sys.stdout.isatty())
        else:
            read_json(args.file, choose_printer(args, output))
        output.flush()
    except BrokenPipeError:
        _silence_stdout()
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        print(f"streaming-json: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
