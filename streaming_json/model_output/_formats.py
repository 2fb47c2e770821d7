"""How models write tool calls into their output: each format is data (markers and shape), read by one machine.

A format says where calls are and how each is written:

- *Where*: after a marker that opens a section of calls (``section_begin``, e.g. DeepSeek's
  ``<｜tool▁calls▁begin｜>``), up to its end marker if it has one; or after a marker before each call (``call_begin``,
  e.g. ``<tool_call>``), up to its end marker if it has one; or, for Llama 3, a JSON object that opens the output
  (``bare_json_start``); or, for the pythonic formats, a marker that opens a section only as the first thing of the
  output (``output_section_begin``); or, for Harmony, in messages whose headers say what each one is (``channels``).
- *How*, the ``payload``: ``"call"``, JSON holding the name and the arguments (Hermes, Llama 3), or an array of such
  objects (Granite); ``"arguments"``, the arguments' JSON alone, after a header that names the tool
  (``header_end`` ends it, ``header`` reads the name and id out of it: DeepSeek, Kimi K2, Mistral, Harmony);
  ``"parameters"``, one tagged block of raw text a parameter, typed by the tool's JSON Schema (``parameters``: Qwen3
  Coder, GLM, MiniMax, DSML, Kimi K3; MiniMax-M3's values nest as element trees); ``"literal"``, an object literal
  or a Python call's keyword arguments (``literal``: Gemma 4, the pythonic formats). Text that may close the
  arguments before the call's end marker (a code fence) is ``arguments_end``.

A new format is one more instance; nothing is subclassed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from ._response_template import compile_response_template

__all__ = ["ToolCallFormat", "ParameterSyntax", "LiteralSyntax", "ChannelSyntax", "FORMATS"]

PAYLOADS = ("call", "arguments", "parameters", "literal")


@dataclass(frozen=True)
class ParameterSyntax:
    """How a ``"parameters"`` payload writes each parameter: ``begin``, a header naming it (up to ``header_end``),
    the value's raw text, ``end``. The value is typed by the tool's JSON Schema (see the docs' typing rules)."""

    begin: str
    """The marker that opens a parameter (``<parameter=``)."""
    header_end: str
    """Where the parameter's header (its name, and attributes) ends (``>``)."""
    end: str
    """The marker after the value (``</parameter>``)."""
    header: re.Pattern[str] = re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL)
    """Reads the header: group ``name``; group ``string`` where the model says whether the value is a raw string
    or JSON (``raw_strings``, ``raw_by_default``: DeepSeek V3.2's ``string="false"``)."""
    value_begin: Optional[str] = None
    """A marker between the header and the value, blanks around it allowed (GLM's ``<arg_value>``)."""
    next_parameter_ends_value: bool = True
    """Whether ``begin`` in a value ends it, its end marker forgotten (vLLM's Qwen3 parsers forgive the forgotten
    marker); else ``begin`` there is the value's text, which only ``end`` (or the call's end) ends (vLLM's GLM
    engine: a value may hold ``<arg_key>``)."""
    closing_name: bool = False
    """Whether ``end`` is followed by the parameter's name and ``header_end``, the value ending at its own name's end
    marker (MiniMax-M3's ``]<]minimax[>[</KEY>``)."""
    nested: bool = False
    """Whether a value may hold elements written in the parameters' own syntax (``begin`` NAME ``header_end`` ...
    ``end`` NAME ``header_end``): an element tree (MiniMax-M3), made JSON by the parameter's schema when the value
    ends (an element with elements is an object, or an array where its schema says so; a name given twice, a list;
    an empty element, ``[]`` or ``{}`` where the schema says so). A value without a schema streams as a string once
    its first character that is not blank says it is no tree."""
    raw_strings: tuple[str, ...] = ("true",)
    """What the header's ``string`` group says of a value that is a raw string (DSML's ``string="true"``, Kimi K3's
    ``type="string"``); any other word says it is JSON."""
    raw_by_default: bool = False
    """Whether a value whose header has no ``string`` group is a raw string (Kimi K3) or JSON (DSML)."""
    trim: str = ""
    """A character the value sheds once at each end (Qwen3's template writes the value between two newlines:
    ``"\\n"``); the value's text is otherwise kept as written."""
    strip: bool = False
    """Whether the value sheds every blank at each end (a ``response_template``'s ``\\s*(?P<value>.*?)\\s*``,
    transformers' Qwen 3.5 template); blanks at the end of a streamed value are held back until text follows."""
    json_or_text: bool = False
    """Whether a value is JSON where its whole text is JSON, else its text, blanks stripped (a ``response_template``'s
    ``value_parser`` ``json`` with ``allow_non_json``: transformers' Qwen3 template). A value whose first character
    that is not blank cannot begin JSON (or that leaves ``true``, ``false``, ``null``) streams as a string from there;
    one that may still be JSON is held until it ends. The tool's schema does not retype it (see the docs)."""
    lines: bool = False
    """Whether each parameter is a line, ``KEY<header_end>VALUE<end>`` (``end`` the line separator, ``begin`` the
    same), begun by no marker: the first character between parameters that is not blank begins a parameter's header,
    and a line without ``header_end`` is passed over (a ``response_template``'s ``kv-lines``)."""
    text_between_ignored: bool = False
    """Whether text between parameters that is no parameter is passed over (a ``response_template``'s ``xml-inline``,
    which reads its tags and nothing else: the ``</function>`` of transformers' Qwen3 template, whose call ends at
    ``</tool_call>``); else it is an error of the call."""


@dataclass(frozen=True)
class LiteralSyntax:
    """How a ``"literal"`` payload writes the arguments: ``KEY<separator>VALUE`` pairs joined by commas, up to
    ``end``; values are strings between ``quotes``, bare words (numbers, ``names``), or nested lists and objects."""

    separator: str
    """Between a key and its value (``=`` in a Python call, ``:`` in Gemma's object literal)."""
    end: str
    """What closes the arguments (``)``, ``}``)."""
    quotes: tuple[str, ...]
    """The string quotes, longest first; a string closes with the quote that opened it."""
    escapes: bool
    """Whether a backslash escapes the next characters inside a string, as in Python."""
    python: bool
    """Whether nested values are Python literals (read by ``ast``); else they are in the same syntax as the
    arguments (Gemma: bare keys, the quote, ``true``/``false``/``null``)."""
    key_end: re.Pattern[str]
    """The first character that cannot be in a bare key: the separator, or what shows the value has no key."""
    names: tuple[tuple[str, str], ...] = (
        ("True", "true"),
        ("False", "false"),
        ("None", "null"),
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
    )
    """Bare words and the JSON they stand for."""
    schema_types_bare_values: bool = True
    """Whether a parameter's schema types a bare value (not in quotes) as raw text, as vLLM's Gemma 4 engine does
    (``label:null`` for a string parameter is ``"null"``, ``n:3`` is ``"3"``); else a bare value is what the syntax
    says (``null``, ``3``) whatever the schema, which types quoted strings only: transformers' rule for a
    ``response_template``'s ``json`` content (it casts the strings the model wrote, never a decoded value)."""


@dataclass(frozen=True)
class ChannelSyntax:
    """Messages whose headers say what each one is (Harmony): ``HEADER<header_end>BODY<one of message_end>``, each
    next message after the call format's ``call_begin`` (``<|start|>``). A header with a recipient makes its body a
    call's JSON arguments; otherwise its channel says whether the body is reasoning or content."""

    header_end: str
    """Where a message's header ends and its body begins (``<|message|>``)."""
    message_end: tuple[str, ...]
    """What ends a message's body (``<|end|>``, ``<|return|>``; a call's ``<|call|>``)."""
    recipient: re.Pattern[str]
    """Finds the recipient in a header: group ``recipient`` (``to=functions.get_weather``)."""
    channel: re.Pattern[str]
    """Finds the channel in a header: group ``channel``."""
    kinds: tuple[tuple[str, str], ...]
    """Channels and what a body without a recipient is in each: ``"reasoning"`` or ``"content"``; a channel not
    named is content."""
    recipient_prefix: str = ""
    """Taken off a recipient to give the tool's name (``functions.``)."""
    header_begins: tuple[str, ...] = ()
    """What a header begins with, blanks aside (``<|channel|>``, a recipient's ``to=``, the role after
    ``<|start|>``); text where a header would stand that begins with none of them is the body of a message whose
    header the prompt wrote: content, streamed at once (without these, any text there is read as a header)."""


@dataclass(frozen=True)
class ToolCallFormat:
    """One model family's way of writing tool calls into its output (see the module documentation)."""

    name: str
    """What the format is called (``ModelOutputStream("hermes")``)."""
    payload: str
    """What follows a call's header: ``"call"`` (JSON with the name and the arguments, or an array of such objects),
    ``"arguments"`` (the arguments' JSON alone, the name in the header), ``"parameters"`` (tagged raw text, see
    ``parameters``) or ``"literal"`` (an object literal or keyword arguments, see ``literal``)."""
    section_begin: tuple[str, ...] = ()
    """Markers that open a section of calls (any one of them)."""
    section_end: tuple[str, ...] = ()
    """Markers that close it; without one, a section ends where its JSON ends and other text begins."""
    call_begin: Optional[str] = None
    """The marker before each call (inside a section, if the format has sections)."""
    call_end: Optional[str] = None
    """The marker after each call."""
    header_end: Optional[str] = None
    """Where a call's header (the text after ``call_begin``, naming the tool) ends and its arguments begin. A
    ``"parameters"`` payload may have none: its header ends at the first parameter (GLM)."""
    header: Optional[re.Pattern[str]] = None
    """Reads the header: group ``name``, and ``id`` where the model writes its own call id."""
    empty_call_end: Optional[str] = None
    """A marker that ends a call's header and the call at once: a call without arguments (DSML's self-closing
    ``<｜DSML｜invoke name="submit"/>``)."""
    name_chars: Optional[re.Pattern[str]] = None
    """A header with a character outside these, or that ``header`` does not match, was no call: its text is content
    (pythonic calls, which begin with no marker, start with the tool's name; a ``response_template``'s opener of
    several literals, whose header is the rest of them)."""
    arguments_end: Optional[str] = None
    """Text the model may write after the arguments, before ``call_end`` (a closing code fence)."""
    name_keys: tuple[str, ...] = ("name",)
    """In a ``"call"`` object, the key of the tool's name."""
    arguments_keys: tuple[str, ...] = ("arguments", "parameters")
    """In a ``"call"`` object, the keys the arguments may come under (the first one present is read)."""
    separators: str = ""
    """Characters that may stand between calls in a section besides whitespace (Llama 3 joins them with ``;``)."""
    section_brackets: bool = False
    """Whether a section's calls, which begin with no marker, are a list between ``[`` and ``]`` (blanks around
    them) inside its markers: read past as the separators are, and written by the structural tag (a
    ``response_template``'s ``python-call-list``)."""
    bare_json_start: bool = False
    """Whether a JSON object as the first thing in the output opens a section of calls (Llama 3)."""
    output_section_begin: tuple[str, ...] = ()
    """Markers that open a section of calls only as the first thing in the output, blanks aside (the pythonic
    formats' ``[``)."""
    parameters: Optional[ParameterSyntax] = None
    """A ``"parameters"`` payload's syntax."""
    literal: Optional[LiteralSyntax] = None
    """A ``"literal"`` payload's syntax."""
    channels: Optional[ChannelSyntax] = None
    """Harmony's messages: the output begins in the first message's header, and every header says what follows."""
    ignored_markers: tuple[str, ...] = ()
    """Markers that say nothing the events carry, dropped where they stand in content or between a section's calls
    (Llama 4's ``<|python_end|>`` after its list of calls, Step-3's wrapper of each call)."""
    reasoning: Optional[tuple[str, str]] = None
    """The reasoning block's markers this family writes, read unless the stream is given others."""
    content_begin: tuple[str, ...] = ()
    """Markers that open the content (a ``response_template``'s content field with its own opener: Cohere's
    ``<|START_RESPONSE|>``, ERNIE's ``<response>``). With them, the content is the text between one of them and one
    of ``content_end`` (or the output's end), where only ``content_end`` ends it (a call's marker there is its text);
    text outside it, the reasoning and the calls is dropped (transformers' reader: no field holds it)."""
    content_end: tuple[str, ...] = ()
    """Markers that close the content opened by ``content_begin`` (any one of them)."""
    calls_end_reasoning: bool = False
    """Whether a call's begin marker inside the reasoning block ends the block and starts the call (vLLM's engines
    for these families: a model that forgets ``</think>`` still calls)."""
    call_objects_after_begin: bool = False
    """Whether JSON right after ``call_begin``, where the header would begin, is call objects (one, or an array of
    them, read as a ``"call"`` payload's) rather than a header: Mistral's older spelling
    ``[TOOL_CALLS][{"name": ..., "arguments": {...}}]`` beside its newer ``[TOOL_CALLS]NAME[ARGS]{...}``."""
    json_ends_header: bool = False
    """Whether the arguments' ``{`` ends a header before ``header_end`` comes, and begins the arguments: Mistral's
    ``[TOOL_CALLS]NAME{...}``."""
    aliases: tuple[str, ...] = field(default=(), compare=False)
    """Other names the format is known by."""

    def __post_init__(self) -> None:
        if self.payload not in PAYLOADS:
            raise ValueError(f"payload must be one of {', '.join(PAYLOADS)}, not {self.payload!r}")
        needs_header = self.payload in ("arguments", "literal")
        if self.header_end is None and needs_header:
            raise ValueError(f"a format whose payload is {self.payload!r} has a header_end")
        if self.header_end is not None and self.payload == "call":
            raise ValueError("a format whose payload is a call object has no header_end")
        if self.payload == "arguments" and self.call_begin is None:
            raise ValueError("a format with a header has a call_begin marker before it")
        if (self.payload == "parameters") != (self.parameters is not None):
            raise ValueError("a format whose payload is 'parameters' has a ParameterSyntax, and only such a one")
        if (self.payload == "literal") != (self.literal is not None):
            raise ValueError("a format whose payload is 'literal' has a LiteralSyntax, and only such a one")
        if self.payload == "literal" and self.call_begin is None and not self.section_begin + self.output_section_begin:
            raise ValueError("a literal format's calls begin with a marker or in a section")
        starts = self.section_begin or self.call_begin or self.bare_json_start or self.output_section_begin
        if not (starts or self.channels):
            raise ValueError("a format needs section_begin, call_begin or bare_json_start: where do its calls start?")
        if (self.call_objects_after_begin or self.json_ends_header) and self.payload != "arguments":
            raise ValueError(
                "call_objects_after_begin and json_ends_header are for a format whose payload is 'arguments'"
            )
        if self.section_brackets and (self.call_begin is not None or not self.section_begin):
            raise ValueError("section_brackets is for a section whose calls begin with no marker")
        if self.channels is not None and (self.payload != "arguments" or self.call_begin is None):
            raise ValueError("a format of messages with channels reads JSON arguments, each message after call_begin")
        if self.reasoning is not None and (len(self.reasoning) != 2 or not all(self.reasoning)):
            raise ValueError("reasoning is a pair of markers: (begin, end)")
        if self.content_end and not self.content_begin:
            raise ValueError("content_end closes the content that content_begin opens: a format with one has both")
        markers = [
            *self.section_begin,
            *self.section_end,
            *self.output_section_begin,
            *self.ignored_markers,
            *self.content_begin,
            *self.content_end,
            self.call_begin,
            self.call_end,
            self.header_end,
            self.empty_call_end,
        ]
        if self.empty_call_end is not None and self.header_end is None:
            raise ValueError("a format whose calls may close in their header (empty_call_end) has a header_end")
        if self.parameters is not None:
            markers += [self.parameters.begin, self.parameters.header_end, self.parameters.end]
            if self.parameters.nested and (
                not self.parameters.closing_name or self.parameters.next_parameter_ends_value
            ):
                raise ValueError("a nested ParameterSyntax has closing_name, and next_parameter_ends_value False")
        if self.literal is not None:
            markers += [self.literal.separator, self.literal.end, *self.literal.quotes]
        if any(marker == "" for marker in markers):
            raise ValueError("a marker is not empty")

    @classmethod
    def from_response_template(cls, template: Any, name: str = "response_template") -> ToolCallFormat:
        """The format a checkpoint's ``response_template`` describes (transformers' declarative output format): a
        dict, a tokenizer carrying one, or a ``tokenizer_config.json`` path. ``ValueError`` names the field and the
        feature the engine cannot stream (``compile_response_template`` gives the rest the template says: the message's
        fields, its ``start_anchor``)."""
        fields = dict(compile_response_template(template, name).format_fields)
        if fields.get("literal") == "python":  # the pythonic formats' literal and names
            fields.update(literal=_PYTHON_LITERAL, name_chars=_PYTHON_NAME_CHARS)
        if fields.get("parameters") is not None:
            fields["parameters"] = ParameterSyntax(**fields["parameters"])
        if isinstance(fields.get("literal"), dict):
            fields["literal"] = LiteralSyntax(**fields["literal"])
        return cls(**fields)


_DEEPSEEK = {
    "section_begin": ("<｜tool▁calls▁begin｜>",),
    "section_end": ("<｜tool▁calls▁end｜>",),
    "call_begin": "<｜tool▁call▁begin｜>",
    "call_end": "<｜tool▁call▁end｜>",
}

THINK = ("<think>", "</think>")

# Qwen3-Coder and Seed-OSS: <function=NAME> then <parameter=KEY>VALUE</parameter> blocks. The value sheds one leading
# and one trailing newline: the Qwen3-Coder template writes "<parameter=KEY>\n" VALUE "\n</parameter>"
# (vLLM 0.33 vllm/parser/qwen3.py _trim_wrapping_newlines; SGLang 0.5.23 Qwen3CoderDetector, "Remove prefixing and
# trailing \n"). The name is the header stripped.
_QWEN3_PARAMETERS = ParameterSyntax(begin="<parameter=", header_end=">", end="</parameter>", trim="\n")
_QWEN3_HEADER = re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL)

# A quoted or bare name (MiniMax: name="K", also name='K' or name=K in vLLM 0.33's vllm/parser/minimax_m2.py).
_QUOTED_NAME = re.compile(r"""\s*(?P<quote>["']?)(?P<name>.*?)(?P=quote)\s*""", re.DOTALL)

# Python's identifiers and dotted names, the pythonic formats' tool names (vLLM 0.33 handle_single_tool takes
# ``a.b.c(...)`` too).
_PYTHON_NAME_CHARS = re.compile(r"[\w.\s]*")
_PYTHON_LITERAL = LiteralSyntax(
    separator="=",
    end=")",
    quotes=('"""', "'''", '"', "'"),
    escapes=True,
    python=True,
    key_end=re.compile(r"[^\w\s]"),
)

_DSML_PARAMETER_HEADER = re.compile(
    r'\s*name\s*=\s*"(?P<name>[^"]*)"(?:\s+string\s*=\s*"(?P<string>[^"]*)")?\s*', re.DOTALL
)


def _dsml(
    name: str, section_begin: tuple[str, ...], section_end: str, tag: str = "<｜DSML｜", **more: Any
) -> ToolCallFormat:
    """A DSML format (DeepSeek V3.2, V4, V4.1): its section's markers, and how its tags begin (``tag``)."""
    close = "</" + tag[1:]
    return ToolCallFormat(
        name,
        "parameters",
        section_begin=section_begin,
        section_end=(section_end,),
        call_begin=f'{tag}invoke name="',
        call_end=f"{close}invoke>",
        header_end='">',
        empty_call_end="/>",  # (after the name's closing quote, blanks allowed)
        header=re.compile(r'\s*(?P<name>.*?)\s*(?:"\s*)?', re.DOTALL),
        parameters=ParameterSyntax(
            begin=f"{tag}parameter", header_end=">", end=f"{close}parameter>", header=_DSML_PARAMETER_HEADER
        ),
        **more,
    )


_M3 = "]<]minimax[>["  # MiniMax-M3's marker before every tag

FORMATS: dict[str, ToolCallFormat] = {}
"""The built-in formats by name, as these models write them."""

for _format in (
    # Hermes 2/3, Qwen 2.5/3: <tool_call>{"name": ..., "arguments": {...}}</tool_call>, one block a call.
    # Granite 4 writes the same (vLLM 0.33 vllm/tool_parsers/granite4_tool_parser.py).
    ToolCallFormat("hermes", "call", call_begin="<tool_call>", call_end="</tool_call>", aliases=("qwen", "granite4")),
    # Llama 3.1-3.3: an optional <|python_tag|>, then {"name": ..., "parameters": {...}}, several joined by "; ".
    ToolCallFormat(
        "llama3_json",
        "call",
        section_begin=("<|python_tag|>",),
        arguments_keys=("parameters", "arguments"),
        separators=";",
        bare_json_start=True,
    ),
    # Mistral: [TOOL_CALLS], then a JSON array of {"name", "arguments"} (tokenizers before v11; or one such object), or
    # NAME[ARGS]{...} for each call (v11 on; [CALL_ID]ID before [ARGS] in some), or NAME{...} (vLLM 0.33
    # vllm/parser/mistral.py's OPEN_BRACE transition). Production traffic mixes them: one format reads every spelling,
    # as SGLang 0.5.23's MistralDetector does.
    ToolCallFormat(
        "mistral",
        "arguments",
        call_begin="[TOOL_CALLS]",
        header_end="[ARGS]",
        header=re.compile(r"\s*(?P<name>.*?)\s*(?:\[CALL_ID\]\s*(?P<id>.*?)\s*)?", re.DOTALL),
        call_objects_after_begin=True,
        json_ends_header=True,
        aliases=("mistral_v11",),
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
    # Qwen3-Coder, Qwen3.5/3.6, Nemotron-3-Nano, MiMo: <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n
    # </parameter>\n...</function>\n</tool_call>. A <function= without <tool_call> before it is a call too, and a
    # <tool_call> inside <think> ends the reasoning (vLLM 0.33 vllm/parser/qwen3.py's transitions). Nemotron 3 and
    # Step-3.5 write it unchanged (vLLM 0.33 vllm/parser/nemotron_v3.py, step3p5.py: qwen3_config under their names;
    # Step-3.5's template opens the reasoning block: ModelOutputStream(..., reasoning_open=True)).
    ToolCallFormat(
        "qwen3_coder",
        "parameters",
        section_begin=("<tool_call>",),
        section_end=("</tool_call>",),
        call_begin="<function=",
        call_end="</function>",
        header_end=">",
        header=_QWEN3_HEADER,
        parameters=_QWEN3_PARAMETERS,
        reasoning=THINK,
        calls_end_reasoning=True,
        aliases=("qwen3_xml", "nemotron_v3", "step3p5"),
    ),
    # Seed-OSS: the Qwen3-Coder grammar inside <seed:tool_call>, reasoning in <seed:think> (vLLM 0.33
    # vllm/parser/seed_oss.py: "seed_oss shares the Qwen3 XML grammar exactly").
    ToolCallFormat(
        "seed_oss",
        "parameters",
        section_begin=("<seed:tool_call>",),
        section_end=("</seed:tool_call>",),
        call_begin="<function=",
        call_end="</function>",
        header_end=">",
        header=_QWEN3_HEADER,
        parameters=_QWEN3_PARAMETERS,
        reasoning=("<seed:think>", "</seed:think>"),
        calls_end_reasoning=True,
    ),
    # GLM-4.5 to 4.7, GLM-5: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>...</tool_call>; GLM-4.5
    # writes a newline after the name and after each tag, GLM-4.7 none. The name and key are stripped; the value is
    # kept as written (vLLM 0.33 vllm/parser/glm47_moe.py, its parser for glm45 and glm47; blanks between
    # </arg_key> and <arg_value> as its _ARG_RE's "\s*"). A call may have no arguments (vLLM #44326).
    ToolCallFormat(
        "glm47",
        "parameters",
        call_begin="<tool_call>",
        call_end="</tool_call>",
        header=re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL),
        parameters=ParameterSyntax(
            begin="<arg_key>",
            header_end="</arg_key>",
            end="</arg_value>",
            value_begin="<arg_value>",
            next_parameter_ends_value=False,
        ),
        reasoning=THINK,
        calls_end_reasoning=True,
        aliases=("glm45", "glm4_moe"),
    ),
    # MiniMax-M2: <minimax:tool_call>\n<invoke name="NAME">\n<parameter name="K">V</parameter>\n...</invoke>\n
    # </minimax:tool_call>; the value is kept as written, "inline between > and </parameter>, so surrounding
    # whitespace is data" (vLLM 0.33 vllm/parser/minimax_m2.py).
    ToolCallFormat(
        "minimax_m2",
        "parameters",
        section_begin=("<minimax:tool_call>",),
        section_end=("</minimax:tool_call>",),
        call_begin="<invoke name=",
        call_end="</invoke>",
        header_end=">",
        header=_QUOTED_NAME,
        parameters=ParameterSyntax(begin="<parameter name=", header_end=">", end="</parameter>", header=_QUOTED_NAME),
        reasoning=THINK,
        calls_end_reasoning=True,
    ),
    # DeepSeek V3.2 ("DSML"): <｜DSML｜function_calls>, <｜DSML｜invoke name="NAME">,
    # <｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>, </｜DSML｜invoke>,
    # </｜DSML｜function_calls>. string="true": the value is the raw string; "false", or no attribute: it is JSON
    # (vLLM 0.33 vllm/parser/deepseek_v4.py _dsml_arg_converter, which DeepSeek V3.2's parser shares). The bars are
    # U+FF5C. An invoke may close itself, a call without arguments: <｜DSML｜invoke name="submit"/>.
    _dsml("deepseek_v32", ("<｜DSML｜function_calls>",), "</｜DSML｜function_calls>"),
    # DeepSeek V4: DSML in <｜DSML｜tool_calls> (<｜DSML｜toolcalls> and <｜DSML｜tool> open it too, "spelling variants
    # observed in production"), reasoning in <think> (vLLM 0.33 vllm/parser/deepseek_v4.py).
    _dsml(
        "deepseek_v4",
        ("<｜DSML｜tool_calls>", "<｜DSML｜toolcalls>", "<｜DSML｜tool>"),
        "</｜DSML｜tool_calls>",
        reasoning=THINK,
        calls_end_reasoning=True,
    ),
    # DeepSeek V4.1: V4's DSML with a blank after the bars and "calls" for "tool_calls": <｜DSML｜ calls>,
    # <｜DSML｜ invoke name="NAME">, <｜DSML｜ parameter ...>, and their ends (vLLM 0.33 vllm/parser/deepseek_v41.py).
    _dsml(
        "deepseek_v41",
        ("<｜DSML｜ calls>",),
        "</｜DSML｜ calls>",
        tag="<｜DSML｜ ",
        reasoning=THINK,
        calls_end_reasoning=True,
    ),
    # Kimi K3 (XTML, markers of the special tokens <|open|>, <|close|>, <|sep|>): the reply in a response channel,
    # whose markers say nothing; the calls in a tools channel, <|open|>call tool="NAME" index="1"<|sep|>, each
    # argument <|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>, then <|close|>call<|sep|>. A
    # string's value is its raw text; any other type's is JSON; no type is a string. Reasoning in a think channel
    # (vLLM 0.33 vllm/tool_parsers/kimi_k3_tool_parser.py, vllm/reasoning/kimi_k3_reasoning_parser.py).
    ToolCallFormat(
        "kimi_k3",
        "parameters",
        section_begin=("<|open|>tools<|sep|>",),
        section_end=("<|close|>tools<|sep|>",),
        call_begin="<|open|>call",
        call_end="<|close|>call<|sep|>",
        header_end="<|sep|>",
        header=re.compile(r'\s*(?:(?:tool="(?P<name>[^"]*)"|\w+="[^"]*")\s*)*'),
        parameters=ParameterSyntax(
            begin="<|open|>argument",
            header_end="<|sep|>",
            end="<|close|>argument<|sep|>",
            header=re.compile(r'\s*(?:(?:key="(?P<name>[^"]*)"|type="(?P<string>[^"]*)"|\w+="[^"]*")\s*)*'),
            raw_strings=("string",),
            raw_by_default=True,
        ),
        ignored_markers=("<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>"),
        reasoning=("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
        calls_end_reasoning=True,
    ),
    # MiniMax-M3: every tag after the marker ]<]minimax[>[ : <tool_call>, <invoke name="NAME">, a parameter as an
    # element named after it, <KEY>VALUE</KEY>, whose value may hold elements (an object; <item> elements an array
    # where the schema says so), </invoke>, </tool_call>; reasoning in <mm:think> (vLLM 0.33
    # vllm/parser/minimax_m3.py, vllm/reasoning/minimax_m3_reasoning_parser.py).
    ToolCallFormat(
        "minimax_m3",
        "parameters",
        section_begin=(f"{_M3}<tool_call>",),
        section_end=(f"{_M3}</tool_call>",),
        call_begin=f"{_M3}<invoke name=",
        call_end=f"{_M3}</invoke>",
        header_end=">",
        header=_QUOTED_NAME,
        parameters=ParameterSyntax(
            begin=f"{_M3}<",
            header_end=">",
            end=f"{_M3}</",
            next_parameter_ends_value=False,
            closing_name=True,
            nested=True,
        ),
        reasoning=("<mm:think>", "</mm:think>"),
    ),
    # Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>, an object literal with <|"|> as the string
    # quote and bare keys; reasoning in <|channel>thought\n...<channel|> (vLLM 0.33 vllm/parser/gemma4.py, which also
    # reads a bare ":NAME{" opener). The end of a turn (<turn|>, <|tool_response>, <eos>: the content's closers in the
    # checkpoints' response_template) is dropped from content, as vLLM's engine drops Gemma's special tokens and as
    # streaming_json_hf reading that template does.
    ToolCallFormat(
        "gemma4",
        "literal",
        call_begin="<|tool_call>",
        call_end="<tool_call|>",
        header_end="{",
        header=re.compile(r"\s*(?:call)?\s*:?\s*(?P<name>.*?)\s*", re.DOTALL),
        literal=LiteralSyntax(
            separator=":",
            end="}",
            quotes=('<|"|>',),
            escapes=False,
            python=False,
            key_end=re.compile(r"[:,{}\[\]<]"),
        ),
        reasoning=("<|channel>thought\n", "<channel|>"),
        calls_end_reasoning=True,
        ignored_markers=("<turn|>", "<|tool_response>", "<eos>"),
    ),
    # gpt-oss (Harmony): messages. The output begins in the first one's header (the prompt ends with
    # <|start|>assistant); <|channel|>analysis<|message|>...<|end|> is reasoning; <|channel|>commentary
    # to=functions.NAME <|constrain|>json<|message|>{...}<|call|> a call (the recipient may come before <|channel|>);
    # <|channel|>final<|message|>...<|return|> and commentary without a recipient are content (vLLM 0.33
    # vllm/parser/harmony.py _SegmentType). The recipient ends at a blank or a special token (vLLM #32587).
    ToolCallFormat(
        "harmony",
        "arguments",
        call_begin="<|start|>",
        call_end="<|call|>",
        header_end="<|message|>",
        channels=ChannelSyntax(
            header_end="<|message|>",
            message_end=("<|end|>", "<|return|>", "<|call|>"),
            recipient=re.compile(r"\bto=(?P<recipient>[^\s<]+)"),
            channel=re.compile(r"<\|channel\|>\s*(?P<channel>[^\s<]+)"),
            kinds=(("analysis", "reasoning"), ("final", "content"), ("commentary", "content")),
            recipient_prefix="functions.",
            header_begins=("<|channel|>", "to=", "assistant"),
        ),
        aliases=("gpt_oss", "openai"),
    ),
    # Pythonic (Llama 3.2, many small models): the output is a Python list of calls with keyword arguments,
    # [get_weather(city="Tokyo", days=3), get_time()], values Python literals (vLLM 0.33
    # vllm/tool_parsers/pythonic_tool_parser.py: the output starts with "[").
    ToolCallFormat(
        "pythonic",
        "literal",
        output_section_begin=("[",),
        section_end=("]",),
        header_end="(",
        header=re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL),
        name_chars=_PYTHON_NAME_CHARS,
        separators=",",
        literal=_PYTHON_LITERAL,
    ),
    # Llama 4: the pythonic list, inside <|python_start|>...<|python_end|> where the model writes them (vLLM 0.33
    # vllm/tool_parsers/llama4_pythonic_tool_parser.py).
    ToolCallFormat(
        "llama4_pythonic",
        "literal",
        section_begin=("<|python_start|>[",),
        output_section_begin=("[",),
        section_end=("]",),
        ignored_markers=("<|python_end|>",),
        header_end="(",
        header=re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL),
        name_chars=_PYTHON_NAME_CHARS,
        separators=",",
        literal=_PYTHON_LITERAL,
    ),
):
    for _name in (_format.name, *_format.aliases):
        FORMATS[_name] = _format

# The formats below are those of the families vLLM 0.33 added parsers for; where a family writes a format above with
# other markers, it is that format's data with those markers (the same rules, one place for each).
for _format in (
    # ERNIE 4.5: Hermes' blocks; an answer may come inside <response>...</response>, markers that say nothing
    # (vLLM 0.33 vllm/tool_parsers/ernie45_tool_parser.py, vllm/reasoning/ernie45_reasoning_parser.py).
    replace(
        FORMATS["hermes"], name="ernie45", ignored_markers=("<response>", "</response>"), reasoning=THINK, aliases=()
    ),
    # LongCat-Flash: Hermes' blocks in <longcat_tool_call>...</longcat_tool_call> (vLLM 0.33
    # vllm/tool_parsers/longcat_tool_parser.py).
    replace(
        FORMATS["hermes"], name="longcat", call_begin="<longcat_tool_call>", call_end="</longcat_tool_call>", aliases=()
    ),
    # Cohere Command A (cmd3, cmd4): <|START_ACTION|>[{"tool_call_id": "0", "tool_name": NAME, "parameters": {...}},
    # ...]<|END_ACTION|>; reasoning in <|START_THINKING|>...<|END_THINKING|>, the answer in <|START_RESPONSE|> (cmd3)
    # or <|START_TEXT|> (cmd4) markers that say nothing (vLLM 0.33 vllm/parser/cohere_command.py's structural tags
    # and tool schema; tests/parser/cohere/test_tool_calls.py).
    ToolCallFormat(
        "cohere_command",
        "call",
        section_begin=("<|START_ACTION|>",),
        section_end=("<|END_ACTION|>",),
        name_keys=("tool_name",),
        arguments_keys=("parameters",),
        ignored_markers=("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"),
        reasoning=("<|START_THINKING|>", "<|END_THINKING|>"),
        aliases=("cohere_command3", "cohere_command4"),
    ),
    # Hunyuan Hy3 (hy_v3): GLM's parameters, the name ended by <tool_sep>, the calls in <tool_calls>...</tool_calls>:
    # <tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>
    # (vLLM 0.33 vllm/tool_parsers/hy_v3_tool_parser.py; a checkpoint whose tokens carry a suffix, <tool_call:ID>, is
    # that data with its markers).
    replace(
        FORMATS["glm47"],
        name="hy_v3",
        section_begin=("<tool_calls>",),
        section_end=("</tool_calls>",),
        header_end="<tool_sep>",
        calls_end_reasoning=False,
        aliases=(),
    ),
    # Hunyuan Hy4 (hy_v4): GLM's calls as they are, in <tool_calls>...</tool_calls> (vLLM 0.33
    # vllm/tool_parsers/hy_v4_tool_parser.py: the name ends at the first <arg_key> or </tool_call>).
    replace(
        FORMATS["glm47"],
        name="hy_v4",
        section_begin=("<tool_calls>",),
        section_end=("</tool_calls>",),
        calls_end_reasoning=False,
        aliases=(),
    ),
    # Step-3: <｜tool_calls_begin｜>, per call <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    # <steptml:parameter name="K">V</steptml:parameter>...</steptml:invoke><｜tool_call_end｜>, <｜tool_calls_end｜>;
    # the per-call wrapper says nothing (vLLM 0.33 vllm/tool_parsers/step3_tool_parser.py). MiniMax-M2's invoke,
    # other tags; a value is kept as written (vLLM strips its blanks). The bars are U+FF5C.
    replace(
        FORMATS["minimax_m2"],
        name="step3",
        section_begin=("<｜tool_calls_begin｜>",),
        section_end=("<｜tool_calls_end｜>",),
        call_begin="<steptml:invoke name=",
        call_end="</steptml:invoke>",
        parameters=ParameterSyntax(
            begin="<steptml:parameter name=", header_end=">", end="</steptml:parameter>", header=_QUOTED_NAME
        ),
        ignored_markers=("<｜tool_call_begin｜>", "<｜tool_call_end｜>", "function<｜tool_sep｜>", "<｜tool_sep｜>"),
        calls_end_reasoning=False,
        aliases=(),
    ),
    # OLMo 3: Python calls, one a line, in <function_calls>...</function_calls>; values Python literals or JSON's
    # null, true, false (vLLM 0.33 vllm/tool_parsers/olmo3_tool_parser.py).
    replace(
        FORMATS["pythonic"],
        name="olmo3",
        section_begin=("<function_calls>",),
        section_end=("</function_calls>",),
        output_section_begin=(),
        reasoning=THINK,
        aliases=(),
    ),
):
    for _name in (_format.name, *_format.aliases):
        FORMATS[_name] = _format
