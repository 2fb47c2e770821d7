"""Strict parsing of complete text, with the one repair that LLM output commonly needs.

``repair_json`` fixes only what breaks inside strings (raw control characters, stray backslashes); everything outside
strings is left alone, so a repaired text parses exactly when its structure was already valid JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from ._shared import ToolCallResult

__all__ = ["repair_json", "parse_json_with_repair", "parse_tool_call_arguments"]

_NAMED_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_VALID_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# A run of string characters that need no repair: anything but the quote, the backslash and control characters.
_PLAIN_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_QUOTE = re.compile(r'"')
_JSON_WHITESPACE = " \t\n\r"


def _control_escape(char: str) -> str:
    return _NAMED_CONTROL_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _starts_valid_escape(text: str, backslash: int) -> bool:
    following = text[backslash + 1 : backslash + 2]
    if following == "u":
        digits = text[backslash + 2 : backslash + 6]
        return len(digits) == 4 and all(digit in _HEX_DIGITS for digit in digits)
    return following != "" and following in _VALID_SIMPLE_ESCAPES


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and double backslashes that start no valid escape.

    A lone backslash at the very end becomes two. Text outside strings is returned unchanged.
    """
    out: list[str] = []
    position = 0
    length = len(text)
    while position < length:
        quote = _QUOTE.search(text, position)
        if quote is None:  # the rest is outside any string
            out.append(text[position:])
            break
        out.append(text[position : quote.end()])
        position = quote.end()
        # Inside a string: copy plain runs, repair what breaks a strict parse, stop after the closing quote.
        while position < length:
            run = _PLAIN_STRING_RUN.match(text, position)
            if run is not None:
                out.append(run.group())
                position = run.end()
                continue
            char = text[position]
            if char == '"':
                out.append(char)
                position += 1
                break
            if char == "\\":
                if _starts_valid_escape(text, position):
                    escape_length = 6 if text[position + 1] == "u" else 2
                    out.append(text[position : position + escape_length])
                    position += escape_length
                else:
                    out.append("\\\\")
                    position += 1
                continue
            out.append(_control_escape(char))
            position += 1
    return "".join(out)


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _int_or_float(digits: str) -> Any:
    # An integer too long for int() (the interpreter's digit limit) reads as a float instead of raising.
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def _strict_loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant, parse_int=_int_or_float)


def parse_json_with_repair(text: str) -> Any:
    """Parse complete JSON text strictly (RFC 8259: no ``NaN`` or ``Infinity``), repairing strings if that helps.

    Raises ``ValueError`` (``json.JSONDecodeError`` for syntax errors) when neither the text nor its repair parses;
    the error is the one the original text gave.
    """
    try:
        return _strict_loads(text)
    except ValueError as first_error:
        repaired = repair_json(text)
        if repaired == text:
            raise
        try:
            return _strict_loads(repaired)
        except ValueError:
            raise first_error from None


def parse_tool_call_arguments(text: str) -> ToolCallResult:
    """Parse a tool call's complete argument text.

    Empty or blank text gives ``{}`` with no error. Text that does not parse, or is not a JSON object, gives ``{}``
    and an error message that names the problem and ends with ``Received arguments:`` and the text.
    """
    if not text.strip(_JSON_WHITESPACE):  # blank: nothing but what a JSON parser skips
        return ToolCallResult({}, None)
    try:
        value = parse_json_with_repair(text)
    except (ValueError, RecursionError) as error:
        problem = f"Tool call arguments are not valid JSON: {error}"
    else:
        if isinstance(value, dict):
            return ToolCallResult(value, None)
        problem = f"Tool call arguments must be a JSON object, not {_json_type_name(value)}"
    return ToolCallResult({}, f"{problem}.\nReceived arguments: {text}")


def _json_type_name(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
