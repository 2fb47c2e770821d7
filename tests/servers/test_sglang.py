"""Our SGLang detectors, registered into SGLang's ``FunctionCallParser.ToolCallParserEnum`` and driven by SGLang's
own ``FunctionCallParser`` as its chat server drives it (``parse_stream_chunk`` per delta, ``parse_stream_end`` at
the end), on the real corpus in every format and cut (the text formats' values typed by the request's schemas): each
call's name once, then its argument text verbatim, the content exact, the calls in order (issue 20's invariants),
and the state SGLang's end-of-stream check reads leaves it nothing to send."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from streaming_json.model_output import FORMATS
from streaming_json.model_output.sglang import DETECTORS, register

from .outputs import ALL_FORMAT_NAMES, CUTS, Output, any_object_tools, deltas, outputs

register()


def tools(output: Output) -> list[Any]:
    return [Tool.model_validate(tool) for tool in output.tools or any_object_tools()]


def test_register_adds_a_detector_for_every_format() -> None:
    assert {name for name in FunctionCallParser.ToolCallParserEnum if name.startswith("streaming_json_")} == {
        "streaming_json_" + name for name in FORMATS
    }
    assert all(DETECTORS["streaming_json_" + name].format is FORMATS[name] for name in FORMATS)


def stream(output: Output, cut: str, seed: int) -> tuple[str, list[tuple[str, str]], Any]:
    """The output through SGLang's FunctionCallParser over our detector: the content and calls a client gets."""
    parser = FunctionCallParser(tools(output), "streaming_json_" + output.format_name)
    content: list[str] = []
    calls: list[list[str]] = []
    results = [parser.parse_stream_chunk(text) for text, _ in deltas(output.text, cut, seed)]
    results.append(parser.parse_stream_end())
    for normal_text, items in results:
        content.append(normal_text)
        for item in items:
            if item.name:
                assert item.tool_index == len(calls), "a call started out of order, or twice"
                calls.append([item.name, item.parameters])
            else:
                assert item.tool_index == len(calls) - 1, "arguments for a call that is not the latest"
                calls[item.tool_index][1] += item.parameters
    return "".join(content), [(name, arguments) for name, arguments in calls], parser.detector


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("format_name", ALL_FORMAT_NAMES)
def test_real_calls_through_sglangs_function_call_parser(format_name: str, cut: str) -> None:
    every, longest = (8, 3000) if cut == "characters" else (1, 10**9)
    for number, output in enumerate(outputs(format_name, every=every, longest=longest)):
        content, calls, detector = stream(output, cut, number)
        assert calls == [(name, arguments) for _, name, arguments in output.calls]
        assert content == output.content
        # SGLang's _check_for_unstreamed_tool_args sends the last call's expected arguments past what was
        # streamed: the two are the same text here, so it sends nothing.
        last = len(calls) - 1
        assert detector.prev_tool_call_arr[last]["arguments"] == detector.streamed_args_for_tool[last]
        assert detector.streamed_args_for_tool[last] == calls[last][1]


def test_non_streaming_reads_what_streaming_sends() -> None:
    for format_name in ALL_FORMAT_NAMES:
        for output in outputs(format_name, every=10):
            parser = FunctionCallParser(tools(output), "streaming_json_" + format_name)
            content, items = parser.parse_non_stream(output.text)
            assert [(item.name, item.parameters) for item in items] == [(n, a) for _, n, a in output.calls]
            names = [tool["function"]["name"] for tool in output.tools or any_object_tools()]
            assert all(item.tool_index == names.index(item.name) for item in items)
            assert content == output.content


def test_the_requests_schemas_type_the_text_formats_values() -> None:
    """A typed format's values take their types from the request's tools' schemas."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    typed = [Tool.model_validate({"type": "function", "function": {"name": "f", "parameters": schema}})]
    text = "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n<parameter=s>\n5\n</parameter>\n</function>\n"
    result = FunctionCallParser(typed, "streaming_json_qwen3_coder").parse_non_stream(text + "</tool_call>")
    assert [json.loads(call.parameters) for call in result[1]] == [{"n": 5, "s": "5"}]
