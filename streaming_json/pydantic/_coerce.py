"""Schema-aligned coercion (``ModelStream(type_, coerce=True)``): what models write, read as the schema says, and every
repair named with its place.

Two readings, one rule each:

- ``align(node, value, path, repairs)``: a JSON value made to fit the plan's node where it does not (a string for a
  number or boolean, one value for a list, an enum value in another case or cut short); a value that fits is left as
  it is. The stream aligns each completed scalar, and a completed container that failed validation; ``finish()``
  aligns the whole value once.
- ``read_text(text)``: the complete text read as JSON where it is not quite JSON (an object in a markdown fence or in
  prose, comments, trailing commas, Python literals), once, at ``finish()``; the stream's partial values come from
  the parser's own lenient reading (``prose=True``).

Repairs are ``(path, kind)``; the kinds are the names in :data:`REPAIR_KINDS`.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any, Optional

from .._shared import Key
from ._annotations import is_enum, is_literal
from ._collections import MappingNode, SequenceNode
from ._nodes import AnyNode, Done, Node, Opaque, ScalarNode
from ._objects import ObjectNode, RootModelNode
from ._unions import UnionNode

__all__ = ["align", "read_text", "REPAIR_KINDS", "Repairs"]

Repairs = list[tuple[tuple[Key, ...], str]]

REPAIR_KINDS = (
    "string_to_int",  # "30" for an integer
    "string_to_float",  # "1.5" for a number
    "string_to_bool",  # "true" for a boolean
    "single_to_list",  # one value where the schema says a list
    "enum_case",  # "High" for the enum value "high"
    "enum_prefix",  # "hi" for the only enum value starting so, once complete
    "from_fence",  # the JSON was inside a markdown fence
    "from_prose",  # the JSON was inside prose
    "comment",  # a // or /* */ or # comment was dropped
    "trailing_comma",  # a comma before a closing bracket was dropped
    "python_literal",  # True/False/None or a 'single-quoted' string was read as JSON
)

_INT = re.compile(r"\s*[-+]?[0-9]+\s*\Z")
_FLOAT = re.compile(r"\s*[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*\Z")
_BOOLS = {"true": True, "false": False}


def align(node: Node, value: Any, path: tuple[Key, ...], repairs: Repairs) -> Any:
    """``value`` made to fit ``node`` where it does not, each repair appended to ``repairs``; a value that fits, and
    one no repair makes fit, is returned as it is."""
    while isinstance(node, (Done, Opaque, RootModelNode)):
        node = node.inner
    if value is None or isinstance(node, AnyNode):
        return value
    kind = type(value)
    if isinstance(node, ObjectNode):
        if kind is not dict:
            return value
        out = value
        for key, member in value.items():
            fixed = align(node.child(key), member, (*path, key), repairs)
            if fixed is not member:
                if out is value:
                    out = dict(value)
                out[key] = fixed
        return out
    if isinstance(node, UnionNode):
        return _align_union(node, value, path, repairs)
    if isinstance(node, SequenceNode):
        if kind is not list:
            if node.item is None:  # a fixed tuple: no single item to wrap
                return value
            repairs.append((path, "single_to_list"))
            return [align(node.item, value, (*path, 0), repairs)]
        out_list = value
        for index, member in enumerate(value):
            fixed = align(node.child(index), member, (*path, index), repairs)
            if fixed is not member:
                if out_list is value:
                    out_list = list(value)
                out_list[index] = fixed
        return out_list
    if isinstance(node, MappingNode):
        if kind is not dict:
            return value
        out = value
        for key, member in value.items():
            fixed = align(node.child(key), member, (*path, key), repairs)
            if fixed is not member:
                if out is value:
                    out = dict(value)
                out[key] = fixed
        return out
    if isinstance(node, ScalarNode) and kind is str:
        return _align_string(node.base, value, path, repairs)
    return value


def _align_string(base: Any, value: str, path: tuple[Key, ...], repairs: Repairs) -> Any:
    """A string where the schema says a number, a boolean, an enum or a literal."""
    if base is bool:
        found = _BOOLS.get(value.strip().lower())
        if found is not None:
            repairs.append((path, "string_to_bool"))
            return found
    elif base is int:
        if _INT.match(value):
            repairs.append((path, "string_to_int"))
            return int(value)
        if _FLOAT.match(value) and float(value).is_integer():
            repairs.append((path, "string_to_int"))
            return int(float(value))
    elif base is float:
        if _FLOAT.match(value):
            repairs.append((path, "string_to_float"))
            return float(value)
    elif is_enum(base) or is_literal(base):
        choices = [m.value for m in base] if is_enum(base) else list(typing.get_args(base))
        names = [c for c in choices if type(c) is str]
        if value in choices:
            return value
        folded = value.strip().casefold()
        same = [c for c in names if c.casefold() == folded]
        if len(same) == 1:
            repairs.append((path, "enum_case"))
            return same[0]
        if folded:
            started = [c for c in names if c.casefold().startswith(folded)]
            if len(started) == 1:
                repairs.append((path, "enum_prefix"))
                return started[0]
    return value


def _align_union(node: UnionNode, value: Any, path: tuple[Key, ...], repairs: Repairs) -> Any:
    """A union's value: as it is where it validates; else the first member that a repair makes it fit."""
    if node.validate(value, value)[1]:
        return value
    for member in node.members:
        trial: Repairs = []
        fixed = align(member, value, path, trial)
        if fixed is not value and member.validate(fixed, fixed)[1]:
            repairs.extend(trial)
            return fixed
    return value


# --- The complete text ---------------------------------------------------------------------------------------------

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\r?\n(.*?)(?:```|\Z)", re.DOTALL)
_START = re.compile(r"[{\[]")
_TOKEN = re.compile(
    r"""(?P<string>"(?:[^"\\]|\\.)*")
    |(?P<single>'(?:[^'\\]|\\.)*')
    |(?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
    |(?P<comma>,(?=\s*[}\]]))
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<other>[^"'/\#A-Za-z_,]+|.)""",
    re.DOTALL | re.VERBOSE,
)
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}


def read_text(text: str) -> tuple[Optional[str], list[str], bool]:
    """The JSON text of the value in ``text`` (None where no value starts), the text repairs that took (kinds, in
    order of first use), and whether the value is complete: a text cut off inside its value never is."""
    kinds: list[str] = []
    body = text.strip()
    if body[:1] not in ("{", "["):
        fence = _FENCE.search(text)
        if fence is not None and _START.search(fence.group(1)):
            body = fence.group(1).strip()
            kinds.append("from_fence")
        else:
            start = _START.search(text)
            if start is None:
                return None, kinds, False
            body = text[start.start() :]
            kinds.append("from_prose")
    if body[:1] not in ("{", "["):
        start = _START.search(body)
        if start is None:
            return None, kinds, False
        body = body[start.start() :]
    parts: list[str] = []
    for match in _TOKEN.finditer(body):
        group = match.lastgroup
        token = match.group()
        if group == "comment":
            _note(kinds, "comment")
            parts.append(" ")
        elif group == "comma":
            _note(kinds, "trailing_comma")
        elif group == "single":
            _note(kinds, "python_literal")
            parts.append(json.dumps(_single_quoted(token[1:-1]), ensure_ascii=False))
        elif group == "word" and token in _PYTHON_WORDS:
            _note(kinds, "python_literal")
            parts.append(_PYTHON_WORDS[token])
        else:
            parts.append(token)
    joined = "".join(parts)
    try:
        _, end = json.JSONDecoder(strict=False).raw_decode(joined)
    except ValueError:
        return joined, kinds, False
    return joined[:end], kinds, True


def _single_quoted(inner: str) -> str:
    """The text of a Python single-quoted string's inside (its escapes as JSON reads them, ``\\'`` as a quote)."""
    try:
        return str(json.loads('"' + inner.replace("\\'", "'").replace('"', '\\"') + '"'))
    except ValueError:
        return inner


def _note(kinds: list[str], kind: str) -> None:
    if kind not in kinds:
        kinds.append(kind)
