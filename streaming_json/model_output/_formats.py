"""How models write tool calls into their output: each format is data (markers and shape), read by one machine.

A format says where calls are and how each is written:

- *Where*: after a marker that opens a section of calls (``section_begin``, e.g. Mistral's ``[TOOL_CALLS]``), up to
  its end marker if it has one; or after a marker before each call (``call_begin``, e.g. ``<tool_call>``), up to its
  end marker if it has one; or, for Llama 3, a JSON object that opens the output (``bare_json_start``).
- *How*: the JSON of each call (``payload``): ``"call"``, an object holding the name and the arguments (Hermes,
  Llama 3), or an array of them (Mistral, Granite); or ``"arguments"``, the arguments alone, after a header that names
  the tool (``header_end`` ends it, ``header`` reads the name and id out of it: DeepSeek, Kimi K2, Mistral v11). Text
  that may close the arguments before the call's end marker (a code fence) is ``arguments_end``.

A new format is one more instance; nothing is subclassed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["ToolCallFormat", "FORMATS"]

PAYLOADS = ("call", "arguments")


@dataclass(frozen=True)
class ToolCallFormat:
    """One model family's way of writing tool calls into its output (see the module documentation)."""

    name: str
    """What the format is called (``ModelOutputStream("hermes")``)."""
    payload: str
    """The JSON of a call: ``"call"`` (an object with the name and the arguments, or an array of such objects), or
    ``"arguments"`` (the arguments alone, the name in the header)."""
    section_begin: tuple[str, ...] = ()
    """Markers that open a section of calls (any one of them)."""
    section_end: tuple[str, ...] = ()
    """Markers that close it; without one, a section ends where its JSON ends and other text begins."""
    call_begin: Optional[str] = None
    """The marker before each call (inside a section, if the format has sections)."""
    call_end: Optional[str] = None
    """The marker after each call."""
    header_end: Optional[str] = None
    """Where a call's header (the text after ``call_begin``, naming the tool) ends and its arguments begin."""
    header: Optional[re.Pattern[str]] = None
    """Reads the header: group ``name``, and ``id`` where the model writes its own call id."""
    arguments_end: Optional[str] = None
    """Text the model may write after the arguments, before ``call_end`` (a closing code fence)."""
    name_keys: tuple[str, ...] = ("name",)
    """In a ``"call"`` object, the key of the tool's name."""
    arguments_keys: tuple[str, ...] = ("arguments", "parameters")
    """In a ``"call"`` object, the keys the arguments may come under (the first one present is read)."""
    separators: str = ""
    """Characters that may stand between calls in a section besides whitespace (Llama 3 joins them with ``;``)."""
    bare_json_start: bool = False
    """Whether a JSON object as the first thing in the output opens a section of calls (Llama 3)."""
    aliases: tuple[str, ...] = field(default=(), compare=False)
    """Other names the format is known by."""

    def __post_init__(self) -> None:
        if self.payload not in PAYLOADS:
            raise ValueError(f"payload must be one of {', '.join(PAYLOADS)}, not {self.payload!r}")
        if (self.header_end is None) != (self.payload != "arguments"):
            raise ValueError("a format whose payload is the arguments alone has a header_end, and only such a one")
        if self.payload == "arguments" and self.call_begin is None:
            raise ValueError("a format with a header has a call_begin marker before it")
        if not (self.section_begin or self.call_begin or self.bare_json_start):
            raise ValueError("a format needs section_begin, call_begin or bare_json_start: where do its calls start?")
        markers = [*self.section_begin, *self.section_end, self.call_begin, self.call_end, self.header_end]
        if any(marker == "" for marker in markers):
            raise ValueError("a marker is not empty")


_DEEPSEEK = {
    "section_begin": ("<｜tool▁calls▁begin｜>",),
    "section_end": ("<｜tool▁calls▁end｜>",),
    "call_begin": "<｜tool▁call▁begin｜>",
    "call_end": "<｜tool▁call▁end｜>",
}

FORMATS: dict[str, ToolCallFormat] = {}
"""The built-in formats by name, as these models write them."""

for _format in (
    # Hermes 2/3, Qwen 2.5/3: <tool_call>{"name": ..., "arguments": {...}}</tool_call>, one block a call.
    ToolCallFormat("hermes", "call", call_begin="<tool_call>", call_end="</tool_call>", aliases=("qwen",)),
    # Llama 3.1-3.3: an optional <|python_tag|>, then {"name": ..., "parameters": {...}}, several joined by "; ".
    ToolCallFormat(
        "llama3_json",
        "call",
        section_begin=("<|python_tag|>",),
        arguments_keys=("parameters", "arguments"),
        separators=";",
        bare_json_start=True,
    ),
    # Mistral before tokenizer v11: [TOOL_CALLS] then a JSON array of {"name", "arguments"}.
    ToolCallFormat("mistral", "call", section_begin=("[TOOL_CALLS]",)),
    # Mistral from tokenizer v11: [TOOL_CALLS]NAME[ARGS]{...} for each call ([CALL_ID]ID before [ARGS] in some).
    ToolCallFormat(
        "mistral_v11",
        "arguments",
        call_begin="[TOOL_CALLS]",
        header_end="[ARGS]",
        header=re.compile(r"\s*(?P<name>.*?)\s*(?:\[CALL_ID\]\s*(?P<id>.*?)\s*)?", re.DOTALL),
    ),
    # IBM Granite: <|tool_call|> (3.0; 3.1 writes <tool_call>) then a JSON array of {"name", "arguments"}.
    ToolCallFormat("granite", "call", section_begin=("<|tool_call|>", "<tool_call>")),
    # DeepSeek V3, R1: per call, function<｜tool▁sep｜>NAME, a newline, then the arguments in a ```json fence.
    ToolCallFormat(
        "deepseek_v3",
        "arguments",
        **_DEEPSEEK,  # type: ignore[arg-type]
        header_end="```json",
        header=re.compile(r"\s*(?:function)?\s*<｜tool▁sep｜>\s*(?P<name>.*?)\s*", re.DOTALL),
        arguments_end="```",
    ),
    # DeepSeek V3.1: per call, NAME<｜tool▁sep｜>{...}.
    ToolCallFormat(
        "deepseek_v31",
        "arguments",
        **_DEEPSEEK,  # type: ignore[arg-type]
        header_end="<｜tool▁sep｜>",
        header=re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL),
    ),
    # Kimi K2: per call, functions.NAME:IDX<|tool_call_argument_begin|>{...}; the whole header is the call's id.
    ToolCallFormat(
        "kimi_k2",
        "arguments",
        section_begin=("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"),
        section_end=("<|tool_calls_section_end|>", "<|tool_call_section_end|>"),
        call_begin="<|tool_call_begin|>",
        call_end="<|tool_call_end|>",
        header_end="<|tool_call_argument_begin|>",
        header=re.compile(r"\s*(?P<id>(?:functions\.)?(?P<name>.+?)(?::\d+)?)\s*", re.DOTALL),
    ),
):
    for _name in (_format.name, *_format.aliases):
        FORMATS[_name] = _format
