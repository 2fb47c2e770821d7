"""A format's calls as an xgrammar structural tag, built from its :class:`ToolCallFormat` data: what an inference
server hands xgrammar to make the model write its calls in its own format when the request requires a call
(``tool_choice="required"``, a named tool) or a tool is strict.

The tag is a plain dict in xgrammar's structural tag schema (``{"type": "structural_tag", "format": {...}}``, the
``response_format`` of the same name); nothing here imports xgrammar. Each call is spelled from the format's
markers: ``call_begin``, the header its ``header`` pattern reads, with the tool's name in place of the pattern's
``name`` group (the text before the name spelled as the model writes it, the rest allowed as the pattern allows it),
``header_end``, the arguments, ``arguments_end``, ``call_end``; calls stand in the format's section
(``section_begin`` ... ``section_end``), joined by its ``separators`` or, for call objects without one, in a JSON
array. The arguments by payload:

- ``"call"``: ``{"name": "NAME", "arguments": ARGS}`` (the format's first name and arguments keys), ARGS JSON;
- ``"arguments"``: the JSON arguments;
- ``"parameters"``: a block per parameter, its header spelled from the ``ParameterSyntax`` (the ``string`` group
  ``"true"`` for a string-typed parameter, ``"false"`` otherwise), a string value as raw text, any other value as
  the JSON of its schema;
- ``"literal"``: keyword arguments or an object literal in the ``LiteralSyntax`` (a grammar of its strings, numbers,
  bare words, lists and objects);
- Harmony's messages (``channels``): the call's message header (its channel, then the recipient), then JSON.

A strict tool's arguments follow its parameters' JSON Schema (for ``"parameters"`` and ``"literal"`` payloads: its
keys, and each value's type); a tool that is not strict gets any arguments the payload's syntax allows, as vLLM and
SGLang constrain them (the call's envelope and name are constrained either way).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Sequence
from typing import Any, Optional, Union

from ._formats import LiteralSyntax, ParameterSyntax, ToolCallFormat

_sre: Any
try:  # the regular expression parser, which CPython 3.11 moved
    _sre = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - before 3.11
    _sre = importlib.import_module("sre_parse")

__all__ = ["structural_tag", "has_structural_tag", "call_markers", "legacy_structure", "ToolSpec"]

Schema = Union[dict[str, Any], bool]
ToolSpec = tuple[str, Schema]
"""A tool as the tag constrains it: its name, and its parameters' JSON Schema (``True``: any arguments)."""

_BLANKS = r"[ \t\r\n]*"


def _const(value: str) -> dict[str, Any]:
    return {"type": "const_string", "value": value}


def _regex(pattern: str) -> dict[str, Any]:
    return {"type": "regex", "pattern": pattern}


def _sequence(*elements: Optional[dict[str, Any]]) -> dict[str, Any]:
    kept = [element for element in elements if element is not None]
    return kept[0] if len(kept) == 1 else {"type": "sequence", "elements": kept}


def _any_of(elements: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return elements[0] if len(elements) == 1 else {"type": "or", "elements": list(elements)}


def _tag(begin: str, content: dict[str, Any], end: Union[str, list[str]]) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _blanks() -> dict[str, Any]:
    return _regex(_BLANKS)


def _json(schema: Schema) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": schema}


# --- Spelling a header from its pattern ----------------------------------------------------------------------------

_CATEGORY_CLASSES = {
    _sre.CATEGORY_DIGIT: "0-9",
    _sre.CATEGORY_SPACE: r" \t\n\r\f\v",
    _sre.CATEGORY_WORD: "a-zA-Z0-9_",
}
_CATEGORY_NEGATED = {
    _sre.CATEGORY_NOT_DIGIT: "0-9",
    _sre.CATEGORY_NOT_SPACE: r" \t\n\r\f\v",
    _sre.CATEGORY_NOT_WORD: "a-zA-Z0-9_",
}
_CATEGORY_SAMPLES = {_sre.CATEGORY_DIGIT: "0", _sre.CATEGORY_SPACE: " ", _sre.CATEGORY_WORD: "a"}


def _class_char(code: int) -> str:
    char = chr(code)
    return "\\" + char if char in "\\]^-[" else re.escape(char) if char in "\n\t\r\f\v" else char


class _Speller:
    """Walks a header pattern: the text before the tool's name is spelled as a model writes it (blanks left out,
    optional parts with text kept, the groups given their values); after the name (``split``), the pattern is
    written out as a regular expression, so that what follows the name may be as the format allows it."""

    def __init__(self, values: dict[str, str], split: bool) -> None:
        self.values = values
        self.split = split
        self.spelled: list[str] = []
        self.pattern: list[str] = []
        self.after_name = False
        self.groups: dict[int, str] = {}
        self.names: dict[int, str] = {}
        self.used: set[str] = set()  # the given groups spelled so far

    def walk(self, pattern: re.Pattern[str]) -> tuple[str, str]:
        parsed = _sre.parse(pattern.pattern, pattern.flags)
        self.names = {number: name for name, number in parsed.state.groupdict.items()}
        self.items(parsed)
        return "".join(self.spelled), "".join(self.pattern)

    def items(self, items: Any) -> None:
        for op, argument in items:
            self.item(op, argument)

    def item(self, op: Any, argument: Any) -> None:
        if self.after_name:
            self.pattern.append(self.regex(op, argument))
            return
        if op is _sre.SUBPATTERN:
            number, _, _, inner = argument
            name = self.names.get(number)
            if name is not None and name in self.values:
                self.spelled.append(self.values[name])
                self.groups[number] = self.values[name]
                self.used.add(name)
                if name == "name" and self.split:
                    self.after_name = True
                return
            start = len(self.spelled)
            self.items(inner)
            self.groups[number] = "".join(self.spelled[start:])
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            low, high, inner = argument
            for _ in range(low):
                self.items(inner)
            written = low
            # A repeat of attributes (Kimi K3's key="K" type="T"): once for each given group it holds, a blank
            # between; after the tool's name, the rest of it as the pattern allows.
            while written < high and not self.after_name and self._worth_writing(inner):
                if written and self.spelled and not self.spelled[-1].endswith(" "):
                    self.spelled.append(" ")
                self.items(inner)
                written += 1
                if not self._holds_unused_group(inner):
                    break
            if self.after_name and written < high:
                self.pattern.append(self.regex(op, (0, high if high is _sre.MAXREPEAT else high - written, inner)))
        elif op is _sre.BRANCH:
            branches = argument[1]
            wanted = [branch for branch in branches if self._holds_unused_group(branch)]
            plain = [branch for branch in branches if not self._named_groups(branch)]
            self.items((wanted or plain or branches)[0])
        else:
            self.spelled.append(self.sample(op, argument))

    def _named_groups(self, items: Any) -> list[str]:
        groups = [self.names.get(argument[0]) for op, argument in _walk(items) if op is _sre.SUBPATTERN]
        return [name for name in groups if name is not None]

    def _holds_unused_group(self, items: Any) -> bool:
        return any(name in self.values and name not in self.used for name in self._named_groups(items))

    def _worth_writing(self, inner: Any) -> bool:
        """Whether an optional part is written: it holds a group that has a value not written yet, or text other
        than blanks and no group without a value (DeepSeek's ``(?:function)?``; not Mistral's ``[CALL_ID]`` with no
        id)."""
        if self._holds_unused_group(inner):
            return True
        if self._named_groups(inner):
            return False
        speller = _Speller({}, split=False)
        speller.names = self.names
        speller.items(inner)
        return bool("".join(speller.spelled).strip())

    def sample(self, op: Any, argument: Any) -> str:
        if op is _sre.LITERAL:
            return chr(argument)
        if op is _sre.AT:
            return ""
        if op is _sre.IN:
            for kind, value in argument:
                if kind is _sre.LITERAL:
                    return chr(value)
                if kind is _sre.RANGE:
                    return chr(value[0])
                if kind is _sre.CATEGORY and value in _CATEGORY_SAMPLES:
                    return _CATEGORY_SAMPLES[value]
        if op is _sre.BRANCH:
            speller = _Speller(self.values, split=False)
            speller.names = self.names
            speller.items(argument[1][0])
            return "".join(speller.spelled)
        if op is _sre.GROUPREF:
            return self.groups.get(argument, "")
        raise ValueError(f"cannot spell the pattern's {op} before the tool's name")

    def regex(self, op: Any, argument: Any) -> str:
        if op is _sre.LITERAL:
            return re.escape(chr(argument))
        if op is _sre.NOT_LITERAL:
            return "[^" + _class_char(argument) + "]"
        if op is _sre.ANY:
            return r"[\s\S]"
        if op is _sre.AT:
            return ""
        if op is _sre.IN:
            negate = bool(argument) and argument[0][0] is _sre.NEGATE
            parts = []
            for kind, value in argument[1:] if negate else argument:
                if kind is _sre.LITERAL:
                    parts.append(_class_char(value))
                elif kind is _sre.RANGE:
                    parts.append(_class_char(value[0]) + "-" + _class_char(value[1]))
                elif kind is _sre.CATEGORY and value in _CATEGORY_CLASSES:
                    parts.append(_CATEGORY_CLASSES[value])
                elif kind is _sre.CATEGORY and value in _CATEGORY_NEGATED and not negate:
                    return "[^" + _CATEGORY_NEGATED[value] + "]"
                else:
                    raise ValueError(f"cannot write the pattern's class {kind} {value}")
            return "[" + ("^" if negate else "") + "".join(parts) + "]"
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            low, high, inner = argument
            body = "(?:" + "".join(self.regex(o, a) for o, a in inner) + ")"
            if (low, high) == (0, 1):
                return body + "?"
            if high is _sre.MAXREPEAT:
                return body + ("*" if low == 0 else "+" if low == 1 else f"{{{low},}}")
            return body + f"{{{low},{high}}}"
        if op is _sre.SUBPATTERN:
            return "(?:" + "".join(self.regex(o, a) for o, a in argument[3]) + ")"
        if op is _sre.BRANCH:
            return "(?:" + "|".join("".join(self.regex(o, a) for o, a in branch) for branch in argument[1]) + ")"
        if op is _sre.GROUPREF:
            return re.escape(self.groups.get(argument, ""))
        raise ValueError(f"cannot write the pattern's {op} as a regular expression")


def _walk(items: Any) -> Any:
    for op, argument in items:
        yield op, argument
        if op is _sre.SUBPATTERN:
            yield from _walk(argument[3])
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            yield from _walk(argument[2])
        elif op is _sre.BRANCH:
            for branch in argument[1]:
                yield from _walk(branch)


def _header(pattern: Optional[re.Pattern[str]], name: str) -> tuple[str, str]:
    """A call header naming ``name``: the text up to and with the name, and a regular expression for the rest."""
    if pattern is None:
        return name, ""
    spelled, rest = _Speller({"name": name}, split=True).walk(pattern)
    return spelled, rest


def _spell(pattern: re.Pattern[str], values: dict[str, str]) -> str:
    return _Speller(values, split=False).walk(pattern)[0]


def _joined(marker: str, text: str) -> str:
    """A marker and the header spelled after it, a blank between where both are words there (DeepSeek V3.2's
    ``<｜DSML｜parameter`` and ``name="..."``)."""
    if marker and text and marker[-1].isalnum() and text[0].isalnum():
        return marker + " " + text
    return marker + text


# --- Arguments -----------------------------------------------------------------------------------------------------


def _properties(schema: Schema) -> Optional[dict[str, Any]]:
    """A strict tool's parameters, where its schema lists them (else None: any arguments)."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else None


def _type_of(schema: Any) -> Optional[str]:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else None


def _string_word(syntax: ParameterSyntax, schema: Any, string: bool) -> str:
    """What a parameter's header says of its value in the ``string`` group: the syntax's word for a raw string for a
    string, else a word for JSON: ``"false"`` beside DSML's flag ``"true"``, the schema's type beside a word that
    names one (Kimi K3's ``type="string"``)."""
    raw = syntax.raw_strings[0]
    if string:
        return raw
    return "false" if raw == "true" else _type_of(schema) or "object"


def _parameters(format: ToolCallFormat, schema: Schema, excludes: list[str]) -> dict[str, Any]:
    """A ``"parameters"`` payload's blocks: a strict tool's listed parameters (each typed), in any order."""
    syntax = format.parameters
    assert syntax is not None
    properties = _properties(schema)
    if not properties:
        return {"type": "any_text", "excludes": excludes} if properties is None else _const("")
    blocks = []
    for key, property_schema in properties.items():
        string = _type_of(property_schema) == "string"
        header = _spell(syntax.header, {"name": key, "string": _string_word(syntax, property_schema, string)})
        begin = _joined(syntax.begin, header) + syntax.header_end
        # MiniMax-M3's value ends at its own name's end marker (closing_name).
        end = syntax.end + key + syntax.header_end if syntax.closing_name else syntax.end
        if string or (syntax.nested and _type_of(property_schema) in ("object", "array", None)):
            # A string's raw text; or an element tree (nested), held to its end marker, its shape not constrained.
            value_excludes = [end, *excludes]
            if syntax.next_parameter_ends_value:
                value_excludes.append(syntax.begin)
            value: dict[str, Any] = {"type": "any_text", "excludes": list(dict.fromkeys(value_excludes))}
        else:
            value = _sequence(_blanks(), _json(property_schema if isinstance(property_schema, dict) else True))
            value = _sequence(value, _blanks())
        if syntax.value_begin:  # GLM's <arg_value>, blanks around it
            value = _sequence(_blanks(), _const(syntax.value_begin), value)
        blocks.append(_tag(begin, value, end))
    required = schema.get("required") if isinstance(schema, dict) else None
    block = _sequence(_any_of(blocks), _blanks())
    return _sequence(_blanks(), {"type": "plus" if required else "star", "content": block})


def _literal_grammar(syntax: LiteralSyntax, schema: Schema) -> str:
    """An EBNF grammar of a ``"literal"`` payload's arguments (keyword arguments or an object literal's pairs)."""
    rules = [r"ws ::= [ \t\r\n]*", r'number ::= "-"? [0-9]+ ("." [0-9]+)? ([eE] [+\-]? [0-9]+)?']
    strings = []
    for number, quote in enumerate(syntax.quotes):
        first = json.dumps(quote[0])
        if len(quote) == 1 and syntax.escapes:
            char = f'[^{_ebnf_class(quote)}\\\\\\n] | "\\\\" [^\\n]'
        elif len(quote) == 1:
            char = f"[^{_ebnf_class(quote)}]"
        else:
            char = f"[^{_ebnf_class(quote[0])}] | {first} [^{_ebnf_class(quote[1])}]"
            if syntax.escapes:
                char = f'{char} | "\\\\" [^\\n]'
        if len(quote) == 3 and quote[0] == quote[1] == quote[2]:
            continue  # a triple-quoted string: models write the short quotes
        rules.append(f"string{number} ::= {json.dumps(quote)} ({char})* {json.dumps(quote)}")
        strings.append(f"string{number}")
    rules.append("string ::= " + " | ".join(strings))
    words: dict[str, list[str]] = {}
    for word, meaning in syntax.names:
        words.setdefault(meaning, []).append(json.dumps(word))
    for meaning, spellings in words.items():
        rules.append(f"word_{meaning} ::= " + " | ".join(spellings))
    rules.append("word ::= " + " | ".join(f"word_{meaning}" for meaning in words))
    nested_separator = ":" if syntax.python else syntax.separator
    key = "(string | number)" if syntax.python else "bare_key"
    rules += [
        "value ::= string | number | word | list | object" + (" | tuple" if syntax.python else ""),
        'list ::= "[" ws (value (ws "," ws value)* (ws ",")?)? ws "]"',
        'object ::= "{" ws (pair (ws "," ws pair)* (ws ",")?)? ws "}"',
        f"pair ::= {key} ws {json.dumps(nested_separator)} ws value",
        f"bare_key ::= [^{_ebnf_class(_key_stops(syntax))}]+",
    ]
    if syntax.python:
        rules.append('tuple ::= "(" ws (value (ws "," ws value)* (ws ",")?)? ws ")"')
    kinds = {"string": "string", "integer": "number", "number": "number", "array": "list", "object": "object"}
    properties = _properties(schema)
    if properties:
        arguments = []
        for number, (name, property_schema) in enumerate(properties.items()):
            kind = _type_of(property_schema)
            value = kinds.get(kind or "", "value")
            if kind == "boolean":
                value = "(word_true | word_false)"
            elif kind == "null":
                value = "word_null"
            rules.append(f"argument{number} ::= {json.dumps(name)} ws {json.dumps(syntax.separator)} ws {value}")
            arguments.append(f"argument{number}")
        rules.append("argument ::= " + " | ".join(arguments))
    else:
        rules.append(f"argument ::= bare_key ws {json.dumps(syntax.separator)} ws value")
    rules.insert(0, 'root ::= ws (argument (ws "," ws argument)*)? ws')
    return "\n".join(rules)


def _key_stops(syntax: LiteralSyntax) -> str:
    """The characters that end a bare key, from the syntax's ``key_end`` (a character class)."""
    stops = {char for char in map(chr, range(32, 127)) if syntax.key_end.match(char)}
    return "".join(sorted(stops | {" ", "\t", "\n", "\r"}))


def _ebnf_class(chars: str) -> str:
    return "".join(
        "\\" + char if char in '\\]^-["' else {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char, char) for char in chars
    )


def _arguments(format: ToolCallFormat, schema: Schema, excludes: list[str]) -> dict[str, Any]:
    if format.payload == "parameters":
        return _parameters(format, schema, excludes)
    if format.payload == "literal":
        assert format.literal is not None
        return {"type": "grammar", "grammar": _literal_grammar(format.literal, schema)}
    return _sequence(_blanks(), _json(schema), _blanks())


# --- Calls ---------------------------------------------------------------------------------------------------------


def call_markers(format: ToolCallFormat, name: str) -> tuple[str, str]:
    """What the format writes before a call's JSON arguments and after them, for a tool of this name (a call
    object's ``{"name": ..., "arguments": `` and ``}``): SGLang's ``StructureInfo``. Only for formats whose arguments
    are JSON between two markers."""
    if format.payload not in ("call", "arguments") or format.channels is not None:
        raise ValueError(f"the {format.name!r} format's arguments are not JSON between two markers")
    if format.payload == "call":
        return (format.call_begin or "") + _call_object_begin(format, name), "}" + (format.call_end or "")
    header, _ = _header(format.header, name)
    begin = _joined(format.call_begin or "", header) + (format.header_end or "")
    return begin, (format.arguments_end or "") + (format.call_end or "")


_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_OTHER_KEYS = rf"(?:{_JSON_STRING}{_BLANKS}:{_BLANKS}(?:{_JSON_STRING}|-?[0-9]+){_BLANKS},{_BLANKS})*"


def legacy_structure(format: ToolCallFormat, name: str) -> tuple[str, str, str]:
    """A call of this tool as xgrammar's older structural tag writes it: the text before its JSON arguments, the
    text after them, and the trigger (a prefix of the first) that starts it: the call's own section around it
    (SGLang's ``StructureInfo``). Only for formats whose arguments are JSON between two markers."""
    begin, end = call_markers(format, name)
    trigger = format.call_begin or ""
    if format.section_begin:
        array = format.call_begin is None and format.payload == "call" and not format.separators
        begin = format.section_begin[0] + ("[" if array else "") + begin
        end = end + ("]" if array else "") + (format.section_end[0] if format.section_end else "")
        trigger = format.section_begin[0]
    return begin, end, trigger or begin


def _call_object_begin(format: ToolCallFormat, name: str) -> str:
    return f"{{{json.dumps(format.name_keys[0])}: {json.dumps(name)}, {json.dumps(format.arguments_keys[0])}: "


def _in_section(format: ToolCallFormat) -> bool:
    return bool(format.section_begin or format.output_section_begin or format.section_end)


def _call(format: ToolCallFormat, name: str, schema: Schema) -> tuple[str, dict[str, Any], Union[str, list[str]]]:
    """One tool's call: the text it begins with (to the tool's name, where the name is spelled in it), what follows,
    and the text that ends it."""
    excludes = [marker for marker in (format.call_end, *format.section_end) if marker]
    end: Union[str, list[str]] = format.call_end or ""
    if format.call_end and _in_section(format):
        end = [format.call_end, format.call_end + "\n"]  # the calls of a section, a line each or not
    if format.channels is not None:
        channels = format.channels
        begin = " ".join(
            (
                _spell(channels.channel, {"channel": _call_channel(format)}),
                _spell(channels.recipient, {"recipient": channels.recipient_prefix + name}),
            )
        )
        rest_of_header = _tag("", {"type": "any_text"}, channels.header_end)
        return begin, _sequence(rest_of_header, _arguments(format, schema, excludes)), end
    if format.payload == "call":
        # The object: keys the format does not read may come before the name (Cohere's "tool_call_id").
        body = _sequence(
            _blanks(),
            _const("{"),
            _blanks(),
            _regex(_OTHER_KEYS),
            _const(_call_object_begin(format, name)[1:]),
            _json(schema),
            _blanks(),
        )
        if format.call_begin is None:  # the object's closing brace ends the call
            return "", body, "}"
        return format.call_begin, _sequence(body, _const("}"), _blanks()), end
    header, rest = _header(format.header, name)
    literal_end = None
    if format.literal is not None:
        if format.call_end:
            literal_end = _const(format.literal.end)
        else:
            end = format.literal.end
    return (
        _joined(format.call_begin or "", header),
        _sequence(
            _regex(rest) if rest else None,
            _header_end(format),
            _arguments(format, schema, excludes),
            _const(format.arguments_end) if format.arguments_end else None,
            _blanks() if format.arguments_end else None,
            literal_end,
        ),
        end,
    )


def _header_end(format: ToolCallFormat) -> Optional[dict[str, Any]]:
    if not format.header_end:
        return None
    if format.json_ends_header:  # Mistral's NAME{...}: the arguments' brace ends the header
        return {"type": "optional", "content": _const(format.header_end)}
    return _const(format.header_end)


def _call_objects(format: ToolCallFormat, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Call objects right after ``call_begin`` (Mistral's ``[TOOL_CALLS][{"name": ..., "arguments": ...}]``): a
    JSON array of them, or one (a tag each, ended by the closing bracket or brace)."""
    assert format.call_begin is not None
    opened = [_sequence(_const(_call_object_begin(format, name)), _json(schema), _blanks()) for name, schema in tools]
    one = _sequence(_any_of(opened), _const("}"))
    more = {"type": "star", "content": _sequence(_blanks(), _const(","), _blanks(), one)}
    array = _sequence(_blanks(), _const("["), _blanks(), one, more, _blanks())
    return [_tag(format.call_begin, array, "]"), _tag(format.call_begin, _sequence(_blanks(), _any_of(opened)), "}")]


def _call_channel(format: ToolCallFormat) -> str:
    """The channel a Harmony call's message is in: the last of the channels whose messages are content
    (``commentary``; the first, ``final``, is the answer's)."""
    assert format.channels is not None
    return [channel for channel, kind in format.channels.kinds if kind == "content"][-1]


def _calls(format: ToolCallFormat, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The format's call tags for these tools: one tag per text a call begins with, the tools' calls that begin
    alike (Hermes' ``<tool_call>``: the name is in the object that follows) told apart inside it."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    ends: dict[str, Union[str, list[str]]] = {}
    for name, schema in tools:
        begin, rest, end = _call(format, name, schema)
        grouped.setdefault(begin, []).append(rest)
        ends[begin] = end
    tags = [_tag(begin, _any_of(contents), ends[begin]) for begin, contents in grouped.items()]
    if format.call_objects_after_begin and format.call_begin:
        tags += _call_objects(format, tools)
    return tags


def has_structural_tag(format: ToolCallFormat) -> bool:
    """Whether the format's calls can be written as a structural tag (its header patterns spelled)."""
    try:
        structural_tag(format, [("f", True)])
    except ValueError:
        return False
    return True


def structural_tag(
    format: ToolCallFormat,
    tools: Sequence[ToolSpec],
    choice: str = "required",
    parallel: bool = True,
    reasoning: bool = False,
) -> dict[str, Any]:
    """The structural tag for a request's tools in this format: ``choice`` ``"required"`` (one call or more, and
    nothing else), ``"forced"`` (one call of the one tool given), or ``"auto"`` (text, and calls where the format's
    marker opens them; for a format whose calls open the output with no marker, the calls or any text). ``parallel``
    False: one call at most (Harmony's ``<|call|>`` ends the turn: one call always). ``reasoning``: the tag covers
    the format's reasoning block too (any text up to its end marker, first)."""
    if choice not in ("required", "forced", "auto"):
        raise ValueError(f"choice is 'required', 'forced' or 'auto', not {choice!r}")
    if not tools:
        raise ValueError("a structural tag constrains the calls of at least one tool")
    single = choice == "forced" or not parallel or format.channels is not None
    calls = _calls(format, tools)

    def listed(tags: list[dict[str, Any]], separator: str = "") -> dict[str, Any]:
        return {
            "type": "tags_with_separator",
            "tags": tags,
            "separator": separator,
            "at_least_one": True,
            "stop_after_first": single,
        }

    section: Optional[dict[str, Any]] = None  # the tag of a section of calls
    required: dict[str, Any] = listed(calls)
    if _in_section(format):
        section_begin = (format.section_begin or format.output_section_begin)[0]
        section_end = format.section_end[0] if format.section_end else ""
        array = format.call_begin is None and format.payload == "call" and not format.separators
        array = array or format.section_brackets  # (a list of the pythonic literal's calls)
        separators = "," if array else format.separators
        inner = _section_calls(format, calls, separators, single)
        if array:  # call objects in a JSON array (Mistral's older spelling, Granite, Cohere)
            inner = _sequence(_blanks(), _const("["), inner, _blanks())
            if section_end:
                inner = _sequence(inner, _const("]"), _blanks())
            else:
                section_end = "]"
        if section_end:
            ends = [section_end, *(section_end + marker for marker in format.ignored_markers)]
            section = _tag(section_begin, inner, ends if len(ends) > 1 else section_end)
            required = listed([section])
        else:  # a section that ends where its calls do (Llama 3's): its marker may be left out
            required = _sequence({"type": "optional", "content": _const(section_begin)}, inner)
    if choice != "auto":
        return _with_reasoning(format, required, reasoning)
    if section is not None and format.section_begin:
        trigger, tags = format.section_begin[0], [section]
    else:
        trigger, tags = _common_prefix([tag["begin"] for tag in calls]), calls
    if not trigger or format.output_section_begin and not format.section_begin:
        # Calls that open the output with no marker (the pythonic list): the calls, or any text.
        return _with_reasoning(format, {"type": "or", "elements": [required, {"type": "any_text"}]}, reasoning)
    one_call = choice == "forced" or not parallel  # Harmony's messages may go on after its call's
    auto = {"type": "triggered_tags", "triggers": [trigger], "tags": tags, "stop_after_first": one_call}
    return _with_reasoning(format, auto, reasoning)


def _section_calls(
    format: ToolCallFormat, calls: list[dict[str, Any]], separators: str, single: bool
) -> dict[str, Any]:
    """A section's calls: blanks, one of the ``separators`` (Llama 3's ";", the pythonic list's ",") and the
    format's ignored markers (Step-3's wrapper of each call) between them, as the format reads them."""
    gap_items: list[dict[str, Any]] = [_blanks()]
    if format.ignored_markers:
        markers = _any_of([_const(marker) for marker in format.ignored_markers])
        gap_items.append({"type": "star", "content": _sequence(markers, _blanks())})
    gap = _sequence(*gap_items)
    call = _any_of(calls)
    if single:
        return _sequence(gap, call, gap)
    between = gap
    if separators:
        separator = _any_of([_const(char) for char in separators])
        between = _sequence(_blanks(), {"type": "optional", "content": separator}, gap)
    return _sequence(gap, call, {"type": "star", "content": _sequence(between, call)}, gap)


def _common_prefix(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def _with_reasoning(format: ToolCallFormat, calls: dict[str, Any], reasoning: bool) -> dict[str, Any]:
    if reasoning and format.reasoning is not None:
        calls = _sequence(_tag("", {"type": "any_text"}, format.reasoning[1]), calls)
    return {"type": "structural_tag", "format": calls}
