"""pydantic-ai: tool calls and typed structured output from an agent's stream events, each piece read once.

pydantic-ai's own ``stream_output()`` rebuilds the response and validates the output tool's whole arguments with
``allow_partial`` once per debounce window (once per event with ``debounce_by=None``), and swallows the errors. Here
the events' argument deltas go once each into one parser; the output is validated as its parts complete
(``streaming_json.pydantic``) and once, strictly, at the end.

The events are those of ``agent.run_stream_events()``, of ``agent.iter()``'s nodes (``node.stream(ctx)``), and of an
``event_stream_handler``: ``PartStartEvent``, ``PartDeltaEvent`` and ``PartEndEvent`` with ``ToolCallPart`` and
``ToolCallPartDelta`` (``args``/``args_delta`` as text, or a whole dict taken as one completed value), as objects or in
their dict form (``event_kind``, ``part_kind``, ``part_delta_kind``). Imports no pydantic-ai.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._shared import MISSING
from ._fields import get_field, get_key, get_text
from ._structured_output import StructuredOutput, StructuredOutputResult
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


def _is_model_like(output_type: Any) -> bool:
    """Whether pydantic-ai gives ``output_type`` its own object schema: a pydantic model, a dataclass, a TypedDict
    (the rest it wraps as ``{"response": value}``)."""
    from typing_extensions import is_typeddict

    if dataclasses.is_dataclass(output_type) or is_typeddict(output_type):
        return True
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - the typed layer needs pydantic anyway
        return False
    return isinstance(output_type, type) and issubclass(output_type, BaseModel)


class PydanticAIStructuredOutput(StructuredOutput):
    """Typed structured output from a pydantic-ai agent's stream events: the arguments of its output tool's call.

    ``output_type`` is the agent's (a pydantic model, a dataclass, a TypedDict, or any type pydantic validates, which
    pydantic-ai wraps as ``{"response": ...}``; the values here are unwrapped). ``feed(event)`` returns the value so far
    (``MISSING`` until the output tool's call starts): typed partial values (``streaming_json.pydantic``), each
    completed part validated once, then one strict validation when the call's part ends (``result``, ``error``). A
    new call of the output tool after an invalid one (the agent's retry) starts the output over.

    The output tool is the one named ``tool_name`` (by default pydantic-ai's ``final_result``), or the one a
    ``FinalResultEvent`` names.
    """

    def __init__(
        self,
        output_type: Any,
        *,
        tool_name: Optional[str] = None,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
    ) -> None:
        self.output_type = output_type
        """The agent's output type (the constructor's argument)."""
        self._wrapped = not _is_model_like(output_type)
        if self._wrapped:
            from typing_extensions import TypedDict

            make_typed_dict: Any = TypedDict  # as pydantic-ai wraps the type
            model: Any = make_typed_dict("response", {"response": output_type})
        else:
            model = output_type
        super().__init__(model, parser_class=parser_class, stable=stable)
        self.tool_name = tool_name or OUTPUT_TOOL_NAME
        """The output tool's name."""
        self._index: Any = None  # the part index of the output tool's call, while it streams
        self._reading = False
        self._waiting: dict[Any, tuple[Optional[str], str]] = {}  # other tool calls' parts: (id, text so far)

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: an arguments delta of the output tool's call (see PydanticAIToolCalls.feed)
            if type(event) is dict:
                kind, index, delta = event["event_kind"], event["index"], event["delta"]
                delta_fields = delta if type(delta) is dict else vars(delta)
            else:
                kind, index = event.event_kind, event.index
                delta_fields = vars(event.delta)
            if kind == "part_delta" and index == self._index and self._reading:
                text = delta_fields["args_delta"]
                if type(text) is str and delta_fields["part_delta_kind"] == _TOOL_CALL_DELTA:
                    return self._append(text)
        except (AttributeError, LookupError, TypeError, ValueError):
            pass
        return self._feed(event)

    @property
    def value(self) -> Any:
        """The value so far: ``MISSING`` until it starts, partial while it streams, final once done (where it is
        valid)."""
        value = self._value
        if self._wrapped and isinstance(value, Mapping) and (self.result is None or self.result.error is not None):
            return value.get("response", MISSING)  # a partial {"response": ...}
        return value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value

    def _feed(self, event: Any) -> Any:
        kind = get_text(event, "event_kind")
        index = get_key(event, "index")
        if kind == "part_start":
            part = get_field(event, "part")
            if get_text(part, "part_kind") == _TOOL_CALL_PART:
                name = get_text(part, "tool_name")
                text = _arguments_text(get_field(part, "args")) or ""
                if name == self.tool_name:
                    self._begin(index, text)
                else:
                    self._waiting[index] = (get_text(part, "tool_call_id"), text)
            elif index == self._index:
                self._reading = False
        elif kind == "final_result":
            call_id, name = get_text(event, "tool_call_id"), get_text(event, "tool_name")
            if name is not None and not self._reading:
                for waiting_index, (waiting_id, text) in self._waiting.items():
                    if call_id is None or waiting_id == call_id:
                        self.tool_name = name
                        self._begin(waiting_index, text)
                        break
        elif kind == "part_delta" and index == self._index and self._reading:
            delta = get_field(event, "delta")
            if get_text(delta, "part_delta_kind") == _TOOL_CALL_DELTA:
                arguments = get_field(delta, "args_delta")
                delta_text = _arguments_text(arguments)
                if isinstance(arguments, Mapping):
                    self._replace_from(0, delta_text or "")
                elif delta_text:
                    self._append(delta_text)
        elif kind == "part_delta" and index in self._waiting:
            delta = get_field(event, "delta")
            piece = get_field(delta, "args_delta")
            if isinstance(piece, str):
                call_id, so_far = self._waiting[index]
                self._waiting[index] = (call_id or get_text(delta, "tool_call_id"), so_far + piece)
        elif kind == "part_end" and index == self._index and self._reading:
            whole = _arguments_text(get_field(get_field(event, "part"), "args"))
            if whole is not None:
                self._replace_from(0, whole)
            self._reading = False
            self.finish()
        elif kind == "part_end":
            self._waiting.pop(index, None)
        elif kind in _RUN_ENDS and self._reading:
            self.finish()
        return self.value

    def _begin(self, index: Any, text: str) -> None:
        """The output tool's call starts at part ``index``: a new output, where there is none yet or the last one
        was invalid (a retry)."""
        if self.result is not None and self.result.error is None:
            return  # the output is done: pydantic-ai ends the run with it
        self._waiting.pop(index, None)
        if self.result is not None or self.text:
            self.result = None
            self.model_result = None
            self._restart()
        self._index, self._reading = index, True
        if text:
            self._append(text)

    def finish(self) -> Any:
        """End the output: one strict validation of the complete arguments, as for the SDK adapters' structured output;
        the value unwrapped from ``{"response": ...}`` where pydantic-ai wraps it. Returns the same result when called
        again."""
        if self.result is not None:
            return self.result
        result = super().finish()
        if self._wrapped and result.error is None and isinstance(result.value, Mapping):
            result = StructuredOutputResult(result.value.get("response"), None)
            self.result = result
            self._value = result.value
        return result
