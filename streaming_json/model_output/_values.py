"""A parameter's text as JSON: typed by its schema's types, or read as a Python or Gemma literal.

The rules are the servers' (each function says whose), with two differences everywhere: a number's or a JSON value's
text goes out as the model wrote it (nothing re-serialised), and a text that fits none of the value's types gives
None, for the caller to end the call with an error naming the parameter (never a silently wrong type).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from typing import Any, Optional, Union

from ._schemas import ORDER, container_schema, schema_types

__all__ = ["typed_json", "repaired_typed_json", "element_value_json", "python_literal_json", "gemma_literal_json"]
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_BLANKS = " \t\n\r"


def typed_json(text: str, types: frozenset[str]) -> Optional[str]:
    """The JSON of a raw text value typed by ``types``, in vLLM's order (null, integer, number, boolean, object,
    array, string): a number's and a JSON value's text as written (blanks around it dropped), ``true``/``false`` for
    a boolean written in any case, ``null`` for ``null`` or Python's ``None``, an object or array also as a Python
    literal; None where the text is none of its types."""
    stripped = text.strip(_BLANKS)
    for name in ORDER:
        if name not in types:
            continue
        if name == "null":
            if stripped.lower() == "null" or stripped == "None":
                return "null"
        elif name == "integer" or name == "number":
            number = _NUMBER.fullmatch(stripped) is not None and math.isfinite(float(stripped))
            if number and (name == "number" or _INTEGER.fullmatch(stripped) or float(stripped).is_integer()):
                return stripped
        elif name == "boolean":
            lowered = stripped.lower()
            if lowered == "true" or lowered == "false":
                return lowered
        elif name == "object" or name == "array":
            found = _container_json(stripped, dict if name == "object" else list)
            if found is not None:
                return found
        else:
            return json.dumps(text, ensure_ascii=False)
    return None


def repaired_typed_json(text: str, types: frozenset[str]) -> Optional[tuple[str, str]]:
    """A raw text value that is none of ``types`` as written, read as one of them after one well-known unwrapping,
    and the repair's name (the consumer side's names, ``streaming_json.pydantic``'s ``repairs``): a number in
    quotes (``"42"``: ``string_to_int``, ``string_to_float``), or an object or array written as the content of a JSON
    string (``[{\\"id\\": \\"1\\"}]``: ``escaped_json``), as SGLang 0.5.23's GLM detectors read them; None where
    neither makes it fit."""
    stripped = text.strip(_BLANKS)
    numbers = types & {"integer", "number"}
    if numbers and len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        found = typed_json(stripped[1:-1], numbers)
        if found is not None:
            return found, "string_to_int" if _INTEGER.fullmatch(found) and "integer" in types else "string_to_float"
    containers = types & {"object", "array"}
    if containers and '\\"' in stripped:
        try:
            unescaped = json.loads(f'"{stripped}"')
        except (ValueError, RecursionError):
            return None
        found = typed_json(unescaped, containers)
        if found is not None:
            return found, "escaped_json"
    return None


_MAX_ELEMENT_DEPTH = 128  # (vLLM 0.33 minimax_m3.py's MAX_ELEMENT_DEPTH)
# An element's content: its text (a leaf), or its elements in order, (name, content), and the text between them.
_Content = Union[str, tuple[list[tuple[str, Any]], str]]


def element_value_json(text: str, markers: tuple[str, str, str], schema: Optional[tuple[Any, Any]]) -> Optional[str]:
    """The JSON of a value that may be an element tree (MiniMax-M3): ``markers`` are the element's begin, end and
    header end (``]<]minimax[>[<``, ``]<]minimax[>[</``, ``>``); ``schema``, the parameter's schema and its root, or
    None. A leaf is typed by its schema (a string without one; an empty element ``[]`` or ``{}`` where the schema
    is an array or an object and not a string); elements are an object, an array where the schema says so (each
    element an item), a name given twice a list, text beside elements under ``$text`` (vLLM 0.33
    ``vllm/parser/minimax_m3.py``). None where the elements are malformed or a leaf fits none of its types."""
    parsed = _element_content(text, 0, None, markers, 1)
    if parsed is None:
        return None
    return _content_json(parsed[0], schema[0] if schema is not None else None, schema[1] if schema else None)


def _element_content(
    text: str, position: int, closing: Optional[str], markers: tuple[str, str, str], depth: int
) -> Optional[tuple[_Content, int]]:
    """An element's content from ``position`` up to ``closing`` (its end marker, name and header end; None: the
    text's end) and where it ends, or None where it is malformed."""
    begin, end, header_end = markers
    children: list[tuple[str, Any]] = []
    parts: list[str] = []
    while True:
        at = text.find(begin, position)
        if at < 0:
            if closing is not None:
                return None
            parts.append(text[position:])
            position = len(text)
            break
        parts.append(text[position:at])
        if text.startswith(end, at):
            if closing is None or not text.startswith(closing, at):
                return None
            position = at + len(closing)
            break
        name_end = text.find(header_end, at + len(begin))
        name = text[at + len(begin) : name_end] if name_end >= 0 else ""
        if not name.strip(_BLANKS) or depth >= _MAX_ELEMENT_DEPTH:
            return None
        inner = _element_content(text, name_end + len(header_end), end + name + header_end, markers, depth + 1)
        if inner is None:
            return None
        children.append((name, inner[0]))
        position = inner[1]
    body = "".join(parts)
    return (body if not children else (children, body)), position


def _content_json(content: _Content, schema: Any, root: Any) -> Optional[str]:
    container = container_schema(schema, root) if isinstance(schema, Mapping) else None
    if isinstance(content, str):
        if not isinstance(schema, Mapping):
            return json.dumps(content, ensure_ascii=False)
        types = schema_types(schema, root)
        if container is not None and "string" not in types and not content.strip(_BLANKS):
            return "[]" if container[0] == "array" else "{}"
        return typed_json(content, types)
    children, body = content
    if container is not None and container[0] == "array":
        items = [_content_json(child, container[1].get("items"), root) for _, child in children]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    object_schema = container[1] if container is not None else {}
    properties = object_schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    additional = object_schema.get("additionalProperties")
    values: dict[str, list[str]] = {}
    for name, child in children:
        found = _content_json(child, properties.get(name, additional), root)
        if found is None:
            return None
        values.setdefault(name, []).append(found)
    if body.strip(_BLANKS):  # text beside the elements, under a name no element has
        field = "$text"
        while field in values:
            field = "$" + field
        values[field] = [json.dumps(body, ensure_ascii=False)]
    members = (
        json.dumps(name, ensure_ascii=False) + ": " + (found[0] if len(found) == 1 else "[" + ", ".join(found) + "]")
        for name, found in values.items()
    )
    return "{" + ", ".join(members) + "}"


def _container_json(text: str, kind: type) -> Optional[str]:
    """A JSON object's or array's text as written; or a Python literal's JSON (SGLang 0.5.23 reads these values
    with ``ast.literal_eval`` where ``json.loads`` fails)."""
    if not text or text[0] not in "{[(":
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        found = python_literal_json(text)
        if found is None:
            return None
        value = json.loads(found)
        return found if isinstance(value, kind) else None
    if isinstance(value, kind) and _finite(value):
        return text
    return None


def _finite(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, RecursionError):
        return False
    return True


class _NotLiteral(Exception):
    pass


def python_literal_json(text: str) -> Optional[str]:
    """The JSON of a Python literal's text, by vLLM 0.33's rules for pythonic arguments (``get_parameter_value``):
    strings, numbers, ``True``/``False``/``None`` and JSON's ``true``/``false``/``null``, lists, tuples and sets as
    arrays, dicts, signed numbers, f-strings without placeholders; None where the text is none of these. A number
    written as JSON writes it goes out as written."""
    stripped = text.strip(_BLANKS)
    if _NUMBER.fullmatch(stripped):
        return stripped if math.isfinite(float(stripped)) else None
    try:
        node = ast.parse(stripped, mode="eval").body
        return json.dumps(_literal(node), ensure_ascii=False, allow_nan=False)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, _NotLiteral):
        return None


_NAMES = {"true": True, "false": False, "null": None}


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, (str, int, float)):
            return node.value
        raise _NotLiteral
    if isinstance(node, ast.Dict):
        if not all(isinstance(key, ast.Constant) for key in node.keys):
            raise _NotLiteral
        return {key.value: _literal(value) for key, value in zip(node.keys, node.values)}  # type: ignore[union-attr]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_literal(element) for element in node.elts]
    if isinstance(node, ast.JoinedStr) and all(isinstance(part, ast.Constant) for part in node.values):
        return "".join(str(part.value) for part in node.values)  # type: ignore[attr-defined]
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    raise _NotLiteral


def gemma_literal_json(text: str, quote: str, names: Any) -> Optional[str]:
    """The JSON of a value in Gemma 4's literal syntax: strings between ``quote`` (no escapes), bare keys before
    ``:``, ``{...}`` and ``[...]``, bare words (``names``, numbers as written, any other word a string, as SGLang
    0.5.23's ``_parse_gemma4_value`` reads it); None where the text is not one whole value."""
    try:
        found, end = _gemma_value(text, _skip_blanks(text, 0), quote, names, 0)
    except (_NotLiteral, RecursionError):
        return None
    return found if _skip_blanks(text, end) == len(text) else None


def _skip_blanks(text: str, position: int) -> int:
    length = len(text)
    while position < length and text[position] in _BLANKS:
        position += 1
    return position


def _gemma_value(text: str, position: int, quote: str, names: Any, depth: int) -> tuple[str, int]:
    """One value at ``position``: its JSON and where it ends."""
    if depth > 64 or position >= len(text):
        raise _NotLiteral
    if text.startswith(quote, position):
        end = text.find(quote, position + len(quote))
        if end < 0:
            raise _NotLiteral
        return json.dumps(text[position + len(quote) : end], ensure_ascii=False), end + len(quote)
    char = text[position]
    if char == "{" or char == "[":
        closing = "}" if char == "{" else "]"
        parts: list[str] = []
        position = _skip_blanks(text, position + 1)
        while not text.startswith(closing, position):
            if char == "{":
                colon = text.find(":", position)
                if colon < 0:
                    raise _NotLiteral
                key = text[position:colon].strip(_BLANKS)
                if key.startswith(quote) and key.endswith(quote) and len(key) >= 2 * len(quote):
                    key = key[len(quote) : -len(quote)]
                if not key or quote in key:
                    raise _NotLiteral
                value, position = _gemma_value(text, _skip_blanks(text, colon + 1), quote, names, depth + 1)
                parts.append(f"{json.dumps(key, ensure_ascii=False)}: {value}")
            else:
                value, position = _gemma_value(text, position, quote, names, depth + 1)
                parts.append(value)
            position = _skip_blanks(text, position)
            if text.startswith(",", position):
                position = _skip_blanks(text, position + 1)
            elif not text.startswith(closing, position):
                raise _NotLiteral
        body = ", ".join(parts)
        return ("{" + body + "}" if char == "{" else "[" + body + "]"), position + 1
    end = position
    length = len(text)
    while end < length and text[end] not in ",}]" and not text.startswith(quote, end):
        end += 1
    word = text[position:end].strip(_BLANKS)
    if not word:
        raise _NotLiteral
    return bare_word_json(word, names), end


def bare_word_json(word: str, names: Any) -> str:
    """A bare word's JSON: one of ``names`` (``true``, ``null``...), a number as written, else the word as a
    string."""
    named = names.get(word)
    if named is not None:
        return str(named)
    if _NUMBER.fullmatch(word) and math.isfinite(float(word)):
        return word
    return json.dumps(word, ensure_ascii=False)
