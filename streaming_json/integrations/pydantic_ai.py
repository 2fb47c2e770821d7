"""pydantic-ai: tool calls and typed structured output from an agent's stream events, each piece read once.

pydantic-ai's own ``stream_output()`` rebuilds the response and validates the output tool's whole arguments with
``allow_partial`` once per debounce window (once per event with ``debounce_by=None``), and swallows the errors. Here
the events' argument deltas go once each into one parser; the output is validated as its parts complete
(``streaming_json.pydantic``) and once, strictly, at the end.

The events are those of ``agent.run_stream_events()``, of ``agent.iter()``'s nodes (``node.stream(ctx)``), and of an
``event_stream_handler``: ``PartStartEvent``, ``PartDeltaEvent`` and ``PartEndEvent`` with ``ToolCallPart`` and
``ToolCallPartDelta`` (``args``/``args_delta`` as text, or a whole dict taken as one completed value), ``TextPart`` and
``TextPartDelta`` (text and JSON-text outputs), ``FinalResultEvent``, as objects or in their dict form
(``event_kind``, ``part_kind``, ``part_delta_kind``). Imports no pydantic-ai: the output type's markers
(``ToolOutput``, ``NativeOutput``, ``TextOutput``...) are read by their class names and fields.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Callable, NamedTuple, Optional

from .._backend import StreamingJsonParser
from .._shared import MISSING, JsonProblem
from ._fields import get_field, get_key, get_text
from ._structured_output import StructuredOutput, StructuredOutputResult, same_as_shown
from ._tool_calls import LiveToolCall, ToolCallAccumulator

__all__ = ["PydanticAIToolCalls", "PydanticAIStructuredOutput"]

_TOOL_CALL_PART = "tool-call"
_TOOL_CALL_DELTA = "tool_call"
_RUN_ENDS = frozenset(("agent_run_result",))
# The output tool's name: pydantic-ai's default, and the prefix of the names it gives each member of a union.
OUTPUT_TOOL_NAME = "final_result"


def _arguments_text(arguments: Any) -> Optional[str]:
    """Arguments as text: text as it is, a whole dict as JSON; None for anything else."""
    if isinstance(arguments, str):
        return arguments
    if isinstance(arguments, Mapping):
        return json.dumps(dict(arguments), ensure_ascii=False)
    return None


class PydanticAIToolCalls(ToolCallAccumulator[Optional[int]]):
    """Tool calls from pydantic-ai stream events (``agent.run_stream_events()``, ``agent.iter()``'s node streams).

    A ``ToolCallPart`` starts with a ``PartStartEvent`` (``tool_name``, ``tool_call_id``, maybe some ``args``), grows
    with ``PartDeltaEvent``\\ s carrying a ``ToolCallPartDelta`` (``args_delta``; a ``tool_name_delta`` adds to the
    name) and ends with its ``PartEndEvent``, whose complete part's ``args`` are taken as the call's whole text (where
    they do not continue the text streamed, the call starts over from them). Arguments given as a dict are one
    completed value. Calls are keyed by the part ``index``; ``id`` is the ``tool_call_id``. The output tool's call
    (``final_result``) is a call like the others. The run's end (``AgentRunResultEvent``) ends the calls still open.
    """

    def finish(self) -> list[LiveToolCall]:
        """End the calls still open, as read (one strict parse each): pydantic-ai's events end a call with
        ``part_end`` only in its recent releases, so the end of the events is the end of the calls. Return them."""
        return self._end_open()

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        # The fast path: an arguments delta of an open call. The events are dataclasses (each class its own instance
        # dict, so no one getter reads them all): their attributes are read as such. Any other shape: the general path.
        try:
            if type(event) is dict:
                if event["event_kind"] != "part_delta":
                    return self._feed(event)
                delta, index = event["delta"], event["index"]
                delta_fields = delta if type(delta) is dict else vars(delta)
            else:
                if event.event_kind != "part_delta":
                    return self._feed(event)
                delta, index = event.delta, event.index
                delta_fields = vars(delta)
            if delta_fields["part_delta_kind"] != _TOOL_CALL_DELTA:
                return []  # text, thinking: no call changed
            text = delta_fields["args_delta"]
            call = self._open.get(index)
            call_id = delta_fields.get("tool_call_id")
            if (
                call is not None
                and type(text) is str
                and delta_fields.get("tool_name_delta") is None
                and (call_id is None or call_id == call.id)
            ):
                if not text:
                    return []
                call.arguments = call._append_piece(text)
                return [call]
        except (AttributeError, LookupError, TypeError, ValueError):
            pass
        return self._feed(event)

    def _feed(self, event: Any) -> list[LiveToolCall]:
        """The general path: every kind of event."""
        kind = get_text(event, "event_kind")
        index = get_key(event, "index")
        if kind == "part_start":
            part = get_field(event, "part")
            if get_text(part, "part_kind") != _TOOL_CALL_PART:
                return self._finish_open([index])  # another part in the place of a call: the call is over
            changed = self._start(index, get_text(part, "tool_call_id"), get_text(part, "tool_name"))
            self._take_whole(changed[-1], get_field(part, "args"))
            return changed
        if kind == "part_delta":
            delta = get_field(event, "delta")
            if get_text(delta, "part_delta_kind") != _TOOL_CALL_DELTA:
                return []
            return self._read_delta(index, delta)
        if kind == "part_end":
            part = get_field(event, "part")
            call = self._open.get(index)
            if call is None or get_text(part, "part_kind") != _TOOL_CALL_PART:
                return []
            self._named(call, get_text(part, "tool_name"))
            text = _arguments_text(get_field(part, "args"))
            if text is not None:
                call._replace(text)
            return self._finish_open([index])
        if kind in _RUN_ENDS:
            return self._end_open()  # the run's end: the calls still open end as read
        return []

    def _read_delta(self, index: Any, delta: Any) -> list[LiveToolCall]:
        changed: list[LiveToolCall] = []
        call_id = get_text(delta, "tool_call_id")
        name = get_text(delta, "tool_name_delta")
        call = self._open.get(index)
        if call is None:  # a stream joined after the part started
            changed.extend(self._start(index, call_id, name))
            call = changed[-1]
        else:
            if call_id is not None and call.id is None:
                call.id = call_id
                changed.append(call)
            if name:
                if call.name is None:
                    self._named(call, name)
                else:
                    call.name += name  # pydantic-ai adds name deltas to the name
                changed.append(call)
        arguments = get_field(delta, "args_delta")
        if isinstance(arguments, Mapping):  # a dict delta: pydantic-ai merges it into the dict so far
            whole = {**call.arguments, **arguments} if call.text.lstrip().startswith("{") else dict(arguments)
            call._replace(json.dumps(whole, ensure_ascii=False))
            changed.append(call)
        elif call._append(arguments):
            changed.append(call)
        return changed

    @staticmethod
    def _take_whole(call: LiveToolCall, arguments: Any) -> None:
        text = _arguments_text(arguments)
        if text:
            call._replace(text)


# --- The agent's output type, as pydantic-ai builds its output schema from it ------------------------------------
#
# pydantic-ai (``_output.OutputSchema.build``) reads ``output_type`` as a list of members: a list, a tuple or a union
# is flattened; ``str`` and ``TextOutput(fn)`` are plain text; ``ToolOutput(type, name=...)`` and any other type or
# function get an output tool each; ``NativeOutput(...)``/``PromptedOutput(...)`` (alone) are JSON text. One output
# tool is named ``final_result``; several are ``final_result_<name>``, the name stripped of what a tool name cannot
# hold, a repeated one numbered ``_2``, ``_3``. Where the output is JSON text (native, prompted, and ``auto`` where the
# model's profile picks either), one member's JSON is its own; several members' is ``{"result": {"kind": <name>,
# "data": <member's JSON>}}``. A member that is not an object type (``int``, ``list[Record]``) is ``{"response":
# ...}``; a function's JSON is its arguments. The rules below are those, read from the markers' fields (no import).

_TEXT_MARKER = "TextOutput"
_TOOL_MARKER = "ToolOutput"
_JSON_TEXT_MARKERS = frozenset(("NativeOutput", "PromptedOutput"))
_NOT_READ = frozenset(("DeferredToolRequests", "BinaryImage", "PendingModelResponse"))  # outputs that are no text
_UNSAFE_IN_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")
_UNION_ORIGINS = (typing.Union, getattr(types, "UnionType", typing.Union))
# The JSON text pydantic-ai validates: the text, or the object inside the first markdown fence (``_utils``).
_FENCED_OBJECT = re.compile(r"```(?:\w+)?\r?\n(\{.*?\})\s*(?:\r?\n?```|\Z)", flags=re.DOTALL)
_NONE_TYPE = type(None)


_Function = typing.TypeVar("_Function", bound=Callable[..., Any])


def _cached(function: _Function) -> _Function:
    """``function`` remembering its last 256 answers (one class per type made, so that the typed layer's caches keep
    it; a schema's title found once), where its arguments can key a dict."""
    cached = functools.lru_cache(maxsize=256)(function)

    @functools.wraps(function)
    def call(*arguments: Any) -> Any:
        try:
            return cached(*arguments)
        except TypeError:  # an unhashable annotation
            return function(*arguments)

    return call  # type: ignore[return-value]


def _pydantic_ai_class(obj: Any) -> Optional[str]:
    """The name of pydantic-ai's class ``obj`` is an instance of (a marker such as ``NativeOutput``), else None."""
    kind = type(obj)
    return kind.__name__ if kind.__module__.startswith("pydantic_ai") else None


def _is_not_read(output: Any) -> bool:
    """Whether ``output`` is one of pydantic-ai's outputs that are no text (deferred tool calls, an image)."""
    return isinstance(output, type) and output.__module__.startswith("pydantic_ai") and output.__name__ in _NOT_READ


def _unannotated(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = tp.__origin__
    return tp


def _flattened(spec: Any) -> list[Any]:
    """The members of an output spec: lists, tuples and unions flattened (``X | Y`` is ``[X, Y]``)."""
    if isinstance(spec, (list, tuple)):
        return [member for item in spec for member in _flattened(item)]
    if typing.get_origin(_unannotated(spec)) in _UNION_ORIGINS:
        return list(typing.get_args(_unannotated(spec)))
    return [spec]


def _is_model_like(output_type: Any) -> bool:
    """Whether pydantic-ai gives ``output_type`` its own object schema: a pydantic model, a dataclass, a TypedDict
    (the rest it wraps as ``{"response": value}``)."""
    import typing_extensions
    from pydantic import BaseModel

    return (
        isinstance(output_type, type)
        and not isinstance(output_type, types.GenericAlias)
        and (
            issubclass(output_type, BaseModel)
            or dataclasses.is_dataclass(output_type)
            or typing_extensions.is_typeddict(output_type)
            or bool(getattr(output_type, "__is_model_like__", False))
        )
    )


def _is_function(output: Any) -> bool:
    return inspect.isfunction(output) or inspect.ismethod(output)


@_cached
def _wrapped(output_type: Any) -> Any:
    """``{"response": output_type}``, as pydantic-ai wraps a type that is not an object."""
    import typing_extensions  # pydantic's dependency (its TypedDict is the one pydantic takes on every Python)

    make_typed_dict: Any = typing_extensions.TypedDict
    return make_typed_dict("response", {"response": output_type})


@_cached
def _envelope(kinds: tuple[tuple[str, Any], ...]) -> Any:
    """The JSON text of a union of members, ``{"result": {"kind": ..., "data": ...}}``, as one type: a union of one
    variant per member, told apart by ``kind`` (so that ``data`` is typed as soon as ``kind`` completes)."""
    import typing_extensions
    from pydantic import Field

    make_typed_dict: Any = typing_extensions.TypedDict
    variants = tuple(
        make_typed_dict(f"Kind{number}", {"kind": typing.Literal[kind], "data": model})
        for number, (kind, model) in enumerate(kinds)
    )
    return make_typed_dict("result", {"result": typing.Annotated[typing.Union[variants], Field(discriminator="kind")]})


def _object_name(output: Any) -> Optional[str]:
    """The name pydantic-ai gives a member: its JSON schema's title (an object type's), else its ``__name__``
    (``None`` for ``None``)."""
    if not _is_function(output) and _is_model_like(_unannotated(output)):
        try:
            title = _schema_title(output)
        except Exception:  # a type pydantic cannot describe: the typed layer says so when the output starts
            title = None
        if title:
            return title
    output = _unannotated(output)
    if output is _NONE_TYPE or output is None:
        return "None"
    name = getattr(output, "__name__", None)
    return name if isinstance(name, str) else None


@_cached
def _schema_title(output: Any) -> Optional[str]:
    from pydantic import TypeAdapter

    schema = TypeAdapter(output).json_schema()
    title = schema.get("title")
    reference = schema.get("$ref")
    if not title and isinstance(reference, str):  # a recursive model: its own schema is among the definitions
        title = schema.get("$defs", {}).get(reference.rsplit("/", 1)[-1], {}).get("title")
    return title if isinstance(title, str) else None


def _numbered(name: str, taken: Mapping[str, Any]) -> str:
    """``name``, or ``name_2``, ``name_3``... where it is taken."""
    number, numbered = 1, name
    while numbered in taken:
        number += 1
        numbered = f"{name}_{number}"
    return numbered


class _Member(NamedTuple):
    """One member of the output type, and what its JSON is validated as."""

    output: Any
    """The member as ``output_type`` gives it: a type, a function (whose JSON is its arguments), ``str`` or the
    ``TextOutput`` of a text output."""
    model: Any
    """What its JSON is validated as: the type, ``{"response": type}`` for a type that is no object, a ``dict`` for a
    function's arguments; None for text."""
    wrapped: bool
    """Whether its value is the ``response`` of its JSON."""


def _member(output: Any) -> _Member:
    if _is_function(output):
        return _Member(output, dict[str, Any], False)
    if output is None:
        output = _NONE_TYPE
    if _is_model_like(_unannotated(output)):
        return _Member(output, output, False)
    return _Member(output, _wrapped(output), True)


class _JsonText(NamedTuple):
    """How an output given as JSON text is read: one member's own JSON, or a union's ``{"result": ...}``."""

    model: Any
    """What the text is validated as."""
    member: Optional[_Member]
    """The one member, or None for a union."""
    kinds: Mapping[str, _Member]
    """A union's members by ``kind``."""


def _json_text(outputs: list[Any]) -> _JsonText:
    if len(outputs) == 1:
        member = _member(outputs[0])
        return _JsonText(member.model, member, {})
    kinds: dict[str, _Member] = {}
    for output in outputs:
        kinds[_numbered(_object_name(output) or "", kinds)] = _member(output)
    return _JsonText(_envelope(tuple((kind, member.model) for kind, member in kinds.items())), None, kinds)


class _OutputSpec(NamedTuple):
    """What a run's output can be: output tools, plain text, JSON text."""

    tools: dict[str, _Member]
    """The output tools by name."""
    text: Optional[_Member]
    """The text output (``str`` or a ``TextOutput``), where text is one."""
    json_text: Optional[_JsonText]
    """How JSON text is read, where the output can be JSON text (native, prompted, or auto)."""


def _output_spec(output_type: Any) -> _OutputSpec:
    """Read ``output_type`` as pydantic-ai builds its output schema (the module's comment above)."""
    members = [member for member in _flattened(output_type) if not _is_not_read(member)]
    allows_none = any(_unannotated(member) in (None, _NONE_TYPE) for member in members)
    members = [member for member in members if _unannotated(member) not in (None, _NONE_TYPE)]
    for member in members:
        if _pydantic_ai_class(member) in _JSON_TEXT_MARKERS:
            return _OutputSpec({}, None, _json_text(_flattened(member.outputs)))
    text: Optional[_Member] = None
    tool_outputs: list[tuple[Optional[str], Any]] = []
    other_outputs: list[Any] = []
    for member in members:
        marker = _pydantic_ai_class(member)
        if member is str or marker == _TEXT_MARKER:
            text = _Member(member, None, False)
        elif marker == _TOOL_MARKER:
            tool_outputs.append((member.name, member.output))
        else:
            other_outputs.append(member)
    if allows_none and (tool_outputs or other_outputs):
        other_outputs.append(_NONE_TYPE)  # pydantic-ai offers None as an output tool of its own
    named = tool_outputs + [(None, output) for output in other_outputs]
    tools: dict[str, _Member] = {}
    for name, output in named:
        if name is None:
            name = OUTPUT_TOOL_NAME
            if len(named) > 1:
                name += "_" + _UNSAFE_IN_TOOL_NAME.sub("", _object_name(output) or "")
        tools[_numbered(name, tools)] = _member(output)
    json_text = _json_text(other_outputs) if other_outputs and not tool_outputs and text is None else None
    return _OutputSpec(tools, text, json_text)


def _unfenced(text: str) -> str:
    """The JSON pydantic-ai validates in an output's text: the text, or the object in its markdown fence."""
    if text.startswith("{"):
        return text
    match = _FENCED_OBJECT.search(text)
    return match.group(1) if match else text


def _refusal_in(error: BaseException) -> str:
    """The refusal a ``ContentFilterError`` reports: the provider's (``provider_details["refusal"]`` of the response
    in its ``body``), else the error's message."""
    try:
        responses = json.loads(getattr(error, "body", None) or "null")
        refusal = responses[-1]["provider_details"]["refusal"]
        if isinstance(refusal, str) and refusal:
            return refusal
    except (LookupError, TypeError, ValueError):
        pass
    message = getattr(error, "message", None)
    return message if isinstance(message, str) and message else str(error)


class _TextSoFar:
    """The value of a text output: its text so far, in place of a parser. A long text is copied anew once the text
    added since the last copy is an eighth of its length, so that the copies cost linear time in all (as the parser's
    snapshots do); a short one (under 4 KB) on every piece."""

    __slots__ = ("_output", "_shown", "_added")

    def __init__(self, output: StructuredOutput) -> None:
        self._output = output
        self._shown: Any = MISSING
        self._added = 0

    def append(self, piece: str) -> None:
        self._added += len(piece)

    def snapshot(self) -> Any:
        if self._added and (self._shown is MISSING or len(self._shown) < 4096 or self._added * 8 >= len(self._shown)):
            self._shown = self._output.text
            self._added = 0
        return self._shown


def _ends_response(event: Any) -> bool:
    """Whether a ``PartEndEvent`` ends the response's last part (its ``next_part_kind`` is given, and None)."""
    fields = event if type(event) is dict else getattr(event, "__dict__", None)
    return isinstance(fields, Mapping) and "next_part_kind" in fields and fields["next_part_kind"] is None


_TOOL_OUTPUT = "tool"
_TEXT_OUTPUT = "text"
# The events after a model response: its tool calls run, the run ends. The response is over.
_AFTER_RESPONSE = frozenset(
    (
        "function_tool_call",
        "output_tool_call",
        "function_tool_result",
        "output_tool_result",
        "deferred_tool_requests",
        *_RUN_ENDS,
    )
)


class PydanticAIStructuredOutput(StructuredOutput):
    """Typed output from a pydantic-ai agent's stream events, for every output type an agent takes.

    ``output_type`` is the agent's, as given to ``Agent(output_type=...)``: a pydantic model, a dataclass, a
    TypedDict or any type pydantic validates (pydantic-ai wraps the last as ``{"response": ...}``; the values here are
    unwrapped); a union or list of them (``[A, B]``, ``A | B``: an output tool each); ``ToolOutput(...)``;
    ``NativeOutput(...)`` and ``PromptedOutput(...)`` (JSON in the model's text, in a markdown fence or not); ``str``
    or ``TextOutput(fn)`` (text). ``feed(event)`` returns the value so far: ``MISSING`` until the output starts
    (and, for a union given as JSON text, until its ``kind`` names the member), then typed partial values of the
    member being read (``streaming_json.pydantic``), each completed part validated once, then one strict validation
    when the output ends (``result``, ``error``). A text output's value is its text so far, and its result the
    complete text (a ``TextOutput``'s function is the agent's to call: the run's output is its return value).
    ``member`` says which member the value is of; ``tool_name`` which output tool it came from.

    An output tool's call ends with its part; a text output with the model's response (where the response also
    calls tools, the run goes on, and the text is the output only if the run ends with it). A new output in a later
    response (pydantic-ai's retry of an invalid one) starts the output over. A refusal ends the output with
    ``refusal`` (the model's words) and ``error`` saying so: the model's text where an output tool call was asked for,
    text with no JSON in it where JSON was, or the provider's refusal (pydantic-ai's ``ContentFilterError``).
    ``stream()``/``astream()`` end the output where the run raises pydantic-ai's ``UnexpectedModelBehavior`` (a
    refusal, output retries exhausted, the token limit), keeping the exception in ``run_error``: not an exception in
    the middle of a stream. ``tool_name=`` names the one output tool where it has another name; ``coerce=True`` reads
    each member's JSON as its schema says (``streaming_json.pydantic.ModelStream(coerce=True)``), naming each repair.
    """

    def __init__(
        self,
        output_type: Any,
        *,
        tool_name: Optional[str] = None,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        self.output_type = output_type
        """The agent's output type (the constructor's argument)."""
        self._spec = _output_spec(output_type)
        if tool_name is not None:
            if len(self._spec.tools) != 1:
                raise ValueError(f"tool_name= names the one output tool: this output type has {len(self._spec.tools)}")
            self._spec.tools[tool_name] = self._spec.tools.pop(next(iter(self._spec.tools)))
        self._validate_models(parser_class)
        # Text is the output as it starts where the output type says it can be (text, native or prompted output); in
        # auto mode (output tools, or JSON text where the model's profile says so) once pydantic-ai says it is.
        self._text_is_output = self._spec.text is not None or (
            self._spec.json_text is not None and not self._spec.tools
        )
        self._unwrapping: Optional[_Member] = None  # the member whose {"response": ...} the raw value is
        self._kinds: Optional[Mapping[str, _Member]] = None  # a union's members, where the raw value is its envelope
        self._plain_text = False
        self._final = False
        self._shown_inner: Any = MISSING
        self._json_parser_class = parser_class
        super().__init__(None, parser_class=parser_class, stable=stable, coerce=coerce)
        self.tool_name: Optional[str] = None
        """The name of the output tool the value comes from; None for a text output or before the output starts."""
        self._member: Optional[_Member] = None
        self.run_error: Optional[BaseException] = None
        """The pydantic-ai exception that ended the run (``stream()``/``astream()`` keep it here and end the output:
        a ``ContentFilterError`` for a provider's refusal, ``UnexpectedModelBehavior`` when output retries ran out)."""
        # The output being read: its kind (tool or text), the part feeding it, and the response it is in.
        self._kind: Optional[str] = None
        self._index: Any = None
        self._reading = False
        self._delta_kind, self._delta_field = _TOOL_CALL_DELTA, "args_delta"
        self._output_response = 0
        self._part_offset = 0  # where the text of the part feeding a text output starts in the output's text
        # The model response the events are in.
        self._response = 0
        self._in_response = False
        self._last_index: Any = None
        self._last_part: Optional[tuple[Any, Optional[str], str]] = None  # the last part started: index, kind, text
        self._response_calls = False
        self._response_text: list[str] = []  # text that is no output, which a response ending with it refused with
        self._waiting: dict[Any, tuple[Optional[str], Optional[str], str]] = {}  # unknown calls: id, name, text

    def _validate_models(self, parser_class: Optional[Callable[..., Any]]) -> None:
        """Make the typed stream of each member once: a type pydantic cannot validate fails here, not mid-stream."""
        from ..pydantic import ModelStream  # imported only here: pydantic is an optional dependency

        spec = self._spec
        models = [member.model for member in spec.tools.values()]
        if spec.json_text is not None:
            models.append(spec.json_text.model)
        for model in models:
            ModelStream(model, parser_class=parser_class)

    @property
    def member(self) -> Any:
        """The member of the output type the value is of, as ``output_type`` gives it (a type, a function, ``str`` or
        a ``TextOutput``); None until known."""
        if self._kinds is not None:
            found = self._envelope_member(self._value)
            return None if found is None else found.output
        return None if self._member is None else self._member.output

    @property
    def value(self) -> Any:
        """The value so far: ``MISSING`` until it starts, partial while it streams, final once done (where it is
        valid)."""
        value = self._value
        if self._final:
            return value
        if self._unwrapping is not None:
            inner = value.get("response", MISSING) if isinstance(value, Mapping) else MISSING
        elif self._kinds is not None:
            inner = self._envelope_data(value)
        else:
            return value
        shown = self._shown_inner
        if inner is not shown:
            typed = self._typed
            if type(inner) is type(shown) and typed is not None and typed.is_complete() and inner == shown:
                return shown  # the envelope completed, and validated its inside again: the same value, shown once
            self._shown_inner = inner
        return inner

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value

    def _envelope_member(self, value: Any) -> Optional[_Member]:
        result = value.get("result") if isinstance(value, Mapping) else None
        kind = result.get("kind") if isinstance(result, Mapping) else None
        return self._kinds.get(kind) if isinstance(kind, str) and self._kinds is not None else None

    def _envelope_data(self, value: Any) -> Any:
        """A union's value: the ``data`` of its envelope once ``kind`` names the member, unwrapped as that member's."""
        member = self._envelope_member(value)
        if member is None:
            return MISSING
        data = value["result"].get("data", MISSING)
        if member.wrapped:
            return data.get("response", MISSING) if isinstance(data, Mapping) else MISSING
        return data

    def _restart(self) -> None:
        super()._restart()
        self._final = False
        self._shown_inner = MISSING  # the value last unwrapped from the envelope
        if self._plain_text:
            self._parser = _TextSoFar(self)

    # --- Events --------------------------------------------------------------------------------------------------

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: a delta of the part feeding the output (see PydanticAIToolCalls.feed)
            if type(event) is dict:
                kind, index, delta = event["event_kind"], event["index"], event["delta"]
                delta_fields = delta if type(delta) is dict else vars(delta)
            else:
                kind, index = event.event_kind, event.index
                delta_fields = vars(event.delta)
            if kind == "part_delta" and index == self._index and self._reading:
                text = delta_fields.get(self._delta_field)
                if type(text) is str and delta_fields["part_delta_kind"] == self._delta_kind:
                    return self._append(text)
        except (AttributeError, LookupError, TypeError, ValueError):
            pass
        return self._feed(event)

    def _feed(self, event: Any) -> Any:
        kind = get_text(event, "event_kind")
        index = get_key(event, "index")
        if kind == "part_delta":
            self._read_delta(index, get_field(event, "delta"))
        elif kind == "part_start":
            self._part_started(index, get_field(event, "part"))
        elif kind == "part_end":
            self._part_ended(index, get_field(event, "part"))
            if _ends_response(event):
                self._end_response()
        elif kind == "final_result":
            self._final_result(get_text(event, "tool_name"), get_text(event, "tool_call_id"))
        elif kind in _AFTER_RESPONSE:
            self._end_response()
            if kind in _RUN_ENDS:
                self.finish()
        return self.value

    def _part_started(self, index: Any, part: Any) -> None:
        last = self._last_index
        if not self._in_response or (type(index) is int and type(last) is int and index <= last):
            self._end_response()
            self._response += 1  # a part at an index taken: a new response
            self._in_response = True
        self._last_index = index
        part_kind = get_text(part, "part_kind")
        if part_kind == _TOOL_CALL_PART:
            self._response_calls = True
            name = get_text(part, "tool_name")
            text = _arguments_text(get_field(part, "args")) or ""
            member = self._spec.tools.get(name) if name is not None else None
            if member is not None:
                self._begin(_TOOL_OUTPUT, index, member, text, name)
            else:
                self._waiting[index] = (get_text(part, "tool_call_id"), name, text)
        elif part_kind == "text":
            content = get_text(part, "content") or ""
            if self._reading and self._kind == _TEXT_OUTPUT and self._output_response == self._response:
                self._index, self._part_offset = index, len(self.text)  # the next text part of a text output
                self._append(content)
            elif self._text_is_output:
                self._begin(_TEXT_OUTPUT, index, None, content, None)
            else:
                self._response_text.append(content)
        elif index == self._index and self._reading:
            self._reading = False  # another part in the place of the output's
        self._last_part = (index, part_kind, get_text(part, "content") or "")

    def _read_delta(self, index: Any, delta: Any) -> None:
        delta_kind = get_text(delta, "part_delta_kind")
        if index == self._index and self._reading and delta_kind == self._delta_kind:
            piece = get_field(delta, self._delta_field)
            if isinstance(piece, Mapping):  # arguments as a dict: pydantic-ai merges it into the dict so far
                self._replace_from(0, json.dumps({**self._arguments_so_far(), **piece}, ensure_ascii=False))
            elif isinstance(piece, str):
                self._append(piece)
        elif delta_kind == _TOOL_CALL_DELTA and index in self._waiting:
            piece = get_field(delta, "args_delta")
            if isinstance(piece, str):
                call_id, name, so_far = self._waiting[index]
                self._waiting[index] = (call_id or get_text(delta, "tool_call_id"), name, so_far + piece)
        elif delta_kind == "text" and self._in_response:
            piece = get_field(delta, "content_delta")
            if isinstance(piece, str):
                self._response_text.append(piece)

    def _arguments_so_far(self) -> dict[str, Any]:
        """The output tool's arguments so far as a dict (where a delta gave them whole), else an empty one."""
        try:
            arguments = json.loads(self.text or "{}")
        except ValueError:
            return {}
        return arguments if isinstance(arguments, dict) else {}

    def _part_ended(self, index: Any, part: Any) -> None:
        self._waiting.pop(index, None)
        if index != self._index or not self._reading:
            return
        if self._kind == _TOOL_OUTPUT:
            if get_text(part, "part_kind") == _TOOL_CALL_PART:
                whole = _arguments_text(get_field(part, "args"))
                if whole is not None:
                    self._replace_from(0, whole)
                self._reading = False
                self.finish()
        elif get_text(part, "part_kind") == "text":
            content = get_text(part, "content")
            if content is not None:  # the part's whole text: pieces lost on the way are found here
                self._replace_from(self._part_offset, content)

    def _final_result(self, tool_name: Optional[str], call_id: Optional[str]) -> None:
        """pydantic-ai found the part that makes the output: text (no ``tool_name``), or an output tool's call."""
        if tool_name is None:
            last = self._last_part
            reading = self._spec.text or self._spec.json_text
            if self._reading and self._kind == _TEXT_OUTPUT and self._output_response == self._response:
                return  # begun as its part started
            if last is not None and last[1] == "text" and reading is not None:
                index, _, content = last
                if self._response_text and self._response_text[-1] == content:
                    self._response_text.pop()  # the text is the output's, not words instead of one
                self._begin(_TEXT_OUTPUT, index, None, content, None)
            return
        if tool_name in self._spec.tools:
            return  # begun at its part's start
        for index, (waiting_id, name, text) in self._waiting.items():  # an output tool of a name not foreseen
            if (call_id is None or waiting_id == call_id) and name in (None, tool_name):
                tools = list(self._spec.tools.values())
                member = tools[0] if len(tools) == 1 else _Member(None, dict[str, Any], False)
                self._begin(_TOOL_OUTPUT, index, member, text, tool_name)
                return

    def _end_response(self) -> None:
        """The model response is over: a text output of it ends (unless the response called tools: the run goes on),
        and text that was no output, in a response that called no tool, was the model's refusal."""
        if not self._in_response:
            return
        self._in_response = False
        self._last_index = None
        self._last_part = None
        if self._output_response == self._response and self._kind is not None:
            if self._kind == _TEXT_OUTPUT and self._reading:
                self._reading = False
                if not self._response_calls:
                    self.finish()
        elif not self._response_calls:
            words = "".join(self._response_text).strip()
            if words:
                self._refused(words)
        self._response_calls = False
        self._response_text = []
        self._waiting.clear()

    # --- Outputs -------------------------------------------------------------------------------------------------

    def _begin(self, kind: str, index: Any, member: Optional[_Member], text: str, tool_name: Optional[str]) -> None:
        """An output starts at part ``index``: a new one, except where an output of this response is being read or
        valid already (pydantic-ai takes the first; a tool's call takes the place of a text output)."""
        if kind == _TEXT_OUTPUT and self._response_calls:
            return  # text in a response that calls tools is not the output (the calls are)
        if self._kind is not None and self._output_response == self._response:
            if self.result is not None and self.result.error is None:
                return  # the response's output is valid: pydantic-ai takes the first
            if self._reading and (self._kind == kind or self._kind == _TOOL_OUTPUT):
                return  # being read; a tool's call is not replaced by text
        self._waiting.pop(index, None)
        json_text = self._spec.json_text
        if kind == _TEXT_OUTPUT:
            member = self._spec.text if self._spec.text is not None else (json_text.member if json_text else None)
            self._plain_text = self._spec.text is not None
            self._kinds = json_text.kinds if json_text is not None and json_text.member is None else None
            model = None if self._plain_text or json_text is None else json_text.model
            self._delta_kind, self._delta_field = "text", "content_delta"
        else:
            self._plain_text, self._kinds = False, None
            model = None if member is None else member.model
            self._delta_kind, self._delta_field = _TOOL_CALL_DELTA, "args_delta"
        self._member = member
        self._unwrapping = member if member is not None and member.wrapped and not self._kinds else None
        self._model = model
        prose = kind == _TEXT_OUTPUT and model is not None
        base = self._json_parser_class or StreamingJsonParser
        self._parser_class = functools.partial(base, prose=True) if prose else base
        self.result = self.model_result = self.refusal = None
        self._restart()
        self._kind, self._index, self._reading, self._output_response = kind, index, True, self._response
        self.tool_name = tool_name
        self._part_offset = 0
        if text:
            self._append(text)

    def _refused(self, words: str) -> None:
        """The model answered with ``words`` instead of an output: the output so far is over, and it refused."""
        if self._kind is not None or self.text:
            self._kind, self._member, self._unwrapping, self._kinds, self._model = None, None, None, None, None
            self._plain_text = False
            self.tool_name = None
            self._parser_class = self._json_parser_class or StreamingJsonParser
            self.result = self.model_result = None
            self._restart()
        self.refusal = words

    def end_with(self, error: BaseException) -> bool:
        """Take the exception the run raised while its events were read: where it is pydantic-ai's
        ``UnexpectedModelBehavior`` (or a subclass, as ``ContentFilterError``), the output ends (:meth:`finish`, a
        ``ContentFilterError`` read as the provider's refusal), the exception is kept in ``run_error``, and the
        answer is True; for any other, False (re-raise it). ``stream()``/``astream()`` call it."""
        names = {klass.__name__ for klass in type(error).__mro__ if klass.__module__.startswith("pydantic_ai")}
        if "UnexpectedModelBehavior" not in names:
            return False
        self.run_error = error
        self._reading = False
        if "ContentFilterError" in names:
            self._refused(_refusal_in(error))  # the last word, whatever came before
        self.finish()
        return True

    _source_failed = end_with

    def finish(self) -> StructuredOutputResult:
        """End the output: one strict validation of the complete JSON (for JSON text, the object of its markdown
        fence where it is fenced, as pydantic-ai reads it), the value unwrapped as the member's; for a text output,
        its text. Returns the same result when called again."""
        if self.result is not None:
            return self.result
        self._reading = False
        shown = self.value
        text = self.text
        if self._plain_text:
            result = StructuredOutputResult(shown if shown == text else text, None)
        elif self._kind is None and self.refusal is None:
            detail = "the stream ended before the output started"
            reason = f"pydantic-ai ended the run without an output ({self.run_error})" if self.run_error else detail
            result = StructuredOutputResult(None, f"{reason}.", JsonProblem.at(text, "incomplete", len(text), detail))
        else:
            if self._kind == _TEXT_OUTPUT:
                json_part = _unfenced(text)
                if json_part is not text:
                    self._restart()  # the object in the fence is what is validated, as pydantic-ai does
                    self._append(json_part)
            result = super().finish()
            if result.error is not None:
                if self._kind == _TEXT_OUTPUT and self._value is MISSING and text.strip():
                    self.refusal = text.strip()  # words, and no JSON in them, where JSON was asked for
                    result = StructuredOutputResult(None, f"The model refused: {self.refusal}")
            else:
                final = self.value  # unwrapped from the validated {"response": ...} or {"result": ...}
                result = StructuredOutputResult(shown if same_as_shown(final, shown) else final, None)
        self.result = result
        if result.error is None:
            self._member = self._member if self._kinds is None else self._envelope_member(self._value)
            self._kinds = self._unwrapping = None
            self._value, self._final = result.value, True
        return result
