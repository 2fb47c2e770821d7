"""``ModelOutputStream.feed``'s fast paths (the relay: ``model_output/_relay.pyx`` and its pure twin
``_relay_pure.py``): a stream takes the twin of its parser's core, the pieces the relay reads give exactly the events
the general path gives them, piece by piece, in every format, and what a caller holds never changes, though the
compiled relay refills the list and event it returned last where nobody holds them."""

from __future__ import annotations

import copy
import json
import random
from functools import partial
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json.model_output import ArgumentsDelta, ContentDelta, ModelOutputStream, _relay_pure

from .backends import is_compiled
from .model_outputs import (
    ALL_FORMAT_NAMES,
    PROSE_AFTER,
    PROSE_BEFORE,
    REAL_CALLS,
    TEXT_FORMAT_NAMES,
    THINK_MARKERS,
    call_id,
    merged,
    tools_for,
    typed_alike,
    writable,
    write_output,
)
from .strategies import cut_randomly, examples, split_at


def stream_of(backend: ModuleType, format_name: str, calls: list[tuple[str, str]]) -> Any:
    return partial(
        ModelOutputStream,
        format_name,
        tools=tools_for(calls),
        new_call_id=call_id,
        parser_class=backend.StreamingJsonParser,
    )


def sample(format_name: str, seed: int) -> tuple[list[tuple[str, str]], str, list[Any]]:
    """A few real calls in the format, with prose (and, where the family writes one, reasoning) around."""
    rng = random.Random(f"{format_name}-{seed}")
    calls = typed_alike([call for call in rng.sample(REAL_CALLS, 3) if writable(format_name, call[1])])
    think = "Let me see <b>what</b> it needs." if format_name in THINK_MARKERS or format_name == "harmony" else ""
    before = "Sure, 😀 here: <tool [x] {y}" if PROSE_BEFORE[format_name] else ""
    after = "\nDone — voilà.\n" if PROSE_AFTER[format_name] else ""
    text, expected = write_output(format_name, calls, before, after, think)
    return calls, text, expected


def fast_and_general(make: Any, pieces: list[Any]) -> tuple[list[list[Any]], list[list[Any]]]:
    """Each piece's events from ``feed`` (the relay, fast paths and all) and from the general path alone."""
    fast, general = make(), make()
    fast_events = [list(fast.feed(piece)) for piece in pieces] + [fast.finish()]
    general_events = [general._feed_general(piece) for piece in pieces] + [general.finish()]
    return fast_events, general_events


def test_a_stream_takes_the_relay_of_its_parsers_core(backend: ModuleType) -> None:
    stream = ModelOutputStream("hermes", parser_class=backend.StreamingJsonParser)
    relay = stream._relay
    if is_compiled(backend):  # make test requires the compiled core, and the relay is built beside it
        from streaming_json.model_output import _relay

        assert type(relay) is _relay.Relay and _relay.COMPILED_PARSER is backend.StreamingJsonParser
    else:
        assert type(relay) is _relay_pure.Relay
    assert stream.feed == relay.feed  # the stream's feed is its relay's own: no Python frame between


def test_the_twin_relays_have_one_surface(backend: ModuleType) -> None:
    relay = ModelOutputStream("hermes", parser_class=backend.StreamingJsonParser)._relay
    public = {name for name in dir(relay) if not name.startswith("_")}
    assert public == {name for name in dir(_relay_pure.Relay) if not name.startswith("_")}
    assert public == {"arguments", "content", "feed", "off", "string", "strip_held", "trim_held"}


@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_the_fast_paths_give_the_general_paths_events_piece_by_piece(backend: ModuleType, format_name: str) -> None:
    for seed in range(6):
        calls, text, expected = sample(format_name, seed)
        make = stream_of(backend, format_name, calls)
        for pieces in (cut_randomly(text, seed, 1, 6), list(text), cut_randomly(text, seed, 1, 40)):
            fast, general = fast_and_general(make, pieces)
            assert fast == general, (format_name, seed)
            assert merged([event for events in fast for event in events]) == merged(expected)


# String values that need escaping in JSON (quotes, backslashes, control characters), newlines a format's trimming
# sheds or keeps, non-ASCII and astral characters: the relay writes them as the general path does.
characters = ['"', "\\", "\n", "\t", "\x01", "a", " ", "é", "😀", "<", "/", "x"]
string_values = st.text(st.sampled_from(characters), max_size=40)
arguments = st.dictionaries(st.sampled_from(["path", "content", "q"]), string_values, min_size=1)


@examples(150)
@given(
    st.sampled_from(TEXT_FORMAT_NAMES),
    st.lists(arguments, min_size=1, max_size=3),
    st.integers(0, 10**6),
    st.data(),
)
def test_string_values_stream_alike_on_both_paths(
    backend: ModuleType, format_name: str, drawn: list[dict[str, str]], seed: int, data: Any
) -> None:
    calls = [call for call in (("write", json.dumps(value)) for value in drawn) if writable(format_name, call[1])]
    if not calls:
        return
    before = "Before." if PROSE_BEFORE[format_name] else ""
    text, expected = write_output(format_name, calls, before, "\nAfter." if PROSE_AFTER[format_name] else "")
    make = stream_of(backend, format_name, calls)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    for pieces in (split_at(text, cuts), cut_randomly(text, seed, 1, 5)):
        fast, general = fast_and_general(make, pieces)
        assert fast == general
        assert merged([event for events in fast for event in events]) == merged(expected)


def test_what_a_caller_holds_never_changes(backend: ModuleType) -> None:
    """The compiled relay refills the list and event it returned last where nobody holds them: those held, whole or
    by their events alone, stay as they were returned, and those let go are not seen again."""
    calls, text, expected = sample("hermes", 1)
    stream = stream_of(backend, "hermes", calls)()
    held: list[tuple[Any, Any]] = []  # (what was returned or taken from it, a deep copy made then)
    events: list[Any] = []
    for number, piece in enumerate(cut_randomly(text, 1, 1, 6)):
        returned = stream.feed(piece)
        events += returned
        if number % 3 == 0:
            held.append((returned, copy.deepcopy(list(returned))))
        elif number % 3 == 1 and returned:
            held.append((returned[0], copy.deepcopy(returned[0])))
    events += stream.finish()
    assert merged(events) == expected
    for kept, as_returned in held:
        assert (list(kept) if type(kept) is list else kept) == as_returned


def test_pieces_of_content_and_arguments_let_go_read_right(backend: ModuleType) -> None:
    """The caller reads each piece's events and lets them go, as a server does: the relay refills them, and every
    piece's events are that piece's."""
    calls, text, expected = sample("qwen3_coder", 2)
    make = stream_of(backend, "qwen3_coder", calls)
    seen: list[Any] = []
    stream = make()
    for piece in cut_randomly(text, 2, 1, 4):
        for event in stream.feed(piece):
            seen.append(tuple(event))  # the fields, not the event
    seen += [tuple(event) for event in stream.finish()]
    general = fast_and_general(make, cut_randomly(text, 2, 1, 4))[1]
    assert seen == [tuple(event) for events in general for event in events]


def test_a_subclass_keeps_its_own_feed(backend: ModuleType) -> None:
    class Counting(ModelOutputStream):
        pieces = 0

        def feed(self, text: Any) -> Any:
            self.pieces += 1
            return super().feed(text)

    stream = Counting("hermes", parser_class=backend.StreamingJsonParser)
    events = stream.feed('Hi <tool_call>\n{"name": "f", "arguments": {"a": "b') + stream.feed('c"}}\n</tool_call>')
    assert stream.pieces == 2
    assert merged(events + stream.finish())[:2] == [ContentDelta("Hi "), events[1]]
    assert merged(events)[2] == ArgumentsDelta(0, '{"a": "bc"}')


def test_bytes_and_pieces_after_finish_take_the_general_path(backend: ModuleType) -> None:
    stream = ModelOutputStream("hermes", parser_class=backend.StreamingJsonParser)
    assert stream.feed("Plain ") == [ContentDelta("Plain ")]
    assert stream.feed(b"text") == [ContentDelta("text")]
    assert stream.feed("more") == [ContentDelta("more")]  # the fast path again
    assert stream.finish() == []
    with pytest.raises(ValueError, match="after finish"):
        stream.feed("late")
