"""Stable values (``stable=True``): once a value is shown at a path it stays there, as a value of the same JSON type,
until the text replaces it. A UI that renders every snapshot does not flicker: with the reference's reading, a
pending ``1.`` shows no number, so ``{"cost": 1}`` became ``{}`` for one piece, then ``{"cost": 1.25}``."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streaming_json import MISSING

from .strategies import examples, json_texts, mutated_texts, pieces_of, split_at


def json_type(value: Any) -> str:
    """A value's JSON type: an int and a float are both numbers, a bool is not one."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string", type(None): "null"}[type(value)]


def shown(value: Any) -> dict[tuple[Any, ...], str]:
    """Every path a snapshot shows, with the JSON type of the value there (walked without recursion)."""
    found: dict[tuple[Any, ...], str] = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        found[path] = json_type(item)
        if isinstance(item, dict):
            stack.extend(((*path, key), child) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend(((*path, index), child) for index, child in enumerate(item))
    return found


def snapshots(backend: ModuleType, pieces: list[Any], **options: Any) -> list[Any]:
    parser = backend.StreamingJsonParser(stable=True, **options)
    taken = []
    for piece in pieces:
        parser.append(piece)
        taken.append(parser.snapshot())
    return [*taken, parser.snapshot(fresh=True)]


@examples(200)
@given(st.data(), json_texts())
def test_a_shown_value_never_vanishes_nor_changes_type(backend: ModuleType, data: Any, text: str) -> None:
    pieces = data.draw(pieces_of(text))
    previous: dict[tuple[Any, ...], str] = {}
    taken = snapshots(backend, pieces)
    for snapshot in taken:
        now = shown(snapshot) if snapshot is not MISSING else {}
        for path, kind in previous.items():
            assert now.get(path) == kind, (path, kind, snapshot)
        previous = now
    value = json.loads(text)
    if isinstance(value, (dict, list)):  # a root number is still pending at the end of its text
        assert taken[-1] == value


def test_pending_numbers_show_what_was_read(backend: ModuleType) -> None:
    stable = snapshots(backend, ['{"cost": 1', ".", "25", ', "n": [-3', ".", "5e", "-", "2]}"])
    assert stable == [
        {"cost": 1},
        {"cost": 1},  # the reference's reading shows {} here
        {"cost": 1.25},
        {"cost": 1.25, "n": [-3]},
        {"cost": 1.25, "n": [-3]},
        {"cost": 1.25, "n": [-3.5]},
        {"cost": 1.25, "n": [-3.5]},
        {"cost": 1.25, "n": [-0.035]},
        {"cost": 1.25, "n": [-0.035]},
    ]
    reference = backend.StreamingJsonParser()
    reference.append('{"cost": 1.')
    assert reference.snapshot() == {}  # the default stays the reference's reading


def test_a_long_number_keeps_showing_its_value(backend: ModuleType) -> None:
    """Past 64 characters a pending number is not read again for each snapshot (that would cost its length): the
    stable reading keeps showing the value it showed last."""
    digits = "12345678901234567890"
    shown_values = snapshots(backend, ["[" + digits * 3, digits, digits, "]"])
    assert shown_values[0] == shown_values[1] == shown_values[2] == [int(digits * 3)]
    assert shown_values[-1] == [int(digits * 5)]


def test_the_layers_above_the_parser_read_stably_by_default(backend: ModuleType) -> None:
    documents = backend.StreamingJsonDocuments()
    documents.append('{"a": 1.')
    assert documents.snapshot() == {"a": 1}
    reference = backend.StreamingJsonDocuments(stable=False)
    reference.append('{"a": 1.')
    assert reference.snapshot() == {}
    arguments = backend.ToolCallArgumentsStream(stable=True)
    assert arguments.append('{"timeout": 3') == {"timeout": 3} and arguments.append(".") == {"timeout": 3}
    assert backend.ToolCallArgumentsStream().append('{"timeout": 3.') == {}


@examples(150)
@given(mutated_texts(), st.lists(st.integers(0, 300), max_size=12), st.booleans())
def test_malformed_text_never_raises(backend: ModuleType, text: str, cuts: list[int], as_bytes: bool) -> None:
    data: Any = text.encode("utf-8", "surrogatepass") if as_bytes else text
    for snapshot in snapshots(backend, split_at(data, cuts), done_events=True):
        assert snapshot is MISSING or shown(snapshot)


def test_the_adapters_read_stably_unless_told_not_to(backend: ModuleType) -> None:
    from streaming_json.integrations import AnthropicToolCalls, OpenAIChatStructuredOutput

    from .sdk_events import chat_chunk, content_delta, json_delta, tool_use_start

    for stable, shown in [(True, {"timeout": 3}), (False, {})]:
        calls = AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream, stable=stable)
        calls.feed(tool_use_start(0, "toolu_1", "bash"))
        calls.feed(json_delta(0, '{"timeout": 3'))
        (call,) = calls.feed(json_delta(0, "."))
        assert call.arguments == shown
        output = OpenAIChatStructuredOutput(parser_class=backend.StreamingJsonParser, stable=stable)
        output.feed(chat_chunk(content_delta('{"timeout": 3')))
        assert output.feed(chat_chunk(content_delta("."))) == shown
