"""A drop-in for transformers' streaming ``ResponseParser``: its constructor, ``feed`` and ``finalize``, over the
one engine (a compiled ``response_template`` read by :class:`ModelOutputStream`).

Its final message is transformers' for every template that compiles: ``{"role": "assistant", "content": ...,
"reasoning_content": ..., "tool_calls": [{"type": "function", "function": {"name": ..., "arguments": {...}}}]}`` with
transformers' rules (each field's last region wins, text stripped, empty fields dropped, arguments cast by the
tools' schemas). Its events are transformers' three kinds, for every field: ``region_open``, ``region_chunk``
(``dirty`` as transformers says it: ``True`` in a structured field) and ``region_close`` with the value; but where
transformers' chunks of a call are the raw body, parsed only at the close, ours are the arguments' JSON text as it
streams (``"arguments"`` beside ``"text"``; the call's ``"index"`` and ``"name"`` in each of its events).
"""

from __future__ import annotations

import json
from typing import Any, Optional, Union

from ._events import ArgumentsDelta, ContentDelta, ReasoningDelta, ToolCallEnd, ToolCallStart
from ._formats import ToolCallFormat
from ._response_template import ResponseTemplate, compile_response_template
from ._stream import ModelOutputStream

__all__ = ["ResponseParser", "parse_response"]


def _schema_types(schema: Any) -> tuple[str, ...]:
    """A parameter's types as transformers reads them (``type``, its list, ``anyOf``/``oneOf``, ``nullable``)."""
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(t for t in declared if isinstance(t, str))
    for union in ("anyOf", "oneOf"):
        for choice in schema.get(union) or []:
            types.extend(_schema_types(choice))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _cast(raw: str, types: tuple[str, ...]) -> Any:
    """transformers' cast of a string argument: the first of its schema's types that reads it, else the string."""
    for name in types:
        try:
            if name == "integer":
                try:
                    return int(raw)
                except ValueError:
                    number = float(raw)
                    if number.is_integer():
                        return int(number)
                    continue
            if name == "number":
                number = float(raw)
                if number != number or number in (float("inf"), float("-inf")):
                    continue
                return int(number) if number.is_integer() and "." not in raw else number
            if name == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
                return raw.strip().lower() in ("true", "1")
            if name == "null" and raw.strip() in ("null", "None"):
                return None
            if name in ("object", "array"):
                decoded = json.loads(raw)
                if isinstance(decoded, dict if name == "object" else list):
                    return decoded
        except ValueError:
            continue
    return raw


def _tool_properties(tools: Any) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for tool in tools or []:
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            found[function["name"]] = properties if isinstance(properties, dict) else {}
    return found


class ResponseParser:
    """transformers' ``ResponseParser(response_template, prefix, *, tools=None)``: ``feed(text)`` returns the events
    of a piece, ``finalize()`` the message and the last events; ``initial_events`` are those of the prompt's tail
    (the text after the template's ``start_anchor``). It takes text, not token ids (``tokenizer=`` is refused);
    ``parser_class`` is :class:`ModelOutputStream`'s.
    A template the engine cannot stream raises ``ValueError`` naming the field and the feature."""

    def __init__(
        self,
        response_template: Any,
        prefix: Optional[str] = None,
        *,
        tools: Any = None,
        tokenizer: Any = None,
        parser_class: Any = None,
    ) -> None:
        if tokenizer is not None:
            raise ValueError("this ResponseParser reads text: feed it the decoded text, not token ids")
        if prefix is None:
            raise ValueError(
                "ResponseParser requires `prefix` (the chat prompt sent to the model before generation); "
                'pass prefix="" where the generation holds the whole message'
            )
        compiled = compile_response_template(response_template)
        self.template: ResponseTemplate = compiled
        """The template compiled."""
        self.format = ToolCallFormat.from_response_template(compiled)
        """The format the engine reads."""
        self._properties = _tool_properties(tools)
        self._typed_payload = self.format.payload != "parameters"  # JSON's own types (transformers' "typed")
        self._stream_options = {"tools": tools if self._properties else None, "parser_class": parser_class}
        self._stream = ModelOutputStream(self.format, **self._stream_options)
        self._output: dict[str, Any] = json.loads(json.dumps(compiled.defaults))
        self._field: Optional[str] = None  # the open region: a field's name, or None
        self._text: list[str] = []  # its text so far
        self._chunks: dict[int, dict[str, Any]] = {}  # the calls open, by index: each one's region_chunk, text to set
        self._feed_stream = self._stream.feed  # finalize() puts _refuse_feed here
        self._finalized = False
        # A reasoning block that opens at the start of the text (ERNIE's (?:^|<think>\s*)) opens there unless another
        # field's opener stands at the very start (transformers takes the longer match there): the text's start is
        # held until it says which, then the stream is made inside the block or not.
        self._start_held = ""
        self._start_openers: tuple[str, ...] = ()
        if compiled.reasoning_at_start:
            format = self.format
            openers = (*format.content_begin, format.call_begin, *format.section_begin, *format.output_section_begin)
            self._start_openers = tuple(opener for opener in openers if opener)
            self._feed_stream = self._feed_start
        self.initial_events: list[dict[str, Any]] = []
        if prefix:
            self.initial_events = self._events(self._feed_stream(compiled.prompt_tail(prefix)))

    def _feed_start(self, text: Union[str, bytes, bytearray, memoryview], at_end: bool = False) -> list[Any]:
        """The text's start, until it says whether the reasoning block opens there (see ``__init__``)."""
        held = self._start_held = self._start_held + str(text)
        if not at_end and any(len(held) < len(opener) and opener.startswith(held) for opener in self._start_openers):
            return []
        inside = not any(held.startswith(opener) for opener in self._start_openers)
        self._stream = ModelOutputStream(self.format, reasoning_open=inside, **self._stream_options)
        self._feed_stream = self._stream.feed
        return self._stream.feed(held)

    def feed(self, text: str) -> list[dict[str, Any]]:
        """The events that ``text``, the next piece of the output, completes."""
        if not isinstance(text, str):
            raise TypeError("feed() takes the output's text")
        events = self._feed_stream(text)
        if len(events) == 1:
            event = events[0]
            if type(event) is ArgumentsDelta:  # the common piece: more of a call's arguments, one fresh event
                chunk = self._chunks[event[0]].copy()  # a copy of a prepared dict costs less than a literal's keys
                chunk["text"] = chunk["arguments"] = event[1]
                return [chunk]
        return self._events(events) if events else []

    def _refuse_feed(self, text: Union[str, bytes, bytearray, memoryview]) -> list[Any]:
        raise RuntimeError("ResponseParser already finalized")

    def finalize(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """End the output: the message, and the events its end completes."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        self._finalized = True
        started = self._feed_start("", at_end=True) if self._feed_stream == self._feed_start else []
        self._feed_stream = self._refuse_feed
        events = self._events(started + self._stream.finish())
        self._close(events, at_end=True)
        defaults = self.template.defaults
        self._output = {
            key: value
            for key, value in self._output.items()
            if key in defaults or not (value is None or (isinstance(value, (list, dict, str)) and not value))
        }
        return self._output, events

    # --- Regions ---------------------------------------------------------------------------------------------------

    def _events(self, events: list[Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        template = self.template
        for event in events:
            kind = type(event)
            if kind is ContentDelta:
                self._chunk(out, template.content_field, event.text, False)
            elif kind is ReasoningDelta:
                self._chunk(out, template.reasoning_field, event.text, False)
            elif kind is ArgumentsDelta:
                chunk = self._chunks[event.index].copy()
                chunk["text"] = chunk["arguments"] = event.text
                out.append(chunk)
            elif kind is ToolCallStart:
                self._close(out, before_call=True)
                self._field = template.calls_field
                self._chunks[event.index] = {
                    "type": "region_chunk",
                    "field": template.calls_field,
                    "text": "",
                    "dirty": True,
                    "index": event.index,
                    "name": event.name,
                    "arguments": "",
                }
                out.append({"type": "region_open", "field": template.calls_field, "index": event.index})
                out[-1]["name"] = event.name
            elif kind is ToolCallEnd:
                value = self._call_value(self._chunks.pop(event.index)["name"], event.arguments)
                self._output.setdefault(template.calls_field, []).append(value)
                out.append({"type": "region_close", "field": template.calls_field, "value": value})
                out[-1]["index"] = event.index
                self._field = None
        return out

    def _chunk(self, out: list[dict[str, Any]], field: Optional[str], text: str, dirty: bool) -> None:
        if field is None:
            return
        if self._field != field:
            self._close(out)
            self._field = field
            self._text = []
        if not self._text:
            out.append({"type": "region_open", "field": field})
        self._text.append(text)
        out.append({"type": "region_chunk", "field": field, "text": text, "dirty": dirty})

    def _close(self, out: list[dict[str, Any]], *, before_call: bool = False, at_end: bool = False) -> None:
        """The open text region ends: its value is the field's (the last region wins, as in transformers)."""
        field, template = self._field, self.template
        if field is None or field == template.calls_field or not self._text:
            self._field, self._text = None, []
            return
        text = "".join(self._text)
        self._field, self._text = None, []
        if field == template.content_field and not text.strip():
            # Blanks an opener's or the closer's leading \s* swallows open no region in transformers.
            if before_call and not template.blanks_before_call_are_content:
                return
            if at_end and not template.blanks_before_close_are_content:
                return
        strip = template.strip_content if field == template.content_field else template.strip_reasoning
        value = text.strip() if strip else text
        previous = self._output.get(field)
        if field in template.joined_fields and isinstance(previous, str):  # "join": "", each region after the last
            self._output[field] = previous + value
        else:
            self._output[field] = value
        out.append({"type": "region_close", "field": field, "value": value})

    def _call_value(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A call as the template's transform shapes it, its arguments cast as transformers casts them."""
        properties = self._properties.get(name)
        if properties:
            for key, argument in arguments.items():
                types = _schema_types(properties.get(key))
                if not types or (self._typed_payload and "string" in types):
                    continue
                if isinstance(argument, str):
                    arguments[key] = _cast(argument, types)
        return {"type": "function", "function": {"name": name, "arguments": arguments}}


def parse_response(
    text: str, response_template: Any, *, prefix: Optional[str] = None, tools: Any = None
) -> dict[str, Any]:
    """transformers' ``parse_response``: the message of a whole output (``prefix`` as :class:`ResponseParser`)."""
    parser = ResponseParser(response_template, prefix=prefix, tools=tools)
    parser.feed(text)
    return parser.finalize()[0]
