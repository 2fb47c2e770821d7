"""Providers that break the rules, read right without an option, through the real clients: one call's arguments that
hold several whole JSON objects back to back (every parallel call at index 0, no new id: Ollama's OpenAI endpoint,
Groq) become that many calls, flagged ``repair == "split"``; whole arguments followed by the same text again as
pieces read once (``repair == "repeat"``); and the shapes already read right (a new id at an index in use, ids on a
later chunk) stay so. Ollama's native API (whole calls, several chunks of them) through the ollama client's own
``chat(stream=True)``."""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any, Optional

import pytest

from streaming_json.integrations import AnthropicToolCalls, OllamaToolCalls, OpenAIChatToolCalls
from streaming_json.integrations._tool_calls import STREAM_ENDED

from . import provider_streams as streams
from .frameworks import FRAMEWORKS
from .sdk_events import block_stop, chat_chunk, finish_choice, json_delta, message_end, message_start, tool_use_start
from .sse_replay import openai_client, sse_body
from .test_call_ends import SHORT, ollama_chunks, ollama_client, read

REQUEST: dict[str, Any] = {"model": "llama3.1", "messages": [{"role": "user", "content": "Go"}]}
NAME = SHORT[0][0]
OBJECTS = [json.loads(arguments) for _, arguments in SHORT]
TEXTS = [arguments for _, arguments in SHORT]


def tool_chunk(text: str, *, id: Optional[str] = None, name: Optional[str] = None, index: int = 0) -> dict[str, Any]:
    tool_call: dict[str, Any] = {"index": index, "function": {"arguments": text}}
    if id is not None:
        tool_call["id"] = id
        tool_call["type"] = "function"
    if name is not None:
        tool_call["function"]["name"] = name
    return chat_chunk({"index": 0, "delta": {"tool_calls": [tool_call]}, "finish_reason": None})


def through_the_client(backend: ModuleType, chunks: list[Any], *, done: bool = True, asynchronous: bool = False) -> Any:
    """The chunks as the openai client reads them from a server (``done``: the stream ends with its finish reason)."""
    if done:
        chunks = [*chunks, chat_chunk(finish_choice())]
    client = openai_client(sse_body(chunks, done_marker=done), asynchronous=asynchronous)
    source = client.chat.completions.create(**REQUEST, tools=streams.chat_tools(SHORT), stream=True)
    return read(OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), source, asynchronous)


# Every call at index 0, one id for all (or none): the objects come back to back in one call's arguments.
BACK_TO_BACK = {
    # each call whole in a chunk, the name on each (Ollama's OpenAI endpoint, Groq)
    "whole-each": lambda: [
        tool_chunk(text, id="call_1" if n == 0 else None, name=NAME) for n, text in enumerate(TEXTS)
    ],
    # the same, with the id repeated on every chunk
    "id-repeated": lambda: [tool_chunk(text, id="call_1", name=NAME) for text in TEXTS],
    # the objects in token pieces, as one call's arguments
    "in-pieces": lambda: (
        [tool_chunk("", id="call_1", name=NAME)] + [tool_chunk(piece) for piece in streams.pieces("\n".join(TEXTS), 3)]
    ),
}


@pytest.mark.parametrize("shape", list(BACK_TO_BACK))
@pytest.mark.parametrize("asynchronous", [False, True])
def test_objects_back_to_back_are_that_many_calls(backend: ModuleType, shape: str, asynchronous: bool) -> None:
    calls = through_the_client(backend, BACK_TO_BACK[shape](), asynchronous=asynchronous)
    assert [(call.id, call.name, call.arguments) for call in calls.calls] == [
        ("call_1", NAME, OBJECTS[0]),
        ("call_1_1", NAME, OBJECTS[1]),
        ("call_1_2", NAME, OBJECTS[2]),
    ]
    assert all(call.done and call.problem is None and call.repair == "split" for call in calls.calls)
    assert [call.text for call in calls.calls] == TEXTS
    assert repr(calls.calls[1]).endswith("done, repair='split')")


def test_a_dropped_stream_of_objects_back_to_back_cuts_only_the_last(backend: ModuleType) -> None:
    """As a new index does in Chat Completions, the next object's start ends the one before: dropped, each object
    before the last is a call done, the last ``incomplete``, cut inside it or not."""
    text = "".join(TEXTS)
    for cut in (len(TEXTS[0]) + len(TEXTS[1]) + 5, len(text)):
        chunks = [tool_chunk("", id="call_1", name=NAME)] + [
            tool_chunk(piece) for piece in streams.pieces(text[:cut], 4)
        ]
        calls = through_the_client(backend, chunks, done=False)
        first, second, last = calls.calls
        assert (first.arguments, second.arguments) == (OBJECTS[0], OBJECTS[1])
        assert first.problem is None and second.problem is None
        assert (
            last.problem is not None
            and last.problem.detail == STREAM_ENDED
            and last.text == text[sum(map(len, TEXTS[:2])) : cut]
        )


def test_while_they_stream_the_call_shows_the_first_object(backend: ModuleType) -> None:
    """What a UI sees: the live call's arguments are the first object's; the feed() that ends the call (the finish
    reason) reports it and the calls split out of it, done."""
    calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    shown = [dict(call.arguments) for chunk in BACK_TO_BACK["whole-each"]() for call in calls.feed(chunk)]
    assert shown and all(arguments == OBJECTS[0] for arguments in shown)
    ended = calls.feed(chat_chunk(finish_choice()))
    assert [call.arguments for call in ended] == OBJECTS and ended == calls.calls


def test_typed_calls_back_to_back(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Read(pydantic.BaseModel):
        path: str

    calls = OpenAIChatToolCalls(
        models={"read": Read},
        arguments_stream_class=backend.ToolCallArgumentsStream,
        parser_class=backend.StreamingJsonParser,
    )
    for chunk in [
        tool_chunk('{"path": "a.rs"}', id="call_1", name="read"),
        tool_chunk('{"path": "b.rs"}', name="read"),
    ]:
        calls.feed(chunk)
    calls.feed(chat_chunk(finish_choice()))
    assert [call.parsed for call in calls.calls] == [Read(path="a.rs"), Read(path="b.rs")]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_whole_arguments_then_the_same_again_as_pieces_read_once(backend: ModuleType, asynchronous: bool) -> None:
    chunks = [tool_chunk(TEXTS[0], id="call_1", name=NAME)] + [
        tool_chunk(piece) for piece in streams.pieces(TEXTS[0], 5)
    ]
    chunks += [tool_chunk(TEXTS[1], id="call_2", name=SHORT[1][0], index=1)]
    chunks += [tool_chunk(piece, index=1) for piece in streams.pieces(TEXTS[1], 6)]
    calls = through_the_client(backend, chunks, asynchronous=asynchronous)
    assert [(call.id, call.arguments, call.text, call.repair) for call in calls.calls] == [
        ("call_1", OBJECTS[0], TEXTS[0], "repeat"),
        ("call_2", OBJECTS[1], TEXTS[1], "repeat"),
    ]
    assert all(call.problem is None for call in calls.calls)


def test_the_shapes_already_read_right_stay_so(backend: ModuleType) -> None:
    """A new id at an index in use is a new call (Ollama's OpenAI endpoint gives each call its own id); calls without
    an index; an id that arrives on a later chunk. None of them flagged."""
    new_ids = [tool_chunk(text, id=f"call_{n}", name=NAME) for n, text in enumerate(TEXTS)]
    no_index = [
        chat_chunk(
            {
                "index": 0,
                "delta": {"tool_calls": [{"id": "g1", "function": {"name": NAME, "arguments": TEXTS[0]}}]},
                "finish_reason": None,
            }
        )
    ]
    late_id = [
        tool_chunk("", name=NAME, index=1),
        tool_chunk(TEXTS[1][:9], id="call_late", index=1),
        tool_chunk(TEXTS[1][9:], index=1),
    ]
    calls = through_the_client(backend, new_ids + no_index + late_id)
    assert [(call.id, call.arguments) for call in calls.calls] == [
        ("call_0", OBJECTS[0]),
        ("call_1", OBJECTS[1]),
        ("call_2", OBJECTS[2]),
        ("g1", OBJECTS[0]),
        ("call_late", OBJECTS[1]),
    ]
    assert all(call.problem is None and call.repair is None for call in calls.calls)


def test_what_is_not_whole_objects_back_to_back_stays_malformed(backend: ModuleType) -> None:
    for text in ('{"a": 1} and more', '{"a": 1}[2]', '{"a": 1}, {"b": 2}', '{"a": 1}{"b" 2}'):
        calls = OpenAIChatToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
        calls.feed(tool_chunk(text, id="call_1", name=NAME))
        calls.feed(chat_chunk(finish_choice()))
        problems = [call.problem.kind if call.problem else None for call in calls.calls]
        if text.endswith('{"b" 2}'):  # whole, then malformed: the first read, the second malformed
            assert problems == [None, "malformed"] and calls.calls[0].arguments == {"a": 1}
        else:
            assert problems == ["malformed"] and calls.calls[0].repair is None


def test_every_adapter_splits_the_same_way(backend: ModuleType) -> None:
    """The rule lives in the accumulator every adapter builds on: an Anthropic block whose input holds two objects
    (no provider sends that, but a proxy might) reads as two calls, and a max_tokens stop cuts the last."""
    events = [message_start(), tool_use_start(0, "toolu_1", NAME), json_delta(0, TEXTS[0] + TEXTS[1]), block_stop(0)]
    calls = read(AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), [*events, *message_end()])
    assert [(call.id, call.arguments, call.repair) for call in calls.calls] == [
        ("toolu_1", OBJECTS[0], "split"),
        ("toolu_1_1", OBJECTS[1], "split"),
    ]
    cut = read(
        AnthropicToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream),
        [*events, *message_end("max_tokens")],
    )
    assert [call.problem.kind if call.problem else None for call in cut.calls] == [None, "incomplete"]


# --- Ollama's native API --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("asynchronous", [False, True])
def test_ollama_whole_calls_in_several_chunks(backend: ModuleType, asynchronous: bool) -> None:
    chunks = ollama_chunks([[SHORT[0], SHORT[1]], [SHORT[2]]])
    calls = OllamaToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    changed: list[list[Any]] = []

    async def read_async() -> None:
        async for call in calls.astream(await ollama_client(chunks, asynchronous=True).chat(**REQUEST, stream=True)):
            changed.append([call.name, call.done])

    if asynchronous:
        asyncio.run(read_async())
    else:
        changed = [[call.name, call.done] for call in calls.stream(ollama_client(chunks).chat(**REQUEST, stream=True))]
    assert [(call.key, call.id, call.name, call.arguments, call.text) for call in calls.calls] == [
        (n, None, name, json.loads(text), json.dumps(json.loads(text), ensure_ascii=False))
        for n, (name, text) in enumerate(SHORT)
    ]
    assert all(call.done and call.problem is None for call in calls.calls)
    assert all(done for _, done in changed) and len(changed) >= 3


def test_ollama_dicts_ids_strings_and_calls_sent_again(backend: ModuleType) -> None:
    """The API's own JSON (ids on recent releases, read as the call's), arguments as text where a server sends text
    (read strictly, objects back to back split), and a call whose id was read already not read again."""
    chunks = ollama_chunks([[SHORT[0]], [SHORT[0], SHORT[1]]], ids=True)
    chunks[-2]["message"]["tool_calls"][0]["id"] = "call_000"  # the first call, sent again
    text_call = {"function": {"name": NAME, "arguments": TEXTS[0] + TEXTS[2]}}
    chunks.insert(-1, {"message": {"role": "assistant", "content": "", "tool_calls": [text_call]}, "done": False})
    calls = read(OllamaToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream), chunks)
    assert [(call.id, call.arguments, call.repair) for call in calls.calls] == [
        ("call_000", OBJECTS[0], None),
        ("call_002", OBJECTS[1], None),
        (None, OBJECTS[0], "split"),
        (None, OBJECTS[2], "split"),
    ]


def test_ollama_odd_chunks_never_raise(backend: ModuleType) -> None:
    calls = OllamaToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
    odd: list[Any] = [
        None,
        "text",
        {"message": None},
        {"message": {"tool_calls": "x"}},
        {"message": {"tool_calls": [None, {"function": None}, {"function": {"name": 3, "arguments": {"a": {1, 2}}}}]}},
        {"message": {"tool_calls": [{"function": {"name": "f", "arguments": [1]}}]}},
    ]
    for chunk in odd:
        calls.feed(chunk)
    assert calls.finish() == [] and all(call.done for call in calls.calls)
    assert [call.problem.kind if call.problem else None for call in calls.calls] == [
        None,
        None,
        "malformed",
        "not_object",
    ]


def test_ollama_typed_calls(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Read(pydantic.BaseModel):
        path: str

    calls = OllamaToolCalls(
        models={"read": Read},
        arguments_stream_class=backend.ToolCallArgumentsStream,
        parser_class=backend.StreamingJsonParser,
    )
    (call,) = calls.feed({"message": {"tool_calls": [{"function": {"name": "read", "arguments": {"path": "a.rs"}}}]}})
    assert call.done and call.parsed == Read(path="a.rs")


# --- LangChain's chunks: the same rules ---------------------------------------------------------------------------


@FRAMEWORKS
def test_langchain_interleaved_and_back_to_back_calls(backend: ModuleType) -> None:
    """Through LangChain's own ``stream()``: calls whose pieces interleave (each header first) each get theirs; every
    call at index 0 with no new id (ChatOllama, Groq through LangChain) is split; whole arguments sent again read
    once."""
    pytest.importorskip("langchain_core")
    from streaming_json.integrations import LangChainToolCalls

    from .frameworks import ai_chunks, scripted_model

    def read_chunks(fragments: list[dict[str, Any]]) -> list[Any]:
        calls = LangChainToolCalls(arguments_stream_class=backend.ToolCallArgumentsStream)
        list(calls.stream(scripted_model([ai_chunks(fragments)]).stream("go")))
        assert all(call.done and call.problem is None for call in calls.calls)
        return [(call.id, call.arguments, call.repair) for call in calls.calls]

    interleaved = [
        {"name": NAME, "args": "", "id": "c1", "index": 0},
        {"name": NAME, "args": "", "id": "c2", "index": 1},
        {"name": None, "args": TEXTS[0][:10], "id": None, "index": 0},
        {"name": None, "args": TEXTS[1][:10], "id": None, "index": 1},
        {"name": None, "args": TEXTS[0][10:], "id": None, "index": 0},
        {"name": None, "args": TEXTS[1][10:], "id": None, "index": 1},
    ]
    assert read_chunks(interleaved) == [("c1", OBJECTS[0], None), ("c2", OBJECTS[1], None)]
    back_to_back = [
        {"name": NAME, "args": text, "id": "c1" if n == 0 else None, "index": 0} for n, text in enumerate(TEXTS)
    ]
    assert read_chunks(back_to_back) == [
        ("c1", OBJECTS[0], "split"),
        ("c1_1", OBJECTS[1], "split"),
        ("c1_2", OBJECTS[2], "split"),
    ]
    again = [{"name": NAME, "args": TEXTS[0], "id": "c1", "index": 0}]
    again += [{"name": None, "args": piece, "id": None, "index": 0} for piece in streams.pieces(TEXTS[0], 2)]
    assert read_chunks(again) == [("c1", OBJECTS[0], "repeat")]
