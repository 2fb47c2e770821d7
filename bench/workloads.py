"""The benchmark's workloads: JSON texts and the pieces they arrive in, generated deterministically.

Every workload is a list of calls; a call is one JSON text and the pieces it is streamed in (one parser per call).
Only the real-corpus workload has more than one call. ``scale`` shrinks the generated sizes (``--quick``). Every
suite builds its cases from these, so that two suites time the same text.
"""

from __future__ import annotations

import importlib.util
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

BATCH = 256  # pieces between two deadline checks of an incremental contender

# The real tool calls, as the tests read them (tests/data/llm_tool_calls.README.md says where they come from).
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "llm_tool_calls.jsonl"

# Real Python source: standard-library modules, read in this order and cycled when more text is needed.
SOURCE_MODULES = (
    "argparse", "difflib", "inspect", "typing", "dataclasses", "textwrap",
    "functools", "subprocess", "enum", "ast", "tarfile", "zipfile",
)  # fmt: skip


@dataclass
class Call:
    text: str
    pieces: list[str]
    batches: list[list[str]] = field(init=False)  # the pieces in groups of BATCH
    byte_batches: list[list[bytes]] = field(init=False)  # the same, UTF-8 encoded (for ijson, which reads bytes)

    def __post_init__(self) -> None:
        assert "".join(self.pieces) == self.text
        self.batches = [self.pieces[i : i + BATCH] for i in range(0, len(self.pieces), BATCH)]
        self.byte_batches = [[piece.encode() for piece in batch] for batch in self.batches]


@dataclass
class Workload:
    key: str  # "1".."8"; scaled variants of 1 and 5 are "1x4", "1x16", "5x4", "5x16"
    title: str
    calls: list[Call]

    @property
    def chars(self) -> int:
        return sum(len(call.text) for call in self.calls)

    @property
    def utf8_bytes(self) -> int:
        return sum(len(call.text.encode()) for call in self.calls)

    @property
    def pieces(self) -> int:
        return sum(len(call.pieces) for call in self.calls)


# --- Pieces ---------------------------------------------------------------------------------------------------------


def token_pieces(text: str, seed: int) -> list[str]:
    """LLM-token-sized pieces: mostly 2 to 6 characters, one in ten 7 to 12."""
    rng = random.Random(seed)
    pieces, position = [], 0
    while position < len(text):
        size = rng.randint(2, 6) if rng.random() < 0.9 else rng.randint(7, 12)
        pieces.append(text[position : position + size])
        position += size
    return pieces


def fixed_pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# --- Content --------------------------------------------------------------------------------------------------------

_source_pool: list[str] = []


def python_source(size: int, offset: int = 0) -> str:
    """``size`` characters of real standard-library Python source, starting ``offset`` characters into the pool."""
    if not _source_pool:
        for name in SOURCE_MODULES:
            origin = importlib.util.find_spec(name).origin  # type: ignore[union-attr]
            _source_pool.append(Path(origin).read_text(encoding="utf-8"))  # type: ignore[arg-type]
    pool = "".join(_source_pool)
    repeated = pool * ((offset + size) // len(pool) + 1)
    return repeated[offset : offset + size]


NAMES = ["Zoë Ångström", "Łukasz Żółć", "Мария Иванова", "山田 太郎", "José Núñez", "Ada Lovelace", "Ngozi Okafor"]
CITIES = ["Kraków", "São Paulo", "Москва", "東京", "Zürich", "Reykjavík", "Montréal", "Αθήνα"]
TAGS = ["alpha", "beta", "gamma", "urgent", "naïve", "café", "日本語", "🚀 launch", "ok"]
NOTES = [
    "Shipped on time.",
    'Customer said "great" twice.',
    "Line one\nline two\ttabbed",
    "Contains a backslash \\ and a slash /",
    "Ünïcödé everywhere — with an em dash and “smart quotes”",
    "",
]


def record(index: int, rng: random.Random) -> dict:
    return {
        "id": index,
        "uuid": f"{rng.getrandbits(64):016x}",
        "name": rng.choice(NAMES),
        "score": round(rng.uniform(-1000, 1000), 4),
        "ratio": rng.random(),
        "active": rng.random() < 0.5,
        "parent": rng.randrange(index + 1) if rng.random() < 0.3 else None,
        "tags": rng.sample(TAGS, rng.randint(0, 4)),
        "location": {
            "city": rng.choice(CITIES),
            "lat": round(rng.uniform(-90, 90), 6),
            "lon": round(rng.uniform(-180, 180), 6),
        },
        "metrics": {"views": rng.randrange(10**6), "cost": round(rng.uniform(0, 99), 2), "flag": None},
        "note": rng.choice(NOTES),
    }


def structured_output(size: int, seed: int) -> str:
    """An object holding an array of records, about ``size`` characters of JSON with non-ASCII text."""
    rng = random.Random(seed)
    records, total = [], 200
    while total < size:
        records.append(record(len(records), rng))
        total += len(json.dumps(records[-1], ensure_ascii=False)) + 2
    document = {"query": "active accounts by región", "total": len(records), "results": records, "next": None}
    return json.dumps(document, ensure_ascii=False)


# --- Workloads ------------------------------------------------------------------------------------------------------


def write_file(multiple: int, scale: float) -> Workload:
    content = python_source(int(20_000 * multiple * scale))
    text = json.dumps({"path": "src/app/generated_module.py", "content": content, "overwrite": True})
    suffix = f" at {multiple}x" if multiple > 1 else ""
    key = "1" if multiple == 1 else f"1x{multiple}"
    return Workload(
        key, f"write-file call, {len(content) // 1000} KB of Python{suffix}", [Call(text, token_pieces(text, 1))]
    )


def edit_call(scale: float) -> Workload:
    size = int(25_000 * scale)
    codes = [python_source(size, offset=200_000 + i * size) for i in range(4)]
    arguments = {
        "file_path": "src/app/service.py",
        "edits": [
            {"old_string": codes[0], "new_string": codes[1]},
            {"old_string": codes[2], "new_string": codes[3], "replace_all": False},
        ],
    }
    text = json.dumps(arguments, indent=2)
    return Workload(
        "2", f"edit call, 4 code strings of {size // 1000} KB, indented", [Call(text, token_pieces(text, 2))]
    )


def structured(scale: float) -> Workload:
    text = structured_output(int(150_000 * scale), seed=3)
    return Workload("3", f"structured output, {len(text) // 1000} KB of records", [Call(text, token_pieces(text, 3))])


def structured_network(scale: float) -> Workload:
    text = structured_output(int(1_200_000 * scale), seed=4)
    return Workload(
        "4", f"structured output, {len(text) // 1000} KB in 4 KB pieces", [Call(text, fixed_pieces(text, 4096))]
    )


def long_string(multiple: int, scale: float) -> Workload:
    text = json.dumps({"text": python_source(int(200_000 * multiple * scale), offset=500_000)})
    key = "5" if multiple == 1 else f"5x{multiple}"
    suffix = f" at {multiple}x" if multiple > 1 else ""
    return Workload(key, f"{len(text) // 1000} KB string in 1-char pieces{suffix}", [Call(text, fixed_pieces(text, 1))])


def integer_array(scale: float) -> Workload:
    rng = random.Random(6)
    count = int(40_000 * scale)
    text = json.dumps([rng.randrange(-(10**6), 10**9) for _ in range(count)])
    return Workload("6", f"array of {count} integers in 8-char pieces", [Call(text, fixed_pieces(text, 8))])


def real_corpus(scale: float) -> Workload | None:
    """The real tool calls, one call per line, each in token pieces; None where the corpus is missing (a copy of
    bench/ without tests/). A ``scale`` below 1 keeps every n-th call."""
    if not CORPUS.exists():
        return None
    lines = [line for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [json.loads(line)["arguments"] for line in lines[:: max(1, round(1 / scale))]]
    calls = [Call(text, token_pieces(text, 1000 + index)) for index, text in enumerate(texts)]
    return Workload("8", f"real corpus: {len(calls)} tool calls, token pieces", calls)


SCALES = (4, 16)


def build(key: str, scale: float) -> Workload | None:
    """The workload named ``key`` ("1".."6", "8", or a scaled "1x4", "5x16", ...)."""
    if key == "8":
        return real_corpus(scale)
    base, _, multiple = key.partition("x")
    m = int(multiple or 1)
    makers = {
        "1": lambda: write_file(m, scale),
        "2": lambda: edit_call(scale),
        "3": lambda: structured(scale),
        "4": lambda: structured_network(scale),
        "5": lambda: long_string(m, scale),
        "6": lambda: integer_array(scale),
    }
    return makers[base]()
