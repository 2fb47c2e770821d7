"""Nodes: what a stream needs to know about one place in a type. A node answers four questions:

- what an open string or word at its place shows (``open_scalar``): a growing string where the type is a plain
  ``str``, nothing otherwise (numbers, booleans, literals, enums, constrained strings wait until complete);
- what a completed scalar shows (``complete_scalar``): the scalar validated alone against the annotation;
- what an open container shows (``partial``), from the completed members recorded in its frame (``add``) and the
  open member: a partial twin for a model, a list, a dict;
- what a completed container is (``finalize``): validated once, reusing validated children where that cannot change
  what validation sees.

A completed container whose type holds a ``Stream.with_state()`` place keeps its partial type in the partial values
(``Kept``: its shown form, every state complete, and its validated value for its parent's validation and the final
result), so that the wrappers never vanish from a place until the whole value completes.

Frames hold an open container's completed members; the stream keeps one per open container on the open path. This
module has the base node, the nodes of scalars and of ``Any``, and what every node family shares; the families of
containers build on it, each in a module of its own: ``_objects`` (models, dataclasses, typed dicts, root models),
``_collections`` (lists, tuples, sets, dicts), ``_unions``. A container's node builds the nodes of its members with
the builder it is given (``Build``: the plan's ``build``), so no node module imports the plan.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Protocol

from pydantic import ConfigDict, TypeAdapter
from pydantic.errors import PydanticUserError

from .._shared import ABSENT, MISSING, Key
from ._annotations import NONE_TYPE, is_enum, is_literal

Outcome = tuple[Any, bool, Optional[BaseException]]  # (what to show, valid, the error)
Errors = Optional[list[tuple[Key, BaseException]]]  # errors found while re-reading a frame's members


class Build(Protocol):
    """The builder of nodes (``_plan.build``), which container nodes are given to build their members' nodes."""

    def __call__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...] = ()) -> Node: ...


# Annotations whose validated value re-validates to itself (no user code involved): a container holding only these
# and models may pass its validated value on to its parent's validation.
_PLAIN_SCALARS = (str, int, float, bool, NONE_TYPE)
_FAST_TYPES = {str: str, int: int, float: float, bool: bool}  # the raw type that validates to itself
_STRING_CONSTRAINTS = ("pattern", "min_length", "max_length")


def dumps(raw: Any) -> str:
    return json.dumps(raw, ensure_ascii=False)


# Config that changes a plain scalar's validated value (so validating it cannot be skipped).
_TRANSFORMING_CONFIG = (
    "strict",
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "str_min_length",
    "str_max_length",
)


class Kept:
    """A completed container whose type holds a ``Stream.with_state()`` place, which partial values show in its
    partial type until the whole value completes (BAML's partial types): ``shown``, its partial form with every
    state complete; ``value``, its validated value, which its parent's validation and the final result take."""

    __slots__ = ("shown", "value")

    def __init__(self, shown: Any, value: Any) -> None:
        self.shown = shown
        self.value = value


def validated(value: Any) -> Any:
    """The validated value of what a completion gave (a ``Kept`` or the value itself)."""
    return value.value if type(value) is Kept else value


def _config_transforms(config: Optional[ConfigDict]) -> bool:
    if not config:
        return False
    return any(config.get(key) for key in _TRANSFORMING_CONFIG) or config.get("allow_inf_nan") is False


def _validator_for(annotation: Any, config: Optional[ConfigDict]) -> Any:
    if config:
        try:
            return TypeAdapter(annotation, config=config).validator
        except PydanticUserError:  # a type with a config of its own
            pass
    return TypeAdapter(annotation).validator


class Frame:
    """An open container on the open path: its completed members and what its node keeps to show it quickly."""

    __slots__ = (
        "path",
        "node",
        "raws",
        "values",
        "fields_set",
        "extra",
        "subst",
        "kept",
        "failed",
        "bad",
        "partial_errors",
        "shown",
        "shown_slot",
        "shown_member",
        "changed",
    )

    def __init__(self, path: tuple[Key, ...], node: Node, is_list: bool) -> None:
        self.path = path
        self.node = node
        self.raws: Any = [] if is_list else {}  # the completed members' plain values, by slot
        self.failed: list[Key] = []  # members whose errors were recorded
        self.bad = 0  # members that failed validation (recorded or not)
        # What the node keeps: the members' shown values, the fields read, extra members, validated stand-ins.
        self.values: Any = None
        self.fields_set: Any = None
        self.extra: Any = None
        self.subst: Any = None
        # The validated values of members kept in their partial type (``Kept``), by where the node shows them.
        self.kept: Optional[dict[Any, Any]] = None
        # What validators that asked for partial values raised on the last partial value (``Stream.partial_values``).
        self.partial_errors: Optional[list[tuple[Any, BaseException]]] = None
        # The stream's last partial value of this container, built with ``shown_member`` open at ``shown_slot``
        # (``MISSING``: none yet); ``changed``: a member completed since, so it is built again.
        self.shown: Any = MISSING
        self.shown_slot: Any = None
        self.shown_member: Any = ABSENT
        self.changed = False
        node.init(self)

    def keep(self, where: Any, value: Any) -> None:
        """Record the validated value of a member shown in its partial type (``Kept``) at ``where``."""
        if self.kept is None:
            self.kept = {}
        self.kept[where] = value

    def substitute(self, slot: Key, value: Any, stands_in: bool) -> None:
        """Keep ``value``, a member's validated value, to stand in for its raw value in this container's input to
        validation (``stands_in``); else forget any kept for ``slot`` (a repeated key replaces the member)."""
        if stands_in:
            if self.subst is None:
                self.subst = {}
            self.subst[slot] = value
        elif self.subst is not None:
            self.subst.pop(slot, None)


# --- Nodes --------------------------------------------------------------------------------------------------------


class Node:
    """A place in a type. The base node shows nothing until complete and validates with its annotation."""

    __slots__ = (
        "annotation",
        "config",
        "metadata",
        "nullable",
        "json_mode",
        "grows",
        "passthrough",
        "is_container",
        "policy",
        "_validator",
        "_holds_state",
    )

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...] = ()) -> None:
        self.annotation = annotation
        self.config = config
        self.metadata = metadata
        self.nullable = False  # null is valid here (an Optional)
        self.grows = False  # an open string shows as it grows
        self.passthrough = False  # the validated value may stand in for the plain one in the parent's input
        self.is_container = False  # an open container shows partially (else only once complete)
        self.policy: Any = None  # the place's streaming policy (a StreamPolicy), where it has one
        # Strict validation of Python values rejects what JSON gives (a string for a datetime or an enum): strict
        # places validate the JSON text of the value instead.
        self.json_mode = bool(config and config.get("strict")) or any(getattr(m, "strict", None) for m in metadata)
        self._validator: Any = None
        self._holds_state: Optional[bool] = None

    # --- Validation ---

    @property
    def validator(self) -> Any:
        if self._validator is None:
            self._validator = _validator_for(self.annotation, self.config)
        return self._validator

    def validate(self, value: Any, raw: Any) -> Outcome:
        """Validate ``value`` (``raw`` with validated parts standing in); on failure, the JSON text of ``raw``
        decides, as ``validate_json`` of the whole text would. Never raises."""
        try:
            validator = self.validator
        except Exception as error:  # a part pydantic cannot validate on its own: it is validated with its parent
            return ABSENT, False, error
        if not self.json_mode:
            try:
                return validator.validate_python(value), True, None
            except Exception:
                pass
        try:
            return validator.validate_json(dumps(raw)), True, None
        except Exception as error:  # a ValidationError, or whatever a user's validator raised
            return ABSENT, False, error

    def complete_scalar(self, raw: Any) -> Outcome:
        """A completed string, number or literal at this place, validated alone."""
        if raw is None and self.nullable:
            return None, True, None
        value, ok, error = self.validate(raw, raw)
        return (value if ok else self.failed_scalar(raw)), ok, error

    def failed_scalar(self, raw: Any) -> Any:
        """What a completed scalar that failed validation shows: what it showed while open, so no type flips."""
        return raw if self.grows and type(raw) is str else None

    def open_scalar(self, raw: Any) -> Any:
        return ABSENT

    # --- Containers ---

    def child(self, slot: Key) -> Node:
        return IGNORE

    def for_container(self, is_list: bool) -> Node:
        """The node that shows an open container of this kind here."""
        return Opaque(self)

    def takes_container(self, is_list: bool) -> bool:
        """Whether, as a member of a union, this node can take a container of this kind (an array: ``is_list``)."""
        return False

    def complete_container(self, raw: Any) -> Outcome:
        """A completed container that has no frame (it arrived whole): validated from its plain value (read member by
        member where its type holds a ``Stream.with_state()`` place, to show it in its partial type)."""
        if self.is_container and self.holds_state:
            return self.finalize(self.frame_of(raw), raw)
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self.partial_from_raw(raw), False, error

    def partial_from_raw(self, raw: Any) -> Any:
        """What a completed, invalid container shows: its partial value, built from its members."""
        if not self.is_container:
            return None
        return self.closed_partial(self.frame_of(raw))

    def frame_of(self, raw: Any) -> Frame:
        """A frame holding the members of the completed container ``raw``, each completed at its place."""
        frame = Frame((), self, type(raw) is list)
        members = enumerate(raw) if type(raw) is list else raw.items()
        for slot, member in members:
            node = self.child(slot)
            if type(member) is dict or type(member) is list:
                value, ok, _ = node.for_container(type(member) is list).complete_container(member)
            else:
                value, ok, _ = node.complete_scalar(member)
            self.add(frame, slot, member, value, ok, node)
        return frame

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        """The partial form of a completed, valid container whose type holds a ``Stream.with_state()`` place
        (``checked``: its validated value): an object's validated values in its twin, the members kept in their
        partial type as shown, every state complete (``ABSENT`` where ``not_null`` holds it back)."""
        raise NotImplementedError(type(self).__name__)

    def closed_partial(self, frame: Frame) -> Any:
        """The partial value of a completed container that failed validation."""
        return self.partial(frame, None, ABSENT)

    # --- Shapes ---

    def own_state(self) -> bool:
        """Whether this place's own members have ``Stream.with_state()``."""
        return False

    def shows_instance(self, value: Any) -> bool:
        """Whether ``value``, a union's validated value, is an instance of the class this node shows (so that the
        union's member shows it)."""
        return False

    def inner_places(self) -> tuple[Node, ...]:
        """The nodes of the places inside this one that show while it streams (for ``holds_state``)."""
        return ()

    @property
    def holds_state(self) -> bool:
        """Whether a ``Stream.with_state()`` place shows somewhere inside this one while it streams: then a completed
        value here keeps its partial type (``Kept``) until the whole value completes."""
        found = self._holds_state
        if found is None:
            found = self._holds_state = _reaches_state(self)
        return found

    def init(self, frame: Frame) -> None:
        pass

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        """Record a completed member; return errors found by re-reading members (a union that picked its variant)."""
        return None

    def partial(self, frame: Frame, slot: Optional[Key], value: Any) -> Any:
        """The partial value of an open container: its completed members and the open one (``value`` at ``slot``)."""
        return ABSENT

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return self.complete_container(raw)

    def json_keys(self, name: Key) -> tuple[Key, ...]:
        """The JSON keys that an attribute name stands for here (``is_complete`` takes names and aliases)."""
        return (name,)

    def member(self, slot: Key) -> Node:
        """The node of a member by the type, for ``is_complete`` (``child`` is the node that reads it, which in a
        container shown only once complete reads nothing)."""
        return self.child(slot)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.annotation!r})"


def _reaches_state(node: Node) -> bool:
    """Whether a place with ``Stream.with_state()`` is reachable from ``node`` (a recursive type's places once)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        found = stack.pop()
        if id(found) in seen:
            continue
        seen.add(id(found))
        if found.own_state():
            return True
        stack.extend(found.inner_places())
    return False


class _Ignore(Node):
    """A place nothing is shown or validated at (inside a container that is shown only once complete)."""

    __slots__ = ()

    def child(self, slot: Key) -> Node:
        return self

    def for_container(self, is_list: bool) -> Node:
        return self

    def complete_scalar(self, raw: Any) -> Outcome:
        return ABSENT, True, None

    def complete_container(self, raw: Any) -> Outcome:
        return ABSENT, True, None

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return ABSENT, True, None


IGNORE = _Ignore(Any, None)


class Opaque(Node):
    """A container where the type wants something it cannot show partially (a scalar type, a custom type, a list
    where an object belongs): nothing until complete, then validated whole."""

    __slots__ = ("inner",)

    def __init__(self, inner: Node) -> None:
        super().__init__(inner.annotation, inner.config, inner.metadata)
        self.inner = inner
        self.policy = inner.policy

    def for_container(self, is_list: bool) -> Node:
        return self

    def json_keys(self, name: Key) -> tuple[Key, ...]:
        return self.inner.json_keys(name)

    def member(self, slot: Key) -> Node:
        return self.inner.member(slot)

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.inner.validate(raw, raw)
        return (value if ok else None), ok, error

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return self.complete_container(raw)


class ScalarNode(Node):
    """A string, number, boolean, null, literal, enum or any other type a JSON scalar validates to."""

    __slots__ = ("fast", "plain", "base")

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], base: Any) -> None:
        super().__init__(annotation, config, metadata)
        self.base = base  # the type, without metadata
        constrained = any(getattr(m, attr, None) is not None for m in metadata for attr in _STRING_CONSTRAINTS)
        config_constrained = bool(config) and any(
            config.get(key) is not None  # type: ignore[union-attr]
            for key in ("str_min_length", "str_max_length")
        )
        # Only a plain str shows while it grows: a literal, an enum, a constrained string or any other type a
        # string validates to (a datetime, a UUID) would change value or type when it completes.
        self.grows = base is str and not constrained and not config_constrained
        self.plain = not metadata and (base in _PLAIN_SCALARS or is_literal(base) or is_enum(base))
        self.passthrough = self.plain
        self.fast: Any = None
        if not metadata and not self.json_mode and isinstance(base, type) and not _config_transforms(config):
            self.fast = _FAST_TYPES.get(base)

    def complete_scalar(self, raw: Any) -> Outcome:
        if type(raw) is self.fast:  # the common case, without a call into pydantic
            return raw, True, None
        return super().complete_scalar(raw)

    def open_scalar(self, raw: Any) -> Any:
        return raw if self.grows and type(raw) is str else ABSENT


class AnyNode(Node):
    """``Any``: the plain JSON value, numbers and literals once complete, strings as they grow."""

    __slots__ = ()

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...] = ()) -> None:
        super().__init__(annotation, config, metadata)
        self.grows = self.is_container = self.passthrough = True

    def child(self, slot: Key) -> Node:
        return ANY

    def for_container(self, is_list: bool) -> Node:
        return self

    def takes_container(self, is_list: bool) -> bool:
        return self.is_container

    def complete_scalar(self, raw: Any) -> Outcome:
        return raw, True, None

    def open_scalar(self, raw: Any) -> Any:
        return raw if type(raw) is str else ABSENT

    def complete_container(self, raw: Any) -> Outcome:
        return raw, True, None

    def init(self, frame: Frame) -> None:
        frame.values = [] if type(frame.raws) is list else {}

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        if type(frame.raws) is list:
            frame.raws.append(raw)
            frame.values.append(value)
        else:
            frame.raws[slot] = raw
            frame.values[slot] = value
        return None

    def partial(self, frame: Frame, slot: Optional[Key], value: Any) -> Any:
        out = frame.values.copy()
        if value is not ABSENT:
            if type(out) is list:
                out.append(value)
            else:
                out[slot] = value
        elif slot is not None and type(out) is dict:
            out.pop(slot, None)  # a repeated key whose new value is not shown yet
        return out

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return raw, True, None


ANY = AnyNode(Any, None)


class Done(Node):
    """A place with ``Stream.done()``: nothing while it streams, then its value validated whole once complete. A value
    that completes invalid shows nothing (``ABSENT``: the field keeps its placeholder or None), so it is never seen
    partial. Its members are read by nothing (``child`` is ``IGNORE``): validating the whole validates each once."""

    __slots__ = ("inner",)

    def __init__(self, inner: Node) -> None:
        super().__init__(inner.annotation, inner.config, inner.metadata)
        self.inner = inner
        self.policy = inner.policy
        self.nullable = inner.nullable
        self.passthrough = inner.passthrough
        self.json_mode = inner.json_mode
        self._validator = inner._validator

    @property
    def validator(self) -> Any:
        return self.inner.validator

    def validate(self, value: Any, raw: Any) -> Outcome:
        return self.inner.validate(value, raw)

    def complete_scalar(self, raw: Any) -> Outcome:
        if raw is None and self.nullable:
            return None, True, None
        value, ok, error = self.inner.complete_scalar(raw)
        return (value if ok else ABSENT), ok, error

    def for_container(self, is_list: bool) -> Node:
        return self

    def takes_container(self, is_list: bool) -> bool:
        return self.inner.takes_container(is_list)

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.inner.validate(raw, raw)
        return (value if ok else ABSENT), ok, error

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return self.complete_container(raw)

    def json_keys(self, name: Key) -> tuple[Key, ...]:
        return self.inner.json_keys(name)

    def member(self, slot: Key) -> Node:
        return self.inner.member(slot)
