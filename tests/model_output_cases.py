"""The cross-engine case list (after NVIDIA Dynamo's tool-call parser test taxonomy), written in every format of the
registry: each case is an output a model writes (or breaks), and the contract a reader keeps on it.

``tests/test_model_output_cases.py`` reads every case in every format whole, cut at every position, and a character
a piece; the table of ``docs/model-output/cases.md`` is :func:`docs_table`'s text (a test holds them equal:
``python -m tests.model_output_cases`` rewrites the page's table after a change here).

A case builds its output from the format's own writer (``model_outputs.write_output``, which a new format extends)
and from the format's data (its markers); a case a format cannot write (no section end marker to leave empty, no
second spelling) does not apply to it. Where a format's result is not the case's contract because of what the
format is, not a bug, :data:`LIMITATIONS` says why: the test expects that failure, and the docs list it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from streaming_json.model_output import (
    FORMATS,
    ArgumentsDelta,
    ContentDelta,
    ReasoningDelta,
    ToolCallEnd,
    ToolCallFormat,
    ToolCallStart,
)

from .model_outputs import call_id, merged, tools_for, writable, write_output

Call = tuple[str, dict[str, Any]]

WEATHER: Call = ("get_weather", {"city": "Tokyo", "days": 3})
TIME: Call = ("get_time", {"zone": "Asia/Tokyo"})
SEARCH: Call = ("search", {"query": "ramen near Shibuya", "limit": 5})
UNKNOWN: Call = ("launch_rocket", {"target": "Mars"})
BAD_NUMBER = 7770777  # written where a malformed value then stands
COMPLEX: Call = (
    "query",
    {
        "filter": {"tags": ["naïve", "日本語", "😀"], "range": {"from": -1.5e-10, "to": None}, "any": [True, False]},
        "text": 'He said "hi" \\ path\ttab',
        "id": 123456789012345678901234567890,
    },
)
PROSE_BEFORE_TEXT = "Let me check. "
PROSE_AFTER_TEXT = " Done: {ok} [1]."
PROSE_BETWEEN_TEXT = " And then: "
PLAIN_TEXT = "The weather in Tokyo is {sunny}; [see] <b>this</b> and 3 < 4 > 2."
# Text a string value holds that looks like a format's structure: JSON, separators, other formats' markers (and the
# format's own markers, and their first halves, where it can write them in a value).
STRUCTURE_TEXTS = ['{"name": "x", "arguments": {}}', "a}b]c;d,e)", "[TOOL_CALLS]", "</tool_call>"]


def format_names() -> list[str]:
    """Every format of the registry once, under its own name (an alias is the same data)."""
    return sorted({format.name for format in FORMATS.values()})


def markers_of(format: ToolCallFormat) -> list[str]:
    """Every marker of the format's data, longest first."""
    found = [*format.section_begin, *format.section_end, *format.output_section_begin, *format.ignored_markers]
    found += [format.call_begin, format.call_end, format.header_end, format.arguments_end]
    if format.parameters is not None:
        syntax = format.parameters
        found += [syntax.begin, syntax.header_end, syntax.end, syntax.value_begin]
    if format.literal is not None:
        found += list(format.literal.quotes)
    if format.channels is not None:
        found += [*format.channels.message_end, format.channels.header_end]
    return sorted({marker for marker in found if marker}, key=len, reverse=True)


# --- What a reader gave -------------------------------------------------------------------------------------------


@dataclass
class CallResult:
    name: str
    id: str
    arguments_text: str
    arguments: Any = None
    error: Optional[str] = None


@dataclass
class Result:
    """The merged events of one reading, and what they say."""

    events: list[Any]
    content: str = ""
    reasoning: str = ""
    calls: list[CallResult] = field(default_factory=list)

    @classmethod
    def of(cls, events: Sequence[Any]) -> Result:
        result = cls(merged(events))
        by_index: dict[int, CallResult] = {}
        for event in result.events:
            if isinstance(event, ContentDelta):
                result.content += event.text
            elif isinstance(event, ReasoningDelta):
                result.reasoning += event.text
            elif isinstance(event, ToolCallStart):
                by_index[event.index] = CallResult(event.name, event.id, "")
                result.calls.append(by_index[event.index])
            elif isinstance(event, ArgumentsDelta):
                by_index[event.index].arguments_text += event.text
            elif isinstance(event, ToolCallEnd):
                by_index[event.index].arguments = event.arguments
                by_index[event.index].error = event.error
        return result

    def read(self) -> list[tuple[str, Any]]:
        """The calls read without an error, by name and arguments."""
        return [(call.name, call.arguments) for call in self.calls if call.error is None]


# --- Writing a case in a format -----------------------------------------------------------------------------------


@dataclass
class Written:
    """A case's output in one format, and how to judge what a reader gives for it: ``expected``, the exact merged
    events; or ``check``, which raises AssertionError saying what is wrong."""

    text: str
    tools: list[dict[str, Any]]
    expected: Optional[list[Any]] = None
    check: Optional[Callable[[Result], None]] = None
    pieces: Optional[list[str]] = None  # a case's own cut, read besides the others


def _json(call: Call) -> tuple[str, str]:
    return call[0], json.dumps(call[1], ensure_ascii=False)


def write(format_name: str, calls: Sequence[Call], before: str = "", after: str = "") -> tuple[str, list[Any]]:
    """The format's own writer's output and events for these calls (a name and its arguments)."""
    return write_output(format_name, [_json(call) for call in calls], before, after)


def _renumbered(events: list[Any], first: int) -> list[Any]:
    """Events of a second output's calls as they follow ``first`` calls before them (ids the reader makes follow the
    index; a model's own id is kept)."""
    out = []
    for event in events:
        if isinstance(event, ToolCallStart):
            own = event.id if event.id != call_id(event.index) else call_id(event.index + first)
            event = ToolCallStart(event.index + first, own, event.name)
        elif isinstance(event, ArgumentsDelta):
            event = ArgumentsDelta(event.index + first, event.text)
        elif isinstance(event, ToolCallEnd):
            event = ToolCallEnd(event.index + first, event.arguments, event.error)
        out.append(event)
    return out


def write_apart(
    format_name: str, first: Sequence[Call], second: Sequence[Call], between: str, before: str = ""
) -> tuple[str, list[Any]]:
    """Two outputs' calls, with text between them: the text before, the first's calls, the text, the second's."""
    text, expected = write(format_name, first, before=before, after=between)
    more, more_expected = write(format_name, second)
    joiner = "<|start|>assistant" if FORMATS[format_name].channels is not None else ""
    return text + joiner + more, merged(expected + _renumbered(more_expected, len(first)))


def _tools(calls: Sequence[Call]) -> list[dict[str, Any]]:
    return tools_for([_json(call) for call in calls])


def _exact(format_name: str, calls: Sequence[Call], before: str = "", after: str = "") -> Written:
    text, expected = write(format_name, calls, before, after)
    return Written(text, _tools(calls), expected)


def _opens_output(format_name: str) -> bool:
    """Whether the format's calls open the output only, so that text before them makes them text too: they begin
    with no marker that opens calls anywhere (a pythonic list's ``[``; Llama 3's ``<|python_tag|>`` opens them
    anywhere)."""
    format = FORMATS[format_name]
    if format.channels is not None:
        return False
    text, _ = write(format_name, [WEATHER])
    return not any(marker and text.startswith(marker) for marker in (*format.section_begin, format.call_begin))


def _stops(format: ToolCallFormat) -> list[str]:
    """What can close a call or a section, longest first."""
    found = [*format.section_end, format.call_end, format.arguments_end, *format.ignored_markers]
    if format.channels is not None:
        found += list(format.channels.message_end)
    return sorted({marker for marker in found if marker}, key=len, reverse=True)


def _without_closing_markers(format: ToolCallFormat, text: str) -> Optional[str]:
    """The text without the markers (and blanks) that close its last call, or None where none does."""
    stops = _stops(format)
    trimmed = text
    while True:
        stripped = trimmed.rstrip()
        for marker in stops:
            if stripped.endswith(marker):
                stripped = stripped[: -len(marker)]
                break
        else:
            break
        trimmed = stripped
    return trimmed if trimmed != text.rstrip() or (trimmed != text and stops) else None


def _value_spot(text: str, value: str) -> int:
    """Where a value's text first stands in the output."""
    return text.index(value)


# --- The checks ---------------------------------------------------------------------------------------------------


def no_call_succeeds(result: Result) -> None:
    assert not result.read(), f"a call was read from malformed output: {result.read()}"


def calls_are(*calls: tuple[str, Any], content: Optional[str] = None) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        assert result.read() == list(calls), f"calls read: {result.read()}, expected {list(calls)}"
        if content is not None:
            assert result.content == content, f"content {result.content!r}, expected {content!r}"

    return check


def calls_are_content_blank(*calls: tuple[str, Any]) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        assert result.read() == list(calls), f"calls read: {result.read()}, expected {list(calls)}"
        assert result.content.strip() == "", f"content {result.content!r} is more than the blanks"
        assert all(call.error is None for call in result.calls), [call.error for call in result.calls]

    return check


def cut_off(read_first: Sequence[Call], name: str, streamed_prefix_of: str) -> Callable[[Result], None]:
    """The calls before the cut are read; the one cut off starts, with what of its arguments was out a prefix of
    their whole text (or ``{}``, where none was), and ends with an error."""

    def check(result: Result) -> None:
        assert result.read() == [(n, a) for n, a in read_first], f"calls read before the cut: {result.read()}"
        assert len(result.calls) == len(read_first) + 1, f"the call cut off: {[c.name for c in result.calls]}"
        last = result.calls[-1]
        assert last.name == name, last.name
        assert last.error is not None, "the call cut off ended without an error"
        assert last.arguments == {}, last.arguments
        streamed = last.arguments_text
        assert streamed == "{}" or streamed_prefix_of.startswith(streamed), (streamed, streamed_prefix_of)

    return check


# --- The cases ----------------------------------------------------------------------------------------------------


EVERY_FORMAT = "every format"


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    """The Dynamo taxonomy's heading."""
    contract: str
    """What a reader gives for it, for the docs."""
    build: Callable[[str], Optional[Written]]
    """The output in a format, or None where the format cannot write the case."""
    where: str = EVERY_FORMAT
    """The formats that write it, said by what they have (not by name: a format added writes it or not)."""


def _one_call(format_name: str) -> Written:
    return _exact(format_name, [WEATHER])


def _several(format_name: str) -> Written:
    return _exact(format_name, [WEATHER, TIME, SEARCH])


def _text_before(format_name: str) -> Written:
    if _opens_output(format_name):
        text, _ = write(format_name, [WEATHER], before=PROSE_BEFORE_TEXT)
        return Written(text, _tools([WEATHER]), [ContentDelta(text)])
    return _exact(format_name, [WEATHER], before=PROSE_BEFORE_TEXT)


def _text_after(format_name: str) -> Written:
    return _exact(format_name, [WEATHER, TIME], after=PROSE_AFTER_TEXT)


def _text_around_and_between(format_name: str) -> Written:
    if _opens_output(format_name):
        # the second list of calls follows text: it is text too
        text, _ = write_apart(format_name, [WEATHER], [TIME], PROSE_BETWEEN_TEXT)
        first, first_expected = write(format_name, [WEATHER], after=PROSE_BETWEEN_TEXT)
        return Written(text, _tools([WEATHER, TIME]), merged([*first_expected, ContentDelta(text[len(first) :])]))
    text, expected = write_apart(format_name, [WEATHER], [TIME], PROSE_BETWEEN_TEXT, before=PROSE_BEFORE_TEXT)
    return Written(text, _tools([WEATHER, TIME]), expected)


def _no_call(format_name: str) -> Written:
    return Written(PLAIN_TEXT, _tools([WEATHER]), [ContentDelta(PLAIN_TEXT)])


# Other formats' markers a format's prose may hold (a few, of different shapes).
FOREIGN_MARKERS = [
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<｜tool▁calls▁begin｜>",
    "<function=",
    "<|tool_call>",
    "<|start|>",
]


def _marker_like_text(format_name: str) -> Written:
    """Prose holding the first half of each of the format's markers, and other formats' markers."""
    format = FORMATS[format_name]
    own = [*markers_of(format), *(format.reasoning or ())]
    halves = [marker[: (len(marker) + 1) // 2] for marker in own if len(marker) > 1]
    foreign = [marker for marker in FOREIGN_MARKERS if not any(o in marker or marker in o for o in own)]
    words = [text for text in [*halves, *foreign] if not any(marker in text for marker in own)]
    text = "See " + " and ".join(words) + " here."
    return Written(text, _tools([WEATHER]), [ContentDelta(text)])


def _malformed(format_name: str) -> Optional[str]:
    text, _ = write(format_name, [("get_weather", {"city": "Tokyo", "days": BAD_NUMBER})])
    return text.replace(str(BAD_NUMBER), "7x7", 1)


def _malformed_value(format_name: str) -> Written:
    return Written(_malformed(format_name) or "", _tools([WEATHER]), check=no_call_succeeds)


def _arguments_not_an_object(format_name: str) -> Optional[Written]:
    """A JSON array where the arguments' object stands (the formats whose arguments are JSON)."""
    text, _ = write(format_name, [("get_weather", {"city": "Tokyo"})])
    written = '{"city": "Tokyo"}'
    if FORMATS[format_name].payload not in ("call", "arguments") or text.count(written) != 1:
        return None
    return Written(text.replace(written, '["Tokyo", 3]'), _tools([WEATHER]), check=no_call_succeeds)


def _missing_name(format_name: str) -> Written:
    text, _ = write(format_name, [WEATHER])
    return Written(text.replace(WEATHER[0], "", 1), _tools([WEATHER]), check=no_call_succeeds)


def _broken_opener(format_name: str) -> Optional[Written]:
    """The marker that opens the call (the one before each call, else the section's) loses its last character."""
    format = FORMATS[format_name]
    text, _ = write(format_name, [WEATHER])
    openers = [format.call_begin] if format.call_begin else [*format.section_begin, *format.output_section_begin]
    if format.channels is not None:
        openers = [format.channels.header_end]  # (a message's header, which names the tool, never ends)
    openers = [marker for marker in openers if marker and marker in text]
    if not openers:
        return None
    marker = max(openers, key=len)
    broken = text.replace(marker, marker[:-1] + " ")

    def check(result: Result) -> None:
        assert not result.calls, f"a call started without its opener: {[call.name for call in result.calls]}"
        if format.channels is None:  # (a Harmony message's header is never content)
            content = broken
            # (the section opened, and what is in it is no call; the markers that say nothing are dropped)
            for intact in (*format.section_begin, *format.ignored_markers):
                content = content.replace(intact, "")
            assert result.content == content, result.content

    return Written(broken, _tools([WEATHER]), check=check)


def _malformed_then_valid(format_name: str) -> Written:
    bad = _malformed(format_name) or ""
    if _opens_output(format_name):
        return Written(bad, _tools([WEATHER]), check=no_call_succeeds)  # (nothing follows the output's own list)
    good, _ = write(format_name, [TIME])
    joiner = "<|start|>assistant" if FORMATS[format_name].channels is not None else ""
    return Written(bad + joiner + good, _tools([WEATHER, TIME]), check=calls_are(TIME))


def _closing_markers_absent(format_name: str) -> Optional[Written]:
    format = FORMATS[format_name]
    text, expected = write(format_name, [WEATHER, TIME])
    trimmed = _without_closing_markers(format, text)
    if trimmed is None:
        return None
    if format.payload == "parameters":
        # Nothing tells a call whose end marker the model left out from one cut off between two parameters.
        whole = _arguments_text(format_name, [WEATHER, TIME])[1]
        return Written(trimmed, _tools([WEATHER, TIME]), check=cut_off([WEATHER], TIME[0], whole))
    return Written(trimmed, _tools([WEATHER, TIME]), check=calls_are_content_blank(WEATHER, TIME))


def _fence_absent(format_name: str) -> Optional[Written]:
    """The text that closes the arguments before the call's end marker (DeepSeek V3's closing fence) left out."""
    format = FORMATS[format_name]
    text, expected = write(format_name, [WEATHER, TIME])
    if format.arguments_end is None or format.call_end is None:
        return None
    closing = format.arguments_end + format.call_end
    if closing not in text:
        return None
    return Written(text.replace(closing, format.call_end), _tools([WEATHER, TIME]), expected)


def _section_end_absent(format_name: str) -> Optional[Written]:
    format = FORMATS[format_name]
    text, expected = write(format_name, [WEATHER, TIME])
    ends = sorted((*format.section_end, *format.ignored_markers), key=len, reverse=True)
    trimmed = text.rstrip()
    for marker in ends:
        if trimmed.endswith(marker):
            trimmed = trimmed[: -len(marker)]
            break
    else:
        return None
    if _without_closing_markers(format, text) == trimmed:
        return None  # (the section's end is all that closes the calls: the case above)
    return Written(trimmed, _tools([WEATHER, TIME]), check=calls_are_content_blank(WEATHER, TIME))


def _arguments_text(format_name: str, calls: Sequence[Call]) -> list[str]:
    _, expected = write(format_name, calls)
    return [event.text for event in merged(expected) if isinstance(event, ArgumentsDelta)]


def _eos_inside_call(format_name: str) -> Written:
    text, _ = write(format_name, [WEATHER])
    cut = text[: _value_spot(text, "Tokyo") + 3]
    return Written(cut, _tools([WEATHER]), check=cut_off([], WEATHER[0], _arguments_text(format_name, [WEATHER])[0]))


def _last_of_several_cut(format_name: str) -> Written:
    text, _ = write(format_name, [WEATHER, TIME, SEARCH])
    cut = text[: _value_spot(text, "ramen") + 3]
    whole = _arguments_text(format_name, [WEATHER, TIME, SEARCH])[2]
    return Written(cut, _tools([WEATHER, TIME, SEARCH]), check=cut_off([WEATHER, TIME], SEARCH[0], whole))


def _call_in_flight(format_name: str) -> Written:
    """Cut where the name is out and no argument is."""
    text, _ = write(format_name, [WEATHER])
    position = _value_spot(text, "Tokyo")
    key = text.rindex("city", 0, position)
    cut = text[:key]
    return Written(cut, _tools([WEATHER]), check=cut_off([], WEATHER[0], _arguments_text(format_name, [WEATHER])[0]))


def _empty_arguments(format_name: str) -> Written:
    return _exact(format_name, [("get_time", {})])


def _blank_arguments(format_name: str) -> Optional[Written]:
    format = FORMATS[format_name]
    text, _ = write(format_name, [("get_time", {})])
    if format.payload in ("call", "arguments") and text.count("{}") == 1:
        blank = text.replace("{}", "{ \n }")
    elif format.literal is not None:
        empty = "()" if format.literal.end == ")" else "{}"
        if text.count(empty) != 1:
            return None
        blank = text.replace(empty, empty[0] + " \n " + empty[1])
    elif format.call_end is not None and text.count(format.call_end) == 1:
        blank = text.replace(format.call_end, " \n " + format.call_end)
    else:
        return None
    return Written(blank, _tools([("get_time", {})]), check=calls_are(("get_time", {}), content=""))


def _no_arguments_key(format_name: str) -> Optional[Written]:
    format = FORMATS[format_name]
    if format.payload != "call":
        return None
    text, _ = write(format_name, [("get_time", {})])
    keys = [f', "{key}": {{}}' for key in format.arguments_keys if f', "{key}": {{}}' in text]
    if len(keys) != 1:
        return None
    return Written(text.replace(keys[0], ""), _tools([("get_time", {})]), check=calls_are(("get_time", {}), content=""))


def _complex_values(format_name: str) -> Optional[Written]:
    if not writable(format_name, _json(COMPLEX)[1]):
        return None
    return _exact(format_name, [COMPLEX])


def _structure_in_strings(format_name: str) -> Optional[Written]:
    own = markers_of(FORMATS[format_name])
    candidates = [*STRUCTURE_TEXTS, *own, *(marker[: (len(marker) + 1) // 2] for marker in own)]
    texts = [text for text in candidates if writable(format_name, json.dumps({"s": text}))]
    call = ("echo", {"text": " ".join(texts)})
    return _exact(format_name, [call, ("echo", {"text": "}]);,"})])


def _same_tool_twice(format_name: str) -> Written:
    written = _exact(format_name, [WEATHER, ("get_weather", {"city": "Paris", "days": 1})])

    def check(result: Result) -> None:
        ids = [call.id for call in result.calls]
        assert len(set(ids)) == 2, f"two calls of one tool share an id: {ids}"

    written.check = check
    return written


def _unknown_tool(format_name: str) -> Written:
    text, _ = write(format_name, [UNKNOWN])

    def check(result: Result) -> None:
        assert not result.read(), f"a call to a tool not offered was read: {result.read()}"
        assert [call.name for call in result.calls] == [UNKNOWN[0]], "the unknown tool's call starts, named"
        assert result.calls[0].error is not None and UNKNOWN[0] in result.calls[0].error, result.calls[0].error
        assert result.content == "", result.content

    return Written(text, _tools([WEATHER]), check=check)


def _known_and_unknown(format_name: str) -> Written:
    text, _ = write(format_name, [WEATHER, UNKNOWN, TIME])

    def check(result: Result) -> None:
        assert result.read() == [WEATHER, TIME], result.read()
        assert [call.name for call in result.calls] == [WEATHER[0], UNKNOWN[0], TIME[0]]
        assert result.content == "", result.content

    return Written(text, _tools([WEATHER, TIME]), check=check)


def _markers_split(format_name: str) -> Written:
    """Several calls fed in pieces that cut every marker in two (and some in three)."""
    written = _exact(format_name, [WEATHER, TIME], after=PROSE_AFTER_TEXT)
    text = written.text
    pattern = re.compile("|".join(re.escape(marker) for marker in markers_of(FORMATS[format_name])))
    cuts = sorted(
        {found.start() + max(1, len(found.group()) // (2 + n % 2)) for n, found in enumerate(pattern.finditer(text))}
    )
    written.pieces = [text[start:end] for start, end in zip([0, *cuts], [*cuts, len(text)])]
    return written


def _blank_between_markers(format_name: str) -> Optional[Written]:
    format = FORMATS[format_name]
    text, _ = write(format_name, [WEATHER, TIME])
    spaced = text
    for marker in {*format.section_begin, *format.output_section_begin}:
        spaced = spaced.replace(marker, marker + "\n ")
    for marker in set(format.section_end):
        spaced = spaced.replace(marker, " \n" + marker)
    if format.call_end is not None and format.call_begin is not None:
        spaced = spaced.replace(format.call_end + format.call_begin, format.call_end + " \n " + format.call_begin)
    if spaced == text:
        return None
    return Written(spaced, _tools([WEATHER, TIME]), check=calls_are_content_blank(WEATHER, TIME))


def _blanks_around_headers(text: str, begin: str, end: str, markers: Sequence[str]) -> str:
    """Blanks after each ``begin`` and before the ``end`` that follows it (not where ``begin`` is the start of a
    longer marker: MiniMax-M3's parameters begin as its other tags do)."""
    longer = [marker for marker in markers if len(marker) > len(begin) and marker.startswith(begin)]
    out, position = "", 0
    while True:
        found = text.find(begin, position)
        if found < 0:
            break
        if any(text.startswith(marker, found) for marker in longer):
            out += text[position : found + len(begin)]
            position = found + len(begin)
            continue
        header = found + len(begin)
        stop = text.find(end, header)
        if stop < 0:
            break
        out += text[position:header] + " " + text[header:stop] + " "
        position = stop
    return out + text[position:]


def _blank_inside_markers(format_name: str) -> Optional[Written]:
    """Blanks around each header: a call's (after its begin marker, before the end of its header), and a
    parameter's (after the parameter's marker, before the end of its header)."""
    format = FORMATS[format_name]
    if format.channels is not None:
        return None
    text, expected = write(format_name, [WEATHER, TIME])
    spaced = text
    parameters = format.parameters
    header_end = format.header_end or (parameters.begin if parameters is not None else None)
    if format.call_begin is not None and header_end is not None:
        spaced = _blanks_around_headers(spaced, format.call_begin, header_end, markers_of(format))
    if parameters is not None:
        spaced = _blanks_around_headers(spaced, parameters.begin, parameters.header_end, markers_of(format))
    if spaced == text:
        return None
    return Written(spaced, _tools([WEATHER, TIME]), expected)


# Spellings a format's header pattern reads besides the one its writer writes (not data tuples: the patterns').
HEADER_SPELLINGS: dict[str, list[tuple[str, str]]] = {
    "deepseek_v3": [("function<｜tool▁sep｜>", "<｜tool▁sep｜>")],  # "function" may be left out
    "gemma4": [("call:", ":")],  # the bare ":NAME{" opener
    "minimax_m2": [('="', "='"), ('">', "'>")],  # names in single quotes
}


def spellings(format_name: str) -> list[tuple[str, str]]:
    """Each other spelling of a marker the format reads: (the written one, the other)."""
    format = FORMATS[format_name]
    return [
        (markers[0], other)
        for markers in (format.section_begin, format.section_end)
        for other in markers[1:]
        if markers
    ]


def _spelling_variants(format_name: str) -> Optional[Written]:
    """Every other spelling at once, one a call: the events as with the first spelling."""
    calls = [WEATHER, TIME]
    first, expected = write(format_name, calls)
    texts = []
    variants = spellings(format_name)
    if variants:
        text = first
        for written, other in variants:
            text = text.replace(written, other)
        texts.append(text)
    replacements = HEADER_SPELLINGS.get(format_name, [])
    if replacements:
        text = first
        for written, other in replacements:
            text = text.replace(written, other)
        texts.append(text)
    for alias in FORMATS[format_name].aliases:
        try:  # an alias the writer knows writes another spelling of the format (glm45: GLM-4.5's newlines)
            text, alias_expected = write(alias, calls)
        except ValueError:
            continue
        if text != first and alias_expected == expected:
            texts.append(text)
    if not texts:
        return None
    joiner = "<|start|>assistant" if FORMATS[format_name].channels is not None else ""
    all_expected = expected + [event for n in range(len(texts)) for event in _renumbered(expected, (n + 1) * 2)]
    return Written(joiner.join([first, *texts]), _tools(calls), merged(all_expected))


def _empty_output(format_name: str) -> Written:
    return Written("", _tools([WEATHER]), [])


def _blank_output(format_name: str) -> Written:
    return Written(" \n\t ", _tools([WEATHER]), [ContentDelta(" \n\t ")])


def _empty_section(format_name: str) -> Optional[Written]:
    """The format's writer's section for no calls (its markers around nothing, an empty list), text around."""
    if FORMATS[format_name].channels is not None:
        return None
    before = "" if _opens_output(format_name) else PROSE_BEFORE_TEXT
    text, _ = write(format_name, [], before=before, after=PROSE_AFTER_TEXT)
    if text == before + PROSE_AFTER_TEXT:
        return None  # (its calls are not in a section)
    return Written(text, _tools([WEATHER]), check=calls_are(content=before + PROSE_AFTER_TEXT))


CASES = [
    Case(
        "one call",
        "one call",
        "The call: its name, its arguments exactly (typed by the schema); no content.",
        _one_call,
    ),
    Case("several calls", "several calls", "Each call in order, indices from 0, each ends once.", _several),
    Case(
        "text before",
        "text around calls",
        "The text as content, then the call. Where the format's calls open the output (the JSON or list a Llama "
        "3 or pythonic output is), text before them makes the whole output content.",
        _text_before,
    ),
    Case("text after", "text around calls", "The calls, then the text as content.", _text_after),
    Case(
        "text around and between",
        "text around calls",
        "Text, a call, text, a call: each in its place. Where the calls open the output, what follows the first "
        "list is content.",
        _text_around_and_between,
    ),
    Case("no call", "no call", "Text with braces, brackets and tags, no marker: all of it content.", _no_call),
    Case(
        "marker-like text",
        "no call",
        "Text holding the first half of each of the format's markers, and other formats' markers: all of it content.",
        _marker_like_text,
    ),
    Case(
        "malformed value",
        "malformed arguments",
        "A value that is no JSON (or not its schema's type): no call is read from it (a call that started ends "
        "with an error).",
        _malformed_value,
    ),
    Case(
        "arguments not an object",
        "malformed arguments",
        "A JSON array where the arguments' object stands: no call is read.",
        _arguments_not_an_object,
        "formats whose arguments are JSON",
    ),
    Case(
        "missing name",
        "malformed arguments",
        "The tool's name left out: no call is read.",
        _missing_name,
    ),
    Case(
        "broken opener",
        "malformed arguments",
        "The marker that opens the call (the one before each call, else the section's) with its last character "
        "lost: no call starts; the text is content (but for the marker that opened a section).",
        _broken_opener,
    ),
    Case(
        "malformed then valid",
        "malformed arguments",
        "A malformed call, then a valid one: the valid one is read.",
        _malformed_then_valid,
    ),
    Case(
        "closing markers absent",
        "missing end token",
        "The output ends where the markers closing its last call (fence, call and section end) would stand: "
        "every call is read, content is at most the blanks left; but in the formats that write arguments as "
        "tagged text, where nothing tells a call whose end marker was left out from one cut off between two "
        "parameters (by a token limit), the last call ends with an error, as when cut off.",
        _closing_markers_absent,
        "formats with a marker that closes a call or its section",
    ),
    Case(
        "closing fence absent",
        "missing end token",
        "The fence that closes the arguments left out before the call's end marker: the same events.",
        _fence_absent,
        "formats whose arguments close with text of their own (DeepSeek V3's fence)",
    ),
    Case(
        "section end absent",
        "missing end token",
        "The calls closed, their section not: the same calls; content is at most the blanks after them.",
        _section_end_absent,
        "formats whose calls close before their section's end marker",
    ),
    Case(
        "end inside a call",
        "missing end token",
        "The output ends inside a string value: the call starts, its argument deltas are a prefix of the whole "
        "call's, and it ends with an error and ``{}``.",
        _eos_inside_call,
    ),
    Case(
        "last of several cut",
        "missing end token",
        "Three calls, the output ends inside the third: the first two are read, the third ends with an error.",
        _last_of_several_cut,
    ),
    Case(
        "call in flight",
        "missing end token",
        "The output ends after the call's name, before its first argument: the call ends with an error.",
        _call_in_flight,
    ),
    Case("empty arguments", "empty arguments", "A call with ``{}``: read with ``{}``.", _empty_arguments),
    Case(
        "blank arguments",
        "empty arguments",
        "No arguments, blanks where they would stand: read with ``{}``.",
        _blank_arguments,
    ),
    Case(
        "no arguments key",
        "empty arguments",
        "A call object without its arguments key: read with ``{}``.",
        _no_arguments_key,
        "formats whose call is a JSON object of name and arguments",
    ),
    Case(
        "complex values",
        "complex values",
        "Nested objects and arrays, non-ASCII, quotes, backslashes, tabs, a 30-digit integer: exact (the integer "
        "not rounded).",
        _complex_values,
    ),
    Case(
        "structure in strings",
        "structure in values",
        "String values holding JSON, separators, braces, and each of the format's markers (and its first half) that "
        "the format can write in a value: text.",
        _structure_in_strings,
    ),
    Case(
        "same tool twice",
        "same tool twice",
        "Two calls of one tool: two calls, distinct ids.",
        _same_tool_twice,
    ),
    Case(
        "unknown tool",
        "unknown tool",
        "A call to a tool not offered: it starts, named, and ends with an error naming it, ``{}``.",
        _unknown_tool,
    ),
    Case(
        "known and unknown",
        "unknown tool",
        "Known, unknown, known: the known ones read, the unknown one ends with an error.",
        _known_and_unknown,
    ),
    Case(
        "markers split",
        "marker split across pieces",
        "Every marker cut in two or three pieces: the same events.",
        _markers_split,
    ),
    Case(
        "blanks between markers",
        "whitespace",
        "Blanks after the section's opener, between calls and before its end: the same calls; content is at most "
        "those blanks.",
        _blank_between_markers,
        "formats with a marker between calls, or around their section",
    ),
    Case(
        "blanks inside markers",
        "whitespace",
        "Blanks around the name in a call's header and in each parameter's: the same events.",
        _blank_inside_markers,
        "formats with markers around each call's or parameter's header",
    ),
    Case(
        "spelling variants",
        "spelling variants",
        "Every other spelling of the format's markers, its aliases' (GLM-4.5's newlines, Mistral's three) and its "
        "header's (DeepSeek V3 without ``function``, Gemma's bare ``:NAME{``, MiniMax's single quotes): the same "
        "events as the first spelling.",
        _spelling_variants,
        "formats with another spelling of a marker, or an alias written otherwise",
    ),
    Case("empty output", "empty output", "No events.", _empty_output),
    Case("blank output", "empty output", "The blanks as content.", _blank_output),
    Case(
        "empty section",
        "empty output",
        "A section of calls opened and closed with none in it (an empty list): no call; the text around is content.",
        _empty_section,
        "formats whose calls are in a section (or a list)",
    ),
]
CASES_BY_NAME = {case.name: case for case in CASES}

LIMITATIONS: dict[tuple[str, str], str] = {}
"""(format, case): why the format's result differs from the case's contract, by what the format is."""


def applies(format_name: str, case: Case) -> bool:
    """Whether the case is written in the format (a writer that fails says so in the test, not at collection)."""
    try:
        return case.build(format_name) is not None
    except Exception:
        return True


def docs_table() -> str:
    """The docs' tables: each case, its contract and the formats that write it; the formats whose result differs
    from a contract, and why. Neither names a format but for a recorded difference: a format added to the registry
    leaves them as they are."""
    lines = ["| Case | Dynamo heading | Contract | Written in |", "| --- | --- | --- | --- |"]
    for case in CASES:
        lines.append(f"| {case.name} | {case.group} | {case.contract} | {case.where} |")
    lines += ["", "| Format | Case | Its result, and why |", "| --- | --- | --- |"]
    for (format_name, case_name), reason in sorted(LIMITATIONS.items()):
        lines.append(f"| `{format_name}` | {case_name} | {reason} |")
    if not LIMITATIONS:
        lines.append("| every format | every case | the contract |")
    return "\n".join(lines) + "\n"


DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "model-output" / "cases.md"
TABLE_BEGIN = "% cases table: begin (python -m tests.model_output_cases writes it)"
TABLE_END = "% cases table: end"


def page_table(page: str) -> str:
    return page.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0].strip("\n") + "\n"


if __name__ == "__main__":  # rewrite the page's table from the cases
    page = DOCS_PAGE.read_text("utf-8")
    head, rest = page.split(TABLE_BEGIN, 1)
    tail = rest.split(TABLE_END, 1)[1]
    DOCS_PAGE.write_text(f"{head}{TABLE_BEGIN}\n\n{docs_table()}\n{TABLE_END}{tail}", "utf-8")
    sys.stdout.write(f"wrote {DOCS_PAGE}\n")
