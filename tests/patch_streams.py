"""The op streams the patches tests read, in Python and in JavaScript (``tests/js/``): real tool calls through the
adapters, documents with every kind of value and pointer, calls that end in error; and what a client must end with.

``replay(events)`` is what a client of the op stream holds after each event, computed with ``apply_patch``: the
values after each batch of operations, each value's end, and the final values, by id (a document's id is ``""``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from streaming_json.integrations import AnthropicToolCalls, OpenAIChatToolCalls
from streaming_json.patches import PatchEvent, ToolCallPatches, apply_patch, text_patches

from . import sdk_events as sse
from .model_outputs import REAL_CALLS
from .provider_streams import SAMPLE, anthropic_stream, chat_stream, pieces
from .strategies import cut_randomly

# Keys a pointer escapes ("/" and "~"), every kind of value, non-ASCII and astral characters, escapes, empty and nested
# containers, an array of records: a document whose every step a client must take as Python takes it.
TRICKY = json.dumps(
    {
        "a/b": {"~t": ["x/y", "~0~1", ""], "": {"": 0}},
        "text": 'line 1\nline "2"\t\\ é 中 😀 \u2028 end',
        "numbers": [0, -1, 3.25, 1e21, 12345678901234567890, -0.5],
        "flags": [True, False, None],
        "empty": {"o": {}, "a": [], "s": ""},
        "records": [{"id": number, "name": f"record {number}", "tags": ["t"] * (number % 3)} for number in range(12)],
        "deep": [[[[{"k": [[["v"]]]}]]]],
    },
    ensure_ascii=False,
)


def document_pieces(text: str, seed: int) -> list[str]:
    """A document in pieces of 1 to 4 characters."""
    return cut_randomly(text, seed, 1, 4)


def chat_calls(texts: Sequence[str], finish: bool) -> list[Any]:
    """Calls to ``write`` with these argument texts, in pieces; ``finish``: the choice ends (``tool_calls``), else the
    stream stops (the last call is cut off)."""
    chunks = [sse.chat_chunk(sse.content_delta("", role=True))]
    for number, text in enumerate(texts):
        chunks.append(sse.chat_chunk(sse.tool_delta(number, "", id=f"call_{number}", name="write")))
        chunks += [sse.chat_chunk(sse.tool_delta(number, piece)) for piece in pieces(text, number)]
    if finish:
        chunks.append(sse.chat_chunk(sse.finish_choice(0, "tool_calls")))
    return chunks


def streams(backend: ModuleType) -> dict[str, list[PatchEvent]]:
    """Every op stream, read with ``backend``'s parser: name -> events."""
    parser = backend.StreamingJsonParser
    found: dict[str, list[PatchEvent]] = {}
    for strict in (False, True):
        mode = "strict" if strict else "append"
        found[f"chat_calls_{mode}"] = list(
            ToolCallPatches(OpenAIChatToolCalls, strict=strict, parser_class=parser).stream(chat_stream(SAMPLE, 5))
        )
        found[f"tricky_document_{mode}"] = list(
            text_patches(document_pieces(TRICKY, 7), strict=strict, parser_class=parser)
        )
    found["anthropic_calls"] = list(
        ToolCallPatches(AnthropicToolCalls, parser_class=parser).stream(anthropic_stream(SAMPLE, 9))
    )
    in_error = chat_calls(['{"path": "a.py"}', '{"path": , "x": 1}', "[1, 2]"], finish=True)
    found["calls_in_error"] = list(ToolCallPatches(OpenAIChatToolCalls, parser_class=parser).stream(in_error))
    cut = chat_calls(['{"path": "b.py", "content": "cut'], finish=False)
    found["call_cut_off"] = list(ToolCallPatches(OpenAIChatToolCalls, parser_class=parser).stream(cut))
    found["malformed_document"] = list(text_patches(['{"a": [1, 2', "}"], parser_class=parser))
    return found


@functools.lru_cache(maxsize=1)
def corpus_chunks() -> list[Any]:
    """All 845 real calls, one Chat Completions stream (built once: 160,000 chunks)."""
    return chat_stream(REAL_CALLS, 3)


def corpus_stream(backend: ModuleType) -> list[PatchEvent]:
    """The op stream of :func:`corpus_chunks`."""
    return list(ToolCallPatches(OpenAIChatToolCalls, parser_class=backend.StreamingJsonParser).stream(corpus_chunks()))


def replay(events: Sequence[PatchEvent], steps_too: bool = True) -> dict[str, Any]:
    """What a client holds: ``steps`` (``[id, value]`` after each event with operations), ``ends`` (``[id, value,
    error, problem kind]``) and ``final`` (``{id: value}``), as JSON values (a copy at each step)."""
    values: dict[str, Any] = {}
    steps, ends = [], []
    for event in events:
        key = "" if event.id is None else event.id
        if event.kind == "ops" and event.ops:
            values[key] = apply_patch(values.get(key), event.ops)
            if steps_too:
                steps.append([key, json.loads(json.dumps(values[key]))])
        elif event.kind == "end":
            if not event.shown:
                values[key] = event.value
            ends.append(
                [key, json.loads(json.dumps(values.get(key))), event.error, event.problem and event.problem.kind]
            )
    return {"steps": steps if steps_too else None, "ends": ends, "final": json.loads(json.dumps(values))}
