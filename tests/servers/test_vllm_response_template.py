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
