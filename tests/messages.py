"""The error messages a user (or a model sent them) reads, written out as the tests expect them.

A message names the problem, then quotes the text. Where the problem is a syntax error, the reason is the json module's
own: what ``json.loads`` with a decoder class says (the library passes options, which take that path; PyPy's
option-less ``json.loads`` has a decoder of its own that words some errors differently).
"""

from __future__ import annotations

import json
import re
from typing import Optional


def json_reason(text: str) -> str:
    """What the json module says about ``text``, which must not parse."""
    try:
        json.loads(text, cls=json.JSONDecoder)
    except (ValueError, RecursionError) as error:
        return str(error)
    raise AssertionError(f"{text!r} parses")


def not_valid_json(text: str, reason: Optional[str] = None) -> str:
    """A tool call's error for arguments that do not parse: ``reason`` (the json module's, by default), the text."""
    return f"Tool call arguments are not valid JSON: {reason or json_reason(text)}.\nReceived arguments: {text}"


def output_not_valid_json(text: str, reason: Optional[str] = None) -> str:
    """Structured output's error for text that does not parse, as :func:`not_valid_json`."""
    return f"Structured output is not valid JSON: {reason or json_reason(text)}.\nReceived output: {text}"


def not_an_object(text: str, kind: str) -> str:
    """The error for tool-call arguments that parse to something other than an object (``kind``: "an array")."""
    return f"Tool call arguments must be a JSON object, not {kind}.\nReceived arguments: {text}"


def is_tool_call_error(message: Optional[str], text: str) -> bool:
    """Whether ``message`` is one of the two tool-call errors for ``text``, whatever the reason."""
    kinds = "an array|a string|a number|a boolean|null"
    problem = rf"Tool call arguments (are not valid JSON: .+|must be a JSON object, not ({kinds}))\."
    return (
        message is not None
        and re.fullmatch(problem + r"\nReceived arguments: " + re.escape(text), message, re.S) is not None
    )
