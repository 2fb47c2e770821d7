"""Partial twins: generated classes with a model's fields, every one optional with default ``None``.

A twin is what a stream shows for a model (or dataclass) that is still streaming, or that completed but failed
validation. It carries the original's field names and aliases but none of its validators, so attribute access never
raises and nothing validates a half-read value. ``isinstance(value, Model)`` therefore means "complete and valid";
``isinstance(value, PartialTwin)`` means "partial".

A model's twin can be *declared* (``class PartialOrder(PartialTwin): partial_of = Order`` with an annotation per
field) for a type checker to read: the stream checks, when it first reads the model, that each annotation is what the
field's policies let it show (``_shapes``), and the generated twin subclasses the declared class, so that
``isinstance(value, PartialOrder)`` narrows a partial value to it.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, ClassVar, Optional

from pydantic import BaseModel, ConfigDict, Field, RootModel

__all__ = ["PartialTwin", "partial_twin"]

_object_setattr = object.__setattr__
_object_new = object.__new__


class PartialTwin(BaseModel):
    """Base class of the partial twins of models: ``partial_twin(Model)`` is a subclass.

    Subclass it to declare a model's twin for a type checker: ``partial_of = Model`` and each field annotated with
    what it can show (``T`` for a ``done`` + ``not_null`` field, ``Optional[T]`` for ``done``, ``Optional[str]`` for a
    streaming string, ...); the stream checks the annotations against the policies when it first reads the model, and
    its partial values are instances of the declared class."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)
    partial_of: ClassVar[type]
    """The model this class is the partial twin of."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        original = cls.__dict__.get("partial_of")
        if original is not None and not cls.__dict__.get("__generated_twin__", False):
            if original in _TWINS and not issubclass(_TWINS[original], cls):
                raise TypeError(
                    f"{cls.__qualname__}: the partial twin of {original.__qualname__} was made before this declaration;"
                    " declare it before streaming the model"
                )
            _DECLARED[original] = cls


class PartialRootTwin(RootModel[Any]):
    """Base class of the partial twins of root models."""

    model_config = ConfigDict(defer_build=True)
    partial_of: ClassVar[type]


class PartialDataclass:
    """Base class of the partial twins of dataclasses."""

    partial_of: ClassVar[type]


# Twins are made once per class and live as long as it does; declared twins are kept by their model.
_TWINS: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()
_DECLARED: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()

# Config keys a twin copies from its original: how its fields are named, and whether it is frozen.
_NAMING_KEYS = ("populate_by_name", "validate_by_name", "validate_by_alias", "frozen")


def partial_twin(cls: type) -> type[Any]:
    """The partial twin of a model, root model or dataclass (made once per class).

    A model's twin is a ``PartialTwin`` subclass named ``Partial<Name>``: the same field names, aliases and naming
    config, every field typed ``Any`` and defaulting to ``None``, no validators, extra members kept only where the
    original allows them.
    """
    twin = _TWINS.get(cls)
    if twin is None:
        if isinstance(cls, type) and issubclass(cls, RootModel):
            twin = _root_model_twin(cls)
        elif isinstance(cls, type) and issubclass(cls, BaseModel):
            declared = _DECLARED.get(cls)
            if declared is not None:
                from ._shapes import check_declared_twin  # the shapes read the plan's rules, which need the twins

                check_declared_twin(cls, declared, _DECLARED)
            twin = _model_twin(cls, declared)
        elif dataclasses.is_dataclass(cls):
            twin = _dataclass_twin(cls)
        else:
            raise TypeError(f"partial_twin() takes a pydantic model or a dataclass, not {cls!r}")
        _TWINS[cls] = twin
    return twin


def declared_twin(cls: type) -> Optional[type]:
    """The twin declared for a model (a ``PartialTwin`` subclass with ``partial_of = cls``), if any."""
    return _DECLARED.get(cls)


def _model_twin(cls: type[BaseModel], declared: Optional[type] = None) -> type:
    original = cls.model_config
    config = ConfigDict(defer_build=True, protected_namespaces=(), arbitrary_types_allowed=True)
    for key in _NAMING_KEYS:
        if key in original:
            config[key] = original[key]  # type: ignore[literal-required]
    config["extra"] = "allow" if original.get("extra") == "allow" else "ignore"
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": f"Partial{cls.__qualname__}",
        "__doc__": f"Partial twin of :class:`{cls.__qualname__}`: its fields, each None until read.",
        "__annotations__": {},
        "model_config": config,
        "partial_of": cls,
        "__generated_twin__": True,
    }
    for name, field in cls.model_fields.items():
        namespace["__annotations__"][name] = Optional[Any]
        namespace[name] = Field(
            default=None,
            alias=field.alias,
            validation_alias=field.validation_alias,
            serialization_alias=field.serialization_alias,
            title=field.title,
            description=field.description,
        )
    if declared is not None:  # the declared class's name, and its instances are the partial values
        namespace["__qualname__"] = declared.__qualname__
        namespace["__module__"] = declared.__module__
        return type(declared.__name__, (declared,), namespace)
    return type(f"Partial{cls.__name__}", (PartialTwin,), namespace)


def _root_model_twin(cls: type[RootModel[Any]]) -> type:
    namespace = {
        "__module__": cls.__module__,
        "__qualname__": f"Partial{cls.__qualname__}",
        "__doc__": f"Partial twin of :class:`{cls.__qualname__}`: its root value so far.",
        "partial_of": cls,
    }
    return type(f"Partial{cls.__name__}", (PartialRootTwin,), namespace)


def _dataclass_twin(cls: type) -> type:
    fields = [(f.name, Any, dataclasses.field(default=None)) for f in dataclasses.fields(cls) if f.init]
    twin = dataclasses.make_dataclass(
        f"Partial{cls.__name__}", fields, bases=(PartialDataclass,), namespace={"partial_of": cls}
    )
    twin.__module__ = cls.__module__
    twin.__doc__ = f"Partial twin of :class:`{cls.__qualname__}`: its fields, each None until read."
    return twin


def construct_model(twin: type, values: dict[str, Any], fields_set: set[str], extra: Optional[dict[str, Any]]) -> Any:
    """A twin instance holding ``values`` (every field present), without validation: what ``model_construct`` does,
    at a third of its cost (it runs for every open model on every fresh partial value)."""
    instance: Any = _object_new(twin)
    _object_setattr(instance, "__dict__", values)
    _object_setattr(instance, "__pydantic_fields_set__", fields_set)
    _object_setattr(instance, "__pydantic_extra__", extra)
    _object_setattr(instance, "__pydantic_private__", None)
    return instance


def construct_dataclass(twin: type, values: dict[str, Any]) -> Any:
    instance: Any = _object_new(twin)
    _object_setattr(instance, "__dict__", values)
    return instance
