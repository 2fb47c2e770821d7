"""LangChain's streaming output parsers, reading each piece once: ``JsonOutputParser`` (also under its old name,
``SimpleJsonOutputParser``), ``JsonOutputToolsParser``, ``JsonOutputKeyToolsParser`` and ``PydanticToolsParser``,
subclasses of LangChain's own with the same names, fields and outputs.

LangChain's parsers (``BaseCumulativeTransformOutputParser``) add every chunk to the sum of the chunks before it and
parse the sum again (``parse_partial_json``): quadratic time, and the last value of a cut stream is the partial parse
of what came, a valid-looking value. Here the streaming path (``transform``, ``atransform``: what ``model | parser``
runs under ``stream()``/``astream()``) reads each chunk once, and after every chunk has the value LangChain's parse of
the sum has (LangChain's reading, ``_langchain_partial``); it yields that value when it differs from the last one
yielded (``!=``, as LangChain compares), and ends with one strict parse: a cut or malformed output raises
``OutputParserException`` instead of ending on a partial value. ``invoke`` on a whole message or text is strict too.

Imported only through ``streaming_json.integrations.langchain``, which imports this module (and LangChain) when one
of these names is first asked for.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Annotated, Any, Callable, Optional

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import JsonOutputParser as _LangChainJsonOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputKeyToolsParser as _LangChainJsonOutputKeyToolsParser
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser as _LangChainJsonOutputToolsParser
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as _LangChainPydanticToolsParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import SkipValidation, ValidationError

try:  # langchain-core 1.8: a model's refusal raises ModelRefusalError in every structured output parser
    from langchain_core.output_parsers._refusal import raise_if_refused
except ImportError:  # pragma: no cover - an older langchain-core, which knows no refusals

    def raise_if_refused(message: BaseMessage) -> None:
        return None


from .._json_patch import snapshot_ops
from .._shared import MISSING
from ._fields import get_field, get_items
from ._langchain_messages import LangChainToolCalls
from ._langchain_partial import (
    NOT_SHOWN,
    JsonInText,
    LangChainArguments,
    PartialJson,
    parse_text_output,
    same_value,
)
from ._tool_calls import LiveToolCall

__all__ = [
    "JsonOutputParser",
    "SimpleJsonOutputParser",
    "JsonOutputToolsParser",
    "JsonOutputKeyToolsParser",
    "PydanticToolsParser",
]

_EVERY_CHUNKS_METADATA = frozenset(("model_provider", "output_version", "model_name"))


# --- Reading a stream, one chunk at a time ----------------------------------------------------------------------------


class _Reading:
    """What a parser's streaming path does with the chunks: ``read`` each (whether the output changed, and the
    output), then ``end`` (the same, for the final output; raises ``OutputParserException`` where it is invalid)."""

    def read(self, chunk: Any) -> tuple[bool, Any]:  # pragma: no cover - every parser defines its own
        raise NotImplementedError

    def end(self) -> tuple[bool, Any]:  # pragma: no cover
        raise NotImplementedError


def _outputs(reading: _Reading, chunks: Iterable[Any]) -> Iterator[Any]:
    read = reading.read
    for chunk in chunks:
        changed, output = read(chunk)
        if changed:
            yield output
    changed, output = reading.end()
    if changed:
        yield output


async def _aoutputs(reading: _Reading, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    read = reading.read
    async for chunk in chunks:
        changed, output = read(chunk)
        if changed:
            yield output
    changed, output = reading.end()
    if changed:
        yield output


def _check_refusal(chunk: Any) -> None:
    """Raise ``ModelRefusalError`` where a message chunk says the model refused, as LangChain's parsers do on every
    chunk (``raise_if_refused`` on the sum). Its content blocks are built only for a chunk that could say so: a
    refusal field, a content block of that type, or metadata beyond the provider's name (a stop reason)."""
    if not isinstance(chunk, BaseMessage):
        return
    content = chunk.content
    if (
        chunk.additional_kwargs.get("refusal")
        or len(chunk.response_metadata) > 1
        or (
            type(content) is not str
            and any(type(block) is dict and block.get("type") == "refusal" for block in content)
        )
    ):
        raise_if_refused(chunk)


def _text_of(chunk: Any) -> str:
    """The text of a chunk: a string itself, or a message's text (its string content, or its text blocks)."""
    if isinstance(chunk, str):
        return chunk
    content = get_field(chunk, "content")
    if isinstance(content, str):
        return content
    text = getattr(chunk, "text", "")
    return text if isinstance(text, str) else str(text)


# --- Text outputs ---------------------------------------------------------------------------------------------------


def _parse_text(text: str) -> Any:
    """One strict parse of a complete text output's JSON (``parse_text_output``): ``OutputParserException`` where it
    is cut, malformed or missing, as LangChain's raises for one it cannot parse."""
    try:
        return parse_text_output(text)
    except (ValueError, RecursionError) as error:
        raise OutputParserException(f"Invalid json output: {text}", llm_output=text) from error


class _JsonText(_Reading):
    """The JSON of a model's text output as LangChain's ``JsonOutputParser`` reads it (see the module's docstring):
    its value after every chunk, one strict parse at the end. With ``diff``, each output is the JSON Patch from the
    last one (:meth:`_diff`)."""

    def __init__(self, diff: bool = False, parser_class: Optional[Callable[..., Any]] = None) -> None:
        self._diff_outputs = diff
        self._parser_class = parser_class
        self._chunks: list[str] = []
        self._start: Optional[JsonInText] = JsonInText()  # until the JSON starts
        self._json: Optional[PartialJson] = None  # the JSON's reading, once it has started
        self._value: Any = MISSING  # the last output's value

    @property
    def text(self) -> str:
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def read(self, chunk: Any) -> tuple[bool, Any]:
        _check_refusal(chunk)
        piece = _text_of(chunk)
        if not piece:
            return False, None
        self._chunks.append(piece)
        reading = self._json
        if reading is None:
            found = self._start.feed(piece) if self._start is not None else None
            if found is None:
                return False, None
            self._start = None
            reading = self._json = PartialJson(self._parser_class, strip_tail=True)
            piece = found
        value = reading.append(piece)
        if value is MISSING or value is None or same_value(value, self._value):
            return False, None  # LangChain's shows nothing for a null: its parse gives None
        return True, self._output(value)

    def end(self) -> tuple[bool, Any]:
        value = _parse_text(self.text)
        if value is None or (self._value is not MISSING and value == self._value):
            return False, None
        return True, self._output(value)

    def _output(self, value: Any) -> Any:
        previous, self._value = self._value, value
        return self._diff(previous, value) if self._diff_outputs else value

    @staticmethod
    def _diff(previous: Any, value: Any) -> list[dict[str, Any]]:
        """The output of ``diff=True``: the JSON Patch from the last value shown to the new one (``snapshot_ops`` of
        ``streaming_json.patches``' operations: the values are LangChain's reading, not the changes', so the two
        snapshots are compared along their open path)."""
        return snapshot_ops(previous, value)


class _ReadsEachChunkOnce:
    """What the drop-in parsers share: LangChain's streaming hooks, each reading the chunks once through a new
    ``_reading()`` (before LangChain's own base in their bases, so that these hooks are the ones called)."""

    def _reading(self) -> _Reading:
        raise NotImplementedError

    def _transform(self, input: Iterator[Any]) -> Iterator[Any]:
        yield from _outputs(self._reading(), input)

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for output in _aoutputs(self._reading(), input):
            yield output


class JsonOutputParser(_ReadsEachChunkOnce, _LangChainJsonOutputParser):
    """LangChain's ``JsonOutputParser`` (the same fields: ``pydantic_object``, ``diff``), reading each piece once.

    Streaming, it yields what LangChain's yields: the value so far whenever a chunk changed it (with ``diff=True``,
    the JSON Patch operations from the last one), the JSON being the whole text or, as LangChain finds it, what
    follows the text's first Markdown code fence; then the final value of one strict parse if it differs. A cut or
    malformed output raises ``OutputParserException`` at the end of the stream (LangChain's ends on the partial value);
    ``invoke`` is strict too. ``parser_class`` (not LangChain's) picks the parser, a backend's ``StreamingJsonParser``,
    as for the adapters.
    """

    parser_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The parser (a backend's ``StreamingJsonParser``; by default the package's)."""

    def _reading(self) -> _Reading:
        return _JsonText(self.diff, self.parser_class)

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` one strict parse (a cut or malformed text raises
        ``OutputParserException``)."""
        if partial:
            return super().parse_result(result, partial=True)
        if isinstance(result[0], ChatGeneration):
            raise_if_refused(result[0].message)
        return _parse_text(result[0].text)


SimpleJsonOutputParser = JsonOutputParser
"""The old name of ``JsonOutputParser``, as LangChain keeps it."""


class _ToolCallsOutput(_Reading):
    """The tool calls of a stream of message chunks, as ``JsonOutputToolsParser`` gives them: a list of
    ``{"args": ..., "type": name}`` (with ``"id"`` when ``return_id``) of the calls LangChain shows, or the first
    alone with ``first_tool_only``."""

    def __init__(self, return_id: bool, first_tool_only: bool, calls: LangChainToolCalls) -> None:
        self._return_id = return_id
        self._first_tool_only = first_tool_only
        self._calls = calls
        self._shown: Any = None  # what the last output showed of each call (see _show)
        self._output: Any = MISSING
        self._legacy_calls = False  # whether a chunk had OpenAI's raw calls (``additional_kwargs["tool_calls"]``)

    def read(self, chunk: Any) -> tuple[bool, Any]:
        _check_refusal(chunk)
        if not self._legacy_calls and isinstance(chunk, BaseMessage) and "tool_calls" in chunk.additional_kwargs:
            self._legacy_calls = True
        if not self._calls.feed(chunk) and self._output is not MISSING:
            return False, None
        return self._show(self._calls.calls)

    def end(self) -> tuple[bool, Any]:
        self._calls.finish()
        calls = self._relevant(self._calls.calls)
        errors = [call.error for call in calls if call.error is not None]
        if errors:
            raise OutputParserException("\n\n".join(errors))
        output = self._render(calls)
        if output is None or output == self._output:
            return False, None
        self._output = output
        return True, output

    def _relevant(self, calls: list[LiveToolCall]) -> list[LiveToolCall]:
        """The calls the output is made of: those LangChain shows (the first alone with ``first_tool_only``)."""
        shown = [call for call in calls if call.arguments is not NOT_SHOWN]
        return shown[:1] if self._first_tool_only else shown

    def _show(self, calls: list[LiveToolCall]) -> tuple[bool, Any]:
        calls = self._relevant(calls)
        shown = [(call.name, call.id, call.arguments) for call in calls]
        previous = self._shown
        if previous is not None and len(shown) == len(previous) and all(map(_same_shown, shown, previous)):
            return False, None
        self._shown = shown
        output = self._render(calls)
        if output is None or (self._output is not MISSING and self._same(output, self._output)):
            return False, None  # LangChain yields nothing for None, and nothing that equals the last output
        self._output = output
        return True, output

    def _same(self, a: Any, b: Any) -> bool:
        """Whether two outputs are equal (the calls' arguments compared along their open paths)."""
        if type(a) is not type(b):
            return False
        if self._first_tool_only and type(a) is dict:  # the first call (or its arguments) alone
            return self._same_item(a, b)
        return len(a) == len(b) and all(map(self._same_item, a, b))

    @staticmethod
    def _same_item(a: Any, b: Any) -> bool:
        return _same_call(a, b)

    def _call(self, call: LiveToolCall) -> dict[str, Any]:
        tool_call: dict[str, Any] = {"args": call.arguments}
        if self._return_id:
            tool_call["id"] = call.id
        tool_call["type"] = call.name or ""
        return tool_call

    def _render(self, calls: list[LiveToolCall]) -> Any:
        rendered = [self._call(call) for call in calls]
        if self._first_tool_only:
            # Without a call, LangChain's gives [] (None where the message has OpenAI's raw calls, none shown yet).
            return rendered[0] if rendered else None if self._legacy_calls else []
        return rendered


def _same_shown(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> bool:
    """What a call showed, ``(name, id, arguments)``, unchanged: its arguments are the same object."""
    return a[2] is b[2] and a[:2] == b[:2]


def _same_call(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two renderings of a call: equal, the arguments compared along their open paths."""
    return (
        a.keys() == b.keys()
        and a["type"] == b["type"]
        and a.get("id") == b.get("id")
        and same_value(a["args"], b["args"])
    )


class _KeyToolCallsOutput(_ToolCallsOutput):
    """The calls to one tool, as ``JsonOutputKeyToolsParser`` gives them: the arguments of each call named
    ``key_name`` (the calls as ``JsonOutputToolsParser`` gives them, with ``return_id``), or of the first alone."""

    def __init__(self, key_name: str, return_id: bool, first_tool_only: bool, calls: LangChainToolCalls) -> None:
        super().__init__(return_id, first_tool_only, calls)
        self._key_name = key_name

    def _relevant(self, calls: list[LiveToolCall]) -> list[LiveToolCall]:
        key = self._key_name
        named = [call for call in calls if call.arguments is not NOT_SHOWN and (call.name or "") == key]
        return named[:1] if self._first_tool_only else named

    def _render(self, calls: list[LiveToolCall]) -> Any:
        rendered = [self._call(call) if self._return_id else call.arguments for call in calls]
        if self._first_tool_only:
            return rendered[0] if rendered else None
        return rendered

    def _same_item(self, a: Any, b: Any) -> bool:  # type: ignore[override]
        return _same_call(a, b) if self._return_id else same_value(a, b)


class _PydanticToolsOutput(_ToolCallsOutput):
    """The calls as ``PydanticToolsParser`` gives them: an instance of its tool's model for each call whose arguments
    so far validate (``tool(**args)``, as LangChain's validates them, once for each change of a call's arguments);
    a call to a tool not in ``tools`` raises, as in LangChain's. At the end, every call's final arguments must
    validate."""

    def __init__(self, first_tool_only: bool, tools: dict[str, Any], calls: LangChainToolCalls) -> None:
        super().__init__(False, first_tool_only, calls)
        self._tools = tools
        self._validated: dict[int, tuple[Any, Any]] = {}  # id(call): (the arguments validated, the instance or None)

    def end(self) -> tuple[bool, Any]:
        self._calls.finish()
        calls = self._relevant(self._calls.calls)
        errors = [call.error for call in calls if call.error is not None]
        if errors:
            raise OutputParserException("\n\n".join(errors))
        instances = []
        for call in calls:
            try:
                instances.append(self._tool(call)(**call.arguments))
            except (ValidationError, ValueError) as error:
                raise OutputParserException(f"{call.name}: {error}") from error
        output = (instances[0] if instances else None) if self._first_tool_only else instances
        if output is None or output == self._output:
            return False, None
        self._output = output
        return True, output

    def _tool(self, call: LiveToolCall) -> Any:
        name = call.name or ""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "<no_tools>"
            raise OutputParserException(f"Unknown tool type: {name!r}. Available tools: {available}")
        return tool

    def _instance(self, call: LiveToolCall) -> Any:
        """The call's arguments so far as an instance of its tool, or None where they do not validate (yet)."""
        arguments = call.arguments
        validated = self._validated.get(id(call))
        if validated is not None and validated[0] is arguments:
            return validated[1]
        tool = self._tool(call)
        try:
            instance = tool(**arguments)
        except (ValidationError, ValueError):
            instance = None
        self._validated[id(call)] = (arguments, instance)
        return instance

    def _same(self, a: Any, b: Any) -> bool:
        return bool(a == b)

    def _render(self, calls: list[LiveToolCall]) -> Any:
        if not calls:
            return None if self._first_tool_only else []
        instances = [instance for instance in map(self._instance, calls) if instance is not None]
        if self._first_tool_only:
            return instances[0] if instances else None
        return instances


class _PydanticTwinsOutput(_ToolCallsOutput):
    """``PydanticToolsParser(partial_twins=True)``: each call as a typed value of its tool's model (its partial twin
    while it streams, the validated instance once done); calls to other tools left out until the end, where they are
    an error."""

    def __init__(self, first_tool_only: bool, tools: dict[str, Any], calls: LangChainToolCalls) -> None:
        super().__init__(False, first_tool_only, calls)
        self._tools = tools

    def end(self) -> tuple[bool, Any]:
        self._calls.finish()
        calls = self._calls.calls
        errors = [call.error for call in calls if call.error is not None]
        unknown = [call.name for call in calls if call.name not in self._tools]
        if unknown:
            available = ", ".join(self._tools) or "<no_tools>"
            errors += [f"Unknown tool type: {name!r}. Available tools: {available}" for name in unknown]
        if errors:
            raise OutputParserException("\n\n".join(errors))
        output = self._render(calls)
        if self._output is not MISSING and _same_instances(output, self._output):
            return False, None
        self._output = output
        return True, output

    def _relevant(self, calls: list[LiveToolCall]) -> list[LiveToolCall]:
        return calls[:1] if self._first_tool_only else calls

    def _show(self, calls: list[LiveToolCall]) -> tuple[bool, Any]:
        calls = self._relevant(calls)
        shown = [(call.name, call.id, call.parsed) for call in calls]
        previous = self._shown
        same = previous is not None and len(shown) == len(previous)
        if same and all(a[:2] == b[:2] and _same_twin(a[2], b[2]) for a, b in zip(shown, previous)):
            return False, None
        self._shown = shown
        output = self._render(calls)
        if output is None:  # first_tool_only, no call yet: LangChain yields nothing
            return False, None
        self._output = output
        return True, output

    def _render(self, calls: list[LiveToolCall]) -> Any:
        typed = [call.parsed for call in calls if call.name in self._tools and call.parsed is not None]
        if self._first_tool_only:
            return typed[0] if typed else None
        return typed


def _same_twin(a: Any, b: Any) -> bool:
    """Two typed values of a call: the same object, or the same validated instance again (validated when it
    completed, and once more at the end). A partial twin is a new object only where the call changed."""
    return a is b or (type(a) is type(b) and not hasattr(type(a), "partial_of") and a == b)


def _same_instances(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_twin(x, y) for x, y in zip(a, b))
    return _same_twin(a, b)


def _message_of(result: list[Generation]) -> Any:
    generation = result[0]
    if not isinstance(generation, ChatGeneration):
        raise OutputParserException("This output parser can only be used with a chat generation.")
    return generation.message


def _strict_calls_of(message: Any, reader: LangChainToolCalls) -> Optional[list[LiveToolCall]]:
    """The calls of a whole message read strictly: an aggregated chunk's fragments, parsed once each (LangChain's
    ``tool_calls`` of a chunk are partial parses); None for a whole ``AIMessage``, which LangChain parses strictly.
    Raises ``OutputParserException`` for a call whose arguments are malformed, or an ``invalid_tool_calls`` entry."""
    invalid = get_items(message, "invalid_tool_calls")
    if not get_items(message, "tool_call_chunks"):
        if invalid:
            errors = [
                f"{get_field(call, 'name')}: {get_field(call, 'error') or 'invalid arguments'}" for call in invalid
            ]
            raise OutputParserException("\n\n".join(errors))
        return None
    reader.feed(message)
    reader.finish()
    errors = [call.error for call in reader.calls if call.error is not None]
    if errors:
        raise OutputParserException("\n\n".join(errors))
    return reader.calls


def _tool_call_reader(parser: Any, models: Optional[dict[str, Any]] = None) -> LangChainToolCalls:
    """The reader of the calls for one of the tool-call parsers (``parser``): by default with argument streams that
    read as LangChain's partial parse (:class:`LangChainArguments`), of the parser's backend."""
    parser_class = parser.parser_class
    streams = parser.arguments_stream_class
    if streams is None:

        def streams(stable: bool = True) -> LangChainArguments:
            return LangChainArguments(parser_class)

    return LangChainToolCalls(models=models, arguments_stream_class=streams, parser_class=parser_class)


def _strict_calls(parser: Any, result: list[Generation]) -> Optional[list[LiveToolCall]]:
    """The calls of a whole message, parsed strictly (see ``_strict_calls_of``); None for a whole ``AIMessage``."""
    return _strict_calls_of(_message_of(result), _tool_call_reader(parser))


def _rendered(reading: _Reading, calls: list[LiveToolCall]) -> Any:
    """A tool-call parser's output for complete calls, as its streaming reading renders them."""
    assert isinstance(reading, _ToolCallsOutput)
    return reading._render(reading._relevant(calls))


class JsonOutputToolsParser(_ReadsEachChunkOnce, _LangChainJsonOutputToolsParser):
    """LangChain's ``JsonOutputToolsParser`` (the same fields: ``strict``, ``return_id``, ``first_tool_only``),
    reading each piece once.

    Streaming, it yields what LangChain's yields: the calls so far (``[{"args": {...}, "type": name}, ...]``, with
    ``"id"`` when ``return_id``; the first call alone with ``first_tool_only``) whenever a chunk changed them, read
    from the chunks' ``tool_call_chunks`` by :class:`~streaming_json.integrations.LangChainToolCalls`, each call's
    arguments as LangChain's partial parse has them; then the final calls of one strict parse each if they differ. A
    call in the output (the first alone, with ``first_tool_only``) whose arguments are cut or malformed raises
    ``OutputParserException`` at the end of the stream (LangChain's ends on partial arguments); ``invoke`` on an
    aggregated chunk parses its arguments strictly, and an ``invalid_tool_calls`` entry raises. ``parser_class`` (not
    LangChain's) picks the backend; ``arguments_stream_class`` (a backend's ``ToolCallArgumentsStream``) reads the
    partial arguments this library's way instead.
    """

    arguments_stream_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The calls' argument streams: by default, streams that read as LangChain's partial parse; a backend's
    ``ToolCallArgumentsStream`` reads as the adapters do (a literal shows from its first letter)."""
    parser_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The parser of the calls' arguments (a backend's ``StreamingJsonParser``; by default the package's)."""

    def _reading(self) -> _Reading:
        return _ToolCallsOutput(self.return_id, self.first_tool_only, _tool_call_reader(self))

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` strict: see the class."""
        if partial:
            return super().parse_result(result, partial=True)
        calls = _strict_calls(self, result)
        if calls is None:
            return super().parse_result(result)
        super().parse_result(result, partial=True)  # a refusal raises here, as in LangChain's
        return _rendered(self._reading(), calls)


class JsonOutputKeyToolsParser(JsonOutputToolsParser, _LangChainJsonOutputKeyToolsParser):
    """LangChain's ``JsonOutputKeyToolsParser`` (the same fields: ``key_name``, ``return_id``, ``first_tool_only``,
    ``strict``), reading each piece once.

    The calls to the tool named ``key_name``: each one's arguments (with ``return_id``, the call as
    :class:`JsonOutputToolsParser` gives it, id included), or, with ``first_tool_only``, the first one's alone (None
    until there is one). Streaming, as :class:`JsonOutputToolsParser`: what LangChain's yields, then the final value of
    one strict parse of each of those calls; a cut or malformed one raises at the end.
    """

    def _reading(self) -> _Reading:
        return _KeyToolCallsOutput(self.key_name, self.return_id, self.first_tool_only, _tool_call_reader(self))

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` strict: see :class:`JsonOutputToolsParser`."""
        if partial:
            return _LangChainJsonOutputKeyToolsParser.parse_result(self, result, partial=True)
        calls = _strict_calls(self, result)
        if calls is None:
            return _LangChainJsonOutputKeyToolsParser.parse_result(self, result)
        _LangChainJsonOutputKeyToolsParser.parse_result(self, result, partial=True)  # a refusal raises here
        return _rendered(self._reading(), calls)


class PydanticToolsParser(_ReadsEachChunkOnce, _LangChainPydanticToolsParser):
    """LangChain's ``PydanticToolsParser`` (the same fields: ``tools``, ``first_tool_only``), reading each piece once.

    Streaming, it yields what LangChain's yields: instances of the tools' models, one for each call whose arguments so
    far validate (each call validated once for each change of its arguments, where LangChain validates every call on
    every chunk), whenever they changed; a call to a tool not in ``tools`` raises, as in LangChain's. It ends with
    one strict parse and validation of each call: arguments that are cut, malformed or invalid raise
    ``OutputParserException`` at the end of the stream (LangChain's leaves such a call out).

    ``partial_twins=True`` (not LangChain's) streams each call as a typed value from its first piece: its tool's
    partial twin (``streaming_json.pydantic``: the tool's fields, None until read), then the validated instance once
    the call is done; each call validated once, when it ends. ``parser_class`` and ``arguments_stream_class`` (not
    LangChain's) pick the backend, as for :class:`JsonOutputToolsParser`.
    """

    partial_twins: bool = False
    """Stream each call as its tool's partial twin from its first piece, instead of LangChain's instances of the tool
    once its arguments validate."""
    arguments_stream_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The argument streams of the calls (see :class:`JsonOutputToolsParser`)."""
    parser_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The parser of the calls' arguments (a backend's ``StreamingJsonParser``; by default the package's)."""

    def _tool_types(self) -> dict[str, Any]:
        """The tools by name, as LangChain's names them: a model's ``title``, else its class name."""
        return {(getattr(tool, "model_config", {}).get("title") or tool.__name__): tool for tool in self.tools}

    def _reading(self) -> _Reading:
        tools = self._tool_types()
        if self.partial_twins:
            return _PydanticTwinsOutput(self.first_tool_only, tools, _tool_call_reader(self, models=tools))
        return _PydanticToolsOutput(self.first_tool_only, tools, _tool_call_reader(self))

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` strict: see :class:`JsonOutputToolsParser`."""
        if partial:
            return super().parse_result(result, partial=True)
        calls = _strict_calls(self, result)
        tools = self._tool_types()
        unknown = [call.name for call in calls or () if call.name not in tools]
        if unknown:
            raise OutputParserException(f"Unknown tool type: {unknown[0]!r}. Available tools: {', '.join(tools)}")
        return super().parse_result(result)
