"""Hypothesis strategies and small helpers shared by the property, fuzz and robustness tests.

Strategies: JSON values (nested containers, unicode strings with non-BMP characters and characters that need
escapes, big ints, floats, literals), their text as ``json.dumps`` writes it with random options, cuts of a text into
pieces (empty pieces included) as ``str`` or as UTF-8 ``bytes`` cut at any byte offset, and mutated documents (the
malformed text that streamed LLM output and hostile callers produce).

Helpers: :func:`split_at`, :func:`apply_changes` (a writer's own copy of the value, kept by applying the changes),
:func:`scan_prefix` and :func:`without_pending_word` (where a valid document's prefix ends, and the value a writer
of the changes holds there), :func:`identical_deep` (exact comparison without recursion) and :func:`run_lockstep`
(every backend fed the same pieces side by side: the differential check, also used by ``fuzz/run.py``). Hypothesis
runs are bounded by :func:`examples`; set ``STREAMING_JSON_EXAMPLES_SCALE`` (a float, default 1) to run more or fewer
examples, and ``STREAMING_JSON_HYPOTHESIS_DERANDOMIZE=1`` to draw the same examples on every run (CI does).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Optional, Union

from hypothesis import settings
from hypothesis import strategies as st

from streaming_json import MISSING
from streaming_json._shared import REPORT_DEPTH_LIMIT

from .jsonvalues import deep_copy, identical_json

Piece = Union[str, bytes]

REPORT_DEPTH = REPORT_DEPTH_LIMIT  # containers nested deeper are reported as one ``set`` when they close

# --- Hypothesis settings ------------------------------------------------------------------------------------------

_SCALE = float(os.environ.get("STREAMING_JSON_EXAMPLES_SCALE", "1"))


def examples(count: int) -> settings:
    """Settings for a bounded property test: ``count`` examples (times the scale), no deadline (an example's time
    depends on the machine's load; the timing tests bound the work)."""
    return settings(
        max_examples=max(1, int(count * _SCALE)),
        deadline=None,
        derandomize=os.environ.get("STREAMING_JSON_HYPOTHESIS_DERANDOMIZE") == "1",
    )


# --- JSON values --------------------------------------------------------------------------------------------------

# Characters that JSON must escape or that are easy to get wrong: quotes, backslashes, slashes, every control
# character, DEL, the line and paragraph separators, a BOM, non-BMP characters (surrogate pairs when escaped).
_TRICKY_CHARS = '"\\/\b\f\n\r\t\x00\x01\x1f\x7f\u2028\u2029\ufeff\ufffd\u00e9\u4e2d\U0001f600\U0010ffff\U00010000'

tricky_chars = st.sampled_from(_TRICKY_CHARS)
# Any code point but a surrogate (a lone surrogate cannot be encoded as UTF-8; tested separately for str input).
any_char = st.characters(codec="utf-8")
string_chars = st.one_of(any_char, tricky_chars, st.sampled_from("abc xyz 0123456789"))
json_strings = st.text(string_chars, max_size=24)

# Ints well inside the range where a root number shows while pending (PENDING_NUMBER_DISPLAY_LIMIT characters).
json_ints = st.one_of(
    st.integers(-1000, 1000),
    st.integers(-(2**63), 2**63),
    st.integers(-(10**40), 10**40),
)
json_floats = st.floats(allow_nan=False, allow_infinity=False)
json_scalars = st.one_of(st.none(), st.booleans(), json_ints, json_floats, json_strings)

# Every character ``str.strip()`` removes (``str.isspace()``): Unicode's whitespace, the information separators
# ``\x1c``..``\x1f`` and ``\x85`` among them. A reader that strips a text as Python does (LangChain's parsers) differs
# from one that knows only JSON's four blanks on strings that begin or end with these.
STR_STRIP_WHITESPACE = "".join(chr(code) for code in range(0x110000) if chr(code).isspace())
_EDGE_CHARS = st.sampled_from(STR_STRIP_WHITESPACE + "`")
# Strings that begin and end with whitespace ``str.strip()`` removes (or a backtick), around any string.
edged_strings = st.builds(
    lambda before, middle, after: before + middle + after,
    st.text(_EDGE_CHARS, min_size=1, max_size=3),
    json_strings,
    st.text(_EDGE_CHARS, max_size=3),
)


def json_values(max_leaves: int = 30, strings: st.SearchStrategy[str] = json_strings) -> st.SearchStrategy[Any]:
    """Any JSON value (no NaN or infinities), nested dicts and lists included; its strings (values and keys) drawn
    from ``strings``."""
    keys = json_strings if strings is json_strings else st.one_of(json_strings, strings)
    scalars = json_scalars if strings is json_strings else st.one_of(json_scalars, strings)
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=6),
            st.dictionaries(keys, children, max_size=6),
        ),
        max_leaves=max_leaves,
    )


@st.composite
def deep_json_values(draw: st.DrawFn, min_depth: int = 33, max_depth: int = 48) -> Any:
    """A value nested ``min_depth``..``max_depth`` containers deep, with small siblings at every level."""
    depth = draw(st.integers(min_depth, max_depth))
    value: Any = draw(json_scalars)
    for _ in range(depth):
        before = draw(st.lists(json_scalars, max_size=2))
        after = draw(st.lists(json_scalars, max_size=2))
        if draw(st.booleans()):
            value = before + [value] + after
        else:
            keys = draw(st.lists(json_strings, min_size=1, max_size=5, unique=True))
            items = list(zip(keys[1:], before + after))
            position = draw(st.integers(0, len(items)))
            items.insert(position, (keys[0], value))
            value = dict(items)
    return value


_SEPARATORS = [(",", ":"), (", ", ": "), (",", ": "), (" ,", " :"), (",\n", ":\t"), (", ", ":")]
_OUTER_WHITESPACE = st.text(st.sampled_from(" \t\n\r"), max_size=3)


@st.composite
def json_texts(draw: st.DrawFn, values: Optional[st.SearchStrategy[Any]] = None) -> str:
    """The text of a JSON value as ``json.dumps`` writes it with random options, whitespace around it."""
    value = draw(values if values is not None else json_values())
    indent: Any = draw(st.sampled_from([None, None, 0, 1, 2, "\t"]))
    separators = draw(st.sampled_from(_SEPARATORS))
    ensure_ascii = draw(st.booleans())
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    return draw(_OUTER_WHITESPACE) + text + draw(_OUTER_WHITESPACE)


def cut_randomly(text: str, seed: int, shortest: int, longest: int) -> list[str]:
    """``text`` in seeded random pieces of ``shortest`` to ``longest`` characters (LLM tokens are 2 to 6)."""
    rng = random.Random(seed)
    pieces = []
    position = 0
    while position < len(text):
        step = rng.randint(shortest, longest)
        pieces.append(text[position : position + step])
        position += step
    return pieces


def split_at(data: Any, cuts: Iterable[int]) -> list[Any]:
    """``data`` cut at the given offsets (any order, repeats give empty pieces)."""
    pieces = []
    start = 0
    for cut in sorted(cuts):
        cut = min(max(cut, 0), len(data))
        pieces.append(data[start:cut])
        start = cut
    pieces.append(data[start:])
    return pieces


@st.composite
def cut_points(draw: st.DrawFn, length: int, max_cuts: int = 12) -> list[int]:
    """Offsets to cut a text of ``length`` units at: none, a few random ones, or every unit."""
    if length and draw(st.integers(0, 9)) == 0:
        return list(range(1, length))
    return draw(st.lists(st.integers(0, length), max_size=max_cuts))


@st.composite
def pieces_of(draw: st.DrawFn, text: str, allow_bytes: bool = True) -> list[Piece]:
    """``text`` cut into pieces, as ``str`` or as UTF-8 ``bytes`` cut at arbitrary byte offsets (characters split)."""
    as_bytes = allow_bytes and draw(st.booleans())
    data: Any = text.encode("utf-8", "surrogatepass") if as_bytes else text
    return split_at(data, draw(cut_points(len(data))))


# --- Mutated documents ---------------------------------------------------------------------------------------------

# Fragments that malformed streamed text is made of.
FRAGMENTS = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"',
    "\\",
    " ",
    "\n",
    "]]]",
    "}}",
    ",,",
    "::",
    "{{",
    "[[",
    "\\u",
    "\\u12",
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\ude00",
    "\\ud83d\\u0041",
    "\\x",
    "\\a",
    "\\\\",
    "\\'",
    "\\U0041",
    "\ud800",
    "\udfff",
    "\ud83d",
    "\ude00",
    "\x00",
    "\x01",
    "\x1f",
    "\x7f",
    "\t",
    "\r",
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    "undefined",
    "True",
    "None",
    "tru",
    "fals",
    "nul",
    "truex",
    "-",
    "0",
    "-0",
    "01",
    "1.",
    ".5",
    "1e",
    "1e+",
    "1E-2",
    "+1",
    "0x1F",
    "1_000",
    "123456789012345678901234567890",
    "9" * 70,
    "1e999",
    "-1e-999",
    "true",
    "false",
    "null",
    '"key"',
    '"k":',
    '"v"',
    "'single'",
    "//",
    "/*",
    "\ufeff",
    "\u2028",
    "\U0001f600",
    "é",
]


# Characters that damage inserts one to three at a time.
DAMAGE_CHARS = 'ab z09"\\/\b\f\n\r\t\x00\x01\x1f\x7f\u00e9\u2028\ufeff\u4e2d\U0001f600\U0010ffff{}[],:'
_TAILS = FRAGMENTS + ["{}", "[1]", '"tail"', " 42", " true"]
_STRAY = ["]", "}", "}]", "[", "{", '{"', "[[", "]]]]"]


def damage(text: str, operations: int, integer: Callable[[int, int], int], pick: Callable[[Sequence[str]], str]) -> str:
    """``text`` with ``operations`` random kinds of damage: deleted runs, inserted fragments and characters, swapped
    characters, truncation, text after the root, stray closers and openers.

    ``integer(low, high)`` (inclusive) and ``pick(sequence)`` are the randomness: hypothesis draws in the tests, a
    seeded ``random.Random`` in the long fuzz run, so that both damage documents the same ways.
    """
    for _ in range(operations):
        operation = integer(0, 6)
        position = integer(0, len(text))
        if operation == 0 and text:  # delete a run
            text = text[:position] + text[position + integer(1, 5) :]
        elif operation == 1:  # insert a fragment
            text = text[:position] + pick(FRAGMENTS) + text[position:]
        elif operation == 2:  # insert random characters
            text = text[:position] + "".join(pick(DAMAGE_CHARS) for _ in range(integer(1, 3))) + text[position:]
        elif operation == 3 and len(text) > 1:  # swap two characters
            other = integer(0, len(text) - 1)
            position = min(position, len(text) - 1)
            chars = list(text)
            chars[position], chars[other] = chars[other], chars[position]
            text = "".join(chars)
        elif operation == 4:  # truncate
            text = text[:position]
        elif operation == 5:  # text after the root
            text += pick(_TAILS)
        else:  # stray closers or openers at a random place
            text = text[:position] + pick(_STRAY) + text[position:]
    return text


@st.composite
def mutated_texts(draw: st.DrawFn) -> str:
    """A valid document with random damage (see :func:`damage`)."""
    text = draw(json_texts(json_values(max_leaves=12)))
    return damage(
        text,
        draw(st.integers(1, 6)),
        lambda low, high: draw(st.integers(low, high)),
        lambda sequence: draw(st.sampled_from(sequence)),
    )


@st.composite
def random_pieces(draw: st.DrawFn) -> list[Piece]:
    """Any text (mostly mutated documents) cut at random, as str or UTF-8 bytes (lone surrogates made encodable)."""
    text = draw(
        st.one_of(
            mutated_texts(),
            mutated_texts(),
            st.text(st.one_of(string_chars, st.sampled_from('{}[],:"\\ ')), max_size=40),
        )
    )
    return draw(pieces_of(text))


# --- Helpers ------------------------------------------------------------------------------------------------------


def apply_changes(doc: Any, change: Any) -> Any:
    """Apply one change to a writer's own copy ``doc``; return the new root.

    ``set`` at the empty path replaces the root; on a dict key it adds or replaces the member; on a list index equal
    to the length it appends, else it replaces. ``append`` extends the string at the path. Set values are copied, so
    the writer's copy never shares a container with the parser.
    """
    path = change.path
    if change.kind == "set":
        value = deep_copy(change.value)
        if not path:
            return value
        parent = _walk(doc, path[:-1])
        slot = path[-1]
        if isinstance(parent, dict):
            assert isinstance(slot, str), f"set on a dict with slot {slot!r}"
            parent[slot] = value
        else:
            assert isinstance(parent, list) and isinstance(slot, int) and 0 <= slot <= len(parent), (parent, slot)
            if slot == len(parent):
                parent.append(value)
            else:
                parent[slot] = value
        return doc
    assert change.kind == "append", change
    assert isinstance(change.text, str)
    if not path:
        assert isinstance(doc, str), f"append to a root that is {doc!r}"
        return doc + change.text
    parent = _walk(doc, path[:-1])
    slot = path[-1]
    assert isinstance(parent[slot], str), f"append to {parent[slot]!r} at {path!r}"
    parent[slot] += change.text
    return doc


def _walk(doc: Any, path: Sequence[Any]) -> Any:
    for slot in path:
        doc = doc[slot]
    return doc


@dataclass
class PrefixState:
    """Where a prefix of a valid JSON text ends, as :func:`scan_prefix` finds it."""

    in_string: bool = False
    in_word: bool = False  # inside a number or literal not yet ended: not reported as a change until it ends
    # One entry an open container: how many values have started in it (members whose value started).
    started: list[int] = field(default_factory=list)


_WORD_END = frozenset(' \t\n\r,:[]{}"')


def scan_prefix(text: str) -> PrefixState:
    """Scan a prefix of a valid JSON text (no need to be fast: the generated documents are small)."""
    state = PrefixState()
    is_object: list[bool] = []
    expecting_key: list[bool] = []
    escape = False
    for char in text:
        if state.in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                state.in_string = False
            continue
        if state.in_word:
            if char not in _WORD_END:
                continue
            state.in_word = False
            if state.started:
                state.started[-1] += 1
        if char in " \t\n\r":
            continue
        if char == '"':
            state.in_string = True
            if state.started and not expecting_key[-1]:
                state.started[-1] += 1
        elif char in "[{":
            if state.started:
                state.started[-1] += 1
            state.started.append(0)
            is_object.append(char == "{")
            expecting_key.append(char == "{")
        elif char in "]}":
            state.started.pop()
            is_object.pop()
            expecting_key.pop()
        elif char == ",":
            expecting_key[-1] = is_object[-1]
        elif char == ":":
            expecting_key[-1] = False
        else:
            state.in_word = True
    return state


def without_pending_word(snapshot: Any, state: PrefixState) -> Any:
    """The value a writer applying the changes holds: ``snapshot`` without the number or literal still pending."""
    if not state.in_word:
        return snapshot
    if not state.started:
        return MISSING  # a pending root word is not reported until it ends
    value = deep_copy(snapshot)
    container = value
    for _ in state.started[:-1]:
        container = container[-1] if isinstance(container, list) else container[next(reversed(container))]
    if len(container) == state.started[-1] + 1:
        if isinstance(container, list):
            container.pop()
        else:
            container.popitem()
    else:
        assert len(container) == state.started[-1], (snapshot, state)
    return value


def identical_deep(actual: Any, expected: Any) -> bool:
    """:func:`identical_json` without recursion, for values nested any number of levels deep."""
    stack = [(actual, expected)]
    while stack:
        left, right = stack.pop()
        if left is right:
            continue  # shared (a completed part, or the same snapshot)
        if type(left) is not type(right):
            return False
        if isinstance(left, dict):
            if list(left) != list(right):
                return False
            stack.extend((left[key], right[key]) for key in left)
        elif isinstance(left, list):
            if len(left) != len(right):
                return False
            stack.extend(zip(left, right))
        elif not identical_json(left, right):
            return False
    return True


def same_change(left: Any, right: Any) -> bool:
    if left.kind != right.kind or left.path != right.path:
        return False
    if any(type(slot) is not type(other) for slot, other in zip(left.path, right.path)):
        return False
    if left.kind in ("set", "done"):
        return identical_deep(left.value, right.value)
    if left.kind == "source" and left.last is not right.last:
        return False
    return type(left.text) is str and left.text == right.text


def same_snapshot(left: Any, right: Any) -> bool:
    if left is MISSING or right is MISSING:
        return left is right
    return identical_deep(left, right)


@dataclass
class Lockstep:
    """The outcome of :func:`run_lockstep`: the first problem (an exception, or a disagreement between backends),
    and each backend's final snapshot."""

    problem: Optional[str] = None
    finals: dict[str, Any] = field(default_factory=dict)


def run_lockstep(
    backends: Mapping[str, ModuleType],
    pieces: Sequence[Piece],
    snapshot_every: int = 1,
    settle: bool = False,
    options: Optional[Mapping[str, Any]] = None,
) -> Lockstep:
    """Feed the same pieces to a new parser of every backend (made with ``options``), side by side; after each piece
    compare the changes (kind, path, value or text, exact types) and every ``snapshot_every``-th snapshot (and the
    last) with the first backend's. Memory stays small: nothing is kept but the current snapshots.

    ``settle``: then append a few empty pieces (which must change nothing) and take the final snapshots fresh, so that
    they are the value of the whole text, however it was cut."""
    names = list(backends)
    parsers = {name: backends[name].StreamingJsonParser(**(options or {})) for name in names}
    result = Lockstep()
    previous: dict[str, Any] = dict.fromkeys(names, MISSING)
    for number, piece in enumerate(pieces):
        where = f"piece {number} ({piece[:60]!r})"
        changes: dict[str, Any] = {}
        for name in names:
            try:
                changes[name] = parsers[name].append(piece)
            except Exception as error:
                result.problem = f"{where}: {name} append() raised {error!r}"
                return result
        last = number == len(pieces) - 1
        reference = names[0]
        for name in names[1:]:
            left, right = changes[reference], changes[name]
            if len(left) != len(right) or not all(same_change(a, b) for a, b in zip(left, right)):
                result.problem = f"{where}: changes differ: {reference} {left!r}, {name} {right!r}"[:2000]
                return result
        if number % snapshot_every and not last:
            continue
        snapshots: dict[str, Any] = {}
        for name in names:
            try:
                snapshots[name] = parsers[name].snapshot()
            except Exception as error:
                result.problem = f"{where}: {name} snapshot() raised {error!r}"
                return result
        if all(snapshots[name] is previous[name] for name in names):
            continue  # no backend built a new one: they agreed before
        for name in names[1:]:
            if not same_snapshot(snapshots[reference], snapshots[name]):
                left, right = snapshots[reference], snapshots[name]
                result.problem = f"{where}: snapshots differ: {reference} {left!r}, {name} {right!r}"[:2000]
                return result
        previous = snapshots
    if settle and pieces:
        empty = pieces[0][:0]
        for _ in range(3):
            for name in names:
                if parsers[name].append(empty):
                    result.problem = f"{name}: an empty piece made changes"
                    return result
    if settle or not pieces:
        previous = {name: parsers[name].snapshot(fresh=settle) for name in names}
        for name in names[1:]:
            if not same_snapshot(previous[names[0]], previous[name]):
                result.problem = f"settled snapshots differ: {previous[names[0]]!r}, {previous[name]!r}"[:2000]
                return result
    result.finals = previous
    return result


def run_documents_lockstep(
    backends: Mapping[str, ModuleType], pieces: Sequence[Piece], lines: bool = False, prose: bool = False
) -> Lockstep:
    """Feed the same pieces to a new ``StreamingJsonDocuments`` of every backend, side by side; after each piece
    compare the documents it completed and the snapshot, and at the end what ``finish()`` gave and the skipped lines.
    ``finals`` holds each backend's documents, in order."""
    names = list(backends)
    streams = {name: backends[name].StreamingJsonDocuments(lines=lines, prose=prose) for name in names}
    result = Lockstep(finals={name: [] for name in names})

    def step(where: str, read: Callable[[Any], Any]) -> bool:
        outcome: dict[str, Any] = {}
        for name in names:
            try:
                outcome[name] = (read(streams[name]), streams[name].snapshot())
            except Exception as error:
                result.problem = f"{where}: {name} raised {error!r}"
                return False
            result.finals[name].extend(outcome[name][0])
        reference = outcome[names[0]]
        for name in names[1:]:
            documents, snapshot = outcome[name]
            same = len(documents) == len(reference[0]) and all(map(identical_deep, documents, reference[0]))
            if not same or not same_snapshot(snapshot, reference[1]):
                result.problem = f"{where}: {names[0]} {reference!r}, {name} {outcome[name]!r}"[:2000]
                return False
        return True

    for number, piece in enumerate(pieces):
        if not step(f"piece {number} ({piece[:60]!r})", lambda stream, piece=piece: stream.append(piece)):
            return result
    if not step("finish()", lambda stream: stream.finish()):
        return result
    counts = {name: (streams[name].count, streams[name].skipped_lines, streams[name].skipped) for name in names}
    if len(set(map(repr, counts.values()))) > 1:
        result.problem = f"counts differ: {counts!r}"
    return result


def value_depth(value: Any) -> int:
    """How many containers deep ``value`` is nested (0 for a scalar), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest
