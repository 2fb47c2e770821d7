"""``ModelOutputStream``: a model's raw output, in pieces, as content, reasoning and tool calls with exact argument
deltas, read in one pass.

How a piece is read. The stream is always in one place of the output: content (where the format has a content
block, ``content_begin``, the text outside it, which is dropped, or the block), a reasoning block, a section of
calls, a call's header, a call's JSON, or what follows the JSON up to the call's end marker; for the formats that
write arguments as text (``"parameters"``, ``"literal"``), between two parameters, a parameter's header, its value.
Each place has a reader that takes the text up to where the place ends and the marker that ends it; text at the end
of a piece that could begin such a marker is held back until the next piece decides (so ``<tool`` in prose comes out
as content as soon as the next character says it is no marker). A call's JSON goes to a parser of the core, which
reports the source text of the arguments verbatim (``source_paths``), the name when it completes, and where the JSON
ended: the text after it goes back to the markers. A marker inside the JSON ends the call only where it is not
inside a JSON string.

The formats that write arguments as text: the layer writes the arguments' JSON itself, ``{"key": value, ...}``
(``json.dumps``' separators). A string value's text goes out as it arrives, as JSON string content (escaped by
``json``'s C encoder), holding back only what could begin a marker and the newline the format's trimming sheds;
any other value goes out when it ends, typed by the tool's JSON Schema (``_values.typed_json``), a number or JSON
value as the model wrote it. The rules for each format's values are in the docs (*Typing*).

The rules for text that breaks the format, so that nothing raises and every call that starts ends once:

- A call's end marker, another call's begin marker or the section's end marker, outside a JSON string, ends a call
  whose JSON is not complete: it ends with an error saying its arguments are incomplete. So does the end of the
  output, wherever it falls inside a call.
- A call without a name ends with an error; one whose name is not among ``tools``, too; one that gives its arguments
  (or a parameter) twice, too; and one with a value that is none of its types, naming the parameter. A call that
  writes no arguments gets ``{}``.
- Text after a call's JSON that is not its end marker, or in a section that is not a call, ends the call's envelope
  or the section: it is content. A header that reaches no arguments marker within 1,024 characters was no call: its
  marker and text are content. A header ended by an end or begin marker is a call without arguments (an error).
- In the text formats, a value's end marker forgotten before the next parameter or the call's end is forgiven (as
  vLLM's and SGLang's parsers forgive it; GLM's values end at their end marker or the call's: vLLM's GLM engine
  reads ``<arg_key>`` in a value as its text); text between parameters that is no parameter is an error of the call.

Cost. Each character is read once, by the core (a call's JSON) or by ``str.find`` (markers); per piece, the layer
makes a few calls and one or two events. Nothing is re-parsed or re-serialised: a call's arguments are parsed once,
strictly, when it ends. The common pieces (more of one call's JSON arguments, more of one string value's text) take
the relay's fast paths (``_relay_pure.py``, compiled in ``_relay.pyx``): a piece that continues what the last one
left open, holding no character that could end it, is read without the places above.
"""

from __future__ import annotations

import codecs
import json
import random
import re
import unicodedata
from json.encoder import encode_basestring as _escape  # C's c_encode_basestring: a string's JSON, quotes included
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from .._backend import StreamingJsonParser
from .._repair import parse_tool_call_arguments
from ._events import ArgumentsDelta, ContentDelta, ModelOutputEvent, ReasoningDelta, ToolCallEnd, ToolCallStart
from ._formats import FORMATS, LiteralSyntax, ParameterSyntax, ToolCallFormat
from ._markers import Markers
from ._relay_pure import Relay as _PureRelay
from ._schemas import STRING, ToolSchemas, describe_types
from ._values import (
    bare_word_json,
    element_value_json,
    gemma_literal_json,
    python_literal_json,
    repaired_typed_json,
    typed_json,
)

try:  # feed's fast paths compiled, for the compiled core's parser (built beside it)
    from ._relay import COMPILED_PARSER as _COMPILED_PARSER
    from ._relay import Relay as _CompiledRelay
except ImportError:  # no compiled core: every stream takes the pure relay
    _COMPILED_PARSER = _CompiledRelay = None

__all__ = ["ModelOutputStream"]

_BLANKS = " \t\n\r"
_NOT_BLANK = re.compile(r"[^ \t\n\r]")


def _skip_blanks(text: str, position: int) -> int:
    """The position of the first character at or after ``position`` that is not a blank (``len(text)`` if none)."""
    found = _NOT_BLANK.search(text, position)
    return len(text) if found is None else found.start()


_ROOT_PATHS = ((),)
_HEADER_LIMIT = 1024
_new = tuple.__new__  # builds an event without a Python-level __new__: every piece's events are made here

# How a value of the text formats is read: streamed out as JSON string content, kept whole to be typed when it ends
# (raw text by its schema; JSON as written; a Python or Gemma literal), or dropped (a value without a name).
_STREAM, _TYPED, _JSON, _PYTHON, _GEMMA, _DISCARD = "stream", "typed", "json", "python", "gemma", "discard"
# (A value without a schema in a format whose values nest: kept until its first character that is not blank says
# whether it is an element tree, kept whole, or a string, streamed from there.)
_PENDING = "pending"
# (A value that is JSON where its whole text is, else its text (json_or_text): kept while it may still be JSON,
# undecided while its text so far may begin a JSON value or a name, decided JSON-or-text once it begins with one of
# _JSON_FIRSTS; streamed as a string once it cannot be JSON.)
_UNDECIDED, _JSON_OR_TEXT = "undecided", "json or text"
_JSON_FIRSTS = frozenset('{["-0123456789')
_JSON_NAMES = ("true", "false", "null")


_random_ids = random.Random()  # seeded from the system's entropy; a call id must be unique, not secret


def _fresh_call_id(index: int) -> str:
    return f"call_{_random_ids.getrandbits(96):024x}"


def _firsts(markers: Markers) -> str:
    return "".join(sorted({marker[0] for marker in markers.markers}))


class _Markers:
    """What a format (and a reasoning block) looks for in each place: made once per format, shared by its streams."""

    def __init__(self, format: ToolCallFormat, reasoning: Optional[tuple[str, str]]) -> None:
        channels = format.channels
        message_end = channels.message_end if channels is not None else ()
        calls = (format.call_begin, *format.section_begin)
        self.content = Markers(
            *calls, reasoning[0] if reasoning else None, *message_end, *format.ignored_markers, *format.content_begin
        )
        # Inside the content that content_begin opens, only content_end ends it.
        self.content_block = Markers(*format.content_end)
        self.content_block_firsts = _firsts(self.content_block)
        ends_reasoning = calls if format.calls_end_reasoning or channels is not None else ()
        self.reasoning = Markers(reasoning[1] if reasoning else None, *ends_reasoning, *message_end)
        self.section = Markers(*format.section_end, format.call_begin, *format.ignored_markers)
        self.stops = Markers(format.call_end, format.call_begin, *format.section_end, *message_end)  # end a call
        parameters = format.parameters
        first_parameter = parameters.begin if parameters is not None and format.header_end is None else None
        json_start = "{" if format.json_ends_header else None
        header_ends = (format.header_end, format.empty_call_end, first_parameter, json_start)
        self.header = Markers(*header_ends, *self.stops.markers)
        self.after_json = Markers(format.arguments_end, *self.stops.markers)
        self.between_calls = _BLANKS + format.separators + ("[]" if format.section_brackets else "")
        # A piece with none of these characters holds no marker, nor the beginning of one (feed's fast paths).
        self.content_firsts = _firsts(self.content)
        self.stop_firsts = _firsts(self.stops)
        # The one character to look for where all the stop markers begin with it (most formats' "<" or "["): one
        # search a piece. Without stop markers, a character that seldom comes (a piece holding it takes the general
        # path, which is never wrong); None where they begin with several.
        self.stop_first = self.stop_firsts if len(self.stop_firsts) == 1 else ("\uffff" if not self.stops else None)
        # The parsers' source paths: the arguments of one call object, or of each in an array of them.
        self.call_paths = tuple((key,) for key in format.arguments_keys)
        self.array_paths = tuple(("*", key) for key in format.arguments_keys)
        # The text formats' places. A value's end: its end marker, or (forgotten) the next parameter or the call's end.
        if parameters is not None:
            self.between_parameters = Markers(parameters.begin, *self.stops.markers)
            # (A line's end ends its header too, where each parameter is a line: a line without header_end.)
            line_end = parameters.end if parameters.lines else None
            self.parameter_header = Markers(parameters.header_end, line_end, *self.stops.markers)
            self.value_begin = Markers(parameters.value_begin, *self.stops.markers)
            next_parameter = parameters.begin if parameters.next_parameter_ends_value or parameters.nested else None
            self.value = Markers(parameters.end, next_parameter, *self.stops.markers)
            self.closing_name = Markers(parameters.header_end, *self.stops.markers)
            # A value's markers that begin a longer one (MiniMax-M3's "]<]minimax[>[<" and "]<]minimax[>[</invoke>"):
            # found at a piece's end, they wait for the next piece to say which it is.
            self.value_longer = {
                marker: longer
                for marker in self.value.markers
                if (
                    longer := tuple(
                        other for other in self.value.markers if other != marker and other.startswith(marker)
                    )
                )
            }
            self.value_firsts = _firsts(self.value)
        self.output_section = Markers(*format.output_section_begin)
        literal = format.literal
        if literal is not None:
            # Inside the arguments of a literal call, only the call's own markers end it (a pythonic section's "]"
            # is text there).
            self.literal_stops = Markers(format.call_end, format.call_begin)
            self.quotes = Markers(*literal.quotes)
            self.string = Markers(*literal.quotes, *self.literal_stops.markers)  # quotes of one marker, no escapes
            self.string_firsts = _firsts(self.string)  # (a Python string's: its quote's and the backslash)
            self.other = Markers(*literal.quotes, *self.literal_stops.markers)
            self.names = dict(literal.names)


_markers_of: dict[tuple[ToolCallFormat, Optional[tuple[str, str]]], _Markers] = {}


class _Call:
    """One tool call being read: what is known of it, and its argument text so far."""

    __slots__ = (
        "index",
        "id",
        "name",
        "started",
        "chunks",
        "arguments_key",
        "string_arguments",
        "arguments_done",
        "error",
        "opened",
        "keys",
        "repairs",
    )

    def __init__(self, name: Optional[str] = None, id: Optional[str] = None) -> None:
        self.index = -1
        self.id = id
        self.name = name
        self.started = False  # its start event is out: it has its index, and its argument text goes out as read
        self.chunks: list[str] = []  # all its argument text, for the one strict parse at the end
        self.arguments_key: Any = None  # in a call object: the key its arguments came under
        self.string_arguments = False  # the arguments are a JSON string holding the JSON: its content is the text
        self.arguments_done = False
        self.error: Optional[str] = None  # a problem found before the end (arguments given twice)
        self.opened = False  # the text formats: the "{" of the arguments' JSON is out
        self.keys: set[str] = set()  # the text formats: the parameters given so far
        self.repairs: list[tuple[tuple[str, ...], str]] = []  # the text formats: values read after an unwrapping


class _FeedSlot:
    """Where a stream keeps its ``feed``: its relay's own (``ModelOutputStream.__init__`` sets it). A slot is a data
    descriptor of the type, found before the instance's dict is looked in: ``stream.feed(piece)`` costs a piece what
    a method call does, and no Python frame runs before the relay's. A subclass's own ``feed`` comes first in its
    type, as any method's does, and ``super().feed`` is the relay's."""

    __slots__ = {"feed": "Read the next piece of the output (``str``, or UTF-8 bytes); return the events it completed."}

    if TYPE_CHECKING:

        def feed(self, text: Union[str, bytes, bytearray, memoryview]) -> list[ModelOutputEvent]: ...


_FEED = _FeedSlot.__dict__["feed"]


class ModelOutputStream(_FeedSlot):
    """A model's raw output, fed in pieces, as events: content, reasoning, and tool calls whose argument deltas are
    exactly the JSON the model wrote (or, for the formats that write arguments as text, the JSON of the values the
    text holds, typed by the tools' schemas).

    ``format`` is a built-in format's name (a key of ``FORMATS``: ``"hermes"``, ``"mistral"``, ``"qwen3_coder"``,
    ``"glm47"``, ``"harmony"``, ...) or a :class:`ToolCallFormat`. ``tools``, if given, are the tools the model may
    call: their names (a call to another ends with an error), or their definitions, OpenAI's
    ``[{"type": "function", "function": {"name": ..., "parameters": {...}}}]`` (dicts, or an SDK's or server's objects
    with those attributes) or a mapping of name to the parameters' JSON Schema, whose types type the parameters of the
    text formats. ``reasoning`` is a reasoning block's begin and end markers (``("<think>", "</think>")``; by default
    the format's own, where it has them); with ``reasoning_open=True`` the output starts inside the block (the chat
    template opened it). ``new_call_id(index)`` makes the id of a call whose format carries none (by default a fresh
    ``call_`` and 24 hex digits). ``parser_class`` is the core's parser to read the calls' JSON with (by default the
    package's).

    ``feed(text)`` returns the events a piece completed (``str``, or UTF-8 bytes); ``finish()`` those the end of the
    output completes: held-back text, and the end of a call left open, with an error saying it was cut off. Neither
    raises on any text, and every call that starts ends exactly once. See the module documentation for the rules.
    """

    def __init__(
        self,
        format: Union[str, ToolCallFormat],
        *,
        tools: Any = None,
        reasoning: Optional[tuple[str, str]] = None,
        reasoning_open: bool = False,
        new_call_id: Optional[Callable[[int], str]] = None,
        parser_class: Optional[Callable[..., Any]] = None,
    ) -> None:
        if isinstance(format, str):
            if format not in FORMATS:
                raise ValueError(f"unknown format {format!r}; the built-in ones are: {', '.join(sorted(FORMATS))}")
            format = FORMATS[format]
        elif not isinstance(format, ToolCallFormat):
            raise TypeError(f"format must be a format's name or a ToolCallFormat, not {type(format).__name__}")
        if reasoning is not None:
            if len(reasoning) != 2 or not all(isinstance(marker, str) and marker for marker in reasoning):
                raise ValueError("reasoning is a pair of markers: (begin, end)")
        else:
            reasoning = format.reasoning
        if reasoning_open and reasoning is None:
            raise ValueError("reasoning_open needs the reasoning block's markers: reasoning=(begin, end)")
        self.format = format
        """The format read."""
        self._schemas = ToolSchemas(tools)
        self._tools = self._schemas.names
        self._reasoning = reasoning
        self._new_call_id = new_call_id or _fresh_call_id
        self._parser_class = parser_class or StreamingJsonParser
        key = (format, None if reasoning is None else (reasoning[0], reasoning[1]))
        markers = _markers_of.get(key)
        if markers is None:
            markers = _markers_of[key] = _Markers(format, key[1])
        self._markers = markers
        self._stop_firsts = markers.stop_firsts
        self._stop_first = markers.stop_first
        self._content_firsts = markers.content_firsts
        self._parameters: Optional[ParameterSyntax] = format.parameters
        self._literal: Optional[LiteralSyntax] = format.literal
        # Where the stream is: the reader of the text there. The readers the fast paths look for are bound once, so
        # that they tell the place by identity.
        self._read_content = self._read_content  # type: ignore[method-assign]
        self._read_content_block = self._read_content_block  # type: ignore[method-assign]
        # Text outside the content block, the reasoning and the calls is dropped where the format has such a block.
        self._drops_outside = bool(format.content_begin)
        self._read_value = self._read_value  # type: ignore[method-assign]
        self._read_literal_string = self._read_literal_string  # type: ignore[method-assign]
        self._read_place: Callable[[str, int], int] = self._read_content
        self._content_started = False  # a bare JSON object or the pythonic "[" opens calls only at the start
        self._in_section = False
        self._section_opener = ""  # a pythonic section's "[" and blanks, content again if no call follows
        self._held = ""
        self._events: list[Any] = []
        self._calls = 0
        self._finished = False
        self._decoder: Any = None
        # The call being read: its begin marker and header, its JSON's parser and how the parser's paths lead to it.
        self._call: Optional[_Call] = None
        self._call_marker = ""
        self._header: list[str] = []
        self._header_length = 0
        self._header_blank = True  # nothing but blanks read of the header yet (call objects may come instead)
        self._header_begins = format.channels.header_begins if format.channels is not None else ()
        self._parser: Any = None
        self._json_calls = False  # the JSON read is call objects (not a call's arguments alone)
        self._call_depth = 0  # 0: the JSON is one call (or its arguments); 1: an array of calls
        self._element: Any = None  # in an array of calls: the index of the call object being read
        self._arguments_end_seen = False
        # The call whose arguments stream as source text now (the relay's arguments path continues them).
        self._streaming_call: Optional[_Call] = None
        # The text formats' value being read: its key and types, how it is read, its text where it is kept whole,
        # and the trimming rule's state (the first character is read; a trailing newline is held back).
        self._value_key = ""
        self._value_types: Optional[frozenset[str]] = None
        self._value_mode = _DISCARD
        self._value_parts: list[str] = []
        self._value_trim = ""
        self._value_strip = False  # the value sheds every blank at each end (those at its end: the relay's strip_held)
        self._value_started = False
        self._value_depth = 0  # a nested value's: how many of its elements are open
        self._value_tree = False  # a nested value's: it holds elements
        self._quote = ""  # the quote that closes the literal string being read
        self._scan_depth = 0  # in a literal's nested value: how deep, and the quote of the string it is in
        self._scan_quote: Optional[str] = None
        # feed's fast paths, armed after each piece for the next (_settle); the trimming rule's held newline is its.
        self._relay = (_CompiledRelay if self._parser_class is _COMPILED_PARSER else _PureRelay)(
            self._feed_general, self._feed_json_changes
        )
        _FEED.__set__(self, self._relay.feed)  # (into the slot, whatever a subclass defines)
        if reasoning_open:
            self._read_place = self._read_reasoning
        elif format.channels is not None:
            self._read_place = self._read_header  # the prompt opened the first message: its header comes first

    # --- Public API ---------------------------------------------------------------------------------------------

    @property
    def calls(self) -> int:
        """How many tool calls have started."""
        return self._calls

    def _feed_general(self, text: Union[str, bytes, bytearray, memoryview]) -> list[ModelOutputEvent]:
        """Read a piece the relay's fast paths did not take, place by place."""
        if self._finished:
            raise ValueError("feed() after finish(): the output has ended")
        if type(text) is not str:
            text = self._decode(text)
        if self._held:
            text = self._held + text
            self._held = ""
        self._events = []
        self._read(text, 0)
        return self._settle()

    def _feed_json_changes(self, text: str, changes: list[Any]) -> list[ModelOutputEvent]:
        """Read a piece of a call's JSON arguments that the relay gave the parser and the parser reported changes
        of (their end, or more than their text)."""
        self._events = []
        self._read(text, self._read_json_changes(changes, len(text)))
        return self._settle()

    def _settle(self) -> list[ModelOutputEvent]:
        """The piece's events; and the relay armed for where the next piece may take a fast path: a call's
        arguments stream (nothing held back, the stop markers begin with one character), a string value's text
        does (nothing held back, at most two characters can end it), or plain content goes on (nothing held
        back)."""
        relay = self._relay
        call = self._streaming_call
        if self._held:
            relay.off()
        elif call is not None:
            if self._stop_first is not None:
                relay.arguments(self._parser, self._stop_first, call.chunks, call.index)
            else:
                relay.off()
        elif self._value_mode is _STREAM and self._call is not None:
            place = self._read_place
            if place is self._read_value:
                stops, trim = self._markers.value_firsts, self._value_trim
            elif place is self._read_literal_string:
                stops = self._quote[0] + "\\" if self._literal.escapes else self._markers.string_firsts  # type: ignore[union-attr]
                trim = ""
            else:
                stops, trim = "", ""
            if stops and len(stops) <= 2 and (self._value_started or not (trim or self._value_strip)):
                relay.string(stops[0], stops[-1], trim, self._call.chunks, self._call.index, self._value_strip)
            else:
                relay.off()
        elif self._read_place is self._read_content_block:
            relay.content(self._markers.content_block_firsts)
        elif self._read_place is self._read_content and self._content_started and not self._drops_outside:
            relay.content(self._content_firsts)
        else:
            relay.off()
        return self._events

    def _read(self, text: str, position: int) -> None:
        """Read ``text`` from ``position`` on, place by place; events go to ``self._events``."""
        length = len(text)
        while position < length:
            position = self._read_place(text, position)

    def finish(self) -> list[ModelOutputEvent]:
        """End the output; return the events its end completes: text held back in case it began a marker, and the
        end of a call left open, with an error saying its arguments are incomplete."""
        if self._finished:
            return []
        self._finished = True
        self._relay.off()
        events: list[Any] = []
        self._events = events
        if self._decoder is not None:
            self._held += self._decoder.decode(b"", True)  # an incomplete character at the end reads as U+FFFD
        held, self._held = self._held, ""
        place = self._read_place
        if place == self._read_json:
            if held:
                self._read_json_until(held, 0, len(held))  # it began no marker after all
            if self._call is not None:
                self._end_open_call("the model's output ended inside them")
        elif place == self._read_header:
            self._abandon_header(held)
        elif self._call is not None:  # inside a text format's call: between parameters, in a header or a value
            self._end_open_call("the model's output ended inside them")
        elif held and place == self._read_reasoning:
            self._emit_reasoning(held)
        elif held and place == self._read_content_block:
            self._emit_content(held)
        elif place == self._read_section and not self._section_opener and not held.strip(self._markers.between_calls):
            pass  # blanks after a section's last call, its end marker left out: what closes calls, no content
        elif (place == self._read_content or place == self._read_section) and (held or self._section_opener):
            self._emit_outside(self._section_opener + held)
        # Otherwise (after a call's JSON) what is held began an end marker: nothing to say.
        return events

    # --- Input --------------------------------------------------------------------------------------------------

    def _decode(self, data: Any) -> str:
        if isinstance(data, str):
            return str(data)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"feed() takes str or UTF-8 bytes, not {type(data).__name__}")
        if self._decoder is None:
            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        decoded: str = self._decoder.decode(data)
        return decoded

    # --- Events -------------------------------------------------------------------------------------------------

    def _emit_content(self, text: str) -> None:
        events = self._events
        if events and type(events[-1]) is ContentDelta:
            events[-1] = _new(ContentDelta, (events[-1].text + text,))
        else:
            events.append(_new(ContentDelta, (text,)))
        if not self._content_started and text.strip(_BLANKS):
            self._content_started = True

    def _emit_outside(self, text: str) -> None:
        """Text outside the reasoning and the calls: content, or dropped where the format has a content block."""
        if self._drops_outside:
            if not self._content_started and text.strip(_BLANKS):
                self._content_started = True
            return
        self._emit_content(text)

    def _emit_reasoning(self, text: str) -> None:
        events = self._events
        if events and type(events[-1]) is ReasoningDelta:
            events[-1] = _new(ReasoningDelta, (events[-1].text + text,))
        else:
            events.append(_new(ReasoningDelta, (text,)))

    def _emit_arguments(self, call: _Call, text: str) -> None:
        """The next piece of a call's argument text: out now if the call has started, else kept until it does."""
        if not text:
            return
        call.chunks.append(text)
        if call.started:
            events = self._events
            if events and type(events[-1]) is ArgumentsDelta and events[-1].index == call.index:
                events[-1] = _new(ArgumentsDelta, (call.index, events[-1].text + text))
            else:
                events.append(_new(ArgumentsDelta, (call.index, text)))

    def _start_call(self, call: _Call) -> None:
        """The call's name is known (or never will be): it starts, and the argument text read before follows."""
        call.index = self._calls
        self._calls += 1
        if call.id is None:
            call.id = self._new_call_id(call.index)
        call.started = True
        self._events.append(_new(ToolCallStart, (call.index, call.id, call.name or "")))
        if call.chunks:
            self._events.append(_new(ArgumentsDelta, (call.index, "".join(call.chunks))))

    def _end_call(self, call: _Call, cut_off: Optional[str] = None) -> None:
        """The call is over: it starts if it has not, writes ``{}`` if it wrote no arguments, and its arguments are
        parsed once."""
        if not call.started:
            self._start_call(call)
        if not call.chunks:
            self._emit_arguments(call, "{}")
        text = "".join(call.chunks)
        problem = call.error
        if cut_off is not None:
            problem = f"Tool call arguments are incomplete: {cut_off}"
        elif problem is None and not call.name:
            problem = "Tool call has no name"
        elif problem is None and self._tools is not None and call.name not in self._tools:
            known = ", ".join(sorted(self._tools)) or "none"
            problem = f"Tool call to an unknown tool {call.name!r} (the tools are: {known})"
        repairs = tuple(call.repairs)
        if problem is None:
            result = parse_tool_call_arguments(text)
            self._events.append(_new(ToolCallEnd, (call.index, result.arguments, result.error, repairs)))
        else:
            error = f"{problem}.\nReceived arguments: {text}"
            self._events.append(_new(ToolCallEnd, (call.index, {}, error, repairs)))

    def _end_open_call(self, cut_off: Optional[str]) -> None:
        call = self._call
        self._call = None
        self._element = None
        self._streaming_call = None
        self._value_mode = _DISCARD
        if call is not None:
            self._end_call(call, cut_off)

    # --- Content, reasoning, sections ----------------------------------------------------------------------------

    def _read_content(self, text: str, position: int) -> int:
        if not self._content_started and (self.format.bare_json_start or self.format.output_section_begin):
            start = position
            position = _skip_blanks(text, position)
            if position == len(text):
                self._held = text[start:]  # blank so far: the calls may still start the output
                return position
            if self.format.bare_json_start and text[position] == "{":
                self._content_started = True
                self._enter_section()
                return position
            opener = self._marker_at(self._markers.output_section, text, position)
            if opener is None:
                self._held = text[start:]
                return len(text)
            if opener:
                self._content_started = True
                self._enter_section(text[start:position] + opener)
                return position + len(opener)
            position = start
        markers = self._markers.content
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._emit_outside(text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        self._content_started = True
        self._follow_marker(marker)
        return found + len(marker)

    def _read_content_block(self, text: str, position: int) -> int:
        """Inside the content that one of ``content_begin`` opened: content up to one of ``content_end``."""
        markers = self._markers.content_block
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._emit_content(text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        self._read_place = self._read_content
        return found + len(marker)

    def _follow_marker(self, marker: str) -> None:
        """Where a marker found in content (or reasoning that such a marker ends) leads."""
        if self._reasoning is not None and marker == self._reasoning[0]:
            self._read_place = self._read_reasoning
        elif marker == self.format.call_begin:
            self._begin_call(marker)
        elif marker in self.format.section_begin:
            self._enter_section()
        elif marker in self.format.content_begin:
            self._read_place = self._read_content_block
        else:  # the end of a message (Harmony's), a reasoning block's end, an ignored marker
            self._read_place = self._read_content

    def _read_reasoning(self, text: str, position: int) -> int:
        markers = self._markers.reasoning
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._emit_reasoning(text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        if self._reasoning is not None and marker == self._reasoning[1]:
            self._read_place = self._read_content
        else:  # a call that ends the block (calls_end_reasoning), or the end of Harmony's analysis message
            self._follow_marker(marker)
        return found + len(marker)

    def _enter_section(self, opener: str = "") -> None:
        self._in_section = True
        self._section_opener = opener
        self._read_place = self._read_section

    def _read_section(self, text: str, position: int) -> int:
        """Between the calls of a section: blanks (and separators), then a call, the section's end marker, or other
        text: then the section is over, and the text is content."""
        length = len(text)
        start = position
        between = self._markers.between_calls
        while position < length and text[position] in between:
            position += 1
        if position == length:
            self._held = text[start:]  # whether it is content depends on what follows
            return length
        marker = self._marker_at(self._markers.section, text, position)
        if marker is None:
            self._held = text[start:]  # it may be a marker
            return length
        if marker == self.format.call_begin:
            self._begin_call(marker)
            return position + len(marker)
        if marker in self.format.ignored_markers:  # (Step-3's wrapper of each call)
            return position + len(marker)
        if marker:  # the section's end
            self._leave_section()
            return position + len(marker)
        if self.format.call_begin is None:
            if self.format.payload == "literal":  # a pythonic call begins with its name
                opener, self._section_opener = self._section_opener, ""
                self._begin_call(opener + text[start:position])
                return position
            if text[position] in "{[":
                self._begin_json(text[position])
                return position
        self._leave_section()  # the section is over: what follows the last call is content, blanks and all
        return start

    def _leave_section(self) -> None:
        self._in_section = False
        self._section_opener = ""
        self._read_place = self._read_content

    def _marker_at(self, markers: Markers, text: str, position: int, longest: bool = False) -> Optional[str]:
        """The marker at ``position``; ``""`` where none is; None where the text ends inside what may be the
        beginning of one (for the caller to hold back), or, with ``longest``, of a longer one than is there (a
        Python string's ``'`` that may be the start of ``'''``)."""
        tail = text[position:]
        for marker in markers.markers:
            if text.startswith(marker, position):
                if longest and any(
                    len(tail) < len(other) and other.startswith(tail) for other in markers.markers if other != marker
                ):
                    return None
                return marker
        if any(len(tail) < len(marker) and marker.startswith(tail) for marker in markers.markers):
            return None
        return ""

    # --- A call: its header, its JSON, and its end --------------------------------------------------------------

    def _begin_call(self, marker: str) -> None:
        """After a call's begin marker (or, for a call that begins with its name, the text before it): its
        header, or its JSON."""
        self._call_marker = marker
        if self.format.header_end is not None or self.format.payload == "parameters":
            self._header = []
            self._header_length = 0
            self._header_blank = True
            self._read_place = self._read_header
        else:
            self._read_place = self._read_before_json

    def _read_before_json(self, text: str, position: int) -> int:
        length = len(text)
        position = _skip_blanks(text, position)
        if position < length:
            self._begin_json(text[position])
        return position

    def _read_header(self, text: str, position: int) -> int:
        if self._header_blank and (self.format.call_objects_after_begin or self._header_begins):
            start = _skip_blanks(text, position)
            if start < len(text):
                if text[start] in "[{" and self.format.call_objects_after_begin:
                    self._header_blank = False  # call objects, not a header (Mistral's older spelling)
                    self._header = []
                    self._header_length = 0
                    self._begin_json(text[start], call_objects=True)
                    return start
                begins = self._header_begins
                if begins and not any(text.startswith(begin, start) for begin in begins):
                    tail = text[start:]
                    if any(begin.startswith(tail) for begin in begins):
                        self._held = text[position:]  # it may begin a header yet
                        return len(text)
                    self._abandon_header("")  # a body whose header the prompt wrote (Harmony): content, at once
                    return position
                self._header_blank = False
        markers = self._markers.header
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            part = text[position:end]
            name_chars = self.format.name_chars
            if name_chars is not None and not name_chars.fullmatch(part):
                self._abandon_header("")  # a call's name has no such character: it was no call
                return position
            self._header.append(part)
            self._header_length += end - position
        if found < 0:
            if self._header_length > _HEADER_LIMIT:
                self._abandon_header(text[end:])
            else:
                self._held = text[end:]
            return len(text)
        header = "".join(self._header)
        format = self.format
        if format.channels is not None:
            if marker != format.header_end:  # a message that never began: its text was content
                self._abandon_header("")
                return found
            self._open_message(header)
            return found + len(marker)
        name, call_id = self._read_name(header)
        if format.name_chars is not None and (
            marker != format.header_end
            or not name
            or (format.header is not None and not format.header.fullmatch(header))
        ):
            self._abandon_header("")
            return found
        call = _Call(name, call_id)
        payload = format.payload
        parameters = self._parameters
        if marker == "{" and format.json_ends_header:  # the arguments' "{" ended the header (Mistral's NAME{...})
            self._call = call
            self._start_call(call)
            self._begin_json(marker)
            return found
        if marker == format.header_end or (parameters is not None and marker == parameters.begin):
            self._call = call
            self._start_call(call)
            if payload == "arguments":
                self._begin_json("")
            elif payload == "literal":
                self._read_place = self._read_literal_key
            elif marker == format.header_end:
                self._read_place = self._read_between_parameters
            else:
                self._begin_parameter()
            return found + len(marker)
        if marker == format.empty_call_end or (
            parameters is not None and format.header_end is None and marker == format.call_end
        ):
            # A call that writes no arguments (GLM's <tool_call>NAME</tool_call>, DSML's self-closing invoke).
            self._call = call
            self._start_call(call)
            self._close_arguments()
            self._after_call()
            return found + len(marker)
        call.error = f"Tool call has no arguments: {marker} came where {format.header_end} was expected"
        self._end_call(call)
        self._after_call()
        return found + len(marker) if marker == format.call_end else found

    def _read_name(self, header: str) -> tuple[str, Optional[str]]:
        """The tool's name and the call's id (None where the format carries none) out of a call's header."""
        pattern = self.format.header
        matched = pattern.fullmatch(header) if pattern is not None else None
        if matched is None:
            return header.strip(_BLANKS), None
        groups = matched.groupdict()
        return groups.get("name") or "", groups.get("id") or None

    def _abandon_header(self, rest: str) -> None:
        """A header that reached no arguments marker was no call: its marker and text are content after all."""
        text = self._call_marker + "".join(self._header) + rest
        self._header = []
        self._header_length = 0
        self._call_marker = ""
        self._leave_section()
        if text:
            self._emit_outside(text)

    def _open_message(self, header: str) -> None:
        """A Harmony message's header is complete: a recipient makes the body a call's JSON arguments; else the
        channel says whether the body is reasoning or content."""
        channels = self.format.channels
        assert channels is not None
        recipient = channels.recipient.search(header)
        if recipient is not None:
            name = recipient.group("recipient")
            if channels.recipient_prefix and name.startswith(channels.recipient_prefix):
                name = name[len(channels.recipient_prefix) :]
            call = _Call(name)
            self._call = call
            self._start_call(call)
            self._begin_json("")
            return
        channel = channels.channel.search(header)
        kind = dict(channels.kinds).get(channel.group("channel") if channel is not None else "", "content")
        self._read_place = self._read_reasoning if kind == "reasoning" else self._read_content

    def _begin_json(self, first: str, call_objects: Optional[bool] = None) -> None:
        """The JSON of a call starts (or, in a section, of an array of calls); ``first`` is its first character
        where it is known. ``call_objects``: whether it is call objects, where the format's payload does not say."""
        self._arguments_end_seen = False
        self._element = None
        self._json_calls = self.format.payload != "arguments" if call_objects is None else call_objects
        if not self._json_calls:
            self._call_depth = 0
            # The root's done event comes with the last piece of its source, so append_source() hands that piece over
            # as changes, never as text (the relay relies on it); nothing inside the root is reported (report_depth=0).
            self._parser = self._parser_class(changes=False, done_events=True, report_depth=0, source_paths=_ROOT_PATHS)
        else:
            depth = 1 if first == "[" else 0
            self._call_depth = depth
            paths = self._markers.array_paths if depth else self._markers.call_paths
            self._parser = self._parser_class(done_events=True, report_depth=depth + 1, source_paths=paths)
            if not depth:
                self._call = _Call()
        self._read_place = self._read_json

    def _read_json(self, text: str, position: int) -> int:
        stops = self._markers.stops
        first = self._stop_first
        if not stops or (first is not None and first not in text):
            return self._read_json_until(text, position, len(text))
        found, marker = stops.find(text, position)
        if found < 0:
            held = stops.held_from(text, position)
            end = self._read_json_until(text, position, held)
            if end < held or held == len(text):
                return end
            self._held = text[held:]
            return len(text)
        end = self._read_json_until(text, position, found)
        if end < found or self._read_place != self._read_json:
            return end  # the JSON ended before the marker
        if self._parser.in_string:
            return self._read_json_until(text, found, found + len(marker))  # a marker in a string is its text
        # (Arguments that had not begun are none: the call is complete without them.)
        began = self._json_calls or (self._call is not None and bool(self._call.chunks))
        self._end_open_call(f"{marker} came before they were complete" if began else None)
        self._after_call()
        return found + len(marker) if marker == self.format.call_end else found

    def _read_json_until(self, text: str, position: int, end: int) -> int:
        """Feed ``text[position:end]`` to the call's JSON; return where reading goes on: ``end``, or where the JSON
        ended if it did."""
        changes = self._parser.append(text if position == 0 and end == len(text) else text[position:end])
        return self._read_json_changes(changes, end)

    def _read_json_changes(self, changes: list[Any], end: int) -> int:
        """The changes of a piece of the call's JSON that ended at ``end``; return where reading goes on."""
        if changes:
            if not self._json_calls:
                call = self._call
                if call is not None:
                    for change in changes:
                        if change.kind == "source":
                            self._emit_arguments(call, change.text)
                            self._streaming_call = None if change.last else call
            else:
                self._read_call_changes(changes)
        parser = self._parser
        if not parser.done:
            return end
        after = end - len(parser.unused_text)
        self._end_open_call(None)  # its JSON is complete
        self._parser = None
        self._read_place = self._read_after_json
        return after

    def _read_call_changes(self, changes: list[Any]) -> None:
        """The changes of the JSON of call objects: a call object begins or ends, its name completes, its argument
        text grows."""
        depth = self._call_depth
        for change in changes:
            path = change.path
            if len(path) != depth + 1:
                if depth and len(path) == 1:
                    self._read_element(change)
                continue
            call = self._call
            if call is None or (depth and path[0] != self._element):
                continue  # inside an element that is not a call object
            key = path[depth]
            if key in self.format.arguments_keys:
                self._read_arguments(call, key, change)
            elif change.kind == "done" and key in self.format.name_keys and not call.started:
                call.name = change.value if type(change.value) is str else ""
                self._start_call(call)

    def _read_element(self, change: Any) -> None:
        """An element of an array of calls: a call object begins (its set) or ends (its done event)."""
        if change.kind == "set":
            self._end_open_call(None)
            if type(change.value) is dict:
                self._element = change.path[0]
                self._call = _Call()
        elif change.kind == "done" and change.path[0] == self._element:
            self._end_open_call(None)

    def _read_arguments(self, call: _Call, key: Any, change: Any) -> None:
        """A change of the value under an arguments key: its source text, or, for a JSON string holding the
        arguments, its content."""
        kind = change.kind
        if kind == "source":
            if call.arguments_key is None:
                call.arguments_key = key
                call.string_arguments = change.text[:1] == '"'
            elif key != call.arguments_key or call.arguments_done:
                call.error = "Tool call gives its arguments twice"
                return
            if not call.string_arguments:
                self._emit_arguments(call, change.text)
                call.arguments_done = change.last
                streaming = call.started and not change.last
                self._streaming_call = call if streaming else None
        elif kind == "set" or kind == "append":
            text = change.value if kind == "set" else change.text
            if type(text) is not str:
                return  # an object's or array's own set (it opened, or closed too deep to be reported inside)
            if call.arguments_key is None:
                call.arguments_key = key
                call.string_arguments = True
            elif key != call.arguments_key or call.arguments_done or not call.string_arguments:
                call.error = "Tool call gives its arguments twice"
                return
            self._emit_arguments(call, text)
        elif kind == "done" and key == call.arguments_key and call.string_arguments:
            call.arguments_done = True

    def _read_after_json(self, text: str, position: int) -> int:
        """After a call's JSON (or a literal call's arguments): blanks, the text that closes its arguments (a
        fence), then its end marker; for a format without one, what follows is the next call or content."""
        if self.format.call_end is None:
            self._after_call()
            return position
        length = len(text)
        position = _skip_blanks(text, position)
        if position == length:
            return position
        marker = self._marker_at(self._markers.after_json, text, position)
        if marker is None:
            self._held = text[position:]
            return length
        if marker == self.format.arguments_end and not self._arguments_end_seen:
            self._arguments_end_seen = True
            return position + len(marker)
        self._after_call()
        if marker == self.format.call_end:
            return position + len(marker)
        return position  # the next call, the section's end, or text: the call's end marker is missing

    def _after_call(self) -> None:
        self._call = None
        self._parser = None
        self._value_mode = _DISCARD
        self._read_place = self._read_section if self._in_section else self._read_content

    # --- The text formats: the arguments' JSON written from their parameters ------------------------------------

    def _begin_value(self, key: Optional[str]) -> None:
        """A parameter begins: its key goes out (``{"key": `` or ``, "key": ``) and its types are looked up; the
        caller sets how its value is read. A parameter without a name is read and dropped (an error of the call)."""
        call = self._call
        self._value_key = key or ""
        self._value_parts = []
        self._value_started = False
        self._value_depth = 0
        self._value_tree = False
        self._relay.trim_held = False
        self._relay.strip_held = ""
        self._value_mode = _DISCARD
        if call is None:
            return
        if not key:
            if call.error is None:
                call.error = "Tool call has a value without a parameter name"
            return
        if key in call.keys and call.error is None:
            call.error = f"Tool call gives the parameter {key!r} twice"
        call.keys.add(key)
        self._value_types = self._schemas.parameter_types(call.name, key)
        self._emit_arguments(call, ("{" if not call.opened else ", ") + _escape(key) + ": ")
        call.opened = True

    def _set_value_mode(self, mode: str) -> None:
        self._value_mode = mode
        if mode is _STREAM and self._call is not None:
            self._emit_arguments(self._call, '"')

    def _take_value_text(self, text: str) -> None:
        """More of the value's text: out as JSON string content (the trimming rule applied: the value's first
        newline shed, a last one held back), or kept to be typed when the value ends."""
        if not text:
            return
        mode = self._value_mode
        if mode is _STREAM:
            if self._value_strip:  # blanks at the start shed, at the end held back until text follows them
                if not self._value_started:
                    text = text.lstrip()
                    if not text:
                        return
                kept = text.rstrip()
                if not kept:
                    self._relay.strip_held += text
                    return
                text, self._relay.strip_held = self._relay.strip_held + kept, text[len(kept) :]
            trim = self._value_trim
            if trim:
                if not self._value_started:
                    self._value_started = True
                    if text[0] == trim:
                        text = text[1:]
                if self._relay.trim_held:
                    text = trim + text
                self._relay.trim_held = text[-1:] == trim
                if self._relay.trim_held:
                    text = text[:-1]
            self._value_started = True
            if text and self._call is not None:
                self._emit_arguments(self._call, _escape(text)[1:-1])
        elif mode is _UNDECIDED:
            self._value_parts.append(text)
            so_far = "".join(self._value_parts).lstrip()
            if not so_far:
                return
            if so_far[0] in _JSON_FIRSTS:
                self._value_mode = _JSON_OR_TEXT  # kept whole: JSON, or its text, when it ends
                return
            word = so_far.rstrip()
            if any(name.startswith(word) for name in _JSON_NAMES):
                return  # a name of JSON's, or the beginning of one, so far
            kept = "".join(self._value_parts)  # it cannot be JSON: a string, streamed from here
            self._value_parts = []
            self._set_value_mode(_STREAM)
            self._take_value_text(kept)
        elif mode is _PENDING:
            self._value_parts.append(text)
            if text.strip(_BLANKS):  # no element came first: a string, streamed from here
                kept = "".join(self._value_parts)
                self._value_parts = []
                self._set_value_mode(_STREAM)
                self._take_value_text(kept)
        elif mode is not _DISCARD:
            self._value_parts.append(text)

    def _end_value(self) -> None:
        """The value is complete: a streamed string closes; a value kept whole goes out as its JSON, or, where it is
        none of its types, as a string, and the call ends with an error naming the parameter."""
        call, mode = self._call, self._value_mode
        self._value_mode = _DISCARD
        if call is None or mode is _DISCARD:
            return
        if mode is _STREAM:
            self._emit_arguments(call, '"')
            return
        text = "".join(self._value_parts)
        parameters = self._parameters
        if parameters is not None and parameters.nested and (mode is _TYPED or mode is _PENDING):
            schema = self._schemas.parameter_schema(call.name, self._value_key)
            markers = (parameters.begin, parameters.end, parameters.header_end)
            found = element_value_json(text, markers, schema)
            if found is None and schema is not None and not self._value_tree and self._value_types:
                repaired = repaired_typed_json(text, self._value_types)
                if repaired is not None:
                    found = repaired[0]
                    call.repairs.append(((self._value_key,), repaired[1]))
            if found is None:
                if call.error is None:
                    wanted = describe_types(self._value_types or STRING)
                    call.error = f"Tool call parameter {self._value_key!r} is not {wanted}: {text!r}"
                found = _escape(text)
            self._value_parts = []
            self._emit_arguments(call, found)
            return
        self._value_parts = []
        if mode is _UNDECIDED or mode is _JSON_OR_TEXT:
            found = _json_text(text)
            self._emit_arguments(call, found if found is not None else _escape(text.strip()))
            return
        if self._value_strip:
            text = text.strip()
        trim = self._value_trim
        if trim and mode is _TYPED:
            if text[:1] == trim:
                text = text[1:]
            if text[-1:] == trim:
                text = text[:-1]
        types = self._value_types
        if mode is _TYPED:
            found, wanted = typed_json(text, types or STRING), describe_types(types or STRING)
            if found is None and types:
                repaired = repaired_typed_json(text, types)
                if repaired is not None:
                    found = repaired[0]
                    call.repairs.append(((self._value_key,), repaired[1]))
        elif mode is _JSON:
            found, wanted = _json_text(text), "JSON"
        elif mode is _PYTHON:
            found, wanted = python_literal_json(text), "a Python literal"
        else:
            found, wanted = self._gemma_json(text, types), describe_types(types) if types else "a value"
        if found is None:
            if call.error is None:
                call.error = f"Tool call parameter {self._value_key!r} is not {wanted}: {text!r}"
            found = _escape(text)
        self._emit_arguments(call, found)

    def _gemma_json(self, text: str, types: Optional[frozenset[str]]) -> Optional[str]:
        """A Gemma 4 value kept whole: without a schema (or where the syntax says ``schema_types_bare_values`` is
        off), by its own syntax (a bare word a number, a name or a string); with one, a bare word typed as raw text,
        a nested value where its kind is among the types (else its text, where a string is)."""
        literal = self._literal
        assert literal is not None
        stripped = text.strip(_BLANKS)
        if not literal.schema_types_bare_values:
            types = None  # what the syntax says, whatever the schema
        if stripped[:1] in ("{", "["):
            found = gemma_literal_json(stripped, literal.quotes[0], self._markers.names)
            if types is None or found is None:
                return found
            if ("object" if stripped[0] == "{" else "array") in types:
                return found
            return _escape(stripped) if "string" in types else None
        if types is None:
            return bare_word_json(stripped, self._markers.names) if stripped else None
        return typed_json(stripped, types)

    def _close_arguments(self) -> None:
        """The call's parameters are over: its JSON closes (``{}`` if it had none) and the call ends."""
        call = self._call
        if call is not None:
            self._emit_arguments(call, "}" if call.opened else "{}")
        self._end_open_call(None)

    def _cut_call(self, marker: str) -> int:
        """A stop marker came inside a call's arguments: the call ends, cut off; returns how much of the marker is
        read (a call's end marker is, the next call's or the section's end is read next)."""
        self._end_open_call(f"{marker} came before they were complete")
        self._after_call()
        return len(marker) if marker == self.format.call_end else 0

    # Parameters: BEGIN header HEADER_END [VALUE_BEGIN] value END, blanks between (Qwen3-Coder, GLM, MiniMax, DSML).

    def _read_between_parameters(self, text: str, position: int) -> int:
        length = len(text)
        position = _skip_blanks(text, position)
        if position == length:
            return position
        markers = self._markers.between_parameters
        marker = self._marker_at(markers, text, position, longest=True)
        if marker is None:
            self._held = text[position:]
            return length
        if self._parameters is not None and marker == self._parameters.begin:
            self._begin_parameter()
            return position + len(marker)
        if marker:  # the call's end; or, its end marker forgotten, what follows a call
            self._close_arguments()
            self._after_call()
            return position + len(marker) if marker == self.format.call_end else position
        if self._parameters.lines:  # type: ignore[union-attr]
            self._begin_parameter()  # a line's first character that is not blank begins its key
            return position
        # Text that is no parameter: read past it to the next marker, and say so (unless the syntax passes it over).
        call = self._call
        if call is not None and call.error is None and not self._parameters.text_between_ignored:  # type: ignore[union-attr]
            call.error = "Tool call has text outside its parameters"
        found, _ = markers.find(text, position)
        if found < 0:
            self._held = text[markers.held_from(text, position) :]
            return length
        return found

    def _begin_parameter(self) -> None:
        self._header = []
        self._header_length = 0
        self._read_place = self._read_parameter_header

    def _parameter_text_up_to(self, markers: Any, text: str, position: int, too_long: str) -> tuple[Optional[str], int]:
        """A parameter's header or closing name, gathered across pieces up to the syntax's ``header_end``: the text
        and where reading goes on once it ends; else ``None`` and where reading goes on (the piece read and its tail
        held, or the call cut: ``too_long`` past the header limit, or another of ``markers`` where it should end)."""
        parameters = self._parameters
        assert parameters is not None
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._header.append(text[position:end])
            self._header_length += end - position
        if found < 0:
            if self._header_length > _HEADER_LIMIT:
                return None, position + self._cut_call(too_long)
            self._held = text[end:]
            return None, len(text)
        if marker != parameters.header_end:
            if parameters.lines and self._read_place == self._read_parameter_header:
                # A line without header_end (or the call's end after it): no parameter, passed over.
                self._header = []
                self._read_place = self._read_between_parameters
                return None, found + len(marker) if marker == parameters.end else found
            return None, found + self._cut_call(marker)
        gathered = "".join(self._header)
        self._header = []
        return gathered, found + len(marker)

    def _read_parameter_header(self, text: str, position: int) -> int:
        parameters = self._parameters
        assert parameters is not None
        header, after = self._parameter_text_up_to(
            self._markers.parameter_header, text, position, "a parameter's header of over 1,024 characters"
        )
        if header is None:
            return after
        pattern = parameters.header
        matched = pattern.fullmatch(header)
        name = (matched.group("name") if matched is not None else header.strip(_BLANKS)) or ""
        self._begin_value(name)
        if name and self._call is not None:
            said = matched.group("string") if matched is not None and "string" in pattern.groupindex else None
            if parameters.json_or_text:
                mode = _UNDECIDED  # JSON where its text is, else its text (the schema does not retype it)
            elif "string" in pattern.groupindex and not (
                parameters.raw_by_default if said is None else said in parameters.raw_strings
            ):
                mode = _JSON  # DeepSeek V3.2's string="false" (or no attribute), Kimi K3's type="number": JSON
            else:
                types = self._value_types
                mode = _STREAM if types is None or types == STRING else _TYPED
                if parameters.nested and types is None:
                    mode = _PENDING
            self._value_trim = parameters.trim if mode is not _JSON else ""
            self._value_strip = parameters.strip and mode is not _JSON
            self._set_value_mode(mode)
        self._read_place = self._read_before_value if parameters.value_begin else self._read_value
        return after

    def _read_before_value(self, text: str, position: int) -> int:
        length = len(text)
        position = _skip_blanks(text, position)
        if position == length:
            return position
        marker = self._marker_at(self._markers.value_begin, text, position)
        if marker is None:
            self._held = text[position:]
            return length
        if self._parameters is not None and marker == self._parameters.value_begin:
            self._read_place = self._read_value
            return position + len(marker)
        if marker:
            return position + self._cut_call(marker)
        call = self._call
        if call is not None and call.error is None:
            call.error = f"Tool call parameter {self._value_key!r} has no {self._parameters.value_begin}"  # type: ignore[union-attr]
        self._read_place = self._read_value  # read it as its value all the same
        return position

    def _read_value(self, text: str, position: int) -> int:
        markers = self._markers.value
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._take_value_text(text if position == 0 and end == len(text) else text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        longer = self._markers.value_longer.get(marker)
        if longer is not None:
            tail = text[found:]
            if any(len(tail) < len(other) and other.startswith(tail) for other in longer):
                self._held = tail
                return len(text)
        parameters = self._parameters
        assert parameters is not None
        if parameters.nested and (marker == parameters.begin or (marker == parameters.end and self._value_depth)):
            return self._read_element_marker(marker, found)
        if parameters.closing_name and marker == parameters.end:
            self._header = []
            self._header_length = 0
            self._read_place = self._read_closing_name
            return found + len(marker)
        self._end_value()
        self._read_place = self._read_between_parameters
        if marker == parameters.end:
            return found + len(marker)
        return found  # its end marker forgotten: the next parameter or the call's end follows

    def _read_element_marker(self, marker: str, found: int) -> int:
        """An element begins or ends inside a nested value: its text is the value's, the depth counted. A string
        that holds elements is an error of the call (its text streamed on, the elements' markup with it)."""
        parameters = self._parameters
        assert parameters is not None
        if marker == parameters.begin:
            self._value_depth += 1
            self._value_tree = True
            if self._value_mode is _PENDING:
                self._value_mode = _TYPED  # an element first: the value is an element tree, kept whole
            call = self._call
            if self._value_mode is _STREAM and call is not None and call.error is None:
                call.error = f"Tool call parameter {self._value_key!r} is a string that holds elements"
        else:
            self._value_depth -= 1
        self._take_value_text(marker)
        return found + len(marker)

    def _read_closing_name(self, text: str, position: int) -> int:
        """After a value's end marker, where the end names the parameter (``</KEY>``): the name, then the value
        ends. A name that is not the parameter's is an error of the call."""
        name, after = self._parameter_text_up_to(
            self._markers.closing_name, text, position, "a parameter's closing name of over 1,024 characters"
        )
        if name is None:
            return after
        call = self._call
        if name != self._value_key and call is not None and call.error is None:
            call.error = f"Tool call parameter {self._value_key!r} ends with the name {name!r}"
        self._end_value()
        self._read_place = self._read_between_parameters
        return after

    # Literals: KEY SEPARATOR VALUE pairs joined by commas, up to END (Gemma 4's object, a pythonic call's keywords).

    def _read_literal_key(self, text: str, position: int) -> int:
        literal = self._literal
        assert literal is not None
        length = len(text)
        while position < length and text[position] in " \t\n\r,":
            position += 1
        if position == length:
            return position
        if text.startswith(literal.end, position):
            self._close_arguments()
            self._read_place = self._read_after_json
            return position + len(literal.end)
        matched = literal.key_end.search(text, position)
        if matched is None:
            if length - position > _HEADER_LIMIT:
                return position + self._cut_call("a parameter name of over 1,024 characters")
            self._held = text[position:]
            return length
        found = matched.start()
        key = text[position:found].strip(_BLANKS)
        if text.startswith(literal.separator, found):
            self._begin_value(key)
            self._read_place = self._read_literal_value
            return found + len(literal.separator)
        if text[found] == "," or text.startswith(literal.end, found):
            if key:
                self._note_positional()
            return found
        stops = self._markers.literal_stops
        if stops:
            stop = self._marker_at(stops, text, found)
            if stop is None:
                self._held = text[position:]
                return length
            if stop:
                return found + self._cut_call(stop)
        # A value without a name (a positional argument): read past it.
        self._note_positional()
        self._begin_value(None)
        self._read_place = self._read_literal_value
        return position

    def _note_positional(self) -> None:
        call = self._call
        if call is not None and call.error is None:
            call.error = "Tool call has a value without a parameter name (a positional argument)"

    def _read_literal_value(self, text: str, position: int) -> int:
        literal = self._literal
        assert literal is not None
        length = len(text)
        position = _skip_blanks(text, position)
        if position == length:
            return position
        quote = self._marker_at(self._markers.quotes, text, position, longest=True)
        if quote is None:
            self._held = text[position:]  # a quote, or a longer one
            return length
        discard = not self._value_key or self._call is None  # a value without a name is read and dropped
        self._value_trim = ""
        if quote:
            self._quote = quote
            types = self._value_types
            if discard:
                self._value_mode = _DISCARD
            elif literal.python or types is None or types == STRING:
                self._set_value_mode(_STREAM)  # a quoted string, streamed
            else:
                self._value_mode = _TYPED  # Gemma: a quoted string typed by a schema that is more than a string
            self._read_place = self._read_literal_string
            return position + len(quote)
        self._scan_depth = 0
        self._scan_quote = None
        if not discard:
            self._value_mode = _PYTHON if literal.python else _GEMMA
        self._read_place = self._read_literal_other
        return position

    def _read_literal_string(self, text: str, position: int) -> int:
        literal = self._literal
        assert literal is not None
        quote = self._quote
        length = len(text)
        if not literal.escapes:
            markers = self._markers.string
            found, marker = markers.find(text, position)
            end = found if found >= 0 else markers.held_from(text, position)
            if end > position:
                self._take_value_text(text[position:end])
            if found < 0:
                self._held = text[end:]
                return length
            if marker != quote:
                return found + self._cut_call(marker)
            self._end_value()
            self._read_place = self._read_literal_after_value
            return found + len(marker)
        first = quote[0]
        while True:
            at_quote = text.find(first, position)
            at_escape = text.find("\\", position, at_quote if at_quote >= 0 else length)
            stop = at_escape if at_escape >= 0 else at_quote
            if stop < 0:
                self._take_value_text(text[position:] if position else text)
                return length
            if stop > position:
                self._take_value_text(text[position:stop])
            if stop == at_escape:
                decoded, after = _python_escape(text, stop, quote)
                if after < 0:
                    self._held = text[stop:]
                    return length
                self._take_value_text(decoded)
                position = after
                continue
            if text.startswith(quote, stop):
                self._end_value()
                self._read_place = self._read_literal_after_value
                return stop + len(quote)
            if length - stop < len(quote) and quote.startswith(text[stop:]):
                self._held = text[stop:]
                return length
            self._take_value_text(first)
            position = stop + 1

    def _read_literal_after_value(self, text: str, position: int) -> int:
        literal = self._literal
        assert literal is not None
        length = len(text)
        position = _skip_blanks(text, position)
        if position == length:
            return position
        if text[position] == "," or text.startswith(literal.end, position):
            self._read_place = self._read_literal_key
            return position
        call = self._call
        if call is not None and call.error is None:
            call.error = f"Tool call has text after the value of {self._value_key!r}"
        self._begin_value(None)
        self._scan_depth = 0
        self._scan_quote = None
        self._read_place = self._read_literal_other
        return position

    def _read_literal_other(self, text: str, position: int) -> int:
        """A value that is not a quoted string (a number, a name, a nested list or object): read up to the comma or
        the end of the arguments outside any bracket or string, and kept whole."""
        literal = self._literal
        assert literal is not None
        length = len(text)
        start = position
        depth, inside = self._scan_depth, self._scan_quote
        escapes = literal.escapes
        significant = _PYTHON_SIGNIFICANT if escapes else None
        markers = self._markers.other
        while True:
            if significant is not None:
                matched = significant.search(text, position)
                at = matched.start() if matched is not None else -1
            else:
                at, _ = _first_of(text, position, "{}[],<")
            if at < 0:
                self._take_value_text(text[start:])
                self._scan_depth, self._scan_quote = depth, inside
                return length
            char = text[at]
            if inside is not None:
                if escapes:
                    if char == "\\":
                        if at + 1 >= length:
                            return self._hold_other(text, start, at, depth, inside)
                        position = at + 2
                        continue
                    if text.startswith(inside, at):
                        position = at + len(inside)
                        inside = None
                        continue
                    if length - at < len(inside) and inside.startswith(text[at:]):
                        return self._hold_other(text, start, at, depth, inside)
                    position = at + 1
                    continue
                if char == "<":
                    marker = self._marker_at(markers, text, at)
                    if marker is None:
                        return self._hold_other(text, start, at, depth, inside)
                    if marker == inside:
                        inside, position = None, at + len(marker)
                        continue
                    if marker:
                        self._take_value_text(text[start:at])
                        return at + self._cut_call(marker)
                position = at + 1
                continue
            if escapes and char in "'\"":
                triple = char * 3
                if length - at < 3 and triple.startswith(text[at:]):
                    return self._hold_other(text, start, at, depth, inside)
                inside = triple if text.startswith(triple, at) else char
                position = at + len(inside)
                continue
            if char == "<":
                marker = self._marker_at(markers, text, at)
                if marker is None:
                    return self._hold_other(text, start, at, depth, inside)
                if marker in literal.quotes:
                    inside, position = marker, at + len(marker)
                    continue
                if marker:
                    self._take_value_text(text[start:at])
                    return at + self._cut_call(marker)
                position = at + 1
                continue
            if char in "([{":
                depth += 1
            elif char in ")]}" and depth:
                depth -= 1
            elif not depth and (char == "," or text.startswith(literal.end, at)):  # outside every bracket: its end
                self._take_value_text(text[start:at])
                self._scan_depth, self._scan_quote = 0, None
                self._end_value()
                self._read_place = self._read_literal_key
                return at
            position = at + 1

    def _hold_other(self, text: str, start: int, at: int, depth: int, inside: Optional[str]) -> int:
        self._take_value_text(text[start:at])
        self._scan_depth, self._scan_quote = depth, inside
        self._held = text[at:]
        return len(text)


def _first_of(text: str, position: int, chars: str) -> tuple[int, str]:
    """The first of ``chars`` in ``text[position:]``: where and which, or ``(-1, "")`` (one ``str.find`` each)."""
    best, which = -1, ""
    for char in chars:
        found = text.find(char, position, best if best >= 0 else len(text))
        if found >= 0:
            best, which = found, char
    return best, which


_PYTHON_SIGNIFICANT = re.compile(r"""['"\\()\[\]{},]""")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",
}
_ESCAPE_LENGTHS = {"x": 2, "u": 4, "U": 8}


def _python_escape(text: str, at: int, quote: str) -> tuple[str, int]:
    """The escape sequence at ``text[at]`` (a backslash) in a Python string: what it stands for and where it ends,
    or ``("", -1)`` where the text ends before it does. An unknown escape stands for itself, as in Python."""
    length = len(text)
    if at + 1 >= length:
        return "", -1
    char = text[at + 1]
    simple = _SIMPLE_ESCAPES.get(char)
    if simple is not None:
        return simple, at + 2
    if char == "\r":
        if at + 2 >= length:
            return "", -1
        return "", at + 3 if text[at + 2] == "\n" else at + 2
    digits = _ESCAPE_LENGTHS.get(char)
    if digits is not None:
        end = at + 2 + digits
        if end > length:
            return "", -1
        try:
            return chr(int(text[at + 2 : end], 16)), end
        except ValueError:  # not hexadecimal (a syntax error in Python): the text as written
            return text[at : at + 2], at + 2
    if "0" <= char <= "7":
        end = at + 1
        while end < length and end < at + 4 and "0" <= text[end] <= "7":
            end += 1
        if end == length and end < at + 4:
            return "", -1  # more digits may follow
        return chr(int(text[at + 1 : end], 8)), end
    if char == "N" and at + 2 >= length:
        return "", -1
    if char == "N" and text[at + 2] == "{":
        close = text.find("}", at + 3, at + 103)  # (Unicode's longest character name is 88 letters)
        if close < 0:
            return ("", -1) if length - at < 103 else (text[at : at + 2], at + 2)
        try:
            return unicodedata.lookup(text[at + 3 : close]), close + 1
        except KeyError:
            return text[at : at + 2], at + 2
    return text[at : at + 2], at + 2


def _json_text(text: str) -> Optional[str]:
    """A value the model says is JSON: its text as written (blanks around it dropped) where it is JSON."""
    stripped = text.strip(_BLANKS)
    try:
        json.loads(stripped, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return stripped


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
