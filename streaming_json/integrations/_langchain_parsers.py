"""LangChain's streaming output parsers, reading each piece once: ``JsonOutputParser``, ``JsonOutputToolsParser`` and
``PydanticToolsParser``, subclasses of LangChain's own with the same names, fields and outputs.

LangChain's parsers (``BaseCumulativeTransformOutputParser``) add every chunk to the sum of the chunks before it and
parse the sum again: quadratic time, and the last value of a cut stream is the partial parse of what came, a
valid-looking value. Here the streaming path (``transform``, ``atransform``: what ``model | parser`` runs under
``stream()``/``astream()``) reads each chunk once, through one parser or one :class:`LangChainToolCalls`, yields a
value only when it changed, and ends with one strict parse: a cut or malformed output raises
``OutputParserException`` instead of ending on a partial value. ``invoke`` on a whole message or text is strict too.

Imported only through ``streaming_json.integrations.langchain``, which imports this module (and LangChain) when one
of these names is first asked for.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Annotated, Any, Callable, Optional

from langchain_core.exceptions import OutputParserException
from langchain_core.output_parsers import JsonOutputParser as _LangChainJsonOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser as _LangChainJsonOutputToolsParser
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as _LangChainPydanticToolsParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import SkipValidation

from .._backend import StreamingJsonParser
from .._repair import parse_json_with_repair
from .._shared import MISSING
from ._fields import get_field, get_items
from ._langchain_messages import LangChainToolCalls
from ._tool_calls import LiveToolCall

__all__ = ["JsonOutputParser", "JsonOutputToolsParser", "PydanticToolsParser"]

_BLANK = " \n\r\t"
_FENCE = "```"
_FENCE_LANGUAGE = "json"
_SCALAR_STARTS = frozenset('"-0123456789')
_WORDS = ("true", "false", "null")


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


def _text_of(chunk: Any) -> str:
    """The text of a chunk: a string itself, or a message's text (its string content, or its text blocks)."""
    if isinstance(chunk, str):
        return chunk
    content = get_field(chunk, "content")
    if isinstance(content, str):
        return content
    text = getattr(chunk, "text", "")
    return text if isinstance(text, str) else str(text)


# --- JSON text ------------------------------------------------------------------------------------------------------


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in path)


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


class _JsonText(_Reading):
    """The JSON of a model's text output as LangChain's ``JsonOutputParser`` finds it: the whole text, or what follows
    a Markdown code fence (```` ```json ````) up to the closing one; partial values while it streams, one strict parse
    at the end. With ``diff``, each output is the JSON Patch from the last one, built from the parser's changes."""

    def __init__(self, diff: bool = False, parser_class: Optional[Callable[..., Any]] = None) -> None:
        self._diff = diff
        self._parser: Any = (parser_class or StreamingJsonParser)(changes=diff)
        self._chunks: list[str] = []
        self._start: Optional[int] = None  # where the JSON starts in the text, once known
        self._length = 0
        self._value: Any = MISSING  # the last output's value

    @property
    def text(self) -> str:
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def read(self, chunk: Any) -> tuple[bool, Any]:
        piece = _text_of(chunk)
        if not piece:
            return False, None
        self._chunks.append(piece)
        self._length += len(piece)
        if self._start is None:
            self._start = self._json_start(self.text)
            if self._start is None:
                return False, None
            piece = self.text[self._start :]
        changes = self._parser.append(piece)
        value = self._parser.snapshot()
        if value is MISSING or _same_value(value, self._value):
            return False, None
        return True, self._output(value, changes)

    def end(self) -> tuple[bool, Any]:
        value = self.parse(self.text)
        if value == self._value:
            return False, None
        if self._diff:
            patch = _patch_between(self._value, value)
            self._value = value
            return True, patch
        self._value = value
        return True, value

    def _output(self, value: Any, changes: list[Any]) -> Any:
        previous, self._value = self._value, value
        if not self._diff:
            return value
        return self._patch(previous, value, changes)

    @staticmethod
    def _patch(previous: Any, value: Any, changes: list[Any]) -> list[dict[str, Any]]:
        """The JSON Patch operations that take ``previous`` to ``value``, from the parser's changes in between."""
        operations = []
        for change in changes:  # SetChange (a value) and AppendChange (a string grew), of either backend
            path = change.path
            if hasattr(change, "text"):  # a string grew: its whole new value (as jsonpatch writes it)
                operations.append({"op": "replace", "path": _pointer(path), "value": _at(value, path)})
            else:
                if not path:
                    operations.append({"op": "replace", "path": "", "value": change.value})
                    continue
                op = "add"
                if isinstance(path[-1], int):  # an array's member: a new one is added, a shown one replaced
                    try:
                        parent = _at(previous, path[:-1])
                        op = "replace" if isinstance(parent, list) and path[-1] < len(parent) else "add"
                    except (LookupError, TypeError):
                        op = "add"
                operations.append({"op": op, "path": _pointer(path), "value": _at(value, path)})
        if not operations:  # a value the stable reading showed was taken back (a pending number turned out invalid)
            return _patch_between(previous, value)
        return operations

    @staticmethod
    def _json_start(text: str) -> Optional[int]:
        """Where the JSON starts, or None while the text cannot tell yet: after leading blanks; after a fence and its
        ``json`` tag; or, after prose, after the first fence."""
        stripped = text.lstrip(_BLANK)
        if not stripped:
            return None
        offset = len(text) - len(stripped)
        first = stripped[0]
        if first == "`":
            ticks = len(stripped) - len(stripped.lstrip("`"))
            rest = stripped[ticks:]
            if ticks >= 3 and len(rest) < len(_FENCE_LANGUAGE) and _FENCE_LANGUAGE.startswith(rest):
                return None  # "```js": maybe "```json" to come
            tag = len(_FENCE_LANGUAGE) if ticks >= 3 and rest.startswith(_FENCE_LANGUAGE) else 0
            return offset + ticks + tag
        if first in "{[" or first in _SCALAR_STARTS:
            return offset
        for word in _WORDS:
            if word.startswith(stripped[: len(word)]):
                return offset if len(stripped) >= len(word) else None
        fence = text.find(_FENCE, offset)
        if fence < 0 or len(text) < fence + len(_FENCE) + len(_FENCE_LANGUAGE):
            return None  # prose: the JSON starts after a fence, if any comes
        return _JsonText._json_start(text[fence:]) + fence  # type: ignore[operator]

    def parse(self, text: str) -> Any:
        """One strict parse of the JSON of a complete text (what ``invoke`` and the end of a stream read)."""
        start = self._json_start(text) if self._start is None else self._start
        if start is None:
            start = len(text)
        region = text[start:].strip(_BLANK)
        try:
            value, end = json.JSONDecoder(strict=False).raw_decode(region)
        except ValueError:
            value, end = MISSING, 0
        rest = region[end:].lstrip(_BLANK)
        if value is not MISSING and (not rest or rest.startswith(_FENCE)):
            return value
        try:
            return parse_json_with_repair(region.rstrip(_BLANK + "`"))
        except (ValueError, RecursionError) as error:
            raise OutputParserException(f"Invalid json output: {text}", llm_output=text) from error


def _same_value(a: Any, b: Any) -> bool:
    """Whether two readings of one stream hold the same value, in time that does not grow with the document: a
    reading differs from the one before only along the open path (its last member at every depth; the closed members
    are the same objects), so that path is all there is to compare. (The parser gives a new reading where a value
    it showed completes unchanged, such as a number followed by a comma.)"""
    while a is not b:
        if type(a) is not type(b):
            return False
        if type(a) is dict:
            if len(a) != len(b):
                return False
            if not a:
                return True
            (key_a, a), (key_b, b) = next(reversed(a.items())), next(reversed(b.items()))
            if key_a != key_b:
                return False
        elif type(a) is list:
            if len(a) != len(b):
                return False
            if not a:
                return True
            a, b = a[-1], b[-1]
        else:
            return bool(a == b)
    return True


def _patch_between(previous: Any, value: Any) -> list[dict[str, Any]]:
    import jsonpatch  # type: ignore[import-untyped, import-not-found, unused-ignore]  # LangChain's dependency

    return list(jsonpatch.make_patch(None if previous is MISSING else previous, value).patch)


class _ReadsEachChunkOnce:
    """What the three drop-in parsers share: LangChain's streaming hooks, each reading the chunks once through a new
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

    Streaming, it yields the value so far whenever a chunk changed it (with ``diff=True``, the JSON Patch operations
    from the last one, built from the parser's changes rather than by comparing the two), then the final value of one
    strict parse if it differs. The JSON is the whole text or, as LangChain reads it, what follows a Markdown code
    fence. A cut or malformed output raises ``OutputParserException`` at the end of the stream (LangChain's ends on
    the partial value); ``invoke`` is strict too. ``parser_class`` (not LangChain's) picks the parser, a backend's
    ``StreamingJsonParser``, as for the adapters.
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
            super().parse_result(result, partial=True)  # a refusal raises here, as in LangChain's
        return _JsonText(parser_class=self.parser_class).parse(result[0].text)


# --- Tool calls -----------------------------------------------------------------------------------------------------


class _ToolCallsOutput(_Reading):
    """The tool calls of a stream of message chunks, as ``JsonOutputToolsParser`` gives them: a list of
    ``{"args": ..., "type": name}`` (with ``"id"`` when ``return_id``), or the first alone with ``first_tool_only``."""

    def __init__(self, return_id: bool, first_tool_only: bool, calls: Optional[LangChainToolCalls] = None) -> None:
        self._return_id = return_id
        self._first_tool_only = first_tool_only
        self._calls = LangChainToolCalls() if calls is None else calls
        self._shown: Any = None  # what the last output showed of each call (see _changed)
        self._output: Any = MISSING

    def read(self, chunk: Any) -> tuple[bool, Any]:
        if not self._calls.feed(chunk) and self._output is not MISSING:
            return False, None
        return self._show(self._calls.calls)

    def end(self) -> tuple[bool, Any]:
        self._calls.finish()
        calls = self._calls.calls
        errors = [call.error for call in calls if call.error is not None]
        if errors:
            raise OutputParserException("\n\n".join(errors))
        output = self._render(calls)
        if output == self._output:
            return False, None
        self._output = output
        return True, output

    def _show(self, calls: list[LiveToolCall]) -> tuple[bool, Any]:
        if self._first_tool_only:
            calls = calls[:1]  # the others change nothing shown
        shown = [(call.name, call.id, self._value_of(call)) for call in calls]
        if self._shown is not None and len(shown) == len(self._shown):
            same = self._same
            if all(a[0] == b[0] and a[1] == b[1] and same(a[2], b[2]) for a, b in zip(shown, self._shown)):
                return False, None
        self._shown = shown
        output = self._render(calls)
        if output is None:  # first_tool_only, no call yet: LangChain yields nothing
            return False, None
        self._output = output
        return True, output

    @staticmethod
    def _value_of(call: LiveToolCall) -> Any:
        return call.arguments

    @staticmethod
    def _same(a: Any, b: Any) -> bool:
        return _same_value(a, b)

    def _render(self, calls: list[LiveToolCall]) -> Any:
        rendered = []
        for call in calls:
            tool_call: dict[str, Any] = {"args": call.arguments}
            if self._return_id:
                tool_call["id"] = call.id
            tool_call["type"] = call.name or ""
            rendered.append(tool_call)
        if self._first_tool_only:
            return rendered[0] if rendered else None
        return rendered


class _PydanticToolsOutput(_ToolCallsOutput):
    """The calls as ``PydanticToolsParser`` gives them: each a typed value of its tool's model (its partial twin
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

    @staticmethod
    def _value_of(call: LiveToolCall) -> Any:
        return call.parsed

    @staticmethod
    def _same(a: Any, b: Any) -> bool:
        """Two typed values of a call: the same object, or the same validated instance again (validated when it
        completed, and once more at the end). A partial twin is a new object only where the call changed."""
        return a is b or (type(a) is type(b) and not hasattr(type(a), "partial_of") and a == b)

    def _render(self, calls: list[LiveToolCall]) -> Any:
        typed = [call.parsed for call in calls if call.name in self._tools and call.parsed is not None]
        if self._first_tool_only:
            return typed[0] if typed else None
        return typed


def _same_instances(a: Any, b: Any) -> bool:
    same = _PydanticToolsOutput._same
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return same(a, b)


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


class JsonOutputToolsParser(_ReadsEachChunkOnce, _LangChainJsonOutputToolsParser):
    """LangChain's ``JsonOutputToolsParser`` (the same fields: ``strict``, ``return_id``, ``first_tool_only``),
    reading each piece once.

    Streaming, it yields the calls so far (``[{"args": {...}, "type": name}, ...]``, with ``"id"`` when
    ``return_id``; the first call alone with ``first_tool_only``) whenever a chunk changed them, read from the
    chunks' ``tool_call_chunks`` by :class:`~streaming_json.integrations.LangChainToolCalls`, then the
    final calls of one strict parse each if they differ. A call whose arguments are cut or malformed raises
    ``OutputParserException`` at the end of the stream (LangChain's ends on partial arguments); ``invoke`` on an
    aggregated chunk parses its arguments strictly, and an ``invalid_tool_calls`` entry raises.
    ``arguments_stream_class`` and ``parser_class`` (not LangChain's) pick the backend, as for the adapters.
    """

    arguments_stream_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The calls' argument streams (a backend's ``ToolCallArgumentsStream``; by default the package's)."""
    parser_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The parser of typed calls (``PydanticToolsParser``; a backend's ``StreamingJsonParser``)."""

    def _tool_calls(self, models: Optional[dict[str, Any]] = None) -> LangChainToolCalls:
        return LangChainToolCalls(
            models=models, arguments_stream_class=self.arguments_stream_class, parser_class=self.parser_class
        )

    def _reading(self) -> _Reading:
        return _ToolCallsOutput(self.return_id, self.first_tool_only, self._tool_calls())

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` strict: see the class."""
        if partial:
            return super().parse_result(result, partial=True)
        message = _message_of(result)
        calls = _strict_calls_of(message, self._tool_calls())
        if calls is None:
            return super().parse_result(result)
        super().parse_result(result, partial=True)  # a refusal raises here, as in LangChain's
        return _ToolCallsOutput(self.return_id, self.first_tool_only)._render(calls)


class PydanticToolsParser(_ReadsEachChunkOnce, _LangChainPydanticToolsParser):
    """LangChain's ``PydanticToolsParser`` (the same fields: ``tools``, ``first_tool_only``), reading each piece once
    and validating each call once.

    Streaming, it yields the calls so far whenever a chunk changed them, each a typed value of its tool
    (``streaming_json.pydantic``: the tool's partial twin, its fields None until read, while the call streams; the
    validated instance once it is done), then the final instances if they differ. Where LangChain validates every
    call's arguments again on every chunk and leaves out those that fail, each call here is validated once, when it
    ends: arguments that are cut, malformed or invalid, or a call to a tool not in ``tools``, raise
    ``OutputParserException`` at the end of the stream. ``arguments_stream_class`` and ``parser_class`` (not
    LangChain's) pick the backend, as for the adapters.
    """

    arguments_stream_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The argument streams of calls to other tools (a backend's ``ToolCallArgumentsStream``)."""
    parser_class: Annotated[Optional[Callable[..., Any]], SkipValidation()] = None
    """The parser of the typed calls (a backend's ``StreamingJsonParser``; by default the package's)."""

    def _tool_types(self) -> dict[str, Any]:
        """The tools by name, as LangChain's names them: a model's ``title``, else its class name."""
        return {(getattr(tool, "model_config", {}).get("title") or tool.__name__): tool for tool in self.tools}

    def _reading(self) -> _Reading:
        tools = self._tool_types()
        calls = LangChainToolCalls(
            models=tools, arguments_stream_class=self.arguments_stream_class, parser_class=self.parser_class
        )
        return _PydanticToolsOutput(self.first_tool_only, tools, calls)

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """As LangChain's; with ``partial=False`` strict: see :class:`JsonOutputToolsParser`."""
        if partial:
            return super().parse_result(result, partial=True)
        reader = LangChainToolCalls(arguments_stream_class=self.arguments_stream_class)
        calls = _strict_calls_of(_message_of(result), reader)
        tools = self._tool_types()
        unknown = [call.name for call in calls or () if call.name not in tools]
        if unknown:
            raise OutputParserException(f"Unknown tool type: {unknown[0]!r}. Available tools: {', '.join(tools)}")
        return super().parse_result(result)
