"""The cross-engine case list in every format of the registry (``tests/model_output_cases.py``), on both backends:
each case read whole, cut in two at every position, a character a piece, a byte of its UTF-8 a piece and in random
pieces of 1 to 6 characters gives the same events (split invariance); the events are well formed (every call starts
once, ends once, its deltas between); and the result is the case's contract. The docs' table of cases is the one
the cases give."""

from __future__ import annotations

import json
from functools import partial
from types import ModuleType
from typing import Any

import pytest

from streaming_json.model_output import ArgumentsDelta, ModelOutputStream, ToolCallEnd, ToolCallStart

from .model_output_cases import (
    CASES,
    CASES_BY_NAME,
    DOCS_PAGE,
    EVERY_FORMAT,
    LIMITATIONS,
    Result,
    applies,
    docs_table,
    format_names,
    page_table,
)
from .model_outputs import call_id, merged
from .strategies import cut_randomly


def _params() -> list[Any]:
    params = []
    for format_name in format_names():
        for case in CASES:
            if not applies(format_name, case):
                continue
            reason = LIMITATIONS.get((format_name, case.name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(format_name, case.name, marks=marks, id=f"{format_name}-{case.name}"))
    return params


def read(make: Any, pieces: list[Any]) -> list[Any]:
    stream = make()
    events = [event for piece in pieces for event in stream.feed(piece)]
    return merged(events + stream.finish())


def assert_well_formed(events: list[Any]) -> None:
    """Calls numbered from 0 in order, each started once and ended once, its argument deltas between; a call read
    without an error has deltas that join to the JSON of its arguments."""
    open_calls: dict[int, str] = {}
    ended: set[int] = set()
    ids: list[str] = []
    for event in events:
        if isinstance(event, ToolCallStart):
            assert event.index == len(ids), f"call {event.index} starts after {len(ids)} calls"
            ids.append(event.id)
            open_calls[event.index] = ""
        elif isinstance(event, ArgumentsDelta):
            assert event.index in open_calls, f"arguments of call {event.index}, which is not open"
            open_calls[event.index] += event.text
        elif isinstance(event, ToolCallEnd):
            assert event.index in open_calls, f"call {event.index} ends, not open"
            text = open_calls.pop(event.index)
            ended.add(event.index)
            if event.error is None:
                assert json.loads(text) == event.arguments, (text, event.arguments)
            else:
                assert event.arguments == {}, event.arguments
    assert not open_calls, f"calls never ended: {sorted(open_calls)}"
    assert ended == set(range(len(ids)))


@pytest.mark.parametrize(("format_name", "case_name"), _params())
def test_case_holds_its_contract_however_cut(backend: ModuleType, format_name: str, case_name: str) -> None:
    written = CASES_BY_NAME[case_name].build(format_name)
    assert written is not None
    make = partial(
        ModelOutputStream,
        format_name,
        tools=written.tools,
        new_call_id=call_id,
        parser_class=backend.StreamingJsonParser,
    )
    text = written.text
    whole = read(make, [text])
    assert_well_formed(whole)
    if written.expected is not None:
        assert whole == written.expected, text
    if written.check is not None:
        written.check(Result.of(whole))
    for cut in range(1, len(text)):
        assert read(make, [text[:cut], text[cut:]]) == whole, (cut, text[:cut], text[cut:])
    assert read(make, list(text)) == whole, "a character a piece"
    encoded = text.encode("utf-8")
    assert read(make, [encoded[i : i + 1] for i in range(len(encoded))]) == whole, "a byte of UTF-8 a piece"
    for seed in range(3):  # token-like pieces of 1 to 6 characters, several cuts at once
        assert read(make, cut_randomly(text, seed, 1, 6)) == whole, ("random pieces", seed)
    if written.pieces is not None:
        assert read(make, written.pieces) == whole, written.pieces


@pytest.mark.parametrize("format_name", format_names())
def test_calls_get_distinct_ids_of_their_own(backend: ModuleType, format_name: str) -> None:
    """With the stream's own call ids (random), two calls of one tool still differ."""
    written = CASES_BY_NAME["same tool twice"].build(format_name)
    assert written is not None
    stream = ModelOutputStream(format_name, tools=written.tools, parser_class=backend.StreamingJsonParser)
    events = stream.feed(written.text) + stream.finish()
    ids = [event.id for event in events if isinstance(event, ToolCallStart)]
    assert len(ids) == 2 and len(set(ids)) == 2, ids


def test_a_case_for_every_format_is_written_in_every_format() -> None:
    """What the docs say of a case's reach is true: one said to be for every format is written in each."""
    for case in CASES:
        if case.where == EVERY_FORMAT:
            assert all(applies(name, case) for name in format_names()), case.name


def test_every_limitation_names_a_case_and_a_format() -> None:
    for format_name, case_name in LIMITATIONS:
        assert format_name in format_names() and case_name in CASES_BY_NAME, (format_name, case_name)


def test_docs_table_is_the_cases() -> None:
    """Run ``python -m tests.model_output_cases`` to rewrite it after a change to the cases."""
    assert page_table(DOCS_PAGE.read_text("utf-8")) == docs_table()
