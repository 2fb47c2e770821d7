"""The LangChain drop-ins yield what LangChain's own parsers yield, on every cut: real outputs (the corpus of real tool
calls, and JSON values hypothesis makes, with every escape and surrogate pair) bare, fenced and wrapped in prose, cut
anywhere (a fence, a ``json`` tag, a literal, an escape split across pieces; every character alone), streamed through
a chain to our parser and to LangChain's, on both backends: the same values, in the same order, the same last value
(and with ``diff=True``, patches that build the same values). The end is strict: ours never raises on these complete
outputs, and raises where LangChain's ends on the partial value of a cut one."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .strategies import examples, json_values, split_at
from .test_tool_calls import CALLS

pytest.importorskip("langchain_core")

import jsonpatch  # type: ignore[import-untyped]  # LangChain's dependency
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk
from langchain_core.output_parsers import JsonOutputParser as TheirJsonOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputKeyToolsParser as TheirJsonOutputKeyToolsParser
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser as TheirJsonOutputToolsParser
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as TheirPydanticToolsParser
from langchain_core.utils.json import parse_partial_json
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
    written with random options."""
    corpus = st.sampled_from(SHORT_CALLS).map(lambda row: row["arguments"])
    escaped = st.sampled_from([row for row in SHORT_CALLS if not row["arguments"].isascii()]).map(
        lambda row: json.dumps(json.loads(row["arguments"]))
    )
    made = st.tuples(json_values(), st.booleans(), st.sampled_from([None, 1])).map(
        lambda drawn: json.dumps(drawn[0], ensure_ascii=drawn[1], indent=drawn[2])
    )
    return st.one_of(corpus, escaped, made)


@st.composite
def cuts(draw: st.DrawFn, text: str, most: int = 40) -> list[str]:
    """``text`` cut anywhere: at a few random offsets (empty pieces too), or, for a short text, every character."""
    if len(text) <= 400 and draw(st.integers(0, 5)) == 0:
        return list(text)
    return split_at(text, draw(st.lists(st.integers(0, len(text)), max_size=most)))


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
    """After every piece, the value is ``parse_partial_json`` of the text so far (of a text output's, stripped of
    blanks and backticks at its end, as LangChain strips it), whatever the cut."""
    reading = PartialJson(backend.StreamingJsonParser, strip_tail=strip)
    so_far = ""
    for piece in data.draw(cuts(text), label="pieces"):
        so_far += piece
        value = reading.append(piece)
        expected = their_partial(so_far.rstrip(" \n\r\t`") if strip else so_far)
        assert (None if value is MISSING else value) == expected, so_far
    assert reading.text == text


# --- Text outputs ---------------------------------------------------------------------------------------------------


@examples(40)
@given(data=st.data())
def test_json_output_parser_yields_what_langchains_yields_on_every_cut(
    backend: ModuleType, data: st.DataObject
) -> None:
    text = data.draw(texts(), label="text")
    output = data.draw(st.sampled_from(WRAPPINGS), label="wrapping").replace("{}", text, 1)
    pieces = data.draw(cuts(output), label="pieces")
    chunks = pieces if data.draw(st.booleans(), label="as text") else [AIMessageChunk(content=p) for p in pieces]
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


@st.composite
def tool_call_streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Any]]:
    """One to three calls of the corpus (or made values as arguments), each cut anywhere, as the chunks an OpenAI
    model's stream gives LangChain: each call's first fragment with its name and id (and no arguments, or the first
    piece), then its arguments at its index."""
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        row = draw(st.sampled_from(SHORT_CALLS))
        if draw(st.integers(0, 3)) == 0:
            made = draw(st.dictionaries(st.sampled_from(["path", "content", "n", "flags"]), json_values(8), min_size=1))
            row = {"name": row["name"], "arguments": json.dumps(made, ensure_ascii=draw(st.booleans()))}
        calls.append(row)
    chunks: list[Any] = [AIMessageChunk(content="")]
    for index, call in enumerate(calls):
        pieces = draw(cuts(call["arguments"], most=20))
        first = pieces.pop(0) if draw(st.booleans()) else ""
        header = {"name": call["name"], "args": first, "id": f"call_{index}", "index": index}
        chunks.append(AIMessageChunk(content="", tool_call_chunks=[header]))
        chunks += [
            AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": p, "id": None, "index": index}])
            for p in pieces
        ]
    return calls, chunks


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
@given(stream=tool_call_streams(), flags=st.sampled_from(FLAGS), data=st.data())
def test_tool_parsers_yield_what_langchains_yield_on_every_cut(
    backend: ModuleType, stream: tuple[list[dict[str, Any]], list[Any]], flags: dict[str, bool], data: st.DataObject
) -> None:
    calls, chunks = stream
    options = {"parser_class": backend.StreamingJsonParser}
    key = data.draw(st.sampled_from(sorted({call["name"] for call in calls})), label="key_name")
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
