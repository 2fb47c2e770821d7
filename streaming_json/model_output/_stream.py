"""``ModelOutputStream``: a model's raw output, in pieces, as content, reasoning and tool calls with exact argument
deltas, read in one pass.

How a piece is read. The stream is always in one place of the output: content, a reasoning block, a section of
calls, a call's header, a call's JSON, or what follows the JSON up to the call's end marker. Each place has a reader
that takes the text up to where the place ends and the marker that ends it; text at the end of a piece that could
begin such a marker is held back until the next piece decides (so ``<tool`` in prose comes out as content as soon as
the next character says it is no marker). A call's JSON goes to a parser of the core, which reports the source text
of the arguments verbatim (``source_paths``), the name when it completes, and where the JSON ended: the text after it
goes back to the markers. A marker inside the JSON ends the call only where it is not inside a JSON string.

The rules for text that breaks the format, so that nothing raises and every call that starts ends once:

- A call's end marker, another call's begin marker or the section's end marker, outside a JSON string, ends a call
  whose JSON is not complete: it ends with an error saying its arguments are incomplete. So does the end of the
  output.
- A call without a name ends with an error; one whose name is not among ``tools``, too; one that gives its arguments
  twice, too. A call that writes no arguments gets ``{}``.
- Text after a call's JSON that is not its end marker, or in a section that is not a call, ends the call's envelope
  or the section: it is content. A header that reaches no arguments marker within 1,024 characters was no call: its
  marker and text are content. A header ended by an end or begin marker is a call without arguments (an error).

Cost. Each character is read once, by the core (a call's JSON) or by ``str.find`` (markers); per piece, the layer
makes a few calls and one or two events. Nothing is re-parsed or re-serialised: a call's arguments are parsed once,
strictly, when it ends.
"""

from __future__ import annotations

import codecs
import random
from collections.abc import Iterable
from typing import Any, Callable, Optional, Union

from .._backend import StreamingJsonParser
from .._repair import parse_tool_call_arguments
from ._events import ArgumentsDelta, ContentDelta, ModelOutputEvent, ReasoningDelta, ToolCallEnd, ToolCallStart
from ._formats import FORMATS, ToolCallFormat
from ._markers import Markers

__all__ = ["ModelOutputStream"]

_BLANKS = " \t\n\r"
_ROOT_PATHS = ((),)
_HEADER_LIMIT = 1024
_new = tuple.__new__  # builds an event without a Python-level __new__: every piece's events are made here


def _holds_any(text: str, chars: str) -> bool:
    """Whether ``text`` holds any of ``chars`` (a loop: ``any()`` over a generator costs a frame more a piece)."""
    for char in chars:  # noqa: SIM110
        if char in text:
            return True
    return False


_random_ids = random.Random()  # seeded from the system's entropy; a call id must be unique, not secret


def _fresh_call_id(index: int) -> str:
    return f"call_{_random_ids.getrandbits(96):024x}"


class _Markers:
    """What a format (and a reasoning block) looks for in each place: made once per format, shared by its streams."""

    def __init__(self, format: ToolCallFormat, reasoning: Optional[tuple[str, str]]) -> None:
        self.content = Markers(format.call_begin, *format.section_begin, reasoning[0] if reasoning else None)
        self.reasoning = Markers(reasoning[1] if reasoning else None)
        self.section = Markers(*format.section_end, format.call_begin)
        self.stops = Markers(format.call_end, format.call_begin, *format.section_end)  # they end a call anywhere
        self.header = Markers(format.header_end, *self.stops.markers)
        self.after_json = Markers(format.arguments_end, *self.stops.markers)
        self.between_calls = _BLANKS + format.separators
        # A piece with none of these characters holds no marker, nor the beginning of one (feed's fast paths).
        self.content_firsts = "".join(sorted({marker[0] for marker in self.content.markers}))
        self.stop_firsts = "".join(sorted({marker[0] for marker in self.stops.markers}))
        # The one character to look for where all the stop markers begin with it (most formats' "<" or "["): one
        # search a piece. Without stop markers, a character that seldom comes (a piece holding it takes the general
        # path, which is never wrong); None where they begin with several.
        self.stop_first = self.stop_firsts if len(self.stop_firsts) == 1 else ("\uffff" if not self.stops else None)
        # The parsers' source paths: the arguments of one call object, or of each in an array of them.
        self.call_paths = tuple((key,) for key in format.arguments_keys)
        self.array_paths = tuple(("*", key) for key in format.arguments_keys)


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


class ModelOutputStream:
    """A model's raw output, fed in pieces, as events: content, reasoning, and tool calls whose argument deltas are
    exactly the JSON the model wrote.

    ``format`` is a built-in format's name (see ``FORMATS``: ``"hermes"``, ``"llama3_json"``, ``"mistral"``,
    ``"mistral_v11"``, ``"granite"``, ``"deepseek_v3"``, ``"deepseek_v31"``, ``"kimi_k2"``) or a
    :class:`ToolCallFormat`. ``tools``, if given, are the names the model may call: a call to another ends with an
    error. ``reasoning`` is a reasoning block's begin and end markers (``("<think>", "</think>")``); with
    ``reasoning_open=True`` the output starts inside the block (the chat template opened it). ``new_call_id(index)``
    makes the id of a call whose format carries none (by default a fresh ``call_`` and 24 hex digits).
    ``parser_class`` is the core's parser to read the calls' JSON with (by default the package's).

    ``feed(text)`` returns the events a piece completed (``str``, or UTF-8 bytes); ``finish()`` those the end of the
    output completes: held-back text, and the end of a call left open, with an error saying it was cut off. Neither
    raises on any text, and every call that starts ends exactly once. See the module documentation for the rules.
    """

    def __init__(
        self,
        format: Union[str, ToolCallFormat],
        *,
        tools: Optional[Iterable[str]] = None,
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
        elif reasoning_open:
            raise ValueError("reasoning_open needs the reasoning block's markers: reasoning=(begin, end)")
        self.format = format
        """The format read."""
        self._tools = None if tools is None else frozenset(tools)
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
        # Where the stream is: the reader of the text there. The content reader is bound once, so that feed's fast
        # path tells the place by identity.
        self._read_content = self._read_content  # type: ignore[method-assign]
        self._read_place: Callable[[str, int], int] = self._read_reasoning if reasoning_open else self._read_content
        self._content_started = False  # a bare JSON object opens calls only at the start of the content
        self._in_section = False
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
        self._parser: Any = None
        self._call_depth = 0  # 0: the JSON is one call (or its arguments); 1: an array of calls
        self._element: Any = None  # in an array of calls: the index of the call object being read
        self._arguments_end_seen = False
        # The call whose arguments stream as source text now, and the path object of their source changes; and what
        # feed's fast path needs to continue them, set after each piece where the next one may take it.
        self._streaming_call: Optional[_Call] = None
        self._streaming_path: Any = None
        self._fast: Optional[tuple[Callable[[str], list[Any]], Any, str, Callable[[str], None], int]] = None

    # --- Public API ---------------------------------------------------------------------------------------------

    @property
    def calls(self) -> int:
        """How many tool calls have started."""
        return self._calls

    def feed(self, text: Union[str, bytes, bytearray, memoryview]) -> list[ModelOutputEvent]:
        """Read the next piece of the output; return the events it completed, in order."""
        fast = self._fast
        if fast is not None and type(text) is str:
            # The usual piece: more of a call's arguments, and no marker's first character in it. One append, one
            # event, in the list the parser returned. (Nothing is held back, and after finish() no call streams.)
            append, path, first, keep, index = fast
            if first not in text:
                changes: list[Any] = append(text)
                try:
                    (change,) = changes
                except ValueError:  # several changes, or none: the general path reads them
                    pass
                else:
                    # A lone change of the arguments' path is more of them: where they end, the parser also
                    # reports their value whole or the root's end (see _begin_json).
                    if change.path is path:
                        piece = change.text
                        keep(piece)
                        changes[0] = _new(ArgumentsDelta, (index, piece))
                        return changes
                self._events = []
                self._read(text, self._read_json_changes(changes, len(text)))
                return self._settle()
        if self._finished:
            raise ValueError("feed() after finish(): the output has ended")
        if type(text) is not str:
            text = self._decode(text)
        if self._held:
            text = self._held + text
            self._held = ""
        elif self._read_place is self._read_content and self._content_started:
            firsts = self._content_firsts
            if firsts not in text if len(firsts) == 1 else not _holds_any(text, firsts):
                return [_new(ContentDelta, (text,))] if text else []  # plain content, no marker in sight
        self._events = []
        self._read(text, 0)
        return self._settle()

    def _settle(self) -> list[ModelOutputEvent]:
        """The piece's events; and, where the next piece may take feed's fast path (a call's arguments stream,
        nothing is held back, the stop markers begin with one character), what it needs."""
        call = self._streaming_call
        if call is not None and not self._held and self._stop_first is not None:
            self._fast = (self._parser.append, self._streaming_path, self._stop_first, call.chunks.append, call.index)
        else:
            self._fast = None
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
        self._fast = None
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
        elif held and place == self._read_reasoning:
            self._emit_reasoning(held)
        elif held and (place == self._read_content or place == self._read_section):
            self._emit_content(held)
        # Otherwise (after a begin marker, after a call's JSON) what is held began an end marker: nothing to say.
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
        if problem is None:
            result = parse_tool_call_arguments(text)
            self._events.append(_new(ToolCallEnd, (call.index, result.arguments, result.error)))
        else:
            self._events.append(_new(ToolCallEnd, (call.index, {}, f"{problem}.\nReceived arguments: {text}")))

    def _end_open_call(self, cut_off: Optional[str]) -> None:
        call = self._call
        self._call = None
        self._element = None
        self._streaming_call = None
        if call is not None:
            self._end_call(call, cut_off)

    # --- Content, reasoning, sections ----------------------------------------------------------------------------

    def _read_content(self, text: str, position: int) -> int:
        if self.format.bare_json_start and not self._content_started:
            start = position
            while position < len(text) and text[position] in _BLANKS:
                position += 1
            if position == len(text):
                self._held = text[start:]  # blank so far: the calls may still start the output
                return position
            if text[position] == "{":
                self._content_started = True
                self._enter_section()
                return position
            position = start
        markers = self._markers.content
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._emit_content(text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        self._content_started = True
        if self._reasoning is not None and marker == self._reasoning[0]:
            self._read_place = self._read_reasoning
        elif marker == self.format.call_begin:
            self._begin_call(marker)
        else:
            self._enter_section()
        return found + len(marker)

    def _read_reasoning(self, text: str, position: int) -> int:
        markers = self._markers.reasoning
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._emit_reasoning(text[position:end])
        if found < 0:
            self._held = text[end:]
            return len(text)
        self._read_place = self._read_content
        return found + len(marker)

    def _enter_section(self) -> None:
        self._in_section = True
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
        if marker:  # the section's end
            self._leave_section()
            return position + len(marker)
        if self.format.call_begin is None and text[position] in "{[":
            self._begin_json(text[position])
            return position
        self._leave_section()  # the section is over: what follows the last call is content, blanks and all
        return start

    def _leave_section(self) -> None:
        self._in_section = False
        self._read_place = self._read_content

    def _marker_at(self, markers: Markers, text: str, position: int) -> Optional[str]:
        """The marker at ``position``; ``""`` where none is; None where the text ends inside what may be the
        beginning of one (for the caller to hold back)."""
        for marker in markers.markers:
            if text.startswith(marker, position):
                return marker
        tail = text[position:]
        if any(len(tail) < len(marker) and marker.startswith(tail) for marker in markers.markers):
            return None
        return ""

    # --- A call: its header, its JSON, and its end --------------------------------------------------------------

    def _begin_call(self, marker: str) -> None:
        """After a call's begin marker: its header, or its JSON."""
        self._call_marker = marker
        if self.format.header_end is not None:
            self._header = []
            self._header_length = 0
            self._read_place = self._read_header
        else:
            self._read_place = self._read_before_json

    def _read_before_json(self, text: str, position: int) -> int:
        length = len(text)
        while position < length and text[position] in _BLANKS:
            position += 1
        if position < length:
            self._begin_json(text[position])
        return position

    def _read_header(self, text: str, position: int) -> int:
        markers = self._markers.header
        found, marker = markers.find(text, position)
        end = found if found >= 0 else markers.held_from(text, position)
        if end > position:
            self._header.append(text[position:end])
            self._header_length += end - position
        if found < 0:
            if self._header_length > _HEADER_LIMIT:
                self._abandon_header(text[end:])
            else:
                self._held = text[end:]
            return len(text)
        name, call_id = self._read_name("".join(self._header))
        call = _Call(name, call_id)
        if marker == self.format.header_end:
            self._call = call
            self._start_call(call)
            self._begin_json("")
            return found + len(marker)
        call.error = f"Tool call has no arguments: {marker} came where {self.format.header_end} was expected"
        self._end_call(call)
        self._after_call()
        return found + len(marker) if marker == self.format.call_end else found

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
        self._leave_section()
        self._emit_content(text)

    def _begin_json(self, first: str) -> None:
        """The JSON of a call starts (or, in a section, of an array of calls); ``first`` is its first character
        where it is known."""
        self._arguments_end_seen = False
        self._element = None
        if self.format.payload == "arguments":
            self._call_depth = 0
            # The root's done event comes with the last piece of its source: a lone source change is never the last
            # (feed's fast path relies on it), and nothing inside the root is reported (report_depth=0).
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
        began = self.format.payload != "arguments" or (self._call is not None and bool(self._call.chunks))
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
            if self.format.payload == "arguments":
                call = self._call
                if call is not None:
                    for change in changes:
                        if change.kind == "source":
                            self._emit_arguments(call, change.text)
                            self._streaming_call = None if change.last else call
                            self._streaming_path = change.path
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
                self._streaming_path = change.path
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
        """After a call's JSON: blanks, the text that closes its arguments (a fence), then its end marker; for a
        format without one, what follows is the next call or content."""
        if self.format.call_end is None:
            self._after_call()
            return position
        length = len(text)
        while position < length and text[position] in _BLANKS:
            position += 1
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
        self._read_place = self._read_section if self._in_section else self._read_content
