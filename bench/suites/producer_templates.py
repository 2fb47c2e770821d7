"""Response templates (issue 43): our drop-in ``ResponseParser`` (a checkpoint's ``response_template`` compiled into
the one engine's format data) against transformers' own streaming ``ResponseParser``, on the same template and
streams.

Templates: transformers' built-in fallbacks for Qwen 2/3 (``json`` calls) and Qwen 3.5 (``xml-inline`` parameters),
``transformers.cli.serving.utils._RESPONSE_TEMPLATE_FALLBACKS``. Streams: a sentence, then one write-file call whose
content is N of Python source (this package's own, repeated), as each template's model writes it, ended by
``<|im_end|>``; fed 1 and 4 characters a piece. Both parsers get ``prefix=""``, then every piece, then ``finalize()``;
their messages must be equal (``MISMATCH`` otherwise). ``ours`` is the drop-in on the compiled core, ``stream`` the
bare ``ModelOutputStream`` on the same compiled format (what a server that renders our events itself pays).

Figures: the time a piece (CPU time of the whole stream over its pieces, best of the rounds); the piece at which the
first argument byte reaches the caller (transformers: the call's ``region_close``, the only event that carries a parsed
argument; ours: the first ``region_chunk`` of the call's arguments), out of the stream's pieces; and per-character
growth: our time a piece at 1 MB over ours at 64 KB. transformers is timed up to 100 KB: its ``feed`` appends each
piece to a string attribute that holds the whole text (a copy of the text so far every piece), so that 1 MB one
character a piece would take it hours. Targets: ours >= 20x transformers at 20 KB and >= 50x at 100 KB, flat (1 MB
within 1.5x of 64 KB).

    python -m bench producer_templates [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from pathlib import Path
from typing import Any, Callable

from bench import harness

PACKAGES = ("transformers",)
MARKDOWN = False

SIZES = {"2 KB": 2_000, "20 KB": 20_000, "64 KB": 64_000, "100 KB": 100_000, "1 MB": 1_000_000}
PEER_LIMIT = 100_000  # transformers is not run above this (see the docstring)
PIECES = (1, 4)
TARGETS = {"20 KB": 20.0, "100 KB": 50.0}


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


def run_transformers(template: dict[str, Any], pieces: list[str]) -> tuple[dict[str, Any], int]:
    from transformers.utils.chat_parsing import ResponseParser

    parser = ResponseParser(template, prefix="")
    first = -1
    for at, piece in enumerate(pieces):
        events = parser.feed(piece)
        if first < 0 and any(event["type"] == "region_close" and event["field"] == "tool_calls" for event in events):
            first = at
    message, _ = parser.finalize()
    return message, first if first >= 0 else len(pieces)


def run_ours(template: Any, pieces: list[str]) -> tuple[dict[str, Any], int]:
    from streaming_json.model_output import ResponseParser

    parser = ResponseParser(template, prefix="")
    first = -1
    for at, piece in enumerate(pieces):
        events = parser.feed(piece)
        if first < 0 and any(event.get("arguments") for event in events):
            first = at
    message, _ = parser.finalize()
    return message, first if first >= 0 else len(pieces)


def run_stream(format: Any, pieces: list[str]) -> tuple[None, int]:
    from streaming_json.model_output import ArgumentsDelta, ModelOutputStream

    stream = ModelOutputStream(format)
    first = -1
    for at, piece in enumerate(pieces):
        events = stream.feed(piece)
        if first < 0 and any(type(event) is ArgumentsDelta for event in events):
            first = at
    stream.finish()
    return None, first if first >= 0 else len(pieces)


def best_time(run: Callable[..., Any], arguments: tuple[Any, ...], rounds: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        result = run(*arguments)
        best = min(best, time.process_time() - start)
    return best, result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(session: harness.Session) -> int:
    from transformers.cli.serving.utils import _RESPONSE_TEMPLATE_FALLBACKS

    from streaming_json.model_output import ToolCallFormat, compile_response_template

    fallbacks = {types[0]: template for types, template in _RESPONSE_TEMPLATE_FALLBACKS.items()}
    print(harness.environment_line(session.env))
    targets = harness.Targets()
    wrong = False
    rows = []
    sizes = {name: size for name, size in SIZES.items() if not session.args.quick or size <= 20_000}
    for template_name in ("qwen2", "qwen3_5"):
        template = fallbacks[template_name]
        compiled = compile_response_template(template)
        format = ToolCallFormat.from_response_template(compiled)
        for piece_size in PIECES:
            per_piece: dict[str, float] = {}
            for size_name, size in sizes.items():
                text = write_output(template_name, size)
                pieces = [text[at : at + piece_size] for at in range(0, len(text), piece_size)]
                rounds = 1 if session.args.quick or size >= 1_000_000 else 3
                session.progress(f"{template_name} {size_name} {piece_size}-char pieces")
                ours_time, (ours_message, ours_first) = best_time(run_ours, (compiled, pieces), rounds)
                stream_time, (_, stream_first) = best_time(run_stream, (format, pieces), rounds)
                per_piece[size_name] = ours_time / len(pieces)
                peer_cell = first_peer = ratio_cell = stream_ratio = "-"
                if size <= PEER_LIMIT:
                    peer_time, (peer_message, peer_first) = best_time(run_transformers, (template, pieces), rounds)
                    if peer_message != ours_message:
                        wrong = True
                        ratio_cell = "MISMATCH"
                    else:
                        ratio = peer_time / ours_time
                        ratio_cell = harness.format_ratio(ratio)
                        stream_ratio = harness.format_ratio(peer_time / stream_time)
                        if size_name in TARGETS:
                            ratio_cell += targets.judge(ratio, ">=", TARGETS[size_name])
                    peer_cell = harness.format_time(peer_time / len(pieces))
                    first_peer = f"{peer_first + 1:,}"
                rows.append([
                    f"{template_name}, {size_name}, {piece_size}-char",
                    f"{len(pieces):,}",
                    peer_cell,
                    harness.format_time(ours_time / len(pieces)),
                    harness.format_time(stream_time / len(pieces)),
                    ratio_cell,
                    stream_ratio,
                    first_peer,
                    f"{ours_first + 1:,}",
                    f"{stream_first + 1:,}",
                ])  # fmt: skip
                session.raw.setdefault("cells", []).append({
                    "template": template_name, "size": size, "piece": piece_size, "pieces": len(pieces),
                    "ours_s": ours_time, "stream_s": stream_time, "ours_first": ours_first,
                    "transformers_s": peer_time if size <= PEER_LIMIT else None,
                })  # fmt: skip
            if "1 MB" in per_piece and "64 KB" in per_piece:
                growth = per_piece["1 MB"] / per_piece["64 KB"]
                verdict = targets.judge(growth, "<=", 1.5)
                print(f"{template_name}, {piece_size}-char pieces: ours a piece, 1 MB / 64 KB = {growth:.2f}{verdict}")
                session.raw.setdefault("growth", {})[f"{template_name} {piece_size}"] = growth
    headers = ["output", "pieces", "transformers", "ours", "stream", "ours: ratio", "stream: ratio"]
    headers += ["1st arg: transformers", "ours", "stream"]
    print(session.table(headers, rows))
    print(targets.summary())
    return 1 if wrong else 0
