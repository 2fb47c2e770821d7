"""The LangChain drop-ins' streaming stays linear while reading as LangChain's parse of the text so far does (the
held-back tails, the escape checks, the search for a fence, the JSON Patches of ``diff=True``): a character costs
about as much at 8 n characters as at n, as for the parser itself (``tests/test_linearity.py``, whose timing rules
these use). LangChain's own parsers parse the whole text again on every chunk."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

from .strategies import cut_randomly
from .timing import per_character_growth

pytest.importorskip("langchain_core")

from streaming_json.integrations.langchain import JsonOutputParser, JsonOutputToolsParser

pytestmark = [pytest.mark.slow, pytest.mark.timing]

SIZE = 8192
GROWTH = 8
MAX_RATIO = 2.5

_ESCAPED = 'ab\\u00e9\\ud83d\\ude00 \\n\\"x\\\\ y  '  # escapes a cut can split, blanks a cut can end on

# name -> (the text of about n characters, piece size: 1, or 0 for seeded random cuts of 1 to 16 characters, diff)
TEXT_WORKLOADS: dict[str, tuple[Callable[[int], str], int, bool]] = {
    "fenced string with escapes, random cuts": (lambda n: '```json\n{"content": "' + _ESCAPED * (n // 30), 0, False),
    "the same, diff=True": (lambda n: '```json\n{"content": "' + _ESCAPED * (n // 30), 0, True),
    "blank run in a string": (lambda n: '{"content": "' + " " * n, 1, False),
    "literals": (lambda n: "[" + "true, false, null, " * (n // 19), 1, False),
    "prose before a fence": (lambda n: "Words, words `and` more. " * (n // 25) + '```json\n{"a": 1}', 1, False),
    "wide open object, diff=True": (lambda n: "{" + "".join(f'"k{i}": "v", ' for i in range(n // 12)), 0, True),
}

ARGUMENT_WORKLOADS: dict[str, tuple[Callable[[int], str], int]] = {
    "arguments with escapes, random cuts": (lambda n: '{"content": "' + _ESCAPED * (n // 30), 0),
    "wide open arguments": (lambda n: '{"a": [' + "true, 1, " * (n // 9), 0),
}


def _pieces(text: str, size: int) -> list[str]:
    if size:
        return [text[i : i + size] for i in range(0, len(text), size)]
    return cut_randomly(text, seed=len(text), shortest=1, longest=16)


class _Chain:
    """A drop-in's streaming reading as ``per_character_growth`` times a parser: ``append`` reads a chunk."""

    def __init__(self, parser: Any, chunk: Callable[[str], Any]) -> None:
        self._read = parser._reading().read
        self._chunk = chunk

    def append(self, piece: str) -> None:
        self._read(self._chunk(piece))

    def snapshot(self) -> None:
        return None


def _check(make: Callable[[], Any], text: Callable[[int], str], size: int, name: str) -> None:
    small, large = _pieces(text(SIZE), size), _pieces(text(GROWTH * SIZE), size)
    growth = per_character_growth(make, small, large, MAX_RATIO)
    assert growth <= MAX_RATIO, f"{name}: a character costs {growth:.2f}x as much at {GROWTH * SIZE} characters"


@pytest.mark.parametrize("name", list(TEXT_WORKLOADS))
def test_json_output_parser_is_linear(backend: ModuleType, name: str) -> None:
    text, size, diff = TEXT_WORKLOADS[name]
    parser = JsonOutputParser(diff=diff, parser_class=backend.StreamingJsonParser)
    _check(lambda: _Chain(parser, str), text, size, name)


@pytest.mark.parametrize("name", list(ARGUMENT_WORKLOADS))
def test_json_output_tools_parser_is_linear(backend: ModuleType, name: str) -> None:
    parser = JsonOutputToolsParser(parser_class=backend.StreamingJsonParser)
    started: list[bool] = []

    def chunk(piece: str) -> dict[str, Any]:  # the dict form of an AIMessageChunk (building one costs 80 us)
        header = {"name": "write", "id": "call_1"} if not started else {"name": None, "id": None}
        started.append(True)
        return {"type": "AIMessageChunk", "tool_call_chunks": [{**header, "args": piece, "index": 0}]}

    def make() -> _Chain:
        started.clear()
        return _Chain(parser, chunk)

    _check(make, *ARGUMENT_WORKLOADS[name], name)
