"""``streaming_json_hf`` (issue 43): our vLLM tool and reasoning parsers that read the served checkpoint's
``response_template`` from its tokenizer, driven by vLLM's chat server's stream generator on a scripted engine
output and read by the openai client, as the other parsers are: the real calls written as Qwen 2/3 write them
(transformers' fallback template for them on the tokenizer), reasoning first, in token deltas; each call's arguments
arrive in several deltas, before the call's end."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import httpx
import openai
import pytest
from vllm.parser.parser_manager import ParserManager

from streaming_json.model_output import vllm as ours

from . import vllm_own_tests
from .outputs import deltas, outputs, tokenizer
from .test_vllm_serving import _engine_outputs, request_for, serving_chat

serving = pytest.importorskip("transformers.cli.serving.utils")
QWEN2 = next(template for types, template in serving._RESPONSE_TEMPLATE_FALLBACKS.items() if "qwen2" in types)


def checkpoint_tokenizer() -> Any:
    """The tokenizer of a checkpoint that ships a response_template (Qwen 2/3's)."""
    carrying = copy.copy(tokenizer())
    carrying.response_template = QWEN2
    return carrying


def sse_of(text: str, cut: str, seed: int, carrying: Any) -> bytes:
    from vllm.entrypoints.openai.chat_completion.serving import RequestResponseMetadata

    chat = serving_chat("hermes")
    chat.parser_cls = ParserManager.get_parser(
        tool_parser_name=ours.HF_PARSER_NAME,
        reasoning_parser_name=ours.HF_PARSER_NAME,
        enable_auto_tools=True,
        tokenizer=carrying,
    )
    request = request_for()
    metadata = RequestResponseMetadata(request_id="chatcmpl-1")

    async def frames() -> list[str]:
        generator = chat.chat_completion_stream_generator(
            request, _engine_outputs(deltas(text, cut, seed)), "chatcmpl-1", "m", [], carrying, metadata
        )
        return [frame async for frame in generator]

    return "".join(asyncio.run(frames())).encode()


def test_the_parsers_are_registered_by_name() -> None:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    assert ToolParserManager.get_tool_parser("streaming_json_hf") is ours.StreamingJsonHfToolParser
    assert ReasoningParserManager.get_reasoning_parser("streaming_json_hf") is ours.StreamingJsonHfReasoningParser
    parser = ours.StreamingJsonHfToolParser(checkpoint_tokenizer())
    assert (parser.format.call_begin, parser.format.call_end) == ("<tool_call>", "</tool_call>")
    with pytest.raises(ValueError, match="response_template"):
        ours.StreamingJsonHfToolParser(tokenizer())


@pytest.mark.parametrize("cut", ["tokens", "wide"])
def test_a_checkpoints_template_streams_through_vllms_chat_server(cut: str) -> None:
    carrying = checkpoint_tokenizer()
    streamed_before_the_end = 0
    for number, output in enumerate(outputs("hermes", every=40, think=True)):
        body = sse_of(output.text, cut, number, carrying)
        transport = httpx.MockTransport(
            lambda request, body=body: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
        )
        client = openai.OpenAI(
            api_key="x", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport)
        )
        content, reasoning, calls, finish = "", "", {}, None
        for chunk in client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Go."}], stream=True
        ):
            for choice in chunk.choices:
                content += choice.delta.content or ""
                reasoning += getattr(choice.delta, "reasoning", None) or ""
                for call in choice.delta.tool_calls or ():
                    entry = calls.setdefault(call.index, {"name": None, "arguments": [], "done": False})
                    if call.function is not None and call.function.name:
                        assert entry["name"] is None, "a call's name sent twice"
                        entry["name"] = call.function.name
                    if call.function is not None and call.function.arguments:
                        entry["arguments"].append(call.function.arguments)
                finish = choice.finish_reason or finish
        got = [(c["name"], "".join(c["arguments"])) for _, c in sorted(calls.items())]
        assert got == [(name, arguments) for _, name, arguments in output.calls]
        assert content == output.content
        assert reasoning == output.think
        assert finish == ("tool_calls" if output.calls else "stop")
        for value in calls.values():
            json.loads("".join(value["arguments"]))
            streamed_before_the_end += len(value["arguments"]) > 1
    if cut == "tokens":
        assert streamed_before_the_end > 10  # arguments in several deltas: streamed, not sent whole at the close


# vLLM's own tests of its hf parsers (tests/parser/test_response_template.py of its sdist), run as vllm_own_tests.py
# runs the formats' tests: with vLLM's parsers, and with streaming_json_hf in place.
TEMPLATE_TESTS = vllm_own_tests.TEMPLATE_FILES["hf"]


@pytest.fixture(scope="module")
def template_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("vllm-template-tests")
    return {
        parsers: vllm_own_tests.run(parsers, TEMPLATE_TESTS, folder / f"{parsers}.json", "tests/parser")
        for parsers in ("theirs", "ours")
    }


def test_vllms_own_template_tests_pass_with_its_hf_parser(template_runs: dict[str, dict[str, dict[str, Any]]]) -> None:
    theirs = template_runs["theirs"]
    assert len(theirs) >= 70
    assert {test: entry["outcome"] for test, entry in theirs.items() if entry["outcome"] != "passed"} == {}


def test_every_output_vllms_hf_parser_reads_ours_reads_the_same(
    template_runs: dict[str, dict[str, dict[str, Any]]],
) -> None:
    """Each ResponseParser read of vLLM's hf parser with a template we compile, read by our drop-in at every split:
    the same message, but where READS_DIFFER says why not; the templates we refuse are READS_REFUSED's."""
    reads = {test: entry["reads"] for test, entry in template_runs["theirs"].items() if "reads" in entry}
    assert sum(read["compared"] for read in reads.values()) >= 30
    differ = {test for test, read in reads.items() if read["mismatches"]}
    listed = {test for test in reads if vllm_own_tests.listed_in(test, vllm_own_tests.READS_DIFFER)}
    assert differ - listed == set(), {test: reads[test]["mismatches"][:1] for test in differ - listed}
    assert listed - differ == set(), "listed as read otherwise by ours, but read the same now"
    unknown = [key for key in vllm_own_tests.READS_DIFFER if not any(test.startswith(key) for test in reads)]
    assert not unknown, f"listed, but no test of vLLM's read an output there: {unknown}"
    refused = {name: feature for read in reads.values() for name, feature in read["refused"].items()}
    assert refused == vllm_own_tests.READS_REFUSED


def test_vllms_own_template_tests_pass_with_streaming_json_hf_in_place(
    template_runs: dict[str, dict[str, dict[str, Any]]],
) -> None:
    theirs, ours = template_runs["theirs"], template_runs["ours"]
    vllm_own_tests.check_ours_in_place(theirs, ours, TEMPLATE_TESTS, "hf")
    # A template ours refuses fails the test with the refusal naming the field and the feature.
    for test, feature in vllm_own_tests.TEMPLATE_REFUSED.items():
        field, _, what = feature.partition(": ")
        assert ours[test]["outcome"] == "failed"
        assert f"response_template field '{field}': {what} cannot be streamed" in ours[test]["message"], test
    print()
    print(vllm_own_tests.table(theirs, ours, {"hf": TEMPLATE_TESTS}))


# ERNIE 4.5's template (transformers' response-parsing tests' fixture): its reasoning opens at the start of the text,
# its answer between markers of its own.
ERNIE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "Assistant:",
    "fields": {
        "thinking": {"open_pattern": r"(?:^|<think>\s*)", "close": "</think>", "content": "text"},
        "content": {"open": "<response>\n", "close_pattern": r"\n?</response>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
    },
}


def test_the_reasoning_parser_opens_the_block_at_the_start_and_ends_it_at_the_contents_opener() -> None:
    carrying = copy.copy(tokenizer())
    carrying.response_template = ERNIE

    def ids(text: str) -> list[int]:
        return list(carrying.encode(text, add_special_tokens=False))

    output = "The user greets me.</think>\n\n<response>\nHello!\n</response>"
    opened = ours.StreamingJsonHfReasoningParser(carrying)
    opened.adjust_initial_state_from_prompt(ids("User: Hi\nAssistant:"))
    assert opened.extract_reasoning(output, None) == ("The user greets me.", "\n\n<response>\nHello!\n</response>")
    closed = ours.StreamingJsonHfReasoningParser(carrying)
    closed.adjust_initial_state_from_prompt(ids("User: Hi\nAssistant: Done.</think>\n"))
    assert closed.extract_reasoning("<response>\nHi\n</response>", None) == (None, "<response>\nHi\n</response>")
    # Another field's opener at the output's very start: the block never opened (transformers takes the longer match).
    for text in ("<response>\nHello!\n</response>", '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'):
        answer = ours.StreamingJsonHfReasoningParser(carrying)
        answer.adjust_initial_state_from_prompt(ids("User: Hi\nAssistant:"))
        assert answer.extract_reasoning(text, None) == (None, text)
        pieces = [text[at : at + 3] for at in range(0, len(text), 3)]
        deltas = [answer.extract_reasoning_streaming("", "", piece, [], [], []) for piece in pieces]
        assert "".join(delta.content or "" for delta in deltas if delta is not None) == text
        assert not any(delta.reasoning for delta in deltas if delta is not None)
    # The block is over where the content's opener follows its begin, as where its end marker does.
    assert opened.is_reasoning_end(ids("Assistant:<think>Plan.\n<response>\nHi"))
    assert not opened.is_reasoning_end(ids("Assistant:<think>Plan."))


GEMMA4 = next(template for types, template in serving._RESPONSE_TEMPLATE_FALLBACKS.items() if "gemma4" in types)


def test_the_reasoning_parser_reads_the_assistants_message_the_prompt_holds() -> None:
    """As vLLM's hf parser: the prompt's text after the template's last start_anchor says whether reasoning is over
    (its last marker; text without one: the prompt began the answer; nothing: over only where thinking is off), and
    a begin marker the prompt began is completed by the output, the prompt's part never given out."""
    carrying = copy.copy(tokenizer())
    carrying.response_template = GEMMA4

    def ids(text: str) -> list[int]:
        return list(carrying.encode(text, add_special_tokens=False))

    turn = "<|turn>user\nHi<turn|>\n<|turn>model\n"
    parser = ours.StreamingJsonHfReasoningParser(carrying)
    assert not parser.is_reasoning_end(ids(turn))  # the output says: it may open the block
    assert not parser.is_reasoning_end(ids(turn + "<|channel>thought\nPlan."))
    assert parser.is_reasoning_end(ids(turn + "<|channel>thought\nPlan.<channel|>"))
    assert parser.is_reasoning_end(ids(turn + "The answer"))  # the prompt began the answer
    # A previous turn's block is not this message's.
    assert parser.is_reasoning_end(ids("<|turn>model\n<|channel>thought\nOld" + turn + "Sure"))
    off = ours.StreamingJsonHfReasoningParser(carrying, chat_template_kwargs={"enable_thinking": False})
    assert off.is_reasoning_end(ids(turn)) and not off.is_reasoning_end(ids(turn + "<|channel>thought\n"))
    for output, expected in [
        ("nel>thought\nreason<channel|>Hi", ("reason", "Hi")),
        ("nel", (None, "nel")),
        (" no", (None, " no")),
    ]:
        begun = ours.StreamingJsonHfReasoningParser(carrying)
        prompt = ids(turn + "<|chan")
        assert not begun.is_reasoning_end(prompt)
        begun.adjust_initial_state_from_prompt(prompt)
        reasoning, content = "", ""
        for piece in [*output, None]:
            delta = (
                begun.finish_streaming()
                if piece is None
                else begun.extract_reasoning_streaming("", "", piece, [], [], [])
            )
            if delta is not None:
                reasoning += delta.reasoning or ""
                content += delta.content or ""
        assert (reasoning or None, content or None) == expected, output


def test_tool_choice_none_gives_a_calls_text_back_as_content() -> None:
    """A request that reads no calls (tool_choice "none"): the output is content as written, a call's text too, as
    vLLM's hf parser gives it (vLLM's serving layer would otherwise strip the calls ours reads, and their text)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    text = 'Let me look.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    none = ChatCompletionRequest(messages=[], model="m", tools=tools, tool_choice="none")
    parser_class = ParserManager.get_parser(tool_parser_name=ours.HF_PARSER_NAME, enable_auto_tools=True)
    assert parser_class is not None
    parser = parser_class(checkpoint_tokenizer(), tools)
    streamed = [parser.parse_delta(char, [], none, finished=at == len(text) - 1) for at, char in enumerate(text)]
    assert "".join(delta.content or "" for delta in streamed if delta is not None) == text
    assert not any(delta.tool_calls for delta in streamed if delta is not None)
    assert parser_class(checkpoint_tokenizer(), tools).parse(text, none, enable_auto_tools=True)[1:] == (text, [])
    auto = none.model_copy(update={"tool_choice": "auto"})
    _, content, calls = parser_class(checkpoint_tokenizer(), tools).parse(text, auto, enable_auto_tools=True)
    assert content == "Let me look." and [call.name for call in calls or []] == ["get_weather"]
