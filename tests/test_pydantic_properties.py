"""Properties of ``streaming_json.pydantic`` on generated documents cut at random (issue 11).

Documents follow a schema with nesting, lists, dicts, aliases, optional fields, a literal-tagged discriminated union,
an enum, a pattern-constrained string and free JSON; some are made invalid (a wrong type, a missing field, a bad
literal). Each is cut into random pieces (``str``, or UTF-8 bytes cut inside characters) and streamed on every
backend. Checked:

- every partial value is consistent with the prefix read: a number, boolean, enum, literal, constrained string or
  validated instance shows only once the parser has completed it (its done event), with the document's value; an
  open string is a prefix of the document's string;
- types never flip: a place that showed a value keeps its type (a twin may become its model once complete, a plain
  dict of an undecided union its variant); strings only grow; a validated instance stays the same object;
- ``finish()`` equals ``TypeAdapter(type_).validate_json(text)``, or fails with the same errors;
- for a valid document, the last partial value equals the validated value and ``errors`` is empty; for an invalid
  one, ``errors`` is not empty and each entry names a part that does not validate;
- ``iter_models`` yields exactly the valid elements, in order, and reports the others.
"""

from __future__ import annotations

import contextlib
import enum
import json
from types import ModuleType
from typing import Annotated, Any, Literal, Optional, Union

import pytest

pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from streaming_json import repair_json
from streaming_json.pydantic import ModelStream, PartialTwin, iter_models

from .strategies import damage, examples, json_strings, json_texts, json_values, pieces_of


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    city: str
    zip_code: Annotated[str, Field(pattern=r"^[0-9]{5}$")] = Field(alias="zipCode")


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Item(BaseModel):
    id: int
    name: str
    price: float
    tags: list[str] = []
    color: Optional[Color] = None
    address: Optional[Address] = None
    pet: Optional[Annotated[Union[Cat, Dog], Field(discriminator="kind")]] = None
    counts: dict[str, int] = {}


class Doc(BaseModel):
    title: str
    items: list[Item]
    meta: Optional[dict[str, Any]] = None


# Keys whose strings show only once complete: the union's literal tag and the pattern-constrained zip code (under
# free JSON in ``meta`` a key of that name may show as it grows: generated keys are never these).
WHOLE_STRINGS = {"kind", "zipCode"}

# --- Documents -----------------------------------------------------------------------------------------------------

_BAD = st.sampled_from(["x", 1.5, None, [], {}, True])


@st.composite
def _member_order(draw: st.DrawFn, members: dict[str, Any]) -> dict[str, Any]:
    keys = draw(st.permutations(list(members)))
    return {key: members[key] for key in keys}


@st.composite
def items(draw: st.DrawFn, index: int, corrupt: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": index,
        "name": draw(json_strings),
        "price": draw(st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))),
    }
    if draw(st.booleans()):
        item["tags"] = draw(st.lists(json_strings, max_size=3))
    if draw(st.booleans()):
        item["color"] = draw(st.sampled_from(["red", "green", None]))
    if draw(st.booleans()):
        zip_code = draw(st.from_regex(r"[0-9]{5}", fullmatch=True))
        item["address"] = draw(_member_order({"city": draw(json_strings), "zipCode": zip_code}))
    if draw(st.booleans()):
        pet = draw(st.sampled_from([{"kind": "cat", "lives": 3}, {"kind": "dog", "good": False}, {"kind": "dog"}]))
        item["pet"] = draw(_member_order(pet))
    if draw(st.booleans()):
        item["counts"] = draw(st.dictionaries(json_strings, st.integers(-5, 5), max_size=3))
    if corrupt:
        flaw = draw(st.sampled_from(["id", "name", "price", "color", "zip", "pet", "counts", "missing"]))
        if flaw == "missing":
            del item["name"]
        elif flaw == "zip":
            item["address"] = {"city": "c", "zipCode": draw(st.sampled_from(["1234", "12a45", 12345]))}
        elif flaw == "pet":
            item["pet"] = {"kind": draw(st.sampled_from(["cow", "cat "])), "lives": 1}
        elif flaw == "color":
            item["color"] = "blue"
        elif flaw == "counts":
            item["counts"] = {"a": "many"}
        else:
            item[flaw] = draw(_BAD.filter(lambda bad: not (flaw == "price" and type(bad) is float)))
    return draw(_member_order(item))


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(0, 4))
    corrupt = draw(st.integers(0, 3)) == 0
    flawed = draw(st.sets(st.integers(0, max(count - 1, 0)), max_size=2)) if corrupt else set()
    doc: dict[str, Any] = {
        "title": draw(json_strings),
        "items": [draw(items(index, index in flawed)) for index in range(count)],
    }
    if draw(st.booleans()):
        doc["meta"] = draw(st.one_of(st.none(), st.dictionaries(json_strings, json_values(8), max_size=3)))
    if corrupt and draw(st.booleans()):
        doc["title"] = 7
    return draw(_member_order(doc))


# --- Reading partial values ----------------------------------------------------------------------------------------


def flatten(value: Any, path: tuple[Any, ...] = (), out: Optional[dict[tuple[Any, ...], Any]] = None) -> dict:
    """Every place a partial value shows something, by JSON path: the value there (twins by their fields read)."""
    out = {} if out is None else out
    if value is None:
        return out
    out[path] = value
    if isinstance(value, PartialTwin):
        for name in value.model_fields_set:
            field = type(value).model_fields[name]
            flatten(getattr(value, name), path + (field.alias or name,), out)
    elif type(value) is dict:
        for key, member in value.items():
            flatten(member, path + (key,), out)
    elif type(value) is list:
        for index, member in enumerate(value):
            flatten(member, path + (index,), out)
    return out


def kind(value: Any) -> Any:
    if isinstance(value, PartialTwin):
        return ("twin", type(value).partial_of)
    if isinstance(value, BaseModel):
        return ("model", type(value))
    return type(value)


def allowed(before: Any, after: Any) -> bool:
    """Whether a place may go from showing ``before`` to showing ``after``."""
    old, new = kind(before), kind(after)
    if old == new:
        return True
    if isinstance(old, tuple) and isinstance(new, tuple):  # a twin completes as its model
        return old == ("twin", new[1]) and new[0] == "model"
    return old is dict and isinstance(new, tuple)  # an undecided union picks its variant


def at(document: Any, path: tuple[Any, ...]) -> Any:
    for slot in path:
        document = document[slot]
    return document


def check_partial_values(backend: ModuleType, text: str, pieces: list[Any], document: Any) -> list[Any]:
    stream = ModelStream(Doc, parser_class=backend.StreamingJsonParser)
    oracle = backend.StreamingJsonParser(changes=False, done_events=True)
    done: set[tuple[Any, ...]] = set()
    previous: dict[tuple[Any, ...], Any] = {}
    values = []
    for piece in pieces:
        value = stream.append(piece)
        done.update(event.path for event in oracle.append(piece))
        values.append(value)
        shown = flatten(value)
        for path, member in shown.items():
            complete = path in done
            if isinstance(member, BaseModel) and not isinstance(member, PartialTwin):
                assert complete, f"{path}: a validated instance before the object completed"
            elif type(member) is str:
                expected = at(document, path)
                assert expected == member if complete else expected.startswith(member), path
                # A literal or a constrained string shows only once complete (and valid).
                assert complete or path[-1] not in WHOLE_STRINGS, f"{path}: {member!r} shown while open"
            elif type(member) not in (dict, list) and not isinstance(member, PartialTwin):
                assert complete, f"{path}: {member!r} shown before it completed"
                if isinstance(member, enum.Enum):
                    assert member.value == at(document, path)
                else:
                    assert member == at(document, path) and type(member) in (int, float, bool), path
        for path, before in previous.items():
            if path in shown:
                after = shown[path]
                assert allowed(before, after), f"{path}: {before!r} became {after!r}"
                if type(before) is str:
                    assert type(after) is str and after.startswith(before), path
                elif isinstance(before, (bool, int, float, enum.Enum)):
                    assert after == before, path
                elif isinstance(before, BaseModel) and not isinstance(before, PartialTwin):
                    assert after is before, f"{path}: a validated instance was replaced"
            else:  # gone: only inside a part that became its validated instance
                assert any(
                    isinstance(shown.get(path[:cut]), BaseModel) and not isinstance(shown[path[:cut]], PartialTwin)
                    for cut in range(len(path))
                ), f"{path}: {before!r} disappeared"
        previous = shown
    return [stream, values]


@examples(150)
@given(document=documents(), data=st.data())
def test_streaming_generated_documents(backend: ModuleType, document: dict[str, Any], data: st.DataObject) -> None:
    text = data.draw(json_texts(st.just(document)))
    pieces = data.draw(pieces_of(text))
    stream, values = check_partial_values(backend, text, pieces, json.loads(text))
    result = stream.finish()
    adapter = TypeAdapter(Doc)
    try:
        expected = adapter.validate_json(text)
    except ValidationError as error:
        assert result.value is None and isinstance(result.error, ValidationError)
        assert result.error.errors() == error.errors()
        assert result.message is not None and result.message.endswith(f"Received arguments: {text}")
        assert stream.errors, "an invalid document completed without an error"
        for path, _ in stream.errors:
            part = at(json.loads(text), path)
            part_type = {0: Doc, 2: Item}.get(len(path))
            if part_type is None:  # inside an item: an address or a pet
                continue
            with pytest.raises(ValidationError):
                TypeAdapter(part_type).validate_json(json.dumps(part))
    else:
        assert result.value == expected and result.error is None and result.message is None
        assert values[-1] == expected and isinstance(values[-1], Doc)
        assert stream.errors == []
        assert stream.is_complete() and stream.is_complete("items")


@examples(100)
@given(document=documents(), data=st.data())
def test_iter_models_yields_exactly_the_valid_items(
    backend: ModuleType, document: dict[str, Any], data: st.DataObject
) -> None:
    text = data.draw(json_texts(st.just(document)))
    pieces = data.draw(pieces_of(text))
    adapter = TypeAdapter(Item)
    valid, invalid = [], []
    for index, element in enumerate(document["items"]):
        try:
            valid.append(adapter.validate_json(json.dumps(element)))
        except ValidationError:
            invalid.append(("items", index))
    failures: list[Any] = []
    got = list(
        iter_models(
            pieces,
            Item,
            ("items",),
            on_error=lambda path, error: failures.append(path),
            parser_class=backend.StreamingJsonParser,
        )
    )
    assert got == valid
    assert failures == invalid


@examples(150)
@given(document=documents(), data=st.data())
def test_damaged_documents_never_raise(backend: ModuleType, document: dict[str, Any], data: st.DataObject) -> None:
    """Malformed text (deleted runs, stray brackets, control characters, text after the root) is read leniently:
    nothing raises while it streams, and ``finish()`` gives the value or the error that ``validate_json`` gives (of
    the text whose strings are repaired, where only that makes it parse)."""
    text = damage(
        json.dumps(document, ensure_ascii=data.draw(st.booleans())),
        data.draw(st.integers(1, 6)),
        lambda low, high: data.draw(st.integers(low, high)),
        lambda sequence: data.draw(st.sampled_from(sequence)),
    )
    pieces = data.draw(pieces_of(text))
    if pieces and isinstance(pieces[0], bytes):  # what the stream reads: a lone surrogate's bytes are not UTF-8
        text = b"".join(pieces).decode("utf-8", "replace")
    for type_ in (Doc, list[Item], Any):
        stream = ModelStream(type_, parser_class=backend.StreamingJsonParser)
        for piece in pieces:
            stream.append(piece)
        stream.is_complete("items", 0, "name")
        result = stream.finish()
        adapter = TypeAdapter(type_)
        expected: Any = _INVALID
        try:
            expected = adapter.validate_json(text)
        except ValidationError as error:
            repaired = repair_json(text)
            if repaired != text and all(detail["type"] == "json_invalid" for detail in error.errors()):
                with contextlib.suppress(ValidationError):
                    expected = adapter.validate_json(repaired)
        if expected is _INVALID:
            assert result.value is None and isinstance(result.error, ValidationError) and result.message is not None
        else:
            assert result.value == expected and result.error is None


_INVALID = object()
