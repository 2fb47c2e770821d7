"""Type plans: what a stream needs to know about a type to show its partial values and validate its completed parts.

A plan is a tree of nodes (``_nodes``; ``_objects``, ``_collections``, ``_unions``), one per place in the type (a
model, a field, a list's items), built lazily from the annotations (so recursive models work) and cached with the
type. ``build`` is the one builder: it makes each node, and gives container nodes itself to build their members'.
The ``TypeAdapter`` of a whole type, for one strict validation of the complete text, is cached here too.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Any, Optional

import typing_extensions
from pydantic import BaseModel, ConfigDict, RootModel, TypeAdapter

from .._shared import Key
from ._annotations import (
    DICT_ORIGINS,
    LIST_ORIGINS,
    NONE_TYPE,
    UNION_ORIGINS,
    discriminator_of,
    is_literal,
    unwrap,
    with_metadata,
)
from ._collections import MappingNode, SequenceNode
from ._nodes import ANY, IGNORE, AnyNode, Done, Node, Opaque, ScalarNode
from ._objects import DataclassNode, ModelNode, ObjectNode, RootModelNode, TypedDictNode
from ._policies import StreamPolicy, split_policy
from ._unions import DiscriminatedNode, UnionNode

__all__ = ["plan", "build", "adapter"]


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
    """The node for ``annotation`` in a place whose config is ``config``. Streaming policies (``Stream.done()``, ...)
    are taken out of the metadata, so that validation never sees them, and given to the node."""
    tp, metadata = unwrap(annotation, metadata)
    policy, metadata = split_policy(tp, metadata)
    node = _build(tp, config, metadata)
    return node if policy is None else _with_policy(node, policy)


def _with_policy(node: Node, policy: StreamPolicy) -> Node:
    if node is ANY:  # shared: a place with a policy gets a node of its own
        node = AnyNode(Any, None)
    node.policy = policy.merged(node.policy) if node.policy is not None else policy
    if policy.done and not isinstance(node, Done):
        node = Done(node)
    return node


def _build(tp: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...]) -> Node:
    full = with_metadata(tp, metadata)
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return ANY if not metadata else _any_with_metadata(full, config, metadata)
    if origin in UNION_ORIGINS:
        return _union(full, config, metadata, typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if issubclass(tp, RootModel):
            return RootModelNode(full, metadata, tp, build)
        return ModelNode(full, None, metadata, tp, build)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return DataclassNode(full, config, metadata, tp, build)
    if typing_extensions.is_typeddict(tp):
        return TypedDictNode(full, config, metadata, tp, build)
    if tp in LIST_ORIGINS or origin in LIST_ORIGINS:
        args = typing.get_args(tp)
        base = origin or tp
        if base is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return SequenceNode(full, config, metadata, base, () if args == ((),) else args, False, build)
        return SequenceNode(full, config, metadata, base, args[:1], True, build)
    if tp in DICT_ORIGINS or origin in DICT_ORIGINS:
        args = typing.get_args(tp) or (Any, Any)
        return MappingNode(full, config, metadata, args[0], args[1], build)
    return ScalarNode(full, config, metadata, tp)


def _any_with_metadata(full: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...]) -> Node:
    node = Opaque(Node(full, config, metadata))
    return node


def _union(full: Any, config: Optional[ConfigDict], metadata: tuple[Any, ...], args: tuple[Any, ...]) -> Node:
    members = [arg for arg in args if arg is not NONE_TYPE]
    nullable = len(members) < len(args)
    discriminator = discriminator_of(metadata)
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
    keys: set[Key] = set()
    variants: dict[Any, Node] = {}
    for node in nodes:
        if not isinstance(node, ObjectNode) or discriminator not in node.fields.annotations:
            return None
        keys.update(node.fields.name_to_keys[discriminator])
        tag, _ = unwrap(node.fields.annotations[discriminator][0], ())
        if not is_literal(tag):
            return None
        for value in typing.get_args(tag):
            variants[value.value if isinstance(value, enum.Enum) else value] = node
    if len(keys) != 1:
        return None
    return str(keys.pop()), variants


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}
_ADAPTERS_KEPT = 256


def adapter(type_: Any) -> TypeAdapter[Any]:
    """The ``TypeAdapter`` of a whole type (cached)."""
    try:
        found = _ADAPTERS.get(type_)
    except TypeError:  # an unhashable annotation
        return TypeAdapter(type_)
    if found is None:
        if len(_ADAPTERS) >= _ADAPTERS_KEPT:
            _ADAPTERS.clear()
        found = _ADAPTERS[type_] = TypeAdapter(type_)
    return found
