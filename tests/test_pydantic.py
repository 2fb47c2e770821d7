"""``streaming_json.pydantic``: typed partial values, validated once as their parts complete (issue 11).

Each test streams a document through ``ModelStream`` on every backend (one character a piece where the test is about
when a value appears) and checks what a user relies on: what shows while a value streams, when it becomes the
validated instance, that it is reused from then on, what goes to ``errors``, and what ``finish()`` says.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import json
import subprocess
import sys
from types import ModuleType
from typing import Annotated, Any, Literal, Optional, Union

import pytest

pydantic = pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

from pydantic import (  # noqa: E402
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from typing_extensions import TypedDict  # noqa: E402

from streaming_json.pydantic import (  # noqa: E402
    ModelResult,
    ModelStream,
    PartialDataclass,
    PartialTwin,
    aiter_models,
    iter_models,
    partial_twin,
)


def stream_of(backend: ModuleType, type_: Any) -> ModelStream[Any]:
    return ModelStream(type_, parser_class=backend.StreamingJsonParser)


def feed(stream: ModelStream[Any], text: str, size: int = 1) -> list[Any]:
    """The partial value after each piece of ``size`` characters."""
    return [stream.append(text[i : i + size]) for i in range(0, len(text), size)]


def validation_errors(error: Any) -> list[tuple[Any, str]]:
    """Where each of a ``ValidationError``'s errors is, and its type: what the error says, in pydantic's own terms."""
    assert isinstance(error, ValidationError), repr(error)
    return [(detail["loc"], detail["type"]) for detail in error.errors()]


def seen(values: list[Any], name: str) -> list[Any]:
    """The distinct values of attribute ``name`` in order of appearance (None for a missing root)."""
    out: list[Any] = []
    for value in values:
        current = getattr(value, name, None) if value is not None else None
        if not out or out[-1] != current or type(out[-1]) is not type(current):
            out.append(current)
    return out


class WriteFile(BaseModel):
    path: str
    content: str
    overwrite: bool = False


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    a: int


class Outer(BaseModel):
    inner: Inner
    items: list[Inner]
    note: str


# --- Partial values ------------------------------------------------------------------------------------------------


def test_a_model_streams_as_its_partial_twin_then_becomes_the_model(backend: ModuleType) -> None:
    text = '{"path": "src/app.py", "content": "import os\\nprint(os.getcwd())\\n", "overwrite": true}'
    stream = stream_of(backend, WriteFile)
    assert stream.append("") is None  # nothing before the root starts
    values = feed(stream, text)
    twin = partial_twin(WriteFile)
    assert all(type(value) is twin for value in values[:-1])
    assert isinstance(values[-1], WriteFile) and values[-1] == WriteFile.model_validate_json(text)
    assert isinstance(values[0], PartialTwin) and not isinstance(values[0], WriteFile)
    assert (values[0].path, values[0].content, values[0].overwrite) == (None, None, None)
    # Strings grow a character at a time; the boolean appears complete.
    contents = [c for c in seen(values, "content") if c is not None]
    assert contents[0] == "" and contents[-1] == "import os\nprint(os.getcwd())\n"
    assert all(later.startswith(earlier) for earlier, later in zip(contents, contents[1:]))
    assert len(contents) > 20
    assert seen(values, "overwrite") == [None, True]


def test_partial_twin_has_the_fields_and_aliases_and_no_validators() -> None:
    class Aliased(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        file_path: str = Field(alias="filePath", description="where")
        count: int = Field(gt=0)

        @field_validator("file_path")
        @classmethod
        def never(cls, value: str) -> str:
            raise ValueError("never valid")

    twin = partial_twin(Aliased)
    assert twin is partial_twin(Aliased)  # made once per class
    assert twin.__name__ == "PartialAliased" and twin.partial_of is Aliased
    assert set(twin.model_fields) == {"file_path", "count"}
    assert twin.model_fields["file_path"].alias == "filePath"
    assert twin.model_fields["file_path"].description == "where"
    assert twin.model_config.get("populate_by_name") is True
    empty = twin()
    assert (empty.file_path, empty.count) == (None, None)
    # Neither the validator nor the constraint of the original applies to the twin.
    assert twin.model_validate({"filePath": "x", "count": -1}).count == -1
    assert twin.model_validate({"file_path": "y"}).file_path == "y"


def test_numbers_and_booleans_appear_only_once_complete(backend: ModuleType) -> None:
    class Point(BaseModel):
        x: int
        y: float
        z: float
        ok: bool
        nothing: Optional[int]
        label: str

    text = '{"x": 12345, "y": -1.5e3, "z": 7, "ok": false, "nothing": null, "label": "abc"}'
    values = feed(stream_of(backend, Point), text)
    assert seen(values, "x") == [None, 12345]
    assert seen(values, "y") == [None, -1500.0]
    assert seen(values, "z") == [None, 7.0] and type(values[-1].z) is float  # validated alone: 7 -> 7.0
    assert type(values[-2].z) is float
    assert seen(values, "ok") == [None, False]
    assert seen(values, "nothing") == [None]
    assert values[-2].model_fields_set >= {"x", "y", "z", "ok", "nothing"}
    # A number shows when the character after it arrives, not before.
    first_x = next(i for i, value in enumerate(values) if value.x is not None)
    assert text[first_x] == ","


def test_literals_enums_and_constrained_strings_appear_only_once_complete_and_valid(backend: ModuleType) -> None:
    class Choice(BaseModel):
        kind: Literal["alpha", "beta"]
        color: Color
        code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
        short: str = Field(max_length=5)
        free: str

    text = '{"kind": "beta", "color": "blue", "code": "ABC", "short": "hi", "free": "grows"}'
    values = feed(stream_of(backend, Choice), text)
    assert seen(values, "kind") == [None, "beta"]
    assert seen(values, "color") == [None, Color.BLUE]
    assert seen(values, "code") == [None, "ABC"]
    assert seen(values, "short") == [None, "hi"]
    assert seen(values, "free") == [None, "", "g", "gr", "gro", "grow", "grows"]
    assert isinstance(values[-1], Choice)


def test_an_invalid_literal_never_shows_and_the_object_reports_it(backend: ModuleType) -> None:
    class Choice(BaseModel):
        kind: Literal["alpha", "beta"]
        name: str

    stream = stream_of(backend, Choice)
    values = feed(stream, '{"kind": "gamma", "name": "x"')
    assert all(value.kind is None for value in values) and stream.errors == []
    final = stream.append("}")
    assert type(final) is partial_twin(Choice) and final.name == "x"
    [(path, error)] = stream.errors
    assert path == () and isinstance(error, ValidationError)
    assert error.errors()[0]["loc"] == ("kind",)


def test_completed_parts_are_validated_once_and_reused_by_identity(backend: ModuleType) -> None:
    text = '{"inner": {"a": 1}, "items": [{"a": 2}, {"a": 3}], "note": "xyz"}'
    stream = stream_of(backend, Outer)
    values = feed(stream, text)
    inners = [value.inner for value in values if isinstance(value.inner, Inner)]
    assert inners and all(inner is inners[0] for inner in inners)  # the same instance in every later value
    assert isinstance(values[-1], Outer) and values[-1].inner is inners[0]  # also in the validated parent
    first_items = [value.items[0] for value in values if value.items and isinstance(value.items[0], Inner)]
    assert all(item is first_items[0] for item in first_items) and values[-1].items[0] is first_items[0]
    # While the first item is open it is a twin, and the list holds it in place.
    twins = [value.items[0] for value in values if value.items and not isinstance(value.items[0], Inner)]
    assert twins and all(type(item) is partial_twin(Inner) for item in twins)
    assert stream.errors == []


def test_a_completed_model_is_validated_once(backend: ModuleType) -> None:
    calls: list[int] = []

    class Counted(BaseModel):
        a: int

        @model_validator(mode="before")
        @classmethod
        def count(cls, data: Any) -> Any:
            calls.append(1)
            return data

    class Holder(BaseModel):
        items: list[Counted]
        done: bool

    text = json.dumps({"items": [{"a": i} for i in range(5)], "done": True})
    feed(stream_of(backend, Holder), text, 3)
    # One validation per completed item; the parent's validation gets the instances and validates none again.
    assert len(calls) == 5


def test_a_parent_validator_that_reads_raw_input_sees_the_raw_input(backend: ModuleType) -> None:
    class Child(BaseModel):
        x: int

    class Parent(BaseModel):
        child: Child

        @field_validator("child", mode="before")
        @classmethod
        def needs_a_dict(cls, value: Any) -> Any:
            if not isinstance(value, dict):
                raise ValueError("expected the JSON object")
            return {"x": value["x"] + 1}

    class Wrapper(BaseModel):
        child: Child

        @model_validator(mode="before")
        @classmethod
        def needs_dicts(cls, data: Any) -> Any:
            assert isinstance(data["child"], dict), "expected the JSON object"
            return {"child": {"x": data["child"]["x"] * 10}}

    stream = stream_of(backend, Parent)
    final = feed(stream, '{"child": {"x": 1}}')[-1]
    assert isinstance(final, Parent) and final.child.x == 2 and stream.errors == []
    stream = stream_of(backend, Wrapper)
    final = feed(stream, '{"child": {"x": 1}}')[-1]
    assert isinstance(final, Wrapper) and final.child.x == 10 and stream.errors == []


def test_list_of_models_keeps_an_invalid_item_in_place_as_a_twin(backend: ModuleType) -> None:
    stream = stream_of(backend, list[Inner])
    values = feed(stream, '[{"a": 1}, {"a": "x"}, {"a": 3}]', 2)
    final = values[-1]
    assert isinstance(final, list) and len(final) == 3
    assert isinstance(final[0], Inner) and isinstance(final[2], Inner) and final[2].a == 3
    assert type(final[1]) is partial_twin(Inner) and final[1].a is None
    assert [path for path, _ in stream.errors] == [(1,)]  # the list's own failure is the item's: not listed again
    assert validation_errors(stream.finish().error) == [((1, "a"), "int_parsing")]


def test_dict_of_models(backend: ModuleType) -> None:
    stream = stream_of(backend, dict[str, Inner])
    values = feed(stream, '{"one": {"a": 1}, "two": {"a": 2}}')
    assert values[-1] == {"one": Inner(a=1), "two": Inner(a=2)}
    opened = [value for value in values if value and "two" in value]
    assert type(opened[0]["two"]) is partial_twin(Inner) and isinstance(opened[0]["one"], Inner)
    assert all(value["one"] is values[-1]["one"] for value in opened)


def test_optional_fields_and_defaults(backend: ModuleType) -> None:
    class Settings(BaseModel):
        name: str
        retries: int = 3
        inner: Optional[Inner] = None
        tags: list[str] = []

    values = feed(stream_of(backend, Settings), '{"name": "n", "inner": null}')
    assert values[-2].retries is None and values[-2].tags is None  # a twin shows what was read, not defaults
    assert values[-1] == Settings(name="n") and values[-1].retries == 3 and values[-1].inner is None
    values = feed(stream_of(backend, Settings), '{"name": "n", "inner": {"a": 5}, "tags": ["x"]}')
    assert isinstance(values[-1].inner, Inner) and values[-1].tags == ["x"]


def test_aliases_names_and_error_paths(backend: ModuleType) -> None:
    class Entry(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        file_path: str = Field(alias="filePath")
        line_count: int = Field(alias="lineCount")

    class Listing(BaseModel):
        entries: list[Entry] = Field(alias="allEntries")

    stream = stream_of(backend, Listing)
    text = '{"allEntries": [{"filePath": "a.py", "lineCount": 3}, {"file_path": "b.py", "line_count": "many"}]}'
    values = feed(stream, text)
    shown = [value.entries[0].file_path for value in values if value.entries]
    assert "a" in shown and shown[-1] == "a.py"
    assert values[-2].entries[1].file_path == "b.py"  # by name too (populate_by_name)
    assert [path for path, _ in stream.errors] == [("allEntries", 1)]  # JSON keys, as in the core's changes
    assert stream.is_complete("entries", 0, "file_path") and stream.is_complete("allEntries", 0, "filePath")


def test_is_complete_follows_the_text(backend: ModuleType) -> None:
    stream = stream_of(backend, Outer)
    stream.append('{"inner": {"a": 1')
    assert not stream.is_complete("inner") and not stream.is_complete("inner", "a")  # 1 may still become 12
    stream.append("}")
    assert stream.is_complete("inner") and stream.is_complete("inner", "a")
    stream.append(', "items": [{"a": 2}, {"a": 3')
    assert stream.is_complete("items", 0) and not stream.is_complete("items", 1) and not stream.is_complete("items")
    assert not stream.is_complete("items", 2) and not stream.is_complete("note") and not stream.is_complete()
    stream.append('}], "note": "x"')
    assert stream.is_complete("items") and stream.is_complete("note") and not stream.is_complete()
    stream.append("}")
    assert stream.is_complete() and stream.is_complete("items", 1, "a") and not stream.is_complete("items", 2)


def test_discriminated_union_picks_its_variant_when_the_discriminator_completes(backend: ModuleType) -> None:
    class Cat(BaseModel):
        pet_type: Literal["cat"]
        meows: int

    class Dog(BaseModel):
        pet_type: Literal["dog"]
        barks: float

    class Owner(BaseModel):
        pet: Union[Cat, Dog] = Field(discriminator="pet_type")
        name: str

    for text in ('{"pet": {"pet_type": "dog", "barks": 3.5}, "name": "x"}', '{"pet": {"barks": 3, "pet_type": "dog"}}'):
        values = feed(stream_of(backend, Owner), text)
        kinds = []
        for value in values:
            kind = type(value.pet) if value.pet is not None else None
            if not kinds or kinds[-1] != kind:
                kinds.append(kind)
        assert kinds == [None, dict, partial_twin(Dog), Dog] or kinds == [None, dict, partial_twin(Dog)]
        twins = [value.pet for value in values if type(value.pet) is partial_twin(Dog)]
        assert twins[0].pet_type == "dog" and twins[0].barks in (None, 3.0)
        dicts = [value.pet for value in values if type(value.pet) is dict]
        assert all("pet_type" not in pet or "dog".startswith(pet["pet_type"]) for pet in dicts)
    assert isinstance(values[-1], partial_twin(Owner)) and values[-1].pet == Dog(pet_type="dog", barks=3.0)


def test_plain_union_of_models_is_a_dict_until_the_object_validates(backend: ModuleType) -> None:
    class A(BaseModel):
        a: int

    class B(BaseModel):
        b: str

    class Holder(BaseModel):
        item: Union[A, B]
        other: Optional[Union[A, B]] = None

    values = feed(stream_of(backend, Holder), '{"item": {"b": "text"}, "other": {"a": 1}}')
    items = [value.item for value in values if value.item is not None]
    assert {type(item) for item in items} == {dict, B}
    assert [item for item in items if type(item) is dict][-1] == {"b": "text"}
    assert values[-1] == Holder(item=B(b="text"), other=A(a=1))


def test_typed_dict(backend: ModuleType) -> None:
    class Movie(TypedDict):
        title: str
        year: int

    stream = stream_of(backend, list[Movie])
    values = feed(stream, '[{"title": "Alien", "year": 1979}, {"title": "Heat"')
    assert values[-1] == [{"title": "Alien", "year": 1979}, {"title": "Heat"}]
    assert all(type(value) is list for value in values)
    assert all(not movie or "year" not in movie or movie["year"] == 1979 for value in values for movie in value)


def test_dataclass(backend: ModuleType) -> None:
    @dataclasses.dataclass
    class Span:
        start: int
        end: int
        label: str = ""

    values = feed(stream_of(backend, Span), '{"start": 3, "end": 10, "label": "name"}')
    assert isinstance(values[-2], PartialDataclass) and values[-2].partial_of is Span
    assert (values[-2].start, values[-2].end, values[-2].label) == (3, 10, "name")
    assert values[0].start is None
    assert values[-1] == Span(3, 10, "name")


def test_extra_forbid_ignore_and_allow(backend: ModuleType) -> None:
    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")
        a: int

    class Loose(BaseModel):
        model_config = ConfigDict(extra="ignore")
        a: int

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        a: int

    text = '{"a": 1, "b": 2}'
    stream = stream_of(backend, Strict)
    values = feed(stream, text)
    assert type(values[-1]) is partial_twin(Strict) and values[-1].a == 1 and not hasattr(values[-1], "b")
    assert [path for path, _ in stream.errors] == [()]
    assert validation_errors(stream.finish().error) == [(("b",), "extra_forbidden")]
    assert feed(stream_of(backend, Loose), text)[-1] == Loose(a=1)
    values = feed(stream_of(backend, Open), '{"a": 1, "b": "two"}')
    assert values[3].model_extra == {} and values[-2].model_extra == {"b": "two"}
    assert values[-1] == Open(a=1, b="two")


def test_validators_never_run_on_partial_input(backend: ModuleType) -> None:
    class Signup(BaseModel):
        email: str
        password: str
        confirm: str

        @field_validator("email")
        @classmethod
        def has_at(cls, value: str) -> str:
            if "@" not in value or not value.endswith(".org"):
                raise ValueError("not an address")
            return value.lower()

        @model_validator(mode="after")
        def passwords_match(self) -> Signup:
            if self.password != self.confirm:
                raise ValueError("the passwords differ")
            return self

    good = '{"email": "Ada@Example.org", "password": "secret", "confirm": "secret"}'
    stream = stream_of(backend, Signup)
    values = feed(stream, good)
    assert stream.errors == [] and isinstance(values[-1], Signup) and values[-1].email == "ada@example.org"
    assert "Ad" in seen(values, "email")  # shown as it grows, unvalidated
    bad = '{"email": "ada@example.org", "password": "secret", "confirm": "secrex"}'
    stream = stream_of(backend, Signup)
    values = feed(stream, bad)
    assert type(values[-1]) is partial_twin(Signup) and values[-1].confirm == "secrex"
    assert [path for path, _ in stream.errors] == [()]
    assert "the passwords differ" in str(stream.errors[0][1])


def test_root_model(backend: ModuleType) -> None:
    class Names(RootModel[list[str]]):
        pass

    values = feed(stream_of(backend, Names), '["ab", "cd"]')
    assert values[-1] == Names(["ab", "cd"])
    assert all(type(value) is partial_twin(Names) for value in values[:-1])
    roots = [value.root for value in values[:-1]]
    assert roots == [[], [""], ["a"], ["ab"], ["ab"], ["ab"], ["ab"], ["ab", ""], ["ab", "c"]] + [["ab", "cd"]] * 2


def test_strict_models_validate_what_json_gives(backend: ModuleType) -> None:
    class Event(BaseModel):
        model_config = ConfigDict(strict=True)
        color: Color
        when: datetime.datetime

    stream = stream_of(backend, Event)
    values = feed(stream, '{"color": "red", "when": "2024-01-02T03:04:05"}')
    assert values[-2].color is Color.RED
    assert values[-1] == Event(color=Color.RED, when=datetime.datetime(2024, 1, 2, 3, 4, 5))
    assert stream.errors == []


def test_nesting_beyond_the_reporting_depth(backend: ModuleType) -> None:
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    document: dict[str, Any] = {"name": "leaf"}
    for level in range(40):
        document = {"name": f"n{level}", "children": [document]}
    text = json.dumps(document)
    stream = stream_of(backend, Node)
    values = feed(stream, text, 7)
    assert values[-1] == Node.model_validate_json(text) and stream.errors == []
    assert values[len(values) // 2].name == "n39"


def test_bytes_pieces_cut_inside_characters(backend: ModuleType) -> None:
    text = '{"path": "Zoë/日本語/🚀.py", "content": "naïve", "overwrite": false}'
    data = text.encode()
    stream = stream_of(backend, WriteFile)
    values = [stream.append(data[i : i + 1]) for i in range(len(data))]
    assert values[-1] == WriteFile.model_validate_json(text)
    assert all("\ufffd" not in (value.path or "") for value in values)
    assert stream.text == text and stream.finish().value == values[-1]


def test_replace_continues_or_starts_over(backend: ModuleType) -> None:
    stream = stream_of(backend, WriteFile)
    stream.append('{"path": "a.py", "con')
    value = stream.replace('{"path": "a.py", "content": "x", "overwrite": true}')
    assert value == WriteFile(path="a.py", content="x", overwrite=True)
    value = stream.replace('{"path": "b.py"')
    assert type(value) is partial_twin(WriteFile) and value.path == "b.py" and stream.text == '{"path": "b.py"'


def test_a_root_scalar(backend: ModuleType) -> None:
    stream = stream_of(backend, Color)
    assert [stream.append(c) for c in '"blue"'] == [None, None, None, None, None, Color.BLUE]
    stream = stream_of(backend, str)
    assert [stream.append(c) for c in '"ab"'] == ["", "a", "ab", "ab"]
    stream = stream_of(backend, int)
    assert [stream.append(c) for c in "12"] == [None, None]  # no character ended the number
    assert stream.finish().value == 12


# --- finish() ------------------------------------------------------------------------------------------------------


def test_finish_is_validate_json_of_the_text(backend: ModuleType) -> None:
    text = '{"path": "a.py", "content": "x", "overwrite": true}'
    stream = stream_of(backend, WriteFile)
    feed(stream, text, 4)
    result = stream.finish()
    value, error = result
    assert value == TypeAdapter(WriteFile).validate_json(text) and error is None and result.message is None
    assert result == ModelResult(value, None, text)


def test_finish_reports_truncated_text_with_the_text(backend: ModuleType) -> None:
    text = '{"path": "a.py", "content": "impo'
    stream = stream_of(backend, WriteFile)
    feed(stream, text, 5)
    result = stream.finish()
    assert result.value is None and isinstance(result.error, ValidationError)
    assert result.error.errors()[0]["type"] == "json_invalid"
    assert result.message is not None and result.message.endswith(f"\nReceived arguments: {text}")
    assert "not valid JSON" in result.message
    output_message = result.message_for("output")
    assert output_message is not None and output_message.endswith(f"\nReceived output: {text}")
    assert stream.plain_value == {"path": "a.py", "content": "impo"}  # the untyped value, from the same parser


def test_finish_names_the_invalid_fields(backend: ModuleType) -> None:
    text = '{"path": 5, "overwrite": "maybe"}'
    stream = stream_of(backend, WriteFile)
    stream.append(text)
    result = stream.finish()
    expected = None
    try:
        TypeAdapter(WriteFile).validate_json(text)
    except ValidationError as error:
        expected = error
    assert expected is not None and isinstance(result.error, ValidationError)
    assert result.error.errors() == expected.errors()
    message = result.message
    assert message is not None and message.endswith(f"Received arguments: {text}")
    assert "WriteFile" in message and "- path:" in message and "- content:" in message and "- overwrite:" in message


def test_finish_repairs_raw_control_characters_in_strings(backend: ModuleType) -> None:
    text = '{"path": "a.py", "content": "line one\nline two\tend", "overwrite": false}'
    stream = stream_of(backend, WriteFile)
    partial = feed(stream, text, 3)[-1]
    assert partial.content == "line one\nline two\tend"  # read leniently while streaming
    assert stream.finish().value == WriteFile(path="a.py", content="line one\nline two\tend")


# --- iter_models ---------------------------------------------------------------------------------------------------


def test_iter_models_yields_each_element_as_soon_as_it_completes(backend: ModuleType) -> None:
    text = '{"results": [{"a": 1}, {"a": "bad"}, {"a": 3}], "next": null}'
    fed: list[str] = []

    def pieces() -> Any:
        for char in text:
            fed.append(char)
            yield char

    failures: list[tuple[Any, Any]] = []
    got = []
    for item in iter_models(
        pieces(),
        Inner,
        ("results",),
        on_error=lambda path, error: failures.append((path, error)),
        parser_class=backend.StreamingJsonParser,
    ):
        got.append((item, "".join(fed)))
    assert [item for item, _ in got] == [Inner(a=1), Inner(a=3)]
    assert got[0][1].endswith('{"a": 1}') and got[1][1].endswith('{"a": 3}')  # nothing read past the element
    assert [path for path, _ in failures] == [("results", 1)] and isinstance(failures[0][1], ValidationError)


def test_iter_models_of_a_root_array_and_a_missing_path(backend: ModuleType) -> None:
    parser_class = backend.StreamingJsonParser
    text = '[{"a": 1}, {"a": 2}]'
    assert list(iter_models(text, Inner, parser_class=parser_class)) == [Inner(a=1), Inner(a=2)]
    assert list(iter_models([text], Inner, ("nope",), parser_class=parser_class)) == []
    assert list(iter_models([text.encode()], Inner, parser_class=parser_class)) == [Inner(a=1), Inner(a=2)]


def test_aiter_models(backend: ModuleType) -> None:
    async def pieces() -> Any:
        for char in '[{"a": 1}, {"a": 2}]':
            yield char

    async def collect() -> list[Inner]:
        return [item async for item in aiter_models(pieces(), Inner, parser_class=backend.StreamingJsonParser)]

    assert asyncio.run(collect()) == [Inner(a=1), Inner(a=2)]


# --- Packaging -----------------------------------------------------------------------------------------------------


def test_a_type_pydantic_cannot_validate_fails_at_construction() -> None:
    class Opaque:
        pass

    with pytest.raises(pydantic.PydanticSchemaGenerationError):
        ModelStream(Opaque)


def test_the_default_parser_is_the_packages() -> None:
    stream = ModelStream(WriteFile)
    value = stream.append('{"path": "x", "content": "y')
    assert type(value) is partial_twin(WriteFile) and (value.path, value.content) == ("x", "y")


def test_importing_without_pydantic_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['pydantic'] = None\n"
        "try:\n    import streaming_json.pydantic\nexcept ImportError as error:\n    print(error)\n"
        "import streaming_json\nprint(streaming_json.BACKEND)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "pip install 'pydantic>=2.7'" in result.stdout
    assert result.stdout.strip().splitlines()[-1] in ("cython", "python")  # the core does not need pydantic
