"""``ModelResult``: what a typed stream's ``finish()`` gives, and the message that tells a model what was wrong."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, Optional, TypeVar

from pydantic import ValidationError

__all__ = ["ModelResult"]

T = TypeVar("T")


class ModelResult(Generic[T]):
    """What :meth:`ModelStream.finish` returns: ``value`` and ``error`` (unpack as ``value, error = result``)."""

    __slots__ = ("value", "error", "text", "type_", "repairs", "complete")

    value: Optional[T]
    """The validated value, or None where the text did not validate."""
    error: Optional[BaseException]
    """None, or the ``ValidationError`` (or the exception a validator raised)."""
    text: str
    """The complete text received."""

    type_: Any
    """The type validated against."""
    repairs: list[tuple[tuple[Any, ...], str]]
    """With ``coerce=True``: ``(path, kind)`` for every repair that made the text fit the schema (``()`` for the
    text's own: ``from_fence``, ``comment``, ...); empty otherwise."""
    complete: bool
    """Whether the text held a whole value: False where it was cut off inside it (then ``value`` is None), coerced
    or not."""

    def __init__(
        self,
        value: Optional[T],
        error: Optional[BaseException],
        text: str = "",
        type_: Any = None,
        *,
        repairs: Optional[list[tuple[tuple[Any, ...], str]]] = None,
        complete: bool = True,
    ) -> None:
        self.value = value
        self.error = error
        self.text = text
        self.type_ = type_
        self.repairs = repairs if repairs is not None else []
        self.complete = complete

    @property
    def message(self) -> Optional[str]:
        """None, or text naming the problem for sending back to a model: it ends with ``Received arguments:`` and
        the text, as the tool-call errors of ``ToolCallArgumentsStream.finish()`` do."""
        return self.message_for("arguments")

    def message_for(self, received: str) -> Optional[str]:
        """:attr:`message` ending with ``Received <received>:`` and the text (``"output"`` for structured output)."""
        if self.error is None:
            return None
        return f"{_describe(self.error, self.type_, received)}\nReceived {received}: {self.text}"

    def __iter__(self) -> Iterator[Any]:
        yield self.value
        yield self.error

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelResult):
            return NotImplemented
        return (self.value, self.error, self.text) == (other.value, other.error, other.text)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        extra = f", repairs={self.repairs!r}" if self.repairs else ""
        extra += "" if self.complete else ", complete=False"
        return f"ModelResult(value={self.value!r}, error={self.error!r}{extra})"


def _type_name(type_: Any) -> str:
    return getattr(type_, "__name__", None) or repr(type_)


def _describe(error: BaseException, type_: Any, what: str) -> str:
    name = _type_name(type_)
    if not isinstance(error, ValidationError):
        return f"The {what} could not be validated as {name}: {type(error).__name__}: {error}."
    details = error.errors(include_url=False)
    if len(details) == 1 and details[0]["type"] == "json_invalid":
        return f"The {what} {'is' if what == 'output' else 'are'} not valid JSON: {details[0]['msg']}."
    verb = "does" if what == "output" else "do"
    lines = [f"The {what} {verb} not match {name} ({len(details)} error{'s' * (len(details) != 1)}):"]
    for detail in details:
        where = ".".join(str(part) for part in detail["loc"]) or "(the whole value)"
        lines.append(f"- {where}: {detail['msg']}")
    return "\n".join(lines)
