"""Tool calls out of a model's raw output: what an inference server streams in OpenAI's shape, read in one pass.

An OpenAI-compatible server in front of an open model reads the text the model generates, token by token, such as
``Let me look.<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>``, and must stream the content,
and each tool call's name once and its arguments as text deltas that join to exactly the JSON the model wrote.
:class:`ModelOutputStream` does that for the formats of the main open model families (:data:`FORMATS`, or a
:class:`ToolCallFormat` of your own), reading each character once; for the formats that write arguments as text
(Qwen3-Coder, GLM, MiniMax, DeepSeek V3.2, Gemma 4, pythonic), it writes their JSON, typed by the tools'
schemas::

    stream = ModelOutputStream("hermes")
    for token in tokens:
        for delta in openai_chat_deltas(stream.feed(token)):
            send({"choices": [{"index": 0, "delta": delta}]})
    for delta in openai_chat_deltas(stream.finish()):
        send(...)

The events are :class:`ContentDelta`, :class:`ReasoningDelta`, :class:`ToolCallStart`, :class:`ArgumentsDelta` and
:class:`ToolCallEnd`; the renderers turn them into OpenAI Chat Completions deltas, Responses API events or Anthropic
Messages events.
"""

from __future__ import annotations

from ._events import ArgumentsDelta, ContentDelta, ModelOutputEvent, ReasoningDelta, ToolCallEnd, ToolCallStart
from ._formats import FORMATS, ChannelSyntax, LiteralSyntax, ParameterSyntax, ToolCallFormat
from ._renderers import AnthropicMessagesEvents, OpenAIResponsesEvents, openai_chat_deltas
from ._response_parser import ResponseParser, parse_response
from ._response_template import ResponseTemplate, compile_response_template, read_response_template
from ._stream import ModelOutputStream

__all__ = [
    "ModelOutputStream",
    "ToolCallFormat",
    "ParameterSyntax",
    "LiteralSyntax",
    "ChannelSyntax",
    "ResponseTemplate",
    "ResponseParser",
    "parse_response",
    "compile_response_template",
    "read_response_template",
    "FORMATS",
    "ModelOutputEvent",
    "ContentDelta",
    "ReasoningDelta",
    "ToolCallStart",
    "ArgumentsDelta",
    "ToolCallEnd",
    "openai_chat_deltas",
    "OpenAIResponsesEvents",
    "AnthropicMessagesEvents",
]
