"""Live tool calls: one argument stream per call, and the accumulator every API's tool-call reader builds on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Hashable, Iterable, Iterator, Mapping
from typing import Any, Callable, Generic, Literal, Optional, Protocol, TypeVar, cast

from .._backend import ToolCallArgumentsStream
from .._repair import parse_tool_call_arguments, value_start
from .._shared import ABSENT, MISSING, JsonProblem, ProblemKind, ToolCallReplace, ToolCallResult, continuation
from ._fields import ReadsEventFields
from ._sources import aentered, entered

__all__ = [
    "ArgumentsStream",
    "LiveToolCall",
    "RepairKind",
    "ToolCallAccumulator",
    "TypedArguments",
    "STREAM_ENDED",
    "at_length_limit",
    "unique",
]

STREAM_ENDED = "the stream ended before the call did"
"""Why a call open when the events run out (or :meth:`ToolCallAccumulator.finish` is called) is incomplete."""


RepairKind = Literal["split", "repeat"]
"""How a call was read out of arguments a provider sent against the API's rules (:attr:`LiveToolCall.repair`):

- ``"split"``: one of the calls read out of one call's arguments that held several whole JSON objects back to back
  (``{"path": "a.rs"}{"path": "b.rs"}``: providers that put every parallel call at one index, with no new id);
- ``"repeat"``: the call's arguments came twice, whole and then the same again (in pieces), and were read once.
"""


def at_length_limit(how: str) -> str:
    """Why a call or an output is incomplete where the provider stopped at its length limit (``how``: the field that
    says so, e.g. ``"finish_reason 'length'"``)."""
    return f"the provider stopped at its length limit ({how})"


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

    def __init__(
        self, model: Any, text: str = "", parser_class: Optional[Callable[..., Any]] = None, coerce: bool = False
    ) -> None:
        from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

        self._coerce = coerce
        self._typed: Any = ModelStream(model, parser_class=parser_class, coerce=coerce)
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
        delta = continuation(self.text, text)
        self.parsed = self._typed.append(delta) if delta is not None else self._typed.replace(text)
        return ToolCallReplace(delta, self._plain_arguments())

    def finish(self) -> ToolCallResult:
        """One strict parse of the complete text (as for any call), and one validation against the tool's type."""
        result = parse_tool_call_arguments(self.text)
        if not self.text.strip(" \t\n\r"):
            self._typed.append("{}")  # blank arguments read as {}, as for a call without a declared type
        self.model_result = self._typed.finish()
        self.parsed = self.model_result.value
        if self._coerce and result.error is not None and self.model_result.error is None:
            # Coerced (a fence, a trailing comma, ...): the typed value stands; the arguments are the lenient reading.
            return ToolCallResult(self._plain_arguments(), None)
        if result.error is None and self.model_result.error is not None:
            problem = JsonProblem.at(self.text, "invalid", value_start(self.text), "does not validate")
            return ToolCallResult({}, self.model_result.message, problem)
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
    text, and ``arguments`` are the final arguments: ``{}`` if the text was malformed, when ``error`` says why and
    ``problem`` what a program can act on. A call that the API did not end (the stream ended first, or the provider
    stopped at its length limit while writing it) is ``incomplete``, whatever its text, blank included.

    ``repair`` is None for a call read as the provider sent it; ``"split"`` or ``"repeat"`` (:data:`RepairKind`) for
    one read out of arguments that broke the API's rules, so that a program can tell (and log, or ask again).

    A call to a tool given a type (``models={name: type}``) also has ``parsed``: the typed partial value while it
    streams (``streaming_json.pydantic``), the validated instance once done; or None, with ``error`` saying why and
    ``arguments`` empty, when the arguments do not validate.

    The methods whose names start with ``_`` are the accumulators' (``integrations``), which feed the call.
    """

    __slots__ = ("key", "id", "name", "arguments", "done", "result", "repair", "_stream", "_append_piece")

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
    repair: Optional[RepairKind]
    """None, or how the call was read out of arguments that broke the API's rules (:data:`RepairKind`): ``"split"``
    for each of the calls one call's arguments held back to back, ``"repeat"`` for arguments sent twice."""

    def __init__(self, key: Hashable, id: Optional[str], name: Optional[str], stream: ArgumentsStream) -> None:
        self.key = key
        self.id = id
        self.name = name
        self.done = False
        self.result = None
        self.repair = None
        self._use(stream)
        self.arguments = stream.append("")  # the stream's own {}: the same object until the arguments change

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
    def problem(self) -> Optional[JsonProblem]:
        """None, or what was wrong with the arguments, for a program to act on: ``kind`` (``"incomplete"``: cut off;
        ``"malformed"``; ``"not_object"``; ``"invalid"`` for a typed tool), ``offset``, ``line`` and ``column``."""
        return None if self.result is None else self.result.problem

    @property
    def parsed(self) -> Any:
        """For a tool given a type: the typed partial value, then the validated instance (None if invalid); else
        None."""
        return getattr(self._stream, "parsed", None)

    def __repr__(self) -> str:
        state = "done" if self.done else "streaming"
        repair = "" if self.repair is None else f", repair={self.repair!r}"
        return f"LiveToolCall(id={self.id!r}, name={self.name!r}, arguments={self.arguments!r}, {state}{repair})"

    def _use(self, stream: ArgumentsStream) -> None:
        """Read the arguments with ``stream`` from now on (a typed tool's stream takes over when its name comes).

        ``_append_piece(text)`` is the adapters' fast paths' method: it appends a piece the caller has checked is a
        non-empty ``str`` and returns the new arguments, which the caller stores in ``arguments``. It is the stream's
        own bound ``append``, kept in a slot: a Python method doing the same costs every event a frame, about 360
        instructions (5 to 14 % of an adapter's own cost), where this costs about 130
        (``python -m bench instructions``)."""
        self._stream = stream
        self._append_piece: Callable[[str], dict[str, Any]] = stream.append

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
        """End the call as the API ended it: its stream's one strict parse of its text (the stream's, also where the
        caller parsed the text to see that it is whole: the final arguments are the last partial ones, the same
        object, where they hold the same value; a typed tool's stream validates too)."""
        self.result = self._stream.finish()
        self.arguments = self.result.arguments
        self.done = True

    def _cut(self, reason: str) -> None:
        """End the call as cut off (``reason``: how), whatever its text: the API did not end it."""
        self._fail("incomplete", reason)

    def _fail(self, kind: ProblemKind, reason: str) -> None:
        """End the call with a problem of ``kind`` that its text alone does not show (``reason``: what)."""
        text = self.text
        offset = len(text) if kind == "incomplete" else value_start(text)
        adjective = "incomplete" if kind == "incomplete" else "malformed"
        message = f"Tool call arguments are {adjective}: {reason}.\nReceived arguments: {text}"
        self.result = ToolCallResult({}, message, JsonProblem.at(text, kind, offset, reason))
        self.arguments = {}
        self.done = True
        if isinstance(self._stream, TypedArguments):
            self._stream.parsed = None


_Key = TypeVar("_Key", bound=Hashable)


class ToolCallAccumulator(ReadsEventFields, Generic[_Key]):
    """The calls of one stream: all of them in order, and the open ones by key. Subclasses read one API's events."""

    def __init__(
        self,
        *,
        models: Optional[Mapping[str, Any]] = None,
        arguments_stream_class: Optional[Callable[..., ArgumentsStream]] = None,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        """``models`` maps tool names to types (a pydantic model, or any type ``TypeAdapter`` takes): calls to those
        tools get typed partial values in ``parsed`` (``coerce=True``: read as the schema says, each repair named in
        the call's ``model_result.repairs``; ``streaming_json.pydantic.ModelStream``). The partial arguments read
        stably (``stable=True``: a value once shown stays shown, so a UI does not flicker); ``stable=False`` gives the
        reference's reading.

        Where the package's backend is not the one wanted (a test of each, a wrapper that logs): the other calls'
        argument streams are ``arguments_stream_class(stable=...)`` (by default the backend's
        ``ToolCallArgumentsStream``), and
        the typed calls' streams read with ``parser_class`` (by default the backend's ``StreamingJsonParser``)."""
        super().__init__()
        self._arguments_stream_class: Callable[..., ArgumentsStream] = arguments_stream_class or ToolCallArgumentsStream
        self._stable = stable
        self._models: Mapping[str, Any] = models or {}
        self._parser_class = parser_class
        self._coerce = coerce
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
        """End the calls still open: the stream ended before the API ended them (a dropped connection), so each is
        ``incomplete`` (``problem``), whatever its text; return them."""
        return self._cut_open(list(self._open), STREAM_ENDED)

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

    def _start(self, key: _Key, id: Optional[str], name: Optional[str]) -> list[LiveToolCall]:
        """Open a new call at ``key``; return the calls this changed, the new one last. A call still open at ``key``
        ends first: its end event was lost, and a new call in its place means it is over (were it left open, it
        would be left out of :meth:`finish` and never be done)."""
        changed = self._finish_open([key])
        call = LiveToolCall(key, id, name, self._new_stream(name))
        self._calls.append(call)
        self._open[key] = call
        changed.append(call)
        return changed

    def _new_stream(self, name: Optional[str]) -> ArgumentsStream:
        """An argument stream for a call to the tool ``name``: typed where ``models`` gives the tool a type."""
        model = self._models.get(name) if name is not None else None
        if model is None:
            return self._arguments_stream_class(stable=self._stable)
        return TypedArguments(model, "", self._parser_class, self._coerce)

    def _named(self, call: LiveToolCall, name: Optional[str]) -> None:
        """The call's name, where it came after the call started: a typed tool's stream takes over the text so far."""
        if call.name is None and name is not None:
            call.name = name
            model = self._models.get(name)
            if model is not None and not call.done and not isinstance(call._stream, TypedArguments):
                call._use(TypedArguments(model, call.text, self._parser_class, self._coerce))
                call.arguments = call._append_piece("")

    def _finish_open(self, keys: Iterable[_Key]) -> list[LiveToolCall]:
        """End the open calls at ``keys``, as the API ended them: one strict parse each (and the calls read out of
        arguments that held several, see :meth:`_end`)."""
        finished = []
        for key in keys:
            call = self._open.pop(key, None)
            if call is not None:
                finished.extend(self._end(call, None))
        return finished

    def _end_open(self) -> list[LiveToolCall]:
        """End every open call as the API ended it (the end of the message, or of a source that has no end of its
        own for each call)."""
        return self._finish_open(list(self._open))

    def _end_superseded(self, keys: Iterable[_Key]) -> list[LiveToolCall]:
        """A new call started: of the open calls at ``keys``, end those whose text so far is a whole JSON value, as
        the API ended them (the start of call N+1 ends call N, as the OpenAI SDK's ``ChatCompletionStreamState``
        reads a new index). A call whose text is not whole (blank, cut, or a provider that interleaves its calls'
        pieces) stays open for the pieces still to come: the end of the message ends it, and a stream that ends first
        leaves it ``incomplete``."""
        ended = []
        for key in list(keys):
            call = self._open.get(key)
            if call is None:
                continue
            if _is_whole(call.text):
                del self._open[key]
                ended.extend(self._end(call, None))
        return ended

    def _cut_open(self, keys: Iterable[_Key], reason: str) -> list[LiveToolCall]:
        """End the open calls at ``keys`` as cut off (``reason``)."""
        cut = []
        for key in keys:
            call = self._open.pop(key, None)
            if call is not None:
                cut.extend(self._end(call, reason))
        return cut

    def _stopped_early(self, keys: Iterable[_Key], reason: str, last_block: Any = ABSENT) -> list[LiveToolCall]:
        """The provider stopped before the model was done (``reason``, e.g. :func:`at_length_limit`). The call it was
        writing is cut off: of the open calls at ``keys``, the one that started last; or, where ``last_block`` is the
        key of the last block the stream started and that block is the last call, that call, even if its block had
        ended (a call cut right after its header ends with blank arguments, which would read as ``{}``). The other
        open calls at ``keys`` end as the API ended them."""
        keys = list(keys)
        writing = self._calls[-1] if self._calls else None
        changed = []
        if writing is not None and (writing.key in keys and writing.key in self._open or writing.key == last_block):
            if self._open.get(cast(_Key, writing.key)) is writing:
                del self._open[cast(_Key, writing.key)]
                changed.extend(self._end(writing, reason))
            else:  # its block had ended: cut all the same
                writing._cut(reason)
                changed.append(writing)
        return changed + self._finish_open(keys)

    def _end(self, call: LiveToolCall, reason: Optional[str]) -> list[LiveToolCall]:
        """End ``call``, no longer open: as the API ended it (``reason`` None: one strict parse), or cut off
        (``reason``: how). Return it and the calls read out of it, which share its key and follow it in
        :attr:`calls`.

        Arguments that hold several whole JSON objects back to back (a provider that puts every parallel call at one
        index, with no new id) are that many calls, each to the tool named, in order: the first keeps the call's id,
        the others get it with ``_1``, ``_2`` ... added (an id to answer each with; None where the call had none).
        An object that repeats the one before it (a provider that sends the whole arguments, then the same again in
        pieces) is read once. Each such call has ``repair`` set (:data:`RepairKind`). Cut off, the objects before
        the last are whole and end as the API ended them (the next one's start ended each, as a new index does in
        Chat Completions); only the last is ``incomplete``."""
        text = call.text
        if reason is None:
            call._finish()
            problem = call.problem
            if problem is None or problem.kind != "malformed" or problem.detail != "Extra data":
                return [call]
        elif "}" not in text:  # no whole object in it: cut as it is (a quick test, before any parse)
            call._cut(reason)
            return [call]
        split = _objects_back_to_back(text)
        if split is None:
            if reason is not None:
                call._cut(reason)
            return [call]
        segments, last_whole = split
        kept = [segments[0]]
        for number, segment in enumerate(segments[1:], start=1):
            whole = number < len(segments) - 1 or last_whole
            if not _repeats(kept[-1], segment, whole):
                kept.append(segment)
        repair: RepairKind = "split" if len(kept) > 1 else "repeat"
        ended = []
        for number, segment in enumerate(kept):
            if number == 0:
                target = call
                target._use(self._new_stream(call.name))
                target.done, target.result = False, None
            else:
                split_id = None if call.id is None else f"{call.id}_{number}"
                target = LiveToolCall(call.key, split_id, call.name, self._new_stream(call.name))
            target.repair = repair
            target._append(segment)
            if reason is not None and number == len(kept) - 1:
                target._cut(reason)
            else:
                target._finish()
            ended.append(target)
        position = len(self._calls) - 1 - self._calls[::-1].index(call)
        self._calls[position + 1 : position + 1] = ended[1:]
        return ended


_JSON_WHITESPACE = " \t\n\r"
_decoder = json.JSONDecoder()


def _objects_back_to_back(text: str) -> Optional[tuple[list[str], bool]]:
    """The texts of the JSON objects ``text`` holds back to back (blanks between them dropped), and whether the last
    is whole; None where the text is not two or more of them, the first whole (one value, or anything else after the
    first). A last one that is not whole (cut off, or malformed) must start as an object."""
    segments: list[str] = []
    position, end = 0, len(text)
    while True:
        while position < end and text[position] in _JSON_WHITESPACE:
            position += 1
        if position == end:
            return (segments, True) if len(segments) > 1 else None
        if text[position] != "{":
            return None
        try:
            _, stop = _decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            if not segments:
                return None
            segments.append(text[position:].rstrip(_JSON_WHITESPACE))
            return segments, False
        segments.append(text[position:stop])
        position = stop


def _repeats(previous: str, segment: str, whole: bool) -> bool:
    """Whether ``segment`` is the object before it sent again: the same value (``whole``), or, cut off, the start of
    its text."""
    if not whole:
        return previous.startswith(segment)
    try:
        return _canonical(previous) == _canonical(segment)
    except (ValueError, RecursionError):
        return False


def _canonical(segment: str) -> str:
    """The object's value as one text, whatever its blanks and the order of its members."""
    return json.dumps(_decoder.decode(segment), sort_keys=True, ensure_ascii=False)


def _is_whole(text: str) -> bool:
    """Whether a call's text so far is a whole JSON value (or whole objects back to back), not blank: what a new call
    after it means is over."""
    if not text.strip(_JSON_WHITESPACE):
        return False
    problem = parse_tool_call_arguments(text).problem
    if problem is None or problem.kind == "not_object":
        return True
    if problem.kind == "malformed" and problem.detail == "Extra data":
        split = _objects_back_to_back(text)
        return split is not None and split[1]
    return False


def unique(calls: Iterable[LiveToolCall]) -> list[LiveToolCall]:
    """The calls in order, each once (one event can touch a call several times)."""
    return list({id(call): call for call in calls}.values())
