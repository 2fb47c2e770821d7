"""The nodes of unions. A union that is not discriminated sends a container to its only member that can take one of
its kind, or shows the plain value until the union's validation picks; a discriminated union chooses its variant by
the tag as soon as the tag is read."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import ConfigDict

from .._shared import ABSENT, Key
from ._nodes import ANY, AnyNode, Errors, Frame, Kept, Node, Opaque, Outcome


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

    def inner_places(self) -> tuple[Node, ...]:
        return tuple(self.members)

    def for_container(self, is_list: bool) -> Node:
        takers = [member for member in self.members if member.takes_container(is_list)]
        if len(takers) == 1 and not self.metadata:
            return takers[0].for_container(is_list)
        if not takers:
            return Opaque(self)
        return Undecided(self)

    def takes_container(self, is_list: bool) -> bool:
        return self.is_container


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


class Undecided(AnyNode):
    """A union whose variant is not known yet: the plain value read so far, then the validated union value."""

    __slots__ = ("union",)

    def __init__(self, union: Node) -> None:
        super().__init__(union.annotation, union.config, union.metadata)
        self.passthrough = union.passthrough
        self.union = union

    def complete_container(self, raw: Any) -> Outcome:
        value, ok, error = self.union.validate(raw, raw)
        return (self._in_partial_type(value, raw) if ok else raw), ok, error

    def finalize(self, frame: Frame, raw: Any) -> Outcome:
        value, ok, error = self.union.validate(raw, raw)
        return (self._in_partial_type(value, raw) if ok else self.partial(frame, None, ABSENT)), ok, error

    def _in_partial_type(self, value: Any, raw: Any) -> Any:
        """The union's validated value, kept in the partial type of the member that shows it where that holds a
        ``Stream.with_state()`` place (``Kept``)."""
        if not self.union.holds_state:
            return value
        for member in self.union.inner_places():
            if member.holds_state and member.shows_instance(value):
                shown, ok, _ = member.for_container(type(raw) is list).complete_container(raw)
                if ok and type(shown) is Kept:
                    return Kept(shown.shown, value)
        return value


class _Tag(AnyNode):
    """A discriminator's value in an object whose variant is not known yet: shown once complete, as a literal is."""

    __slots__ = ()

    def open_scalar(self, raw: Any) -> Any:
        return ABSENT


TAG = _Tag(Any, None)


class Discriminating(Undecided):
    """A discriminated union before its discriminator completes; then the frame turns into the variant's."""

    __slots__ = ()

    def child(self, slot: Key) -> Node:
        return TAG if slot == self.union.key else ANY  # type: ignore[attr-defined]

    def add(self, frame: Frame, slot: Key, raw: Any, value: Any, ok: bool, node: Node) -> Errors:
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
        errors: list[tuple[Key, BaseException]] = []
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
