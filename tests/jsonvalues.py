"""Comparing JSON values as the conformance README says, and copying them for immutability checks."""

from __future__ import annotations

import math
from typing import Any

# The reference has only doubles: integers beyond this magnitude are the nearest double there.
_EXACT_INTEGER_LIMIT = 2**53


def from_vector(value: Any) -> Any:
    """A vector's JSON value as the library gives it: ``{"$nonfinite": ...}`` becomes a float infinity."""
    if isinstance(value, dict):
        if value.keys() == {"$nonfinite"}:
            return {"Infinity": math.inf, "-Infinity": -math.inf}.get(value["$nonfinite"], math.nan)
        return {key: from_vector(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_vector(item) for item in value]
    return value


def same_json(actual: Any, expected: Any) -> bool:
    """Equal as JSON values: ints exactly, other numbers as floats, bools never equal to numbers, dicts as maps."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        exact = isinstance(actual, int) and isinstance(expected, int)
        if exact and max(abs(actual), abs(expected)) <= _EXACT_INTEGER_LIMIT:
            return actual == expected
        return float(actual) == float(expected)
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(same_json(actual[k], expected[k]) for k in actual)
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(same_json(a, e) for a, e in zip(actual, expected))
    return type(actual) is type(expected) and actual == expected


def identical_json(actual: Any, expected: Any) -> bool:
    """Equal with exact types (int is not float) and key order: what ``json.loads`` would give."""
    if type(actual) is not type(expected):
        return False
    if isinstance(actual, dict):
        return list(actual) == list(expected) and all(identical_json(actual[k], expected[k]) for k in actual)
    if isinstance(actual, list):
        return len(actual) == len(expected) and all(identical_json(a, e) for a, e in zip(actual, expected))
    if isinstance(actual, float) and math.isnan(actual):
        return math.isnan(expected)
    return bool(actual == expected)


def text_copy(text: str) -> str:
    """A new str equal to ``text`` (slicing a whole str gives the str itself)."""
    return (text + ".")[:-1]


def deep_copy(value: Any) -> Any:
    """A deep copy that does not recurse (values may be nested a million levels). Its strs are new objects too: a
    parser that grew a str it showed in place would show in the copy."""
    if isinstance(value, str):
        return text_copy(value)
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, (dict, list)):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
            else:
                copy = text_copy(item) if isinstance(item, str) else item
            if isinstance(target, dict):
                target[key] = copy
            else:
                target.append(copy)
    return root
