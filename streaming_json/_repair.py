"""Strict parsing of complete text, with the one repair that LLM output commonly needs.

``repair_json`` fixes only what breaks inside strings (raw control characters, stray backslashes); everything outside
strings is left alone, so a repaired text parses exactly when its structure was already valid JSON.

A text that does not parse gets a ``JsonProblem``: ``incomplete`` where it is a prefix of some JSON text (it ended
inside a value: json's scanner wanted more where the text ended, or stopped inside a string, a literal or a number
that runs to the end), ``malformed`` otherwise, at the first character that cannot continue JSON. Only the tail after
json's error position is looked at, so telling the two apart costs nothing per character.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn, Optional

from ._shared import JsonParseError, JsonProblem, ToolCallResult

__all__ = ["repair_json", "parse_json_with_repair", "parse_tool_call_arguments", "json_problem", "value_start"]

_NAMED_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_VALID_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# A run of string characters that need no repair: anything but the quote, the backslash and control characters.
_PLAIN_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_QUOTE = re.compile(r'"')
_JSON_WHITESPACE = " \t\n\r"
# A proper prefix of a JSON number that is not itself a number ("-", "1.", "1e", "1.5e+"), at the end of the text.
_NUMBER_PREFIX_AT_END = re.compile(r"(?:-|-?(?:0|[1-9][0-9]*)(?:\.|(?:\.[0-9]+)?[eE][-+]?))\Z")
_LITERALS = ("true", "false", "null")
_ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,4})?")
# Strings, blanked out so that a search for a constant finds it only outside them.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)


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
    return _repair(text, None)


def _repair(text: str, anchors: Optional[list[tuple[int, int]]]) -> str:
    """:func:`repair_json`; where ``anchors`` is a list, it gets ``(offset in text, offset in the repair)`` after each
    repair, so that a position in the repaired text maps back to the text."""
    out: list[str] = []
    grown = 0  # how much longer the repair is than the text so far
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
                    grown += 1
                    if anchors is not None:
                        anchors.append((position, position + grown))
                continue
            escape = _control_escape(char)
            out.append(escape)
            position += 1
            grown += len(escape) - 1
            if anchors is not None:
                anchors.append((position, position + grown))
    return "".join(out)


class _NotJsonConstant(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not valid JSON")
        self.name = name


def _reject_constant(name: str) -> NoReturn:
    raise _NotJsonConstant(name)


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

    Raises :class:`~streaming_json.JsonParseError` (a ``ValueError`` and a ``json.JSONDecodeError``) when neither
    the text nor its repair parses: its message and position are those of the original text's error, and its
    ``problem`` says whether the text was ``incomplete`` (cut off) or ``malformed``, and where.
    """
    try:
        return _strict_loads(text)
    except ValueError as first_error:
        anchors: list[tuple[int, int]] = []
        repaired = _repair(text, anchors)
        if repaired == text:
            raise _parse_error(text, first_error, text, first_error, anchors) from None
        try:
            return _strict_loads(repaired)
        except ValueError as error:
            # The repaired text says what is left wrong (a raw newline in a string that is cut off is not malformed)
            raise _parse_error(text, first_error, repaired, error, anchors) from None


def json_problem(text: str) -> Optional[JsonProblem]:
    """None where ``text`` parses (as :func:`parse_json_with_repair` parses it), else what is wrong with it."""
    try:
        parse_json_with_repair(text)
    except JsonParseError as error:
        return error.problem
    except RecursionError:
        return JsonProblem.at(text, "malformed", value_start(text), "nested too deeply to parse")
    return None


def _parse_error(
    text: str, original: ValueError, read: str, error: ValueError, anchors: list[tuple[int, int]]
) -> JsonParseError:
    """The error to raise for ``text``: the message and position of ``original`` (the text's own error), the problem
    of ``error`` (the error of ``read``, the text or its repair)."""
    problem = _problem(text, read, error, anchors)
    if isinstance(original, json.JSONDecodeError):
        return JsonParseError(original.msg, text, original.pos, problem)
    return JsonParseError(str(original), text, problem.offset, problem, formatted=str(original))


def _problem(text: str, read: str, error: ValueError, anchors: list[tuple[int, int]]) -> JsonProblem:
    if isinstance(error, _NotJsonConstant):
        offset = _STRING.sub(lambda string: " " * len(string.group()), read).find(error.name)
        return JsonProblem.at(text, "malformed", _in_text(max(offset, 0), read, text, anchors), str(error))
    if not isinstance(error, json.JSONDecodeError):  # pragma: no cover - json raises nothing else on str
        return JsonProblem.at(text, "malformed", 0, str(error))
    if _ends_inside_value(read, error.pos, error.msg):
        return JsonProblem.at(text, "incomplete", len(text), "the text ended inside a value")
    return JsonProblem.at(text, "malformed", _in_text(error.pos, read, text, anchors), error.msg)


def _ends_inside_value(text: str, position: int, message: str) -> bool:
    """Whether ``text``, where json's scanner failed at ``position`` with ``message``, is a prefix of JSON text."""
    rest = text[position:]
    if not rest.strip(_JSON_WHITESPACE):  # it wanted more where the text ended
        return True
    if message.startswith("Unterminated string"):  # a string runs to the end
        return True
    if message.startswith("Invalid \\"):  # an escape at the very end: json checks it before the missing quote
        return _ESCAPE_PREFIX.fullmatch(text, text.rfind("\\", 0, position + 1)) is not None
    if message == "Expecting value" and any(literal.startswith(rest) for literal in _LITERALS):
        return True  # "tr", "nul": a literal cut off
    number = _NUMBER_PREFIX_AT_END.search(text)
    # "1." or "-": a number cut off, which json stopped inside (or, where a value was due, at its start)
    return number is not None and (
        number.start() < position or (number.start() == position and message == "Expecting value")
    )


def _in_text(position: int, read: str, text: str, anchors: list[tuple[int, int]]) -> int:
    """A position in ``read`` (the text, or its repair) as a position in ``text``."""
    if read is text:
        return position
    base_text, base_read = 0, 0
    for in_text, in_read in anchors:
        if in_read > position:
            break
        base_text, base_read = in_text, in_read
    return min(base_text + position - base_read, len(text))


def value_start(text: str) -> int:
    """Where the value of ``text`` starts: its first character that is not blank."""
    return len(text) - len(text.lstrip(_JSON_WHITESPACE))


def parse_tool_call_arguments(text: str) -> ToolCallResult:
    """Parse a tool call's complete argument text.

    Empty or blank text gives ``{}`` with no error. Text that does not parse, or is not a JSON object, gives ``{}``,
    an error message that names the problem and ends with ``Received arguments:`` and the text, and ``problem``:
    ``incomplete`` (the text was cut off), ``malformed`` or ``not_object``, with where.
    """
    if not text.strip(_JSON_WHITESPACE):  # blank: nothing but what a JSON parser skips
        return ToolCallResult({}, None)
    try:
        value = parse_json_with_repair(text)
    except JsonParseError as error:
        message, problem = f"Tool call arguments are not valid JSON: {error}", error.problem
    except RecursionError as error:
        message = f"Tool call arguments are not valid JSON: {error}"
        problem = JsonProblem.at(text, "malformed", value_start(text), "nested too deeply to parse")
    else:
        if isinstance(value, dict):
            return ToolCallResult(value, None)
        message = f"Tool call arguments must be a JSON object, not {_json_type_name(value)}"
        problem = JsonProblem.at(text, "not_object", value_start(text), f"a JSON object, not {_json_type_name(value)}")
    return ToolCallResult({}, f"{message}.\nReceived arguments: {text}", problem)


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
