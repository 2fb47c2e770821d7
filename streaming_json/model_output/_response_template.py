"""A checkpoint's ``response_template`` (transformers' declarative output format) compiled into the data of a
:class:`ToolCallFormat` (``ToolCallFormat.from_response_template`` builds it): the template becomes data that the one
engine reads, never a second engine. This module knows no format class: it sits below them and gives their fields.

A template names fields (``reasoning_content``/``thinking``, ``content``, ``tool_calls``), each between an ``open``
and a ``close`` anchor (a literal, a list of literals, or a regex), its body read by a content parser and reshaped by a
``transform``. What compiles (transformers 5.25's semantics, ``transformers/utils/chat_parsing/``):

- the reasoning field: a literal ``open`` and ``close``, ``text`` content, becomes the format's reasoning block;
  an opener ``(?:^|<think>\\s*)`` opens it at the start of the text too (``reasoning_at_start``: ERNIE);
- the field without ``open`` (the content): its ``close`` literals, or a regex alternation of literals, are dropped
  where they stand in content (``<|im_end|>``);
- the field ``content`` with an ``open`` of its own: the format's content block (``content_begin``, ``content_end``),
  text outside every field dropped, as transformers drops it where no field lacks an opener (Cohere, ERNIE, gpt-oss);
  there a text field's opener may let text stand before its marker (Inkling's ``(?:...)?[^<]*<|content_text|>``);
- blanks beside a text field's markers (``<think>\\s*``, ``\\n?</response>``) where its value is stripped; a text
  field's ``"join": ""`` where it is kept as written (its regions' text one after another: Inkling);
- the tool-call field, ``repeats``, whose anchors are literals with at most a named group (``name``) and ``\\s*``
  between them (a leading ``\\s*`` swallows blanks), read by:

  - ``json`` transformed to ``{"type": "function", "function": "{content}"}``: JSON holding the name and the
    arguments, between the anchors (``"call"`` payload: Hermes, Qwen 2/3);
  - ``json`` with ``unquoted_keys`` and ``string_delims`` (one delimiter both sides), the name in the opener,
    transformed to ``{"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}``: an object
    literal of bare keys (``"literal"`` payload: Gemma 4);
  - ``xml-inline`` whose ``tag_pattern`` is ``LITERAL(?P<key>...)LITERAL\\s*(?P<value>.*?)\\s*LITERAL``, the name in
    the opener, with that transform: tagged parameters, each value's blanks stripped (``"parameters"`` payload:
    Qwen 3.5).
    Text between the tags is passed over (xml-inline reads the tags alone). Its ``value_parser`` ``json`` with
    ``allow_non_json``: each value JSON where its text is, else its text (Qwen3).

  - ``kv-lines``, the name in the opener and a literal after it, with that transform: ``KEY: VALUE`` lines
    (``"parameters"`` payload of lines: a line's first character begins its key, a line without the separator is
    passed over);
  - ``json`` transformed to ``{"type": "function", "function": {"name": "{content.K}", "arguments":
    "{content.K}"}}``: call objects whose name and arguments are under those keys (``"call"`` payload), the
    opener's marker perhaps after text that may stand before it, as a text field's (Inkling);
  - ``json``, the name in the opener followed by ``.*?`` and a literal, that transform: the arguments' JSON after a
    header (``"arguments"`` payload: gpt-oss's ``to=functions.NAME ... <|message|>``).

  A field of ``transform_each`` (a list of calls, between literals): ``json`` call objects whose name and
  arguments the transform names (Cohere), or ``python-call-list`` (the pythonic literal), as a section of calls.

  An opener of two literals around blanks, then the name, with a closer of one (Qwen3's
  ``<tool_call>\\s*<function=(?P<name>\\w+)>`` ... ``</tool_call>``): the first literal opens the call, and the rest
  is the call's header (one call a region, as transformers reads it); with a closer of two (Qwen 3.5's
  ``</function>\\s*</tool_call>``), the first literal opens a section around each call.

Anything else (another regex shape, content parser, option or transform) raises ``ValueError`` naming the field and
the feature: the engine would misread it.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Optional

try:  # the regex parser of the standard library (sre_parse before Python 3.11, which warns on its import after)
    _sre: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.9, 3.10
    _sre = importlib.import_module("sre_parse")

__all__ = ["ResponseTemplate", "compile_response_template", "read_response_template"]

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CALL_TRANSFORM = {"type": "function", "function": "{content}"}
_NAMED_CALL_TRANSFORM = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
_JSON_OR_TEXT_PARSER = {"name": "json", "args": {"allow_non_json": True}}
_FIELD_KEYS = {"open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats", "join"}
_FIELD_KEYS |= {"optional", "transform", "transform_each"}


@dataclass(frozen=True)
class ResponseTemplate:
    """A ``response_template`` compiled: the fields of the :class:`ToolCallFormat` the engine reads
    (``ToolCallFormat.from_response_template(template)`` builds it), and what the template says beyond it, which the
    message it describes needs (see :class:`ResponseParser`)."""

    format_fields: dict[str, Any]
    """The format's fields (a ``"parameters"`` or ``"literal"`` entry: its syntax's fields; ``"python"``: the
    pythonic formats' literal and names)."""
    template: dict[str, Any]
    """The template as given."""
    defaults: dict[str, Any]
    """The message's keys before any field closes (``{"role": "assistant"}``)."""
    content_field: Optional[str]
    """The field of the text outside the other fields (the one without ``open``)."""
    reasoning_field: Optional[str]
    """The field of the reasoning block."""
    calls_field: str
    """The field of the tool calls."""
    calls_whole_object: bool
    """Whether a call's ``function`` is the whole JSON object the model wrote (``"{content}"``), else
    ``{"name": ..., "arguments": ...}``."""
    start_anchor: Any
    """Where the assistant's message starts in a prompt (a compiled regex)."""
    blanks_before_call_are_content: bool
    """Whether blanks before a call's opener belong to the content (an opener without a leading ``\\s*``)."""
    blanks_before_close_are_content: bool
    """Whether blanks before the content's closer belong to it (a closer without a leading ``\\s*``)."""
    strip_content: bool
    """Whether the content's value is stripped (the ``text`` parser's default)."""
    strip_reasoning: bool
    """Whether the reasoning's value is stripped."""
    joined_fields: tuple[str, ...] = ()
    """The text fields whose regions join into one value (``"join": ""``): each region's text after the last's."""
    reasoning_at_start: bool = False
    """Whether the reasoning block opens at the start of the text (ERNIE's ``(?:^|<think>\\s*)``): the stream starts
    inside it (``ModelOutputStream(..., reasoning_open=True)``), the prompt's tail its first text, unless another
    field's opener stands at the very start (transformers takes the longer match there; :class:`ResponseParser`
    holds the start until it says which)."""

    def prompt_tail(self, prompt: str) -> str:
        """What of ``prompt`` belongs to the assistant's message: the text after the last ``start_anchor`` (all of
        it where there is none, as transformers reads it). Fed to the stream before the output, it opens the output
        where the prompt left it (inside the reasoning block when the chat template opened it)."""
        last_end = None
        for match in self.start_anchor.finditer(prompt):
            last_end = match.end()
        return prompt if last_end is None else prompt[last_end:]

    def reasoning_open(self, prompt: str) -> bool:
        """Whether ``prompt`` ends inside the reasoning block (its tail opens the block and does not close it):
        ``ModelOutputStream(format, reasoning_open=template.reasoning_open(prompt))``."""
        reasoning = self.format_fields["reasoning"]
        if reasoning is None:
            return False
        tail = self.prompt_tail(prompt)
        inside, position = self.reasoning_at_start, 0
        while True:  # in the block, only its closer counts; outside it, its opener
            found = tail.find(reasoning[inside], position)
            if found < 0:
                return inside
            inside, position = not inside, found + len(reasoning[inside])


def read_response_template(source: Any) -> dict[str, Any]:
    """A template from where it lives: a dict, a tokenizer (its ``response_template``), a ``tokenizer_config.json``
    path or a checkpoint's folder holding one, or its JSON text."""
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, str) and path.lstrip().startswith("{"):
            config = json.loads(path)
        else:
            if os.path.isdir(path):
                path = os.path.join(path, "tokenizer_config.json")
            with open(path, encoding="utf-8") as file:
                config = json.load(file)
        template = config.get("response_template", config if "fields" in config else None)
        if not isinstance(template, dict):
            raise ValueError(f"{os.fspath(source)!r} holds no response_template")
        return template
    template = getattr(source, "response_template", None)
    if template is None:
        template = getattr(getattr(source, "tokenizer", None), "response_template", None)  # a processor's
    if not isinstance(template, dict):
        raise ValueError(f"{type(source).__name__} has no response_template")
    return template


# --- Anchors: literals, blanks and named groups -------------------------------------------------------------------

_LITERAL, _BLANKS, _GROUP, _CHOICE, _START, _SKIP = "literal", "blanks", "group", "choice", "start", "skip"
_BEFORE = "before"
_NEGATED_CLASS_RUN = re.compile(r"\[\^(?:\\.|[^\]\\])+\]\*")  # [^<]*


def _refuse(field: str, feature: str) -> ValueError:
    return ValueError(f"response_template field {field!r}: {feature} cannot be streamed")


def _anchor(field: str, spec: dict[str, Any], literal_key: str, pattern_key: str) -> Optional[list[tuple[str, Any]]]:
    """An anchor as parts: (literal, text), (blanks, None) for ``\\s*`` (and ``\\n?``), (group, (name, pattern))
    for a named group, (choice, literals) for an alternation of literals, (skip, None) for ``.*?`` (any text up to
    what follows); (start, None) for ``(?:^|...)``, the start of the text or what follows; (before, None) for an
    optional group of literals or a run of a negated class, text that may stand before a marker (Inkling's
    ``(?:<\\|message_model\\|>)?[^<]*``: the field loop takes it before an opener only). None where the field has
    no such anchor (a ``\\Z`` closer: the text's end)."""
    if literal_key in spec:
        raw = spec[literal_key]
        literals = [raw] if isinstance(raw, str) else list(raw)
        if len(literals) == 1:
            return [(_LITERAL, literals[0])]
        return [(_CHOICE, tuple(literals))]
    if pattern_key not in spec:
        return None
    pattern = spec[pattern_key]
    if not isinstance(pattern, str):
        raise ValueError(f"response_template field {field!r}: {pattern_key} is not a string")
    if pattern == "\\Z":  # the end of the text: as no closer
        return None
    parts: list[tuple[str, Any]] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            text = _unescape("".join(literal))
            if text is None:
                raise _refuse(field, f"{pattern_key} {pattern!r}: regex beyond literals, \\s* and named groups")
            parts.append((_LITERAL, text))
            literal.clear()

    position = 0
    while position < len(pattern):
        if pattern.startswith("\\s*", position) or pattern.startswith("\\n?", position):
            flush()
            parts.append((_BLANKS, None))
            position += 3
        elif pattern.startswith(".*?", position):
            flush()
            parts.append((_SKIP, None))
            position += 3
        elif _NEGATED_CLASS_RUN.match(pattern, position):
            flush()
            parts.append((_BEFORE, None))
            position = _NEGATED_CLASS_RUN.match(pattern, position).end()  # type: ignore[union-attr]
        elif pattern.startswith("(?P<", position) or pattern.startswith("(?:", position):
            flush()
            body_start = pattern.index(">", position) + 1 if pattern[position + 2] == "P" else position + 3
            body_end = _closing(pattern, body_start)
            body = pattern[body_start:body_end]
            if pattern[position + 2] == "P":
                parts.append((_GROUP, (pattern[position + 4 : body_start - 1], body)))
            elif pattern.startswith("?", body_end + 1):
                _choice(field, pattern_key, pattern, _alternatives(body))  # literals, else refused
                parts.append((_BEFORE, None))
                body_end += 1
            else:
                parts.extend(_choice(field, pattern_key, pattern, _alternatives(body)))
            position = body_end + 1
        else:
            step = 2 if pattern[position] == "\\" else 1
            literal.append(pattern[position : position + step])
            position += step
    flush()
    return parts


def _choice(field: str, pattern_key: str, pattern: str, alternatives: list[str]) -> list[tuple[str, Any]]:
    """A ``(?:...)`` group's parts: a choice of literals, or ``^|LITERAL`` (the text's start, or the literal; either
    may be followed by ``\\s*``): ERNIE's thinking opener ``(?:^|<think>\\s*)``."""
    if alternatives[0] == "^" and len(alternatives) == 2:
        rest = alternatives[1]
        blanks = rest.endswith("\\s*")
        literal = _unescape(rest[:-3] if blanks else rest)
        if literal:
            return [(_START, None), (_LITERAL, literal)] + [(_BLANKS, None)] * blanks
    choice = [_unescape(alternative) for alternative in alternatives]
    if None in choice or "" in choice:
        raise _refuse(field, f"{pattern_key} {pattern!r}: a group of other than literals")
    return [(_CHOICE, tuple(choice))]


def _unescape(source: str) -> Optional[str]:
    """The text a regex matches where it is a literal (``<\\|im_end\\|>``), else None."""
    try:
        parsed = _sre.parse(source)
    except Exception:  # the regex module's syntax beyond re's
        return None
    if not all(op is _sre.LITERAL for op, _ in parsed):
        return None
    return "".join(chr(code) for _, code in parsed)


def _closing(pattern: str, start: int) -> int:
    """Where the group whose body starts at ``start`` closes."""
    depth, position = 1, start
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position += 2
            continue
        if char == "[":  # a class: its parentheses are characters
            position = pattern.index("]", position + 2) + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if not depth:
            return position
        position += 1
    raise ValueError(f"unbalanced parentheses in {pattern!r}")


def _alternatives(body: str) -> list[str]:
    """A group's body split at its top-level ``|``."""
    found, depth, start, position = [], 0, 0, 0
    while position < len(body):
        char = body[position]
        if char == "\\":
            position += 2
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and not depth:
            found.append(body[start:position])
            start = position + 1
        position += 1
    return [*found, body[start:]]


def _literals(parts: list[tuple[str, Any]]) -> tuple[bool, list[tuple[str, Any]]]:
    """Whether the anchor begins with ``\\s*``, and its other parts, blanks between them dropped (the engine allows
    blanks between markers where it looks for the next one)."""
    leading = bool(parts) and parts[0][0] == _BLANKS
    return leading, [part for part in parts if part[0] != _BLANKS]


# --- The template -------------------------------------------------------------------------------------------------


def compile_response_template(source: Any, name: str = "response_template") -> ResponseTemplate:
    """Compile a template (or a tokenizer, a ``tokenizer_config.json`` path, a dict: see
    :func:`read_response_template`) into a :class:`ResponseTemplate`; ``ValueError`` names the field and the feature
    the engine cannot stream."""
    if isinstance(source, ResponseTemplate):
        return source
    template = read_response_template(source)
    if template.get("version", 1) != 1:
        raise ValueError(f"response_template version {template.get('version')!r} is not 1")
    unknown = set(template) - {"version", "defaults", "fields", "start_anchor", "start_anchor_pattern"}
    if unknown:
        raise ValueError(f"response_template has unknown keys {sorted(unknown)}")
    fields = template.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise ValueError("response_template.fields is a non-empty dict")
    if "start_anchor" in template:
        anchors = template["start_anchor"]
        anchors = [anchors] if isinstance(anchors, str) else list(anchors)
        start_anchor = re.compile("|".join(re.escape(a) for a in sorted(anchors, key=len, reverse=True)), re.DOTALL)
    elif "start_anchor_pattern" in template:
        start_anchor = re.compile(template["start_anchor_pattern"], re.DOTALL)
    else:
        raise ValueError("response_template must define 'start_anchor' or 'start_anchor_pattern'")

    content_field = reasoning_field = calls_field = None
    reasoning: Optional[tuple[str, str]] = None
    reasoning_at_start = False
    content_closers: tuple[str, ...] = ()
    content_block: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    blanks_before_close = True
    strip_content = strip_reasoning = True
    joined: list[str] = []
    text_before_opener: list[str] = []  # text fields whose opener lets text stand before its marker
    calls: dict[str, Any] = {}
    for field, spec in fields.items():
        if not isinstance(spec, dict):
            raise ValueError(f"response_template field {field!r} is not a dict")
        if set(spec) - _FIELD_KEYS:
            raise ValueError(f"response_template field {field!r} has unknown keys {sorted(set(spec) - _FIELD_KEYS)}")
        if spec.get("optional", True) is not True:
            raise _refuse(field, "'optional': false")
        content = spec.get("content", "text")
        strip = spec.get("content_args", {}).get("strip", True)
        is_text = content == "text" and "transform" not in spec
        if spec.get("join") is not None:
            # transformers joins each region's value to the last; the engine's events do not say where one region of
            # a field ends and the next begins (two blocks in a row), so only a join that is all the text compiles.
            if not is_text or spec["join"] != "" or strip is not False:
                raise _refuse(field, "'join' other than \"\" of text kept as written ('strip': false)")
            joined.append(field)
        elif spec.get("repeats") and is_text:
            raise _refuse(field, "a text field that repeats without 'join' (a list of its regions)")
        opener = _anchor(field, spec, "open", "open_pattern")
        closer = _anchor(field, spec, "close", "close_pattern")
        if opener and opener[0][0] == _BEFORE:  # (?:<\|message_model\|>)?[^<]*<\|content_text\|>
            text_before_opener.append(field)
            while opener and opener[0][0] in (_BEFORE, _SKIP):
                opener = opener[1:]
            if not opener:
                raise _refuse(field, "an opener without a marker")
        for anchor, key in ((opener, "open_pattern"), (closer, "close_pattern")):
            if anchor and any(kind == _BEFORE for kind, _ in anchor):
                raise _refuse(field, f"{key} {spec[key]!r}: an optional group or a [^...]* run but before its marker")
        if opener is None:  # the content: what no other field holds
            if not is_text:
                raise _refuse(field, f"a field without an opener read as {content!r} or transformed")
            if content_block[0]:
                raise _refuse(field, "a field without an opener beside a content field with one")
            if content_field is not None:
                raise ValueError("response_template: at most one field omits 'open'")
            content_field = field
            strip_content = spec.get("content_args", {}).get("strip", True)
            if closer is not None:
                leading, parts = _literals(closer)
                blanks_before_close = not leading
                for kind, value in parts:
                    if kind in (_GROUP, _SKIP):
                        raise _refuse(field, "a named group or .*? in the content's closer")
                    content_closers += (value,) if kind == _LITERAL else value
            continue
        if is_text:
            if field == "content":  # the content between anchors of its own: text outside every field is dropped
                if content_field is not None:
                    raise _refuse(field, "a content field with an opener beside a field without one")
                content_field, strip_content = field, strip
                content_block = (_text_anchor(field, opener, strip, "opener"), ())
                if closer is not None:
                    content_block = (content_block[0], _text_anchor(field, closer, strip, "closer"))
                continue
            if reasoning_field is not None or field not in _REASONING_FIELDS:
                raise _refuse(field, "a text field other than the content and the reasoning")
            reasoning_at_start = opener[0][0] == _START
            begins = _text_anchor(field, opener[reasoning_at_start:], strip, "opener")
            ends = _text_anchor(field, closer, strip, "closer") if closer is not None else ()
            if len(begins) != 1 or len(ends) != 1:
                raise _refuse(field, "a reasoning block not between one literal opener and one literal closer")
            reasoning_field, reasoning, strip_reasoning = field, (begins[0], ends[0]), strip
            continue
        if calls_field is not None:
            raise _refuse(field, "a second structured field")
        if spec.get("transform_each"):
            if spec.get("repeats"):
                raise _refuse(field, "'transform_each' with 'repeats' (a list of lists of calls)")
        elif not spec.get("repeats"):
            raise _refuse(field, "a structured field without 'repeats' (one value, not a list of calls)")
        if closer is None:
            raise _refuse(field, "a tool-call field without a closer")
        calls_field = field
        calls = _compile_calls(field, spec, content, opener, closer)
    if calls_field is None:
        raise ValueError("response_template has no tool-call field: there is nothing for the engine to stream")
    if text_before_opener and content_field is not None and not content_block[0]:
        # Where no field lacks an opener, the text before a marker is dropped whichever of them it stood before.
        raise _refuse(text_before_opener[0], "text before the opener's marker, which the field without one would hold")
    leading = calls.pop("leading_blanks")
    whole = calls.pop("whole_object")
    calls.update(
        name=name,
        reasoning=reasoning,
        ignored_markers=tuple(dict.fromkeys(content_closers)),
        calls_end_reasoning=False,
        content_begin=content_block[0],
        content_end=content_block[1],
    )
    return ResponseTemplate(
        format_fields=calls,
        template=template,
        defaults=dict(template.get("defaults", {})),
        content_field=content_field,
        reasoning_field=reasoning_field,
        calls_field=calls_field,
        calls_whole_object=whole,
        start_anchor=start_anchor,
        blanks_before_call_are_content=not leading,
        blanks_before_close_are_content=blanks_before_close,
        strip_content=strip_content,
        strip_reasoning=strip_reasoning,
        reasoning_at_start=reasoning_at_start,
        joined_fields=tuple(joined),
    )


def _text_anchor(field: str, parts: list[tuple[str, Any]], strip: bool, which: str) -> tuple[str, ...]:
    """A text field's opener or closer: its literals (one, or a choice). Blanks beside them (``<think>\\s*``,
    ``\\n?</response>``) are the field's text, which its stripping sheds; a field kept as written refuses them."""
    literals = [part for part in parts if part[0] != _BLANKS]
    if len(literals) != 1 or literals[0][0] not in (_LITERAL, _CHOICE):
        raise _refuse(field, f"a text field's {which} other than a literal or a choice of literals")
    if len(literals) != len(parts) and not strip:
        raise _refuse(field, f"blanks in the {which} of a text field kept as written ('strip': false)")
    kind, value = literals[0]
    return (value,) if kind == _LITERAL else tuple(value)


def _compile_calls(
    field: str, spec: dict[str, Any], content: str, opener: list[tuple[str, Any]], closer: list[tuple[str, Any]]
) -> dict[str, Any]:
    """The tool-call field's part of the format's data."""
    leading, opens = _literals(opener)
    _, closes = _literals(closer)
    if any(kind != _LITERAL for kind, _ in closes) or not 1 <= len(closes) <= 2:
        raise _refuse(field, "a closer other than one or two literals")
    transform = spec.get("transform")
    args = dict(spec.get("content_args", {}))
    named = [part for part in opens if part[0] == _GROUP]
    if any(kind == _CHOICE for kind, _ in opens):
        raise _refuse(field, "an opener with a choice of literals")
    data: dict[str, Any] = {"leading_blanks": leading, "whole_object": False}
    if spec.get("transform_each"):
        return _compile_call_list(field, content, transform, args, opens, closes, data)
    if content == "json" and not named:
        keys = _call_keys(transform, "content.")
        if (transform != _CALL_TRANSFORM and keys is None) or args or len(opens) != 1 or len(closes) != 1:
            raise _refuse(field, f"json content with transform {transform!r}, content_args {args!r}")
        data.update(payload="call", call_begin=opens[0][1], call_end=closes[0][1], arguments_keys=("arguments",))
        if keys is None:
            data["whole_object"] = True
        else:  # {content.KEY}: the name and the arguments under keys of the JSON object
            data.update(name_keys=(keys[0],), arguments_keys=(keys[1],))
        return data
    if transform != _NAMED_CALL_TRANSFORM:
        raise _refuse(field, f"the transform {transform!r}")
    if len(named) != 1 or named[0][1][0] != "name" or opens[0][0] != _LITERAL:
        raise _refuse(field, "an opener that is not literals around one named group 'name'")
    group_at = opens.index(named[0])
    before, after = opens[:group_at], opens[group_at + 1 :]
    skip = after[:1] == [(_SKIP, None)]  # .*? after the name: the header's text up to the marker after it
    if skip:
        after = after[1:]
    if any(kind == _SKIP for kind, _ in before + after) or (skip and not after):
        raise _refuse(field, "an opener's .*? other than between the name and a literal")
    if len(after) > 1:
        raise _refuse(field, "an opener of more than one literal after the name")
    name_then = r".*?" if skip else r"\s*"
    if len(before) == 2 and len(closes) == 2:  # a section marker, then each call's marker; their closers
        header = re.compile(r"(?P<name>" + named[0][1][1] + ")" + name_then, re.DOTALL)
        data.update(section_begin=(before[0][1],), section_end=(closes[1][1],), call_begin=before[1][1])
    elif len(closes) != 1:
        raise _refuse(field, "an opener of one marker with a closer of two")
    elif len(before) == 1:
        header = re.compile(r"(?P<name>" + named[0][1][1] + ")" + name_then, re.DOTALL)
        data.update(call_begin=before[0][1])
    else:  # the first marker opens the call; the rest, blanks between, and the name are its header
        first = next(at for at, part in enumerate(opener) if part[0] == _LITERAL)
        parts = opener[first + 1 : opener.index(named[0]) + 1]
        header = re.compile("".join(_as_regex(part) for part in parts) + (".*?" if skip else ""), re.DOTALL)
        # A header of other characters (Hermes' JSON after <tool_call>) is no call: transformers' opener does not
        # match it, and its text is content.
        data.update(call_begin=before[0][1], name_chars=None if skip else _header_chars(parts))
    data.update(call_end=closes[0][1], header=header)
    if content == "json" and not args and after:  # the arguments' JSON after the header (gpt-oss's <|message|>)
        data.update(payload="arguments", header_end=after[0][1])
        return data
    if content == "json":
        unknown = set(args) - {"unquoted_keys", "string_delims"}
        delims = args.get("string_delims") or []
        if unknown or not args.get("unquoted_keys") or not delims or after:
            raise _refuse(field, "json content read after the name without unquoted_keys and string_delims")
        if any(open_ != close for open_, close in delims):
            raise _refuse(field, "string_delims whose opener and closer differ")
        quotes = tuple(sorted({open_ for open_, _ in delims}, key=len, reverse=True))
        data.update(
            payload="literal",
            header_end="{",
            literal={
                "separator": ":",
                "end": "}",
                "quotes": quotes,
                "escapes": False,
                "python": False,
                "key_end": re.compile(r"[:,{}\[\]" + re.escape("".join({q[0] for q in quotes})) + "]"),
                "schema_types_bare_values": False,  # transformers casts strings only (its _coerce_tool_calls)
            },
        )
        return data
    if content == "xml-inline":
        unknown = set(args) - {"tag_pattern", "value_parser"}
        if unknown:
            raise _refuse(field, f"xml-inline's {sorted(unknown)}")
        value_parser = args.get("value_parser")
        if value_parser not in (None, _JSON_OR_TEXT_PARSER):
            raise _refuse(field, f"xml-inline's value_parser {value_parser!r}")
        if not after:
            raise _refuse(field, "xml-inline parameters with no marker after the name")
        parameters = _parameters(field, args["tag_pattern"])
        if value_parser is not None:  # JSON where the value's text is, else the text stripped (transformers' _json)
            parameters.update(json_or_text=True, strip=True)
        data.update(payload="parameters", header_end=after[0][1], parameters=parameters)
        return data
    if content == "kv-lines":  # KEY: VALUE lines, each line, key and value stripped, a line without ":" passed over
        unknown = set(args) - {"line_sep", "kv_sep", "value_parser", "strip"}
        value_parser = args.get("value_parser")
        if unknown or args.get("strip", True) is not True or value_parser not in (None, _JSON_OR_TEXT_PARSER):
            raise _refuse(field, f"kv-lines with content_args {args!r}")
        if not after:
            raise _refuse(field, "kv-lines with no marker after the name")
        line_sep, kv_sep = args.get("line_sep", "\n"), args.get("kv_sep", ":")
        parameters = {"begin": line_sep, "header_end": kv_sep, "end": line_sep, "lines": True, "strip": True}
        parameters.update(next_parameter_ends_value=False, json_or_text=value_parser is not None)
        data.update(payload="parameters", header_end=after[0][1], parameters=parameters)
        return data
    raise _refuse(field, f"the content parser {content!r}")


def _compile_call_list(
    field: str,
    content: str,
    transform: Any,
    args: dict[str, Any],
    opens: list[tuple[str, Any]],
    closes: list[tuple[str, Any]],
    data: dict[str, Any],
) -> dict[str, Any]:
    """A field whose content is a list of calls, each transformed (``transform_each``): a section of calls between
    the field's literals, read by the engine's ``"call"`` payload (a JSON array of call objects, the transform naming
    their keys: Cohere's ``tool_name`` and ``parameters``) or its pythonic literal (``python-call-list``)."""
    if len(opens) != 1 or opens[0][0] != _LITERAL or len(closes) != 1:
        raise _refuse(field, "'transform_each' between other than one literal opener and one literal closer")
    keys = _call_keys(transform, "")
    if keys is None:
        raise _refuse(field, f"'transform_each' with the transform {transform!r}")
    data.update(section_begin=(opens[0][1],), section_end=(closes[0][1],))
    if content == "json" and not args:
        data.update(payload="call", name_keys=(keys[0],), arguments_keys=(keys[1],))
        return data
    if content == "python-call-list" and not args and keys == ["name", "arguments"]:
        # The pythonic literal: name(key=value, ...) calls joined by commas, between [ and ] (section_brackets).
        data.update(payload="literal", literal="python", name_chars="python", separators=",", header_end="(")
        data["section_brackets"] = True
        data["header"] = re.compile(r"\s*(?P<name>.*?)\s*", re.DOTALL)
        return data
    raise _refuse(field, f"'transform_each' over the content parser {content!r} with content_args {args!r}")


def _call_keys(transform: Any, scope: str) -> Optional[list[str]]:
    """The keys of a call object that a transform ``{"type": "function", "function": {"name": "{SCOPE.NAME_KEY}",
    "arguments": "{SCOPE.ARGUMENTS_KEY}"}}`` reads the name and the arguments from, else None."""
    function = transform.get("function") if isinstance(transform, dict) else None
    if not isinstance(function, dict) or transform != {"type": "function", "function": function} or len(function) != 2:
        return None
    keys = []
    for part in ("name", "arguments"):
        value = function.get(part)
        matched = re.fullmatch(r"\{" + re.escape(scope) + r"(\w+)\}", value) if isinstance(value, str) else None
        if matched is None:
            return None
        keys.append(matched[1])
    return keys


def _header_chars(parts: list[tuple[str, Any]]) -> Optional[re.Pattern[str]]:
    """The characters a header of these parts may hold (its literals', blanks, the name's class), else None where the
    name's pattern is not one class repeated."""
    alternatives = []
    for kind, value in parts:
        if kind == _LITERAL:
            alternatives += [re.escape(char) for char in value]
        elif kind == _BLANKS:
            alternatives.append(r"\s")
        elif kind == _CHOICE:
            alternatives += [re.escape(char) for literal in value for char in literal]
        else:
            body = value[1]
            one = body[:-1] if body[-1:] in ("+", "*") else ""
            try:
                parsed = list(_sre.parse(one)) if one else []
            except Exception:  # the regex module's syntax beyond re's
                parsed = []
            if len(parsed) != 1 or parsed[0][0] not in (_sre.IN, _sre.LITERAL, _sre.NOT_LITERAL):
                return None
            alternatives.append(one)
    return re.compile("(?:" + "|".join(dict.fromkeys(alternatives)) + ")*")


def _as_regex(part: tuple[str, Any]) -> str:
    """An anchor's part as the regex it came from."""
    kind, value = part
    if kind == _LITERAL:
        return re.escape(str(value))
    if kind == _BLANKS:
        return r"\s*"
    if kind == _GROUP:
        return f"(?P<{value[0]}>{value[1]})"
    return "(?:" + "|".join(re.escape(literal) for literal in value) + ")"


def _parameters(field: str, tag_pattern: str) -> dict[str, Any]:
    """``LITERAL(?P<key>...)LITERAL\\s*(?P<value>.*?)\\s*LITERAL`` (the blanks optional) as a ParameterSyntax."""
    parts = _anchor(field, {"tag_pattern": tag_pattern}, "_", "tag_pattern") or []
    kinds = [kind for kind, _ in parts]
    strip = kinds == [_LITERAL, _GROUP, _LITERAL, _BLANKS, _GROUP, _BLANKS, _LITERAL]
    if not strip and kinds != [_LITERAL, _GROUP, _LITERAL, _GROUP, _LITERAL]:
        raise _refuse(field, f"the tag_pattern {tag_pattern!r}")
    key, key_source = parts[1][1]
    value = [part for part in parts[3:] if part[0] == _GROUP][0][1]
    if key != "key" or value != ("value", ".*?"):
        raise _refuse(field, f"the tag_pattern {tag_pattern!r}: not (?P<key>...) then (?P<value>.*?)")
    return {
        "begin": parts[0][1],
        "header_end": parts[2][1],
        "end": parts[-1][1],
        "header": re.compile(r"(?P<name>" + key_source + ")", re.DOTALL),
        "next_parameter_ends_value": False,
        "strip": strip,
        "text_between_ignored": True,  # xml-inline reads its tags, and passes over any other text
    }
