"""Live tool-call arguments from the stream events of LLM SDKs.

One accumulator per API turns its stream events into :class:`LiveToolCall` objects, one
:class:`~streaming_json.ToolCallArgumentsStream` per call:

- :class:`OpenAIChatToolCalls`: OpenAI Chat Completions chunks (``choices[].delta.tool_calls[]``), also the chunks of
  the many providers that speak the same protocol;
- :class:`OpenAIResponsesToolCalls`: OpenAI Responses API events (``response.function_call_arguments.delta`` ...);
- :class:`AnthropicToolCalls`: Anthropic Messages events (``content_block_delta`` with ``input_json_delta`` ...).

Each takes the SDKs' event objects as well as plain dicts (as decoded from the server-sent events), and imports no
SDK. ``feed(event)`` returns the calls that the event changed; ``calls`` lists every call in order; ``finish()`` ends
the calls still open when the stream ends without saying so::

    tool_calls = AnthropicToolCalls()
    for event in client.messages.create(..., stream=True):
        for call in tool_calls.feed(event):
            show(call.name, call.arguments)  # partial arguments while the call streams, final ones when done
    tool_calls.finish()  # a no-op when the stream ended properly
    for call in tool_calls.calls:
        if call.error is None:
            run(call.id, call.name, call.arguments)
        else:
            answer(call.id, call.error)  # tell the model what was wrong with its arguments
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Callable, Generic, Optional, Protocol, TypeVar

from . import ToolCallArgumentsStream
from ._types import ToolCallReplace, ToolCallResult

__all__ = [
    "ArgumentsStream",
    "LiveToolCall",
    "OpenAIChatToolCalls",
    "OpenAIResponsesToolCalls",
    "AnthropicToolCalls",
]


class ArgumentsStream(Protocol):
    """What an accumulator needs of a tool call's argument stream: the interface of ``ToolCallArgumentsStream``."""

    @property
    def text(self) -> str:
        """The raw argument text received so far."""

    def append(self, delta: str) -> dict[str, Any]:
        """Append a piece of argument text; return the partial arguments."""

    def replace(self, text: str) -> ToolCallReplace:
        """Take the complete argument text so far."""

    def finish(self) -> ToolCallResult:
        """The final arguments, or the error."""


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, ``obj.name`` for an object; ``default`` where that is missing or None."""
    value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return default if value is None else value


class LiveToolCall:
    """One tool call as it streams: its id and name as soon as they are known, and its arguments so far.

    While the call streams, ``arguments`` are the partial arguments (a new dict whenever they change). When it ends,
    ``done`` is true, ``result`` is the :class:`~streaming_json.ToolCallResult` of one strict parse of the complete
    text, and ``arguments`` are the final arguments: ``{}`` if the text was malformed, when ``error`` says why.
    """

    __slots__ = ("key", "id", "name", "arguments", "done", "result", "_stream")

    key: Hashable
    """Where the call sits in the stream: ``(choice index, tool call index)``, an output index or a block index."""
    id: Optional[str]
    """The id to answer the call with (``tool_call_id``, ``call_id`` or ``tool_use_id``); None until known."""
    name: Optional[str]
    """The name of the tool; None until known."""
    arguments: dict[str, Any]
    """The partial arguments while the call streams; the final arguments once it is done."""
    done: bool
    """Whether the call has ended."""
    result: Optional[ToolCallResult]
    """The final arguments or the error, once the call is done."""

    def __init__(self, key: Hashable, id: Optional[str], name: Optional[str], stream: ArgumentsStream) -> None:
        self.key = key
        self.id = id
        self.name = name
        self.arguments = {}
        self.done = False
        self.result = None
        self._stream = stream

    @property
    def text(self) -> str:
        """The raw argument text received so far."""
        return self._stream.text

    @property
    def error(self) -> Optional[str]:
        """None, or why the complete arguments are malformed (ends with ``Received arguments:`` and the text)."""
        return None if self.result is None else self.result.error

    def __repr__(self) -> str:
        state = "done" if self.done else "streaming"
        return f"LiveToolCall(id={self.id!r}, name={self.name!r}, arguments={self.arguments!r}, {state})"

    def _append(self, delta: str) -> bool:
        """Append argument text; return whether there was any."""
        if not delta:
            return False
        self.arguments = self._stream.append(delta)
        return True

    def _replace(self, text: str) -> None:
        """Take the complete text so far (it starts over where it does not continue the text held)."""
        self.arguments = self._stream.replace(text).arguments

    def _finish(self) -> None:
        self.result = self._stream.finish()
        self.arguments = self.result.arguments
        self.done = True


_Key = TypeVar("_Key", bound=Hashable)


class _ToolCallAccumulator(Generic[_Key]):
    """The calls of one stream: all of them in order, and the open ones by key."""

    def __init__(self, stream_factory: Optional[Callable[[], ArgumentsStream]] = None) -> None:
        self._stream_factory: Callable[[], ArgumentsStream] = stream_factory or ToolCallArgumentsStream
        self._calls: list[LiveToolCall] = []
        self._open: dict[_Key, LiveToolCall] = {}

    @property
    def calls(self) -> list[LiveToolCall]:
        """Every call seen so far, in the order they started."""
        return list(self._calls)

    def finish(self) -> list[LiveToolCall]:
        """End the calls still open (the stream ended); return them."""
        return self._finish_open(list(self._open))

    def _start(self, key: _Key, id: Optional[str], name: Optional[str]) -> LiveToolCall:
        call = LiveToolCall(key, id, name, self._stream_factory())
        self._calls.append(call)
        self._open[key] = call
        return call

    def _finish_open(self, keys: Iterable[_Key]) -> list[LiveToolCall]:
        finished = []
        for key in keys:
            call = self._open.pop(key, None)
            if call is not None:
                call._finish()
                finished.append(call)
        return finished


def _unique(calls: Iterable[LiveToolCall]) -> list[LiveToolCall]:
    """The calls in order, each once (one event can touch a call several times)."""
    return list({id(call): call for call in calls}.values())


class OpenAIChatToolCalls(_ToolCallAccumulator[tuple[int, int]]):
    """Tool calls from OpenAI Chat Completions chunks (``ChatCompletionChunk`` objects or dicts).

    A call is keyed by ``(choice index, tool call index)``, so parallel calls and ``n > 1`` choices stream side by
    side. A choice's calls end with its ``finish_reason``; call :meth:`finish` at the end of the stream for any that
    a provider left open. The chunk events of the SDK's ``chat.completions.stream()`` helper are read too.
    """

    def feed(self, chunk: Any) -> list[LiveToolCall]:
        """Read one chunk; return the calls it changed."""
        if _get(chunk, "type") == "chunk":  # the streaming helper's ChunkEvent wraps the chunk
            chunk = _get(chunk, "chunk")
        changed: list[LiveToolCall] = []
        for choice in _get(chunk, "choices", ()):
            choice_index = _get(choice, "index", 0)
            for tool_call in _get(_get(choice, "delta"), "tool_calls", ()):
                changed.extend(self._read_tool_call(choice_index, tool_call))
            if _get(choice, "finish_reason") is not None:
                changed.extend(self._finish_open([key for key in self._open if key[0] == choice_index]))
        return _unique(changed)

    def _read_tool_call(self, choice_index: int, tool_call: Any) -> list[LiveToolCall]:
        key = (choice_index, _get(tool_call, "index", 0))
        call_id = _get(tool_call, "id")
        function = _get(tool_call, "function")
        name = _get(function, "name")
        changed = []
        call = self._open.get(key)
        # Some providers give every parallel call the same index; a new id at an index is a new call.
        if call is not None and call_id is not None and call.id is not None and call_id != call.id:
            changed.extend(self._finish_open([key]))
            call = None
        if call is None:
            call = self._start(key, call_id, name)
            changed.append(call)
        elif (call_id is not None and call.id is None) or (name is not None and call.name is None):
            call.id = call.id or call_id
            call.name = call.name or name
            changed.append(call)
        if call._append(_get(function, "arguments", "")):
            changed.append(call)
        return changed


class OpenAIResponsesToolCalls(_ToolCallAccumulator[Optional[int]]):
    """Function calls from OpenAI Responses API stream events (the SDK's event objects or dicts).

    A call starts with ``response.output_item.added`` (an item of type ``function_call``), grows with
    ``response.function_call_arguments.delta`` and ends with ``response.function_call_arguments.done`` or
    ``response.output_item.done``, whose complete text is taken with ``replace()``: where it does not continue the
    text streamed so far, the call starts over from it. Calls are keyed by ``output_index``; ``id`` is the call's
    ``call_id``.
    """

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        kind = _get(event, "type")
        index = _get(event, "output_index")
        if kind == "response.output_item.added":
            return self._start_item(index, _get(event, "item"))
        if kind == "response.function_call_arguments.delta":
            call = self._open_call(index)
            return [call] if call._append(_get(event, "delta", "")) else []
        if kind == "response.function_call_arguments.done":
            return self._end_item(index, _get(event, "arguments"), _get(event, "name"))
        if kind == "response.output_item.done":
            item = _get(event, "item")
            if _get(item, "type") != "function_call" or index not in self._open:
                return []
            return self._end_item(index, _get(item, "arguments"), _get(item, "name"))
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            return self.finish()
        return []

    def _start_item(self, index: Optional[int], item: Any) -> list[LiveToolCall]:
        if _get(item, "type") != "function_call":
            return []
        call = self._start(index, _get(item, "call_id"), _get(item, "name"))
        call._replace(_get(item, "arguments", ""))
        return [call]

    def _open_call(self, index: Optional[int]) -> LiveToolCall:
        """The open call at ``index``; a new nameless one for a stream joined after its ``output_item.added``."""
        call = self._open.get(index)
        return call if call is not None else self._start(index, None, None)

    def _end_item(self, index: Optional[int], arguments: Optional[str], name: Optional[str]) -> list[LiveToolCall]:
        call = self._open_call(index)
        if arguments is not None:
            call._replace(arguments)
        call.name = call.name or name
        return self._finish_open([index])


class AnthropicToolCalls(_ToolCallAccumulator[Optional[int]]):
    """Tool calls from Anthropic Messages stream events (the SDK's event objects or dicts).

    A ``tool_use`` content block starts with ``content_block_start``, grows with ``content_block_delta`` events of
    type ``input_json_delta`` (their ``partial_json``) and ends with ``content_block_stop``. Calls are keyed by the
    block ``index``. Other blocks, such as the server's own tool uses, are not tool calls for the client and are
    skipped. ``message_stop`` ends any call still open.
    """

    def feed(self, event: Any) -> list[LiveToolCall]:
        """Read one event; return the calls it changed."""
        kind = _get(event, "type")
        index = _get(event, "index")
        if kind == "content_block_start":
            block = _get(event, "content_block")
            if _get(block, "type") != "tool_use":
                return []
            return [self._start(index, _get(block, "id"), _get(block, "name"))]
        if kind == "content_block_delta":
            delta = _get(event, "delta")
            call = self._open.get(index)
            if call is None or _get(delta, "type") != "input_json_delta":
                return []
            return [call] if call._append(_get(delta, "partial_json", "")) else []
        if kind == "content_block_stop":
            return self._finish_open([index])
        if kind == "message_stop":
            return self.finish()
        return []
