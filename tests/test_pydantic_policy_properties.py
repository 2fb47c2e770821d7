"""Properties of the streaming policies and of ``coerce=True`` (issue 32), on generated models and on the real corpus.

Models are generated with nesting, lists of models, a discriminated union, enums, optional fields and dicts, each
field with a random set of policies; documents that fit them are cut into random pieces and streamed on every
backend. On every cut:

- a ``done`` field is never seen partial: it shows nothing (None or its placeholder) or its complete, validated value;
- a ``not_null`` field is never None in any object shown; a ``not_null`` list item is never None;
- a ``with_state`` field is always a ``StreamState`` and its state only moves forward;
- a place never changes type (a placeholder may give way to the value; a twin may become its model; an undecided
  union's plain dict its variant);
- the last value is the validated document.

On every cut too: every partial value before the end keeps its partial types (issue 42): a part whose type holds a
``with_state`` field anywhere (nested, in list items) stays a twin with its ``StreamState`` wrappers after it
completes; only the final value is the model. And the values are stable (issue 44): nothing shown later vanishes,
and a piece that changes nothing shown gives the same object.

With ``coerce=True``: a document that fits the schema streams to the same values with no repair; a document damaged
in the ways models damage it (a number or boolean as a string, one value for a list, an enum value in another case)
is read as the undamaged one, with exactly the repairs made named at their places.
"""

from __future__ import annotations

import enum
import json
import typing
from types import ModuleType
from typing import Annotated, Any, Literal, Optional, Union

import pytest

pytest.importorskip("pydantic", reason="streaming_json.pydantic needs pydantic, not installed here")

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, TypeAdapter, create_model

from streaming_json.pydantic import ModelStream, PartialTwin, Stream, StreamPolicy, StreamState

from .model_outputs import REAL_CALLS
from .strategies import examples, json_strings, pieces_of


class Mood(str, enum.Enum):
    CALM = "calm"
    ANGRY = "angry"


class Ping(BaseModel):
    type: Literal["ping"]
    at: int


class Pong(BaseModel):
    type: Literal["pong"]
    note: str = ""


Event = Annotated[Union[Ping, Pong], Field(discriminator="type")]
_RANK = {"pending": 0, "incomplete": 1, "complete": 2}

# --- Generated models and documents --------------------------------------------------------------------------------

Drawer = Any  # (draw) -> a JSON value of the field's type
Damage = Any  # (value) -> (damaged value, [(path from the field, repair kind)]), or None where it has none


def _scalar(kind: str) -> tuple[Any, Drawer, Any, Damage]:
    """(annotation, value drawer, placeholder, damage) of a scalar kind."""
    if kind == "str":
        return str, lambda draw: draw(json_strings), "...", None
    if kind == "int":
        return int, lambda draw: draw(st.integers(-(10**6), 10**6)), 0, lambda v: (str(v), [((), "string_to_int")])
    if kind == "float":
        return (
            float,
            lambda draw: draw(st.floats(-1e6, 1e6, allow_nan=False)),
            0.0,
            lambda v: (repr(float(v)), [((), "string_to_float")]),
        )
    if kind == "bool":
        return bool, lambda draw: draw(st.booleans()), False, lambda v: (str(v).lower(), [((), "string_to_bool")])
    return (  # an enum
        Mood,
        lambda draw: draw(st.sampled_from(["calm", "angry"])),
        "...",
        lambda v: (v.upper(), [((), "enum_case")]),
    )


@st.composite
def policies(draw: st.DrawFn, placeholder: Any) -> list[StreamPolicy]:
    chosen = []
    if draw(st.booleans()):
        chosen.append(Stream.done())
    if draw(st.integers(0, 3)) == 0:
        chosen.append(Stream.not_null())
    elif draw(st.integers(0, 3)) == 0:
        chosen.append(Stream.starts_as(placeholder))
    if draw(st.integers(0, 3)) == 0:
        chosen.append(Stream.with_state())
    return chosen


@st.composite
def fields(draw: st.DrawFn, depth: int) -> tuple[Any, Drawer, Any, Damage, bool]:
    """(annotation, value drawer, placeholder, damage, optional) of a field."""
    kinds = ["str", "int", "float", "bool", "enum", "list[str]", "dict", "event"]
    if depth < 2:
        kinds += ["model", "list[model]"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("str", "int", "float", "bool", "enum"):
        annotation, drawer, placeholder, damage = _scalar(kind)
    elif kind == "list[str]":
        annotation, placeholder = list[str], []

        def drawer(draw: st.DrawFn) -> Any:
            return draw(st.lists(json_strings, max_size=3))

        def damage(value: Any) -> Any:
            return (value[0], [((), "single_to_list")]) if len(value) == 1 else None

    elif kind == "dict":
        annotation, placeholder, damage = dict[str, int], {}, None

        def drawer(draw: st.DrawFn) -> Any:
            return draw(st.dictionaries(json_strings, st.integers(-9, 9), max_size=3))

    elif kind == "event":
        annotation, placeholder, damage = Event, None, None

        def drawer(draw: st.DrawFn) -> Any:
            return draw(st.sampled_from([{"type": "ping", "at": 3}, {"type": "pong", "note": "n"}, {"type": "pong"}]))

    else:
        model, model_drawer, model_damage = draw(models(depth + 1))
        if kind == "model":
            annotation, drawer, placeholder, damage = model, model_drawer, None, model_damage
        else:
            annotation, placeholder = list[model], []  # type: ignore[valid-type]

            def drawer(draw: st.DrawFn) -> Any:
                return [model_drawer(draw) for _ in range(draw(st.integers(0, 3)))]

            def damage(value: Any) -> Any:
                return (value[0], [((), "single_to_list")]) if len(value) == 1 else None

    optional = draw(st.booleans())
    return annotation, drawer, placeholder, damage, optional


_NAMES = iter(range(10**9))


@st.composite
def models(draw: st.DrawFn, depth: int = 0) -> tuple[type[BaseModel], Drawer, Damage]:
    count = draw(st.integers(1, 4))
    definitions: dict[str, Any] = {}
    drawers: dict[str, tuple[Drawer, Damage, bool]] = {}
    for number in range(count):
        annotation, drawer, placeholder, damage, optional = draw(fields(depth))
        marks = draw(policies(placeholder))
        if optional:
            annotation = Optional[annotation]
        if marks:
            annotation = Annotated[(annotation, *marks)]
        definitions[f"f{number}"] = (annotation, None) if optional else (annotation, ...)
        drawers[f"f{number}"] = (drawer, damage, optional)
    model = create_model(f"Generated{next(_NAMES)}", **definitions)

    def document(draw: st.DrawFn) -> dict[str, Any]:
        value = {}
        for name, (drawer, _, optional) in drawers.items():
            if optional and draw(st.integers(0, 3)) == 0:
                if draw(st.booleans()):
                    value[name] = None
                continue
            value[name] = drawer(draw)
        keys = draw(st.permutations(list(value)))
        return {key: value[key] for key in keys}

    def damaged(value: dict[str, Any]) -> Any:
        out, repairs = dict(value), []
        for name, member in value.items():
            damage = drawers[name][1]
            found = damage(member) if damage is not None and member is not None else None
            if found is not None:
                out[name] = found[0]
                repairs.extend(((name, *path), kind) for path, kind in found[1])
        return out, repairs

    return model, document, damaged


# --- The guarantees ------------------------------------------------------------------------------------------------


def _policy(model: type[BaseModel], name: str) -> StreamPolicy:
    found = StreamPolicy()
    for item in model.model_fields[name].metadata:
        if isinstance(item, StreamPolicy):
            found = found.merged(item)
    return found


def _kind(value: Any) -> Any:
    if isinstance(value, PartialTwin):
        return ("model", type(value).partial_of)
    if isinstance(value, BaseModel):
        return ("model", type(value))
    return type(value)


class Watcher:
    """Checks each partial value of a stream against the policies, and against the values before it."""

    def __init__(self, expected: Any) -> None:
        self.expected = expected  # the validated document
        self.kinds: dict[tuple[Any, ...], Any] = {}
        self.states: dict[tuple[Any, ...], int] = {}

    def check(self, value: Any) -> None:
        self.walk(value, (), self.expected)

    def walk(self, value: Any, path: tuple[Any, ...], expected: Any) -> None:
        if value is None:
            return
        kind = _kind(value)
        before = self.kinds.get(path)
        if before is not None and before != kind:
            assert before is dict and isinstance(kind, tuple), f"{path}: {before} became {kind}"
        self.kinds[path] = kind
        if isinstance(value, PartialTwin):
            model = type(value).partial_of
            for name in model.model_fields:
                self.field(model, name, getattr(value, name), (*path, name), _at(expected, name))
        elif isinstance(value, BaseModel):
            assert value == expected, f"{path}: a validated instance that is not the document's"
        elif type(value) is list:
            for index, item in enumerate(value):
                self.walk(item, (*path, index), _at(expected, index))
        elif type(value) is dict:
            for key, member in value.items():
                self.walk(member, (*path, key), _at(expected, key))

    def field(self, model: type[BaseModel], name: str, value: Any, path: tuple[Any, ...], expected: Any) -> None:
        policy = _policy(model, name)
        if policy.with_state:
            assert isinstance(value, StreamState), f"{path}: {value!r} without its state"
            rank = _RANK[value.state]
            assert rank >= self.states.get(path, 0), f"{path}: the state went back to {value.state}"
            self.states[path] = rank
            value = value.value
        if policy.not_null:
            assert value is not None, f"{path}: a not_null field is None in an object shown"
        placeholder = policy.starts_as
        if value is placeholder:
            return  # not read yet
        if policy.done:
            assert value is None or value == expected, f"{path}: {value!r} shown before it was complete"
            assert not isinstance(value, PartialTwin), f"{path}: a done field shown as its twin"
        if value is not None and not (type(value) is str and policy.starts_as is not None and value == placeholder):
            self.walk(value, path, expected)


def _at(expected: Any, slot: Any) -> Any:
    if expected is None:
        return None
    if isinstance(slot, str):
        return getattr(expected, slot, None) if isinstance(expected, BaseModel) else expected.get(slot)
    return expected[slot] if isinstance(expected, list) and slot < len(expected) else None


def stream_checked(backend: ModuleType, model: Any, pieces: list[Any], expected: Any, coerce: bool = False) -> Any:
    stream = ModelStream(model, parser_class=backend.StreamingJsonParser, coerce=coerce)
    watcher = Watcher(expected)
    values = []
    for piece in pieces:
        value = stream.append(piece)
        watcher.check(value)
        values.append(value)
    assert values[-1] == expected
    result = stream.finish()
    assert result.value == expected and result.error is None and result.complete
    return stream, values


@examples(120)
@given(spec=models(), data=st.data())
def test_every_policy_holds_on_every_cut_of_generated_documents(
    backend: ModuleType, spec: Any, data: st.DataObject
) -> None:
    model, document, _ = spec
    value = document(data.draw)
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    expected = TypeAdapter(model).validate_json(text)
    stream_checked(backend, model, data.draw(pieces_of(text)), expected)


@examples(80)
@given(spec=models(), data=st.data())
def test_coerce_changes_nothing_that_fits_and_names_every_repair(
    backend: ModuleType, spec: Any, data: st.DataObject
) -> None:
    model, document, damaged = spec
    value = document(data.draw)
    text = json.dumps(value)
    expected = TypeAdapter(model).validate_json(text)
    plain_stream, plain = stream_checked(backend, model, data.draw(pieces_of(text)), expected)
    stream, coerced = stream_checked(backend, model, data.draw(pieces_of(text)), expected, coerce=True)
    assert stream.repairs == [] and stream.finish().repairs == []
    assert coerced[-1] == plain[-1]
    bad, repairs = damaged(value)
    bad_text = json.dumps(bad)
    stream, _ = stream_checked(backend, model, data.draw(pieces_of(bad_text)), expected, coerce=True)
    assert sorted(stream.finish().repairs) == sorted(repairs)
    assert sorted(stream.repairs) == sorted(repairs)


# --- Shapes and stability ------------------------------------------------------------------------------------------


def _holds_state(annotation: Any, seen: Optional[set[Any]] = None) -> bool:
    """Whether a ``with_state`` field shows somewhere inside a value of ``annotation`` (a ``done`` place shows the
    validated value: nothing inside it)."""
    seen = set() if seen is None else seen
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return False
        seen.add(annotation)
        for name, field in annotation.model_fields.items():
            policy = _policy(annotation, name)
            if policy.with_state or (not policy.done and _holds_state(field.annotation, seen)):
                return True
        return False
    if typing.get_origin(annotation) is Annotated:
        arguments = typing.get_args(annotation)
        if any(isinstance(item, StreamPolicy) and item.done for item in arguments[1:]):
            return False
        return _holds_state(arguments[0], seen)
    return any(_holds_state(argument, seen) for argument in typing.get_args(annotation))


def assert_partial_types(value: Any, path: tuple[Any, ...] = ()) -> None:
    """Every ``with_state`` field anywhere in a partial value is a ``StreamState``: no validated model that holds one
    shows before the end (a ``done`` field's value excepted: it shows validated, as BAML's ``@stream.done``)."""
    if isinstance(value, PartialTwin):
        model = type(value).partial_of
        for name in model.model_fields:
            policy = _policy(model, name)
            member = getattr(value, name)
            if policy.with_state:
                assert isinstance(member, StreamState), f"{(*path, name)}: {member!r} without its state"
                member = member.value
            if not policy.done:
                assert_partial_types(member, (*path, name))
    elif isinstance(value, BaseModel):
        assert not _holds_state(type(value)), f"{path}: the validated {type(value).__name__} before the end"
    elif type(value) is list:
        for index, item in enumerate(value):
            assert_partial_types(item, (*path, index))
    elif type(value) is dict:
        for key, member in value.items():
            assert_partial_types(member, (*path, key))


@examples(100)
@given(spec=models(), data=st.data())
def test_every_partial_value_keeps_its_partial_types_until_the_end(
    backend: ModuleType, spec: Any, data: st.DataObject
) -> None:
    model, document, _ = spec
    text = json.dumps(document(data.draw))
    expected = TypeAdapter(model).validate_json(text)
    stream = ModelStream(model, parser_class=backend.StreamingJsonParser)
    for piece in data.draw(pieces_of(text)):
        value = stream.append(piece)
        if not stream.is_complete():  # before the end
            assert_partial_types(value)
    assert type(value) is model and value == expected  # the end: the model, plain values
    assert stream.finish().value == expected


_SHOWN_RANK = {"pending": 0, "incomplete": 1, "complete": 2}


def _same(value: Any, last: Any) -> bool:
    """Whether two partial values show the same thing: of one type, equal member by member, twins with the same
    fields read."""
    if type(value) is not type(last):
        return False
    if isinstance(value, PartialTwin):
        return value.model_fields_set == last.model_fields_set and all(
            _same(getattr(value, name), getattr(last, name)) for name in type(value).partial_of.model_fields
        )
    if isinstance(value, StreamState):
        return value.state == last.state and _same(value.value, last.value)
    if type(value) is list:
        return len(value) == len(last) and all(_same(a, b) for a, b in zip(value, last))
    if type(value) is dict:
        return value.keys() == last.keys() and all(_same(value[key], last[key]) for key in value)
    return bool(value == last)


def assert_kept(last: Any, value: Any, placeholder: Any = None, path: tuple[Any, ...] = ()) -> None:
    """Nothing ``last`` showed vanishes from ``value``: strings only grow, numbers and the like stay, lists and dicts
    keep their members, twins their fields (a twin may become its model, a plain dict its variant, a wrapper its
    value at the end), states only move forward."""
    if isinstance(last, StreamState):
        if isinstance(value, StreamState):
            assert _SHOWN_RANK[value.state] >= _SHOWN_RANK[last.state], f"{path}: the state went back"
            value = value.value
        last = last.value
    if last is None or last is placeholder:
        return
    assert value is not None, f"{path}: {last!r} vanished"
    if isinstance(last, (PartialTwin, BaseModel)) or (type(last) is dict and isinstance(value, BaseModel)):
        model = type(last).partial_of if isinstance(last, PartialTwin) else type(last)
        names = list(last) if type(last) is dict else list(getattr(model, "model_fields", {}))
        for name in names:
            before = last[name] if type(last) is dict else getattr(last, name)
            policy = _policy(model, name) if hasattr(model, "model_fields") else StreamPolicy()
            assert_kept(before, getattr(value, name), policy.starts_as, (*path, name))
    elif type(last) is list:
        assert type(value) is list and len(value) >= len(last), f"{path}: {last!r} became {value!r}"
        for index, item in enumerate(last):
            assert_kept(item, value[index], None, (*path, index))
    elif type(last) is dict:
        for key, member in last.items():
            assert key in value, f"{path}: {key!r} vanished"
            assert_kept(member, value[key], None, (*path, key))
    elif type(last) is str:
        assert type(value) is str and value.startswith(last), f"{path}: {last!r} became {value!r}"
    else:
        assert value == last and type(value) is type(last), f"{path}: {last!r} became {value!r}"


@examples(100)
@given(spec=models(), data=st.data())
def test_shown_values_never_vanish_and_an_unchanged_value_is_the_same_object(
    backend: ModuleType, spec: Any, data: st.DataObject
) -> None:
    model, document, _ = spec
    text = json.dumps(document(data.draw), ensure_ascii=data.draw(st.booleans()))
    stream = ModelStream(model, parser_class=backend.StreamingJsonParser)  # the default reading: stable
    last: Any = None
    for piece in data.draw(pieces_of(text)):
        value = stream.append(piece)
        assert_kept(last, value)
        if last is not None and _same(value, last):
            assert value is last, f"a new but equal value after {piece!r}: {value!r}"
        last = value
    assert last == TypeAdapter(model).validate_json(text)


@pytest.mark.parametrize("text", ['{"f0": [1, 2.5, 33]}', '{"f0": [1.5e3, -0.25]}'])
def test_numbers_in_pieces_never_flicker(backend: ModuleType, text: str) -> None:
    model = create_model("Numbers", f0=(list[float], ...))
    stream = ModelStream(model, parser_class=backend.StreamingJsonParser)
    last: Any = None
    for char in text:
        value = stream.append(char)
        assert_kept(last, value)
        if last is not None and _same(value, last):
            assert value is last, f"a new but equal value after {char!r}: {value!r}"
        last = value


# --- The real corpus -----------------------------------------------------------------------------------------------


class Bash(BaseModel):
    command: Annotated[str, Stream.with_state()]
    timeout: Annotated[Optional[int], Stream.done()] = None


class Edit(BaseModel):
    path: Annotated[str, Stream.done(), Stream.not_null()]
    oldText: Annotated[str, Stream.with_state()]
    newText: Annotated[str, Stream.starts_as("")] = ""


class Read(BaseModel):
    path: Annotated[str, Stream.not_null()]
    offset: Annotated[Optional[int], Stream.starts_as(0)] = None
    limit: Annotated[Optional[int], Stream.done()] = None


class Write(BaseModel):
    path: Annotated[str, Stream.done()]
    content: Annotated[str, Stream.with_state()]


CORPUS_MODELS: dict[str, type[BaseModel]] = {"bash": Bash, "edit": Edit, "read": Read, "write": Write}


@pytest.mark.slow  # every call of the corpus, twice
def test_every_policy_holds_on_the_real_corpus(backend: ModuleType) -> None:
    checked = 0
    for number, (name, arguments) in enumerate(REAL_CALLS):
        model = CORPUS_MODELS.get(name)
        if model is None:
            continue
        expected = TypeAdapter(model).validate_json(arguments)
        size = 1 + number % 7  # pieces of 1 to 7 characters, as token streams give
        pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
        stream, _ = stream_checked(backend, model, pieces, expected)
        coerced, _ = stream_checked(backend, model, pieces, expected, coerce=True)
        assert coerced.repairs == [] and coerced.finish().repairs == []  # the corpus fits its schema
        checked += 1
    assert checked > 800
