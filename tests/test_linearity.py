"""Total time is linear in the text, whatever the cut, with a snapshot after every piece (issue 2); and the
fresh-snapshot guarantee: while the open path is small, every snapshot shows the text read so far.

Each workload is timed at ``n`` = 8,192 characters and at ``8 n``; the time per character at ``8 n`` must stay within
2.5 times that at ``n``. Linear work gives about 1x, quadratic work 8x (a test below shows the check failing a
re-parser). ``8 n`` stays small enough for the data to live in the caches: half a million levels of open arrays take
about 80 MB, and once they outgrow the last-level cache each container the snapshots copy and the GC visits costs more
to reach, which is the machine's memory, not the work growing.

``tests/timing.py`` keeps noise out without hiding cost: CPU time of this process, sizes timed in turns, and the
collector's work on what the stream made counted as one full collection at its end, so that its schedule cannot tip
the ratio.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streaming_json
from streaming_json import MISSING
from streaming_json._shared import FREE_MEMBERS, FREE_STRING_CHARS

from .backends import AVAILABLE_BACKENDS, needs_both_backends
from .jsonvalues import identical_json
from .strategies import cut_randomly, examples
from .timing import per_character_growth

SIZE = 8192
GROWTH = 8
MAX_RATIO = 2.5


# 30 characters of string content: plain, non-BMP and escaped characters.
_STRING_UNIT = 'ab\u00e9\u4e2d\U0001f600\\n\\"\\u00e9 xyz0123456789.'


# name -> (text of about n characters, piece size: 1, or 0 for seeded random cuts of 1 to 16 characters)
WORKLOADS: dict[str, tuple[Callable[[int], str], int]] = {
    "long string": (lambda n: '"' + _STRING_UNIT * (n // 30), 1),
    "long string, random cuts": (lambda n: '"' + _STRING_UNIT * (n // 30), 0),
    "wide open array": (lambda n: "[" + '1,"ab",' * (n // 7), 1),
    "wide open object": (lambda n: "{" + "".join(f'"k{i}":{i},' for i in range(n // 12)), 1),
    "deep open array": (lambda n: "[" * n, 1),
    "deep open path, random cuts": (lambda n: '{"a":[' * (n // 6), 0),
    "deep open object": (lambda n: '{"a":' * (n // 5), 1),
    "backslash run in a string": (lambda n: '"' + "\\" * n, 1),
    "whitespace run": (lambda n: "[" + " " * n, 1),
    "pending number": (lambda n: "[-" + "1" * n, 1),
    "pending fraction": (lambda n: "[0." + "5" * n, 0),
}


# Several documents in one stream (issue 12): a document boundary costs O(1), whatever the documents' count or size.
# name -> (text of about n characters, piece size as above, StreamingJsonDocuments options)
DOCUMENT_WORKLOADS: dict[str, tuple[Callable[[int], str], int, dict[str, bool]]] = {
    "many small documents": (lambda n: '{"a":[1,"b"]}' * (n // 13), 1, {}),
    "many numbers": (lambda n: "12 " * (n // 3), 0, {}),
    "JSON Lines": (lambda n: '{"id":1,"t":"x"}\n' * (n // 17), 0, {"lines": True}),
    "JSON Lines, every line cut off": (lambda n: '{"id":[1,"x\n' * (n // 12), 0, {"lines": True}),
    "prose between documents": (lambda n: 'Sure! [sic] {"a": 1} and ' * (n // 25), 0, {"prose": True}),
    "one document in a long prose": (lambda n: "Words, words [and] {more}. " * (n // 27), 0, {"prose": True}),
}


def _pieces(text: str, size: int) -> list[str]:
    if size:
        return [text[i : i + size] for i in range(0, len(text), size)]
    return cut_randomly(text, seed=len(text), shortest=1, longest=16)


@pytest.mark.slow  # timing: run once, on the build under test, not again on the installed wheel
@pytest.mark.timing
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_time_is_linear(backend: ModuleType, name: str) -> None:
    make, size = WORKLOADS[name]
    n = SIZE
    small, large = _pieces(make(n), size), _pieces(make(GROWTH * n), size)
    growth = per_character_growth(backend.StreamingJsonParser, small, large, MAX_RATIO)
    assert growth <= MAX_RATIO, f"{name}: a character costs {growth:.2f}x as much at {GROWTH * n} characters as at {n}"


@pytest.mark.slow
@pytest.mark.timing
@pytest.mark.parametrize("name", list(DOCUMENT_WORKLOADS))
def test_documents_time_is_linear(backend: ModuleType, name: str) -> None:
    make, size, options = DOCUMENT_WORKLOADS[name]
    small, large = _pieces(make(SIZE), size), _pieces(make(GROWTH * SIZE), size)
    growth = per_character_growth(lambda: backend.StreamingJsonDocuments(**options), small, large, MAX_RATIO)
    assert growth <= MAX_RATIO, f"{name}: a character costs {growth:.2f}x as much at {GROWTH * SIZE} characters"


class _ReparsingParser:
    """The usual partial-JSON answer, for the test below: every snapshot re-reads the whole text so far."""

    def __init__(self, backend: ModuleType) -> None:
        self._backend = backend
        self._pieces: list[str] = []

    def append(self, text: str) -> list[Any]:
        self._pieces.append(text)
        return []

    def snapshot(self) -> Any:
        parser = self._backend.StreamingJsonParser(changes=False)
        parser.append("".join(self._pieces))
        return parser.snapshot()


@pytest.mark.slow
@pytest.mark.timing
def test_the_linearity_check_catches_quadratic_work() -> None:
    """The check above must be able to fail: re-reading the text per piece, the usual way, grows about 8x. (About
    the check, not a backend: it runs once, on the backend the package picked.)"""
    n = 1024
    text = _STRING_UNIT * (GROWTH * n // 30)
    small, large = _pieces('"' + text[:n], 16), _pieces('"' + text, 16)
    growth = per_character_growth(lambda: _ReparsingParser(streaming_json), small, large, MAX_RATIO)
    assert growth > MAX_RATIO, f"re-parsing per piece grew only {growth:.2f}x"


# --- The fresh-snapshot guarantee ----------------------------------------------------------------------------------


def _one_piece(backend: ModuleType, text: Any) -> Any:
    parser = backend.StreamingJsonParser()
    parser.append(text)
    return parser.snapshot()


def _assert_every_snapshot_fresh(backend: ModuleType, pieces: list[Any], sample: int = 64) -> None:
    """Feed ``pieces`` with a snapshot after each; every snapshot must show the text read so far, and the parser must
    say so (``open_path_is_small``).

    A stale snapshot is the previous snapshot returned again, so wherever the same object comes back it must still
    equal a one-piece parse of the text so far; a new object is built from the text so far, and every ``sample``-th
    one (and the last) is compared with a one-piece parse too.
    """
    parser = backend.StreamingJsonParser()
    text = pieces[0][:0] if pieces else ""
    previous: Any = object()
    for number, piece in enumerate(pieces):
        parser.append(piece)
        assert parser.open_path_is_small, f"the open path counts as large after {len(text + piece)} characters"
        snapshot = parser.snapshot()
        text += piece
        if snapshot is not previous and number % sample and number != len(pieces) - 1:
            previous = snapshot
            continue
        previous = snapshot
        expected = _one_piece(backend, text)
        fresh = snapshot is MISSING if expected is MISSING else identical_json(snapshot, expected)
        assert fresh, f"stale snapshot after {len(text)} characters ({text[-40:]!r}): {str(snapshot)[-80:]}"


def _string_of(length: int) -> str:
    """JSON string content that decodes to ``length`` characters: a few escapes (split escapes leave the value
    unchanged, which the freshness check verifies with a full parse), then plain and non-BMP characters."""
    escapes = ["\\n", "\\u00e9", "\\ud83d\\ude00", "\\\\", '\\"', "\\t"]
    plain = ["a", "\U0001f600", "z", "\u4e2d", " ", "\u00e9", "0"]
    return "".join(escapes[i % len(escapes)] if i < 24 else plain[i % len(plain)] for i in range(length))


def _open_path_cases() -> dict[str, str]:
    members = FREE_MEMBERS  # the open string is one of them
    string = '"' + _string_of(FREE_STRING_CHARS)
    return {
        "deep array": "[" * members + string,
        "deep object": '{"k":' * members + string,
        "wide array": "[" + "1," * (members - 1) + string,
        "wide object": "{" + "".join(f'"k{i}":{i},' for i in range(members - 1)) + '"s":' + string,
        "deep and wide": "[" * (members // 2) + "true," * (members // 2 - 1) + string,
        # Members of closed containers are not part of the open path: here 200 of them.
        "closed members do not count": "[" + '[1,2,3,{"a":"b"}],' * 50 + "[" * (members - 52) + "1," + string,
    }


# At the guarantee's limits, a character a piece: the slow tier's. The fast tier keeps the random small open paths.
@pytest.mark.slow
@pytest.mark.parametrize("case", list(_open_path_cases()))
def test_small_open_path_is_always_fresh(backend: ModuleType, case: str) -> None:
    """At most 256 members and elements open and an open string of at most 4,096 characters: one-character pieces,
    a snapshot after each, every one fresh."""
    _assert_every_snapshot_fresh(backend, list(_open_path_cases()[case]))


@pytest.mark.slow
def test_small_open_path_is_always_fresh_in_bytes(backend: ModuleType) -> None:
    text = "[" * (FREE_MEMBERS // 2) + '"' + _string_of(FREE_STRING_CHARS)
    data = text.encode("utf-8")
    _assert_every_snapshot_fresh(backend, [data[i : i + 1] for i in range(len(data))])


@st.composite
def _small_open_paths(draw: st.DrawFn) -> str:
    """Random text whose open path never holds more than 256 members and whose strings stay short."""
    out: list[str] = []
    open_stack: list[list[Any]] = []  # per open container: [is_object, members]
    budget = FREE_MEMBERS  # members ever placed: an upper bound on those open at any time
    while budget > 0 and draw(st.integers(0, 40)) != 0:
        top = open_stack[-1] if open_stack else None
        choice = draw(st.integers(0, 5))
        if top is not None and choice == 0:
            open_stack.pop()
            out.append("}" if top[0] else "]")
            if not open_stack:
                break  # the root closed: text after it is ignored
            continue
        if top is not None:
            if top[1]:
                out.append(",")
            if top[0]:
                out.append(f'"{draw(st.sampled_from(["a", "b", "key", "k"]))}{len(out)}":')
            top[1] += 1
        budget -= 1
        if choice in (1, 2) or top is None:
            is_object = draw(st.booleans())
            out.append("{" if is_object else "[")
            open_stack.append([is_object, 0])
        elif choice == 3:
            out.append('"' + _string_of(draw(st.integers(0, 40))) + '"')
        elif choice == 4:
            out.append(draw(st.sampled_from(["1", "-2.5e3", "true", "null", "[1,[2]]", '{"x":{}}'])))
        else:
            out.append(draw(st.sampled_from(['"' + _string_of(300), "12", "tr", "-", "1e"])))  # open last value
            break
    return "".join(out)


@examples(30)
@given(_small_open_paths())
def test_random_small_open_paths_are_always_fresh(backend: ModuleType, text: str) -> None:
    _assert_every_snapshot_fresh(backend, list(text))


# --- open_path_is_small: the rule's condition, which the typed streams read ------------------------------------------


def test_open_path_is_small_up_to_the_limits_and_again_once_they_close(backend: ModuleType) -> None:
    """True while at most FREE_MEMBERS members and elements are open and the open string holds at most
    FREE_STRING_CHARS characters; false one past either; true again once what grew closes."""
    parser = backend.StreamingJsonParser()
    assert parser.open_path_is_small  # nothing read
    parser.append("[" + "1," * FREE_MEMBERS + "2")
    assert parser.open_path_is_small  # FREE_MEMBERS elements open; a pending number is not one yet
    parser.append(",")
    assert not parser.open_path_is_small
    parser.append("]")
    assert parser.open_path_is_small  # the array closed: nothing is open
    parser = backend.StreamingJsonParser()
    parser.append('{"a": [{}, "' + "x" * (FREE_STRING_CHARS - 1))
    parser.append("\u00e9")  # an escape counts as the character it decodes to
    assert parser.open_path_is_small
    parser.append("y")
    assert not parser.open_path_is_small
    parser.append('"')
    assert parser.open_path_is_small  # a closed string is no longer part of the open path


@st.composite
def _open_paths_around_the_limits(draw: st.DrawFn) -> tuple[str, int]:
    """Text whose open path grows to about FREE_MEMBERS members (either side), then opens a string past
    FREE_STRING_CHARS characters, and closes in part; and a seed to cut it with."""
    depth = draw(st.integers(1, 12))
    width = draw(st.integers(FREE_MEMBERS - depth - 4, FREE_MEMBERS - depth + 4))
    string = draw(st.integers(FREE_STRING_CHARS + 25, FREE_STRING_CHARS + 60))  # past it by more than a piece
    closed = draw(st.integers(0, depth))
    text = '{"k":' * depth + "[" + '0,"a",' * (width // 2) + '"' + _string_of(string) + '",' + "]}" * closed + "1"
    return text, draw(st.integers(0, 2**32))


@needs_both_backends
@examples(20)
@given(_open_paths_around_the_limits())
def test_the_backends_agree_on_open_path_is_small(case: tuple[str, int]) -> None:
    text, seed = case
    parsers = {name: backend.StreamingJsonParser() for name, backend in AVAILABLE_BACKENDS.items()}
    seen = set()
    for piece in cut_randomly(text, seed, 1, 24):
        said = {}
        for name, parser in parsers.items():
            parser.append(piece)
            said[name] = parser.open_path_is_small
            parser.snapshot()
        assert len(set(said.values())) == 1, (said, len(piece))
        seen.update(said.values())
    assert seen == {True, False}, "the text never crossed a limit: the test no longer covers the boundary"
