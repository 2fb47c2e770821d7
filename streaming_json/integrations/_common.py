"""What the adapters share: reading fields of events, live tool calls, live structured output, sync and async streams.

Speed. An adapter's work per event must stay small beside the parser's (about 0.3 µs a token piece), so each adapter
reads the common event shape first through the fields' dict: a ``dict`` event itself, or an SDK object's instance
dict, where pydantic models, ``SimpleNamespace`` and plain objects keep their attributes. That dict is read with the
``__dict__`` descriptor's own getter (:func:`instance_dict_reader`), not ``event.__dict__``: an attribute read on a
pydantic model goes through the class's ``__getattr__`` hook and three lookups in the type's attribute cache (which
other code evicts between two events), and costs more than the getter on freshly built SDK events. Asking a pydantic
model for a field it does not have goes through ``BaseModel.__getattr__`` and an exception (about 5 µs), and
``isinstance(event, Mapping)`` is an ABC check; the fast paths do neither. Anything they do not recognise for certain
goes to the general path, which reads every field with :func:`get_field`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Callable, Generic, NamedTuple, Optional, Protocol, TypeVar

from .. import MISSING, StreamingJsonParser, ToolCallArgumentsStream, parse_json_with_repair, parse_tool_call_arguments
from .._types import ToolCallReplace, ToolCallResult

__all__ = [
    "ArgumentsStream",
    "LiveToolCall",
    "StructuredOutputResult",
    "get_field",
]

_ABSENT: Any = object()


def get_field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, ``obj.name`` for an object; ``default`` where that is missing or None.

    Reads an object's instance dict first, and a pydantic model's extra fields next, so that a field the object does
    not have costs no exception.
    """
    if type(obj) is dict:
        value = obj.get(name)
    else:
        fields = getattr(obj, "__dict__", None)
        value = _ABSENT if fields is None else fields.get(name, _ABSENT)
        if value is _ABSENT:
            if isinstance(obj, Mapping):
                value = obj.get(name)
            else:
                extra = getattr(obj, "__pydantic_extra__", _ABSENT)
                if extra is _ABSENT:  # not a pydantic model: a property, a slot or a __getattr__ may answer
                    value = getattr(obj, name, None)
                elif extra and name in extra:
                    value = extra[name]
                else:  # pydantic: only a class attribute (a property) is left; its __getattr__ would only raise
                    value = getattr(obj, name, None) if hasattr(type(obj), name) else None
    return default if value is None else value


# The general paths read a field of the wrong type as absent, so that an event of any shape is read without raising
# (a provider's odd event reaches the adapter as it is: the SDKs build events without validation).


def get_text(obj: Any, name: str) -> Optional[str]:
    """A field that holds text (a type, an id, a name): None where it is missing or not text."""
    value = get_field(obj, name)
    return value if isinstance(value, str) else None


def get_key(obj: Any, name: str, default: Any = None) -> Any:
    """A field that keys a call or a part (an index): ``default`` where it is missing or cannot key a dict."""
    value = get_field(obj, name, default)
    try:
        hash(value)
    except TypeError:
        return default
    return value


def get_items(obj: Any, name: str) -> Sequence[Any]:
    """A field that holds a list (choices, tool calls): empty where it is missing or not a list."""
    value = get_field(obj, name)
    return value if isinstance(value, (list, tuple)) else ()


def instance_dict_reader(obj: Any) -> Callable[[Any], dict[str, Any]]:
    """The getter of ``obj``'s instance dict: the ``__get__`` of the ``__dict__`` descriptor of the class that gave
    ``obj`` one (for an SDK's events, pydantic's ``BaseModel``), which reads the dict of any instance of that class
    with no attribute lookup. It raises ``TypeError`` for an object of any other class on CPython (PyPy's reads any
    object's dict), and for every object if ``obj`` has no instance dict: the fast paths read that as "take the
    general path".
    """
    for klass in type(obj).__mro__:
        descriptor = vars(klass).get("__dict__")
        if descriptor is not None:
            getter = getattr(descriptor, "__get__", None)
            if getter is not None:
                return getter  # type: ignore[no-any-return]
    return _no_instance_dict


def _no_instance_dict(obj: Any) -> dict[str, Any]:
    raise TypeError(f"{type(obj).__name__} objects keep no instance dict")


class ReadsEventFields:
    """Gives the adapters' fast paths ``_fields_of``: the instance-dict getter of the first event object read that
    has an instance dict (:func:`instance_dict_reader`). The events of one stream come from one SDK, so one getter
    reads them all; an event it cannot read takes the general path."""

    def __init__(self) -> None:
        self._fields_of: Callable[[Any], dict[str, Any]] = self._first_fields_of

    def _first_fields_of(self, obj: Any) -> dict[str, Any]:
        reader = instance_dict_reader(obj)
        if reader is not _no_instance_dict:  # a stray None or string first must not turn the fast paths off
            self._fields_of = reader
        return reader(obj)


# --- Event sources --------------------------------------------------------------------------------------------------


def entered(events: Any) -> contextlib.AbstractContextManager[Iterable[Any]]:
    """A context giving the events to iterate: a stream manager (``client.messages.stream(...)`` and the like, a
    context manager that is not itself iterable) is entered and closed with the context; an iterable is used as is."""
    if not hasattr(events, "__iter__") and hasattr(events, "__enter__"):
        return events  # type: ignore[no-any-return]
    return contextlib.nullcontext(events)


@contextlib.asynccontextmanager
async def aentered(events: Any) -> AsyncIterator[AsyncIterable[Any]]:
    """:func:`entered` for async streams: an async stream manager is entered (``async with``) and closed with the
    context; an async iterable is used as is."""
    if not hasattr(events, "__aiter__") and hasattr(events, "__aenter__"):
        async with events as entered_events:
            yield entered_events
    else:
        yield events


# --- Tool calls -----------------------------------------------------------------------------------------------------


class ArgumentsStream(Protocol):
    """What an accumulator needs of a tool call's argument stream: the interface of ``ToolCallArgumentsStream``."""

    @property
    def text(self) -> str:
        """The raw argument text received so far."""

    def append(self, delta: str) -> dict[str, Any]:
        """Append a piece of argument text; return the partial arguments."""

    def replace(self, text: str) -> ToolCallReplace:
        """Take the complete argument text so far."""

    def finish(self) -> ToolCallResult:
        """The final arguments, or the error."""


class TypedArguments:
    """The argument stream of a call to a tool with a declared type: one ``streaming_json.pydantic.ModelStream`` gives
    both the plain partial arguments and the typed partial value (``parsed``), reading each piece once."""

    def __init__(self, model: Any, text: str = "", parser_class: Optional[Callable[..., Any]] = None) -> None:
        from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

        self._typed: Any = ModelStream(model, parser_class=parser_class)
        self._arguments: dict[str, Any] = {}
        self._shown: Any = MISSING
        self.parsed: Any = None
        """The typed partial value while the call streams; the validated instance once done, or None if invalid."""
        self.model_result: Any = None
        """The ``ModelResult`` of the final validation, once done."""
        if text:
            self.append(text)

    @property
    def text(self) -> str:
        """The raw argument text received so far."""
        return str(self._typed.text)

    def append(self, delta: str) -> dict[str, Any]:
        """Append a piece of argument text; return the plain partial arguments (a new dict whenever they changed)."""
        self.parsed = self._typed.append(delta)
        return self._plain_arguments()

    def replace(self, text: str) -> ToolCallReplace:
        """Take the complete argument text so far, as ``ToolCallArgumentsStream.replace`` does."""
        current = self.text
        delta = text[len(current) :] if text.startswith(current) else None
        self.parsed = self._typed.replace(text)
        return ToolCallReplace(delta, self._plain_arguments())

    def finish(self) -> ToolCallResult:
        """One strict parse of the complete text (as for any call), and one validation against the tool's type."""
        result = parse_tool_call_arguments(self.text)
        if not self.text.strip(" \t\n\r"):
            self._typed.append("{}")  # blank arguments read as {}, as for a call without a declared type
        self.model_result = self._typed.finish()
        self.parsed = self.model_result.value
        if result.error is None and self.model_result.error is not None:
            return ToolCallResult({}, self.model_result.message)
        return result

    def _plain_arguments(self) -> dict[str, Any]:
        plain = self._typed.plain_value
        if plain is not self._shown:
            self._shown = plain
            self._arguments = plain if type(plain) is dict else {}
        return self._arguments


class LiveToolCall:
    """One tool call as it streams: its id and name as soon as they are known, and its arguments so far.

    While the call streams, ``arguments`` are the partial arguments (a new dict whenever they change). When it ends,
    ``done`` is true, ``result`` is the :class:`~streaming_json.ToolCallResult` of one strict parse of the complete
    text, and ``arguments`` are the final arguments: ``{}`` if the text was malformed, when ``error`` says why.

    A call to a tool given a type (``models={name: type}``) also has ``parsed``: the typed partial value while it
    streams (``streaming_json.pydantic``), the validated instance once done; or None, with ``error`` saying why and
    ``arguments`` empty, when the arguments do not validate.
    """

    __slots__ = ("key", "id", "name", "arguments", "done", "result", "_stream")

    key: Hashable
    """Where the call sits in the stream: ``(choice index, tool call index)``, an output index or a block index."""
    id: Optional[str]
    """The id to answer the call with (``tool_call_id``, ``call_id`` or ``tool_use_id``); None until known."""
    name: Optional[str]
    """The name of the tool; None until known."""
    arguments: dict[str, Any]
    """The partial arguments while the call streams; the final arguments once it is done."""
    done: bool
    """Whether the call has ended."""
    result: Optional[ToolCallResult]
    """The final arguments or the error, once the call is done."""

    def __init__(self, key: Hashable, id: Optional[str], name: Optional[str], stream: ArgumentsStream) -> None:
        self.key = key
        self.id = id
        self.name = name
        self.arguments = {}
        self.done = False
        self.result = None
        self._stream = stream

    @property
    def text(self) -> str:
        """The raw argument text received so far."""
        return self._stream.text

    @property
    def error(self) -> Optional[str]:
        """None, or why the complete arguments are malformed or, for a typed tool, invalid (ends with ``Received
        arguments:`` and the text)."""
        return None if self.result is None else self.result.error

    @property
    def parsed(self) -> Any:
        """For a tool given a type: the typed partial value, then the validated instance (None if invalid); else
        None."""
        return getattr(self._stream, "parsed", None)

    def __repr__(self) -> str:
        state = "done" if self.done else "streaming"
        return f"LiveToolCall(id={self.id!r}, name={self.name!r}, arguments={self.arguments!r}, {state})"

    def _append(self, delta: Any) -> bool:
        """Append argument text; return whether there was any (a piece that is not text is skipped)."""
        if not delta or not isinstance(delta, str):
            return False
        self.arguments = self._stream.append(delta)
        return True

    def _replace(self, text: Any) -> None:
        """Take the complete text so far (it starts over where it does not continue the text held)."""
        if isinstance(text, str):
            self.arguments = self._stream.replace(text).arguments

    def _finish(self) -> None:
        self.result = self._stream.finish()
        self.arguments = self.result.arguments
        self.done = True


_Key = TypeVar("_Key", bound=Hashable)


class ToolCallAccumulator(ReadsEventFields, Generic[_Key]):
    """The calls of one stream: all of them in order, and the open ones by key. Subclasses read one API's events."""

    def __init__(
        self,
        stream_factory: Optional[Callable[[], ArgumentsStream]] = None,
        *,
        models: Optional[Mapping[str, Any]] = None,
        parser_factory: Optional[Callable[..., Any]] = None,
    ) -> None:
        """``models`` maps tool names to types (a pydantic model, or any type ``TypeAdapter`` takes): calls to those
        tools get typed partial values in ``parsed``. ``parser_factory`` is the parser class of their typed streams."""
        super().__init__()
        self._stream_factory: Callable[[], ArgumentsStream] = stream_factory or ToolCallArgumentsStream
        self._models: Mapping[str, Any] = models or {}
        self._parser_factory = parser_factory
        self._calls: list[LiveToolCall] = []
        self._open: dict[_Key, LiveToolCall] = {}

    def feed(self, event: Any) -> list[LiveToolCall]:  # pragma: no cover - every API defines its own
        """Read one event; return the calls it changed."""
        raise NotImplementedError

    @property
    def calls(self) -> list[LiveToolCall]:
        """Every call seen so far, in the order they started."""
        return list(self._calls)

    def finish(self) -> list[LiveToolCall]:
        """End the calls still open (the stream ended); return them."""
        return self._finish_open(list(self._open))

    def stream(self, events: Any) -> Iterator[LiveToolCall]:
        """Feed every event of ``events``; yield each call whenever an event changed it, and each call that
        :meth:`finish` ends when the events run out.

        ``events`` is an iterable of events (``client.messages.create(..., stream=True)``, a recorded list) or an
        SDK stream manager (``client.messages.stream(...)``, ``client.chat.completions.stream(...)``,
        ``client.responses.stream(...)``), which is entered and closed here.
        """
        feed = self.feed
        with entered(events) as iterable:
            for event in iterable:
                yield from feed(event)
        yield from self.finish()

    async def astream(self, events: Any) -> AsyncIterator[LiveToolCall]:
        """:meth:`stream` over an async iterable of events, or an async SDK stream manager (entered here)."""
        feed = self.feed
        async with aentered(events) as iterable:
            async for event in iterable:
                for call in feed(event):
                    yield call
        for call in self.finish():
            yield call

    def _start(self, key: _Key, id: Optional[str], name: Optional[str]) -> LiveToolCall:
        model = self._models.get(name) if name is not None else None
        stream = self._stream_factory() if model is None else TypedArguments(model, "", self._parser_factory)
        call = LiveToolCall(key, id, name, stream)
        self._calls.append(call)
        self._open[key] = call
        return call

    def _named(self, call: LiveToolCall, name: Optional[str]) -> None:
        """The call's name, where it came after the call started: a typed tool's stream takes over the text so far."""
        if call.name is None and name is not None:
            call.name = name
            model = self._models.get(name)
            if model is not None and not isinstance(call._stream, TypedArguments):
                call._stream = TypedArguments(model, call._stream.text, self._parser_factory)
                call.arguments = call._stream.append("")

    def _finish_open(self, keys: Iterable[_Key]) -> list[LiveToolCall]:
        finished = []
        for key in keys:
            call = self._open.pop(key, None)
            if call is not None:
                call._finish()
                finished.append(call)
        return finished


def unique(calls: Iterable[LiveToolCall]) -> list[LiveToolCall]:
    """The calls in order, each once (one event can touch a call several times)."""
    return list({id(call): call for call in calls}.values())


# --- Structured output ----------------------------------------------------------------------------------------------


class StructuredOutputResult(NamedTuple):
    """Result of ``finish()`` of a structured-output accumulator."""

    value: Any
    """The value of one strict parse of the complete output (a validated instance with ``model=``); None where
    ``error`` is set."""
    error: Optional[str]
    """None, or a message naming the problem and ending with ``Received output:`` and the text."""


class StructuredOutput(ReadsEventFields):
    """The text of one structured output as it streams, and its value so far. Subclasses read one API's events.

    Untyped, a :class:`~streaming_json.StreamingJsonParser` gives the partial value (plain ``dict``/``list``/...)
    and :func:`~streaming_json.parse_json_with_repair` the final one: strict JSON, so a cut-off or malformed output is
    an error, and the value equals ``json.loads``' wherever that accepts the text (only raw control characters and
    stray backslashes inside strings, which models do emit, are repaired, as for tool calls). With ``model=``, a
    ``streaming_json.pydantic.ModelStream(model)`` gives typed partial values and one strict validation at the end
    (``parser_factory``, where given, is its ``parser_class``).
    """

    def __init__(self, model: Any = None, *, parser_factory: Optional[Callable[..., Any]] = None) -> None:
        super().__init__()
        self._model = model
        self._given_parser_factory = parser_factory
        self._parser_factory: Callable[..., Any] = parser_factory or StreamingJsonParser
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
            self._parser: Any = self._parser_factory(changes=False)  # snapshots alone: no change objects
        else:
            from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

            if self._given_parser_factory is None:
                self._typed = ModelStream(self._model)
            else:
                self._typed = ModelStream(self._model, parser_class=self._given_parser_factory)
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
        held = current[start:]
        if text.startswith(held):
            return self._append(text[len(held) :])
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
            error = None if self.model_result.error is None else self.model_result.message_for("output")
            self.result = StructuredOutputResult(self.model_result.value, error)
        else:
            try:
                self.result = StructuredOutputResult(parse_json_with_repair(text), None)
            except (ValueError, RecursionError) as error:
                message = f"Structured output is not valid JSON: {error}.\nReceived output: {text}"
                self.result = StructuredOutputResult(None, message)
        if self.result.error is None:
            self.value = self.result.value
        return self.result

    def stream(self, events: Any) -> Iterator[Any]:
        """Feed every event of ``events``; yield the value whenever an event changed it, then :meth:`finish` and
        yield the final value if it is valid and not yet yielded. ``error`` tells afterwards whether it was.

        ``events``: an iterable of events or an SDK stream manager (entered and closed here), as for tool calls.
        """
        feed = self.feed
        last = MISSING
        with entered(events) as iterable:
            for event in iterable:
                value = feed(event)
                if value is not last:
                    last = value
                    yield value
        result = self.finish()
        if result.error is None and result.value is not last:
            yield result.value

    async def astream(self, events: Any) -> AsyncIterator[Any]:
        """:meth:`stream` over an async iterable of events, or an async SDK stream manager (entered here)."""
        feed = self.feed
        last = MISSING
        async with aentered(events) as iterable:
            async for event in iterable:
                value = feed(event)
                if value is not last:
                    last = value
                    yield value
        result = self.finish()
        if result.error is None and result.value is not last:
            yield result.value
