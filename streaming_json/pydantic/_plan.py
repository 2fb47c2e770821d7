"""Type plans: what a stream needs to know about a type to show its partial values and validate its completed parts.

A plan is a tree of nodes, one per place in the type (a model, a field, a list's items), built lazily from the
annotations (so recursive models work) and cached with the type. A node answers four questions:

- what an open string or word at its place shows (``open_scalar``): a growing string where the type is a plain
  ``str``, nothing otherwise (numbers, booleans, literals, enums, constrained strings wait until complete);
- what a completed scalar shows (``complete_scalar``): the scalar validated alone against the annotation;
- what an open container shows (``partial``), from the completed members recorded in its frame (``add``) and the
  open member: a partial twin for a model, a list, a dict;
- what a completed container is (``finalize``): validated once, reusing validated children where that cannot change
  what validation sees.

Frames hold an open container's completed members; the stream keeps one per open container on the open path.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
import weakref
from collections import deque
from collections.abc import Mapping, MutableMapping, MutableSequence, MutableSet, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Callable, Optional, Union

import typing_extensions
from pydantic import AliasChoices, BaseModel, ConfigDict, RootModel, TypeAdapter
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo

from ._twins import construct_dataclass, construct_model, partial_twin

__all__ = ["ABSENT", "Frame", "Node", "plan"]


class _Absent:
    """Nothing to show at this place (yet)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

Slot = Union[str, int]
Outcome = tuple[Any, bool, Optional[BaseException]]  # (what to show, valid, the error)
Errors = Optional[list[tuple[Slot, BaseException]]]  # errors found while re-reading a frame's members

_UNION_ORIGINS: tuple[Any, ...] = (Union, types.UnionType) if hasattr(types, "UnionType") else (Union,)
_ANNOTATED_ORIGINS = (typing.Annotated, typing_extensions.Annotated)
_NONE_TYPE = type(None)
_LIST_ORIGINS = (list, tuple, set, frozenset, deque, Sequence, MutableSequence, AbstractSet, MutableSet)
_DICT_ORIGINS = (dict, Mapping, MutableMapping)
# Annotations whose validated value re-validates to itself (no user code involved): a container holding only these
# and models may pass its validated value on to its parent's validation.
_PLAIN_SCALARS = (str, int, float, bool, _NONE_TYPE)
_FAST_TYPES = {str: str, int: int, float: float, bool: bool}  # the raw type that validates to itself
_STRING_CONSTRAINTS = ("pattern", "min_length", "max_length")


def _dumps(raw: Any) -> str:
    return json.dumps(raw, ensure_ascii=False)


class Frame:
    """An open container on the open path: its completed members and what its node keeps to show it quickly."""

    __slots__ = ("path", "node", "raws", "values", "fields_set", "extra", "subst", "failed", "bad")

    def __init__(self, path: tuple[Slot, ...], node: Node, is_list: bool) -> None:
        self.path = path
        self.node = node
        self.raws: Any = [] if is_list else {}  # the completed members' plain values, by slot
        self.failed: list[Slot] = []  # members whose errors were recorded
        self.bad = 0  # members that failed validation (recorded or not)
        # What the node keeps: the members' shown values, the fields read, extra members, validated stand-ins.
        self.values: Any = None
        self.fields_set: Any = None
        self.extra: Any = None
        self.subst: Any = None
        node.init(self)


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
        "_validator",
    )

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...] = ()) -> None:
        self.annotation = annotation
        self.config = config
        self.metadata = metadata
        self.nullable = False  # null is valid here (an Optional)
        self.grows = False  # an open string shows as it grows
        self.passthrough = False  # the validated value may stand in for the plain one in the parent's input
        self.is_container = False  # an open container shows partially (else only once complete)
        # Strict validation of Python values rejects what JSON gives (a string for a datetime or an enum): strict
        # places validate the JSON text of the value instead.
        self.json_mode = bool(config and config.get("strict")) or any(getattr(m, "strict", None) for m in metadata)
        self._validator: Any = None

    # --- Validation ---

    @property
    def validator(self) -> Any:
        if self._validator is None:
            self._validator = _validator(self.annotation, self.config)
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
            return validator.validate_json(_dumps(raw)), True, None
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

    def child(self, slot: Slot) -> Node:
        return IGNORE

    def for_container(self, is_list: bool) -> Node:
        """The node that shows an open container of this kind here."""
        return Opaque(self)

    def complete_container(self, raw: Any) -> Outcome:
        """A completed container that has no frame (it arrived whole): validated from its plain value."""
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self.partial_from_raw(raw), False, error

    def partial_from_raw(self, raw: Any) -> Any:
        """What a completed, invalid container shows: its partial value, built from its members."""
        if not self.is_container:
            return None
        frame = Frame((), self, type(raw) is list)
        members = enumerate(raw) if type(raw) is list else raw.items()
        for slot, member in members:
            node = self.child(slot)
            if type(member) is dict or type(member) is list:
                value, ok, _ = node.for_container(type(member) is list).complete_container(member)
            else:
                value, ok, _ = node.complete_scalar(member)
            self.add(frame, slot, member, value, ok, node)
        return self.partial(frame, None, ABSENT)

    def init(self, frame: Frame) -> None:
        pass

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        """Record a completed member; return errors found by re-reading members (a union that picked its variant)."""
        return None

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        """The partial value of an open container: its completed members and the open one (``value`` at ``slot``)."""
        return ABSENT

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return self.complete_container(raw)

    def json_keys(self, name: Slot) -> tuple[Slot, ...]:
        """The JSON keys that an attribute name stands for here (``is_complete`` takes names and aliases)."""
        return (name,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.annotation!r})"


class _Ignore(Node):
    """A place nothing is shown or validated at (inside a container that is shown only once complete)."""

    __slots__ = ()

    def child(self, slot: Slot) -> Node:
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

    def for_container(self, is_list: bool) -> Node:
        return self

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.inner.validate(raw, raw)
        return (value if ok else None), ok, error

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        return self.complete_container(raw)


class ScalarNode(Node):
    """A string, number, boolean, null, literal, enum or any other type a JSON scalar validates to."""

    __slots__ = ("fast", "plain")

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], base: Any) -> None:
        super().__init__(annotation, config, metadata)
        constrained = any(getattr(m, attr, None) is not None for m in metadata for attr in _STRING_CONSTRAINTS)
        config_constrained = bool(config) and any(
            config.get(key) is not None  # type: ignore[union-attr]
            for key in ("str_min_length", "str_max_length")
        )
        # Only a plain str shows while it grows: a literal, an enum, a constrained string or any other type a
        # string validates to (a datetime, a UUID) would change value or type when it completes.
        self.grows = base is str and not constrained and not config_constrained
        self.plain = not metadata and (base in _PLAIN_SCALARS or _is_literal(base) or _is_enum(base))
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

    def child(self, slot: Slot) -> Node:
        return ANY

    def for_container(self, is_list: bool) -> Node:
        return self

    def complete_scalar(self, raw: Any) -> Outcome:
        return raw, True, None

    def open_scalar(self, raw: Any) -> Any:
        return raw if type(raw) is str else ABSENT

    def complete_container(self, raw: Any) -> Outcome:
        return raw, True, None

    def init(self, frame: Frame) -> None:
        frame.values = [] if type(frame.raws) is list else {}

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        if type(frame.raws) is list:
            frame.raws.append(raw)
            frame.values.append(value)
        else:
            frame.raws[slot] = raw
            frame.values[slot] = value
        return None

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
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


class Undecided(AnyNode):
    """A union whose variant is not known yet: the plain value read so far, then the validated union value."""

    __slots__ = ("union",)

    def __init__(self, union: Node) -> None:
        super().__init__(union.annotation, union.config, union.metadata)
        self.passthrough = union.passthrough
        self.union = union

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.union.validate(raw, raw)
        return (value if ok else raw), ok, error

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        value, ok, error = self.union.validate(raw, raw)
        return (value if ok else self.partial(frame, None, ABSENT)), ok, error


class _Tag(AnyNode):
    """A discriminator's value in an object whose variant is not known yet: shown once complete, as a literal is."""

    __slots__ = ()

    def open_scalar(self, raw: Any) -> Any:
        return ABSENT


TAG = _Tag(Any, None)


class Discriminating(Undecided):
    """A discriminated union before its discriminator completes; then the frame turns into the variant's."""

    __slots__ = ()

    def child(self, slot: Slot) -> Node:
        return TAG if slot == self.union.key else ANY  # type: ignore[attr-defined]

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        super().add(frame, slot, raw, value, ok, node)
        union: DiscriminatedNode = self.union  # type: ignore[assignment]
        if slot != union.key:
            return None
        try:
            variant = union.variants.get(raw)
        except TypeError:  # an unhashable value: no variant
            variant = None
        if variant is None:
            return None
        # The variant is known: re-read the members completed so far as the variant's.
        raws = frame.raws
        frame.node = variant = variant.for_container(False)
        frame.raws = {}
        frame.bad = 0
        frame.failed = []
        variant.init(frame)
        errors: list[tuple[Slot, BaseException]] = []
        for key, member in raws.items():
            member_node = variant.child(key)
            if type(member) is dict or type(member) is list:
                value, ok, error = member_node.for_container(type(member) is list).complete_container(member)
                if error is not None:
                    errors.append((key, error))
                    frame.failed.append(key)
            else:
                value, ok, error = member_node.complete_scalar(member)
            variant.add(frame, key, member, value, ok, member_node)
        return errors


class _Fields:
    """The members of a model, dataclass or typed dict: JSON keys, attribute names and their nodes."""

    __slots__ = ("owner", "config", "key_to_name", "name_to_keys", "annotations", "no_subst", "nodes", "extra_allowed")

    def __init__(
        self,
        owner: Any,
        config: Optional[ConfigDict],
        fields: dict[str, FieldInfo],
        no_subst: frozenset[str],
        extra_allowed: bool,
    ) -> None:
        self.owner = owner
        self.config = config
        by_alias = config.get("validate_by_alias", True) if config else True
        by_name = bool(config and (config.get("validate_by_name") or config.get("populate_by_name")))
        self.key_to_name: dict[str, str] = {}
        self.name_to_keys: dict[str, tuple[str, ...]] = {}
        self.annotations: dict[str, tuple[Any, tuple[Any, ...]]] = {}
        for name, field in fields.items():
            keys: list[str] = []
            alias = field.validation_alias if field.validation_alias is not None else field.alias
            if by_alias:
                if isinstance(alias, str):
                    keys.append(alias)
                elif isinstance(alias, AliasChoices):
                    keys.extend(choice for choice in alias.choices if isinstance(choice, str))
            if by_name or alias is None or not by_alias:
                keys.append(name)
            for key in keys:
                self.key_to_name.setdefault(key, name)
            self.name_to_keys[name] = tuple(keys)
            metadata = tuple(field.metadata)
            if field.discriminator is not None:
                metadata += (FieldInfo(discriminator=field.discriminator),)
            self.annotations[name] = (field.annotation, metadata)
        self.no_subst = no_subst
        self.nodes: dict[str, Node] = {}
        self.extra_allowed = extra_allowed

    def node(self, key: Slot) -> Node:
        found = self.nodes.get(key)  # type: ignore[arg-type]
        if found is None:
            name = self.key_to_name.get(key) if type(key) is str else None
            if name is None:
                found = ANY if self.extra_allowed else IGNORE
            else:
                annotation, metadata = self.annotations[name]
                found = build(annotation, self.config, metadata)
            self.nodes[key] = found  # type: ignore[index]
        return found


class _ObjectNode(Node):
    """A model, dataclass or typed dict: a member per field, shown by attribute name."""

    __slots__ = ("fields", "defaults")

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], fields: _Fields):
        super().__init__(annotation, config, metadata)
        self.is_container = True
        self.fields = fields
        # A twin has every field (None until read); a typed dict only the keys read.
        self.defaults: Optional[dict[str, Any]] = None

    def child(self, slot: Slot) -> Node:
        found = self.fields.nodes.get(slot)  # type: ignore[arg-type]
        return found if found is not None else self.fields.node(slot)

    def for_container(self, is_list: bool) -> Node:
        return Opaque(self) if is_list else self

    def json_keys(self, name: Slot) -> tuple[Slot, ...]:
        return self.fields.name_to_keys.get(name, (name,))  # type: ignore[arg-type]

    def init(self, frame: Frame) -> None:
        frame.values = {} if self.defaults is None else self.defaults.copy()
        frame.fields_set = set()

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws[slot] = raw
        if not ok:
            frame.bad += 1
        name = self.fields.key_to_name.get(slot)  # type: ignore[arg-type]
        if name is None:
            if self.fields.extra_allowed:
                if frame.extra is None:
                    frame.extra = {}
                frame.extra[slot] = value
            return None
        if value is ABSENT:
            self._unset(frame.values, frame.fields_set, name)
        else:
            frame.values[name] = value
            frame.fields_set.add(name)
        # A valid model (or list of them) goes into the parent's input as it is: pydantic passes an instance
        # through, so it is neither validated again nor copied.
        if ok and node.passthrough and (type(raw) is dict or type(raw) is list) and name not in self.fields.no_subst:
            if frame.subst is None:
                frame.subst = {}
            frame.subst[slot] = value
        elif frame.subst is not None:
            frame.subst.pop(slot, None)
        return None

    def _unset(self, values: dict[str, Any], fields_set: set[str], name: str) -> None:
        if self.defaults is None:
            values.pop(name, None)
        else:
            values[name] = None
        fields_set.discard(name)

    def _open_values(self, frame: Frame, slot: Optional[Slot], value: Any) -> tuple[dict[str, Any], set[str], Any]:
        """The completed members' values with the open member's; fields read; extra members."""
        values = frame.values.copy()
        fields_set = frame.fields_set.copy()
        extra = frame.extra
        if slot is not None:
            name = self.fields.key_to_name.get(slot)  # type: ignore[arg-type]
            if name is not None:
                if value is not ABSENT:
                    values[name] = value
                    fields_set.add(name)
                elif slot in frame.raws:  # a repeated key whose new value is not shown yet
                    self._unset(values, fields_set, name)
            elif self.fields.extra_allowed and value is not ABSENT:
                extra = dict(extra or {})
                extra[slot] = value
        return values, fields_set, extra

    def _input(self, frame: Frame, raw: Any) -> Any:
        if frame.subst:
            value = raw.copy()
            value.update(frame.subst)
            return value
        return raw

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        value, ok, error = self.validate(self._input(frame, raw), raw)
        if ok:
            return value, True, None
        return self.partial(frame, None, ABSENT), False, error


class ModelNode(_ObjectNode):
    __slots__ = ("twin",)

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any) -> None:
        super().__init__(annotation, cls.model_config, metadata, _model_fields(cls))
        self.twin = partial_twin(cls)
        self.defaults = dict.fromkeys(cls.model_fields)
        self.passthrough = not metadata and cls.model_config.get("revalidate_instances", "never") == "never"
        if not metadata:  # the model's own validator: no adapter to build
            self._validator = cls.__pydantic_validator__

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        values, fields_set, extra = self._open_values(frame, slot, value)
        if extra is not None or self.fields.extra_allowed:
            extra = dict(extra or ())
        return construct_model(self.twin, values, fields_set, extra)


class DataclassNode(_ObjectNode):
    __slots__ = ("twin",)

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any) -> None:
        own = getattr(cls, "__pydantic_config__", None)
        fields, no_subst = _dataclass_fields(cls)
        super().__init__(annotation, config, metadata, _Fields(cls, own or config, fields, no_subst, False))
        self.config = own if own is not None else config
        self.twin = partial_twin(cls)
        self.defaults = {f.name: None for f in dataclasses.fields(cls) if f.init}

    def _input(self, frame: Frame, raw: Any) -> Any:
        return raw  # pydantic re-reads a dataclass instance's fields: no gain in passing one

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        values, _, _ = self._open_values(frame, slot, value)
        return construct_dataclass(self.twin, values)


class TypedDictNode(_ObjectNode):
    __slots__ = ()

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any) -> None:
        own = getattr(cls, "__pydantic_config__", None)
        merged: Optional[ConfigDict] = ConfigDict(**{**(config or {}), **(own or {})}) if own or config else None
        fields = _typed_dict_fields(cls)
        extra = (merged or {}).get("extra") == "allow"
        super().__init__(annotation, merged, metadata, _Fields(cls, merged, fields, frozenset(), extra))

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        values, _, extra = self._open_values(frame, slot, value)
        if extra:
            values.update(extra)
        return values


class RootModelNode(Node):
    """A ``RootModel``: its root value's node, each partial value wrapped in the twin."""

    __slots__ = ("inner", "twin", "cls")

    def __init__(self, annotation: Any, metadata: tuple[Any, ...], cls: Any) -> None:
        super().__init__(annotation, cls.model_config, metadata)
        root = cls.model_fields["root"]
        self.inner = build(root.annotation, cls.model_config, tuple(root.metadata))
        self.twin = partial_twin(cls)
        self.cls = cls
        self.is_container = self.inner.is_container
        self.grows = self.inner.grows
        self.passthrough = not metadata and cls.model_config.get("revalidate_instances", "never") == "never"
        if not metadata:
            self._validator = cls.__pydantic_validator__

    def _wrap(self, value: Any) -> Any:
        return ABSENT if value is ABSENT else construct_model(self.twin, {"root": value}, {"root"}, None)

    def open_scalar(self, raw: Any) -> Any:
        return self._wrap(self.inner.open_scalar(raw))

    def complete_scalar(self, raw: Any) -> Outcome:
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self._wrap(self.inner.failed_scalar(raw) if self.inner.grows else ABSENT), False, error

    def for_container(self, is_list: bool) -> Node:
        inner = self.inner.for_container(is_list)
        return Opaque(self) if isinstance(inner, Opaque) else _RootContainer(self, inner)


class _RootContainer(Node):
    """A root model whose root is an open container of the inner node's kind."""

    __slots__ = ("outer", "inner")

    def __init__(self, outer: RootModelNode, inner: Node) -> None:
        super().__init__(outer.annotation, outer.config, outer.metadata)
        self.is_container = True
        self.outer = outer
        self.inner = inner
        self._validator = outer.validator

    def child(self, slot: Slot) -> Node:
        return self.inner.child(slot)

    def for_container(self, is_list: bool) -> Node:
        return self

    def init(self, frame: Frame) -> None:
        self.inner.init(frame)

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        return self.inner.add(frame, slot, raw, value, ok, node)

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        return self.outer._wrap(self.inner.partial(frame, slot, value))

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self.partial(frame, None, ABSENT), False, error

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self.outer._wrap(self.inner.partial_from_raw(raw)), False, error


class SequenceNode(Node):
    """A list, tuple, set or other sequence: its completed items and the open one."""

    __slots__ = ("item", "items", "make", "plain")

    def __init__(
        self,
        annotation: Any,
        config: Optional[ConfigDict],
        metadata: tuple[Any, ...],
        origin: Any,
        items: tuple[Any, ...],
        variadic: bool,
    ) -> None:
        super().__init__(annotation, config, metadata)
        self.is_container = True
        # A fixed tuple has a node per position; anything else one for every item.
        self.item: Optional[Node] = build(items[0] if items else Any, config) if variadic else None
        self.items = tuple(build(item, config) for item in items) if not variadic else ()
        self.make: Optional[Callable[[list[Any]], Any]] = _MAKERS.get(origin)
        # A plain list or tuple validates item by item, as the items were validated when they completed: its value is
        # the list of them, with no call into pydantic.
        self.plain = not metadata and variadic and origin in (list, tuple)
        self.passthrough = self.plain and self.item is not None and self.item.passthrough

    def child(self, slot: Slot) -> Node:
        if self.item is not None:
            return self.item
        return self.items[slot] if type(slot) is int and slot < len(self.items) else IGNORE

    def for_container(self, is_list: bool) -> Node:
        return self if is_list else Opaque(self)

    def init(self, frame: Frame) -> None:
        frame.values = []
        frame.subst = None

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws.append(raw)
        frame.values.append(value)
        if not ok:
            frame.bad += 1
        if not self.plain and node.passthrough and ok and (type(raw) is dict or type(raw) is list):
            if frame.subst is None:
                frame.subst = {}
            frame.subst[len(frame.raws) - 1] = value
        return None

    def _shape(self, items: list[Any]) -> Any:
        if self.make is None:
            return items
        try:
            return self.make(items)
        except TypeError:  # an unhashable partial item in a set
            return items

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        items = frame.values.copy()
        if value is not ABSENT:
            items.append(value)
        return self._shape(items)

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        if self.plain and not frame.bad:
            return self._shape(frame.values), True, None
        value = raw
        if frame.subst:
            value = raw.copy()
            for index, item in frame.subst.items():
                value[index] = item
        value, ok, error = self.validate(value, raw)
        if ok:
            return value, True, None
        return self._shape(frame.values.copy()), False, error


class MappingNode(Node):
    """A dict: its completed members and the open one, keys validated as the key type says."""

    __slots__ = ("key", "value", "plain", "key_plain")

    def __init__(
        self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], key: Any, value: Any
    ) -> None:
        super().__init__(annotation, config, metadata)
        self.is_container = True
        self.key = build(key, config)
        self.value = build(value, config)
        self.key_plain = key is str or key is Any
        self.plain = not metadata and self.key_plain
        self.passthrough = self.plain and self.value.passthrough

    def child(self, slot: Slot) -> Node:
        return self.value

    def for_container(self, is_list: bool) -> Node:
        return Opaque(self) if is_list else self

    def init(self, frame: Frame) -> None:
        frame.values = {}
        frame.subst = None

    def add(self, frame: Frame, slot: Slot, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws[slot] = raw
        key: Any = slot
        if not self.key_plain:
            key, key_ok, _ = self.key.complete_scalar(slot)
            if not key_ok:
                frame.bad += 1
                return None
        if not ok:
            frame.bad += 1
        frame.values[key] = value
        if node.passthrough and ok and (type(raw) is dict or type(raw) is list):
            if frame.subst is None:
                frame.subst = {}
            frame.subst[slot] = value
        elif frame.subst is not None:
            frame.subst.pop(slot, None)
        return None

    def partial(self, frame: Frame, slot: Optional[Slot], value: Any) -> Any:
        values = frame.values.copy()
        if slot is not None and self.key_plain:
            if value is not ABSENT:
                values[slot] = value
            else:
                values.pop(slot, None)  # a repeated key whose new value is not shown yet
        return values

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        if self.plain and not frame.bad:
            return frame.values, True, None
        value = raw
        if frame.subst:
            value = raw.copy()
            value.update(frame.subst)
        value, ok, error = self.validate(value, raw)
        if ok:
            return value, True, None
        return frame.values.copy(), False, error


class UnionNode(Node):
    """A union that is not discriminated: a container goes to its only member of that kind, or waits (a plain dict
    or list) until it completes and the union's validation picks; a scalar is validated by the union."""

    __slots__ = ("members",)

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], members: list[Node]):
        super().__init__(annotation, config, metadata)
        self.is_container = any(member.is_container for member in members)
        self.members = members
        self.grows = any(member.grows for member in members)
        # An instance of a member passes a union's validation as it is, unless metadata adds user code.
        only_discriminator = all(getattr(item, "discriminator", None) is not None for item in metadata)
        self.passthrough = only_discriminator and all(member.passthrough for member in members)

    def open_scalar(self, raw: Any) -> Any:
        for member in self.members:
            value = member.open_scalar(raw)
            if value is not ABSENT:
                return value
        return ABSENT

    def for_container(self, is_list: bool) -> Node:
        takers = [member for member in self.members if _takes(member, is_list)]
        if len(takers) == 1 and not self.metadata:
            return takers[0].for_container(is_list)
        if not takers:
            return Opaque(self)
        return Undecided(self)


class DiscriminatedNode(UnionNode):
    """A union with a discriminator: an object shows as a plain dict until its discriminator completes, then as
    the variant it names."""

    __slots__ = ("key", "variants")

    def __init__(
        self,
        annotation: Any,
        config: Optional[ConfigDict],
        metadata: tuple[Any, ...],
        members: list[Node],
        key: str,
        variants: dict[Any, Node],
    ) -> None:
        super().__init__(annotation, config, metadata, members)
        self.key = key
        self.variants = variants

    def for_container(self, is_list: bool) -> Node:
        return Opaque(self) if is_list else Discriminating(self)


_MAKERS: dict[Any, Callable[[list[Any]], Any]] = {
    tuple: tuple,
    set: set,
    frozenset: frozenset,
    deque: deque,
    AbstractSet: set,
    MutableSet: set,
}


# --- Building plans -----------------------------------------------------------------------------------------------


# Config that changes a plain scalar's validated value (so validating it cannot be skipped).
_TRANSFORMING_CONFIG = (
    "strict",
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "str_min_length",
    "str_max_length",
)


def _config_transforms(config: Optional[ConfigDict]) -> bool:
    if not config:
        return False
    return any(config.get(key) for key in _TRANSFORMING_CONFIG) or config.get("allow_inf_nan") is False


def _is_literal(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Literal, typing_extensions.Literal)


def _is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _takes(node: Node, is_list: bool) -> bool:
    """Whether a union member can take a container of this kind."""
    if isinstance(node, (AnyNode, UnionNode)):
        return node.is_container
    if isinstance(node, SequenceNode) or (isinstance(node, RootModelNode) and _takes(node.inner, is_list)):
        return is_list
    return isinstance(node, (_ObjectNode, MappingNode))


def _validator(annotation: Any, config: Optional[ConfigDict]) -> Any:
    if config:
        try:
            return TypeAdapter(annotation, config=config).validator
        except PydanticUserError:  # a type with a config of its own
            pass
    return TypeAdapter(annotation).validator


def _unwrap(tp: Any, metadata: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Strip ``Annotated`` (collecting its metadata), type aliases and ``NewType``s."""
    while True:
        origin = typing.get_origin(tp)
        if origin in _ANNOTATED_ORIGINS:
            metadata = tuple(tp.__metadata__) + metadata
            tp = tp.__origin__
        elif isinstance(tp, getattr(typing_extensions, "TypeAliasType", ())) or type(tp).__name__ == "TypeAliasType":
            tp = tp.__value__
        elif hasattr(tp, "__supertype__") and callable(tp):  # NewType
            tp = tp.__supertype__
        else:
            return tp, metadata


def _with_metadata(tp: Any, metadata: tuple[Any, ...]) -> Any:
    return typing.Annotated[(tp, *metadata)] if metadata else tp


def _discriminator(metadata: tuple[Any, ...]) -> Any:
    for item in metadata:
        found = getattr(item, "discriminator", None)
        if found is not None:
            return found
    return None


_PLANS: dict[Any, Node] = {}
_PLANS_KEPT = 256


def plan(type_: Any) -> Node:
    """The plan of a type (cached)."""
    try:
        found = _PLANS.get(type_)
    except TypeError:  # an unhashable annotation
        return build(type_, None)
    if found is None:
        found = build(type_, None)
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        _PLANS[type_] = found
    return found


def build(annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...] = ()) -> Node:
    """The node for ``annotation`` in a place whose config is ``config``."""
    tp, metadata = _unwrap(annotation, metadata)
    full = _with_metadata(tp, metadata)
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return ANY if not metadata else _any_with_metadata(full, config, metadata)
    if origin in _UNION_ORIGINS:
        return _union(full, config, metadata, typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if issubclass(tp, RootModel):
            return RootModelNode(full, metadata, tp)
        return ModelNode(full, None, metadata, tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return DataclassNode(full, config, metadata, tp)
    if typing_extensions.is_typeddict(tp):
        return TypedDictNode(full, config, metadata, tp)
    if tp in _LIST_ORIGINS or origin in _LIST_ORIGINS:
        args = typing.get_args(tp)
        base = origin or tp
        if base is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return SequenceNode(full, config, metadata, base, () if args == ((),) else args, False)
        return SequenceNode(full, config, metadata, base, args[:1], True)
    if tp in _DICT_ORIGINS or origin in _DICT_ORIGINS:
        args = typing.get_args(tp) or (Any, Any)
        return MappingNode(full, config, metadata, args[0], args[1])
    return ScalarNode(full, config, metadata, tp)


def _any_with_metadata(full: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...]) -> Node:
    node = Opaque(Node(full, config, metadata))
    return node


def _union(full: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], args: tuple[Any, ...]) -> Node:
    members = [arg for arg in args if arg is not _NONE_TYPE]
    nullable = len(members) < len(args)
    discriminator = _discriminator(metadata)
    if len(members) == 1 and discriminator is None:
        only = build(members[0], config, metadata)
        return _nullable(only) if nullable else only
    nodes = [build(member, config) for member in members]
    node: UnionNode
    key_and_variants = _variants(discriminator, nodes) if discriminator is not None else None
    if key_and_variants is not None:
        node = DiscriminatedNode(full, config, metadata, nodes, *key_and_variants)
    else:
        node = UnionNode(full, config, metadata, nodes)
    node.nullable = nullable
    return node


def _nullable(node: Node) -> Node:
    """``Optional[X]``: X's node, with null accepted (constraints of an Optional apply to X, as in pydantic)."""
    if node is not ANY and node is not IGNORE:  # the shared nodes take null already
        node.nullable = True
    return node


def _variants(discriminator: Any, nodes: list[Node]) -> Optional[tuple[str, dict[Any, Node]]]:
    """The JSON key of a discriminator and the variant for each of its values; None where it is a callable or a
    variant has no literal tag (the union then waits for the whole object)."""
    if not isinstance(discriminator, str):
        return None
    keys: set[Slot] = set()
    variants: dict[Any, Node] = {}
    for node in nodes:
        if not isinstance(node, _ObjectNode) or discriminator not in node.fields.annotations:
            return None
        keys.update(node.fields.name_to_keys[discriminator])
        tag, _ = _unwrap(node.fields.annotations[discriminator][0], ())
        if not _is_literal(tag):
            return None
        for value in typing.get_args(tag):
            variants[value.value if isinstance(value, enum.Enum) else value] = node
    if len(keys) != 1:
        return None
    return str(keys.pop()), variants


# --- Fields -------------------------------------------------------------------------------------------------------

_INPUT_VALIDATOR_MODES = frozenset({"before", "wrap", "plain"})


# A model's fields are shared by every place the model appears; their nodes are built on first use, so that a
# recursive model's plan is as deep as the documents it reads.
_MODEL_FIELDS: weakref.WeakKeyDictionary[type, _Fields] = weakref.WeakKeyDictionary()


def _model_fields(cls: type[BaseModel]) -> _Fields:
    found = _MODEL_FIELDS.get(cls)
    if found is None:
        if not cls.__pydantic_complete__:
            cls.model_rebuild()
        config = cls.model_config
        found = _Fields(cls, config, dict(cls.model_fields), _no_subst(cls), config.get("extra") == "allow")
        _MODEL_FIELDS[cls] = found
    return found


def _no_subst(cls: Any) -> frozenset[str]:
    """Fields whose input a user's validator sees before validation (so a validated child must not replace it)."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    if decorators is None:
        return frozenset()
    names = frozenset(getattr(cls, "__pydantic_fields__", None) or getattr(cls, "model_fields", {}))
    whole = list(decorators.model_validators.values()) + list(decorators.root_validators.values())
    if any(getattr(d.info, "mode", "before") in _INPUT_VALIDATOR_MODES for d in whole):
        return names
    blocked: set[str] = set()
    for decorator in [*decorators.field_validators.values(), *decorators.validators.values()]:
        if getattr(decorator.info, "mode", "before") in _INPUT_VALIDATOR_MODES:
            fields = decorator.info.fields
            blocked.update(names if "*" in fields else fields)
    return frozenset(blocked)


def _dataclass_fields(cls: Any) -> tuple[dict[str, FieldInfo], frozenset[str]]:
    known = getattr(cls, "__pydantic_fields__", None)
    if known:
        return dict(known), _no_subst(cls)
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: dict[str, FieldInfo] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        default = field.default
        if isinstance(default, FieldInfo):
            info = FieldInfo.merge_field_infos(default, annotation=hints.get(field.name, Any))
        else:
            info = FieldInfo.from_annotation(hints.get(field.name, Any))
        fields[field.name] = info
    return fields, frozenset()


def _typed_dict_fields(cls: Any) -> dict[str, FieldInfo]:
    fields: dict[str, FieldInfo] = {}
    for name, hint in typing.get_type_hints(cls, include_extras=True).items():
        hint, metadata = _unwrap(hint, ())
        while typing.get_origin(hint) in _REQUIRED_ORIGINS:
            hint, more = _unwrap(typing.get_args(hint)[0], ())
            metadata += more
        fields[name] = FieldInfo.from_annotation(_with_metadata(hint, metadata))
    return fields


_REQUIRED_ORIGINS = tuple(
    getattr(module, name)
    for module in (typing, typing_extensions)
    for name in ("Required", "NotRequired", "ReadOnly")
    if hasattr(module, name)
)
