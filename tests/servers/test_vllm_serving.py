"""Our vLLM parsers driven by vLLM's own serving code, on the real corpus in every format and cut: the plugin file
loaded as vLLM's CLI loads it; ``DelegatingParser`` (the class ``ParserManager.get_parser`` composes) over our parser
and our reasoning parser, stepped by the chat stream processor (``parse_delta`` per delta, ``finalize_generation`` and
the engine flush at the end); the chat server's stream generator on a scripted engine output, read by the openai
client; the non-streaming path; ``adjust_request``. What the client reconstructs is the model's calls and content
exactly: nothing extra, nothing duplicated (vLLM's own ``StreamingToolReconstructor`` asserts each id and name once,
the indices in order)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from typing import Any, Optional

import httpx
import openai
import pytest
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager

from streaming_json.model_output import vllm as ours

from .outputs import ALL_FORMAT_NAMES, CUTS, Output, any_object_tools, deltas, outputs, tokenizer
from .sdists import unpacked_sdist
from .vllm_own_tests import VLLM_VERSION


def reconstructor_class() -> Any:
    """vLLM's own ``StreamingToolReconstructor``, from its sdist's test utilities."""
    path = unpacked_sdist("vllm", VLLM_VERSION) / "tests" / "tool_parsers" / "utils.py"
    spec = importlib.util.spec_from_file_location("vllm_tests_tool_parsers_utils", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StreamingToolReconstructor


StreamingToolReconstructor = reconstructor_class()


def request_for(stream: bool = True, tools: tuple[dict[str, Any], ...] = ()) -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "Go."}],
        tools=list(tools or any_object_tools()),
        tool_choice="auto",
        stream=stream,
    )


def parser_class(format_name: str, reasoning: bool = False) -> Any:
    return ParserManager.get_parser(
        tool_parser_name=ours.PREFIX + format_name,
        reasoning_parser_name=ours.THINK_PARSER_NAME if reasoning else None,
        enable_auto_tools=True,
        tokenizer=tokenizer(),
    )


def serve(
    output: Output, cut: str, seed: int, reasoning: bool = False, prompt: Optional[list[int]] = None
) -> tuple[Any, list[Any], Optional[str]]:
    """The output through vLLM's chat stream processor over our parser, as its chat server steps it: the client's
    reconstruction (vLLM's), the deltas sent, and the finish reason."""
    request = request_for(tools=output.tools)
    parser_cls = parser_class(output.format_name, reasoning)
    processor = ChatStreamProcessor(
        request, parser_cls(tokenizer(), request.tools), enable_auto_tools=True, parser_cls=parser_cls
    )
    pieces = deltas(output.text, cut, seed)
    sent, finish = [], None
    reconstructor = StreamingToolReconstructor(assert_one_tool_per_delta=False)
    for number, (text, ids) in enumerate(pieces):
        last = number == len(pieces) - 1
        step = processor.step(text, ids, "stop" if last else None, prompt or [1, 2, 3] if number == 0 else None)
        if step.delta is not None:
            sent.append(step.delta)
            if step.delta.content is not None or step.delta.tool_calls:
                reconstructor.append_delta(step.delta)
        finish = step.finish_reason
    return reconstructor, sent, finish


def check(output: Output, reconstructor: Any, sent: list[Any], finish: Optional[str]) -> None:
    calls = [(call.id, call.function.name, call.function.arguments) for call in reconstructor.tool_calls]
    assert [(name, arguments) for _, name, arguments in calls] == [(n, a) for _, n, a in output.calls]
    for (own, _, _), (call_id, _, _) in zip(output.calls, calls):
        assert call_id == own if own else call_id.startswith("chatcmpl-tool-")
    assert len({call_id for call_id, _, _ in calls}) == len(calls)
    assert reconstructor.other_content == output.content
    assert "".join(delta.reasoning or "" for delta in sent) == output.think
    assert finish == ("tool_calls" if output.calls else "stop")


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_real_calls_through_vllms_serving_layer(format_name: str, cut: str) -> None:
    every, longest = (8, 3000) if cut == "characters" else (1, 10**9)
    for number, output in enumerate(outputs(format_name, every=every, longest=longest)):
        check(output, *serve(output, cut, number))


@pytest.mark.parametrize("cut", ["tokens", "characters", "whole"])
@pytest.mark.parametrize("format_name", ["hermes", "deepseek_v31", "kimi_k2"])
def test_reasoning_then_calls_with_our_reasoning_parser(format_name: str, cut: str) -> None:
    for number, output in enumerate(outputs(format_name, every=16, think=True)):
        check(output, *serve(output, cut, number, reasoning=True))


def test_reasoning_opened_by_the_prompt() -> None:
    """DeepSeek R1's template opens the block: the output starts inside it (the prompt ends with <think>)."""
    (output,) = outputs("deepseek_v3", every=10**6, think=True)
    text = output.text.replace("<think>", "", 1)
    opened = Output(output.format_name, text, output.think, output.content, output.calls)
    prompt = tokenizer().encode("User: go.<think>", add_special_tokens=False)
    check(opened, *serve(opened, "tokens", 0, reasoning=True, prompt=prompt))


def test_the_end_of_stream_patch_sends_nothing_extra() -> None:
    """vLLM's finalize_generation appends the parser's get_remaining_unstreamed_args() to the last delta, from a
    re-serialisation of the parsed arguments: verbatim arguments (compact, escaped) stay verbatim, and the last
    delta, which ends the call, carries nothing more."""
    arguments = '{"x":1,"s":"caf\\u00e9"}'
    output = Output(
        "llama3_json", '{"name": "read", "parameters": ' + arguments + "}", "", "", (("", "read", arguments),)
    )
    reconstructor, sent, finish = serve(output, "tokens", 0)
    check(output, reconstructor, sent, finish)
    assert sent[-1].tool_calls and sent[-1].tool_calls[-1].function.arguments.endswith("}")


def test_non_streaming_reads_what_streaming_sends() -> None:
    for format_name in ALL_FORMAT_NAMES:
        for output in outputs(format_name, every=10):
            request = request_for(stream=False, tools=output.tools)
            parser = parser_class(format_name)(tokenizer(), request.tools)
            reasoning, content, calls = parser.parse(output.text, request, enable_auto_tools=True)
            assert [(call.name, call.arguments) for call in calls or []] == [(n, a) for _, n, a in output.calls]
            assert (content or "") == (output.content if output.content.strip() else "")


def test_adjust_request_keeps_special_tokens_where_markers_are_special() -> None:
    """Through DelegatingParser.adjust_request, as the server calls it before generating."""

    def adjusted(tokenizer: Any, tool_choice: str = "auto") -> Any:
        request = request_for()
        request.skip_special_tokens = True
        request.tool_choice = tool_choice
        return parser_class("kimi_k2")(tokenizer, request.tools).adjust_request(request).skip_special_tokens

    assert adjusted(tokenizer()) is False
    assert adjusted(_plain_tokenizer()) is True
    assert adjusted(tokenizer(), "none") is True


def _plain_tokenizer() -> Any:
    """A tokenizer whose vocabulary holds none of the markers as special tokens."""
    from .local_tokenizer import make_tokenizer

    return make_tokenizer(["plain text only"], markers=["<|endoftext|>"], vocab_size=300)


# --- The chat server's stream generator, read by the openai client ---------------------------------------------


class _Renderer:
    tokenizer = None


def serving_chat(format_name: str) -> Any:
    """vLLM's OpenAIServingChat as its server builds one for `--enable-auto-tool-choice --tool-call-parser
    streaming_json_FORMAT`, without an engine: only its stream generator runs (on a scripted engine output)."""
    from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat

    chat = object.__new__(OpenAIServingChat)
    chat.parser_cls = parser_class(format_name)
    chat.enable_auto_tools = True
    chat.response_role = "assistant"
    chat.enable_force_include_usage = False
    chat._include_reasoning_tokens_details = False
    chat.enable_log_outputs = False
    chat.request_logger = None
    chat.enable_prompt_tokens_details = False
    chat.enable_per_request_metrics = False
    chat.system_fingerprint = None
    chat.model_config = None
    return chat


async def _engine_outputs(pieces: list[tuple[str, list[int]]]) -> Any:
    from vllm.outputs import CompletionOutput, RequestOutput

    for number, (text, ids) in enumerate(pieces):
        last = number == len(pieces) - 1
        output = CompletionOutput(
            index=0,
            text=text,
            token_ids=ids,
            cumulative_logprob=None,
            logprobs=None,
            finish_reason="stop" if last else None,
        )
        yield RequestOutput(
            request_id="r",
            prompt="p",
            prompt_token_ids=[1, 2, 3],
            prompt_logprobs=None,
            outputs=[output],
            finished=last,
        )


def sse_of(output: Output, cut: str, seed: int) -> bytes:
    from vllm.entrypoints.openai.chat_completion.serving import RequestResponseMetadata

    chat = serving_chat(output.format_name)
    request = request_for()
    metadata = RequestResponseMetadata(request_id="chatcmpl-1")

    async def frames() -> list[str]:
        generator = chat.chat_completion_stream_generator(
            request, _engine_outputs(deltas(output.text, cut, seed)), "chatcmpl-1", "m", [], tokenizer(), metadata
        )
        return [frame async for frame in generator]

    return "".join(asyncio.run(frames())).encode()


@pytest.mark.parametrize("cut", ["tokens", "wide"])
@pytest.mark.parametrize("format_name", ["hermes", "llama3_json", "kimi_k2", "deepseek_v3"])
def test_the_chat_servers_stream_read_by_the_openai_client(format_name: str, cut: str) -> None:
    for number, output in enumerate(outputs(format_name, every=40)):
        body = sse_of(output, cut, number)
        transport = httpx.MockTransport(
            lambda request, body=body: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
        )
        client = openai.OpenAI(
            api_key="x", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport)
        )
        content, calls, finish = "", {}, None
        for chunk in client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Go."}], stream=True
        ):
            for choice in chunk.choices:
                content += choice.delta.content or ""
                for call in choice.delta.tool_calls or ():
                    entry = calls.setdefault(call.index, {"id": None, "name": None, "arguments": ""})
                    if call.id is not None:
                        assert entry["id"] is None, "a call's id sent twice"
                        entry["id"] = call.id
                    if call.function is not None and call.function.name:
                        assert entry["name"] is None, "a call's name sent twice"
                        entry["name"] = call.function.name
                    if call.function is not None and call.function.arguments:
                        entry["arguments"] += call.function.arguments
                finish = choice.finish_reason or finish
        assert [(c["name"], c["arguments"]) for _, c in sorted(calls.items())] == [(n, a) for _, n, a in output.calls]
        assert content == output.content
        assert finish == ("tool_calls" if output.calls else "stop")
        for value in calls.values():
            json.loads(value["arguments"])


# --- The plugin, loaded as vLLM's CLI loads it ------------------------------------------------------------------

LOAD_AS_THE_CLI_DOES = """
import sys
from vllm.entrypoints.common.cli_args import init_parser_plugin, make_arg_parser, validate_api_server_args
from vllm.utils.argparse_utils import FlexibleArgumentParser

plugin = sys.argv[1]
args = make_arg_parser(FlexibleArgumentParser()).parse_args([
    "--enable-auto-tool-choice",
    "--tool-parser-plugin", plugin,
    "--tool-call-parser", "streaming_json_hermes",
    "--reasoning-parser-plugin", plugin,
    "--reasoning-parser", "streaming_json_think",
])
assert "streaming_json" not in sys.modules
init_parser_plugin(args)
validate_api_server_args(args)
from vllm.tool_parsers import ToolParserManager
from vllm.reasoning import ReasoningParserManager
import vllm
assert vllm.__file__.endswith("vllm/__init__.py"), vllm.__file__  # the plugin did not take vLLM's place
print(ToolParserManager.get_tool_parser("streaming_json_hermes").__module__)
print(ReasoningParserManager.get_reasoning_parser("streaming_json_think").__name__)
"""


def test_the_plugin_file_loads_as_vllms_cli_loads_it() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "streaming_json.model_output.vllm", "--plugin-path"],
        capture_output=True,
        text=True,
        check=True,
    )
    plugin = printed.stdout.strip().splitlines()[-1]
    # vLLM's CLI builds its engine's arguments too, which need a device: this machine has no GPU.
    environment = {**os.environ, "VLLM_TARGET_DEVICE": "cpu"}
    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_AS_THE_CLI_DOES, plugin],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert loaded.stdout.split() == ["streaming_json.model_output.vllm", "StreamingJsonThinkReasoningParser"]


def test_the_requests_schemas_type_the_text_formats_values() -> None:
    """A typed format's values take their types from the request's tools' schemas (streaming and whole), and are
    strings where the tool's schema says nothing of them."""
    text = "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n<parameter=s>\n5\n</parameter>\n</function>\n"
    for properties, expected in (({"n": {"type": "integer"}, "s": {"type": "string"}}, 5), ({}, "5")):
        tool = {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": properties}},
        }
        request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=[tool])
        parser = ours.TOOL_PARSERS["qwen3_coder"](tokenizer())  # the tools come with the request
        result = parser.extract_tool_calls(text + "</tool_call>", request)
        assert [json.loads(call.function.arguments) for call in result.tool_calls] == [{"n": expected, "s": "5"}]
        streamed = []
        for piece in text + "</tool_call>":
            delta = parser.extract_tool_calls_streaming("", "", piece, [], [], [], request)
            streamed += [call.function.arguments or "" for call in (delta.tool_calls if delta else [])]
        assert json.loads("".join(streamed)) == {"n": expected, "s": "5"}
