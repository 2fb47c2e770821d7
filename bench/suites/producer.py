"""The producer benchmark (issue 20): tool calls out of a model's raw output, ``ModelOutputStream`` against vLLM's and
SGLang's own tool parsers on the same token streams, and the bugs of theirs those streams show.

Every contender turns a model's raw output, fed as the server feeds it, into the calls' (name, argument text) and the
content, and is checked against the model's own arguments, byte for byte (``MISMATCH`` otherwise):

- ``vllm``: vLLM 0.33's parser for the format, as its chat server drives it: the class
  ``ParserManager.get_parser(tool_parser_name=..., enable_auto_tools=True)`` composes, one per stream, fed each delta
  with ``parse_delta(delta_text, delta_token_ids, request, prompt_token_ids, finished=...)`` (it keeps the whole text
  so far and hands it to the tool parser on every call; ``finished`` on the last delta runs its end-of-stream patch).
- ``sglang``: SGLang 0.5.23's ``FunctionCallParser(tools, name)`` as its chat server drives it: ``parse_stream_chunk``
  on each delta and ``parse_stream_end`` after the last. The server then sends one more chunk
  (``serving_chat._check_for_unstreamed_tool_args``); that module imports SGLang's model layers (torchvision,
  compressed_tensors, ...), which install with neither this torch nor ``--no-deps``, so that chunk is not sent here.
- ``ours``: ``ModelOutputStream(format)`` on the compiled core; ``ours-pure`` on the pure backend (``parser_class``).
- ``bare``, ``bare-pure``: the floor the layer is judged against: ``StreamingJsonParser`` fed the same pieces of each
  call's JSON alone (the pieces clipped to it), ``append`` + ``snapshot`` per piece; ``scan``, the compiled core's
  ``append`` alone with ``changes=False``, each piece's (empty) list of changes read as ours' events are (issue 33's
  floor: the layer within 2x of it on the 20 KB call).

Token streams: the text is cut into tokens, each marker of the format one token with its special token's id (as a
server sees it: special tokens are one token each), the rest in pieces of 1 to 6 characters (``tests/strategies.
cut_randomly``'s sizes; 1 for the one-character workloads), each a token of its own id. A delta is one token, or, for
speculative decoding and stream intervals, several (``wide``: 8 to 40 tokens; ``whole``: the output in one delta).
The tokenizer the peers get is a stand-in: ``get_vocab()`` gives the format's special tokens and their ids (what the
parsers look up), ``decode([id])`` any token's text (what vLLM's engine-based Kimi K2 and Mistral parsers read).

Workloads timed, all Hermes (``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``):

- ``corpus``: the 845 real calls of ``tests/data/llm_tool_calls.jsonl``, each the output of one response with a
  sentence before it, token deltas;
- ``write 20 KB``: a write-file call holding 20 KB of Python source, token deltas;
- ``wide``: the real calls three to an output, each output in one delta (a speculative-decoding step);
- ``1-char 64 KB`` / ``256 KB`` / ``1 MB``: a write-file call with that much source, one character a delta.

Timing: CPU time of this process (``process_time``), interleaved rounds (each round runs every contender once, in
rotating order, after ``gc.collect()``), medians; the peers are stopped at the cap and not run at the larger sizes of
the one-character series once stopped. The bug pass then runs each peer and ours once on every stream of every format
(hermes, llama3_json, mistral, deepseek_v31, kimi_k2): each real call alone as written, with prose around where the
format has it, in token deltas (``token``); the same calls compact, indented or ASCII-escaped (``styled``); the calls
up to 4,000 characters one character a delta (``1-char``); three calls to an output in wide deltas (``wide``) and in one
delta (``whole``); a stream a peer takes more than 5 s over counts as ``too slow``. Each wrong stream is counted by
what went wrong: arguments re-serialised (same value, other text), lost (none, or ``{}``), truncated (a prefix),
corrupted (other text), extra text after them, a wrong name, a call lost or one too many, content lost or added
(compared with whitespace runs collapsed: the newlines a format writes around its markers are not held against it).

The formats that write arguments as text, and Harmony (issue 29: qwen3_coder, seed_oss, glm47, glm45, minimax_m2,
deepseek_v32, gemma4, harmony, pythonic, llama4_pythonic): each format's own timing, on the same kinds of streams
written in it (``tests/model_outputs.write_output``): the real calls an output each, 20 KB and 100 KB write-file
calls in token deltas, and the one-character series; vLLM through the same composed parser (its declarative engine's
tool adapter for the first seven; its pythonic parsers), SGLang through ``FunctionCallParser`` with its name for the
format (SGLang has no Seed-OSS parser; vLLM's Harmony parser reads token ids of a vocabulary no package here ships).
Every contender gets the tools with schemas inferred from the calls' value types; the arguments are compared by
value (a format whose arguments are text has no text to keep: a peer's spacing is no fault; its types are). A
peer's single call that runs past the cap by a second is interrupted by an alarm (SGLang's pythonic detector
backtracks in a regex at the end of a long call) and counts as stopped. Targets: >= 25x vLLM and >= 15x SGLang at
20 KB, >= 50x both at 100 KB, ours flat per character (1 MB within 1.5x of 64 KB). Their bug pass runs the same cuts
but ``styled`` (no JSON styles), and counts a value of the wrong type (``"30"`` for ``30``) as ``wrong type``.

Response templates (issue 43, ``--formats templates``, last): a checkpoint's ``response_template`` compiled into our
format, against transformers' ``ResponseParser`` and vLLM's ``hf`` parser on transformers' fallback templates; the
section is ``bench/suites/producer_templates.py`` (its docstring says how it times), run here with vLLM present.

Environment: its own (``.venv-producer``, ``make bench-producer``; ``bench/producer-requirements.txt`` pins every
package): vLLM and SGLang installed with ``--no-deps`` as they ship, torch's CPU build, and what their parser
modules' imports need. Nothing of theirs is stubbed or copied.

    make bench-producer                               # sets up .venv-producer and runs this suite
    .venv-producer/bin/python -m bench producer [--quick] [--rounds N] [--cap S] [--skip-bugs] [--only-bugs]
        [--formats hermes,qwen3_coder,...,templates] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import re
import signal
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Callable, NamedTuple, Optional

from bench import harness, workloads
from bench.harness import Contender, NotApplicable, Stopped
from bench.suites import producer_templates

PACKAGES = (
    "vllm",
    "sglang",
    "torch",
    "transformers",
    "partial-json-parser",
    "ijson",
    "mistral_common",
    "xgrammar",
    "pydantic",
)
MARKDOWN = True

ROUNDS = 5
CAP = 30.0  # seconds: a peer still running then is stopped, and not repeated once its runs add up to this
BUG_CAP = 5.0  # seconds a peer may take over one stream of the bug pass
ONE_CHAR_LONGEST = 4000  # the bug pass's one-character streams: the calls up to this many characters
CHECK_EVERY = 64  # deltas between two deadline checks
TEMPLATES = "templates"  # --formats' name for the response-template section (issue 43)


# --- Formats: ours, the peers' names for them, and the special tokens their tokenizers have -------------------------


@dataclass(frozen=True)
class Format:
    name: str  # ours, and tests/model_outputs.py's writer
    vllm: str  # --tool-call-parser ("" where vLLM has no parser it can run here)
    sglang: str  # --tool-call-parser ("" where SGLang has none for the format)
    special: dict[str, int]  # the markers, each one special token, and stand-in ids
    prose: bool  # whether prose may stand around the calls (Llama 3's bare JSON opens the output)
    typed: bool = False  # arguments written as text, typed by the tools' schemas: compared by value
    vllm_missing: str = ""  # why vLLM's parser for it cannot run here


_DS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
)
_KIMI = (
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
)


def _special(*markers: str, first: int = 300_000) -> dict[str, int]:
    return {marker: first + number for number, marker in enumerate(markers)}


# The formats that write arguments as text, and Harmony (issue 29): each one's special tokens are those its model's
# tokenizer has as one token (vLLM's engines read them by id: its token_id_terminals); tags such as <function= or
# <parameter= are text, cut into pieces as any text.
TEXT_FORMATS = {
    f.name: f
    for f in (
        Format("qwen3_coder", "qwen3_coder", "qwen3_coder", _special("<tool_call>", "</tool_call>"), True, True),
        Format("seed_oss", "seed_oss", "", _special("<seed:tool_call>", "</seed:tool_call>"), True, True),
        Format("glm47", "glm47", "glm47", _special("<tool_call>", "</tool_call>"), True, True),
        Format("glm45", "glm45", "glm45", _special("<tool_call>", "</tool_call>"), True, True),
        Format(
            "minimax_m2",
            "minimax_m2",
            "minimax-m2",
            _special("<minimax:tool_call>", "</minimax:tool_call>"),
            True,
            True,
        ),
        Format(
            "deepseek_v32",
            "deepseek_v32",
            "deepseekv32",
            _special("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
            True,
            True,
        ),
        Format("gemma4", "gemma4", "gemma4", _special("<|tool_call>", "<tool_call|>", '<|"|>'), True, True),
        Format(
            "harmony",
            "openai",
            "gpt-oss",
            _special("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|call|>", "<|end|>", "<|return|>"),
            True,
            vllm_missing="vLLM's Harmony parser reads token ids of the o200k_harmony vocabulary, whose file "
            "openai_harmony downloads at first use; quicktok-v1, which ships it, is not installed",
        ),
        # The formats issue 45 added (the markers vLLM's parsers read as one token each, as the tokenizers have).
        Format(
            "deepseek_v4",
            "deepseek_v4",
            "deepseekv4",
            _special("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
            True,
            True,
        ),
        Format(
            "deepseek_v41", "deepseek_v41", "deepseekv41", _special("<｜DSML｜ calls>", "</｜DSML｜ calls>"), True, True
        ),
        Format("kimi_k3", "kimi_k3", "kimi_k3", _special("<|open|>", "<|close|>", "<|sep|>"), True, True),
        Format("step3", "step3", "step3", _special("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"), True, True),
        Format("hy_v3", "hy_v3", "", _special("<tool_calls>", "</tool_calls>"), True, True),
        Format("hy_v4", "hy_v4", "", _special("<tool_calls>", "</tool_calls>"), True, True),
        Format("olmo3", "olmo3", "", _special("<function_calls>", "</function_calls>"), True, True),
        Format("pythonic", "pythonic", "pythonic", {}, False, True),
        # (No prose around: vLLM reads Llama 4's calls only where the output begins with them, by design.)
        Format(
            "llama4_pythonic",
            "llama4_pythonic",
            "pythonic",
            _special("<|python_start|>", "<|python_end|>"),
            False,
            True,
        ),
    )
}

FORMATS = {
    f.name: f
    for f in (
        Format("hermes", "hermes", "hermes", {"<tool_call>": 151657, "</tool_call>": 151658}, True),
        Format("llama3_json", "llama3_json", "llama3", {"<|python_tag|>": 128010, "<|eom_id|>": 128008}, False),
        # Mistral before tokenizer v11: its vocabulary has [TOOL_CALLS] and no [ARGS] (vLLM reads the version so).
        Format("mistral", "mistral", "mistral", {"[TOOL_CALLS]": 5}, True),
        Format("deepseek_v31", "deepseek_v31", "deepseekv31", dict(zip(_DS, range(128806, 128811))), True),
        Format("kimi_k2", "kimi_k2", "kimi_k2", dict(zip(_KIMI, range(163595, 163600))), True),
    )
}


class PieceTokenizer:
    """The tokenizer stand-in the peers get: the format's special tokens and their ids from ``get_vocab()``, and the
    text of any token of the suite's streams from ``decode`` (every piece is a token with an id of its own)."""

    texts: dict[int, str] = {}  # id -> text, every token of every stream
    ids: dict[str, int] = {}

    def __init__(self, special: dict[str, int]) -> None:
        self._vocab = dict(special)
        for text, token_id in special.items():
            PieceTokenizer.texts[token_id] = text

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    def __len__(self) -> int:
        return len(self._vocab)

    def decode(self, token_ids: Sequence[int], **options: Any) -> str:
        return "".join(PieceTokenizer.texts[token_id] for token_id in token_ids)

    @classmethod
    def token_id(cls, text: str) -> int:
        found = cls.ids.get(text)
        if found is None:
            found = cls.ids[text] = 1_000_000 + len(cls.ids)
            cls.texts[found] = text
        return found


# --- Streams --------------------------------------------------------------------------------------------------------


class Outcome(NamedTuple):
    """What a contender made of a stream: the content (whitespace runs collapsed) and the calls (name, arguments)."""

    content: str
    calls: tuple[tuple[str, str], ...]


def outcome(content: Sequence[str], names: dict[int, str], arguments: dict[int, str]) -> Outcome:
    indices = sorted(set(names) | set(arguments))
    return Outcome(" ".join("".join(content).split()), tuple((names.get(i, ""), arguments.get(i, "")) for i in indices))


@dataclass
class Stream:
    text: str
    pieces: list[str]  # the deltas
    ids: list[list[int]]  # each delta's token ids
    expected: Outcome
    json_pieces: list[list[str]] = field(default_factory=list)  # each call's JSON, in the same cuts (Hermes)


@dataclass
class Case:
    key: str
    title: str
    streams: list[Stream]

    @property
    def chars(self) -> int:
        return sum(len(stream.text) for stream in self.streams)

    @property
    def deltas(self) -> int:
        return sum(len(stream.pieces) for stream in self.streams)

    @property
    def expected(self) -> list[Outcome]:
        return [stream.expected for stream in self.streams]


def tokens(text: str, fmt: Format, rng: random.Random, longest: int) -> list[tuple[str, Any]]:
    """The text as tokens: each marker one token with its special id, the rest in pieces of 1 to ``longest``; for
    Harmony, where its vocabulary is here, the real tokens (vLLM's Harmony parser reads token ids: a piece is
    then the smallest run of tokens that decodes to whole characters, with its ids)."""
    if fmt.name == "harmony":
        encoding = harmony_encoding()
        if encoding is not None:
            return harmony_tokens(encoding, text)
    markers = sorted(fmt.special, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(marker) for marker in markers) if markers else "(?!)")
    out: list[tuple[str, int]] = []

    def cut(span: str) -> None:
        position = 0
        while position < len(span):
            piece = span[position : position + rng.randint(1, longest)]
            out.append((piece, PieceTokenizer.token_id(piece)))
            position += len(piece)

    position = 0
    for match in pattern.finditer(text):
        cut(text[position : match.start()])
        out.append((match.group(), fmt.special[match.group()]))
        position = match.end()
    cut(text[position:])
    return out


def deltas(token_list: list[tuple[str, Any]], rng: random.Random, width: Optional[tuple[int, int]]) -> list[list[Any]]:
    """Tokens grouped into deltas: one token each (``width`` None), or ``width`` tokens at random, or all in one. (A
    token's id may be a list of ids: Harmony's runs of real tokens.)"""

    def ids(group: list[tuple[str, Any]]) -> list[int]:
        return [one for _, token_id in group for one in (token_id if isinstance(token_id, list) else [token_id])]

    if width is None:
        return [[text, ids([(text, token_id)])] for text, token_id in token_list]
    groups, position = [], 0
    while position < len(token_list):
        size = rng.randint(*width)
        group = token_list[position : position + size]
        groups.append(["".join(text for text, _ in group), ids(group)])
        position += size
    return groups


_HARMONY_VOCABULARY_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_harmony: list[Any] = []


def harmony_encoding() -> Any:
    """gpt-oss's tokenizer (openai_harmony's o200k_harmony), or None where it cannot load here.

    openai_harmony downloads ``o200k_base.tiktoken`` at first use, from outside the package registries; the
    ``quicktok-v1`` package (in bench/producer-requirements.txt) ships the same ranks, derived from tiktoken (MIT), in
    a binary table: this writes them back as the tiktoken file, checks its SHA-256 against the one openai_harmony
    expects, and points openai_harmony at it (``TIKTOKEN_ENCODINGS_BASE``)."""
    if _harmony:
        return _harmony[0]
    _harmony.append(None)
    try:
        import base64
        import hashlib
        import struct
        import sys
        from importlib.resources import files

        folder = os.path.join(sys.prefix, "harmony-vocabulary")
        path = os.path.join(folder, "o200k_base.tiktoken")
        if not os.path.exists(path):
            table = files("quicktok").joinpath("data/o200k.vocab").read_bytes()
            (count,) = struct.unpack_from("<I", table, 0)
            position, ranks = 4, []
            for _ in range(count):
                (length,) = struct.unpack_from("<H", table, position)
                token = table[position + 2 : position + 2 + length]
                (rank,) = struct.unpack_from("<I", table, position + 2 + length)
                ranks.append((rank, token))
                position += 6 + length
            text = "".join(f"{base64.b64encode(token).decode()} {rank}\n" for rank, token in sorted(ranks))
            if hashlib.sha256(text.encode()).hexdigest() != _HARMONY_VOCABULARY_SHA256:
                return None
            os.makedirs(folder, exist_ok=True)
            with open(path, "w", encoding="ascii") as file:
                file.write(text)
        os.environ.setdefault("TIKTOKEN_ENCODINGS_BASE", folder)
        from vllm.entrypoints.openai.parser.harmony_utils import get_encoding

        _harmony[0] = get_encoding()
    except Exception:
        return None
    return _harmony[0]


def harmony_tokens(encoding: Any, text: str) -> list[tuple[str, Any]]:
    """The text as gpt-oss's tokens, each run that decodes to whole characters one piece with its ids."""
    out: list[tuple[str, Any]] = []
    run: list[int] = []
    for token_id in encoding.encode(text, allowed_special="all"):
        run.append(token_id)
        try:
            piece = encoding.decode_utf8(run)
        except Exception:  # the run ends inside a character
            continue
        out.append((piece, run))
        run = []
    assert not run and "".join(piece for piece, _ in out) == text
    return out


def clip(pieces: list[str], start: int, end: int) -> list[str]:
    """The parts of the pieces of a text that lie in ``text[start:end]``, in order."""
    out, offset = [], 0
    for piece in pieces:
        lo, hi = max(start, offset), min(end, offset + len(piece))
        if lo < hi:
            out.append(piece[lo - offset : hi - offset])
        offset += len(piece)
    return out


def make_stream(
    fmt: Format,
    calls: Sequence[tuple[str, str]],
    seed: int,
    before: str = "",
    after: str = "",
    longest: int = 6,
    width: Optional[tuple[int, int]] = None,
) -> Stream:
    from tests.model_outputs import write_output

    if not fmt.prose:
        before = after = ""
    text, events = write_output(fmt.name, calls, before=before, after=after)
    rng = random.Random(seed)
    grouped = deltas(tokens(text, fmt, rng, longest), rng, width)
    pieces = [piece for piece, _ in grouped]
    # The model's own calls: the arguments as written, or, for a format that writes them as text, their typed JSON.
    names = {event.index: event.name for event in events if event.kind == "start"}
    arguments = {event.index: event.text for event in events if event.kind == "arguments"}
    expected = outcome([event.text for event in events if event.kind == "content"], names, arguments)
    if fmt.typed:
        expected = canonical_outcome(expected)
    stream = Stream(text, pieces, [ids for _, ids in grouped], expected)
    if fmt.name == "hermes":
        position = 0
        for name, arguments in calls:
            call_json = f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}'
            start = text.index(call_json, position)
            position = start + len(call_json)
            stream.json_pieces.append(clip(pieces, start, position))
    return stream


def canonical_outcome(got: Outcome) -> Outcome:
    """An outcome with each call's arguments as ``json.dumps`` writes their value, where they parse: the formats that
    write arguments as text have no text to keep, only values (a peer's other spacing is no fault)."""
    calls = []
    for name, arguments in got.calls:
        with contextlib.suppress(ValueError):
            arguments = json.dumps(json.loads(arguments), ensure_ascii=False)
        calls.append((name, arguments))
    return Outcome(got.content, tuple(calls))


# Prose a model writes around its calls, picked by the call's number.
BEFORE = ["I'll check that first.", "Let me look at the file.\n\n", "", "Sure: one step at a time.\n"]
AFTER = ["", "\n\nThat should do it.", "", " Waiting for the result."]


def real_calls(scale: float) -> list[tuple[str, str]]:
    from tests.model_outputs import REAL_CALLS

    return REAL_CALLS[:: max(1, round(1 / scale))]


def write_call(size: int) -> tuple[str, str]:
    content = workloads.python_source(size)
    return "write", json.dumps({"path": "src/app/generated_module.py", "content": content, "overwrite": True})


def timed_cases(scale: float) -> list[Case]:
    hermes = FORMATS["hermes"]
    calls = real_calls(scale)
    corpus = [make_stream(hermes, [call], 1000 + i, before=BEFORE[i % 4] or "Here:") for i, call in enumerate(calls)]
    wide = [
        make_stream(hermes, calls[i : i + 3], 3000 + i, before="Three steps.", width=(10**9, 10**9))
        for i in range(0, len(calls) - 2, 3)
    ]
    cases = [
        Case("corpus", f"real corpus: {len(calls)} Hermes outputs, token deltas", corpus),
        Case(
            "write 20 KB",
            f"write-file call, {int(20_000 * scale) // 1000} KB of Python, token deltas",
            [make_stream(hermes, [write_call(int(20_000 * scale))], 1, before="Writing it.")],
        ),
        Case("wide", f"real corpus three calls to an output, each output in one delta ({len(wide)})", wide),
    ]
    for label, size in SCALING(scale):
        stream = make_stream(hermes, [write_call(size)], 2, longest=1)
        cases.append(Case(f"1-char {label}", f"write-file call, {label} of Python, one character a delta", [stream]))
    return cases


def SCALING(scale: float) -> list[tuple[str, int]]:  # the one-character series: label, size
    sizes = [(64, "64 KB"), (256, "256 KB"), (1024, "1 MB")]
    return [(label if scale == 1 else f"{int(kb * scale)} KB", int(kb * 1024 * scale)) for kb, label in sizes]


def styled(arguments: str, index: int) -> str:
    from tests.model_outputs import arguments_styles

    compact, _, indented, ascii_escaped = arguments_styles(arguments)[1:]
    return (compact, indented, ascii_escaped)[index % 3]


def bug_streams(fmt: Format, scale: float) -> dict[str, list[Stream]]:
    from tests.model_outputs import writable

    calls = real_calls(scale)
    if fmt.typed:  # (the few that hold the format's own markers in a raw value cannot be written in it)
        calls = [call for call in calls if writable(fmt.name, call[1])]

    def prose(i: int) -> dict[str, str]:
        return {"before": BEFORE[i % 4], "after": AFTER[(i // 4) % 4]}

    threes = [calls[i : i + 3] for i in range(0, len(calls) - 2, 3)]
    # (A format that writes arguments as text has no JSON styles: its "styled" cut is none.)
    styles = [] if fmt.typed else list(enumerate(calls))
    return {
        "token": [make_stream(fmt, [call], 10_000 + i, **prose(i)) for i, call in enumerate(calls)],
        "styled": [
            make_stream(fmt, [(name, styled(arguments, i))], 20_000 + i, **prose(i)) for i, (name, arguments) in styles
        ],
        "1-char": [
            make_stream(fmt, [call], 30_000 + i, longest=1, **prose(i))
            for i, call in enumerate(calls)
            if len(call[1]) <= ONE_CHAR_LONGEST
        ],
        "wide": [make_stream(fmt, group, 40_000 + i, width=(8, 40), **prose(i)) for i, group in enumerate(threes)],
        "whole": [
            make_stream(fmt, group, 50_000 + i, width=(10**9, 10**9), **prose(i)) for i, group in enumerate(threes)
        ],
    }


# --- Contenders -----------------------------------------------------------------------------------------------------


class FirstRuns:
    """Which cases a contender has run: the first run of a case is the one the harness checks, and keeps every delta
    or event for it; the later ones drop each as it comes, as a server does once it has sent it, so that no time
    counts the collector walking a million kept objects (at 1 MB in one-character deltas, keeping every event made
    ours 1.5x to 2x slower per character than at 64 KB; dropping them, it is flat)."""

    def __init__(self) -> None:
        self._seen: dict[int, Case] = {}  # by id, holding the case: a freed case's id may be a new case's

    def first(self, case: Case) -> bool:
        """Whether this is the case's first run (and note that it has had one)."""
        if self._seen.get(id(case)) is case:
            return False
        self._seen[id(case)] = case
        return True

    @staticmethod
    def keeper(keep: bool, extend: bool = False) -> tuple[Callable[[Any], Any], Optional[list[Any]]]:
        """A C-level call that keeps what it is given in a new list (``keep``: the case's first run), or drops it."""
        if not keep:
            sink: deque[Any] = deque(maxlen=0)
            return (sink.extend if extend else sink.append), None
        kept: list[Any] = []
        return (kept.extend if extend else kept.append), kept


class Late(Exception):
    """A peer's single call ran past the deadline (SGLang's pythonic detector backtracks in a regex for minutes on
    a long call): the alarm interrupts it, and the run counts as stopped."""


def _late(signum: int, frame: Any) -> None:
    raise Late


@contextlib.contextmanager
def alarm_at(deadline: float, grace: float = 1.0) -> Iterator[None]:
    """Interrupt what runs past ``deadline`` (``perf_counter``) by ``grace`` seconds: the checks between deltas
    stop a peer whose every call returns; this one stops a call that does not."""
    if deadline == float("inf"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, max(deadline - perf_counter(), 0.0) + grace)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def tool_definitions(names: Sequence[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}} for name in names]


def typed_tools() -> list[dict[str, Any]]:
    """The tools of the real calls and the write-file call, each parameter's schema the type of its values (the
    four tools give each parameter one type in all 845 calls)."""
    from tests.model_outputs import REAL_CALLS, tools_for

    return tools_for([*REAL_CALLS, write_call(10)])


def tools_of(fmt: Format) -> list[dict[str, Any]]:
    return typed_tools() if fmt.typed else tool_definitions(tool_names())


def tool_names() -> list[str]:
    from tests.model_outputs import REAL_CALLS

    return sorted({name for name, _ in REAL_CALLS} | {"write"})


class HarmonyTokenizer:
    """The tokenizer vLLM's Harmony parser gets: it reads the token ids (through openai_harmony), and decodes text
    for its error recovery."""

    def __init__(self, encoding: Any) -> None:
        self._encoding = encoding

    def get_vocab(self) -> dict[str, int]:
        return {}

    def decode(self, token_ids: Sequence[int], **options: Any) -> str:
        return str(self._encoding.decode(list(token_ids)))


def vllm_contender(fmt: Format) -> Contender:
    if not fmt.vllm:
        raise RuntimeError(fmt.vllm_missing)
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    tokenizer: Any
    if fmt.name == "harmony":  # as its server drives gpt-oss: the Harmony parser, with gpt-oss's reasoning parser
        encoding = harmony_encoding()
        if encoding is None:
            raise RuntimeError(fmt.vllm_missing)
        parser_class = ParserManager.get_parser(
            tool_parser_name=fmt.vllm, reasoning_parser_name="openai_gptoss", enable_auto_tools=True, is_harmony=True
        )
        tokenizer = HarmonyTokenizer(encoding)
    else:
        parser_class = ParserManager.get_parser(tool_parser_name=fmt.vllm, enable_auto_tools=True)
        tokenizer = PieceTokenizer(fmt.special)
    request = ChatCompletionRequest(
        model="bench",
        messages=[{"role": "user", "content": "Go."}],
        tools=tools_of(fmt),
        tool_choice="auto",
    )
    parser_class(tokenizer, request.tools)  # fails here, not in the first round, where the tokenizer lacks a token
    prompt = [1, 2, 3]  # the prompt's token ids: none opens a reasoning block, so tool parsing starts at once

    first_runs = FirstRuns()

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        """Each stream's deltas out of the parser, as the server gets them (read into outcomes untimed)."""
        out, done, first = [], 0, first_runs.first(case)
        number = 0
        try:
            with alarm_at(deadline):
                for stream in case.streams:
                    parser = parser_class(tokenizer, request.tools)
                    parse_delta = parser.parse_delta
                    keep, messages = first_runs.keeper(first)
                    last = len(stream.pieces) - 1
                    for number, (piece, token_ids) in enumerate(zip(stream.pieces, stream.ids)):
                        keep(parse_delta(piece, token_ids, request, prompt, finished=number == last))
                        if not number % CHECK_EVERY and perf_counter() > deadline:
                            raise Stopped(done + number, case.deltas)
                    done += len(stream.pieces)
                    out.append(messages)
        except Late:
            raise Stopped(done + number, case.deltas) from None
        return out

    def to_value(out: list[list[Any]]) -> list[Outcome]:
        outcomes = []
        for messages in out:
            content: list[str] = []
            names: dict[int, str] = {}
            arguments: dict[int, str] = {}
            for delta in messages:
                if delta is None:
                    continue
                if delta.content:
                    content.append(delta.content)
                for call in delta.tool_calls or ():
                    function = call.function
                    if function is not None:
                        if function.name:
                            names[call.index] = names.get(call.index, "") + function.name
                        if function.arguments:
                            arguments[call.index] = arguments.get(call.index, "") + function.arguments
            outcomes.append(outcome(content, names, arguments))
        return [canonical_outcome(got) for got in outcomes] if fmt.typed else outcomes

    return Contender("vllm", run, to_value=to_value)


def sglang_contender(fmt: Format) -> Contender:
    if not fmt.sglang:
        raise RuntimeError(f"SGLang 0.5.23 has no tool-call parser for {fmt.name}")
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool.model_validate(tool) for tool in tools_of(fmt)]
    FunctionCallParser(tools, fmt.sglang)

    first_runs = FirstRuns()

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        """Each stream's (normal text, calls) out of the parser, as the server gets them (read untimed)."""
        out, done, first = [], 0, first_runs.first(case)
        number = 0
        try:
            with alarm_at(deadline):
                for stream in case.streams:
                    parser = FunctionCallParser(tools, fmt.sglang)
                    parse = parser.parse_stream_chunk
                    keep, results = first_runs.keeper(first)
                    for number, piece in enumerate(stream.pieces):
                        keep(parse(piece))
                        if not number % CHECK_EVERY and perf_counter() > deadline:
                            raise Stopped(done + number, case.deltas)
                    keep(parser.parse_stream_end())
                    done += len(stream.pieces)
                    out.append(results)
        except Late:
            raise Stopped(done + number, case.deltas) from None
        return out

    def to_value(out: list[list[Any]]) -> list[Outcome]:
        outcomes = []
        for results in out:
            content: list[str] = []
            names: dict[int, str] = {}
            arguments: dict[int, str] = {}
            for normal_text, calls in results:
                if normal_text:
                    content.append(normal_text)
                for call in calls:
                    if call.name:
                        names[call.tool_index] = names.get(call.tool_index, "") + call.name
                    if call.parameters:
                        arguments[call.tool_index] = arguments.get(call.tool_index, "") + call.parameters
            outcomes.append(outcome(content, names, arguments))
        return [canonical_outcome(got) for got in outcomes] if fmt.typed else outcomes

    return Contender("sglang", run, to_value=to_value)


def call_id(index: int) -> str:
    return f"call_{index}"


def ours_contender(name: str, fmt: Format, parser_module: str) -> Contender:
    from importlib import import_module

    from streaming_json.model_output import ModelOutputStream

    parser_class = import_module(parser_module).StreamingJsonParser
    tools = tools_of(fmt)

    first_runs = FirstRuns()

    def run(case: Case, deadline: float) -> list[Optional[list[Any]]]:
        """Each stream's events, as a server gets them (read into outcomes untimed)."""
        out, first = [], first_runs.first(case)
        for stream in case.streams:
            model_output = ModelOutputStream(fmt.name, tools=tools, new_call_id=call_id, parser_class=parser_class)
            feed = model_output.feed
            keep, events = first_runs.keeper(first, extend=True)
            for piece in stream.pieces:
                keep(feed(piece))
            keep(model_output.finish())
            out.append(events)
        return out

    def to_value(out: list[list[Any]]) -> list[Outcome]:
        outcomes = []
        for events in out:
            content: list[str] = []
            names: dict[int, str] = {}
            arguments: dict[int, list[str]] = {}
            for event in events:
                kind = event.kind
                if kind == "arguments":
                    arguments[event.index].append(event.text)
                elif kind == "content":
                    content.append(event.text)
                elif kind == "start":
                    names[event.index] = event.name
                    arguments[event.index] = []
                elif kind == "end" and event.error is not None:
                    arguments[event.index] = [f"<error: {event.error}>"]
            outcomes.append(outcome(content, names, {i: "".join(texts) for i, texts in arguments.items()}))
        return outcomes  # (the exact text: a text format's JSON is written as the expected one is)

    return Contender(name, run, ours=True, capped=False, budgeted=False, to_value=to_value)


def bare_contender(name: str, parser_module: str, scan: bool = False) -> Contender:
    """The bare parser over each call's JSON pieces: ``append`` + ``snapshot`` a piece, or (``scan``) ``append`` alone
    with ``changes=False`` (the floor issue 33's target is set against), each piece's list read as ours' events are
    (a server reads what every piece returns); a snapshot at each call's end to check."""
    from importlib import import_module

    parser_class = import_module(parser_module).StreamingJsonParser

    read = deque(maxlen=0).extend  # a piece's changes read as ours' events are (FirstRuns.keeper): one C call

    def run(case: Case, deadline: float) -> tuple[Case, list[Any]]:
        if not case.streams[0].json_pieces:
            raise NotApplicable("the bare parser reads Hermes streams' JSON only")
        values = []
        for stream in case.streams:
            for pieces in stream.json_pieces:
                if scan:
                    parser = parser_class(changes=False)
                    append = parser.append
                    for piece in pieces:
                        read(append(piece))
                else:
                    parser = parser_class()
                    append, snapshot = parser.append, parser.snapshot
                    for piece in pieces:
                        append(piece)
                        snapshot()
                values.append(parser.snapshot())
        return case, values

    def to_value(returned: tuple[Case, list[Any]]) -> Any:
        case, values = returned
        wanted = [
            {"name": name, "arguments": json.loads(arguments)}
            for stream in case.streams
            for name, arguments in stream.expected.calls
        ]
        return case.expected if values == wanted else values

    return Contender(name, run, ours=True, capped=False, budgeted=False, to_value=to_value)


def peers(fmt: Format) -> list[Contender]:
    return [
        harness.contender("vllm", lambda: vllm_contender(fmt)),
        harness.contender("sglang", lambda: sglang_contender(fmt)),
    ]


def ours(fmt: Format) -> list[Contender]:
    return [
        harness.contender("ours", lambda: ours_contender("ours", fmt, "streaming_json._core"), missing="not built"),
        harness.contender("ours-pure", lambda: ours_contender("ours-pure", fmt, "streaming_json._pure")),
    ]


def floors() -> list[Contender]:
    return [
        harness.contender("bare", lambda: bare_contender("bare", "streaming_json._core"), missing="not built"),
        harness.contender("bare-pure", lambda: bare_contender("bare-pure", "streaming_json._pure")),
        harness.contender("scan", lambda: bare_contender("scan", "streaming_json._core", True), missing="not built"),
    ]


# --- The bug pass ---------------------------------------------------------------------------------------------------

FAULTS = [
    "re-serialised",
    "wrong type",
    "arguments lost",
    "truncated",
    "corrupted",
    "extra text",
    "wrong name",
    "call lost",
    "extra call",
    "content",
    "too slow",
    "raised",
]


def canonical(arguments: str) -> str:
    return json.dumps(json.loads(arguments), ensure_ascii=False)


def same_value(text: str, arguments: str) -> bool:
    try:
        return bool(json.loads(text) == json.loads(arguments))
    except ValueError:
        return False


def same_text_values(text: str, arguments: str) -> bool:
    """Whether the two are the same values but for their types (``"30"`` for ``30``, ``"true"`` for ``true``)."""

    def loose(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: loose(item) for key, item in value.items()}
        if isinstance(value, list):
            return [loose(item) for item in value]
        return value if isinstance(value, str) else json.dumps(value)

    try:
        return bool(loose(json.loads(text)) == loose(json.loads(arguments)))
    except ValueError:
        return False


def faults(expected: Outcome, got: Outcome) -> set[str]:
    """What is wrong with ``got``, by kind (see the module documentation)."""
    found = set()
    if got.content != expected.content:
        found.add("content")
    for index, (name, arguments) in enumerate(expected.calls):
        if index >= len(got.calls):
            found.add("call lost")
            continue
        got_name, got_arguments = got.calls[index]
        if got_name != name:
            found.add("wrong name")
        if got_arguments == arguments:
            continue
        if got_arguments.strip() in ("", "{}") and arguments.strip() != "{}":
            found.add("arguments lost")
        elif same_value(got_arguments, arguments):
            found.add("re-serialised")
        elif same_text_values(got_arguments, arguments):
            found.add("wrong type")
        elif arguments.startswith(got_arguments) or canonical(arguments).startswith(got_arguments):
            found.add("truncated")
        elif got_arguments.startswith(arguments):
            found.add("extra text")
        else:
            found.add("corrupted")
    if len(got.calls) > len(expected.calls):
        found.add("extra call")
    return found


@dataclass
class Tally:
    streams: int = 0
    wrong: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    by_cut: Counter[str] = field(default_factory=Counter)
    first: dict[str, Any] = field(default_factory=dict)  # fault -> (the smallest stream showing it, what came out)


def bug_pass(contenders: list[Contender], cuts: dict[str, list[Stream]], session: harness.Session) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    for c in contenders:
        if c.run is None:
            continue
        tally = tallies[c.name] = Tally()
        for cut, streams in cuts.items():
            for stream in streams:
                one = Case(cut, cut, [stream])
                try:
                    got = c.to_value(c.run(one, perf_counter() + BUG_CAP))[0]
                    found = faults(stream.expected, got)
                except Stopped:
                    got, found = "stopped", {"too slow"}
                except Exception as error:
                    got, found = f"{type(error).__name__}: {error}", {"raised"}
                tally.streams += 1
                if found:
                    tally.wrong += 1
                    tally.by_cut[cut] += 1
                    tally.kinds.update(found)
                    for kind in found:
                        if kind not in tally.first or len(stream.text) < len(tally.first[kind][0].text):
                            tally.first[kind] = (stream, got)
    return tallies


# --- The suite ------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=None, help=f"timed rounds (default {ROUNDS}, 1 with --quick)")
    parser.add_argument("--cap", type=float, default=None, help=f"seconds before a peer is stopped (default {CAP:g})")
    parser.add_argument("--skip-bugs", action="store_true", help="time only: no bug pass")
    parser.add_argument(
        "--formats",
        default=None,
        help="comma-separated formats to run (default all: the Hermes timing and the JSON formats' bug pass, then "
        f"each of {', '.join(TEXT_FORMATS)} timed and its bug pass, then {TEMPLATES!r}: the response-template section, "
        "bench/suites/producer_templates.py)",
    )
    parser.add_argument("--only-bugs", action="store_true", help="the bug pass only: no timing")


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), printed beside the figures: the machine is shared."""
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def per_char(result: harness.Result, case: Case) -> Optional[float]:
    return None if result.median is None else result.median / case.chars * 1e9


def run(session: harness.Session) -> int:
    args = session.args
    quick = args.quick
    scale = 1 / 16 if quick else 1.0
    rounds = args.rounds or (1 if quick else ROUNDS)
    cap = args.cap or (2.0 if quick else CAP)
    clock = harness.CLOCKS["cpu"]
    logging.disable(logging.CRITICAL)  # the peers log every error they swallow
    hermes = FORMATS["hermes"]
    contenders = peers(hermes) + ours(hermes) + floors()
    every = {**FORMATS, **TEXT_FORMATS}
    chosen = [*every, TEMPLATES] if args.formats is None else [name.strip() for name in args.formats.split(",")]
    unknown = [name for name in chosen if name not in every and name != TEMPLATES]
    if unknown:
        raise SystemExit(f"unknown formats: {', '.join(unknown)} (the formats: {', '.join(every)}, {TEMPLATES})")
    status = 0
    print(harness.environment_line(session.env))
    print()
    print(f"Start: {load()}")
    print()
    if not args.only_bugs and "hermes" in chosen:
        status |= time_cases(session, contenders, scale, rounds, cap, clock)
    text_formats = [TEXT_FORMATS[name] for name in chosen if name in TEXT_FORMATS]
    if not args.only_bugs and text_formats:
        status |= time_text_formats(session, text_formats, scale, rounds, cap, clock)
    if not args.skip_bugs:
        status |= report_bugs(session, scale, [every[name] for name in chosen if name in every])
    if not args.only_bugs and TEMPLATES in chosen:
        print()
        status |= producer_templates.time_templates(session, args.rounds or (1 if quick else producer_templates.ROUNDS))
    return status


def text_cases(fmt: Format, scale: float) -> list[Case]:
    """A text format's timed workloads: the real calls each in an output of its own, token deltas; 20 KB and 100 KB
    write-file calls, token deltas; the one-character series."""
    from tests.model_outputs import writable

    calls = [call for call in real_calls(scale) if writable(fmt.name, call[1])]
    corpus = [make_stream(fmt, [call], 1000 + i, before=BEFORE[i % 4] or "Here:") for i, call in enumerate(calls)]
    cases = [Case("corpus", f"real corpus: {len(calls)} outputs, token deltas", corpus)]
    for kb in (20, 100):
        size = int(kb * 1000 * scale)
        stream = make_stream(fmt, [write_call(size)], kb, before="Writing it.")
        cases.append(Case(f"write {kb} KB", f"write-file call, {size // 1000} KB of Python, token deltas", [stream]))
    for label, size in SCALING(scale):
        stream = make_stream(fmt, [write_call(size)], 2, longest=1)
        cases.append(Case(f"1-char {label}", f"write-file call, {label} of Python, one character a delta", [stream]))
    return cases


def time_text_formats(
    session: harness.Session,
    formats: list[Format],
    scale: float,
    rounds: int,
    cap: float,
    clock: Callable[[], float],
) -> int:
    """Issue 29's timing: each text format (and Harmony) through vLLM's parser for it (its engine where it has
    one), SGLang's detector and ours, on the same deltas; targets at 20 KB and 100 KB and the per-character
    flatness."""
    print(
        f"The formats that write arguments as text, and Harmony: CPU time, medians of {rounds} interleaved rounds; "
        f"peers stopped at {cap:g} s. Deltas: tokens of 1 to 6 characters, each special token one token (Harmony: "
        "gpt-oss's own tokens, where its vocabulary is here). Each format: the times; the ratios (time of a / time of "
        "ours on the same deltas) and ours in ns a delta; one character a delta, ns per character and the last "
        "size's over the first's."
    )
    print()
    targets = harness.Targets()
    failed = 0
    raw: dict[str, Any] = {}
    session.raw["text_formats"] = raw
    for fmt in formats:
        rows: list[list[Any]] = []
        ratio_rows: list[list[Any]] = []
        flat_rows: list[list[Any]] = []
        contenders = peers(fmt) + ours(fmt)
        for c in contenders:
            if c.run is None:
                print(f"- {c.name} ({fmt.name}): n/a ({c.missing})")
        cases = text_cases(fmt, scale)
        results: dict[str, dict[str, harness.Result]] = {}
        stopped: dict[str, str] = {}
        for case in cases:
            session.progress(f"{fmt.name} {case.key}: {case.title}")
            skip = stopped if case.key.startswith("1-char") else {}
            results[case.key] = harness.measure(
                contenders, case, rounds=rounds, cap=cap, expected=case.expected, clock=clock, skip=skip
            )
            if case.key.startswith("1-char"):
                for name, result in results[case.key].items():
                    if result.status == "stopped":
                        stopped[name] = f"> {cap:g} s at a smaller size"
        failed |= int(harness.failed(results.values(), contenders))
        names = [c.name for c in contenders]
        for case in cases:
            r = results[case.key]
            rows.append([fmt.name, case.key, f"{case.chars:,}", f"{case.deltas:,}", *(r[n].cell() for n in names)])
            vllm, vllm_bound = harness.ratio(r["vllm"], r["ours"], cap)
            sglang, sglang_bound = harness.ratio(r["sglang"], r["ours"], cap)
            vllm_cell = harness.format_ratio(vllm, vllm_bound)
            sglang_cell = harness.format_ratio(sglang, sglang_bound)
            if case.key == "write 20 KB":
                vllm_cell += targets.judge(vllm, ">=", 25, vllm_bound)
                sglang_cell += targets.judge(sglang, ">=", 15, sglang_bound)
            if case.key == "write 100 KB":
                vllm_cell += targets.judge(vllm, ">=", 50, vllm_bound)
                sglang_cell += targets.judge(sglang, ">=", 50, sglang_bound)
            pure, _ = harness.ratio(r["ours-pure"], r["ours"])
            per_delta = r["ours"].median / case.deltas * 1e9 if r["ours"].median is not None else None
            ratio_rows.append(
                [
                    fmt.name,
                    case.key,
                    vllm_cell,
                    sglang_cell,
                    harness.format_ratio(pure),
                    f"{per_delta:.0f}" if per_delta is not None else "-",
                ]
            )
        series = [case for case in cases if case.key.startswith("1-char")]
        for name in ("ours", "ours-pure", "vllm", "sglang"):
            figures = [per_char(results[case.key][name], case) for case in series]
            cells = [
                f"{value:.0f}" if value is not None else results[case.key][name].cell()
                for value, case in zip(figures, series)
            ]
            flat = figures[-1] / figures[0] if figures[0] and figures[-1] else None
            flat_cell = harness.format_ratio(flat)
            if name in ("ours", "ours-pure"):
                flat_cell += targets.judge(flat, "<=", 1.5)
            flat_rows.append([fmt.name, name, *cells, flat_cell])
        raw[fmt.name] = {
            case.key: {
                "chars": case.chars,
                "deltas": case.deltas,
                **{n: r.to_json() for n, r in results[case.key].items()},
            }
            for case in cases
        }
        # Each format's tables as soon as it is done (a full run takes hours on a shared machine).
        print(f"{fmt.name} ({load()}):")
        print()
        print(session.table(["format", "workload", "chars", "deltas", "vllm", "sglang", "ours", "ours-pure"], rows))
        print()
        print(
            session.table(["format", "workload", "vllm/ours", "sglang/ours", "pure/ours", "ours ns/delta"], ratio_rows)
        )
        print()
        labels = [label for label, _ in SCALING(scale)]
        print(session.table(["format", "one char a delta", *labels, f"{labels[-1]} / {labels[0]}"], flat_rows))
        print(flush=True)
    print(targets.summary())
    print()
    print(f"After the text formats' timing: {load()}")
    print()
    session.raw["text_targets"] = {"met": targets.met, "missed": targets.missed}
    return failed


def time_cases(
    session: harness.Session,
    contenders: list[Contender],
    scale: float,
    rounds: int,
    cap: float,
    clock: Callable[[], float],
) -> int:
    cases = timed_cases(scale)
    for c in contenders:
        if c.run is None:
            print(f"- {c.name}: n/a ({c.missing})")
    print(
        f"CPU time, medians of {rounds} interleaved rounds; peers stopped at {cap:g} s. "
        f"Deltas: tokens of 1 to 6 characters, each marker one token."
    )
    print()
    results: dict[str, dict[str, harness.Result]] = {}
    stopped: dict[str, str] = {}
    for case in cases:
        session.progress(f"{case.key}: {case.title}")
        skip = stopped if case.key.startswith("1-char") else {}
        results[case.key] = harness.measure(
            contenders, case, rounds=rounds, cap=cap, expected=case.expected, clock=clock, skip=skip
        )
        if case.key.startswith("1-char"):
            for name, result in results[case.key].items():
                if result.status == "stopped":
                    stopped[name] = f"> {cap:g} s at a smaller size"
    names = [c.name for c in contenders]
    rows = [
        [case.key, f"{case.chars:,}", f"{case.deltas:,}"] + [results[case.key][n].cell() for n in names]
        for case in cases
    ]
    print(session.table(["workload", "chars", "deltas", *names], rows))
    print()

    targets = harness.Targets()
    by_key = {case.key: case for case in cases}
    ratio_rows = []
    for case in cases:
        r = results[case.key]
        vllm, vllm_bound = harness.ratio(r["vllm"], r["ours"], cap)
        sglang, sglang_bound = harness.ratio(r["sglang"], r["ours"], cap)
        layer, _ = harness.ratio(r["ours"], r["bare"])
        layer_pure, _ = harness.ratio(r["ours-pure"], r["bare-pure"])
        over_scan, _ = harness.ratio(r["ours"], r["scan"])
        pure, _ = harness.ratio(r["ours-pure"], r["ours"])
        vllm_cell = harness.format_ratio(vllm, vllm_bound)
        sglang_cell = harness.format_ratio(sglang, sglang_bound)
        if case.key == "corpus":
            vllm_cell += targets.judge(vllm, ">=", 30, vllm_bound)
        if case.key == "write 20 KB":
            vllm_cell += targets.judge(vllm, ">=", 100, vllm_bound)
            sglang_cell += targets.judge(sglang, ">=", 1000, sglang_bound)
        layer_cell, layer_pure_cell = harness.format_ratio(layer), harness.format_ratio(layer_pure)
        if case.key in ("corpus", "write 20 KB", f"1-char {SCALING(scale)[-1][0]}"):
            layer_cell += targets.judge(layer, "<=", 2)
            layer_pure_cell += targets.judge(layer_pure, "<=", 2)
        scan_cell = harness.format_ratio(over_scan)
        if case.key == "write 20 KB":
            scan_cell += targets.judge(over_scan, "<=", 2)
        ratio_rows.append(
            [case.key, vllm_cell, sglang_cell, layer_cell, layer_pure_cell, scan_cell, harness.format_ratio(pure)]
        )
    print("Ratios (a/b = time of a / time of b on the same deltas; ours = the compiled core):")
    print()
    print(
        session.table(
            ["workload", "vllm/ours", "sglang/ours", "ours/bare", "ours-pure/bare-pure", "ours/scan", "pure/ours"],
            ratio_rows,
        )
    )
    print()

    series = [by_key[f"1-char {label}"] for label, _ in SCALING(scale)]
    scaling_rows = []
    for name in ("ours", "ours-pure", "bare", "bare-pure", "scan", "vllm", "sglang"):
        figures = [per_char(results[case.key][name], case) for case in series]
        cells = [
            f"{value:.0f}" if value is not None else results[case.key][name].cell()
            for value, case in zip(figures, series)
        ]
        flat = figures[-1] / figures[0] if figures[0] and figures[-1] else None
        flat_cell = harness.format_ratio(flat)
        if name in ("ours", "ours-pure"):
            flat_cell += targets.judge(flat, "<=", 1.5)
        scaling_rows.append([name, *cells, flat_cell])
    labels = [case.key.removeprefix("1-char ") for case in series]
    print("One character a delta: ns per character, and the last size's over the first's:")
    print()
    print(session.table(["contender", *labels, f"{labels[-1]} / {labels[0]}"], scaling_rows))
    print()
    print(targets.summary())
    print()
    print(f"After the timing: {load()}")
    print()
    session.raw["timing"] = {
        case.key: {"chars": case.chars, "deltas": case.deltas, **{n: r.to_json() for n, r in results[case.key].items()}}
        for case in cases
    }
    session.raw["targets"] = {"met": targets.met, "missed": targets.missed}
    return int(harness.failed(results.values(), contenders))


def report_bugs(session: harness.Session, scale: float, formats: Sequence[Format]) -> int:
    status = 0
    rows, cut_rows, examples = [], [], []
    raw: dict[str, Any] = {}
    cut_names: list[str] = []
    for fmt in formats:
        session.progress(f"bug pass: {fmt.name}")
        cuts = bug_streams(fmt, scale)
        cut_names = list(cuts)
        contenders = peers(fmt) + ours(fmt)[:1]
        for c in contenders:
            if c.run is None:
                print(f"- {c.name} ({fmt.name}): n/a ({c.missing})")
        tallies = bug_pass(contenders, cuts, session)
        for name, tally in tallies.items():
            rows.append([name, fmt.name, tally.streams, tally.wrong, *(tally.kinds[kind] or "" for kind in FAULTS)])
            cut_rows.append([name, fmt.name, *(f"{tally.by_cut[cut]}/{len(cuts[cut])}" for cut in cuts)])
            raw[f"{name} {fmt.name}"] = {"streams": tally.streams, "wrong": tally.wrong, "kinds": dict(tally.kinds)}
            for kind, (stream, got) in sorted(tally.first.items()):
                examples.append((name, fmt.name, kind, stream, got))
            if name == "ours" and tally.wrong:
                status = 1
    print("The bug pass: streams each contender got wrong, by what went wrong (a stream may show several):")
    print()
    print(session.table(["contender", "format", "streams", "wrong", *FAULTS], rows))
    print()
    print("Wrong streams by cut:")
    print()
    print(session.table(["contender", "format", *cut_names], cut_rows))
    print()
    print(f"After the bug pass: {load()}")
    print()
    print("The smallest stream showing each fault:")
    print()
    for name, format_name, kind, stream, got in examples:
        print(f"- {name} {format_name}, {kind}: {stream.text[:300]!r} in {len(stream.pieces)} deltas")
        print(f"  expected {stream.expected!r}"[:400])
        print(f"  got      {got!r}"[:400])
    print()
    session.raw["bugs"] = raw
    return status
