"""Op streams from every source: text pieces, one tool call's arguments, the SDK and framework adapters' live calls
and structured output, typed streams.

Each reads a piece once: the parser's changes of the piece become operations
(:class:`~streaming_json.patches.PatchStream`) beside the values the source gives anyway. The sources build their
parsers through the hooks the package's readers take (``parser_class``, ``arguments_stream_class``):
:class:`ArgumentPatches` is a ``ToolCallArgumentsStream`` that also keeps the operations of each piece, and a
``PatchingParser`` stands in for the parser of a typed stream or a structured-output reader, keeping the operations
of the changes its owner did not ask for.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Callable, Optional

from .._backend import StreamingJsonParser
from .._json_patch import JsonPatchOp, PatchStream
from .._repair import json_problem, parse_json_with_repair, parse_tool_call_arguments, value_start
from .._shared import JsonParseError, JsonProblem, Piece, ToolCallReplace, ToolCallResult, continuation
from ..integrations._sources import aentered, entered
from ..integrations._tool_calls import LiveToolCall, TypedArguments
from ._events import PatchEvent

_new_event = tuple.__new__  # a PatchEvent made whole, as PatchEvent.changed makes it

__all__ = [
    "ArgumentPatches",
    "DocumentPatches",
    "OutputPatches",
    "PatchingParser",
    "ToolCallPatches",
    "text_patches",
    "atext_patches",
]


class _Pending:
    """The operations and text a source read since they were last taken; a new parser (the text started over) writes
    on with a new :class:`PatchStream`, whose first operation replaces the root."""

    __slots__ = ("strict", "ops", "pieces")

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.ops: list[JsonPatchOp] = []
        self.pieces: list[str] = []

    def take(self) -> tuple[list[JsonPatchOp], str]:
        """The operations and the text so far, and none kept."""
        ops, pieces = self.ops, self.pieces
        self.ops, self.pieces = [], []
        return ops, pieces[0] if len(pieces) == 1 else "".join(pieces)


class PatchingParser:
    """A ``StreamingJsonParser`` for a reader that builds its own (``parser_class=``: ``ModelStream``, the
    structured-output adapters, a typed tool call): it reads with changes, writes their operations for the op stream
    that owns it, and returns the reader only what it asked for (done events with ``done_events=True``, else no
    change). The op streams make them as their readers ask (``parser_class=``)."""

    __slots__ = ("_parser", "_read", "_patches", "_pending", "_done_events")

    def __init__(self, pending: _Pending, parser_class: Optional[Callable[..., Any]] = None, **options: Any) -> None:
        self._done_events = bool(options.get("done_events", False))
        options["changes"] = True
        self._parser: Any = (parser_class or StreamingJsonParser)(**options)
        self._read = self._parser.append
        self._patches = PatchStream(strict=pending.strict)
        self._pending = pending

    def append(self, text: Piece) -> list[Any]:
        """Read a piece; keep its operations; return the done events (where asked for)."""
        changes = self._read(text)
        pending = self._pending
        pending.pieces.append(text if isinstance(text, str) else bytes(text).decode("utf-8", "replace"))
        if not changes:
            return changes
        self._patches.extend(pending.ops, changes)
        if self._done_events:
            return [change for change in changes if change.kind == "done"]
        return []

    def snapshot(self, *, fresh: bool = False) -> Any:
        """The parser's snapshot."""
        return self._parser.snapshot(fresh=fresh)

    @property
    def done(self) -> bool:
        return bool(self._parser.done)

    @property
    def unused_text(self) -> str:
        return str(self._parser.unused_text)

    @property
    def in_string(self) -> bool:
        return bool(self._parser.in_string)

    @property
    def open_path_is_small(self) -> bool:
        return bool(self._parser.open_path_is_small)


class ArgumentPatches:
    """One tool call's arguments, as a ``ToolCallArgumentsStream`` reads them (``text``, ``append``, ``replace``,
    ``finish``: it is an ``arguments_stream_class`` for the adapters), keeping the JSON Patch operations of each piece
    until :meth:`take` takes them.

    ``model``: the tool's declared type; the call then also reads typed (``parsed``, ``model_result``, and a
    ``finish`` that validates, as the adapters' ``models=`` do). ``strict``: RFC 6902 operations only (see
    :class:`~streaming_json.patches.PatchStream`). ``parser_class``: the parser (a backend's ``StreamingJsonParser``).
    """

    __slots__ = (
        "_stable",
        "_parser_class",
        "_pending",
        "_chunks",
        "_text",
        "_parser",
        "_read",
        "_extend_ops",
        "_snapshot",
        "_typed",
        "_arguments",
    )

    _parser: PatchingParser

    def __init__(
        self,
        *,
        stable: bool = False,
        strict: bool = False,
        model: Any = None,
        parser_class: Optional[Callable[..., Any]] = None,
    ) -> None:
        self._stable = stable
        self._parser_class = parser_class
        self._pending = _Pending(strict)
        self._chunks: list[str] = []
        self._text = ""
        self._typed: Optional[TypedArguments] = None
        self._start()
        if model is not None:
            self.use_model(model)

    def _start(self) -> None:
        parser = self._make_parser(stable=self._stable)
        # The untyped path reads with the parser and its patch stream directly: one frame less a piece.
        self._read: Callable[[str], list[Any]] = parser._read
        self._extend_ops: Callable[[list[JsonPatchOp], list[Any]], None] = parser._patches.extend
        self._snapshot: Callable[[], Any] = parser._parser.snapshot
        self._arguments: dict[str, Any] = {}

    def _make_parser(self, **options: Any) -> PatchingParser:
        """A parser for this call's text (its own, or the typed reader's): the latest one is the call's."""
        self._parser: PatchingParser = PatchingParser(self._pending, self._parser_class, **options)
        return self._parser

    @property
    def text(self) -> str:
        """The raw argument text received so far."""
        if self._chunks:
            self._chunks.insert(0, self._text)
            self._text = "".join(self._chunks)
            self._chunks = []
        return self._text

    def append(self, delta: str) -> dict[str, Any]:
        """Append a piece of argument text; return the partial arguments (a new dict whenever they changed)."""
        if not isinstance(delta, str):
            raise TypeError(f"delta must be str, not {type(delta).__name__}")
        if not delta:
            return self._arguments
        self._chunks.append(delta)
        if self._typed is not None:
            self._arguments = self._typed.append(delta)
            return self._arguments
        pending = self._pending
        pending.pieces.append(delta)
        changes = self._read(delta)
        if changes:
            self._extend_ops(pending.ops, changes)
        snapshot = self._snapshot()
        if type(snapshot) is dict:
            self._arguments = snapshot
            return snapshot
        if self._arguments:
            self._arguments = {}  # a root that is not an object shows no arguments
        return self._arguments

    def replace(self, text: str) -> ToolCallReplace:
        """Take the provider's complete argument text so far: the rest where it continues the text so far, else the
        arguments start over (their next operation replaces the root)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        delta = continuation(self.text, text)
        if delta is not None:
            return ToolCallReplace(delta, self.append(delta))
        self._chunks, self._text = [], ""
        self._pending.pieces = []
        if self._typed is not None:
            self._arguments = self._typed.replace(text).arguments
            self._chunks.append(text)
            return ToolCallReplace(None, self._arguments)
        self._start()
        return ToolCallReplace(None, self.append(text))

    def finish(self) -> ToolCallResult:
        """The final arguments: one strict parse of the complete text (and, typed, one validation)."""
        if self._typed is not None:
            return self._typed.finish()
        return parse_tool_call_arguments(self.text)

    def use_model(self, model: Any) -> None:
        """Read typed from now on, with the tool's declared type (the text so far is read again: the next operation
        replaces the root)."""
        pending = self._pending
        pieces = pending.pieces  # the provider's text not yet taken: the reading again is not new text
        pending.pieces = []
        pending.ops = []
        self._typed = TypedArguments(model, self.text, self._make_parser)
        self._arguments = self._typed.append("")
        pending.pieces = pieces

    @property
    def typed(self) -> bool:
        """Whether the call reads typed (:meth:`use_model`)."""
        return self._typed is not None

    @property
    def parsed(self) -> Any:
        """With a model: the typed partial value, then the validated instance (None if invalid); else None."""
        return None if self._typed is None else self._typed.parsed

    @property
    def model_result(self) -> Any:
        """With a model: the ``ModelResult`` of the final validation, once done; else None."""
        return None if self._typed is None else self._typed.model_result

    def take(self) -> tuple[list[JsonPatchOp], str]:
        """The operations since the last call, and the text they were read from."""
        pending = self._pending
        ops, pieces = pending.ops, pending.pieces
        if not pieces:
            return ops, ""
        pending.ops, pending.pieces = [], []
        return ops, pieces[0] if len(pieces) == 1 else "".join(pieces)

    def shown(self, value: Any) -> bool:
        """Whether the operations so far built ``value`` (the final arguments): the parser's value of the complete
        text is it."""
        return bool(self._parser.snapshot(fresh=True) == value)


class DocumentPatches:
    """The op stream of one JSON document arriving as text pieces (structured output, a model's JSON answer): each
    piece's operations, then :meth:`finish`'s end event with one strict parse (and, with ``model``, one validation).

    ``model``: read typed as well (``value`` is then ``ModelStream``'s typed partial value, the operations those of the
    plain JSON). ``strict``: RFC 6902 operations only. ``stable``: the stable reading (the default, as the adapters').
    """

    __slots__ = ("_pending", "_parser_class", "_parser", "_typed", "_chunks", "_done")

    _parser: PatchingParser

    def __init__(
        self,
        model: Any = None,
        *,
        strict: bool = False,
        stable: bool = True,
        parser_class: Optional[Callable[..., Any]] = None,
    ) -> None:
        self._pending = _Pending(strict)
        self._parser_class = parser_class
        self._chunks: list[str] = []
        self._done = False
        self._typed: Any = None
        if model is None:
            self._make_parser(stable=stable)
        else:
            from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

            self._typed = ModelStream(model, parser_class=self._make_parser, stable=stable)

    def _make_parser(self, **options: Any) -> PatchingParser:
        self._parser = PatchingParser(self._pending, self._parser_class, **options)
        return self._parser

    @property
    def value(self) -> Any:
        """The value so far: the parser's snapshot, or the typed partial value."""
        if self._typed is not None:
            return self._typed.value
        return self._parser.snapshot()

    def append(self, piece: str) -> list[JsonPatchOp]:
        """Read a piece; return its operations."""
        self.feed(piece)
        return self._pending.take()[0]

    def feed(self, piece: str) -> None:
        """Read a piece, keeping its operations for :meth:`take`."""
        if piece and not self._done:
            self._chunks.append(piece)
            (self._typed if self._typed is not None else self._parser).append(piece)

    def take(self) -> tuple[list[JsonPatchOp], str]:
        """The operations not yet taken, and the text they were read from."""
        return self._pending.take()

    def finish(self) -> PatchEvent:
        """The end: one strict parse of the whole text (with a model, one validation)."""
        self._done = True
        text = "".join(self._chunks)
        if self._typed is not None:
            result = self._typed.finish()
            if result.error is None:  # the wire carries JSON: the plain value that validated, built by the operations
                return PatchEvent.ended(None, self._parser.snapshot(fresh=True), None, None, True)
            problem: Optional[JsonProblem] = json_problem(text)
            if problem is None:
                problem = JsonProblem.at(text, "invalid", value_start(text), "does not validate")
            return PatchEvent.ended(None, None, result.message_for("output"), problem, False)
        try:
            value = parse_json_with_repair(text)
        except (JsonParseError, RecursionError) as error:
            problem = error.problem if isinstance(error, JsonParseError) else json_problem(text)
            message = f"The output is not valid JSON: {error}.\nReceived output: {text}"
            return PatchEvent.ended(None, None, message, problem, False)
        return PatchEvent.ended(None, value, None, None, bool(self._parser.snapshot(fresh=True) == value))


def text_patches(
    pieces: Iterable[str], model: Any = None, *, strict: bool = False, parser_class: Optional[Callable[..., Any]] = None
) -> Iterator[PatchEvent]:
    """The op stream of one JSON document's text pieces: an ``ops`` event for each piece that changed the value,
    then the ``end`` event (:class:`DocumentPatches`)."""
    document = DocumentPatches(model, strict=strict, parser_class=parser_class)
    for piece in pieces:
        document.feed(piece)
        ops, text = document.take()
        if ops:
            yield PatchEvent.changed(None, ops, text)
    yield document.finish()


async def atext_patches(
    pieces: AsyncIterable[str],
    model: Any = None,
    *,
    strict: bool = False,
    parser_class: Optional[Callable[..., Any]] = None,
) -> AsyncIterator[PatchEvent]:
    """:func:`text_patches` over an async iterable of pieces."""
    document = DocumentPatches(model, strict=strict, parser_class=parser_class)
    async for piece in pieces:
        document.feed(piece)
        ops, text = document.take()
        if ops:
            yield PatchEvent.changed(None, ops, text)
    yield document.finish()


class ToolCallPatches:
    """One op stream per tool call of an SDK's or a framework's stream: ``start`` (id and name), ``ops`` as the
    arguments grow, ``end`` (the strict arguments, or the problem) for each call, in the order the events say them.

    ``accumulator``: an adapter class (``OpenAIChatToolCalls``, ``AnthropicToolCalls``, ``LangChainToolCalls`` ...),
    made here with ``options`` and one :class:`ArgumentPatches` per call. ``models`` maps tool names to types, as for
    the adapters: those calls read typed too (``parsed``) and end invalid where they do not validate. The adapter is
    ``tool_calls`` (its ``calls`` are the live calls)."""

    def __init__(
        self,
        accumulator: Callable[..., Any],
        *,
        models: Optional[Mapping[str, Any]] = None,
        strict: bool = False,
        parser_class: Optional[Callable[..., Any]] = None,
        **options: Any,
    ) -> None:
        self._models: Mapping[str, Any] = models or {}
        self._strict = strict
        self._parser_class = parser_class
        self._made: list[ArgumentPatches] = []  # every call's stream, in the order the adapter asked for them
        self.tool_calls: Any = accumulator(arguments_stream_class=self._new_stream, **options)
        """The adapter that reads the events (its ``calls``: every :class:`~streaming_json.integrations.LiveToolCall`
        so far)."""
        self._streams: dict[int, ArgumentPatches] = {}  # id(call) -> its stream
        self._calls: list[LiveToolCall] = []  # the calls paired with their streams, in order
        self._wire_ids: dict[int, str] = {}
        self._started: set[int] = set()
        self._ended: set[int] = set()
        # The call the last event continued, while nothing about it is left to settle (started, named or no type to
        # read it with, not done): its next piece takes the short path in feed. Its stream's pending text, its id.
        self._streaming: Optional[LiveToolCall] = None
        self._streaming_pending = _Pending(strict)
        self._streaming_id = ""

    def _new_stream(self, *, stable: bool = False) -> ArgumentPatches:
        stream = ArgumentPatches(stable=stable, strict=self._strict, parser_class=self._parser_class)
        self._made.append(stream)
        return stream

    def feed(self, event: Any) -> list[PatchEvent]:
        """Read one event; return the op events it made."""
        changed = self.tool_calls.feed(event)
        # The short path, most events: one more piece of the call the last event continued. What _events does for
        # it, inline (ArgumentPatches.take and PatchEvent.changed): two frames of a dozen a piece.
        streaming = self._streaming
        if streaming is not None and len(changed) == 1 and changed[0] is streaming and not streaming.done:
            pending = self._streaming_pending
            pieces = pending.pieces
            if not pieces:
                return []
            ops = pending.ops
            pending.ops, pending.pieces = [], []
            text = pieces[0] if len(pieces) == 1 else "".join(pieces)
            return [_new_event(PatchEvent, ("ops", self._streaming_id, None, ops, text, None, None, None, False))]
        return self._events(changed)

    def finish(self) -> list[PatchEvent]:
        """End the calls still open (the stream ended first: ``incomplete``); return their op events."""
        self._streaming = None
        return self._events(self.tool_calls.finish())

    def stream(self, events: Any) -> Iterator[PatchEvent]:
        """Feed every event (an iterable, or an SDK stream manager, entered and closed here); yield the op events,
        and those of :meth:`finish` when the events run out."""
        feed = self.feed
        with entered(events) as iterable:
            for event in iterable:
                yield from feed(event)
        yield from self.finish()

    async def astream(self, events: Any) -> AsyncIterator[PatchEvent]:
        """:meth:`stream` over an async iterable of events or an async SDK stream manager."""
        feed = self.feed
        async with aentered(events) as iterable:
            async for event in iterable:
                for patch_event in feed(event):
                    yield patch_event
        for patch_event in self.finish():
            yield patch_event

    def _pair_new_calls(self) -> None:
        """Pair the calls the adapter started with the streams it asked for: it makes one stream for each call it
        starts, in the same order (``ToolCallAccumulator._start``)."""
        calls = self.tool_calls.calls
        for number in range(len(self._calls), min(len(calls), len(self._made))):
            call, stream = calls[number], self._made[number]
            self._calls.append(call)
            self._streams[id(call)] = stream
            self._wire_ids[id(call)] = call.id or f"call_{number}"

    def _events(self, changed: list[LiveToolCall]) -> list[PatchEvent]:
        if len(self._made) != len(self._calls):
            self._pair_new_calls()
        self._streaming = None
        events: list[PatchEvent] = []
        streams, started, models = self._streams, self._started, self._models
        for call in changed:
            key = id(call)
            stream = streams.get(key)
            if stream is None or key in self._ended:
                continue
            wire_id = self._wire_ids[key]
            if key not in started:
                started.add(key)
                events.append(PatchEvent.started(wire_id, call.name))
            name = call.name
            if models and name is not None and name in models and not stream.typed and not call.done:
                stream.use_model(models[name])
                call.arguments = stream.append("")
            ops, text = stream.take()
            if ops or text:
                events.append(PatchEvent.changed(wire_id, ops, text))
            if call.done:
                self._ended.add(key)
                result = call.result
                shown = result is not None and result.error is None and stream.shown(result.arguments)
                events.append(PatchEvent.ended(wire_id, call.arguments, call.error, call.problem, shown))
            elif len(changed) == 1 and (name is not None or not models) and not stream.typed:
                self._streaming, self._streaming_pending, self._streaming_id = call, stream._pending, wire_id
        return events


class OutputPatches:
    """The op stream of a structured output read by an SDK's or a framework's adapter (``OpenAIChatStructuredOutput``,
    ``AnthropicStructuredOutput``, ``PydanticAIStructuredOutput`` ...): ``ops`` as the value grows, then ``end`` (the
    strict value, or the problem). The adapter, made here with ``options`` and a ``PatchingParser``, is
    ``output``; ``model=`` reads typed as the adapters do."""

    def __init__(
        self,
        output: Callable[..., Any],
        *args: Any,
        strict: bool = False,
        parser_class: Optional[Callable[..., Any]] = None,
        **options: Any,
    ) -> None:
        self._pending = _Pending(strict)
        self._parsers: list[PatchingParser] = []
        self._base_parser_class = parser_class
        self.output: Any = output(*args, parser_class=self._new_parser, **options)
        """The adapter that reads the events (``value``, ``result``, ``text``)."""
        self._ended = False

    def _new_parser(self, **options: Any) -> PatchingParser:
        parser = PatchingParser(self._pending, self._base_parser_class, **options)
        self._parsers.append(parser)
        return parser

    def feed(self, event: Any) -> list[PatchEvent]:
        """Read one event; return the op events it made."""
        self.output.feed(event)
        return self._events()

    def finish(self) -> list[PatchEvent]:
        """End the output (the stream ended); return the last op events."""
        self.output.finish()
        return self._events()

    def stream(self, events: Any) -> Iterator[PatchEvent]:
        """Feed every event (an iterable, or an SDK stream manager); yield the op events, then the end."""
        feed = self.feed
        with entered(events) as iterable:
            for event in iterable:
                yield from feed(event)
        yield from self.finish()

    async def astream(self, events: Any) -> AsyncIterator[PatchEvent]:
        """:meth:`stream` over an async iterable of events or an async SDK stream manager."""
        feed = self.feed
        async with aentered(events) as iterable:
            async for event in iterable:
                for patch_event in feed(event):
                    yield patch_event
        for patch_event in self.finish():
            yield patch_event

    def _events(self) -> list[PatchEvent]:
        if self._ended:
            return []
        events = []
        ops, text = self._pending.take()
        if ops or text:
            events.append(PatchEvent.changed(None, ops, text))
        result = self.output.result
        if result is not None:
            self._ended = True
            value, shown = result.value, False
            if result.error is None and self._parsers:
                plain = self._parsers[-1].snapshot(fresh=True)
                if self.output.model_result is not None:
                    value, shown = plain, True  # the wire carries JSON: the plain value that validated
                else:
                    shown = bool(plain == value)
            events.append(PatchEvent.ended(None, value, result.error, result.problem, shown))
        return events
