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
from typing import Any, Optional

from ._schemas import ORDER

__all__ = ["typed_json", "repaired_typed_json", "python_literal_json", "gemma_literal_json"]
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
