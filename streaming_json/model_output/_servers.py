"""What the inference servers' adapters (``vllm``, ``sglang``) share: their parsers' names, a format's markers, a
request's tool names, and one piece's events grouped as a server sends them (its content, and per call its start and
argument text). Neither server is imported here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, Optional

from ._events import ModelOutputEvent
from ._formats import ToolCallFormat
from ._structural_tags import ToolSpec, has_structural_tag, structural_tag

PREFIX = "streaming_json_"
"""Our parsers' names in a server: ``streaming_json_FORMAT``."""


def format_markers(format: ToolCallFormat) -> tuple[str, ...]:
    """The markers that delimit the format's calls (those a tokenizer may hold as special tokens)."""
    markers = [*format.section_begin, *format.section_end, format.call_begin, format.call_end, format.header_end]
    return tuple(dict.fromkeys(marker for marker in markers if marker))


def tool_names(tools: Optional[Iterable[Any]]) -> Optional[list[str]]:
    """The names of a request's tools (the servers' tool models, or their dicts; a Responses API tool names
    itself), or None where there are none."""
    if not tools:
        return None
    names = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else getattr(tool, "function", None)
        name = function.get("name") if isinstance(function, dict) else getattr(function, "name", None)
        if name is None:
            name = tool.get("name") if isinstance(tool, dict) else getattr(tool, "name", None)
        if isinstance(name, str):
            names.append(name)
    return names or None


def tool_definitions(tools: Optional[Iterable[Any]]) -> Optional[list[Any]]:
    """A request's tools as ``ModelOutputStream`` takes them (their definitions: the names check the calls, the
    parameters' schemas type the values of the formats that write them as text), or None where none names itself."""
    if tool_names(tools) is None:
        return None
    return list(tools or ())


def _function_of(tool: Any) -> tuple[Optional[str], Any, Any]:
    """A request's tool's name, parameters' schema and ``strict`` (a Chat Completions tool, its dict, or a Responses
    API tool, which names itself)."""
    function = tool.get("function") if isinstance(tool, dict) else getattr(tool, "function", None)
    if function is None:
        function = tool
    if isinstance(function, dict):
        return function.get("name"), function.get("parameters"), function.get("strict")
    return getattr(function, "name", None), getattr(function, "parameters", None), getattr(function, "strict", None)


def chosen_tool(tool_choice: Any) -> Optional[str]:
    """The tool a request's ``tool_choice`` names (``{"type": "function", "function": {"name": ...}}``, the
    servers' models of it, a Responses API ``{"type": "function", "name": ...}``), or None for a mode."""
    if tool_choice is None or isinstance(tool_choice, str):
        return None
    name, _, _ = _function_of(tool_choice)
    return name if isinstance(name, str) else None


def request_structural_tag(
    format: ToolCallFormat,
    tools: Optional[Iterable[Any]],
    tool_choice: Any,
    parallel: bool = True,
    reasoning: bool = False,
) -> Optional[dict[str, Any]]:
    """The structural tag (a dict in xgrammar's schema) that makes a model write its calls in this format for a
    request: ``tool_choice`` ``"required"``, a named tool (one call of it), or ``"auto"``; a tool's arguments follow
    its parameters' schema where it is ``strict``, else any arguments. None where the request has no tool to call
    or the format no tag."""
    if tool_choice == "none" or not has_structural_tag(format):
        return None
    named = chosen_tool(tool_choice)
    choice = "forced" if named is not None else "auto" if tool_choice in (None, "auto") else "required"
    specs: list[ToolSpec] = []
    for tool in tools or ():
        name, parameters, strict = _function_of(tool)
        if isinstance(name, str) and (named is None or name == named):
            specs.append((name, parameters if strict is True and isinstance(parameters, dict) else True))
    if not specs:
        return None
    return structural_tag(format, specs, choice, parallel=parallel, reasoning=reasoning)


class CallPiece(NamedTuple):
    """What one piece says of one call: its start (id and name, where it starts in this piece) and its argument
    text read in the piece."""

    index: int  # type: ignore[assignment]  # hides tuple's index(), as the events' fields do
    id: Optional[str]
    name: Optional[str]
    arguments: str


class Piece(NamedTuple):
    """One piece's events as a server sends them: the content, the calls' pieces in order, the calls that ended
    (index, arguments parsed, error, argument text)."""

    content: str
    calls: list[CallPiece]
    ends: list[tuple[int, dict[str, Any], Optional[str]]]


def grouped(events: list[ModelOutputEvent]) -> Piece:
    """The events of a piece grouped: the content joined, each call's start and argument text in one entry (a call
    that starts in the piece gets its id and name there; several calls in a piece, as under speculative decoding,
    make several entries)."""
    content: list[str] = []
    calls: list[CallPiece] = []
    ends: list[tuple[int, dict[str, Any], Optional[str]]] = []
    for event in events:
        if event.kind == "content":
            content.append(event.text)
        elif event.kind == "arguments":
            last = calls[-1] if calls else None
            if last is not None and last.index == event.index:
                calls[-1] = last._replace(arguments=last.arguments + event.text)
            else:
                calls.append(CallPiece(event.index, None, None, event.text))
        elif event.kind == "start":
            calls.append(CallPiece(event.index, event.id, event.name, ""))
        elif event.kind == "end":
            ends.append((event.index, event.arguments, event.error))
    return Piece("".join(content), calls, ends)
