"""Reading annotations: what wraps a type (``Annotated``, aliases, ``NewType``) and which origins decide the kind of
its node."""

from __future__ import annotations

import enum
import types
import typing
from collections import deque
from collections.abc import Mapping, MutableMapping, MutableSequence, MutableSet, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Union

import typing_extensions

UNION_ORIGINS: tuple[Any, ...] = (Union, types.UnionType) if hasattr(types, "UnionType") else (Union,)
ANNOTATED_ORIGINS = (typing.Annotated, typing_extensions.Annotated)
NONE_TYPE = type(None)
LIST_ORIGINS = (list, tuple, set, frozenset, deque, Sequence, MutableSequence, AbstractSet, MutableSet)
DICT_ORIGINS = (dict, Mapping, MutableMapping)
# The wrappers of a typed dict's keys, which say whether a key must be there, not what its value is.
REQUIRED_ORIGINS = tuple(
    getattr(module, name)
    for module in (typing, typing_extensions)
    for name in ("Required", "NotRequired", "ReadOnly")
    if hasattr(module, name)
)


def is_literal(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Literal, typing_extensions.Literal)


def is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def unwrap(tp: Any, metadata: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Strip ``Annotated`` (collecting its metadata), type aliases and ``NewType``s."""
    while True:
        origin = typing.get_origin(tp)
        if origin in ANNOTATED_ORIGINS:
            metadata = tuple(tp.__metadata__) + metadata
            tp = tp.__origin__
        elif isinstance(tp, getattr(typing_extensions, "TypeAliasType", ())) or type(tp).__name__ == "TypeAliasType":
            tp = tp.__value__
        elif hasattr(tp, "__supertype__") and callable(tp):  # NewType
            tp = tp.__supertype__
        else:
            return tp, metadata


def with_metadata(tp: Any, metadata: tuple[Any, ...]) -> Any:
    return typing.Annotated[(tp, *metadata)] if metadata else tp


def discriminator_of(metadata: tuple[Any, ...]) -> Any:
    for item in metadata:
        found = getattr(item, "discriminator", None)
        if found is not None:
            return found
    return None
