"""The LangChain drop-ins yield what LangChain's own parsers yield, on every cut: real outputs (the corpus of real tool
calls, and JSON values hypothesis makes, with every escape and surrogate pair, and strings that begin and end with the
whitespace ``str.strip()`` removes, which LangChain strips off a text output's ends) bare, fenced and wrapped in prose,
with such whitespace around them too, cut anywhere (a fence, a ``json`` tag, a literal, an escape split across pieces;
every character alone), streamed through a chain to our parser and to LangChain's, on both backends: the same values, in
the same order, the same last value (and with ``diff=True``, patches that build the same values). The end is strict:
ours never raises on these complete outputs, and raises where LangChain's ends on the partial value of a cut one."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any, Optional

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from .strategies import STR_STRIP_WHITESPACE, edged_strings, examples, json_values, split_at
from .test_tool_calls import CALLS

pytest.importorskip("langchain_core")

import jsonpatch  # type: ignore[import-untyped]  # LangChain's dependency
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk
from langchain_core.output_parsers import JsonOutputParser as TheirJsonOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputKeyToolsParser as TheirJsonOutputKeyToolsParser
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser as TheirJsonOutputToolsParser
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as TheirPydanticToolsParser
from langchain_core.utils.json import _json_strip_chars, parse_partial_json
from pydantic import BaseModel, ConfigDict, create_model

from streaming_json import MISSING
from streaming_json.integrations._langchain_partial import PartialJson
from streaming_json.integrations.langchain import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
    SimpleJsonOutputParser,
)

# Not in the framework tests' group: these are the heaviest of them, and spread over the workers (each imports
# LangChain once).

# LangChain's parsers parse the whole text again on every chunk: the outputs stay short enough for that.
SHORT_CALLS = [row for row in CALLS if len(row["arguments"]) <= 1200]
WRAPPINGS = (
    "{}",
    "```json\n{}\n```",
    "```\n{}\n```",
    "\n\n```json\n{}\n```\n\n",
    "Here it is:\n\n```json\n{}\n```\n\nLet me know if you need anything else.",
    "Sure! ```json {} ``` Anything else?",
    "{}\n\nThis is the answer.",
    "`{}`",
)


def texts() -> st.SearchStrategy[str]:
    """A JSON text: a call of the corpus as it came, or re-encoded with ``\\u`` escapes; or a value hypothesis made,
    written with random options, its strings any or (on purpose) beginning and ending with whitespace."""
    corpus = st.sampled_from(SHORT_CALLS).map(lambda row: row["arguments"])
    escaped = st.sampled_from([row for row in SHORT_CALLS if not row["arguments"].isascii()]).map(
        lambda row: json.dumps(json.loads(row["arguments"]))
    )
    values = st.one_of(json_values(), json_values(strings=edged_strings), edged_strings)
    made = st.tuples(values, st.booleans(), st.sampled_from([None, 1])).map(
        lambda drawn: json.dumps(drawn[0], ensure_ascii=drawn[1], indent=drawn[2])
    )
    return st.one_of(corpus, escaped, made)


def wrappings() -> st.SearchStrategy[str]:
    """How a model wraps the JSON (``{}`` where it goes), with whitespace ``str.strip()`` removes (LangChain strips it)
    before it, and that or backticks after it."""
    before = st.text(st.sampled_from(STR_STRIP_WHITESPACE), max_size=3)
    after = st.text(st.sampled_from(STR_STRIP_WHITESPACE + "`"), max_size=3)
    return st.builds(lambda b, wrapping, a: b + wrapping + a, before, st.sampled_from(WRAPPINGS), after)


EVERY_CHARACTER = None  # a cut plan: every character a piece
CutPlan = Optional[list[int]]


def cut_plans(most: int = 40) -> st.SearchStrategy[CutPlan]:
    """Where to cut a text: every character (one time in six), or at a few offsets (taken modulo the text's length
    plus one; repeats give empty pieces)."""
    offsets = st.lists(st.integers(0, 4000), max_size=most)
    return st.tuples(st.integers(0, 5), offsets).map(lambda drawn: EVERY_CHARACTER if drawn[0] == 0 else drawn[1])


def cut(text: str, plan: CutPlan) -> list[str]:
    """``text`` cut as ``plan`` says (a text longer than 400 characters into pieces of 7, not one a character)."""
    if plan is EVERY_CHARACTER:
        return list(text) if len(text) <= 400 else [text[i : i + 7] for i in range(0, len(text), 7)]
    return split_at(text, [offset % (len(text) + 1) for offset in plan])


@st.composite
def cuts(draw: st.DrawFn, text: str, most: int = 40) -> list[str]:
    """``text`` cut anywhere: at a few random offsets (empty pieces too), or, for a short text, every character."""
    return cut(text, draw(cut_plans(most)))


def every_cut(text: str) -> Iterator[list[str]]:
    """``text`` cut in every way there is (for a short text: 2 ** (len - 1) ways)."""
    for kept in itertools.product((False, True), repeat=len(text) - 1):
        yield split_at(text, [offset + 1 for offset, cut_here in enumerate(kept) if cut_here])


def streamed(parser: Any, chunks: Sequence[Any]) -> tuple[list[Any], bool]:
    """What ``parser`` yields in a chain fed ``chunks``, and whether it raised ``OutputParserException`` at the end."""

    def source(_: Any) -> Iterator[Any]:
        yield from chunks

    outputs: list[Any] = []
    try:
        for output in (source | parser).stream(None):
            outputs.append(output)
    except OutputParserException:
        return outputs, True
    return outputs, False


def applied(patches: list[Any]) -> list[Any]:
    """The values a list of JSON Patches builds, one after another from None."""
    values, value = [], None
    for patch in patches:
        value = jsonpatch.apply_patch(value, patch)
        values.append(value)
    return values


# --- LangChain's partial parse -----------------------------------------------------------------------------------


def their_partial(text: str) -> Any:
    """LangChain's partial parse of a text: None where it has none."""
    try:
        return parse_partial_json(text)
    except json.JSONDecodeError:
        return None


@examples(100)
@given(text=texts(), strip=st.booleans(), data=st.data())
def test_the_partial_reading_is_parse_partial_json_of_the_text_so_far(
    backend: ModuleType, text: str, strip: bool, data: st.DataObject
) -> None:
    """After every piece, the value is ``parse_partial_json`` of the text so far (of a text output's, stripped as
    LangChain's ``JsonOutputParser`` strips it: ``str.strip()``, then ``parse_json_markdown``'s strip), whatever the
    cut."""
    reading = PartialJson(backend.StreamingJsonParser, strip_tail=strip)
    so_far = ""
    for piece in data.draw(cuts(text), label="pieces"):
        so_far += piece
        value = reading.append(piece)
        expected = their_partial(so_far.strip().strip(_json_strip_chars) if strip else so_far)
        assert (None if value is MISSING else value) == expected, so_far
    assert reading.text == text


# --- Text outputs ---------------------------------------------------------------------------------------------------


@examples(40)
@given(text=texts(), wrapping=wrappings(), plan=cut_plans(), as_text=st.booleans())
# Strings that begin or end with whitespace str.strip() removes, cut at every character (issue 44: ours showed the
# "\xa0" that LangChain strips off the end of the text, and read no value after "\xa0" at the text's start).
@example(text='"\xa00"', wrapping="{}", plan=EVERY_CHARACTER, as_text=True)
@example(
    text=json.dumps({"a": "\u3000x\x85", "b": ["\u2028", "y\x1c`"]}, ensure_ascii=False),
    wrapping="\xa0{}\u2029",
    plan=EVERY_CHARACTER,
    as_text=False,
)
@example(
    text=json.dumps(["\x1f`", "`\u205f", " \u1680 "], ensure_ascii=False),
    wrapping="\x1e```json\n{}\n```\x0b`",
    plan=EVERY_CHARACTER,
    as_text=True,
)
@example(text='"x\xa0`\u3000 `"', wrapping="\u3000 \x1d{}`\x85", plan=EVERY_CHARACTER, as_text=False)
@example(text="12", wrapping="{}\xa0", plan=EVERY_CHARACTER, as_text=True)
def test_json_output_parser_yields_what_langchains_yields_on_every_cut(
    backend: ModuleType, text: str, wrapping: str, plan: CutPlan, as_text: bool
) -> None:
    output = wrapping.replace("{}", text, 1)
    pieces = cut(output, plan)
    chunks = pieces if as_text else [AIMessageChunk(content=p) for p in pieces]
    theirs, _ = streamed(TheirJsonOutputParser(), chunks)
    ours, raised = streamed(JsonOutputParser(parser_class=backend.StreamingJsonParser), chunks)
    assert not raised
    assert ours == theirs
    expected = json.loads(text)
    assert (ours[-1] if ours else None) == (None if expected is None else expected)
    patches, raised = streamed(JsonOutputParser(diff=True, parser_class=backend.StreamingJsonParser), chunks)
    their_patches, _ = streamed(TheirJsonOutputParser(diff=True), chunks)
    assert not raised and len(patches) == len(their_patches)
    assert applied(patches) == theirs


# Short outputs whose strings, and whose text, begin or end with whitespace str.strip() removes: every way to cut them.
EDGED_OUTPUTS = ['"\xa00"', '"\u3000"', '["`\x85"]', '{"a":"\x1c"}', '"x\u2028`"', '\u2029"\xa0"\xa0', "\x1f1`\x0c"]


@pytest.mark.parametrize("output", EDGED_OUTPUTS, ids=ascii)
def test_json_output_parser_on_every_cut_of_whitespace_at_the_ends(backend: ModuleType, output: str) -> None:
    for pieces in every_cut(output):
        ours, raised = streamed(JsonOutputParser(parser_class=backend.StreamingJsonParser), pieces)
        assert not raised and ours == streamed(TheirJsonOutputParser(), pieces)[0], pieces


def test_a_fence_split_across_pieces_reads_whole(backend: ModuleType) -> None:
    """The issue's case: models stream ``` and json as separate tokens (the fence was looked for in a piece)."""
    value = {"path": "src/app.py", "content": "print('hi')\n", "mode": 420, "overwrite": True, "backup": None}
    output = "```json\n" + json.dumps(value, indent=1) + "\n```"
    for pieces in (["`", "``", "js", "on\n{\n "], ["``", "`j", "son", "\n"], ["```", "json", "\n"], list("```json")):
        rest = output[len("".join(pieces)) :]
        chunks = pieces + [rest[i : i + 5] for i in range(0, len(rest), 5)]
        ours, raised = streamed(JsonOutputParser(parser_class=backend.StreamingJsonParser), chunks)
        assert not raised and ours == streamed(TheirJsonOutputParser(), chunks)[0]
        assert ours[-1] == value


def test_the_end_is_strict(backend: ModuleType) -> None:
    """A cut output raises at the end, where LangChain's ends on the partial value; so does an output with no JSON."""
    text = next(row["arguments"] for row in SHORT_CALLS if len(row["arguments"]) > 200)
    for output in (text[: len(text) // 2], f"```json\n{text[:-1]}", "Here it is: ```python\nprint(1)\n```"):
        chunks = [output[i : i + 7] for i in range(0, len(output), 7)]
        ours, raised = streamed(JsonOutputParser(parser_class=backend.StreamingJsonParser), chunks)
        theirs, _ = streamed(TheirJsonOutputParser(), chunks)
        assert raised and ours == theirs  # the same values until the end, then ours raises
        with pytest.raises(OutputParserException):
            JsonOutputParser(parser_class=backend.StreamingJsonParser).invoke(output)


def test_partial_values_follow_langchains_reading(backend: ModuleType) -> None:
    """The three places where LangChain's partial parse differs from this library's own reading."""
    cases = [  # (pieces, what LangChain shows after each)
        (['{"a": 1, "b": t', "ru", "e}"], [{"a": 1}, {"a": 1}, {"a": 1, "b": True}]),  # a literal once whole
        (['{"a": "x ', " ", "y"], [{"a": "x"}, {"a": "x"}, {"a": "x  y"}]),  # blanks at the end stripped
        (['{"a": "caf', "\\u00", "e9"], [{"a": "caf"}, {}, {"a": "café"}]),  # an open \\u escape hides its string
        (['["x", "\\ud83d', "\\ude00"], [["x", "\ud83d"], ["x", "😀"]]),  # a high surrogate shows alone
    ]
    for pieces, expected in cases:
        assert [_shown_after(backend, pieces[: n + 1]) for n in range(len(pieces))] == expected, pieces


def _shown_after(backend: ModuleType, pieces: list[str]) -> Any:
    """The value our parser shows after ``pieces`` (it yields what LangChain's yields, then raises: they are cut)."""
    ours, _ = streamed(JsonOutputParser(parser_class=backend.StreamingJsonParser), pieces)
    theirs, _ = streamed(TheirJsonOutputParser(), pieces)
    assert ours[: len(theirs)] == theirs
    return ours[-1] if ours else None


def test_simple_json_output_parser_is_json_output_parser() -> None:
    assert SimpleJsonOutputParser is JsonOutputParser  # as LangChain keeps its old name


# --- Tool calls -----------------------------------------------------------------------------------------------------


ToolCallStream = tuple[list[dict[str, Any]], list[Any]]


def tool_call_stream(calls: list[dict[str, Any]], cuts_of_calls: list[list[str]], firsts: list[bool]) -> ToolCallStream:
    """``calls`` as the chunks an OpenAI model's stream gives LangChain: each call's first fragment with its name and
    id (and no arguments, or, where ``firsts`` says so, its first piece), then its arguments' pieces at its index."""
    chunks: list[Any] = [AIMessageChunk(content="")]
    for index, (call, pieces, first_in_header) in enumerate(zip(calls, cuts_of_calls, firsts)):
        pieces = list(pieces)
        first = pieces.pop(0) if first_in_header else ""
        header = {"name": call["name"], "args": first, "id": f"call_{index}", "index": index}
        chunks.append(AIMessageChunk(content="", tool_call_chunks=[header]))
        chunks += [
            AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": p, "id": None, "index": index}])
            for p in pieces
        ]
    return calls, chunks


@st.composite
def tool_call_streams(draw: st.DrawFn) -> ToolCallStream:
    """One to three calls of the corpus (or made values as arguments, their strings any or, on purpose, beginning and
    ending with whitespace ``str.strip()`` removes), each cut anywhere (:func:`tool_call_stream`)."""
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        row = draw(st.sampled_from(SHORT_CALLS))
        if draw(st.integers(0, 3)) == 0:
            values = st.one_of(json_values(8), json_values(8, strings=edged_strings))
            made = draw(st.dictionaries(st.sampled_from(["path", "content", "n", "flags"]), values, min_size=1))
            row = {"name": row["name"], "arguments": json.dumps(made, ensure_ascii=draw(st.booleans()))}
        calls.append(row)
    cuts_of_calls = [draw(cuts(call["arguments"], most=20)) for call in calls]
    return tool_call_stream(calls, cuts_of_calls, [draw(st.booleans()) for _ in calls])


def _every_character(*calls: tuple[str, Any]) -> ToolCallStream:
    """Calls (name, arguments) whose arguments come a character a piece, the first in the call's header."""
    rows = [{"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)} for name, arguments in calls]
    return tool_call_stream(rows, [list(row["arguments"]) for row in rows], [True] * len(rows))


def tool_models(calls: list[dict[str, Any]]) -> list[type[BaseModel]]:
    """A model for each tool the calls name: the keys every call of it has are required, others allowed, so that
    each call validates once its last required key has started."""
    models = []
    for name in sorted({call["name"] for call in calls}):
        keys = set.intersection(*(set(json.loads(call["arguments"])) for call in calls if call["name"] == name))
        fields: dict[str, Any] = dict.fromkeys(sorted(keys), (Any, ...))
        models.append(create_model(name, __config__=ConfigDict(extra="allow"), **fields))
    return models


FLAGS = [{}, {"return_id": True}, {"first_tool_only": True}, {"first_tool_only": True, "return_id": True}]


@examples(25)
@given(stream=tool_call_streams(), flags=st.sampled_from(FLAGS), key_index=st.integers(0, 2))
# Arguments whose strings begin or end with whitespace str.strip() removes, a character a piece.
@example(stream=_every_character(("write", {"content": "\xa00", "path": "\u3000a.py\x85"})), flags={}, key_index=0)
@example(
    stream=_every_character(("write", {"content": ["\x1c", "`\u2028"]}), ("read", {"path": " \u205fx\x0b`"})),
    flags={"first_tool_only": True, "return_id": True},
    key_index=1,
)
def test_tool_parsers_yield_what_langchains_yield_on_every_cut(
    backend: ModuleType, stream: ToolCallStream, flags: dict[str, bool], key_index: int
) -> None:
    calls, chunks = stream
    options = {"parser_class": backend.StreamingJsonParser}
    names = sorted({call["name"] for call in calls})
    key = names[key_index % len(names)]
    models = tool_models(calls)
    first = {"first_tool_only": flags.get("first_tool_only", False)}
    pairs = [
        (JsonOutputToolsParser(**flags, **options), TheirJsonOutputToolsParser(**flags)),
        (
            JsonOutputKeyToolsParser(key_name=key, **flags, **options),
            TheirJsonOutputKeyToolsParser(key_name=key, **flags),
        ),
        (PydanticToolsParser(tools=models, **first, **options), TheirPydanticToolsParser(tools=models, **first)),
    ]
    for ours_parser, their_parser in pairs:
        ours, raised = streamed(ours_parser, chunks)
        theirs, _ = streamed(their_parser, chunks)
        assert not raised
        assert ours == theirs, type(ours_parser).__name__
    final, _ = streamed(JsonOutputToolsParser(**options), chunks)
    assert final[-1] == [{"args": json.loads(call["arguments"]), "type": call["name"]} for call in calls]
    typed, _ = streamed(PydanticToolsParser(tools=models, **options), chunks)
    assert all(isinstance(instance, BaseModel) and type(instance) in models for value in typed for instance in value)
