"""OpenAI Responses API: function calls (``response.function_call_arguments.delta`` ...) and structured output
(``response.output_text.delta``), from the raw events of ``client.responses.create(..., stream=True)`` or the events
of the SDK's ``client.responses.stream()`` helper (which have the same types)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from ._fields import ReadsEventFields, get_field, get_key, get_text, instance_dict_reader
from ._structured_output import StructuredOutput
from ._tool_calls import LiveToolCall, ToolCallAccumulator, at_length_limit

__all__ = ["OpenAIResponsesToolCalls", "OpenAIResponsesStructuredOutput"]

_ENDS = frozenset(("response.completed", "response.incomplete", "response.failed"))
# openai-agents' stream events: its RawResponsesStreamEvent carries a Responses event as ``data`` (for a
# chat-completions or LiteLLM model too, converted, its items' ids "__fake_id__": calls are keyed by output_index);
# its other events (run items, agent updates) repeat what the raw events carry.
_AGENTS_RAW_EVENT = "raw_response_event"


def _agents_data(reader: ReadsEventFields, event: Any) -> Any:
    """The Responses event an openai-agents ``RawResponsesStreamEvent`` carries. The fast paths then read such
    events' fields, not the wrapper's (a dataclass, whose instance-dict getter reads no SDK event)."""
    data = get_field(event, "data")
    if data is not None and type(data) is not dict:
        try:
            reader._fields_of(data)
        except TypeError:
            reader._fields_of = instance_dict_reader(data)
    return data


def _cut_reason(event: Any) -> Optional[str]:
    """Why the response ended before its output did (``response.incomplete``, ``.failed``); None where it did not."""
    kind = get_text(event, "type")
    if kind == "response.incomplete":
        reason = get_text(get_field(get_field(event, "response"), "incomplete_details"), "reason")
        if reason == "max_output_tokens":
            return at_length_limit(f"incomplete_details.reason {reason!r}")
        return f"the response is incomplete ({reason})" if reason else "the response is incomplete"
    return "the response failed" if kind == "response.failed" else None


class OpenAIResponsesToolCalls(ToolCallAccumulator[Optional[int]]):
    """Function calls from OpenAI Responses API stream events (the SDK's event objects or dicts).

    A call starts with ``response.output_item.added`` (an item of type ``function_call``), grows with
    ``response.function_call_arguments.delta`` and ends with ``response.function_call_arguments.done`` or
    ``response.output_item.done``, whose complete text is taken with ``replace()``: where it does not continue the
    text streamed so far, the call starts over from it. Calls are keyed by ``output_index``; ``id`` is the call's
    ``call_id``. The end of the response (``response.completed``) ends open calls; ``response.incomplete`` (a
    ``max_output_tokens`` stop) marks the call being written ``incomplete``, ``response.failed`` every open one.

    openai-agents' stream events (``Runner.run_streamed(...).stream_events()``) are read as they are: a
    ``RawResponsesStreamEvent`` gives its ``data``, the others are skipped. For chat-completions and LiteLLM models
    the agents SDK gives every item the id ``"__fake_id__"``, which is never read: calls are keyed by output index.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_item: Any = None  # the output index of the last item added, of any kind

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        # The fast path: an arguments delta. Any other shape raises here or fails a check below: the general path.
        try:
            if type(event) is dict:
                if event["type"] != "response.function_call_arguments.delta":
                    return self._feed(event)
                index, text = event["output_index"], event["delta"]
            else:  # an SDK event: the same, out of its instance dict (see _fields)
                fields = self._fields_of(event)
                if fields["type"] != "response.function_call_arguments.delta":  # every event of the SDK has a type
                    return self._feed(event)
                index, text = fields["output_index"], fields["delta"]
            call = self._open.get(index)
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        if call is not None and type(text) is str:
            if not text:
                return []
            call.arguments = call._append_piece(text)
            return [call]
        return self._feed(event)

    def _feed(self, event: Any) -> list[LiveToolCall]:
        """The general path: every kind of event."""
        kind = get_text(event, "type")
        if kind == _AGENTS_RAW_EVENT:
            return self.feed(_agents_data(self, event))
        if kind == "response.function_call_arguments.delta":
            call = self._open_call(get_key(event, "output_index"))
            return [call] if call._append(get_field(event, "delta", "")) else []
        if kind == "response.output_item.added":
            return self._start_item(get_key(event, "output_index"), get_field(event, "item"))
        if kind == "response.function_call_arguments.done":
            index = get_key(event, "output_index")
            return self._end_item(index, get_field(event, "arguments"), get_text(event, "name"))
        if kind == "response.output_item.done":
            index = get_key(event, "output_index")
            item = get_field(event, "item")
            if get_text(item, "type") != "function_call" or index not in self._open:
                return []
            return self._end_item(index, get_field(item, "arguments"), get_text(item, "name"))
        if kind in _ENDS:
            reason = _cut_reason(event)
            if reason is None:
                return self._end_open()
            if kind == "response.failed":
                return self._cut_open(list(self._open), reason)
            return self._stopped_early(list(self._open), reason, self._last_item)
        return []

    def _start_item(self, index: Optional[int], item: Any) -> list[LiveToolCall]:
        self._last_item = index
        if get_text(item, "type") != "function_call":
            return []
        changed = self._start(index, get_text(item, "call_id"), get_text(item, "name"))
        changed[-1]._replace(get_field(item, "arguments", ""))
        return changed

    def _open_call(self, index: Optional[int]) -> LiveToolCall:
        """The open call at ``index``; a new nameless one for a stream joined after its ``output_item.added``."""
        call = self._open.get(index)
        return call if call is not None else self._start(index, None, None)[-1]

    def _end_item(self, index: Optional[int], arguments: Optional[str], name: Optional[str]) -> list[LiveToolCall]:
        call = self._open_call(index)
        self._named(call, name)
        if arguments is not None:
            call._replace(arguments)
        return self._finish_open([index])


class OpenAIResponsesStructuredOutput(StructuredOutput):
    """Structured output from OpenAI Responses API stream events: the text of ``response.output_text.delta`` events
    (all output text parts in order, as the SDK's ``response.output_text`` joins them), under a JSON-schema
    ``text.format``.

    ``feed(event)`` returns the value so far (``MISSING`` until it starts); the SDK's own helper parses only at
    ``response.output_text.done``. A part's ``output_text.done`` text is taken as its complete text (appending what
    deltas lost, starting over where it differs); the end of the response (``response.completed``, ``.incomplete``,
    ``.failed``) ends the output with one strict parse. A refusal (``response.refusal.delta``) is kept in
    ``refusal``. ``model=`` gives typed values, as for :class:`OpenAIChatStructuredOutput`. openai-agents' stream
    events are read as they are (see :class:`OpenAIResponsesToolCalls`): an agent's ``output_type`` streams as
    partial values.
    """

    def __init__(
        self,
        model: Any = None,
        *,
        parser_class: Optional[Callable[..., Any]] = None,
        stable: bool = True,
        coerce: bool = False,
    ) -> None:
        super().__init__(model, parser_class=parser_class, stable=stable, coerce=coerce)
        self._part: Any = None  # (output_index, content_index) of the part being read
        self._part_start = 0  # where its text starts in the text

    def feed(self, event: Any) -> Any:
        """Read one event; return the value so far."""
        try:  # the fast path: a text delta of the current part (see OpenAIResponsesToolCalls.feed)
            if type(event) is dict:
                if event["type"] != "response.output_text.delta":
                    return self._feed(event)
                part, text = (event["output_index"], event["content_index"]), event["delta"]
            else:
                fields = self._fields_of(event)
                if fields["type"] != "response.output_text.delta":
                    return self._feed(event)
                part, text = (fields["output_index"], fields["content_index"]), fields["delta"]
        except (AttributeError, LookupError, TypeError):
            return self._feed(event)
        if type(text) is str and part == self._part:
            return self._append(text)
        return self._feed(event)

    def _feed(self, event: Any) -> Any:
        kind = get_text(event, "type")
        if kind == _AGENTS_RAW_EVENT:
            return self.feed(_agents_data(self, event))
        if kind == "response.output_text.delta":
            self._enter_part(event)
            text = get_field(event, "delta")
            if isinstance(text, str):
                self._append(text)
        elif kind == "response.output_text.done":
            text = get_field(event, "text")
            if isinstance(text, str) and self.result is None:
                if self._enter_part(event):
                    self._append(text)
                else:
                    self._replace_from(self._part_start, text)
        elif kind == "response.refusal.delta":
            self._append_refusal(get_field(event, "delta"))
        elif kind == "response.incomplete":
            self._stopped_early(_cut_reason(event) or kind)
        elif kind in _ENDS:
            self.finish()
        return self.value

    def _enter_part(self, event: Any) -> bool:
        """Make the event's text part the current one; return whether it is a new part."""
        part = (get_key(event, "output_index"), get_key(event, "content_index"))
        if part == self._part:
            return False
        self._part = part
        self._part_start = len(self.text)
        return True
