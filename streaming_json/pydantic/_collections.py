"""The nodes of collections: lists, tuples, sets and other sequences, and dicts; their members' nodes come from the
item, key and value types (a fixed tuple: one per position)."""

from __future__ import annotations

from collections import deque
from collections.abc import MutableSet
from collections.abc import Set as AbstractSet
from typing import Any, Callable, Optional

from pydantic import ConfigDict

from .._shared import ABSENT, Key
from ._nodes import IGNORE, Build, Errors, Frame, Kept, Node, Opaque, Outcome

_MAKERS: dict[Any, Callable[[list[Any]], Any]] = {
    tuple: tuple,
    set: set,
    frozenset: frozenset,
    deque: deque,
    AbstractSet: set,
    MutableSet: set,
}


def _leaves_out(node: Node, where: str) -> bool:
    """Whether a container leaves out a member of ``node`` that would show None (``Stream.not_null()``); a policy
    only a field may have is an error here."""
    policy = node.policy
    if policy is None:
        return False
    if policy.field_only:
        raise TypeError(f"Stream.{policy.field_only[0]}() applies to a field, not to {where} ({node.annotation!r})")
    return bool(policy.not_null)


class SequenceNode(Node):
    """A list, tuple, set or other sequence: its completed items and the open one. An item with nothing valid to
    show is None in its place, or left out where the items are ``Stream.not_null()``."""

    __slots__ = ("item", "items", "make", "plain", "leave_out")

    def __init__(
        self,
        annotation: Any,
        config: Optional[ConfigDict],
        metadata: tuple[Any, ...],
        origin: Any,
        items: tuple[Any, ...],
        variadic: bool,
        build: Build,
    ) -> None:
        super().__init__(annotation, config, metadata)
        self.is_container = True
        # A fixed tuple has a node per position; anything else one for every item.
        self.item: Optional[Node] = build(items[0] if items else Any, config) if variadic else None
        self.items = tuple(build(item, config) for item in items) if not variadic else ()
        self.leave_out = self.item is not None and _leaves_out(self.item, "a list's items")
        for node in self.items:
            _leaves_out(node, "a tuple's items")
        self.make: Optional[Callable[[list[Any]], Any]] = _MAKERS.get(origin)
        # A plain list or tuple validates item by item, as the items were validated when they completed: its value is
        # the list of them, with no call into pydantic (unless items may be left out of what shows).
        self.plain = not metadata and variadic and origin in (list, tuple) and not self.leave_out
        self.passthrough = self.plain and self.item is not None and self.item.passthrough

    def child(self, slot: Key) -> Node:
        if self.item is not None:
            return self.item
        return self.items[slot] if type(slot) is int and slot < len(self.items) else IGNORE

    def for_container(self, is_list: bool) -> Node:
        return self if is_list else Opaque(self)

    def takes_container(self, is_list: bool) -> bool:
        return is_list

    def inner_places(self) -> tuple[Node, ...]:
        return (self.item,) if self.item is not None else self.items

    def init(self, frame: Frame) -> None:
        frame.values = []
        frame.subst = None

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws.append(raw)
        checked = value
        if type(value) is Kept:  # shown in its partial type; the list's validation takes the validated value
            checked = value.value
            value = value.shown
        if value is ABSENT:  # nothing valid to show (an item shown only once valid, or held back)
            value = None
        if value is not None or not self.leave_out:
            if checked is not value:
                frame.keep(len(frame.values), checked)
            frame.values.append(value)
        if not ok:
            frame.bad += 1
        if not self.plain and node.passthrough and ok and (type(raw) is dict or type(raw) is list):
            frame.substitute(len(frame.raws) - 1, checked, True)
        return None

    def _shape(self, items: list[Any]) -> Any:
        if self.make is None:
            return items
        try:
            return self.make(items)
        except TypeError:  # an unhashable partial item in a set
            return items

    def partial(self, frame: Frame, slot: Optional[Key], value: Any) -> Any:
        items = frame.values.copy()
        if value is not ABSENT and (value is not None or not self.leave_out):
            items.append(value)
        return self._shape(items)

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        if self.plain and not frame.bad:
            if frame.kept:  # items shown in their partial type: the list of them shows, the validated one is the value
                checked = frame.values.copy()
                for index, item in frame.kept.items():
                    checked[index] = item
                return Kept(self._shape(frame.values), self._shape(checked)), True, None
            return self._shape(frame.values), True, None
        value = raw
        if frame.subst:
            value = raw.copy()
            for index, item in frame.subst.items():
                value[index] = item
        value, ok, error = self.validate(value, raw)
        if ok:
            if frame.kept:
                return Kept(self.complete_form(frame, value), value), True, None
            return value, True, None
        return self._shape(frame.values.copy()), False, error

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        """The partial form of a completed, valid sequence: its items as shown (those with state in their partial
        type)."""
        return self._shape(frame.values.copy())


class MappingNode(Node):
    """A dict: its completed members and the open one, keys validated as the key type says."""

    __slots__ = ("key", "value", "plain", "key_plain", "leave_out")

    def __init__(
        self,
        annotation: Any,
        config: Optional[ConfigDict],
        metadata: tuple[Any, ...],
        key: Any,
        value: Any,
        build: Build,
    ) -> None:
        super().__init__(annotation, config, metadata)
        self.is_container = True
        self.key = build(key, config)
        self.value = build(value, config)
        self.key_plain = key is str or key is Any
        self.leave_out = _leaves_out(self.value, "a dict's values")
        self.plain = not metadata and self.key_plain and not self.leave_out
        self.passthrough = self.plain and self.value.passthrough

    def child(self, slot: Key) -> Node:
        return self.value

    def for_container(self, is_list: bool) -> Node:
        return Opaque(self) if is_list else self

    def takes_container(self, is_list: bool) -> bool:
        return True  # any container: a list goes to for_container, which shows it whole once complete

    def inner_places(self) -> tuple[Node, ...]:
        return (self.value,)

    def init(self, frame: Frame) -> None:
        frame.values = {}
        frame.subst = None

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
        frame.raws[slot] = raw
        key: Any = slot
        if not self.key_plain:
            key, key_ok, _ = self.key.complete_scalar(slot)
            if not key_ok:
                frame.bad += 1
                return None
        if not ok:
            frame.bad += 1
        checked = value
        if type(value) is Kept:  # shown in its partial type; the dict's validation takes the validated value
            checked = value.value
            value = value.shown
        if checked is not value:
            frame.keep(key, checked)
        elif frame.kept is not None:
            frame.kept.pop(key, None)  # a repeated key replaced a member kept in its partial type
        if value is ABSENT or (value is None and self.leave_out):  # nothing valid to show: the key is left out
            frame.values.pop(key, None)
        else:
            frame.values[key] = value
        frame.substitute(slot, checked, node.passthrough and ok and (type(raw) is dict or type(raw) is list))
        return None

    def partial(self, frame: Frame, slot: Optional[Key], value: Any) -> Any:
        values = frame.values.copy()
        if slot is not None and self.key_plain:
            if value is not ABSENT and (value is not None or not self.leave_out):
                values[slot] = value
            else:
                values.pop(slot, None)  # a repeated key whose new value is not shown yet
        return values

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        if self.plain and not frame.bad:
            if frame.kept:  # values shown in their partial type: the dict of them shows, the validated one is the value
                checked = frame.values.copy()
                checked.update(frame.kept)
                return Kept(frame.values, checked), True, None
            return frame.values, True, None
        value = raw
        if frame.subst:
            value = raw.copy()
            value.update(frame.subst)
        value, ok, error = self.validate(value, raw)
        if ok:
            if frame.kept:
                return Kept(self.complete_form(frame, value), value), True, None
            return value, True, None
        return frame.values.copy(), False, error

    def complete_form(self, frame: Frame, checked: Any) -> Any:
        """The partial form of a completed, valid dict: its values as shown (those with state in their partial
        type)."""
        return frame.values.copy()
