"""Live tool calls and structured output from the stream events of LLM SDKs.

One accumulator per API and purpose turns stream events into live values:

- tool calls, as :class:`LiveToolCall` objects, one :class:`~streaming_json.ToolCallArgumentsStream` per call:
  :class:`OpenAIChatToolCalls` (Chat Completions chunks, ``choices[].delta.tool_calls[]``, also of the many providers
  that speak the same protocol), :class:`OpenAIResponsesToolCalls` (``response.function_call_arguments.delta`` ...),
  :class:`AnthropicToolCalls` (``content_block_delta`` with ``input_json_delta`` ...), :class:`GeminiToolCalls`
  (``function_call``: whole ``args``, or ``partial_args`` at JSON paths), :class:`BedrockToolCalls` (Converse's
  ``contentBlockDelta.delta.toolUse``), :class:`CohereToolCalls` (``tool-call-delta``), :class:`OllamaToolCalls`
  (Ollama's native ``/api/chat``: whole calls in ``message.tool_calls``);
- structured output, as partial values, then one strict parse: :class:`OpenAIChatStructuredOutput`
  (``delta.content``), :class:`OpenAIResponsesStructuredOutput` (``response.output_text.delta``),
  :class:`AnthropicStructuredOutput` (``text_delta``), :class:`GeminiStructuredOutput` (text parts),
  :class:`BedrockStructuredOutput` (``delta.text``), :class:`CohereStructuredOutput` (``content-delta``);
  ``model=`` gives typed values (``streaming_json.pydantic``);
- frameworks: :class:`LangChainToolCalls` (LangChain's chunks, LangGraph's ``stream_mode="messages"``;
  LangChain's output parsers are in ``streaming_json.integrations.langchain``), :class:`PydanticAIToolCalls` and
  :class:`PydanticAIStructuredOutput` (pydantic-ai's stream events); openai-agents' events are Responses events.

Each takes the SDKs' event objects as well as plain dicts (as decoded from the server-sent events: :func:`sse_events`
reads a streaming response's bytes straight into them, the raw path, with no SDK object built), and imports no SDK.
``feed(event)`` reads one event; ``stream(events)`` and ``astream(events)`` read a whole stream, an SDK stream
manager (``client.messages.stream(...)``) or a plain ``create(..., stream=True)`` iterator; ``finish()`` ends what a
stream left open (``incomplete``: the API did not end it). Nothing raises mid-stream on malformed arguments or output
(the error comes with the end, and ``problem`` says what a program can act on), nor on
an event of any other shape: a field of the wrong type reads as absent::

    tool_calls = AnthropicToolCalls()
    for call in tool_calls.stream(client.messages.create(..., stream=True)):
        show(call.name, call.arguments)  # partial arguments while the call streams, final ones when done
    for call in tool_calls.calls:
        if call.error is None:
            run(call.id, call.name, call.arguments)
        elif call.problem.kind == "incomplete":
            retry()  # cut off: the stream ended, or the provider stopped at its length limit
        else:
            answer(call.id, call.error)  # tell the model what was wrong with its arguments
"""

from __future__ import annotations

from ._sse import ServerSentEvents, sse_events
from ._structured_output import StructuredOutputResult
from ._tool_calls import ArgumentsStream, LiveToolCall, RepairKind
from .anthropic import AnthropicStructuredOutput, AnthropicToolCalls
from .bedrock import BedrockStructuredOutput, BedrockToolCalls
from .cohere import CohereStructuredOutput, CohereToolCalls
from .gemini import GeminiStructuredOutput, GeminiToolCalls
from .langchain import LangChainToolCalls
from .ollama import OllamaToolCalls
from .openai_chat import OpenAIChatStructuredOutput, OpenAIChatToolCalls
from .openai_responses import OpenAIResponsesStructuredOutput, OpenAIResponsesToolCalls
from .pydantic_ai import PydanticAIStructuredOutput, PydanticAIToolCalls

__all__ = [
    "ArgumentsStream",
    "LiveToolCall",
    "RepairKind",
    "StructuredOutputResult",
    "OpenAIChatToolCalls",
    "OpenAIResponsesToolCalls",
    "AnthropicToolCalls",
    "GeminiToolCalls",
    "BedrockToolCalls",
    "CohereToolCalls",
    "OllamaToolCalls",
    "OpenAIChatStructuredOutput",
    "OpenAIResponsesStructuredOutput",
    "AnthropicStructuredOutput",
    "GeminiStructuredOutput",
    "BedrockStructuredOutput",
    "CohereStructuredOutput",
    "sse_events",
    "ServerSentEvents",
    "LangChainToolCalls",
    "PydanticAIToolCalls",
    "PydanticAIStructuredOutput",
]
