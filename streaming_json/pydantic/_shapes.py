"""What a place can show, as a type: the static type of a partial value, for declared twins.

``shown(annotation)`` is the type of what a place of that annotation shows when it shows something, by the rules
of the nodes (``_nodes`` and the node families): a growing string ``str``; a number, boolean, enum or literal itself;
a model its twin or itself; a list a list of what its items show; a union what its members show, or the plain dict
of what was read while it is undecided; ``None`` wherever a null or a value that fails validation shows as None.
``Stream.done()`` makes it the validated type; ``not_null`` takes None out. ``field_shape`` adds what a field shows
before it is read (None, or its placeholder) and its state. ``check_declared_twin`` compares a declared twin's
annotations with these; ``render`` writes a type as it would be declared, for the message that says what to write.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Optional, Union

import typing_extensions
from pydantic import BaseModel, RootModel

from .._shared import ABSENT
from ._annotations import DICT_ORIGINS, LIST_ORIGINS, NONE_TYPE, UNION_ORIGINS, is_enum, is_literal, unwrap
from ._policies import StreamPolicy, StreamState, split_policy

__all__ = ["shown", "field_shape", "check_declared_twin", "render"]

Twins = typing.Mapping[type, type]


class _Undeclared:
    """The twin of a model that has none declared: only ``Any`` in a declaration matches it."""

    def __init__(self, model: type) -> None:
        self.model = model

    def __repr__(self) -> str:
        return f"Partial{self.model.__name__}"


def _union(*members: Any) -> Any:
    flat: list[Any] = []
    for member in members:
        for part in typing.get_args(member) if typing.get_origin(member) in UNION_ORIGINS else (member,):
            if part not in flat:
                flat.append(part)
    if Any in flat:
        return Any
    return flat[0] if len(flat) == 1 else Union[tuple(flat)]


def _without_none(tp: Any) -> Any:
    if typing.get_origin(tp) in UNION_ORIGINS:
        return _union(*[arg for arg in typing.get_args(tp) if arg is not NONE_TYPE])
    return tp


def _strip(annotation: Any) -> Any:
    """The validated type: the annotation without its metadata, streaming policies or not."""
    tp, _ = unwrap(annotation, ())
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in UNION_ORIGINS:
        return _union(*[_strip(arg) for arg in args])
    if origin is not None and args and not is_literal(tp):
        return origin[tuple(arg if arg is Ellipsis else _strip(arg) for arg in args)]
    return tp


def shown(annotation: Any, twins: Twins, metadata: tuple[Any, ...] = ()) -> Any:
    """What a place of ``annotation`` shows when it shows something."""
    tp, metadata = unwrap(annotation, metadata)
    policy, _ = split_policy(tp, metadata)
    if policy is not None and policy.done:
        validated = _strip(tp)
        return _without_none(validated) if policy.not_null else validated
    value = _shown_type(tp, twins)
    return _without_none(value) if policy is not None and policy.not_null else value


def _shown_type(tp: Any, twins: Twins) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any or tp is object:
        return Any
    if origin in UNION_ORIGINS:
        members = [arg for arg in args if arg is not NONE_TYPE]
        if len(members) == 1:
            return _union(shown(members[0], twins), None)
        parts = [shown(member, twins) for member in members]
        return _union(*parts, dict[str, Any], None)  # undecided: the plain dict read so far
    if isinstance(tp, type) and issubclass(tp, RootModel):
        return Any
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        twin = twins.get(tp)
        return _union(twin if twin is not None else _Undeclared(tp), tp, None)
    if (dataclasses.is_dataclass(tp) and isinstance(tp, type)) or typing_extensions.is_typeddict(tp):
        return Any
    if tp in LIST_ORIGINS or origin in LIST_ORIGINS:
        if (origin or tp) is not list or not args:
            return _union(list[Any], None) if (origin or tp) is list else Any
        return _union(list[_member(args[0], twins)], None)  # type: ignore[misc]
    if tp in DICT_ORIGINS or origin in DICT_ORIGINS:
        if (origin or tp) is not dict or not args:
            return _union(dict[Any, Any], None) if (origin or tp) is dict else Any
        return _union(dict[_strip(args[0]), _member(args[1], twins)], None)  # type: ignore[misc]
    if is_enum(tp) or is_literal(tp) or isinstance(tp, type):
        return _union(tp, None)
    return Any


def _member(annotation: Any, twins: Twins) -> Any:
    """What a list's item or a dict's value shows: None where it has nothing valid, unless left out (not_null)."""
    value = shown(annotation, twins)
    tp, metadata = unwrap(annotation, ())
    policy, _ = split_policy(tp, metadata)
    if policy is not None and policy.not_null:
        return _without_none(value)
    return _union(value, None)


def field_shape(annotation: Any, metadata: tuple[Any, ...], policy: Optional[StreamPolicy], twins: Twins) -> Any:
    """What a field of a partial twin can be: what its place shows, None or its placeholder before it is read (a
    ``not_null`` field is always read: its object is held back until then), wrapped in ``StreamState``."""
    value = shown(annotation, twins, metadata)
    nullable = _nullable(annotation)
    if policy is not None and policy.not_null:
        result = value
    elif policy is not None and policy.starts_as is not ABSENT:
        placeholder = policy.starts_as
        base = value if nullable else _without_none(value)
        result = base if _holds(base, placeholder) else _union(base, type(placeholder))
    else:
        result = _union(value, None)
    if policy is not None and policy.with_state:
        return StreamState[result]  # type: ignore[valid-type]
    return result


def _nullable(annotation: Any) -> bool:
    tp, _ = unwrap(annotation, ())
    return typing.get_origin(tp) in UNION_ORIGINS and NONE_TYPE in typing.get_args(tp)


def _holds(tp: Any, value: Any) -> bool:
    """Whether the placeholder is a value of one of the types (a list for ``list[...]``)."""
    members = typing.get_args(tp) if typing.get_origin(tp) in UNION_ORIGINS else (tp,)
    for member in members:
        base = typing.get_origin(member) or member
        if isinstance(base, type) and isinstance(value, base):
            return True
    return False


# --- Declared twins ------------------------------------------------------------------------------------------------


def check_declared_twin(model: type[BaseModel], declared: type, twins: Twins) -> None:
    """Raise ``TypeError`` where a declared twin's annotations are not what the model's fields can show."""
    from ._policies import field_policy

    wrong = []
    own = {name: field.annotation for name, field in declared.model_fields.items()}  # type: ignore[attr-defined]
    for name, field in model.model_fields.items():
        metadata = tuple(field.metadata)
        expected = field_shape(field.annotation, metadata, field_policy(field.annotation, metadata), twins)
        if name not in own:
            wrong.append(f"    {name}: {render(expected)}  # missing")
        elif not _matches(own[name], expected):
            wrong.append(f"    {name}: {render(expected)}  # not {render(own[name])}")
    extra = sorted(set(own) - set(model.model_fields))
    wrong.extend(f"    {name}  # not a field of {model.__qualname__}" for name in extra)
    if wrong:
        raise TypeError(
            f"{declared.__qualname__} declares the partial twin of {model.__qualname__} with annotations that are not "
            "what its fields can show; declare:\n" + "\n".join(wrong)
        )


def _matches(declared: Any, expected: Any) -> bool:
    """Whether a declared annotation is the expected type (``Any`` in the declaration stands for anything)."""
    if declared is Any:
        return True
    if isinstance(expected, _Undeclared):
        return False
    d_origin, e_origin = typing.get_origin(declared), typing.get_origin(expected)
    if d_origin in UNION_ORIGINS or e_origin in UNION_ORIGINS:
        d_args = typing.get_args(declared) if d_origin in UNION_ORIGINS else (declared,)
        e_args = typing.get_args(expected) if e_origin in UNION_ORIGINS else (expected,)
        return all(any(_matches(d, e) for d in d_args) for e in e_args) and all(
            any(_matches(d, e) for e in e_args) for d in d_args
        )
    if d_origin is not None or e_origin is not None:
        if d_origin != e_origin:
            return False
        d_args, e_args = typing.get_args(declared), typing.get_args(expected)
        if is_literal(expected):
            return set(d_args) == set(e_args)
        return len(d_args) == len(e_args) and all(_matches(d, e) for d, e in zip(d_args, e_args))
    return bool(declared == expected or declared is NONE_TYPE and expected is None)


def render(tp: Any) -> str:
    """A type as it is written in a declaration (Python 3.9 syntax)."""
    if tp is None or tp is NONE_TYPE:
        return "None"
    if tp is Any:
        return "Any"
    if isinstance(tp, _Undeclared):
        return repr(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in UNION_ORIGINS:
        members = [arg for arg in args if arg is not NONE_TYPE]
        inner = render(members[0]) if len(members) == 1 else f"Union[{', '.join(render(m) for m in members)}]"
        return f"Optional[{inner}]" if len(members) < len(args) else inner
    if is_literal(tp):
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin is not None:
        name = getattr(origin, "__name__", repr(origin))
        return f"{name}[{', '.join('...' if arg is Ellipsis else render(arg) for arg in args)}]"
    return getattr(tp, "__qualname__", None) or repr(tp)
