"""Typed tool calls (issue 11): the adapters' ``models={tool name: type}`` give a call ``parsed``, the typed partial
value while it streams, the validated instance once done, or None with ``error`` set; calls to other tools, and the
plain ``arguments`` of typed ones, are as without ``models``. On every backend, every API, dicts and SDK models."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Literal, Optional

import pytest

pydantic = pytest.importorskip("pydantic", reason="typed streaming needs pydantic")

from streaming_json.integrations import (  # noqa: E402 - after the skip: the module imports pydantic lazily
    AnthropicToolCalls,
    OpenAIChatToolCalls,
    OpenAIResponsesToolCalls,
)

from .messages import not_valid_json  # noqa: E402
from .sdk_events import (  # noqa: E402
    Shaper,
    anthropic_models,
    arguments_delta,
    arguments_done,
    block_stop,
    chat_chunk,
    finish_choice,
    item_added,
    json_delta,
    numbered,
    openai_chat_models,
    openai_responses_models,
    shapes,
    tool_delta,
    tool_use_start,
)


class Weather(pydantic.BaseModel):
    city: str
    unit: Literal["celsius", "fahrenheit"] = "celsius"
    days: Optional[int] = None


MODELS = {"get_weather": Weather}
PIECES = ['{"city": "Par', 'is", "unit": "cel', 'sius", "days": ', "3}"]


def _chat(pieces: list[str], name: str = "get_weather") -> list[dict[str, Any]]:
    first, *rest = pieces
    return [
        chat_chunk(tool_delta(0, first, id="call_1", name=name)),
        *[chat_chunk(tool_delta(0, piece)) for piece in rest],
        chat_chunk(finish_choice()),
    ]


def _responses(pieces: list[str], name: str = "get_weather") -> list[dict[str, Any]]:
    return numbered(
        [
            item_added(0, "fc_1", "call_1", name),
            *[arguments_delta(0, "fc_1", piece) for piece in pieces],
            arguments_done(0, "fc_1", "".join(pieces)),
        ]
    )


def _anthropic(pieces: list[str], name: str = "get_weather") -> list[dict[str, Any]]:
    return [tool_use_start(0, "toolu_1", name), *[json_delta(0, piece) for piece in pieces], block_stop(0)]


APIS = {
    "openai-chat": (OpenAIChatToolCalls, _chat, openai_chat_models),
    "openai-responses": (OpenAIResponsesToolCalls, _responses, openai_responses_models),
    "anthropic": (AnthropicToolCalls, _anthropic, anthropic_models),
}


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("sdk", [False, True], ids=["dicts", "sdk-models"])
def test_a_typed_call_is_parsed_while_it_streams(backend: ModuleType, api: str, sdk: bool) -> None:
    accumulator_class, events_of, sdk_models = APIS[api]
    events = events_of(PIECES)
    if sdk:
        pytest.importorskip(api.split("-")[0], reason="the SDK is not installed")
        events = sdk_models(events)
    calls = accumulator_class(models=MODELS, parser_class=backend.StreamingJsonParser)
    seen = []
    for event in events:
        for call in calls.feed(event):
            seen.append((call.parsed, dict(call.arguments)))
    (call,) = calls.calls
    assert call.done and call.error is None
    assert isinstance(call.parsed, Weather) and call.parsed == Weather(city="Paris", unit="celsius", days=3)
    assert call.arguments == {"city": "Paris", "unit": "celsius", "days": 3}  # the plain arguments, as without types
    partial, plain = seen[0] if seen[0][0] is not None else seen[1]
    assert partial.city == "Par" and partial.days is None and plain == {"city": "Par"}
    # A Literal appears only once complete and valid; a number only once it ends.
    assert all(value is None or value.unit in (None, "celsius") for value, _ in seen)
    assert all(value is None or value.days in (None, 3) for value, _ in seen)


@pytest.mark.parametrize("api", list(APIS))
def test_an_invalid_typed_call_has_no_parsed_value_and_an_error(backend: ModuleType, api: str) -> None:
    accumulator_class, events_of, _ = APIS[api]
    calls = accumulator_class(models=MODELS, parser_class=backend.StreamingJsonParser)
    text = '{"city": "Oslo", "unit": "kelvin"}'
    for event in events_of([text]):
        calls.feed(event)
    (call,) = calls.calls
    assert call.done and call.parsed is None
    assert call.error is not None and call.error.endswith(f"Received arguments: {text}")
    assert call.error.startswith("The arguments do not match Weather (1 error):\n- unit: ")  # then pydantic's words
    assert call.arguments == {}  # as for malformed arguments: an error comes with no arguments to act on


@pytest.mark.parametrize("api", list(APIS))
def test_malformed_arguments_of_a_typed_call_report_the_parse_error(backend: ModuleType, api: str) -> None:
    accumulator_class, events_of, _ = APIS[api]
    calls = accumulator_class(models=MODELS, parser_class=backend.StreamingJsonParser)
    for event in events_of(['{"city": "Ber', "lin"]):
        calls.feed(event)
    (call,) = calls.calls
    assert call.done and call.parsed is None and call.arguments == {}
    assert call.error == not_valid_json('{"city": "Berlin')


@pytest.mark.parametrize("api", list(APIS))
def test_calls_to_other_tools_are_untyped(backend: ModuleType, api: str) -> None:
    accumulator_class, events_of, _ = APIS[api]
    calls = accumulator_class(models=MODELS, parser_class=backend.StreamingJsonParser)
    for event in events_of(['{"q": "x"}'], name="search"):
        calls.feed(event)
    (call,) = calls.calls
    assert call.parsed is None and call.error is None and call.arguments == {"q": "x"}


def test_a_name_that_arrives_late_types_the_call_with_its_text_so_far(backend: ModuleType) -> None:
    calls = OpenAIChatToolCalls(models=MODELS, parser_class=backend.StreamingJsonParser)
    calls.feed(chat_chunk(tool_delta(0, '{"city": "Ro', id="call_1")))  # some providers send the name later
    (call,) = calls.calls
    assert call.parsed is None
    late_name = chat_chunk(tool_delta(0, "me"))
    late_name["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = "get_weather"
    calls.feed(late_name)
    assert call.parsed is not None and call.parsed.city == "Rome"
    calls.feed(chat_chunk(tool_delta(0, '"}')))
    calls.feed(chat_chunk(finish_choice()))
    assert call.parsed == Weather(city="Rome")


@shapes(openai_chat_models)
def test_blank_arguments_validate_as_an_empty_object(backend: ModuleType, shape: Shaper) -> None:
    class NoArguments(pydantic.BaseModel):
        pass

    calls = OpenAIChatToolCalls(models={"ping": NoArguments}, parser_class=backend.StreamingJsonParser)
    for event in shape([chat_chunk(tool_delta(0, "", id="call_1", name="ping")), chat_chunk(finish_choice())]):
        calls.feed(event)
    (call,) = calls.calls
    assert call.error is None and call.parsed == NoArguments() and call.arguments == {}
