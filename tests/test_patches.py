"""streaming_json.patches: the operations of a parser's changes, the op streams of every source, the wire shapes.

What a user relies on: applying a stream's operations gives, after every piece, the value the changes describe and,
at the end, the document's value (with jsonpatch, an RFC 6902 applier, in strict mode); the operations of a stream add
up to its text's size; each call of an SDK's stream gets its own op stream with its start and its end (the strict
arguments, or the problem); AG-UI's own models accept every event; the flush interval merges without changing what
the client ends with."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_json import MISSING
from streaming_json.integrations import AnthropicToolCalls, OpenAIChatStructuredOutput, OpenAIChatToolCalls
from streaming_json.patches import (
    AGUIWire,
    ArgumentPatches,
    DocumentPatches,
    OutputPatches,
    PatchEvent,
    PatchStream,
    PatchWire,
    StrictOps,
    ToolCallPatches,
    UIMessageWire,
    agui_events,
    aiter_sse,
    apply_patch,
    coalesce,
    iter_sse,
    pointer,
    snapshot_ops,
    text_patches,
    ui_message_chunks,
)

from .model_outputs import REAL_CALLS
from .patch_streams import TRICKY, chat_calls, document_pieces, replay, streams
from .provider_streams import SAMPLE, STRUCTURED_TEXT, anthropic_stream, chat_stream, chat_text_stream
from .strategies import apply_changes, cut_randomly, examples, json_texts, pieces_of


def _read(backend: ModuleType, pieces: list[Any], strict: bool = False, **options: Any) -> tuple[Any, Any, list[Any]]:
    """Each piece through a parser and a PatchStream: the value the operations build, the value the changes build
    (the writer's copy the changes are for), every operation."""
    parser, patches = backend.StreamingJsonParser(**options), PatchStream(strict=strict)
    built: Any = None
    written: Any = None
    operations = []
    for piece in pieces:
        changes = parser.append(piece)
        ops = patches.ops(changes)
        operations += ops
        built = apply_patch(built, ops)
        for change in changes:
            if change.kind in ("set", "append"):
                written = apply_changes(written, change)
        assert built == written
    return built, parser.snapshot(fresh=True), operations


@given(st.data())
@examples(200)
def test_the_operations_build_what_the_changes_describe_after_every_piece(backend: ModuleType, data: Any) -> None:
    text = data.draw(json_texts())
    pieces = data.draw(pieces_of(text))
    for strict in (False, True):
        built, _, operations = _read(backend, pieces, strict, stable=data.draw(st.booleans()))
        document = json.loads(text)
        if isinstance(document, (dict, list)):
            assert built == document
        else:  # a root number or literal is not reported until something ends it (the end event carries it)
            assert built in (None, document)
        if strict:
            jsonpatch = pytest.importorskip("jsonpatch")
            # An RFC 6902 applier takes them: the first sets the root, whatever the document before (jsonpatch before
            # 1.48, PyPy's, takes no None for one); a root literal has none.
            assert jsonpatch.apply_patch({}, operations) == built if operations else built is None
            assert {op["op"] for op in operations} <= {"add", "replace"}


@given(st.data())
@examples(100)
def test_any_text_gives_operations_that_apply(backend: ModuleType, data: Any) -> None:
    """Malformed text too: the parser's lenient reading, as operations that always apply."""
    pieces = data.draw(st.lists(st.text(st.sampled_from('{}[],:"\\ ab1.e-tn\u00e9'), max_size=6), max_size=12))
    built, _, operations = _read(backend, pieces, report_depth=data.draw(st.integers(1, 32)))
    assert apply_patch(None, coalesce(operations)) == built


@given(json_texts(), st.data())
@examples(100)
def test_snapshot_ops_take_each_snapshot_to_the_next_as_jsonpatch_applies_them(
    backend: ModuleType, text: str, data: Any
) -> None:
    """For readers whose values are snapshots (LangChain's diff=True): RFC 6902 operations that jsonpatch applies."""
    jsonpatch = pytest.importorskip("jsonpatch")
    parser = backend.StreamingJsonParser(stable=True)
    previous: Any = MISSING
    for piece in data.draw(pieces_of(text, allow_bytes=False)):
        parser.append(piece)
        value = parser.snapshot()
        operations = snapshot_ops(previous, value)
        assert {op["op"] for op in operations} <= {"add", "remove", "replace"}
        if previous is not MISSING:
            assert jsonpatch.apply_patch(copy.deepcopy(previous), operations) == value
        previous = value


def test_the_real_calls_in_token_pieces_and_the_bytes_they_cost(backend: ModuleType) -> None:
    for number, (_, text) in enumerate(REAL_CALLS[::7]):
        pieces = cut_randomly(text, number, 1, 6)
        built, snapshot, operations = _read(backend, pieces)
        assert built == json.loads(text) == snapshot
        # The operations carry each piece's text once, as ``append``: about the text's size, plus a pointer each.
        appended = sum(len(op["value"]) for op in operations if op["op"] == "append")
        assert appended <= len(text)
        assert len(json.dumps(coalesce(operations))) <= 2 * len(text) + 64


def test_pointers_add_and_replace(backend: ModuleType) -> None:
    assert pointer(("a/b", "~x", 0, "")) == "/a~1b/~0x/0/"
    parser, patches = backend.StreamingJsonParser(report_depth=1), PatchStream()
    assert patches.ops(parser.append('{"edit": {"line": 3}, "edit": "x')) == [
        {"op": "add", "path": "", "value": {}},
        {"op": "add", "path": "/edit", "value": {}},
        {"op": "replace", "path": "/edit", "value": {"line": 3}},  # reported whole when it closes
        {"op": "replace", "path": "/edit", "value": "x"},  # a duplicate key
    ]
    assert patches.ops(parser.append('yz"}')) == [{"op": "append", "path": "/edit", "value": "yz"}]
    parser, patches = backend.StreamingJsonParser(report_depth=2), PatchStream()
    assert patches.ops(parser.append('[[{"a": 1}], [')) == [
        {"op": "add", "path": "", "value": []},
        {"op": "add", "path": "/0", "value": []},
        {"op": "add", "path": "/0/0", "value": {}},
        {"op": "replace", "path": "/0/0", "value": {"a": 1}},  # an array's item shown already: replaced, not added
        {"op": "add", "path": "/1", "value": []},
    ]
    strict = PatchStream(strict=True)
    parser = backend.StreamingJsonParser()
    assert strict.ops(parser.append('{"s": "ab')) == [
        {"op": "add", "path": "", "value": {}},
        {"op": "add", "path": "/s", "value": "ab"},
    ]
    assert strict.ops(parser.append('c"}')) == [{"op": "replace", "path": "/s", "value": "abc"}]


def test_apply_patch_refuses_what_does_not_apply_and_copies_values() -> None:
    shared = {"a": []}
    value = apply_patch(None, [{"op": "add", "path": "", "value": shared}])
    value = apply_patch(value, [{"op": "add", "path": "/a/-", "value": 1}, {"op": "add", "path": "/a/0", "value": 0}])
    assert value == {"a": [0, 1]} and shared == {"a": []}
    for bad in (
        {"op": "replace", "path": "/missing", "value": 1},
        {"op": "append", "path": "/a", "value": "x"},
        {"op": "add", "path": "/a/9", "value": 1},
        {"op": "move", "path": "/a", "from": "/b"},
        {"op": "add", "path": "no-slash", "value": 1},
    ):
        with pytest.raises(ValueError):
            apply_patch({"a": []}, [bad])


def test_coalesce_merges_a_strings_growth_and_keeps_the_rest() -> None:
    operations = [
        {"op": "add", "path": "", "value": {}},
        {"op": "add", "path": "/s", "value": "a"},
        {"op": "append", "path": "/s", "value": "b"},
        {"op": "append", "path": "/s", "value": "c"},
        {"op": "add", "path": "/n", "value": 1},
        {"op": "add", "path": "/t", "value": "x"},
        {"op": "replace", "path": "/t", "value": "xy"},
        {"op": "replace", "path": "/t", "value": "xyz"},
        {"op": "append", "path": "/t", "value": "!"},
    ]
    # The root's members, on a root sent before: each string's run joined.
    assert coalesce(operations[1:]) == [
        {"op": "add", "path": "/s", "value": "abc"},
        {"op": "add", "path": "/n", "value": 1},
        {"op": "add", "path": "/t", "value": "xyz!"},
    ]
    # With the root in the batch: its members go inside its value.
    merged = coalesce(operations)
    assert merged == [{"op": "add", "path": "", "value": {"s": "abc", "n": 1, "t": "xyz!"}}]
    assert apply_patch(None, merged) == apply_patch(None, operations)
    assert operations[0] == {"op": "add", "path": "", "value": {}}  # the operations given are not changed
    assert operations[1] == {"op": "add", "path": "/s", "value": "a"}


def test_coalesce_folds_into_the_last_container_added_and_only_that() -> None:
    before = {"results": [{"id": 0, "name": "Ada"}], "x": {"a~/b": 1}}
    operations = [
        {"op": "append", "path": "/results/0/name", "value": " L."},  # a string sent before: kept
        {"op": "add", "path": "/results/1", "value": {}},  # a record that arrives whole
        {"op": "add", "path": "/results/1/id", "value": 1},
        {"op": "add", "path": "/results/1/tags", "value": []},
        {"op": "add", "path": "/results/1/tags/0", "value": "t"},
        {"op": "add", "path": "/results/1/tags/-", "value": "u"},
        {"op": "add", "path": "/results/1/name", "value": "Gr"},
        {"op": "replace", "path": "/x/a~0~1b", "value": 2},  # another container: kept, the record's folding ends
        {"op": "add", "path": "/results/1/late", "value": True},  # after a kept operation: not moved before it
        {"op": "add", "path": "/results/2", "value": {}},
        {"op": "add", "path": "/results/2/id", "value": 2},
        {"op": "add", "path": "/results/2/bad/0", "value": 0},  # a path that does not apply: kept as it is
    ]
    merged = coalesce(operations)
    assert merged == [
        operations[0],
        {"op": "add", "path": "/results/1", "value": {"id": 1, "tags": ["t", "u"], "name": "Gr"}},
        operations[7],
        operations[8],
        {"op": "add", "path": "/results/2", "value": {"id": 2}},
        operations[11],
    ]
    with pytest.raises(ValueError):
        apply_patch(copy.deepcopy(before), operations)
    assert apply_patch(copy.deepcopy(before), merged[:-1]) == apply_patch(copy.deepcopy(before), operations[:-1])
    assert operations[1]["value"] == {} and operations[3]["value"] == []  # not changed


def test_strict_operations_of_a_coalesced_record_grow_its_strings_from_their_whole_value() -> None:
    """A record coalesced whole holds an open string that grows in the next batch: the strict ``replace`` of that
    string must start from the record's value (AG-UI's STATE_DELTA, through a flush interval)."""
    first = coalesce(
        [
            {"op": "add", "path": "", "value": {}},
            {"op": "add", "path": "/r", "value": []},
            {"op": "add", "path": "/r/0", "value": {}},
            {"op": "add", "path": "/r/0/name", "value": "Ad"},
        ]
    )
    assert first == [{"op": "add", "path": "", "value": {"r": [{"name": "Ad"}]}}]
    strict = StrictOps()
    state = apply_patch(None, strict.ops(first))
    second = strict.ops([{"op": "append", "path": "/r/0/name", "value": "a"}])
    assert second == [{"op": "replace", "path": "/r/0/name", "value": "Ada"}]
    assert apply_patch(state, second) == {"r": [{"name": "Ada"}]}


def test_every_stream_ends_with_its_values_and_each_call_has_its_start_and_end(backend: ModuleType) -> None:
    found = streams(backend)
    expected = {f"call_{number:03d}": json.loads(text) for number, (_, text) in enumerate(SAMPLE)}
    for name in ("chat_calls_append", "chat_calls_strict", "anthropic_calls"):
        events = found[name]
        assert replay(events, steps_too=False)["final"] == expected
        for call_id in expected:
            kinds = [event.kind for event in events if event.id == call_id]
            assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("start") == kinds.count("end") == 1
        assert all(event.shown for event in events if event.kind == "end")  # the operations built each value
    assert replay(found["tricky_document_append"], steps_too=False)["final"] == {"": json.loads(TRICKY)}
    ends = {event.id: event for event in found["calls_in_error"] if event.kind == "end"}
    assert ends["call_0"].error is None and ends["call_0"].value == {"path": "a.py"}
    assert ends["call_1"].problem.kind == "malformed" and ends["call_1"].value == {} and not ends["call_1"].shown
    assert ends["call_2"].problem.kind == "not_object"
    (cut,) = [event for event in found["call_cut_off"] if event.kind == "end"]
    assert cut.problem.kind == "incomplete" and cut.value == {}


def test_the_calls_text_deltas_are_the_providers_and_the_streams_are_the_adapters(backend: ModuleType) -> None:
    patches = ToolCallPatches(OpenAIChatToolCalls, parser_class=backend.StreamingJsonParser)
    events = list(patches.stream(chat_stream(SAMPLE, 3)))
    for number, (_, text) in enumerate(SAMPLE):
        call_id = f"call_{number:03d}"
        assert "".join(event.text for event in events if event.id == call_id) == text
    calls = patches.tool_calls.calls
    assert [call.arguments for call in calls] == [json.loads(text) for _, text in SAMPLE]  # the adapter's live calls
    assert all(call.done and call.error is None for call in calls)


def test_typed_calls_and_typed_documents(backend: ModuleType) -> None:
    pydantic = pytest.importorskip("pydantic")

    class Write(pydantic.BaseModel):
        path: str
        content: str

    texts = ['{"path": "a.py", "content": "print(1)"}', '{"path": 3}']
    patches = ToolCallPatches(OpenAIChatToolCalls, models={"write": Write}, parser_class=backend.StreamingJsonParser)
    events = list(patches.stream(chat_calls(texts, finish=True)))
    first, second = patches.tool_calls.calls
    assert isinstance(first.parsed, Write) and first.parsed.content == "print(1)"
    ends = [event for event in events if event.kind == "end"]
    assert ends[0].error is None and ends[0].shown and ends[0].value == json.loads(texts[0])
    assert ends[1].problem.kind == "invalid" and second.parsed is None
    assert replay(events, steps_too=False)["final"]["call_0"] == json.loads(texts[0])
    assert "".join(event.text for event in events if event.id == "call_0") == texts[0]  # not read twice
    document = DocumentPatches(Write, parser_class=backend.StreamingJsonParser)
    built = None
    for piece in cut_randomly(texts[0], 1, 1, 3):
        built = apply_patch(built, document.append(piece))
    assert built == json.loads(texts[0]) and isinstance(document.value, Write)
    end = document.finish()
    assert end.kind == "end" and end.error is None and end.value == built
    bad = DocumentPatches(Write, parser_class=backend.StreamingJsonParser)
    bad.append(texts[1])
    assert bad.finish().problem.kind == "invalid"


def test_structured_output_and_argument_patches(backend: ModuleType) -> None:
    output = OutputPatches(OpenAIChatStructuredOutput, parser_class=backend.StreamingJsonParser)
    events = list(output.stream(chat_text_stream(STRUCTURED_TEXT, 4)))
    assert events[-1].kind == "end" and events[-1].shown and events[-1].error is None
    assert replay(events, steps_too=False)["final"] == {"": json.loads(STRUCTURED_TEXT)}
    stream = ArgumentPatches(parser_class=backend.StreamingJsonParser)
    assert stream.append('{"a": "x') == {"a": "x"}
    assert stream.take() == (
        [{"op": "add", "path": "", "value": {}}, {"op": "add", "path": "/a", "value": "x"}],
        '{"a": "x',
    )
    replaced = stream.replace('{"b": 1}')  # does not continue the text: the arguments start over
    assert replaced.delta is None and replaced.arguments == {"b": 1}
    ops, text = stream.take()
    assert ops[0] == {"op": "add", "path": "", "value": {}} and text == '{"b": 1}'
    assert stream.finish().arguments == {"b": 1} and stream.shown({"b": 1})


def test_agui_events_validate_with_ag_ui_protocols_own_models(backend: ModuleType) -> None:
    core = pytest.importorskip("ag_ui.core", reason="ag-ui-protocol is in the test extra (CPython)")
    models = {
        "TOOL_CALL_START": core.ToolCallStartEvent,
        "TOOL_CALL_ARGS": core.ToolCallArgsEvent,
        "TOOL_CALL_END": core.ToolCallEndEvent,
        "STATE_SNAPSHOT": core.StateSnapshotEvent,
        "STATE_DELTA": core.StateDeltaEvent,
        "RUN_STARTED": core.RunStartedEvent,
        "RUN_FINISHED": core.RunFinishedEvent,
        "CUSTOM": core.CustomEvent,
    }
    found = streams(backend)
    for name, events in found.items():
        state: Any = None
        arguments: dict[str, str] = {}
        wire = AGUIWire(thread_id="t1", run_id="r1")
        written = "".join(iter_sse(events, wire=wire))
        decoded = [json.loads(line[6:]) for line in written.split("\n") if line.startswith("data: ")]
        assert decoded[0]["type"] == "RUN_STARTED" and decoded[-1]["type"] == "RUN_FINISHED"
        for event in decoded:
            models[event["type"]].model_validate(event)
            if event["type"] == "STATE_SNAPSHOT":
                state = event["snapshot"]
            elif event["type"] == "STATE_DELTA":
                state = pytest.importorskip("jsonpatch").apply_patch(state, event["delta"])  # RFC 6902 alone
            elif event["type"] == "TOOL_CALL_ARGS":
                arguments[event["toolCallId"]] = arguments.get(event["toolCallId"], "") + event["delta"]
        if name.startswith(("chat_calls", "anthropic")):
            assert {key: json.loads(text) for key, text in arguments.items()} == replay(events)["final"]
        if name.startswith("tricky"):
            assert state == json.loads(TRICKY)
    problems = [event for event in agui_events(found["calls_in_error"]) if event["type"] == "CUSTOM"]
    assert [event["value"]["problem"]["kind"] for event in problems] == ["malformed", "not_object"]
    prefixed = list(agui_events(found["tricky_document_append"], state_path="/output"))
    assert {op["path"].split("/")[1] for event in prefixed for op in event["delta"]} == {"output"}


def test_the_ai_sdks_ui_message_chunks(backend: ModuleType) -> None:
    found = streams(backend)
    chunks = list(ui_message_chunks(found["chat_calls_append"]))
    for number, (name, text) in enumerate(SAMPLE):
        mine = [chunk for chunk in chunks if chunk.get("toolCallId") == f"call_{number:03d}"]
        assert mine[0] == {"type": "tool-input-start", "toolCallId": f"call_{number:03d}", "toolName": name}
        assert "".join(chunk["inputTextDelta"] for chunk in mine[1:-1]) == text
        assert mine[-1]["type"] == "tool-input-available" and mine[-1]["input"] == json.loads(text)
    errors = [chunk for chunk in ui_message_chunks(found["calls_in_error"]) if chunk["type"] == "tool-input-error"]
    assert [chunk["toolCallId"] for chunk in errors] == ["call_1", "call_2"] and all(c["errorText"] for c in errors)
    parts = list(ui_message_chunks(found["tricky_document_append"], data_name="answer"))
    assert {part["type"] for part in parts} == {"data-answer"} and parts[-1]["data"] == json.loads(TRICKY)
    assert parts[0]["data"] != parts[-1]["data"]  # each part its own value, the one before unchanged
    written = "".join(iter_sse(found["chat_calls_append"], wire=UIMessageWire(message_id="m1")))
    assert written.startswith('data: {"type":"start","messageId":"m1"}\n\n')
    assert written.endswith('data: {"type":"finish"}\n\ndata: [DONE]\n\n')


def test_the_flush_interval_merges_without_changing_the_values(backend: ModuleType) -> None:
    found = streams(backend)
    events = found["chat_calls_append"]
    ticks = iter(range(10**9))
    merged = "".join(iter_sse(events, flush_interval=5, clock=lambda: float(next(ticks))))
    alone = "".join(iter_sse(events))
    assert len(merged) < len(alone) / 3
    assert _client_values(merged) == _client_values(alone) == replay(events, steps_too=False)["final"]
    everything = "".join(iter_sse(events, flush_interval=1e9))
    text = sum(len(text) for _, text in SAMPLE)
    # Near the text's own size: its JSON escapes, and each call's envelopes (its start, its end, an ops event).
    assert len(everything.encode()) < 1.2 * text + 250 * len(SAMPLE)


def _client_values(written: str) -> dict[str, Any]:
    """What patches.js holds at the end of these events (the same rules, in Python)."""
    values: dict[str, Any] = {}
    kind = None
    for line in written.split("\n"):
        if not line:
            kind = None
        elif line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind in (None, "end"):
            data = json.loads(line[6:])
            data = {"ops": data} if isinstance(data, list) else data
            key = data.get("id", "")
            if kind is None:
                values[key] = apply_patch(values.get(key), data["ops"])
            elif "value" in data:
                values[key] = data["value"]
    return values


def test_the_async_writer_sends_a_batch_when_its_interval_ends_while_the_source_is_quiet(backend: ModuleType) -> None:
    events = list(text_patches(document_pieces('{"a": "hello world"}', 1), parser_class=backend.StreamingJsonParser))

    async def source() -> AsyncIterator[PatchEvent]:
        yield events[0]  # sent at once: the interval before it was quiet
        await asyncio.sleep(0.01)
        yield events[1]  # within the interval: it waits for the interval's end, not for the pause's
        await asyncio.sleep(0.4)  # the model thinks
        for event in events[2:]:
            yield event

    async def read() -> list[tuple[float, str]]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        return [(loop.time() - start, batch) async for batch in aiter_sse(source(), flush_interval=0.05)]

    batches = asyncio.run(read())
    assert len(batches) == 3 and batches[1][0] < 0.3 <= batches[2][0], [time for time, _ in batches]
    assert batches[1][1] == PatchWire().render(events[1])[0]
    assert _client_values("".join(batch for _, batch in batches)) == {"": {"a": "hello world"}}
    sync_batches = asyncio.run(_collect(aiter_sse(events, flush_interval=0)))  # a sync source, read in a thread
    assert len(sync_batches) == len(events) + 1  # each event at once, then the end
    assert _client_values("".join(sync_batches)) == {"": {"a": "hello world"}}

    async def at_once() -> AsyncIterator[PatchEvent]:
        for event in events:
            yield event

    async_batches = asyncio.run(_collect(aiter_sse(at_once(), flush_interval=0)))  # no interval: no queue either
    assert async_batches == sync_batches


async def _collect(iterator: AsyncIterator[str]) -> list[str]:
    return [item async for item in iterator]


def test_a_failing_source_says_so_on_the_wire(backend: ModuleType) -> None:
    def source() -> Any:
        yield PatchEvent.started("c1", "write")
        raise RuntimeError("the provider hung up")

    written = []
    with pytest.raises(RuntimeError):
        written.extend(iter_sse(source()))
    error = 'event: error\ndata: {"error":"RuntimeError: the provider hung up"}\n\n'
    assert written[0] == 'event: start\ndata: {"id":"c1","name":"write"}\n\n' and written[-1].endswith(error)

    async def async_source() -> AsyncIterator[PatchEvent]:
        for event in source():
            yield event

    for interval in (0, 0.05):  # each event at once, or through the queue of a flush interval
        sent: list[str] = []

        async def read(interval: float = interval, sent: list[str] = sent) -> None:
            async for text in aiter_sse(async_source(), flush_interval=interval):
                sent.append(text)

        with pytest.raises(RuntimeError):
            asyncio.run(read())
        assert "".join(sent) == written[0] + error, interval


def test_sse_response_serves_an_op_stream_from_starlette(backend: ModuleType) -> None:
    pytest.importorskip("starlette", reason="the web extra")
    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from streaming_json.patches import sse_response

    async def endpoint(request: Any) -> Any:
        patches = ToolCallPatches(AnthropicToolCalls, parser_class=backend.StreamingJsonParser)
        return sse_response(patches.stream(anthropic_stream(SAMPLE[:2], 1)), flush_interval=0)

    with TestClient(Starlette(routes=[Route("/calls", endpoint)])) as client:
        response = client.get("/calls")
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    assert _client_values(response.text) == {
        f"call_{n:03d}": json.loads(text) for n, (_, text) in enumerate(SAMPLE[:2])
    }
