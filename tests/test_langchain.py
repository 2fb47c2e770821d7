"""LangChain and LangGraph, for real: a chat model streaming real calls (a sample of the 845) in token pieces through
LangChain's own ``stream()``/``astream()``, a LangGraph ``StateGraph`` streaming ``stream_mode="messages"``, and the
Runnable parsers in chains beside LangChain's own on the same streams. Every call ends with its id, name and exact
arguments; partial values never go backwards; a cut stream ends with an error, never a valid-looking value."""

from __future__ import annotations

import asyncio
import json
import operator
import subprocess
import sys
from types import ModuleType
from typing import Annotated, Any

import pytest

from .frameworks import (
    FRAMEWORKS,
    Call,
    ai_chunks,
    corpus_sample,
    messages_of,
    pieces_of,
    scripted_model,
    tool_call_chunks,
)
from .test_tool_calls import goes_backwards

pytest.importorskip("langchain_core")

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import JsonOutputParser as TheirJsonOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputKeyToolsParser as TheirJsonOutputKeyToolsParser
from langchain_core.output_parsers.openai_tools import (
    JsonOutputToolsParser as TheirJsonOutputToolsParser,
)
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as TheirPydanticToolsParser
from pydantic import BaseModel, ConfigDict

from streaming_json.integrations.langchain import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    JsonOutputToolsParser,
    LangChainToolCalls,
    PydanticToolsParser,
)

pytestmark = FRAMEWORKS

SAMPLE = corpus_sample(24, seed=22)
MESSAGES = messages_of(SAMPLE, seed=22)
# Built once: an AIMessageChunk costs LangChain about 80 us to build (it parses its fragment), and these are reused.
RESPONSES = [ai_chunks(tool_call_chunks(message, seed=number)) for number, message in enumerate(MESSAGES)]
# The messages LangChain's own parsers also read: theirs take quadratic time, so the long ones are left out.
BESIDE_THEIRS = [number for number, message in enumerate(MESSAGES) if sum(len(call.text) for call in message) < 3000]


def reader(backend: ModuleType, **options: Any) -> LangChainToolCalls:
    return LangChainToolCalls(
        arguments_stream_class=backend.ToolCallArgumentsStream, parser_class=backend.StreamingJsonParser, **options
    )


def check_calls(calls: list[Any], expected: list[Call]) -> None:
    assert [(call.id, call.name, call.done, call.error) for call in calls] == [
        (call.id, call.name, True, None) for call in expected
    ]
    assert [call.arguments for call in calls] == [call.arguments for call in expected]


def check_partials(seen: dict[int, list[Any]], calls: list[Any]) -> None:
    """Every call's partial arguments never go backwards, and end at its final ones."""
    for call in calls:
        values = seen[id(call)]
        for before, after in zip(values, values[1:]):
            assert goes_backwards(before, after) is None, (call.name, before, after)
        assert values[-1] == call.arguments


def read_stream(tool_calls: LangChainToolCalls, chunks: Any) -> dict[int, list[Any]]:
    seen: dict[int, list[Any]] = {}
    for call in tool_calls.stream(chunks):
        seen.setdefault(id(call), []).append(call.arguments)
    return seen


# --- A chat model's own stream ------------------------------------------------------------------------------------


def test_model_stream_gives_every_call_whole(backend: ModuleType) -> None:
    model = scripted_model(RESPONSES)
    for message in MESSAGES:
        tool_calls = reader(backend)
        seen = read_stream(tool_calls, model.stream("go"))
        check_calls(tool_calls.calls, message)
        check_partials(seen, tool_calls.calls)


def test_model_astream_gives_every_call_whole(backend: ModuleType) -> None:
    model = scripted_model(RESPONSES)

    async def read(message: list[Call]) -> None:
        tool_calls = reader(backend)
        async for _ in tool_calls.astream(model.astream("go")):
            pass
        check_calls(tool_calls.calls, message)

    async def read_all() -> None:
        for message in MESSAGES:
            await read(message)

    asyncio.run(read_all())


def test_a_call_ends_at_langchains_last_chunk_or_when_the_next_starts(backend: ModuleType) -> None:
    message = MESSAGES[0] if len(MESSAGES[0]) > 1 else next(m for m in MESSAGES if len(m) > 1)
    chunks = list(scripted_model([ai_chunks(tool_call_chunks(message, seed=1))]).stream("go"))
    assert chunks[-1].chunk_position == "last"  # LangChain's own marker, after the model's chunks
    tool_calls = reader(backend)
    for number, chunk in enumerate(chunks):
        tool_calls.feed(chunk)
        if number == len(chunks) - 2:  # the model's last chunk: every call but the last is over
            assert [call.done for call in tool_calls.calls] == [True] * (len(message) - 1) + [False]
    assert all(call.done for call in tool_calls.calls)  # the "last" chunk ended it, before finish()
    check_calls(tool_calls.calls, message)


def test_dict_form_and_whole_messages(backend: ModuleType) -> None:
    message = MESSAGES[1]
    chunks = list(scripted_model([RESPONSES[1]]).stream("go"))
    tool_calls = reader(backend)
    list(tool_calls.stream([chunk.model_dump() for chunk in chunks]))
    check_calls(tool_calls.calls, message)
    # A whole AIMessage (what a node returns without streaming): its calls, complete.
    whole = AIMessage(
        content="",
        tool_calls=[{"name": call.name, "args": call.arguments, "id": call.id} for call in message],
        invalid_tool_calls=[{"name": "read", "args": '{"path": ', "id": "call_bad", "error": None}],
    )
    tool_calls = reader(backend)
    changed = tool_calls.feed(whole)
    assert [call.id for call in changed] == [call.id for call in message] + ["call_bad"]
    check_calls(tool_calls.calls[:-1], message)
    assert tool_calls.calls[-1].error is not None and tool_calls.calls[-1].arguments == {}
    assert tool_calls.feed(whole.model_dump()) == []  # the same call ids: read once


def test_a_cut_stream_ends_with_an_error_where_langchain_gives_a_valid_looking_call(backend: ModuleType) -> None:
    call = next(call for call in SAMPLE if len(call.text) > 200)
    cut = Call(call.id, call.name, call.text[: len(call.text) // 2])
    chunks = list(scripted_model([ai_chunks(tool_call_chunks([cut], seed=3))]).stream("go"))
    tool_calls = reader(backend)
    list(tool_calls.stream(chunks))
    (ours,) = tool_calls.calls
    assert ours.done and ours.arguments == {} and ours.error is not None
    assert ours.error.endswith(f"Received arguments: {cut.text}")
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.tool_calls and total.tool_calls[0]["args"]  # LangChain's: a valid-looking call


def test_odd_shapes(backend: ModuleType) -> None:
    def read(fragments: list[dict[str, Any]]) -> list[Any]:
        tool_calls = reader(backend)
        list(tool_calls.stream(ai_chunks(fragments)))
        return [(call.id, call.name, call.arguments, call.error) for call in tool_calls.calls]

    whole = '{"path": "a.txt"}'
    # args="" first: the call is open with {} until its arguments come (#38682: not a call to run yet)
    tool_calls = reader(backend)
    (call,) = tool_calls.feed(AIMessageChunk(content="", tool_call_chunks=[{"name": "read", "args": "", "index": 0}]))
    assert call.arguments == {} and not call.done
    # whole arguments in one chunk
    assert read([{"name": "read", "args": whole, "id": "c1", "index": 0}]) == [("c1", "read", {"path": "a.txt"}, None)]
    # no index: grouped by id; with neither, the stream's last call
    fragments = [
        {"name": "read", "args": '{"path"', "id": "c1", "index": None},
        {"name": None, "args": ': "a.txt"}', "id": None, "index": None},
        {"name": "read", "args": '{"path": "b', "id": "c2", "index": None},
        {"name": None, "args": '.txt"}', "id": "c2", "index": None},
    ]
    assert read(fragments) == [("c1", "read", {"path": "a.txt"}, None), ("c2", "read", {"path": "b.txt"}, None)]
    # the id repeated on every chunk continues the call; a new id at the same index is a new call
    fragments = [
        {"name": "read", "args": '{"path": ', "id": "c1", "index": 0},
        {"name": None, "args": '"a.txt"}', "id": "c1", "index": 0},
        {"name": "read", "args": whole, "id": "c2", "index": 0},
    ]
    assert read(fragments) == [("c1", "read", {"path": "a.txt"}, None), ("c2", "read", {"path": "a.txt"}, None)]
    # "" ids and names continue the call (as LangChain's merge reads them)
    fragments = [{"name": "read", "args": '{"path": ', "id": "c1", "index": 0}]
    fragments.append({"name": "", "args": '"a.txt"}', "id": "", "index": 0})
    assert read(fragments) == [("c1", "read", {"path": "a.txt"}, None)]


def test_nothing_raises_mid_stream(backend: ModuleType) -> None:
    tool_calls = reader(backend)
    odd: list[Any] = [
        None,
        1,
        "text",
        b"bytes",
        (),
        (1, 2, 3),
        ("updates", {"node": {}}),
        {"tool_call_chunks": "nope"},
        {"tool_call_chunks": [None, 1, {"index": [1]}]},
        {"type": "messages", "data": None},
        AIMessageChunk(content="just text"),
        AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": None, "id": None, "index": 5}]),
    ]
    for item in odd:
        tool_calls.feed(item)
    tool_calls.finish()


# --- LangGraph -----------------------------------------------------------------------------------------------------


def langgraph_app(responses: list[list[Any]]) -> Any:
    pytest.importorskip("langgraph")
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        messages: Annotated[list[Any], operator.add]

    model = scripted_model(responses)

    def agent(state: State) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    return graph.compile()


def test_langgraph_messages_stream(backend: ModuleType) -> None:
    responses = RESPONSES[:3]
    app = langgraph_app(responses)
    for message in MESSAGES[:3]:
        parts = list(app.stream({"messages": [("user", "go")]}, stream_mode="messages"))
        assert all(isinstance(part, tuple) and len(part) == 2 for part in parts)
        tool_calls = reader(backend)
        list(tool_calls.stream(parts))
        check_calls(tool_calls.calls, message)


def test_langgraph_several_modes_and_v2_parts(backend: ModuleType) -> None:
    app = langgraph_app(RESPONSES[:2])
    tool_calls = reader(backend)
    list(tool_calls.stream(app.stream({"messages": [("user", "go")]}, stream_mode=["messages", "updates"])))
    check_calls(tool_calls.calls, MESSAGES[0])
    tool_calls = reader(backend)
    list(tool_calls.stream(app.stream({"messages": [("user", "go")]}, stream_mode="messages", version="v2")))
    check_calls(tool_calls.calls, MESSAGES[1])


# --- The Runnable parsers, beside LangChain's ------------------------------------------------------------------------


def both(ours: Any, theirs: Any, chunks: list[Any]) -> tuple[list[Any], list[Any]]:
    model = scripted_model([chunks, chunks])
    return list((model | ours).stream("go")), list((model | theirs).stream("go"))


def test_json_output_tools_parser_yields_what_langchains_yields(backend: ModuleType) -> None:
    options = {"parser_class": backend.StreamingJsonParser}
    for number in BESIDE_THEIRS[:6]:
        message = MESSAGES[number]
        for flags in ({}, {"return_id": True}, {"first_tool_only": True}):
            ours, theirs = both(
                JsonOutputToolsParser(**flags, **options), TheirJsonOutputToolsParser(**flags), RESPONSES[number]
            )
            assert ours == theirs  # every output, in order: a model's own stream, its "last" chunk included
            expected = [{"args": call.arguments, "type": call.name} for call in message]
            if flags.get("return_id"):
                expected = [{**tool_call, "id": call.id} for tool_call, call in zip(expected, message)]
            assert ours[-1] == (expected[0] if flags.get("first_tool_only") else expected)
            assert all(a != b for a, b in zip(ours, ours[1:]))  # each only when it changed
            if not flags:  # partial values never go backwards
                for before, after in zip(ours, ours[1:]):
                    for old, new in zip(before, after):
                        assert goes_backwards(old["args"], new["args"]) is None


def test_json_output_key_tools_parser(backend: ModuleType) -> None:
    options = {"parser_class": backend.StreamingJsonParser}
    number = next(n for n in BESIDE_THEIRS if len({call.name for call in MESSAGES[n]}) > 1)
    message = MESSAGES[number]
    key = message[-1].name
    for flags in ({}, {"return_id": True}, {"first_tool_only": True}, {"first_tool_only": True, "return_id": True}):
        ours, theirs = both(
            JsonOutputKeyToolsParser(key_name=key, **flags, **options),
            TheirJsonOutputKeyToolsParser(key_name=key, **flags),
            RESPONSES[number],
        )
        assert ours == theirs
        named = [call for call in message if call.name == key]
        calls = [
            {"args": call.arguments, "id": call.id, "type": key} if flags.get("return_id") else call.arguments
            for call in named
        ]
        assert ours[-1] == (calls[0] if flags.get("first_tool_only") else calls)
    cut = Call(message[-1].id, key, message[-1].text[:-1])  # a call to the key's tool that is cut off raises
    with pytest.raises(OutputParserException):
        list(
            (
                scripted_model([ai_chunks(tool_call_chunks([cut], seed=2))])
                | JsonOutputKeyToolsParser(key_name=key, **options)
            ).stream("go")
        )
    other = Call(message[0].id, "other_tool", message[0].text[:-1])  # and one to another tool is not read
    response = ai_chunks(tool_call_chunks([other, message[-1]], seed=2))
    outputs = list((scripted_model([response]) | JsonOutputKeyToolsParser(key_name=key, **options)).stream("go"))
    assert outputs[-1] == [message[-1].arguments]


def test_the_adapters_reading_on_request(backend: ModuleType) -> None:
    """``arguments_stream_class``: a backend's ToolCallArgumentsStream reads partial arguments this library's way (a
    literal shows from its first letter), where by default they read as LangChain's do."""
    fragments = [
        {"name": "read", "args": '{"path": "a", "all": t', "id": "c1", "index": 0},
        {"name": None, "args": "rue}", "id": None, "index": 0},
    ]

    def outputs(parser: Any) -> list[Any]:
        return list((scripted_model([ai_chunks(fragments)]) | parser).stream("go"))

    langchain = [[{"args": {"path": "a"}, "type": "read"}], [{"args": {"path": "a", "all": True}, "type": "read"}]]
    assert outputs(JsonOutputToolsParser(parser_class=backend.StreamingJsonParser)) == langchain
    assert outputs(TheirJsonOutputToolsParser()) == langchain
    ours = outputs(JsonOutputToolsParser(arguments_stream_class=backend.ToolCallArgumentsStream))
    assert ours == [[{"args": {"path": "a", "all": True}, "type": "read"}]]


def test_json_output_tools_parser_async_and_cut(backend: ModuleType) -> None:
    options = {"parser_class": backend.StreamingJsonParser}
    model = scripted_model([RESPONSES[0]])

    async def last() -> Any:
        outputs = [output async for output in (model | JsonOutputToolsParser(**options)).astream("go")]
        return outputs[-1]

    assert asyncio.run(last()) == [{"args": call.arguments, "type": call.name} for call in MESSAGES[0]]
    call = MESSAGES[BESIDE_THEIRS[0]][0]
    cut = ai_chunks(tool_call_chunks([Call(call.id, call.name, call.text[:-2])], seed=5))
    with pytest.raises(OutputParserException):
        list((scripted_model([cut]) | JsonOutputToolsParser(**options)).stream("go"))
    assert list((scripted_model([cut]) | TheirJsonOutputToolsParser()).stream("go"))[-1]  # theirs: no error


class write(BaseModel):  # the tools are named as the corpus calls them
    model_config = ConfigDict(extra="allow")
    path: str
    content: str


class read(BaseModel):
    model_config = ConfigDict(extra="allow")
    path: str


class bash(BaseModel):
    model_config = ConfigDict(extra="allow")
    command: str


class edit(BaseModel):
    model_config = ConfigDict(extra="allow")
    path: str


TOOLS = [write, read, bash, edit]


def test_pydantic_tools_parser_yields_the_tools_instances(backend: ModuleType) -> None:
    options = {"parser_class": backend.StreamingJsonParser}
    for number in BESIDE_THEIRS[:4]:
        message = MESSAGES[number]
        for first in (False, True):
            ours, theirs = both(
                PydanticToolsParser(tools=TOOLS, first_tool_only=first, **options),
                TheirPydanticToolsParser(tools=TOOLS, first_tool_only=first),
                RESPONSES[number],
            )
            assert ours == theirs  # instances of the user's classes, once each call's arguments so far validate
            for output in ours:
                assert all(type(value) in TOOLS for value in ([output] if first else output))
            last = [ours[-1]] if first else ours[-1]
            expected = message[:1] if first else message
            assert [type(value).__name__ for value in last] == [call.name for call in expected]
            assert [value.model_dump() for value in last] == [call.arguments for call in expected]
    bad = ai_chunks([{"name": "read", "args": '{"other": 1}', "id": "c1", "index": 0}])
    with pytest.raises(OutputParserException, match="path"):
        list((scripted_model([bad]) | PydanticToolsParser(tools=TOOLS, **options)).stream("go"))
    assert list((scripted_model([bad]) | TheirPydanticToolsParser(tools=TOOLS)).stream("go")) == [[]]  # theirs: hidden
    unknown = ai_chunks([{"name": "delete", "args": '{"path": "a"}', "id": "c1", "index": 0}])
    for parser in (PydanticToolsParser(tools=TOOLS, **options), TheirPydanticToolsParser(tools=TOOLS)):
        with pytest.raises(OutputParserException, match="Unknown tool type: 'delete'"):
            list((scripted_model([unknown]) | parser).stream("go"))


def test_pydantic_tools_parser_partial_twins(backend: ModuleType) -> None:
    """``partial_twins=True``: each call as its tool's partial twin from its first piece, then the instance."""
    options = {"parser_class": backend.StreamingJsonParser}
    number = BESIDE_THEIRS[0]
    message = MESSAGES[number]
    twins, theirs = both(
        PydanticToolsParser(tools=TOOLS, partial_twins=True, **options),
        TheirPydanticToolsParser(tools=TOOLS),
        RESPONSES[number],
    )
    assert twins[-1] == theirs[-1]  # the same instances at the end
    assert len(twins) > len(theirs)  # and values from the first piece on, where theirs wait for each to validate
    twin = twins[1][0]  # after [], the first call's first value: its tool's twin
    assert type(twin).partial_of is next(tool for tool in TOOLS if tool.__name__ == message[0].name)  # type: ignore[attr-defined]


def text_chunks(text: str, seed: int) -> list[Any]:
    return [AIMessageChunk(content=piece) for piece in pieces_of(text, seed)]


def test_json_output_parser_ends_as_langchains(backend: ModuleType) -> None:
    jsonpatch = pytest.importorskip("jsonpatch")
    options = {"parser_class": backend.StreamingJsonParser}
    for number, call in enumerate([call for call in SAMPLE if len(call.text) < 3000][:4]):
        for text in (call.text, f"```json\n{call.text}\n```", f"Here it is:\n```json\n{call.text}\n```\nDone."):
            chunks = text_chunks(text, number)
            ours, theirs = both(JsonOutputParser(**options), TheirJsonOutputParser(), chunks)
            assert ours[-1] == theirs[-1] == call.arguments
            for before, after in zip(ours, ours[1:]):
                assert before != after and goes_backwards(before, after) is None
            patches, _ = both(JsonOutputParser(diff=True, **options), TheirJsonOutputParser(diff=True), chunks)
            value = None
            for patch, expected in zip(patches, ours):
                value = jsonpatch.apply_patch(value, patch)
                assert value == expected
    with pytest.raises(OutputParserException):
        list((scripted_model([text_chunks('{"a": [1, 2', 0)]) | JsonOutputParser(**options)).stream("go"))
    with pytest.raises(OutputParserException):
        JsonOutputParser(**options).invoke('{"a": [1, 2')
    assert TheirJsonOutputParser().invoke('{"a": [1, 2') == {"a": [1, 2]}  # theirs: a valid-looking value
    assert JsonOutputParser(**options).invoke('```json\n{"a": 1}\n```') == {"a": 1}


def test_invoke_is_strict_on_an_aggregated_chunk(backend: ModuleType) -> None:
    call = MESSAGES[BESIDE_THEIRS[0]][0]
    chunks = ai_chunks(tool_call_chunks([Call(call.id, call.name, call.text[:-1])], seed=7))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    with pytest.raises(OutputParserException):
        JsonOutputToolsParser(arguments_stream_class=backend.ToolCallArgumentsStream).invoke(total)
    assert TheirJsonOutputToolsParser().invoke(total)  # theirs: the partial parse, valid-looking
    whole = ai_chunks(tool_call_chunks([call], seed=7))
    total = whole[0]
    for chunk in whole[1:]:
        total = total + chunk
    assert JsonOutputToolsParser().invoke(total) == [{"args": call.arguments, "type": call.name}]


def test_importing_the_adapters_imports_no_framework() -> None:
    code = (
        "import sys; import streaming_json.integrations, streaming_json.integrations.langchain, "
        "streaming_json.integrations.pydantic_ai, streaming_json.integrations._langchain_partial\n"
        "loaded = [name for name in ('langchain_core', 'langgraph', 'pydantic_ai', 'agents') if name in sys.modules]\n"
        "assert not loaded, loaded\n"
        "sys.modules['langchain_core'] = None\n"
        "try:\n"
        "    from streaming_json.integrations.langchain import JsonOutputToolsParser\n"
        "except ImportError as error:\n"
        "    assert \"pip install 'langchain-core>=1.0'\" in str(error), error\n"
        "else:\n"
        "    raise AssertionError('no ImportError')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.dumps  # (the module's other imports are the test's own)
