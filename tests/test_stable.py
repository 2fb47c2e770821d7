"""Stable values (``stable=True``): once a value is shown at a path it stays there, as a value of the same JSON type,
until the text replaces it. A UI that renders every snapshot does not flicker: with the reference's reading, a
pending ``1.`` shows no number, so ``{"cost": 1}`` became ``{}`` for one piece, then ``{"cost": 1.25}``."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any, Callable, Optional

from hypothesis import given
from hypothesis import strategies as st

from streaming_json import MISSING

from .jsonvalues import identical_json
from .provider_streams import anthropic_stream, as_boto3, bedrock_stream, chat_stream, cohere_stream, responses_stream
from .strategies import edged_strings, examples, json_texts, json_values, mutated_texts, pieces_of, split_at


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
    arguments = backend.ToolCallArgumentsStream()  # built for a UI: stable by default
    assert arguments.append('{"timeout": 3') == {"timeout": 3} and arguments.append(".") == {"timeout": 3}
    assert backend.ToolCallArgumentsStream(stable=False).append('{"timeout": 3.') == {}


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


# --- What a UI shows: ToolCallArgumentsStream and the adapters' live calls -------------------------------------------


def vanished(earlier: Any, later: Any) -> Optional[str]:
    """Why ``later`` does not extend ``earlier`` (None where it does): every key and element shown is still there,
    strings only grow, every value keeps its JSON type, and only a number at the end of the open path (being read)
    may take another value (``2`` then ``2.5``)."""
    stack: list[tuple[Any, Any, bool, str]] = [(earlier, later, True, "$")]  # (earlier, later, open path's end, where)
    while stack:
        before, after, at_end, where = stack.pop()
        if json_type(before) != json_type(after):
            return f"{where}: {before!r} became {after!r}"
        if isinstance(before, str):
            if not after.startswith(before):
                return f"{where}: {before!r} became {after!r}"
        elif isinstance(before, (dict, list)):
            slots = list(before) if isinstance(before, dict) else list(range(len(before)))
            for position, slot in enumerate(slots):
                if slot not in after if isinstance(after, dict) else slot >= len(after):
                    return f"{where}: {slot!r} vanished"
                last = at_end and position == len(slots) - 1
                stack.append((before[slot], after[slot], last, f"{where}[{slot!r}]"))
        elif not (at_end and json_type(before) == "number") and not identical_json(before, after):
            return f"{where}: {before!r} became {after!r}"
    return None


def check_shown(values: list[Any]) -> None:
    """What a UI is shown, one value after another: each extends the one before, and is the same object where it
    holds the same value (a new object only where the value changed)."""
    for number, (before, after) in enumerate(zip(values, values[1:]), start=1):
        problem = vanished(before, after)
        assert problem is None, f"value {number}: {problem}"
        if identical_json(before, after):
            assert after is before, f"value {number}: a new object for the same value {after!r}"


objects = json_texts(st.dictionaries(st.one_of(st.text(max_size=8), edged_strings), json_values(10), max_size=5))
# Numbers whose fraction or exponent comes after the digits shown (the issue's {"lines": [1, 2.5]}), and literals.
objects = st.one_of(
    objects,
    json_texts(
        st.dictionaries(
            st.sampled_from(["lines", "n"]),
            st.lists(
                st.floats(allow_nan=False, allow_infinity=False) | st.integers() | st.booleans() | st.none(), max_size=4
            ),
            min_size=1,
        )
    ),
)


@examples(150)
@given(text=objects, data=st.data())
def test_tool_call_arguments_never_vanish_and_are_the_same_object_until_they_change(
    backend: ModuleType, text: str, data: Any
) -> None:
    """On every cut (every character alone too): what ``append`` returns extends what it returned before (the
    reference's reading showed ``[1, 2]``, then ``[1]``, then ``[1, 2.5]``), and is the same object until the
    arguments change (it returned a new, equal dict 10 times in the issue's 37 characters); ``finish()`` returns that
    same object where it is the final value."""
    every_character = data.draw(st.integers(0, 3)) == 0
    pieces = list(text) if every_character else split_at(text, data.draw(st.lists(st.integers(0, len(text)))))
    stream = backend.ToolCallArgumentsStream()
    shown = [stream.append(piece) for piece in pieces]
    result = stream.finish()
    assert result.error is None and identical_json(result.arguments, json.loads(text))
    check_shown([*shown, result.arguments])


def test_the_issues_call_shows_each_value_once(backend: ModuleType) -> None:
    text = '{"lines": [1, 2.5], "name": "ab", "ok": true, "n": null}'
    stream = backend.ToolCallArgumentsStream()
    shown = [stream.append(char) for char in text]
    distinct = [value for number, value in enumerate(shown) if number == 0 or value is not shown[number - 1]]
    assert [value.get("lines") for value in distinct[:5]] == [None, [], [1], [1, 2], [1, 2.5]]
    assert len(distinct) == 10  # {}, then one new object for each change
    assert stream.finish().arguments is shown[-1]


def _adapters() -> list[tuple[str, Callable[..., Any], Callable[..., list[Any]]]]:
    from streaming_json import integrations

    def boto3_events(calls: Any, seed: int, cut: Any) -> list[Any]:
        return as_boto3(bedrock_stream(calls, seed, cut))

    return [
        ("openai-chat", integrations.OpenAIChatToolCalls, lambda calls, seed, cut: chat_stream(calls, seed, cut=cut)),
        ("openai-responses", integrations.OpenAIResponsesToolCalls, responses_stream),
        ("anthropic", integrations.AnthropicToolCalls, anthropic_stream),
        ("bedrock", integrations.BedrockToolCalls, boto3_events),
        ("cohere", integrations.CohereToolCalls, cohere_stream),
    ]


@examples(60)
@given(texts=st.lists(objects, min_size=1, max_size=2), data=st.data())
def test_the_adapters_live_calls_never_vanish_and_are_the_same_object_until_they_change(
    backend: ModuleType, texts: list[str], data: Any
) -> None:
    """The same for the live calls of every adapter whose calls stream as text (the arguments after every event,
    the final ones last), on every cut."""
    every_character = data.draw(st.integers(0, 3)) == 0
    offsets = data.draw(st.lists(st.integers(0, 2000), max_size=20))

    def cut(text: str) -> list[str]:
        return list(text) if every_character else split_at(text, [offset % (len(text) + 1) for offset in offsets])

    calls = [(f"tool_{number}", text) for number, text in enumerate(texts)]
    for api, reader, stream_of in _adapters():
        accumulator = reader(arguments_stream_class=backend.ToolCallArgumentsStream)
        shown: dict[int, list[Any]] = {}
        for event in stream_of(calls, 0, cut):
            accumulator.feed(event)
            for number, call in enumerate(accumulator.calls):
                shown.setdefault(number, []).append(call.arguments)
        accumulator.finish()
        assert [call.done and call.error is None for call in accumulator.calls] == [True] * len(calls), api
        for number, call in enumerate(accumulator.calls):
            assert identical_json(call.arguments, json.loads(texts[number])), api
            check_shown([*shown[number], call.arguments])
