"""Live structured output: the text of one output as it streams, its value so far, and one strict parse at the end;
the base every API's structured-output reader builds on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Callable, NamedTuple, Optional

from .._backend import StreamingJsonParser
from .._repair import json_problem, parse_json_with_repair, value_start
from .._shared import MISSING, JsonParseError, JsonProblem, WithProblem, continuation
from ._fields import ReadsEventFields
from ._sources import aentered, entered

__all__ = ["StructuredOutput", "StructuredOutputResult", "same_as_shown"]


class _StructuredOutputResultFields(NamedTuple):
    value: Any
    """The value of one strict parse of the complete output (a validated instance with ``model=``); None where
    ``error`` is set."""
    error: Optional[str]
    """None, or a message naming the problem and ending with ``Received output:`` and the text."""


class StructuredOutputResult(WithProblem, _StructuredOutputResultFields):
    """Result of ``finish()`` of a structured-output accumulator: the pair ``(value, error)`` (unpack it as ``value,
    error = result``), and ``problem``: None, or the :class:`~streaming_json.JsonProblem` that ``error`` describes
    (``incomplete``, ``malformed``, or ``invalid`` with ``model=``; None too for a refusal, which ``error`` says)."""

    def __new__(cls, value: Any, error: Optional[str], problem: Optional[JsonProblem] = None) -> StructuredOutputResult:
        return super().__new__(cls, value, error, problem)  # type: ignore[no-any-return]


class StructuredOutput(ReadsEventFields):
    """The text of one structured output as it streams, and its value so far. Subclasses read one API's events.

    Untyped, a :class:`~streaming_json.StreamingJsonParser` gives the partial value (plain ``dict``/``list``/...)
    and :func:`~streaming_json.parse_json_with_repair` the final one: strict JSON, so a cut-off or malformed output is
    an error, and the value equals ``json.loads``' wherever that accepts the text (only raw control characters and
    stray backslashes inside strings, which models do emit, are repaired, as for tool calls). With ``model=``, a
    ``streaming_json.pydantic.ModelStream(model)`` gives typed partial values and one strict validation at the end.
    ``coerce=True`` (with ``model=``) reads what models write as the schema says, naming each repair in
    ``model_result.repairs``. ``parser_class`` is the parser of either (by default the backend's
    ``StreamingJsonParser``); values read stably (a value once shown stays shown) unless ``stable=False``.
    """

    def __init__(
        self,
        model: Any = None,
        *,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        super().__init__()
        self._model = model
        self._stable = stable
        self._coerce = coerce
        self._parser_class: Callable[..., Any] = parser_class or StreamingJsonParser
        self.result: Optional[StructuredOutputResult] = None
        """The final value or the error, once done."""
        self.model_result: Any = None
        """With ``model=``, the ``ModelResult`` of the final validation (its ``error`` is the exception), once done."""
        self.refusal: Optional[str] = None
        """The model's refusal text, where the API streams one instead of the output."""
        self._restart()

    def _restart(self) -> None:
        """Start over, with no text."""
        self._chunks: list[str] = []
        self._text = ""
        self.value: Any = MISSING
        if self._model is None:
            self._typed: Any = None
            self._parser: Any = self._parser_class(changes=False, stable=self._stable)  # snapshots alone: no changes
        else:
            from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

            options = {"coerce": True} if self._coerce else {}
            self._typed = ModelStream(self._model, parser_class=self._parser_class, stable=self._stable, **options)
            self._parser = None

    @property
    def done(self) -> bool:
        """Whether the output has ended (:meth:`finish` was called, or the API said so)."""
        return self.result is not None

    @property
    def error(self) -> Optional[str]:
        """None, or why the complete output is malformed or invalid (ends with ``Received output:`` and the text)."""
        return None if self.result is None else self.result.error

    @property
    def problem(self) -> Optional[JsonProblem]:
        """None, or what was wrong with the complete output, for a program to act on (``kind``, ``offset``, ...)."""
        return None if self.result is None else self.result.problem

    @property
    def text(self) -> str:
        """The raw text received so far."""
        if self._chunks:
            self._chunks.insert(0, self._text)
            self._text = "".join(self._chunks)
            self._chunks = []
        return self._text

    def feed(self, event: Any) -> Any:  # pragma: no cover - every API defines its own
        """Read one event; return the value so far: ``MISSING`` until it starts, partial while it streams, final once
        done (where it is valid; a malformed output keeps its last partial value and sets ``error``)."""
        raise NotImplementedError

    def _append(self, piece: str) -> Any:
        """Append a piece of the output; return the value so far."""
        if piece and self.result is None:
            self._chunks.append(piece)
            if self._typed is None:
                self._parser.append(piece)
                self.value = self._parser.snapshot()
            else:
                value = self._typed.append(piece)
                self.value = MISSING if value is None else value
        return self.value

    def _append_refusal(self, piece: Any) -> None:
        if isinstance(piece, str) and piece:
            self.refusal = (self.refusal or "") + piece

    def _replace_from(self, start: int, text: str) -> Any:
        """Take ``text`` as the complete text from position ``start`` on: append what continues the text held; start
        over where it does not (a provider's full text wins over lost or garbled pieces)."""
        current = self.text
        rest = continuation(current[start:], text)
        if rest is not None:
            return self._append(rest)
        if self.result is None:
            kept = current[:start]
            self._restart()
            self._append(kept)
            self._append(text)
        return self.value

    def finish(self) -> StructuredOutputResult:
        """End the output (the stream ended): one strict parse, or validation with ``model=``, of the complete text.

        Returns the same result when called again. Malformed or invalid output is reported in ``error``, never raised.
        """
        if self.result is not None:
            return self.result
        text = self.text
        if self.refusal is not None and not text.strip():
            self.result = StructuredOutputResult(None, f"The model refused: {self.refusal}")
        elif self._typed is not None:
            self.model_result = self._typed.finish()
            if self.model_result.error is None:
                self.result = StructuredOutputResult(self.model_result.value, None)
            else:
                # Not JSON, or JSON that does not validate: the strict parse of the text tells which.
                problem: Optional[JsonProblem] = json_problem(text)
                if not getattr(self.model_result, "complete", True):  # cut off (with coerce=True, in a fence too)
                    problem = JsonProblem.at(text, "incomplete", len(text), "the output ends inside its value")
                elif problem is None:
                    problem = JsonProblem.at(text, "invalid", value_start(text), "does not validate")
                self.result = StructuredOutputResult(None, self.model_result.message_for("output"), problem)
        else:
            try:
                self.result = StructuredOutputResult(parse_json_with_repair(text), None)
            except (JsonParseError, RecursionError) as error:
                message = f"Structured output is not valid JSON: {error}.\nReceived output: {text}"
                problem = error.problem if isinstance(error, JsonParseError) else json_problem(text)
                self.result = StructuredOutputResult(None, message, problem)
        if self.result.error is None:
            if same_as_shown(self.result.value, self.value):
                # The value shown last is the value: the result holds that object, which a stream yielded once.
                self.result = StructuredOutputResult(self.value, None)
            else:
                self.value = self.result.value
        return self.result

    def _stopped_early(self, reason: str) -> None:
        """The provider stopped the output before the model was done (``reason``, e.g. a length limit): the output
        ends, and where its text does not parse it is ``incomplete``, whatever else a strict parse finds wrong with it
        (a value that was complete, followed by blanks until the limit, is the value)."""
        result = self.finish()
        if result.error is not None and result.problem is not None and result.problem.kind != "incomplete":
            text = self.text
            self.result = result._replace(problem=JsonProblem.at(text, "incomplete", len(text), reason))

    def _source_failed(self, error: Exception) -> bool:
        """Whether an exception the events' source raised ends the output (as the API's way of saying so) rather
        than going on to the caller: never, unless an API's reader says otherwise."""
        return False

    def stream(self, events: Any) -> Iterator[Any]:
        """Feed every event of ``events``; yield the value whenever an event changed it, then :meth:`finish` and
        yield the final value if it is valid and differs from the last value yielded (where the last piece completed
        the value, the strict parse gives an equal one, which is not yielded again). ``error`` tells afterwards
        whether it was valid.

        ``events``: an iterable of events or an SDK stream manager (entered and closed here), as for tool calls.
        """
        feed = self.feed
        last = MISSING
        with entered(events) as iterable:
            try:
                for event in iterable:
                    value = feed(event)
                    if value is not last:
                        last = value
                        yield value
            except Exception as error:
                if not self._source_failed(error):
                    raise
        result = self.finish()
        if result.error is None and not same_as_shown(result.value, last):
            yield result.value

    async def astream(self, events: Any) -> AsyncIterator[Any]:
        """:meth:`stream` over an async iterable of events, or an async SDK stream manager (entered here)."""
        feed = self.feed
        last = MISSING
        async with aentered(events) as iterable:
            try:
                async for event in iterable:
                    value = feed(event)
                    if value is not last:
                        last = value
                        yield value
            except Exception as error:
                if not self._source_failed(error):
                    raise
        result = self.finish()
        if result.error is None and not same_as_shown(result.value, last):
            yield result.value


def same_as_shown(value: Any, shown: Any) -> bool:
    """Whether the final value is the value last shown: the same object, or an equal value of the same type (a
    partial value the strict parse repeats; a typed partial twin is not its validated model)."""
    return value is shown or (type(value) is type(shown) and value == shown)
