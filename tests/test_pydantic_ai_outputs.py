"""pydantic-ai's other output types, for real: an ``Agent`` over ``FunctionModel(stream_function=...)`` whose model
answers with real calls' arguments (a sample of the 845) in token pieces, through the output tools the agent offers
(``info.output_tools``: their names are pydantic-ai's), as JSON text (``NativeOutput``, ``PromptedOutput``, ``auto``)
or as text (``str``, ``TextOutput``); and refusals, one through pydantic-ai's OpenAI model on the ``openai`` client
over a mock transport. ``run_stream_events()`` is read by ``PydanticAIStructuredOutput``, as the event objects and in
their dict form, on both backends; what it ends with is the run's own output and what pydantic-ai's
``stream_output()`` ends with for the same answers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Annotated, Any, Callable, Generic, Optional, TypeVar, Union

import pytest

from .frameworks import FRAMEWORKS, corpus_sample, pieces_of

pytest.importorskip("pydantic_ai")

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic_ai import Agent, NativeOutput, PromptedOutput, TextOutput, ToolOutput
from pydantic_ai.messages import ModelResponseStreamEvent, PartDeltaEvent, PartEndEvent, PartStartEvent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.profiles import ModelProfile

from streaming_json import MISSING
from streaming_json.integrations import PydanticAIStructuredOutput
from streaming_json.pydantic import partial_twin

pytestmark = FRAMEWORKS
T = TypeVar("T")

SAMPLE = corpus_sample(8, seed=11, longest=1_500)
# Text a model wrote: the longest strings in the sample's arguments (file contents, messages, queries).
TEXTS = sorted(
    (value for call in SAMPLE for value in call.arguments.values() if isinstance(value, str)), key=len, reverse=True
)[:2]


class Arguments(BaseModel):
    """Any call's arguments, as an output type: every member kept."""

    model_config = ConfigDict(extra="allow")


class Other(BaseModel):
    """The same shape as another member of a union: only the tool or the ``kind`` tells them apart."""

    model_config = ConfigDict(extra="allow")


def shout(text: str) -> str:
    """A ``TextOutput`` function: the run's output is its return value."""
    return text.upper()


# --- A model that answers with a script, and the agent's own reading of it --------------------------------------


@dataclass(frozen=True)
class Text:
    """A text part."""

    text: str


@dataclass(frozen=True)
class OutputCall:
    """A call of the ``tool``-th output tool the agent offers (``info.output_tools``, in its order)."""

    tool: int
    text: str


@dataclass(frozen=True)
class UnionText:
    """JSON text of a union's ``variant``-th member, ``{"result": {"kind": ..., "data": ...}}``, with the ``kind``
    the agent's schema gives that member (``info.model_request_parameters.output_object``)."""

    variant: int
    data: str


@dataclass(frozen=True)
class ToolCall:
    """A call of a function tool."""

    name: str
    text: str


def scripted(responses: Sequence[Sequence[Any]], seed: int) -> Callable[..., AsyncIterator[Any]]:
    """A ``stream_function`` whose n-th request streams the n-th response's parts, each in token pieces."""
    remaining = list(responses)

    async def stream(messages: Any, info: AgentInfo) -> AsyncIterator[Any]:
        for index, part in enumerate(remaining.pop(0) if remaining else [Text("done")]):
            if isinstance(part, UnionText):
                schema = info.model_request_parameters.output_object.json_schema  # type: ignore[union-attr]
                kind = schema["properties"]["result"]["anyOf"][part.variant]["properties"]["kind"]["const"]
                part = Text(f'{{"result": {{"kind": {json.dumps(kind)}, "data": {part.data}}}}}')
            if isinstance(part, Text):
                for piece in pieces_of(part.text, seed + index):
                    yield piece
                continue
            name = info.output_tools[part.tool].name if isinstance(part, OutputCall) else part.name
            yield {index: DeltaToolCall(name=name, tool_call_id=f"call_{seed}_{index}")}
            for piece in pieces_of(part.text, seed + index):
                yield {index: DeltaToolCall(json_args=piece)}

    return stream


def make_agent(
    output_type: Any, responses: Sequence[Sequence[Any]], seed: int, profile: Optional[ModelProfile] = None
) -> Any:
    agent = Agent(FunctionModel(stream_function=scripted(responses, seed), profile=profile), output_type=output_type)
    names = {part.name for response in responses for part in response if isinstance(part, ToolCall)}
    for name in names:
        agent.tool_plain(name=name)(lambda **arguments: "ok")
    return agent


@dataclass(frozen=True)
class Case:
    """An agent's run: its output type, and what its model answers."""

    output_type: Any
    script: Sequence[Sequence[Any]]
    seed: int
    profile: Optional[ModelProfile] = None

    def agent(self) -> Any:
        return make_agent(self.output_type, self.script, self.seed, self.profile)


_RUNS: dict[tuple[str, ...], tuple[list[Any], Any]] = {}


def agent_run(case: Case, theirs: bool = True) -> tuple[list[Any], Any]:
    """The events of the case's ``run_stream_events()``, and what ``stream_output()`` ends with for the same answers
    (run once for both backends: the agent's work does not depend on ours)."""
    key = (repr(case.output_type), repr(case.script), repr(case.seed), repr(case.profile))
    if key not in _RUNS:
        _RUNS[key] = (run_events(case.agent()), their_stream_output_end(case.agent()) if theirs else None)
    return _RUNS[key]


def run_events(agent: Any) -> list[Any]:
    async def run() -> list[Any]:
        async with agent.run_stream_events("go") as events:
            return [event async for event in events]

    return asyncio.run(run())


def their_stream_output_end(agent: Any) -> Any:
    """What pydantic-ai's own ``stream_output()`` ends with."""

    async def run() -> Any:
        async with agent.run_stream("go") as result:
            return [value async for value in result.stream_output(debounce_by=None)][-1]

    return asyncio.run(run())


_EVENT_ADAPTER: list[Any] = []
_DICTS: dict[int, list[Any]] = {}


def as_dicts(events: list[Any]) -> list[Any]:
    """The model response events in their dict form (as an event stream sent on would carry them; no
    ``FinalResultEvent`` among them, as a node's stream or a UI's may lack it)."""
    if id(events) not in _DICTS:
        if not _EVENT_ADAPTER:
            _EVENT_ADAPTER.append(TypeAdapter(ModelResponseStreamEvent))
        parts = (PartStartEvent, PartDeltaEvent, PartEndEvent)
        dump = _EVENT_ADAPTER[0].dump_python
        _DICTS[id(events)] = [dump(event, mode="json") for event in events if isinstance(event, parts)]
    return _DICTS[id(events)]


def read(events: Sequence[Any], output_type: Any, backend: ModuleType) -> tuple[PydanticAIStructuredOutput, list[Any]]:
    output = PydanticAIStructuredOutput(output_type, parser_class=backend.StreamingJsonParser)
    return output, list(output.stream(events))


def output_tool_name(events: Sequence[Any]) -> Optional[str]:
    """The output tool the agent took its output from (its ``OutputToolCallEvent``), None for text."""
    names = [event.part.tool_name for event in events if getattr(event, "event_kind", None) == "output_tool_call"]
    return names[-1] if names else None


def check_reading(
    output: PydanticAIStructuredOutput, values: list[Any], events: list[Any], member: Any, theirs: Any
) -> None:
    """Ours ends with the run's output and with pydantic-ai's ``stream_output()``'s, once, of the right member, and
    every value before it is a partial value of that member."""
    assert output.error is None and output.refusal is None and output.result is not None
    final = output.result.value
    assert final == events[-1].result.output == theirs
    assert values[-1] is final and final not in values[:-1]
    assert output.member == member and output.value is final
    assert output.tool_name == output_tool_name(events)
    if isinstance(member, type) and issubclass(member, BaseModel):
        assert type(final) is member
        assert all(type(value) in (member, partial_twin(member)) for value in values)


# --- Unions of output tools --------------------------------------------------------------------------------------

# Each with the members whose calls are streamed (the same names in the first three: one member's is enough).
UNIONS = [
    pytest.param([Arguments, Other, list[Arguments]], (0, 1, 2), id="list"),
    pytest.param(Union[Arguments, Other, list[Arguments]], (2,), id="Union"),
    pytest.param(Arguments | Other | list[Arguments], (1,), id="pipe"),
    pytest.param([ToolOutput(Other, name="other"), Arguments, ToolOutput(list[Arguments])], (0, 1, 2), id="ToolOutput"),
]


def member_text(member: Any, calls: Sequence[Any]) -> str:
    """A member's JSON from real arguments: a call's own text for an object, ``{"response": [...]}`` for a list."""
    if member == list[Arguments]:
        return json.dumps({"response": [call.arguments for call in calls]}, ensure_ascii=False)
    return calls[0].text  # type: ignore[no-any-return]


def members_of(output_type: Any) -> list[Any]:
    """The members in the order pydantic-ai offers their tools (``ToolOutput``\\ s first)."""
    items = list(output_type) if isinstance(output_type, list) else list(output_type.__args__)
    tools = [item.output for item in items if isinstance(item, ToolOutput)]
    return tools + [item for item in items if not isinstance(item, ToolOutput)]


@pytest.mark.parametrize(("output_type", "streamed"), UNIONS)
def test_a_union_reads_the_member_its_output_tool_names(
    backend: ModuleType, output_type: Any, streamed: Sequence[int]
) -> None:
    members = members_of(output_type)
    for number in streamed:
        member, calls = members[number], SAMPLE[number : number + 3]
        events, theirs = agent_run(Case(output_type, [[OutputCall(number, member_text(member, calls))]], number))
        output, values = read(events, output_type, backend)
        check_reading(output, values, events, member, theirs)
        if member == list[Arguments]:
            assert [value.model_dump() for value in output.result.value] == [call.arguments for call in calls]
            lengths = [len(value) for value in values]
            assert lengths == sorted(lengths)  # the list grows, unwrapped from {"response": ...} all along
        else:
            assert output.result.value.model_dump() == calls[0].arguments
        dict_output, _ = read(as_dicts(events), output_type, backend)
        assert dict_output.result == output.result and dict_output.member == member


def test_an_invalid_member_then_another_member(backend: ModuleType) -> None:
    """pydantic-ai retries an invalid output; the retry may pick another member: the output starts over as it."""
    output_type = [Arguments, list[Arguments]]
    invalid = json.dumps({"response": [1, 2]})
    events, _ = agent_run(Case(output_type, [[OutputCall(1, invalid)], [OutputCall(0, SAMPLE[2].text)]], 5), False)
    output, values = read(events, output_type, backend)
    assert output.error is None and output.member is Arguments and output.tool_name == "final_result_Arguments"
    assert output.result is not None and output.result.value == events[-1].result.output
    retried = values.index(MISSING)
    assert all(isinstance(value, list) for value in values[:retried])
    assert all(type(value) in (Arguments, partial_twin(Arguments)) for value in values[retried + 1 :])


class Plain(BaseModel):
    x: int


class Titled(BaseModel):
    model_config = ConfigDict(title="Fancy Title!")
    x: int


class Page(BaseModel, Generic[T]):
    items: list[T]


# Members whose names pydantic-ai makes (a title, a generic's brackets stripped, an annotation's title, a repeated
# name numbered, None), each with its JSON.
ODD_MEMBERS: list[tuple[Any, str]] = [
    (Titled, '{"x": 1}'),
    (Page[int], '{"items": [1, 2]}'),
    (Annotated[Plain, Field(title="Ann")], '{"x": 2}'),
    (Plain, '{"x": 3}'),
    (Plain, '{"x": 4}'),
    (None, '{"response": null}'),
]


def test_members_are_known_by_the_names_pydantic_ai_gives_them(backend: ModuleType) -> None:
    """Each output tool the agent offers, and each ``kind`` its JSON schema names, reads as its own member."""
    output_type = [member for member, _ in ODD_MEMBERS]
    for number, (member, text) in enumerate(ODD_MEMBERS):
        events, _ = agent_run(Case(output_type, [[OutputCall(number, text)]], number), theirs=False)
        output, values = read(events, output_type, backend)
        assert output.error is None and output.tool_name == output_tool_name(events)
        assert output.result is not None and output.result.value == events[-1].result.output
        assert output.member == (type(None) if member is None else member)
    native = NativeOutput(output_type[:-1])
    for number, (member, text) in enumerate(ODD_MEMBERS[:-1]):
        events, _ = agent_run(Case(native, [[UnionText(number, text)]], number), theirs=False)
        output, values = read(events, native, backend)
        assert output.error is None and output.member == member
        assert output.result is not None and output.result.value == events[-1].result.output


# --- JSON text: NativeOutput, PromptedOutput, auto ---------------------------------------------------------------


def fenced(text: str) -> str:
    return f"Here it is:\n```json\n{text}\n```\n"


JSON_TEXTS = [
    pytest.param(NativeOutput(Arguments), Arguments, lambda call: call.text, id="native"),
    pytest.param(PromptedOutput(Arguments), Arguments, lambda call: fenced(call.text), id="prompted-fenced"),
    pytest.param(
        NativeOutput([Arguments, Other, list[Arguments]]),
        Other,
        lambda call: f'{{"result": {{"kind": "Other", "data": {call.text}}}}}',
        id="native-union",
    ),
    pytest.param(
        PromptedOutput([Arguments, list[Arguments]]),
        list[Arguments],
        lambda call: fenced(json.dumps({"result": {"kind": "list", "data": {"response": [call.arguments] * 2}}})),
        id="prompted-union-wrapped",
    ),
    pytest.param(
        PromptedOutput(list[Arguments]),
        list[Arguments],
        lambda call: json.dumps({"response": [call.arguments, call.arguments]}),
        id="prompted-wrapped",
    ),
]


@pytest.mark.parametrize(("output_type", "member", "answer"), JSON_TEXTS)
def test_json_text_outputs(backend: ModuleType, output_type: Any, member: Any, answer: Any) -> None:
    for number, call in enumerate(SAMPLE[:3]):
        events, theirs = agent_run(Case(output_type, [[Text(answer(call))]], number), theirs=number == 0)
        theirs = events[-1].result.output if number else theirs
        output, values = read(events, output_type, backend)
        check_reading(output, values, events, member, theirs)
        dict_output, _ = read(as_dicts(events), output_type, backend)
        assert dict_output.result == output.result and dict_output.member == member


def test_auto_output_given_as_json_text(backend: ModuleType) -> None:
    """Where the model's profile makes structured output native, an agent's plain ``[A, B]`` comes as JSON text."""
    profile = ModelProfile(default_structured_output_mode="native", supports_json_schema_output=True)
    output_type = [Arguments, Other]
    call = SAMPLE[4]
    script = [[Text(f'{{"result": {{"kind": "Arguments", "data": {call.text}}}}}')]]
    events, theirs = agent_run(Case(output_type, script, 4, profile))
    output, values = read(events, output_type, backend)
    check_reading(output, values, events, Arguments, theirs)
    assert output.result is not None and output.result.value.model_dump() == call.arguments


def test_a_union_member_is_known_once_its_kind_is(backend: ModuleType) -> None:
    """Until ``kind`` completes, the value is ``MISSING`` (which member's it would be is not known); where ``data``
    comes first, its value shows as that member's once ``kind`` names it."""
    call = SAMPLE[1]
    text = f'{{"result": {{"data": {call.text}, "kind": "Other"}}}}'
    events, _ = agent_run(Case(NativeOutput([Arguments, Other]), [[Text(text)]], 1), False)
    output, values = read(events, NativeOutput([Arguments, Other]), backend)
    assert output.error is None and output.member is Other and values == [output.result.value]  # type: ignore[union-attr]


# --- Text outputs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output_type", "member"),
    [pytest.param(str, str, id="str"), pytest.param([str, Arguments], str, id="str-or-tool")],
)
def test_text_outputs_stream_as_text(backend: ModuleType, output_type: Any, member: Any) -> None:
    for number, text in enumerate(TEXTS):
        events, theirs = agent_run(Case(output_type, [[Text(text)]], number))
        output, values = read(events, output_type, backend)
        check_reading(output, values, events, member, theirs)
        assert output.result is not None and output.result.value == text
        assert all(text.startswith(value) for value in values)


def test_a_text_output_function_is_the_agents(backend: ModuleType) -> None:
    """``TextOutput(fn)``: the value streams as the model's text; the run's output is ``fn`` of it."""
    output_type = TextOutput(shout)
    for number, text in enumerate(TEXTS):
        events, theirs = agent_run(Case(output_type, [[Text(text)]], number))
        output, values = read(events, output_type, backend)
        assert output.error is None and output.member is output_type and output.result is not None
        assert output.result.value == text and values[-1] is output.result.value
        assert shout(output.result.value) == events[-1].result.output == theirs


def test_text_or_an_output_tool(backend: ModuleType) -> None:
    """``[str, A]``: the model's text before a call of a tool is not the output; the output tool's call is, and so
    is the text of a later response that calls no tool."""
    output_type = [str, Arguments]
    first, second = SAMPLE[5], SAMPLE[6]
    script = [[Text("Let me look that up."), ToolCall(first.name, first.text)], [Text(TEXTS[0])]]
    events, _ = agent_run(Case(output_type, script, 6), False)
    output, values = read(events, output_type, backend)
    assert output.error is None and output.member is str
    assert output.result is not None and output.result.value == TEXTS[0] == events[-1].result.output
    events, _ = agent_run(Case(output_type, [[Text("Here it is."), OutputCall(0, second.text)]], 7), False)
    output, values = read(events, output_type, backend)
    assert output.error is None and output.member is Arguments and output.tool_name == "final_result"
    assert output.result is not None and output.result.value == events[-1].result.output
    assert output.result.value.model_dump() == second.arguments


# --- Refusals ----------------------------------------------------------------------------------------------------

REFUSAL = "I'm sorry, but I can't help with that request."


@pytest.mark.parametrize(
    "output_type",
    [
        pytest.param(Arguments, id="tool"),
        pytest.param([Arguments, Other], id="union"),
        pytest.param(NativeOutput(Arguments), id="native"),
        pytest.param(PromptedOutput([Arguments, Other]), id="prompted-union"),
    ],
)
def test_words_instead_of_an_output_are_a_refusal(backend: ModuleType, output_type: Any) -> None:
    """The model answers with words where a tool call or JSON was asked for, until pydantic-ai gives up: the output
    ends as a refusal, with the model's words, not with pydantic-ai's exception in the middle of the stream."""
    script = [[Text(REFUSAL)]] * 3

    async def ours() -> tuple[PydanticAIStructuredOutput, list[Any]]:
        output = PydanticAIStructuredOutput(output_type, parser_class=backend.StreamingJsonParser)
        async with make_agent(output_type, script, seed=8).run_stream_events("go") as events:
            return output, [value async for value in output.astream(events)]

    output, values = asyncio.run(ours())
    assert values == [] and output.value is MISSING and output.done
    assert output.refusal == REFUSAL and output.error == f"The model refused: {REFUSAL}"
    assert output.result is not None and output.result.value is None and output.problem is None
    assert type(output.run_error).__name__ == "UnexpectedModelBehavior"
    with pytest.raises(Exception, match="output retries|Output validation failed"):  # pydantic-ai's own raises
        their_stream_output_end(make_agent(output_type, script, seed=8))


def test_a_refusal_then_an_output(backend: ModuleType) -> None:
    """A retry after a refusal that gives the output: the output, and no refusal."""
    call = SAMPLE[3]
    events, _ = agent_run(Case([Arguments, Other], [[Text(REFUSAL)], [OutputCall(1, call.text)]], 9), False)
    output, values = read(events, [Arguments, Other], backend)
    assert output.error is None and output.refusal is None and output.member is Other
    assert output.result is not None and output.result.value == events[-1].result.output


def test_a_providers_refusal_through_the_openai_client(backend: ModuleType) -> None:
    """OpenAI's structured-output refusal (``delta.refusal``), through pydantic-ai's OpenAI model on the ``openai``
    client: pydantic-ai raises ``ContentFilterError``; ours ends with the provider's refusal."""
    pytest.importorskip("openai")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from .sse_replay import openai_client, sse_body

    def chunk(delta: dict[str, Any], finish_reason: Optional[str] = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [choice]}

    pieces = pieces_of(REFUSAL, 3)
    body = sse_body(
        [chunk({"role": "assistant", "content": None, "refusal": ""})]
        + [chunk({"refusal": piece}) for piece in pieces]
        + [chunk({}, "stop")],
        done_marker=True,
    )

    def agent(output_type: Any) -> Any:
        client = openai_client(body, asynchronous=True)
        return Agent(
            OpenAIChatModel("gpt-test", provider=OpenAIProvider(openai_client=client)), output_type=output_type
        )

    async def ours(output_type: Any) -> tuple[PydanticAIStructuredOutput, list[Any]]:
        output = PydanticAIStructuredOutput(output_type, parser_class=backend.StreamingJsonParser)
        return output, [value async for value in output.astream(agent(output_type).run_stream_events("go"))]

    for output_type in (Arguments, NativeOutput([Arguments, Other])):
        output, values = asyncio.run(ours(output_type))
        assert values == [] and output.refusal == REFUSAL and output.error == f"The model refused: {REFUSAL}"
        assert type(output.run_error).__name__ == "ContentFilterError"
        with pytest.raises(Exception, match="Content filter triggered"):
            their_stream_output_end(agent(output_type))


def test_other_errors_of_the_events_go_on_to_the_caller(backend: ModuleType) -> None:
    """Only pydantic-ai's ``UnexpectedModelBehavior`` ends the output: any other exception is the caller's."""

    def events() -> Any:
        yield {"event_kind": "part_start", "index": 0, "part": {"part_kind": "tool-call", "tool_name": "final_result"}}
        raise ConnectionError("the connection dropped")

    output = PydanticAIStructuredOutput(Arguments, parser_class=backend.StreamingJsonParser)
    with pytest.raises(ConnectionError):
        list(output.stream(events()))
    assert output.run_error is None and not output.done


def test_a_cut_json_text_is_incomplete(backend: ModuleType) -> None:
    """JSON text that ends early: pydantic-ai retries until it gives up; ours ends ``incomplete``, never valid."""
    call = next(call for call in SAMPLE if len(call.text) > 200)
    script = [[Text(call.text[:150])]] * 3
    events: list[Any] = []

    async def ours() -> PydanticAIStructuredOutput:
        output = PydanticAIStructuredOutput(NativeOutput(Arguments), parser_class=backend.StreamingJsonParser)
        async with make_agent(NativeOutput(Arguments), script, seed=10).run_stream_events("go") as stream:
            async for value in output.astream(stream):
                events.append(value)
        return output

    output = asyncio.run(ours())
    assert output.refusal is None and output.error is not None and output.problem is not None
    assert output.problem.kind == "incomplete" and output.error.endswith(call.text[:150])
    assert type(output.run_error).__name__ == "UnexpectedModelBehavior"
    assert events and all(type(value) is partial_twin(Arguments) for value in events)


def test_a_long_text_output_is_copied_in_linear_time(backend: ModuleType) -> None:
    """A text output's value is a new string only as often as the text pays for: its copies add up to a few times
    its length, not to its length times the number of pieces. (Events in their dict form, with no
    ``FinalResultEvent``: a text output type's text is the output as it starts.)"""
    text = "".join(call.text for call in SAMPLE) * 40
    pieces = [text[start : start + 10] for start in range(0, len(text), 10)]
    events: list[Any] = [{"event_kind": "part_start", "index": 0, "part": {"part_kind": "text", "content": ""}}]
    events += [
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "text", "content_delta": piece}}
        for piece in pieces
    ]
    events.append({"event_kind": "part_end", "index": 0, "part": {"part_kind": "text", "content": text}})
    output, values = read(events, str, backend)
    assert output.result is not None and output.result.value == text and values[-1] is output.result.value
    assert all(text.startswith(value) for value in values)
    assert len(values) < len(pieces) / 10 and sum(len(value) for value in values) < 20 * len(text)


def test_arguments_given_as_dicts_are_merged(backend: ModuleType) -> None:
    """A provider that gives an output tool's arguments as dicts: pydantic-ai merges each into the dict so far."""
    first, second = SAMPLE[2].arguments, {"extra": [1, 2]}
    events: list[Any] = [
        {"event_kind": "part_start", "index": 0, "part": {"part_kind": "tool-call", "tool_name": "final_result"}},
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "args_delta": first}},
        {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call", "args_delta": second}},
    ]
    output, values = read(events, Arguments, backend)
    assert output.error is None and output.result is not None
    assert output.result.value.model_dump() == {**first, **second}


# --- coerce=True: what models write, read as the schema says ----------------------------------------------------


class Reading(BaseModel):
    """A schema a model answers loosely: a number as a string, one tag where a list is asked for."""

    days: int
    tags: list[str]


def test_coerce_reads_a_loose_answer_as_the_schema_says_and_names_the_repairs(backend: ModuleType) -> None:
    # pydantic-ai itself rejects the answer (a string is no list): its run ends with UnexpectedModelBehavior after the
    # model's response, whose events are kept.
    from pydantic_ai.exceptions import UnexpectedModelBehavior

    agent = Case(NativeOutput(Reading), [[Text('{"days": "30", "tags": "home"}')]] * 3, seed=5).agent()
    events: list[Any] = []

    async def run() -> None:
        async with agent.run_stream_events("go") as stream:
            async for event in stream:
                events.append(event)

    with pytest.raises(UnexpectedModelBehavior):
        asyncio.run(run())
    output = PydanticAIStructuredOutput(NativeOutput(Reading), parser_class=backend.StreamingJsonParser, coerce=True)
    values = list(output.stream(events))
    assert output.error is None and values[-1] == Reading(days=30, tags=["home"])
    repairs = {tuple(path): kind for path, kind in output.model_result.repairs}
    assert repairs == {("days",): "string_to_int", ("tags",): "single_to_list"}
    strict = PydanticAIStructuredOutput(NativeOutput(Reading), parser_class=backend.StreamingJsonParser)
    list(strict.stream(events))
    assert strict.error is not None  # without coerce=, the same answer is invalid
