"""The nodes of objects read by their fields: models, dataclasses and typed dicts, shown by attribute name (a model
or dataclass as its partial twin); and root models, their root's node wrapped in the twin. A model's fields are
shared by every place it appears, and their nodes built on first use, so that a recursive model's plan is as deep as
the documents it reads."""

from __future__ import annotations

import dataclasses
import typing
import weakref
from typing import Any, Optional

from pydantic import AliasChoices, BaseModel, ConfigDict
from pydantic.fields import FieldInfo

from .._shared import ABSENT, Key
from ._annotations import REQUIRED_ORIGINS, unwrap, with_metadata
from ._nodes import ANY, IGNORE, Build, Errors, Frame, Kept, Node, Opaque, Outcome
from ._policies import PartialInfo, State, StreamState, field_policy, partial_validators
from ._twins import construct_dataclass, construct_model, partial_twin


class _Fields:
    """The members of a model, dataclass or typed dict: JSON keys, attribute names and their nodes."""

    __slots__ = (
        "owner",
        "config",
        "key_to_name",
        "name_to_keys",
        "annotations",
        "no_subst",
        "nodes",
        "extra_allowed",
        "build",
        "not_null",
        "states",
        "placeholders",
        "field_checks",
        "model_checks",
    )

    def __init__(
        self,
        owner: Any,
        config: Optional[ConfigDict],
        fields: dict[str, FieldInfo],
        no_subst: frozenset[str],
        extra_allowed: bool,
        build: Build,
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
        self.build = build
        # The fields' streaming policies, read from their annotations (their nodes are built later, on first use).
        not_null: list[str] = []
        states: list[str] = []
        self.placeholders: dict[str, Any] = {}
        for name, (annotation, metadata) in self.annotations.items():
            policy = field_policy(annotation, metadata)
            if policy is None:
                continue
            if policy.not_null:
                if policy.starts_as is not ABSENT:
                    raise TypeError(
                        f"{getattr(owner, '__qualname__', owner)}.{name}: Stream.not_null() holds the object back "
                        "until the field has a value, so it has no placeholder: drop Stream.starts_as()"
                    )
                not_null.append(name)
            if policy.with_state:
                states.append(name)
            if policy.starts_as is not ABSENT:
                self.placeholders[name] = policy.starts_as
        self.not_null = tuple(not_null)
        self.states = tuple(states)
        # Validators that asked for partial values (``Stream.partial_values``): a model's only.
        self.field_checks, self.model_checks = partial_validators(owner)

    def node(self, key: Key) -> Node:
        found = self.nodes.get(key)  # type: ignore[arg-type]
        if found is None:
            name = self.key_to_name.get(key) if type(key) is str else None
            if name is None:
                found = ANY if self.extra_allowed else IGNORE
            else:
                annotation, metadata = self.annotations[name]
                found = self.build(annotation, self.config, metadata)
            self.nodes[key] = found  # type: ignore[index]
        return found


class ObjectNode(Node):
    """A model, dataclass or typed dict: a member per field, shown by attribute name."""

    __slots__ = ("fields", "defaults", "policies")

    def __init__(self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], fields: _Fields):
        super().__init__(annotation, config, metadata)
        self.is_container = True
        self.fields = fields
        # A twin has every field (None until read, or its placeholder); a typed dict only the keys read (and those
        # with a placeholder).
        self.defaults: Optional[dict[str, Any]] = dict(fields.placeholders) if fields.placeholders else None
        # Whether a partial value needs more than its values: a field's policy, or a validator that asked for them.
        self.policies = bool(fields.not_null or fields.states or fields.field_checks)

    def child(self, slot: Key) -> Node:
        found = self.fields.nodes.get(slot)  # type: ignore[arg-type]
        return found if found is not None else self.fields.node(slot)

    def for_container(self, is_list: bool) -> Node:
        return Opaque(self) if is_list else self

    def takes_container(self, is_list: bool) -> bool:
        return True  # any container: a list goes to for_container, which shows it whole once complete

    def json_keys(self, name: Key) -> tuple[Key, ...]:
        return self.fields.name_to_keys.get(name, (name,))  # type: ignore[arg-type]

    def own_state(self) -> bool:
        return bool(self.fields.states)

    def inner_places(self) -> tuple[Node, ...]:
        return tuple(self.fields.node(keys[0]) for keys in self.fields.name_to_keys.values() if keys)

    def init(self, frame: Frame) -> None:
        frame.values = {} if self.defaults is None else self.defaults.copy()
        frame.fields_set = set()

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws[slot] = raw
        if not ok:
            frame.bad += 1
        name = self.fields.key_to_name.get(slot)  # type: ignore[arg-type]
        checked = value
        if type(value) is Kept:  # shown in its partial type; its parent's validation takes the validated value
            checked = value.value
            value = value.shown
        if name is None:
            if self.fields.extra_allowed:
                if frame.extra is None:
                    frame.extra = {}
                frame.extra[slot] = value
            return None
        if checked is not value:
            frame.keep(name, checked)
        elif frame.kept is not None:
            frame.kept.pop(name, None)  # a repeated key replaced a member kept in its partial type
        if value is ABSENT or (value is None and not ok):  # nothing valid to show: as if not read
            self._unset(frame.values, frame.fields_set, name)
        else:
            frame.values[name] = value
            frame.fields_set.add(name)
        # A valid model (or list of them) goes into the parent's input as it is: pydantic passes an instance
        # through, so it is neither validated again nor copied.
        passes = ok and node.passthrough and (type(raw) is dict or type(raw) is list)
        frame.substitute(slot, checked, passes and name not in self.fields.no_subst)
        return None

    def _unset(self, values: dict[str, Any], fields_set: set[str], name: str) -> None:
        if self.defaults is not None and name in self.defaults:
            values[name] = self.defaults[name]  # None, or the placeholder
        else:
            values.pop(name, None)
        fields_set.discard(name)

    def _with_policies(self, frame: Frame, values: dict[str, Any], slot: Optional[Key], closed: bool = False) -> bool:
        """Apply the fields' policies to the values a partial value shows: False where a ``not_null`` field has no
        value yet (the object is held back); validators that asked for partial values run on them; fields with
        state are wrapped in ``StreamState`` (every one complete in a ``closed`` object)."""
        fields = self.fields
        for name in fields.not_null:
            if values.get(name) is None:
                return False
        if fields.field_checks or fields.model_checks:
            self._check_partial(frame, values)
        if fields.states:
            open_name = fields.key_to_name.get(slot) if type(slot) is str else None
            raws = frame.raws
            for name in fields.states:
                state: State
                if closed:
                    state = "complete"
                elif name == open_name:
                    state = "incomplete"
                elif any(key in raws for key in fields.name_to_keys[name]):
                    state = "complete"
                else:
                    state = "pending"
                values[name] = StreamState(state, values.get(name))
        return True

    def _check_partial(self, frame: Frame, values: dict[str, Any]) -> None:
        """The field validators that asked for partial values, on the values shown; an error keeps the value as it
        was and is kept in the frame (``ModelStream.partial_errors``)."""
        errors: Optional[list[tuple[Key, BaseException]]] = None
        for name, function, takes_info in self.fields.field_checks:
            value = values.get(name)
            if value is None:
                continue
            try:
                if takes_info:
                    values[name] = function(value, PartialInfo(values, name, self.config))
                else:
                    values[name] = function(value)
            except Exception as error:
                if errors is None:
                    errors = []
                errors.append((self.fields.name_to_keys[name][0], error))
        frame.partial_errors = errors

    def _check_partial_model(self, frame: Frame, twin: Any) -> Any:
        """The model validators (``after``) that asked for partial values, on the partial twin."""
        errors = frame.partial_errors if self.fields.field_checks else None
        for function, takes_info in self.fields.model_checks:
            try:
                result = function(twin, PartialInfo({}, None, self.config)) if takes_info else function(twin)
            except Exception as error:
                errors = [*(errors or ()), ((), error)]
            else:
                if result is not None:
                    twin = result
        frame.partial_errors = errors
        return twin

    def _open_values(self, frame: Frame, slot: Optional[Key], value: Any) -> tuple[dict[str, Any], set[str], Any]:
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
            if self.holds_state:
                return Kept(self.complete_form(frame, value), value), True, None
            return value, True, None
        return self.closed_partial(frame), False, error

    def closed_partial(self, frame: Frame) -> Any:
        return self.partial(frame, None, ABSENT, closed=True)

    def partial(self, frame: Frame, slot: Optional[Key], value: Any, closed: bool = False) -> Any:
        raise NotImplementedError

    def _complete_values(self, frame: Frame, values: dict[str, Any]) -> Optional[dict[str, Any]]:
        """``values`` (the validated fields) with the kept members' partial forms and the states, all complete; None
        where a ``not_null`` field is None (the object is held back, as while it streamed)."""
        if frame.kept:
            for name in frame.kept:
                values[name] = frame.values.get(name)
        for name in self.fields.not_null:
            if values.get(name) is None:
                return None
        for name in self.fields.states:
            values[name] = StreamState("complete", values.get(name))
        return values


class ModelNode(ObjectNode):
    __slots__ = ("twin",)

    def __init__(
        self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any, build: Build
    ) -> None:
        super().__init__(annotation, cls.model_config, metadata, _model_fields(cls, build))
        self.twin = partial_twin(cls)
        self.defaults = {**dict.fromkeys(cls.model_fields), **self.fields.placeholders}
        self.passthrough = not metadata and cls.model_config.get("revalidate_instances", "never") == "never"
        if not metadata:  # the model's own validator: no adapter to build
            self._validator = cls.__pydantic_validator__

    def partial(self, frame: Frame, slot: Optional[Key], value: Any, closed: bool = False) -> Any:
        values, fields_set, extra = self._open_values(frame, slot, value)
        if self.policies and not self._with_policies(frame, values, slot, closed):
            return ABSENT
        if extra is not None or self.fields.extra_allowed:
            extra = dict(extra or ())
        twin = construct_model(self.twin, values, fields_set, extra)
        return self._check_partial_model(frame, twin) if self.fields.model_checks else twin

    def shows_instance(self, value: Any) -> bool:
        return type(value) is self.fields.owner

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        values = self._complete_values(frame, {name: getattr(checked, name) for name in self.defaults})  # type: ignore[union-attr]
        if values is None:
            return ABSENT
        extra = checked.__pydantic_extra__
        return construct_model(self.twin, values, set(checked.model_fields_set), None if extra is None else dict(extra))


class DataclassNode(ObjectNode):
    __slots__ = ("twin",)

    def __init__(
        self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any, build: Build
    ) -> None:
        own = getattr(cls, "__pydantic_config__", None)
        fields, no_subst = _dataclass_fields(cls)
        super().__init__(annotation, config, metadata, _Fields(cls, own or config, fields, no_subst, False, build))
        self.config = own if own is not None else config
        self.twin = partial_twin(cls)
        self.defaults = {**{f.name: None for f in dataclasses.fields(cls) if f.init}, **self.fields.placeholders}

    def _input(self, frame: Frame, raw: Any) -> Any:
        return raw  # pydantic re-reads a dataclass instance's fields: no gain in passing one

    def partial(self, frame: Frame, slot: Optional[Key], value: Any, closed: bool = False) -> Any:
        values, _, _ = self._open_values(frame, slot, value)
        if self.policies and not self._with_policies(frame, values, slot, closed):
            return ABSENT
        return construct_dataclass(self.twin, values)

    def shows_instance(self, value: Any) -> bool:
        return type(value) is self.fields.owner

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        values = self._complete_values(frame, {name: getattr(checked, name) for name in self.defaults})  # type: ignore[union-attr]
        return ABSENT if values is None else construct_dataclass(self.twin, values)


class TypedDictNode(ObjectNode):
    __slots__ = ()

    def __init__(
        self, annotation: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], cls: Any, build: Build
    ) -> None:
        own = getattr(cls, "__pydantic_config__", None)
        merged: Optional[ConfigDict] = ConfigDict(**{**(config or {}), **(own or {})}) if own or config else None
        fields = _typed_dict_fields(cls)
        extra = (merged or {}).get("extra") == "allow"
        super().__init__(annotation, merged, metadata, _Fields(cls, merged, fields, frozenset(), extra, build))

    def partial(self, frame: Frame, slot: Optional[Key], value: Any, closed: bool = False) -> Any:
        values, _, extra = self._open_values(frame, slot, value)
        if self.policies and not self._with_policies(frame, values, slot, closed):
            return ABSENT
        if extra:
            values.update(extra)
        return values

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        values = self._complete_values(frame, dict(checked))
        return ABSENT if values is None else values


class RootModelNode(Node):
    """A ``RootModel``: its root value's node, each partial value wrapped in the twin."""

    __slots__ = ("inner", "twin", "cls")

    def __init__(self, annotation: Any, metadata: tuple[Any, ...], cls: Any, build: Build) -> None:
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

    def takes_container(self, is_list: bool) -> bool:
        return is_list and self.inner.takes_container(is_list)

    def inner_places(self) -> tuple[Node, ...]:
        return (self.inner,)


class _RootContainer(Node):
    """A root model whose root is an open container of the inner node's kind."""

    __slots__ = ("outer", "inner")

    def __init__(self, outer: RootModelNode, inner: Node) -> None:
        super().__init__(outer.annotation, outer.config, outer.metadata)
        self.is_container = True
        self.outer = outer
        self.inner = inner
        self._validator = outer.validator

    def child(self, slot: Key) -> Node:
        return self.inner.child(slot)

    def for_container(self, is_list: bool) -> Node:
        return self

    def init(self, frame: Frame) -> None:
        self.inner.init(frame)

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        return self.inner.add(frame, slot, raw, value, ok, node)

    def inner_places(self) -> tuple[Node, ...]:
        return (self.inner,)

    def partial(self, frame: Frame, slot: Optional[Key], value: Any) -> Any:
        return self.outer._wrap(self.inner.partial(frame, slot, value))

    def closed_partial(self, frame: Frame) -> Any:
        return self.outer._wrap(self.inner.closed_partial(frame))

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        value, ok, error = self.validate(raw, raw)
        if ok:
            if self.holds_state:
                return Kept(self.outer._wrap(self.inner.complete_form(frame, value.root)), value), True, None
            return value, True, None
        return self.closed_partial(frame), False, error

    def complete_container(self, raw: Any) -> Outcome:
        if self.holds_state:
            return self.finalize(self.frame_of(raw), raw)
        value, ok, error = self.validate(raw, raw)
        if ok:
            return value, True, None
        return self.outer._wrap(self.inner.partial_from_raw(raw)), False, error


# --- Fields -------------------------------------------------------------------------------------------------------

_INPUT_VALIDATOR_MODES = frozenset({"before", "wrap", "plain"})


# A model's fields are shared by every place the model appears; their nodes are built on first use, so that a
# recursive model's plan is as deep as the documents it reads.
_MODEL_FIELDS: weakref.WeakKeyDictionary[type, _Fields] = weakref.WeakKeyDictionary()


def _model_fields(cls: type[BaseModel], build: Build) -> _Fields:
    found = _MODEL_FIELDS.get(cls)
    if found is None:
        if not cls.__pydantic_complete__:
            cls.model_rebuild()
        config = cls.model_config
        found = _Fields(cls, config, dict(cls.model_fields), _no_subst(cls), config.get("extra") == "allow", build)
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
        hint, metadata = unwrap(hint, ())
        while typing.get_origin(hint) in REQUIRED_ORIGINS:
            hint, more = unwrap(typing.get_args(hint)[0], ())
            metadata += more
        fields[name] = FieldInfo.from_annotation(with_metadata(hint, metadata))
    return fields
