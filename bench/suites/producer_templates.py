"""Response templates (issue 43): a checkpoint's ``response_template`` compiled into the one engine's format data,
against transformers' own streaming ``ResponseParser`` and vLLM's ``hf`` parser, on the same template and streams.

Templates: transformers' built-in fallbacks for Qwen 2/3 (``json`` calls) and Qwen 3.5 (``xml-inline`` parameters),
``transformers.cli.serving.utils._RESPONSE_TEMPLATE_FALLBACKS``. Streams: a sentence, then one write-file call whose
content is N of Python source (this package's own, repeated), as each template's model writes it, ended by
``<|im_end|>``; fed 1 and 4 characters a piece. Contenders, each given ``prefix=""`` (or no prompt), every piece,
then its end:

- ``transformers``: its ``ResponseParser(template, prefix="")``, ``feed`` a piece, ``finalize()``.
- ``vllm hf``: vLLM 0.33's ``--tool-call-parser hf`` (its own copy of transformers' reader,
  ``vllm.parser.chat_parsing``, behind ``ResponseTemplateParser``), the class ``ParserManager.get_parser(
  tool_parser_name="hf", enable_auto_tools=True)`` composes, as its chat server drives it: one per stream over a
  tokenizer that carries the template, ``parse_delta(piece, [], request, None, finished=...)``. Only where vLLM is
  installed (the producer environment, ``make bench-producer``); ``-`` elsewhere.
- ``stream``: the bare ``ModelOutputStream`` on the compiled format, ``feed`` a piece, ``finish()``: what the servers'
  ``streaming_json_hf`` plugins run. The targets are judged on it.
- ``drop-in``: our ``ResponseParser`` (transformers' constructor, ``feed`` and ``finalize``, on the stream).
- ``floor``: the stream plus one fresh event dict a piece in a list, transformers' ``region_chunk`` (``type``,
  ``field``, ``text``, ``dirty``): what any object with transformers' event interface pays at the least over the
  stream, so the drop-in's ratio is bounded by transformers over this.

Method: each contender is timed with nothing but its work (``feed = parser.feed``, then ``feed(piece)`` for every
piece, then its end), its parser made inside the timed run as a server makes one per request; CPU time
(``process_time``) of the whole stream over its pieces, best of the rounds, the contenders interleaved in each round
after ``gc.collect()``. Outputs are checked in a separate, untimed run of each: the drop-in's message must equal
transformers' (``MISMATCH`` otherwise), the stream's and vLLM's content and calls (name, arguments by value) too; the
same run finds the piece at which the first argument byte reaches the caller (transformers: the call's
``region_close``, the only event that carries a parsed argument; vLLM: the first delta with the call's arguments;
ours: the first ``ArgumentsDelta`` / ``region_chunk`` with ``arguments``), out of the stream's pieces. Per-character
growth: a piece's time at 1 MB over 64 KB. The peers are run up to 100 KB: transformers' ``feed`` appends each piece to
a string attribute that holds the whole text (a copy of the text so far every piece), and so does vLLM's copy, so 1 MB
one character a piece would take them hours. Targets (the stream): >= 20x transformers at 20 KB and >= 50x at
100 KB, flat (1 MB within 1.5x of 64 KB).

    python -m bench producer_templates [--quick] [--rounds N] [--json out.json]
    .venv-producer/bin/python -m bench producer --formats templates     # the same section, with vLLM's hf parser
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional

from bench import harness

PACKAGES = ("transformers", "vllm")
MARKDOWN = False

SIZES = {"2 KB": 2_000, "20 KB": 20_000, "64 KB": 64_000, "100 KB": 100_000, "1 MB": 1_000_000}
PEER_LIMIT = 100_000  # the peers are not run above this (see the docstring)
PIECES = (1, 4)
ROUNDS = 3
TARGETS = {"20 KB": 20.0, "100 KB": 50.0}
GROWTH_LIMIT = 1.5
TEMPLATES = ("qwen2", "qwen3_5")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]


def source_text(size: int) -> str:
    """``size`` characters of Python source (this package's pure core, repeated)."""
    import streaming_json._pure as pure

    text = Path(pure.__file__).read_text(encoding="utf-8")
    return (text * (size // len(text) + 1))[:size]


def write_output(template: str, size: int) -> str:
    content = source_text(size)
    if template == "qwen2":
        arguments = json.dumps({"path": "src/app.py", "content": content})
        call = f'<tool_call>\n{{"name": "write", "arguments": {arguments}}}\n</tool_call>'
    else:
        call = (
            "<tool_call>\n<function=write>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
            f"<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
        )
    return "I'll write the file.\n" + call + "<|im_end|>"


class Outcome(NamedTuple):
    """What a contender made of a stream (its untimed run): the content (stripped), the calls (name, arguments by
    value), the whole message where the contender makes transformers' (else None), and the piece at which the first
    argument byte reached the caller (the stream's length where none did)."""

    content: str
    calls: tuple[tuple[str, str], ...]
    message: Optional[dict[str, Any]]
    first: int


def of_message(message: dict[str, Any], first: int, whole: bool) -> Outcome:
    calls = tuple(
        (call["function"]["name"], json.dumps(call["function"]["arguments"], sort_keys=True))
        for call in message.get("tool_calls") or ()
    )
    return Outcome((message.get("content") or "").strip(), calls, message if whole else None, first)


class Contender(NamedTuple):
    name: str
    timed: Callable[[list[str]], Any]  # the work alone: a parser, every piece, its end
    checked: Callable[[list[str]], Outcome]  # the same, untimed, with its output read


# --- The contenders -------------------------------------------------------------------------------------------------


def transformers_contender(template: dict[str, Any]) -> Contender:
    from transformers.utils.chat_parsing import ResponseParser

    def timed(pieces: list[str]) -> Any:
        parser = ResponseParser(template, prefix="")
        feed = parser.feed
        for piece in pieces:
            feed(piece)
        return parser.finalize()

    def checked(pieces: list[str]) -> Outcome:
        parser = ResponseParser(template, prefix="")
        first = len(pieces)
        for at, piece in enumerate(pieces):
            events = parser.feed(piece)
            if first == len(pieces) and any(e["type"] == "region_close" and e["field"] == "tool_calls" for e in events):
                first = at
        return of_message(parser.finalize()[0], first, True)

    return Contender("transformers", timed, checked)


def vllm_contender(template: dict[str, Any]) -> Optional[Contender]:
    """vLLM's ``hf`` parser as its chat server drives it, or None where vLLM is not installed."""
    try:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.parser.parser_manager import ParserManager
    except ImportError:
        return None
    logging.disable(logging.CRITICAL)  # it logs what it drops

    class TemplateTokenizer:
        """The tokenizer stand-in: the checkpoint's template (what ``hf`` reads), no special tokens (the template's
        markers are text to it), and no prompt to decode."""

        response_template = template

        def get_vocab(self) -> dict[str, int]:
            return {}

        def __len__(self) -> int:
            return 0

        def decode(self, token_ids: Any, **options: Any) -> str:
            return ""

        def encode(self, text: str, **options: Any) -> list[int]:
            return [0]

    parser_class = ParserManager.get_parser(tool_parser_name="hf", enable_auto_tools=True)
    request = ChatCompletionRequest(
        model="bench", messages=[{"role": "user", "content": "Go."}], tools=TOOLS, tool_choice="auto"
    )
    tokenizer = TemplateTokenizer()
    no_ids: list[int] = []

    def timed(pieces: list[str]) -> Any:
        parser = parser_class(tokenizer, request.tools)
        parse_delta = parser.parse_delta
        for piece in pieces[:-1]:
            parse_delta(piece, no_ids, request, None, finished=False)
        return parse_delta(pieces[-1], no_ids, request, None, finished=True)

    def checked(pieces: list[str]) -> Outcome:
        parser = parser_class(tokenizer, request.tools)
        content: list[str] = []
        calls: list[tuple[str, str]] = []
        first = len(pieces)
        for at, piece in enumerate(pieces):
            delta = parser.parse_delta(piece, no_ids, request, None, finished=at == len(pieces) - 1)
            if delta is None:
                continue
            content.append(delta.content or "")
            for call in delta.tool_calls or ():
                if call.function is not None and call.function.arguments:
                    first = min(first, at)
                    arguments = json.dumps(json.loads(call.function.arguments), sort_keys=True)
                    calls.append((call.function.name or "", arguments))
        return Outcome("".join(content).strip(), tuple(calls), None, first)

    return Contender("vllm hf", timed, checked)


def stream_contender(format: Any) -> Contender:
    from streaming_json.model_output import ArgumentsDelta, ContentDelta, ModelOutputStream, ToolCallEnd, ToolCallStart

    def timed(pieces: list[str]) -> Any:
        stream = ModelOutputStream(format)
        feed = stream.feed
        for piece in pieces:
            feed(piece)
        return stream.finish()

    def checked(pieces: list[str]) -> Outcome:
        stream = ModelOutputStream(format)
        events = []
        first = len(pieces)
        for at, piece in enumerate(pieces):
            got = stream.feed(piece)
            if first == len(pieces) and any(type(event) is ArgumentsDelta for event in got):
                first = at
            events += got
        events += stream.finish()
        names = {event.index: event.name for event in events if type(event) is ToolCallStart}
        calls = tuple(
            (names[event.index], json.dumps(event.arguments, sort_keys=True))
            for event in events
            if type(event) is ToolCallEnd
        )
        content = "".join(event.text for event in events if type(event) is ContentDelta)
        return Outcome(content.strip(), calls, None, first)

    return Contender("stream", timed, checked)


def floor_contender(format: Any, calls_field: str) -> Contender:
    """The stream and one fresh transformers-shaped event a piece: any drop-in's least cost (its outputs are the
    stream's)."""
    from streaming_json.model_output import ModelOutputStream

    stream = stream_contender(format)

    def timed(pieces: list[str]) -> Any:
        stream = ModelOutputStream(format)
        feed = stream.feed
        for piece in pieces:
            feed(piece)
            [{"type": "region_chunk", "field": calls_field, "text": piece, "dirty": True}]  # noqa: B018 (the cost timed)
        return stream.finish()

    return Contender("floor", timed, stream.checked)


def dropin_contender(template: dict[str, Any]) -> Contender:
    from streaming_json.model_output import ResponseParser

    def timed(pieces: list[str]) -> Any:
        parser = ResponseParser(template, prefix="")
        feed = parser.feed
        for piece in pieces:
            feed(piece)
        return parser.finalize()

    def checked(pieces: list[str]) -> Outcome:
        parser = ResponseParser(template, prefix="")
        first = len(pieces)
        for at, piece in enumerate(pieces):
            events = parser.feed(piece)
            if first == len(pieces) and any(event.get("arguments") for event in events):
                first = at
        return of_message(parser.finalize()[0], first, True)

    return Contender("drop-in", timed, checked)


# --- Timing ---------------------------------------------------------------------------------------------------------


def best_times(contenders: list[Contender], pieces: list[str], rounds: int) -> dict[str, float]:
    """Each contender's best CPU time over ``rounds`` rounds, the contenders interleaved (in rotating order)."""
    best = {contender.name: float("inf") for contender in contenders}
    for round_number in range(rounds):
        shift = round_number % len(contenders)
        for contender in contenders[shift:] + contenders[:shift]:
            gc.collect()
            start = time.process_time()
            contender.timed(pieces)
            best[contender.name] = min(best[contender.name], time.process_time() - start)
    return best


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), printed beside the figures: the machine is shared."""
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=None, help=f"timed rounds (default {ROUNDS}, 1 with --quick)")


def row(
    label: str,
    count: int,
    times: dict[str, float],
    outcomes: dict[str, Outcome],
    faults: list[str],
    targets: harness.Targets,
    target: Optional[float],
) -> list[str]:
    """A line of the table: a piece's time of each contender, the ratios, the first argument byte's piece."""

    def ratio(over: str, name: str, target: Optional[float] = None) -> str:
        if name in faults:
            return "MISMATCH"
        if over not in times or over in faults:
            return "-"
        value = times[over] / times[name]
        return harness.format_ratio(value) + (targets.judge(value, ">=", target) if target is not None else "")

    def first(name: str) -> str:
        return f"{outcomes[name].first + 1:,}" if name in outcomes else "-"

    def timing(name: str) -> str:
        return harness.format_time(times[name] / count) if name in times else "-"

    return [
        label, f"{count:,}",
        timing("transformers"), timing("vllm hf"), timing("stream"), timing("floor"), timing("drop-in"),
        ratio("transformers", "stream", target), ratio("vllm hf", "stream"),
        ratio("transformers", "floor"), ratio("transformers", "drop-in"), ratio("vllm hf", "drop-in"),
        first("transformers"), first("vllm hf"), first("drop-in"), first("stream"),
    ]  # fmt: skip


def run(session: harness.Session) -> int:
    print(harness.environment_line(session.env))
    print()
    return time_templates(session, session.args.rounds or (1 if session.args.quick else ROUNDS))


def time_templates(session: harness.Session, rounds: int) -> int:
    """The section: every template, piece size and size; the table, the growth lines and the targets' tally."""
    from transformers.cli.serving.utils import _RESPONSE_TEMPLATE_FALLBACKS

    from streaming_json.model_output import ToolCallFormat, compile_response_template

    fallbacks = {types[0]: template for types, template in _RESPONSE_TEMPLATE_FALLBACKS.items()}
    print(f"Response templates: start, {load()}")
    targets = harness.Targets()
    wrong = False
    rows = []
    sizes = {name: size for name, size in SIZES.items() if not session.args.quick or size <= 20_000}
    for template_name in TEMPLATES:
        template = fallbacks[template_name]
        compiled = compile_response_template(template)
        format = ToolCallFormat.from_response_template(compiled)
        ours = [stream_contender(format), floor_contender(format, compiled.calls_field), dropin_contender(template)]
        vllm = vllm_contender(template)
        peers = [transformers_contender(template)] + ([vllm] if vllm is not None else [])
        for piece_size in PIECES:
            per_piece: dict[str, dict[str, float]] = {}
            for size_name, size in sizes.items():
                text = write_output(template_name, size)
                pieces = [text[at : at + piece_size] for at in range(0, len(text), piece_size)]
                contenders = ours + (peers if size <= PEER_LIMIT else [])
                session.progress(f"{template_name} {size_name} {piece_size}-char pieces")
                outcomes = {contender.name: contender.checked(pieces) for contender in contenders}
                times = best_times(contenders, pieces, rounds)
                a_piece = {name: seconds / len(pieces) for name, seconds in times.items()}
                per_piece[size_name] = a_piece
                expected = outcomes.get("transformers")
                faults = [
                    name
                    for name, got in outcomes.items()
                    if expected is not None
                    and (got[:2] != expected[:2] or (got.message is not None and got.message != expected.message))
                ]
                wrong |= bool(faults)

                rows.append(
                    row(
                        f"{template_name}, {size_name}, {piece_size}-char",
                        len(pieces),
                        times,
                        outcomes,
                        faults,
                        targets,
                        TARGETS.get(size_name),
                    )
                )
                session.raw.setdefault("templates", []).append({
                    "template": template_name, "size": size, "piece": piece_size, "pieces": len(pieces),
                    "seconds": times, "first": {name: got.first for name, got in outcomes.items()}, "faults": faults,
                })  # fmt: skip
            if "1 MB" in per_piece and "64 KB" in per_piece:
                for name in ("stream", "drop-in"):
                    growth = per_piece["1 MB"][name] / per_piece["64 KB"][name]
                    verdict = targets.judge(growth, "<=", GROWTH_LIMIT) if name == "stream" else ""
                    label = f"{template_name}, {piece_size}-char pieces: {name} a piece"
                    print(f"{label}, 1 MB / 64 KB = {growth:.2f}{verdict}")
                    session.raw.setdefault("growth", {})[f"{template_name} {piece_size} {name}"] = growth
    headers = ["output", "pieces", "transformers", "vllm hf", "stream", "floor", "drop-in"]
    headers += ["stream: x transformers", "x vllm", "floor: x transformers", "drop-in: x transformers", "x vllm"]
    headers += ["1st arg: transformers", "vllm", "drop-in", "stream"]
    print(session.table(headers, rows))
    print(f"Response templates: end, {load()}")
    print(targets.summary())
    return 1 if wrong else 0
