"""Streaming policies, validators that ask for partial values, declared twins and ``coerce=True`` (issue 32).

Each test streams a document a character at a time through ``ModelStream`` on every backend and checks what a user
relies on: what each policy shows while its place streams, what the stream of values looks like, what ``finish()``
says, what was repaired and where; and the adapters passing ``coerce=`` on, through the SDK's own client.
"""

from __future__ import annotations

import enum
import json
from types import ModuleType
from typing import Annotated, Any, Literal, Optional, Union

import pytest

pydantic = pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from streaming_json.pydantic import (  # noqa: E402
    ModelStream,
    PartialTwin,
    Stream,
    StreamState,
    partial_twin,
)


def stream_of(backend: ModuleType, type_: Any, **options: Any) -> ModelStream[Any]:
    return ModelStream(type_, parser_class=backend.StreamingJsonParser, **options)


def values_of(stream: ModelStream[Any], text: str) -> list[Any]:
    return [stream.append(char) for char in text]


def distinct(values: list[Any], get: Any) -> list[Any]:
    """The distinct values ``get(value)`` takes, in order (None for a value that shows nothing)."""
    out: list[Any] = []
    for value in values:
        current = get(value) if value is not None else None
        if not out or out[-1] != current or type(out[-1]) is not type(current):
            out.append(current)
    return out


# --- done ----------------------------------------------------------------------------------------------------------


class Link(BaseModel):
    url: Annotated[str, Stream.done()]
    title: str


def test_done_string_shows_only_once_complete(backend: ModuleType) -> None:
    text = '{"url": "https://example.com/a", "title": "An example"}'
    values = values_of(stream_of(backend, Link), text)
    assert distinct(values, lambda v: v.url) == [None, "https://example.com/a"]
    titles = [t for t in distinct(values, lambda v: v.title) if t is not None]
    assert len(titles) > 5 and titles[-1] == "An example"  # the other field grows as it streams


class Address(BaseModel):
    city: str
    zip: str


class Customer(BaseModel):
    name: str
    address: Annotated[Address, Stream.done()]
    orders: Annotated[list[int], Stream.done()] = []


def test_done_object_and_list_show_validated_and_whole(backend: ModuleType) -> None:
    text = '{"name": "Ada", "address": {"city": "Zurich", "zip": "8001"}, "orders": [1, 2, 3]}'
    values = values_of(stream_of(backend, Customer), text)
    assert distinct(values, lambda v: v.address) == [None, Address(city="Zurich", zip="8001")]
    assert all(v.address is None or type(v.address) is Address for v in values if v is not None)
    assert distinct(values, lambda v: v.orders) == [None, [1, 2, 3]]


def test_a_done_value_that_completes_invalid_never_shows(backend: ModuleType) -> None:
    stream = stream_of(backend, Customer)
    values = values_of(stream, '{"name": "Ada", "address": {"city": "Zurich"}, "orders": [1, "x"]')
    assert all(v.address is None and v.orders is None for v in values if v is not None)  # never its partial twin
    assert [path for path, _ in stream.errors] == [("address",), ("orders",)]


@Stream.done()
class Price(BaseModel):
    amount: float
    currency: str


class Offer(BaseModel):
    item: str
    price: Price
    alternatives: list[Price] = []


def test_a_class_level_setting_applies_wherever_the_class_is_a_type(backend: ModuleType) -> None:
    text = (
        '{"item": "pen", "price": {"amount": 1.5, "currency": "EUR"}, "alternatives": [{"amount": 2, "currency": "X"}]}'
    )
    values = values_of(stream_of(backend, Offer), text)
    assert distinct(values, lambda v: v.price) == [None, Price(amount=1.5, currency="EUR")]
    lists = distinct(values, lambda v: v.alternatives)
    assert lists == [None, [], [Price(amount=2.0, currency="X")]]  # never a partial Price in the list


# --- not_null ------------------------------------------------------------------------------------------------------


class Cat(BaseModel):
    kind: Annotated[Literal["cat"], Stream.not_null()]
    name: str


class Section(BaseModel):
    heading: Annotated[str, Stream.not_null()]
    body: str = ""


class Article(BaseModel):
    title: str
    sections: list[Section]


def test_not_null_holds_the_object_back_until_the_field_has_a_value(backend: ModuleType) -> None:
    text = '{"name": "Tom", "kind": "cat"}'
    values = values_of(stream_of(backend, Cat), text)
    assert all(v is None for v in values[: text.index('"cat"') + 4])  # the name is read, the object is held back
    shown = [v for v in values if v is not None]
    assert shown and all(v.kind == "cat" and v.name == "Tom" for v in shown)


def test_a_list_item_with_a_not_null_field_is_none_until_it_has_it(backend: ModuleType) -> None:
    text = '{"title": "T", "sections": [{"body": "first", "heading": "A"}, {"heading": "B", "body": "x"}]}'
    values = values_of(stream_of(backend, Article), text)
    for value in values:
        for section in (value.sections or []) if value is not None else []:
            assert section is None or section.heading is not None  # never without its heading
    assert values[-1] == Article(
        title="T", sections=[Section(heading="A", body="first"), Section(heading="B", body="x")]
    )


class Tagged(BaseModel):
    tags: list[Annotated[str, Stream.not_null()]]
    scores: dict[str, Annotated[int, Stream.not_null()]] = {}


def test_not_null_items_and_values_leave_out_what_would_show_none(backend: ModuleType) -> None:
    stream = stream_of(backend, Tagged)
    values = values_of(stream, '{"tags": ["a", 3, "b"], "scores": {"x": 1, "y": "many", "z": 2}}')
    for value in values:
        if value is not None:
            assert None not in (value.tags or []) and None not in (value.scores or {}).values()
    assert values[-1].tags == ["a", "b"] and values[-1].scores == {"x": 1, "z": 2}
    assert not stream.is_complete() or stream.errors  # the document is invalid: 3 is no string


# --- with_state ----------------------------------------------------------------------------------------------------


class Reply(BaseModel):
    answer: Annotated[str, Stream.with_state()]
    confidence: Annotated[Optional[float], Stream.with_state()] = None
    sources: Annotated[list[str], Stream.with_state()] = []


def test_with_state_moves_pending_incomplete_complete(backend: ModuleType) -> None:
    values = values_of(stream_of(backend, Reply), '{"answer": "Yes", "confidence": null, "sources": ["a"]}')
    twins = [v for v in values if isinstance(v, PartialTwin)]
    answer_states = distinct(twins, lambda v: v.answer.state)
    assert answer_states == ["pending", "incomplete", "complete"]  # pending: the key is read, its value not begun
    assert distinct(twins, lambda v: v.sources.state) == ["pending", "incomplete", "complete"]
    # null written by the model: complete, None; a field not read yet: pending, None
    confidences = distinct(twins, lambda v: v.confidence)
    assert confidences[0] == StreamState("pending", None) and StreamState("complete", None) in confidences
    assert isinstance(values[-1], Reply) and values[-1].confidence is None  # complete: the model, no wrappers
    for twin in twins:
        assert isinstance(twin.answer, StreamState) and (twin.answer.value or "") in "Yes"


class Note(BaseModel):
    title: str
    body: Annotated[str, Stream.with_state()]


class Notebook(BaseModel):
    notes: list[Note]
    pinned: Optional[Note] = None
    by_tag: dict[str, Note] = {}


def test_a_part_that_completes_early_keeps_its_wrappers_until_the_whole_value_does(backend: ModuleType) -> None:
    text = (
        '{"notes": [{"title": "a", "body": "x"}, {"title": "b", "body": "yy"}], "pinned": {"title": "p", "body": "q"},'
        ' "by_tag": {"t": {"title": "c", "body": "z"}}}'
    )
    stream = stream_of(backend, Notebook)
    values = values_of(stream, text)
    shown = [value for value in values[:-1] if value is not None]
    notes = [note for value in shown for note in value.notes or []]
    notes += [value.pinned for value in shown if value.pinned is not None]
    notes += [note for value in shown for note in (value.by_tag or {}).values()]
    assert notes and all(isinstance(note, PartialTwin) and isinstance(note.body, StreamState) for note in notes)
    before_end = values[-2]  # every part complete, the document not yet
    assert before_end.notes[0].body == StreamState("complete", "x") and before_end.notes[0].title == "a"
    assert before_end.pinned.body == StreamState("complete", "q") and before_end.by_tag["t"].body.value == "z"
    final = values[-1]
    assert type(final) is Notebook and final.notes[0] == Note(title="a", body="x")  # the model, plain values
    assert stream.finish().value == final


def test_a_part_without_state_is_its_validated_model_once_complete(backend: ModuleType) -> None:
    class Line(BaseModel):
        text: str

    class Poem(BaseModel):
        lines: list[Line]

    partial = stream_of(backend, Poem).append('{"lines": [{"text": "a"}, {"text": "b')
    assert type(partial.lines[0]) is Line and type(partial.lines[1]) is not Line  # validated early: no wrapper to keep


def test_a_null_is_told_apart_from_a_field_not_read_without_state(backend: ModuleType) -> None:
    class Plain(BaseModel):
        a: Optional[int] = None
        b: Optional[int] = None
        c: str

    partial = stream_of(backend, Plain).append('{"a": null, "c": "')
    assert partial.a is None and partial.b is None
    assert "a" in partial.model_fields_set and "b" not in partial.model_fields_set  # read null vs not read


# --- starts_as -----------------------------------------------------------------------------------------------------


class Card(BaseModel):
    status: Annotated[str, Stream.starts_as("Loading...")]
    items: Annotated[list[str], Stream.starts_as([])]
    count: Annotated[int, Stream.starts_as(0), Stream.done()]


def test_starts_as_is_the_placeholder_until_the_text_gives_a_value(backend: ModuleType) -> None:
    values = values_of(stream_of(backend, Card), '{"items": ["x"], "count": 12, "status": "ready"}')
    shown = [v for v in values if v is not None]
    assert (shown[0].status, shown[0].items, shown[0].count) == ("Loading...", [], 0)
    assert distinct(shown, lambda v: v.count) == [0, 12]  # not 1: done, and the placeholder until then
    statuses = distinct(shown, lambda v: v.status)
    assert statuses[0] == "Loading..." and statuses[1] == "" and statuses[-1] == "ready"


def test_a_typed_dict_shows_its_placeholders_and_states(backend: ModuleType) -> None:
    class Step(TypedDict):
        label: Annotated[str, Stream.starts_as("...")]
        done: Annotated[bool, Stream.with_state()]

    first = stream_of(backend, Step).append('{"x": 1, ')
    assert first == {"label": "...", "done": StreamState("pending", None)}


def test_policies_that_cannot_apply_are_type_errors() -> None:
    with pytest.raises(TypeError, match="applies to a field"):
        ModelStream(list[Annotated[str, Stream.with_state()]])
    with pytest.raises(TypeError, match="applies to a field, not to a class"):
        Stream.starts_as("x")(Address)

    class Both(BaseModel):
        a: Annotated[str, Stream.not_null(), Stream.starts_as("x")]

    with pytest.raises(TypeError, match="drop Stream.starts_as"):
        ModelStream(Both)


def test_policies_are_not_seen_by_validation() -> None:
    class Plain(BaseModel):
        a: int
        b: list[str]

    class Marked(BaseModel):
        a: Annotated[int, Stream.done()]
        b: Annotated[list[Annotated[str, Stream.not_null()]], Stream.with_state()]

    text = '{"a": 1, "b": ["x"]}'
    assert Marked.model_validate_json(text).model_dump() == Plain.model_validate_json(text).model_dump()
    assert Marked.model_json_schema()["properties"]["a"] == Plain.model_json_schema()["properties"]["a"]


# --- Validators ----------------------------------------------------------------------------------------------------


class Draft(BaseModel):
    title: str
    words: int = 0

    @field_validator("title")
    @classmethod
    @Stream.partial_values
    def clean(cls, value: str, info: Any) -> str:
        if "forbidden" in value:
            raise ValueError("a forbidden word")
        return value.upper() if (info.context or {}).get("partial") else value.title()

    @field_validator("words")
    @classmethod
    def counted(cls, value: int) -> int:  # not marked: never sees a partial value
        calls.append(value)
        return value


calls: list[int] = []


def test_a_validator_that_asks_for_partial_values_sees_them_with_the_flag(backend: ModuleType) -> None:
    calls.clear()
    stream = stream_of(backend, Draft)
    values = values_of(stream, '{"words": 2, "title": "hello world"}')
    titles = [t for t in distinct(values, lambda v: v.title) if t]
    assert titles[:2] == ["H", "HE"] and titles[-2:] == ["HELLO WORLD", "Hello World"]  # partial, then complete
    assert calls == [2]  # the unmarked validator ran once, on the complete model


def test_an_error_of_a_partial_validator_is_kept_and_nothing_raises(backend: ModuleType) -> None:
    stream = stream_of(backend, Draft)
    partial = stream.append('{"title": "a forbidden wo')
    assert partial.title == "a forbidden wo"  # shown as read
    assert [(path, str(error)) for path, error in stream.partial_errors] == [(("title",), "a forbidden word")]
    stream.append('rd", "words": 1}')
    assert stream.finish().error is not None  # the complete value fails as pydantic says


def test_a_model_validator_that_asks_for_partial_values_runs_on_the_twin(backend: ModuleType) -> None:
    class Range(BaseModel):
        low: int
        high: int

        @model_validator(mode="after")
        @Stream.partial_values
        def ordered(self) -> Any:
            if self.low is not None and self.high is not None and self.low > self.high:
                raise ValueError("low > high")
            return self

    stream = stream_of(backend, Range)
    stream.append('{"low": 5, "high": 3, ')
    assert [str(error) for _, error in stream.partial_errors] == ["low > high"]


# --- Declared twins ------------------------------------------------------------------------------------------------


class Line(BaseModel):
    sku: Annotated[int, Stream.done(), Stream.not_null()]
    note: str = ""


class Invoice(BaseModel):
    number: Annotated[str, Stream.done()]
    lines: list[Annotated[Line, Stream.not_null()]]
    status: Annotated[str, Stream.starts_as("draft")]
    total: Annotated[float, Stream.with_state()]


class PartialLine(PartialTwin):
    partial_of = Line
    sku: int
    note: Optional[str]


class PartialInvoice(PartialTwin):
    partial_of = Invoice
    number: Optional[str]
    lines: Optional[list[Union[PartialLine, Line]]]
    status: str
    total: StreamState[Optional[float]]


def test_a_declared_twin_is_the_type_of_the_partial_values(backend: ModuleType) -> None:
    text = '{"number": "F-1", "lines": [{"sku": 7, "note": "pens"}], "total": 3.5, "status": "sent"}'
    values = values_of(stream_of(backend, Invoice), text)
    assert partial_twin(Invoice).__mro__[1] is PartialInvoice
    for value in values[:-1]:
        if value is not None:
            assert isinstance(value, PartialInvoice)
            for line in value.lines or []:
                assert isinstance(line, (PartialLine, Line)) and type(line.sku) is int
    assert isinstance(values[-1], Invoice)


def test_a_declared_twin_that_says_the_wrong_type_is_rejected_with_what_to_write() -> None:
    class Wrong(BaseModel):
        id: Annotated[int, Stream.done()]
        tags: list[str]

    class PartialWrong(PartialTwin):
        partial_of = Wrong
        id: int
        tags: Optional[list[str]]

    with pytest.raises(TypeError) as raised:
        ModelStream(Wrong)
    message = str(raised.value)
    assert "id: Optional[int]  # not int" in message
    assert "tags: Optional[list[Optional[str]]]  # not Optional[list[str]]" in message


# --- coerce=True ---------------------------------------------------------------------------------------------------


class Priority(str, enum.Enum):
    HIGH = "high"
    LOW = "low"


class Owner(BaseModel):
    name: str


class Task(BaseModel):
    title: str
    count: int
    ratio: float = 0.0
    urgent: bool
    priority: Priority
    level: Literal["debug", "info"] = "info"
    tags: list[str] = []
    owners: list[Owner] = []


def test_coerce_reads_what_models_write_and_names_every_repair(backend: ModuleType) -> None:
    text = (
        '{"title": "x", "count": "30", "ratio": "0.5", "urgent": "true", "priority": "High", "level": "deb",'
        ' "tags": "a", "owners": {"name": "Ada"}}'
    )
    stream = stream_of(backend, Task, coerce=True)
    values = values_of(stream, text)
    expected = Task(
        title="x", count=30, ratio=0.5, urgent=True, priority=Priority.HIGH, level="debug", tags=["a"],
        owners=[Owner(name="Ada")],
    )  # fmt: skip
    assert values[-1] == expected
    repairs = [
        (("count",), "string_to_int"),
        (("ratio",), "string_to_float"),
        (("urgent",), "string_to_bool"),
        (("priority",), "enum_case"),
        (("level",), "enum_prefix"),
        (("tags",), "single_to_list"),
        (("owners",), "single_to_list"),
    ]
    assert stream.repairs == repairs
    result = stream.finish()
    assert result.value == expected and result.complete and result.repairs == repairs
    plain = stream_of(backend, Task)
    values_of(plain, text)
    assert plain.finish().error is not None  # without coerce: invalid


def test_coerce_reads_fences_prose_comments_trailing_commas_and_python_literals(backend: ModuleType) -> None:
    text = (
        "Sure, here it is:\n```json\n{'title': 'x', // the title\n \"count\": 3, \"urgent\": True,"
        ' "priority": "low", "tags": ["a",],}\n```\nAnything else?'
    )
    stream = stream_of(backend, Task, coerce=True)
    values_of(stream, text)
    result = stream.finish()
    assert result.value == Task(title="x", count=3, urgent=True, priority=Priority.LOW, tags=["a"])
    assert [kind for path, kind in result.repairs] == ["from_fence", "python_literal", "comment", "trailing_comma"]
    assert all(path == () for path, _ in result.repairs) and result.complete


def test_prose_streams_its_object_with_coerce(backend: ModuleType) -> None:
    stream = stream_of(backend, Owner, coerce=True)
    values = values_of(stream, 'The owner is {"name": "Grace"} as asked.')
    assert values[-1] == Owner(name="Grace")
    assert [kind for _, kind in stream.finish().repairs] == ["from_prose"]


@pytest.mark.parametrize("coerce", [False, True])
def test_a_truncated_text_is_never_complete(backend: ModuleType, coerce: bool) -> None:
    for text in ['{"title": "x", "count": 3, "urgent": true, "priority": "low"', '```json\n{"name": "Gra']:
        stream = stream_of(backend, Task if text.startswith("{") else Owner, coerce=coerce)
        values_of(stream, text)
        result = stream.finish()
        assert not result.complete and result.value is None and isinstance(result.error, ValidationError)
        assert not stream.is_complete()


def test_coerce_leaves_a_value_that_fits_as_it_is(backend: ModuleType) -> None:
    text = json.dumps({"title": "30", "count": 1, "urgent": False, "priority": "low", "tags": ["1"], "owners": []})
    plain, coerced = stream_of(backend, Task), stream_of(backend, Task, coerce=True)
    assert values_of(plain, text)[-1] == values_of(coerced, text)[-1]
    assert coerced.repairs == [] and coerced.finish().repairs == [] and coerced.finish() == plain.finish()


def test_coerce_honours_the_policies(backend: ModuleType) -> None:
    class Scored(BaseModel):
        score: Annotated[int, Stream.done(), Stream.not_null()]
        label: str

    values = values_of(stream_of(backend, Scored, coerce=True), '{"label": "a", "score": "7"}')
    shown = [v for v in values if v is not None]
    assert shown and all(v.score == 7 for v in shown)  # held back until the coerced score is there


# --- The adapters pass coerce on ------------------------------------------------------------------------------------


def test_structured_output_takes_coerce_through_the_openai_client(backend: ModuleType) -> None:
    pytest.importorskip("openai")
    from streaming_json.integrations import OpenAIChatStructuredOutput

    from . import provider_streams as streams
    from .sse_replay import openai_client, sse_body

    text = '```json\n{"title": "x", "count": "2", "urgent": false, "priority": "LOW",}\n```'
    body = sse_body(streams.chat_text_stream(text, 5), done_marker=True)
    client = openai_client(body, asynchronous=False)
    events = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], stream=True)
    output = OpenAIChatStructuredOutput(Task, parser_class=backend.StreamingJsonParser, coerce=True)
    last = list(output.stream(events))[-1]
    assert last == Task(title="x", count=2, urgent=False, priority=Priority.LOW) and output.error is None
    assert output.model_result.repairs == [
        ((), "from_fence"),
        ((), "trailing_comma"),
        (("count",), "string_to_int"),
        (("priority",), "enum_case"),
    ]


def test_tool_calls_take_coerce_through_the_openai_client(backend: ModuleType) -> None:
    pytest.importorskip("openai")
    from streaming_json.integrations import OpenAIChatToolCalls

    from . import provider_streams as streams
    from .sse_replay import openai_client, sse_body

    calls = [("create_task", '{"title": "x", "count": "3", "urgent": "false", "priority": "high"}')]
    body = sse_body(streams.chat_stream(calls, 5), done_marker=True)
    events = openai_client(body, asynchronous=False).chat.completions.create(model="m", messages=[], stream=True)
    accumulator = OpenAIChatToolCalls(models={"create_task": Task}, coerce=True)
    done = [call for call in accumulator.stream(events) if call.done]
    assert [call.parsed for call in done] == [Task(title="x", count=3, urgent=False, priority=Priority.HIGH)]
    assert done[0].error is None
    assert done[0]._stream.model_result.repairs == [(("count",), "string_to_int"), (("urgent",), "string_to_bool")]


def test_field_metadata_other_than_policies_still_validates(backend: ModuleType) -> None:
    class Bounded(BaseModel):
        n: Annotated[int, Field(gt=0), Stream.done()]

    stream = stream_of(backend, Bounded)
    values_of(stream, '{"n": 0}')
    assert stream.errors and stream.finish().error is not None
