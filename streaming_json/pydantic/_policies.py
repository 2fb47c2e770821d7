"""Streaming policies: what a place in a type shows while it streams, as ``Annotated`` markers or a class decorator.

``Stream.done()``, ``Stream.not_null()``, ``Stream.with_state()`` and ``Stream.starts_as(value)`` are the four
policies (BAML's ``@stream.done``, ``@stream.not_null``, ``@stream.with_state`` and ``@stream.starts_as``);
``Stream.partial_values`` marks a validator that asks to see partial values. The plan (``_plan``) reads the markers
out of the annotations, so that validation never sees them, and gives each node its policy; this module is the one
place that says what a marker is and how markers combine.
"""

from __future__ import annotations

import typing
import weakref
from typing import Any, Generic, Literal, Optional, TypeVar

from .._shared import ABSENT
from ._annotations import NONE_TYPE, UNION_ORIGINS, unwrap

__all__ = ["Stream", "StreamPolicy", "StreamState", "State"]

T = TypeVar("T")
C = TypeVar("C", bound=type)

State = Literal["pending", "incomplete", "complete"]
"""Where a field with ``Stream.with_state()`` is: not read yet, being read, or complete."""

_STATES = ("pending", "incomplete", "complete")
# The policies that only a field of an object can have (a list's item or a dict's value has no state of its own).
FIELD_ONLY = ("with_state", "starts_as")


class StreamPolicy:
    """What a place shows while it streams: one or more of the four policies (``Stream.done()`` and the others make
    these). Markers in one ``Annotated`` combine; used as a class decorator, a policy applies wherever the class is
    the type of a place, as if each place were ``Annotated[Class, policy]``."""

    __slots__ = ("done", "not_null", "with_state", "starts_as")

    done: bool
    """Shown only once complete (and valid): never partial."""
    not_null: bool
    """Never shown as None: its container holds it back (a field's object shows only once the field has a value; a
    list leaves the item out; a dict the key)."""
    with_state: bool
    """A field's value is shown wrapped in :class:`StreamState`: ``state`` and ``value``."""
    starts_as: Any
    """A field's placeholder until the text gives it a value (``ABSENT``: None)."""

    def __init__(
        self, *, done: bool = False, not_null: bool = False, with_state: bool = False, starts_as: Any = ABSENT
    ) -> None:
        self.done = done
        self.not_null = not_null
        self.with_state = with_state
        self.starts_as = starts_as

    def merged(self, other: Optional[StreamPolicy]) -> StreamPolicy:
        if other is None:
            return self
        return StreamPolicy(
            done=self.done or other.done,
            not_null=self.not_null or other.not_null,
            with_state=self.with_state or other.with_state,
            starts_as=other.starts_as if other.starts_as is not ABSENT else self.starts_as,
        )

    @property
    def field_only(self) -> tuple[str, ...]:
        """The policies set here that only a field may have."""
        return tuple(name for name in FIELD_ONLY if getattr(self, name) not in (False, ABSENT))

    def __call__(self, cls: C) -> C:
        """As a class decorator: the class's policy wherever it is the type of a place."""
        if self.field_only:
            raise TypeError(f"Stream.{self.field_only[0]}() applies to a field, not to a class ({cls.__qualname__})")
        _CLASS_POLICIES[cls] = self.merged(_CLASS_POLICIES.get(cls))
        return cls

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StreamPolicy):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __hash__(self) -> int:
        return hash((self.done, self.not_null, self.with_state))

    def __repr__(self) -> str:
        parts = [f"Stream.{name}()" for name in ("done", "not_null", "with_state") if getattr(self, name)]
        if self.starts_as is not ABSENT:
            parts.append(f"Stream.starts_as({self.starts_as!r})")
        return " + ".join(parts) or "StreamPolicy()"


_CLASS_POLICIES: weakref.WeakKeyDictionary[type, StreamPolicy] = weakref.WeakKeyDictionary()


class Stream:
    """The streaming policies, for ``Annotated[T, Stream.done()]`` on a field (or a list's items, a dict's values),
    or as a class decorator (``@Stream.done()``).

    - ``done()``: shown only once complete and valid (a URL, an id, a price), never partial: None until then (its
      placeholder with ``starts_as``); a value that completes invalid shows as if not read.
    - ``not_null()``: never shown as None: the object holding the field is held back until the field has a value (a
      discriminator, a title); a list leaves out an item that would show None, a dict the key.
    - ``with_state()``: a field's value wrapped in :class:`StreamState` (``state``: ``"pending"``,
      ``"incomplete"``, ``"complete"``; ``value``), so a ``null`` the model wrote (complete, None) is told apart from a
      field not read yet (pending).
    - ``starts_as(value)``: a field's placeholder until the text gives it one (``"Loading..."``, ``[]``).

    ``Stream.partial_values`` marks a validator that asks to be called on partial values too.
    """

    __slots__ = ()

    @staticmethod
    def done() -> StreamPolicy:
        """Shown only once complete and valid: never partial."""
        return StreamPolicy(done=True)

    @staticmethod
    def not_null() -> StreamPolicy:
        """Never shown as None: its container is held back (an object) or leaves it out (a list, a dict) until then."""
        return StreamPolicy(not_null=True)

    @staticmethod
    def with_state() -> StreamPolicy:
        """The field's value wrapped in :class:`StreamState`: ``state`` (pending, incomplete, complete), ``value``."""
        return StreamPolicy(with_state=True)

    @staticmethod
    def starts_as(value: Any) -> StreamPolicy:
        """The field's placeholder until the text gives it a value (shared by every partial value: do not mutate it)."""
        return StreamPolicy(starts_as=value)

    @staticmethod
    def partial_values(function: T) -> T:
        """Mark a pydantic field or model validator (beneath ``@field_validator``/``@model_validator``) as asking to
        see partial values: it is called on each partial value of its field (a field validator) or on each partial
        twin (a model validator in ``"after"`` mode) with ``info.context == {"partial": True}``; what it returns is
        shown. It still runs, as pydantic runs it, on the complete value, where ``info.context`` is None."""
        target: Any = getattr(function, "__func__", function)
        target.__stream_partial_values__ = True
        return function


class StreamState(Generic[T]):
    """A field's value with its state (``Stream.with_state()``): ``"pending"`` (not read yet: ``value`` is None or
    the placeholder), ``"incomplete"`` (being read: ``value`` is what shows so far) or ``"complete"``."""

    __slots__ = ("state", "value")

    state: State
    value: T

    def __init__(self, state: State, value: T) -> None:
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("StreamState is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StreamState):
            return NotImplemented
        return self.state == other.state and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.state, repr(self.value)))

    def __repr__(self) -> str:
        return f"StreamState({self.state!r}, {self.value!r})"


STATE_ORDER = {state: rank for rank, state in enumerate(_STATES)}


# --- Reading the markers -------------------------------------------------------------------------------------------


def split_policy(tp: Any, metadata: tuple[Any, ...]) -> tuple[Optional[StreamPolicy], tuple[Any, ...]]:
    """The policy of a place of type ``tp`` (unwrapped) with ``metadata``, and the metadata without the markers: the
    class's own policy, then the markers in order."""
    policy = _CLASS_POLICIES.get(tp) if isinstance(tp, type) else None
    if not any(type(item) is StreamPolicy for item in metadata):
        return policy, metadata
    rest = []
    for item in metadata:
        if type(item) is StreamPolicy:
            policy = item if policy is None else policy.merged(item)
        else:
            rest.append(item)
    return policy, tuple(rest)


def field_policy(annotation: Any, metadata: tuple[Any, ...]) -> Optional[StreamPolicy]:
    """The policy of a field: its markers and those inside an ``Optional`` around its type."""
    tp, metadata = unwrap(annotation, metadata)
    policy, _ = split_policy(tp, metadata)
    if typing.get_origin(tp) in UNION_ORIGINS:
        members = [arg for arg in typing.get_args(tp) if arg is not NONE_TYPE]
        if len(members) == 1:
            inner = field_policy(members[0], ())
            if inner is not None:
                policy = inner if policy is None else policy.merged(inner)
    return policy


def partial_validators(cls: Any) -> tuple[list[tuple[str, Any, bool]], list[tuple[Any, bool]]]:
    """A model's validators marked with ``Stream.partial_values``: ``(field, function, takes info)`` for field
    validators, ``(function, takes info)`` for model validators in ``after`` mode."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    fields: list[tuple[str, Any, bool]] = []
    models: list[tuple[Any, bool]] = []
    if decorators is None or not hasattr(cls, "model_fields"):  # a model's validators only
        return fields, models
    for decorator in decorators.field_validators.values():
        function = decorator.func
        if getattr(getattr(function, "__func__", function), "__stream_partial_values__", False):
            names = decorator.info.fields
            for name in cls.model_fields if "*" in names else names:
                fields.append((name, function, _takes_info(function, 2)))
    for decorator in decorators.model_validators.values():
        function = decorator.func
        if decorator.info.mode == "after" and getattr(
            getattr(function, "__func__", function), "__stream_partial_values__", False
        ):
            models.append((function, _takes_info(function, 2)))
    return fields, models


def _takes_info(function: Any, arguments: int) -> bool:
    """Whether a bound validator takes ``info`` after its value (pydantic tells validators apart the same way)."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= arguments


class PartialInfo:
    """What a validator marked with ``Stream.partial_values`` gets as ``info`` on a partial value: pydantic's
    ``ValidationInfo`` attributes, ``context`` being ``{"partial": True}``."""

    __slots__ = ("context", "data", "field_name", "config")

    mode = "python"

    def __init__(self, data: dict[str, Any], field_name: Optional[str], config: Any) -> None:
        self.context = {"partial": True}
        self.data = data
        self.field_name = field_name
        self.config = config
