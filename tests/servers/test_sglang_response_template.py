"""``streaming_json_hf`` in SGLang (issue 43): a detector for a checkpoint's ``response_template`` (read from the
tokenizer that carries it), registered into SGLang's ``FunctionCallParser`` and driven by it on the real calls as
Qwen 2/3 write them: the same calls and content, each call's arguments in several increments."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from streaming_json.model_output.sglang import HF_DETECTOR_NAME, register_response_template

from .outputs import any_object_tools, deltas, outputs, tokenizer

serving = pytest.importorskip("transformers.cli.serving.utils")
QWEN2 = next(template for types, template in serving._RESPONSE_TEMPLATE_FALLBACKS.items() if "qwen2" in types)


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The detector of a tokenizer carrying Qwen 2/3's template, registered for this test only."""
    carrying = copy.copy(tokenizer())
    carrying.response_template = QWEN2
    monkeypatch.setattr(FunctionCallParser, "ToolCallParserEnum", dict(FunctionCallParser.ToolCallParserEnum))
    return register_response_template(carrying)


def test_a_checkpoints_template_streams_through_sglangs_function_call_parser(registered: Any) -> None:
    assert FunctionCallParser.ToolCallParserEnum[HF_DETECTOR_NAME] is registered
    assert registered.format.call_begin == "<tool_call>"
    streamed = 0
    for number, output in enumerate(outputs("hermes", every=20)):
        parser = FunctionCallParser([Tool.model_validate(tool) for tool in any_object_tools()], HF_DETECTOR_NAME)
        content: list[str] = []
        calls: list[list[Any]] = []
        results = [parser.parse_stream_chunk(text) for text, _ in deltas(output.text, "tokens", number)]
        results.append(parser.parse_stream_end())
        for normal_text, items in results:
            content.append(normal_text)
            for item in items:
                if item.name:
                    calls.append([item.name, [item.parameters] if item.parameters else []])
                elif item.parameters:
                    calls[item.tool_index][1].append(item.parameters)
        assert [(name, "".join(parts)) for name, parts in calls] == [(n, a) for _, n, a in output.calls]
        assert "".join(content) == output.content
        streamed += sum(len(parts) > 1 for _, parts in calls)
    assert streamed > 10


def test_a_template_that_cannot_stream_is_refused() -> None:
    template = copy.deepcopy(QWEN2)
    template["fields"]["tool_calls"]["content"] = "kv-lines"
    with pytest.raises(ValueError, match="field 'tool_calls'"):
        register_response_template(template)
